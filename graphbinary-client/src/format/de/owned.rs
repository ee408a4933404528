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

use serde::de::{self, Visitor};

use graphbinary_core::DecodeError;
use serde::de::DeserializeOwned;

use super::{from_value_at, reencode, transient, visit_value, De, Error, Transient, VALUE_TOKEN};
use crate::value::Value;

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
        let bytes = reencode(&self.into_value(), at)?;
        let limits = crate::value::dynamic::DEFAULT_LIMITS;
        transient(&bytes, at, &limits, 0, f)
    }
}

impl<'de> de::Deserializer<'de> for OwnedDe {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.visit(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.at;
        v.visit_some(self).map_err(|e: Error| e.at(at))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        if name == VALUE_TOKEN {
            // `Value` itself: handed over whole, as `De` does.
            let at = self.at;
            return visit_value(self.into_value(), v, at);
        }
        v.visit_newtype_struct(self)
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

    // Everything else is the string or the bytes, by value, as `deserialize_any` gives them.
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct
    }
}

/// Slow path: the `Value` the stream read, deserialized into a `T`: a String or Binary (read
/// into one buffer of its exact length) handed over by value, anything else re-encoded and
/// deserialized.
pub(crate) fn convert<T: DeserializeOwned>(value: Value, at: u64) -> Result<T, DecodeError> {
    match OwnedDe::new(value, at) {
        Ok(de) => T::deserialize(de),
        Err(value) => from_value_at(&value, at),
    }
    .map_err(Error::into_decode_error)
}
