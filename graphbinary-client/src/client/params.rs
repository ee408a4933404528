//! Request parameters rendered as a gremlin-lang map literal.
//!
//! Gremlin Server 4 takes a request's parameters as *text*: a gremlin-lang map literal such as
//! `[name:'marko',age:29i]`, parsed by the server with the same grammar as the script. This
//! module renders typed Rust values into that text safely: strings are single-quoted and
//! escaped (so a parameter can never break out of its literal), numbers carry the suffix of
//! their exact width (`b`, `s`, `i`, `l`, `f`, `d`), and names must be identifiers.

use std::fmt::Write as _;

/// A Rust value that can be sent as a gremlin-lang literal.
///
/// Implemented for strings, booleans, the signed integers and floats (with their width
/// suffix), `char`, [`uuid::Uuid`], `Option<T>` (`None` is `null`), slices and `Vec<T>`
/// (list literals).
///
/// ```
/// use graphbinary_client::client::GremlinLiteral;
///
/// let mut s = String::new();
/// "it's".write_literal(&mut s);
/// 5i64.write_literal(&mut s);
/// assert_eq!(s, r"'it\'s'5l");
/// ```
pub trait GremlinLiteral {
    /// Appends the literal to `out`.
    fn write_literal(&self, out: &mut String);
}

impl<T: GremlinLiteral + ?Sized> GremlinLiteral for &T {
    fn write_literal(&self, out: &mut String) {
        (**self).write_literal(out)
    }
}

impl GremlinLiteral for str {
    fn write_literal(&self, out: &mut String) {
        out.reserve(self.len() + 2);
        out.push('\'');
        for c in self.chars() {
            match c {
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if c.is_control() => {
                    // Java's unescape understands \uXXXX (UTF-16 code units).
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        let _ = write!(out, "\\u{u:04x}");
                    }
                }
                c => out.push(c),
            }
        }
        out.push('\'');
    }
}

impl GremlinLiteral for String {
    fn write_literal(&self, out: &mut String) {
        self.as_str().write_literal(out)
    }
}

impl GremlinLiteral for bool {
    fn write_literal(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

macro_rules! int_literal {
    ($($t:ty => $suffix:literal),*) => {$(
        impl GremlinLiteral for $t {
            fn write_literal(&self, out: &mut String) {
                let _ = write!(out, "{}{}", self, $suffix);
            }
        }
    )*};
}
int_literal!(i8 => "b", i16 => "s", i32 => "i", i64 => "l");

macro_rules! float_literal {
    ($($t:ty => $suffix:literal),*) => {$(
        impl GremlinLiteral for $t {
            fn write_literal(&self, out: &mut String) {
                if self.is_nan() {
                    out.push_str("NaN");
                } else if self.is_infinite() {
                    out.push_str(if *self > 0.0 { "Infinity" } else { "-Infinity" });
                } else {
                    // Debug always writes a digit after the point or an exponent ("5.0",
                    // "1e300", "1e-7"), which the grammar's FloatingPointLiteral accepts.
                    let _ = write!(out, "{:?}{}", self, $suffix);
                }
            }
        }
    )*};
}
float_literal!(f32 => "f", f64 => "d");

impl GremlinLiteral for char {
    fn write_literal(&self, out: &mut String) {
        let mut buf = [0u8; 4];
        self.encode_utf8(&mut buf).write_literal(out);
        out.push('c');
    }
}

impl GremlinLiteral for uuid::Uuid {
    fn write_literal(&self, out: &mut String) {
        let _ = write!(out, "UUID('{}')", self.hyphenated());
    }
}

impl<T: GremlinLiteral> GremlinLiteral for Option<T> {
    fn write_literal(&self, out: &mut String) {
        match self {
            Some(v) => v.write_literal(out),
            None => out.push_str("null"),
        }
    }
}

impl<T: GremlinLiteral> GremlinLiteral for [T] {
    fn write_literal(&self, out: &mut String) {
        out.push('[');
        for (i, v) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            v.write_literal(out);
        }
        out.push(']');
    }
}

impl<T: GremlinLiteral> GremlinLiteral for Vec<T> {
    fn write_literal(&self, out: &mut String) {
        self.as_slice().write_literal(out)
    }
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
pub(crate) fn render_map(params: &[(String, String)]) -> String {
    if params.is_empty() {
        return "[:]".to_owned();
    }
    let mut out = String::from("[");
    for (i, (k, v)) in params.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(k);
        out.push(':');
        out.push_str(v);
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit<T: GremlinLiteral + ?Sized>(v: &T) -> String {
        let mut s = String::new();
        v.write_literal(&mut s);
        s
    }

    #[test]
    fn strings_are_quoted_and_escaped() {
        assert_eq!(lit("marko"), "'marko'");
        assert_eq!(lit(""), "''");
        assert_eq!(lit("a'b\\c"), r"'a\'b\\c'");
        assert_eq!(lit("l1\nl2\t\r"), r"'l1\nl2\t\r'");
        assert_eq!(lit("\u{1}"), r"'\u0001'");
        assert_eq!(lit("héllo ☃ 𝄞"), "'héllo ☃ 𝄞'");
        // A hostile value cannot close the literal.
        assert_eq!(lit("'] , x:g.V().drop() //"), r"'\'] , x:g.V().drop() //'");
    }

    #[test]
    fn numbers_carry_their_width() {
        assert_eq!(lit(&1i8), "1b");
        assert_eq!(lit(&-2i16), "-2s");
        assert_eq!(lit(&3i32), "3i");
        assert_eq!(lit(&i64::MIN), "-9223372036854775808l");
        assert_eq!(lit(&5.0f32), "5.0f");
        assert_eq!(lit(&0.1f64), "0.1d");
        assert_eq!(lit(&1e300f64), "1e300d");
        assert_eq!(lit(&-1e-7f64), "-1e-7d");
        assert_eq!(lit(&f64::NAN), "NaN");
        assert_eq!(lit(&f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn other_literals() {
        assert_eq!(lit(&true), "true");
        assert_eq!(lit(&'x'), "'x'c");
        assert_eq!(lit(&None::<i32>), "null");
        assert_eq!(lit(&vec![1i32, 2]), "[1i,2i]");
        assert_eq!(
            lit(&uuid::Uuid::from_u128(
                0x41d2e28a_20a4_4ab0_b379_d810dede3786
            )),
            "UUID('41d2e28a-20a4-4ab0-b379-d810dede3786')"
        );
    }

    #[test]
    fn names() {
        assert!(is_valid_param_name("x"));
        assert!(is_valid_param_name("_a$1"));
        assert!(!is_valid_param_name("1a"));
        assert!(!is_valid_param_name(""));
        assert!(!is_valid_param_name("a-b"));
        assert!(!is_valid_param_name("a:b"));
        assert_eq!(render_map(&[]), "[:]");
        assert_eq!(
            render_map(&[("a".into(), "1i".into()), ("b".into(), "'x'".into())]),
            "[a:1i,b:'x']"
        );
    }
}
