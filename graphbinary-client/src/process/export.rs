//! The exporter ([`Exporter`]): the whole graph as a vertex file and an edge file in the
//! Neptune bulk-load CSV format that [`Loader`](super::Loader) reads, so that an export
//! loaded into another server (TinkerPop 4, 3.x) copies the graph.
//!
//! The passes and the rules are on [`Exporter`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use futures::StreamExt;
use tokio::io::{AsyncWrite, AsyncWriteExt};

use super::load::Kind;
use super::{GraphTraversal, GraphTraversalSource, __};
use crate::client::{Client, Error};
use crate::format::graphbinary1::{JanusVertexId, RelationIdentifier};
use crate::lang::tokens::T;
use crate::value::{DateTime, Value};

/// Rows are written to the output once this many bytes are buffered.
const FLUSH_AT: usize = 64 << 10;

/// A client error of reading the graph, said so.
fn reading(e: Error) -> Error {
    e.context("reading the graph")
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Vertex rows.
    pub vertices: u64,
    /// Edge rows.
    pub edges: u64,
    /// The vertex file's header.
    pub vertex_header: Vec<String>,
    /// The edge file's header.
    pub edge_header: Vec<String>,
}

impl std::fmt::Display for ExportSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} vertices ({} property columns), {} edges ({} property columns)",
            self.vertices,
            self.vertex_header.len().saturating_sub(2),
            self.edges,
            self.edge_header.len().saturating_sub(4)
        )
    }
}

/// The column type and cell text of `v`, or why it has none.
fn cell(v: &Value) -> Result<(Kind, String), String> {
    Ok(match v {
        Value::String(s) if s.is_empty() => {
            return Err("is the empty String, which the format reads as no value".into())
        }
        Value::String(s) => (Kind::String, s.clone()),
        Value::Boolean(b) => (Kind::Bool, b.to_string()),
        Value::Byte(n) => (Kind::Byte, n.to_string()),
        Value::Short(n) => (Kind::Short, n.to_string()),
        Value::Int(n) => (Kind::Int, n.to_string()),
        Value::Long(n) => (Kind::Long, n.to_string()),
        Value::Float(x) => (Kind::Float, float(f64::from(*x), x.to_string())),
        Value::Double(x) => (Kind::Double, float(*x, x.to_string())),
        Value::DateTime(d) => (Kind::Date, date(d)?),
        other => {
            return Err(format!(
                "is a {}, a type the format cannot hold",
                other.type_name()
            ))
        }
    })
}

fn float(x: f64, shortest: String) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x == f64::INFINITY {
        "Infinity".into()
    } else if x == f64::NEG_INFINITY {
        "-Infinity".into()
    } else {
        shortest
    }
}

/// `yyyy-MM-ddTHH:mm:ssZ`, or why not.
fn date(d: &DateTime) -> Result<String, String> {
    if d.offset_seconds != 0 {
        return Err(format!(
            "is a DateTime with offset {} s: the format holds UTC only",
            d.offset_seconds
        ));
    }
    if d.nanos % 1_000_000_000 != 0 {
        return Err("is a DateTime with fractions of a second: the format holds seconds".into());
    }
    if !(0..=9999).contains(&d.year) {
        return Err(format!(
            "is a DateTime in year {}: the format holds 0 to 9999",
            d.year
        ));
    }
    let s = d.nanos / 1_000_000_000;
    Ok(format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        d.year,
        d.month,
        d.day,
        s / 3600,
        s / 60 % 60,
        s % 60
    ))
}

/// An id or label as text, or why it cannot be one.
fn text_of(v: &Value, what: &str, vertex_label: bool) -> Result<String, String> {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Uuid(u) => u.to_string(),
        Value::CompositePdt(_) => {
            match RelationIdentifier::from_value(v).and_then(|r| relation_text(&r)) {
                Some(s) => s,
                None => return Err(format!("its {what} is a {}", v.type_name())),
            }
        }
        v => match v.as_i64() {
            Some(n) => n.to_string(),
            None => return Err(format!("its {what} is a {}", v.type_name())),
        },
    };
    if s.is_empty() || s.trim() != s {
        return Err(format!(
            "its {what} {s:?} is empty or has spaces around it (the loader trims it)"
        ));
    }
    if vertex_label && s.contains(';') {
        return Err(format!(
            "its label {s:?} has a ';' (the loader reads several labels)"
        ));
    }
    Ok(s)
}

/// A JanusGraph edge id as JanusGraph's own text of it (`RelationIdentifier.toString()`):
/// relation id, out-vertex id, type id and in-vertex id in base 36 (digits then `a` to `z`)
/// joined by `-`, e.g. `4r6-39s-2dx-6g8`, which `g.E("4r6-39s-2dx-6g8")` finds again. `None`
/// (the id is refused) for a vertex property's id (no in-vertex), a negative number or a
/// custom string vertex id.
fn relation_text(r: &RelationIdentifier) -> Option<String> {
    fn base36(n: i64) -> Option<String> {
        let mut n = u64::try_from(n).ok()?;
        let mut digits = Vec::new();
        loop {
            digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize]);
            n /= 36;
            if n == 0 {
                break;
            }
        }
        digits.reverse();
        String::from_utf8(digits).ok()
    }
    let long = |v: &JanusVertexId| match v {
        JanusVertexId::Long(n) => base36(*n),
        JanusVertexId::String(_) => None,
    };
    Some(format!(
        "{}-{}-{}-{}",
        base36(r.relation_id)?,
        long(&r.out_vertex_id)?,
        base36(r.type_id)?,
        long(r.in_vertex_id.as_ref()?)?
    ))
}

/// A property column: its type, whether it is `[]`, and the element that set its type.
#[derive(Debug, Clone)]
struct Col {
    kind: Kind,
    array: bool,
    first: String,
}

/// The columns of one element kind, by key.
type Cols = BTreeMap<String, Col>;

/// The header cell of `key`.
fn header_cell(key: &str, col: &Col) -> String {
    format!(
        "{}:{}{}",
        key.replace(':', "\\:"),
        col.kind.name(),
        if col.array { "[]" } else { "" }
    )
}

fn check_key(key: &str, element: &str) -> Result<(), Error> {
    if key.is_empty() || key.starts_with('~') || key.trim() != key || key.ends_with('\\') {
        return Err(Error::Export(format!(
            "{element}: property key {key:?} cannot be a column (empty, starts with '~', has \
             spaces around it or ends in '\\')"
        )));
    }
    Ok(())
}

/// Appends `field` to `buf` as an RFC 4180 field (quoted also with spaces around it, which
/// some readers trim).
fn push_field(buf: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) || field.trim() != field {
        buf.push('"');
        buf.push_str(&field.replace('"', "\"\""));
        buf.push('"');
    } else {
        buf.push_str(field);
    }
}

fn push_row(buf: &mut String, fields: &[String]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            buf.push(',');
        }
        push_field(buf, f);
    }
    buf.push('\n');
}

/// The exporter: the whole graph in the Neptune bulk-load CSV format that
/// [`Loader`](super::Loader) reads.
///
/// # How
///
/// Two passes over the graph, each one streamed request per element kind:
///
/// 1. The header: `g.V().project('i','p').by(id).by(valueMap())` (and the same over `g.E()`)
///    collects each property key and the type of its values, and whether a vertex holds
///    several values of it; a vertex property with meta-properties is looked for with one
///    more query. Nothing is written before this pass found the graph exportable.
/// 2. The rows: the same traversal with the label (and for edges the ends' ids), one row per
///    result as it arrives: memory holds one row and the key table, whatever the graph's size.
///
/// # The rules
///
/// * Columns: `~id,~label` then the vertex keys sorted, as `key:Type`, or `key:Type[]` when
///   some vertex holds several values of it (its values joined by `;`, a `;` inside a String
///   written `\;`); edges `~id,~from,~to,~label` then their keys. A `:` in a key is written
///   `\:`. Ids are written as text (String, integer or UUID ids); the loader sends them as
///   strings, which a numeric id manager converts back. A JanusGraph edge id (a
///   `RelationIdentifier`) is written as JanusGraph's own text of it, e.g. `4r6-39s-2dx-6g8`
///   (its relation id, out-vertex id, type id and in-vertex id in base 36, joined by `-`),
///   which `g.E(text)` finds again; JanusGraph assigns its own ids, so load such a graph
///   back with [`Loader::key_property`](super::Loader::key_property).
/// * Types: String, Bool, Byte, Short, Int, Long, Float, Double (`Infinity`, `-Infinity`,
///   `NaN` as the loader reads them) and Date (a DateTime in UTC to the second, written
///   `yyyy-MM-ddTHH:mm:ssZ`).
/// * Refused, with the element and the key named ([`Error::Export`]), never
///   changed: a key with values of several types; a value of another type (UUID, BigDecimal,
///   BigInteger, List, Set, Map, Binary, Char, Duration, null, ...); a DateTime with a zone
///   offset other than UTC, with fractions of a second, or outside years 0 to 9999; an empty
///   String (the format reads an empty cell as no value); in a `[]` column a blank String or
///   one ending in `\`; a vertex property with meta-properties; an id or label that the loader
///   would read differently (empty, with spaces around it, a vertex label with `;`); a key
///   that is empty, starts with `~`, has spaces around it or ends in `\`.
///
/// ```no_run
/// # async fn demo(client: graphbinary_client::Client) -> Result<(), Box<dyn std::error::Error>> {
/// use graphbinary_client::process::Exporter;
///
/// let summary = Exporter::new(&client).export_to_dir("out".as_ref()).await?;
/// println!("{summary}"); // out/nodes.csv, out/edges.csv
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Exporter {
    g: GraphTraversalSource,
}

impl Exporter {
    /// An exporter reading through `client`'s `g`.
    pub fn new(client: &Client) -> Exporter {
        Exporter {
            g: GraphTraversalSource::new(client.clone()),
        }
    }

    /// Reads the graph of traversal source `alias` instead of `g`.
    pub fn source(mut self, alias: impl Into<String>) -> Exporter {
        self.g = self.g.alias(alias);
        self
    }

    /// Writes `dir/nodes.csv` and `dir/edges.csv` (the directory is created if missing).
    /// Nothing is created when the graph is refused by the first pass. The files are written
    /// in 64 KiB blocks by blocking writes (a local file, as the loader's reads).
    pub async fn export_to_dir(&self, dir: &Path) -> Result<ExportSummary, Error> {
        let (vcols, ecols) = self.scan().await?;
        let io = |file: &Path| {
            let file = file.display().to_string();
            move |source| Error::File {
                action: "writing",
                file,
                source,
            }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let (np, ep) = (dir.join("nodes.csv"), dir.join("edges.csv"));
        let mut nodes = LocalFile(std::fs::File::create(&np).map_err(io(&np))?);
        let mut edges = LocalFile(std::fs::File::create(&ep).map_err(io(&ep))?);
        let rename = |e: Error| match e {
            Error::File {
                action,
                file,
                source,
            } => Error::File {
                action,
                file: if file == "nodes" { &np } else { &ep }
                    .display()
                    .to_string(),
                source,
            },
            e => e,
        };
        self.write(&vcols, &ecols, &mut nodes, &mut edges)
            .await
            .map_err(rename)
    }

    /// Writes the vertex file to `nodes` and the edge file to `edges` (each flushed, not
    /// shut down).
    pub async fn export<N, E>(&self, nodes: &mut N, edges: &mut E) -> Result<ExportSummary, Error>
    where
        N: AsyncWrite + Unpin,
        E: AsyncWrite + Unpin,
    {
        let (vcols, ecols) = self.scan().await?;
        self.write(&vcols, &ecols, nodes, edges).await
    }

    /// The first pass: the columns of vertices and edges.
    async fn scan(&self) -> Result<(Cols, Cols), Error> {
        // A meta-property anywhere refuses the graph.
        let meta = self
            .g
            .v(())
            .where_(__::properties(()).properties(()))
            .limit(1)
            .project(("i", "k"))
            .by(T::Id)
            .by(__::properties(()).where_(__::properties(())).key().limit(1))
            .to_list()
            .await
            .map_err(reading)?;
        if let Some(m) = meta.first() {
            let (i, k) = (field(m, "i"), field(m, "k"));
            return Err(Error::Export(format!(
                "vertex {}: property {} has meta-properties, which the format cannot hold",
                show(i),
                show(k)
            )));
        }
        let mut vcols = Cols::new();
        let mut ecols = Cols::new();
        for (edges, cols) in [(false, &mut vcols), (true, &mut ecols)] {
            let t = if edges { self.g.e(()) } else { self.g.v(()) };
            let mut s = t
                .project(("i", "p"))
                .by(T::Id)
                .by(__::value_map(()))
                .stream()
                .await
                .map_err(reading)?;
            while let Some(r) = s.next().await {
                let r = r.map_err(reading)?;
                let element = element_name(edges, field(&r, "i"));
                for (key, values) in props(&r, edges)? {
                    scan_prop(cols, &element, &key, &values)?;
                }
            }
        }
        Ok((vcols, ecols))
    }

    async fn write<N, E>(
        &self,
        vcols: &Cols,
        ecols: &Cols,
        nodes: &mut N,
        edges: &mut E,
    ) -> Result<ExportSummary, Error>
    where
        N: AsyncWrite + Unpin,
        E: AsyncWrite + Unpin,
    {
        let mut summary = ExportSummary {
            vertex_header: ["~id", "~label"]
                .iter()
                .map(|s| s.to_string())
                .chain(vcols.iter().map(|(k, c)| header_cell(k, c)))
                .collect(),
            edge_header: ["~id", "~from", "~to", "~label"]
                .iter()
                .map(|s| s.to_string())
                .chain(ecols.iter().map(|(k, c)| header_cell(k, c)))
                .collect(),
            ..ExportSummary::default()
        };
        let v = self
            .g
            .v(())
            .project(("i", "l", "p"))
            .by(T::Id)
            .by(T::Label)
            .by(__::value_map(()));
        summary.vertices = self
            .rows(v, false, vcols, &summary.vertex_header, nodes, "nodes")
            .await?;
        let e = self
            .g
            .e(())
            .project(("i", "l", "o", "n", "p"))
            .by(T::Id)
            .by(T::Label)
            .by(__::out_v().id())
            .by(__::in_v().id())
            .by(__::value_map(()));
        summary.edges = self
            .rows(e, true, ecols, &summary.edge_header, edges, "edges")
            .await?;
        Ok(summary)
    }

    async fn rows<W: AsyncWrite + Unpin>(
        &self,
        t: GraphTraversal,
        edges: bool,
        cols: &Cols,
        header: &[String],
        out: &mut W,
        name: &str,
    ) -> Result<u64, Error> {
        let io = |source| Error::File {
            action: "writing",
            file: name.to_owned(),
            source,
        };
        let mut buf = String::with_capacity(FLUSH_AT + 4096);
        push_row(&mut buf, header);
        let index: BTreeMap<&str, usize> = cols
            .keys()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i))
            .collect();
        let fixed = if edges { 4 } else { 2 };
        let mut row = vec![String::new(); fixed + cols.len()];
        let mut n = 0u64;
        let mut s = t.stream().await.map_err(reading)?;
        while let Some(r) = s.next().await {
            let r = r.map_err(reading)?;
            let id = field(&r, "i");
            let element = element_name(edges, id);
            let unsupported = |e: String| Error::Export(format!("{element}: {e}"));
            row.iter_mut().for_each(String::clear);
            row[0] = text_of(id, "id", false).map_err(unsupported)?;
            if edges {
                row[1] = text_of(field(&r, "o"), "out vertex id", false).map_err(unsupported)?;
                row[2] = text_of(field(&r, "n"), "in vertex id", false).map_err(unsupported)?;
                row[3] = text_of(field(&r, "l"), "label", false).map_err(unsupported)?;
            } else {
                row[1] = text_of(field(&r, "l"), "label", true).map_err(unsupported)?;
            }
            for (key, values) in props(&r, edges)? {
                let (Some(&i), Some(col)) = (index.get(key.as_str()), cols.get(&key)) else {
                    return Err(Error::Export(format!(
                        "the graph changed during the export: {element}: key {key:?} was not seen by the first pass"
                    )));
                };
                let cell = &mut row[fixed + i];
                for (j, v) in values.iter().enumerate() {
                    let (kind, text) = prop_cell(v, col.array)
                        .map_err(|e| Error::Export(format!("{element}: property {key:?} {e}")))?;
                    if kind != col.kind || (j > 0 && !col.array) {
                        return Err(Error::Export(format!(
                            "the graph changed during the export: {element}: property {key:?} is not the {} of the first pass",
                            header_cell(&key, col)
                        )));
                    }
                    if j > 0 {
                        cell.push(';');
                    }
                    cell.push_str(&text);
                }
            }
            push_row(&mut buf, &row);
            n += 1;
            if buf.len() >= FLUSH_AT {
                out.write_all(buf.as_bytes()).await.map_err(io)?;
                buf.clear();
            }
        }
        out.write_all(buf.as_bytes()).await.map_err(io)?;
        out.flush().await.map_err(io)?;
        Ok(n)
    }
}

/// A local file written by blocking writes (tokio's `fs` is not a feature of this crate).
struct LocalFile(std::fs::File);

impl AsyncWrite for LocalFile {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::task::Poll::Ready(std::io::Write::write(&mut self.0, buf))
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(std::io::Write::flush(&mut self.0))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.poll_flush(cx)
    }
}

/// The cell text of one value of a property (escaped for a `[]` column), or why not.
fn prop_cell(v: &Value, array: bool) -> Result<(Kind, String), String> {
    let (kind, text) = cell(v)?;
    if array && kind == Kind::String {
        if text.trim().is_empty() || text.ends_with('\\') {
            return Err(format!(
                "value {text:?} is blank or ends in '\\', which a [] column cannot hold"
            ));
        }
        return Ok((kind, text.replace(';', "\\;")));
    }
    Ok((kind, text))
}

/// Records the values of `key` on `element` in `cols`, or refuses them.
fn scan_prop(cols: &mut Cols, element: &str, key: &str, values: &[Value]) -> Result<(), Error> {
    check_key(key, element)?;
    let array = values.len() > 1;
    for v in values {
        let (kind, _) =
            cell(v).map_err(|e| Error::Export(format!("{element}: property {key:?} {e}")))?;
        match cols.get_mut(key) {
            None => {
                cols.insert(
                    key.to_owned(),
                    Col {
                        kind,
                        array,
                        first: element.to_owned(),
                    },
                );
            }
            Some(col) if col.kind != kind => {
                return Err(Error::Export(format!(
                    "property {key:?} has several types: {} on {} and {} on {element}",
                    col.kind.name(),
                    col.first,
                    kind.name()
                )))
            }
            Some(col) => col.array |= array,
        }
    }
    if array {
        // Each value must survive the `[]` column's splitting.
        for v in values {
            prop_cell(v, true)
                .map_err(|e| Error::Export(format!("{element}: property {key:?} {e}")))?;
        }
    }
    Ok(())
}

/// The `(key, values)` of a result's `p` (a valueMap: lists for vertices, one value for
/// edges).
fn props(r: &Value, edges: bool) -> Result<Vec<(String, Vec<Value>)>, Error> {
    let p = field(r, "p");
    let (Value::Map(entries) | Value::OrderedMap(entries)) = p else {
        return Err(Error::Protocol(format!(
            "a valueMap expected, got {}",
            p.type_name()
        )));
    };
    let mut out = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let Value::String(k) = k else {
            return Err(Error::Protocol(format!(
                "a property key is a {}",
                k.type_name()
            )));
        };
        let values = match v {
            Value::List(l) if !edges => l.clone(),
            Value::BulkList(l) if !edges => l
                .iter()
                .flat_map(|(v, n)| std::iter::repeat_n(v.clone(), (*n).max(0) as usize))
                .collect(),
            v => vec![v.clone()],
        };
        out.push((k.clone(), values));
    }
    Ok(out)
}

/// Entry `key` of a projected map (Null when absent).
fn field<'a>(r: &'a Value, key: &str) -> &'a Value {
    static NULL: Value = Value::Null(0);
    if let Value::Map(entries) | Value::OrderedMap(entries) = r {
        for (k, v) in entries {
            if k.as_str() == Some(key) {
                return v;
            }
        }
    }
    &NULL
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        v => match v.as_i64() {
            Some(n) => n.to_string(),
            None => {
                let mut s = String::new();
                let _ = write!(s, "{v:?}");
                s
            }
        },
    }
}

fn element_name(edges: bool, id: &Value) -> String {
    format!("{} {}", if edges { "edge" } else { "vertex" }, show(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn janusgraph_edge_ids_as_janusgraphs_text() {
        let mut r = RelationIdentifier {
            out_vertex_id: JanusVertexId::Long(35),
            type_id: 0,
            relation_id: 36,
            in_vertex_id: Some(JanusVertexId::Long(1295)),
        };
        assert_eq!(text_of(&r.to_value(), "id", false).unwrap(), "10-z-0-zz");
        r.in_vertex_id = None; // a vertex property's id: not an edge's
        assert!(text_of(&r.to_value(), "id", false).is_err());
        r.in_vertex_id = Some(JanusVertexId::String("a".into()));
        assert!(text_of(&r.to_value(), "id", false).is_err());
    }

    #[test]
    fn cells_and_refusals() {
        assert_eq!(cell(&Value::Int(7)).unwrap(), (Kind::Int, "7".into()));
        assert_eq!(
            cell(&Value::Double(f64::NEG_INFINITY)).unwrap().1,
            "-Infinity"
        );
        assert_eq!(cell(&Value::Double(0.1)).unwrap().1, "0.1");
        assert_eq!(
            cell(&Value::Float(1.5)).unwrap(),
            (Kind::Float, "1.5".into())
        );
        assert_eq!(
            cell(&Value::DateTime(DateTime::new(
                2024,
                2,
                29,
                3_723 * 1_000_000_000,
                0
            )))
            .unwrap()
            .1,
            "2024-02-29T01:02:03Z"
        );
        assert!(cell(&Value::DateTime(DateTime::new(2024, 2, 29, 1, 0))).is_err());
        assert!(cell(&Value::DateTime(DateTime::new(2024, 2, 29, 0, 3600))).is_err());
        assert!(cell(&Value::String(String::new())).is_err());
        let e = cell(&Value::Uuid(uuid::Uuid::nil())).unwrap_err();
        assert!(e.contains("UUID") || e.contains("Uuid"), "{e}");
        assert!(cell(&Value::List(vec![])).is_err());
        assert_eq!(
            prop_cell(&Value::String("a;b".into()), true).unwrap().1,
            "a\\;b"
        );
        assert!(prop_cell(&Value::String(" ".into()), true).is_err());
        assert!(prop_cell(&Value::String("a\\".into()), true).is_err());
        assert!(text_of(&Value::String(" x".into()), "id", false).is_err());
        assert!(text_of(&Value::String("a;b".into()), "label", true).is_err());
        assert_eq!(text_of(&Value::Long(-3), "id", false).unwrap(), "-3");
    }

    #[test]
    fn fields_are_quoted_as_rfc_4180() {
        let mut b = String::new();
        push_row(
            &mut b,
            &["a".into(), "b,c".into(), "say \"hi\"".into(), "x\ny".into()],
        );
        assert_eq!(b, "a,\"b,c\",\"say \"\"hi\"\"\",\"x\ny\"\n");
    }

    #[test]
    fn a_key_of_two_types_is_refused_naming_both_elements() {
        let mut cols = Cols::new();
        scan_prop(&mut cols, "vertex 1", "age", &[Value::Int(3)]).unwrap();
        let e = scan_prop(&mut cols, "vertex 2", "age", &[Value::Long(3)]).unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("vertex 1") && e.contains("vertex 2") && e.contains("Long"),
            "{e}"
        );
        scan_prop(&mut cols, "vertex 3", "tag", &[Value::String("a".into())]).unwrap();
        scan_prop(
            &mut cols,
            "vertex 4",
            "tag",
            &[Value::String("b".into()), Value::String("c".into())],
        )
        .unwrap();
        assert_eq!(header_cell("tag", &cols["tag"]), "tag:String[]");
        assert_eq!(header_cell("a:b", &cols["age"]), "a\\:b:Int");
        assert!(scan_prop(&mut cols, "vertex 5", "~x", &[Value::Int(1)]).is_err());
    }
}
