//! Transport-level tests of the HTTP client against a tiny local HTTP/1.1 responder: the
//! request it sends (headers, body), zlib decoding per response, JSON errors, timeouts.
//! (End-to-end behaviour against the real Gremlin Server is in `e2e_*.rs`.)

use std::io::Write;
use std::time::Duration;

use graphbinary_client::client::{Client, Error, TransportKind, GRAPHBINARY_MIME};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use graphbinary_testkit::tls;

/// Accepts one connection, reads one request (headers + Content-Length body), answers with
/// `response` (written in pieces of `chunk` bytes, pausing `pause` between them), and returns
/// the raw request text.
async fn serve_once(
    response: Vec<u8>,
    chunk: usize,
    pause: Duration,
) -> (String, tokio::task::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/gremlin", listener.local_addr().unwrap());
    let handle = tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = sock.read(&mut buf).await.unwrap();
            assert!(n > 0, "client closed before sending a whole request");
            req.extend_from_slice(&buf[..n]);
            if let Some(end) = find(&req, b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&req[..end]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map(|v| v.trim().parse().unwrap())
                    .unwrap_or(0);
                if req.len() >= end + 4 + len {
                    break;
                }
            }
        }
        for piece in response.chunks(chunk.max(1)) {
            if sock.write_all(piece).await.is_err() {
                break;
            }
            tokio::time::sleep(pause).await;
        }
        let _ = sock.shutdown().await;
        String::from_utf8(req).unwrap()
    });
    (url, handle)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The exact body Gremlin Server sends for `g.V().count()` on Modern.
const COUNT_BODY: [u8; 21] = [
    0x84, 0x00, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 6, 0xfd, 0x00, 0x00, 0, 0, 0, 0xc8, 0x01, 0x01,
];

fn chunked_response(headers: &str, body: &[u8], chunk: usize) -> Vec<u8> {
    let mut out =
        format!("HTTP/1.1 200 OK\r\n{headers}Transfer-Encoding: chunked\r\n\r\n").into_bytes();
    for c in body.chunks(chunk) {
        out.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
        out.extend_from_slice(c);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\ncode: 200\r\n\r\n");
    out
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

async fn read_all(body: &mut graphbinary_client::client::BodyReader) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    body.read_to_end(&mut out).await.map_err(|e| {
        Error::from(graphbinary_core::DecodeError::new(
            0,
            graphbinary_core::ErrorKind::Io(e),
        ))
    })?;
    Ok(out)
}

/// A connection lost inside a body: a transport error of the I/O or HTTP kind.
fn assert_body_cut_off(e: &Error) {
    assert!(
        matches!(
            e.transport_kind(),
            Some(TransportKind::Io | TransportKind::Http)
        ),
        "{e:?}"
    );
}

#[tokio::test]
async fn sends_exactly_one_accept_encoding_and_the_protocol_headers() {
    let resp = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\n"),
        &COUNT_BODY,
        7,
    );
    let (url, server) = serve_once(resp, 1000, Duration::ZERO).await;
    let client = Client::builder(&url)
        .basic_auth("user", "pass")
        .build()
        .unwrap();
    let mut raw = client
        .request("g.V().count()")
        .param("x", 1i32)
        .send_raw()
        .await
        .unwrap();
    assert_eq!(raw.status, 200);
    assert!(!raw.body.is_compressed());
    assert_eq!(read_all(&mut raw.body).await.unwrap(), COUNT_BODY);
    let req = server.await.unwrap();
    let lower = req.to_ascii_lowercase();
    assert!(req.starts_with("POST /gremlin HTTP/1.1\r\n"), "{req}");
    assert_eq!(lower.matches("accept-encoding:").count(), 1, "{req}");
    assert!(lower.contains("\r\naccept-encoding: deflate\r\n"), "{req}");
    assert_eq!(lower.matches("\r\naccept:").count(), 1, "{req}");
    assert!(
        lower.contains(&format!("\r\naccept: {GRAPHBINARY_MIME}\r\n")),
        "{req}"
    );
    assert!(
        lower.contains("\r\ncontent-type: application/json\r\n"),
        "{req}"
    );
    assert!(
        lower.contains("\r\nauthorization: basic dxnlcjpwyxnz\r\n"),
        "{req}"
    );
    assert!(lower.contains(" gremlin-rust."), "{req}");
    // No batch size set: 8192 asked for (`RequestBuilder::batch_size`).
    assert!(
        req.ends_with(r#"{"batchSize":8192,"gremlin":"g.V().count()","parameters":"[x:1]"}"#),
        "{req}"
    );
}

#[tokio::test]
async fn compression_off_sends_no_accept_encoding() {
    let resp = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\n"),
        &COUNT_BODY,
        100,
    );
    let (url, server) = serve_once(resp, 1000, Duration::ZERO).await;
    let client = Client::builder(&url).compression(false).build().unwrap();
    let mut raw = client.request("g.V().count()").send_raw().await.unwrap();
    assert_eq!(read_all(&mut raw.body).await.unwrap(), COUNT_BODY);
    let req = server.await.unwrap().to_ascii_lowercase();
    assert!(!req.contains("accept-encoding"), "{req}");
}

#[tokio::test]
async fn zlib_body_is_decoded_per_response_header_across_tiny_chunks() {
    let payload: Vec<u8> = (0..50_000u32).flat_map(|i| i.to_be_bytes()).collect();
    let resp = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\nContent-Encoding: deflate\r\n"),
        &zlib(&payload),
        13,
    );
    let (url, _server) = serve_once(resp, 777, Duration::ZERO).await;
    let client = Client::new(&url).unwrap();
    let mut raw = client.request("x").send_raw().await.unwrap();
    assert!(raw.body.is_compressed());
    let counters = raw.body.counters();
    assert_eq!(read_all(&mut raw.body).await.unwrap(), payload);
    assert_eq!(counters.body_bytes(), payload.len() as u64);
    assert!(counters.wire_bytes() < counters.body_bytes());
}

#[tokio::test]
async fn corrupt_zlib_is_a_decompress_error() {
    // Raw deflate without the zlib header: what a wrong decoder choice would produce.
    assert_decompress_error(&[0x4b, 0x4c, 0x4a, 0x06, 0x00]).await;
}

/// A deflate-encoded response whose body is `deflated` fails to read with `Error::Decompress`.
async fn assert_decompress_error(deflated: &[u8]) {
    let resp = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\nContent-Encoding: deflate\r\n"),
        deflated,
        100,
    );
    let (url, _server) = serve_once(resp, 1000, Duration::ZERO).await;
    let client = Client::new(&url).unwrap();
    let mut raw = client.request("x").send_raw().await.unwrap();
    let e = read_all(&mut raw.body).await.unwrap_err();
    assert!(matches!(e, Error::Decompress(_)), "{e:?}");
}

#[tokio::test]
async fn json_error_becomes_server_error() {
    let body = r#"{"message":"no gremlin script supplied"}"#;
    let resp = format!(
        "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (url, _server) = serve_once(resp.into_bytes(), 1000, Duration::ZERO).await;
    let client = Client::new(&url).unwrap();
    let e = client.request("").send_raw().await.unwrap_err();
    let s = e.server_error().expect("a server error");
    assert_eq!(s.http_status, Some(400));
    assert_eq!(s.code, 400);
    assert_eq!(s.message.as_deref(), Some("no gremlin script supplied"));
    assert_eq!(s.exception, None);
}

#[tokio::test]
async fn read_timeout_mid_body_is_a_timeout_transport_error() {
    let mut resp = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\n"),
        &COUNT_BODY,
        5,
    );
    resp.truncate(resp.len() - 20);
    // The responder writes the head and the first chunks, then stalls for 2 s.
    let split = find(&resp, b"\r\n\r\n").unwrap() + 4 + 10;
    let (url, _server) = serve_once(resp, split, Duration::from_secs(2)).await;
    let client = Client::builder(&url)
        .read_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let mut raw = client.request("x").send_raw().await.unwrap();
    let e = read_all(&mut raw.body).await.unwrap_err();
    assert_eq!(e.transport_kind(), Some(TransportKind::Timeout), "{e:?}");
}

#[tokio::test]
async fn connection_refused_is_a_connect_error() {
    // Bind then drop to get a port nobody listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let client = Client::new(format!("http://127.0.0.1:{port}/gremlin")).unwrap();
    let e = client.request("g.V()").send_raw().await.unwrap_err();
    assert_eq!(e.transport_kind(), Some(TransportKind::Connect), "{e:?}");
    assert!(std::error::Error::source(&e).is_some());
}

#[tokio::test]
async fn tls_handshake_failure_is_a_tls_error() {
    // A plain-HTTP speaker behind an https:// URL: it answers the ClientHello with HTTP text,
    // which is not a TLS record.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://{}/gremlin", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 1024];
        let _ = sock.read(&mut buf).await;
        let _ = sock
            .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            .await;
        let _ = sock.shutdown().await;
    });
    let client = Client::new(&url).unwrap();
    let e = client.request("g.V()").send_raw().await.unwrap_err();
    assert_eq!(e.transport_kind(), Some(TransportKind::Tls), "{e:?}");
}

#[tokio::test]
async fn bytes_after_the_zlib_stream_are_a_decompress_error() {
    let mut body = zlib(&COUNT_BODY);
    body.extend_from_slice(b"junk");
    assert_decompress_error(&body).await;
}

/// A TLS responder for `localhost` with a fresh self-signed certificate: answers the first
/// request of each connection with the `g.V().count()` response. Returns the URL and the certificate's PEM.
async fn serve_tls_once() -> (String, String) {
    let server = tls::serve_tls(|tls| async move {
        let Ok(mut tls) = tls else {
            return; // the client rejected the certificate
        };
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        while find(&req, b"\r\n\r\n").is_none() {
            let n = tls.read(&mut buf).await.unwrap();
            if n == 0 {
                return;
            }
            req.extend_from_slice(&buf[..n]);
        }
        let resp = chunked_response(
            &format!("Content-Type: {GRAPHBINARY_MIME}\r\n"),
            &COUNT_BODY,
            8,
        );
        tls.write_all(&resp).await.unwrap();
        tls.shutdown().await.unwrap();
    })
    .await;
    (server.url("https"), server.pem)
}

#[tokio::test]
async fn tls_with_a_trusted_root_reads_the_body() {
    let (url, pem) = serve_tls_once().await;
    let client = Client::builder(&url)
        .add_root_certificate_pem(pem)
        .build()
        .unwrap();
    let mut raw = client.request("g.V().count()").send_raw().await.unwrap();
    assert_eq!(read_all(&mut raw.body).await.unwrap(), COUNT_BODY);
}

#[tokio::test]
async fn tls_with_an_untrusted_certificate_is_a_tls_error() {
    let (url, _pem) = serve_tls_once().await;
    let client = Client::new(&url).unwrap();
    let e = client.request("g.V()").send_raw().await.unwrap_err();
    assert_eq!(e.transport_kind(), Some(TransportKind::Tls), "{e:?}");
}

#[tokio::test]
async fn connection_lost_mid_body_is_a_transport_error_not_a_format_error() {
    use futures::StreamExt;
    // Header, one Int result, then the connection drops inside a declared chunk.
    let mut resp = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {GRAPHBINARY_MIME}\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    .into_bytes();
    resp.extend_from_slice(b"40\r\n");
    resp.extend_from_slice(&[0x84, 0x00, 0x01, 0x00, 0, 0, 0, 42, 0x01]);
    let (url, _server) = serve_once(resp, 10_000, Duration::ZERO).await;
    let client = Client::new(&url).unwrap();
    let mut s = client.submit("x").await.unwrap();
    let first = s.next().await.unwrap().unwrap();
    assert_eq!(first, graphbinary_client::value::Value::Int(42));
    let e = s.next().await.unwrap().unwrap_err();
    assert_body_cut_off(&e);
    assert!(s.next().await.is_none());
}

#[tokio::test]
async fn invalid_graphbinary_is_a_decode_error_with_the_offset() {
    // A valid header and Int, then type code 0x77, which does not exist.
    let body = [0x84, 0x00, 0x01, 0x00, 0, 0, 0, 1, 0x77, 0x00];
    let resp = chunked_response(&format!("Content-Type: {GRAPHBINARY_MIME}\r\n"), &body, 3);
    let (url, _server) = serve_once(resp, 1000, Duration::ZERO).await;
    let client = Client::new(&url).unwrap();
    let e = client.submit("x").await.unwrap().all().await.unwrap_err();
    match e {
        Error::Decode(d) => assert_eq!(d.offset(), 8, "{d}"),
        other => panic!("{other:?}"),
    }
}

/// A body of `n` Int results (0, 1, ...), then the end marker and status 200.
fn ints_body(n: u32) -> Vec<u8> {
    let mut b = vec![0x84, 0x00];
    for i in 0..n {
        b.extend_from_slice(&[0x01, 0x00]);
        b.extend_from_slice(&(i as i32).to_be_bytes());
    }
    b.extend_from_slice(&[0xfd, 0x00, 0x00, 0, 0, 0, 0xc8, 0x01, 0x01]);
    b
}

/// Checks that `values` are Int 0..n in order.
fn assert_ints(values: &[graphbinary_client::value::Value], n: u32) {
    assert_eq!(values.len(), n as usize);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(
            *v,
            graphbinary_client::value::Value::Int(i as i32),
            "result {i}"
        );
    }
}

// A body of several MB in 8 KB chunks: past the first 64 KiB the frames are read ahead by the
// client's fetcher task (`transport/http/body.rs`, `Prefetch`), which stops at 1 MiB queued and is
// woken again below 256 KiB; every result arrives, in order, on either runtime flavour.
async fn large_body_arrives_whole(zlib_on: bool) {
    let n = 700_000; // 4.2 MB
    let body = ints_body(n);
    let (headers, payload) = if zlib_on {
        (
            format!("Content-Type: {GRAPHBINARY_MIME}\r\nContent-Encoding: deflate\r\n"),
            zlib(&body),
        )
    } else {
        (format!("Content-Type: {GRAPHBINARY_MIME}\r\n"), body)
    };
    let resp = chunked_response(&headers, &payload, 8 * 1024);
    let (url, _server) = serve_once(resp, 1 << 20, Duration::ZERO).await;
    let client = Client::new(&url).unwrap();
    let s = client.submit("x").await.unwrap();
    let counters = s.counters();
    let all = s.all().await.unwrap();
    assert_ints(&all, n);
    assert_eq!(counters.body_bytes(), 6 * n as u64 + 11);
}

#[tokio::test]
async fn large_body_arrives_whole_current_thread() {
    large_body_arrives_whole(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_body_arrives_whole_multi_thread() {
    large_body_arrives_whole(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_zlib_body_arrives_whole_multi_thread() {
    large_body_arrives_whole(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_lost_deep_in_a_large_body_is_a_transport_error_after_the_results_before_it() {
    use futures::StreamExt;
    // 300,000 results (1.8 MB) in 8 KB chunks, then the connection drops inside a chunk: the
    // error surfaces after every result before it, through the fetcher task.
    let body = ints_body(300_000);
    let cut = 2 + 6 * 250_000;
    let mut resp = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\n"),
        &body[..cut],
        8 * 1024,
    );
    // Drop the terminating chunk and trailers, and declare a chunk that never comes.
    resp.truncate(resp.len() - b"0\r\ncode: 200\r\n\r\n".len());
    resp.extend_from_slice(b"2000\r\n\x01\x00");
    let (url, _server) = serve_once(resp, 1 << 20, Duration::ZERO).await;
    let client = Client::new(&url).unwrap();
    let mut s = client.submit("x").await.unwrap();
    let mut got = 0i32;
    let e = loop {
        match s.next().await.unwrap() {
            Ok(v) => {
                assert_eq!(v, graphbinary_client::value::Value::Int(got));
                got += 1;
            }
            Err(e) => break e,
        }
    };
    assert_eq!(got, 250_000, "every result before the cut");
    assert_body_cut_off(&e);
    assert!(s.next().await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_timeout_deep_in_a_large_body_is_a_timeout() {
    // 1 MB at once, then the server stalls: the read timeout fires in the fetcher task and
    // comes out as a timeout after the results before it.
    let body = ints_body(300_000);
    let mut resp = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\n"),
        &body,
        8 * 1024,
    );
    resp.truncate(1_000_000);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/gremlin", listener.local_addr().unwrap());
    let _server = tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 4096];
        let _ = sock.read(&mut buf).await;
        sock.write_all(&resp).await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    let client = Client::builder(&url)
        .read_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let e = client.submit("x").await.unwrap().all().await.unwrap_err();
    assert!(e.is_timeout(), "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_large_response_midway_closes_its_connection_and_frees_the_slot() {
    use futures::StreamExt;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    // A pool of one. The first response (16 MB, more than the fetcher's queue and the socket
    // buffers hold) is dropped after a few results, with the fetcher running: its connection
    // must be closed (never reused half-read) and the slot freed, so the second request gets
    // its answer on a second connection.
    let big = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\n"),
        &ints_body(2_700_000),
        8 * 1024,
    );
    let small = chunked_response(
        &format!("Content-Type: {GRAPHBINARY_MIME}\r\n"),
        &COUNT_BODY,
        64,
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/gremlin", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let acc = accepted.clone();
    tokio::spawn(async move {
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            let nth = acc.fetch_add(1, Ordering::SeqCst);
            let resp = if nth == 0 { big.clone() } else { small.clone() };
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                loop {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) if find(&buf, b"\r\n\r\n").is_some() => break,
                        Ok(_) => {}
                    }
                }
                let _ = sock.write_all(&resp).await;
                // Keep the connection open (keep-alive) until the client closes it.
                while matches!(sock.read(&mut buf).await, Ok(n) if n > 0) {}
            });
        }
    });
    let client = Client::builder(&url).pool_size(1).build().unwrap();
    let mut s = client.submit("x").await.unwrap();
    for i in 0..20_000 {
        assert_eq!(
            s.next().await.unwrap().unwrap(),
            graphbinary_client::value::Value::Int(i)
        );
    }
    assert!(
        s.counters().wire_bytes() > 64 * 1024,
        "the fetcher has started"
    );
    drop(s);
    let n: i64 = tokio::time::timeout(Duration::from_secs(10), async {
        client.submit("x").await.unwrap().one().await.unwrap()
    })
    .await
    .expect("the slot was freed");
    assert_eq!(n, 6);
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        2,
        "a new connection, not the half-read one"
    );
}
