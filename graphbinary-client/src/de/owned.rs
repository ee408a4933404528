//! The slow path's large leaves: a top-level String or Binary larger than the read buffer,
//! read by the `Value` slow path into one buffer of its exact length, handed to the visitor
//! by value (`visit_string`, `visit_byte_buf`) instead of being re-encoded and copied again.
//!
//! Every method does what [`De`](super::De) does with the same value's bytes: for a non-null
//! String or Binary nearly every target reaches `deserialize_any`, whose visit is the one
//! below (a visitor that only takes `visit_str`/`visit_bytes` gets them through serde's
//! default `visit_string`/`visit_byte_buf`, to the same result). The few targets with a
//! reading of their own (enums, identifiers, the [`Value`] token) re-encode the value and run
//! [`De`](super::De) over it, as the slow path did for every value before.

use graphbinary_core::{Cursor, DecodeError, ErrorKind};
use serde::de::{self, Visitor};

use super::{De, Error, Transient, STASH, VALUE_TOKEN};
use crate::model::Value;

/// A top-level String or Binary read whole by the slow path, and where it started.
pub(crate) struct OwnedDe {
    value: Leaf,
    at: u64,
}

enum Leaf {
    Str(String),
    Bytes(Vec<u8>),
}

impl OwnedDe {
    /// `value` as an owned leaf, or `value` back when it is anything else.
    pub(crate) fn new(value: Value, at: u64) -> Result<Self, Value> {
        let value = match value {
            Value::String(s) => Leaf::Str(s),
            Value::Binary(b) => Leaf::Bytes(b),
            other => return Err(other),
        };
        Ok(OwnedDe { value, at })
    }

    fn into_value(self) -> Value {
        match self.value {
            Leaf::Str(s) => Value::String(s),
            Leaf::Bytes(b) => Value::Binary(b),
        }
    }

    /// What `deserialize_any` gives: the string or the bytes, by value.
    fn visit<'de, V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.at;
        match self.value {
            Leaf::Str(s) => v.visit_string(s),
            Leaf::Bytes(b) => v.visit_byte_buf(b),
        }
        .map_err(|e: Error| e.at(at))
    }

    /// The general way: re-encoded and read by [`De`], for the targets with a reading of
    /// their own.
    fn reencoded<R>(
        self,
        f: impl FnOnce(&mut De<'_, '_, Transient>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let at = self.at;
        let bytes = self.into_value().to_bytes().map_err(|e| {
            Error::format(DecodeError::new(
                at,
                ErrorKind::Invalid {
                    what: "value",
                    detail: e.to_string(),
                },
            ))
        })?;
        let limits = crate::ReadOptions::default().limits;
        let mut cur = Cursor::new(&bytes, at, &limits);
        let mut de = De::<Transient>::new(&mut cur);
        let r = f(&mut de);
        de.finish(r)
    }
}

macro_rules! by_value {
    ($($f:ident)*) => {$(
        fn $f<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.visit(v)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for OwnedDe {
    type Error = Error;

    by_value! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_unit deserialize_seq deserialize_map
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.at;
        v.visit_some(self).map_err(|e: Error| e.at(at))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        self.visit(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        if name == VALUE_TOKEN {
            // `Value` itself: handed over whole, as `De` does.
            let at = self.at;
            STASH.with(|s| s.set(Some(self.into_value())));
            let r = v.visit_map(serde::de::value::MapDeserializer::new(std::iter::empty::<(
                (),
                (),
            )>()));
            STASH.with(|s| s.take());
            return r.map_err(|e: Error| e.at(at));
        }
        v.visit_newtype_struct(self)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, Error> {
        self.visit(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        v: V,
    ) -> Result<V::Value, Error> {
        self.visit(v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.visit(v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.reencoded(|de| de::Deserializer::deserialize_enum(de, name, variants, v))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.reencoded(|de| de::Deserializer::deserialize_identifier(de, v))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
