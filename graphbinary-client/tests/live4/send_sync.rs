//! The client's types can live in a spawned task: `Client`, `ClientBuilder`, `Transaction`,
//! `Error`, `ServerError` and `Value` are `Send + Sync + 'static`, `ResultStream` is `Send +
//! 'static` (checked at compile time: this file does not build if one stops being; see
//! [`assert_send_static`] for why the stream is not `Sync` yet), the futures of `submit`,
//! `send` and `transaction` are `Send`, and at run time a task spawned on a multi-threaded
//! runtime holds a `Client` and a `ResultStream` and hands them on.
//!
//! The failing connection needs no server (`127.0.0.1:1`: nothing listens on port 1); the
//! task that reads a `ResultStream` runs against the Gremlin Server with the modern graph
//! (env `GREMLIN_URL`) and is skipped, with a notice, when none answers.

use graphbinary_testkit::gremlin_server;

use std::time::{Duration, Instant};

use graphbinary_client::client::{RequestBuilder, Transaction, TransportKind, TraverserStream};
use graphbinary_client::{Client, ClientBuilder, Error, ResultStream, ServerError, Value};

/// Compiles only for types a spawned task can own and share.
fn assert_send_sync_static<T: Send + Sync + 'static>() {}

/// Compiles only for types a spawned task can own. The result streams are `Send` but not
/// `Sync` today: the pending read inside is a `Pin<Box<dyn Future + Send>>` and the HTTP body a
/// `dyn Stream + Send`, neither `Sync`. A task owning the stream needs only `Send`; `Sync`
/// would add sharing `&ResultStream` across threads, for its `&self` accessors
/// (`http_status`, `request_id`...) only: every method that reads results takes `&mut self`
/// or `self`.
fn assert_send_static<T: Send + 'static>() {}

/// Compiles only for futures `tokio::spawn` accepts.
fn assert_send<T: Send>(_: &T) {}

// Evaluated at compile time: a type that stops being `Send + Sync + 'static` fails the build,
// not a test.
const _: () = {
    let _ = assert_send_sync_static::<Client>;
    let _ = assert_send_sync_static::<ClientBuilder>;
    let _ = assert_send_static::<ResultStream>;
    let _ = assert_send_static::<TraverserStream>;
    let _ = assert_send_sync_static::<RequestBuilder>;
    let _ = assert_send_sync_static::<Transaction>;
    let _ = assert_send_sync_static::<Error>;
    let _ = assert_send_sync_static::<ServerError>;
    let _ = assert_send_sync_static::<Value>;
};

#[test]
fn client_types_are_send_sync_static() {
    assert_send_sync_static::<Client>();
    assert_send_sync_static::<ClientBuilder>();
    assert_send_static::<ResultStream>();
    assert_send_sync_static::<Transaction>();
    assert_send_sync_static::<Error>();
    assert_send_sync_static::<ServerError>();
    assert_send_sync_static::<Value>();
    // And the error can be boxed as the usual `Box<dyn Error + Send + Sync>`.
    let boxed: Box<dyn std::error::Error + Send + Sync + 'static> = Box::new(Error::NoResult);
    assert!(boxed.to_string().contains("no result"), "{boxed}");
}

/// The futures a user spawns are `Send` (built, never polled: no server needed).
#[test]
fn request_futures_are_send() {
    let client = Client::new("http://127.0.0.1:1/gremlin").expect("client");
    let submit = client.submit("g.V()");
    assert_send(&submit);
    let send = client.request("g.V()").param("x", 1).send();
    assert_send(&send);
    let tx = client.transaction();
    assert_send(&tx);
    let ws = Client::new("ws://127.0.0.1:1/gremlin").expect("ws client");
    let submit_ws = ws.submit("g.V()");
    assert_send(&submit_ws);
}

/// A client whose server refuses connections, moved into a spawned task: the request fails
/// there with a connect error (no panic, no retry storm), for HTTP and for WebSocket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spawned_task_owns_a_client_and_gets_a_connect_error() {
    for url in ["http://127.0.0.1:1/gremlin", "ws://127.0.0.1:1/gremlin"] {
        let client = Client::builder(url)
            .connect_timeout(Duration::from_secs(5))
            .build()
            .expect("client");
        let started = Instant::now();
        let handle = tokio::spawn(async move {
            let result: Result<ResultStream, Error> = client.submit("g.V().count()").await;
            // The client is still usable (and still owned) by the task after the failure.
            assert!(
                !client.is_closed(),
                "{url}: client closed by a failed request"
            );
            result
        });
        let err = match handle.await.expect("the task does not panic") {
            Ok(_) => panic!("{url}: a result stream from a port nothing listens on"),
            Err(e) => e,
        };
        assert_eq!(
            err.transport_kind(),
            Some(TransportKind::Connect),
            "{url}: expected a connect error, got {err:?}"
        );
        assert_eq!(err.kind().as_str(), "transport", "{url}: {err}");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{url}: a refused connection took {:?}",
            started.elapsed()
        );
    }
}

/// A `ResultStream` made in one spawned task and read in another, on another worker thread
/// maybe: 6 vertices of the modern graph.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_stream_moves_between_spawned_tasks() {
    let client = graphbinary_testkit::or_skip!(
        gremlin_server::client("send_sync::result_stream_moves_between_spawned_tasks").await
    );
    let producer = tokio::spawn(async move {
        let stream = client.submit("g.V()").await?;
        Ok::<_, Error>((client, stream))
    });
    let (client, stream) = producer.await.expect("producer task").expect("submit");
    let consumer = tokio::spawn(async move {
        let values = stream.all().await?;
        // The client went along too, and still answers.
        let count: i64 = client.submit("g.V().count()").await?.one().await?;
        Ok::<_, Error>((values, count))
    });
    let (values, count) = consumer.await.expect("consumer task").expect("results");
    assert_eq!(values.len(), 6, "{values:?}");
    assert!(
        values.iter().all(|v| matches!(v, Value::Vertex(_))),
        "{values:?}"
    );
    assert_eq!(count, 6);
}
