//! The per-element write loop of `cargo xtask bench --only write` ((a) "loop, ours"): air-routes'
//! Neptune CSV files written as a user writes a loop with our traversal API, one request per
//! row, one at a time: `g.mergeV(s).option(Merge.onCreate, c).option(Merge.onMatch, u)` (edges:
//! `mergeE`), the row's maps as parameters (gremlin-lang parameters over `http://`, bindings
//! over `ws://`), over the first `--sample` rows, vertices first. The rows are the write peers'
//! (xtask/peers/gremlin-go/cmd/gowrite): values typed as the header says (int, long, double,
//! float, bool, else string), ids as the CSV's strings, properties of single values. One JSON
//! line, as the peers print: `{"peer","mode","elements","wall_secs","per_sec"}`.
//!
//! ```text
//! cargo bench -p graphbinary-client --bench write_loop -- --url URL --nodes N.csv --edges E.csv [--mode loop] [--sample 5000]
//! ```

use std::time::Instant;

use graphbinary_client::process::{Direction, GValue, GraphTraversalSource, Lit, Merge, T};
use graphbinary_client::Client;

/// One row as its merge maps: search, onCreate, onMatch.
struct Row {
    search: Lit,
    create: Lit,
    on_match: Lit,
}

fn typed(kind: &str, cell: &str) -> Result<Lit, String> {
    let bad = |e: &dyn std::fmt::Display| format!("{cell:?} as {kind}: {e}");
    Ok(match kind {
        "int" => Lit::Int(cell.parse().map_err(|e| bad(&e))?),
        "long" => Lit::Long(cell.parse().map_err(|e| bad(&e))?),
        "double" => Lit::Double(cell.parse().map_err(|e| bad(&e))?),
        "float" => Lit::Float(cell.parse().map_err(|e| bad(&e))?),
        "bool" | "boolean" => Lit::Bool(cell.parse().map_err(|e| bad(&e))?),
        _ => Lit::from(cell),
    })
}

/// The rows of a Neptune CSV file (edges: searched by label, ends and id).
fn read_rows(path: &str, edges: bool) -> Result<Vec<Row>, String> {
    let mut r = csv::Reader::from_path(path).map_err(|e| format!("{path}: {e}"))?;
    let header = r.headers().map_err(|e| format!("{path}: {e}"))?.clone();
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| format!("{path}: {e}"))?;
        let (mut id, mut label, mut from, mut to) = ("", "", "", "");
        let mut props = Vec::new();
        for (h, cell) in header.iter().zip(rec.iter()) {
            match h {
                "~id" => id = cell,
                "~label" => label = cell,
                "~from" => from = cell,
                "~to" => to = cell,
                _ if cell.is_empty() => {}
                _ => {
                    let (name, kind) = h.split_once(':').unwrap_or((h, "string"));
                    let v = typed(&kind.to_ascii_lowercase(), cell)
                        .map_err(|e| format!("{path}: {h}: {e}"))?;
                    props.push((Lit::from(name), v));
                }
            }
        }
        let mut create = props.clone();
        let search = if edges {
            vec![
                (Lit::from(T::Label), Lit::from(label)),
                (Lit::from(Direction::Out), Lit::from(from)),
                (Lit::from(Direction::In), Lit::from(to)),
                (Lit::from(T::Id), Lit::from(id)),
            ]
        } else {
            create.push((Lit::from(T::Label), Lit::from(label)));
            vec![(Lit::from(T::Id), Lit::from(id))]
        };
        out.push(Row {
            search: Lit::Map(search),
            create: Lit::Map(create),
            on_match: Lit::Map(props),
        });
    }
    Ok(out)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("write_loop: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(String::as_str)
    };
    let url = flag("--url").ok_or("--url URL is required")?;
    let nodes = flag("--nodes").ok_or("--nodes FILE is required")?;
    let edges = flag("--edges").ok_or("--edges FILE is required")?;
    if let Some(mode) = flag("--mode").filter(|m| *m != "loop") {
        return Err(format!("--mode {mode}: only loop"));
    }
    let sample: usize = match flag("--sample") {
        Some(n) => n.parse().map_err(|e| format!("--sample {n}: {e}"))?,
        None => 5000,
    };
    let vs = read_rows(nodes, false)?;
    let es = read_rows(edges, true)?;
    let client = Client::new(url).map_err(|e| e.to_string())?;
    let g = GraphTraversalSource::new(client);
    let rows = vs
        .iter()
        .map(|r| (r, false))
        .chain(es.iter().map(|r| (r, true)))
        .take(sample);
    let started = Instant::now();
    let mut n = 0u64;
    for (r, edge) in rows {
        let search = GValue::new("s", r.search.clone());
        let t = if edge {
            g.merge_e(search)
        } else {
            g.merge_v(search)
        };
        let t = t
            .option((Merge::OnCreate, GValue::new("c", r.create.clone())))
            .option((Merge::OnMatch, GValue::new("u", r.on_match.clone())));
        let got = t.to_list().await.map_err(|e| format!("row {n}: {e}"))?;
        if got.len() != 1 {
            return Err(format!("row {n}: {} results, not the element", got.len()));
        }
        n += 1;
    }
    let wall = started.elapsed().as_secs_f64();
    println!(
        r#"{{"peer":"ours","mode":"loop","elements":{n},"wall_secs":{wall},"per_sec":{}}}"#,
        n as f64 / wall
    );
    Ok(())
}
