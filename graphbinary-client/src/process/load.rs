//! The loader ([`Loader`]): graphs in the Neptune bulk-load CSV format written through the
//! [`BatchWriter`] as upserts by id, so that loading a file twice writes nothing twice.
//!
//! # The format
//!
//! As Amazon Neptune's bulk loader reads it:
//!
//! * Vertex files have `~id` (required) and `~label` (optional, default `vertex`); edge files
//!   `~id`, `~from`, `~to` (required) and `~label` (optional, default `edge`).
//! * Property columns are `name:type`, `name:type[]` (several values separated by `;`, `\;` for
//!   a literal `;`), `name:type(single)`, `name:type(set)` or `name:type(set)[]`; a name without
//!   a type is a String; `\:` in a name is a literal `:`. Type names are case-insensitive:
//!   `String`, `Bool` (or `Boolean`), `Byte`, `Short`, `Int`, `Long`, `Float`, `Double`, `Date`.
//! * Edge columns take neither `[]` nor a cardinality (an edge property is one value).
//! * An empty cell is no value (the property is left out); quoting is RFC 4180.
//! * Numbers, booleans and dates may have spaces around them; strings are kept as written.
//!   Bool is `true` or `false` in any case (Neptune reads anything but `true` as false: here it
//!   is an error). Float and Double take `Infinity`, `-Infinity` and `NaN`. Date is
//!   `yyyy-MM-dd`, `yyyy-MM-ddTHH:mm`, `yyyy-MM-ddTHH:mm:ss` or `yyyy-MM-ddTHH:mm:ssZ`, in UTC.
//!
//! # What is written
//!
//! A vertex is `mergeV([(T.id): id])` with `onCreate` (its label and properties) and `onMatch`
//! (its properties). A property is written with cardinality `single` when its column says
//! `(single)`, else `set` (Neptune's default): loading the same value again adds nothing. On
//! JanusGraph (with a [key property](Loader::key_property)) a column that gives no
//! cardinality takes its key's in the graph's schema instead (SINGLE, JanusGraph's default,
//! for a key the loader makes), and the labels and keys a file needs are made in the schema
//! before any row that uses them is sent (see [`Loader::key_property`]).
//! The second and further values of a `[]` cell are written once every vertex file given
//! before them is written, one upsert each (a merge map holds one value per key).
//!
//! An edge is `mergeE([(T.id): id, (T.label): label, (Direction.OUT): from, (Direction.IN):
//! to])` with its properties in `onCreate` and `onMatch`. Edges are written once the vertices
//! loaded before them are (mergeE never creates its ends: an edge to a missing vertex is a
//! failed row).
//!
//! Ids are sent as the CSV's strings: a graph with numeric ids (TinkerGraph's `LONG` id
//! manager, Gremlin Server's default) converts them.
//!
//! # Errors
//!
//! A bad row (a value not of its column's type, a missing `~id`, a wrong number of cells,
//! invalid UTF-8) and a bad header (an unknown type, a missing system column) are
//! [`RejectedRow`]s naming file, line and column; the rest of the file loads (a bad header
//! rejects its file). A row the server refused is one too. Only an I/O error is the run's
//! failure.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;

use futures::StreamExt;

use super::{BatchOptions, BatchWriter, GraphTraversalSource, Report, P};
use crate::client::{Client, Error};
use crate::lang::tokens::{Cardinality, Direction, T};
use crate::lang::Lit;
use crate::value::{DateTime, Value};

/// At most this many [`RejectedRow`]s are kept in a [`LoadSummary`] (the count goes on).
pub const MAX_KEPT_ERRORS: usize = 1000;

/// A row (or header) that was not loaded, and why: report data of a [`LoadSummary`] (not an
/// error of the run), printed as `file:line:column: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectedRow {
    /// The file's name, as given to the loader.
    pub file: String,
    /// The line, from 1 (the header is line 1).
    pub line: u64,
    /// The column, from 1, when one is at fault.
    pub column: Option<usize>,
    /// Why.
    pub message: String,
}

impl fmt::Display for RejectedRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(c) => write!(f, "{}:{}:{}: {}", self.file, self.line, c, self.message),
            None => write!(f, "{}:{}: {}", self.file, self.line, self.message),
        }
    }
}

/// What was written of one kind of element.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Upserts written.
    pub written: u64,
    /// Of those, elements created (counted for vertices only: see [`LoadSummary`]).
    pub created: u64,
    /// Of those, elements that were there already (vertices only).
    pub matched: u64,
}

/// What a load did.
#[derive(Debug, Clone, Default)]
pub struct LoadSummary {
    /// Data rows read (headers not included), rejected ones included.
    pub rows: u64,
    /// Vertices written. Created and matched are told apart by a lookup before each upsert.
    pub vertices: Counts,
    /// Edges written. `created` and `matched` stay 0: the batch writer does not tell them
    /// apart for a raw `mergeE`.
    pub edges: Counts,
    /// Extra values of `[]` cells written (one upsert each).
    pub extra_values: u64,
    /// Rows (and headers) rejected, read or written.
    pub rejected: u64,
    /// The first [`MAX_KEPT_ERRORS`] of them.
    pub errors: Vec<RejectedRow>,
    /// Requests sent, retries included.
    pub requests: u64,
    /// Requests sent again.
    pub retried: u64,
}

impl LoadSummary {
    /// Whether every row read was written.
    pub fn is_complete(&self) -> bool {
        self.rejected == 0
    }

    fn reject(&mut self, e: RejectedRow) {
        self.rejected += 1;
        if self.errors.len() < MAX_KEPT_ERRORS {
            self.errors.push(e);
        }
    }
}

impl fmt::Display for LoadSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rows: vertices written {} (created {}, matched {}), edges written {}, rejected {}, {} requests ({} retried)",
            self.rows,
            self.vertices.written,
            self.vertices.created,
            self.vertices.matched,
            self.edges.written,
            self.rejected,
            self.requests,
            self.retried
        )?;
        if self.extra_values > 0 {
            write!(f, ", {} extra set values", self.extra_values)?;
        }
        Ok(())
    }
}

/// The error of a batch writer whose task ended.
fn writer_stopped(e: Error) -> Error {
    e.context("the batch writer stopped")
}

/// Keys per `has(key, within(..))` read of the vertex ids.
const ID_CHUNK: usize = 500;

/// The name given to the key's composite index when [`Loader::create_index`] creates it.
fn index_name(key: &str) -> String {
    let safe: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("graphbinaryKey_{safe}")
}

/// Groovy (JanusGraph's management API, bindings `k` the key or `''` and `n` unused):
/// `other|` on a graph that is not JanusGraph, else `janus|`, then `force|` when the graph
/// refuses unindexed lookups (`scan|` when not), then the name and status of a composite
/// index on the key alone (`name:ENABLED`), if any. Fails on a server that runs no Groovy.
const CHECK_INDEX: &str = r#"
def gr = g.getGraph()
def janus = Class.forName('org.janusgraph.core.JanusGraph')
if (!janus.isInstance(gr)) return 'other|'
def m = gr.openManagement()
try {
  def idx = k == '' || m.getPropertyKey(k) == null ? null : m.getGraphIndexes(org.apache.tinkerpop.gremlin.structure.Vertex).find {
    it.isCompositeIndex() && it.getFieldKeys().size() == 1 && it.getFieldKeys()[0].name() == k
  }
  def force = gr.getConfiguration().hasForceIndexUsage() ? 'force|' : 'scan|'
  return 'janus|' + force + (idx == null ? '' : idx.name() + ':' + idx.getIndexStatus(idx.getFieldKeys()[0]))
} finally { m.rollback() }
"#;

/// Groovy (JanusGraph's management API), the schema a file needs, made before any row that
/// uses it is sent: JanusGraph makes a missing label or key when a write first uses it, in
/// that write's transaction, so two requests in flight that both use a new name each make it
/// (two edge labels named `route`, two keys named `dist`; `outE('route')` then finds the
/// edges of one of them). Bindings `vl` and `el` (vertex and edge labels, each made unless
/// the schema has it) and `pk` (`[name, type, cardinality]` lists: each key made unless the
/// schema has it, of that Java type, SINGLE unless the cardinality is `set`). Answers the
/// cardinality of each key of `pk`, in order (`SINGLE`, `SET` or `LIST`).
const SCHEMA: &str = r#"
def gr = g.getGraph()
def C = org.janusgraph.core.Cardinality
def types = [String: String, Boolean: Boolean, Byte: Byte, Short: Short, Integer: Integer,
  Long: Long, Float: Float, Double: Double, Date: Date]
def m = gr.openManagement()
def out = []
try {
  vl.each { l -> if (!m.containsVertexLabel(l)) m.makeVertexLabel(l).make() }
  el.each { l -> if (!m.containsEdgeLabel(l)) m.makeEdgeLabel(l).make() }
  pk.each { p ->
    def key = m.getPropertyKey(p[0])
    if (key == null) key = m.makePropertyKey(p[0]).dataType(types[p[1]]).cardinality(p[2] == 'set' ? C.SET : C.SINGLE).make()
    out << key.cardinality().name()
  }
  m.commit()
} catch (e) { if (m.isOpen()) m.rollback(); throw e }
out
"#;

/// Groovy (JanusGraph's management API, bindings `k` the key and `n` the index name for a new
/// index): a composite index on the key, created unless one on the key alone exists (the key
/// made a SINGLE String if the schema has none), reindexed when the key already held values,
/// and awaited until enabled. Answers `name:created|existing`.
const CREATE_INDEX: &str = r#"
def gr = g.getGraph()
def V = org.apache.tinkerpop.gremlin.structure.Vertex
def S = org.janusgraph.core.schema.SchemaStatus
def MS = org.janusgraph.graphdb.database.management.ManagementSystem
def find = { mg -> mg.getGraphIndexes(V).find { it.isCompositeIndex() && it.getFieldKeys().size() == 1 && it.getFieldKeys()[0].name() == k } }
def m = gr.openManagement()
def created = false
def name
try {
  def pk = m.getPropertyKey(k)
  if (pk == null) pk = m.makePropertyKey(k).dataType(String).cardinality(org.janusgraph.core.Cardinality.SINGLE).make()
  def idx = find(m)
  if (idx == null) { idx = m.buildIndex(n, V).addKey(pk).buildCompositeIndex(); created = true }
  name = idx.name()
  m.commit()
} catch (e) { if (m.isOpen()) m.rollback(); throw e }
MS.awaitGraphIndexStatus(gr, name).status(S.REGISTERED, S.ENABLED).call()
m = gr.openManagement()
def st
try {
  def idx = m.getGraphIndex(name)
  st = idx.getIndexStatus(m.getPropertyKey(k))
  if (st == S.REGISTERED) m.updateIndex(idx, org.janusgraph.core.schema.SchemaAction.REINDEX).get()
  m.commit()
} catch (e) { if (m.isOpen()) m.rollback(); throw e }
if (st != S.ENABLED) MS.awaitGraphIndexStatus(gr, name).status(S.ENABLED).call()
return name + (created ? ':created' : ':existing')
"#;

/// A property column's value type (the exporter's too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    String,
    Bool,
    Byte,
    Short,
    Int,
    Long,
    Float,
    Double,
    Date,
}

impl Kind {
    /// The type's name in a header, as the exporter writes it.
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::String => "String",
            Kind::Bool => "Bool",
            Kind::Byte => "Byte",
            Kind::Short => "Short",
            Kind::Int => "Int",
            Kind::Long => "Long",
            Kind::Float => "Float",
            Kind::Double => "Double",
            Kind::Date => "Date",
        }
    }

    /// The Java class (its simple name) JanusGraph's schema gives a key of this type.
    fn java(self) -> &'static str {
        match self {
            Kind::Bool => "Boolean",
            Kind::Int => "Integer",
            k => k.name(),
        }
    }

    fn parse(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_lowercase().as_str() {
            "string" => Kind::String,
            "bool" | "boolean" => Kind::Bool,
            "byte" => Kind::Byte,
            "short" => Kind::Short,
            "int" => Kind::Int,
            "long" => Kind::Long,
            "float" => Kind::Float,
            "double" => Kind::Double,
            "date" => Kind::Date,
            _ => return None,
        })
    }

    /// The literal of `text` (a non-empty cell, or one value of an array cell).
    fn value(self, text: &str) -> Result<Lit, String> {
        if self == Kind::String {
            return Ok(Lit::String(text.to_owned()));
        }
        let t = text.trim();
        let int = |lo: i64, hi: i64, name: &str| -> Result<i64, String> {
            let n: i64 = t.parse().map_err(|_| format!("{t:?} is not a {name}"))?;
            if n < lo || n > hi {
                return Err(format!("{t} is out of range for a {name}"));
            }
            Ok(n)
        };
        Ok(match self {
            Kind::String => unreachable!("handled above"),
            Kind::Bool => match t.to_ascii_lowercase().as_str() {
                "true" => Lit::Bool(true),
                "false" => Lit::Bool(false),
                _ => return Err(format!("{t:?} is not a Bool (true or false)")),
            },
            Kind::Byte => Lit::Byte(int(i8::MIN.into(), i8::MAX.into(), "Byte")? as i8),
            Kind::Short => Lit::Short(int(i16::MIN.into(), i16::MAX.into(), "Short")? as i16),
            Kind::Int => Lit::Int(int(i32::MIN.into(), i32::MAX.into(), "Int")? as i32),
            Kind::Long => Lit::Long(int(i64::MIN, i64::MAX, "Long")?),
            Kind::Float => Lit::Float(float(t, "Float")? as f32),
            Kind::Double => Lit::Double(float(t, "Double")?),
            Kind::Date => Lit::DateTime(date(t)?),
        })
    }
}

/// A Float or Double: Rust's syntax, but of the infinities only `Infinity` (Neptune's).
fn float(t: &str, name: &str) -> Result<f64, String> {
    match t {
        "Infinity" | "+Infinity" => return Ok(f64::INFINITY),
        "-Infinity" => return Ok(f64::NEG_INFINITY),
        "NaN" => return Ok(f64::NAN),
        _ => {}
    }
    let bad = || format!("{t:?} is not a {name}");
    if t.bytes()
        .any(|b| b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E'))
    {
        return Err(bad());
    }
    t.parse::<f64>().map_err(|_| bad())
}

/// `yyyy-MM-dd`, `yyyy-MM-ddTHH:mm`, `yyyy-MM-ddTHH:mm:ss` or `yyyy-MM-ddTHH:mm:ssZ`, UTC.
fn date(t: &str) -> Result<DateTime, String> {
    let bad = || {
        format!(
            "{t:?} is not a Date (yyyy-MM-dd, yyyy-MM-ddTHH:mm, yyyy-MM-ddTHH:mm:ss or yyyy-MM-ddTHH:mm:ssZ)"
        )
    };
    let num = |s: &str| -> Result<i64, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse().map_err(|_| bad())
    };
    let (day, time) = match t.split_once('T') {
        Some((d, tm)) => (d, Some(tm)),
        None => (t, None),
    };
    let parts: Vec<&str> = day.split('-').collect();
    let [y, m, d] = parts[..] else {
        return Err(bad());
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return Err(bad());
    }
    let (year, month, dom) = (num(y)?, num(m)?, num(d)?);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Err(bad()),
    };
    if dom < 1 || dom > days_in {
        return Err(bad());
    }
    let mut secs = 0;
    if let Some(tm) = time {
        let tm = tm.strip_suffix('Z').unwrap_or(tm);
        let parts: Vec<&str> = tm.split(':').collect();
        let (h, mi, s) = match parts[..] {
            [h, mi] if !time.is_some_and(|x| x.ends_with('Z')) => (h, mi, "00"),
            [h, mi, s] => (h, mi, s),
            _ => return Err(bad()),
        };
        if h.len() != 2 || mi.len() != 2 || s.len() != 2 {
            return Err(bad());
        }
        let (h, mi, s) = (num(h)?, num(mi)?, num(s)?);
        if h > 23 || mi > 59 || s > 59 {
            return Err(bad());
        }
        secs = h * 3600 + mi * 60 + s;
    }
    Ok(DateTime::new(
        year as i32,
        month as i8,
        dom as i8,
        secs * 1_000_000_000,
        0,
    ))
}

/// `cell` split on `;` (not `\;`), each piece unescaped; empty pieces dropped.
fn split_values(cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = cell.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&';') => {
                cur.push(';');
                chars.next();
            }
            ';' => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out.retain(|s| !s.trim().is_empty());
    out
}

/// A column of a header.
#[derive(Debug, Clone)]
enum Column {
    Id,
    Label,
    From,
    To,
    Prop {
        name: String,
        kind: Kind,
        /// As the header says (`None`: no cardinality given), until the header is resolved
        /// ([`Loader::resolve_header`]: the format's `set`, or on JanusGraph the schema's).
        card: Option<Cardinality>,
        array: bool,
    },
}

/// The columns of a header, or the error at its column (from 1).
fn parse_header(
    fields: &csv::StringRecord,
    edges: bool,
) -> Result<Vec<Column>, (Option<usize>, String)> {
    let mut cols = Vec::with_capacity(fields.len());
    let mut seen = [false; 4];
    for (i, raw) in fields.iter().enumerate() {
        let at = Some(i + 1);
        let raw = raw.trim();
        let system = match raw {
            "~id" => Some((0, Column::Id)),
            "~label" => Some((1, Column::Label)),
            "~from" if edges => Some((2, Column::From)),
            "~to" if edges => Some((3, Column::To)),
            _ => None,
        };
        if let Some((n, col)) = system {
            if std::mem::replace(&mut seen[n], true) {
                return Err((at, format!("system column {raw} appears twice")));
            }
            cols.push(col);
            continue;
        }
        if raw.starts_with('~') {
            return Err((
                at,
                format!(
                    "unknown system column {raw:?} in a {} file",
                    if edges { "edge" } else { "vertex" }
                ),
            ));
        }
        cols.push(parse_prop(raw, edges).map_err(|e| (at, e))?);
    }
    let need: &[(usize, &str)] = if edges {
        &[(0, "~id"), (2, "~from"), (3, "~to")]
    } else {
        &[(0, "~id")]
    };
    for &(n, name) in need {
        if !seen[n] {
            return Err((None, format!("the header has no {name} column")));
        }
    }
    Ok(cols)
}

fn parse_prop(raw: &str, edges: bool) -> Result<Column, String> {
    // The name ends at the first ':' not escaped as '\:'.
    let mut name = String::new();
    let mut rest = None;
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if chars.peek().map(|&(_, c)| c) == Some(':') => {
                name.push(':');
                chars.next();
            }
            ':' => {
                rest = Some(&raw[i + 1..]);
                break;
            }
            c => name.push(c),
        }
    }
    if name.is_empty() {
        return Err(format!("column {raw:?} has no property name"));
    }
    let Some(mut ty) = rest else {
        return Ok(Column::Prop {
            name,
            kind: Kind::String,
            card: None,
            array: false,
        });
    };
    let array = match ty.strip_suffix("[]") {
        Some(t) => {
            ty = t;
            true
        }
        None => false,
    };
    let mut card = None;
    if let Some(open) = ty.find('(') {
        let Some(inner) = ty[open + 1..].strip_suffix(')') else {
            return Err(format!("column {raw:?}: unclosed cardinality"));
        };
        card = Some(match inner.to_ascii_lowercase().as_str() {
            "single" => Cardinality::Single,
            "set" => Cardinality::Set,
            other => {
                return Err(format!(
                    "column {raw:?}: unknown cardinality {other:?} (single or set)"
                ))
            }
        });
        ty = &ty[..open];
    }
    let kind = Kind::parse(ty).ok_or_else(|| {
        format!(
            "column {raw:?}: unknown type {ty:?} (String, Bool, Byte, Short, Int, Long, Float, Double, Date)"
        )
    })?;
    if edges && (array || card.is_some()) {
        return Err(format!(
            "column {raw:?}: an edge property is one value (no [] and no cardinality)"
        ));
    }
    if array && card == Some(Cardinality::Single) {
        return Err(format!("column {raw:?}: (single)[] is not allowed"));
    }
    Ok(Column::Prop {
        name,
        kind,
        card,
        array,
    })
}

/// One parsed row: the merge to push, and the extra values of its `[]` cells.
struct Row {
    search: Lit,
    on_create: Lit,
    on_match: Option<Lit>,
    /// `(key, value)` of the second and further values of `[]` cells (vertices).
    extra: Vec<(String, Lit)>,
    /// The element's label.
    label: String,
}

/// The row's merge, or the error at its column.
fn parse_row(
    cols: &[Column],
    rec: &csv::StringRecord,
    edges: bool,
    key: Option<(&str, &HashMap<String, Lit>)>,
) -> Result<Row, (Option<usize>, String)> {
    let mut id = None;
    let mut label = None;
    let mut from = None;
    let mut to = None;
    let mut props: Vec<(Lit, Lit)> = Vec::new();
    let mut extra = Vec::new();
    let mut at = [None; 4];
    for (i, (col, cell)) in cols.iter().zip(rec.iter()).enumerate() {
        let here = Some(i + 1);
        let system = |slot: &mut Option<String>, n: usize, at: &mut [Option<usize>; 4]| {
            at[n] = here;
            let c = cell.trim();
            if !c.is_empty() {
                *slot = Some(c.to_owned());
            }
        };
        match col {
            Column::Id => system(&mut id, 0, &mut at),
            Column::Label => system(&mut label, 1, &mut at),
            Column::From => system(&mut from, 2, &mut at),
            Column::To => system(&mut to, 3, &mut at),
            Column::Prop {
                name,
                kind,
                card,
                array,
            } => {
                if cell.is_empty() {
                    continue;
                }
                let values = if *array {
                    split_values(cell)
                } else {
                    vec![cell.to_owned()]
                };
                let mut lits = Vec::with_capacity(values.len());
                for v in &values {
                    lits.push(kind.value(v).map_err(|e| (here, format!("{name}: {e}")))?);
                }
                let mut lits = lits.into_iter();
                let Some(first) = lits.next() else { continue };
                let first = if edges {
                    first
                } else {
                    Lit::CardinalityValue(card.unwrap_or(Cardinality::Set), Box::new(first))
                };
                props.push((Lit::from(name.as_str()), first));
                extra.extend(lits.map(|l| (name.clone(), l)));
            }
        }
    }
    let need = |v: Option<String>, n: usize, name: &str| {
        v.ok_or_else(|| (at[n], format!("{name} is empty")))
    };
    let id = need(id, 0, "~id")?;
    let label = match label {
        Some(l) if l.contains(';') && !edges => {
            return Err((
                at[1],
                format!("several labels ({l:?}) are not supported: the graph takes one"),
            ))
        }
        Some(l) => l,
        None if edges => "edge".to_owned(),
        None => "vertex".to_owned(),
    };
    let id_entry = match key {
        Some((k, _)) => (Lit::from(k), Lit::String(id)),
        None => (Lit::from(T::Id), Lit::String(id)),
    };
    let label_entry = (Lit::from(T::Label), Lit::String(label.clone()));
    let on_match = (!props.is_empty()).then(|| Lit::Map(props.clone()));
    if edges {
        let from = need(from, 2, "~from")?;
        let to = need(to, 3, "~to")?;
        let end = |v: String, n: usize, name: &str| match key {
            None => Ok(Lit::String(v)),
            Some((k, ids)) => ids.get(&v).cloned().ok_or_else(|| {
                (
                    at[n],
                    format!("{name} {v:?}: no vertex has {k} = {v:?} (load its vertex first)"),
                )
            }),
        };
        let search = Lit::Map(vec![
            label_entry,
            (Lit::from(Direction::Out), end(from, 2, "~from")?),
            (Lit::from(Direction::In), end(to, 3, "~to")?),
            id_entry,
        ]);
        Ok(Row {
            search,
            on_create: Lit::Map(props),
            on_match,
            extra,
            label,
        })
    } else {
        let mut create = vec![label_entry];
        create.extend(props);
        Ok(Row {
            search: Lit::Map(vec![id_entry]),
            on_create: Lit::Map(create),
            on_match,
            extra,
            label,
        })
    }
}

/// Where a pushed item came from: `(file index, line)`.
type Origin = (u32, u64);

/// One writer and where each of its items came from.
struct Phase {
    writer: BatchWriter,
    origins: Vec<Origin>,
}

/// The loader: vertex and edge files in the Neptune bulk-load CSV format (`~id`, `~label`,
/// `~from`, `~to` and typed `name:Type` columns), written through a [`BatchWriter`] of the
/// client.
///
/// ```no_run
/// # async fn demo(client: graphbinary_client::Client) -> Result<(), Box<dyn std::error::Error>> {
/// use graphbinary_client::process::{BatchOptions, Loader};
///
/// let mut loader = Loader::new(&client, BatchOptions::default());
/// loader.load_vertices("nodes.csv", std::fs::File::open("nodes.csv")?).await?;
/// loader.load_edges("edges.csv", std::fs::File::open("edges.csv")?).await?;
/// let summary = loader.finish().await;
/// println!("{summary}");
/// for e in &summary.errors {
///     eprintln!("{e}"); // file:line:column: why
/// }
/// # Ok(()) }
/// ```
///
/// Vertex files are written before the edge files loaded after them: a call of
/// [`load_edges`](Loader::load_edges) first waits for every vertex pushed before it. Reading is
/// blocking (`std::io::Read`, buffered by the CSV reader): hand it a file or a buffer, not a
/// socket that may stall the runtime.
///
/// Edges are written as many requests at once as vertices (the [`BatchOptions`]'
/// in-flight): the batch writer never runs two requests that write at one vertex
/// ([`BatchWriter`](super::BatchWriter#requests)). TinkerGraph needs it: each vertex's
/// adjacency is a plain `HashMap` of `HashSet`s, so two requests adding edges at one vertex
/// (air-routes' hubs have hundreds) race. When the writer sent batches as they came, 4 edge
/// requests in flight left air-routes corrupt in Gremlin Server 4.0.0-beta.3 in 4 of 7 runs
/// (`g.V().inE()` and `drop()` failing with an `ArrayIndexOutOfBoundsException`, or
/// `g.V().outE().count()` 37 more than `g.E().count()`); with the rule, `graphbinary load`
/// writes edges 4 at once and air-routes comes back whole (`e2e_load`), in 3.5-3.8 s here
/// against 5.2-5.7 s one request at a time. Graphs that lock (Neptune, JanusGraph) fail or
/// retry fewer requests for it.
pub struct Loader {
    client: Client,
    options: BatchOptions,
    files: Vec<String>,
    vertices: Option<Phase>,
    edges: Option<Phase>,
    /// Extra `[]` values: `(vertex id, its onCreate map, key, value, origin)`, written after
    /// the vertices.
    extra: Vec<(Lit, Lit, String, Lit, Origin)>,
    /// The key property of [`Loader::key_property`].
    key: Option<String>,
    /// With a key property: the server's vertex id of each key value, read back once the
    /// vertices are written (`stale` until then).
    ids: HashMap<String, Lit>,
    stale: bool,
    /// With a key property: the `~id`s of the vertices read, whose server ids are read back
    /// by key (`has(key, within(..))`, which a composite index answers).
    keys: Vec<String>,
    /// Whether [`Loader::create_index`] was asked for.
    create_index: bool,
    /// Whether the key's index was checked (or created).
    key_ready: bool,
    /// Whether the server is JanusGraph (found out with the key's index): its schema is
    /// made before the rows that need it, and its keys' cardinalities are followed.
    janus: bool,
    /// On JanusGraph, the labels known to be in the schema (`(edge?, label)`), and those that
    /// could not be made, with why.
    labels: HashMap<(bool, String), Option<String>>,
    summary: LoadSummary,
}

impl fmt::Debug for Loader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loader")
            .field("files", &self.files)
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

impl Loader {
    /// A loader writing through `client` with these batch options.
    pub fn new(client: &Client, options: BatchOptions) -> Loader {
        Loader {
            client: client.clone(),
            options,
            files: Vec::new(),
            vertices: None,
            edges: None,
            extra: Vec::new(),
            key: None,
            ids: HashMap::new(),
            stale: false,
            keys: Vec::new(),
            create_index: false,
            key_ready: false,
            janus: false,
            labels: HashMap::new(),
            summary: LoadSummary::default(),
        }
    }

    /// Upserts by the property `name` instead of by id, for a graph that assigns its own ids
    /// (JanusGraph): a vertex is `mergeV([name: ~id])` (its `~id` kept as a String property
    /// `name`), an edge `mergeE([(T.label): label, (Direction.OUT): from, (Direction.IN): to,
    /// name: ~id])` where `from` and `to` are the server's ids of the vertices whose `name` is
    /// the row's `~from` and `~to`. Those ids are read back before the first edge file after
    /// vertices (`g.V().has(name).project('k','i').by(name).by(id)`, held in memory: one
    /// entry per vertex); a `~from` or `~to` no vertex has is a rejected row. Index `name`
    /// on a large graph, or each upsert scans it ([`Loader::create_index`]).
    ///
    /// On JanusGraph (found out by a Groovy script before the first file), the schema is
    /// followed and made first, through its management API:
    ///
    /// * **Cardinality.** JanusGraph refuses a value whose cardinality is not its key's
    ///   (`set` for a SINGLE key: its default, so every row of air-routes, whose columns give
    ///   none, would be refused with the format's default). A column that gives no
    ///   cardinality takes its key's (`single` for a SINGLE key, `set` for a SET one); a
    ///   `(set)` or `[]` column of a SINGLE key, or a column of a LIST key that does not say
    ///   `(single)`, rejects its file naming the column.
    /// * **Labels and keys made first.** JanusGraph makes a missing label or key in the
    ///   transaction of the write that first uses it, so two requests in flight that both
    ///   use a new one each make one: two edge labels `route`, of which `outE('route')`
    ///   then finds one's edges (seen: 23 of 40 edges; JanusGraph's documentation advises
    ///   making types up front). The keys of each header (and `name`) are made before its
    ///   rows (SINGLE, or SET for a `(set)` or `[]` column, of the column's type), each new
    ///   label before the first row that has it.
    pub fn key_property(mut self, name: impl Into<String>) -> Loader {
        self.key = Some(name.into());
        // An edge file loaded without vertex files reads the ids of the whole graph.
        self.stale = true;
        self
    }

    /// With a [`key_property`](Loader::key_property) on JanusGraph: before anything is
    /// written, creates a composite index on the key through JanusGraph's management API (a
    /// Groovy script: `openManagement()`, the key made a SINGLE String property if the schema
    /// has none, `buildIndex(..).addKey(key).buildCompositeIndex()`, `commit()`, then
    /// `ManagementSystem.awaitGraphIndexStatus` until it is enabled; a key that already holds
    /// values is reindexed first). Idempotent: a composite index on the key alone, whatever
    /// its name, is used as it is. A server that is not JanusGraph, or runs no Groovy, fails
    /// the load with the error, in the context of creating the index.
    ///
    /// Without it, the loader checks (on JanusGraph) that the key has an enabled composite
    /// index when the graph refuses unindexed lookups (`query.force-index=true`), and stops
    /// before writing with [`Error::Unsupported`] naming the key and this option when it has
    /// none.
    pub fn create_index(mut self) -> Loader {
        self.create_index = true;
        self
    }

    /// Checks (or creates) the key's index, once, before anything is written.
    async fn prepare_key(&mut self) -> Result<(), Error> {
        let Some(key) = self.key.clone().filter(|_| !self.key_ready) else {
            return Ok(());
        };
        let script = if self.create_index {
            CREATE_INDEX
        } else {
            CHECK_INDEX
        };
        // Idempotent (a check, or made unless there): sent again on another host when its
        // connection dies.
        let mut req = self
            .client
            .request(script)
            .language("gremlin-groovy")
            .idempotent(true)
            .param("k", key.as_str())
            .param("n", index_name(&key).as_str());
        if self.create_index {
            // Reindexing a key that holds values scans the graph.
            req = req.timeout_millis(600_000);
        }
        if let Some(alias) = &self.options.source {
            req = req.g(alias.clone());
        }
        let answer = match req.send().await {
            Ok(r) => r.all().await,
            Err(e) => Err(e),
        };
        match answer {
            Err(e) if self.create_index => {
                return Err(e.context(format!(
                    "creating a composite index on the key property {key:?} (JanusGraph's \
                     management API)"
                )))
            }
            // Not JanusGraph (or no Groovy): nothing to check.
            Err(_) => {}
            Ok(v) => {
                let text = v.first().and_then(Value::as_str).unwrap_or("");
                // CREATE_INDEX runs on JanusGraph only.
                self.janus = self.create_index || text.starts_with("janus|");
                if !self.create_index
                    && text.starts_with("janus|force|")
                    && !text.ends_with(":ENABLED")
                {
                    return Err(Error::Unsupported {
                        server: "JanusGraph with query.force-index",
                        what: format!(
                            "an upsert by the key property {key:?}, which has no enabled \
                             composite index (nothing was written: create the index with \
                             graphbinary load --create-index, or Loader::create_index, and run \
                             again)"
                        ),
                    });
                }
            }
        }
        self.key_ready = true;
        Ok(())
    }

    /// Runs [`SCHEMA`] (JanusGraph): labels `vl` and `el` and keys `pk` made unless the schema
    /// has them; the cardinality of each key of `pk`.
    async fn schema(
        &self,
        vl: Vec<String>,
        el: Vec<String>,
        pk: Vec<Vec<String>>,
    ) -> Result<Vec<String>, Error> {
        let mut req = self
            .client
            .request(SCHEMA)
            .language("gremlin-groovy")
            // Made unless there: sent again on another host when its connection dies.
            .idempotent(true)
            .param("vl", vl)
            .param("el", el)
            .param("pk", pk);
        if let Some(alias) = &self.options.source {
            req = req.g(alias.clone());
        }
        let answer = req.send().await?.all().await?;
        Ok(answer
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect())
    }

    /// The header's cardinalities: the format's default, `set`, for a column that gives none;
    /// on JanusGraph its keys made (and the key property's) unless the schema has them, and
    /// each column's cardinality the schema's key's (a column that gives none takes the
    /// key's, SINGLE for a key made here; a `(set)` or `[]` column of a SINGLE key, or a
    /// column of a LIST key that is not `(single)`, is refused at its column).
    async fn resolve_header(
        &self,
        cols: &mut [Column],
        edges: bool,
    ) -> Result<(), (Option<usize>, String)> {
        if !self.janus {
            for col in cols.iter_mut() {
                if let Column::Prop { card, .. } = col {
                    card.get_or_insert(Cardinality::Set);
                }
            }
            return Ok(());
        }
        let mut pk: Vec<Vec<String>> = Vec::new();
        for col in cols.iter() {
            if let Column::Prop {
                name,
                kind,
                card,
                array,
            } = col
            {
                let set = !edges && (*array || *card == Some(Cardinality::Set));
                let card = if set { "set" } else { "single" };
                pk.push(vec![name.clone(), kind.java().into(), card.into()]);
            }
        }
        if let Some(k) = &self.key {
            pk.push(vec![k.clone(), "String".into(), "single".into()]);
        }
        let cards = self.schema(Vec::new(), Vec::new(), pk).await.map_err(|e| {
            (
                None,
                format!(
                    "making the keys of the header (JanusGraph's management API): {}",
                    crate::format::text::one_line(&e)
                ),
            )
        })?;
        let mut cards = cards.into_iter();
        for (i, col) in cols.iter_mut().enumerate() {
            let Column::Prop {
                name, card, array, ..
            } = col
            else {
                continue;
            };
            let schema = cards.next().unwrap_or_default();
            if edges {
                continue;
            }
            let refuse = |why: String| Err((Some(i + 1), format!("column {name:?}: {why}")));
            *card = Some(match (schema.as_str(), *card, *array) {
                ("SINGLE", Some(Cardinality::Set), _) | ("SINGLE", _, true) => {
                    return refuse(format!(
                        "the graph's property key {name:?} is SINGLE: (set) and [] need a SET key"
                    ))
                }
                ("SINGLE", _, _) => Cardinality::Single,
                ("SET", c, _) => c.unwrap_or(Cardinality::Set),
                ("LIST", Some(Cardinality::Single), _) => Cardinality::Single,
                ("LIST", _, _) => {
                    return refuse(format!(
                        "the graph's property key {name:?} is LIST, whose values the loader \
                         cannot write once only: make the column (single), or the key SET"
                    ))
                }
                (other, _, _) => {
                    return refuse(format!(
                        "the graph's property key {name:?} has the cardinality {other:?}"
                    ))
                }
            });
        }
        Ok(())
    }

    /// On JanusGraph, makes the `label` of a row (of an edge file when `edges`) unless the
    /// schema has it, before the row is sent; why not, if it could not be made.
    async fn ensure_label(&mut self, label: &str, edges: bool) -> Result<(), String> {
        if !self.janus {
            return Ok(());
        }
        let k = (edges, label.to_owned());
        if let Some(known) = self.labels.get(&k) {
            return known.clone().map_or(Ok(()), Err);
        }
        let (vl, el) = if edges {
            (Vec::new(), vec![label.to_owned()])
        } else {
            (vec![label.to_owned()], Vec::new())
        };
        let outcome = self.schema(vl, el, Vec::new()).await.err().map(|e| {
            format!(
                "making the {} label {label:?} (JanusGraph's management API): {}",
                if edges { "edge" } else { "vertex" },
                crate::format::text::one_line(&e)
            )
        });
        self.labels.insert(k, outcome.clone());
        outcome.map_or(Ok(()), Err)
    }

    /// Reads a vertex file named `name` (for errors) from `reader` and queues its upserts.
    pub async fn load_vertices<R: Read>(&mut self, name: &str, reader: R) -> Result<(), Error> {
        self.prepare_key().await?;
        if let Some(p) = self.edges.take() {
            self.close(p, false).await;
        }
        self.load(name, reader, false).await
    }

    /// Reads an edge file named `name` from `reader` and queues its upserts, once the vertices
    /// queued before are written.
    pub async fn load_edges<R: Read>(&mut self, name: &str, reader: R) -> Result<(), Error> {
        self.prepare_key().await?;
        self.end_vertices().await;
        self.read_ids().await?;
        self.load(name, reader, true).await
    }

    /// With a key property, the vertices' ids by key once vertices were written since.
    async fn read_ids(&mut self) -> Result<(), Error> {
        let Some(key) = self.key.clone().filter(|_| self.stale) else {
            return Ok(());
        };
        let failed = |e: Error| e.context(format!("reading the vertex ids by key {key:?}"));
        let g = GraphTraversalSource::new(self.client.clone()).idempotent_reads(true);
        let g = match &self.options.source {
            Some(alias) => g.alias(alias.clone()),
            None => g,
        };
        self.ids.clear();
        // By the keys read (`within`, answered by a composite index on the key: JanusGraph
        // with query.force-index refuses `has(key)`), or, when no vertex file was read, every
        // vertex with the key.
        let chunks: Vec<Option<&[String]>> = if self.keys.is_empty() {
            vec![None]
        } else {
            self.keys.chunks(ID_CHUNK).map(Some).collect()
        };
        for chunk in chunks {
            let t = match chunk {
                Some(keys) => g.v(()).has((key.as_str(), P::within(keys.to_vec()))),
                None => g.v(()).has(key.as_str()),
            };
            let mut s = t
                .project(("k", "i"))
                .by(key.as_str())
                .by(T::Id)
                .stream()
                .await
                .map_err(failed)?;
            while let Some(r) = s.next().await {
                let r = r.map_err(failed)?;
                let (mut k, mut i) = (None, None);
                if let Value::Map(entries) | Value::OrderedMap(entries) = r {
                    for (name, v) in entries {
                        match name.as_str() {
                            Some("k") => k = v.as_str().map(str::to_owned),
                            Some("i") => i = Lit::try_from(v).ok(),
                            _ => {}
                        }
                    }
                }
                if let (Some(k), Some(i)) = (k, i) {
                    self.ids.insert(k, i);
                }
            }
        }
        self.stale = false;
        Ok(())
    }

    /// Waits for everything queued and reports.
    pub async fn finish(mut self) -> LoadSummary {
        self.end_vertices().await;
        if let Some(p) = self.edges.take() {
            self.close(p, false).await;
        }
        self.summary
    }

    /// Writes the vertices queued, then their extra `[]` values.
    async fn end_vertices(&mut self) {
        if let Some(p) = self.vertices.take() {
            self.close(p, true).await;
        }
        if self.extra.is_empty() {
            return;
        }
        // Several values of one vertex are never in two requests at once (the writer's rule):
        // TinkerGraph's vertex properties are a plain HashMap too.
        let mut phase = Phase {
            writer: self.client.batch_writer(self.options.clone()),
            origins: Vec::new(),
        };
        for (id, create, key, value, origin) in std::mem::take(&mut self.extra) {
            let one = |l: Lit| Lit::Map(vec![(Lit::from(key.as_str()), l)]);
            let set = Lit::CardinalityValue(Cardinality::Set, Box::new(value));
            let mut create = create;
            if let Lit::Map(m) = &mut create {
                m.retain(|(k, _)| *k != Lit::from(key.as_str()));
                m.push((Lit::from(key.as_str()), set.clone()));
            }
            let search = match &self.key {
                Some(k) => Lit::Map(vec![(Lit::from(k.as_str()), id)]),
                None => Lit::Map(vec![(Lit::from(T::Id), id)]),
            };
            if phase
                .writer
                .merge_v(search, Some(create), Some(one(set)))
                .await
                .is_err()
            {
                break;
            }
            phase.origins.push(origin);
        }
        let report = phase.writer.finish().await;
        let report = self.isolate(report).await;
        self.summary.extra_values += report.written;
        self.account(&report, &phase.origins);
    }

    async fn close(&mut self, p: Phase, vertices: bool) {
        let report = p.writer.finish().await;
        let report = self.isolate(report).await;
        let c = if vertices {
            &mut self.summary.vertices
        } else {
            &mut self.summary.edges
        };
        c.written += report.written;
        c.created += report.created;
        c.matched += report.matched;
        self.account(&report, &p.origins);
    }

    /// `report` with its failed items sent again one per request: a request fails as a
    /// whole (an edge to a missing vertex fails the edges sent with it), so only the items
    /// that fail alone are rejected.
    async fn isolate(&self, mut report: Report) -> Report {
        if report.failed.is_empty() {
            return report;
        }
        let failed = std::mem::take(&mut report.failed);
        let mut w = self.client.batch_writer(self.options.clone().batch_size(1));
        let mut sent = Vec::with_capacity(failed.len());
        for f in failed {
            match w.push(f.op.clone()).await {
                Ok(_) => sent.push(f.index),
                Err(_) => report.failed.push(f),
            }
        }
        let again = w.finish().await;
        report.written += again.written;
        report.created += again.created;
        report.matched += again.matched;
        report.requests += again.requests;
        report.retried += again.retried;
        report.failed.extend(again.failed.into_iter().map(|mut f| {
            f.index = usize::try_from(f.index)
                .ok()
                .and_then(|i| sent.get(i))
                .copied()
                .unwrap_or(u64::MAX);
            f
        }));
        report
    }

    /// Requests and failed items of `report`, each failure as a rejected row.
    fn account(&mut self, report: &Report, origins: &[Origin]) {
        self.summary.requests += report.requests;
        self.summary.retried += report.retried;
        for f in &report.failed {
            let (file, line) = usize::try_from(f.index)
                .ok()
                .and_then(|i| origins.get(i))
                .copied()
                .unwrap_or((u32::MAX, 0));
            let file = self
                .files
                .get(file as usize)
                .cloned()
                .unwrap_or_else(|| "?".into());
            let message = format!(
                "not written: {}",
                crate::format::text::one_line(f.error.as_ref())
            );
            self.summary.reject(RejectedRow {
                file,
                line,
                column: None,
                message,
            });
        }
    }

    async fn load<R: Read>(&mut self, name: &str, reader: R, edges: bool) -> Result<(), Error> {
        if !edges {
            self.stale = true;
        }
        let file_ix = self.files.len() as u32;
        self.files.push(name.to_owned());
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(reader);
        let io = |e: csv::Error| -> Error {
            let file = name.to_owned();
            let source = match e.into_kind() {
                csv::ErrorKind::Io(source) => source,
                other => std::io::Error::other(format!("{other:?}")),
            };
            Error::File {
                action: "reading",
                file,
                source,
            }
        };
        let reject = |summary: &mut LoadSummary, line: u64, column, message| {
            summary.reject(RejectedRow {
                file: name.to_owned(),
                line,
                column,
                message,
            })
        };
        let mut rec = csv::StringRecord::new();
        // The header.
        let cols = {
            match rdr.read_record(&mut rec) {
                Ok(false) => {
                    reject(
                        &mut self.summary,
                        1,
                        None,
                        "the file is empty: no header".into(),
                    );
                    return Ok(());
                }
                Ok(true) => {}
                Err(e) if e.is_io_error() => return Err(io(e)),
                Err(e) => {
                    let line = e.position().map_or(1, |p| p.line());
                    reject(&mut self.summary, line, None, format!("header: {e}"));
                    return Ok(());
                }
            }
            // Strip a UTF-8 byte order mark from the first cell.
            let fields: csv::StringRecord = rec
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    if i == 0 {
                        f.trim_start_matches('\u{feff}')
                    } else {
                        f
                    }
                })
                .collect();
            let cols = match parse_header(&fields, edges) {
                Ok(mut cols) => self.resolve_header(&mut cols, edges).await.map(|()| cols),
                Err(e) => Err(e),
            };
            match cols {
                Ok(cols) => cols,
                Err((column, message)) => {
                    reject(&mut self.summary, 1, column, message);
                    return Ok(());
                }
            }
        };
        loop {
            let line = rdr.position().line();
            match rdr.read_record(&mut rec) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) if e.is_io_error() => return Err(io(e)),
                Err(e) => {
                    self.summary.rows += 1;
                    let (line, column, message) = match e.kind() {
                        csv::ErrorKind::Utf8 { pos, err } => (
                            pos.as_ref().map_or(line, |p| p.line()),
                            Some(err.field() + 1),
                            format!("invalid UTF-8 after byte {} of the cell", err.valid_up_to()),
                        ),
                        _ => (e.position().map_or(line, |p| p.line()), None, e.to_string()),
                    };
                    reject(&mut self.summary, line, column, message);
                    continue;
                }
            }
            let line = rec.position().map_or(line, |p| p.line());
            self.summary.rows += 1;
            if rec.len() != cols.len() {
                let message = format!(
                    "{} cells where the header has {} columns",
                    rec.len(),
                    cols.len()
                );
                reject(&mut self.summary, line, None, message);
                continue;
            }
            let key = self.key.as_deref().map(|k| (k, &self.ids));
            let row = match parse_row(&cols, &rec, edges, key) {
                Ok(row) => row,
                Err((column, message)) => {
                    reject(&mut self.summary, line, column, message);
                    continue;
                }
            };
            if let Err(message) = self.ensure_label(&row.label, edges).await {
                reject(&mut self.summary, line, None, message);
                continue;
            }
            let origin = (file_ix, line);
            let client = &self.client;
            let options = self.options.clone();
            let slot = if edges {
                &mut self.edges
            } else {
                &mut self.vertices
            };
            let phase = slot.get_or_insert_with(|| Phase {
                writer: client.batch_writer(options),
                origins: Vec::new(),
            });
            if !edges && self.key.is_some() {
                if let Lit::Map(m) = &row.search {
                    if let Some((_, Lit::String(id))) = m.first() {
                        self.keys.push(id.clone());
                    }
                }
            }
            if !edges && !row.extra.is_empty() {
                let id = match &row.search {
                    Lit::Map(m) => m[0].1.clone(),
                    _ => unreachable!("a vertex search is a map"),
                };
                for (k, v) in &row.extra {
                    self.extra.push((
                        id.clone(),
                        row.on_create.clone(),
                        k.clone(),
                        v.clone(),
                        origin,
                    ));
                }
            }
            if edges {
                phase
                    .writer
                    .merge_e(row.search, Some(row.on_create), row.on_match)
                    .await
                    .map_err(writer_stopped)?;
            } else {
                phase
                    .writer
                    .merge_v(row.search, Some(row.on_create), row.on_match)
                    .await
                    .map_err(writer_stopped)?;
            }
            phase.origins.push(origin);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(s: &str, edges: bool) -> Result<Vec<Column>, (Option<usize>, String)> {
        parse_header(
            &csv::StringRecord::from(s.split(',').collect::<Vec<_>>()),
            edges,
        )
    }

    #[test]
    fn headers() {
        let cols = header(
            "~id,~label,name:String,age:INT(single),tags:string(set)[],a\\:b",
            false,
        )
        .unwrap();
        assert_eq!(cols.len(), 6);
        assert!(
            matches!(
                &cols[3],
                Column::Prop { name, kind: Kind::Int, card: Some(Cardinality::Single), array: false }
                    if name == "age"
            ),
            "{:?}",
            cols[3]
        );
        assert!(matches!(
            &cols[4],
            Column::Prop {
                array: true,
                card: Some(Cardinality::Set),
                ..
            }
        ));
        assert!(matches!(&cols[5], Column::Prop { name, kind: Kind::String, .. } if name == "a:b"));
        assert_eq!(
            header("~label,name", false).unwrap_err().1,
            "the header has no ~id column"
        );
        let e = header("~id,x:blob", false).unwrap_err();
        assert_eq!(e.0, Some(2));
        assert!(e.1.contains("unknown type \"blob\""), "{}", e.1);
        assert!(header("~id,~from,~to,w:int[]", true).is_err());
        assert!(header("~id,~from,~to,w:int(single)", true).is_err());
        assert!(header("~id,x:int(single)[]", false).is_err());
        assert!(header("~id,~id", false).is_err());
    }

    #[test]
    fn values() {
        assert_eq!(Kind::Int.value(" 42 ").unwrap(), Lit::Int(42));
        assert!(Kind::Byte.value("128").is_err());
        assert!(Kind::Int.value("4x").is_err());
        assert_eq!(Kind::Long.value("-9").unwrap(), Lit::Long(-9));
        assert_eq!(Kind::Bool.value("TRUE").unwrap(), Lit::Bool(true));
        assert!(Kind::Bool.value("yes").is_err());
        assert!(Kind::Double.value("inf").is_err());
        assert!(
            matches!(Kind::Double.value("-Infinity").unwrap(), Lit::Double(d) if d == f64::NEG_INFINITY)
        );
        assert_eq!(Kind::Double.value("1.5e3").unwrap(), Lit::Double(1500.0));
        assert_eq!(
            Kind::String.value(" a ").unwrap(),
            Lit::String(" a ".into())
        );
        assert_eq!(
            Kind::Date.value("2024-02-29T10:11:12Z").unwrap(),
            Lit::DateTime(DateTime::new(
                2024,
                2,
                29,
                (10 * 3600 + 11 * 60 + 12) * 1_000_000_000,
                0
            ))
        );
        assert_eq!(
            Kind::Date.value("2024-03-01").unwrap(),
            Lit::DateTime(DateTime::new(2024, 3, 1, 0, 0))
        );
        assert!(Kind::Date.value("2023-02-29").is_err());
        assert!(Kind::Date.value("2023-1-2").is_err());
        assert!(Kind::Date.value("2023-01-02T10").is_err());
    }

    #[test]
    fn multi_values() {
        assert_eq!(split_values(r"a;b\;c;;d"), vec!["a", "b;c", "d"]);
        assert_eq!(split_values(r"a\b"), vec![r"a\b"]);
    }
}
