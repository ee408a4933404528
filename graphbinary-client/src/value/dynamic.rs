//! The dynamic [`Value`]: any fully-qualified GraphBinary 4 value, its conversions and its
//! equality. Its reader and writer are in `graphbinary4.rs`.

use graphbinary_core::Limits;
use uuid::Uuid;

use super::codes;
use super::{
    BigDecimal, BigInteger, CompositePdt, DateTime, Direction, Duration, Edge, Graph, Merge, Path,
    PrimitivePdt, Property, Tree, Vertex, VertexProperty, T,
};

/// Any GraphBinary 4 value, as it stands fully-qualified (`{type_code}{value_flag}{value}`).
///
/// Every form is kept so that a value re-encodes byte for byte: a typed null (`01 01`) is
/// [`Value::Null`] with its type code, distinct from the unspecified null (`FE 01`); a bulked
/// List and an ordered Map are variants of their own; Map keys may be any value and keep
/// their order.
///
/// Equality is structural: floats compare by their bits, so a NaN equals the same NaN and
/// `-0.0` differs from `0.0` (what matters for round trips).
///
/// # Example
///
/// ```
/// use graphbinary_client::value::Value;
///
/// let v = Value::from_bytes(&[0x01, 0x00, 0x00, 0x00, 0x00, 0x2a]).unwrap();
/// assert_eq!(v, Value::Int(42));
/// assert_eq!(v.to_bytes().unwrap(), [0x01, 0x00, 0x00, 0x00, 0x00, 0x2a]);
/// ```
// `repr(u64)`: the tag fills the first word and every payload starts at offset 8, so a move
// of a freshly decoded value copies whole words. With the default layout the small payloads
// (and the UUID) start at offset 1, and moving a value copied bytes 1..8 as two overlapping
// 4-byte loads that defeat store forwarding: 29% of the time of a streamed bulked response.
#[derive(Debug, Clone)]
#[repr(u64)]
pub enum Value {
    /// A null: `{type_code}{0x01}`. The type code is kept (`0xfe` for the unspecified null).
    Null(u8),
    /// Int (0x01).
    Int(i32),
    /// Long (0x02).
    Long(i64),
    /// String (0x03).
    String(String),
    /// DateTime (0x04).
    DateTime(DateTime),
    /// Double (0x07).
    Double(f64),
    /// Float (0x08).
    Float(f32),
    /// List (0x09), standard form (value flag 0x00).
    List(Vec<Value>),
    /// List (0x09), bulked form (value flag 0x02): each item with its bulk.
    BulkList(Vec<(Value, i64)>),
    /// Map (0x0a), unordered form (value flag 0x00). Entries in the order read.
    Map(Vec<(Value, Value)>),
    /// Map (0x0a), ordered form (value flag 0x02).
    OrderedMap(Vec<(Value, Value)>),
    /// Set (0x0b). Items in the order read.
    Set(Vec<Value>),
    /// UUID (0x0c).
    Uuid(Uuid),
    /// Edge (0x0d).
    Edge(Box<Edge>),
    /// Path (0x0e).
    Path(Box<Path>),
    /// Property (0x0f).
    Property(Box<Property>),
    /// Graph (0x10).
    Graph(Box<Graph>),
    /// Vertex (0x11).
    Vertex(Box<Vertex>),
    /// VertexProperty (0x12).
    VertexProperty(Box<VertexProperty>),
    /// Direction (0x18).
    Direction(Direction),
    /// T (0x20).
    T(T),
    /// BigDecimal (0x22).
    BigDecimal(Box<BigDecimal>),
    /// BigInteger (0x23).
    BigInteger(BigInteger),
    /// Byte (0x24), signed.
    Byte(i8),
    /// Binary (0x25).
    Binary(Vec<u8>),
    /// Short (0x26).
    Short(i16),
    /// Boolean (0x27).
    Boolean(bool),
    /// Tree (0x2b).
    Tree(Tree),
    /// Merge (0x2e).
    Merge(Merge),
    /// CompositePDT (0xf0): a provider-defined composite type.
    CompositePdt(Box<CompositePdt>),
    /// PrimitivePDT (0xf1): a provider-defined primitive type.
    PrimitivePdt(Box<PrimitivePdt>),
    /// Marker (0xfd): the end of a response's result data.
    Marker,
    /// Char (0x80).
    Char(char),
    /// Duration (0x81).
    Duration(Duration),
}

/// The limits every read uses unless told otherwise (those of
/// [`ReadOptions::default`](crate::protocol::http4::response::ReadOptions)): the core's, with a nesting limit of
/// 128 (the slow path uses a few KiB of stack per nesting level in an optimized build, so 128
/// levels stay well inside a 2 MiB thread stack).
pub(crate) const DEFAULT_LIMITS: Limits = Limits {
    max_depth: 128,
    ..Limits::DEFAULT
};

impl Value {
    /// The type code this value is written with.
    pub fn type_code(&self) -> u8 {
        match self {
            Value::Null(c) => *c,
            Value::Int(_) => codes::INT,
            Value::Long(_) => codes::LONG,
            Value::String(_) => codes::STRING,
            Value::DateTime(_) => codes::DATE_TIME,
            Value::Double(_) => codes::DOUBLE,
            Value::Float(_) => codes::FLOAT,
            Value::List(_) | Value::BulkList(_) => codes::LIST,
            Value::Map(_) | Value::OrderedMap(_) => codes::MAP,
            Value::Set(_) => codes::SET,
            Value::Uuid(_) => codes::UUID,
            Value::Edge(_) => codes::EDGE,
            Value::Path(_) => codes::PATH,
            Value::Property(_) => codes::PROPERTY,
            Value::Graph(_) => codes::GRAPH,
            Value::Vertex(_) => codes::VERTEX,
            Value::VertexProperty(_) => codes::VERTEX_PROPERTY,
            Value::Direction(_) => codes::DIRECTION,
            Value::T(_) => codes::T,
            Value::BigDecimal(_) => codes::BIG_DECIMAL,
            Value::BigInteger(_) => codes::BIG_INTEGER,
            Value::Byte(_) => codes::BYTE,
            Value::Binary(_) => codes::BINARY,
            Value::Short(_) => codes::SHORT,
            Value::Boolean(_) => codes::BOOLEAN,
            Value::Tree(_) => codes::TREE,
            Value::Merge(_) => codes::MERGE,
            Value::CompositePdt(_) => codes::COMPOSITE_PDT,
            Value::PrimitivePdt(_) => codes::PRIMITIVE_PDT,
            Value::Marker => codes::MARKER,
            Value::Char(_) => codes::CHAR,
            Value::Duration(_) => codes::DURATION,
        }
    }

    /// The name of this value's type, e.g. `"Int"`.
    pub fn type_name(&self) -> &'static str {
        codes::name(self.type_code()).unwrap_or("unknown")
    }

    /// Whether this is a null (typed or unspecified).
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null(_))
    }

    /// The string, if this is a String.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is a Byte, Short, Int or Long.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Byte(v) => Some(v.into()),
            Value::Short(v) => Some(v.into()),
            Value::Int(v) => Some(v.into()),
            Value::Long(v) => Some(v),
            _ => None,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value as V;
        match (self, other) {
            (V::Double(a), V::Double(b)) => a.to_bits() == b.to_bits(),
            (V::Float(a), V::Float(b)) => a.to_bits() == b.to_bits(),
            (V::Null(a), V::Null(b)) => a == b,
            (V::Int(a), V::Int(b)) => a == b,
            (V::Long(a), V::Long(b)) => a == b,
            (V::String(a), V::String(b)) => a == b,
            (V::DateTime(a), V::DateTime(b)) => a == b,
            (V::List(a), V::List(b)) | (V::Set(a), V::Set(b)) => a == b,
            (V::BulkList(a), V::BulkList(b)) => a == b,
            (V::Map(a), V::Map(b)) | (V::OrderedMap(a), V::OrderedMap(b)) => a == b,
            (V::Uuid(a), V::Uuid(b)) => a == b,
            (V::Edge(a), V::Edge(b)) => a == b,
            (V::Path(a), V::Path(b)) => a == b,
            (V::Property(a), V::Property(b)) => a == b,
            (V::Graph(a), V::Graph(b)) => a == b,
            (V::Vertex(a), V::Vertex(b)) => a == b,
            (V::VertexProperty(a), V::VertexProperty(b)) => a == b,
            (V::Direction(a), V::Direction(b)) => a == b,
            (V::T(a), V::T(b)) => a == b,
            (V::BigDecimal(a), V::BigDecimal(b)) => a == b,
            (V::BigInteger(a), V::BigInteger(b)) => a == b,
            (V::Byte(a), V::Byte(b)) => a == b,
            (V::Binary(a), V::Binary(b)) => a == b,
            (V::Short(a), V::Short(b)) => a == b,
            (V::Boolean(a), V::Boolean(b)) => a == b,
            (V::Tree(a), V::Tree(b)) => a == b,
            (V::Merge(a), V::Merge(b)) => a == b,
            (V::CompositePdt(a), V::CompositePdt(b)) => a == b,
            (V::PrimitivePdt(a), V::PrimitivePdt(b)) => a == b,
            (V::Marker, V::Marker) => true,
            (V::Char(a), V::Char(b)) => a == b,
            (V::Duration(a), V::Duration(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

from_variants!(Value:
    i8 => Byte, i16 => Short, i32 => Int, i64 => Long, f32 => Float, f64 => Double,
    bool => Boolean, String => String, &str => String, char => Char, Uuid => Uuid,
    DateTime => DateTime, Duration => Duration, BigInteger => BigInteger,
    Vertex => Vertex, Edge => Edge, VertexProperty => VertexProperty, Property => Property,
    Path => Path, Graph => Graph, Tree => Tree, Direction => Direction, T => T, Merge => Merge,
    BigDecimal => BigDecimal, CompositePdt => CompositePdt, PrimitivePdt => PrimitivePdt,
);

impl From<Box<BigDecimal>> for Value {
    fn from(v: Box<BigDecimal>) -> Self {
        Value::BigDecimal(v)
    }
}

from_string_ref_and_unsigned!(Value, BigInteger);

impl From<bytes::Bytes> for Value {
    /// A Binary.
    fn from(v: bytes::Bytes) -> Self {
        Value::Binary(v.to_vec())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    /// `None` is the unspecified null (`FE 01`).
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null(codes::UNSPECIFIED_NULL), Into::into)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    /// A List.
    fn from(v: Vec<T>) -> Self {
        Value::List(v.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Value>, const N: usize> From<[T; N]> for Value {
    /// A List.
    fn from(v: [T; N]) -> Self {
        Value::List(v.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Value> + Clone> From<&[T]> for Value {
    /// A List.
    fn from(v: &[T]) -> Self {
        Value::List(v.iter().cloned().map(Into::into).collect())
    }
}

impl<T: Into<Value>> From<std::collections::BTreeSet<T>> for Value {
    /// A Set, in the set's order.
    fn from(v: std::collections::BTreeSet<T>) -> Self {
        Value::Set(v.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Value>, S> From<std::collections::HashSet<T, S>> for Value {
    /// A Set, in the set's (arbitrary) order.
    fn from(v: std::collections::HashSet<T, S>) -> Self {
        Value::Set(v.into_iter().map(Into::into).collect())
    }
}

impl<K: Into<Value>, V: Into<Value>> From<std::collections::BTreeMap<K, V>> for Value {
    /// A Map, in the map's order.
    fn from(v: std::collections::BTreeMap<K, V>) -> Self {
        Value::Map(v.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

impl<K: Into<Value>, V: Into<Value>, S> From<std::collections::HashMap<K, V, S>> for Value {
    /// A Map, in the map's (arbitrary) order.
    fn from(v: std::collections::HashMap<K, V, S>) -> Self {
        Value::Map(v.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}
