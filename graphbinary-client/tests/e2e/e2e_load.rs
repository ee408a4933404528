//! End-to-end: the loader (`process::Loader`, Neptune bulk-load CSV) against a real Gremlin
//! Server 4.0.0-beta.3 whose graph the test may clear: env `GREMLIN_LOAD_URL` (for instance
//! `cargo xtask server --port 8220 --dataset integration --detach`, whose `g` starts empty and
//! takes numeric ids). Without it, or without `../shared/datasets/air-routes`, the tests skip
//! with a notice (the dataset is required when `CI` is set).
//!
//! The whole air-routes graph is loaded, checked against its CSV (counts per label, some
//! properties and edges), and loaded again: nothing new is created; exported, it gives back
//! every row of the CSV. The same check runs on TinkerPop 3.7.3 and 3.8.1 (the `ws3_load`
//! tests, into the empty `ggraph` of `GREMLIN_WS_LOAD_URL_373` / `_381`: see
//! [`crate::ws3_load_server`]). A malformed file gives its
//! errors with file, line and column while its good rows load.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use graphbinary_client::process::{
    BatchOptions, Exporter, GraphTraversalSource, LoadSummary, Loader, T,
};
use graphbinary_client::value::Value;
use graphbinary_client::Client;
use tokio::sync::MutexGuard;

use graphbinary_testkit::common;
use graphbinary_testkit::results::{server_label_counts, Sent};

/// How many results `t` has (`t.count()`).
async fn count(t: graphbinary_client::process::GraphTraversal) -> i64 {
    t.count(()).next_as().await.unwrap().unwrap()
}

/// The air-routes test clears the whole graph and counts it: one test at a time (of this
/// binary: e2e_export clears it too).
use crate::LOAD_GRAPH as SERVER;

/// The server of these tests (`GREMLIN_LOAD_URL`), or `None` (a notice): its URL, a client,
/// the traversal source `source` (the server's `g` when `None`), and the lock of its graph,
/// taken. With `clear`, the source's graph is emptied; a server without `source` is a notice.
async fn server(
    test: &str,
    source: Option<&str>,
    clear: bool,
) -> Option<(
    String,
    Client,
    GraphTraversalSource,
    MutexGuard<'static, ()>,
)> {
    let Ok(url) = std::env::var("GREMLIN_LOAD_URL") else {
        common::skip::skipped(
            test,
            "GREMLIN_LOAD_URL is not set (a 4.0 server whose graph the test may clear)",
        );
        return None;
    };
    let client = Client::new(url.as_str()).expect("a client");
    let g = GraphTraversalSource::new(client.clone());
    let g = match source {
        Some(s) => g.alias(s),
        None => g,
    };
    if let Err(e) = g.v(()).limit(0).to_list().await {
        let what = source.map_or("does not answer".into(), |s| format!("has no {s}"));
        common::skip::skipped(test, &format!("{url} {what}: {e}"));
        return None;
    }
    let one = SERVER.lock().await;
    if clear {
        drop_all(&g).await;
    }
    Some((url, client, g, one))
}

/// Drops every edge, then every vertex, of `g`.
async fn drop_all(g: &GraphTraversalSource) {
    g.e(()).drop().iterate().await.unwrap();
    g.v(()).drop().iterate().await.unwrap();
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

/// Loads `nodes`, then `edges`, into `client`'s traversal source `source`, with the writer's
/// defaults.
async fn load(client: &Client, source: &str, nodes: &[PathBuf], edges: &[PathBuf]) -> LoadSummary {
    // The default 4 requests in flight, edges too: no two of them write at one vertex, so
    // TinkerGraph's adjacency (not thread-safe) stays whole.
    let options = BatchOptions::default().source(source);
    let mut loader = Loader::new(client, options);
    // Every vertex file before the edge files.
    for (files, are_edges) in [(nodes, false), (edges, true)] {
        for f in files {
            let (name, file) = (
                f.display().to_string(),
                std::fs::File::open(f).expect("open"),
            );
            let loaded = if are_edges {
                loader.load_edges(&name, file).await
            } else {
                loader.load_vertices(&name, file).await
            };
            loaded.expect("load");
        }
    }
    loader.finish().await
}

/// The rows of a CSV file as `header -> cell`.
fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    csv_reader_rows(std::fs::File::open(path).expect("csv"))
}

/// The rows of a CSV text as `header -> cell`.
fn csv_reader_rows(text: impl std::io::Read) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_reader(text);
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

/// The server's vertices and edges per label are the CSV rows' per label.
async fn assert_label_counts(
    g: &GraphTraversalSource,
    node_rows: &[BTreeMap<String, String>],
    edge_rows: &[BTreeMap<String, String>],
) {
    assert_eq!(server_label_counts(g, false).await, label_counts(node_rows));
    assert_eq!(server_label_counts(g, true).await, label_counts(edge_rows));
}

fn label_counts(rows: &[BTreeMap<String, String>]) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    for r in rows {
        *m.entry(r["~label"].clone()).or_default() += 1;
    }
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_air_routes_loads_whole_and_twice_writes_nothing_new() {
    let test = "http_air_routes_loads_whole_and_twice_writes_nothing_new";
    let dir = graphbinary_testkit::or_skip!(air_routes(test));
    let (_, client, _, _one) = graphbinary_testkit::or_skip!(server(test, None, true).await);
    air_routes_whole_and_twice(test, &dir, &client, "g").await;
}

/// Issue 40 item 4 on TinkerPop 3.7.3: [`air_routes_whole_and_twice`] into the empty
/// `ggraph` of a 3.7.3 server started with `--dataset integration` (env
/// `GREMLIN_WS_LOAD_URL_373`: [`crate::ws3_load_server`]).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ws3_load_air_routes_into_373_whole_and_twice() {
    ws3_air_routes(
        "ws3_load_air_routes_into_373_whole_and_twice",
        "GREMLIN_WS_LOAD_URL_373",
    )
    .await;
}

/// The same on TinkerPop 3.8.1 (env `GREMLIN_WS_LOAD_URL_381`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ws3_load_air_routes_into_381_whole_and_twice() {
    ws3_air_routes(
        "ws3_load_air_routes_into_381_whole_and_twice",
        "GREMLIN_WS_LOAD_URL_381",
    )
    .await;
}

/// [`air_routes_whole_and_twice`] into the `ggraph` of the TinkerPop 3 server named by `var`.
async fn ws3_air_routes(test: &str, var: &str) {
    let dir = graphbinary_testkit::or_skip!(air_routes(test));
    let (client, _one) = graphbinary_testkit::or_skip!(crate::ws3_load_server(test, var).await);
    air_routes_whole_and_twice(test, &dir, &client, crate::WS3_LOAD_SOURCE).await;
}

/// Issue 40 item 4, "air-routes loaded, every label, id, property and edge checked against the
/// CSV; loaded twice, nothing duplicated": air-routes (`dir`'s files) into the empty graph of
/// `client`'s traversal source `source`, 4 requests in flight: every row written, the counts
/// per label and both adjacencies as in the CSV, some properties (with their types) and edges
/// (ends, `dist`); loaded again, every vertex matched and nothing created; exported, every
/// row of the CSV (through a temporary directory named after `test`). The graph is emptied at
/// the end.
async fn air_routes_whole_and_twice(test: &str, dir: &Path, client: &Client, source: &str) {
    let g = GraphTraversalSource::new(client.clone()).alias(source);
    let nodes = dir.join("air-routes-latest-nodes.csv");
    let edges = dir.join("air-routes-latest-edges.csv");
    let node_rows = csv_rows(&nodes);
    let edge_rows = csv_rows(&edges);

    let started = Instant::now();
    let s = load(
        client,
        source,
        std::slice::from_ref(&nodes),
        std::slice::from_ref(&edges),
    )
    .await;
    let took = started.elapsed();
    eprintln!("{test}: air-routes first load: {took:?}: {s}");
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
        let n: i64 = client.request(q).g(source).expect_one().await;
        assert_eq!(n, edge_rows.len() as i64, "{q}");
    }

    // Counts per label, as in the CSV.
    assert_label_counts(&g, &node_rows, &edge_rows).await;

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
    let s2 = load(client, source, &[nodes], &[edges]).await;
    eprintln!(
        "{test}: air-routes second load: {:?}: {s2}",
        started.elapsed()
    );
    assert_eq!(s2.rejected, 0, "{:?}", s2.errors.first());
    assert_eq!(s2.vertices.created, 0, "{s2}");
    assert_eq!(s2.vertices.matched as usize, node_rows.len(), "{s2}");
    assert_label_counts(&g, &node_rows, &edge_rows).await;
    // A property of set cardinality loaded twice is still one value.
    let n: i64 = count(g.v(1i64).properties("code")).await;
    assert_eq!(n, 1);

    // Exported: every element with its label, ends and typed properties, as in the CSV
    // (column order and type-name case aside).
    let (mut n_out, mut e_out) = (Vec::new(), Vec::new());
    let started = Instant::now();
    let x = Exporter::new(client)
        .source(source)
        .export(&mut n_out, &mut e_out)
        .await
        .unwrap();
    eprintln!("{test}: air-routes export: {:?}: {x}", started.elapsed());
    assert_eq!(
        (x.vertices as usize, x.edges as usize),
        (node_rows.len(), edge_rows.len())
    );
    let dir = std::env::temp_dir().join(format!("gb-e2e-load-x-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (xn, xe) = (dir.join("nodes.csv"), dir.join("edges.csv"));
    std::fs::write(&xn, n_out).unwrap();
    std::fs::write(&xe, e_out).unwrap();
    assert_eq!(canonical(&csv_rows(&xn)), canonical(&node_rows));
    assert_eq!(canonical(&csv_rows(&xe)), canonical(&edge_rows));
    let _ = std::fs::remove_dir_all(&dir);
    drop_all(&g).await;
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
    let (_, client, g, _one) = graphbinary_testkit::or_skip!(server(test, None, false).await);
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
        "g",
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
    let n: i64 = count(g.v(910_001i64).out("hl_knows")).await;
    assert_eq!(n, 1);

    // Again: the good rows match; tags keep their two values.
    let s2 = load(&client, "g", &[nodes], &[edges]).await;
    assert_eq!((s2.vertices.created, s2.vertices.matched), (0, 2), "{s2}");
    let n: i64 = count(g.v(910_001i64).properties("tags")).await;
    assert_eq!(n, 2);
    g.v(ids).drop().iterate().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 40, JanusGraph's key index: JanusGraph 1.1.0 on BerkeleyJE with
/// `query.force-index=true` (env `GREMLIN_WS_JANUSGRAPH_BDB_URL`, for instance
/// `cargo xtask server --janusgraph 1.1.0 --backend berkeleyje --fresh --port 8261 --detach`),
/// which refuses a lookup no index answers. A load by a key property no index covers stops
/// before writing anything, naming the key and `--create-index`; with
/// [`Loader::create_index`] the composite index is made first and the files load; loaded
/// again (the index kept), nothing is written twice. The key is new on each run (the data
/// directory persists).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ws_janusgraph_berkeleyje_key_index_is_created_or_its_absence_stops_the_load() {
    let test = "ws_janusgraph_berkeleyje_key_index_is_created_or_its_absence_stops_the_load";
    let Ok(url) = std::env::var("GREMLIN_WS_JANUSGRAPH_BDB_URL") else {
        common::skip::skipped(
            test,
            "GREMLIN_WS_JANUSGRAPH_BDB_URL unset (JanusGraph 1.1.0 on BerkeleyJE, force-index)",
        );
        return;
    };
    let client = Client::builder(url.as_str())
        .read_timeout(std::time::Duration::from_secs(300))
        .build()
        .expect("a client");
    let g = GraphTraversalSource::new(client.clone());
    let key = format!(
        "gbLoadKey{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    );
    // 40 airports, each with routes to the next 3 (120 edges), in two labels.
    let (n_v, per) = (40usize, 3usize);
    let mut nodes = String::from("~id,~label,code:String(single),runways:Int(single)\n");
    for i in 0..n_v {
        let label = if i % 4 == 0 {
            "jl_country"
        } else {
            "jl_airport"
        };
        nodes += &format!("v{i},{label},C{i:03},{}\n", i % 5 + 1);
    }
    let mut edges = String::from("~id,~from,~to,~label,dist:Int\n");
    for i in 0..n_v {
        for d in 1..=per {
            let label = if d == 1 { "jl_contains" } else { "jl_route" };
            edges += &format!("e{i}_{d},v{i},v{},{label},{}\n", (i + d) % n_v, i * 10 + d);
        }
    }
    let n_e = n_v * per;
    let load = |create: bool| {
        let (client, key, nodes, edges) = (client.clone(), key.clone(), &nodes, &edges);
        async move {
            let mut l = Loader::new(&client, BatchOptions::default().in_flight(2))
                .key_property(key.as_str());
            if create {
                l = l.create_index();
            }
            l.load_vertices("nodes.csv", nodes.as_bytes()).await?;
            l.load_edges("edges.csv", edges.as_bytes()).await?;
            Ok::<_, graphbinary_client::Error>(l.finish().await)
        }
    };
    let ids: Vec<String> = (0..n_v).map(|i| format!("v{i}")).collect();
    let count = |q: String| {
        let client = client.clone();
        async move { client.request(q.as_str()).expect_one::<i64>().await }
    };
    let within = format!(
        "within({})",
        ids.iter()
            .map(|i| format!("'{i}'"))
            .collect::<Vec<_>>()
            .join(",")
    );

    // No index: refused before anything is written.
    let e = load(false).await.expect_err("a load by an unindexed key");
    let msg = e.to_string();
    assert!(
        matches!(e, graphbinary_client::Error::Unsupported { .. }),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("{key:?}")) && msg.contains("--create-index"),
        "{msg}"
    );
    // The key is not even in the schema: a lookup by it finds nothing (and is not refused).
    assert_eq!(
        count(format!("g.V().has('{key}', {within}).count()")).await,
        0
    );

    // With the index created first: everything, once.
    let started = Instant::now();
    let s = load(true).await.expect("a load creating the index");
    eprintln!(
        "JanusGraph BerkeleyJE, index created: {:?}: {s}",
        started.elapsed()
    );
    assert!(s.is_complete(), "{s}: {:?}", s.errors);
    assert_eq!(
        (s.vertices.created, s.vertices.matched, s.edges.written),
        (n_v as u64, 0, n_e as u64),
        "{s}"
    );
    let check = |round: &'static str| {
        let (count, key, within) = (&count, key.clone(), within.clone());
        async move {
            // Answered by the index (force-index refuses anything else).
            let vs = format!("g.V().has('{key}', {within})");
            let (n_v, n_e) = (n_v as i64, n_e as i64);
            for (query, want) in [
                (format!("{vs}.count()"), n_v),
                // A key value twice would count less.
                (format!("{vs}.values('{key}').dedup().count()"), n_v),
                (format!("{vs}.hasLabel('jl_country').count()"), n_v / 4),
                (format!("{vs}.outE().count()"), n_e),
                (format!("{vs}.inE().count()"), n_e),
                // An edge twice would count less.
                (format!("{vs}.outE().values('{key}').dedup().count()"), n_e),
                (format!("{vs}.outE('jl_contains').count()"), n_v),
            ] {
                assert_eq!(count(query.clone()).await, want, "{round}: {query}");
            }
            // An edge's ends as in the CSV: v7 -> v9 is e7_2.
            assert_eq!(
                count(format!(
                    "g.V().has('{key}', 'v7').outE().has('{key}', 'e7_2').inV().has('{key}', 'v9').count()"
                ))
                .await,
                1,
                "{round}"
            );
        }
    };
    check("first load").await;
    // One schema element per name: JanusGraph makes a missing label or key in the
    // transaction of the write that first uses it, so two requests in flight that both use a
    // new one made two (`outE('jl_contains')` then saw 23 of the 40 such edges): the loader
    // makes them first.
    let script = format!(
        "def m = graph.openManagement(); try {{ \
           def n = {{ c, x -> m.getRelationTypes(c).findAll {{ it.name() == x }}.size() }}; \
           [n(org.janusgraph.core.EdgeLabel, 'jl_contains'), n(org.janusgraph.core.EdgeLabel, 'jl_route'), \
            n(org.janusgraph.core.PropertyKey, 'dist'), n(org.janusgraph.core.PropertyKey, 'code'), \
            n(org.janusgraph.core.PropertyKey, 'runways'), n(org.janusgraph.core.PropertyKey, '{key}'), \
            m.getVertexLabels().findAll {{ it.name().startsWith('jl_') }}.size()] \
         }} finally {{ m.rollback() }}"
    );
    let names: Vec<i64> = client
        .request(script.as_str())
        .language("gremlin-groovy")
        .expect_all()
        .await
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(names, [1, 1, 1, 1, 1, 1, 2], "schema elements per name");

    // Again, asking for the index again (kept): nothing written twice.
    let s2 = load(true).await.expect("a second load");
    eprintln!("JanusGraph BerkeleyJE, again: {s2}");
    assert!(s2.is_complete(), "{s2}: {:?}", s2.errors);
    assert_eq!(
        (s2.vertices.created, s2.vertices.matched),
        (0, n_v as u64),
        "{s2}"
    );
    check("second load").await;
    // And without asking: the index is found.
    let s3 = load(false).await.expect("a third load, the index found");
    assert_eq!(s3.vertices.created, 0, "{s3}");
    check("third load").await;

    g.v(())
        .has((key.as_str(), graphbinary_client::process::P::within(ids)))
        .drop()
        .iterate()
        .await
        .unwrap();
}

/// The exported rows that hold the key column `key` (its header `key:<type>`), through it:
/// `~id` the key's value, the column dropped, and `~from`/`~to` (by `ends`, server id to key
/// value) the key values of the ends. Records each vertex's server id in `ends`.
fn through_key(
    rows: Vec<BTreeMap<String, String>>,
    key: &str,
    ends: &mut BTreeMap<String, String>,
) -> Vec<BTreeMap<String, String>> {
    let prefix = format!("{}:", key.to_ascii_lowercase());
    let mut out = Vec::new();
    for mut r in rows {
        let Some(col) = r
            .keys()
            .find(|k| k.to_ascii_lowercase().starts_with(&prefix))
            .cloned()
        else {
            continue;
        };
        let k = r.remove(&col).unwrap();
        if k.is_empty() {
            continue;
        }
        let server_id = std::mem::replace(r.get_mut("~id").unwrap(), k.clone());
        if r.contains_key("~from") {
            for end in ["~from", "~to"] {
                let v = r.get_mut(end).unwrap();
                *v = ends
                    .get(v.as_str())
                    .cloned()
                    .unwrap_or_else(|| format!("?{v}"));
            }
        } else {
            ends.insert(server_id, k);
        }
        out.push(r);
    }
    out
}

/// Issue 40, JanusGraph's schema: air-routes (every row of `../shared/datasets/air-routes`)
/// into JanusGraph 1.1.0 in memory (env `GREMLIN_WS_JANUSGRAPH_URL`, for instance `cargo
/// xtask server --janusgraph 1.1.0 --port 8211 --detach`) by a key property, with no
/// cardinality flag and no `(single)` in the files: the columns say nothing, so the format's
/// default would be `set`, which JanusGraph refuses for its SINGLE keys; the loader follows
/// the schema (the keys it makes are SINGLE, as JanusGraph makes them). Every row is written;
/// exported and read back through the key, every vertex (label, each typed property) and
/// every edge (label, ends, `dist`) equals the CSV's; loaded again, nothing is created.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ws_janusgraph_air_routes_loads_every_row_by_key_following_the_schema() {
    let test = "ws_janusgraph_air_routes_loads_every_row_by_key_following_the_schema";
    let Ok(url) = std::env::var("GREMLIN_WS_JANUSGRAPH_URL") else {
        common::skip::skipped(test, "GREMLIN_WS_JANUSGRAPH_URL unset (JanusGraph 1.1.0)");
        return;
    };
    let dir = graphbinary_testkit::or_skip!(air_routes(test));
    const KEY: &str = "gbAirId";
    let _one = crate::JANUSGRAPH.lock().await;
    let client = Client::builder(url.as_str())
        .read_timeout(std::time::Duration::from_secs(300))
        .build()
        .expect("a client");
    let g = GraphTraversalSource::new(client.clone());
    g.v(()).has(KEY).drop().iterate().await.unwrap();
    let nodes = dir.join("air-routes-latest-nodes.csv");
    let edges = dir.join("air-routes-latest-edges.csv");
    let (node_rows, edge_rows) = (csv_rows(&nodes), csv_rows(&edges));
    let load = || {
        let (client, nodes, edges) = (client.clone(), nodes.clone(), edges.clone());
        async move {
            let mut l = Loader::new(&client, BatchOptions::default())
                .key_property(KEY)
                .create_index();
            let name = |p: &Path| p.display().to_string();
            l.load_vertices(&name(&nodes), std::fs::File::open(&nodes).unwrap())
                .await
                .unwrap();
            l.load_edges(&name(&edges), std::fs::File::open(&edges).unwrap())
                .await
                .unwrap();
            l.finish().await
        }
    };
    let started = Instant::now();
    let s = load().await;
    eprintln!(
        "air-routes into JanusGraph by key: {:?}: {s}",
        started.elapsed()
    );
    assert!(
        s.is_complete(),
        "{s}: {:?}",
        &s.errors[..s.errors.len().min(5)]
    );
    assert_eq!(
        (s.vertices.created as usize, s.edges.written as usize),
        (node_rows.len(), edge_rows.len()),
        "{s}"
    );

    // Every vertex and edge, through the key, as in the CSV.
    let (mut n_out, mut e_out) = (Vec::new(), Vec::new());
    Exporter::new(&client)
        .export(&mut n_out, &mut e_out)
        .await
        .unwrap();
    let mut ends = BTreeMap::new();
    let got_nodes = through_key(csv_reader_rows(&n_out[..]), KEY, &mut ends);
    let got_edges = through_key(csv_reader_rows(&e_out[..]), KEY, &mut ends);
    assert_eq!(got_nodes.len(), node_rows.len(), "vertices with the key");
    assert_eq!(got_edges.len(), edge_rows.len(), "edges with the key");
    assert_eq!(canonical(&got_nodes), canonical(&node_rows));
    assert_eq!(canonical(&got_edges), canonical(&edge_rows));
    // One value per property (SINGLE keys; the format's `set` would have been refused).
    let q = format!("g.V().has('{KEY}', '1').properties('code').count()");
    assert_eq!(client.request(q.as_str()).expect_one::<i64>().await, 1);

    // Again: nothing created, nothing rejected, the same counts.
    let started = Instant::now();
    let s2 = load().await;
    eprintln!(
        "air-routes into JanusGraph again: {:?}: {s2}",
        started.elapsed()
    );
    assert!(s2.is_complete(), "{s2}: {:?}", s2.errors.first());
    assert_eq!(
        (s2.vertices.created, s2.vertices.matched as usize),
        (0, node_rows.len()),
        "{s2}"
    );
    for (q, want) in [
        (format!("g.V().has('{KEY}').count()"), node_rows.len()),
        (format!("g.E().has('{KEY}').count()"), edge_rows.len()),
    ] {
        let n: i64 = client.request(q.as_str()).expect_one().await;
        assert_eq!(n, want as i64, "{q}");
    }
    g.v(()).has(KEY).drop().iterate().await.unwrap();
}

/// `(~id, ~label, ~from, ~to)` of each edge row, by `~id`.
fn edge_ends(rows: &[BTreeMap<String, String>]) -> BTreeMap<String, (String, String, String)> {
    rows.iter()
        .map(|r| {
            (
                r["~id"].clone(),
                (r["~label"].clone(), r["~from"].clone(), r["~to"].clone()),
            )
        })
        .collect()
}

/// Every edge of the graph as `~id -> (label, from, to)`, the ids as text; panics on an edge
/// id seen twice.
async fn server_edge_ends(g: &GraphTraversalSource) -> BTreeMap<String, (String, String, String)> {
    let rows = g
        .e(())
        .project(("i", "l", "o", "n"))
        .by(T::Id)
        .by(T::Label)
        .by(graphbinary_client::process::__::out_v().id())
        .by(graphbinary_client::process::__::in_v().id())
        .to_list()
        .await
        .unwrap();
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        v => v
            .as_i64()
            .map(|n| n.to_string())
            .unwrap_or_else(|| format!("{v:?}")),
    };
    let mut out = BTreeMap::new();
    for r in rows {
        let (Value::Map(entries) | Value::OrderedMap(entries)) = r else {
            panic!("a map: {r:?}")
        };
        let get = |k: &str| {
            entries
                .iter()
                .find(|(n, _)| n.as_str() == Some(k))
                .map(|(_, v)| text(v))
                .unwrap()
        };
        let id = get("i");
        let prev = out.insert(id.clone(), (get("l"), get("o"), get("n")));
        assert!(prev.is_none(), "edge id {id} twice");
    }
    out
}

/// Issue 40 "killed midway and resumed", through the command line: `graphbinary load` of
/// air-routes into the empty `ggraph` of `GREMLIN_LOAD_URL` (an integration-dataset server)
/// is SIGKILLed once the server holds some of its edges, then run again to its end (exit 0):
/// every vertex and edge of the CSV is there once (counts by label, each edge's id, label and
/// ends, both adjacencies), and the second run created only the vertices the first had not.
#[cfg(feature = "cli")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_cli_load_killed_midway_then_run_again_is_whole_once() {
    let test = "http_cli_load_killed_midway_then_run_again_is_whole_once";
    let dir = graphbinary_testkit::or_skip!(air_routes(test));
    const SOURCE: &str = "ggraph";
    let (url, client, g, _one) =
        graphbinary_testkit::or_skip!(server(test, Some(SOURCE), true).await);
    let nodes = dir.join("air-routes-latest-nodes.csv");
    let edges = dir.join("air-routes-latest-edges.csv");
    let (node_rows, edge_rows) = (csv_rows(&nodes), csv_rows(&edges));
    let count = |q: &'static str| {
        let client = client.clone();
        async move { client.request(q).g(SOURCE).expect_one::<i64>().await }
    };
    let args = [
        "load",
        "--url",
        url.as_str(),
        "-g",
        SOURCE,
        "--quiet",
        "--nodes",
        nodes.to_str().unwrap(),
        "--edges",
        edges.to_str().unwrap(),
    ];
    let started = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn graphbinary");
    // Killed once some edges are in.
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the load ended ({status}) before it was killed");
        }
        if count("g.E().limit(1000).count()").await >= 1000 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    // What the killed process had sent may still be written: wait for the counts to settle.
    let mut before = (-1, -1);
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let now = (count("g.V().count()").await, count("g.E().count()").await);
        if now == before {
            break;
        }
        before = now;
    }
    eprintln!(
        "killed after {:?} with {} of {} vertices and {} of {} edges written",
        started.elapsed(),
        before.0,
        node_rows.len(),
        before.1,
        edge_rows.len()
    );
    assert_eq!(before.0, node_rows.len() as i64);
    assert!(
        (1000..edge_rows.len() as i64).contains(&before.1),
        "{before:?}"
    );

    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .args(args)
        .output()
        .expect("run graphbinary");
    let err = String::from_utf8_lossy(&out.stderr);
    eprintln!("run again: {:?}: {err}", started.elapsed());
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(
        err.contains(&format!("created 0, matched {}", node_rows.len())),
        "{err}"
    );

    assert_label_counts(&g, &node_rows, &edge_rows).await;
    assert_eq!(
        count("g.V().id().dedup().count()").await,
        node_rows.len() as i64
    );
    // Each edge once, with its label and ends, in the adjacency of both.
    assert_eq!(server_edge_ends(&g).await, edge_ends(&edge_rows));
    for q in ["g.V().outE().count()", "g.V().inE().count()"] {
        assert_eq!(count(q).await, edge_rows.len() as i64, "{q}");
    }
    drop_all(&g).await;
}

use graphbinary_testkit::fault_proxy;

/// A forged HTTP answer with `status` and a JSON `message`.
fn http_forged(status: u16, message: &'static str) -> fault_proxy::Forger {
    std::sync::Arc::new(move |_| {
        let body = format!(r#"{{"message":{message:?}}}"#);
        format!(
            "HTTP/1.1 {status} Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    })
}

/// Issue 40 "loaded through the fault proxy": a load into GREMLIN_LOAD_URL's empty `ggraph`
/// through our fault proxy, whose faults (a reset before the server answered and one after, an
/// answer that never comes, forged 503 and Neptune-style 500 ConcurrentModificationException
/// answers: what a 3.x server says as 596) land on vertex and edge requests: every fault
/// taken, requests sent again (the report's retried count), every row written, and the graph
/// holds each vertex and edge of the files once (lost 0, duplicated 0).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_load_through_faults_loses_and_duplicates_nothing() {
    use graphbinary_client::client::RetryPolicy;
    use std::time::Duration;

    let test = "http_load_through_faults_loses_and_duplicates_nothing";
    const SOURCE: &str = "ggraph";
    let (url, client, g, _one) =
        graphbinary_testkit::or_skip!(server(test, Some(SOURCE), true).await);

    const N: usize = 1500;
    let mut nodes = String::from("~id,~label,name:String(single),n:Int(single)\n");
    for i in 0..N {
        nodes += &format!(
            "{i},{},v{i},{i}\n",
            if i % 3 == 0 { "fp_a" } else { "fp_b" }
        );
    }
    let mut edges = String::from("~id,~from,~to,~label,w:Int\n");
    for i in 0..2 * N {
        edges += &format!("{},{},{},fp_e,{i}\n", 100_000 + i, i % N, (i * 7 + 1) % N);
    }
    let dir = std::env::temp_dir().join(format!("gb-e2e-load-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (nf, ef) = (dir.join("nodes.csv"), dir.join("edges.csv"));
    std::fs::write(&nf, &nodes).unwrap();
    std::fs::write(&ef, &edges).unwrap();

    let proxy = fault_proxy::FaultProxy::start(&url).await;
    let c = proxy.writer_client();
    let cme = r#"{"requestId":"1","code":"ConcurrentModificationException","detailedMessage":"Failed to complete operation due to conflicting concurrent operations"}"#;
    let faults = || {
        vec![
            fault_proxy::Fault::ResetBeforeResponse,
            fault_proxy::Fault::ResetAfter(10),
            // No answer at all: the read timeout, then a retry.
            fault_proxy::Fault::StallBeforeHeaders,
            fault_proxy::Fault::Forge(http_forged(503, "forged: overloaded")),
            fault_proxy::Fault::Forge(http_forged(500, cme)),
        ]
    };
    let options = BatchOptions::default()
        .batch_size(50)
        .in_flight(1)
        .source(SOURCE)
        .retry(
            RetryPolicy::default()
                .max_attempts(8)
                .initial_backoff(Duration::from_millis(5)),
        );
    let started = Instant::now();
    let mut loader = Loader::new(&c, options);
    // Taken by the first vertex requests.
    for f in faults() {
        proxy.arm(f);
    }
    loader
        .load_vertices("nodes.csv", std::fs::File::open(&nf).unwrap())
        .await
        .unwrap();
    // Once those are taken, the same again: on the last vertex requests or the edges'.
    while proxy.armed() > 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let vertex_requests = proxy.requests();
    for f in faults() {
        proxy.arm(f);
    }
    let edge_file = std::fs::File::open(&ef).unwrap();
    loader.load_edges("edges.csv", edge_file).await.unwrap();
    let s = loader.finish().await;
    eprintln!(
        "{test}: {:?}: {s}; proxy saw {} requests ({vertex_requests} when the second faults were armed)",
        started.elapsed(),
        proxy.requests()
    );
    assert_eq!(proxy.armed(), 0, "every fault was taken");
    assert!(s.is_complete(), "{s}: {:?}", s.errors);
    assert_eq!(
        (s.vertices.written, s.edges.written),
        (N as u64, 2 * N as u64),
        "{s}"
    );
    assert!(s.retried >= 10, "{s}");

    // Lost 0, duplicated 0.
    let node_rows = csv_rows(&nf);
    let edge_rows = csv_rows(&ef);
    assert_eq!(
        server_label_counts(&g, false).await,
        label_counts(&node_rows)
    );
    assert_eq!(server_edge_ends(&g).await, edge_ends(&edge_rows));
    for q in [
        "g.V().outE().count()",
        "g.V().inE().count()",
        "g.V().properties('name').count()",
    ] {
        let n: i64 = client.request(q).g(SOURCE).expect_one().await;
        let want = if q.contains("name") { N } else { 2 * N };
        assert_eq!(n, want as i64, "{q}");
    }
    drop_all(&g).await;
    let _ = std::fs::remove_dir_all(&dir);
}
