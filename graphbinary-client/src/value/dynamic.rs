//! The dynamic [`Value`]: any fully-qualified GraphBinary 4 value, read by dispatching on its
//! type code.

// The slow paths spell out `impl Future + Send` so the Send bound is visible.
#![allow(clippy::manual_async_fn)]

use std::future::Future;
use std::pin::Pin;

use bytes::BufMut;
use graphbinary_core::{
    write, Cursor, Decode, DecodeError, Encode, EncodeError, ErrorKind, FastResult, FqDecode,
    FqEncode, Limits, ReadBuffer,
};
use tokio::io::AsyncRead;
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

    /// Decodes one whole fully-qualified value from `bytes`, which must hold exactly one.
    ///
    /// Errors name the byte offset from the start of `bytes`. The limits are those of
    /// [`ReadOptions::default`](crate::protocol::http4::response::ReadOptions).
    pub fn from_bytes(bytes: &[u8]) -> Result<Value, DecodeError> {
        Self::from_bytes_with(bytes, &DEFAULT_LIMITS)
    }

    /// [`Value::from_bytes`] with explicit limits.
    pub fn from_bytes_with(bytes: &[u8], limits: &Limits) -> Result<Value, DecodeError> {
        let mut interner = graphbinary_core::Interner::new();
        let mut cur = Cursor::new(bytes, 0, limits).with_interner(&mut interner);
        let v = complete(decode_value(&mut cur), bytes.len(), "the rest of the value")?;
        expect_end(&cur, bytes.len(), "value", "trailing bytes after the value")?;
        Ok(v)
    }

    /// Encodes this value fully-qualified.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        self.encode_fq(&mut out)?;
        Ok(out)
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

macro_rules! from_impls {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Self {
                Value::$v(v.into())
            }
        }
    )*};
}
from_impls!(
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

impl From<&String> for Value {
    fn from(v: &String) -> Self {
        Value::String(v.clone())
    }
}

impl From<u16> for Value {
    /// An Int (Java has no unsigned types).
    fn from(v: u16) -> Self {
        Value::Int(i32::from(v))
    }
}

impl From<u32> for Value {
    /// A Long.
    fn from(v: u32) -> Self {
        Value::Long(i64::from(v))
    }
}

impl From<u64> for Value {
    /// A Long when it fits, else a BigInteger.
    fn from(v: u64) -> Self {
        match i64::try_from(v) {
            Ok(n) => Value::Long(n),
            Err(_) => Value::BigInteger(BigInteger::from(num_bigint::BigInt::from(v))),
        }
    }
}

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

// ---------------------------------------------------------------------------------------------
// Headers

/// What a header announced: a present value (with its flag) or a null.
#[derive(Clone, Copy)]
pub(crate) enum Header {
    Null(u8),
    Value(u8, u8),
}

/// Reads and checks `{type_code}{value_flag}`.
#[inline]
pub(crate) fn read_header(cur: &mut Cursor<'_>) -> FastResult<Header> {
    // Both bytes at once, checked with one table look-up; anything else (fewer than two
    // bytes buffered, a bad code or flag) goes the byte-by-byte way, which names the error.
    match cur.remaining() {
        &[code, flag, ..] if codes::allows_flag(code, flag) => {
            cur.read_array::<2>()?;
            Ok(if flag == 0x01 {
                Header::Null(code)
            } else {
                Header::Value(code, flag)
            })
        }
        _ => read_header_checked(cur),
    }
}

/// [`read_header`] a byte at a time: "need more" after the code, or the error at the byte
/// that is wrong.
#[cold]
fn read_header_checked(cur: &mut Cursor<'_>) -> FastResult<Header> {
    let at = cur.offset();
    let code = cur.read_u8()?;
    let Some(what) = codes::name(code) else {
        return Err(cur.error_at(at, ErrorKind::UnknownTypeCode { code }));
    };
    let flag = cur.read_u8()?;
    // The flags each type allows come from `spec/types.toml`.
    if !codes::allows_flag(code, flag) {
        let what = if code == codes::UNSPECIFIED_NULL {
            "unspecified null (only 0x01 is allowed)"
        } else {
            what
        };
        return Err(cur.error_at(at + 1, ErrorKind::InvalidValueFlag { what, flag }));
    }
    Ok(if flag == 0x01 {
        Header::Null(code)
    } else {
        Header::Value(code, flag)
    })
}

/// Reads a fully-qualified, non-null String (the layout of enums and PDT type names).
#[inline]
pub(crate) fn read_fq_str<'a>(cur: &mut Cursor<'a>, what: &'static str) -> FastResult<&'a str> {
    cur.expect_fq_non_null(codes::STRING, what)?;
    cur.read_str()
}

/// Slow-path [`read_fq_str`] (streams long strings).
pub(crate) async fn read_fq_string<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
) -> Result<String, DecodeError> {
    buf.read_with(|cur| cur.expect_fq_non_null(codes::STRING, what), what)
        .await?;
    buf.read::<String>().await
}

pub(crate) fn put_fq_str<B: BufMut>(out: &mut B, s: &str) -> Result<(), EncodeError> {
    write::put_header(out, codes::STRING);
    write::put_str(out, s)
}

// ---------------------------------------------------------------------------------------------
// Fast path

/// Reads `{count}` and the count's fully-qualified values; `min_item` is the smallest number of
/// bytes one item can take, so that a count that cannot be buffered bails out at once.
#[inline]
fn decode_values(cur: &mut Cursor<'_>, what: &'static str) -> FastResult<Vec<Value>> {
    cur.enter()?;
    let v = cur.read_counted(what, 2, decode_value)?;
    cur.leave();
    Ok(v)
}

#[inline]
fn decode_bulk_items(cur: &mut Cursor<'_>) -> FastResult<Vec<(Value, i64)>> {
    cur.enter()?;
    let v = cur.read_counted("List", 10, |cur| Ok((decode_value(cur)?, cur.read_i64()?)))?;
    cur.leave();
    Ok(v)
}

#[inline]
pub(crate) fn decode_entries(cur: &mut Cursor<'_>) -> FastResult<Vec<(Value, Value)>> {
    cur.enter()?;
    let v = cur.read_counted("Map", 4, |cur| Ok((decode_value(cur)?, decode_value(cur)?)))?;
    cur.leave();
    Ok(v)
}

/// Fast path: one whole fully-qualified value.
///
/// The arms that build larger values call out to small functions, so that this frame (one
/// per nesting level) stays small.
pub(crate) fn decode_value(cur: &mut Cursor<'_>) -> FastResult<Value> {
    let (code, flag) = match read_header(cur)? {
        Header::Null(code) => return Ok(Value::Null(code)),
        Header::Value(code, flag) => (code, flag),
    };
    match code {
        codes::INT => Ok(Value::Int(cur.read_i32()?)),
        codes::LONG => Ok(Value::Long(cur.read_i64()?)),
        codes::STRING => Ok(Value::String(cur.read_str()?.to_owned())),
        codes::DOUBLE => Ok(Value::Double(cur.read_f64()?)),
        codes::FLOAT => Ok(Value::Float(cur.read_f32()?)),
        codes::UUID => Ok(Value::Uuid(cur.read_uuid()?)),
        codes::BYTE => Ok(Value::Byte(cur.read_i8()?)),
        codes::SHORT => Ok(Value::Short(cur.read_i16()?)),
        codes::BOOLEAN => Ok(Value::Boolean(cur.read_bool()?)),
        codes::CHAR => Ok(Value::Char(cur.read_char()?)),
        _ => decode_structured(cur, code, flag),
    }
}

/// Stack kept free below each structured value: when less remains, the next levels run on a
/// fresh heap-allocated stack segment of [`STACK_SEGMENT`] bytes (see [`stacker`]). Together
/// with the depth limit this makes the readers safe on any thread stack, also in unoptimized
/// builds, where one nesting level can take tens of KiB of stack.
const RED_ZONE: usize = 128 * 1024;
/// Size of each extra stack segment.
const STACK_SEGMENT: usize = 2 * 1024 * 1024;

#[inline(never)]
fn decode_structured(cur: &mut Cursor<'_>, code: u8, flag: u8) -> FastResult<Value> {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
        decode_structured_here(cur, code, flag)
    })
}

fn decode_structured_here(cur: &mut Cursor<'_>, code: u8, flag: u8) -> FastResult<Value> {
    match code {
        codes::DATE_TIME => Ok(Value::DateTime(DateTime::decode(cur)?)),
        codes::LIST if flag == 0x02 => decode_bulk_items(cur).map(Value::BulkList),
        codes::LIST => decode_values(cur, "List").map(Value::List),
        codes::MAP if flag == 0x02 => decode_entries(cur).map(Value::OrderedMap),
        codes::MAP => decode_entries(cur).map(Value::Map),
        codes::SET => decode_values(cur, "Set").map(Value::Set),
        codes::EDGE => nested(cur, Value::Edge),
        codes::PATH => nested(cur, Value::Path),
        codes::PROPERTY => nested(cur, Value::Property),
        codes::GRAPH => boxed(cur, Value::Graph),
        codes::VERTEX => nested(cur, Value::Vertex),
        codes::VERTEX_PROPERTY => nested(cur, Value::VertexProperty),
        codes::DIRECTION => Direction::decode(cur).map(Value::Direction),
        codes::T => T::decode(cur).map(Value::T),
        codes::BIG_DECIMAL => boxed(cur, Value::BigDecimal),
        codes::BIG_INTEGER => BigInteger::decode(cur).map(Value::BigInteger),
        codes::BINARY => Ok(Value::Binary(cur.read_len_prefixed("Binary")?.to_vec())),
        codes::TREE => Tree::decode(cur).map(Value::Tree),
        codes::MERGE => Merge::decode(cur).map(Value::Merge),
        codes::COMPOSITE_PDT => boxed(cur, Value::CompositePdt),
        codes::PRIMITIVE_PDT => boxed(cur, Value::PrimitivePdt),
        codes::MARKER => decode_marker_value(cur).map(|()| Value::Marker),
        codes::DURATION => Duration::decode(cur).map(Value::Duration),
        // read_header admits only the codes handled here and in decode_value.
        other => Err(cur.error(ErrorKind::UnknownTypeCode { code: other })),
    }
}

/// Decodes a `T` straight into its box.
#[inline]
fn boxed<T: Decode>(cur: &mut Cursor<'_>, wrap: fn(Box<T>) -> Value) -> FastResult<Value> {
    T::decode(cur).map(|v| wrap(Box::new(v)))
}

/// Decodes a structured element (one that holds further values) into its box, counting it as
/// one nesting level: the depth is checked before recursing, so no input can overflow the
/// stack.
#[inline]
fn nested<T: Decode>(cur: &mut Cursor<'_>, wrap: fn(Box<T>) -> Value) -> FastResult<Value> {
    cur.enter()?;
    let v = T::decode(cur)?;
    cur.leave();
    Ok(wrap(Box::new(v)))
}

/// The Marker's 1-byte value, which must be 0x00.
pub(crate) fn decode_marker_value(cur: &mut Cursor<'_>) -> FastResult<()> {
    let at = cur.offset();
    match cur.read_u8()? {
        0 => Ok(()),
        b => Err(cur.error_at(
            at,
            ErrorKind::Invalid {
                what: "Marker",
                detail: format!("value byte 0x{b:02x}, expected 0x00"),
            },
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Slow path

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

async fn read_values_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
) -> Result<Vec<Value>, DecodeError> {
    buf.enter()?;
    let n = buf.read_count(what).await?;
    let mut v = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        v.push(buf.read::<Value>().await?);
    }
    buf.leave();
    Ok(v)
}

pub(crate) async fn read_entries_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<Vec<(Value, Value)>, DecodeError> {
    buf.enter()?;
    let n = buf.read_count("Map").await?;
    let mut v = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        let k = buf.read::<Value>().await?;
        let val = buf.read::<Value>().await?;
        v.push((k, val));
    }
    buf.leave();
    Ok(v)
}

/// Slow path: a fully-qualified value read piece by piece; every piece re-enters the fast path.
///
/// Each nesting level costs one boxed future here and one in [`read_body_slow`], so that the
/// stack used while polling a deeply nested value stays small per level (the frame of this
/// future's `poll` holds only the header read and a pointer); the depth limit bounds the
/// number of levels.
pub(crate) fn read_value_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> GrowStack<BoxFuture<'_, Result<Value, DecodeError>>> {
    GrowStack(Box::pin(async move {
        match buf
            .read_with(read_header, "type code and value flag")
            .await?
        {
            Header::Null(code) => Ok(Value::Null(code)),
            Header::Value(code, flag) => read_body_slow(buf, code, flag).await,
        }
    }))
}

/// A future polled on a fresh stack segment when the current stack runs low (the slow-path
/// counterpart of [`decode_structured`]'s [`stacker::maybe_grow`]): polling a value nested
/// `n` deep polls `n` futures inside one another.
pub(crate) struct GrowStack<F>(pub(crate) F);

impl<F: Future + Unpin> Future for GrowStack<F> {
    type Output = F::Output;
    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let inner = &mut self.0;
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || Pin::new(inner).poll(cx))
    }
}

/// Reads a structured element (one that holds further values) on the slow path, counting it
/// as one nesting level.
async fn nested_slow<R: AsyncRead + Unpin + Send, T: Decode>(
    buf: &mut ReadBuffer<R>,
) -> Result<Box<T>, DecodeError> {
    buf.enter()?;
    let v = T::decode_slow(buf).await?;
    buf.leave();
    Ok(Box::new(v))
}

/// Slow path: the value after its header. Every arm is its own boxed future, so no arm's
/// state or temporaries weigh on the stack of another (which matters for deep nesting in
/// unoptimized builds).
pub(crate) fn read_body_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    code: u8,
    flag: u8,
) -> BoxFuture<'_, Result<Value, DecodeError>> {
    macro_rules! arm {
        ($e:expr) => {
            Box::pin(async move { Ok($e) })
        };
    }
    match code {
        codes::INT => arm!(Value::Int(buf.read().await?)),
        codes::LONG => arm!(Value::Long(buf.read().await?)),
        codes::STRING => arm!(Value::String(buf.read().await?)),
        codes::DATE_TIME => arm!(Value::DateTime(buf.read().await?)),
        codes::DOUBLE => arm!(Value::Double(buf.read().await?)),
        codes::FLOAT => arm!(Value::Float(buf.read().await?)),
        codes::LIST if flag == 0x02 => arm!({
            buf.enter()?;
            let n = buf.read_count("List").await?;
            let mut v = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let item = buf.read::<Value>().await?;
                let bulk = buf.read::<i64>().await?;
                v.push((item, bulk));
            }
            buf.leave();
            Value::BulkList(v)
        }),
        codes::LIST => arm!(Value::List(read_values_slow(buf, "List").await?)),
        codes::MAP if flag == 0x02 => arm!(Value::OrderedMap(read_entries_slow(buf).await?)),
        codes::MAP => arm!(Value::Map(read_entries_slow(buf).await?)),
        codes::SET => arm!(Value::Set(read_values_slow(buf, "Set").await?)),
        codes::UUID => arm!(Value::Uuid(buf.read().await?)),
        codes::EDGE => arm!(Value::Edge(nested_slow(buf).await?)),
        codes::PATH => arm!(Value::Path(nested_slow(buf).await?)),
        codes::PROPERTY => arm!(Value::Property(nested_slow(buf).await?)),
        codes::GRAPH => arm!(Value::Graph(Box::new(Graph::decode_slow(buf).await?))),
        codes::VERTEX => arm!(Value::Vertex(nested_slow(buf).await?)),
        codes::VERTEX_PROPERTY => arm!(Value::VertexProperty(nested_slow(buf).await?)),
        codes::DIRECTION => arm!(Value::Direction(buf.read().await?)),
        codes::T => arm!(Value::T(buf.read().await?)),
        codes::BIG_DECIMAL => arm!(Value::BigDecimal(Box::new(buf.read().await?))),
        codes::BIG_INTEGER => arm!(Value::BigInteger(buf.read().await?)),
        codes::BYTE => arm!(Value::Byte(buf.read().await?)),
        codes::BINARY => arm!(Value::Binary(buf.read_len_prefixed("Binary").await?)),
        codes::SHORT => arm!(Value::Short(buf.read().await?)),
        codes::BOOLEAN => arm!(Value::Boolean(buf.read().await?)),
        codes::TREE => arm!(Value::Tree(Tree::decode_slow(buf).await?)),
        codes::MERGE => arm!(Value::Merge(buf.read().await?)),
        codes::COMPOSITE_PDT => {
            arm!(Value::CompositePdt(Box::new(
                CompositePdt::decode_slow(buf).await?
            )))
        }
        codes::PRIMITIVE_PDT => {
            arm!(Value::PrimitivePdt(Box::new(
                PrimitivePdt::decode_slow(buf).await?
            )))
        }
        codes::MARKER => arm!({
            buf.read_with(decode_marker_value, "Marker").await?;
            Value::Marker
        }),
        codes::CHAR => arm!(Value::Char(buf.read().await?)),
        codes::DURATION => arm!(Value::Duration(buf.read().await?)),
        other => {
            let e = buf.error(ErrorKind::UnknownTypeCode { code: other });
            Box::pin(async move { Err(e) })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Writer

fn encode_values<B: BufMut>(
    out: &mut B,
    items: &[Value],
    what: &'static str,
) -> Result<(), EncodeError> {
    write::put_len(out, items.len(), what)?;
    for v in items {
        v.encode_fq(out)?;
    }
    Ok(())
}

pub(crate) fn encode_entries<B: BufMut>(
    out: &mut B,
    entries: &[(Value, Value)],
) -> Result<(), EncodeError> {
    write::put_len(out, entries.len(), "Map")?;
    for (k, v) in entries {
        k.encode_fq(out)?;
        v.encode_fq(out)?;
    }
    Ok(())
}

impl FqEncode for Value {
    fn encode_fq<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        let code = self.type_code();
        match self {
            Value::Null(c) => {
                write::put_null(out, *c);
                return Ok(());
            }
            Value::BulkList(_) | Value::OrderedMap(_) => {
                out.put_u8(code);
                out.put_u8(0x02);
            }
            _ => write::put_header(out, code),
        }
        match self {
            Value::Null(_) => Ok(()),
            Value::Int(v) => v.encode(out),
            Value::Long(v) => v.encode(out),
            Value::String(v) => write::put_str(out, v),
            Value::DateTime(v) => v.encode(out),
            Value::Double(v) => v.encode(out),
            Value::Float(v) => v.encode(out),
            Value::List(v) => encode_values(out, v, "List"),
            Value::BulkList(v) => {
                write::put_len(out, v.len(), "List")?;
                for (item, bulk) in v {
                    item.encode_fq(out)?;
                    out.put_i64(*bulk);
                }
                Ok(())
            }
            Value::Map(v) | Value::OrderedMap(v) => encode_entries(out, v),
            Value::Set(v) => encode_values(out, v, "Set"),
            Value::Uuid(v) => v.encode(out),
            Value::Edge(v) => v.encode(out),
            Value::Path(v) => v.encode(out),
            Value::Property(v) => v.encode(out),
            Value::Graph(v) => v.encode(out),
            Value::Vertex(v) => v.encode(out),
            Value::VertexProperty(v) => v.encode(out),
            Value::Direction(v) => v.encode(out),
            Value::T(v) => v.encode(out),
            Value::BigDecimal(v) => v.encode(out),
            Value::BigInteger(v) => v.encode(out),
            Value::Byte(v) => v.encode(out),
            Value::Binary(v) => write::put_bytes(out, v, "Binary"),
            Value::Short(v) => v.encode(out),
            Value::Boolean(v) => v.encode(out),
            Value::Tree(v) => v.encode(out),
            Value::Merge(v) => v.encode(out),
            Value::CompositePdt(v) => v.encode(out),
            Value::PrimitivePdt(v) => v.encode(out),
            Value::Marker => {
                out.put_u8(0);
                Ok(())
            }
            Value::Char(v) => v.encode(out),
            Value::Duration(v) => v.encode(out),
        }
    }
}

impl FqDecode for Value {
    const EXPECTED: &'static str = "fully-qualified value";
    #[inline]
    fn decode_fq(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_value(cur)
    }
    fn decode_fq_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        read_value_slow(buf)
    }
}

/// A `Value` field stands fully-qualified: its bare form is its fully-qualified form.
impl Decode for Value {
    const EXPECTED: &'static str = "fully-qualified value";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_value(cur)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        read_value_slow(buf)
    }
}

impl Encode for Value {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.encode_fq(out)
    }
}

/// Turns a fast-path result over bytes that are all there is into a plain result: "need more"
/// is the end of the input at `end`.
pub(crate) fn complete<T>(
    r: FastResult<T>,
    end: usize,
    expected: &'static str,
) -> Result<T, DecodeError> {
    match r {
        Ok(v) => Ok(v),
        Err(graphbinary_core::FastError::Invalid(e)) => Err(e),
        Err(graphbinary_core::FastError::NeedMore(_)) => Err(DecodeError::new(
            end as u64,
            ErrorKind::UnexpectedEof { expected },
        )),
    }
}

/// Ok when `cur` has read all `len` bytes of its slice (one whole `what`); otherwise an error
/// at the first byte left over, "`{n} {left}`" (e.g. `3 trailing bytes after the value`).
pub(crate) fn expect_end(
    cur: &Cursor<'_>,
    len: usize,
    what: &'static str,
    left: &str,
) -> Result<(), DecodeError> {
    if cur.position() == len {
        return Ok(());
    }
    Err(DecodeError::new(
        cur.offset(),
        ErrorKind::Invalid {
            what,
            detail: format!("{} {left}", len - cur.position()),
        },
    ))
}
