//! Connection options on loopback responders: proxy (absolute-form requests for http://,
//! CONNECT for https://), per-request and client-wide timeouts, the response header size
//! limit, and the `Gremlin-RequestId` on results.

use graphbinary_testkit::capture;
use graphbinary_testkit::results;

use std::time::{Duration, Instant};

use graphbinary_client::client::{Client, Error};
use tokio::net::TcpListener;

use capture::Responder;
use results::{one_as, Sent};

#[tokio::test]
async fn an_http_proxy_gets_the_request_in_absolute_form_with_its_credentials() {
    let proxy = Responder::start().await;
    // Nothing listens on the server's port: only the proxy can answer.
    let client = Client::builder("http://127.0.0.1:9/gremlin")
        .proxy(format!("http://alice:secret@127.0.0.1:{}", proxy.port))
        .build()
        .unwrap();
    let n: i64 = one_as(client.submit("g.V().count()")).await;
    assert_eq!(n, 6);
    let got = proxy.captured();
    assert_eq!(
        got[0].request_line,
        "POST http://127.0.0.1:9/gremlin HTTP/1.1"
    );
    assert_eq!(
        got[0].header("proxy-authorization"),
        Some("Basic YWxpY2U6c2VjcmV0")
    );
}

#[tokio::test]
async fn an_https_server_is_reached_through_connect() {
    let proxy = Responder::start().await;
    let client = Client::builder("https://gremlin.example:8182/gremlin")
        .connect_timeout(Duration::from_secs(2))
        .proxy(format!("http://127.0.0.1:{}", proxy.port))
        .build()
        .unwrap();
    // The fake proxy answers CONNECT with a GraphBinary body, not a tunnel: the request fails,
    // but the proxy saw the CONNECT (and no name was resolved: it goes to the proxy as is).
    assert!(client.submit("g.V().count()").await.is_err());
    let got = proxy.captured();
    assert_eq!(got[0].request_line, "CONNECT gremlin.example:8182 HTTP/1.1");
}

#[tokio::test]
async fn a_per_request_timeout_overrides_the_client_one() {
    // Accepts connections (kernel backlog) but never answers.
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/gremlin",
        silent.local_addr().unwrap().port()
    );
    let client = Client::builder(&url)
        .request_timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let t = Instant::now();
    let e = client
        .request("g.V().count()")
        .timeout(Duration::from_millis(300))
        .send()
        .await
        .unwrap_err();
    assert!(e.is_timeout(), "{e:?}");
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(10),
        "{took:?}"
    );
    let quick = Client::builder(&url)
        .request_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let e = quick.submit("g.V().count()").await.unwrap_err();
    assert!(e.is_timeout(), "{e:?}");
    drop(silent);
}

#[tokio::test]
async fn response_headers_over_the_limit_are_refused() {
    let r = Responder::start().await;
    let strict = Client::builder(&r.url)
        .max_response_header_bytes(40)
        .build()
        .unwrap();
    let e = strict.submit("g.V().count()").await.unwrap_err();
    assert!(
        matches!(e, Error::Protocol(ref m) if m.contains("exceed")),
        "{e:?}"
    );
    let roomy = Client::builder(&r.url)
        .max_response_header_bytes(4096)
        .build()
        .unwrap();
    roomy.submit("g.V().count()").expect_count().await;
}

#[tokio::test]
async fn results_carry_the_gremlin_request_id() {
    let r = Responder::start().await;
    let client = Client::new(&r.url).unwrap();
    let results = client.submit("g.V().count()").await.unwrap();
    assert_eq!(
        results.request_id(),
        Some("00000000-0000-0000-0000-000000000001")
    );
}
