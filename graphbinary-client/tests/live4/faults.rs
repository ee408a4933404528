//! Network faults injected by a proxy of ours (`support/fault_proxy.rs`) in front of REAL
//! servers: Gremlin Server 4 over HTTP (`GREMLIN_URL`) and Gremlin Server 3.7.3 over WebSocket
//! (`GREMLIN_WS_URL_373`). For each fault, with `read_timeout` and `request_timeout` set: a
//! typed error within that time (never a hang), the results yielded before it are the first
//! results of the real answer, and the next request on the same client succeeds. Then the
//! retries: an idempotent read that meets a forged 503 / 596 / 429 or a reset before its first
//! result succeeds (on a retry, or on another host), and a request not marked idempotent fails
//! typed and reaches the proxy exactly once.
//!
//! The table of these faults and what the client does is in docs/RELIABILITY.md ("Network
//! faults, one by one"); a row there names its test here.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use graphbinary_client::client::{Client, ClientBuilder, Error, RetryPolicy, TransportKind};
use graphbinary_client::format::text::one_line;
use graphbinary_client::value::Value;

use graphbinary_testkit::fault_proxy;
use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::results;
use graphbinary_testkit::ws_message;

use fault_proxy::{Fault, FaultProxy};

/// Many results in many chunks (HTTP) / messages (WebSocket) with `batch_size(8)`.
const QUERY: &str = "g.V().both().both().both().both().both().values('name')";
const READ_TIMEOUT: Duration = Duration::from_millis(1000);
const REQUEST_TIMEOUT: Duration = Duration::from_millis(3000);
/// What the client may take beyond its own timeout before the test calls it late.
const SLACK: Duration = Duration::from_millis(1500);
/// Payload bytes forwarded before a mid-body fault: a few chunks / messages of results.
const MID: usize = 400;

fn ws_url() -> Option<String> {
    match std::env::var("GREMLIN_WS_URL_373") {
        Ok(u) => Some(u),
        Err(_) => {
            gremlin_server::skip::skipped(
                "faults (ws://)",
                "GREMLIN_WS_URL_373 is not set (cargo xtask server3 --tinkerpop 3.7.3)",
            );
            None
        }
    }
}

fn names(values: &[Value]) -> Vec<String> {
    values
        .iter()
        .map(|v| v.as_str().expect("a name").to_owned())
        .collect()
}

/// The whole answer of the real server, straight (no proxy).
async fn answer(url: &str) -> Vec<String> {
    let c = Client::builder(url).build().unwrap();
    let v: Vec<String> = results::collect_as(c.request(QUERY).batch_size(8)).await;
    assert!(v.len() > 100, "the query gives many results: {}", v.len());
    v
}

fn faulty_client(url: &str) -> ClientBuilder {
    Client::builder(url)
        .connect_timeout(READ_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .request_timeout(REQUEST_TIMEOUT)
        .compression(false)
        .pool_size(2)
        .retry_policy(RetryPolicy::none())
}

/// What a request through the proxy gave: the results before the error, the error, the time.
struct Outcome {
    yielded: Vec<String>,
    error: Option<Error>,
    took: Duration,
}

async fn run(client: &Client, idempotent: bool) -> Outcome {
    let t = Instant::now();
    let mut yielded = Vec::new();
    let work = async {
        let mut s = client
            .request(QUERY)
            .batch_size(8)
            .idempotent(idempotent)
            .send()
            .await?;
        while let Some(v) = s.try_next().await? {
            yielded.push(v.as_str().expect("a name").to_owned());
        }
        Ok::<(), Error>(())
    };
    // A hang is a failure of its own, not a timeout of the test runner.
    let error = tokio::time::timeout(REQUEST_TIMEOUT + SLACK * 4, work)
        .await
        .unwrap_or_else(|_| panic!("the request hung (over {:?})", REQUEST_TIMEOUT + SLACK * 4))
        .err();
    Outcome {
        yielded,
        error,
        took: t.elapsed(),
    }
}

/// One fault and what it must end in.
struct Case {
    name: &'static str,
    fault: Fault,
    /// Results at least yielded before the error.
    min_yielded: usize,
    expect: fn(&Error) -> bool,
}

impl Case {
    fn new(
        name: &'static str,
        fault: Fault,
        min_yielded: usize,
        expect: fn(&Error) -> bool,
    ) -> Case {
        Case {
            name,
            fault,
            min_yielded,
            expect,
        }
    }
}

/// Checks each fault in turn: a typed error as the case expects within the client's timeouts,
/// the results before it a prefix of the real answer (at least `min_yielded` of them), and
/// the next request on the same client whole.
async fn check(proxy: &FaultProxy, client: &Client, full: &[String], cases: Vec<Case>) {
    for Case {
        name,
        fault,
        min_yielded,
        expect,
    } in cases
    {
        proxy.arm(fault);
        let o = run(client, false).await;
        let e = o
            .error
            .unwrap_or_else(|| panic!("{name}: no error ({} results)", o.yielded.len()));
        assert!(
            expect(&e),
            "{name}: unexpected error {e:?} ({})",
            one_line(&e)
        );
        assert!(
            o.took <= REQUEST_TIMEOUT + SLACK,
            "{name}: the error came after {:?}",
            o.took
        );
        assert!(
            o.yielded.len() >= min_yielded && o.yielded.len() < full.len(),
            "{name}: {} results before the error (at least {min_yielded})",
            o.yielded.len()
        );
        assert_eq!(
            o.yielded[..],
            full[..o.yielded.len()],
            "{name}: the results before the error are the real ones"
        );
        assert_eq!(proxy.armed(), 0, "{name}: the fault was taken");
        let next = run(client, false).await;
        assert!(
            next.error.is_none(),
            "{name}: the next request failed: {:?}",
            next.error
        );
        assert_eq!(next.yielded, full, "{name}: the next request is whole");
        eprintln!(
            "{name}: {} results, then {} after {:?}; next request whole",
            o.yielded.len(),
            one_line(&e),
            o.took
        );
    }
}

fn timeout(e: &Error) -> bool {
    e.is_timeout()
}

fn io(e: &Error) -> bool {
    e.transport_kind() == Some(TransportKind::Io)
}

fn transport(e: &Error) -> bool {
    e.transport_kind().is_some()
}

/// A slow drip: 16 bytes every 50 ms, far too slow for the whole answer in time.
fn drip() -> Fault {
    Fault::Drip(16, Duration::from_millis(50))
}

#[tokio::test]
async fn http_faults_end_in_a_typed_error_in_time_and_the_client_goes_on() {
    if !gremlin_server::server_available("http_faults").await {
        return;
    }
    let url = gremlin_server::url();
    let full = answer(&url).await;
    let proxy = FaultProxy::start(&url).await;
    let client = faulty_client(&proxy.url()).build().unwrap();
    let cases = vec![
        Case::new(
            "stall before headers",
            Fault::StallBeforeHeaders,
            0,
            timeout,
        ),
        Case::new("stall mid-body", Fault::StallAfter(MID), 1, timeout),
        Case::new("reset mid-body", Fault::ResetAfter(MID), 1, io),
        Case::new("clean close mid-body", Fault::CloseAfter(MID), 1, io),
        Case::new(
            "bad chunk framing",
            Fault::InjectAt(MID, b"zz\r\n".to_vec()),
            1,
            transport,
        ),
        Case::new(
            "oversized headers (1 MiB)",
            Fault::HugeHead(1 << 20),
            0,
            transport,
        ),
        Case::new("garbage body", Fault::Garbage, 0, |e| {
            matches!(e, Error::Decode(_))
        }),
        Case::new("slow drip", drip(), 0, timeout),
    ];
    check(&proxy, &client, &full, cases).await;
    // With the client's own bound on the header section.
    let bounded = faulty_client(&proxy.url())
        .max_response_header_bytes(8 * 1024)
        .build()
        .unwrap();
    let over = Case::new(
        "oversized headers (over the client's limit)",
        Fault::HugeHead(20_000),
        0,
        |e| matches!(e, Error::Protocol(m) if m.contains("exceed")),
    );
    check(&proxy, &bounded, &full, vec![over]).await;
    // A compressed body of garbage is a zlib error.
    let compressed = faulty_client(&proxy.url())
        .compression(true)
        .build()
        .unwrap();
    let garbage = Case::new("garbage compressed body", Fault::Garbage, 0, |e| {
        matches!(e, Error::Decompress(_) | Error::Decode(_))
    });
    check(&proxy, &compressed, &full, vec![garbage]).await;
}

/// A WebSocket close frame (1000, normal closure).
const CLOSE_FRAME: [u8; 4] = [0x88, 0x02, 0x03, 0xe8];
/// A binary frame header claiming 4 GiB.
const HUGE_FRAME: [u8; 10] = [0x82, 127, 0, 0, 0, 1, 0, 0, 0, 0];

#[tokio::test]
async fn ws_faults_end_in_a_typed_error_in_time_and_the_client_goes_on() {
    let Some(url) = ws_url() else { return };
    let full = answer(&url).await;
    let proxy = FaultProxy::start(&url).await;
    let client = faulty_client(&proxy.url()).build().unwrap();
    let cases = vec![
        // The first connection is opened by the first request: a stalled upgrade.
        Case::new(
            "stall before the upgrade's answer",
            Fault::StallBeforeHeaders,
            0,
            timeout,
        ),
        Case::new("stall mid-batch", Fault::StallAfter(MID), 1, timeout),
        Case::new("reset mid-batch", Fault::ResetAfter(MID), 1, transport),
        Case::new(
            "clean close mid-batch",
            Fault::CloseAfter(MID),
            1,
            transport,
        ),
        Case::new(
            "close frame mid-batch",
            Fault::InjectAt(MID, CLOSE_FRAME.to_vec()),
            1,
            transport,
        ),
        // A frame over the client's message size limit is the client's own limit, named as
        // such (not an I/O error), and nothing of the claimed 4 GiB is allocated.
        Case::new(
            "oversized frame",
            Fault::InjectAt(MID, HUGE_FRAME.to_vec()),
            1,
            |e| matches!(e, Error::Limit { .. }),
        ),
        Case::new(
            "bad frame (reserved bits)",
            Fault::InjectAt(MID, vec![0xf2, 0x03, 1, 2, 3]),
            1,
            transport,
        ),
        Case::new("garbage payload", Fault::Garbage, 0, |e| {
            transport(e) || matches!(e, Error::Decode(_) | Error::Protocol(_))
        }),
        Case::new("slow drip", drip(), 0, timeout),
    ];
    check(&proxy, &client, &full, cases).await;
    // Compressed messages (permessage-deflate) of garbage do not inflate: an error that says
    // so, and the client goes on.
    let compressed = faulty_client(&proxy.url())
        .compression(true)
        .build()
        .unwrap();
    let garbage = Case::new("garbage compressed payload", Fault::Garbage, 0, |e| {
        transport(e) && one_line(e).contains("permessage-deflate")
    });
    check(&proxy, &compressed, &full, vec![garbage]).await;
}

#[tokio::test]
async fn ws_unanswered_pings_drop_the_connection_and_the_pool_heals() {
    let Some(url) = ws_url() else { return };
    let full = answer(&url).await;
    let proxy = FaultProxy::start(&url).await;
    let ping = Duration::from_millis(300);
    // Uncompressed, as `faulty_client`'s: MID counts the answer's payload bytes, and the
    // whole answer compressed is fewer.
    let c = Client::builder(proxy.url())
        .ping_interval(ping)
        .compression(false)
        .build()
        .unwrap();
    let collect = |c: Client| async move {
        let mut got = Vec::new();
        let r: Result<(), Error> = async {
            let mut s = c.request(QUERY).batch_size(8).send().await?;
            while let Some(v) = s.try_next().await? {
                got.push(v.as_str().expect("a name").to_owned());
            }
            Ok(())
        }
        .await;
        (got, r)
    };
    // Everything from the server stops, pongs included; no read timeout is set.
    proxy.arm(Fault::StallAfter(MID));
    let t = Instant::now();
    let (got, r) = tokio::time::timeout(Duration::from_secs(10), collect(c.clone()))
        .await
        .expect("a silent peer is dropped, not waited for");
    let e = r.expect_err("the stalled request fails");
    assert_eq!(e.transport_kind(), Some(TransportKind::Io), "{e:?}");
    assert!(one_line(&e).contains("ping"), "{e:?}");
    assert!(t.elapsed() < ping * 4 + SLACK, "{:?}", t.elapsed());
    assert!(!got.is_empty() && got[..] == full[..got.len()]);
    let (again, r) = collect(c.clone()).await;
    r.expect("the pool opened a new connection");
    assert_eq!(again, full);
}

/// A whole HTTP response with `status`, a JSON error body and `Retry-After: retry_after`.
fn http_error(status: u16, retry_after: u64) -> fault_proxy::Forger {
    std::sync::Arc::new(move |_| {
        let body = format!(r#"{{"message":"forged {status}"}}"#);
        format!(
            "HTTP/1.1 {status} Try Again\r\nRetry-After: {retry_after}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    })
}

fn retrying(url: &str) -> Client {
    faulty_client(url)
        .retry_policy(RetryPolicy::default().initial_backoff(Duration::from_millis(10)))
        .build()
        .unwrap()
}

/// Arms `fault` once and sends an idempotent read (it succeeds by a retry: two requests at
/// the proxy) and then arms it again for a read not marked idempotent (it fails as `expect`
/// says and reaches the proxy once).
async fn check_retry(
    name: &str,
    proxy: &FaultProxy,
    full: &[String],
    fault: Fault,
    forwarded: bool,
    expect: impl Fn(&Error) -> bool,
) -> Duration {
    let client = retrying(&proxy.url());
    proxy.arm(fault.clone());
    let (r0, f0) = (proxy.requests(), proxy.forwarded());
    let o = run(&client, true).await;
    assert!(
        o.error.is_none(),
        "{name}: the idempotent read failed: {:?}",
        o.error
    );
    assert_eq!(o.yielded, full, "{name}");
    assert_eq!(proxy.requests() - r0, 2, "{name}: sent twice");
    assert_eq!(
        proxy.forwarded() - f0,
        1 + usize::from(forwarded),
        "{name}: forwarded"
    );
    assert_eq!(client.retries(), 1, "{name}");
    let took = o.took;

    proxy.arm(fault);
    let (r0, f0) = (proxy.requests(), proxy.forwarded());
    let o = run(&client, false).await;
    let e = o
        .error
        .unwrap_or_else(|| panic!("{name}: not idempotent, yet it succeeded"));
    assert!(expect(&e), "{name}: {e:?}");
    assert_eq!(
        proxy.requests() - r0,
        1,
        "{name}: a request not idempotent is sent once"
    );
    assert_eq!(proxy.forwarded() - f0, usize::from(forwarded), "{name}");
    assert_eq!(
        client.retries(),
        1,
        "{name}: no retry of a request not idempotent"
    );
    eprintln!(
        "{name}: idempotent read retried once and whole in {took:?}; otherwise {}",
        one_line(&e)
    );
    took
}

fn status(code: i32) -> impl Fn(&Error) -> bool {
    move |e| e.server_error().is_some_and(|s| s.code == code)
}

#[tokio::test]
async fn http_idempotent_reads_are_retried_and_others_sent_once() {
    if !gremlin_server::server_available("http_retries").await {
        return;
    }
    let url = gremlin_server::url();
    let full = answer(&url).await;
    let proxy = FaultProxy::start(&url).await;
    for code in [503u16, 596] {
        check_retry(
            &format!("forged {code}"),
            &proxy,
            &full,
            Fault::Forge(http_error(code, 0)),
            false,
            status(i32::from(code)),
        )
        .await;
    }
    let took = check_retry(
        "forged 429, Retry-After: 1",
        &proxy,
        &full,
        Fault::Forge(http_error(429, 1)),
        false,
        status(429),
    )
    .await;
    assert!(
        took >= Duration::from_secs(1),
        "Retry-After honoured: {took:?}"
    );
    check_retry(
        "reset before the first byte",
        &proxy,
        &full,
        Fault::ResetBeforeResponse,
        false,
        io,
    )
    .await;
    check_retry(
        "reset before the first result",
        &proxy,
        &full,
        Fault::ResetAfter(0),
        true,
        io,
    )
    .await;
    // A timeout is not retried: the deadline is the caller's.
    let client = retrying(&proxy.url());
    proxy.arm(Fault::StallBeforeHeaders);
    let o = run(&client, true).await;
    assert!(
        o.error.as_ref().is_some_and(Error::is_timeout),
        "{:?}",
        o.error
    );
    assert_eq!(client.retries(), 0);
}

#[tokio::test]
async fn http_an_idempotent_read_moves_to_another_host() {
    if !gremlin_server::server_available("http_retry_hosts").await {
        return;
    }
    let url = gremlin_server::url();
    let full = answer(&url).await;
    let bad = FaultProxy::start(&url).await;
    let good = FaultProxy::start(&url).await;
    for _ in 0..20 {
        bad.arm(Fault::Forge(http_error(503, 0)));
    }
    let client = faulty_client(&bad.url())
        .add_host(good.url())
        .retry_policy(
            RetryPolicy::default()
                .max_attempts(2)
                .initial_backoff(Duration::from_millis(1)),
        )
        .host_retry_backoff(Duration::from_secs(30))
        .build()
        .unwrap();
    for i in 0..6 {
        let o = run(&client, true).await;
        assert!(o.error.is_none(), "read {i}: {:?}", o.error);
        assert_eq!(o.yielded, full);
    }
    // The first read that met the 503 went on to the good host; the bad one then left the
    // rotation (its backoff is 30 s), so it saw exactly one request.
    assert_eq!(bad.requests(), 1, "requests at the failing host");
    assert_eq!(good.requests(), 6);
    assert_eq!(client.retries(), 1);
    assert!(!client.hosts()[0].available);
}

/// A TinkerPop 3 status message with `code` for the request in `payload` (a request frame).
fn ws_status(code: i32) -> fault_proxy::Forger {
    std::sync::Arc::new(move |payload| {
        let (id, _) = ws_message::parse_request(payload);
        ws_message::response(&id, code, "forged: try again", None)
    })
}

#[tokio::test]
async fn ws_idempotent_reads_are_retried_and_others_sent_once() {
    let Some(url) = ws_url() else { return };
    let full = answer(&url).await;
    let proxy = FaultProxy::start(&url).await;
    check_retry(
        "ws: forged 596",
        &proxy,
        &full,
        Fault::Forge(ws_status(596)),
        false,
        status(596),
    )
    .await;
    check_retry(
        "ws: reset before the first byte",
        &proxy,
        &full,
        Fault::ResetBeforeResponse,
        false,
        transport,
    )
    .await;
    check_retry(
        "ws: reset before the first result",
        &proxy,
        &full,
        Fault::ResetAfter(0),
        true,
        transport,
    )
    .await;
}

/// `Client::close` with a response held mid-body (the server stalled): it waits its grace,
/// cuts the response (its next read fails with `Error::Closed`, after the results already
/// decoded), closes every connection (none left at the proxy) and refuses new requests.
async fn close_cuts_a_held_response(url: &str) {
    let full = answer(url).await;
    let proxy = FaultProxy::start(url).await;
    let client = faulty_client(&proxy.url()).build().unwrap();
    proxy.arm(Fault::StallAfter(MID));
    let mut s = client.request(QUERY).batch_size(8).send().await.unwrap();
    let first = s.try_next().await.unwrap().expect("a first result");
    assert_eq!(first.as_str(), Some(full[0].as_str()));
    let grace = Duration::from_millis(200);
    let t = Instant::now();
    assert_eq!(client.close(grace).await, 1, "one request was in flight");
    let took = t.elapsed();
    assert!(took >= grace && took < READ_TIMEOUT, "{took:?}");
    let mut yielded = vec![first];
    let e = loop {
        match s.try_next().await {
            Ok(Some(v)) => yielded.push(v),
            Ok(None) => panic!("the cut response ended cleanly"),
            Err(e) => break e,
        }
    };
    assert!(matches!(e, Error::Closed), "{e:?}");
    assert_eq!(names(&yielded)[..], full[..yielded.len()]);
    let after = client.request(QUERY).send().await;
    assert!(matches!(after, Err(Error::Closed)), "{after:?}");
    for _ in 0..100 {
        if proxy.open_connections() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(proxy.open_connections(), 0, "connections left open");
}

#[tokio::test]
async fn http_close_cuts_a_held_response_after_its_grace() {
    if !gremlin_server::server_available("http_close").await {
        return;
    }
    close_cuts_a_held_response(&gremlin_server::url()).await;
}

#[tokio::test]
async fn ws_close_cuts_a_held_response_after_its_grace() {
    let Some(url) = ws_url() else { return };
    close_cuts_a_held_response(&url).await;
}
