//! GraphSON 2 and 3 (typed and untyped) over the TinkerPop 3 WebSocket protocol: the request
//! writer and the response reader used by [`Client3`](crate::ws::Client3) when
//! [`Options3::serializer`](crate::ws::Options3::serializer) is not GraphBinary 1.
//!
//! A request is a binary frame `{mime length u8}{mime}{JSON}`; each response message is one
//! JSON document `{"requestId","status":{"message","code","attributes"},"result":{"data","meta"}}`
//! read into the same [`ResponseMessage`] the GraphBinary 1 reader gives, so the status code,
//! message and every attribute (unknown keys included) reach the user the same way.
//!
//! The reader is a recursive-descent parser of its own over the frame's bytes (no JSON tree in
//! between): a typed object (`{"@type":..,"@value":..}`, `@type` first as Gremlin Server
//! writes it) becomes the model's value of that type; an untyped number is an `Int`, a `Long`
//! or (past `i64`) a `BigInteger` by its value, and a `Double` when it has a fraction or an
//! exponent. It honours [`Limits`] (depth, string and collection lengths); bad input is a
//! [`DecodeError`] naming the byte offset and what was expected, never a panic. Measured
//! (release, one core, a 3.7.3 server's batch of 64 modern-graph vertices with their
//! properties): 154 µs per 22 352-byte GraphSON 3 message (145 MB/s), against 20.6 µs for the
//! same batch's 6 597 bytes of GraphBinary 1.
//!
//! ```
//! use graphbinary_client::ws::decode_graphson_response as decode_response;
//! use graphbinary_client::Serializer;
//! use graphbinary_client::Value;
//! use graphbinary_core::Limits;
//!
//! let json = br#"{"requestId":"41d2e28a-20a4-4ab0-b379-d810dede3786",
//!   "status":{"message":"","code":200,"attributes":{"@type":"g:Map","@value":[]}},
//!   "result":{"data":{"@type":"g:List","@value":[{"@type":"g:Int64","@value":6}]},
//!   "meta":{"@type":"g:Map","@value":[]}}}"#;
//! let msg = decode_response(json, Serializer::GraphSon3, &Limits::default()).unwrap();
//! assert_eq!(msg.status, 200);
//! assert_eq!(msg.results(), vec![(Value::Long(6), 1)]);
//! ```

use std::sync::Arc;

use std::borrow::Cow;

use graphbinary_core::{DecodeError, EncodeError, ErrorKind, Limits};
use uuid::Uuid;

use crate::format::graphbinary1::composite;
use crate::format::graphson::Writer;
use crate::protocol::ws3::{RequestMessage, ResponseMessage};
use crate::value::{
    BigDecimal, BigInteger, CompositePdt, DateTime, DateTimeKind, Direction, Duration, Edge,
    Labels, Path, PrimitivePdt, Property, Tree, Value, Vertex, VertexProperty, T,
};

/// The serialization of the TinkerPop 3 WebSocket transport (the mime type a request names).
///
/// GraphBinary 1 is the default; the GraphSON ones exist for servers that speak nothing else
/// (Azure Cosmos DB: GraphSON 2) and for debugging. Untyped GraphSON loses types: every
/// integer comes back as `Int`/`Long` by its value, a vertex or edge as a `Map`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Serializer {
    /// `application/vnd.graphbinary-v1.0` (the default).
    #[default]
    GraphBinary1,
    /// `application/vnd.gremlin-v2.0+json`: typed GraphSON 2.
    GraphSon2,
    /// `application/vnd.gremlin-v2.0+json;types=false`: untyped GraphSON 2.
    GraphSon2Untyped,
    /// `application/vnd.gremlin-v3.0+json`: typed GraphSON 3.
    GraphSon3,
    /// `application/vnd.gremlin-v3.0+json;types=false`: untyped GraphSON 3 (TinkerPop 3.7+).
    GraphSon3Untyped,
}

impl Serializer {
    /// The mime type a request is prefixed with.
    pub const fn mime_type(self) -> &'static str {
        match self {
            Serializer::GraphBinary1 => crate::protocol::ws3::MIME_TYPE,
            Serializer::GraphSon2 => "application/vnd.gremlin-v2.0+json",
            Serializer::GraphSon2Untyped => "application/vnd.gremlin-v2.0+json;types=false",
            Serializer::GraphSon3 => "application/vnd.gremlin-v3.0+json",
            Serializer::GraphSon3Untyped => "application/vnd.gremlin-v3.0+json;types=false",
        }
    }

    /// Whether this is one of the GraphSON serializers.
    pub const fn is_graphson(self) -> bool {
        !matches!(self, Serializer::GraphBinary1)
    }

    /// Whether values carry `@type` (GraphSON typed, or GraphBinary).
    pub const fn is_typed(self) -> bool {
        !matches!(
            self,
            Serializer::GraphSon2Untyped | Serializer::GraphSon3Untyped
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Writer

/// Writes `request` as a WebSocket payload in `serializer` (`{mime length}{mime}{message}`);
/// GraphBinary 1 goes to [`RequestMessage::encode_ws`], which knows no custom types: for
/// bindings of custom types (a JanusGraph `RelationIdentifier`, a `Geoshape`) use
/// [`encode_request_with`].
///
/// Bindings are written as the format has them: GraphSON 3 typed can write every value
/// ([`crate::format::graphson::to_graphson3`]); GraphSON 2 typed writes scalars typed, lists as arrays and
/// maps with String keys as objects (it has no Set, and elements, paths and trees are not
/// written); untyped JSON only nulls, booleans, numbers, strings, lists and sets (as arrays)
/// and String-keyed maps. Anything else is an
/// [`EncodeError::Unrepresentable`].
///
pub(crate) fn encode_request(
    request: &RequestMessage,
    serializer: Serializer,
) -> Result<Vec<u8>, EncodeError> {
    encode_request_with(
        request,
        serializer,
        &crate::format::graphbinary1::CustomTypes::janusgraph(),
    )
}

/// As [`encode_request`], writing GraphBinary 1 argument values of the custom types in
/// `custom` with their writers ([`RequestMessage::encode_ws_with`]); GraphSON has no custom
/// types, so `custom` changes nothing there. What a connection sends goes through here.
pub(crate) fn encode_request_with(
    request: &RequestMessage,
    serializer: Serializer,
    custom: &crate::format::graphbinary1::CustomTypes,
) -> Result<Vec<u8>, EncodeError> {
    if !serializer.is_graphson() {
        return request.encode_ws_with(custom);
    }
    let mut s = String::with_capacity(160);
    {
        let mut w = Writer { out: &mut s };
        w.out.push('{');
        w.key("requestId");
        let id = request.request_id.to_string();
        if serializer == Serializer::GraphSon2 {
            w.typed_str("g:UUID", &id);
        } else {
            w.string(&id);
        }
        w.out.push(',');
        w.key("op");
        w.string(&request.op);
        w.out.push(',');
        w.key("processor");
        w.string(&request.processor);
        w.out.push(',');
        w.key("args");
        if serializer == Serializer::GraphSon3 {
            w.open("g:Map");
            w.out.push('[');
            for (i, (k, v)) in request.args.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                w.string(k);
                w.out.push(',');
                crate::format::graphson::write_graphson3(w.out, v);
            }
            w.out.push(']');
            w.close();
        } else {
            w.out.push('{');
            for (i, (k, v)) in request.args.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                w.key(k);
                write_arg(&mut w, v, serializer.is_typed(), 0)?;
            }
            w.out.push('}');
        }
        w.out.push('}');
    }
    let mime = serializer.mime_type();
    let mut out = Vec::with_capacity(1 + mime.len() + s.len());
    out.push(mime.len() as u8);
    out.extend_from_slice(mime.as_bytes());
    out.extend_from_slice(s.as_bytes());
    Ok(out)
}

/// One value as [`encode_request_with`] writes a binding in `serializer` (a GraphSON one):
/// GraphSON 3 typed writes every value, the others what they can represent.
#[cfg_attr(not(feature = "test-util"), allow(dead_code))] // the fuzz targets' round trip
pub(crate) fn write_binding(v: &Value, serializer: Serializer) -> Result<String, EncodeError> {
    let mut s = String::new();
    if serializer == Serializer::GraphSon3 {
        crate::format::graphson::write_graphson3(&mut s, v);
    } else {
        write_arg(&mut Writer { out: &mut s }, v, serializer.is_typed(), 0)?;
    }
    Ok(s)
}

fn unrepresentable(format: &'static str, v: &Value) -> EncodeError {
    EncodeError::Unrepresentable {
        what: format,
        detail: format!("{} has no representation there", v.type_name()),
    }
}

/// How deep a binding may nest (as deep as the server's default reader allows, roughly).
const MAX_WRITE_DEPTH: u32 = 256;

/// A value in GraphSON 2 typed (`typed`) or in untyped JSON.
fn write_arg(w: &mut Writer<'_>, v: &Value, typed: bool, depth: u32) -> Result<(), EncodeError> {
    let format = if typed {
        "a GraphSON 2 binding"
    } else {
        "an untyped GraphSON binding"
    };
    if depth > MAX_WRITE_DEPTH {
        return Err(EncodeError::Unrepresentable {
            what: format,
            detail: "nested too deep".into(),
        });
    }
    match v {
        // GraphSON 2 has no Set type: an array would arrive as a List (duplicates kept).
        Value::Set(_) if typed => {
            return Err(EncodeError::Unrepresentable {
                what: format,
                detail: "a Set (GraphSON 2 has no Set type; send a List, or use GraphSON 3)".into(),
            })
        }
        Value::List(items) | Value::Set(items) => {
            w.out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                write_arg(w, x, typed, depth + 1)?;
            }
            w.out.push(']');
        }
        Value::Map(entries) | Value::OrderedMap(entries) => {
            w.out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                let Value::String(k) = k else {
                    return Err(EncodeError::Unrepresentable {
                        what: format,
                        detail: format!("a map key {} (only String keys)", k.type_name()),
                    });
                };
                if i > 0 {
                    w.out.push(',');
                }
                w.key(k);
                write_arg(w, x, typed, depth + 1)?;
            }
            w.out.push('}');
        }
        Value::Null(_) => w.out.push_str("null"),
        Value::Boolean(b) => w.out.push_str(if *b { "true" } else { "false" }),
        Value::String(s) => w.string(s),
        _ if !typed => {
            let n = match v {
                Value::Int(n) => n.to_string(),
                Value::Long(n) => n.to_string(),
                Value::Short(n) => n.to_string(),
                Value::Byte(n) => n.to_string(),
                Value::Double(x) if x.is_finite() => crate::format::java::java_double(*x),
                Value::Float(x) if x.is_finite() => crate::format::java::java_float(*x),
                Value::Double(_) | Value::Float(_) => {
                    return Err(EncodeError::Unrepresentable {
                        what: format,
                        detail: "a NaN or infinite number (JSON has none)".into(),
                    })
                }
                _ => return Err(unrepresentable(format, v)),
            };
            w.out.push_str(&n);
        }
        Value::Int(_)
        | Value::Long(_)
        | Value::Short(_)
        | Value::Byte(_)
        | Value::Double(_)
        | Value::Float(_)
        | Value::Uuid(_)
        | Value::DateTime(_)
        | Value::Direction(_)
        | Value::T(_)
        | Value::BigDecimal(_)
        | Value::BigInteger(_)
        | Value::Binary(_)
        | Value::Char(_)
        | Value::Duration(_) => crate::format::graphson::write_graphson3(w.out, v),
        _ => return Err(unrepresentable(format, v)),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Reader

/// Decodes one GraphSON response message (a WebSocket message's payload) of `serializer`.
pub fn decode_response(
    bytes: &[u8],
    serializer: Serializer,
    limits: &Limits,
) -> Result<ResponseMessage, DecodeError> {
    let mut p = Parser::new(bytes, serializer, limits);
    let msg = p.message()?;
    p.ws();
    if p.i != bytes.len() {
        return Err(p.invalid(
            p.i,
            "GraphSON response message",
            "bytes after the document".into(),
        ));
    }
    Ok(msg)
}

/// The request id and status code of a GraphSON response message, read without building its
/// result data (the connection routes by them); `Ok(None)` when the id is null.
#[cfg_attr(not(feature = "http"), allow(dead_code))] // the connection's routing
pub(crate) fn header(
    bytes: &[u8],
    serializer: Serializer,
    limits: &Limits,
) -> Result<Option<(Uuid, i32)>, DecodeError> {
    let mut p = Parser::new(bytes, serializer, limits);
    let mut id = None;
    let mut code = None;
    p.object_fields(|p, key| {
        match &*key {
            "requestId" => id = Some(p.value()?),
            "status" => p.object_fields(|p, key| {
                if key == "code" {
                    code = Some(p.value()?);
                } else {
                    p.skip()?;
                }
                Ok(())
            })?,
            _ => p.skip()?,
        }
        Ok(())
    })?;
    let code = match code {
        Some(c) => p.status_code(c)?,
        None => return Err(p.invalid(0, "GraphSON response message", "no status code".into())),
    };
    match id {
        None | Some(Value::Null(_)) => Ok(None),
        Some(v) => Ok(Some((p.request_id(v)?, code))),
    }
}

type R<T> = Result<T, DecodeError>;

/// The longest number text read (a `gx:BigInteger` of 4000 digits is past any real id).
const MAX_NUMBER_LEN: usize = 4096;

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    depth: u32,
    limits: &'a Limits,
    typed: bool,
}

impl<'a> Parser<'a> {
    fn new(b: &'a [u8], serializer: Serializer, limits: &'a Limits) -> Self {
        Parser {
            b,
            i: 0,
            depth: 0,
            limits,
            typed: serializer.is_typed(),
        }
    }

    fn err(&self, at: usize, kind: ErrorKind) -> DecodeError {
        DecodeError::new(at as u64, kind)
    }

    fn invalid(&self, at: usize, what: &'static str, detail: String) -> DecodeError {
        self.err(at, ErrorKind::Invalid { what, detail })
    }

    fn eof(&self, expected: &'static str) -> DecodeError {
        self.err(self.b.len(), ErrorKind::UnexpectedEof { expected })
    }

    fn ws(&mut self) {
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
    fn value(&mut self) -> R<Value> {
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
    fn object_fields(&mut self, mut f: impl FnMut(&mut Self, Cow<'a, str>) -> R<()>) -> R<()> {
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
    fn skip(&mut self) -> R<()> {
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

    fn status_code(&self, v: Value) -> R<i32> {
        match v {
            Value::Int(n) => Ok(n),
            Value::Long(n) => i32::try_from(n)
                .map_err(|_| self.invalid(0, "status code", format!("{n} is out of range"))),
            other => Err(self.invalid(0, "status code", format!("{other:?}"))),
        }
    }

    fn request_id(&self, v: Value) -> R<Uuid> {
        match v {
            Value::Uuid(u) => Ok(u),
            Value::String(s) => {
                Uuid::parse_str(&s).map_err(|e| self.invalid(0, "requestId", format!("{s:?}: {e}")))
            }
            other => Err(self.invalid(0, "requestId", format!("{other:?}"))),
        }
    }

    fn message(&mut self) -> R<ResponseMessage> {
        let mut id = None;
        let mut status = None;
        let mut result = None;
        self.object_fields(|p, key| {
            match &*key {
                "requestId" => id = Some(p.value()?),
                "status" => status = Some(p.value()?),
                "result" => result = Some(p.value()?),
                _ => p.skip()?,
            }
            Ok(())
        })?;
        let request_id = match id {
            None | Some(Value::Null(_)) => None,
            Some(v) => Some(self.request_id(v)?),
        };
        let mut status = Fields(into_fields(status.unwrap_or(Value::Null(0xfe))));
        let code = match status.opt("code") {
            Some(c) => self.status_code(c)?,
            None => {
                return Err(self.invalid(0, "GraphSON response message", "no status code".into()))
            }
        };
        let message = match status.opt("message") {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let attributes = map_entries(status.opt("attributes"));
        let mut result = Fields(into_fields(result.unwrap_or(Value::Null(0xfe))));
        let meta = map_entries(result.opt("meta"));
        let mut data = result.take("data");
        let mut bulks = Vec::new();
        if let Value::List(items) = &mut data {
            bulks = items
                .iter_mut()
                .map(|v| match v {
                    Value::CompositePdt(p) if p.type_name == "g:Traverser" => {
                        let bulk = match p.get("bulk") {
                            Some(Value::Long(n)) => *n,
                            _ => 1,
                        };
                        let inner = p
                            .fields
                            .iter_mut()
                            .find(|(k, _)| k.as_str() == Some("value"))
                            .map(|(_, v)| std::mem::replace(v, Value::Null(0xfe)))
                            .unwrap_or(Value::Null(0xfe));
                        *v = inner;
                        bulk
                    }
                    _ => 1,
                })
                .collect();
        }
        Ok(ResponseMessage {
            request_id,
            status: code,
            message,
            attributes,
            meta,
            data,
            bulks,
        })
    }
}

/// An untyped JSON number: Int, Long, BigInteger by its value; Double with a fraction or an
/// exponent. `None` when a Double overflows.
fn untyped_number(s: &str, float: bool) -> Option<Value> {
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
fn java_time(ty: &str, s: &str) -> Option<Value> {
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
fn parse_period(s: &str) -> Option<(i32, i32, i32)> {
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
fn parse_duration(s: &str) -> Option<Duration> {
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

fn into_fields(v: Value) -> Vec<(String, Value)> {
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

fn map_entries(v: Option<Value>) -> Vec<(Value, Value)> {
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
struct Fields(Vec<(String, Value)>);

impl Fields {
    fn opt(&mut self, name: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k == name)?;
        Some(self.0.swap_remove(i).1)
    }

    fn take(&mut self, name: &str) -> Value {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str, ser: Serializer) -> R<ResponseMessage> {
        decode_response(s.as_bytes(), ser, &Limits::default())
    }

    fn doc(data: &str) -> String {
        format!(
            r#"{{"requestId":"41d2e28a-20a4-4ab0-b379-d810dede3786","status":{{"message":"","code":200,"attributes":{{}}}},"result":{{"data":{data},"meta":{{}}}}}}"#
        )
    }

    /// Found by the `graphson` fuzz target: a string in a field the reader skips (an unknown
    /// key, or the result data when only the header is read) was scanned for its closing quote
    /// only, so control bytes, bad escapes and bad UTF-8 there were read as JSON.
    #[test]
    fn skipped_strings_are_checked_as_read_ones() {
        for bad in [
            "\"a\u{1a}b\"",
            r#""\q""#,
            r#""\u12G4""#,
            r#""\ud800x""#,
            "\"\u{1}\"",
        ] {
            let text =
                doc("[]").replace(r#""requestId""#, &format!(r#""unknown":{bad},"requestId""#));
            let e = dec(&text, Serializer::GraphSon3).unwrap_err();
            assert!(e.to_string().contains("GraphSON string"), "{bad}: {e}");
            let skipped = format!(r#"{{"status":{{"code":200}},"result":{{"data":[{bad}]}}}}"#);
            assert!(
                header(
                    skipped.as_bytes(),
                    Serializer::GraphSon3,
                    &Limits::default()
                )
                .is_err(),
                "{bad}"
            );
        }
        let mut bytes = doc("[]")
            .replace(r#""requestId""#, r#""x":"ab","requestId""#)
            .into_bytes();
        let x = bytes.windows(4).position(|w| w == b"\"ab\"").unwrap();
        bytes[x + 1] = 0xff;
        let e = decode_response(&bytes, Serializer::GraphSon3, &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
        assert_eq!(e.offset(), (x + 1) as u64);
        // What is valid still skips: escapes, a surrogate pair, non-ASCII text.
        let ok = doc("[]").replace(
            r#""requestId""#,
            r#""x":"\"\\\u00e9\ud83d\ude00é","requestId""#,
        );
        assert!(dec(&ok, Serializer::GraphSon3).is_ok());
    }

    /// Found by the `graphson` fuzz target: `{"@type":"g:Date","@value":0000279883312}` was
    /// read, though JSON has no leading zeros (serde_json and Jackson reject it).
    #[test]
    fn numbers_with_leading_zeros_are_not_json() {
        for n in ["0000279883312", "01", "-01", "00.5", "-00", "01e3"] {
            for (ser, data) in [
                (
                    Serializer::GraphSon3,
                    format!(r#"{{"@type":"g:Date","@value":{n}}}"#),
                ),
                (Serializer::GraphSon2Untyped, format!("[{n}]")),
            ] {
                let e = dec(&doc(&data), ser).unwrap_err();
                assert!(e.to_string().contains("leading zero"), "{n}: {e}");
            }
        }
        for (n, v) in [
            ("0", Value::Int(0)),
            ("-0", Value::Int(0)),
            ("0.5", Value::Double(0.5)),
        ] {
            let m = dec(&doc(&format!("[{n}]")), Serializer::GraphSon2Untyped).unwrap();
            assert_eq!(m.results(), vec![(v, 1)], "{n}");
        }
    }

    #[test]
    fn typed_scalars_are_read_as_their_types() {
        let m = dec(
            &doc(
                r#"{"@type":"g:List","@value":[{"@type":"g:Int32","@value":1},{"@type":"g:Int64","@value":2},
                {"@type":"gx:Int16","@value":3},{"@type":"gx:Byte","@value":-4},{"@type":"g:Double","@value":"NaN"},
                {"@type":"g:Float","@value":1.5},"h\u00e9\ud83d\ude00",null,true,
                {"@type":"gx:BigDecimal","@value":1.25},{"@type":"gx:BigInteger","@value":123456789012345678901234},
                {"@type":"gx:Duration","@value":"PT1H0.5S"},{"@type":"gx:Char","@value":"x"},
                {"@type":"gx:ByteBuffer","@value":"AQI="},{"@type":"g:Date","@value":1000},
                {"@type":"g:Traverser","@value":{"bulk":{"@type":"g:Int64","@value":3},"value":"t"}}]}"#,
            ),
            Serializer::GraphSon3,
        )
        .unwrap();
        let r = m.results();
        assert_eq!(r[0], (Value::Int(1), 1));
        assert_eq!(r[1].0, Value::Long(2));
        assert_eq!(r[2].0, Value::Short(3));
        assert_eq!(r[3].0, Value::Byte(-4));
        assert!(matches!(r[4].0, Value::Double(x) if x.is_nan()));
        assert_eq!(r[5].0, Value::Float(1.5));
        assert_eq!(r[6].0, Value::String("hé😀".into()));
        assert!(matches!(r[7].0, Value::Null(_)));
        assert_eq!(r[8].0, Value::Boolean(true));
        assert!(matches!(&r[9].0, Value::BigDecimal(d) if d.scale == 2));
        assert_eq!(r[10].0.to_string(), "123456789012345678901234");
        assert_eq!(
            r[11].0,
            Value::Duration(Duration {
                seconds: 3600,
                nanos: 500_000_000
            })
        );
        assert_eq!(r[12].0, Value::Char('x'));
        assert_eq!(r[13].0, Value::Binary(vec![1, 2]));
        assert_eq!(
            r[14].0,
            Value::DateTime(DateTime::from_epoch_millis(1000).with_kind(DateTimeKind::Date))
        );
        assert_eq!(r[15], (Value::String("t".into()), 3));
    }

    #[test]
    fn graphbinary_1_requests_write_bindings_of_custom_types_with_their_writers() {
        use crate::format::graphbinary1::{CustomTypes, Geoshape};
        let mut req = RequestMessage::eval("g.V().has('place', geoWithin(x))");
        let shape = Geoshape::point(37.97, 23.72).to_value();
        req.args.push((
            "bindings".into(),
            Value::Map(vec![(Value::String("x".into()), shape)]),
        ));
        let janus = CustomTypes::janusgraph();
        let with = encode_request_with(&req, Serializer::GraphBinary1, &janus).unwrap();
        assert_eq!(with, req.encode_ws_with(&janus).unwrap());
        // JanusGraph's writers are the default; without them the shape is not written as
        // JanusGraph's custom type.
        assert_eq!(
            encode_request(&req, Serializer::GraphBinary1).unwrap(),
            with
        );
        let without = encode_request_with(&req, Serializer::GraphBinary1, &CustomTypes::new());
        assert_ne!(without.ok(), Some(with));
    }

    #[test]
    fn java_time_texts_read_as_graphbinary_1_reads_the_types() {
        let f = |ty: &str, s: &str| -> Option<Vec<(String, Value)>> {
            match java_time(ty, s)? {
                Value::CompositePdt(c) => {
                    assert_eq!(c.type_name, ty);
                    Some(
                        c.fields
                            .into_iter()
                            .map(|(k, v)| (k.as_str().unwrap().to_owned(), v))
                            .collect(),
                    )
                }
                Value::PrimitivePdt(p) => Some(vec![("value".into(), Value::String(p.value))]),
                other => panic!("{other:?}"),
            }
        };
        let kv = |pairs: &[(&str, Value)]| -> Option<Vec<(String, Value)>> {
            Some(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect(),
            )
        };
        let ymd = |y, m, d| {
            vec![
                ("year", Value::Int(y)),
                ("month", Value::Byte(m)),
                ("day", Value::Byte(d)),
            ]
        };
        assert_eq!(f("gx:LocalDate", "2016-01-31"), kv(&ymd(2016, 1, 31)));
        let mut dt = ymd(2016, 1, 1);
        dt.push(("nanos", Value::Long(45_000_000_000_000)));
        // Java leaves zero seconds out.
        assert_eq!(f("gx:LocalDateTime", "2016-01-01T12:30"), kv(&dt));
        assert_eq!(
            f("gx:LocalTime", "12:30:45.000000123"),
            kv(&[("nanos", Value::Long(45_045_000_000_123))])
        );
        assert_eq!(
            f("gx:MonthDay", "--02-29"),
            kv(&[("month", Value::Byte(2)), ("day", Value::Byte(29))])
        );
        assert_eq!(
            f("gx:OffsetTime", "10:15:30-08:00"),
            kv(&[
                ("nanos", Value::Long(36_930_000_000_000)),
                ("offset", Value::Int(-28_800))
            ])
        );
        assert_eq!(
            f("gx:Period", "P1Y-2M3D"),
            kv(&[
                ("years", Value::Int(1)),
                ("months", Value::Int(-2)),
                ("days", Value::Int(3))
            ])
        );
        assert_eq!(
            f("gx:Period", "P2W"),
            kv(&[
                ("years", Value::Int(0)),
                ("months", Value::Int(0)),
                ("days", Value::Int(14))
            ])
        );
        assert_eq!(f("gx:Year", "-44"), kv(&[("year", Value::Int(-44))]));
        assert_eq!(
            f("gx:YearMonth", "2016-06"),
            kv(&[("year", Value::Int(2016)), ("month", Value::Byte(6))])
        );
        assert_eq!(f("gx:ZoneOffset", "Z"), kv(&[("seconds", Value::Int(0))]));
        assert_eq!(
            f("gx:ZoneOffset", "+03:06:09"),
            kv(&[("seconds", Value::Int(11_169))])
        );
        assert_eq!(
            f("gx:ZoneOffset", "-0130"),
            kv(&[("seconds", Value::Int(-5_400))])
        );
        assert_eq!(
            f("gx:InetAddress", "0:0:0:0:0:0:0:1"),
            kv(&[("value", Value::String("::1".into()))])
        );
        // Not the type's text: no value (the reader's error names the offset), never a panic.
        for (ty, s) in [
            ("gx:LocalDate", "2016-13-01"),
            ("gx:LocalDate", "2016-01"),
            ("gx:LocalDateTime", "2016-01-01"),
            ("gx:LocalTime", "24:00"),
            ("gx:LocalTime", "12:30:45:1"),
            ("gx:MonthDay", "02-29"),
            ("gx:OffsetTime", "10:15:30"),
            ("gx:Period", "P"),
            ("gx:Period", "P1X"),
            ("gx:Period", "P99999999999Y"),
            ("gx:Year", "MMXVI"),
            ("gx:YearMonth", "2016-00"),
            ("gx:ZoneOffset", "+19:00"),
            ("gx:ZoneOffset", "+1\u{e9}1"),
            ("gx:ZoneOffset", "+1é1"),
            ("gx:InetAddress", "localhost"),
        ] {
            assert_eq!(java_time(ty, s), None, "{ty} {s:?}");
        }
    }

    #[test]
    fn predicates_lambdas_and_bytecode_read_as_graphbinary_1_reads_them() {
        let items = r#"{"@type":"g:P","@value":{"predicate":"gt","value":{"@type":"g:Int32","@value":1}}},
            {"@type":"g:P","@value":{"predicate":"within","value":[{"@type":"g:Int32","@value":1},{"@type":"g:Int32","@value":2}]}},
            {"@type":"g:TextP","@value":{"predicate":"containing","value":"ar"}},
            {"@type":"g:Lambda","@value":{"script":"it.get()","language":"gremlin-groovy","arguments":{"@type":"g:Int32","@value":1}}},
            {"@type":"g:Bytecode","@value":{"step":[["V"],["out","knows"]]}}"#;
        // One more value that is no LocalDate: an error at its offset.
        let bad = format!(r#"[{items},{{"@type":"gx:LocalDate","@value":"2016-13-01"}}]"#);
        let e = dec(&doc(&bad), Serializer::GraphSon2).unwrap_err();
        assert!(e.to_string().contains("2016-13-01"), "{e}");
        let m = dec(&doc(&format!("[{items}]")), Serializer::GraphSon2).unwrap();
        let r: Vec<Value> = m.results().into_iter().map(|(v, _)| v).collect();
        use crate::format::graphbinary1::codes::{P, TEXT_P};
        assert_eq!(
            r[0],
            crate::format::graphbinary1::predicate_value(P, "gt".into(), vec![Value::Int(1)])
        );
        assert_eq!(
            r[1],
            crate::format::graphbinary1::predicate_value(
                P,
                "within".into(),
                vec![Value::Int(1), Value::Int(2)]
            )
        );
        assert_eq!(
            r[2],
            crate::format::graphbinary1::predicate_value(
                TEXT_P,
                "containing".into(),
                vec![Value::String("ar".into())]
            )
        );
        assert_eq!(
            r[3],
            composite(
                "g:Lambda",
                vec![
                    ("script", Value::String("it.get()".into())),
                    ("language", Value::String("gremlin-groovy".into())),
                    ("arguments", Value::Int(1)),
                ]
            )
        );
        let s = |x: &str| Value::String(x.into());
        assert_eq!(
            r[4],
            composite(
                "g:Bytecode",
                vec![
                    (
                        "step",
                        Value::List(vec![
                            Value::List(vec![s("V")]),
                            Value::List(vec![s("out"), s("knows")])
                        ])
                    ),
                    ("source", Value::List(Vec::new())),
                ]
            )
        );
    }

    #[test]
    fn untyped_numbers_take_the_type_their_value_needs() {
        let m = dec(
            &doc("[1,3000000000,1e2,-0.5,99999999999999999999]"),
            Serializer::GraphSon2Untyped,
        )
        .unwrap();
        let r: Vec<Value> = m.results().into_iter().map(|(v, _)| v).collect();
        assert_eq!(r[0], Value::Int(1));
        assert_eq!(r[1], Value::Long(3_000_000_000));
        assert_eq!(r[2], Value::Double(100.0));
        assert_eq!(r[3], Value::Double(-0.5));
        assert!(matches!(r[4], Value::BigInteger(_)));
    }

    #[test]
    fn hostile_json_is_an_error_naming_the_offset() {
        let cases: &[(&str, &str)] = &[
            (r#"{"@type":"g:Int32","@value":3000000000}"#, "out of range"),
            (r#"{"@type":"g:Int64","@value":1.5}"#, "not an integer"),
            (r#"{"@type":"g:Nope","@value":1}"#, "not a type"),
            (r#"{"@type":"g:UUID","@value":"zz"}"#, "g:UUID"),
            (r#"{"@type":"g:Map","@value":[1]}"#, "odd"),
            (r#""\ud800""#, "surrogate"),
            (
                r#"{"@type":"g:Int32","@value":1,"x":2}"#,
                "a key after @value",
            ),
            (r#""a\q""#, "escape"),
            ("[1,]", "expected a value"),
            ("1e999", "out of range"),
            (r#"{"@type":"g:Double","@value":1e999}"#, "out of range"),
            (r#"{"@type":"g:Float","@value":1e39}"#, "out of range"),
            (r#"{"@type":"gx:Byte","@value":128}"#, "out of range"),
        ];
        for (data, needle) in cases {
            let text = doc(data);
            let e = dec(&text, Serializer::GraphSon3).unwrap_err();
            assert!(e.to_string().contains(needle), "{data}: {e}");
            assert!(
                e.offset() > 60 && (e.offset() as usize) < text.len(),
                "{data}: {e}"
            );
        }
    }

    #[test]
    fn truncation_at_every_byte_is_an_error_never_a_panic() {
        let text = doc(
            r#"{"@type":"g:List","@value":[{"@type":"g:Vertex","@value":{"id":{"@type":"g:Int32","@value":1},"label":"person"}},"\u00e9"]}"#,
        );
        for cut in 0..text.len() {
            let r = decode_response(
                &text.as_bytes()[..cut],
                Serializer::GraphSon3,
                &Limits::default(),
            );
            let e = r.expect_err("a cut document is an error");
            assert!(e.offset() as usize <= cut, "cut {cut}: {e}");
        }
        assert!(dec(&text, Serializer::GraphSon3).is_ok());
    }

    #[test]
    fn bad_utf8_deep_nesting_and_long_collections_are_errors() {
        let mut bad = doc(r#""ab""#).into_bytes();
        let at = bad.windows(2).position(|w| w == b"ab").unwrap();
        bad[at + 1] = 0xff;
        let e = decode_response(&bad, Serializer::GraphSon3, &Limits::default()).unwrap_err();
        assert_eq!(e.offset() as usize, at + 1);
        assert!(e.to_string().contains("UTF-8"), "{e}");

        let deep = doc(&format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)));
        let e = dec(&deep, Serializer::GraphSon3).unwrap_err();
        assert!(e.to_string().contains("depth"), "{e}");

        let limits = Limits {
            max_collection_len: 3,
            ..Limits::default()
        };
        let e = decode_response(doc("[1,2,3,4]").as_bytes(), Serializer::GraphSon2, &limits)
            .unwrap_err();
        assert!(e.to_string().contains("limit of 3"), "{e}");
        let e = header(deep.as_bytes(), Serializer::GraphSon3, &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("depth"), "{e}");
    }

    #[test]
    fn every_byte_changed_is_an_error_or_a_value_never_a_panic() {
        let text = doc(
            r#"{"@type":"g:List","@value":[{"@type":"g:Edge","@value":{"id":{"@type":"g:Int32","@value":7},"label":"knows","inVLabel":"person","outVLabel":"person","inV":2,"outV":1,"properties":{"weight":{"@type":"g:Property","@value":{"key":"weight","value":{"@type":"g:Double","@value":0.5}}}}}},{"@type":"g:Path","@value":{"labels":{"@type":"g:List","@value":[{"@type":"g:Set","@value":["a"]}]},"objects":{"@type":"g:List","@value":[{"@type":"gx:Duration","@value":"PT1S"}]}}},{"@type":"g:BulkSet","@value":["x",{"@type":"g:Int64","@value":2}]}]}"#,
        );
        assert!(dec(&text, Serializer::GraphSon3).is_ok());
        let mut bytes = text.into_bytes();
        for i in 0..bytes.len() {
            let was = bytes[i];
            for b in [b'"', b'{', b']', b'9', b'-', b'e', 0xc3, b'\\'] {
                bytes[i] = b;
                for ser in [Serializer::GraphSon3, Serializer::GraphSon2Untyped] {
                    let _ = decode_response(&bytes, ser, &Limits::default());
                    let _ = header(&bytes, ser, &Limits::default());
                }
            }
            bytes[i] = was;
        }
    }

    #[test]
    fn every_status_attribute_reaches_the_message_unknown_keys_too() {
        let text = r#"{"requestId":"41d2e28a-20a4-4ab0-b379-d810dede3786","status":{"message":"Request rate is large","code":500,"attributes":{"x-ms-status-code":429,"x-ms-retry-after-ms":"00:00:00.1","x-ms-total-request-charge":2.5}},"result":{"data":null,"meta":{}}}"#;
        let m = dec(text, Serializer::GraphSon2).unwrap();
        assert_eq!(m.status, 500);
        assert_eq!(m.message.as_deref(), Some("Request rate is large"));
        assert_eq!(m.attribute("x-ms-status-code"), Some(&Value::Int(429)));
        assert_eq!(
            m.attribute("x-ms-retry-after-ms"),
            Some(&Value::from("00:00:00.1"))
        );
        assert_eq!(
            m.attribute("x-ms-total-request-charge"),
            Some(&Value::Double(2.5))
        );
        assert!(m.results().is_empty());
    }

    #[test]
    fn a_number_too_long_is_refused_before_it_is_parsed() {
        let e = dec(&doc(&"9".repeat(100_000)), Serializer::GraphSon3).unwrap_err();
        assert!(
            e.to_string().contains("GraphSON number length 100000"),
            "{e}"
        );
    }

    #[test]
    fn the_header_is_read_without_the_data() {
        let text = doc("[1,2]");
        let (id, code) = header(text.as_bytes(), Serializer::GraphSon3, &Limits::default())
            .unwrap()
            .unwrap();
        assert_eq!(code, 200);
        assert_eq!(id.to_string(), "41d2e28a-20a4-4ab0-b379-d810dede3786");
    }

    #[test]
    fn bindings_graphson_cannot_carry_are_encode_errors() {
        let mut req = RequestMessage::eval("x");
        req.args.push((
            "bindings".into(),
            Value::Map(vec![(Value::from("v"), Value::Uuid(Uuid::nil()))]),
        ));
        let e = encode_request(&req, Serializer::GraphSon3Untyped).unwrap_err();
        assert!(e.to_string().contains("UUID has no representation"), "{e}");
        let ok = encode_request(&req, Serializer::GraphSon2).unwrap();
        let text = String::from_utf8_lossy(&ok);
        assert!(text.contains(r#""bindings":{"v":{"@type":"g:UUID","@value":"00000000-0000-0000-0000-000000000000"}}"#), "{text}");
        let mut req = RequestMessage::eval("x");
        req.args.push((
            "bindings".into(),
            Value::Map(vec![(Value::Int(1), Value::Int(1))]),
        ));
        let e = encode_request(&req, Serializer::GraphSon2).unwrap_err();
        assert!(e.to_string().contains("String keys"), "{e}");
        let mut req = RequestMessage::eval("x");
        req.args.push((
            "bindings".into(),
            Value::Map(vec![(Value::from("s"), Value::Set(vec![]))]),
        ));
        let e = encode_request(&req, Serializer::GraphSon2).unwrap_err();
        assert!(e.to_string().contains("no Set"), "{e}");
        assert!(encode_request(&req, Serializer::GraphSon2Untyped).is_ok());
    }

    #[test]
    fn durations_parse_as_java_prints_them() {
        let d = |s| parse_duration(s).map(|d| (d.seconds, d.nanos));
        assert_eq!(d("PT0S"), Some((0, 0)));
        assert_eq!(d("PT8H6M12.345S"), Some((29172, 345_000_000)));
        assert_eq!(d("PT-0.5S"), Some((-1, 500_000_000)));
        assert_eq!(d("P2DT1S"), Some((172_801, 0)));
        assert_eq!(d("PTxS"), None);
        assert_eq!(d("1S"), None);
        let (hours, days) = (
            format!("PT{}H", "9".repeat(38)),
            format!("P{}D", "9".repeat(30)),
        );
        assert_eq!(d(&hours), None);
        assert_eq!(d(&days), None);
    }

    #[test]
    fn a_graphson2_request_is_its_mime_type_then_typed_json() {
        let req = RequestMessage::eval("g.V().count()");
        let bytes = encode_request(&req, Serializer::GraphSon2).unwrap();
        let mime = "application/vnd.gremlin-v2.0+json";
        assert_eq!(bytes[0] as usize, mime.len());
        let json = std::str::from_utf8(&bytes[1 + mime.len()..]).unwrap();
        assert!(json.starts_with(r#"{"requestId":{"@type":"g:UUID","@value":""#));
        assert!(json.ends_with(r#""op":"eval","processor":"","args":{"gremlin":"g.V().count()"}}"#));
    }
}
