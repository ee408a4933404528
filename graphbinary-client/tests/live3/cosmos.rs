//! The Azure Cosmos DB profile (`ClientBuilder::cosmos`). Cosmos itself cannot run here (no
//! Linux emulator serves its Gremlin API), so:
//!
//! * the profile's client runs end to end against a REAL Gremlin Server 3.7.3 with `--auth`
//!   (env `GREMLIN_WS_AUTH_URL_373`), whose credentials graph has a Cosmos-shaped user
//!   `/dbs/graphdb/colls/modern` (xtask's `COSMOS_USER` / `COSMOS_KEY`): SASL PLAIN with that
//!   user and the key, GraphSON 2, scripts and the traversal API, the status attributes of a
//!   successful stream; over `wss://` too (`GREMLIN_WSS_AUTH_URL_373`, `GREMLIN_WSS_ROOT_PEM`);
//! * what only Cosmos does goes through our fault proxy (`support/fault_proxy.rs`) in front of
//!   that server: a `Rewrite` adds Cosmos's request-charge attributes to every real response
//!   message, a `Forge` answers a request with Cosmos's throttling (status 500,
//!   `x-ms-status-code` 429, `x-ms-retry-after-ms` a .NET TimeSpan) in GraphSON 2 as Cosmos
//!   writes it;
//! * what the profile refuses before sending is checked with no server at all (a request that
//!   got as far as connecting would fail with a transport error instead).
//!
//! ```sh
//! cargo xtask server3 --tinkerpop 3.7.3 --auth --port 8402 --detach
//! GREMLIN_WS_AUTH_URL_373=ws://127.0.0.1:8402/gremlin cargo test -p graphbinary-client --test cosmos
//! ```

use graphbinary_testkit::fault_proxy;
use graphbinary_testkit::servers3;
use graphbinary_testkit::skip;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use graphbinary_client::client::{Client, ClientBuilder, Error, RetryPolicy};
use graphbinary_client::process::{Cardinality, GValue, GraphTraversalSource, Lit, __};
use graphbinary_client::Serializer;
use graphbinary_client::{ResultStream, Value};

use fault_proxy::{Fault, FaultProxy};

/// The Cosmos-shaped user of xtask's `--auth` credentials graph: database and collection.
const DATABASE: &str = "graphdb";
const COLLECTION: &str = "modern";
/// Its password (xtask's `COSMOS_KEY`): a made-up key of a Cosmos key's shape.
const KEY: &str = "dGVzdC1rZXk+bm90L2Etc2VjcmV0+Y29zbW9zLWtleQ==";
/// The modern graph's names, by id.
const NAMES: [&str; 6] = ["marko", "vadas", "lop", "josh", "ripple", "peter"];

fn profile(url: &str) -> ClientBuilder {
    Client::builder(url)
        .cosmos(DATABASE, COLLECTION, KEY)
        .connect_timeout(Duration::from_secs(10))
        .request_timeout(Duration::from_secs(30))
        .pool_size(1)
}

/// Every value of `s`, the stream kept for its attributes.
async fn drain(s: &mut ResultStream) -> Result<Vec<Value>, Error> {
    let mut out = Vec::new();
    while let Some(v) = s.try_next().await? {
        out.push(v);
    }
    Ok(out)
}

fn strings(values: &[Value]) -> Vec<&str> {
    values
        .iter()
        .map(|v| v.as_str().expect("a String"))
        .collect()
}

/// The error `script` ends with (at send, or as the stream's last item).
async fn fails(c: &Client, script: &str) -> Error {
    match c.submit(script).await {
        Err(e) => e,
        Ok(s) => s.count().await.expect_err("the request succeeded"),
    }
}

/// One `g.V().count()` on `c`, answered with one result: it authenticates the connection
/// (the SASL exchange is a request of its own at a proxy), so that a fault armed after it
/// meets the request under test.
async fn authenticate(c: &Client) {
    let stream = c.submit("g.V().count()").await.unwrap();
    assert_eq!(stream.count().await.unwrap(), 1);
}

fn unsupported(r: Result<impl std::fmt::Debug, Error>, what: &str) {
    match r {
        Err(Error::Unsupported { server, what: w }) => {
            assert_eq!(server, "Azure Cosmos DB");
            assert!(w.contains(what), "{w:?} does not name {what:?}");
        }
        other => panic!("expected Unsupported({what}), got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// No server: the builder's checks and the refusals before sending.

#[test]
fn the_builder_checks_the_profile_and_never_shows_the_key() {
    // Nothing listens on port 1: building connects nothing.
    let c = profile("wss://127.0.0.1:1/").build().unwrap();
    assert!(c.is_cosmos() && c.is_tinkerpop3());
    for shown in [format!("{c:?}"), format!("{:?}", profile("ws://h:1/"))] {
        assert!(!shown.contains(KEY), "{shown}");
        assert!(!shown.contains("dGVzdC1rZXk"), "{shown}");
    }
    assert!(!Client::builder("ws://h:1/").build().unwrap().is_cosmos());

    let config = |b: ClientBuilder, says: &str| match b.build() {
        Err(Error::Config(m)) => {
            assert!(m.contains(says), "{m:?} does not say {says:?}");
            assert!(!m.contains(KEY), "{m}");
        }
        other => panic!("expected Config({says}), got {other:?}"),
    };
    config(profile("https://acct.gremlin.cosmos.azure.com/"), "wss://");
    config(
        profile("ws://h:1/").serializer(Serializer::GraphSon3),
        "GraphSON 2",
    );
    config(
        profile("ws://h:1/").auth(graphbinary_client::client::BasicAuth::new("u", "p")),
        "SASL",
    );
    config(
        Client::builder("ws://h:1/").cosmos("", COLLECTION, KEY),
        "database name is empty",
    );
    config(
        Client::builder("ws://h:1/").cosmos(DATABASE, "a/b", KEY),
        "collection",
    );
    config(
        Client::builder("ws://u:p@h:1/").cosmos(DATABASE, COLLECTION, KEY),
        "give them once",
    );
    // Untyped GraphSON 2 is GraphSON 2 too.
    assert!(profile("ws://h:1/")
        .serializer(Serializer::GraphSon2Untyped)
        .build()
        .is_ok());
}

#[tokio::test]
async fn what_cosmos_refuses_is_refused_before_anything_is_sent() {
    let c = profile("ws://127.0.0.1:1/gremlin").build().unwrap();
    for script in [
        "g.V().map{ it.get().value('name') }",
        "g.V().filter(Lambda.predicate('true'))",
        "g.V().sideEffect(x -> x)",
    ] {
        unsupported(c.submit(script).await, "lambdas");
        unsupported(c.request(script).idempotent(true).send().await, "lambdas");
    }
    unsupported(c.session().await, "sessions");

    let g = GraphTraversalSource::new(c.clone());
    unsupported(
        g.v(())
            .match_(__::as_("a").out("knows").as_("b"))
            .select("b")
            .request(),
        "match()",
    );
    unsupported(
        g.v(()).where_(__::match_(__::as_("a").out(()))).request(),
        "match()",
    );
    unsupported(
        g.add_v("person")
            .property((Cardinality::Set, "nick", "m"))
            .request(),
        "property(set",
    );
    unsupported(
        g.add_v("person")
            .property(("nicks", Lit::list(["a", "b"])))
            .request(),
        "a List as a property value",
    );
    unsupported(
        g.add_v("person").property(("x", Lit::Null)).request(),
        "a null as a property value",
    );
    unsupported(
        g.v(())
            .side_effect(__::property(("m", GValue::new("m", Lit::map([("k", 1)])))))
            .request(),
        "a Map as a property value",
    );
    // What Cosmos takes is written and would be sent (sending it here fails to connect).
    for t in [
        g.v(())
            .has(("person", "name", "marko"))
            .out("knows")
            .values("name"),
        g.add_v("person")
            .property((Cardinality::List, "nick", "m"))
            .property(("age", 29)),
        g.v(()).has(("name", "a{b} -> Lambda")).values("name"),
    ] {
        let req = t.request().unwrap_or_else(|e| panic!("{e}"));
        let e = req.send().await.unwrap_err();
        assert!(
            matches!(e, Error::Transport { .. }),
            "a request Cosmos takes went on to connect: {e:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// A real 3.7.3 with the Cosmos-shaped user.

fn auth_server(test: &str) -> Option<String> {
    servers3::auth_server(test)
}

#[tokio::test]
async fn the_profile_authenticates_as_cosmos_does_and_reads_end_to_end() {
    let Some(url) = auth_server("cosmos_end_to_end") else {
        return;
    };
    let c = profile(&url).build().unwrap();
    let n: i64 = c
        .submit("g.V().count()")
        .await
        .unwrap()
        .one()
        .await
        .unwrap();
    assert_eq!(n, 6);
    // Bindings go as GraphSON 2 bindings.
    let mut s = c
        .request("g.V().has('name', n).out('knows').values('name').order()")
        .param("n", "marko")
        .send()
        .await
        .unwrap();
    assert_eq!(strings(&drain(&mut s).await.unwrap()), ["josh", "vadas"]);
    // The status attributes of the messages read reach a successful stream.
    let attrs = s.status_attributes().expect("a message was read");
    let host = attrs.get("host").and_then(Value::as_str).unwrap_or("");
    assert!(host.contains("127.0.0.1"), "{attrs:?}");
    assert_eq!(attrs.request_charge(), None, "no Cosmos here: {attrs:?}");

    // The traversal API, idempotent reads included.
    let g = GraphTraversalSource::new(c.clone()).idempotent_reads(true);
    let names: Vec<String> = g
        .v(())
        .has_label("person")
        .order(())
        .by("name")
        .values("name")
        .to_list_as()
        .await
        .unwrap();
    assert_eq!(names, ["josh", "marko", "peter", "vadas"]);
    // A vertex through typed GraphSON 2 (Cosmos would send it untyped, as a Map).
    let v = g.v(1).next().await.unwrap().expect("vertex 1");
    assert!(matches!(v, Value::Vertex(_)), "{v:?}");

    // A server error keeps its attributes.
    let e = fails(&c, "g.V().nosuchstep()").await;
    let s = e.server_error().expect("a server error");
    assert_eq!(s.code, 597, "{s}");
    assert!(
        s.attributes.get("exceptions").is_some(),
        "{:?}",
        s.attributes
    );
    assert!(!s.is_throttled());

    // Another key is refused by the server (the key is what authenticates), and shown nowhere.
    let wrong = Client::builder(&url)
        .cosmos(DATABASE, COLLECTION, "d3Jvbmcta2V5")
        .pool_size(1)
        .build()
        .unwrap();
    let e = fails(&wrong, "g.V().count()").await;
    assert_eq!(e.server_error().map(|s| s.code), Some(401), "{e:?}");
    let shown = format!("{e} {e:?}");
    assert!(
        !shown.contains("d3Jvbmcta2V5") && !shown.contains(KEY),
        "{shown}"
    );
    // So is another collection's user.
    let other = Client::builder(&url)
        .cosmos(DATABASE, "crew", KEY)
        .pool_size(1)
        .build()
        .unwrap();
    let e = fails(&other, "g.V().count()").await;
    assert_eq!(e.server_error().map(|s| s.code), Some(401), "{e:?}");
}

#[tokio::test]
async fn the_profile_connects_over_wss() {
    let (Ok(url), Ok(root)) = (
        std::env::var("GREMLIN_WSS_AUTH_URL_373"),
        std::env::var("GREMLIN_WSS_ROOT_PEM"),
    ) else {
        skip::skipped(
            "cosmos_over_wss",
            "GREMLIN_WSS_AUTH_URL_373 / GREMLIN_WSS_ROOT_PEM unset (TinkerPop 3 server with --auth --tls)",
        );
        return;
    };
    assert!(url.starts_with("wss://"), "{url}");
    let pem = std::fs::read(&root).unwrap_or_else(|e| panic!("{root}: {e}"));
    let c = profile(&url).add_root_certificate_pem(pem).build().unwrap();
    let names: Vec<String> = GraphTraversalSource::new(c)
        .v(())
        .order(())
        .by(graphbinary_client::process::T::Id)
        .values("name")
        .to_list_as()
        .await
        .unwrap();
    assert_eq!(names, NAMES);
}

// ---------------------------------------------------------------------------------------------
// Cosmos's own behaviour, through our proxy in front of the real server.

/// The payload of a GraphSON 2 response message with Cosmos's attributes added to its
/// status: `x-ms-request-charge` 1.5 for the message, `x-ms-total-request-charge` 1.5 × its
/// number (`seen` counts the messages), an activity id.
fn add_charges(payload: &[u8], seen: &AtomicUsize) -> Vec<u8> {
    let text = std::str::from_utf8(payload).expect("GraphSON is UTF-8");
    let at = text
        .find(r#""attributes":{"#)
        .expect("a status with attributes")
        + 14;
    let n = seen.fetch_add(1, Ordering::SeqCst) + 1;
    let ours = format!(
        r#""x-ms-request-charge":1.5,"x-ms-total-request-charge":{},"x-ms-activity-id":"7c0e6f2a-0000-4000-8000-00000000000{}""#,
        1.5 * n as f64,
        n % 10
    );
    let sep = if text[at..].starts_with('}') { "" } else { "," };
    format!("{}{ours}{sep}{}", &text[..at], &text[at..]).into_bytes()
}

#[tokio::test]
async fn request_charges_reach_the_stream_message_by_message() {
    let Some(url) = auth_server("cosmos_request_charges") else {
        return;
    };
    let proxy = FaultProxy::start(&url).await;
    // The proxy rewrites the messages' JSON: uncompressed (the 3.7.3 server standing in for
    // Cosmos would otherwise compress them).
    let c = profile(&proxy.url()).compression(false).build().unwrap();
    // Authenticates the connection first (the SASL answer is a request of its own, which
    // would end the rewrite).
    authenticate(&c).await;
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    proxy.arm(Fault::Rewrite(Arc::new(move |p| add_charges(p, &counter))));
    let mut s = c
        .request("g.V().order().by(id).values('name')")
        .batch_size(2)
        .send()
        .await
        .unwrap();
    let first = s.try_next().await.unwrap().expect("a first result");
    assert_eq!(first.as_str(), Some("marko"));
    let a = s.status_attributes().expect("the first message was read");
    assert_eq!(a.request_charge(), Some(1.5));
    assert_eq!(a.total_request_charge(), Some(1.5));
    let mut names = vec![first];
    names.extend(drain(&mut s).await.unwrap());
    assert_eq!(strings(&names), NAMES);
    let messages = seen.load(Ordering::SeqCst);
    assert_eq!(messages, 3, "6 results in batches of 2");
    let a = s.status_attributes().unwrap();
    assert_eq!(a.request_charge(), Some(1.5));
    assert_eq!(a.total_request_charge(), Some(4.5), "{a:?}");
    assert_eq!(
        a.activity_id().as_deref(),
        Some("7c0e6f2a-0000-4000-8000-000000000003")
    );
    assert!(
        a.get("host").is_some(),
        "the server's own attributes are kept: {a:?}"
    );
    eprintln!("charges over {messages} messages: {a:?}");
}

/// The request id of a GraphSON 2 request payload (`{mime length}{mime}{json}`).
fn request_id(payload: &[u8]) -> String {
    let text = String::from_utf8_lossy(payload);
    let at = text
        .find(r#""requestId":{"@type":"g:UUID","@value":""#)
        .expect("a GraphSON 2 request")
        + 40;
    text[at..at + 36].to_owned()
}

/// Cosmos's throttling answer to the request in `payload`, as GraphSON 2 (untyped values,
/// as Cosmos writes them): status 500, `x-ms-status-code` 429, and `retry_after`.
fn throttled(retry_after: &'static str) -> fault_proxy::Forger {
    Arc::new(move |payload| {
        format!(
            r#"{{"requestId":"{}","status":{{"message":"Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later.","code":500,"attributes":{{"x-ms-status-code":429,"x-ms-substatus-code":3200,"x-ms-retry-after-ms":"{retry_after}","x-ms-activity-id":"2a1d5e9b-0000-4000-8000-000000000429","x-ms-request-charge":0,"x-ms-total-request-charge":0}}}},"result":{{"data":null,"meta":{{}}}}}}"#,
            request_id(payload)
        )
        .into_bytes()
    })
}

/// A plain server error 500, without Cosmos's attributes.
fn plain_500() -> fault_proxy::Forger {
    Arc::new(move |payload| {
        format!(
            r#"{{"requestId":"{}","status":{{"message":"forged 500","code":500,"attributes":{{}}}},"result":{{"data":null,"meta":{{}}}}}}"#,
            request_id(payload)
        )
        .into_bytes()
    })
}

const QUERY: &str = "g.V().order().by(id).values('name')";

#[tokio::test]
async fn throttling_is_retried_after_the_retry_after_cosmos_asks() {
    let Some(url) = auth_server("cosmos_throttling") else {
        return;
    };
    let proxy = FaultProxy::start(&url).await;
    let c = profile(&proxy.url())
        .retry_policy(RetryPolicy::default().initial_backoff(Duration::from_millis(10)))
        .build()
        .unwrap();
    // Authenticates the connection first (the SASL answer is a request of its own at the
    // proxy).
    authenticate(&c).await;

    // An idempotent read: throttled once, retried after 1.2 s (not the 10 ms backoff), whole.
    proxy.arm(Fault::Forge(throttled("00:00:01.2000000")));
    let (r0, f0) = (proxy.requests(), proxy.forwarded());
    let t = Instant::now();
    let mut s = c.request(QUERY).idempotent(true).send().await.unwrap();
    let names = drain(&mut s).await.unwrap();
    let took = t.elapsed();
    assert_eq!(strings(&names), NAMES);
    assert!(
        took >= Duration::from_millis(1200),
        "retry-after honoured: {took:?}"
    );
    assert!(took < Duration::from_secs(6), "{took:?}");
    assert_eq!(proxy.requests() - r0, 2, "sent twice");
    assert_eq!(proxy.forwarded() - f0, 1, "the retry reached the server");
    assert_eq!(c.retries(), 1);
    assert!(c.hosts()[0].available, "throttling is not a host down");
    eprintln!("throttled (retry-after 00:00:01.2000000), retried, whole in {took:?}");

    // Through the traversal API's idempotent reads alike.
    proxy.arm(Fault::Forge(throttled("00:00:00.3")));
    let t = Instant::now();
    let g = GraphTraversalSource::new(c.clone()).idempotent_reads(true);
    let n: Option<i64> = g.v(()).count(()).next_as().await.unwrap();
    assert_eq!(n, Some(6));
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(c.retries(), 2);

    // Not idempotent: sent once, the throttling is the typed error with Cosmos's attributes.
    proxy.arm(Fault::Forge(throttled("00:00:01.2000000")));
    let r0 = proxy.requests();
    let e = fails(&c, QUERY).await;
    assert_eq!(proxy.requests() - r0, 1);
    assert_eq!(c.retries(), 2, "no retry of a request not idempotent");
    let s = e.server_error().expect("a server error");
    assert_eq!(s.code, 500);
    assert!(s.is_throttled());
    assert_eq!(s.attributes.status_code(), Some(429));
    assert_eq!(s.attributes.substatus_code(), Some(3200));
    assert_eq!(
        s.attributes.retry_after(),
        Some(Duration::from_millis(1200))
    );
    assert_eq!(s.attributes.request_charge(), Some(0.0));
    assert_eq!(
        s.attributes.activity_id().as_deref(),
        Some("2a1d5e9b-0000-4000-8000-000000000429")
    );
    assert!(e.to_string().contains("x-ms-status-code 429/3200"), "{e}");

    // A plain 500 is not retried, idempotent or not.
    proxy.arm(Fault::Forge(plain_500()));
    let r0 = proxy.requests();
    let e = c.request(QUERY).idempotent(true).send().await.unwrap_err();
    assert_eq!(e.server_error().map(|s| s.code), Some(500), "{e:?}");
    assert_eq!(proxy.requests() - r0, 1, "a plain 500 is not retried");
    assert_eq!(c.retries(), 2);

    // A retry-after past the policy's cap waits the cap.
    let capped = profile(&proxy.url())
        .retry_policy(
            RetryPolicy::default()
                .initial_backoff(Duration::from_millis(10))
                .max_retry_after(Duration::from_millis(400)),
        )
        .build()
        .unwrap();
    authenticate(&capped).await;
    proxy.arm(Fault::Forge(throttled("00:05:00")));
    let t = Instant::now();
    let mut s = capped.request(QUERY).idempotent(true).send().await.unwrap();
    assert_eq!(strings(&drain(&mut s).await.unwrap()), NAMES);
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_secs(5),
        "capped at 400 ms: {took:?}"
    );
    assert_eq!(proxy.armed(), 0);
}

// ---------------------------------------------------------------------------------------------
// What Cosmos answers: untyped GraphSON-1-like JSON whatever was asked.

// A hand-built Cosmos answer read by our GraphSON 2 reader: client/cosmos.rs's unit test
// `a_cosmos_shaped_answer_reads_as_maps_with_its_charges`.

/// The profile with untyped GraphSON 2 (what Cosmos sends back) against the real server.
#[tokio::test]
async fn the_profile_reads_untyped_graphson_2_as_cosmos_sends_it() {
    let Some(url) = auth_server("cosmos_untyped") else {
        return;
    };
    let c = profile(&url)
        .serializer(Serializer::GraphSon2Untyped)
        .build()
        .unwrap();
    let g = GraphTraversalSource::new(c);
    let v = g.v(1).next().await.unwrap().expect("vertex 1");
    let Value::Map(fields) = v else {
        panic!("an untyped vertex is a Map: {v:?}");
    };
    assert!(
        fields
            .iter()
            .any(|(k, v)| k.as_str() == Some("label") && v.as_str() == Some("person")),
        "{fields:?}"
    );
    let n: Option<i64> = g.v(()).count(()).next_as().await.unwrap();
    assert_eq!(n, Some(6));
}
