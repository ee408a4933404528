//! Typed gremlin-lang literals ([`Lit`]) and how they are written.
//!
//! The text follows the official GLVs' GremlinLang writers at TinkerPop 4: strings in double
//! quotes with Java escapes, numbers with the suffix of their exact type (`1` Int, `1L` Long,
//! `1S` Short, `1B` Byte, `1N` BigInteger, `1.0D` Double, `1.0F` Float, `1M` BigDecimal),
//! `NaN`, `+Infinity`, `-Infinity`, `datetime("...")`, `UUID("...")`, `Duration(s,n)`,
//! `Binary("base64")`, `"c"c` for a char, `[..]` lists, `{..}` sets, `[k:v]` maps (`[:]` empty)
//! and tokens as `T.id`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use uuid::Uuid;

use super::tokens::Token;
use super::tokens::{Barrier, Cardinality, Column, GType, Operator, Order, Pick, Pop, Scope, DT};
use crate::value::{BigDecimal, BigInteger, CompositePdt, DateTime, Duration, PrimitivePdt, Value};

/// A gremlin-lang literal: a value written into the script as text.
///
/// Build one with `From` (`Lit::from(5)`, `"x".into()`, `vec![1, 2].into()`) or the
/// constructors ([`Lit::list`], [`Lit::set`], [`Lit::map`], [`Lit::binary`]). Every literal
/// can be written; one the grammar cannot hold (a char outside the BMP, a map key of a kind
/// the grammar forbids) makes the traversal fail to build with a clear error, never a panic
/// or a malformed script.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A Byte: `1B`.
    Byte(i8),
    /// A Short: `1S`.
    Short(i16),
    /// An Int: `1`.
    Int(i32),
    /// A Long: `1L`.
    Long(i64),
    /// A BigInteger: `1N`.
    BigInt(BigInteger),
    /// A Float: `1.5F`.
    Float(f32),
    /// A Double: `1.5D`.
    Double(f64),
    /// A BigDecimal: `1.5M`.
    BigDecimal(Box<BigDecimal>),
    /// A String: `"text"`.
    String(String),
    /// A Char: `"c"c`.
    Char(char),
    /// A DateTime: `datetime("2024-01-01T00:00Z")`.
    DateTime(DateTime),
    /// A UUID: `UUID("...")`.
    Uuid(Uuid),
    /// A Duration: `Duration(seconds,nanos)`.
    Duration(Duration),
    /// A Binary: `Binary("base64")`.
    Binary(Vec<u8>),
    /// A List: `[a,b]`.
    List(Vec<Lit>),
    /// A Set: `{a,b}`.
    Set(Vec<Lit>),
    /// A Map: `[k:v]`, entries in this order.
    Map(Vec<(Lit, Lit)>),
    /// A token such as `T.id` or `Direction.OUT`.
    Token(Token),
    /// A cardinality with its value, `Cardinality.single("x")` (for `property` and merge maps).
    CardinalityValue(Cardinality, Box<Lit>),
    /// A provider-defined primitive type: `PDT("name","value")`.
    PrimitivePdt(Box<PrimitivePdt>),
    /// A provider-defined composite type: `PDT("name",[field:value,...])`.
    CompositePdt(Box<CompositePdt>),
}

impl Lit {
    /// A List literal of `items`.
    pub fn list<I: IntoIterator>(items: I) -> Lit
    where
        I::Item: Into<Lit>,
    {
        Lit::List(items.into_iter().map(Into::into).collect())
    }

    /// A Set literal of `items` (written in this order).
    pub fn set<I: IntoIterator>(items: I) -> Lit
    where
        I::Item: Into<Lit>,
    {
        Lit::Set(items.into_iter().map(Into::into).collect())
    }

    /// A Map literal of `entries` (written in this order).
    pub fn map<I, K, V>(entries: I) -> Lit
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<Lit>,
        V: Into<Lit>,
    {
        Lit::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }

    /// A Binary literal.
    pub fn binary(bytes: impl Into<Vec<u8>>) -> Lit {
        Lit::Binary(bytes.into())
    }

    /// `Cardinality.<c>(value)`.
    pub fn cardinality(c: Cardinality, value: impl Into<Lit>) -> Lit {
        Lit::CardinalityValue(c, Box::new(value.into()))
    }

    /// The literal as gremlin-lang text, or why it cannot be written.
    pub fn to_gremlin(&self) -> Result<String, String> {
        let mut s = String::new();
        self.write(&mut s)?;
        Ok(s)
    }

    /// Appends the literal to `out`; on error `out` may hold part of it.
    pub(crate) fn write(&self, out: &mut String) -> Result<(), String> {
        self.write_at(out, 0)
    }

    fn write_at(&self, out: &mut String, depth: usize) -> Result<(), String> {
        let depth = deeper(depth)?;
        match self {
            Lit::Null => out.push_str("null"),
            Lit::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Lit::Byte(n) => {
                let _ = write!(out, "{n}B");
            }
            Lit::Short(n) => {
                let _ = write!(out, "{n}S");
            }
            Lit::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Lit::Long(n) => {
                let _ = write!(out, "{n}L");
            }
            Lit::BigInt(n) => {
                let _ = write!(out, "{}N", n.to_bigint());
            }
            Lit::Float(f) => {
                if !f.is_finite() {
                    // gremlin-lang's NaN and Infinity are Doubles: a Float one would come back
                    // as a Double.
                    return Err(format!(
                        "the Float {f} has no gremlin-lang literal (NaN and Infinity are Doubles there); send it as a Double"
                    ));
                }
                write_float(out, f64::from(*f), *f, 'F')
            }
            Lit::Double(d) => write_float(out, *d, *d, 'D'),
            Lit::BigDecimal(d) => {
                let _ = write!(out, "{}M", d.to_java_string());
            }
            Lit::String(s) => write_string(out, s),
            Lit::Char(c) => {
                java_char(*c)?;
                let mut buf = [0u8; 4];
                write_string(out, c.encode_utf8(&mut buf));
                out.push('c');
            }
            Lit::DateTime(dt) => {
                if !(1..=12).contains(&dt.month)
                    || !(1..=31).contains(&dt.day)
                    || !(0..86_400_000_000_000).contains(&dt.nanos)
                    || !(-64_800..=64_800).contains(&dt.offset_seconds)
                {
                    return Err(format!("invalid DateTime {dt:?}"));
                }
                out.push_str("datetime(");
                write_string(out, &dt.to_string());
                out.push(')');
            }
            Lit::Uuid(u) => {
                let _ = write!(out, "UUID(\"{}\")", u.hyphenated());
            }
            Lit::Duration(d) => {
                // Normalized to whole seconds and 0..1e9 nanos of the magnitude; a negative
                // duration carries `false` (not positive), as the GLVs write it.
                let total = i128::from(d.seconds) * 1_000_000_000 + i128::from(d.nanos);
                let abs = total.unsigned_abs();
                let (secs, nanos) = (abs / 1_000_000_000, abs % 1_000_000_000);
                if total < 0 {
                    let _ = write!(out, "Duration({secs},{nanos},false)");
                } else {
                    let _ = write!(out, "Duration({secs},{nanos})");
                }
            }
            Lit::Binary(b) => {
                out.push_str("Binary(\"");
                base64(out, b);
                out.push_str("\")");
            }
            Lit::List(items) => write_items(out, '[', items, ']', depth)?,
            Lit::Set(items) => write_items(out, '{', items, '}', depth)?,
            Lit::Map(entries) => {
                if entries.is_empty() {
                    out.push_str("[:]");
                    return Ok(());
                }
                out.push('[');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_map_key(out, k, depth)?;
                    out.push(':');
                    v.write_at(out, depth)?;
                }
                out.push(']');
            }
            Lit::Token(t) => t.write(out),
            Lit::CardinalityValue(c, v) => {
                let _ = write!(out, "{c}(");
                v.write_at(out, depth)?;
                out.push(')');
            }
            Lit::PrimitivePdt(p) => {
                out.push_str("PDT(");
                write_string(out, &p.type_name);
                out.push(',');
                write_string(out, &p.value);
                out.push(')');
            }
            Lit::CompositePdt(p) => {
                out.push_str("PDT(");
                write_string(out, &p.type_name);
                out.push(',');
                let fields = p
                    .fields
                    .iter()
                    .map(|(k, v)| Ok((Lit::try_from(k.clone())?, Lit::try_from(v.clone())?)))
                    .collect::<Result<Vec<_>, String>>()?;
                Lit::Map(fields).write_at(out, depth)?;
                out.push(')');
            }
        }
        Ok(())
    }

    /// The literal as a Groovy expression of the same Java value, for a TinkerPop 3 server
    /// that evaluates scripts as Groovy (a literal-only traversal, where nothing is bound):
    /// strings single-quoted (Groovy's double quotes interpolate `$`), `((byte)1)`,
    /// `((short)1)`, `1i`, `1L`, `1G`, `new BigDecimal('1.50')`, `1.5f`, `1.5d`, `Double.NaN`,
    /// `('c' as char)`, `UUID.fromString('..')`, each date-time kind as its Java type
    /// (`new Date(ms)`, `java.time.OffsetDateTime.parse('..')`, ...),
    /// `java.time.Duration.ofSeconds(s, n)`, `java.nio.ByteBuffer.wrap('..'.decodeBase64())`,
    /// `[a, b]`, `([a, b] as LinkedHashSet)`, `[(k):v]`, tokens as `Order.desc`. A PDT has no
    /// Groovy form: an error.
    pub(crate) fn write_groovy(&self, out: &mut String) -> Result<(), String> {
        self.groovy_at(out, 0)
    }

    fn groovy_at(&self, out: &mut String, depth: usize) -> Result<(), String> {
        let depth = deeper(depth)?;
        match self {
            Lit::Null => out.push_str("null"),
            Lit::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Lit::Byte(n) => {
                let _ = write!(out, "((byte){n})");
            }
            Lit::Short(n) => {
                let _ = write!(out, "((short){n})");
            }
            Lit::Int(n) if *n == i32::MIN => out.push_str("Integer.MIN_VALUE"),
            Lit::Int(n) => {
                let _ = write!(out, "{n}i");
            }
            Lit::Long(n) if *n == i64::MIN => out.push_str("Long.MIN_VALUE"),
            Lit::Long(n) => {
                let _ = write!(out, "{n}L");
            }
            Lit::BigInt(n) => {
                let _ = write!(out, "new BigInteger('{}')", n.to_bigint());
            }
            Lit::Float(f) => groovy_float(out, f64::from(*f), *f, "Float", 'f'),
            Lit::Double(d) => groovy_float(out, *d, *d, "Double", 'd'),
            Lit::BigDecimal(d) => {
                let _ = write!(out, "new BigDecimal('{}')", d.to_java_string());
            }
            Lit::String(s) => write_groovy_string(out, s),
            Lit::Char(c) => {
                java_char(*c)?;
                out.push('(');
                let mut buf = [0u8; 4];
                write_groovy_string(out, c.encode_utf8(&mut buf));
                out.push_str(" as char)");
            }
            Lit::DateTime(dt) => {
                use crate::value::DateTimeKind as K;
                if Lit::DateTime(*dt).to_gremlin().is_err() {
                    return Err(format!("invalid DateTime {dt:?}"));
                }
                let (secs, nanos) = crate::value::epoch(dt);
                let millis = || {
                    if nanos % 1_000_000 != 0 {
                        return Err(format!(
                            "a {} holds milliseconds; {dt} is finer",
                            dt.kind.java_class()
                        ));
                    }
                    secs.checked_mul(1000)
                        .and_then(|ms| ms.checked_add(nanos / 1_000_000))
                        .ok_or_else(|| format!("{dt} overflows a Long of milliseconds"))
                };
                match dt.kind {
                    K::Date => {
                        let _ = write!(out, "new Date({}L)", millis()?);
                    }
                    K::Timestamp => {
                        let _ = write!(out, "new java.sql.Timestamp({}L)", millis()?);
                    }
                    K::Instant => {
                        let _ = write!(out, "java.time.Instant.ofEpochSecond({secs}L, {nanos}L)");
                    }
                    K::OffsetDateTime => {
                        let _ = write!(out, "java.time.OffsetDateTime.parse('{dt}')");
                    }
                    K::ZonedDateTime => {
                        let _ = write!(out, "java.time.ZonedDateTime.parse('{dt}')");
                    }
                }
            }
            Lit::Uuid(u) => {
                let _ = write!(out, "UUID.fromString('{}')", u.hyphenated());
            }
            Lit::Duration(d) => {
                let _ = write!(
                    out,
                    "java.time.Duration.ofSeconds({}L, {}L)",
                    d.seconds, d.nanos
                );
            }
            Lit::Binary(b) => {
                out.push_str("java.nio.ByteBuffer.wrap('");
                base64(out, b);
                out.push_str("'.decodeBase64())");
            }
            Lit::List(items) => groovy_items(out, items, depth)?,
            Lit::Set(items) => {
                out.push('(');
                groovy_items(out, items, depth)?;
                out.push_str(" as LinkedHashSet)");
            }
            Lit::Map(entries) => {
                if entries.is_empty() {
                    out.push_str("[:]");
                    return Ok(());
                }
                out.push('[');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push('(');
                    k.groovy_at(out, depth)?;
                    out.push_str("):");
                    v.groovy_at(out, depth)?;
                }
                out.push(']');
            }
            // JanusGraph's script engine imports its own `Cardinality`, whose
            // `Cardinality.single` is a MissingPropertyException there: the bare token, as
            // TinkerPop's docs write it (`property(list, ...)`), is read alike by TinkerPop's
            // engine and JanusGraph's; a value in one is qualified (a bare `set(29)` is a
            // MissingMethodException on JanusGraph).
            Lit::Token(Token::Cardinality(c)) => out.push_str(c.as_str()),
            Lit::Token(t) => t.write(out),
            Lit::CardinalityValue(c, v) => {
                let _ = write!(out, "VertexProperty.Cardinality.{}(", c.as_str());
                v.groovy_at(out, depth)?;
                out.push(')');
            }
            Lit::PrimitivePdt(p) => {
                return Err(format!("the PDT {:?} has no Groovy form", p.type_name))
            }
            Lit::CompositePdt(p) => {
                return Err(format!("the PDT {:?} has no Groovy form", p.type_name))
            }
        }
        Ok(())
    }

    /// Whether the grammar's `integerLiteral` holds this value.
    pub(crate) fn is_integer(&self) -> bool {
        matches!(
            self,
            Lit::Byte(_) | Lit::Short(_) | Lit::Int(_) | Lit::Long(_) | Lit::BigInt(_)
        )
    }

    /// Whether the grammar's `numericLiteral` holds this value.
    pub(crate) fn is_numeric(&self) -> bool {
        self.is_integer() || matches!(self, Lit::Float(_) | Lit::Double(_) | Lit::BigDecimal(_))
    }
}

/// The depth inside a literal written at `depth`, or the error past [`MAX_DEPTH`] (both
/// writers, gremlin-lang's and Groovy's).
fn deeper(depth: usize) -> Result<usize, String> {
    if depth > MAX_DEPTH {
        return Err(format!("literal nested deeper than {MAX_DEPTH} levels"));
    }
    Ok(depth + 1)
}

/// A char outside the BMP is an error: a Java char (one UTF-16 unit) cannot hold it.
fn java_char(c: char) -> Result<(), String> {
    if u32::from(c) > 0xffff {
        return Err(format!(
            "char U+{:X} is outside the BMP: a Java char cannot hold it (use a String)",
            u32::from(c)
        ));
    }
    Ok(())
}

/// How deep literals and traversals may nest when written (deeper is a build error, not a
/// stack overflow).
pub(crate) const MAX_DEPTH: usize = 256;

fn write_items(
    out: &mut String,
    open: char,
    items: &[Lit],
    close: char,
    depth: usize,
) -> Result<(), String> {
    out.push(open);
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        v.write_at(out, depth)?;
    }
    out.push(close);
    Ok(())
}

/// A map key, as the grammar's `mapKey` allows: a String bare, a number, T, Direction, List,
/// Set or Map in parentheses (as the GLVs write every key that is not a String).
fn write_map_key(out: &mut String, k: &Lit, depth: usize) -> Result<(), String> {
    match k {
        Lit::String(s) => {
            write_string(out, s);
            Ok(())
        }
        Lit::Token(Token::T(_) | Token::Direction(_))
        | Lit::List(_)
        | Lit::Set(_)
        | Lit::Map(_) => {
            out.push('(');
            k.write_at(out, depth)?;
            out.push(')');
            Ok(())
        }
        k if k.is_numeric() => {
            out.push('(');
            k.write_at(out, depth)?;
            out.push(')');
            Ok(())
        }
        other => Err(format!(
            "a map key must be a String, number, T, Direction, List, Set or Map; not {other:?}"
        )),
    }
}

fn write_float<F: std::fmt::Debug>(out: &mut String, as_f64: f64, v: F, suffix: char) {
    if as_f64.is_nan() {
        out.push_str("NaN");
    } else if as_f64.is_infinite() {
        out.push_str(if as_f64 > 0.0 {
            "+Infinity"
        } else {
            "-Infinity"
        });
    } else {
        // Debug is the shortest text that reads back to the same value, always with a digit
        // after the point or an exponent ("5.0", "1e300", "1e-7"): a FloatingPointLiteral.
        let _ = write!(out, "{v:?}{suffix}");
    }
}

/// Writes `s` as a double-quoted gremlin-lang string. Backslash and `"` are escaped, as are
/// the control characters (`\n` `\r` `\t` `\b` `\f` by name, the others as `\uXXXX`), so the
/// literal ends exactly at its closing quote whatever `s` holds.
pub(crate) fn write_string(out: &mut String, s: &str) {
    write_quoted(out, s, '"');
}

/// `s` between `quote`s, with Java's escapes (the same in gremlin-lang and Groovy): the quote
/// and backslash escaped, the control characters by name or as `\uXXXX`.
fn write_quoted(out: &mut String, s: &str, quote: char) {
    out.reserve(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

fn groovy_items(out: &mut String, items: &[Lit], depth: usize) -> Result<(), String> {
    out.push('[');
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        v.groovy_at(out, depth)?;
    }
    out.push(']');
    Ok(())
}

fn groovy_float<F: std::fmt::Debug>(
    out: &mut String,
    as_f64: f64,
    v: F,
    class: &str,
    suffix: char,
) {
    if as_f64.is_nan() {
        let _ = write!(out, "{class}.NaN");
    } else if as_f64.is_infinite() {
        let which = if as_f64 > 0.0 { "POSITIVE" } else { "NEGATIVE" };
        let _ = write!(out, "{class}.{which}_INFINITY");
    } else if as_f64 == 0.0 && as_f64.is_sign_negative() {
        // Groovy 2.5 (TinkerPop 3.6) reads the literal `-0.0d` as 0.0 (its negative number
        // literals go through BigDecimal, which has no negative zero); the negation of a
        // positive zero keeps the sign on every Groovy.
        let _ = write!(out, "(-(0.0{suffix}))");
    } else {
        // In parentheses: `-0.5d` is a negation, which must bind before any operator.
        let _ = write!(out, "({v:?}{suffix})");
    }
}

/// Writes `s` as a single-quoted Groovy string (a plain `java.lang.String`: no `$`
/// interpolation), with Java's escapes, so that it ends exactly at its closing quote. The same
/// text is a gremlin-lang string literal.
pub(crate) fn write_groovy_string(out: &mut String, s: &str) {
    write_quoted(out, s, '\'');
}

/// Standard base64 with padding, appended to `out`.
fn base64(out: &mut String, bytes: &[u8]) {
    out.push_str(&crate::format::java::base64(bytes));
}

from_variants!(Lit:
    bool => Bool, i8 => Byte, i16 => Short, i32 => Int, i64 => Long, f32 => Float, f64 => Double,
    String => String, char => Char, DateTime => DateTime, Uuid => Uuid, Duration => Duration,
    BigInteger => BigInt, Token => Token,
);

impl From<&str> for Lit {
    fn from(v: &str) -> Lit {
        Lit::String(v.to_owned())
    }
}

from_string_ref_and_unsigned!(Lit, BigInt);

impl From<BigDecimal> for Lit {
    fn from(v: BigDecimal) -> Lit {
        Lit::BigDecimal(Box::new(v))
    }
}

impl From<bytes::Bytes> for Lit {
    /// A Binary.
    fn from(v: bytes::Bytes) -> Lit {
        Lit::Binary(v.to_vec())
    }
}

impl<L: Into<Lit>> From<Option<L>> for Lit {
    /// `None` is `null`.
    fn from(v: Option<L>) -> Lit {
        v.map_or(Lit::Null, Into::into)
    }
}

impl<L: Into<Lit>> From<Vec<L>> for Lit {
    /// A List.
    fn from(v: Vec<L>) -> Lit {
        Lit::list(v)
    }
}

impl<L: Into<Lit>, const N: usize> From<[L; N]> for Lit {
    /// A List.
    fn from(v: [L; N]) -> Lit {
        Lit::list(v)
    }
}

impl<L: Into<Lit> + Ord> From<BTreeSet<L>> for Lit {
    /// A Set, in the set's order.
    fn from(v: BTreeSet<L>) -> Lit {
        Lit::set(v)
    }
}

impl<L: Into<Lit>> From<HashSet<L>> for Lit {
    /// A Set, its items sorted by their text so that the script is deterministic.
    fn from(v: HashSet<L>) -> Lit {
        let mut items: Vec<Lit> = v.into_iter().map(Into::into).collect();
        items.sort_by_cached_key(|l| l.to_gremlin().unwrap_or_default());
        Lit::Set(items)
    }
}

impl<K: Into<Lit>, V: Into<Lit>> From<BTreeMap<K, V>> for Lit {
    /// A Map, in the map's order.
    fn from(v: BTreeMap<K, V>) -> Lit {
        Lit::map(v)
    }
}

impl<K: Into<Lit>, V: Into<Lit>> From<HashMap<K, V>> for Lit {
    /// A Map, its entries sorted by the text of their keys so that the script is deterministic.
    fn from(v: HashMap<K, V>) -> Lit {
        let mut entries: Vec<(Lit, Lit)> =
            v.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        entries.sort_by_cached_key(|(k, _)| k.to_gremlin().unwrap_or_default());
        Lit::Map(entries)
    }
}

impl TryFrom<Value> for Lit {
    type Error = String;

    /// The literal of a decoded value, e.g. to use a result in a later traversal. A vertex,
    /// edge or vertex property stands for its id (as the GLVs write an element argument); a
    /// TinkerPop 3 token (a `g:Order` PDT, ...) is its token (`Order.desc`); a provider-defined
    /// type is a `PDT(..)` literal. A Graph, Tree, Path, Property, the marker and the other
    /// TinkerPop 3 types (`gx:LocalDate`, `g:Traverser`, ...) have no literal: an error.
    /// A typed null is `null`, every `DateTime` an OffsetDateTime (TinkerPop 4 has no other).
    fn try_from(v: Value) -> Result<Lit, String> {
        Ok(match v {
            Value::Null(_) => Lit::Null,
            Value::Int(n) => Lit::Int(n),
            Value::Long(n) => Lit::Long(n),
            Value::String(s) => Lit::String(s),
            Value::DateTime(d) => Lit::DateTime(d),
            Value::Double(d) => Lit::Double(d),
            Value::Float(f) => Lit::Float(f),
            Value::List(items) => Lit::List(
                items
                    .into_iter()
                    .map(Lit::try_from)
                    .collect::<Result<_, _>>()?,
            ),
            Value::Set(items) => Lit::Set(
                items
                    .into_iter()
                    .map(Lit::try_from)
                    .collect::<Result<_, _>>()?,
            ),
            Value::BulkList(items) => {
                let mut out = Vec::new();
                for (item, bulk) in items {
                    let lit = Lit::try_from(item)?;
                    for _ in 0..bulk.max(0) {
                        out.push(lit.clone());
                    }
                }
                Lit::List(out)
            }
            Value::Map(entries) | Value::OrderedMap(entries) => Lit::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| Ok((Lit::try_from(k)?, Lit::try_from(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            Value::Uuid(u) => Lit::Uuid(u),
            Value::Vertex(v) => Lit::try_from(v.id)?,
            Value::Edge(e) => Lit::try_from(e.id)?,
            Value::VertexProperty(p) => Lit::try_from(p.id)?,
            Value::Merge(m) => Lit::Token(Token::Merge(m)),
            Value::PrimitivePdt(p) => match p.type_name.split_once(':') {
                Some(("g" | "gx", _)) => match v1_token(&p.type_name, &p.value) {
                    Some(t) => Lit::Token(t),
                    None => {
                        return Err(format!(
                            "the TinkerPop 3 {} {:?} has no TinkerPop 4 literal",
                            p.type_name, p.value
                        ))
                    }
                },
                _ => Lit::PrimitivePdt(p),
            },
            Value::CompositePdt(p) => match p.type_name.split_once(':') {
                Some(("g" | "gx", _)) => {
                    return Err(format!(
                        "the TinkerPop 3 {} has no TinkerPop 4 literal",
                        p.type_name
                    ))
                }
                _ => Lit::CompositePdt(p),
            },
            Value::BigDecimal(d) => Lit::BigDecimal(d),
            Value::BigInteger(n) => Lit::BigInt(n),
            Value::Byte(n) => Lit::Byte(n),
            Value::Binary(b) => Lit::Binary(b),
            Value::Short(n) => Lit::Short(n),
            Value::Boolean(b) => Lit::Bool(b),
            Value::Char(c) => Lit::Char(c),
            Value::Duration(d) => Lit::Duration(d),
            Value::T(t) => Lit::Token(Token::T(t)),
            Value::Direction(d) => Lit::Token(Token::Direction(d)),
            other => {
                return Err(format!(
                    "a {} has no gremlin-lang literal",
                    other.type_name()
                ))
            }
        })
    }
}

/// The token a TinkerPop 3 enum PDT names (`g:Order` `"desc"` is `Order.desc`), if any.
fn v1_token(type_name: &str, name: &str) -> Option<Token> {
    macro_rules! find {
        ($($class:ident),*) => {
            match type_name.strip_prefix("g:")? {
                $(stringify!($class) => $class::ALL
                    .into_iter()
                    .find(|t| t.as_str() == name)
                    .map(Token::$class),)*
                _ => None,
            }
        };
    }
    find!(
        Order,
        Scope,
        Column,
        Cardinality,
        Pop,
        Operator,
        Pick,
        Barrier,
        DT,
        GType
    )
}

impl TryFrom<&Lit> for Value {
    type Error = String;

    /// The value a literal stands for, as a TinkerPop 3 binding carries it: numbers, strings,
    /// date-times and the other scalars as themselves, collections with their items, `T`,
    /// `Direction` and `Merge` as those values and the other tokens as the GraphBinary 1 enum
    /// PDTs (`Order.desc` is a `g:Order` `"desc"`, written as GraphBinary 1's Order). A
    /// `Cardinality.single(..)` value or a token GraphBinary 1 has no type for is an error.
    fn try_from(l: &Lit) -> Result<Value, String> {
        let items = |items: &[Lit]| {
            items
                .iter()
                .map(Value::try_from)
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(match l {
            Lit::Null => Value::Null(crate::value::codes::UNSPECIFIED_NULL),
            Lit::Bool(b) => Value::Boolean(*b),
            Lit::Byte(n) => Value::Byte(*n),
            Lit::Short(n) => Value::Short(*n),
            Lit::Int(n) => Value::Int(*n),
            Lit::Long(n) => Value::Long(*n),
            Lit::BigInt(n) => Value::BigInteger(n.clone()),
            Lit::Float(f) => Value::Float(*f),
            Lit::Double(d) => Value::Double(*d),
            Lit::BigDecimal(d) => Value::BigDecimal(d.clone()),
            Lit::String(s) => Value::String(s.clone()),
            Lit::Char(c) => Value::Char(*c),
            Lit::DateTime(d) => Value::DateTime(*d),
            Lit::Uuid(u) => Value::Uuid(*u),
            Lit::Duration(d) => Value::Duration(*d),
            Lit::Binary(b) => Value::Binary(b.clone()),
            Lit::List(v) => Value::List(items(v)?),
            Lit::Set(v) => Value::Set(items(v)?),
            Lit::Map(entries) => Value::Map(
                entries
                    .iter()
                    .map(|(k, v)| Ok((Value::try_from(k)?, Value::try_from(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            Lit::Token(Token::T(t)) => Value::T(*t),
            Lit::Token(Token::Direction(d)) => Value::Direction(*d),
            Lit::Token(Token::Merge(m)) => Value::Merge(*m),
            Lit::Token(t) => {
                let (class, name) = match t {
                    Token::Order(v) => (Order::CLASS, v.as_str()),
                    Token::Scope(v) => (Scope::CLASS, v.as_str()),
                    Token::Column(v) => (Column::CLASS, v.as_str()),
                    Token::Cardinality(v) => (Cardinality::CLASS, v.as_str()),
                    Token::Pop(v) => (Pop::CLASS, v.as_str()),
                    Token::Operator(v) => (Operator::CLASS, v.as_str()),
                    Token::Pick(v) => (Pick::CLASS, v.as_str()),
                    Token::Barrier(v) => (Barrier::CLASS, v.as_str()),
                    Token::DT(v) => (DT::CLASS, v.as_str()),
                    Token::GType(v) => (GType::CLASS, v.as_str()),
                    other => {
                        return Err(format!(
                            "the token {other} has no GraphBinary 1 type to bind it as"
                        ))
                    }
                };
                Value::PrimitivePdt(Box::new(PrimitivePdt {
                    type_name: format!("g:{class}"),
                    value: name.to_owned(),
                }))
            }
            Lit::CardinalityValue(c, _) => {
                return Err(format!(
                    "{c}(..) is gremlin-lang syntax, not a value to bind"
                ))
            }
            Lit::PrimitivePdt(p) => Value::PrimitivePdt(p.clone()),
            Lit::CompositePdt(p) => Value::CompositePdt(p.clone()),
        })
    }
}

/// Something that stands for a literal: what [`GValue::new`](crate::process::GValue::new) takes. Every
/// `Into<Lit>` type (numbers, strings, the model's scalars, tokens, collections of them) and a
/// decoded [`Value`] or element (a vertex, edge or vertex property stands for its id), whose
/// conversion can fail ([`Lit::try_from`]); the failure is reported when the traversal is
/// built.
pub trait IntoLit {
    /// The literal, or why there is none.
    fn into_lit(self) -> Result<Lit, String>;
}

impl<L: Into<Lit>> IntoLit for L {
    fn into_lit(self) -> Result<Lit, String> {
        Ok(self.into())
    }
}

impl IntoLit for Value {
    fn into_lit(self) -> Result<Lit, String> {
        Lit::try_from(self)
    }
}

macro_rules! into_lit_via_value {
    ($($t:ty),*) => {$(
        impl IntoLit for $t {
            fn into_lit(self) -> Result<Lit, String> {
                Lit::try_from(Value::from(self))
            }
        }
    )*};
}
into_lit_via_value!(
    crate::value::Vertex,
    crate::value::Edge,
    crate::value::VertexProperty,
    PrimitivePdt,
    CompositePdt
);

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: impl Into<Lit>) -> String {
        l.into().to_gremlin().unwrap()
    }

    #[test]
    fn base64_is_standard() {
        let b = |s: &[u8]| {
            let mut o = String::new();
            base64(&mut o, s);
            o
        };
        for (plain, encoded) in crate::format::java::RFC4648_VECTORS {
            assert_eq!(b(plain.as_bytes()), encoded, "{plain:?}");
        }
        assert_eq!(b(&[0xff, 0xfe, 0xfd, 0xfc]), "//79/A==");
    }

    #[test]
    fn groovy_floats_keep_their_sign() {
        let groovy = |l: Lit| {
            let mut o = String::new();
            l.write_groovy(&mut o).unwrap();
            o
        };
        // Groovy 2.5 (TinkerPop 3.6.8) evaluated `(-0.0d)` to 0.0: checked on 3.6.8 and 3.7.3.
        assert_eq!(groovy(Lit::Double(-0.0)), "(-(0.0d))");
        assert_eq!(groovy(Lit::Float(-0.0)), "(-(0.0f))");
        assert_eq!(groovy(Lit::Double(0.0)), "(0.0d)");
        assert_eq!(groovy(Lit::Double(-1.5)), "(-1.5d)");
    }

    #[test]
    fn unsigned_widen() {
        assert_eq!(text(7u16), "7");
        assert_eq!(text(7u32), "7L");
        assert_eq!(text(u64::MAX), "18446744073709551615N");
        assert_eq!(text(1u64 << 63), "9223372036854775808N");
    }
}
