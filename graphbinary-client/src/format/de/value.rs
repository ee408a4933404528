//! `Deserialize` and `Serialize` for [`Value`] and `Serialize` for the model's types.
//!
//! From this crate's deserializer a `Value` is decoded whole, keeping every detail; from any
//! other deserializer it is built from serde's data model (integers by width, strings, bytes,
//! sequences as Lists, maps as Maps, none/unit as the unspecified null).
//!
//! `Serialize` writes the same shapes the deserializer hands out (see the
//! [module](super) table), so serializing a `Value` into, say, `serde_json::Value` gives what
//! deserializing its bytes into `serde_json::Value` gives.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Error as _, Serialize, SerializeMap, SerializeSeq, SerializeStruct, Serializer};

use super::{STASH, VALUE_TOKEN};

/// How a model type is laid out in serde's data model (what `Serialize` writes for any
/// serializer but [`to_value`](super::to_value)'s, which takes the value itself).
trait Shape {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
}

thread_local! {
    /// Set by [`to_value`](super::to_value)'s serializer just before it serializes a
    /// [`VALUE_TOKEN`] newtype: the next [`Captured`] hands its value over instead.
    pub(crate) static CAPTURE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The value handed over.
    pub(crate) static CAPTURED: std::cell::Cell<Option<Value>> = const { std::cell::Cell::new(None) };
}

/// The inside of a model value's [`VALUE_TOKEN`] newtype: its [`Shape`], or, asked by
/// `to_value`, the value itself (so that a `Value` or a `DateTime` in a user's struct becomes
/// exactly that value, not the map its shape is).
struct Captured<'a, T>(&'a T);

impl<T: Shape + Clone + Into<Value>> Serialize for Captured<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if CAPTURE.with(|c| c.replace(false)) {
            CAPTURED.with(|c| c.set(Some(self.0.clone().into())));
            return s.serialize_unit();
        }
        self.0.shape(s)
    }
}

macro_rules! serialize_via_shape {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                // A transparent newtype for every other serializer (serde_json writes the
                // shape alone).
                s.serialize_newtype_struct(VALUE_TOKEN, &Captured(self))
            }
        }
    )*};
}
serialize_via_shape!(
    Value,
    Vertex,
    VertexProperty,
    Property,
    Edge,
    Path,
    Graph,
    Tree,
    DateTime,
    Duration,
    BigInteger,
    BigDecimal,
    CompositePdt,
    PrimitivePdt
);
use crate::value::{
    BigDecimal, BigInteger, CompositePdt, DateTime, Direction, Duration, Edge, Graph, Labels,
    Merge, Path, PrimitivePdt, Property, Tree, Value, Vertex, VertexProperty, T,
};

/// From this crate's deserializer ([`from_slice`](super::from_slice), the typed streams) a
/// `Value` is exactly what the `Value` reader decodes; from any other deserializer it is built
/// from serde's data model.
///
/// ```
/// use graphbinary_client::Value;
///
/// let bytes = [0x01, 0x01]; // a typed null (Int)
/// let v: Value = graphbinary_client::format::de::from_slice(&bytes).unwrap();
/// assert_eq!(v, Value::Null(0x01));
/// ```
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_newtype_struct(VALUE_TOKEN, ValueVisitor)
    }
}

pub(crate) struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Boolean(v))
    }
    fn visit_i8<E: de::Error>(self, v: i8) -> Result<Value, E> {
        Ok(Value::Byte(v))
    }
    fn visit_i16<E: de::Error>(self, v: i16) -> Result<Value, E> {
        Ok(Value::Short(v))
    }
    fn visit_i32<E: de::Error>(self, v: i32) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Long(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(match i64::try_from(v) {
            Ok(v) => Value::Long(v),
            Err(_) => Value::BigInteger(BigInteger::from(num_bigint::BigInt::from(v))),
        })
    }
    fn visit_u8<E: de::Error>(self, v: u8) -> Result<Value, E> {
        Ok(Value::Short(v.into()))
    }
    fn visit_u16<E: de::Error>(self, v: u16) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_u32<E: de::Error>(self, v: u32) -> Result<Value, E> {
        Ok(Value::Long(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.visit_u128(v.into())
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(match i64::try_from(v) {
            Ok(v) => Value::Long(v),
            Err(_) => Value::BigInteger(BigInteger::from(num_bigint::BigInt::from(v))),
        })
    }
    fn visit_f32<E: de::Error>(self, v: f32) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Double(v))
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<Value, E> {
        Ok(Value::Char(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Binary(v.to_vec()))
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Value, E> {
        Ok(Value::Binary(v))
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null(crate::value::codes::UNSPECIFIED_NULL))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.visit_none()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut v = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = a.next_element::<Value>()? {
            v.push(item);
        }
        Ok(Value::List(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        // This crate's deserializer has decoded the whole value already.
        if let Some(v) = STASH.with(|s| s.take()) {
            return Ok(v);
        }
        let mut v = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1024));
        while let Some(entry) = a.next_entry::<Value, Value>()? {
            v.push(entry);
        }
        Ok(Value::Map(v))
    }
}

// ---------------------------------------------------------------------------------------------
// Serialize

/// Writes the shapes this crate's deserializer hands out (see the [`de`](super) module): a
/// typed null as `none`, a bulked List with each item repeated by its bulk, a Map as a map
/// (keys of any type), a Vertex as a struct `{id, label, properties}`, and so on.
///
/// ```
/// use graphbinary_client::Value;
///
/// let v = Value::Map(vec![(Value::String("n".into()), Value::Int(1))]);
/// assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"n":1}"#);
/// ```
impl Shape for Value {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null(_) => s.serialize_none(),
            Value::Int(v) => s.serialize_i32(*v),
            Value::Long(v) => s.serialize_i64(*v),
            Value::String(v) => s.serialize_str(v),
            Value::DateTime(v) => v.serialize(s),
            Value::Double(v) => s.serialize_f64(*v),
            Value::Float(v) => s.serialize_f32(*v),
            Value::List(v) | Value::Set(v) => s.collect_seq(v),
            Value::BulkList(v) => {
                let mut total: u64 = 0;
                for (_, b) in v {
                    total = total.saturating_add((*b).max(0) as u64);
                }
                let limit = graphbinary_core::Limits::DEFAULT.max_collection_len as u64;
                if total > limit {
                    return Err(S::Error::custom(format!(
                        "a bulked List of {total} items (bulks expanded) exceeds {limit}"
                    )));
                }
                let mut seq = s.serialize_seq(Some(total as usize))?;
                for (item, bulk) in v {
                    for _ in 0..(*bulk).max(0) {
                        seq.serialize_element(item)?;
                    }
                }
                seq.end()
            }
            Value::Map(v) | Value::OrderedMap(v) => entries(s, v),
            Value::Uuid(v) => {
                let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
                s.serialize_str(v.hyphenated().encode_lower(&mut buf))
            }
            Value::Edge(v) => v.serialize(s),
            Value::Path(v) => v.serialize(s),
            Value::Property(v) => v.serialize(s),
            Value::Graph(v) => v.serialize(s),
            Value::Vertex(v) => v.serialize(s),
            Value::VertexProperty(v) => v.serialize(s),
            Value::Direction(v) => v.serialize(s),
            Value::T(v) => v.serialize(s),
            Value::BigDecimal(v) => v.serialize(s),
            Value::BigInteger(v) => v.serialize(s),
            Value::Byte(v) => s.serialize_i8(*v),
            Value::Binary(v) => s.serialize_bytes(v),
            Value::Short(v) => s.serialize_i16(*v),
            Value::Boolean(v) => s.serialize_bool(*v),
            Value::Tree(v) => v.serialize(s),
            Value::Merge(v) => v.serialize(s),
            Value::CompositePdt(v) => v.serialize(s),
            Value::PrimitivePdt(v) => v.serialize(s),
            Value::Marker => s.serialize_unit(),
            Value::Char(v) => s.serialize_char(*v),
            Value::Duration(v) => v.serialize(s),
        }
    }
}

fn entries<S: Serializer>(s: S, v: &[(Value, Value)]) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(v.len()))?;
    for (k, val) in v {
        m.serialize_entry(k, val)?;
    }
    m.end()
}

/// Labels: a sequence of strings.
impl Serialize for Labels {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|l| &**l))
    }
}

/// `{id, label, properties}`.
impl Shape for Vertex {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Vertex", 3)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("label", &self.label)?;
        st.serialize_field("properties", &self.properties)?;
        st.end()
    }
}

/// `{id, label, value, properties}`.
impl Shape for VertexProperty {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("VertexProperty", 4)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("label", &self.label)?;
        st.serialize_field("value", &self.value)?;
        st.serialize_field("properties", &self.properties)?;
        st.end()
    }
}

/// `{key, value}`.
impl Shape for Property {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Property", 2)?;
        st.serialize_field("key", &*self.key)?;
        st.serialize_field("value", &self.value)?;
        st.end()
    }
}

/// `{id, label, in_v_id, in_v_label, out_v_id, out_v_label, properties}`.
impl Shape for Edge {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Edge", 7)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("label", &self.label)?;
        st.serialize_field("in_v_id", &self.in_v_id)?;
        st.serialize_field("in_v_label", &self.in_v_label)?;
        st.serialize_field("out_v_id", &self.out_v_id)?;
        st.serialize_field("out_v_label", &self.out_v_label)?;
        st.serialize_field("properties", &self.properties)?;
        st.end()
    }
}

/// `{labels, objects}`.
impl Shape for Path {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Sets<'a>(&'a [graphbinary_core::Set<std::sync::Arc<str>>]);
        impl Serialize for Sets<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(
                    self.0
                        .iter()
                        .map(|set| set.0.iter().map(|l| &**l).collect::<Vec<&str>>()),
                )
            }
        }
        let mut st = s.serialize_struct("Path", 2)?;
        st.serialize_field("labels", &Sets(&self.labels))?;
        st.serialize_field("objects", &self.objects)?;
        st.end()
    }
}

/// `{vertices, edges}`.
impl Shape for Graph {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Graph", 2)?;
        st.serialize_field("vertices", &self.vertices)?;
        st.serialize_field("edges", &self.edges)?;
        st.end()
    }
}

/// A map of each key to its subtree.
impl Shape for Tree {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, child) in &self.0 {
            m.serialize_entry(k, child)?;
        }
        m.end()
    }
}

/// `{year, month, day, nanos, offset_seconds}`.
impl Shape for DateTime {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("DateTime", 5)?;
        st.serialize_field("year", &self.year)?;
        st.serialize_field("month", &self.month)?;
        st.serialize_field("day", &self.day)?;
        st.serialize_field("nanos", &self.nanos)?;
        st.serialize_field("offset_seconds", &self.offset_seconds)?;
        st.end()
    }
}

/// `{seconds, nanos}`.
impl Shape for Duration {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Duration", 2)?;
        st.serialize_field("seconds", &self.seconds)?;
        st.serialize_field("nanos", &self.nanos)?;
        st.end()
    }
}

macro_rules! by_name {
    ($($t:ty),*) => {$(
        /// The name on the wire, e.g. `"OUT"`, `"id"`, `"onCreate"`.
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    )*};
}
by_name!(Direction, T, Merge);

/// An `i64` when it fits, else an `i128` when it fits, else its decimal string.
impl Shape for BigInteger {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.to_bigint();
        if let Ok(v) = i64::try_from(&n) {
            return s.serialize_i64(v);
        }
        if let Ok(v) = i128::try_from(&n) {
            return s.serialize_i128(v);
        }
        s.collect_str(&n)
    }
}

/// Its decimal string, as Java's `BigDecimal.toString()`.
impl Shape for BigDecimal {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_java_string())
    }
}

/// The map of its fields (the type name is not written).
impl Shape for CompositePdt {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        entries(s, &self.fields)
    }
}

/// Its value string.
impl Shape for PrimitivePdt {
    fn shape<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.value)
    }
}

macro_rules! deserialize_via_value {
    ($($t:ty => $variant:ident $(($unbox:tt))?),* $(,)?) => {$(
        /// From this crate's deserializer, the value exactly as decoded (a typed result or a
        /// field of one); from another, what [`Value`]'s `Deserialize` builds, which must be
        /// of this type.
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                match Value::deserialize(d)? {
                    Value::$variant(v) => Ok(deserialize_via_value!(@unbox v $($unbox)?)),
                    other => Err(de::Error::custom(format!(
                        "expected a {}, found a {}",
                        stringify!($variant),
                        other.type_name()
                    ))),
                }
            }
        }
    )*};
    (@unbox $v:ident box) => { *$v };
    (@unbox $v:ident) => { $v };
}
deserialize_via_value!(
    Vertex => Vertex (box),
    Edge => Edge (box),
    VertexProperty => VertexProperty (box),
    Property => Property (box),
    Path => Path (box),
    Graph => Graph (box),
    Tree => Tree,
    DateTime => DateTime,
    Duration => Duration,
    BigInteger => BigInteger,
    BigDecimal => BigDecimal (box),
    CompositePdt => CompositePdt (box),
    PrimitivePdt => PrimitivePdt (box),
);
