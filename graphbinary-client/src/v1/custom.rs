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

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::BufMut;
use graphbinary_core::{write, Cursor, EncodeError, ErrorKind, FastResult};

use crate::model::{CompositePdt, Value};

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
/// use graphbinary_client::v1::{decode_slice_with, CustomTypes};
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
/// let rel = graphbinary_client::v1::RelationIdentifier::from_value(&id).unwrap();
/// assert_eq!(rel.relation_id, 0x1c1);
/// ```
#[derive(Clone, Default)]
pub struct CustomTypes(Arc<HashMap<&'static str, Arc<dyn CustomType>>>);

impl CustomTypes {
    /// No custom types: every custom value is an error.
    pub fn new() -> Self {
        Self::default()
    }

    /// JanusGraph's types this crate reads: `janusgraph.RelationIdentifier`.
    pub fn janusgraph() -> Self {
        Self::new().with(RelationIdentifierType)
    }

    /// Adds (or replaces) the reader and writer of `t.name()`.
    pub fn with(mut self, t: impl CustomType) -> Self {
        Arc::make_mut(&mut self.0).insert(t.name(), Arc::new(t));
        self
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
    /// Exact mode, reading: the GraphBinary 1 codes of the values the mapping onto `Value`
    /// merges (the DateTime family, Traverser and BulkSet), in reading order.
    merged_read: Option<Vec<u8>>,
    /// Exact mode, writing: those codes, consumed in the same order.
    merged_write: Option<std::collections::VecDeque<u8>>,
}

thread_local! {
    static CTX: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// Runs `f` with `custom` (and, in exact mode, a recorder) as the context of the reader and
/// writer on this thread, restoring the previous context afterwards (also on panic).
pub(crate) fn scoped<T>(
    custom: &CustomTypes,
    merged_read: Option<Vec<u8>>,
    merged_write: Option<Vec<u8>>,
    f: impl FnOnce() -> T,
) -> (T, Option<Vec<u8>>) {
    struct Restore(Option<Ctx>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            CTX.with(|c| *c.borrow_mut() = prev);
        }
    }
    let ctx = Ctx {
        custom: custom.clone(),
        merged_read,
        merged_write: merged_write.map(Into::into),
    };
    let prev = CTX.with(|c| c.borrow_mut().replace(ctx));
    let mut restore = Restore(prev);
    let out = f();
    let mine = CTX.with(|c| std::mem::replace(&mut *c.borrow_mut(), restore.0.take()));
    std::mem::forget(restore);
    (out, mine.and_then(|c| c.merged_read))
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
        scoped(&this.custom, None, None, || fut.as_mut().poll(cx)).0
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

/// Exact mode, reading: notes the GraphBinary 1 code of a value the mapping merges.
#[inline]
pub(crate) fn note_merged(code: u8) {
    CTX.with(|c| {
        if let Some(rec) = c.borrow_mut().as_mut().and_then(|c| c.merged_read.as_mut()) {
            rec.push(code);
        }
    })
}

/// Exact mode, writing: the code recorded for the next merged value, if any.
#[inline]
pub(crate) fn next_merged() -> Option<u8> {
    CTX.with(|c| {
        c.borrow_mut()
            .as_mut()
            .and_then(|c| c.merged_write.as_mut())
            .and_then(|q| q.pop_front())
    })
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
/// [`RelationIdentifier::from_value`] turns that into this struct. Hand-written, not derived:
/// the marker-tagged ids and the high-bit-terminated strings are no layout of the derive's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RelationIdentifier {
    /// The out-vertex (or, for a vertex property, the vertex) id.
    pub out_vertex_id: JanusVertexId,
    /// The id of the edge label or property key.
    pub type_id: i64,
    /// The relation's own id.
    pub relation_id: i64,
    /// The in-vertex id of an edge; `None` for a vertex property.
    pub in_vertex_id: Option<JanusVertexId>,
}

/// A JanusGraph vertex id: a Long, or a String when the graph allows custom string ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JanusVertexId {
    /// A numeric id.
    Long(i64),
    /// A custom string id (ASCII).
    String(String),
}

impl RelationIdentifier {
    /// The custom type's name.
    pub const NAME: &'static str = "janusgraph.RelationIdentifier";
    /// Its custom type info.
    pub const TYPE_INFO: i32 = 0x1001;

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

/// The reader and writer of [`RelationIdentifier`] (registered by [`CustomTypes::janusgraph`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct RelationIdentifierType;

const LONG_MARKER: u8 = 0;
const STRING_MARKER: u8 = 1;

fn read_vertex_id(cur: &mut Cursor<'_>) -> FastResult<JanusVertexId> {
    let at = cur.offset();
    match cur.read_u8()? {
        LONG_MARKER => Ok(JanusVertexId::Long(cur.read_i64()?)),
        STRING_MARKER => {
            let mut s = String::new();
            loop {
                let b = cur.read_u8()?;
                s.push(char::from(b & 0x7f));
                if b & 0x80 != 0 {
                    return Ok(JanusVertexId::String(s));
                }
                if s.len() > cur.limits().max_bytes_len {
                    return Err(cur.error_at(
                        at,
                        ErrorKind::Invalid {
                            what: "RelationIdentifier vertex id",
                            detail: "string id longer than max_bytes_len".into(),
                        },
                    ));
                }
            }
        }
        m => Err(cur.error_at(
            at,
            ErrorKind::Invalid {
                what: "RelationIdentifier vertex id",
                detail: format!("marker {m}, expected 0 (Long) or 1 (String)"),
            },
        )),
    }
}

fn write_vertex_id(id: &JanusVertexId, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    match id {
        JanusVertexId::Long(n) => {
            out.put_u8(LONG_MARKER);
            out.put_i64(*n);
        }
        JanusVertexId::String(s) => {
            if s.is_empty() || !s.is_ascii() {
                return Err(EncodeError::Unrepresentable {
                    what: "RelationIdentifier vertex id",
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

impl CustomType for RelationIdentifierType {
    fn name(&self) -> &'static str {
        RelationIdentifier::NAME
    }

    fn decode(&self, cur: &mut Cursor<'_>) -> FastResult<Value> {
        let info_at = cur.offset();
        let info = cur.read_i32()?;
        if info != RelationIdentifier::TYPE_INFO {
            return Err(cur.error_at(
                info_at,
                ErrorKind::Invalid {
                    what: "RelationIdentifier custom type info",
                    detail: format!("0x{info:x}, expected 0x1001"),
                },
            ));
        }
        if !cur.read_nullable_flag("RelationIdentifier")? {
            return Ok(Value::Null(0x00));
        }
        let out_vertex_id = read_vertex_id(cur)?;
        let type_id = cur.read_i64()?;
        let relation_id = cur.read_i64()?;
        let in_vertex_id = match read_vertex_id(cur)? {
            JanusVertexId::Long(0) => None,
            other => Some(other),
        };
        Ok(RelationIdentifier {
            out_vertex_id,
            type_id,
            relation_id,
            in_vertex_id,
        }
        .to_value())
    }

    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let r =
            RelationIdentifier::from_value(value).ok_or_else(|| EncodeError::Unrepresentable {
                what: "RelationIdentifier",
                detail: format!("{} is no RelationIdentifier", value.type_name()),
            })?;
        out.put_i32(RelationIdentifier::TYPE_INFO);
        out.put_u8(0x00);
        write_vertex_id(&r.out_vertex_id, out)?;
        out.put_i64(r.type_id);
        out.put_i64(r.relation_id);
        match &r.in_vertex_id {
            Some(id) => write_vertex_id(id, out)?,
            None => write_vertex_id(&JanusVertexId::Long(0), out)?,
        }
        Ok(())
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
