//! End-to-end: the loader (`process::Loader`, Neptune bulk-load CSV) against a real Gremlin
//! Server 4.0.0-beta.3 whose graph the test may clear: env `GREMLIN_LOAD_URL` (for instance
//! `cargo xtask server --port 8220 --dataset integration --detach`, whose `g` starts empty and
//! takes numeric ids). Without it, or without `../shared/datasets/air-routes`, the tests skip
//! with a notice (the dataset is required when `CI` is set).
//!
//! The whole air-routes graph is loaded, checked against its CSV (counts per label, some
//! properties and edges), and loaded again: nothing new is created; exported, it gives back
//! every row of the CSV. A malformed file gives its
//! errors with file, line and column while its good rows load.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use graphbinary_client::process::{
    BatchOptions, Exporter, GraphTraversalSource, LoadSummary, Loader, T,
};
use graphbinary_client::value::Value;
use graphbinary_client::Client;

use graphbinary_testkit::common;

/// The air-routes test clears the whole graph and counts it: one test at a time (of this
/// binary: e2e_export clears it too).
use crate::LOAD_GRAPH as SERVER;

/// The server of these tests, or `None` (a notice).
async fn server(test: &str) -> Option<Client> {
    let Ok(url) = std::env::var("GREMLIN_LOAD_URL") else {
        common::skip::skipped(
            test,
            "GREMLIN_LOAD_URL is not set (a 4.0 server whose graph the test may clear)",
        );
        return None;
    };
    let client = Client::new(url.as_str()).expect("a client");
    let g = GraphTraversalSource::new(client.clone());
    if let Err(e) = g.inject(1).to_list().await {
        common::skip::skipped(test, &format!("{url} does not answer: {e}"));
        return None;
    }
    Some(client)
}

fn air_routes(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("GRAPHBINARY_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
        .join("datasets/air-routes");
    let dir = if dir.is_dir() {
        dir
    } else {
        // A worktree nested deeper: the shared directory beside an ancestor.
        match Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .map(|a| a.join("shared/datasets/air-routes"))
            .find(|d| d.is_dir())
        {
            Some(d) => d,
            None if std::env::var_os("CI").is_some() => {
                panic!("{test}: shared/datasets/air-routes not found (set GRAPHBINARY_SHARED)")
            }
            None => {
                common::skip::skipped(test, "shared/datasets/air-routes not found");
                return None;
            }
        }
    };
    Some(dir)
}

async fn load(client: &Client, nodes: &[PathBuf], edges: &[PathBuf]) -> LoadSummary {
    let mut loader = Loader::new(client, BatchOptions::default().in_flight(1));
    for f in nodes {
        let file = std::fs::File::open(f).expect("open");
        loader
            .load_vertices(&f.display().to_string(), file)
            .await
            .expect("load");
    }
    for f in edges {
        let file = std::fs::File::open(f).expect("open");
        loader
            .load_edges(&f.display().to_string(), file)
            .await
            .expect("load");
    }
    loader.finish().await
}

/// `label -> count` of a CSV file, and its rows as `~id -> header -> cell`.
fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).expect("csv");
    let headers = r.headers().expect("header").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("record");
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, c)| (h.to_owned(), c.to_owned()))
                .collect()
        })
        .collect()
}

fn label_counts(rows: &[BTreeMap<String, String>]) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    for r in rows {
        *m.entry(r["~label"].clone()).or_default() += 1;
    }
    m
}

async fn server_label_counts(g: &GraphTraversalSource, edges: bool) -> BTreeMap<String, i64> {
    let t = if edges { g.e(()) } else { g.v(()) };
    let v = t
        .group_count(())
        .by(T::Label)
        .next()
        .await
        .unwrap()
        .unwrap();
    let Value::Map(entries) = v else {
        panic!("a map: {v:?}")
    };
    entries
        .into_iter()
        .map(|(k, n)| (k.as_str().unwrap().to_owned(), n.as_i64().unwrap()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_air_routes_loads_whole_and_twice_writes_nothing_new() {
    let test = "http_air_routes_loads_whole_and_twice_writes_nothing_new";
    let Some(dir) = air_routes(test) else { return };
    let Some(client) = server(test).await else {
        return;
    };
    let _one = SERVER.lock().await;
    let g = GraphTraversalSource::new(client.clone());
    g.e(()).drop().iterate().await.unwrap();
    g.v(()).drop().iterate().await.unwrap();
    let nodes = dir.join("air-routes-latest-nodes.csv");
    let edges = dir.join("air-routes-latest-edges.csv");
    let node_rows = csv_rows(&nodes);
    let edge_rows = csv_rows(&edges);

    let started = Instant::now();
    let s = load(
        &client,
        std::slice::from_ref(&nodes),
        std::slice::from_ref(&edges),
    )
    .await;
    let took = started.elapsed();
    eprintln!("air-routes first load: {took:?}: {s}");
    assert!(
        s.errors.is_empty(),
        "{:?}",
        &s.errors[..s.errors.len().min(5)]
    );
    assert_eq!(s.rejected, 0);
    assert_eq!(s.rows as usize, node_rows.len() + edge_rows.len());
    assert_eq!(s.vertices.written as usize, node_rows.len());
    assert_eq!(s.vertices.created as usize, node_rows.len(), "{s}");
    assert_eq!(s.vertices.matched, 0, "{s}");
    assert_eq!(s.edges.written as usize, edge_rows.len());

    // Every edge in the adjacency of both its ends, once (concurrent edge writes corrupt
    // TinkerGraph's: see process::Loader).
    for q in ["g.V().outE().count()", "g.V().inE().count()"] {
        let n = client.request(q).send().await.unwrap().all().await.unwrap();
        assert_eq!(n[0].as_i64(), Some(edge_rows.len() as i64), "{q}");
    }

    // Counts per label, as in the CSV.
    assert_eq!(
        server_label_counts(&g, false).await,
        label_counts(&node_rows)
    );
    assert_eq!(
        server_label_counts(&g, true).await,
        label_counts(&edge_rows)
    );

    // Some properties, with their types.
    for id in ["1", "2", "3", "47"] {
        let row = node_rows.iter().find(|r| r["~id"] == id).unwrap();
        let n: i64 = id.parse().unwrap();
        let get = |k: &'static str| {
            let t = g.v(n).values(k);
            async move {
                let v: Vec<Value> = t.to_list().await.unwrap();
                assert!(v.len() <= 1, "{k}: one value expected: {v:?}");
                v.into_iter().next()
            }
        };
        assert_eq!(
            get("code").await,
            Some(Value::String(row["code:string"].clone())),
            "{id}"
        );
        assert_eq!(
            get("runways").await,
            Some(Value::Int(row["runways:int"].parse().unwrap())),
            "{id}"
        );
        assert_eq!(
            get("lat").await,
            Some(Value::Double(row["lat:double"].parse().unwrap())),
            "{id}"
        );
        // An empty cell is no property.
        assert_eq!(get("author").await, None, "{id}");
    }
    // Some edges: their ends and dist.
    for row in edge_rows.iter().step_by(9_973).take(6) {
        let id: i64 = row["~id"].parse().unwrap();
        let one = |t: graphbinary_client::process::GraphTraversal| async move {
            let v: Vec<Value> = t.to_list().await.unwrap();
            assert_eq!(v.len(), 1, "edge {id}: {v:?}");
            v[0].as_i64().unwrap()
        };
        let got = [
            one(g.e(id).out_v().id()).await,
            one(g.e(id).in_v().id()).await,
            one(g.e(id).values("dist")).await,
        ];
        let want = [
            row["~from"].parse::<i64>().unwrap(),
            row["~to"].parse().unwrap(),
            row["dist:int"].parse().unwrap(),
        ];
        assert_eq!(got, want, "edge {id}");
    }

    // Again: everything matched, nothing created, the counts unchanged.
    let started = Instant::now();
    let s2 = load(&client, &[nodes], &[edges]).await;
    eprintln!("air-routes second load: {:?}: {s2}", started.elapsed());
    assert_eq!(s2.rejected, 0, "{:?}", s2.errors.first());
    assert_eq!(s2.vertices.created, 0, "{s2}");
    assert_eq!(s2.vertices.matched as usize, node_rows.len(), "{s2}");
    assert_eq!(
        server_label_counts(&g, false).await,
        label_counts(&node_rows)
    );
    assert_eq!(
        server_label_counts(&g, true).await,
        label_counts(&edge_rows)
    );
    // A property of set cardinality loaded twice is still one value.
    let n: i64 = g
        .v(1i64)
        .properties("code")
        .count(())
        .next_as()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 1);

    // Exported: every element with its label, ends and typed properties, as in the CSV
    // (column order and type-name case aside).
    let (mut n_out, mut e_out) = (Vec::new(), Vec::new());
    let started = Instant::now();
    let x = Exporter::new(&client)
        .export(&mut n_out, &mut e_out)
        .await
        .unwrap();
    eprintln!("air-routes export: {:?}: {x}", started.elapsed());
    assert_eq!(
        (x.vertices as usize, x.edges as usize),
        (node_rows.len(), edge_rows.len())
    );
    let dir = std::env::temp_dir().join(format!("gb-e2e-load-x-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (xn, xe) = (dir.join("nodes.csv"), dir.join("edges.csv"));
    std::fs::write(&xn, n_out).unwrap();
    std::fs::write(&xe, e_out).unwrap();
    assert_eq!(canonical(&csv_rows(&xn)), canonical(&node_rows));
    assert_eq!(canonical(&csv_rows(&xe)), canonical(&edge_rows));
    let _ = std::fs::remove_dir_all(&dir);
    g.e(()).drop().iterate().await.unwrap();
    g.v(()).drop().iterate().await.unwrap();
}

/// Rows by `~id`, each as its non-empty cells keyed by column name, with the type names
/// lower-cased (`code:string` and `code:String` are one column) and floating-point numbers
/// as their value (`11.787500` and `11.7875` are one number).
fn canonical(rows: &[BTreeMap<String, String>]) -> BTreeMap<String, BTreeMap<String, String>> {
    rows.iter()
        .map(|r| {
            let cells = r
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| {
                    let k = k.to_ascii_lowercase();
                    let v = if k.ends_with(":double") || k.ends_with(":float") {
                        v.trim().parse::<f64>().expect("a number").to_string()
                    } else {
                        v.clone()
                    };
                    (k, v)
                })
                .collect();
            (r["~id"].clone(), cells)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_malformed_rows_are_named_and_the_rest_loads() {
    let test = "http_malformed_rows_are_named_and_the_rest_loads";
    let Some(client) = server(test).await else {
        return;
    };
    let _one = SERVER.lock().await;
    let g = GraphTraversalSource::new(client.clone());
    let ids: Vec<i64> = (910_001..=910_010).collect();
    g.v(ids.clone()).drop().iterate().await.unwrap();
    let dir = std::env::temp_dir().join(format!("gb-e2e-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let nodes = dir.join("nodes.csv");
    std::fs::write(
        &nodes,
        "~id,~label,name:String,age:Int,tags:String[],born:Date\n\
         910001,hl_person,ada,36,a;b\\;c,1815-12-10\n\
         910002,hl_person,bob,thirty,,\n\
         ,hl_person,nobody,3,,\n\
         910003,hl_person,\"carl, jr\",41,,1990-13-01\n\
         910004,hl_person,\"dee \"\"d\"\"\",28,x,\n",
    )
    .unwrap();
    let bad_header = dir.join("bad-header.csv");
    std::fs::write(&bad_header, "~id,weight:blob\n910005,1\n").unwrap();
    let no_id = dir.join("no-id.csv");
    std::fs::write(&no_id, "~label,name\nhl_person,x\n").unwrap();
    let edges = dir.join("edges.csv");
    std::fs::write(
        &edges,
        "~id,~from,~to,~label,since:Int\n\
         920001,910001,910004,hl_knows,2020\n\
         920002,910001,910999,hl_knows,2021\n",
    )
    .unwrap();

    let s = load(
        &client,
        &[nodes.clone(), bad_header.clone(), no_id.clone()],
        std::slice::from_ref(&edges),
    )
    .await;
    eprintln!("{s}");
    for e in &s.errors {
        eprintln!("{e}");
    }
    let msgs: Vec<String> = s.errors.iter().map(ToString::to_string).collect();
    let n = nodes.display().to_string();
    let find = |prefix: &str, what: &str| {
        assert!(
            msgs.iter()
                .any(|m| m.starts_with(prefix) && m.contains(what)),
            "no error {prefix}..{what} in {msgs:#?}"
        )
    };
    find(&format!("{n}:3:4: age: "), "is not a Int");
    find(&format!("{n}:4:1: "), "~id is empty");
    find(&format!("{n}:5:6: born: "), "is not a Date");
    find(
        &format!("{}:1:2: ", bad_header.display()),
        "unknown type \"blob\"",
    );
    find(&format!("{}:1: ", no_id.display()), "no ~id column");
    // The edge to a missing vertex: refused by the server, named by its line.
    find(&format!("{}:3: not written", edges.display()), "");
    assert_eq!(s.rejected, 6, "{msgs:#?}");
    assert_eq!(s.rows, 5 + 2);
    assert_eq!(s.vertices.written, 2);
    assert_eq!(s.edges.written, 1);
    assert_eq!(s.extra_values, 1);
    assert!(!s.is_complete());

    // The good rows, with their values.
    let names: Vec<String> = g
        .v(ids.clone())
        .values("name")
        .order(())
        .to_list_as()
        .await
        .unwrap();
    assert_eq!(names, ["ada", "dee \"d\""]);
    let mut tags: Vec<String> = g.v(910_001i64).values("tags").to_list_as().await.unwrap();
    tags.sort();
    assert_eq!(tags, ["a", "b;c"]);
    let age: Vec<Value> = g.v(910_001i64).values("age").to_list().await.unwrap();
    assert_eq!(age, [Value::Int(36)]);
    let n: i64 = g
        .v(910_001i64)
        .out("hl_knows")
        .count(())
        .next_as()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 1);

    // Again: the good rows match; tags keep their two values.
    let s2 = load(&client, &[nodes], &[edges]).await;
    assert_eq!((s2.vertices.created, s2.vertices.matched), (0, 2), "{s2}");
    let n: i64 = g
        .v(910_001i64)
        .properties("tags")
        .count(())
        .next_as()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n, 2);
    g.v(ids).drop().iterate().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
