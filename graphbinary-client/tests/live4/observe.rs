//! What the client tells an operator, against the real servers: the `gremlin.request` span of
//! each request and its fields, the events (retries, hosts down and up, WebSocket
//! connections), `Client::stats`, the `RequestListener` and, with feature `metrics`, the
//! `metrics` facade; and that no captured field or event ever holds a credential.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::TryStreamExt;
use graphbinary_client::client::{
    Client, RequestEnd, RequestInfo, RequestListener, RetryInfo, RetryPolicy,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use graphbinary_testkit::fault_proxy;
use graphbinary_testkit::gremlin_server;

use fault_proxy::{Fault, FaultProxy};

/// A closed span or an event: its name (an event's message) and its fields as text.
#[derive(Debug, Clone)]
struct Seen {
    name: String,
    fields: BTreeMap<String, String>,
}

#[derive(Default)]
struct Fields(BTreeMap<String, String>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

/// Collects closed spans and events into `spans` and `events`.
#[derive(Clone, Default)]
struct Capture {
    spans: Arc<Mutex<Vec<Seen>>>,
    events: Arc<Mutex<Vec<Seen>>>,
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut f = Fields::default();
        attrs.record(&mut f);
        ctx.span(id).unwrap().extensions_mut().insert(f);
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let span = ctx.span(id).unwrap();
        let mut ext = span.extensions_mut();
        values.record(ext.get_mut::<Fields>().unwrap());
    }
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut f = Fields::default();
        event.record(&mut f);
        let name = f.0.remove("message").unwrap_or_default();
        self.events.lock().unwrap().push(Seen { name, fields: f.0 });
    }
    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let span = ctx.span(&id).unwrap();
        let fields = span
            .extensions_mut()
            .remove::<Fields>()
            .map(|f| f.0)
            .unwrap_or_default();
        self.spans.lock().unwrap().push(Seen {
            name: span.name().to_owned(),
            fields,
        });
    }
}

impl Capture {
    /// Installs the capture as this thread's subscriber (the tests run on a current-thread
    /// runtime, so the client's tasks run here too).
    fn install(&self) -> tracing::subscriber::DefaultGuard {
        tracing::subscriber::set_default(tracing_subscriber::registry().with(self.clone()))
    }

    fn requests(&self) -> Vec<BTreeMap<String, String>> {
        self.spans
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.name == "gremlin.request")
            .map(|s| s.fields.clone())
            .collect()
    }

    fn events(&self, name: &str) -> Vec<BTreeMap<String, String>> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.name == name)
            .map(|s| s.fields.clone())
            .collect()
    }

    /// Everything captured, as one text.
    fn all_text(&self) -> String {
        format!(
            "{:?} {:?}",
            self.spans.lock().unwrap(),
            self.events.lock().unwrap()
        )
    }
}

/// `g.V().count()`, marked idempotent.
async fn idempotent_count(client: &Client) -> i64 {
    let results = client.request("g.V().count()").idempotent(true).await;
    results.unwrap().one::<i64>().await.unwrap()
}

/// The capture installed for the rest of a test (hold the guard), once the server answered
/// `gremlin_server::client`'s availability probe; `None` when it did not (the test returns
/// early, as `gremlin_server::client` says).
async fn capture_for(test: &str) -> Option<(Capture, tracing::subscriber::DefaultGuard)> {
    gremlin_server::client(test).await?;
    let cap = Capture::default();
    let guard = cap.install();
    Some((cap, guard))
}

/// [`capture_for`], after [`let_the_probe_close`]: for tests that count connection events.
async fn capture_after_probe(test: &str) -> Option<(Capture, tracing::subscriber::DefaultGuard)> {
    gremlin_server::client(test).await?;
    let_the_probe_close().await;
    let cap = Capture::default();
    let guard = cap.install();
    Some((cap, guard))
}

#[tokio::test]
async fn each_request_has_a_span_with_what_it_did() {
    let (cap, _g) = graphbinary_testkit::or_skip!(
        capture_for("each_request_has_a_span_with_what_it_did").await
    );
    let client = gremlin_server::builder().build().unwrap();
    let names = client
        .request("g.V().hasLabel(l).values('name')")
        .param("l", "person")
        .await
        .unwrap()
        .all()
        .await
        .unwrap();
    assert_eq!(names.len(), 4);
    let spans = cap.requests();
    assert_eq!(spans.len(), 1, "{spans:?}");
    let s = &spans[0];
    assert_eq!(s["protocol"], "http");
    assert_eq!(s["outcome"], "ok");
    assert_eq!(s["status"], "200");
    assert_eq!(s["results"], "4");
    assert!(s["host"].contains("127.0.0.1"), "{s:?}");
    assert!(s["bytes"].parse::<u64>().unwrap() > 0, "{s:?}");
    assert!(s.contains_key("duration_ms"), "{s:?}");
    assert!(!s.contains_key("retries"), "no retry: {s:?}");
    // The script and its parameters carry data: not recorded unless asked for.
    assert!(
        !s.contains_key("gremlin") && !s.contains_key("parameters"),
        "{s:?}"
    );
    assert!(!cap.all_text().contains("person"), "{}", cap.all_text());
}

/// The tally's key of a client's first host (`http://host:port`).
fn host_key(client: &Client) -> String {
    let u = graphbinary_client::client::Url::parse(client.url()).unwrap();
    format!("http://{}:{}", u.host_str().unwrap(), u.port().unwrap())
}

/// Lets the connection of `gremlin_server::client`'s availability probe (another client, same
/// host, its response dropped) close before the capture starts, so that its close event is not
/// counted as the test's: its connection task runs on this test's runtime.
async fn let_the_probe_close() {
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// Waits (up to 10 s) until `host` has no connection open, and returns its counts.
async fn until_none_open(
    client: &Client,
    host: &str,
) -> graphbinary_client::client::ConnectionCounts {
    for _ in 0..1000 {
        let c = client.stats().connections[host];
        if c.open() == Some(0) {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("connections still open: {:?}", client.stats().connections);
}

#[tokio::test]
async fn http_connections_opened_and_closed_are_counted_per_host_and_are_events() {
    let (cap, _g) = graphbinary_testkit::or_skip!(
        capture_after_probe(
            "http_connections_opened_and_closed_are_counted_per_host_and_are_events",
        )
        .await
    );
    let client = gremlin_server::builder().pool_size(3).build().unwrap();
    let key = host_key(&client);
    assert!(client.stats().connections.is_empty());
    // Three at once need three connections (each response is read to its end).
    let counts = futures::future::join_all((0..3).map(|_| idempotent_count(&client))).await;
    assert_eq!(counts, [6, 6, 6]);
    let c = client.stats().connections[&key];
    assert!((1..=3).contains(&c.opened), "{c:?}");
    // None closed: every one is pooled, idle, open.
    assert_eq!((c.closed, c.open()), (Some(0), Some(c.opened)), "{c:?}");
    let opened = c.opened;
    // Requests one after the other reuse them: no connection opened or closed.
    for _ in 0..5 {
        assert_eq!(idempotent_count(&client).await, 6);
    }
    let c = client.stats().connections[&key];
    assert_eq!((c.opened, c.closed), (opened, Some(0)), "{c:?}");
    assert!(
        cap.events("HTTP connection closed").is_empty(),
        "{:?} {}",
        client.stats().connections,
        cap.all_text()
    );
    let events = cap.events("HTTP connection opened");
    assert_eq!(events.len() as u64, opened, "{}", cap.all_text());
    assert!(events.iter().all(|e| e["host"] == key), "{events:?}");
    // Closing the client closes its idle connections: each a close counted and an event
    // with how long it lived and how many requests it carried (8 in all).
    assert_eq!(client.close(Duration::from_secs(5)).await, 0);
    // Counted closed by the time `close` returns.
    let c = client.stats().connections[&key];
    assert_eq!((c.opened, c.closed), (opened, Some(opened)), "{c:?}");
    let closed = cap.events("HTTP connection closed");
    assert_eq!(closed.len() as u64, opened, "{}", cap.all_text());
    assert!(closed.iter().all(|e| e["host"] == key), "{closed:?}");
    assert!(
        closed.iter().all(|e| e["lived_ms"].parse::<u64>().is_ok()),
        "{closed:?}"
    );
    let served: u64 = closed
        .iter()
        .map(|e| e["requests"].parse::<u64>().unwrap())
        .sum();
    assert_eq!(served, 8, "{closed:?}");
}

/// One request after the other, a pool of one holds its connection and the spare: the next
/// request may start before the last one's connection is back in the pool (without the spare
/// idle connection the pool opened a new one for about one request in six).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_request_after_the_other_reuses_the_connection_or_the_spare() {
    let _ = graphbinary_testkit::or_skip!(
        gremlin_server::client("one_request_after_the_other_reuses_the_connection_or_the_spare")
            .await
    );
    for compression in [false, true] {
        let client = gremlin_server::builder()
            .pool_size(1)
            .compression(compression)
            .build()
            .unwrap();
        let key = host_key(&client);
        for _ in 0..200 {
            assert_eq!(idempotent_count(&client).await, 6);
        }
        let c = client.stats().connections[&key];
        assert!(
            (1..=2).contains(&c.opened),
            "compression {compression}: {c:?}"
        );
        client.close(Duration::from_secs(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_requests_leave_at_most_the_pool_size_open() {
    let _ = graphbinary_testkit::or_skip!(
        gremlin_server::client("many_concurrent_requests_leave_at_most_the_pool_size_open").await
    );
    let client = gremlin_server::builder().pool_size(4).build().unwrap();
    let key = host_key(&client);
    for _ in 0..3 {
        let counts = futures::future::join_all((0..40).map(|_| idempotent_count(&client))).await;
        assert!(counts.iter().all(|n| *n == 6));
        // In flight at most 4 (the pool's slots), idle kept at most 5 (the spare): whatever
        // was opened beyond that (a connect that lost the race to a connection put back) is
        // closed by its own task, so within a moment it is counted closed.
        let mut c = client.stats().connections[&key];
        for _ in 0..500 {
            if c.open().unwrap() <= 5 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            c = client.stats().connections[&key];
        }
        let open = c.open().unwrap();
        assert!((1..=5).contains(&open), "{c:?}");
        assert_eq!(c.opened - c.closed.unwrap(), open, "{c:?}");
    }
    client.close(Duration::from_secs(5)).await;
    let c = client.stats().connections[&key];
    assert_eq!(c.closed, Some(c.opened), "{c:?}");
}

#[tokio::test]
async fn an_http_connection_idle_past_the_pool_idle_timeout_is_closed_and_counted() {
    let (cap, _g) = graphbinary_testkit::or_skip!(
        capture_after_probe(
            "an_http_connection_idle_past_the_pool_idle_timeout_is_closed_and_counted",
        )
        .await
    );
    let client = gremlin_server::builder()
        .pool_size(2)
        .pool_idle_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let key = host_key(&client);
    let counts = futures::future::join_all((0..2).map(|_| idempotent_count(&client))).await;
    assert_eq!(counts, [6, 6]);
    let opened = client.stats().connections[&key].opened;
    assert!(client.stats().connections[&key].open().unwrap() >= 1);
    // No request: the pool drops them once idle for 200 ms; the client is still open.
    let c = until_none_open(&client, &key).await;
    assert_eq!(c.closed, Some(opened), "{c:?}");
    assert_eq!(cap.events("HTTP connection closed").len() as u64, opened);
    // The next request opens a new one.
    assert_eq!(idempotent_count(&client).await, 6);
    let c = client.stats().connections[&key];
    assert_eq!((c.opened, c.open()), (opened + 1, Some(1)), "{c:?}");
}

#[tokio::test]
async fn http_connections_the_server_closes_are_counted_closed() {
    let (cap, _g) = graphbinary_testkit::or_skip!(
        capture_after_probe("http_connections_the_server_closes_are_counted_closed").await
    );
    let proxy = FaultProxy::start(&gremlin_server::MODERN.url()).await;
    let client = Client::builder(proxy.url()).pool_size(4).build().unwrap();
    let key = host_key(&client);
    // Four at once: at most four connections (the pool's size), all open after.
    let counts = futures::future::join_all((0..4).map(|_| idempotent_count(&client))).await;
    assert_eq!(counts, [6; 4]);
    let c = client.stats().connections[&key];
    assert!((1..=4).contains(&c.opened), "{c:?}");
    assert_eq!(c.open(), Some(c.opened), "{c:?}");
    assert_eq!(proxy.open_connections() as u64, c.opened);
    // The server side closes them all while they are idle in the pool.
    proxy.close_connections();
    let c = until_none_open(&client, &key).await;
    assert_eq!(c.closed, Some(c.opened), "{c:?}");
    assert_eq!(cap.events("HTTP connection closed").len() as u64, c.opened);
    // The client goes on with a new connection.
    assert_eq!(idempotent_count(&client).await, 6);
    let after = client.stats().connections[&key];
    assert_eq!(after.open(), Some(1), "{after:?}");
    assert_eq!(after.opened, c.opened + 1, "{after:?}");
}

#[tokio::test]
async fn the_query_text_is_recorded_only_when_asked() {
    let (cap, _g) = graphbinary_testkit::or_skip!(
        capture_for("the_query_text_is_recorded_only_when_asked").await
    );
    let client = gremlin_server::builder()
        .trace_query_text(true)
        .build()
        .unwrap();
    let n: i64 = client
        .request("g.V().has('name', who).count()")
        .param("who", "marko")
        .await
        .unwrap()
        .one()
        .await
        .unwrap();
    assert_eq!(n, 1);
    let s = &cap.requests()[0];
    assert_eq!(s["gremlin"], "g.V().has('name', who).count()");
    assert!(s["parameters"].contains("who=marko"), "{s:?}");
}

#[tokio::test]
async fn a_server_error_and_a_dropped_stream_are_their_outcomes() {
    let (cap, _g) = graphbinary_testkit::or_skip!(
        capture_for("a_server_error_and_a_dropped_stream_are_their_outcomes").await
    );
    let client = gremlin_server::builder().build().unwrap();
    let err = client
        .submit("g.V().fail('observed')")
        .await
        .unwrap()
        .all()
        .await
        .unwrap_err();
    assert_eq!(err.kind().as_str(), "server");
    let stream = client.submit("g.V()").await.unwrap();
    drop(stream);
    let spans = cap.requests();
    assert_eq!(spans.len(), 2, "{spans:?}");
    assert_eq!(spans[0]["outcome"], "server", "{spans:?}");
    assert_ne!(spans[0].get("status").map(String::as_str), Some("200"));
    assert_eq!(spans[1]["outcome"], "cancelled", "{spans:?}");

    let stats = client.stats();
    assert_eq!(stats.requests, 2);
    assert_eq!(stats.succeeded, 0);
    assert_eq!(stats.errors.get("server"), Some(&1), "{stats:?}");
    assert_eq!(stats.cancelled, 1);
    assert_eq!(stats.in_flight, 0);
}

#[tokio::test]
async fn stats_count_requests_bytes_and_latency() {
    let _ = graphbinary_testkit::or_skip!(
        gremlin_server::client("stats_count_requests_bytes_and_latency").await
    );
    let client = gremlin_server::builder().build().unwrap();
    assert_eq!(client.stats().requests, 0);
    for _ in 0..5 {
        let n = client.submit("g.V()").await.unwrap().count().await.unwrap();
        assert_eq!(n, 6);
    }
    // A stream in flight is counted as such until it ends.
    let held = client.submit("g.E()").await.unwrap();
    let during = client.stats();
    assert_eq!(during.in_flight, 1, "{during:?}");
    assert_eq!(held.all().await.unwrap().len(), 6);
    let s = client.clone().stats();
    assert_eq!(s.requests, 6);
    assert_eq!(s.succeeded, 6);
    assert!(
        s.errors.is_empty() && s.cancelled == 0 && s.retries == 0,
        "{s:?}"
    );
    assert_eq!(s.in_flight, 0);
    assert!(s.bytes_in > 6 * 100, "{s:?}");
    assert!(s.bytes_out > 6 * 10, "{s:?}");
    assert_eq!(s.latency.count, 6);
    assert!(
        s.latency.p50 > Duration::ZERO && s.latency.p50 <= s.latency.p99,
        "{s:?}"
    );
    assert!(s.latency.p99 <= s.latency.max, "{s:?}");
}

#[derive(Default)]
struct Counting {
    starts: AtomicU64,
    first_bytes: AtomicU64,
    ends: Mutex<Vec<(&'static str, u64)>>,
    retries: Mutex<Vec<RetryInfo>>,
}

impl RequestListener for Counting {
    fn on_start(&self, r: &RequestInfo) {
        assert!(r.protocol == "http" || r.protocol == "ws");
        self.starts.fetch_add(1, Ordering::Relaxed);
    }
    fn on_first_byte(&self, _r: &RequestInfo, after: Duration) {
        assert!(after > Duration::ZERO);
        self.first_bytes.fetch_add(1, Ordering::Relaxed);
    }
    fn on_end(&self, _r: &RequestInfo, end: &RequestEnd) {
        self.ends.lock().unwrap().push((end.outcome, end.results));
    }
    fn on_retry(&self, r: &RetryInfo) {
        self.retries.lock().unwrap().push(r.clone());
    }
}

#[tokio::test]
async fn the_listener_sees_start_first_byte_end_and_retry() {
    let (cap, _g) = graphbinary_testkit::or_skip!(
        capture_for("the_listener_sees_start_first_byte_end_and_retry").await
    );
    let proxy = FaultProxy::start(&gremlin_server::url()).await;
    let listener = Arc::new(Counting::default());
    let client = Client::builder(proxy.url())
        .listener(listener.clone())
        .retry_policy(RetryPolicy::default().initial_backoff(Duration::from_millis(10)))
        .build()
        .unwrap();
    assert_eq!(
        client.submit("g.V()").await.unwrap().count().await.unwrap(),
        6
    );
    // A forged 503 before the answer: the idempotent read is retried once.
    proxy.arm(Fault::Forge(Arc::new(|_| {
        b"HTTP/1.1 503 Busy\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
            .to_vec()
    })));
    assert_eq!(idempotent_count(&client).await, 6);
    assert_eq!(listener.starts.load(Ordering::Relaxed), 2);
    assert_eq!(listener.first_bytes.load(Ordering::Relaxed), 2);
    assert_eq!(*listener.ends.lock().unwrap(), [("ok", 6), ("ok", 1)]);
    let retries = listener.retries.lock().unwrap().clone();
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert_eq!((retries[0].attempt, retries[0].error), (1, "server"));
    assert_eq!(client.stats().retries, 1);
    // The retry is an event inside the request's span, which counts it.
    let ev = cap.events("retrying an idempotent request");
    assert_eq!(ev.len(), 1, "{:?}", cap.all_text());
    assert_eq!(ev[0]["attempt"], "1");
    assert!(ev[0]["error"].contains("503"), "{ev:?}");
    assert_eq!(cap.requests()[1]["retries"], "1");
}

#[tokio::test]
async fn a_host_down_and_up_again_are_events() {
    let (cap, _g) =
        graphbinary_testkit::or_skip!(capture_for("a_host_down_and_up_again_are_events").await);
    let proxy = FaultProxy::start(&gremlin_server::url()).await;
    let client = Client::builder(proxy.url())
        .host_retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    proxy.arm(Fault::ResetBeforeResponse);
    assert!(client.submit("g.V()").await.is_err());
    let down = cap.events("host marked down");
    assert_eq!(down.len(), 1, "{}", cap.all_text());
    assert!(down[0]["host"].contains("127.0.0.1"));
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(
        client.submit("g.V()").await.unwrap().count().await.unwrap(),
        6
    );
    assert_eq!(cap.events("host marked up").len(), 1, "{}", cap.all_text());
}

#[tokio::test]
async fn no_credential_appears_in_a_span_or_an_event() {
    const PASSWORD: &str = "s3cr3t-Pa55word";
    let (cap, _g) = graphbinary_testkit::or_skip!(
        capture_for("no_credential_appears_in_a_span_or_an_event").await
    );
    // The server has no authentication and ignores the header; the credentials travel in the
    // URL's userinfo (taken out of it and sent as Basic authentication) and the builder.
    let url = gremlin_server::url().replacen("://", &format!("://ada:{PASSWORD}@"), 1);
    let proxy = FaultProxy::start(&gremlin_server::url()).await;
    let via_proxy = proxy
        .url()
        .replacen("://", &format!("://ada:{PASSWORD}@"), 1);
    let client = Client::builder(url)
        .add_host(via_proxy)
        .trace_query_text(true)
        .retry_policy(RetryPolicy::default().initial_backoff(Duration::from_millis(1)))
        .build()
        .unwrap();
    proxy.arm(Fault::ResetBeforeResponse);
    for _ in 0..3 {
        assert_eq!(idempotent_count(&client).await, 6);
    }
    let text = cap.all_text();
    assert_eq!(cap.requests().len(), 3, "{text}");
    assert!(!cap.events("host marked down").is_empty(), "{text}");
    assert!(!text.contains(PASSWORD), "{text}");
    assert!(!text.contains("ada:"), "{text}");
}

#[tokio::test]
async fn ws_request_has_its_span_and_its_connection_events() {
    let Ok(url) = std::env::var("GREMLIN_WS_URL_373") else {
        gremlin_server::skip::skipped(
            "ws_request_has_its_span_and_its_connection_events",
            "GREMLIN_WS_URL_373 is not set (cargo xtask server3 --tinkerpop 3.7.3)",
        );
        return;
    };
    let cap = Capture::default();
    let _g = cap.install();
    let client = Client::new(url.as_str()).unwrap();
    let names: Vec<_> = client
        .submit("g.V().values('name')")
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(names.len(), 6);
    // A server's error: the span has its status (597), as over HTTP.
    let err = client
        .submit("g.V().fold(")
        .await
        .unwrap()
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert_eq!(err.server_error().map(|e| e.code), Some(597), "{err}");
    let s = &client.stats();
    assert_eq!((s.requests, s.succeeded, s.in_flight), (2, 1, 0), "{s:?}");
    assert!(s.bytes_in > 0);
    // One connection, open, under its host's key.
    let port = url.rsplit(':').next().unwrap().split('/').next().unwrap();
    let key = format!("ws://127.0.0.1:{port}");
    let c = s.connections[&key];
    assert_eq!(
        (c.opened, c.closed, c.open()),
        (1, Some(0), Some(1)),
        "{s:?}"
    );
    assert_eq!(client.close(Duration::from_secs(5)).await, 0);
    // Counted closed by the time `close` returns.
    let c = client.stats().connections[&key];
    assert_eq!((c.opened, c.closed, c.open()), (1, Some(1), Some(0)));
    let spans = cap.requests();
    assert_eq!(spans.len(), 2, "{spans:?}");
    assert_eq!(spans[0]["protocol"], "ws");
    assert_eq!(spans[0]["outcome"], "ok");
    assert_eq!(spans[0]["status"], "200");
    assert_eq!(spans[0]["results"], "6");
    assert!(spans[0].contains_key("request_id"), "{spans:?}");
    assert_eq!(
        (spans[1]["outcome"].as_str(), spans[1]["status"].as_str()),
        ("server", "597"),
        "{spans:?}"
    );
    assert_eq!(
        cap.events("WebSocket connection opened").len(),
        1,
        "{}",
        cap.all_text()
    );
    assert_eq!(
        cap.events("WebSocket connection closed").len(),
        1,
        "{}",
        cap.all_text()
    );
}

/// With feature `metrics`: the facade's counters, gauge and histogram, read back through a
/// recorder of ours.
#[cfg(feature = "metrics")]
mod metrics_facade {
    use super::*;
    use metrics::{
        Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit,
    };

    #[derive(Default)]
    struct Cell(Mutex<f64>);

    impl metrics::CounterFn for Cell {
        fn increment(&self, v: u64) {
            *self.0.lock().unwrap() += v as f64;
        }
        fn absolute(&self, v: u64) {
            *self.0.lock().unwrap() = v as f64;
        }
    }
    impl metrics::GaugeFn for Cell {
        fn increment(&self, v: f64) {
            *self.0.lock().unwrap() += v;
        }
        fn decrement(&self, v: f64) {
            *self.0.lock().unwrap() -= v;
        }
        fn set(&self, v: f64) {
            *self.0.lock().unwrap() = v;
        }
    }
    impl metrics::HistogramFn for Cell {
        fn record(&self, _v: f64) {
            *self.0.lock().unwrap() += 1.0;
        }
    }

    /// Every metric by its key (name and labels), as one number (a histogram: its count).
    #[derive(Default, Clone)]
    struct Record(Arc<Mutex<BTreeMap<String, Arc<Cell>>>>);

    impl Record {
        fn cell(&self, key: &Key) -> Arc<Cell> {
            let mut name = key.name().to_owned();
            for l in key.labels() {
                name.push_str(&format!(",{}={}", l.key(), l.value()));
            }
            self.0.lock().unwrap().entry(name).or_default().clone()
        }
        fn get(&self, name: &str) -> f64 {
            self.0
                .lock()
                .unwrap()
                .get(name)
                .map_or(0.0, |c| *c.0.lock().unwrap())
        }
    }

    impl Recorder for Record {
        fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
            Counter::from_arc(self.cell(key))
        }
        fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
            Gauge::from_arc(self.cell(key))
        }
        fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
            Histogram::from_arc(self.cell(key))
        }
    }

    #[tokio::test]
    async fn requests_errors_and_latency_reach_the_recorder() {
        let client = graphbinary_testkit::or_skip!(
            gremlin_server::client("requests_errors_and_latency_reach_the_recorder").await
        );
        let_the_probe_close().await;
        let rec = Record::default();
        let _g = metrics::set_default_local_recorder(&rec);
        for _ in 0..3 {
            client.submit("g.V()").await.unwrap().all().await.unwrap();
        }
        let _ = client.submit("g.V().fail()").await.unwrap().all().await;
        assert_eq!(rec.get("gremlin_client_requests_total,protocol=http"), 4.0);
        assert_eq!(rec.get("gremlin_client_errors_total,kind=server"), 1.0);
        assert_eq!(
            rec.get("gremlin_client_request_duration_seconds,protocol=http"),
            4.0
        );
        assert_eq!(rec.get("gremlin_client_requests_in_flight"), 0.0);
        assert!(rec.get("gremlin_client_bytes_received_total") > 0.0);
        assert!(rec.get("gremlin_client_bytes_sent_total") > 0.0);
        // The connection the first request opened, by host (one at a time: one connection).
        let u = graphbinary_client::client::Url::parse(client.url()).unwrap();
        let host = format!("http://{}:{}", u.host_str().unwrap(), u.port().unwrap());
        assert_eq!(
            rec.get(&format!(
                "gremlin_client_connections_opened_total,host={host}"
            )),
            client.stats().connections[&host].opened as f64
        );
        assert!(client.stats().connections[&host].opened >= 1);
        // One connection open now, in the gauge as in the stats; closed once the client is.
        let gauge = format!("gremlin_client_connections_open,host={host}");
        assert_eq!(rec.get(&gauge), 1.0);
        assert_eq!(client.stats().connections[&host].open(), Some(1));
        client.close(Duration::from_secs(5)).await;
        let c = client.stats().connections[&host];
        assert_eq!(rec.get(&gauge), 0.0);
        assert_eq!(
            rec.get(&format!(
                "gremlin_client_connections_closed_total,host={host}"
            )),
            c.closed.unwrap() as f64
        );
    }
}
