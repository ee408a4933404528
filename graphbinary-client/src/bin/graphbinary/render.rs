//! How results are printed: one line per result (text, JSON, GraphSON), their count, or maps
//! and element maps as aligned tables.

use std::fmt::Write as _;
use std::io::{self, Write};

use graphbinary_client::format::graphson::write_graphson;
use graphbinary_client::value::Value;

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One Gremlin Console style line per result.
    Text,
    /// Maps and element maps as aligned tables (rows in batches of up to 100), every other
    /// result as text.
    Table,
    /// One JSON document per result (plain JSON: numbers, strings, arrays, objects).
    Json,
    /// One GraphSON document per line: GraphSON 4 over http(s)://, GraphSON 3 over ws(s)://
    /// (TinkerPop 3.x).
    Graphson,
    /// Only the number of results.
    Count,
}

impl Format {
    /// The name `:format` and `--format` take.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Table => "table",
            Format::Json => "json",
            Format::Graphson => "graphson",
            Format::Count => "count",
        }
    }

    /// The format called `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        [
            Format::Text,
            Format::Table,
            Format::Json,
            Format::Graphson,
            Format::Count,
        ]
        .into_iter()
        .find(|f| f.name() == name)
    }
}

/// Rows of a table printed at once: their widths decide the columns'.
const TABLE_BATCH: usize = 100;

/// Prints results as they come.
pub struct Renderer<W: Write> {
    out: W,
    format: Format,
    bulk: bool,
    graphson3: bool,
    line: String,
    /// Map results waiting to be printed as a table.
    rows: Vec<(Vec<(String, String)>, i64)>,
    /// The results so far (bulk counted).
    pub results: u64,
}

impl<W: Write> Renderer<W> {
    /// A renderer writing to `out`; `graphson3` for a TinkerPop 3 server.
    pub fn new(out: W, format: Format, bulk: bool, graphson3: bool) -> Self {
        Renderer {
            out,
            format,
            bulk,
            graphson3,
            line: String::new(),
            rows: Vec::new(),
            results: 0,
        }
    }

    /// Prints one result of bulk `bulk`.
    pub fn push(&mut self, value: &Value, bulk: i64) -> io::Result<()> {
        self.results += bulk.max(0) as u64;
        self.line.clear();
        match self.format {
            Format::Count => return Ok(()),
            Format::Table => {
                if let Some(cells) = map_cells(value) {
                    self.rows.push((cells, bulk));
                    if self.rows.len() >= TABLE_BATCH {
                        self.flush_table()?;
                    }
                    return Ok(());
                }
                self.flush_table()?;
                text_line(&mut self.line, value, bulk, self.bulk);
            }
            Format::Text => text_line(&mut self.line, value, bulk, self.bulk),
            Format::Json => {
                let doc = serde_json::to_string(&gremlin_json(value)).map_err(io::Error::other)?;
                let line = &mut self.line;
                if self.bulk {
                    let _ = write!(line, "{{\"bulk\":{bulk},\"value\":{doc}}}");
                } else {
                    line.push_str(&doc);
                }
            }
            Format::Graphson => {
                let line = &mut self.line;
                let graphson = |line: &mut String| {
                    if self.graphson3 {
                        graphbinary_client::format::graphson::write_graphson3(line, value);
                    } else {
                        write_graphson(line, value);
                    }
                };
                if self.bulk {
                    let _ = write!(line, "{{\"bulk\":{bulk},\"value\":");
                    graphson(line);
                    line.push('}');
                } else {
                    graphson(line);
                }
            }
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    /// Prints the table rows waiting, if any (at the end, or when the stream pauses).
    pub fn flush_table(&mut self) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let text = table(&self.rows, self.bulk);
        self.rows.clear();
        self.out.write_all(text.as_bytes())
    }

    /// Prints what is waiting, the count for `--format count`, and flushes.
    pub fn finish(&mut self) -> io::Result<()> {
        self.flush_table()?;
        if self.format == Format::Count {
            writeln!(self.out, "{}", self.results)?;
        }
        self.out.flush()
    }

    /// Flushes the output (for a console that prints results as they arrive).
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

fn text_line(line: &mut String, value: &Value, bulk: i64, show_bulk: bool) {
    let _ = write!(line, "{value}");
    if show_bulk && bulk != 1 {
        let _ = write!(line, "\tx{bulk}");
    }
}

/// The cells of a map result (`valueMap`, `elementMap`, `project`, `group`...): each key and
/// its value as text. A `valueMap` list of one value shows the value alone.
fn map_cells(value: &Value) -> Option<Vec<(String, String)>> {
    let (Value::Map(entries) | Value::OrderedMap(entries)) = value else {
        return None;
    };
    Some(
        entries
            .iter()
            .map(|(k, v)| {
                let key = match k {
                    Value::String(s) => s.clone(),
                    Value::T(t) => t.as_str().to_owned(),
                    other => other.to_string(),
                };
                let cell = match v {
                    Value::List(items) if items.len() == 1 => items[0].to_string(),
                    other => other.to_string(),
                };
                (key, cell)
            })
            .collect(),
    )
}

/// Rows as an aligned table: the columns are the keys in their order of first appearance; a
/// row without a key leaves its cell empty.
pub fn table(rows: &[(Vec<(String, String)>, i64)], show_bulk: bool) -> String {
    let mut columns: Vec<&str> = Vec::new();
    for (cells, _) in rows {
        for (k, _) in cells {
            if !columns.contains(&k.as_str()) {
                columns.push(k);
            }
        }
    }
    let bulk_col = show_bulk && rows.iter().any(|(_, b)| *b != 1);
    let mut grid: Vec<Vec<String>> = rows
        .iter()
        .map(|(cells, bulk)| {
            let mut row: Vec<String> = columns
                .iter()
                .map(|c| {
                    cells
                        .iter()
                        .find(|(k, _)| k == c)
                        .map(|(_, v)| one_line(v))
                        .unwrap_or_default()
                })
                .collect();
            if bulk_col {
                row.push(bulk.to_string());
            }
            row
        })
        .collect();
    let mut header: Vec<String> = columns.iter().map(|c| one_line(c)).collect();
    if bulk_col {
        header.push("bulk".into());
    }
    let width = |s: &str| s.chars().count();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            grid.iter()
                .map(|r| width(&r[i]))
                .chain([width(&header[i])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let row_line = |out: &mut String, row: &[String]| {
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                out.push_str(" | ");
            }
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', widths[i] - width(cell)));
        }
        // No trailing spaces (the last column's padding, an empty last cell).
        out.truncate(out.trim_end_matches(' ').len());
        out.push('\n');
    };
    row_line(&mut out, &header);
    for (i, w) in widths.iter().enumerate() {
        if i > 0 {
            out.push_str("-+-");
        }
        out.extend(std::iter::repeat_n('-', *w));
    }
    out.push('\n');
    for row in grid.drain(..) {
        row_line(&mut out, &row);
    }
    out
}

/// A cell on one line: line breaks and tabs as spaces.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r', '\t'], " ")
}

/// `v` as plain JSON, elements named as Gremlin names them (GraphSON's untyped form): a vertex
/// `{id, label, properties: {key: [{id, value, label}]}}`, an edge `{id, label, inV, inVLabel,
/// outV, outVLabel, properties: {key: value}}`, a label as a string (a list only when an
/// element has several); every other value as its serde form, containers walked so that the
/// elements inside them are named the same way.
fn gremlin_json(v: &Value) -> serde_json::Value {
    use graphbinary_client::value::{Labels, Property, VertexProperty};
    use serde_json::{json, Map as Object, Value as Json};
    let label = |l: &Labels| match l.len() {
        1 => Json::String(l[0].to_string()),
        _ => Json::Array(l.iter().map(|s| Json::String(s.to_string())).collect()),
    };
    // An element's fields, then its properties under `properties` when it has any.
    let element = |fields: Vec<(&str, Json)>, props: Option<Object<String, Json>>| {
        let mut o: Object<String, Json> = fields.into_iter().map(|(k, v)| (k.into(), v)).collect();
        if let Some(props) = props.filter(|p| !p.is_empty()) {
            o.insert("properties".into(), Json::Object(props));
        }
        Json::Object(o)
    };
    let by_key = |props: &Option<Vec<Property>>| {
        let props = props.iter().flatten();
        Some(
            props
                .map(|p| (p.key.to_string(), gremlin_json(&p.value)))
                .collect(),
        )
    };
    let vertex_property = |p: &VertexProperty| {
        let fields = vec![
            ("id", gremlin_json(&p.id)),
            ("value", gremlin_json(&p.value)),
            ("label", label(&p.label)),
        ];
        element(fields, by_key(&p.properties))
    };
    match v {
        Value::Vertex(x) => {
            let mut props = Object::new();
            for p in x.properties.iter().flatten() {
                let key = p.label.first().map_or_else(String::new, |k| k.to_string());
                if let Json::Array(list) = props.entry(key).or_insert_with(|| json!([])) {
                    list.push(vertex_property(p));
                }
            }
            element(
                vec![("id", gremlin_json(&x.id)), ("label", label(&x.label))],
                Some(props),
            )
        }
        Value::Edge(x) => element(
            vec![
                ("id", gremlin_json(&x.id)),
                ("label", label(&x.label)),
                ("inV", gremlin_json(&x.in_v_id)),
                ("inVLabel", label(&x.in_v_label)),
                ("outV", gremlin_json(&x.out_v_id)),
                ("outVLabel", label(&x.out_v_label)),
            ],
            by_key(&x.properties),
        ),
        Value::VertexProperty(p) => vertex_property(p),
        Value::Property(p) => json!({"key": p.key.as_ref(), "value": gremlin_json(&p.value)}),
        Value::Path(p) => json!({
            "labels": p.labels.iter().map(|s| s.0.iter().map(|l| l.to_string()).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "objects": p.objects.iter().map(gremlin_json).collect::<Vec<_>>(),
        }),
        Value::List(items) | Value::Set(items) => {
            Json::Array(items.iter().map(gremlin_json).collect())
        }
        Value::Map(entries) | Value::OrderedMap(entries)
            if entries.iter().any(|(k, v)| is_element(k) || is_element(v)) =>
        {
            if entries.iter().all(|(k, _)| matches!(k, Value::String(_))) {
                let fields = entries.iter().map(|(k, v)| match k {
                    Value::String(k) => (k.clone(), gremlin_json(v)),
                    _ => unreachable!("every key is a String"),
                });
                Json::Object(fields.collect())
            } else {
                let pairs = entries
                    .iter()
                    .map(|(k, v)| json!({"key": gremlin_json(k), "value": gremlin_json(v)}));
                Json::Array(pairs.collect())
            }
        }
        other => serde_json::to_value(other).unwrap_or(Json::Null),
    }
}

/// Whether `v` is or holds an element (so its JSON form must be walked, not serialized whole).
fn is_element(v: &Value) -> bool {
    match v {
        Value::Vertex(_)
        | Value::Edge(_)
        | Value::VertexProperty(_)
        | Value::Property(_)
        | Value::Path(_) => true,
        Value::List(items) | Value::Set(items) => items.iter().any(is_element),
        Value::Map(entries) | Value::OrderedMap(entries) => {
            entries.iter().any(|(k, v)| is_element(k) || is_element(v))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graphbinary_client::value::{Value, T};

    fn s(x: &str) -> Value {
        Value::String(x.into())
    }

    fn render(format: Format, values: &[Value]) -> String {
        let mut out = Vec::new();
        let mut r = Renderer::new(&mut out, format, false, false);
        for v in values {
            r.push(v, 1).unwrap();
        }
        r.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn element_maps_render_as_an_aligned_table() {
        let marko = Value::Map(vec![
            (Value::T(T::Id), Value::Int(1)),
            (Value::T(T::Label), s("person")),
            (s("name"), s("marko")),
            (s("age"), Value::Int(29)),
        ]);
        let lop = Value::Map(vec![
            (Value::T(T::Id), Value::Int(3)),
            (Value::T(T::Label), s("software")),
            (s("name"), s("lop")),
            (s("lang"), s("java")),
        ]);
        insta::assert_snapshot!(render(Format::Table, &[marko, lop, Value::Long(6)]));
    }

    #[test]
    fn value_maps_show_single_values_and_bulk_gets_a_column() {
        let vm = |name: &str| Value::Map(vec![(s("name"), Value::List(vec![s(name)]))]);
        let rows: Vec<_> = [vm("josh"), vm("vadas\nsecond line")]
            .iter()
            .map(|v| (map_cells(v).unwrap(), 2))
            .collect();
        insta::assert_snapshot!(table(&rows, true));
    }

    #[test]
    fn json_and_count() {
        assert_eq!(
            render(Format::Json, &[Value::Map(vec![(s("a"), Value::Int(1))])]),
            "{\"a\":1}\n"
        );
        assert_eq!(
            render(Format::Count, &[Value::Int(1), Value::Int(2)]),
            "2\n"
        );
    }

    #[test]
    fn json_names_element_fields_as_gremlin_does() {
        use graphbinary_client::value::{Edge, Labels, Property};
        let label = |l: &str| Labels::from(std::sync::Arc::<str>::from(l));
        let edge = Edge {
            id: Value::Int(7),
            label: label("knows"),
            in_v_id: Value::Int(2),
            in_v_label: label("person"),
            out_v_id: Value::Int(1),
            out_v_label: label("person"),
            parent: Value::Null(0xfe),
            properties: Some(vec![Property {
                key: "weight".into(),
                value: Value::Double(0.5),
                parent: Value::Null(0xfe),
            }]),
        };
        assert_eq!(
            render(
                Format::Json,
                &[Value::List(vec![Value::Edge(Box::new(edge))])]
            ),
            "[{\"id\":7,\"inV\":2,\"inVLabel\":\"person\",\"label\":\"knows\",\"outV\":1,\
             \"outVLabel\":\"person\",\"properties\":{\"weight\":0.5}}]\n"
        );
    }
}
