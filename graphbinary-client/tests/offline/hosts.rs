//! Several hosts on loopback responders: round-robin, a refusing host moved past and taken out
//! of the rotation, a request already sent never retried elsewhere. (The run over three real
//! Gremlin Servers, one stopped and restarted, is `cargo xtask failover`.)

use graphbinary_testkit::capture;
use graphbinary_testkit::results;
use graphbinary_testkit::rotation;

use std::time::Duration;

use graphbinary_client::client::{Client, TransportKind};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

use capture::Responder;
use results::{one_as, Sent};
use rotation::{assert_the_refusing_host_left_the_rotation, dead_port};

#[tokio::test]
async fn requests_go_round_robin_and_skip_a_refusing_host() {
    let (a, b) = (Responder::start().await, Responder::start().await);
    let dead = format!("http://127.0.0.1:{}/gremlin", dead_port().await);
    let client = Client::builder(&a.url)
        .add_host(&dead)
        .add_host(&b.url)
        .host_retry_backoff(Duration::from_secs(60))
        .build()
        .unwrap();
    for _ in 0..30 {
        let n: i64 = one_as(client.submit("g.V().count()")).await;
        assert_eq!(n, 6, "every request succeeds although one host refuses");
    }
    let hosts = client.hosts();
    assert_the_refusing_host_left_the_rotation(&hosts);
    // And on the servers' side: the 30 requests, each received once.
    assert_eq!(a.captured().len() + b.captured().len(), 30);
    assert!(
        a.captured().len() >= 14 && b.captured().len() >= 14,
        "{hosts:?}"
    );
}

#[tokio::test]
async fn a_failed_host_is_probed_again_after_its_backoff() {
    let a = Responder::start().await;
    // A port that refuses now and serves later.
    let probe = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = probe.local_addr().unwrap().port();
    drop(probe);
    let client = Client::builder(&a.url)
        .add_host(format!("http://127.0.0.1:{port}/gremlin"))
        .host_retry_backoff(Duration::from_millis(200))
        .build()
        .unwrap();
    for _ in 0..4 {
        client.submit("g.V().count()").expect_count().await;
    }
    assert!(!client.hosts()[1].available);
    // Bring the host up on that port: the next request after the backoff reaches it.
    let b = Responder::start_on(port).await;
    tokio::time::sleep(Duration::from_millis(450)).await;
    for _ in 0..4 {
        client.submit("g.V().count()").expect_count().await;
    }
    assert!(client.hosts()[1].available, "{:?}", client.hosts());
    assert!(!b.captured().is_empty(), "the revived host got no request");
}

#[tokio::test]
async fn a_request_sent_to_a_host_that_dies_fails_and_is_not_retried() {
    let good = Responder::start().await;
    // Accepts, reads the request, then closes the connection without an answer.
    let dying = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = dying.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        for _ in 0..10 {
            let Ok((mut s, _)) = dying.accept().await else {
                return;
            };
            let mut buf = [0u8; 4096];
            let _ = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await;
            drop(s);
        }
    });
    let client = Client::builder(format!("http://127.0.0.1:{port}/gremlin"))
        .add_host(&good.url)
        .build()
        .unwrap();
    // Round-robin starts at the first host: the dying one.
    let e = client.submit("g.V().count()").await.unwrap_err();
    assert!(
        matches!(
            e.transport_kind(),
            Some(TransportKind::Io | TransportKind::Http)
        ),
        "{e:?}"
    );
    assert!(
        good.captured().is_empty(),
        "the request was retried on another host"
    );
    assert!(!client.hosts()[0].available);
    // The next request goes to the healthy host.
    client.submit("g.V().count()").expect_count().await;
    assert_eq!(good.captured().len(), 1);
    task.abort();
}
