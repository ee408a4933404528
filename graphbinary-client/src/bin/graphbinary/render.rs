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
                let doc = serde_json::to_string(value).map_err(io::Error::other)?;
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
}
