//! The GraphBinary 1 value reader: a fast path over buffered bytes ([`decode_value`] on a
//! [`Cursor`]) and a refilling path over a [`ReadBuffer`] ([`read_value`]).
//!
//! Every read follows `spec/graphbinary-v1.toml`; each length is checked against [`Limits`]
//! before anything is allocated, a claimed count is only a lower bound on the bytes it needs, and
//! nesting depth is counted on every container.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use graphbinary_core::{Cursor, DecodeError, ErrorKind, FastError, FastResult, Limits, ReadBuffer};
use tokio::io::AsyncRead;

use crate::value::{
    BigDecimal, BigInteger, CompositePdt, DateTime, DateTimeKind, Direction, Duration, Edge, Graph,
    Labels, Merge, Path, PrimitivePdt, Property, Tree, Value, Vertex, VertexProperty, T,
};

use graphbinary_core::v1::DecodeV1;

use super::codes;
use super::custom::{self, CustomTypes};

const RED_ZONE: usize = 64 * 1024;
const STACK_GROWTH: usize = 1024 * 1024;

/// Decodes one fully-qualified GraphBinary 1 value from the cursor (the fast path).
///
/// "Need more" ([`FastError::NeedMore`]) when the value is not complete in the cursor's bytes;
/// an error names the absolute byte offset and what was expected there.
pub fn decode_value(cur: &mut Cursor<'_>) -> FastResult<Value> {
    // A value that holds no other value cannot nest, so it needs no stack check (the
    // GraphBinary 4 reader checks only its structured values too): in a vertex that is every
    // value but the vertex itself (ids, property values, null parents). Under callgrind the
    // check was 1.8% of the instructions of draining the 200k-vertex answer over `ws://`.
    if let [code, flag, ..] = cur.remaining() {
        if *code != codes::CUSTOM && (*flag == 0x01 || holds_no_value(*code)) {
            return decode_fq(cur);
        }
    }
    stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || decode_fq(cur))
}

/// Whether a value of type `code` is read without reading another value.
fn holds_no_value(code: u8) -> bool {
    use codes::*;
    matches!(
        code,
        INT | LONG | STRING | DATE | TIMESTAMP | DOUBLE | FLOAT | UUID | BYTE | SHORT | BOOLEAN
    )
}

/// Decodes exactly one value from `bytes` (whose first byte is at offset 0), requiring that
/// nothing follows it. Truncation is [`ErrorKind::UnexpectedEof`] at the end of `bytes`. A
/// custom type (0x00) is read if it is one of JanusGraph's ([`CustomTypes::janusgraph`]), else
/// an error naming it: see [`decode_slice_with`] for others.
pub fn decode_slice(bytes: &[u8], limits: &Limits) -> Result<Value, DecodeError> {
    decode_slice_with(bytes, limits, &CustomTypes::janusgraph())
}

/// [`decode_slice`] with the readers of `custom` for custom types.
pub fn decode_slice_with(
    bytes: &[u8],
    limits: &Limits,
    custom: &CustomTypes,
) -> Result<Value, DecodeError> {
    custom::scoped(custom, || decode_slice_here(bytes, limits))
}

fn decode_slice_here(bytes: &[u8], limits: &Limits) -> Result<Value, DecodeError> {
    let mut cur = Cursor::new(bytes, 0, limits);
    let v = crate::value::complete(decode_value(&mut cur), bytes.len(), "a GraphBinary 1 value")?;
    crate::value::expect_end(
        &cur,
        bytes.len(),
        "GraphBinary 1 value",
        "bytes after the value",
    )?;
    Ok(v)
}

/// Reads one fully-qualified GraphBinary 1 value from a [`ReadBuffer`]: the fast path on the
/// buffered bytes, refilling after "need more"; a value larger than the buffer is read field
/// by field (the slow path, `v1/slow.rs`), each field re-entering the fast path. A custom type
/// is an error: see [`read_value_with`].
///
/// # Cancel safety
/// Cancel safe while the value fits in the buffer (nothing is consumed until it is decoded);
/// once the slow path has started on a larger value, dropping the future loses what it read.
pub async fn read_value<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<Value, DecodeError> {
    read_value_with(buf, &CustomTypes::janusgraph()).await
}

/// [`read_value`] with the readers of `custom` for custom types.
///
/// # Cancel safety
/// As [`read_value`].
pub async fn read_value_with<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    custom: &CustomTypes,
) -> Result<Value, DecodeError> {
    custom::WithCustom::new(custom, async move {
        Ok(buf.read::<graphbinary_core::v1::V1<Value>>().await?.0)
    })
    .await
}

fn invalid(cur: &Cursor<'_>, at: u64, what: &'static str, detail: String) -> FastError {
    cur.error_at(at, ErrorKind::Invalid { what, detail })
}

/// `{type_code}{value_flag}{value}`, or the Custom type's `{0x00}{name}...`.
fn decode_fq(cur: &mut Cursor<'_>) -> FastResult<Value> {
    let at = cur.offset();
    let code = cur.read_u8()?;
    if code == codes::CUSTOM {
        // {0x00}{name String}{custom_type_info}{value_flag}{value}: the name is readable, what
        // follows belongs to the provider's serializer (a reader registered for the name).
        return custom::decode_custom(cur, at);
    }
    if codes::name(code).is_none() {
        return Err(cur.error_at(at, ErrorKind::UnknownTypeCode { code }));
    }
    let flag_at = cur.offset();
    match cur.read_u8()? {
        0x00 if code != codes::UNSPECIFIED_NULL => {}
        0x01 => return Ok(Value::Null(code)),
        flag => {
            return Err(cur.error_at(
                flag_at,
                ErrorKind::InvalidValueFlag {
                    what: codes::name(code).unwrap_or("value"),
                    flag,
                },
            ))
        }
    }
    cur.enter()?;
    let v = decode_body(cur, code, at);
    cur.leave();
    v
}

/// The body of a value whose header (`code` at offset `at`, then a non-null flag) has been read.
pub(crate) fn decode_body_at(cur: &mut Cursor<'_>, code: u8, at: u64) -> FastResult<Value> {
    decode_body(cur, code, at)
}

fn decode_body(cur: &mut Cursor<'_>, code: u8, at: u64) -> FastResult<Value> {
    use codes::*;
    Ok(match code {
        INT => Value::Int(cur.read_i32()?),
        LONG => Value::Long(cur.read_i64()?),
        STRING => Value::String(cur.read_str()?.to_owned()),
        DATE => {
            Value::DateTime(date_time_from_millis(cur.read_i64()?).with_kind(DateTimeKind::Date))
        }
        TIMESTAMP => Value::DateTime(
            date_time_from_millis(cur.read_i64()?).with_kind(DateTimeKind::Timestamp),
        ),
        CLASS => pdt("g:Class", cur.read_str()?),
        DOUBLE => Value::Double(cur.read_f64()?),
        FLOAT => Value::Float(cur.read_f32()?),
        LIST => Value::List(decode_items(cur, "List")?),
        MAP => Value::Map(decode_map(cur)?),
        SET => Value::Set(decode_items(cur, "Set")?),
        UUID => Value::Uuid(cur.read_uuid()?),
        // The elements: the derive's GraphBinary 1 dialect of the shared structs.
        EDGE => Value::Edge(Box::new(Edge::decode_v1(cur)?)),
        PATH => Value::Path(Box::new(Path::decode_v1(cur)?)),
        PROPERTY => Value::Property(Box::new(Property::decode_v1(cur)?)),
        TINKER_GRAPH => Value::Graph(Box::new(decode_graph(cur)?)),
        VERTEX => Value::Vertex(Box::new(Vertex::decode_v1(cur)?)),
        VERTEX_PROPERTY => Value::VertexProperty(Box::new(VertexProperty::decode_v1(cur)?)),
        DIRECTION => {
            let s = enum_string(cur, "Direction")?;
            Value::Direction(
                Direction::from_name(&s.1).ok_or_else(|| bad_enum(cur, s.0, "Direction", &s.1))?,
            )
        }
        T => {
            let s = enum_string(cur, "T")?;
            Value::T(T::from_name(&s.1).ok_or_else(|| bad_enum(cur, s.0, "T", &s.1))?)
        }
        MERGE => {
            let s = enum_string(cur, "Merge")?;
            Value::Merge(Merge::from_name(&s.1).ok_or_else(|| bad_enum(cur, s.0, "Merge", &s.1))?)
        }
        BARRIER | CARDINALITY | COLUMN | OPERATOR | ORDER | PICK | POP | SCOPE | DT | GTYPE => {
            let name = codes::graphson_name(code).unwrap_or("g:Enum");
            let (_, s) = enum_string(cur, codes::name(code).unwrap_or("enum"))?;
            Value::PrimitivePdt(Box::new(PrimitivePdt {
                type_name: name.to_owned(),
                value: s,
            }))
        }
        BINDING => {
            let key = cur.read_str()?.to_owned();
            let value = decode_value(cur)?;
            composite(
                "g:Binding",
                vec![("key", Value::String(key)), ("value", value)],
            )
        }
        BYTECODE => {
            let steps = decode_instructions(cur, "Bytecode steps")?;
            let sources = decode_instructions(cur, "Bytecode sources")?;
            composite("g:Bytecode", vec![("step", steps), ("source", sources)])
        }
        LAMBDA => {
            let language = cur.read_str()?.to_owned();
            let script = cur.read_str()?.to_owned();
            let arguments = cur.read_i32()?;
            composite(
                "g:Lambda",
                vec![
                    ("script", Value::String(script)),
                    ("language", Value::String(language)),
                    ("arguments", Value::Int(arguments)),
                ],
            )
        }
        P | TEXT_P => {
            let predicate = cur.read_str()?.to_owned();
            predicate_value(code, predicate, decode_items(cur, "P values")?)
        }
        TRAVERSER => {
            let bulk = cur.read_i64()?;
            let value = decode_value(cur)?;
            traverser(bulk, value)
        }
        BIG_DECIMAL => {
            let scale = cur.read_i32()?;
            let unscaled = BigInteger::from_bytes(cur.read_len_prefixed("BigInteger")?.to_vec());
            Value::BigDecimal(Box::new(BigDecimal { scale, unscaled }))
        }
        BIG_INTEGER => Value::BigInteger(BigInteger::from_bytes(
            cur.read_len_prefixed("BigInteger")?.to_vec(),
        )),
        BYTE => Value::Byte(cur.read_i8()?),
        BYTE_BUFFER => Value::Binary(cur.read_len_prefixed("ByteBuffer")?.to_vec()),
        SHORT => Value::Short(cur.read_i16()?),
        BOOLEAN => Value::Boolean(cur.read_bool()?),
        TRAVERSAL_STRATEGY => {
            // Both fields bare (TraversalStrategySerializer: `context.readValue(buffer,
            // Class.class, false)` then the Map the same way).
            let class = pdt("g:Class", cur.read_str()?);
            let configuration = Value::Map(decode_map(cur)?);
            composite(
                "g:TraversalStrategy",
                vec![("class", class), ("configuration", configuration)],
            )
        }
        BULK_SET => {
            // The smallest item: a null `FE 01` and an 8-byte bulk.
            let items = cur.read_counted("BulkSet", 10, |cur| {
                Ok((decode_value(cur)?, cur.read_i64()?))
            })?;
            Value::BulkList(items)
        }
        TREE => Value::Tree(decode_tree(cur)?),
        METRICS => decode_metrics(cur)?,
        TRAVERSAL_METRICS => {
            let duration = cur.read_i64()?;
            let metrics = decode_metrics_list(cur)?;
            composite(
                "g:TraversalMetrics",
                vec![("dur", Value::Long(duration)), ("metrics", metrics)],
            )
        }
        CHAR => Value::Char(cur.read_char()?),
        DURATION => Value::Duration(Duration {
            seconds: cur.read_i64()?,
            nanos: cur.read_i32()?,
        }),
        INET_ADDRESS => {
            let addr_at = cur.offset();
            let bytes = cur.read_len_prefixed("InetAddress")?;
            let ip = match bytes.len() {
                4 => IpAddr::V4(Ipv4Addr::from(
                    <[u8; 4]>::try_from(bytes).unwrap_or_default(),
                )),
                16 => IpAddr::V6(Ipv6Addr::from(
                    <[u8; 16]>::try_from(bytes).unwrap_or_default(),
                )),
                n => {
                    return Err(invalid(
                        cur,
                        addr_at,
                        "InetAddress",
                        format!("{n} address bytes, expected 4 or 16"),
                    ))
                }
            };
            pdt("gx:InetAddress", &ip.to_string())
        }
        INSTANT => {
            let seconds = cur.read_i64()?;
            let nanos_at = cur.offset();
            let nanos = cur.read_i32()?;
            if !(0..1_000_000_000).contains(&nanos) {
                return Err(invalid(
                    cur,
                    nanos_at,
                    "Instant",
                    format!("nanos {nanos} outside 0..1000000000"),
                ));
            }
            let Some(dt) = DateTime::from_epoch_seconds(seconds, i64::from(nanos)) else {
                return Err(invalid(
                    cur,
                    at + 2,
                    "Instant",
                    format!("{seconds} s since the epoch is outside Java's Instant range"),
                ));
            };
            Value::DateTime(dt.with_kind(DateTimeKind::Instant))
        }
        LOCAL_DATE => {
            let (y, m, d) = local_date(cur)?;
            composite(
                "gx:LocalDate",
                vec![
                    ("year", Value::Int(y)),
                    ("month", Value::Byte(m)),
                    ("day", Value::Byte(d)),
                ],
            )
        }
        LOCAL_DATE_TIME => {
            let (y, m, d) = local_date(cur)?;
            let nanos = local_time(cur)?;
            composite(
                "gx:LocalDateTime",
                vec![
                    ("year", Value::Int(y)),
                    ("month", Value::Byte(m)),
                    ("day", Value::Byte(d)),
                    ("nanos", Value::Long(nanos)),
                ],
            )
        }
        LOCAL_TIME => composite(
            "gx:LocalTime",
            vec![("nanos", Value::Long(local_time(cur)?))],
        ),
        MONTH_DAY => {
            let month = cur.read_i8()?;
            let day = cur.read_i8()?;
            composite(
                "gx:MonthDay",
                vec![("month", Value::Byte(month)), ("day", Value::Byte(day))],
            )
        }
        OFFSET_DATE_TIME | ZONED_DATE_TIME => {
            let (year, month, day) = local_date(cur)?;
            let nanos = local_time(cur)?;
            let offset_seconds = zone_offset(cur)?;
            Value::DateTime(DateTime {
                year,
                month,
                day,
                nanos,
                offset_seconds,
                kind: if code == ZONED_DATE_TIME {
                    DateTimeKind::ZonedDateTime
                } else {
                    DateTimeKind::OffsetDateTime
                },
            })
        }
        OFFSET_TIME => {
            let nanos = local_time(cur)?;
            let offset = zone_offset(cur)?;
            composite(
                "gx:OffsetTime",
                vec![
                    ("nanos", Value::Long(nanos)),
                    ("offset", Value::Int(offset)),
                ],
            )
        }
        PERIOD => composite(
            "gx:Period",
            vec![
                ("years", Value::Int(cur.read_i32()?)),
                ("months", Value::Int(cur.read_i32()?)),
                ("days", Value::Int(cur.read_i32()?)),
            ],
        ),
        YEAR => composite("gx:Year", vec![("year", Value::Int(cur.read_i32()?))]),
        YEAR_MONTH => {
            let year = cur.read_i32()?;
            let month = cur.read_i8()?;
            composite(
                "gx:YearMonth",
                vec![("year", Value::Int(year)), ("month", Value::Byte(month))],
            )
        }
        ZONE_OFFSET => composite(
            "gx:ZoneOffset",
            vec![("seconds", Value::Int(zone_offset(cur)?))],
        ),
        _ => return Err(cur.error_at(at, ErrorKind::UnknownTypeCode { code })),
    })
}

fn pdt(type_name: &str, value: &str) -> Value {
    Value::PrimitivePdt(Box::new(PrimitivePdt {
        type_name: type_name.to_owned(),
        value: value.to_owned(),
    }))
}

/// A Traverser (0x21) as the model holds one inside a value (a response's result Traversers
/// are unwrapped into results with a bulk, the client's result stream):
/// a `CompositePdt` named `g:Traverser` with its `bulk` (Long) and `value`, which
/// [`encode_value`](super::encode_value) writes as a Traverser again.
///
/// ```
/// use graphbinary_client::format::graphbinary1 as v1;
/// use graphbinary_client::Value;
///
/// let t = v1::traverser(2, Value::Int(7));
/// let mut bytes = Vec::new();
/// v1::encode_value(&t, &mut bytes).unwrap();
/// assert_eq!(bytes, [0x21, 0x00, 0, 0, 0, 0, 0, 0, 0, 2, 0x01, 0x00, 0, 0, 0, 7]);
/// ```
pub fn traverser(bulk: i64, value: Value) -> Value {
    composite(
        "g:Traverser",
        vec![("bulk", Value::Long(bulk)), ("value", value)],
    )
}

/// A P (`code` P) or TextP as the composite value `g:P` / `g:TextP` of its predicate and values.
pub(crate) fn predicate_value(code: u8, predicate: String, values: Vec<Value>) -> Value {
    let name = if code == codes::P { "g:P" } else { "g:TextP" };
    composite(
        name,
        vec![
            ("predicate", Value::String(predicate)),
            ("value", Value::List(values)),
        ],
    )
}

/// A value of a GraphBinary 1 type the model has no type of its own for: a composite value
/// named `type_name` with `fields`.
pub(crate) fn composite(type_name: &str, fields: Vec<(&str, Value)>) -> Value {
    Value::CompositePdt(Box::new(CompositePdt {
        type_name: type_name.to_owned(),
        fields: fields
            .into_iter()
            .map(|(k, v)| (Value::String(k.to_owned()), v))
            .collect(),
        ordered: false,
    }))
}

fn bad_enum(cur: &Cursor<'_>, at: u64, what: &'static str, s: &str) -> FastError {
    invalid(cur, at, what, format!("unknown name {s:?}"))
}

/// The enum tokens' value: a fully-qualified String (`03 00 {String}`).
fn enum_string(cur: &mut Cursor<'_>, what: &'static str) -> FastResult<(u64, String)> {
    let at = cur.offset();
    cur.expect_type_code(codes::STRING, what)?;
    if !cur.read_nullable_flag(what)? {
        return Err(cur.error_at(at, ErrorKind::UnexpectedNull { what }));
    }
    Ok((at, cur.read_str()?.to_owned()))
}

/// `{n Int}{fq item}...`
fn decode_items(cur: &mut Cursor<'_>, what: &'static str) -> FastResult<Vec<Value>> {
    // Each item is at least 2 bytes (a null): the count is a lower bound on what must be there.
    cur.read_counted(what, 2, decode_value)
}

fn decode_map(cur: &mut Cursor<'_>) -> FastResult<Vec<(Value, Value)>> {
    cur.read_counted("Map", 4, |cur| Ok((decode_value(cur)?, decode_value(cur)?)))
}

/// Bytecode's `{n Int}{name String}{n Int}{fq arg}...`, as a List of Lists `[name, args...]`
/// (GraphSON 3's shape of `step` / `source`).
fn decode_instructions(cur: &mut Cursor<'_>, what: &'static str) -> FastResult<Value> {
    let n = cur.read_count(what)?;
    // The smallest instruction: an empty name and no arguments.
    cur.require(n.saturating_mul(8))?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = cur.read_str()?.to_owned();
        let args = cur.read_count("Bytecode arguments")?;
        cur.require(args.saturating_mul(2))?;
        let mut step = Vec::with_capacity(args + 1);
        step.push(Value::String(name));
        for _ in 0..args {
            step.push(decode_value(cur)?);
        }
        out.push(Value::List(step));
    }
    Ok(Value::List(out))
}

fn decode_metrics(cur: &mut Cursor<'_>) -> FastResult<Value> {
    let id = cur.read_str()?.to_owned();
    let name = cur.read_str()?.to_owned();
    let duration = cur.read_i64()?;
    let counts = Value::Map(decode_map(cur)?);
    let annotations = Value::Map(decode_map(cur)?);
    let nested = decode_metrics_list(cur)?;
    Ok(composite(
        "g:Metrics",
        vec![
            ("id", Value::String(id)),
            ("name", Value::String(name)),
            ("dur", Value::Long(duration)),
            ("counts", counts),
            ("annotations", annotations),
            ("metrics", nested),
        ],
    ))
}

/// A bare List whose items are fully-qualified Metrics.
fn decode_metrics_list(cur: &mut Cursor<'_>) -> FastResult<Value> {
    let at = cur.offset();
    let items = decode_items(cur, "Metrics list")?;
    for m in &items {
        if !matches!(m, Value::CompositePdt(p) if p.type_name == "g:Metrics") {
            return Err(invalid(
                cur,
                at,
                "nested Metrics",
                format!("expected Metrics (0x2c), found {}", m.type_name()),
            ));
        }
    }
    Ok(Value::List(items))
}

fn local_date(cur: &mut Cursor<'_>) -> FastResult<(i32, i8, i8)> {
    let at = cur.offset();
    let (y, m, d) = (cur.read_i32()?, cur.read_i8()?, cur.read_i8()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(invalid(cur, at, "LocalDate", format!("month {m} day {d}")));
    }
    Ok((y, m, d))
}

fn local_time(cur: &mut Cursor<'_>) -> FastResult<i64> {
    let at = cur.offset();
    let nanos = cur.read_i64()?;
    if !(0..86_400_000_000_000).contains(&nanos) {
        return Err(invalid(
            cur,
            at,
            "LocalTime",
            format!("{nanos} ns is not a time of day"),
        ));
    }
    Ok(nanos)
}

fn zone_offset(cur: &mut Cursor<'_>) -> FastResult<i32> {
    let at = cur.offset();
    let s = cur.read_i32()?;
    if !(-18 * 3600..=18 * 3600).contains(&s) {
        return Err(invalid(
            cur,
            at,
            "ZoneOffset",
            format!("{s} s is beyond ±18:00"),
        ));
    }
    Ok(s)
}

/// A `java.util.Date` (milliseconds since the epoch) as a DateTime at UTC (see
/// [`DateTime::from_epoch_millis`]).
pub fn date_time_from_millis(ms: i64) -> DateTime {
    DateTime::from_epoch_millis(ms)
}

fn pick_property(v: Value) -> Result<Property, Value> {
    match v {
        Value::Property(p) => Ok(*p),
        other => Err(other),
    }
}

fn read_label(cur: &mut Cursor<'_>) -> FastResult<Labels> {
    Ok(Labels::One(cur.read_interned_str()?))
}

fn decode_tree(cur: &mut Cursor<'_>) -> FastResult<Tree> {
    cur.enter()?;
    // A key (at least a 2-byte null) and an empty subtree (a 4-byte count).
    let entries = cur.read_counted("Tree", 6, |cur| {
        let key = decode_value(cur)?;
        let child = stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || decode_tree(cur))?;
        Ok((key, child))
    })?;
    cur.leave();
    Ok(Tree(entries))
}

/// TinkerGraph (0x10): vertices with bare-List properties, edges whose in/out vertex labels are
/// written `FE 01` (taken here from the graph's vertex list, as TinkerGraph does).
fn decode_graph(cur: &mut Cursor<'_>) -> FastResult<Graph> {
    // The smallest vertex: id `FE 01`, empty label, no properties.
    let vertices = cur.read_counted("TinkerGraph vertices", 10, |cur| {
        let id = decode_value(cur)?;
        let label = read_label(cur)?;
        let props = cur.read_counted("TinkerGraph vertex properties", 14, |cur| {
            Ok(VertexProperty {
                id: decode_value(cur)?,
                label: read_label(cur)?,
                value: decode_value(cur)?,
                parent: decode_value(cur)?,
                properties: Some(decode_bare_properties(cur)?),
            })
        })?;
        Ok(Vertex {
            id,
            label,
            properties: Some(props),
        })
    })?;
    let n = cur.read_count("TinkerGraph edges")?;
    cur.require(n.saturating_mul(20))?;
    let mut edges = Vec::with_capacity(n);
    let index: HashMap<String, usize> = vertices
        .iter()
        .enumerate()
        .map(|(i, v)| (format!("{:?}", v.id), i))
        .collect();
    for _ in 0..n {
        let id = decode_value(cur)?;
        let label = read_label(cur)?;
        let in_v_id = decode_value(cur)?;
        let in_v_label = graph_edge_label(cur, &vertices, &index, &in_v_id)?;
        let out_v_id = decode_value(cur)?;
        let out_v_label = graph_edge_label(cur, &vertices, &index, &out_v_id)?;
        edges.push(Edge {
            id,
            label,
            in_v_id,
            in_v_label,
            out_v_id,
            out_v_label,
            parent: decode_value(cur)?,
            properties: Some(decode_bare_properties(cur)?),
        });
    }
    Ok(Graph { vertices, edges })
}

/// An edge's in/out vertex label in a TinkerGraph: a fq String, or `FE 01` (as TinkerPop writes
/// it), then the label of that vertex in the graph.
fn graph_edge_label(
    cur: &mut Cursor<'_>,
    vertices: &[Vertex],
    index: &HashMap<String, usize>,
    id: &Value,
) -> FastResult<Labels> {
    let at = cur.offset();
    match decode_value(cur)? {
        Value::String(s) => Ok(Labels::One(Arc::from(s))),
        Value::Null(_) => Ok(index
            .get(&format!("{id:?}"))
            .map(|&i| vertices[i].label.clone())
            .unwrap_or_default()),
        other => Err(invalid(
            cur,
            at,
            "TinkerGraph edge vertex label",
            format!("expected a String or null, found {}", other.type_name()),
        )),
    }
}

/// `{n Int}{fq Property}...`
fn decode_bare_properties(cur: &mut Cursor<'_>) -> FastResult<Vec<Property>> {
    let at = cur.offset();
    decode_items(cur, "TinkerGraph properties")?
        .into_iter()
        .map(|v| {
            pick_property(v).map_err(|o| {
                invalid(
                    cur,
                    at,
                    "TinkerGraph properties",
                    format!("a list item is a {}", o.type_name()),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_convert_to_utc_calendar_dates() {
        let d = date_time_from_millis(1_481_750_076_295);
        assert_eq!((d.year, d.month, d.day), (2016, 12, 14));
        assert_eq!(
            d.nanos,
            ((21 * 3600 + 14 * 60 + 36) * 1000 + 295) * 1_000_000
        );
        let d = date_time_from_millis(-1);
        assert_eq!((d.year, d.month, d.day), (1969, 12, 31));
        assert_eq!(d.nanos, 86_399_999_000_000);
        let d = date_time_from_millis(951_782_400_000); // 2000-02-29
        assert_eq!((d.year, d.month, d.day), (2000, 2, 29));
    }

    fn instant(seconds: i64, nanos: i32) -> Vec<u8> {
        let mut b = vec![codes::INSTANT, 0x00];
        b.extend(seconds.to_be_bytes());
        b.extend(nanos.to_be_bytes());
        b
    }

    /// Found by the `v1_value` fuzz target: an Instant past ±2^63 ms was read through a
    /// saturating multiplication into another date (seconds 0xb700000f00000000 read as year
    /// -292275055), which wrote back as other bytes. Java's Instant range is read exactly; past
    /// it is an error naming the seconds.
    #[test]
    fn instants_are_read_over_javas_whole_range_and_no_further() {
        let limits = Limits::default();
        for (secs, nanos, ymd) in [
            (31_556_889_864_403_199, 999_999_999, (1_000_000_000, 12, 31)), // Instant.MAX
            (-31_557_014_167_219_200, 0, (-1_000_000_000, 1, 1)),           // Instant.MIN
            (-1, 5, (1969, 12, 31)),
            (i64::MAX / 1000 + 1, 7, (292_278_994, 8, 17)),
        ] {
            let bytes = instant(secs, nanos);
            let Value::DateTime(d) = decode_slice(&bytes, &limits).unwrap() else {
                panic!("{secs}")
            };
            assert_eq!((d.year, d.month, d.day), ymd, "{secs}");
            let mut again = Vec::new();
            super::super::encode_value(&Value::DateTime(d), &mut again).unwrap();
            assert_eq!(again, bytes, "{secs} s writes back as read");
        }
        for secs in [
            31_556_889_864_403_200,
            -31_557_014_167_219_201,
            i64::MIN,
            -5_260_204_364_768_739_328,
        ] {
            let e = decode_slice(&instant(secs, 0), &limits).unwrap_err();
            assert_eq!(e.offset(), 2);
            assert!(
                e.to_string().contains("outside Java's Instant range"),
                "{e}"
            );
        }
    }
}
