//! The GraphBinary 1 writer: every value the reader produces, written back in the layout it
//! was read from.
//!
//! Nothing read is merged: a `DateTime` is written as the type its
//! [`kind`](crate::value::DateTimeKind) names (Date 0x04, Timestamp 0x05, Instant 0x83,
//! OffsetDateTime 0x88, ZonedDateTime 0x8d), a `BulkList` as BulkSet (0x2a), a `g:Traverser`
//! PDT as Traverser (0x21), so that a decoded value re-encodes byte for byte. PDTs are written as the GraphBinary 1 type their GraphSON 3 name
//! names (`g:P` as P 0x1e, `gx:LocalDate` as LocalDate 0x84, ...); a `CompositePdt` named by a
//! registered custom type goes through that type's writer.

use std::net::IpAddr;

use bytes::BufMut;
use graphbinary_core::v1::EncodeV1;
use graphbinary_core::{write, Encode, EncodeError};

use crate::value::{
    epoch, CompositePdt, DateTime, DateTimeKind, Graph, Labels, PrimitivePdt, Property, Tree, Value,
};

use super::codes;
use super::custom::{self, CustomTypes};

/// Writes `value` fully qualified in GraphBinary 1 (no custom types), each value as the type
/// the module docs say.
pub fn encode_value<B: BufMut>(value: &Value, out: &mut B) -> Result<(), EncodeError> {
    match value {
        Value::Null(code) => {
            let code = if codes::name(*code).is_some() {
                *code
            } else {
                codes::UNSPECIFIED_NULL
            };
            write::put_null(out, code);
        }
        Value::Int(v) => {
            write::put_header(out, codes::INT);
            out.put_i32(*v);
        }
        Value::Long(v) => {
            write::put_header(out, codes::LONG);
            out.put_i64(*v);
        }
        Value::String(s) => {
            write::put_header(out, codes::STRING);
            write::put_str(out, s)?;
        }
        Value::Double(v) => {
            write::put_header(out, codes::DOUBLE);
            out.put_f64(*v);
        }
        Value::Float(v) => {
            write::put_header(out, codes::FLOAT);
            out.put_f32(*v);
        }
        Value::Boolean(b) => {
            write::put_header(out, codes::BOOLEAN);
            out.put_u8(u8::from(*b));
        }
        Value::Short(v) => {
            write::put_header(out, codes::SHORT);
            out.put_i16(*v);
        }
        Value::Byte(v) => {
            write::put_header(out, codes::BYTE);
            out.put_i8(*v);
        }
        Value::Uuid(u) => {
            write::put_header(out, codes::UUID);
            out.put_slice(u.as_bytes());
        }
        Value::Binary(b) => {
            write::put_header(out, codes::BYTE_BUFFER);
            write::put_bytes(out, b, "ByteBuffer")?;
        }
        Value::Char(c) => {
            write::put_header(out, codes::CHAR);
            c.encode(out)?;
        }
        Value::Duration(d) => {
            write::put_header(out, codes::DURATION);
            d.encode_v1(out)?;
        }
        Value::List(items) => {
            write::put_header(out, codes::LIST);
            items_body(items, out, "List")?;
        }
        Value::Set(items) => {
            write::put_header(out, codes::SET);
            items_body(items, out, "Set")?;
        }
        Value::Map(entries) | Value::OrderedMap(entries) => {
            write::put_header(out, codes::MAP);
            map_body(entries, out)?;
        }
        Value::DateTime(dt) => date_time(dt, out)?,
        Value::BulkList(items) => bulks(items, out)?,
        Value::Vertex(v) => {
            write::put_header(out, codes::VERTEX);
            v.encode_v1(out)?;
        }
        Value::Edge(e) => {
            write::put_header(out, codes::EDGE);
            e.encode_v1(out)?;
        }
        Value::VertexProperty(p) => {
            write::put_header(out, codes::VERTEX_PROPERTY);
            p.encode_v1(out)?;
        }
        Value::Property(p) => {
            write::put_header(out, codes::PROPERTY);
            p.encode_v1(out)?;
        }
        Value::Path(p) => {
            write::put_header(out, codes::PATH);
            p.encode_v1(out)?;
        }
        Value::Graph(g) => {
            write::put_header(out, codes::TINKER_GRAPH);
            graph(g, out)?;
        }
        Value::Tree(t) => {
            write::put_header(out, codes::TREE);
            tree(t, out)?;
        }
        Value::Direction(d) => {
            write::put_header(out, codes::DIRECTION);
            d.encode_v1(out)?;
        }
        Value::T(t) => {
            write::put_header(out, codes::T);
            t.encode_v1(out)?;
        }
        Value::Merge(m) => {
            write::put_header(out, codes::MERGE);
            m.encode_v1(out)?;
        }
        Value::BigDecimal(d) => {
            write::put_header(out, codes::BIG_DECIMAL);
            d.encode_v1(out)?;
        }
        Value::BigInteger(b) => {
            write::put_header(out, codes::BIG_INTEGER);
            b.encode(out)?;
        }
        Value::PrimitivePdt(p) => primitive(p, out)?,
        Value::CompositePdt(p) => {
            if !custom::encode_custom(value, out)? {
                composite(p, out)?;
            }
        }
        Value::Marker => return Err(unrepresentable("Marker", "GraphBinary 4 only")),
    }
    Ok(())
}

/// [`encode_value`] with the writers of `custom` for `CompositePdt`s named by a custom type.
pub fn encode_value_with<B: BufMut>(
    value: &Value,
    out: &mut B,
    custom: &CustomTypes,
) -> Result<(), EncodeError> {
    custom::scoped(custom, || encode_value(value, out))
}

fn unrepresentable(what: &'static str, detail: impl Into<String>) -> EncodeError {
    EncodeError::Unrepresentable {
        what,
        detail: detail.into(),
    }
}

fn items_body<B: BufMut>(
    items: &[Value],
    out: &mut B,
    what: &'static str,
) -> Result<(), EncodeError> {
    write::put_len(out, items.len(), what)?;
    for i in items {
        encode_value(i, out)?;
    }
    Ok(())
}

fn map_body<B: BufMut>(entries: &[(Value, Value)], out: &mut B) -> Result<(), EncodeError> {
    write::put_len(out, entries.len(), "Map")?;
    for (k, v) in entries {
        encode_value(k, out)?;
        encode_value(v, out)?;
    }
    Ok(())
}

/// A `DateTime` as the GraphBinary 1 type of its [`DateTimeKind`].
fn date_time<B: BufMut>(dt: &DateTime, out: &mut B) -> Result<(), EncodeError> {
    match dt.kind {
        DateTimeKind::Date | DateTimeKind::Timestamp => {
            let (code, what) = if dt.kind == DateTimeKind::Date {
                (codes::DATE, "GraphBinary 1 Date")
            } else {
                (codes::TIMESTAMP, "GraphBinary 1 Timestamp")
            };
            let (secs, nanos) = epoch(dt);
            if nanos % 1_000_000 != 0 {
                return Err(unrepresentable(
                    what,
                    format!("{nanos} ns is finer than its milliseconds"),
                ));
            }
            let millis = secs
                .checked_mul(1000)
                .and_then(|ms| ms.checked_add(nanos / 1_000_000))
                .ok_or_else(|| {
                    unrepresentable(
                        what,
                        format!("{secs} s since the epoch overflow a Long of milliseconds"),
                    )
                })?;
            write::put_header(out, code);
            out.put_i64(millis);
        }
        DateTimeKind::Instant => {
            let (secs, nanos) = epoch(dt);
            write::put_header(out, codes::INSTANT);
            out.put_i64(secs);
            out.put_i32(nanos as i32);
        }
        DateTimeKind::OffsetDateTime => {
            write::put_header(out, codes::OFFSET_DATE_TIME);
            dt.encode_v1(out)?;
        }
        DateTimeKind::ZonedDateTime => {
            write::put_header(out, codes::ZONED_DATE_TIME);
            dt.encode_v1(out)?;
        }
    }
    Ok(())
}

/// A `BulkList` as a BulkSet (a Traverser inside a value is a `g:Traverser` PDT).
fn bulks<B: BufMut>(items: &[(Value, i64)], out: &mut B) -> Result<(), EncodeError> {
    write::put_header(out, codes::BULK_SET);
    write::put_len(out, items.len(), "BulkSet")?;
    for (value, bulk) in items {
        encode_value(value, out)?;
        out.put_i64(*bulk);
    }
    Ok(())
}

fn label<B: BufMut>(l: &Labels, out: &mut B) -> Result<(), EncodeError> {
    write::put_str(out, graphbinary_core::v1::OneString::one_string(l)?)
}

fn bare_properties<B: BufMut>(props: &[Property], out: &mut B) -> Result<(), EncodeError> {
    write::put_len(out, props.len(), "TinkerGraph properties")?;
    for p in props {
        write::put_header(out, codes::PROPERTY);
        p.encode_v1(out)?;
    }
    Ok(())
}

/// TinkerGraph 0x10, as the reader reads it; an edge's in/out vertex labels are written `FE 01`
/// as TinkerPop writes them (the reader takes them from the vertex list).
fn graph<B: BufMut>(g: &Graph, out: &mut B) -> Result<(), EncodeError> {
    write::put_len(out, g.vertices.len(), "TinkerGraph vertices")?;
    for v in &g.vertices {
        encode_value(&v.id, out)?;
        label(&v.label, out)?;
        let props = v.properties.as_deref().unwrap_or_default();
        write::put_len(out, props.len(), "TinkerGraph vertex properties")?;
        for p in props {
            encode_value(&p.id, out)?;
            label(&p.label, out)?;
            encode_value(&p.value, out)?;
            encode_value(&p.parent, out)?;
            bare_properties(p.properties.as_deref().unwrap_or_default(), out)?;
        }
    }
    write::put_len(out, g.edges.len(), "TinkerGraph edges")?;
    for e in &g.edges {
        encode_value(&e.id, out)?;
        label(&e.label, out)?;
        encode_value(&e.in_v_id, out)?;
        write::put_null(out, codes::UNSPECIFIED_NULL);
        encode_value(&e.out_v_id, out)?;
        write::put_null(out, codes::UNSPECIFIED_NULL);
        encode_value(&e.parent, out)?;
        bare_properties(e.properties.as_deref().unwrap_or_default(), out)?;
    }
    Ok(())
}

fn tree<B: BufMut>(t: &Tree, out: &mut B) -> Result<(), EncodeError> {
    write::put_len(out, t.0.len(), "Tree")?;
    for (k, child) in &t.0 {
        encode_value(k, out)?;
        tree(child, out)?;
    }
    Ok(())
}

fn primitive<B: BufMut>(p: &PrimitivePdt, out: &mut B) -> Result<(), EncodeError> {
    let Some(code) = codes::primitive_code(&p.type_name) else {
        return Err(unrepresentable(
            "GraphBinary 1 value",
            format!("PrimitivePdt {:?} is no GraphBinary 1 type", p.type_name),
        ));
    };
    write::put_header(out, code);
    match code {
        codes::CLASS => write::put_str(out, &p.value),
        codes::INET_ADDRESS => {
            let ip: IpAddr = p.value.parse().map_err(|_| {
                unrepresentable("InetAddress", format!("{:?} is no IP address", p.value))
            })?;
            match ip {
                IpAddr::V4(a) => write::put_bytes(out, &a.octets(), "InetAddress"),
                IpAddr::V6(a) => write::put_bytes(out, &a.octets(), "InetAddress"),
            }
        }
        // The tokens: a fully-qualified String.
        _ => {
            write::put_header(out, codes::STRING);
            write::put_str(out, &p.value)
        }
    }
}

/// The fields of a composite PDT the reader produced.
struct Fields<'a>(&'a CompositePdt);

impl<'a> Fields<'a> {
    fn get(&self, name: &'static str) -> Result<&'a Value, EncodeError> {
        self.0.get(name).ok_or_else(|| {
            unrepresentable(
                "GraphBinary 1 value",
                format!("{} without field {name:?}", self.0.type_name),
            )
        })
    }
    fn wrong(&self, name: &'static str, want: &str) -> EncodeError {
        unrepresentable(
            "GraphBinary 1 value",
            format!("{} field {name:?} is not {want}", self.0.type_name),
        )
    }
    fn int(&self, name: &'static str) -> Result<i32, EncodeError> {
        match self.get(name)? {
            Value::Int(v) => Ok(*v),
            _ => Err(self.wrong(name, "an Int")),
        }
    }
    fn long(&self, name: &'static str) -> Result<i64, EncodeError> {
        match self.get(name)? {
            Value::Long(v) => Ok(*v),
            _ => Err(self.wrong(name, "a Long")),
        }
    }
    fn byte(&self, name: &'static str) -> Result<i8, EncodeError> {
        match self.get(name)? {
            Value::Byte(v) => Ok(*v),
            _ => Err(self.wrong(name, "a Byte")),
        }
    }
    fn str(&self, name: &'static str) -> Result<&'a str, EncodeError> {
        match self.get(name)? {
            Value::String(v) => Ok(v),
            _ => Err(self.wrong(name, "a String")),
        }
    }
    fn list(&self, name: &'static str) -> Result<&'a [Value], EncodeError> {
        match self.get(name)? {
            Value::List(v) => Ok(v),
            _ => Err(self.wrong(name, "a List")),
        }
    }
    fn map(&self, name: &'static str) -> Result<&'a [(Value, Value)], EncodeError> {
        match self.get(name)? {
            Value::Map(v) | Value::OrderedMap(v) => Ok(v),
            _ => Err(self.wrong(name, "a Map")),
        }
    }
}

/// Bytecode's instructions: a List of Lists `[name, args...]`.
fn instructions<B: BufMut>(list: &[Value], out: &mut B) -> Result<(), EncodeError> {
    write::put_len(out, list.len(), "Bytecode instructions")?;
    for step in list {
        let Value::List(parts) = step else {
            return Err(unrepresentable("Bytecode", "an instruction is not a List"));
        };
        let [Value::String(name), args @ ..] = parts.as_slice() else {
            return Err(unrepresentable(
                "Bytecode",
                "an instruction does not start with its name",
            ));
        };
        write::put_str(out, name)?;
        items_body(args, out, "Bytecode arguments")?;
    }
    Ok(())
}

fn metrics_body<B: BufMut>(f: &Fields<'_>, out: &mut B) -> Result<(), EncodeError> {
    write::put_str(out, f.str("id")?)?;
    write::put_str(out, f.str("name")?)?;
    out.put_i64(f.long("dur")?);
    map_body(f.map("counts")?, out)?;
    map_body(f.map("annotations")?, out)?;
    items_body(f.list("metrics")?, out, "Metrics list")
}

fn composite<B: BufMut>(p: &CompositePdt, out: &mut B) -> Result<(), EncodeError> {
    let Some(code) = codes::composite_code(&p.type_name) else {
        return Err(unrepresentable(
            "GraphBinary 1 value",
            format!(
                "CompositePdt {:?} is no GraphBinary 1 type (nor a registered custom type)",
                p.type_name
            ),
        ));
    };
    let f = Fields(p);
    write::put_header(out, code);
    match code {
        codes::BINDING => {
            write::put_str(out, f.str("key")?)?;
            encode_value(f.get("value")?, out)
        }
        codes::BYTECODE => {
            instructions(f.list("step")?, out)?;
            instructions(f.list("source")?, out)
        }
        codes::LAMBDA => {
            write::put_str(out, f.str("language")?)?;
            write::put_str(out, f.str("script")?)?;
            out.put_i32(f.int("arguments")?);
            Ok(())
        }
        codes::TRAVERSER => {
            out.put_i64(f.long("bulk")?);
            encode_value(f.get("value")?, out)
        }
        codes::P | codes::TEXT_P => {
            write::put_str(out, f.str("predicate")?)?;
            items_body(f.list("value")?, out, "P values")
        }
        codes::TRAVERSAL_STRATEGY => {
            match f.get("class")? {
                Value::PrimitivePdt(c) if c.type_name == "g:Class" => {
                    write::put_str(out, &c.value)?
                }
                _ => return Err(f.wrong("class", "a g:Class")),
            }
            map_body(f.map("configuration")?, out)
        }
        codes::METRICS => metrics_body(&f, out),
        codes::TRAVERSAL_METRICS => {
            out.put_i64(f.long("dur")?);
            items_body(f.list("metrics")?, out, "Metrics list")
        }
        codes::LOCAL_DATE => {
            out.put_i32(f.int("year")?);
            out.put_i8(f.byte("month")?);
            out.put_i8(f.byte("day")?);
            Ok(())
        }
        codes::LOCAL_DATE_TIME => {
            out.put_i32(f.int("year")?);
            out.put_i8(f.byte("month")?);
            out.put_i8(f.byte("day")?);
            out.put_i64(f.long("nanos")?);
            Ok(())
        }
        codes::LOCAL_TIME => {
            out.put_i64(f.long("nanos")?);
            Ok(())
        }
        codes::MONTH_DAY => {
            out.put_i8(f.byte("month")?);
            out.put_i8(f.byte("day")?);
            Ok(())
        }
        codes::OFFSET_TIME => {
            out.put_i64(f.long("nanos")?);
            out.put_i32(f.int("offset")?);
            Ok(())
        }
        codes::PERIOD => {
            out.put_i32(f.int("years")?);
            out.put_i32(f.int("months")?);
            out.put_i32(f.int("days")?);
            Ok(())
        }
        codes::YEAR => {
            out.put_i32(f.int("year")?);
            Ok(())
        }
        codes::YEAR_MONTH => {
            out.put_i32(f.int("year")?);
            out.put_i8(f.byte("month")?);
            Ok(())
        }
        codes::ZONE_OFFSET => {
            out.put_i32(f.int("seconds")?);
            Ok(())
        }
        other => Err(unrepresentable(
            "GraphBinary 1 value",
            format!("no writer for type code 0x{other:02x}"),
        )),
    }
}
