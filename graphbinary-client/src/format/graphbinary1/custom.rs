//! GraphBinary 1 custom types (type code 0x00): readers and writers registered by type name
//! ([`CustomTypes`]), JanusGraph's `janusgraph.RelationIdentifier` as the first
//! ([`RelationIdentifier`]), and the per-call context the reader consults for them.
//!
//! A custom value is `{0x00}{name String}{what the provider's serializer writes}`: its length
//! is nowhere on the wire, so an unknown one cannot be skipped. Without a reader registered for
//! its name it is an error naming the name and the offset; with one, the reader decodes what
//! follows the name into a [`Value`] (a [`CompositePdt`] named by the custom type's name, by
//! convention) and the writer writes such a value back.
//!
//! The registry reaches the reader through a thread-local context set for the duration of one
//! call ([`decode_slice_with`](super::decode_slice_with),
//! [`decode_response_with`](super::decode_response_with), [`read_value_with`](super::read_value_with),
//! [`encode_value_with`](super::encode_value_with)); the derived element readers, which know
//! nothing of it, find it there too.

// The leaf's slow path spells out `impl Future + Send`, as the traits do.
#![allow(clippy::manual_async_fn)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::BufMut;
use graphbinary_core::v1::{
    decode_custom_v1_body, encode_custom_v1_body, CustomV1, DecodeV1, EncodeV1, SentinelV1,
};
use graphbinary_core::{
    write, Cursor, DecodeError, EncodeError, ErrorKind, FastResult, ReadBuffer,
};
use graphbinary_derive::GraphBinary;
use tokio::io::AsyncRead;

use super::codes;
use crate::value::{CompositePdt, Value};

/// A provider's custom type: how to read and write what follows its name.
pub trait CustomType: Send + Sync + 'static {
    /// The type name on the wire, e.g. `janusgraph.RelationIdentifier`.
    fn name(&self) -> &'static str;

    /// Reads what follows the name (`{custom_type_info}{value_flag}{value}` for JanusGraph's
    /// types) from buffered bytes. "Need more" as for any fast-path read; an error names its
    /// absolute offset.
    fn decode(&self, cur: &mut Cursor<'_>) -> FastResult<Value>;

    /// Writes what follows the name for `value` (a value [`CustomType::decode`] produced), or
    /// [`EncodeError::Unrepresentable`] for any other.
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError>;
}

/// The custom types a reader knows, by name. Cheap to clone (shared).
///
/// ```
/// use graphbinary_client::format::graphbinary1::{decode_slice_with, CustomTypes};
/// use graphbinary_client::graphbinary_core::Limits;
///
/// // An edge id as JanusGraph 1.1 writes it: `00 {name}{Int 0x1001}{00}` then the id.
/// let name = b"janusgraph.RelationIdentifier";
/// let mut bytes = vec![0x00, 0, 0, 0, name.len() as u8];
/// bytes.extend_from_slice(name);
/// bytes.extend_from_slice(&[0, 0, 0x10, 0x01, 0x00]);
/// bytes.extend_from_slice(&[0x00, 0, 0, 0, 0, 0, 0, 0x10, 0x08]); // out vertex: Long 4104
/// bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0x0c, 0x2d]); // type id
/// bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0x01, 0xc1]); // relation id
/// bytes.extend_from_slice(&[0x00, 0, 0, 0, 0, 0, 0, 0x20, 0x10]); // in vertex: Long 8208
///
/// // Without a reader it is an error; with JanusGraph's, an id.
/// assert!(decode_slice_with(&bytes, &Limits::default(), &CustomTypes::new()).is_err());
/// let id = decode_slice_with(&bytes, &Limits::default(), &CustomTypes::janusgraph()).unwrap();
/// let rel = graphbinary_client::format::graphbinary1::RelationIdentifier::from_value(&id).unwrap();
/// assert_eq!(rel.relation_id, 0x1c1);
/// ```
#[derive(Clone, Default)]
pub struct CustomTypes(Arc<HashMap<&'static str, Arc<dyn CustomType>>>);

impl CustomTypes {
    /// No custom types: every custom value is an error.
    pub fn new() -> Self {
        Self::default()
    }

    /// JanusGraph's types this crate reads and writes: `janusgraph.RelationIdentifier`
    /// ([`RelationIdentifier`]), `janusgraph.Geoshape` ([`Geoshape`](super::Geoshape)) and
    /// `janusgraph.P` ([`JanusGraphP`](super::JanusGraphP), the text and geo predicates).
    ///
    /// The client, the CLI, the console and the functions without `_with`
    /// ([`decode_slice`](super::decode_slice), [`read_value`](super::read_value)) read and
    /// write these by default, as the Java driver does with JanusGraph's IO registry; [`CustomTypes::new`] knows none.
    /// Shared: every call returns the same registry.
    pub fn janusgraph() -> Self {
        static JANUSGRAPH: std::sync::OnceLock<CustomTypes> = std::sync::OnceLock::new();
        JANUSGRAPH
            .get_or_init(|| {
                Self::new()
                    .with(RelationIdentifierType)
                    .with(super::janusgraph::GeoshapeType)
                    .with(super::janusgraph::JanusGraphPType)
            })
            .clone()
    }

    /// Adds (or replaces) the reader and writer of `t.name()`.
    pub fn with(mut self, t: impl CustomType) -> Self {
        Arc::make_mut(&mut self.0).insert(t.name(), Arc::new(t));
        self
    }

    /// Adds (or replaces) the reader and writer of a derived custom type
    /// ([`DerivedCustom`]`<T>`, under [`CustomV1::CUSTOM_NAME`]).
    pub fn with_derived<T: CustomValue>(self) -> Self {
        self.with(DerivedCustom::<T>::new())
    }

    /// The type registered for `name`.
    pub fn get(&self, name: &str) -> Option<&dyn CustomType> {
        self.0.get(name).map(|t| &**t)
    }

    /// The registered names, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v: Vec<_> = self.0.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

impl fmt::Debug for CustomTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CustomTypes").field(&self.names()).finish()
    }
}

// ---------------------------------------------------------------------------------------------
// The per-call context.

#[derive(Default)]
struct Ctx {
    custom: CustomTypes,
}

thread_local! {
    static CTX: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// Runs `f` with `custom` as the context of the reader and writer on this thread, restoring
/// the previous context afterwards (also on panic).
pub(crate) fn scoped<T>(custom: &CustomTypes, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Ctx>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            CTX.with(|c| *c.borrow_mut() = prev);
        }
    }
    let ctx = Ctx {
        custom: custom.clone(),
    };
    let prev = CTX.with(|c| c.borrow_mut().replace(ctx));
    let _restore = Restore(prev);
    f()
}

/// A future run with a context: the context is installed around each poll of `fut`, so that
/// it holds however the future moves between threads.
pub(crate) struct WithCustom<F> {
    custom: CustomTypes,
    fut: Pin<Box<F>>,
}

impl<F> WithCustom<F> {
    pub(crate) fn new(custom: &CustomTypes, fut: F) -> Self {
        WithCustom {
            custom: custom.clone(),
            fut: Box::pin(fut),
        }
    }
}

impl<F: Future> Future for WithCustom<F> {
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        let fut = &mut this.fut;
        scoped(&this.custom, || fut.as_mut().poll(cx))
    }
}

/// The custom type registered for `name` in the current context.
pub(crate) fn lookup(name: &str) -> Option<Arc<dyn CustomType>> {
    CTX.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|ctx| ctx.custom.0.get(name).cloned())
    })
}

/// The custom type a `CompositePdt` named `name` belongs to, for the writer.
pub(crate) fn lookup_for_write(name: &str) -> Option<Arc<dyn CustomType>> {
    lookup(name)
}

/// `{0x00}{name}`: reads a custom value through the context's reader for `name`, or fails
/// naming the name and the offset.
pub(crate) fn decode_custom(cur: &mut Cursor<'_>, at: u64) -> FastResult<Value> {
    let name = cur.read_str()?;
    let Some(t) = lookup(name) else {
        return Err(cur.error_at(
            at,
            ErrorKind::Invalid {
                what: "GraphBinary 1 custom type",
                detail: format!(
                    "custom type {name:?} (type code 0x00) at offset {at} has no reader; its value \
                     is not self-delimiting"
                ),
            },
        ));
    };
    t.decode(cur)
}

// ---------------------------------------------------------------------------------------------
// Derived custom types.

/// A custom type derived with `#[derive(GraphBinary)]` and
/// `#[graphbinary(v1_custom = "name", v1_custom_info = ..)]` (its GraphBinary 1 layout,
/// [`CustomV1`]), together with the [`Value`] it stands for: by convention a
/// [`CompositePdt`] named by the custom type's name. [`DerivedCustom`] makes it a
/// [`CustomType`] to register ([`CustomTypes::with_derived`]).
pub trait CustomValue: CustomV1 + Send + Sync + 'static {
    /// As the `Value` the reader produces.
    fn to_value(&self) -> Value;
    /// From that `Value`: `None` for any other value.
    fn from_value(value: &Value) -> Option<Self>;
}

/// The [`CustomType`] of a derived custom type `T`: its name is [`CustomV1::CUSTOM_NAME`],
/// the derived reader reads what follows the name (a null, value flag `0x01`, reads as
/// `Value::Null(0x00)`) and [`CustomValue::to_value`] turns it into a `Value`; the writer
/// writes [`CustomValue::from_value`] back with the derived writer.
pub struct DerivedCustom<T>(PhantomData<fn() -> T>);

impl<T> DerivedCustom<T> {
    /// The reader and writer of `T`.
    pub const fn new() -> Self {
        DerivedCustom(PhantomData)
    }
}

impl<T> Default for DerivedCustom<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for DerivedCustom<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DerivedCustom<T> {}

impl<T: CustomV1> fmt::Debug for DerivedCustom<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DerivedCustom")
            .field(&T::CUSTOM_NAME)
            .finish()
    }
}

impl<T: CustomValue> CustomType for DerivedCustom<T> {
    fn name(&self) -> &'static str {
        T::CUSTOM_NAME
    }

    #[inline]
    fn decode(&self, cur: &mut Cursor<'_>) -> FastResult<Value> {
        Ok(match decode_custom_v1_body::<T>(cur)? {
            Some(v) => v.to_value(),
            None => Value::Null(codes::CUSTOM),
        })
    }

    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let v = T::from_value(value).ok_or_else(|| EncodeError::Unrepresentable {
            what: T::EXPECTED,
            detail: format!("{} is no {}", value.type_name(), T::CUSTOM_NAME),
        })?;
        encode_custom_v1_body(Some(&v), out)
    }
}

// ---------------------------------------------------------------------------------------------
// JanusGraph's RelationIdentifier.

/// The id of a JanusGraph edge or vertex property (`janusgraph.RelationIdentifier`, custom type
/// info `0x1001`), as JanusGraph 1.x writes it (`RelationIdentifierGraphBinarySerializer`):
///
/// `{Int 0x1001}{value_flag}{out vertex id}{type id Long}{relation id Long}{in vertex id}`,
/// each vertex id `{marker Byte}` then a `Long` (marker 0) or an ASCII string whose last byte
/// has its high bit set (marker 1); an in-vertex id of Long 0 means none (a vertex property's id).
///
/// Read as a [`Value::CompositePdt`] named `janusgraph.RelationIdentifier` with the fields
/// `outVertexId`, `typeId`, `relationId`, `inVertexId` (Long, String or null);
/// [`RelationIdentifier::from_value`] turns that into this struct.
///
/// Its layout is derived (`#[graphbinary(v1_custom = "janusgraph.RelationIdentifier",
/// v1_custom_info = 0x1001)]`): the derive writes the fast reader, the field-by-field slow
/// reader and the writer of the fields in order, and [`CustomV1`]. The marker-tagged vertex
/// ids are the leaf [`JanusVertexId`], whose `DecodeV1` / `EncodeV1` are written by hand as
/// the primitives' are; the missing in-vertex id is its sentinel (`v1 = "sentinel"`, Long 0).
/// The mapping onto [`Value`] ([`RelationIdentifier::to_value`], `from_value`) is by hand.
///
/// ```
/// use graphbinary_client::graphbinary_core::v1::{DecodeV1, EncodeV1};
/// use graphbinary_client::graphbinary_core::{Cursor, Limits};
/// use graphbinary_client::format::graphbinary1::{JanusVertexId, RelationIdentifier};
///
/// // A vertex property's id: out vertex Long 4104, no in vertex (Long 0).
/// let r = RelationIdentifier {
///     out_vertex_id: JanusVertexId::Long(4104),
///     type_id: 0xc2d,
///     relation_id: 0x1c1,
///     in_vertex_id: None,
/// };
/// let mut bytes = Vec::new();
/// r.encode_v1(&mut bytes).unwrap();
/// assert_eq!(bytes.len(), 9 + 8 + 8 + 9);
/// let limits = Limits::default();
/// let back = RelationIdentifier::decode_v1(&mut Cursor::new(&bytes, 0, &limits)).unwrap();
/// assert_eq!(back, r);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, GraphBinary)]
#[graphbinary(v1_custom = "janusgraph.RelationIdentifier", v1_custom_info = 0x1001)]
pub struct RelationIdentifier {
    /// The out-vertex (or, for a vertex property, the vertex) id.
    pub out_vertex_id: JanusVertexId,
    /// The id of the edge label or property key.
    pub type_id: i64,
    /// The relation's own id.
    pub relation_id: i64,
    /// The in-vertex id of an edge; `None` for a vertex property.
    #[graphbinary(v1 = "sentinel")]
    pub in_vertex_id: Option<JanusVertexId>,
}

/// A JanusGraph vertex id: a Long, or a String when the graph allows custom string ids.
///
/// On the wire (inside a [`RelationIdentifier`]) `{marker Byte}` then a Long (marker 0) or
/// an ASCII string whose last byte has its high bit set (marker 1): no GraphBinary type, so
/// it is a leaf with hand-written `DecodeV1` (fast and slow paths) and `EncodeV1`, which the
/// derived `RelationIdentifier` calls. A string id is at most `Limits::max_bytes_len` bytes;
/// a bad marker, a longer or unterminated string and a truncation are errors at the marker's
/// (or the end's) offset.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JanusVertexId {
    /// A numeric id.
    Long(i64),
    /// A custom string id (ASCII).
    String(String),
}

impl RelationIdentifier {
    /// The custom type's name.
    pub const NAME: &'static str = <Self as CustomV1>::CUSTOM_NAME;
    /// Its custom type info.
    pub const TYPE_INFO: i32 = <Self as CustomV1>::CUSTOM_INFO;

    /// From the `CompositePdt` the reader produces.
    pub fn from_value(v: &Value) -> Option<Self> {
        let Value::CompositePdt(p) = v else {
            return None;
        };
        if p.type_name != Self::NAME {
            return None;
        }
        let id = |v: &Value| match v {
            Value::Long(n) => Some(JanusVertexId::Long(*n)),
            Value::String(s) => Some(JanusVertexId::String(s.clone())),
            _ => None,
        };
        let long = |name| match p.get(name) {
            Some(Value::Long(n)) => Some(*n),
            _ => None,
        };
        Some(RelationIdentifier {
            out_vertex_id: id(p.get("outVertexId")?)?,
            type_id: long("typeId")?,
            relation_id: long("relationId")?,
            in_vertex_id: match p.get("inVertexId")? {
                Value::Null(_) => None,
                other => Some(id(other)?),
            },
        })
    }

    /// As the `CompositePdt` the reader produces.
    pub fn to_value(&self) -> Value {
        let id = |v: &JanusVertexId| match v {
            JanusVertexId::Long(n) => Value::Long(*n),
            JanusVertexId::String(s) => Value::String(s.clone()),
        };
        let field = |k: &str, v: Value| (Value::String(k.to_owned()), v);
        Value::CompositePdt(Box::new(CompositePdt {
            type_name: Self::NAME.to_owned(),
            fields: vec![
                field("outVertexId", id(&self.out_vertex_id)),
                field("typeId", Value::Long(self.type_id)),
                field("relationId", Value::Long(self.relation_id)),
                field(
                    "inVertexId",
                    self.in_vertex_id
                        .as_ref()
                        .map(id)
                        .unwrap_or(Value::Null(0xfe)),
                ),
            ],
            ordered: false,
        }))
    }
}

impl CustomValue for RelationIdentifier {
    fn to_value(&self) -> Value {
        RelationIdentifier::to_value(self)
    }
    fn from_value(value: &Value) -> Option<Self> {
        RelationIdentifier::from_value(value)
    }
}

/// The reader and writer of [`RelationIdentifier`] (registered by [`CustomTypes::janusgraph`]):
/// [`DerivedCustom`]`<RelationIdentifier>` under its own name.
#[derive(Debug, Clone, Copy, Default)]
pub struct RelationIdentifierType;

impl CustomType for RelationIdentifierType {
    fn name(&self) -> &'static str {
        RelationIdentifier::NAME
    }
    fn decode(&self, cur: &mut Cursor<'_>) -> FastResult<Value> {
        DerivedCustom::<RelationIdentifier>::new().decode(cur)
    }
    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        DerivedCustom::<RelationIdentifier>::new().encode(value, out)
    }
}

const LONG_MARKER: u8 = 0;
const STRING_MARKER: u8 = 1;
const VERTEX_ID: &str = "JanusGraph vertex id";

#[cold]
fn bad_marker(m: u8) -> ErrorKind {
    ErrorKind::Invalid {
        what: VERTEX_ID,
        detail: format!("marker {m}, expected 0 (Long) or 1 (String)"),
    }
}

#[cold]
fn unterminated(max: usize) -> ErrorKind {
    ErrorKind::Invalid {
        what: VERTEX_ID,
        detail: format!(
            "string id without its last byte (high bit set) within max_bytes_len ({max}) bytes"
        ),
    }
}

/// The string id of `bytes`, the last one with its high bit set and the others without.
fn string_id(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| char::from(b & 0x7f))
        .collect::<String>()
}

impl DecodeV1 for JanusVertexId {
    const EXPECTED: &'static str = VERTEX_ID;

    #[inline]
    fn decode_v1(cur: &mut Cursor<'_>) -> FastResult<Self> {
        let at = cur.offset();
        match cur.read_u8()? {
            LONG_MARKER => Ok(JanusVertexId::Long(cur.read_i64()?)),
            STRING_MARKER => {
                let max = cur.limits().max_bytes_len;
                let rest = cur.remaining();
                match rest.iter().take(max).position(|b| b & 0x80 != 0) {
                    Some(last) => Ok(JanusVertexId::String(string_id(cur.read_bytes(last + 1)?))),
                    None if rest.len() >= max => Err(cur.error_at(at, unterminated(max))),
                    None => {
                        // The terminator is not buffered yet: one byte more at least.
                        cur.require(rest.len() + 1)?;
                        Err(cur.error_at(at, unterminated(max)))
                    }
                }
            }
            m => Err(cur.error_at(at, bad_marker(m))),
        }
    }

    fn decode_v1_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            let at = buf.offset();
            match buf.read_u8().await? {
                LONG_MARKER => Ok(JanusVertexId::Long(buf.read_i64().await?)),
                STRING_MARKER => {
                    let max = buf.limits().max_bytes_len;
                    // Grows with the bytes that arrive, never with a claim: there is none.
                    let mut bytes = Vec::new();
                    loop {
                        let b = buf.read_u8().await?;
                        bytes.push(b);
                        if b & 0x80 != 0 {
                            return Ok(JanusVertexId::String(string_id(&bytes)));
                        }
                        if bytes.len() >= max {
                            return Err(DecodeError::new(at, unterminated(max)));
                        }
                    }
                }
                m => Err(DecodeError::new(at, bad_marker(m))),
            }
        }
    }
}

impl EncodeV1 for JanusVertexId {
    fn encode_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        match self {
            JanusVertexId::Long(n) => {
                out.put_u8(LONG_MARKER);
                out.put_i64(*n);
            }
            JanusVertexId::String(s) => {
                if s.is_empty() || !s.is_ascii() {
                    return Err(EncodeError::Unrepresentable {
                        what: VERTEX_ID,
                        detail: format!("{s:?}: a string id is non-empty ASCII"),
                    });
                }
                out.put_u8(STRING_MARKER);
                let bytes = s.as_bytes();
                out.put_slice(&bytes[..bytes.len() - 1]);
                out.put_u8(bytes[bytes.len() - 1] | 0x80);
            }
        }
        Ok(())
    }
}

/// A vertex property's `RelationIdentifier` has no in-vertex: JanusGraph writes Long 0.
impl SentinelV1 for JanusVertexId {
    fn sentinel() -> Self {
        JanusVertexId::Long(0)
    }
    fn is_sentinel(&self) -> bool {
        matches!(self, JanusVertexId::Long(0))
    }
}

/// Writes `{0x00}{name}` and what the registered type writes, if `value` is a `CompositePdt`
/// whose name is registered in the current context. `Ok(false)` when it is not a custom value.
pub(crate) fn encode_custom<B: BufMut>(value: &Value, out: &mut B) -> Result<bool, EncodeError> {
    let Value::CompositePdt(p) = value else {
        return Ok(false);
    };
    let Some(t) = lookup_for_write(&p.type_name) else {
        return Ok(false);
    };
    let mut body = Vec::new();
    t.encode(value, &mut body)?;
    out.put_u8(0x00);
    write::put_str(out, &p.type_name)?;
    out.put_slice(&body);
    Ok(true)
}
