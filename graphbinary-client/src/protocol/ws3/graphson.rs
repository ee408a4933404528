//! GraphSON 2 and 3 (typed and untyped) over the TinkerPop 3 WebSocket protocol: the request
//! writer and the response reader used by [`Client3`](crate::transport::ws::Client3) when
//! [`Options3::serializer`](crate::transport::ws::Options3::serializer) is not GraphBinary 1.
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

use graphbinary_core::{DecodeError, EncodeError, Limits};
use uuid::Uuid;

use crate::format::graphson::read::{into_fields, map_entries, Fields, Parser};
use crate::format::graphson::Writer;
use crate::protocol::ws3::{RequestMessage, ResponseMessage};
use crate::value::Value;

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
    let mut p = Parser::new(bytes, serializer.is_typed(), limits);
    let msg = message(&mut p)?;
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
    let mut p = Parser::new(bytes, serializer.is_typed(), limits);
    let mut id = None;
    let mut code = None;
    p.object_fields(|p, key| {
        match &*key {
            "requestId" => id = Some(p.value()?),
            "status" => {
                // As `message` reads it: the last `status` object, its first `code`.
                code = None;
                p.object_fields(|p, key| {
                    if key == "code" && code.is_none() {
                        code = Some(p.value()?);
                    } else {
                        p.skip()?;
                    }
                    Ok(())
                })?
            }
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
        Some(v) => Ok(Some((request_id(&p, v)?, code))),
    }
}

type R<T> = Result<T, DecodeError>;

fn request_id(p: &Parser<'_>, v: Value) -> R<Uuid> {
    match v {
        Value::Uuid(u) => Ok(u),
        Value::String(s) => {
            Uuid::parse_str(&s).map_err(|e| p.invalid(0, "requestId", format!("{s:?}: {e}")))
        }
        other => Err(p.invalid(0, "requestId", format!("{other:?}"))),
    }
}

fn message(p: &mut Parser<'_>) -> R<ResponseMessage> {
    let mut id = None;
    let mut status = None;
    let mut result = None;
    p.object_fields(|p, key| {
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
        Some(v) => Some(request_id(p, v)?),
    };
    let mut status = Fields(into_fields(status.unwrap_or(Value::Null(0xfe))));
    let code = match status.opt("code") {
        Some(c) => p.status_code(c)?,
        None => return Err(p.invalid(0, "GraphSON response message", "no status code".into())),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::graphbinary1::composite;
    use crate::format::graphson::read::{java_time, parse_duration};
    use crate::value::{DateTime, DateTimeKind, Duration};

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
    fn a_tinker_graph_is_a_graph_whose_edges_get_their_vertex_labels_else_an_error() {
        let v = |id: i32, label: &str| {
            format!(
                r#"{{"@type":"g:Vertex","@value":{{"id":{{"@type":"g:Int32","@value":{id}}},"label":"{label}"}}}}"#
            )
        };
        let e = r#"{"@type":"g:Edge","@value":{"id":{"@type":"g:Int32","@value":7},"label":"knows","inV":{"@type":"g:Int32","@value":2},"outV":{"@type":"g:Int32","@value":1}}}"#;
        let graph = |vs: &str, es: &str| {
            doc(&format!(
                r#"{{"@type":"g:List","@value":[{{"@type":"tinker:graph","@value":{{"vertices":{vs},"edges":{es}}}}}]}}"#
            ))
        };
        let ok = graph(
            &format!("[{},{}]", v(1, "person"), v(2, "animal")),
            &format!("[{e}]"),
        );
        let m = dec(&ok, Serializer::GraphSon3).unwrap();
        let r = m.results();
        let Value::Graph(g) = &r[0].0 else {
            panic!("{r:?}")
        };
        assert_eq!(g.vertices.len(), 2);
        assert_eq!(g.vertices[0].properties, Some(Vec::new()));
        let edge = &g.edges[0];
        assert_eq!(
            (&*edge.in_v_label[0], &*edge.out_v_label[0]),
            ("animal", "person")
        );
        assert_eq!(edge.properties, Some(Vec::new()));
        for bad in [
            graph("[1]", "[]"),
            graph(
                &format!("[{}]", v(1, "person")),
                &format!("[{}]", v(2, "x")),
            ),
            graph("{}", "[]"),
            graph(&format!("[{e}]"), "[]"),
        ] {
            let err = dec(&bad, Serializer::GraphSon3).unwrap_err();
            assert!(err.to_string().contains("tinker:graph"), "{err}");
        }
    }

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

    /// A `code` or `status` given twice (found by the graphson fuzz target): the header the
    /// connection routes by and the message read whole agree on which counts.
    #[test]
    fn the_header_and_the_message_agree_on_repeated_keys() {
        let id = "41d2e28a-20a4-4ab0-b379-d810dede3786";
        for (status, want) in [
            (r#""status":{"code":200,"code":280}"#, 200),
            (
                r#""status":{"code":500},"status":{"code":206,"code":200}"#,
                206,
            ),
        ] {
            let text = format!(r#"{{"requestId":"{id}",{status},"result":{{"data":[]}}}}"#);
            let s = Serializer::GraphSon3;
            let h = header(text.as_bytes(), s, &Limits::default()).unwrap();
            let m = dec(&text, s).unwrap();
            assert_eq!(h.map(|(_, c)| c), Some(want), "{text}");
            assert_eq!(m.status, want, "{text}");
        }
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
