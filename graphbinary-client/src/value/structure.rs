//! The irregular container types, read and written by hand: Graph (with its own vertex and
//! edge forms) and Tree (whose children are bare Trees).

#![allow(clippy::manual_async_fn)]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::BufMut;
use graphbinary_core::{
    write, Cursor, Decode, DecodeError, Encode, EncodeError, ErrorKind, FastResult, FqEncode,
    ReadBuffer, Typed,
};
use tokio::io::AsyncRead;

use super::codes;
use super::graphbinary4::read_pairs_slow;
use super::{Edge, Labels, Property, Value, Vertex, VertexProperty};

/// A graph (Graph, 0x10): all its vertices and edges.
///
/// Inside a Graph, vertices and edges have forms of their own; they are read into the usual
/// [`Vertex`] and [`Edge`] (with `properties` always `Some`). The Graph form writes an edge's
/// vertex labels as null; they are filled in from the graph's vertices when read, and written
/// as null again.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Graph {
    /// The vertices, with their properties.
    pub vertices: Vec<Vertex>,
    /// The edges, with their properties.
    pub edges: Vec<Edge>,
}

/// A tree (Tree, 0x2b): each key with its subtree, in the order read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tree(pub Vec<(Value, Tree)>);

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl Graph {
    /// Fills in each edge's missing vertex labels from the vertex with that id.
    pub(crate) fn linked(vertices: Vec<Vertex>, mut edges: Vec<Edge>) -> Graph {
        let mut by_id = std::collections::HashMap::with_capacity(vertices.len());
        for (i, v) in vertices.iter().enumerate() {
            if let Ok(key) = v.id.to_bytes() {
                by_id.entry(key).or_insert(i);
            }
        }
        let labels_of = |id: &Value| {
            id.to_bytes()
                .ok()
                .and_then(|k| by_id.get(&k))
                .map(|&i| vertices[i].label.clone())
        };
        for e in &mut edges {
            if e.in_v_label.is_empty() {
                e.in_v_label = labels_of(&e.in_v_id).unwrap_or_default();
            }
            if e.out_v_label.is_empty() {
                e.out_v_label = labels_of(&e.out_v_id).unwrap_or_default();
            }
        }
        Graph { vertices, edges }
    }
}

// --- Graph: fast path --------------------------------------------------------------------------

fn decode_properties(cur: &mut Cursor<'_>) -> FastResult<Vec<Property>> {
    Vec::<Property>::decode(cur)
}

/// The Graph form's vertex labels of an edge: null (the usual) or a List of Strings.
fn labels_from_value(v: Value, at: u64) -> Result<Labels, DecodeError> {
    match v {
        Value::Null(_) => Ok(Labels::default()),
        Value::List(items) => items
            .into_iter()
            .map(|i| match i {
                Value::String(s) => Ok(Arc::from(s)),
                other => Err(not_label(at, &other)),
            })
            .collect(),
        other => Err(not_label(at, &other)),
    }
}

fn not_label(at: u64, v: &Value) -> DecodeError {
    DecodeError::new(
        at,
        ErrorKind::Invalid {
            what: "Graph edge vertex label",
            detail: format!(
                "expected null or a List of Strings, found {}",
                v.type_name()
            ),
        },
    )
}

fn decode_graph_vp(cur: &mut Cursor<'_>) -> FastResult<VertexProperty> {
    Ok(VertexProperty {
        id: Value::decode(cur)?,
        label: Decode::decode(cur)?,
        value: Value::decode(cur)?,
        parent: Value::decode(cur)?,
        properties: Some(decode_properties(cur)?),
    })
}

fn decode_graph_vertex(cur: &mut Cursor<'_>) -> FastResult<Vertex> {
    let id = Value::decode(cur)?;
    let label = Decode::decode(cur)?;
    let props = cur.read_counted("Graph vertex properties", 12, decode_graph_vp)?;
    Ok(Vertex {
        id,
        label,
        properties: Some(props),
    })
}

fn decode_graph_edge(cur: &mut Cursor<'_>) -> FastResult<Edge> {
    let id = Value::decode(cur)?;
    let label = Decode::decode(cur)?;
    let in_v_id = Value::decode(cur)?;
    let at = cur.offset();
    let in_v_label = labels_from_value(Value::decode(cur)?, at)?;
    let out_v_id = Value::decode(cur)?;
    let at = cur.offset();
    let out_v_label = labels_from_value(Value::decode(cur)?, at)?;
    Ok(Edge {
        id,
        label,
        in_v_id,
        in_v_label,
        out_v_id,
        out_v_label,
        parent: Value::decode(cur)?,
        properties: Some(decode_properties(cur)?),
    })
}

impl Decode for Graph {
    const EXPECTED: &'static str = "Graph";
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        cur.enter()?;
        let vertices = cur.read_counted("Graph vertices", 10, decode_graph_vertex)?;
        // The smallest edge: id, in/out ids, labels and parent all `FE 01`, empty lists: 20 bytes.
        let edges = cur.read_counted("Graph edges", 20, decode_graph_edge)?;
        cur.leave();
        Ok(Graph::linked(vertices, edges))
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            buf.enter()?;
            let vertices = buf
                .read_counted("Graph vertices", |v: GraphVertex| v.0)
                .await?;
            let edges = buf.read_counted("Graph edges", |e: GraphEdge| e.0).await?;
            buf.leave();
            Ok(Graph::linked(vertices, edges))
        }
    }
}

/// A vertex in the Graph form (for the slow path's per-element reads).
struct GraphVertex(Vertex);
/// A vertex property in the Graph form.
struct GraphVp(VertexProperty);
/// An edge in the Graph form.
struct GraphEdge(Edge);

impl Decode for GraphVp {
    const EXPECTED: &'static str = "Graph vertex property";
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_graph_vp(cur).map(GraphVp)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(GraphVp(VertexProperty {
                id: buf.read::<Value>().await?,
                label: buf.read().await?,
                value: buf.read::<Value>().await?,
                parent: buf.read::<Value>().await?,
                properties: Some(buf.read::<Vec<Property>>().await?),
            }))
        }
    }
}

impl Decode for GraphVertex {
    const EXPECTED: &'static str = "Graph vertex";
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_graph_vertex(cur).map(GraphVertex)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            let id = buf.read::<Value>().await?;
            let label = buf.read().await?;
            let props = buf
                .read_counted("Graph vertex properties", |vp: GraphVp| vp.0)
                .await?;
            Ok(GraphVertex(Vertex {
                id,
                label,
                properties: Some(props),
            }))
        }
    }
}

impl Decode for GraphEdge {
    const EXPECTED: &'static str = "Graph edge";
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_graph_edge(cur).map(GraphEdge)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            let id = buf.read::<Value>().await?;
            let label = buf.read().await?;
            let in_v_id = buf.read::<Value>().await?;
            let at = buf.offset();
            let in_v_label = labels_from_value(buf.read::<Value>().await?, at)?;
            let out_v_id = buf.read::<Value>().await?;
            let at = buf.offset();
            let out_v_label = labels_from_value(buf.read::<Value>().await?, at)?;
            Ok(GraphEdge(Edge {
                id,
                label,
                in_v_id,
                in_v_label,
                out_v_id,
                out_v_label,
                parent: buf.read::<Value>().await?,
                properties: Some(buf.read::<Vec<Property>>().await?),
            }))
        }
    }
}

// --- Graph: writer ----------------------------------------------------------------------------

fn encode_properties<B: BufMut>(
    out: &mut B,
    props: &Option<Vec<Property>>,
) -> Result<(), EncodeError> {
    let props = props.as_deref().unwrap_or(&[]);
    write::put_len(out, props.len(), "Graph properties")?;
    for p in props {
        p.encode_fq(out)?;
    }
    Ok(())
}

impl Encode for Graph {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        write::put_len(out, self.vertices.len(), "Graph vertices")?;
        for v in &self.vertices {
            v.id.encode(out)?;
            v.label.encode(out)?;
            let props = v.properties.as_deref().unwrap_or(&[]);
            write::put_len(out, props.len(), "Graph vertex properties")?;
            for vp in props {
                vp.id.encode(out)?;
                vp.label.encode(out)?;
                vp.value.encode(out)?;
                vp.parent.encode(out)?;
                encode_properties(out, &vp.properties)?;
            }
        }
        write::put_len(out, self.edges.len(), "Graph edges")?;
        for e in &self.edges {
            e.id.encode(out)?;
            e.label.encode(out)?;
            e.in_v_id.encode(out)?;
            write::put_null(out, codes::UNSPECIFIED_NULL);
            e.out_v_id.encode(out)?;
            write::put_null(out, codes::UNSPECIFIED_NULL);
            e.parent.encode(out)?;
            encode_properties(out, &e.properties)?;
        }
        Ok(())
    }
}
impl Typed for Graph {
    const TYPE_CODE: u8 = codes::GRAPH;
}

// --- Tree -------------------------------------------------------------------------------------

impl Tree {
    /// Whether the tree has no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn read_tree_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> BoxFuture<'_, Result<Tree, DecodeError>> {
    Box::pin(async move { Ok(Tree(read_pairs_slow(buf, "Tree").await?)) })
}

impl Decode for Tree {
    const EXPECTED: &'static str = "Tree";
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        cur.enter()?;
        let n = cur.read_count("Tree")?;
        cur.require(n.saturating_mul(6))?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let key = Value::decode(cur)?;
            let child = Tree::decode(cur)?;
            v.push((key, child));
        }
        cur.leave();
        Ok(Tree(v))
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        read_tree_slow(buf)
    }
}
impl Encode for Tree {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        write::put_len(out, self.0.len(), "Tree")?;
        for (k, child) in &self.0 {
            k.encode_fq(out)?;
            child.encode(out)?;
        }
        Ok(())
    }
}
impl Typed for Tree {
    const TYPE_CODE: u8 = codes::TREE;
}

graphbinary_core::impl_fq_via_typed!(Graph, Tree);
