//! End-to-end: the batch writer (`Client::batch_writer`) against the real Gremlin Server
//! 4.0.0-beta.3 (`GREMLIN_URL`, `http_*` tests) and TinkerPop 3.7.3 (`GREMLIN_WS_URL_373`,
//! `ws_*` tests), directly and through our fault proxy (connection resets, forged 596 and
//! Neptune ConcurrentModificationException answers): every item is written or handed back
//! (lost 0), and no element is written twice (duplicated 0).
//!
//! Each test writes under a run tag of its own (property `run`) and drops what it wrote.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use graphbinary_client::client::RetryPolicy;
use graphbinary_client::element::{Edge, Vertex};
use graphbinary_client::process::GraphTraversalSource;
use graphbinary_client::process::{BatchOptions, Report};
use graphbinary_client::value::Value;
use graphbinary_client::Client;

use graphbinary_testkit::fault_proxy;
use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::run;
use graphbinary_testkit::servers3;
use graphbinary_testkit::ws_message;
use run::{cleaned_up, cleanup, of_run, run_tag};

use fault_proxy::{Fault, FaultProxy};

#[derive(Vertex, Debug, Clone, PartialEq)]
#[vertex(label = "gbw_item")]
struct Item {
    #[vertex(key)]
    code: String,
    run: String,
    n: i64,
    tags: Vec<String>,
}

#[derive(Edge, Debug, Clone, PartialEq)]
#[edge(label = "gbw_next")]
struct Next {
    #[edge(out = Item)]
    from: String,
    #[edge(in = Item)]
    to: String,
    run: String,
}

/// The URL of a test's server: `http_*` the 4.0 one, `ws_*` 3.7.3; `None` (a notice) when
/// it is not there.
async fn server_url(test: &str) -> Option<String> {
    if test.starts_with("http_") {
        gremlin_server::MODERN
            .available(test)
            .await
            .then(gremlin_server::url)
    } else {
        servers3::one(test, "GREMLIN_WS_URL_373", "TinkerPop 3.7.3")
    }
}

fn client(url: &str) -> Client {
    Client::builder(url)
        .connect_timeout(Duration::from_secs(5))
        .read_timeout(Duration::from_secs(30))
        // The writer does its own retries; the client's would hide what it is tested for.
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap()
}

fn item(run: &str, i: usize) -> Item {
    Item {
        code: format!("{run}_{i}"),
        run: run.to_owned(),
        n: i as i64,
        tags: vec![format!("t{}", i % 3), "x".into()],
    }
}

/// How many vertices of the run each code has.
async fn codes(g: &GraphTraversalSource, run: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    let found: Vec<String> = g
        .v(())
        .has(("gbw_item", "run", run))
        .values("code")
        .to_list_as()
        .await
        .unwrap();
    for c in found {
        *out.entry(c).or_insert(0) += 1;
    }
    out
}

async fn upsert_all(c: &Client, items: &[Item], options: BatchOptions) -> Report {
    let mut w = c.batch_writer(options);
    for it in items {
        w.upsert(it).await.unwrap();
    }
    w.finish().await
}

async fn vertices_and_edges(test: &str) {
    let Some(url) = server_url(test).await else {
        return;
    };
    let c = client(&url);
    let g = GraphTraversalSource::new(c.clone());
    let run = run_tag(test);
    let items: Vec<Item> = (0..450).map(|i| item(&run, i)).collect();
    let result = async {
        let t = Instant::now();
        let r = upsert_all(&c, &items, BatchOptions::default()).await;
        eprintln!("{test}: {r} in {:?}", t.elapsed());
        assert!(r.failed.is_empty(), "{test}: {r}");
        assert_eq!((r.written, r.created, r.matched), (450, 450, 0), "{test}");
        if !url.starts_with("ws") {
            assert_eq!(r.requests, 5, "{test}: 100 per request");
        }
        // Again: every item matched, nothing created.
        let r = upsert_all(&c, &items, BatchOptions::default().batch_size(64)).await;
        assert_eq!(
            (r.written, r.created, r.matched),
            (450, 0, 450),
            "{test}: {r}"
        );
        // Without the match counts: written only.
        let r = upsert_all(&c, &items, BatchOptions::default().count_matches(false)).await;
        assert_eq!(
            (r.written, r.created, r.matched),
            (450, 0, 0),
            "{test}: {r}"
        );
        let found = codes(&g, &run).await;
        assert_eq!(found.len(), 450, "{test}");
        assert!(found.values().all(|&n| n == 1), "{test}: duplicated");
        // Read back equal, list properties included.
        let mut read = of_run::<Item>(&g, &run).await;
        read.sort_by_key(|i| i.n);
        assert_eq!(read, items, "{test}");
        // Edges by key after the vertices are flushed; adds and upserts mixed.
        let mut w = c.batch_writer(BatchOptions::default().batch_size(50).in_flight(2));
        for i in 0..449 {
            let e = Next {
                from: items[i].code.clone(),
                to: items[i + 1].code.clone(),
                run: run.clone(),
            };
            if i % 2 == 0 {
                w.upsert(&e).await.unwrap();
            } else {
                w.add(&e).await.unwrap();
            }
        }
        w.flush().await.unwrap();
        // A raw mergeV beside the typed items.
        let raw = graphbinary_client::process::Lit::map([
            (
                graphbinary_client::process::Lit::from(graphbinary_client::process::T::Label),
                graphbinary_client::process::Lit::from("gbw_item"),
            ),
            ("code".into(), format!("{run}_raw").into()),
            ("run".into(), run.as_str().into()),
        ]);
        w.merge_v(raw, None, None).await.unwrap();
        let r = w.finish().await;
        assert!(r.failed.is_empty(), "{test}: {r}");
        assert_eq!((r.written, r.created), (450, 450), "{test}: {r}");
        let edges = next_edges(&g, &run).await;
        assert_eq!(edges, 449, "{test}");
    };
    cleaned_up(result, cleanup(&g, &run)).await;
}

/// How many `gbw_next` edges run `run` wrote.
async fn next_edges(g: &GraphTraversalSource, run: &str) -> i64 {
    g.e(())
        .has(("gbw_next", "run", run))
        .count(())
        .next_as()
        .await
        .unwrap()
        .unwrap()
}

/// Tests named `name` calling `body(name)`, each alone in this binary (each writes to or
/// counts the shared Modern graph); `http_...` and `ws_...` pick the transport from the name.
macro_rules! alone_tests {
    ($body:ident: $($name:ident),+) => {$(
        #[tokio::test]
        async fn $name() {
            let _alone = graphbinary_testkit::exclusive::alone().await;
            $body(stringify!($name)).await;
        }
    )+};
}

alone_tests!(vertices_and_edges: http_vertices_and_edges, ws_vertices_and_edges);

/// A TinkerPop 3 status message with `code` and `message` for the request in `payload`.
fn ws_forged(code: i32, message: &'static str) -> fault_proxy::Forger {
    Arc::new(move |payload| {
        let (id, _) = ws_message::parse_request(payload);
        ws_message::response(&id, code, message, None)
    })
}

/// A forged HTTP answer with `status` and a JSON `message`.
fn http_forged(status: u16, message: &'static str) -> fault_proxy::Forger {
    Arc::new(move |_| {
        let body = format!(r#"{{"message":{message:?}}}"#);
        format!(
            "HTTP/1.1 {status} Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    })
}

async fn faults(test: &str) {
    let Some(url) = server_url(test).await else {
        return;
    };
    let ws = url.starts_with("ws");
    let direct = client(&url);
    let g = GraphTraversalSource::new(direct.clone());
    let proxy = FaultProxy::start(&url).await;
    let c = proxy.writer_client();
    let run = run_tag(test);
    let items: Vec<Item> = (0..600).map(|i| item(&run, i)).collect();
    let result = async {
        // Resets before and after the server answered, and (http) forged temporary errors.
        // Neptune's answer to a conflict, as its message.
        let cme = r#"{"requestId":"1","code":"ConcurrentModificationException","detailedMessage":"Failed to complete operation due to conflicting concurrent operations"}"#;
        let mut faults = vec![
            Fault::ResetBeforeResponse,
            Fault::ResetAfter(10),
            // No answer at all: the read timeout, then a retry once it may have finished.
            Fault::StallBeforeHeaders,
        ];
        if ws {
            faults.push(Fault::Forge(ws_forged(596, "forged: try again")));
            faults.push(Fault::Forge(ws_forged(500, cme)));
        } else {
            faults.push(Fault::Forge(http_forged(503, "overloaded")));
            faults.push(Fault::Forge(http_forged(500, cme)));
        }
        let armed = faults.len();
        for f in faults {
            proxy.arm(f);
        }
        let options = BatchOptions::default().batch_size(50).in_flight(3).retry(
            RetryPolicy::default()
                .max_attempts(8)
                .initial_backoff(Duration::from_millis(5)),
        );
        let r = upsert_all(&c, &items, options).await;
        eprintln!("{test}: {r}");
        assert_eq!(proxy.armed(), 0, "{test}: every fault was taken");
        assert!(r.failed.is_empty(), "{test}: {r}");
        assert_eq!(r.written, 600, "{test}");
        // Over ws:// a reset also fails the other requests on that connection.
        assert!(r.retried >= armed.min(1) as u64, "{test}: {r}");
        let found = codes(&g, &run).await;
        assert_eq!(found.len(), 600, "{test}: lost {}", 600 - found.len());
        assert!(found.values().all(|&n| n == 1), "{test}: duplicated");

        // Plain adds: one whose connection is reset after it reached the server is never
        // sent again; its items are handed back, none lost, none duplicated.
        let run2 = format!("{run}_adds");
        let adds: Vec<Item> = (0..200).map(|i| item(&run2, i)).collect();
        proxy.arm(Fault::ResetAfter(10));
        let mut w = c.batch_writer(BatchOptions::default().batch_size(50).in_flight(1));
        for it in &adds {
            w.add(it).await.unwrap();
        }
        let r = w.finish().await;
        eprintln!("{test} adds: {r}");
        assert_eq!(proxy.armed(), 0, "{test}: the fault was taken");
        assert_eq!(r.retried, 0, "{test}: an add is not sent again");
        // One request's items handed back (50 over http://; over ws:// a request holds fewer,
        // see TP3_MAX_STEPS).
        assert!(
            !r.failed.is_empty() && r.failed.len() <= 50,
            "{test}: one request's items handed back: {r}"
        );
        assert!(r.failed.iter().all(|f| f.maybe_written), "{test}");
        assert_eq!(r.written + r.failed.len() as u64, 200, "{test}");
        let found = codes(&g, &run2).await;
        assert!(found.values().all(|&n| n == 1), "{test}: duplicated");
        // Every item is in the graph or handed back.
        let back: std::collections::BTreeSet<u64> = r.failed.iter().map(|f| f.index).collect();
        for (i, it) in adds.iter().enumerate() {
            assert!(
                found.contains_key(&it.code) || back.contains(&(i as u64)),
                "{test}: item {i} lost"
            );
        }
    };
    let adds = format!("{run}_adds");
    let cleanup = async {
        cleanup(&g, &run).await;
        cleanup(&g, &adds).await;
    };
    cleaned_up(result, cleanup).await;
}

alone_tests!(faults: http_faults_lose_and_duplicate_nothing, ws_faults_lose_and_duplicate_nothing);

#[tokio::test]
async fn http_invalid_item_is_an_error_not_a_panic() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let Some(url) = server_url("http_invalid_item_is_an_error_not_a_panic").await else {
        return;
    };
    #[derive(Vertex)]
    #[vertex(label = "gbw_item")]
    struct NoKeyValue {
        #[vertex(key)]
        code: Option<String>,
    }
    let c = client(&url);
    let mut w = c.batch_writer(BatchOptions::default());
    let err = w.upsert(&NoKeyValue { code: None }).await.unwrap_err();
    assert!(
        err.to_string().contains("a key property has no value"),
        "{err}"
    );
    let r = w.finish().await;
    assert_eq!((r.written, r.failed.len(), r.requests), (0, 0, 0));
    let _ = Value::Null(0);
}

#[derive(Vertex, Debug, Clone, PartialEq)]
#[vertex(label = "gbw_flat")]
struct Flat {
    #[vertex(key)]
    code: String,
    run: String,
    n: i64,
    score: f64,
}

/// A writer's round `round` of `n` upserts: all written, created the first time, matched after.
fn assert_round(test: &str, round: usize, n: u64, r: &Report) {
    assert!(r.failed.is_empty(), "{test}: {r}");
    let want = if round == 0 { (n, n, 0) } else { (n, 0, n) };
    assert_eq!(
        (r.written, r.created, r.matched),
        want,
        "{test} round {round}: {r}"
    );
}

alone_tests!(
    one_step_batches: http_list_literal_batches_write_read_back_and_upsert_twice_changes_nothing,
    ws_one_binding_batches_write_read_back_and_upsert_twice_changes_nothing
);

/// Batches of raw merges (the loader's), vertices then edges, go as one step over their rows
/// (4.0: a list literal; 3.7.3: one binding, as do typed upserts with single-valued
/// properties): written, read back equal, created and matched told apart, and upserted again
/// they change nothing (a `Cardinality.set` value is not added twice, a typed `single` one is
/// replaced).
async fn one_step_batches(test: &str) {
    use graphbinary_client::process::{Cardinality, Direction, Lit, T};
    let Some(url) = server_url(test).await else {
        return;
    };
    let c = client(&url);
    let g = GraphTraversalSource::new(c.clone());
    let run = run_tag(test);
    let result = async {
        let raw = |i: usize| {
            let search = Lit::map([
                (Lit::from(T::Label), Lit::from("gbw_item")),
                (Lit::from("code"), Lit::from(format!("{run}_{i}"))),
            ]);
            let set = |l: Lit| Lit::CardinalityValue(Cardinality::Set, Box::new(l));
            let create = Lit::map([
                (Lit::from("run"), set(Lit::from(run.as_str()))),
                (Lit::from("n"), set(Lit::Long(i as i64))),
            ]);
            let on_match = Lit::map([(Lit::from("n"), set(Lit::Long(i as i64)))]);
            (search, create, on_match)
        };
        for round in 0..2 {
            let mut w = c.batch_writer(BatchOptions::default().batch_size(40));
            for i in 0..150 {
                let (s, cr, m) = raw(i);
                w.merge_v(s, Some(cr), Some(m)).await.unwrap();
            }
            let r = w.finish().await;
            assert_round(test, round, 150, &r);
            // One request per 40 rows (on 3.7.3, no chained script split by TP3_MAX_STEPS).
            assert_eq!(r.requests, 4, "{test}: {r}");
        }
        // Each vertex once, with one value of n (set cardinality: not added twice).
        let ns: Vec<Value> = g
            .v(())
            .has(("gbw_item", "run", run.as_str()))
            .order(())
            .by("n")
            .values("n")
            .to_list()
            .await
            .unwrap();
        assert_eq!(ns, (0..150).map(Value::Long).collect::<Vec<_>>(), "{test}");
        // Raw mergeE between them by id, twice.
        let ids: Vec<Value> = g
            .v(())
            .has(("gbw_item", "run", run.as_str()))
            .order(())
            .by("n")
            .id()
            .to_list()
            .await
            .unwrap();
        let id_lit = |v: &Value| match v {
            Value::Long(n) => Lit::Long(*n),
            Value::Int(n) => Lit::Int(*n),
            Value::String(s) => Lit::from(s.as_str()),
            other => panic!("{other:?}"),
        };
        for round in 0..2 {
            let mut w = c.batch_writer(BatchOptions::default().in_flight(1));
            for pair in ids.windows(2) {
                let search = Lit::map([
                    (Lit::from(T::Label), Lit::from("gbw_next")),
                    (Lit::from(Direction::Out), id_lit(&pair[0])),
                    (Lit::from(Direction::In), id_lit(&pair[1])),
                ]);
                let props = Lit::map([(Lit::from("run"), Lit::from(run.as_str()))]);
                w.merge_e(search, Some(props.clone()), Some(props))
                    .await
                    .unwrap();
            }
            let r = w.finish().await;
            assert_round(test, round, 149, &r);
        }
        let edges = next_edges(&g, &run).await;
        assert_eq!(edges, 149, "{test}");
        // Typed upserts of single-valued properties (an absent one is dropped by a step of
        // its own: such items keep the chained form).
        let flat = |i: usize, k: f64| Flat {
            code: format!("{run}_f{i}"),
            run: run.clone(),
            n: i as i64,
            score: i as f64 * k,
        };
        for k in [0.5, 0.25] {
            let mut w = c.batch_writer(BatchOptions::default());
            for i in 0..120 {
                w.upsert(&flat(i, k)).await.unwrap();
            }
            let r = w.finish().await;
            assert!(r.failed.is_empty(), "{test}: {r}");
            assert_eq!(r.written, 120, "{test}: {r}");
            assert_eq!(r.requests, 2, "{test}: one request per 100: {r}");
            let mut read = of_run::<Flat>(&g, &run).await;
            read.sort_by_key(|f| f.n);
            let want: Vec<Flat> = (0..120).map(|i| flat(i, k)).collect();
            assert_eq!(
                read, want,
                "{test}: read back equal after the upserts with {k}"
            );
        }
    };
    cleaned_up(result, cleanup(&g, &run)).await;
}
