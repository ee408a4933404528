//! Any `serde::Serialize` value as a [`Value`]: what a user's own type becomes as a request
//! parameter ([`RequestBuilder::param_serialized`](crate::client::RequestBuilder::param_serialized),
//! [`GValue::serialized`](crate::process::GValue::serialized)).
//!
//! The shapes are listed on [`to_value`].

use serde::ser::{self, Serialize};

use super::value::{CAPTURE, CAPTURED};
use super::{Error, VALUE_TOKEN};
use crate::value::{codes, BigInteger, Value};

/// `value` as a [`Value`].
///
/// The serde shapes, and what each becomes:
///
/// | serde | `Value` |
/// |---|---|
/// | `bool` | Boolean |
/// | `i8`, `i16`, `i32`, `i64` | Byte, Short, Int, Long |
/// | `i128` | Long when it fits, else BigInteger |
/// | `u8`, `u16`, `u32` | the narrowest signed type that holds every value: Short, Int, Long |
/// | `u64`, `u128` | Long when it fits, else BigInteger |
/// | `f32`, `f64` | Float, Double (NaN, infinities and `-0.0` kept) |
/// | `char` | Char |
/// | string | String |
/// | bytes (`serde_bytes`) | Binary |
/// | `None`, unit, unit struct | the unspecified null |
/// | `Some(v)`, newtype struct | `v` |
/// | sequence, tuple, tuple struct | List |
/// | map | Map, keys of any type, in the order serialized |
/// | struct | Map from field names (Strings), in field order |
/// | unit variant | its name, a String |
/// | newtype, tuple and struct variant | a one-entry Map from its name to its content |
///
/// A [`Value`] and the model's types ([`DateTime`](crate::value::DateTime),
/// [`Duration`](crate::value::Duration), [`BigDecimal`](crate::value::BigDecimal),
/// [`BigInteger`](crate::value::BigInteger), the PDTs and the elements) inside a user's type
/// stay exactly what they are: `to_value(&value)` is `value`. Types of other crates serialize
/// as they choose (`uuid::Uuid` as a String, `chrono`'s date-times as Strings): wrap them in
/// the model's types to send them typed.
///
/// ```
/// use graphbinary_client::value::{DateTime, Value};
/// use serde::Serialize;
///
/// #[derive(Serialize)]
/// struct Person<'a> {
///     name: &'a str,
///     age: i32,
///     born: DateTime,
///     boss: Option<&'a str>,
/// }
/// let born = DateTime::from_epoch_millis(0);
/// let p = Person { name: "marko", age: 29, born, boss: None };
/// assert_eq!(
///     graphbinary_client::format::de::to_value(&p).unwrap(),
///     Value::Map(vec![
///         (Value::from("name"), Value::from("marko")),
///         (Value::from("age"), Value::Int(29)),
///         (Value::from("born"), Value::DateTime(born)),
///         (Value::from("boss"), Value::Null(0xfe)),
///     ])
/// );
/// // A Value is itself.
/// let v = Value::DateTime(born);
/// assert_eq!(graphbinary_client::format::de::to_value(&v).unwrap(), v);
/// ```
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    value.serialize(ValueSerializer)
}

/// `value` as the gremlin-lang literal TinkerPop 4 reads as that [`Value`] ([`to_value`], then
/// [`Lit::try_from`](crate::process::Lit)).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct P<'a> { name: &'a str, age: i32 }
/// assert_eq!(
///     graphbinary_client::format::de::to_literal(&P { name: "it's", age: 29 }).unwrap(),
///     r#"["name":"it's","age":29]"#
/// );
/// ```
#[cfg(feature = "http")]
pub fn to_literal<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let v = to_value(value)?;
    crate::lang::Lit::try_from(v)
        .and_then(|l| l.to_gremlin())
        .map_err(Error::message)
}

struct ValueSerializer;

fn null() -> Value {
    Value::Null(codes::UNSPECIFIED_NULL)
}

fn big(n: i128) -> Value {
    match i64::try_from(n) {
        Ok(v) => Value::Long(v),
        Err(_) => Value::BigInteger(BigInteger::from(num_bigint::BigInt::from(n))),
    }
}

fn variant(name: &str, content: Value) -> Value {
    Value::Map(vec![(Value::String(name.to_owned()), content)])
}

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Seq;
    type SerializeMap = Map;
    type SerializeStruct = Map;
    type SerializeStructVariant = Map;

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        Ok(Value::Boolean(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, Error> {
        Ok(Value::Byte(v))
    }
    fn serialize_i16(self, v: i16) -> Result<Value, Error> {
        Ok(Value::Short(v))
    }
    fn serialize_i32(self, v: i32) -> Result<Value, Error> {
        Ok(Value::Int(v))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, Error> {
        Ok(Value::Long(v))
    }
    fn serialize_i128(self, v: i128) -> Result<Value, Error> {
        Ok(big(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value, Error> {
        Ok(Value::Short(i16::from(v)))
    }
    fn serialize_u16(self, v: u16) -> Result<Value, Error> {
        Ok(Value::Int(i32::from(v)))
    }
    fn serialize_u32(self, v: u32) -> Result<Value, Error> {
        Ok(Value::Long(i64::from(v)))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, Error> {
        Ok(big(i128::from(v)))
    }
    fn serialize_u128(self, v: u128) -> Result<Value, Error> {
        Ok(match i128::try_from(v) {
            Ok(n) => big(n),
            Err(_) => Value::BigInteger(BigInteger::from(num_bigint::BigInt::from(v))),
        })
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        Ok(Value::Float(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        Ok(Value::Double(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, Error> {
        Ok(Value::Char(v))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        Ok(Value::String(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Error> {
        Ok(Value::Binary(v.to_vec()))
    }
    fn serialize_none(self) -> Result<Value, Error> {
        Ok(null())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Value, Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Error> {
        Ok(null())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, Error> {
        Ok(null())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
    ) -> Result<Value, Error> {
        Ok(Value::String(name.to_owned()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<Value, Error> {
        if name == VALUE_TOKEN {
            // A model value: it hands itself over (de/value.rs, `Captured`).
            CAPTURE.with(|c| c.set(true));
            let shaped = v.serialize(ValueSerializer);
            CAPTURE.with(|c| c.set(false));
            if let Some(value) = CAPTURED.with(|c| c.take()) {
                return Ok(value);
            }
            return shaped;
        }
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        v: &T,
    ) -> Result<Value, Error> {
        Ok(variant(name, v.serialize(ValueSerializer)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq::new(len, None))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        Ok(Seq::new(Some(len), None))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, Error> {
        Ok(Seq::new(Some(len), None))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        len: usize,
    ) -> Result<Seq, Error> {
        Ok(Seq::new(Some(len), Some(name)))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Map, Error> {
        Ok(Map::new(len, None))
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Map, Error> {
        Ok(Map::new(Some(len), None))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        len: usize,
    ) -> Result<Map, Error> {
        Ok(Map::new(Some(len), Some(name)))
    }
}

/// Capacity reserved for a claimed length, at most this many items (a length is a hint).
const MAX_RESERVE: usize = 4096;

/// A sequence being built (`variant`: the name a tuple variant wraps it in).
pub(crate) struct Seq {
    items: Vec<Value>,
    variant: Option<&'static str>,
}

impl Seq {
    fn new(len: Option<usize>, variant: Option<&'static str>) -> Seq {
        Seq {
            items: Vec::with_capacity(len.unwrap_or(0).min(MAX_RESERVE)),
            variant,
        }
    }
    fn push<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.items.push(v.serialize(ValueSerializer)?);
        Ok(())
    }
    fn done(self) -> Value {
        let list = Value::List(self.items);
        match self.variant {
            Some(name) => variant(name, list),
            None => list,
        }
    }
}

macro_rules! seq_impl {
    ($($tr:ident :: $m:ident),*) => {$(
        impl ser::$tr for Seq {
            type Ok = Value;
            type Error = Error;
            fn $m<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                self.push(v)
            }
            fn end(self) -> Result<Value, Error> {
                Ok(self.done())
            }
        }
    )*};
}
seq_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// A map or struct being built (`variant`: the name a struct variant wraps it in).
pub(crate) struct Map {
    entries: Vec<(Value, Value)>,
    key: Option<Value>,
    variant: Option<&'static str>,
}

impl Map {
    fn new(len: Option<usize>, variant: Option<&'static str>) -> Map {
        Map {
            entries: Vec::with_capacity(len.unwrap_or(0).min(MAX_RESERVE)),
            key: None,
            variant,
        }
    }
    fn field<T: Serialize + ?Sized>(&mut self, k: &str, v: &T) -> Result<(), Error> {
        let v = v.serialize(ValueSerializer)?;
        self.entries.push((Value::String(k.to_owned()), v));
        Ok(())
    }
    fn done(self) -> Value {
        let map = Value::Map(self.entries);
        match self.variant {
            Some(name) => variant(name, map),
            None => map,
        }
    }
}

impl ser::SerializeMap for Map {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        self.key = Some(k.serialize(ValueSerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let k = self
            .key
            .take()
            .ok_or_else(|| Error::message("a map value without its key".into()))?;
        let v = v.serialize(ValueSerializer)?;
        self.entries.push((k, v));
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.done())
    }
}

macro_rules! struct_impl {
    ($($tr:ident),*) => {$(
        impl ser::$tr for Map {
            type Ok = Value;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                k: &'static str,
                v: &T,
            ) -> Result<(), Error> {
                self.field(k, v)
            }
            fn end(self) -> Result<Value, Error> {
                Ok(self.done())
            }
        }
    )*};
}
struct_impl!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{DateTime, DateTimeKind, Duration};

    #[test]
    fn every_serde_shape() {
        assert_eq!(to_value(&1u8).unwrap(), Value::Short(1));
        assert_eq!(to_value(&7u32).unwrap(), Value::Long(7));
        assert_eq!(
            to_value(&u64::MAX).unwrap(),
            Value::BigInteger(BigInteger::from(num_bigint::BigInt::from(u64::MAX)))
        );
        assert_eq!(
            to_value(&(1i64, "x")).unwrap(),
            Value::List(vec![Value::Long(1), "x".into()])
        );
        assert_eq!(to_value(&f64::NAN).unwrap(), Value::Double(f64::NAN));
        assert_eq!(to_value(&-0.0f32).unwrap(), Value::Float(-0.0));
        let mut m = std::collections::BTreeMap::new();
        m.insert(1i32, true);
        assert_eq!(
            to_value(&m).unwrap(),
            Value::Map(vec![(Value::Int(1), Value::Boolean(true))])
        );
        assert_eq!(to_value(&None::<i32>).unwrap(), Value::Null(0xfe));
        #[derive(serde::Serialize)]
        enum E {
            Unit,
            New(i32),
            Tuple(i32, i32),
            Struct { a: i32 },
        }
        assert_eq!(to_value(&E::Unit).unwrap(), Value::from("Unit"));
        assert_eq!(to_value(&E::New(1)).unwrap(), variant("New", Value::Int(1)));
        assert_eq!(
            to_value(&E::Tuple(1, 2)).unwrap(),
            variant("Tuple", Value::List(vec![Value::Int(1), Value::Int(2)]))
        );
        assert_eq!(
            to_value(&E::Struct { a: 3 }).unwrap(),
            variant("Struct", Value::Map(vec![("a".into(), Value::Int(3))]))
        );
    }

    #[test]
    fn model_values_are_themselves_inside_a_users_type() {
        let d = DateTime::from_epoch_millis(5).with_kind(DateTimeKind::Date);
        let dur = Duration {
            seconds: -1,
            nanos: 5,
        };
        let nested = Value::List(vec![Value::DateTime(d), Value::Set(vec![Value::Char('x')])]);
        assert_eq!(to_value(&nested).unwrap(), nested);
        #[derive(serde::Serialize)]
        struct S {
            d: DateTime,
            dur: Duration,
            v: Value,
        }
        assert_eq!(
            to_value(&S {
                d,
                dur,
                v: nested.clone()
            })
            .unwrap(),
            Value::Map(vec![
                ("d".into(), Value::DateTime(d)),
                ("dur".into(), Value::Duration(dur)),
                ("v".into(), nested.clone()),
            ])
        );
        // Other serializers still see the shapes (a transparent newtype).
        assert_eq!(
            serde_json::to_string(&Value::DateTime(d)).unwrap(),
            r#"{"year":1970,"month":1,"day":1,"nanos":5000000,"offset_seconds":0}"#
        );
    }
}
