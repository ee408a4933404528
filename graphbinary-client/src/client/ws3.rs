//! The TinkerPop 3 side of [`Client`](super::Client): a `ws://` or `wss://` URL sends every
//! request through a [`Client3`] pool (GraphBinary 1 over WebSocket), connected at the first
//! request, and hands its results to the same [`ResultStream`](super::ResultStream).
//!
//! A request's parameters are gremlin-lang literals (the text [`GremlinLiteral`] writes); here
//! they become `bindings` values again, read back by [`literal_value`].

use tokio::sync::OnceCell;

use super::error::{Error, ServerError, TransportKind};
use crate::model::Value;
use crate::ws::{Client3, Error3, Options3};

#[cfg(doc)]
use super::GremlinLiteral;

/// The TinkerPop 3 pool of a client, opened on first use.
#[derive(Debug)]
pub(super) struct Ws3 {
    url: String,
    options: Options3,
    client: OnceCell<Client3>,
}

impl Ws3 {
    pub(super) fn new(url: String, options: Options3) -> Self {
        Ws3 {
            url,
            options,
            client: OnceCell::new(),
        }
    }

    /// The pool, connecting its first connection if this is the first request.
    pub(super) async fn client(&self) -> Result<&Client3, Error> {
        self.client
            .get_or_try_init(|| Client3::connect_with(&self.url, self.options.clone()))
            .await
            .map_err(from_error3)
    }
}

/// The client error for a TinkerPop 3 error.
pub(crate) fn from_error3(e: Error3) -> Error {
    match e {
        Error3::Server {
            code,
            message,
            attributes,
        } => {
            let exception = attributes
                .iter()
                .find(|(k, _)| k.as_str() == Some("exceptions"))
                .and_then(|(_, v)| match v {
                    Value::List(l) => l.first().and_then(|x| x.as_str()).map(str::to_owned),
                    _ => None,
                });
            Error::Server(ServerError {
                code,
                message: Some(message),
                exception,
                http_status: None,
            })
        }
        Error3::AuthenticationRequired => Error::Server(ServerError {
            code: 407,
            message: Some(
                "the server requires authentication and no credentials were given".into(),
            ),
            exception: None,
            http_status: None,
        }),
        Error3::Decode(d) => Error::Decode(d),
        Error3::Timeout(_) => Error::Transport {
            kind: TransportKind::Timeout,
            source: Box::new(e),
        },
        Error3::WebSocket(ref w) => {
            use tokio_tungstenite::tungstenite::Error as W;
            let kind = match w {
                // rustls reports a failed handshake as an I/O error wrapping its own.
                W::Io(io)
                    if io
                        .get_ref()
                        .is_some_and(|inner| inner.is::<rustls::Error>()) =>
                {
                    TransportKind::Tls
                }
                W::Io(_) | W::Url(_) | W::Http(_) | W::HttpFormat(_) => TransportKind::Connect,
                W::Tls(_) => TransportKind::Tls,
                _ => TransportKind::Io,
            };
            Error::Transport {
                kind,
                source: Box::new(e),
            }
        }
        Error3::Closed(_) => Error::Transport {
            kind: TransportKind::Io,
            source: Box::new(e),
        },
        Error3::Interceptor { name, source } => Error::Interceptor { name, source },
        Error3::Config(c) => Error::Config(c),
        Error3::Encode(e) => Error::InvalidRequest(e.to_string()),
        other => Error::Protocol(other.to_string()),
    }
}

/// Reads back a gremlin-lang literal as the value a `bindings` entry carries: strings, numbers
/// (suffixes `b s i l n f d m`, any case; `1.5M` and `1.2E+3M` as a BigDecimal of that scale),
/// `true`/`false`/`null`, `NaN`/`Infinity`, chars (`'c'c`), `UUID('...')`,
/// `Duration(seconds,nanos)` and `Duration(seconds,nanos,false)` (negative, as [`GremlinLiteral`]
/// writes one), `Binary('base64')` (standard base64 with padding, strictly), lists `[a, b]`,
/// maps `[k: v]` / `[:]` and sets `{a, b}`. Anything else is an [`Error::InvalidRequest`]
/// naming the offset.
pub(super) fn literal_value(text: &str) -> Result<Value, Error> {
    let mut p = Lit {
        s: text.as_bytes(),
        at: 0,
        text,
    };
    let v = p.value(0)?;
    p.ws();
    if p.at != p.s.len() {
        return Err(p.err("the end of the literal"));
    }
    Ok(v)
}

struct Lit<'a> {
    s: &'a [u8],
    at: usize,
    text: &'a str,
}

impl Lit<'_> {
    fn err(&self, expected: &str) -> Error {
        Error::InvalidRequest(format!(
            "parameter literal {:?}: offset {}: expected {expected} (TinkerPop 3 bindings take \
             strings, numbers, booleans, null, chars, UUIDs, Durations, Binaries, lists, maps \
             and sets)",
            self.text, self.at
        ))
    }

    fn err_at(&self, at: usize, expected: &str) -> Error {
        Lit {
            s: self.s,
            at,
            text: self.text,
        }
        .err(expected)
    }

    /// An unsigned decimal integer (after optional whitespace).
    fn digits(&mut self) -> Result<u128, Error> {
        self.ws();
        let start = self.at;
        while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.text[start..self.at]
            .parse()
            .map_err(|_| self.err_at(start, "an unsigned integer"))
    }

    /// The rest of `Duration(seconds,nanos[,false])` after `Duration(`: seconds and nanos of
    /// the magnitude, `false` for a negative duration; normalized as `java.time.Duration` is
    /// (nanos 0 to 999,999,999, seconds rounded down).
    fn duration(&mut self) -> Result<Value, Error> {
        let secs = self.digits()?;
        if !self.eat(b',') {
            return Err(self.err(", and the nanoseconds"));
        }
        let nanos_at = self.at;
        let nanos = self.digits()?;
        if nanos >= 1_000_000_000 {
            return Err(self.err_at(nanos_at, "nanoseconds below 1,000,000,000"));
        }
        let mut positive = true;
        if self.eat(b',') {
            self.ws();
            if self.keyword("false") {
                positive = false;
            } else if !self.keyword("true") {
                return Err(self.err("true or false"));
            }
        }
        if !self.eat(b')') {
            return Err(self.err(")"));
        }
        let magnitude = i128::try_from(secs)
            .ok()
            .and_then(|s| s.checked_mul(1_000_000_000))
            .and_then(|s| s.checked_add(nanos as i128));
        let total = magnitude.map(|m| if positive { m } else { -m });
        let seconds = total.and_then(|t| i64::try_from(t.div_euclid(1_000_000_000)).ok());
        match (seconds, total) {
            (Some(seconds), Some(t)) => Ok(Value::Duration(crate::model::Duration {
                seconds,
                nanos: t.rem_euclid(1_000_000_000) as i32,
            })),
            _ => Err(self.err_at(nanos_at, "a Duration whose seconds fit in a Long")),
        }
    }

    /// The quote that opens a string here.
    fn quote(&self) -> Result<u8, Error> {
        match self.s.get(self.at) {
            Some(&q @ (b'\'' | b'"')) => Ok(q),
            _ => Err(self.err("a quoted string")),
        }
    }

    fn ws(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.s.get(self.at) == Some(&b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn keyword(&mut self, k: &str) -> bool {
        if self.s[self.at..].starts_with(k.as_bytes()) {
            self.at += k.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: u32) -> Result<Value, Error> {
        if depth > 64 {
            return Err(self.err("less nesting"));
        }
        self.ws();
        let Some(&c) = self.s.get(self.at) else {
            return Err(self.err("a value"));
        };
        match c {
            b'\'' | b'"' => {
                let s = self.string(c)?;
                if self.s.get(self.at) == Some(&b'c') {
                    self.at += 1;
                    let mut chars = s.chars();
                    return match (chars.next(), chars.next()) {
                        (Some(ch), None) => Ok(Value::Char(ch)),
                        _ => Err(self.err("one character before the suffix c")),
                    };
                }
                Ok(Value::String(s))
            }
            b'[' => {
                self.at += 1;
                if self.eat(b':') {
                    if self.eat(b']') {
                        return Ok(Value::Map(Vec::new()));
                    }
                    return Err(self.err("] after [:"));
                }
                if self.eat(b']') {
                    return Ok(Value::List(Vec::new()));
                }
                let first = self.value(depth + 1)?;
                if self.eat(b':') {
                    let mut map = vec![(first, self.value(depth + 1)?)];
                    while self.eat(b',') {
                        let k = self.value(depth + 1)?;
                        if !self.eat(b':') {
                            return Err(self.err(": in a map"));
                        }
                        map.push((k, self.value(depth + 1)?));
                    }
                    if !self.eat(b']') {
                        return Err(self.err(", or ] in a map"));
                    }
                    return Ok(Value::Map(map));
                }
                let mut list = vec![first];
                while self.eat(b',') {
                    list.push(self.value(depth + 1)?);
                }
                if !self.eat(b']') {
                    return Err(self.err(", or ] in a list"));
                }
                Ok(Value::List(list))
            }
            b'{' => {
                self.at += 1;
                let mut set = Vec::new();
                if !self.eat(b'}') {
                    set.push(self.value(depth + 1)?);
                    while self.eat(b',') {
                        set.push(self.value(depth + 1)?);
                    }
                    if !self.eat(b'}') {
                        return Err(self.err(", or } in a set"));
                    }
                }
                Ok(Value::Set(set))
            }
            _ if self.keyword("null") => Ok(Value::Null(0xfe)),
            _ if self.keyword("true") => Ok(Value::Boolean(true)),
            _ if self.keyword("false") => Ok(Value::Boolean(false)),
            _ if self.keyword("NaN") => Ok(Value::Double(f64::NAN)),
            _ if self.keyword("Infinity") || self.keyword("+Infinity") => {
                Ok(Value::Double(f64::INFINITY))
            }
            _ if self.keyword("-Infinity") => Ok(Value::Double(f64::NEG_INFINITY)),
            _ if self.keyword("UUID(") => {
                self.ws();
                let q = self.quote()?;
                let s = self.string(q)?;
                if !self.eat(b')') {
                    return Err(self.err(")"));
                }
                s.parse()
                    .map(Value::Uuid)
                    .map_err(|_| self.err("a UUID string"))
            }
            _ if self.keyword("Duration(") => self.duration(),
            _ if self.keyword("Binary(") => {
                self.ws();
                let q = self.quote()?;
                // The digits start right after the quote (base64 has no escapes).
                let start = self.at + 1;
                let text = self.string(q)?;
                let bytes = crate::java::base64_decode(&text).map_err(|e| {
                    self.err_at(
                        start + e.offset,
                        &format!("{} in the Binary's base64", e.expected),
                    )
                })?;
                if !self.eat(b')') {
                    return Err(self.err(")"));
                }
                Ok(Value::Binary(bytes))
            }
            b'-' | b'+' | b'0'..=b'9' => self.number(),
            _ => Err(self.err("a value")),
        }
    }

    fn string(&mut self, quote: u8) -> Result<String, Error> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let mut chars = rest.chars();
            let Some(c) = chars.next() else {
                return Err(self.err("the closing quote"));
            };
            self.at += c.len_utf8();
            match c {
                c if c as u32 == u32::from(quote) => return Ok(out),
                '\\' => {
                    let Some(e) = chars.next() else {
                        return Err(self.err("an escape"));
                    };
                    self.at += e.len_utf8();
                    out.push(match e {
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        'u' => {
                            let hex = self
                                .text
                                .get(self.at..self.at + 4)
                                .ok_or_else(|| self.err("4 hex digits"))?;
                            let n = u32::from_str_radix(hex, 16)
                                .map_err(|_| self.err("4 hex digits"))?;
                            self.at += 4;
                            char::from_u32(n).ok_or_else(|| self.err("a character code"))?
                        }
                        other => other,
                    });
                }
                c => out.push(c),
            }
        }
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.at;
        if matches!(self.s.get(self.at), Some(b'-' | b'+')) {
            self.at += 1;
        }
        let mut float = false;
        while let Some(&c) = self.s.get(self.at) {
            match c {
                b'0'..=b'9' => {}
                b'.' | b'e' | b'E' => float = true,
                b'-' | b'+' if matches!(self.s[self.at - 1], b'e' | b'E') => {}
                _ => break,
            }
            self.at += 1;
        }
        let digits = &self.text[start..self.at];
        let suffix = self.s.get(self.at).map(u8::to_ascii_lowercase);
        let bad = |l: &Self| l.err("a number");
        let v = match suffix {
            Some(b'b') if !float => Value::Byte(digits.parse().map_err(|_| bad(self))?),
            Some(b's') if !float => Value::Short(digits.parse().map_err(|_| bad(self))?),
            Some(b'i') if !float => Value::Int(digits.parse().map_err(|_| bad(self))?),
            Some(b'l') if !float => Value::Long(digits.parse().map_err(|_| bad(self))?),
            Some(b'n') if !float => Value::BigInteger(
                digits
                    .parse::<num_bigint::BigInt>()
                    .map_err(|_| bad(self))?
                    .into(),
            ),
            Some(b'f') => Value::Float(digits.parse().map_err(|_| bad(self))?),
            Some(b'd') => Value::Double(digits.parse().map_err(|_| bad(self))?),
            Some(b'm') => big_decimal(digits).ok_or_else(|| self.err_at(start, "a BigDecimal"))?,
            _ => {
                return if float {
                    digits
                        .parse()
                        .map(Value::Double)
                        .map_err(|_| self.err("a number"))
                } else if let Ok(i) = digits.parse::<i32>() {
                    Ok(Value::Int(i))
                } else {
                    digits
                        .parse()
                        .map(Value::Long)
                        .map_err(|_| self.err("a number"))
                }
            }
        };
        self.at += 1;
        Ok(v)
    }
}

/// A BigDecimal from Java's `BigDecimal.toString()` form (`-12.34`, `1.234E+5`, `5E-7`): the
/// digits without the point are the unscaled value, the scale is the digits after the point
/// less the exponent.
fn big_decimal(text: &str) -> Option<Value> {
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let unscaled: num_bigint::BigInt = format!("{int}{frac}").parse().ok()?;
    let scale = i32::try_from(frac.len() as i64 - exp).ok()?;
    Some(Value::BigDecimal(Box::new(crate::model::BigDecimal {
        scale,
        unscaled: unscaled.into(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::GremlinLiteral;

    fn lit<T: GremlinLiteral>(v: T) -> Value {
        let mut s = String::new();
        v.write_literal(&mut s);
        literal_value(&s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn literals_written_by_the_client_read_back_as_values() {
        assert_eq!(lit("it's \"q\"\n"), Value::String("it's \"q\"\n".into()));
        assert_eq!(lit(7i8), Value::Byte(7));
        assert_eq!(lit(-7i16), Value::Short(-7));
        assert_eq!(lit(29i32), Value::Int(29));
        assert_eq!(lit(i64::MIN), Value::Long(i64::MIN));
        assert_eq!(lit(1.5f32), Value::Float(1.5));
        assert_eq!(lit(-2.25e-7f64), Value::Double(-2.25e-7));
        assert_eq!(lit(true), Value::Boolean(true));
        assert_eq!(lit('é'), Value::Char('é'));
        let u: uuid::Uuid = "41d2e28a-20a4-4ab0-b379-d810dede3786".parse().unwrap();
        assert_eq!(lit(u), Value::Uuid(u));
        assert!(lit(Option::<i32>::None).is_null());
        assert_eq!(
            literal_value("[1, 'a', ['k': 2L], [:], []]").unwrap(),
            Value::List(vec![
                Value::Int(1),
                Value::String("a".into()),
                Value::Map(vec![(Value::String("k".into()), Value::Long(2))]),
                Value::Map(vec![]),
                Value::List(vec![]),
            ])
        );
    }

    #[test]
    fn durations_binaries_and_big_decimals_read_back_as_written() {
        use crate::model::{BigDecimal, Duration};
        use crate::process::Lit;
        // Through the traversal API's writer, as a `_gb3_N` binding travels.
        let lit = |v: Lit| {
            let text = v.to_gremlin().unwrap();
            literal_value(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
        };
        let d = |seconds, nanos| Duration { seconds, nanos };
        for dur in [
            d(0, 0),
            d(90, 5),
            d(-2, 500_000_000),
            d(-1, 0),
            d(i64::MAX, 999_999_999),
            d(i64::MIN, 0),
            d(i64::MIN, 1),
        ] {
            assert_eq!(lit(Lit::Duration(dur)), Value::Duration(dur), "{dur:?}");
        }
        // Written normalized: -1 s - 0.5 s is the Java Duration (-2 s, +0.5e9 ns).
        assert_eq!(
            lit(Lit::Duration(d(-1, -500_000_000))),
            Value::Duration(d(-2, 500_000_000))
        );
        assert_eq!(
            literal_value("Duration( 3 , 4 , true )").unwrap(),
            Value::Duration(d(3, 4))
        );
        for bytes in [&b""[..], b"\x00", b"\x00\xffgb", b"some bytes for you"] {
            assert_eq!(
                lit(Lit::binary(bytes)),
                Value::Binary(bytes.to_vec()),
                "{bytes:?}"
            );
        }
        assert_eq!(
            literal_value("[Binary('Zm9v'), Duration(1,0)]").unwrap(),
            Value::List(vec![
                Value::Binary(b"foo".to_vec()),
                Value::Duration(d(1, 0))
            ])
        );
        for (scale, unscaled) in [(2, 1234i64), (0, -7), (-3, 1234), (7, 5), (10, -1)] {
            let b = Box::new(BigDecimal {
                scale,
                unscaled: unscaled.into(),
            });
            assert_eq!(
                lit(Lit::BigDecimal(b.clone())),
                Value::BigDecimal(b),
                "{scale} {unscaled}"
            );
        }
    }

    #[test]
    fn a_bad_duration_or_binary_names_its_offset() {
        let e = |s: &str| literal_value(s).unwrap_err().to_string();
        // Not base64 (URL-safe digit), missing padding, text after the padding.
        let m = e("Binary(\"Zm9-\")");
        assert!(m.contains("offset 11") && m.contains("base64 digit"), "{m}");
        let m = e("[Binary('Zg')]");
        assert!(
            m.contains("offset 11") && m.contains("multiple of 4"),
            "{m}"
        );
        let m = e("Binary('Zg==Zg==')");
        assert!(m.contains("offset 10"), "{m}");
        let m = e("Binary(Zg==)");
        assert!(m.contains("offset 7") && m.contains("quoted string"), "{m}");
        assert!(e("UUID(x)").contains("quoted string"));
        assert!(e("Binary('Zg=='").contains("expected )"));
        // Nanoseconds out of range, a sign, a third argument that is no boolean, overflow.
        let m = e("Duration(1,1000000000)");
        assert!(
            m.contains("offset 11") && m.contains("below 1,000,000,000"),
            "{m}"
        );
        assert!(e("Duration(-1,0)").contains("offset 9"));
        assert!(e("Duration(1,0,no)").contains("true or false"));
        assert!(e("Duration(1)").contains("nanoseconds"));
        let m = e("Duration(9223372036854775808,0)");
        assert!(m.contains("fit in a Long"), "{m}");
        assert!(e("1.5eM").contains("BigDecimal"));
    }

    #[test]
    fn an_unsupported_literal_names_its_offset() {
        let e = literal_value("[1, datetime('2020')]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("offset 4"), "{e}");
        let e = literal_value("'open").unwrap_err().to_string();
        assert!(e.contains("closing quote"), "{e}");
        assert!(literal_value("1 2").is_err());
    }
}
