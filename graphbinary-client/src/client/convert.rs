//! Conversions from a result [`Value`] to Rust types, for [`ResultStream::one`]
//! (`TryFrom<Value>`).
//!
//! Integers widen losslessly (an Int converts to `i64`) and narrow only when the value fits;
//! a Float widens to `f64`. Nothing converts across kinds (no number from a String).
//!
//! [`ResultStream::one`]: super::ResultStream::one

use super::Error;
use crate::value::{DateTime, Value};

/// The error of a conversion: [`Error::Conversion`] naming the requested type and the type
/// of the value found.
fn err(target: &'static str, v: &Value) -> Error {
    Error::Conversion {
        target,
        detail: format!("found a {}", v.type_name()),
    }
}

macro_rules! int_from_value {
    ($($t:ty),*) => {$(
        impl TryFrom<Value> for $t {
            type Error = Error;
            fn try_from(v: Value) -> Result<Self, Error> {
                v.as_i64()
                    .and_then(|n| <$t>::try_from(n).ok())
                    .ok_or_else(|| err(stringify!($t), &v))
            }
        }
    )*};
}
int_from_value!(i8, i16, i32, i64);

impl TryFrom<Value> for f64 {
    type Error = Error;
    fn try_from(v: Value) -> Result<Self, Error> {
        match v {
            Value::Double(d) => Ok(d),
            Value::Float(f) => Ok(f.into()),
            other => Err(err("f64", &other)),
        }
    }
}

impl TryFrom<Value> for f32 {
    type Error = Error;
    fn try_from(v: Value) -> Result<Self, Error> {
        match v {
            Value::Float(f) => Ok(f),
            other => Err(err("f32", &other)),
        }
    }
}

impl TryFrom<Value> for bool {
    type Error = Error;
    fn try_from(v: Value) -> Result<Self, Error> {
        match v {
            Value::Boolean(b) => Ok(b),
            other => Err(err("bool", &other)),
        }
    }
}

impl TryFrom<Value> for String {
    type Error = Error;
    fn try_from(v: Value) -> Result<Self, Error> {
        match v {
            Value::String(s) => Ok(s),
            other => Err(err("String", &other)),
        }
    }
}

impl TryFrom<Value> for uuid::Uuid {
    type Error = Error;
    fn try_from(v: Value) -> Result<Self, Error> {
        match v {
            Value::Uuid(u) => Ok(u),
            other => Err(err("Uuid", &other)),
        }
    }
}

impl TryFrom<Value> for DateTime {
    type Error = Error;
    fn try_from(v: Value) -> Result<Self, Error> {
        match v {
            Value::DateTime(d) => Ok(d),
            other => Err(err("DateTime", &other)),
        }
    }
}

impl TryFrom<Value> for Vec<Value> {
    type Error = Error;
    /// A List or Set's items (a bulked List expanded).
    fn try_from(v: Value) -> Result<Self, Error> {
        match v {
            Value::List(items) | Value::Set(items) => Ok(items),
            Value::BulkList(items) => {
                let mut out = Vec::new();
                for (item, bulk) in items {
                    for _ in 0..bulk.max(0) {
                        out.push(item.clone());
                    }
                }
                Ok(out)
            }
            other => Err(err("Vec<Value>", &other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_widen_and_narrow_only_when_they_fit() {
        assert_eq!(i64::try_from(Value::Int(29)).unwrap(), 29);
        assert_eq!(i32::try_from(Value::Long(7)).unwrap(), 7);
        assert!(matches!(
            i32::try_from(Value::Long(1 << 40)),
            Err(Error::Conversion { target: "i32", detail }) if detail == "found a Long"
        ));
        assert!(i64::try_from(Value::String("1".into())).is_err());
    }

    #[test]
    fn other_kinds() {
        assert_eq!(f64::try_from(Value::Float(0.5)).unwrap(), 0.5);
        assert_eq!(String::try_from(Value::String("x".into())).unwrap(), "x");
        assert!(bool::try_from(Value::Int(1)).is_err());
        assert_eq!(
            Vec::<Value>::try_from(Value::BulkList(vec![(Value::Int(1), 2)])).unwrap(),
            vec![Value::Int(1), Value::Int(1)]
        );
        let e = String::try_from(Value::Int(1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot convert result to String: found a Int"
        );
        // Through `one`-style wrapping, a conversion error is not wrapped twice.
        let e = Error::conversion::<i64, _>(i32::try_from(Value::Long(1 << 40)).unwrap_err());
        assert_eq!(e.to_string(), "cannot convert result to i32: found a Long");
        assert_eq!(
            Error::conversion::<i64, _>("no").to_string(),
            "cannot convert result to i64: no"
        );
    }
}
