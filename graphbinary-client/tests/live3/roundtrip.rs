//! What the client writes is what the user gave it: generated values of every kind go to a
//! REAL server through every route that sends a value, come back, and must equal what was
//! sent (and, on TinkerPop 3, have the Java class the value stands for).
//!
//! Routes: (a) `RequestBuilder::param`, (b) the traversal API's `GValue`, (c) the traversal
//! API in literal-only mode (the value written into the script: gremlin-lang for TinkerPop 4,
//! Groovy for TinkerPop 3), (d) `param_serialized`, (e) a TinkerPop 4 transaction's requests
//! and a TinkerPop 3 session's.
//!
//! Servers, each named by an env var (a test whose var is unset returns early with a SKIPPED
//! notice, counted as skipped by `cargo xtask ci`, which starts them): `GREMLIN_URL` (4.0.0-beta.3),
//! `GREMLIN_TX_URL` (4.0, transactional), `GREMLIN_WS_URL_368`, `GREMLIN_WS_URL_373`,
//! `GREMLIN_WS_URL_375`, `GREMLIN_WS_URL_380`, `GREMLIN_WS_URL_381`, `GREMLIN_WS_JANUSGRAPH_URL`
//! (`cargo xtask ci` sets all but 3.6.8's, 3.7.5's and 3.8.0's; `cargo xtask matrix` each
//! server's alone). Cases per route and server: `GRAPHBINARY_ROUNDTRIP_CASES`
//! (default 40). Each test prints `roundtrip: <server> <route>: N cases equal`.

use graphbinary_testkit::results;
use graphbinary_testkit::servers3;
use graphbinary_testkit::skip;
use graphbinary_testkit::values::{
    big_decimal, big_integer, binary, date_time, double, duration, float, java_char, string, Gen,
};
use results::Sent;

use graphbinary_client::process::{GValue, GraphTraversalSource};
use graphbinary_client::value::{BigDecimal, BigInteger, DateTime, DateTimeKind, Duration, Value};
use graphbinary_client::Client;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

fn cases() -> u32 {
    std::env::var("GRAPHBINARY_ROUNDTRIP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40)
}

fn leaf(g: Gen) -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null(0xfe)),
        any::<bool>().prop_map(Value::Boolean),
        any::<i8>().prop_map(Value::Byte),
        any::<i16>().prop_map(Value::Short),
        any::<i32>().prop_map(Value::Int),
        any::<i64>().prop_map(Value::Long),
        prop_oneof![Just(i32::MIN), Just(i32::MAX)].prop_map(Value::Int),
        prop_oneof![Just(i64::MIN), Just(i64::MAX)].prop_map(Value::Long),
        big_integer().prop_map(Value::BigInteger),
        float(g).prop_map(Value::Float),
        double().prop_map(Value::Double),
        big_decimal().prop_map(|d| Value::BigDecimal(Box::new(d))),
        string().prop_map(Value::String),
        java_char().prop_map(Value::Char),
        date_time(g).prop_map(Value::DateTime),
        any::<u128>().prop_map(|n| Value::Uuid(uuid::Uuid::from_u128(n))),
        duration().prop_map(Value::Duration),
        binary().prop_map(Value::Binary),
    ]
    .boxed()
}

/// Map keys the route can spell: any value over a TinkerPop 3 binding; on TinkerPop 4 what
/// gremlin-lang's `mapKey` allows (a String, a number, a List, a Set, a Map).
fn key(g: Gen) -> BoxedStrategy<Value> {
    match g {
        Gen::Tp3 => leaf(g),
        Gen::Tp4 => prop_oneof![
            string().prop_map(Value::String),
            any::<i32>().prop_map(Value::Int),
            any::<i64>().prop_map(Value::Long),
            any::<i16>().prop_map(Value::Short),
            prop::collection::vec(any::<i32>().prop_map(Value::Int), 0..3).prop_map(Value::List),
        ]
        .boxed(),
    }
}

/// A value tree; not a null at the top (a TinkerPop 4 property of null is no property, and
/// Groovy's `inject(null)` is no argument), nested nulls included.
fn value(g: Gen) -> impl Strategy<Value = Value> {
    leaf(g)
        .prop_recursive(2, 16, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::List),
                prop::collection::vec(inner.clone(), 0..4).prop_map(|v| Value::Set(dedupe(v))),
                prop::collection::vec((key(g), inner), 0..4)
                    .prop_map(|e| Value::Map(dedupe_keys(e))),
            ]
        })
        .prop_filter("not a null", |v| !v.is_null())
}

fn bytes(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    graphbinary_client::format::graphbinary1::encode_value(v, &mut out)
        .expect("generated values encode");
    out
}

/// Set items are distinct (as Java's `equals` sees them: by value, floats by bits).
fn dedupe(items: Vec<Value>) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|v| seen.insert(bytes(v)))
        .collect()
}

fn dedupe_keys(entries: Vec<(Value, Value)>) -> Vec<(Value, Value)> {
    let mut seen = std::collections::HashSet::new();
    entries
        .into_iter()
        .filter(|(k, _)| seen.insert(bytes(k)))
        .collect()
}

/// The value with Set items and Map entries in a canonical order (a server's HashSet and
/// HashMap keep none; a LinkedHashMap comes back in GraphBinary 4's ordered form), to compare
/// what came back with what was sent.
fn canonical(v: &Value) -> Value {
    match v {
        Value::List(items) => Value::List(items.iter().map(canonical).collect()),
        Value::Set(items) => {
            let mut items: Vec<Value> = items.iter().map(canonical).collect();
            items.sort_by_cached_key(bytes);
            Value::Set(items)
        }
        Value::Map(entries) | Value::OrderedMap(entries) => {
            let mut entries: Vec<(Value, Value)> = entries
                .iter()
                .map(|(k, v)| (canonical(k), canonical(v)))
                .collect();
            entries.sort_by_cached_key(|(k, _)| bytes(k));
            Value::Map(entries)
        }
        other => other.clone(),
    }
}

/// The Java class a TinkerPop 3 server holds for `v` (collections: the package).
fn java_class(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Boolean(_) => "java.lang.Boolean",
        Value::Byte(_) => "java.lang.Byte",
        Value::Short(_) => "java.lang.Short",
        Value::Int(_) => "java.lang.Integer",
        Value::Long(_) => "java.lang.Long",
        Value::BigInteger(_) => "java.math.BigInteger",
        Value::Float(_) => "java.lang.Float",
        Value::Double(_) => "java.lang.Double",
        Value::BigDecimal(_) => "java.math.BigDecimal",
        Value::String(_) => "java.lang.String",
        Value::Char(_) => "java.lang.Character",
        Value::Uuid(_) => "java.util.UUID",
        Value::Duration(_) => "java.time.Duration",
        Value::DateTime(d) => d.kind.java_class(),
        _ => return None,
    })
}

/// A value sent by `route` to one server and what came back.
type Route = fn(&Ctx, &Value) -> futures::future::BoxFuture<'static, Result<Vec<Value>, String>>;

struct Ctx {
    client: Client,
    g: GraphTraversalSource,
    literal_g: GraphTraversalSource,
    gen: Gen,
}

/// The script that sends `x` back: on TinkerPop 4 it is stored as a property of a new vertex
/// and read back (gremlin-lang takes a parameter only where a step takes a variable, which
/// `inject` does not); a Groovy script's List result is unrolled, so `[x]` gives x.
fn script(ctx: &Ctx) -> &'static str {
    match ctx.gen {
        Gen::Tp4 => "g.addV('roundtrip').property('p', x).values('p')",
        Gen::Tp3 => "[x]",
    }
}

fn route_param(
    ctx: &Ctx,
    v: &Value,
) -> futures::future::BoxFuture<'static, Result<Vec<Value>, String>> {
    let req = ctx.client.request(script(ctx)).param("x", v.clone());
    Box::pin(async move { collect(req.send().await).await })
}

fn route_serialized(
    ctx: &Ctx,
    v: &Value,
) -> futures::future::BoxFuture<'static, Result<Vec<Value>, String>> {
    let req = ctx.client.request(script(ctx)).param_serialized("x", v);
    Box::pin(async move { collect(req.send().await).await })
}

fn traversal(
    ctx: &Ctx,
    g: &GraphTraversalSource,
    arg: graphbinary_client::process::Arg,
) -> graphbinary_client::process::GraphTraversal {
    match ctx.gen {
        Gen::Tp4 => g.add_v("roundtrip").property(("p", arg)).values("p"),
        Gen::Tp3 => g.inject((arg,)),
    }
}

fn route_gvalue(
    ctx: &Ctx,
    v: &Value,
) -> futures::future::BoxFuture<'static, Result<Vec<Value>, String>> {
    let t = traversal(ctx, &ctx.g, GValue::new("x", v.clone()).into());
    Box::pin(async move { t.to_list().await.map_err(|e| e.to_string()) })
}

fn route_literal(
    ctx: &Ctx,
    v: &Value,
) -> futures::future::BoxFuture<'static, Result<Vec<Value>, String>> {
    let t = traversal(ctx, &ctx.literal_g, v.clone().into());
    Box::pin(async move { t.to_list().await.map_err(|e| e.to_string()) })
}

async fn collect(
    s: Result<graphbinary_client::ResultStream, graphbinary_client::Error>,
) -> Result<Vec<Value>, String> {
    s.map_err(|e| e.to_string())?
        .all()
        .await
        .map_err(|e| e.to_string())
}

/// Runs `cases()` generated values through `route`, each reading back equal; returns the count.
/// A runner of `cases` cases that writes no failure file.
fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// `got` is the one value `sent`, as the server keeps it.
fn one_back(got: &[Value], sent: &Value) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), 1, "{:?} came back as {:?}", sent, got);
    prop_assert_eq!(canonical(&got[0]), canonical(sent), "not the value sent");
    Ok(())
}

/// Route (e): `cases().min(20)` values of `gen` sent by `send`, each read back as itself
/// (`what` names the server and route in the failure and the printed count).
fn read_back(what: &str, gen: Gen, send: impl Fn(&Value) -> Result<Vec<Value>, String>) {
    let n = cases().min(20);
    let r = runner(n).run(&value(gen), |v| {
        one_back(&send(&v).map_err(TestCaseError::fail)?, &v)
    });
    if let Err(e) = r {
        panic!("{what}: {e}");
    }
    eprintln!("roundtrip: {what}: {n} cases equal");
}

fn check_route(
    rt: &tokio::runtime::Runtime,
    ctx: &Ctx,
    name: &str,
    route: Route,
    strategy: impl Strategy<Value = Value>,
) -> u32 {
    let n = cases();
    let result = runner(n).run(&strategy, |v| {
        let got = rt
            .block_on(route(ctx, &v))
            .map_err(|e| TestCaseError::fail(format!("{name}: {v:?}: {e}")))?;
        one_back(&got, &v).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    n
}

fn ctx(rt: &tokio::runtime::Runtime, url: &str, gen: Gen) -> Ctx {
    rt.block_on(async {
        let client = Client::builder(url).build().expect("client");
        Ctx {
            g: GraphTraversalSource::new(client.clone()),
            literal_g: GraphTraversalSource::new(client.clone()).literal_only(true),
            client,
            gen,
        }
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn all_routes(label: &str, url: &str, gen: Gen) {
    let rt = runtime();
    let ctx = ctx(&rt, url, gen);
    let routes: [(&str, Route); 4] = [
        ("param", route_param),
        ("GValue", route_gvalue),
        ("literal_only", route_literal),
        ("param_serialized", route_serialized),
    ];
    // TinkerPop 4's routes store each value on a vertex labelled `roundtrip`: removed
    // afterwards, also when a check fails, so that the graph other tests count is as it was.
    struct Clean<'a>(&'a tokio::runtime::Runtime, &'a Client);
    impl Drop for Clean<'_> {
        fn drop(&mut self) {
            let _ = self.0.block_on(async {
                match self.1.submit("g.V().hasLabel('roundtrip').drop()").await {
                    Ok(s) => s.count().await.map(|_| ()),
                    Err(e) => Err(e),
                }
            });
        }
    }
    let _clean = (gen == Gen::Tp4).then(|| Clean(&rt, &ctx.client));
    for (name, route) in routes {
        let n = check_route(&rt, &ctx, name, route, value(gen));
        eprintln!("roundtrip: {label} {name}: {n} cases equal");
    }
}

#[test]
fn tinkerpop4_every_route_reads_back_what_was_sent() {
    let test = "tinkerpop4_every_route_reads_back_what_was_sent";
    let Some(url) = servers3::one(test, "GREMLIN_URL", "Gremlin Server 4") else {
        return;
    };
    all_routes("4.0.0-beta.3", &url, Gen::Tp4);
}

/// Every Gremlin Server 3 version the client supports, each by the env var naming its URL
/// (any dataset: the values only travel through bindings and back). `cargo xtask ci` sets
/// 3.7.3's and 3.8.1's; `cargo xtask matrix` each in turn (or by hand: `cargo xtask server
/// --tinkerpop 3.7.5 --port N --detach`).
const VERSIONS: &[(&str, &str)] = &[
    ("3.6.8", "GREMLIN_WS_URL_368"),
    ("3.7.3", "GREMLIN_WS_URL_373"),
    ("3.7.5", "GREMLIN_WS_URL_375"),
    ("3.8.0", "GREMLIN_WS_URL_380"),
    ("3.8.1", "GREMLIN_WS_URL_381"),
];

fn tp3_servers(test: &str) -> Vec<(&'static str, String)> {
    let servers: Vec<_> = VERSIONS
        .iter()
        .copied()
        .chain([servers3::JANUSGRAPH])
        .collect();
    servers3::set(test, &servers)
}

#[test]
fn tinkerpop3_every_route_reads_back_what_was_sent() {
    for (label, url) in tp3_servers("tinkerpop3_every_route_reads_back_what_was_sent") {
        all_routes(label, &url, Gen::Tp3);
    }
}

/// On TinkerPop 3 the value bound keeps its Java class, and a value stored as a property is
/// found again by the value read back (`has('p', read)`), the bug of a Date bound again as an
/// OffsetDateTime.
#[test]
fn tinkerpop3_bindings_keep_their_java_class_and_match_what_was_stored() {
    let servers =
        tp3_servers("tinkerpop3_bindings_keep_their_java_class_and_match_what_was_stored");
    for (label, url) in servers {
        let rt = runtime();
        let ctx = ctx(&rt, &url, Gen::Tp3);
        let r = runner(cases()).run(&leaf(Gen::Tp3), |v| {
            let Some(class) = java_class(&v) else {
                return Ok(());
            };
            let got = rt
                .block_on(collect(rt.block_on(async {
                    ctx.client
                        .request("[x.getClass().getName()]")
                        .param("x", v.clone())
                        .send()
                        .await
                })))
                .map_err(TestCaseError::fail)?;
            prop_assert_eq!(&got, &vec![Value::from(class)], "{:?}", v);
            Ok(())
        });
        if let Err(e) = r {
            panic!("{label}: {e}");
        }
        // Stored, read back, and matched by what was read (vertices labelled `roundtrip`,
        // removed before and after, also when a check fails, so that the modern graph the
        // other tests count stays as it was).
        let clean = || {
            rt.block_on(async {
                ctx.client
                    .submit("g.V().hasLabel('roundtrip').drop()")
                    .expect_count()
                    .await
            })
        };
        clean();
        struct Clean<F: Fn() -> u64>(F);
        impl<F: Fn() -> u64> Drop for Clean<F> {
            fn drop(&mut self) {
                (self.0)();
            }
        }
        let _clean = Clean(clean);
        for (i, v) in [
            Value::DateTime(
                DateTime::from_epoch_millis(1_700_000_000_123).with_kind(DateTimeKind::Date),
            ),
            Value::DateTime(DateTime::from_epoch_millis(5).with_kind(DateTimeKind::Instant)),
            Value::Byte(-3),
            Value::Char('ü'),
            // (Not a NaN: `has` compares as Java's `==`, where NaN matches nothing.)
            Value::Float(-1.5),
        ]
        .into_iter()
        .enumerate()
        {
            let found = rt.block_on(async {
                // A key per value: JanusGraph fixes a key's type at its first value.
                let k = Value::from(format!("rt_{}_{i}", std::process::id()));
                // The first result of `script` with these bindings.
                let first = async |script: &str, params: &[(&str, &Value)]| {
                    let mut r = ctx.client.request(script);
                    for &(name, value) in params {
                        r = r.param(name, value.clone());
                    }
                    r.send().expect_all().await.remove(0)
                };
                let id = first(
                    "g.addV('roundtrip').property(k, x).id()",
                    &[("k", &k), ("x", &v)],
                )
                .await;
                let read = first("g.V(vid).values(k)", &[("vid", &id), ("k", &k)]).await;
                let n = first(
                    "g.V(vid).has(k, x).count()",
                    &[("vid", &id), ("k", &k), ("x", &read)],
                )
                .await;
                ctx.client
                    .request("g.V(vid).drop()")
                    .param("vid", id)
                    .send()
                    .expect_count()
                    .await;
                (read, i64::try_from(n).unwrap())
            });
            assert_eq!(canonical(&found.0), canonical(&v), "{label}: stored {v:?}");
            assert_eq!(found.1, 1, "{label}: has(k, {v:?} read back) finds it");
        }
        eprintln!(
            "roundtrip: {label} java classes: {} cases, stored values: 5",
            cases()
        );
    }
}

/// The check can fail: a writer that drops what the old parameter path dropped (a Date's
/// kind, a Byte's width) is caught by the same comparison against a real server.
#[test]
fn a_lossy_writer_is_caught() {
    let (label, url, gen, v) = if let Ok(url) = std::env::var("GREMLIN_WS_URL_373") {
        (
            "3.7.3",
            url,
            Gen::Tp3,
            Value::DateTime(DateTime::from_epoch_millis(1000).with_kind(DateTimeKind::Date)),
        )
    } else if let Ok(url) = std::env::var("GREMLIN_URL") {
        ("4.0", url, Gen::Tp4, Value::Byte(7))
    } else {
        return skip::skipped("a_lossy_writer_is_caught", "no server URL set");
    };
    let rt = runtime();
    let ctx = ctx(&rt, &url, gen);
    let lossy: Route = |ctx, v| {
        let v = match v {
            Value::DateTime(d) => Value::DateTime(d.with_kind(DateTimeKind::OffsetDateTime)),
            Value::Byte(b) => Value::Int(i32::from(*b)),
            other => other.clone(),
        };
        route_param(ctx, &v)
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        check_route(&rt, &ctx, "lossy", lossy, Just(v.clone()))
    }));
    assert!(
        caught.is_err(),
        "{label}: a lossy writer of {v:?} went unnoticed"
    );
    // And the real writer passes the same case.
    check_route(&rt, &ctx, "param", route_param, Just(v));
}

/// (e): a TinkerPop 4 transaction's requests carry parameters as every request does.
#[test]
fn a_transactions_requests_read_back_what_was_sent() {
    let test = "a_transactions_requests_read_back_what_was_sent";
    let Some(url) = servers3::one(test, "GREMLIN_TX_URL", "transactional Gremlin Server 4") else {
        return;
    };
    let rt = runtime();
    let client = rt.block_on(async { Client::builder(&url).build().unwrap() });
    read_back("4.0 transaction", Gen::Tp4, |v| {
        rt.block_on(async {
            let tx = client.transaction().await.map_err(|e| e.to_string())?;
            let got = collect(
                tx.request("g.addV('roundtrip').property('p', x).values('p')")
                    .param("x", v.clone())
                    .send()
                    .await,
            )
            .await;
            tx.rollback().await.map_err(|e| e.to_string())?;
            got
        })
    });
}

/// (e): a TinkerPop 3 session's requests: its parameters are bindings of values too.
#[test]
fn a_tinkerpop3_sessions_requests_read_back_what_was_sent() {
    let servers = tp3_servers("a_tinkerpop3_sessions_requests_read_back_what_was_sent");
    for (label, url) in servers {
        let rt = runtime();
        let client = rt.block_on(async { Client::builder(&url).build().unwrap() });
        read_back(&format!("{label} session"), Gen::Tp3, |v| {
            rt.block_on(async {
                let session = client.session().await.map_err(|e| e.to_string())?;
                let got = collect(session.request("[x]").param("x", v.clone()).send().await).await;
                let _ = session.close().await;
                got
            })
        });
    }
}

/// One value of every type a GraphBinary 1 binding carries (each DateTime kind, the extremes of
/// each number, NaN and the infinities, non-BMP text, nested collections with a null inside),
/// each sent as a parameter to every TinkerPop 3 version set, checked to be that version
/// (`Gremlin.version()`), and read back equal, with the Java class it stands for.
fn every_type() -> Vec<Value> {
    use graphbinary_client::value::{Direction, T};
    let dt = |kind| Value::DateTime(DateTime::from_epoch_millis(1_700_000_000_123).with_kind(kind));
    let mut offset = DateTime::from_epoch_millis(-86_400_001);
    offset.offset_seconds = -5 * 3600 - 30 * 60;
    offset.nanos += 999;
    vec![
        Value::Boolean(true),
        Value::Byte(i8::MIN),
        Value::Short(i16::MAX),
        Value::Int(i32::MIN),
        Value::Long(i64::MAX),
        Value::BigInteger(BigInteger::from(num_bigint::BigInt::from(-(1i128 << 100)))),
        Value::Float(f32::MIN_POSITIVE),
        Value::Float(f32::NAN),
        Value::Double(f64::NEG_INFINITY),
        Value::Double(-0.0),
        Value::Double(f64::NAN),
        Value::BigDecimal(Box::new(BigDecimal {
            scale: 7,
            unscaled: BigInteger::from(-123_456_789_012i64),
        })),
        Value::String("it's \"q\" $x 𝄞 ü \u{0}".into()),
        Value::Char('\u{FFFF}'),
        Value::Uuid(uuid::Uuid::from_u128(
            0x41d2e28a_20a4_4ab0_b379_d810dede3786,
        )),
        Value::Duration(Duration {
            seconds: -86_401,
            nanos: 5,
        }),
        Value::Binary(vec![0, 255, 128]),
        dt(DateTimeKind::Date),
        dt(DateTimeKind::Timestamp),
        dt(DateTimeKind::Instant),
        Value::DateTime(offset),
        Value::DateTime(offset.with_kind(DateTimeKind::ZonedDateTime)),
        Value::T(T::Label),
        Value::Direction(Direction::In),
        Value::List(vec![Value::Null(0xfe), Value::Int(1), Value::List(vec![])]),
        Value::Set(vec![Value::from("a"), Value::Long(2)]),
        Value::Map(vec![
            (Value::Int(1), Value::from("one")),
            (Value::from("k"), Value::Map(vec![])),
            (Value::List(vec![Value::Short(3)]), Value::Null(0xfe)),
        ]),
    ]
}

#[test]
fn every_value_type_reads_back_on_each_tinkerpop3_version() {
    let test = "every_value_type_reads_back_on_each_tinkerpop3_version";
    for (version, url) in servers3::set(test, VERSIONS) {
        let rt = runtime();
        let ctx = ctx(&rt, &url, Gen::Tp3);
        let run = |script: &str, x: &Value| {
            rt.block_on(collect(rt.block_on(async {
                ctx.client
                    .request(script)
                    .param("x", x.clone())
                    .send()
                    .await
            })))
            .unwrap_or_else(|e| panic!("{version}: {script} with {x:?}: {e}"))
        };
        let got = run("[Gremlin.version(), x]", &Value::Null(0xfe));
        assert_eq!(
            got.first(),
            Some(&Value::from(version)),
            "the server of GREMLIN_WS_URL_* for {version} is another version"
        );
        let values = every_type();
        for v in &values {
            let back = run("[x]", v);
            assert_eq!(back.len(), 1, "{version}: {v:?} came back as {back:?}");
            assert_eq!(
                canonical(&back[0]),
                canonical(v),
                "{version}: not the value sent"
            );
            if let Some(class) = java_class(v) {
                let got = run("[x.getClass().getName()]", v);
                assert_eq!(got, vec![Value::from(class)], "{version}: class of {v:?}");
            }
        }
        eprintln!(
            "roundtrip: {version} every type: {} values equal",
            values.len()
        );
    }
}
