//! The graph elements: Vertex, Edge, VertexProperty, Property, and Path.

#![allow(clippy::manual_async_fn)]

use std::future::Future;
use std::sync::Arc;

use bytes::BufMut;
use graphbinary_core::{
    Cursor, Decode, DecodeError, Encode, EncodeError, FastResult, Fq, FqOpt, ReadBuffer, Set, Typed,
};
use tokio::io::AsyncRead;

use super::codes;
use super::Value;

/// A vertex (Vertex, 0x11): `{id}{label}{properties}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vertex {
    /// The id, any value.
    pub id: Value,
    /// The labels (a List of Strings).
    pub label: Vec<Arc<str>>,
    /// The vertex properties; `None` when written as a null.
    pub properties: Option<Vec<VertexProperty>>,
}

/// A property of a vertex (VertexProperty, 0x12): `{id}{label}{value}{parent}{properties}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VertexProperty {
    /// The id, any value.
    pub id: Value,
    /// The labels (the property key).
    pub label: Vec<Arc<str>>,
    /// The value.
    pub value: Value,
    /// The parent vertex; always null from TinkerPop today.
    pub parent: Value,
    /// The meta-properties; `None` when written as a null.
    pub properties: Option<Vec<Property>>,
}

/// A key/value property of an edge or vertex property (Property, 0x0f):
/// `{key}{value}{parent}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    /// The key.
    pub key: Arc<str>,
    /// The value.
    pub value: Value,
    /// The parent element; always null from TinkerPop today.
    pub parent: Value,
}

/// An edge (Edge, 0x0d): `{id}{label}{inVId}{inVLabel}{outVId}{outVLabel}{parent}{properties}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The id, any value.
    pub id: Value,
    /// The labels.
    pub label: Vec<Arc<str>>,
    /// The id of the incoming (head) vertex.
    pub in_v_id: Value,
    /// The labels of the incoming vertex.
    pub in_v_label: Vec<Arc<str>>,
    /// The id of the outgoing (tail) vertex.
    pub out_v_id: Value,
    /// The labels of the outgoing vertex.
    pub out_v_label: Vec<Arc<str>>,
    /// The parent; always null from TinkerPop today.
    pub parent: Value,
    /// The properties; `None` when written as a null.
    pub properties: Option<Vec<Property>>,
}

/// A path through the graph (Path, 0x0e): `{labels}{objects}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// For each step, the set of its labels.
    pub labels: Vec<Set<Arc<str>>>,
    /// The objects, one per step.
    pub objects: Vec<Value>,
}

impl Decode for Vertex {
    const EXPECTED: &'static str = "Vertex";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(Vertex {
            id: Value::decode(cur)?,
            label: Decode::decode(cur)?,
            properties: FqOpt::<Vec<VertexProperty>>::decode(cur)?.0,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(Vertex {
                id: buf.read::<Value>().await?,
                label: buf.read().await?,
                properties: buf.read::<FqOpt<Vec<VertexProperty>>>().await?.0,
            })
        }
    }
}
impl Encode for Vertex {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.id.encode(out)?;
        self.label.encode(out)?;
        FqOptRef(&self.properties).encode(out)
    }
}
impl Typed for Vertex {
    const TYPE_CODE: u8 = codes::VERTEX;
}

impl Decode for VertexProperty {
    const EXPECTED: &'static str = "VertexProperty";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(VertexProperty {
            id: Value::decode(cur)?,
            label: Decode::decode(cur)?,
            value: Value::decode(cur)?,
            parent: Value::decode(cur)?,
            properties: FqOpt::<Vec<Property>>::decode(cur)?.0,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(VertexProperty {
                id: buf.read::<Value>().await?,
                label: buf.read().await?,
                value: buf.read::<Value>().await?,
                parent: buf.read::<Value>().await?,
                properties: buf.read::<FqOpt<Vec<Property>>>().await?.0,
            })
        }
    }
}
impl Encode for VertexProperty {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.id.encode(out)?;
        self.label.encode(out)?;
        self.value.encode(out)?;
        self.parent.encode(out)?;
        FqOptRef(&self.properties).encode(out)
    }
}
impl Typed for VertexProperty {
    const TYPE_CODE: u8 = codes::VERTEX_PROPERTY;
}

impl Decode for Property {
    const EXPECTED: &'static str = "Property";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(Property {
            key: Decode::decode(cur)?,
            value: Value::decode(cur)?,
            parent: Value::decode(cur)?,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(Property {
                key: buf.read().await?,
                value: buf.read::<Value>().await?,
                parent: buf.read::<Value>().await?,
            })
        }
    }
}
impl Encode for Property {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.key.encode(out)?;
        self.value.encode(out)?;
        self.parent.encode(out)
    }
}
impl Typed for Property {
    const TYPE_CODE: u8 = codes::PROPERTY;
}

impl Decode for Edge {
    const EXPECTED: &'static str = "Edge";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(Edge {
            id: Value::decode(cur)?,
            label: Decode::decode(cur)?,
            in_v_id: Value::decode(cur)?,
            in_v_label: Decode::decode(cur)?,
            out_v_id: Value::decode(cur)?,
            out_v_label: Decode::decode(cur)?,
            parent: Value::decode(cur)?,
            properties: FqOpt::<Vec<Property>>::decode(cur)?.0,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(Edge {
                id: buf.read::<Value>().await?,
                label: buf.read().await?,
                in_v_id: buf.read::<Value>().await?,
                in_v_label: buf.read().await?,
                out_v_id: buf.read::<Value>().await?,
                out_v_label: buf.read().await?,
                parent: buf.read::<Value>().await?,
                properties: buf.read::<FqOpt<Vec<Property>>>().await?.0,
            })
        }
    }
}
impl Encode for Edge {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.id.encode(out)?;
        self.label.encode(out)?;
        self.in_v_id.encode(out)?;
        self.in_v_label.encode(out)?;
        self.out_v_id.encode(out)?;
        self.out_v_label.encode(out)?;
        self.parent.encode(out)?;
        FqOptRef(&self.properties).encode(out)
    }
}
impl Typed for Edge {
    const TYPE_CODE: u8 = codes::EDGE;
}

impl Decode for Path {
    const EXPECTED: &'static str = "Path";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(Path {
            labels: Fq::<Vec<Set<Arc<str>>>>::decode(cur)?.0,
            objects: Fq::<Vec<Value>>::decode(cur)?.0,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(Path {
                labels: buf.read::<Fq<Vec<Set<Arc<str>>>>>().await?.0,
                objects: buf.read::<Fq<Vec<Value>>>().await?.0,
            })
        }
    }
}
impl Encode for Path {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        graphbinary_core::encode_fq_typed(&self.labels, out)?;
        graphbinary_core::encode_fq_typed(&self.objects, out)
    }
}
impl Typed for Path {
    const TYPE_CODE: u8 = codes::PATH;
}

/// Writes an `Option<Vec<T>>` as a fully-qualified nullable List without cloning it.
struct FqOptRef<'a, T>(&'a Option<Vec<T>>);

impl<T: graphbinary_core::FqEncode> Encode for FqOptRef<'_, T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        match self.0 {
            Some(v) => graphbinary_core::encode_fq_typed(v, out),
            None => {
                graphbinary_core::write::put_null(out, codes::LIST);
                Ok(())
            }
        }
    }
}

graphbinary_core::impl_fq_via_typed!(Vertex, VertexProperty, Property, Edge, Path);
