//! The GraphSON 2 and 3 reader (typed and untyped JSON) into [`Value`]: a hand-written parser
//! that names the byte offset of every error and checks each length against the limits before
//! allocating (kept over serde_json by `benches/graphson_reader.rs`: 1.07-1.15x faster on
//! vertices, and serde_json would lose the offsets). What a response message is made of is read
//! by `protocol/ws3/graphson.rs` through it.

use std::sync::Arc;

use std::borrow::Cow;

use graphbinary_core::{DecodeError, ErrorKind, Limits};
use uuid::Uuid;

use crate::format::graphbinary1::composite;
use crate::value::{
    BigDecimal, BigInteger, CompositePdt, DateTime, DateTimeKind, Direction, Duration, Edge, Graph,
    Labels, Path, PrimitivePdt, Property, Tree, Value, Vertex, VertexProperty, T,
};

type R<T> = Result<T, DecodeError>;

/// The longest number text read (a `gx:BigInteger` of 4000 digits is past any real id).
const MAX_NUMBER_LEN: usize = 4096;

pub(crate) struct Parser<'a> {
    b: &'a [u8],
    pub(crate) i: usize,
    depth: u32,
    limits: &'a Limits,
    typed: bool,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(b: &'a [u8], typed: bool, limits: &'a Limits) -> Self {
        Parser {
            b,
            i: 0,
            depth: 0,
            limits,
            typed,
        }
    }

    fn err(&self, at: usize, kind: ErrorKind) -> DecodeError {
        DecodeError::new(at as u64, kind)
    }

    pub(crate) fn invalid(&self, at: usize, what: &'static str, detail: String) -> DecodeError {
        self.err(at, ErrorKind::Invalid { what, detail })
    }

    fn eof(&self, expected: &'static str) -> DecodeError {
        self.err(self.b.len(), ErrorKind::UnexpectedEof { expected })
    }

    pub(crate) fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&mut self, expected: &'static str) -> R<u8> {
        self.ws();
        self.b
            .get(self.i)
            .copied()
            .ok_or_else(|| self.eof(expected))
    }

    fn expect(&mut self, c: u8, expected: &'static str) -> R<()> {
        let got = self.peek(expected)?;
        if got != c {
            return Err(self.unexpected(expected));
        }
        self.i += 1;
        Ok(())
    }

    fn unexpected(&self, expected: &'static str) -> DecodeError {
        let found = self.b.get(self.i).map_or("the end".into(), |c| {
            if c.is_ascii_graphic() {
                format!("{:?}", *c as char)
            } else {
                format!("byte 0x{c:02x}")
            }
        });
        self.invalid(
            self.i,
            "GraphSON",
            format!("expected {expected}, found {found}"),
        )
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(self.err(
                self.i,
                ErrorKind::DepthLimit {
                    limit: self.limits.max_depth,
                },
            ));
        }
        Ok(())
    }

    fn count(&self, n: usize, what: &'static str) -> R<()> {
        if n > self.limits.max_collection_len {
            return Err(self.err(
                self.i,
                ErrorKind::LengthLimit {
                    what,
                    length: n as u64,
                    limit: self.limits.max_collection_len as u64,
                },
            ));
        }
        Ok(())
    }

    /// A JSON string (the opening quote next).
    fn string(&mut self) -> R<String> {
        self.expect(b'"', "a string")?;
        let start = self.i;
        let mut out = String::new();
        let mut run = self.i;
        loop {
            let Some(&c) = self.b.get(self.i) else {
                return Err(self.eof("the end of a string"));
            };
            match c {
                b'"' => {
                    self.push_run(&mut out, run)?;
                    self.i += 1;
                    break;
                }
                b'\\' => {
                    self.push_run(&mut out, run)?;
                    self.i += 1;
                    self.escape(&mut out)?;
                    run = self.i;
                }
                0..=0x1f => {
                    return Err(self.invalid(
                        self.i,
                        "GraphSON string",
                        format!("control byte 0x{c:02x} unescaped"),
                    ))
                }
                _ => self.i += 1,
            }
            if self.i - start > self.limits.max_bytes_len {
                return Err(self.err(
                    start,
                    ErrorKind::LengthLimit {
                        what: "GraphSON string",
                        length: (self.i - start) as u64,
                        limit: self.limits.max_bytes_len as u64,
                    },
                ));
            }
        }
        Ok(out)
    }

    fn push_run(&self, out: &mut String, run: usize) -> R<()> {
        let bytes = &self.b[run..self.i];
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                Ok(())
            }
            Err(e) => Err(self.err(
                run + e.valid_up_to(),
                ErrorKind::InvalidUtf8 {
                    what: "GraphSON string",
                },
            )),
        }
    }

    /// Checks that the bytes from `run` to here are UTF-8.
    fn check_utf8(&self, run: usize) -> R<()> {
        std::str::from_utf8(&self.b[run..self.i])
            .map(drop)
            .map_err(|e| {
                self.err(
                    run + e.valid_up_to(),
                    ErrorKind::InvalidUtf8 {
                        what: "GraphSON string",
                    },
                )
            })
    }

    fn hex4(&mut self) -> R<u32> {
        let at = self.i;
        let h = self
            .b
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.eof("4 hex digits of a \\u escape"))?;
        let s = std::str::from_utf8(h).ok();
        let n = s
            .filter(|s| s.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|s| u32::from_str_radix(s, 16).ok())
            .ok_or_else(|| self.invalid(at, "GraphSON string", "a bad \\u escape".into()))?;
        self.i += 4;
        Ok(n)
    }

    fn escape(&mut self, out: &mut String) -> R<()> {
        let at = self.i - 1;
        let Some(&c) = self.b.get(self.i) else {
            return Err(self.eof("an escape"));
        };
        self.i += 1;
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let cp = if (0xd800..0xdc00).contains(&hi) {
                    if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                        return Err(self.invalid(at, "GraphSON string", "a lone surrogate".into()));
                    }
                    self.i += 2;
                    let lo = self.hex4()?;
                    if !(0xdc00..0xe000).contains(&lo) {
                        return Err(self.invalid(at, "GraphSON string", "a lone surrogate".into()));
                    }
                    0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                } else {
                    hi
                };
                char::from_u32(cp)
                    .ok_or_else(|| self.invalid(at, "GraphSON string", "a lone surrogate".into()))?
            }
            _ => return Err(self.invalid(at, "GraphSON string", "an unknown escape".into())),
        };
        out.push(ch);
        Ok(())
    }

    /// The text of a JSON number, checked against the JSON grammar.
    fn number_text(&mut self) -> R<(&'a str, bool)> {
        self.ws();
        let start = self.i;
        let b = self.b;
        let mut i = self.i;
        let mut float = false;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = |i: &mut usize| {
            let s = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > s
        };
        let int_at = i;
        let ok = digits(&mut i)
            && (b.get(i) != Some(&b'.') || {
                i += 1;
                float = true;
                digits(&mut i)
            })
            && (!matches!(b.get(i), Some(b'e' | b'E')) || {
                i += 1;
                float = true;
                if matches!(b.get(i), Some(b'+' | b'-')) {
                    i += 1;
                }
                digits(&mut i)
            });
        if !ok {
            return Err(if i >= b.len() {
                self.eof("a number")
            } else {
                self.i = i;
                self.unexpected("a digit")
            });
        }
        if b[int_at] == b'0' && b.get(int_at + 1).is_some_and(u8::is_ascii_digit) {
            // JSON has no leading zeros (`007`): no JSON reader would take it.
            return Err(self.invalid(
                int_at,
                "GraphSON number",
                "a leading zero (JSON has none)".into(),
            ));
        }
        if i - start > MAX_NUMBER_LEN {
            // num-bigint parses decimal text in quadratic time: a length field merely claimed
            // is not the only way to make a reader work for nothing.
            return Err(self.err(
                start,
                ErrorKind::LengthLimit {
                    what: "GraphSON number",
                    length: (i - start) as u64,
                    limit: MAX_NUMBER_LEN as u64,
                },
            ));
        }
        self.i = i;
        // Digits and signs only: ASCII.
        Ok((std::str::from_utf8(&b[start..i]).unwrap_or("0"), float))
    }

    fn literal(&mut self, word: &'static [u8], expected: &'static str) -> R<()> {
        if self.b.len() < self.i + word.len() {
            return Err(self.eof(expected));
        }
        if &self.b[self.i..self.i + word.len()] != word {
            return Err(self.unexpected(expected));
        }
        self.i += word.len();
        Ok(())
    }

    /// Any value.
    pub(crate) fn value(&mut self) -> R<Value> {
        match self.peek("a value")? {
            b'n' => self.literal(b"null", "null").map(|()| Value::Null(0xfe)),
            b't' => self.literal(b"true", "true").map(|()| Value::Boolean(true)),
            b'f' => self
                .literal(b"false", "false")
                .map(|()| Value::Boolean(false)),
            b'"' => self.string().map(Value::String),
            b'[' => self.array().map(Value::List),
            b'{' => self.object(),
            b'-' | b'0'..=b'9' => {
                let at = self.i;
                let (s, float) = self.number_text()?;
                untyped_number(s, float).ok_or_else(|| {
                    self.invalid(at, "GraphSON number", format!("{s} is out of range"))
                })
            }
            _ => Err(self.unexpected("a value")),
        }
    }

    /// Reads `open`, calls `item` for each of the comma-separated items (counted against
    /// `max_collection_len`) and reads `close`; nested within `max_depth`.
    fn seq(
        &mut self,
        open: u8,
        close: u8,
        what: &'static str,
        mut item: impl FnMut(&mut Self) -> R<()>,
    ) -> R<()> {
        let (first, more) = if open == b'[' {
            ("a value or ]", ", or ]")
        } else {
            ("a key or }", ", or }")
        };
        self.expect(
            open,
            if open == b'[' {
                "an array"
            } else {
                "an object"
            },
        )?;
        self.enter()?;
        if self.peek(first)? == close {
            self.i += 1;
        } else {
            let mut n = 0;
            loop {
                item(self)?;
                n += 1;
                self.count(n, what)?;
                match self.peek(more)? {
                    b',' => self.i += 1,
                    c if c == close => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(self.unexpected(more)),
                }
            }
        }
        self.depth -= 1;
        Ok(())
    }

    fn array(&mut self) -> R<Vec<Value>> {
        let mut items = Vec::new();
        self.seq(b'[', b']', "GraphSON array", |p| {
            items.push(p.value()?);
            Ok(())
        })?;
        Ok(items)
    }

    /// Calls `f` for each field of an object (the key read, the value next).
    pub(crate) fn object_fields(
        &mut self,
        mut f: impl FnMut(&mut Self, Cow<'a, str>) -> R<()>,
    ) -> R<()> {
        self.seq(b'{', b'}', "GraphSON object", |p| {
            let key = p.str_cow()?;
            p.expect(b':', ":")?;
            f(p, key)
        })
    }

    /// A JSON string (the opening quote next), borrowed from the message when it has no
    /// escape (an object's key, a type name: most strings), else as [`Parser::string`] reads it.
    fn str_cow(&mut self) -> R<Cow<'a, str>> {
        if self.peek("a string")? == b'"' {
            let b = self.b;
            let start = self.i + 1;
            let mut i = start;
            while let Some(&c) = b.get(i) {
                match c {
                    b'"' => {
                        if i - start > self.limits.max_bytes_len {
                            break;
                        }
                        if let Ok(s) = std::str::from_utf8(&b[start..i]) {
                            self.i = i + 1;
                            return Ok(Cow::Borrowed(s));
                        }
                        break;
                    }
                    b'\\' | 0..=0x1f => break,
                    _ => i += 1,
                }
            }
        }
        // Escapes, errors and limits: the full reader.
        self.string().map(Cow::Owned)
    }

    /// An object: a typed value (`@type` its first key, `@value` its second and last), or a
    /// Map of String keys.
    fn object(&mut self) -> R<Value> {
        let may_be_typed = self.typed;
        let mut entries = Vec::new();
        let mut typed = None;
        self.object_fields(|p, key| {
            if typed.is_some() {
                return Err(p.invalid(p.i, "GraphSON typed value", "a key after @value".into()));
            }
            if may_be_typed && entries.is_empty() && key == "@type" {
                let ty_at = p.i;
                let ty = p.str_cow()?;
                p.expect(b',', ", then \"@value\"")?;
                let k_at = p.i;
                if p.str_cow()? != "@value" {
                    return Err(p.invalid(k_at, "GraphSON", "expected \"@value\"".into()));
                }
                p.expect(b':', ":")?;
                typed = Some(p.typed_value(&ty, ty_at)?);
            } else {
                entries.push((Value::String(key.into_owned()), p.value()?));
            }
            Ok(())
        })?;
        Ok(typed.unwrap_or(Value::Map(entries)))
    }

    /// Skips any value (checking its syntax and the limits).
    pub(crate) fn skip(&mut self) -> R<()> {
        match self.peek("a value")? {
            b'[' => self.seq(b'[', b']', "GraphSON array", Self::skip),
            b'{' => self.object_fields(|p, _| p.skip()),
            // A string is scanned, not built, and checked as `string` checks it: no control
            // byte, known escapes, UTF-8.
            b'"' => {
                self.i += 1;
                let mut run = self.i;
                let mut scratch = String::new();
                loop {
                    match self.b.get(self.i) {
                        None => return Err(self.eof("the end of a string")),
                        Some(b'"') => break,
                        Some(b'\\') => {
                            self.check_utf8(run)?;
                            self.i += 1;
                            self.escape(&mut scratch)?;
                            scratch.clear();
                            run = self.i;
                        }
                        Some(&c @ 0..=0x1f) => {
                            return Err(self.invalid(
                                self.i,
                                "GraphSON string",
                                format!("control byte 0x{c:02x} unescaped"),
                            ))
                        }
                        Some(_) => self.i += 1,
                    }
                }
                self.check_utf8(run)?;
                self.i += 1;
                Ok(())
            }
            _ => {
                // Scalars are cheap to read.
                let typed = self.typed;
                self.typed = false;
                let r = self.value().map(drop);
                self.typed = typed;
                r
            }
        }
    }

    fn int_of(&mut self, what: &'static str) -> R<(i128, usize)> {
        let at = self.i;
        if self.peek("a number")? == b'"' {
            return Err(self.invalid(at, what, "a string where a number belongs".into()));
        }
        let (s, float) = self.number_text()?;
        if float {
            return Err(self.invalid(at, what, format!("{s} is not an integer")));
        }
        let n = s
            .parse::<i128>()
            .map_err(|_| self.invalid(at, what, format!("{s} is out of range")))?;
        Ok((n, at))
    }

    fn ranged<N: TryFrom<i128>>(&mut self, what: &'static str) -> R<N> {
        let (n, at) = self.int_of(what)?;
        N::try_from(n).map_err(|_| self.invalid(at, what, format!("{n} is out of range")))
    }

    fn float_of(&mut self, what: &'static str) -> R<f64> {
        let at = self.i;
        if self.peek("a number")? == b'"' {
            let s = self.string()?;
            return match s.as_str() {
                "NaN" => Ok(f64::NAN),
                "Infinity" => Ok(f64::INFINITY),
                "-Infinity" => Ok(f64::NEG_INFINITY),
                _ => Err(self.invalid(at, what, format!("{s:?} is not a number"))),
            };
        }
        let (s, _) = self.number_text()?;
        let x = s
            .parse::<f64>()
            .map_err(|_| self.invalid(at, what, format!("{s} is not a number")))?;
        let finite = if what == "g:Float" {
            (x as f32).is_finite()
        } else {
            x.is_finite()
        };
        if !finite {
            // Infinities are the strings "Infinity" and "-Infinity".
            return Err(self.invalid(at, what, format!("{s} is out of range")));
        }
        Ok(x)
    }

    fn typed_value(&mut self, ty: &str, ty_at: usize) -> R<Value> {
        let at = self.i;
        Ok(match ty {
            "g:Int32" => Value::Int(self.ranged("g:Int32")?),
            "g:Int64" => Value::Long(self.ranged("g:Int64")?),
            "gx:Int16" => Value::Short(self.ranged("gx:Int16")?),
            "gx:Byte" => Value::Byte(self.ranged("gx:Byte")?),
            "g:Double" => Value::Double(self.float_of("g:Double")?),
            "g:Float" => Value::Float(self.float_of("g:Float")? as f32),
            "g:Date" | "g:Timestamp" => {
                let (what, kind) = if ty == "g:Date" {
                    ("g:Date", DateTimeKind::Date)
                } else {
                    ("g:Timestamp", DateTimeKind::Timestamp)
                };
                let ms = self.ranged::<i64>(what)?;
                Value::DateTime(DateTime::from_epoch_millis(ms).with_kind(kind))
            }
            "g:UUID" => {
                let s = self.string()?;
                Value::Uuid(
                    Uuid::parse_str(&s)
                        .map_err(|e| self.invalid(at, "g:UUID", format!("{s:?}: {e}")))?,
                )
            }
            "g:List" => Value::List(self.array()?),
            "g:Set" => Value::Set(self.array()?),
            "g:Map" => Value::Map(self.pairs("g:Map")?),
            "g:BulkSet" => {
                let mut entries = Vec::new();
                for (v, b) in self.pairs("g:BulkSet")? {
                    let Value::Long(b) = b else {
                        return Err(self.invalid(
                            at,
                            "g:BulkSet",
                            "a bulk that is no g:Int64".into(),
                        ));
                    };
                    entries.push((v, b));
                }
                Value::BulkList(entries)
            }
            "g:Traverser" => {
                let mut f = self.fields("g:Traverser")?;
                let bulk = match f.take("bulk") {
                    Value::Long(n) => n,
                    Value::Int(n) => i64::from(n),
                    _ => return Err(self.invalid(at, "g:Traverser", "no bulk".into())),
                };
                crate::format::graphbinary1::traverser(bulk, f.take("value"))
            }
            "g:T" => {
                let s = self.string()?;
                Value::T(T::from_name(&s).ok_or_else(|| self.invalid(at, "g:T", format!("{s:?}")))?)
            }
            "g:Direction" => {
                let s = self.string()?;
                Value::Direction(
                    Direction::from_name(&s)
                        .ok_or_else(|| self.invalid(at, "g:Direction", format!("{s:?}")))?,
                )
            }
            "gx:BigInteger" => {
                let (s, float) = self.number_or_string_text()?;
                let n: num_bigint::BigInt = (!float)
                    .then(|| s.parse().ok())
                    .flatten()
                    .ok_or_else(|| self.invalid(at, "gx:BigInteger", s.to_string()))?;
                Value::BigInteger(BigInteger::from(n))
            }
            "gx:BigDecimal" => {
                let (s, _) = self.number_or_string_text()?;
                Value::BigDecimal(Box::new(
                    BigDecimal::parse_decimal(&s)
                        .ok_or_else(|| self.invalid(at, "gx:BigDecimal", s.to_string()))?,
                ))
            }
            "gx:Char" => {
                let s = self.string()?;
                let mut cs = s.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) => Value::Char(c),
                    _ => return Err(self.invalid(at, "gx:Char", format!("{s:?} is not one char"))),
                }
            }
            "gx:ByteBuffer" => {
                let s = self.string()?;
                Value::Binary(
                    crate::format::java::base64_decode(&s)
                        .map_err(|e| self.invalid(at, "gx:ByteBuffer", format!("{e}")))?,
                )
            }
            "gx:Duration" => {
                let s = self.string()?;
                Value::Duration(
                    parse_duration(&s)
                        .ok_or_else(|| self.invalid(at, "gx:Duration", format!("{s:?}")))?,
                )
            }
            "g:Class" => {
                let s = self.string()?;
                Value::PrimitivePdt(Box::new(PrimitivePdt {
                    type_name: "g:Class".into(),
                    value: s,
                }))
            }
            "gx:Instant" | "gx:OffsetDateTime" | "gx:ZonedDateTime" => {
                let s = self.string()?;
                // A ZonedDateTime's text ends with its zone id in brackets; the offset stays.
                let text = s.split('[').next().unwrap_or_default();
                let kind = match ty {
                    "gx:Instant" => DateTimeKind::Instant,
                    "gx:ZonedDateTime" => DateTimeKind::ZonedDateTime,
                    _ => DateTimeKind::OffsetDateTime,
                };
                let d = DateTime::parse_iso(text)
                    .ok_or_else(|| self.invalid(at, "GraphSON date-time", format!("{s:?}")))?;
                Value::DateTime(d.with_kind(kind))
            }
            "gx:LocalDate" | "gx:LocalDateTime" | "gx:LocalTime" | "gx:MonthDay"
            | "gx:OffsetTime" | "gx:Period" | "gx:Year" | "gx:YearMonth" | "gx:ZoneOffset"
            | "gx:InetAddress" => {
                let s = self.string()?;
                java_time(ty, &s).ok_or_else(|| {
                    self.invalid(at, "a GraphSON java.time value", format!("{ty} {s:?}"))
                })?
            }
            "g:P" | "g:TextP" => {
                let mut f = self.fields("g:P")?;
                let predicate = match f.take("predicate") {
                    Value::String(p) => p,
                    _ => return Err(self.invalid(at, "g:P", "no predicate".into())),
                };
                // A collection (`within`) or the predicates of `and`/`or` are a list; each
                // value is one item, as GraphBinary 1 carries them.
                let values = match f.take("value") {
                    Value::List(items) => items,
                    v => vec![v],
                };
                let code = if ty == "g:P" {
                    crate::format::graphbinary1::codes::P
                } else {
                    crate::format::graphbinary1::codes::TEXT_P
                };
                crate::format::graphbinary1::predicate_value(code, predicate, values)
            }
            "g:Lambda" => {
                let mut f = self.fields("g:Lambda")?;
                let arguments = match f.take("arguments") {
                    Value::Int(n) => n,
                    Value::Long(n) => i32::try_from(n)
                        .map_err(|_| self.invalid(at, "g:Lambda", format!("arguments {n}")))?,
                    _ => return Err(self.invalid(at, "g:Lambda", "no arguments count".into())),
                };
                composite(
                    "g:Lambda",
                    vec![
                        ("script", f.take("script")),
                        ("language", f.take("language")),
                        ("arguments", Value::Int(arguments)),
                    ],
                )
            }
            "g:Bytecode" => {
                let mut f = self.fields("g:Bytecode")?;
                // An instruction list left out when empty.
                let list = |v: Value| match v {
                    Value::Null(_) => Value::List(Vec::new()),
                    v => v,
                };
                let (step, source) = (list(f.take("step")), list(f.take("source")));
                composite("g:Bytecode", vec![("step", step), ("source", source)])
            }
            "g:Tree" => Value::Tree(self.tree_items(at)?),
            // TinkerGraph (a `subgraph` step's side effect): `{"vertices":[g:Vertex...],
            // "edges":[g:Edge...]}`, read into the Graph the GraphBinary 1 reader gives.
            "tinker:graph" => {
                let mut f = self.fields("tinker:graph")?;
                let mut items = |name: &str| match f.take(name) {
                    Value::List(items) => Ok(items),
                    Value::Null(_) => Ok(Vec::new()),
                    other => Err(self.invalid(
                        at,
                        "tinker:graph",
                        format!("{name} is a {}, expected a list", other.type_name()),
                    )),
                };
                let (vertices, edges) = (items("vertices")?, items("edges")?);
                // An item that is not `what` it should be.
                let bad = |what: &str, other: Value| {
                    let detail = format!("{what} is a {}", other.type_name());
                    self.invalid(at, "tinker:graph", detail)
                };
                let vertices = vertices.into_iter().map(|v| match v {
                    Value::Vertex(v) => Ok(Vertex {
                        properties: Some(v.properties.unwrap_or_default()),
                        ..*v
                    }),
                    other => Err(bad("a vertex", other)),
                });
                let edges = edges.into_iter().map(|e| match e {
                    // A vertex label left out (read as "") is filled in from the graph.
                    Value::Edge(e) => {
                        let known = |l: Labels| match l.as_slice() {
                            [only] if only.is_empty() => Labels::default(),
                            _ => l,
                        };
                        Ok(Edge {
                            properties: Some(e.properties.unwrap_or_default()),
                            in_v_label: known(e.in_v_label),
                            out_v_label: known(e.out_v_label),
                            ..*e
                        })
                    }
                    other => Err(bad("an edge", other)),
                });
                let (vertices, edges) = (
                    vertices.collect::<Result<_, _>>()?,
                    edges.collect::<Result<_, _>>()?,
                );
                Value::Graph(Box::new(Graph::linked(vertices, edges)))
            }
            "g:Metrics" | "g:TraversalMetrics" => {
                let mut f = self.fields("g:Metrics")?;
                // GraphSON writes the duration in milliseconds (a Double), GraphBinary 1 in
                // nanoseconds (a Long): the model keeps GraphBinary 1's.
                let dur = match f.take("dur") {
                    Value::Double(ms) if ms.is_finite() => Value::Long((ms * 1e6).round() as i64),
                    Value::Long(n) => Value::Long(n),
                    other => {
                        return Err(self.invalid(
                            at,
                            "g:Metrics",
                            format!("dur {other:?}, expected a Double of milliseconds"),
                        ))
                    }
                };
                let names: &[&str] = if ty == "g:Metrics" {
                    &["id", "name", "dur", "counts", "annotations", "metrics"]
                } else {
                    &["dur", "metrics"]
                };
                let mut fields = Vec::with_capacity(names.len());
                for &n in names {
                    let v = if n == "dur" { dur.clone() } else { f.take(n) };
                    let v = match (n, v) {
                        ("counts" | "annotations", Value::Null(_)) => Value::Map(Vec::new()),
                        ("metrics", Value::Null(_)) => Value::List(Vec::new()),
                        (_, v) => v,
                    };
                    fields.push((Value::String(n.into()), v));
                }
                Value::CompositePdt(Box::new(CompositePdt {
                    type_name: ty.to_owned(),
                    fields,
                    ordered: false,
                }))
            }
            "g:Vertex" => {
                let mut f = self.fields("g:Vertex")?;
                let properties = f.opt("properties").map(|p| {
                    flatten_props(p)
                        .filter_map(|v| match v {
                            Value::VertexProperty(vp) => Some(*vp),
                            _ => None,
                        })
                        .collect()
                });
                Value::Vertex(Box::new(Vertex {
                    id: f.take("id"),
                    label: f.label("label"),
                    properties,
                }))
            }
            "g:VertexProperty" => {
                let mut f = self.fields("g:VertexProperty")?;
                Value::VertexProperty(Box::new(VertexProperty {
                    id: f.take("id"),
                    label: f.label("label"),
                    value: f.take("value"),
                    parent: Value::Null(0xfe),
                    // No `properties` (no meta-properties) reads as GraphBinary 1 gives it: empty.
                    properties: Some(f.opt("properties").map(props_of).unwrap_or_default()),
                }))
            }
            "g:Property" => {
                let mut f = self.fields("g:Property")?;
                Value::Property(Box::new(Property {
                    key: f.string("key").into(),
                    value: f.take("value"),
                    parent: Value::Null(0xfe),
                }))
            }
            "g:Edge" => {
                let mut f = self.fields("g:Edge")?;
                Value::Edge(Box::new(Edge {
                    id: f.take("id"),
                    label: f.label("label"),
                    in_v_id: f.take("inV"),
                    in_v_label: f.label("inVLabel"),
                    out_v_id: f.take("outV"),
                    out_v_label: f.label("outVLabel"),
                    parent: Value::Null(0xfe),
                    properties: f.opt("properties").map(props_of),
                }))
            }
            "g:Path" => {
                let mut f = self.fields("g:Path")?;
                let labels = match f.take("labels") {
                    Value::List(sets) => sets
                        .into_iter()
                        .map(|s| match s {
                            Value::Set(ls) | Value::List(ls) => ls
                                .into_iter()
                                .filter_map(|l| match l {
                                    Value::String(s) => Some(Arc::<str>::from(s)),
                                    _ => None,
                                })
                                .collect::<Vec<_>>(),
                            _ => Vec::new(),
                        })
                        .map(graphbinary_core::Set)
                        .collect(),
                    _ => return Err(self.invalid(at, "g:Path", "no labels list".into())),
                };
                let objects = match f.take("objects") {
                    Value::List(o) => o,
                    _ => return Err(self.invalid(at, "g:Path", "no objects list".into())),
                };
                Value::Path(Box::new(Path { labels, objects }))
            }
            _ => {
                return Err(self.invalid(
                    ty_at,
                    "GraphSON @type",
                    format!("{ty:?} is not a type this reader knows"),
                ))
            }
        })
    }

    /// A `g:Tree`'s items: `[{"key":k,"value":{"@type":"g:Tree",...}}, ...]`.
    fn tree_items(&mut self, at: usize) -> R<Tree> {
        let mut out = Vec::new();
        for item in self.array()? {
            let mut f = Fields(into_fields(item));
            let child = match f.take("value") {
                Value::Tree(t) => t,
                _ => {
                    return Err(self.invalid(
                        at,
                        "g:Tree",
                        "an item whose value is no g:Tree".into(),
                    ))
                }
            };
            out.push((f.take("key"), child));
        }
        Ok(Tree(out))
    }

    /// An array of alternating items (`g:Map`'s keys and values, `g:BulkSet`'s values and
    /// bulks) as pairs.
    fn pairs(&mut self, what: &'static str) -> R<Vec<(Value, Value)>> {
        let at = self.i;
        let items = self.array()?;
        if items.len() % 2 != 0 {
            return Err(self.invalid(at, what, "an odd number of items".into()));
        }
        let mut it = items.into_iter();
        let mut pairs = Vec::with_capacity(it.len() / 2);
        while let (Some(a), Some(b)) = (it.next(), it.next()) {
            pairs.push((a, b));
        }
        Ok(pairs)
    }

    fn number_or_string_text(&mut self) -> R<(String, bool)> {
        if self.peek("a number")? == b'"' {
            let s = self.string()?;
            let float = s.contains(['.', 'e', 'E']);
            return Ok((s, float));
        }
        let (s, float) = self.number_text()?;
        Ok((s.to_owned(), float))
    }

    /// The fields of an object value (of an element, a Path, a Traverser; a Metrics' is a
    /// `g:Map` in GraphSON 3), by name.
    fn fields(&mut self, what: &'static str) -> R<Fields> {
        let at = self.i;
        match self.value()? {
            Value::Map(entries) => Ok(Fields(into_fields(Value::Map(entries)))),
            other => Err(self.invalid(
                at,
                what,
                format!("{}, expected an object", other.type_name()),
            )),
        }
    }

    pub(crate) fn status_code(&self, v: Value) -> R<i32> {
        match v {
            Value::Int(n) => Ok(n),
            Value::Long(n) => i32::try_from(n)
                .map_err(|_| self.invalid(0, "status code", format!("{n} is out of range"))),
            other => Err(self.invalid(0, "status code", format!("{other:?}"))),
        }
    }
}

/// An untyped JSON number: Int, Long, BigInteger by its value; Double with a fraction or an
/// exponent. `None` when a Double overflows.
pub(crate) fn untyped_number(s: &str, float: bool) -> Option<Value> {
    if float {
        let x: f64 = s.parse().ok()?;
        return x.is_finite().then_some(Value::Double(x));
    }
    if let Ok(n) = s.parse::<i64>() {
        return Some(match i32::try_from(n) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Long(n),
        });
    }
    let n: num_bigint::BigInt = s.parse().ok()?;
    Some(Value::BigInteger(BigInteger::from(n)))
}

/// A `gx:` java.time value (or `gx:InetAddress`) from its text (Java's `toString()` of it,
/// which is what GraphSON 2 and 3 write), as the same value GraphBinary 1's reader gives for
/// that type; `None` when the text is not one.
pub(crate) fn java_time(ty: &str, s: &str) -> Option<Value> {
    use crate::value::{parse_local_date, parse_local_time, parse_zone_offset};
    let date = |d: &str| {
        parse_local_date(d).map(|(y, m, d)| {
            vec![
                ("year", Value::Int(y)),
                ("month", Value::Byte(m)),
                ("day", Value::Byte(d)),
            ]
        })
    };
    Some(match ty {
        "gx:LocalDate" => composite(ty, date(s)?),
        "gx:LocalDateTime" => {
            let (d, t) = s.split_once('T')?;
            let mut fields = date(d)?;
            fields.push(("nanos", Value::Long(parse_local_time(t)?)));
            composite(ty, fields)
        }
        "gx:LocalTime" => composite(ty, vec![("nanos", Value::Long(parse_local_time(s)?))]),
        "gx:MonthDay" => {
            let (m, d) = s.strip_prefix("--")?.split_once('-')?;
            let (m, d): (i8, i8) = (m.parse().ok()?, d.parse().ok()?);
            if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
                return None;
            }
            composite(ty, vec![("month", Value::Byte(m)), ("day", Value::Byte(d))])
        }
        "gx:OffsetTime" => {
            let i = s.find(['Z', 'z', '+', '-'])?;
            composite(
                ty,
                vec![
                    ("nanos", Value::Long(parse_local_time(&s[..i])?)),
                    ("offset", Value::Int(parse_zone_offset(&s[i..])?)),
                ],
            )
        }
        "gx:Period" => {
            let (years, months, days) = parse_period(s)?;
            composite(
                ty,
                vec![
                    ("years", Value::Int(years)),
                    ("months", Value::Int(months)),
                    ("days", Value::Int(days)),
                ],
            )
        }
        "gx:Year" => composite(ty, vec![("year", Value::Int(s.parse().ok()?))]),
        "gx:YearMonth" => {
            let i = s.rfind('-').filter(|&i| i > 0)?;
            let (y, m): (i32, i8) = (s[..i].parse().ok()?, s[i + 1..].parse().ok()?);
            if !(1..=12).contains(&m) {
                return None;
            }
            composite(ty, vec![("year", Value::Int(y)), ("month", Value::Byte(m))])
        }
        "gx:ZoneOffset" => composite(ty, vec![("seconds", Value::Int(parse_zone_offset(s)?))]),
        "gx:InetAddress" => {
            // Java writes the address as `getHostAddress()` does; ours spells it as
            // GraphBinary 1's reader does (`::1`, not `0:0:0:0:0:0:0:1`).
            let ip: std::net::IpAddr = s.parse().ok()?;
            Value::PrimitivePdt(Box::new(PrimitivePdt {
                type_name: ty.to_owned(),
                value: ip.to_string(),
            }))
        }
        _ => return None,
    })
}

/// Java's `Period.toString()`: `P1Y2M3D`, `P-1M`, `P0D` (weeks, `P2W`, as 14 days), as
/// (years, months, days).
pub(crate) fn parse_period(s: &str) -> Option<(i32, i32, i32)> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, s.strip_prefix('+').unwrap_or(s)),
    };
    let mut rest = s.strip_prefix(['P', 'p'])?;
    if rest.is_empty() {
        return None;
    }
    let (mut years, mut months, mut days) = (0i32, 0i32, 0i32);
    while !rest.is_empty() {
        let end = rest.find(|c: char| c.is_ascii_alphabetic())?;
        let n: i32 = rest[..end].parse().ok()?;
        let n = n.checked_mul(neg)?;
        match &rest[end..end + 1] {
            "Y" | "y" => years = years.checked_add(n)?,
            "M" | "m" => months = months.checked_add(n)?,
            "W" | "w" => days = days.checked_add(n.checked_mul(7)?)?,
            "D" | "d" => days = days.checked_add(n)?,
            _ => return None,
        }
        rest = &rest[end + 1..];
    }
    Some((years, months, days))
}

/// Java's `Duration.toString()`: `PT8H6M12.345S`, `PT-0.5S`, `PT0S` (also `P2D...`).
pub(crate) fn parse_duration(s: &str) -> Option<Duration> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let s = s.strip_prefix(['P', 'p'])?;
    let (days, time) = match s.split_once(['T', 't']) {
        Some((d, t)) => (d, t),
        None => (s, ""),
    };
    let mut nanos: i128 = 0;
    if !days.is_empty() {
        let d: i128 = days.strip_suffix(['D', 'd'])?.parse().ok()?;
        nanos = d.checked_mul(86_400 * 1_000_000_000)?;
    }
    let mut rest = time;
    while !rest.is_empty() {
        let end = rest.find(|c: char| c.is_ascii_alphabetic())?;
        let (num, unit) = (&rest[..end], &rest[end..end + 1]);
        rest = &rest[end + 1..];
        let scale: i128 = match unit {
            "H" | "h" => 3_600_000_000_000,
            "M" | "m" => 60_000_000_000,
            "S" | "s" => 1_000_000_000,
            _ => return None,
        };
        let (int, frac) = num.split_once('.').unwrap_or((num, ""));
        let sign: i128 = if int.starts_with('-') { -1 } else { 1 };
        let whole: i128 = int.parse().ok()?;
        let mut part = whole.checked_mul(scale)?;
        if !frac.is_empty() {
            if unit != "S" && unit != "s"
                || frac.len() > 9
                || !frac.bytes().all(|c| c.is_ascii_digit())
            {
                return None;
            }
            let f: i128 = format!("{frac:0<9}").parse().ok()?;
            part = part.checked_add(sign * f)?;
        }
        nanos = nanos.checked_add(part)?;
    }
    if neg {
        nanos = -nanos;
    }
    let seconds = i64::try_from(nanos.div_euclid(1_000_000_000)).ok()?;
    let n = i32::try_from(nanos.rem_euclid(1_000_000_000)).ok()?;
    Some(Duration { seconds, nanos: n })
}

pub(crate) fn into_fields(v: Value) -> Vec<(String, Value)> {
    match v {
        Value::Map(e) => e
            .into_iter()
            .filter_map(|(k, v)| match k {
                Value::String(k) => Some((k, v)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

pub(crate) fn map_entries(v: Option<Value>) -> Vec<(Value, Value)> {
    match v {
        Some(Value::Map(e)) => e,
        _ => Vec::new(),
    }
}

/// The values of a `properties` object: `{key: [vp, ...]}` (vertex) or `{key: property}`.
fn flatten_props(v: Value) -> impl Iterator<Item = Value> {
    map_entries(Some(v)).into_iter().flat_map(|(_, v)| match v {
        Value::List(items) => items,
        other => vec![other],
    })
}

/// The Properties of an edge or vertex property: `{key: g:Property}` (typed) or `{key: value}`.
fn props_of(v: Value) -> Vec<Property> {
    map_entries(Some(v))
        .into_iter()
        .map(|(k, v)| match v {
            Value::Property(p) => *p,
            value => Property {
                key: k.as_str().unwrap_or_default().into(),
                value,
                parent: Value::Null(0xfe),
            },
        })
        .collect()
}

/// An object's fields by name.
pub(crate) struct Fields(pub(crate) Vec<(String, Value)>);

impl Fields {
    pub(crate) fn opt(&mut self, name: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k == name)?;
        Some(self.0.swap_remove(i).1)
    }

    pub(crate) fn take(&mut self, name: &str) -> Value {
        self.opt(name).unwrap_or(Value::Null(0xfe))
    }

    fn string(&mut self, name: &str) -> String {
        match self.take(name) {
            Value::String(s) => s,
            _ => String::new(),
        }
    }

    fn label(&mut self, name: &str) -> Labels {
        Labels::from(Arc::<str>::from(self.string(name)))
    }
}
