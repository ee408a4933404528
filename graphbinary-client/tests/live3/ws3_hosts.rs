//! Several `ws://` hosts against REAL TinkerPop 3 servers: round-robin, a refusing host moved
//! past and taken out of the rotation, a killed host routed around and taken back once it
//! serves again, a request in flight on a killed host failing typed unless it is idempotent
//! (then it is retried on the other host).
//!
//! Each host is a [`Host`]: a plain TCP forwarder of ours on its own port in front of a real
//! server (`GREMLIN_WS_URL_373`, and `GREMLIN_WS_URL_381` when set, else 3.7.3 again), which
//! the test can kill as a crash would (its listener and every connection dropped at once) and
//! bring back on the same port. The run with real processes killed (SIGKILL) is
//! `cargo xtask cluster chaos`, on JanusGraph Servers over Cassandra.
//!
//! ```sh
//! cargo xtask server3 --tinkerpop 3.7.3 --port 8250 --detach
//! GREMLIN_WS_URL_373=ws://127.0.0.1:8250/gremlin cargo test -p graphbinary-client --test ws3_hosts
//! ```

use graphbinary_testkit::rotation;
use graphbinary_testkit::servers3;
use graphbinary_testkit::upstream;

use rotation::{assert_the_refusing_host_left_the_rotation, dead_port};

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use graphbinary_client::client::{Client, ClientBuilder, Error, RetryPolicy, TransportKind};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

/// A forwarder to a real server that can be killed and revived on its port.
struct Host {
    port: u16,
    upstream: SocketAddr,
    path: String,
    /// The listener's task and every connection's, while alive.
    tasks: Arc<Mutex<Vec<AbortHandle>>>,
    /// Connections accepted, over every life.
    accepted: Arc<AtomicUsize>,
}

impl Host {
    async fn start(url: &str) -> Host {
        let (upstream, path) = upstream::upstream(url).await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let host = Host {
            port: listener.local_addr().unwrap().port(),
            upstream,
            path,
            tasks: Arc::default(),
            accepted: Arc::default(),
        };
        host.serve(listener);
        host
    }

    fn serve(&self, listener: TcpListener) {
        let (tasks, accepted, upstream) =
            (self.tasks.clone(), self.accepted.clone(), self.upstream);
        let handle = tokio::spawn({
            let tasks = tasks.clone();
            async move {
                while let Ok((mut client, _)) = listener.accept().await {
                    accepted.fetch_add(1, Ordering::SeqCst);
                    let conn = tokio::spawn(async move {
                        if let Ok(mut server) = TcpStream::connect(upstream).await {
                            let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                        }
                    });
                    tasks.lock().unwrap().push(conn.abort_handle());
                }
            }
        });
        tasks.lock().unwrap().push(handle.abort_handle());
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}{}", self.port, self.path)
    }

    /// Drops the listener and every connection at once: the port refuses, the client's open
    /// connections see their end.
    async fn kill(&self) {
        for t in self.tasks.lock().unwrap().drain(..) {
            t.abort();
        }
        // The aborted tasks drop their sockets when the runtime next polls them.
        for _ in 0..100 {
            if TcpStream::connect(("127.0.0.1", self.port)).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("port {} still accepts after the kill", self.port);
    }

    /// Listens on the same port again.
    async fn revive(&self) {
        for _ in 0..200 {
            if let Ok(l) = TcpListener::bind(("127.0.0.1", self.port)).await {
                self.serve(l);
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("cannot listen on port {} again", self.port);
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

/// The real servers: 3.7.3, and 3.8.1 when set (else 3.7.3 again); `None` when 3.7.3 is unset.
fn upstreams(test: &str) -> Option<(String, String)> {
    let a = servers3::one(test, "GREMLIN_WS_URL_373", "TinkerPop 3.7.3 server")?;
    let b = std::env::var("GREMLIN_WS_URL_381").unwrap_or_else(|_| a.clone());
    Some((a, b))
}

fn builder(urls: &[String]) -> ClientBuilder {
    let mut b = Client::builder(&urls[0]);
    for u in &urls[1..] {
        b = b.add_host(u);
    }
    b.connect_timeout(Duration::from_secs(2))
        .request_timeout(Duration::from_secs(20))
}

async fn count(client: &Client, idempotent: bool) -> Result<i64, Error> {
    client
        .request("g.V().count()")
        .idempotent(idempotent)
        .await?
        .one()
        .await
}

#[tokio::test]
async fn ws_requests_go_round_robin_and_skip_a_refusing_host() {
    let Some((a, b)) = upstreams("ws_requests_go_round_robin_and_skip_a_refusing_host") else {
        return;
    };
    let (a, b) = (Host::start(&a).await, Host::start(&b).await);
    let dead = format!("ws://127.0.0.1:{}/gremlin", dead_port().await);
    let client = builder(&[a.url(), dead, b.url()])
        .host_retry_backoff(Duration::from_secs(60))
        .build()
        .unwrap();
    assert!(client.is_tinkerpop3());
    for i in 0..30 {
        let n = count(&client, false)
            .await
            .unwrap_or_else(|e| panic!("request {i}: {e:?}"));
        assert_eq!(n, 6, "every request succeeds although one host refuses");
    }
    assert_the_refusing_host_left_the_rotation(&client.hosts());
    assert!(a.accepted() >= 1 && b.accepted() >= 1);
    // A session of a client with a dead first host in the rotation: on a live host.
    let c2 = builder(&[
        format!("ws://127.0.0.1:{}/gremlin", dead_port().await),
        a.url(),
    ])
    .build()
    .unwrap();
    let session = c2.session().await.expect("a session on the live host");
    assert_eq!(session.host(), a.url());
    session.close().await.unwrap();
}

#[tokio::test]
async fn ws_a_killed_host_is_routed_around_and_taken_back_when_it_serves_again() {
    let Some((a, b)) =
        upstreams("ws_a_killed_host_is_routed_around_and_taken_back_when_it_serves_again")
    else {
        return;
    };
    let (a, b) = (Host::start(&a).await, Host::start(&b).await);
    let client = builder(&[a.url(), b.url()])
        .host_retry_backoff(Duration::from_millis(200))
        .host_retry_backoff_max(Duration::from_millis(400))
        .pool_size(4)
        .build()
        .unwrap();
    for _ in 0..20 {
        assert_eq!(count(&client, true).await.unwrap(), 6);
    }
    let warm = client.hosts();
    assert!(warm.iter().all(|h| h.requests >= 8), "{warm:?}");
    a.kill().await;
    // 40 reads at once, then 20 writes-like requests (not idempotent) one after the other: a
    // read on a connection that died is retried on the other host; a request that cannot
    // connect sent nothing and moves on, idempotent or not.
    let reads = futures::future::join_all((0..40).map(|_| count(&client, true))).await;
    for r in reads {
        assert_eq!(r.expect("an idempotent read while a host is dead"), 6);
    }
    for i in 0..20 {
        let n = count(&client, false)
            .await
            .unwrap_or_else(|e| panic!("request {i} after the kill: {e:?}"));
        assert_eq!(n, 6);
    }
    let down = client.hosts();
    assert!(
        !down[0].available || down[0].consecutive_failures > 0,
        "the killed host is marked down: {down:?}"
    );
    let accepted_before = a.accepted();
    a.revive().await;
    let revived = tokio::time::Instant::now();
    loop {
        assert_eq!(count(&client, false).await.unwrap(), 6);
        let h = &client.hosts()[0];
        if h.available && h.consecutive_failures == 0 && a.accepted() > accepted_before {
            break;
        }
        assert!(
            revived.elapsed() < Duration::from_secs(10),
            "the revived host is never taken back: {:?}",
            client.hosts()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = client.hosts()[0].requests;
    for _ in 0..10 {
        assert_eq!(count(&client, false).await.unwrap(), 6);
    }
    assert!(
        client.hosts()[0].requests >= before + 4,
        "the revived host is back in the round-robin: {:?}",
        client.hosts()
    );
}

/// A slow read: the kill lands while it is in flight.
const SLOW: &str = "Thread.sleep(1500); g.V().count()";

#[tokio::test]
async fn ws_a_request_in_flight_on_a_killed_host_fails_unless_idempotent() {
    let Some((a, b)) = upstreams("ws_a_request_in_flight_on_a_killed_host_fails_unless_idempotent")
    else {
        return;
    };
    for idempotent in [false, true] {
        let (a, b) = (Host::start(&a).await, Host::start(&b).await);
        let client = builder(&[a.url(), b.url()])
            .retry_policy(RetryPolicy::default().max_attempts(3))
            .build()
            .unwrap();
        // The rotation starts at the first host: the one killed.
        let sent = {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .request(SLOW)
                    .idempotent(idempotent)
                    .await?
                    .one::<i64>()
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(a.accepted(), 1, "the request went to the first host");
        a.kill().await;
        let res = sent.await.unwrap();
        if idempotent {
            assert_eq!(res.expect("retried on the other host"), 6);
            assert!(client.retries() >= 1);
            assert!(b.accepted() >= 1, "the retry went to the other host");
        } else {
            let e = res.expect_err("a request cut off after it was sent fails");
            assert_eq!(
                e.transport_kind(),
                Some(TransportKind::Io),
                "the connection closed: {e:?}"
            );
            assert_eq!(b.accepted(), 0, "it was not sent again to the other host");
            assert_eq!(client.retries(), 0);
        }
    }
}
