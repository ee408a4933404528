//! `Client::builder("ws://...")` (TinkerPop 3) against a scripted in-process WebSocket server
//! (no Java needed): batching, error statuses, the SASL exchange, and broken or vanishing
//! servers.

use graphbinary_testkit::results;
use results::Sent;
use std::error::Error as _;
use std::time::Duration;

use futures::{SinkExt, StreamExt, TryStreamExt};
use graphbinary_client::client::{ErrorKind, Limit, SlowConsumer, TransportKind};
use graphbinary_client::format::text::one_line;
use graphbinary_client::value::Value;
use graphbinary_client::{Client, Error};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

use graphbinary_testkit::tls;
use graphbinary_testkit::ws_message;
use ws_message::{parse_request, response};

type ServerWs = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// Serves one connection with `script`; returns the URL.
async fn serve<F, Fut>(script: F) -> String
where
    F: FnOnce(ServerWs) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        script(ws).await;
    });
    format!("ws://{addr}/gremlin")
}

async fn next_binary(ws: &mut ServerWs) -> Vec<u8> {
    loop {
        if let Message::Binary(b) = ws.next().await.expect("a message").expect("no error") {
            return b.to_vec();
        }
    }
}

async fn send(ws: &mut ServerWs, bytes: Vec<u8>) {
    ws.send(Message::Binary(bytes.into())).await.unwrap();
}

/// Every result of `g` with its bulk.
async fn collect(c: &Client, g: &str) -> Result<Vec<(Value, i64)>, Error> {
    tokio::time::timeout(Duration::from_secs(10), async {
        c.submit(g)
            .await?
            .traversers()
            .map_ok(|t| (t.value, t.bulk))
            .try_collect()
            .await
    })
    .await
    .expect("the stream ends")
}

/// The client's connections open now, over all its hosts.
fn open_connections(c: &Client) -> u64 {
    c.stats()
        .connections
        .values()
        .filter_map(|n| n.open())
        .sum()
}

/// `e` with its whole source chain, on one line.
fn chain(e: &Error) -> String {
    one_line(e)
}

#[tokio::test]
async fn batches_206_then_200_stream_in_order() {
    let url = serve(|mut ws| async move {
        let (id, op) = parse_request(&next_binary(&mut ws).await);
        assert_eq!(op, "eval");
        for (status, items) in [(206, &[1, 2][..]), (206, &[3][..]), (200, &[4, 5][..])] {
            send(&mut ws, response(&id, status, "", Some(items))).await;
        }
        // Keep the connection open until the client is done.
        let _ = ws.next().await;
    })
    .await;
    let c = Client::new(url.as_str()).unwrap();
    let got = collect(&c, "g").await.unwrap();
    let want: Vec<_> = (1..=5).map(|i| (Value::Int(i), 1)).collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn an_error_status_after_a_batch_ends_the_stream_with_the_error() {
    let url = serve(|mut ws| async move {
        let (id, _) = parse_request(&next_binary(&mut ws).await);
        send(&mut ws, response(&id, 206, "", Some(&[1]))).await;
        send(&mut ws, response(&id, 597, "boom", None)).await;
        let _ = ws.next().await;
    })
    .await;
    let c = Client::new(url.as_str()).unwrap();
    let mut s = c.submit("g").await.unwrap().traversers();
    let t = s.next().await.unwrap().unwrap();
    assert_eq!((t.value, t.bulk), (Value::Int(1), 1));
    match s.next().await.unwrap() {
        Err(Error::Server(e)) => {
            assert_eq!((e.code, e.message.as_deref()), (597, Some("boom")))
        }
        other => panic!("{other:?}"),
    }
    assert!(s.next().await.is_none());
}

#[tokio::test]
async fn a_407_is_answered_with_sasl_plain_under_the_same_request_id() {
    let url = serve(|mut ws| async move {
        let (id, _) = parse_request(&next_binary(&mut ws).await);
        send(&mut ws, response(&id, 407, "", None)).await;
        let auth = next_binary(&mut ws).await;
        let (auth_id, op) = parse_request(&auth);
        assert_eq!(
            (auth_id.as_slice(), op.as_str()),
            (id.as_slice(), "authentication")
        );
        let token = b"AHN0ZXBoZW4AcGFzc3dvcmQ="; // base64("\0stephen\0password")
        assert!(auth.windows(token.len()).any(|w| w == token), "{auth:02x?}");
        send(&mut ws, response(&id, 200, "", Some(&[6]))).await;
        let _ = ws.next().await;
    })
    .await;
    let c = Client::builder(url.as_str())
        .basic_auth("stephen", "password")
        .build()
        .unwrap();
    assert_eq!(collect(&c, "g").await.unwrap(), vec![(Value::Int(6), 1)]);
}

#[tokio::test]
async fn an_undecodable_message_or_a_vanished_server_is_an_error_not_a_hang() {
    let url = serve(|mut ws| async move {
        let _ = next_binary(&mut ws).await;
        send(&mut ws, vec![0x84, 0x00, 0x01]).await;
        let _ = ws.next().await;
    })
    .await;
    let c = Client::new(url.as_str()).unwrap();
    let e = collect(&c, "g").await.unwrap_err();
    assert_eq!(e.transport_kind(), Some(TransportKind::Io), "{e:?}");
    let why = chain(&e);
    assert!(why.contains("offset 0") && why.contains("0x84"), "{why}");

    let url = serve(|mut ws| async move {
        let _ = next_binary(&mut ws).await;
        let _ = ws.close(None).await;
    })
    .await;
    let c = Client::new(url.as_str()).unwrap();
    let e = collect(&c, "g").await.unwrap_err();
    assert_eq!(e.transport_kind(), Some(TransportKind::Io), "{e:?}");
}

#[tokio::test]
async fn a_response_with_a_readable_header_but_bad_data_fails_only_its_request() {
    let url = serve(|mut ws| async move {
        let (a, _) = parse_request(&next_binary(&mut ws).await);
        let (b, _) = parse_request(&next_binary(&mut ws).await);
        // a: a List of one item whose type code 0xf0 GraphBinary 1 does not define.
        let mut bad = response(&a, 200, "", Some(&[]));
        let n = bad.len();
        bad[n - 1] = 1;
        bad.extend_from_slice(&[0xf0, 0x00]);
        send(&mut ws, bad).await;
        send(&mut ws, response(&b, 200, "", Some(&[2]))).await;
        let _ = ws.next().await;
    })
    .await;
    let c = Client::new(url.as_str()).unwrap();
    let first = c.submit("a").await.unwrap();
    let second = c.submit("b").await.unwrap();
    match first.all().await {
        // The header (35 bytes), `09 00` and the count: the item's code is at offset 41.
        Err(Error::Decode(e)) => assert_eq!(e.offset(), 41, "{e:?}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(second.all().await.unwrap(), vec![Value::Int(2)]);
}

// ---- Production features: pool, backpressure, reconnection, pings, limits, sessions, hook,
// ---- and the one `Client` API over ws://.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Serves every connection with `script(connection index, ws)`; returns the URL.
async fn serve_each<F, Fut>(script: F) -> String
where
    F: Fn(usize, ServerWs) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let script = Arc::new(script);
    tokio::spawn(async move {
        for i in 0.. {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let script = script.clone();
            tokio::spawn(async move {
                if let Ok(ws) = tokio_tungstenite::accept_async(tcp).await {
                    script(i, ws).await;
                }
            });
        }
    });
    format!("ws://{addr}/gremlin")
}

/// A server that answers each request, on every connection, with the messages `answer`
/// makes of the request's bytes and its id, in order.
async fn serve_answers(answer: fn(&[u8], &[u8]) -> Vec<Vec<u8>>) -> String {
    serve_each(move |_, mut ws| async move {
        while let Some(Ok(m)) = ws.next().await {
            let Message::Binary(b) = m else { continue };
            let (id, _) = parse_request(&b);
            for message in answer(&b, &id) {
                send(&mut ws, message).await;
            }
        }
    })
    .await
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Answers every request with `[n]` where n is the connection index, after `delay` when the
/// script contains "slow".
async fn echo_connection(i: usize, mut ws: ServerWs) {
    while let Some(Ok(m)) = ws.next().await {
        let Message::Binary(b) = m else { continue };
        let (id, _) = parse_request(&b);
        if contains(&b, b"slow") {
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        send(&mut ws, response(&id, 200, "", Some(&[i as i32]))).await;
    }
}

#[tokio::test]
async fn a_busy_connection_makes_the_pool_open_another_up_to_its_size() {
    let url = serve_each(echo_connection).await;
    let c = Client::builder(url.as_str()).pool_size(2).build().unwrap();
    // The first request opens the first connection.
    assert_eq!(collect(&c, "a").await.unwrap(), vec![(Value::Int(0), 1)]);
    assert_eq!(open_connections(&c), 1);
    // Idle: the same connection again.
    assert_eq!(collect(&c, "a").await.unwrap(), vec![(Value::Int(0), 1)]);
    // One request in flight: the pool opens a second connection in the background (the
    // request that found every connection busy does not wait for it).
    let slow = c.submit("slow").await.unwrap();
    let first_busy = c.submit("b").await.unwrap();
    for _ in 0..100 {
        if open_connections(&c) == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(open_connections(&c), 2);
    assert_eq!(collect(&c, "b").await.unwrap(), vec![(Value::Int(1), 1)]);
    assert_eq!(
        first_busy.all().await.unwrap(),
        vec![Value::Int(0)],
        "multiplexed on connection 0"
    );
    // Both busy, pool full: multiplexed on the least busy.
    let slow2 = c.submit("slow").await.unwrap();
    let third = c.submit("c").await.unwrap();
    let got = third.all().await.unwrap();
    assert!(matches!(got[0], Value::Int(0 | 1)), "{got:?}");
    assert_eq!(open_connections(&c), 2);
    let a = slow.all().await.unwrap();
    let b = slow2.all().await.unwrap();
    assert_eq!(a, vec![Value::Int(0)]);
    assert!(matches!(b[0], Value::Int(0 | 1)), "{b:?}");
}

/// Sends 40 batches of one Int for the first request, then answers the second with 99.
async fn flood_then_answer(mut ws: ServerWs) {
    let (a, _) = parse_request(&next_binary(&mut ws).await);
    let (b, _) = parse_request(&next_binary(&mut ws).await);
    for i in 0..40 {
        let status = if i == 39 { 200 } else { 206 };
        send(&mut ws, response(&a, status, "", Some(&[i]))).await;
    }
    send(&mut ws, response(&b, 200, "", Some(&[99]))).await;
    let _ = ws.next().await;
}

/// A client of one connection with a backlog of 4 messages, whose slow consumers are handled
/// as `slow_consumer` says, to a server that floods the first request (`flood_then_answer`).
async fn flooded_client(slow_consumer: SlowConsumer) -> Client {
    let url = serve(flood_then_answer).await;
    Client::builder(url.as_str())
        .pool_size(1)
        .request_backlog(4)
        .slow_consumer(slow_consumer)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_slow_consumer_fails_alone_and_never_holds_back_the_other_requests() {
    let c = flooded_client(SlowConsumer::Fail).await;
    let mut slow = c.submit("a").await.unwrap();
    let other = c.submit("b").await.unwrap();
    // Not reading `slow` at all: `other` still gets its answer, sent after 40 messages.
    let got = tokio::time::timeout(Duration::from_secs(5), other.all())
        .await
        .expect("the other request is not held back")
        .unwrap();
    assert_eq!(got, vec![Value::Int(99)]);
    // The slow one: what it had queued (its backlog), then the error naming the backlog.
    let mut seen = Vec::new();
    let err = loop {
        match slow.next().await {
            Some(Ok(v)) => seen.push(v),
            Some(Err(e)) => break e,
            None => panic!("no error after {seen:?}"),
        }
    };
    assert_eq!(seen, (0..4).map(Value::Int).collect::<Vec<_>>());
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
    assert!(
        err.to_string()
            .contains("fell more than 4 response messages"),
        "{err}"
    );
    assert!(slow.next().await.is_none());
    assert_eq!(open_connections(&c), 1, "the connection goes on");
}

#[tokio::test]
async fn with_slow_consumer_wait_nothing_is_lost() {
    let c = flooded_client(SlowConsumer::Wait).await;
    let slow = c.submit("a").await.unwrap();
    let other = c.submit("b").await.unwrap();
    assert_eq!(slow.all().await.unwrap().len(), 40);
    assert_eq!(other.all().await.unwrap(), vec![Value::Int(99)]);
}

#[tokio::test]
async fn in_flight_requests_fail_typed_when_the_server_drops_and_the_pool_heals() {
    let url = serve_each(|i, mut ws| async move {
        if i == 0 {
            // Read the request, then drop the connection without an answer.
            let _ = next_binary(&mut ws).await;
            drop(ws);
        } else {
            echo_connection(i, ws).await;
        }
    })
    .await;
    let c = Client::builder(url.as_str()).pool_size(1).build().unwrap();
    let e = collect(&c, "lost").await.unwrap_err();
    assert_eq!(e.transport_kind(), Some(TransportKind::Io), "{e:?}");
    assert!(
        e.source().is_some(),
        "the reason the connection closed: {e:?}"
    );
    // Let the connection's task notice, then the next request reconnects.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(open_connections(&c), 0);
    assert_eq!(
        collect(&c, "again").await.unwrap(),
        vec![(Value::Int(1), 1)]
    );
    assert_eq!(open_connections(&c), 1);
}

#[tokio::test]
async fn an_idle_connection_pings_and_a_silent_peer_is_dropped() {
    // A peer that answers pings (tungstenite does, while it reads).
    let pings = Arc::new(AtomicUsize::new(0));
    let seen = pings.clone();
    let url = serve(move |mut ws| async move {
        while let Some(Ok(m)) = ws.next().await {
            if let Message::Ping(_) = m {
                seen.fetch_add(1, Ordering::SeqCst);
            }
        }
    })
    .await;
    let c = Client::builder(url.as_str())
        .ping_interval(Duration::from_millis(100))
        .build()
        .unwrap();
    // A request opens the connection (the peer never answers it).
    let _unanswered = c.submit("opens the connection").await.unwrap();
    tokio::time::sleep(Duration::from_millis(550)).await;
    assert!(pings.load(Ordering::SeqCst) >= 2, "pings while idle");
    assert_eq!(
        open_connections(&c),
        1,
        "answered pings keep the connection"
    );

    // A peer that stops reading: no pong, the connection closes and its request fails.
    let url = serve(|ws| async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        drop(ws);
    })
    .await;
    let c = Client::builder(url.as_str())
        .ping_interval(Duration::from_millis(100))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let e = collect(&c, "never answered").await.unwrap_err();
    assert_eq!(e.transport_kind(), Some(TransportKind::Io), "{e:?}");
    assert!(chain(&e).contains("keep-alive ping"), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn limits_bound_each_message_and_each_request() {
    // Messages of 4 + 40*6 bytes-ish: three batches of 40 Ints.
    let url = serve_answers(|b, id| {
        let items: Vec<i32> = (0..40).collect();
        let big: Vec<i32> = (0..400).collect();
        if contains(b, b"huge") {
            vec![response(id, 200, "", Some(&big))]
        } else {
            vec![
                response(id, 206, "", Some(&items)),
                response(id, 206, "", Some(&items)),
                response(id, 200, "", Some(&items)),
            ]
        }
    })
    .await;
    // The response limit bounds each message too (600 bytes, under the 10 MiB default).
    let c = Client::builder(url.as_str())
        .max_response_size(600)
        .build()
        .unwrap();
    // Each message (~285 bytes) fits, the three together do not.
    match collect(&c, "three").await {
        Err(Error::Limit {
            limit: Limit::ResponseSize,
            seen,
            max: 600,
        }) => assert!(seen > 600, "{seen}"),
        other => panic!("{other:?}"),
    }
    // One message over the limit: the WebSocket layer refuses it and the connection closes,
    // the request told which limit (the client's own, not the connection's failure).
    match collect(&c, "huge").await {
        Err(
            e @ Error::Limit {
                limit: Limit::MessageSize,
                seen,
                max: 600,
            },
        ) => {
            assert!(seen > 600, "{seen}");
            assert!(e.to_string().contains("--max-message-size"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

/// The `session` argument of a request: key "session", then a fq String of 36 chars.
fn session_arg(b: &[u8]) -> Option<String> {
    let key = b"\x07session\x03\x00\x00\x00\x00\x24";
    let at = b.windows(key.len()).position(|w| w == key)? + key.len();
    Some(String::from_utf8(b.get(at..at + 36)?.to_vec()).unwrap())
}

#[tokio::test]
async fn a_session_has_its_own_connection_sends_its_id_and_closes() {
    let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel();
    let url = serve_each(move |i, mut ws| {
        let seen_tx = seen_tx.clone();
        async move {
            while let Some(Ok(m)) = ws.next().await {
                let Message::Binary(b) = m else { continue };
                let (id, op) = parse_request(&b);
                let processor_is_session = contains(&b[50..], b"\0\0\0\x07session");
                let _ = seen_tx.send((i, op.clone(), processor_is_session, session_arg(&b)));
                match op.as_str() {
                    "close" => send(&mut ws, response(&id, 204, "", None)).await,
                    _ => send(&mut ws, response(&id, 200, "", Some(&[i as i32]))).await,
                }
            }
        }
    })
    .await;
    let c = Client::new(url.as_str()).unwrap();
    let s = c.session().await.unwrap();
    assert!(s.is_session());
    let sid = s.id().to_string();
    assert_eq!(
        s.submit("x = 1").await.unwrap().all().await.unwrap(),
        vec![Value::Int(1)],
        "connection 1"
    );
    assert_eq!(
        collect(&c, "outside").await.unwrap(),
        vec![(Value::Int(0), 1)]
    );
    s.close().await.unwrap();
    let e = s.submit("x").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Transaction, "{e:?}");
    let mut seen = Vec::new();
    while let Ok(x) = seen_rx.try_recv() {
        seen.push(x);
    }
    assert_eq!(
        seen,
        vec![
            (1, "eval".to_string(), true, Some(sid.clone())),
            (0, "eval".to_string(), false, None),
            (1, "close".to_string(), true, Some(sid)),
        ]
    );
}

#[tokio::test]
async fn interceptors_see_and_change_the_upgrade_request() {
    use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut tx = Some(tx);
        // The callback's signature is tungstenite's (its error is an HTTP response).
        #[allow(clippy::result_large_err)]
        let callback = |req: &Request, resp: Response| {
            let _ = tx.take().unwrap().send(req.headers().clone());
            Ok(resp)
        };
        let mut ws = tokio_tungstenite::accept_hdr_async(tcp, callback)
            .await
            .unwrap();
        let _ = ws.next().await;
    });
    let seen_url = Arc::new(std::sync::Mutex::new(String::new()));
    let seen = seen_url.clone();
    let hook = graphbinary_client::client::interceptor_fn("tag", move |req| {
        *seen.lock().unwrap() = req.url.to_string();
        assert_eq!(req.method, graphbinary_client::client::Method::GET);
        assert!(
            req.headers.contains_key("sec-websocket-key"),
            "{:?}",
            req.headers
        );
        req.headers.insert("x-tag", "blue".parse()?);
        Ok(())
    });
    let c = Client::builder(format!("ws://{addr}/gremlin"))
        .interceptor(hook)
        .build()
        .unwrap();
    // The first request opens the connection; the server never answers it.
    let _request = tokio::spawn(async move { c.submit("g").await.map(|_| ()) });
    let headers = rx.await.unwrap();
    assert_eq!(headers["x-tag"], "blue");
    assert_eq!(*seen_url.lock().unwrap(), format!("http://{addr}/gremlin"));

    // A failing interceptor stops the connection before anything is sent.
    let failing = graphbinary_client::client::interceptor_fn("no", |_| Err("refused".into()));
    let c = Client::builder(format!("ws://{addr}/gremlin"))
        .interceptor(failing)
        .build()
        .unwrap();
    match c.submit("g").await {
        Err(Error::Interceptor { name, .. }) => assert_eq!(name, "no"),
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[tokio::test]
async fn client_builder_with_a_ws_url_speaks_tinkerpop_3_through_the_same_api() {
    let url = serve_answers(|b, id| {
        if contains(b, b"boom") {
            vec![response(id, 597, "boom", None)]
        } else if contains(b, b"\x08bindings") {
            // bindings {who: 41 (Int)} -> 42
            assert!(contains(b, b"\x03who\x01\x00\x00\x00\x00\x29"), "{b:02x?}");
            vec![response(id, 200, "", Some(&[42]))]
        } else {
            vec![
                response(id, 206, "", Some(&[1, 2])),
                response(id, 200, "", Some(&[3])),
            ]
        }
    })
    .await;
    let client = Client::builder(&url).pool_size(2).build().unwrap();
    assert!(client.is_tinkerpop3());
    let all = client.submit("g.V().id()").expect_all().await;
    assert_eq!(all, vec![Value::Int(1), Value::Int(2), Value::Int(3)]);
    let n = client.submit("g.V().id()").expect_count().await;
    assert_eq!(n, 3);
    let one: i32 = client
        .request("who + 1")
        .param("who", 41i32)
        .expect_one()
        .await;
    assert_eq!(one, 42);
    match client.submit("boom").await.unwrap().all().await {
        Err(Error::Server(e)) => assert_eq!((e.code, e.message.as_deref()), (597, Some("boom"))),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        client.transaction().await,
        Err(Error::InvalidRequest(_))
    ));
    // Typed results through the same stream.
    #[cfg(feature = "serde")]
    {
        let typed: Vec<i64> = client.submit("g.V().id()").expect_typed::<i64>().await;
        assert_eq!(typed, vec![1, 2, 3]);
    }
}

#[tokio::test]
async fn wss_goes_through_rustls_and_an_untrusted_certificate_is_a_tls_error() {
    // The client rejects the certificate: the handshake fails on the server side too.
    let url = tls::serve_tls(|_handshake| async {}).await.url("wss");
    let client = Client::new(url.as_str()).unwrap();
    let err = client.submit("g.V()").await.unwrap_err();
    assert_eq!(err.transport_kind(), Some(TransportKind::Tls), "{err:?}");
    // rustls's error in the source chain.
    assert!(chain(&err).contains("UnknownIssuer"), "{err:?}");
}

/// The root certificate given once to the builder (as for HTTP) is trusted by the `wss://`
/// transport too.
#[tokio::test]
async fn wss_trusts_the_root_certificate_given_to_the_builder() {
    // Each connection answers its eval requests with [1, 2, 3].
    let server = tls::serve_tls(|tls| async move {
        let mut ws = tokio_tungstenite::accept_async(tls.unwrap()).await.unwrap();
        while let Some(Ok(m)) = ws.next().await {
            if let Message::Binary(b) = m {
                let (id, _) = parse_request(&b);
                let reply = response(&id, 200, "", Some(&[1, 2, 3]));
                ws.send(Message::Binary(reply.into())).await.unwrap();
            }
        }
    })
    .await;
    let (url, pem) = (server.url("wss"), server.pem);
    let client = Client::builder(url.as_str())
        .add_root_certificate_pem(pem.clone())
        .build()
        .unwrap();
    let all = client.submit("g.V().id()").expect_all().await;
    assert_eq!(all, vec![Value::Int(1), Value::Int(2), Value::Int(3)]);
    assert_eq!(collect(&client, "g").await.unwrap().len(), 3);
    // An invalid PEM fails the build, before any connection.
    for u in [url.as_str(), "https://localhost:1/gremlin"] {
        match graphbinary_client::Client::builder(u)
            .add_root_certificate_pem(pem.clone())
            .add_root_certificate_pem("-----BEGIN CERTIFICATE-----\nAAAA\n")
            .build()
        {
            Err(graphbinary_client::Error::Config(m)) => {
                assert!(m.contains("root certificate 1: invalid PEM"), "{u}: {m}")
            }
            other => panic!("{u}: {:?}", other.map(|_| ())),
        }
    }
}
