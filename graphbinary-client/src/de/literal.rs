//! Any `serde::Serialize` value as a gremlin-lang literal, for request parameters.
//!
//! Gremlin Server 4 takes parameters as gremlin-lang text (see
//! [`GremlinLiteral`](crate::client::GremlinLiteral)); [`to_literal`] renders serde's data
//! model into it: strings quoted and escaped exactly as `GremlinLiteral` does, integers and
//! floats with the suffix of their width, sequences as list literals, maps and structs as map
//! literals with quoted keys, `None` and unit as `null`, unit variants by name.

use std::fmt;

use serde::ser::{self, Serialize};

use crate::client::GremlinLiteral;

/// Why a value has no gremlin-lang literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralError(String);

impl fmt::Display for LiteralError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LiteralError {}

impl ser::Error for LiteralError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        LiteralError(msg.to_string())
    }
}

/// Renders `value` as a gremlin-lang literal.
///
/// ```
/// use serde::Serialize;
///
/// #[derive(Serialize)]
/// struct Person<'a> {
///     name: &'a str,
///     age: i32,
///     tags: Vec<&'a str>,
///     boss: Option<&'a str>,
/// }
/// let p = Person { name: "it's", age: 29, tags: vec!["a"], boss: None };
/// assert_eq!(
///     graphbinary_client::de::to_literal(&p).unwrap(),
///     r"['name':'it\'s','age':29i,'tags':['a'],'boss':null]"
/// );
/// ```
///
/// Unsigned integers take the narrowest signed width that holds them (`u32` is a Long); a
/// `u64` or `i128` beyond a Long is a BigInteger (`n` suffix). Bytes have no gremlin-lang
/// literal and are an error, as are map keys that are not strings, numbers or booleans.
pub fn to_literal<T: Serialize + ?Sized>(value: &T) -> Result<String, LiteralError> {
    let mut out = String::new();
    value.serialize(Lit { out: &mut out })?;
    Ok(out)
}

struct Lit<'o> {
    out: &'o mut String,
}

fn lit<T: GremlinLiteral + ?Sized>(out: &mut String, v: &T) -> Result<(), LiteralError> {
    v.write_literal(out);
    Ok(())
}

/// A list or map literal being written.
struct Compound<'o> {
    out: &'o mut String,
    first: bool,
    /// Close with this (`]`, or `]]` for a variant wrapped in a one-entry map).
    close: &'static str,
    /// Whether a map is empty so far (an empty map literal is `[:]`).
    map: bool,
}

impl Compound<'_> {
    fn sep(&mut self) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
    }
    fn finish(self) -> Result<(), LiteralError> {
        if self.map && self.first {
            self.out.push(':');
        }
        self.out.push_str(self.close);
        Ok(())
    }
}

/// `Serializer` methods that write the value's own [`GremlinLiteral`].
macro_rules! as_literal {
    ($($f:ident: $t:ty),*) => {$(
        fn $f(self, v: $t) -> Result<(), LiteralError> {
            lit(self.out, &v)
        }
    )*};
}

/// `Serializer` methods that write the literal of the value widened to another type.
macro_rules! widened_literal {
    ($($f:ident: $t:ty => $w:ty),*) => {$(
        fn $f(self, v: $t) -> Result<(), LiteralError> {
            lit(self.out, &<$w>::from(v))
        }
    )*};
}

impl<'o> ser::Serializer for Lit<'o> {
    type Ok = ();
    type Error = LiteralError;
    type SerializeSeq = Compound<'o>;
    type SerializeTuple = Compound<'o>;
    type SerializeTupleStruct = Compound<'o>;
    type SerializeTupleVariant = Compound<'o>;
    type SerializeMap = Compound<'o>;
    type SerializeStruct = Compound<'o>;
    type SerializeStructVariant = Compound<'o>;

    as_literal!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_f32: f32, serialize_f64: f64, serialize_char: char);
    fn serialize_i128(self, v: i128) -> Result<(), LiteralError> {
        match i64::try_from(v) {
            Ok(v) => lit(self.out, &v),
            Err(_) => {
                self.out.push_str(&v.to_string());
                self.out.push('n');
                Ok(())
            }
        }
    }
    // Unsigned integers take the narrowest signed width that holds them.
    widened_literal!(serialize_u8: u8 => i16, serialize_u16: u16 => i32, serialize_u32: u32 => i64);
    fn serialize_u64(self, v: u64) -> Result<(), LiteralError> {
        self.serialize_i128(v.into())
    }
    fn serialize_u128(self, v: u128) -> Result<(), LiteralError> {
        match i128::try_from(v) {
            Ok(v) => self.serialize_i128(v),
            Err(_) => {
                self.out.push_str(&v.to_string());
                self.out.push('n');
                Ok(())
            }
        }
    }
    fn serialize_str(self, v: &str) -> Result<(), LiteralError> {
        lit(self.out, v)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), LiteralError> {
        Err(LiteralError(
            "bytes have no gremlin-lang literal (send them as a list of numbers or a string)"
                .into(),
        ))
    }
    fn serialize_none(self) -> Result<(), LiteralError> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), LiteralError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), LiteralError> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), LiteralError> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), LiteralError> {
        lit(self.out, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<(), LiteralError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), LiteralError> {
        self.out.push('[');
        lit(self.out, variant)?;
        self.out.push(':');
        v.serialize(Lit { out: self.out })?;
        self.out.push(']');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'o>, LiteralError> {
        self.out.push('[');
        Ok(Compound {
            out: self.out,
            first: true,
            close: "]",
            map: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'o>, LiteralError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'o>, LiteralError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'o>, LiteralError> {
        self.out.push('[');
        lit(self.out, variant)?;
        self.out.push_str(":[");
        Ok(Compound {
            out: self.out,
            first: true,
            close: "]]",
            map: false,
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'o>, LiteralError> {
        self.out.push('[');
        Ok(Compound {
            out: self.out,
            first: true,
            close: "]",
            map: true,
        })
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'o>, LiteralError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'o>, LiteralError> {
        self.out.push('[');
        lit(self.out, variant)?;
        self.out.push_str(":[");
        Ok(Compound {
            out: self.out,
            first: true,
            close: "]]",
            map: true,
        })
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = LiteralError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), LiteralError> {
        self.sep();
        v.serialize(Lit { out: self.out })
    }
    fn end(self) -> Result<(), LiteralError> {
        self.finish()
    }
}

/// The tuple forms write as the sequence does.
macro_rules! like_seq {
    ($($tr:ident::$m:ident),*) => {$(
        impl ser::$tr for Compound<'_> {
            type Ok = ();
            type Error = LiteralError;
            fn $m<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), LiteralError> {
                ser::SerializeSeq::serialize_element(self, v)
            }
            fn end(self) -> Result<(), LiteralError> {
                self.finish()
            }
        }
    )*};
}

like_seq!(
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = LiteralError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), LiteralError> {
        self.sep();
        k.serialize(KeyLit { out: self.out })?;
        self.out.push(':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), LiteralError> {
        v.serialize(Lit { out: self.out })
    }
    fn end(self) -> Result<(), LiteralError> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = LiteralError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), LiteralError> {
        self.sep();
        lit(self.out, key)?;
        self.out.push(':');
        v.serialize(Lit { out: self.out })
    }
    fn end(self) -> Result<(), LiteralError> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = LiteralError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), LiteralError> {
        ser::SerializeStruct::serialize_field(self, key, v)
    }
    fn end(self) -> Result<(), LiteralError> {
        self.finish()
    }
}

/// A map key: strings, numbers, booleans and chars (a key in parentheses would allow more,
/// but serde keys of other shapes are rare enough to refuse).
struct KeyLit<'o> {
    out: &'o mut String,
}

fn bad_key() -> LiteralError {
    LiteralError("a map key must be a string, a number, a boolean or a char".into())
}

macro_rules! key_via_lit {
    ($($f:ident: $t:ty),*) => {$(
        fn $f(self, v: $t) -> Result<(), LiteralError> {
            Lit { out: self.out }.$f(v)
        }
    )*};
}

impl ser::Serializer for KeyLit<'_> {
    type Ok = ();
    type Error = LiteralError;
    type SerializeSeq = ser::Impossible<(), LiteralError>;
    type SerializeTuple = ser::Impossible<(), LiteralError>;
    type SerializeTupleStruct = ser::Impossible<(), LiteralError>;
    type SerializeTupleVariant = ser::Impossible<(), LiteralError>;
    type SerializeMap = ser::Impossible<(), LiteralError>;
    type SerializeStruct = ser::Impossible<(), LiteralError>;
    type SerializeStructVariant = ser::Impossible<(), LiteralError>;

    key_via_lit!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_str: &str);

    fn serialize_bytes(self, _v: &[u8]) -> Result<(), LiteralError> {
        Err(bad_key())
    }
    fn serialize_none(self) -> Result<(), LiteralError> {
        Err(bad_key())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), LiteralError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), LiteralError> {
        Err(bad_key())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), LiteralError> {
        Err(bad_key())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), LiteralError> {
        lit(self.out, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<(), LiteralError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _v: &T,
    ) -> Result<(), LiteralError> {
        Err(bad_key())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, LiteralError> {
        Err(bad_key())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, LiteralError> {
        Err(bad_key())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, LiteralError> {
        Err(bad_key())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, LiteralError> {
        Err(bad_key())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, LiteralError> {
        Err(bad_key())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, LiteralError> {
        Err(bad_key())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, LiteralError> {
        Err(bad_key())
    }
}

#[cfg(test)]
mod tests {
    use super::to_literal;
    use std::collections::BTreeMap;

    #[test]
    fn shapes() {
        assert_eq!(to_literal(&vec![1u8, 2]).unwrap(), "[1s,2s]");
        assert_eq!(to_literal(&u64::MAX).unwrap(), "18446744073709551615n");
        assert_eq!(to_literal(&(1i64, "x")).unwrap(), "[1l,'x']");
        let empty: BTreeMap<String, i32> = BTreeMap::new();
        assert_eq!(to_literal(&empty).unwrap(), "[:]");
        let m: BTreeMap<i32, bool> = [(1, true)].into();
        assert_eq!(to_literal(&m).unwrap(), "[1i:true]");
        assert!(to_literal(&serde_bytes_like()).is_err());
        let bad: BTreeMap<Vec<i32>, i32> = [(vec![1], 1)].into();
        assert!(to_literal(&bad).is_err());
    }

    fn serde_bytes_like() -> impl serde::Serialize {
        struct B;
        impl serde::Serialize for B {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&[1, 2])
            }
        }
        B
    }
}
