//! Request parameters: held as typed [`Value`]s, written per protocol.
//!
//! Gremlin Server 4 takes a request's parameters as *text*: a gremlin-lang map literal such as
//! `[name:"marko",age:29]`, parsed by the server with the same grammar as the script. Each
//! value is written as the literal of its exact type ([`Lit`]: strings double-quoted and
//! escaped, so that a parameter can never break out of its literal; numbers with the suffix of
//! their width; `datetime(..)`, `UUID(..)`, `Duration(..)`, `Binary(..)`, ...); names must be
//! identifiers. A TinkerPop 3 server takes them as GraphBinary 1 `bindings`, each value as its
//! own type ([`v1::encode_value`](crate::format::graphbinary1::encode_value)); no text is parsed back.

use crate::lang::Lit;
use crate::value::Value;

/// One parameter's value.
#[derive(Debug, Clone)]
pub(crate) enum Param {
    /// A typed value, with its gremlin-lang literal when the client speaks TinkerPop 4 (written
    /// when it was bound, so that a value with no literal fails before anything is sent).
    Value {
        value: Value,
        literal: Option<String>,
    },
    /// Verbatim gremlin-lang text ([`param_literal`](super::RequestBuilder::param_literal)):
    /// TinkerPop 4 only.
    Text(String),
}

/// The gremlin-lang literal of `v` (see [`Lit::try_from`]), or why there is none.
pub(crate) fn literal_text(v: &Value) -> Result<String, String> {
    Lit::try_from(v.clone())?.to_gremlin()
}

/// Whether `name` can be a parameter name: a Java identifier made of ASCII letters, digits,
/// `_` and `$`, not starting with a digit. (The server additionally reserves names such as
/// `id`, `label`, `key`, `value` and the names of `Order`, `Scope`, `Column`, `Pop` and
/// `Operator` constants, and rejects them with a 400.)
pub(crate) fn is_valid_param_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Renders `(name, literal)` pairs as a gremlin-lang map literal, `[:]` when empty.
pub(crate) fn render_map<'a>(params: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::from("[");
    for (i, (k, v)) in params.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(k);
        out.push(':');
        out.push_str(v);
    }
    if out.len() == 1 {
        out.push(':');
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{DateTime, DateTimeKind, Duration};

    #[test]
    fn values_are_written_as_their_type() {
        let t = |v: Value| literal_text(&v).unwrap();
        assert_eq!(t(Value::from("it's \"$x\"")), r#""it's \"$x\"""#);
        assert_eq!(t(Value::Byte(-1)), "-1B");
        assert_eq!(t(Value::Short(2)), "2S");
        assert_eq!(t(Value::Int(3)), "3");
        assert_eq!(t(Value::Long(i64::MIN)), "-9223372036854775808L");
        assert_eq!(t(Value::Double(f64::NAN)), "NaN");
        assert_eq!(t(Value::Double(-0.0)), "-0.0D");
        assert_eq!(t(Value::Float(1.5)), "1.5F");
        assert_eq!(
            t(Value::DateTime(
                DateTime::from_epoch_millis(1).with_kind(DateTimeKind::Date)
            )),
            r#"datetime("1970-01-01T00:00:00.001Z")"#
        );
        assert_eq!(
            t(Value::Duration(Duration {
                seconds: 1,
                nanos: 2
            })),
            "Duration(1,2)"
        );
        assert_eq!(t(Value::Binary(b"foo".to_vec())), r#"Binary("Zm9v")"#);
        assert_eq!(
            t(Value::Map(vec![(
                Value::Int(1),
                Value::Set(vec![Value::Char('c')])
            )])),
            r#"[(1):{"c"c}]"#
        );
        assert_eq!(t(Value::Null(0x01)), "null");
        // What TinkerPop 4 cannot spell is an error, not a different value.
        for v in [
            Value::Float(f32::NAN),
            Value::Float(f32::INFINITY),
            Value::Map(vec![(Value::Boolean(true), Value::Int(1))]),
            Value::Char('\u{1F600}'),
        ] {
            assert!(literal_text(&v).is_err(), "{v:?}");
        }
    }

    #[test]
    fn names() {
        assert!(is_valid_param_name("x"));
        assert!(is_valid_param_name("_a$1"));
        assert!(!is_valid_param_name("1a"));
        assert!(!is_valid_param_name(""));
        assert!(!is_valid_param_name("a-b"));
        assert!(!is_valid_param_name("a:b"));
        assert_eq!(render_map([]), "[:]");
        assert_eq!(render_map([("a", "1"), ("b", "'x'")]), "[a:1,b:'x']");
    }
}
