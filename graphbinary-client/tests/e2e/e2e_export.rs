//! End-to-end: the exporter (`process::Exporter`) and `graphbinary load` / `graphbinary export`
//! against real servers: the modern graph exported from Gremlin Server 4.0.0-beta.3
//! (`GREMLIN_URL`) and from 3.7.3 (`GREMLIN_WS_URL_373`, the `ws_` tests) gives the same files;
//! loaded into an empty 4.0 server (`GREMLIN_LOAD_URL`, whose `g` the tests clear, e.g. `cargo
//! xtask server --port 8240 --dataset integration --detach`) and exported again, the same files
//! (order aside); values the format cannot hold are refused naming their element; a load
//! dropped midway and run again completes with nothing twice. TinkerPop 3 and JanusGraph
//! (issue 40 item 4): the modern files load by id into the empty `ggraph` of a 3.7.3 server
//! started with `--dataset integration` (`GREMLIN_WS_LOAD_URL_373`, the `ws3_load` tests: see
//! [`crate::ws3_load_server`]) and export the same; they load by a key property
//! into JanusGraph 1.1.0 in memory (`GREMLIN_WS_JANUSGRAPH_URL`, set by `cargo xtask ci`'s
//! TinkerPop 3 step) and export the same through that key. A test whose servers are unset
//! or do not answer skips with a notice.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use graphbinary_client::process::{
    BatchOptions, Exporter, GraphTraversalSource, LoadSummary, Loader,
};
use graphbinary_client::{Client, Error};

use graphbinary_testkit::results::Sent;
use graphbinary_testkit::{gremlin_server, servers3};
use gremlin_server::skip;
use tokio::sync::MutexGuard;

/// The load server's graph is cleared by each test: one at a time (of this binary: e2e_load
/// clears it too).
use crate::LOAD_GRAPH as LOAD_SERVER;
use crate::WS3_LOAD_SOURCE;

/// The modern graph as the exporter writes it (sorted lines, header first).
const MODERN_NODES: &str = "~id,~label,age:Int,lang:String,name:String
1,person,29,,marko
2,person,27,,vadas
3,software,,java,lop
4,person,32,,josh
5,software,,java,ripple
6,person,35,,peter
";
const MODERN_EDGES: &str = "~id,~from,~to,~label,weight:Double
10,4,5,created,1
11,4,3,created,0.4
12,6,3,created,0.2
7,1,2,knows,0.5
8,1,4,knows,1
9,1,3,created,0.4
";

/// A file's text with its data lines sorted (the header stays first).
fn sorted(text: &str) -> String {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let mut rest: Vec<&str> = lines.collect();
    rest.sort_unstable();
    let mut out = String::from(header);
    out.push('\n');
    for l in rest {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The export of `client` as (nodes, edges) text, sorted.
async fn export(client: &Client) -> Result<(String, String), Error> {
    let (mut nodes, mut edges) = (Vec::new(), Vec::new());
    Exporter::new(client).export(&mut nodes, &mut edges).await?;
    Ok((
        sorted(&String::from_utf8(nodes).unwrap()),
        sorted(&String::from_utf8(edges).unwrap()),
    ))
}

fn client(url: &str) -> Client {
    Client::builder(url)
        .connect_timeout(Duration::from_secs(5))
        .read_timeout(Duration::from_secs(120))
        .build()
        .expect("a client")
}

/// The empty 4.0 server of these tests, or `None` (a notice): its URL, a client, and the lock
/// of its graph, taken once the graph is cleared.
async fn load_server(test: &str) -> Option<(String, Client, MutexGuard<'static, ()>)> {
    let Ok(url) = std::env::var("GREMLIN_LOAD_URL") else {
        skip::skipped(
            test,
            "GREMLIN_LOAD_URL is not set (a 4.0 server whose graph the test may clear)",
        );
        return None;
    };
    let c = client(&url);
    if let Err(e) = GraphTraversalSource::new(c.clone())
        .inject(1)
        .iterate()
        .await
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "{url} does not answer ({e}) and CI is set"
        );
        skip::skipped(test, &format!("{url} does not answer: {e}"));
        return None;
    }
    let lock = LOAD_SERVER.lock().await;
    clear(&c).await;
    Some((url, c, lock))
}

async fn clear(c: &Client) {
    let g = GraphTraversalSource::new(c.clone());
    g.e(()).drop().iterate().await.unwrap();
    g.v(()).drop().iterate().await.unwrap();
}

async fn load_text(c: &Client, nodes: &str, edges: &str) -> LoadSummary {
    let mut l = Loader::new(c, BatchOptions::default().in_flight(1));
    l.load_vertices("nodes.csv", nodes.as_bytes())
        .await
        .unwrap();
    l.load_edges("edges.csv", edges.as_bytes()).await.unwrap();
    l.finish().await
}

async fn count(c: &Client, gremlin: &str) -> i64 {
    c.request(gremlin).expect_one().await
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gb-e2e-export-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .args(args)
        .output()
        .expect("run graphbinary")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read(p: &Path) -> String {
    sorted(&std::fs::read_to_string(p).unwrap())
}

/// Export from 4.0, load into an empty 4.0, export again: the same files, and those of the
/// modern graph.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_modern_exports_loads_and_exports_again_equal() {
    let test = "http_modern_exports_loads_and_exports_again_equal";
    if !gremlin_server::server_available(test).await {
        return;
    }
    let source = gremlin_server::client(test).await.unwrap();
    let (nodes, edges) = export(&source).await.unwrap();
    assert_eq!(nodes, MODERN_NODES);
    assert_eq!(edges, MODERN_EDGES);

    let (_, target, _lock) = graphbinary_testkit::or_skip!(load_server(test).await);
    let s = load_text(&target, &nodes, &edges).await;
    assert!(s.is_complete(), "{s} {:?}", s.errors);
    assert_eq!((s.vertices.created, s.edges.written), (6, 6), "{s}");
    let again = export(&target).await.unwrap();
    assert_eq!(again, (nodes, edges));
    clear(&target).await;
}

/// The same from TinkerPop 3.7.3 over ws://: the files of the modern graph, which load into
/// 4.0 and export back equal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ws_modern_from_373_exports_the_same_files_and_loads_into_4() {
    let test = "ws_modern_from_373_exports_the_same_files_and_loads_into_4";
    let url =
        graphbinary_testkit::or_skip!(servers3::one(test, "GREMLIN_WS_URL_373", "TinkerPop 3.7.3"));
    let (nodes, edges) = export(&client(&url)).await.unwrap();
    assert_eq!(nodes, MODERN_NODES);
    assert_eq!(edges, MODERN_EDGES);
    // The files are those the http test loads; loaded here too when a load server is set
    // (`cargo xtask ci` runs this test in its TinkerPop 3 step, which has none).
    if std::env::var_os("GREMLIN_LOAD_URL").is_none() {
        return;
    }
    let (_, target, _lock) = graphbinary_testkit::or_skip!(load_server(test).await);
    let s = load_text(&target, &nodes, &edges).await;
    assert!(s.is_complete(), "{s} {:?}", s.errors);
    assert_eq!(export(&target).await.unwrap(), (nodes, edges));
    clear(&target).await;
}

/// Every type of the format, multi-valued keys and awkward strings survive export, load and
/// export; what the format cannot hold is refused naming the element.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_types_round_trip_and_what_cannot_be_held_is_refused() {
    let test = "http_types_round_trip_and_what_cannot_be_held_is_refused";
    let (_, c, _lock) = graphbinary_testkit::or_skip!(load_server(test).await);
    let nodes = "~id,~label,b:Bool,by:Byte,d:Date,f:Float,n:Int,s:String,sh:Short,tags:String[],x:Double,y:Long\n\
                 1,thing,true,-3,2024-02-29T01:02:03Z,1.5,42,\"a, \"\"quoted\"\" b\",7,a;b\\;c,-Infinity,9000000000\n\
                 2,thing,false,,,,,x;y,,z,NaN,\n\
                 3,other,,,,,,\" spaced \",,,0.1,\n";
    let edges = "~id,~from,~to,~label,w:Double\n100,1,2,rel,2.5\n101,2,3,rel,\n";
    let s = load_text(&c, nodes, edges).await;
    assert!(s.is_complete(), "{s} {:?}", s.errors);
    let (n1, e1) = export(&c).await.unwrap();
    assert_eq!(n1, sorted(nodes));
    assert_eq!(e1, sorted(edges));
    // Loaded again elsewhere (here: cleared) from the export: the same export.
    clear(&c).await;
    load_text(&c, &n1, &e1).await;
    assert_eq!(export(&c).await.unwrap(), (n1, e1));

    // Refusals, each naming the element and the key.
    let refused = |gremlin: &'static str, want: &'static [&'static str]| {
        let c = c.clone();
        async move {
            clear(&c).await;
            c.request(gremlin).expect_all().await;
            let e = export(&c).await.unwrap_err().to_string();
            for w in want {
                assert!(e.contains(w), "{gremlin}: {e:?} lacks {w:?}");
            }
        }
    };
    refused(
        "g.addV('a').property(T.id, 1L).property('u', UUID('41d2e28a-20a4-4ab0-b379-d810dede3786'))",
        &["vertex 1", "\"u\"", "UUID"],
    )
    .await;
    refused(
        "g.addV('a').property(T.id, 1L).property('k', 1).addV('a').property(T.id, 2L).property('k', 'one')",
        &["\"k\"", "several types", "vertex 1", "vertex 2"],
    )
    .await;
    refused(
        "g.addV('a').property(T.id, 5L).property('name', 'x', 'since', 2020)",
        &["vertex 5", "\"name\"", "meta-properties"],
    )
    .await;
    refused(
        "g.addV('a').property(T.id, 6L).property('m', [a: 1])",
        &["vertex 6", "\"m\"", "cannot hold"],
    )
    .await;
    refused(
        "g.addV('a').property(T.id, 7L).property('e', '')",
        &["vertex 7", "\"e\"", "empty String"],
    )
    .await;
    clear(&c).await;
}

/// A load dropped after some batches, then run again: everything is there once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_a_load_dropped_midway_completes_when_run_again_with_nothing_twice() {
    let test = "http_a_load_dropped_midway_completes_when_run_again_with_nothing_twice";
    let (_, c, _lock) = graphbinary_testkit::or_skip!(load_server(test).await);
    const N: usize = 3000;
    let mut nodes = String::from("~id,~label,name:String,n:Int,tags:String[]\n");
    for i in 0..N {
        nodes.push_str(&format!("{i},p,v{i},{i},t{};u\n", i % 7));
    }
    let mut edges = String::from("~id,~from,~to,~label,w:Int\n");
    for i in 0..2 * N {
        edges.push_str(&format!(
            "{},{},{},e,{i}\n",
            100_000 + i,
            i % N,
            (i * 7 + 1) % N
        ));
    }
    let run = || {
        let c = c.clone();
        let (nodes, edges) = (nodes.clone(), edges.clone());
        async move { load_text(&c, &nodes, &edges).await }
    };
    // Dropped once the server holds at least 5 batches of vertices.
    let watch = async {
        loop {
            if count(&c, "g.V().count()").await >= 500 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::select! {
        s = run() => panic!("the load ended before it was dropped: {s}"),
        () = watch => {}
    }
    // What the dropped writer had in flight may still land: wait for the count to settle.
    let mut before = -1;
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let n = count(&c, "g.V().count()").await;
        if n == before {
            break;
        }
        before = n;
    }
    let partial = before;
    eprintln!("dropped with {partial} of {N} vertices written");
    assert!((500..N as i64).contains(&partial), "{partial}");

    let s = run().await;
    assert!(s.is_complete(), "{s} {:?}", s.errors);
    assert_eq!(s.vertices.matched as i64, partial, "{s}");
    assert_eq!(s.vertices.created as i64, N as i64 - partial, "{s}");
    assert_eq!(count(&c, "g.V().count()").await, N as i64);
    assert_eq!(count(&c, "g.E().count()").await, 2 * N as i64);
    // Each edge in the adjacency of both its ends, once.
    assert_eq!(count(&c, "g.V().outE().count()").await, 2 * N as i64);
    assert_eq!(count(&c, "g.V().inE().count()").await, 2 * N as i64);
    // Set cardinality: each value once, however many runs wrote it.
    assert_eq!(
        count(&c, "g.V().properties('name').count()").await,
        N as i64
    );
    assert_eq!(
        count(&c, "g.V().properties('tags').count()").await,
        2 * N as i64
    );
    clear(&c).await;
}

/// The binary: export, load (exit 0), a file with bad rows (exit 2, each named), a server that
/// does not answer (exit 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_cli_load_and_export_with_their_exit_codes() {
    let test = "http_cli_load_and_export_with_their_exit_codes";
    if !gremlin_server::server_available(test).await {
        return;
    }
    let (load_url, c, _lock) = graphbinary_testkit::or_skip!(load_server(test).await);
    let dir = temp_dir("cli");
    let src = dir.join("modern");
    let (modern_url, src_dir) = (gremlin_server::url(), src.to_str().unwrap());
    let o = bin(&["export", "--url", &modern_url, "--out", src_dir]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("6 vertices"), "{}", stderr(&o));
    assert_eq!(read(&src.join("nodes.csv")), MODERN_NODES);
    assert_eq!(read(&src.join("edges.csv")), MODERN_EDGES);

    let (n, e) = (src.join("nodes.csv"), src.join("edges.csv"));
    let o = bin(&[
        "load",
        "--url",
        &load_url,
        "--nodes",
        n.to_str().unwrap(),
        "--edges",
        e.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("12 rows") && err.contains("rejected 0") && err.contains("rows/s"),
        "{err}"
    );
    let back = dir.join("back");
    let back_dir = back.to_str().unwrap();
    let o = bin(&["export", "--url", &load_url, "--out", back_dir]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read(&back.join("nodes.csv")), MODERN_NODES);
    assert_eq!(read(&back.join("edges.csv")), MODERN_EDGES);

    // Bad rows: each named, the rest loaded, exit 2.
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "~id,~label,age:Int\n20,person,x\n21,person,3\n").unwrap();
    let o = bin(&["load", "--url", &load_url, "--nodes", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("{}:2:3: age: ", bad.display())),
        "{}",
        stderr(&o)
    );
    assert_eq!(count(&c, "g.V('21').count()").await, 1);
    assert_eq!(count(&c, "g.V('20').count()").await, 0);

    // No server: exit 1; no file: exit 64.
    let o = bin(&[
        "load",
        "--url",
        "http://127.0.0.1:9/gremlin",
        "--nodes",
        n.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = bin(&[
        "export",
        "--url",
        "http://127.0.0.1:9/gremlin",
        "--out",
        dir.join("none").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!dir.join("none").exists());
    let o = bin(&["load", "--url", &load_url, "--nodes", "/nonexistent/n.csv"]);
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
    clear(&c).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 40 item 4, TinkerPop 3: the modern graph's files load by id into an empty 3.7.3
/// TinkerGraph (`ggraph`, LONG ids from the CSV's strings) and export again the same; a second
/// load matches every vertex and adds nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ws3_load_modern_into_an_empty_373_graph_exports_the_same() {
    let test = "ws3_load_modern_into_an_empty_373_graph_exports_the_same";
    let (c, _one) = graphbinary_testkit::or_skip!(
        crate::ws3_load_server(test, "GREMLIN_WS_LOAD_URL_373").await
    );
    let g = GraphTraversalSource::new(c.clone()).alias(WS3_LOAD_SOURCE);
    let options = || BatchOptions::default().in_flight(1).source(WS3_LOAD_SOURCE);
    for round in 0..2 {
        let mut l = Loader::new(&c, options());
        l.load_vertices("nodes.csv", MODERN_NODES.as_bytes())
            .await
            .unwrap();
        l.load_edges("edges.csv", MODERN_EDGES.as_bytes())
            .await
            .unwrap();
        let s = l.finish().await;
        assert!(s.is_complete(), "round {round}: {s} {:?}", s.errors);
        assert_eq!(
            (s.vertices.created, s.vertices.matched, s.edges.written),
            if round == 0 { (6, 0, 6) } else { (0, 6, 6) },
            "round {round}: {s}"
        );
    }
    assert_eq!(
        g.e(()).count(()).to_list().await.unwrap()[0].as_i64(),
        Some(6)
    );
    let (mut nodes, mut edges) = (Vec::new(), Vec::new());
    Exporter::new(&c)
        .source(WS3_LOAD_SOURCE)
        .export(&mut nodes, &mut edges)
        .await
        .unwrap();
    assert_eq!(sorted(std::str::from_utf8(&nodes).unwrap()), MODERN_NODES);
    assert_eq!(sorted(std::str::from_utf8(&edges).unwrap()), MODERN_EDGES);
    g.v(()).drop().iterate().await.unwrap();
}

/// `text`'s data lines with column `col` dropped, each line passed through `f` first.
fn rewrite(text: &str, mut f: impl FnMut(&mut Vec<String>) -> bool) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
        if i == 0 || f(&mut cells) {
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    }
    out
}

/// Issue 40 item 4, JanusGraph: JanusGraph 1.1.0 (in memory, `GREMLIN_WS_JANUSGRAPH_URL`, whose
/// modern graph stays: what the test writes carries the key property and is dropped at its end)
/// assigns its own ids, so the modern files load by a key property, edges by their ends'
/// server ids; loaded twice, nothing is written twice. The export of the whole graph (its edge
/// ids JanusGraph's RelationIdentifiers, written as JanusGraph's text of them, which `g.E(text)`
/// finds) holds, through the key, the files loaded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ws_janusgraph_loads_by_key_and_exports_the_same_through_it() {
    let test = "ws_janusgraph_loads_by_key_and_exports_the_same_through_it";
    let url = graphbinary_testkit::or_skip!(servers3::one(
        test,
        "GREMLIN_WS_JANUSGRAPH_URL",
        "JanusGraph 1.1.0"
    ));
    const KEY: &str = "gbCsvId";
    let _one = crate::JANUSGRAPH.lock().await;
    let c = client(&url);
    let g = GraphTraversalSource::new(c.clone());
    g.v(()).has(KEY).drop().iterate().await.unwrap();
    let before = g.v(()).count(()).to_list().await.unwrap()[0]
        .as_i64()
        .unwrap();
    for round in 0..2 {
        // JanusGraph's modern schema defines name, age and lang as SINGLE keys: the columns,
        // which give no cardinality, follow it (the format's default, set, it refuses).
        let mut l = Loader::new(&c, BatchOptions::default().in_flight(2)).key_property(KEY);
        l.load_vertices("nodes.csv", MODERN_NODES.as_bytes())
            .await
            .unwrap();
        l.load_edges(
            "edges.csv",
            format!("{MODERN_EDGES}99,1,404,knows,1\n").as_bytes(),
        )
        .await
        .unwrap();
        let s = l.finish().await;
        assert_eq!(
            (s.vertices.created, s.vertices.matched, s.edges.written),
            if round == 0 { (6, 0, 6) } else { (0, 6, 6) },
            "round {round}: {s} {:?}",
            s.errors
        );
        // The edge to a vertex no row made is a rejected row naming its ~to.
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        assert_eq!((s.errors[0].line, s.errors[0].column), (8, Some(3)));
        assert!(s.errors[0].message.contains("\"404\""), "{}", s.errors[0]);
    }
    assert_eq!(count(&c, &format!("g.V().has('{KEY}').count()")).await, 6);
    assert_eq!(count(&c, &format!("g.E().has('{KEY}').count()")).await, 6);
    assert_eq!(
        g.v(()).count(()).to_list().await.unwrap()[0].as_i64(),
        Some(before + 6)
    );

    let (mut nodes, mut edges) = (Vec::new(), Vec::new());
    Exporter::new(&c)
        .export(&mut nodes, &mut edges)
        .await
        .unwrap();
    let (nodes, edges) = (
        String::from_utf8(nodes).unwrap(),
        String::from_utf8(edges).unwrap(),
    );
    // Through the key: the server's ids back to the CSV's, the key column dropped.
    let vheader: Vec<&str> = nodes.lines().next().unwrap().split(',').collect();
    assert_eq!(
        vheader,
        [
            "~id",
            "~label",
            "age:Int",
            "gbCsvId:String",
            "lang:String",
            "name:String"
        ]
    );
    let mut csv_id = std::collections::HashMap::new();
    let nodes = rewrite(&nodes, |cells| {
        let keep = !cells[3].is_empty();
        if keep {
            csv_id.insert(cells[0].clone(), cells[3].clone());
            cells[0] = cells.remove(3);
        }
        keep
    })
    .replace(",gbCsvId:String", "");
    let eheader: Vec<&str> = edges.lines().next().unwrap().split(',').collect();
    assert_eq!(
        eheader,
        [
            "~id",
            "~from",
            "~to",
            "~label",
            "gbCsvId:String",
            "weight:Double"
        ]
    );
    let mut server_edge_id = None;
    let edges = rewrite(&edges, |cells| {
        let keep = !cells[4].is_empty();
        if keep {
            server_edge_id = Some(cells[0].clone());
            cells[1] = csv_id[&cells[1]].clone();
            cells[2] = csv_id[&cells[2]].clone();
            cells[0] = cells.remove(4);
        }
        keep
    })
    .replace(",gbCsvId:String", "");
    assert_eq!(sorted(&nodes), MODERN_NODES);
    assert_eq!(sorted(&edges), MODERN_EDGES);
    // An edge id as written (JanusGraph's text of its RelationIdentifier) finds its edge.
    let id = server_edge_id.unwrap();
    assert!(id.split('-').count() == 4, "{id}");
    assert_eq!(
        count(&c, &format!("g.E('{id}').has('{KEY}').count()")).await,
        1
    );

    g.v(()).has(KEY).drop().iterate().await.unwrap();
    assert_eq!(
        g.v(()).count(()).to_list().await.unwrap()[0].as_i64(),
        Some(before)
    );
}
