//! Text forms: Gremlin Console style [`Display`] for [`Value`] (`v[1]`,
//! `e[7][1-knows->2]`, `vp[name->marko]`, `[k:v]`, ...). Numbers, dates and durations render
//! as Java does (the crate-private `java` module, shared with GraphSON).

use std::error::Error;
use std::fmt::{self, Display, Formatter, Write};

use crate::format::java::{base64, java_double, java_float};
use crate::value::{Edge, Path, Property, Tree, Value, Vertex, VertexProperty};

fn join_labels(labels: &[std::sync::Arc<str>]) -> String {
    labels.iter().map(|l| &**l).collect::<Vec<_>>().join("::")
}

fn list<'a>(f: &mut Formatter<'_>, items: impl Iterator<Item = &'a Value>) -> fmt::Result {
    f.write_char('[')?;
    for (i, v) in items.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        v.fmt(f)?;
    }
    f.write_char(']')
}

fn map<'a>(
    f: &mut Formatter<'_>,
    entries: impl Iterator<Item = (&'a Value, &'a Value)>,
) -> fmt::Result {
    f.write_char('[')?;
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{k}:{v}")?;
    }
    f.write_char(']')
}

/// The most items a bulked List (or a bulked result) is expanded to for display. Past it,
/// text shows each item with its bulk (`josh×3`) and GraphSON writes the List in GraphSON 3's
/// lossless `g:BulkSet` form, so that a huge (or corrupted) bulk cannot make output endless.
pub const MAX_BULK_EXPANSION: u64 = 1 << 20;

/// The number of items a bulked List expands to (bulks below 1 count as none), if it is at
/// most [`MAX_BULK_EXPANSION`].
pub(crate) fn expanded_len(items: &[(Value, i64)]) -> Option<u64> {
    let mut total: u64 = 0;
    for (_, n) in items {
        total = total.checked_add((*n).max(0) as u64)?;
        if total > MAX_BULK_EXPANSION {
            return None;
        }
    }
    Some(total)
}

/// Expands a bulked List (bulks below 1 count as none). Callers check [`expanded_len`] first.
pub(crate) fn expand_bulk(items: &[(Value, i64)]) -> impl Iterator<Item = &Value> {
    items
        .iter()
        .flat_map(|(v, n)| std::iter::repeat_n(v, (*n).max(0) as usize))
}

impl Display for Vertex {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "v[{}]", self.id)
    }
}
impl Display for Edge {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "e[{}][{}-{}->{}]",
            self.id,
            self.out_v_id,
            join_labels(&self.label),
            self.in_v_id
        )
    }
}
impl Display for VertexProperty {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "vp[{}->{}]", join_labels(&self.label), self.value)
    }
}
impl Display for Property {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "p[{}->{}]", self.key, self.value)
    }
}
impl Display for Path {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("path")?;
        list(f, self.objects.iter())
    }
}
impl Display for Tree {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{k}:{v}")?;
        }
        f.write_char(']')
    }
}

impl Display for Value {
    /// One line in the Gremlin Console's style: `v[1]`, `e[7][1-knows->2]`,
    /// `vp[name->marko]`, `p[since->2009]`, `path[v[1], v[2]]`, `[name:marko, age:29]`,
    /// `[a, b]`; a String as itself; `null`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null(_) => f.write_str("null"),
            Value::Int(v) => v.fmt(f),
            Value::Long(v) => v.fmt(f),
            Value::String(v) => f.write_str(v),
            Value::DateTime(v) => v.fmt(f),
            Value::Double(v) => f.write_str(&java_double(*v)),
            Value::Float(v) => f.write_str(&java_float(*v)),
            Value::List(v) | Value::Set(v) => list(f, v.iter()),
            Value::BulkList(v) if expanded_len(v).is_some() => list(f, expand_bulk(v)),
            Value::BulkList(v) => {
                f.write_char('[')?;
                for (i, (item, n)) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}×{n}")?;
                }
                f.write_char(']')
            }
            Value::Map(v) | Value::OrderedMap(v) => map(f, v.iter().map(|(k, v)| (k, v))),
            Value::Uuid(v) => v.fmt(f),
            Value::Edge(v) => v.fmt(f),
            Value::Path(v) => v.fmt(f),
            Value::Property(v) => v.fmt(f),
            Value::Graph(g) => write!(
                f,
                "graph[vertices:{} edges:{}]",
                g.vertices.len(),
                g.edges.len()
            ),
            Value::Vertex(v) => v.fmt(f),
            Value::VertexProperty(v) => v.fmt(f),
            Value::Direction(v) => v.fmt(f),
            Value::T(v) => v.fmt(f),
            Value::BigDecimal(v) => f.write_str(&v.to_java_string()),
            Value::BigInteger(v) => v.fmt(f),
            Value::Byte(v) => v.fmt(f),
            Value::Binary(v) => f.write_str(&base64(v)),
            Value::Short(v) => v.fmt(f),
            Value::Boolean(v) => v.fmt(f),
            Value::Tree(v) => v.fmt(f),
            Value::Merge(v) => v.fmt(f),
            Value::CompositePdt(p) => {
                f.write_str(&p.type_name)?;
                map(f, p.fields.iter().map(|(k, v)| (k, v)))
            }
            Value::PrimitivePdt(p) => write!(f, "{}[{}]", p.type_name, p.value),
            Value::Marker => f.write_str("marker"),
            Value::Char(v) => f.write_char(*v),
            Value::Duration(v) => v.fmt(f),
        }
    }
}

/// Renders `err` and its chain of sources on one line, joined by `": "`, with line breaks
/// inside a message turned into spaces (for a log line or stderr). The crate's errors print
/// each cause once: a message never repeats its source, so the chain is joined as it is; a
/// source with an empty message adds nothing.
///
/// ```
/// use graphbinary_client::{format::text::one_line, Value};
///
/// let e = Value::from_bytes(&[0x99, 0x00]).unwrap_err();
/// assert_eq!(one_line(&e), "at byte 0: unknown type code 0x99");
/// ```
pub fn one_line(err: &(dyn Error + 'static)) -> String {
    let mut line = err.to_string();
    let mut src = err.source();
    while let Some(s) = src {
        let msg = s.to_string();
        if !msg.is_empty() {
            line.push_str(": ");
            line.push_str(&msg);
        }
        src = s.source();
    }
    line.replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::one_line;
    use crate::value::Value;

    #[test]
    fn a_decode_error_prints_its_offset_and_rule_once() {
        let e = Value::from_bytes(&[0x99, 0x00]).unwrap_err();
        assert_eq!(one_line(&e), "at byte 0: unknown type code 0x99");
    }
}
