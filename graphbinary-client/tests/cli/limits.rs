//! End-to-end: a limit of the client's own is an error of its own kind ([`Error::Limit`]),
//! naming the limit, the size seen, the maximum and what raises it, never a failure of the
//! server or the connection. Against the real TinkerPop 3.7.3 (`GREMLIN_WS_URL_373`) and
//! the TinkerPop 4 server over HTTP (`GREMLIN_URL`), and through the `graphbinary` tool.

use crate::bin;
use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::servers3;

use graphbinary_client::client::{Client, ClientBuilder, Error, Limit};

/// A 100,000-character String, built on the server (gremlin-groovy).
const BIG_STRING: &str = "'x' * 100000";

async fn first_error(client: &Client, gremlin: &str) -> Error {
    match client.submit(gremlin).await {
        Ok(s) => s
            .all()
            .await
            .expect_err("the limit should have stopped the response"),
        Err(e) => e,
    }
}

/// The size `e` saw, checking that it is the client's own `limit` at `max`.
fn seen(e: &Error, limit: Limit, max: u64) -> u64 {
    match e {
        Error::Limit {
            limit: l,
            seen,
            max: m,
        } if *l == limit && *m == max => *seen,
        other => panic!("expected the {limit:?} limit at {max}: {other:?}"),
    }
}

/// The one result of `gremlin`, which must be read without error.
async fn one<T>(client: &Client, gremlin: &str) -> T
where
    T: TryFrom<graphbinary_client::Value>,
    T::Error: std::fmt::Display + 'static,
{
    client.submit(gremlin).await.unwrap().one().await.unwrap()
}

fn ws_url(test: &str) -> Option<String> {
    servers3::one(test, "GREMLIN_WS_URL_373", "TinkerPop 3.7.3")
}

fn ws(url: &str) -> ClientBuilder {
    Client::builder(url)
}

#[tokio::test]
async fn a_websocket_message_over_max_message_size_names_the_limit_not_the_server() {
    let url = graphbinary_testkit::or_skip!(ws_url(
        "a_websocket_message_over_max_message_size_names_the_limit"
    ));
    let client = ws(&url).max_message_size(10_000).build().unwrap();
    let e = first_error(&client, BIG_STRING).await;
    let n = seen(&e, Limit::MessageSize, 10_000);
    assert!(n > 100_000, "{n}");
    assert_eq!(e.kind(), graphbinary_client::client::ErrorKind::Limit);
    let text = e.to_string();
    for part in [
        "10000",
        "ClientBuilder::max_message_size",
        "--max-message-size",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    assert!(!text.contains("talking to the server"), "{text}");
    assert!(std::error::Error::source(&e).is_none());
    // The client goes on: a new connection replaces the one the message closed.
    assert_eq!(one::<i64>(&client, "g.V().count()").await, 6);
    // Raised, the same answer is read whole.
    let client = ws(&url).max_message_size(1 << 20).build().unwrap();
    assert_eq!(one::<String>(&client, BIG_STRING).await.len(), 100_000);
}

#[tokio::test]
async fn websocket_decode_limits_name_their_option() {
    let url = graphbinary_testkit::or_skip!(ws_url("websocket_decode_limits_name_their_option"));
    let client = ws(&url).max_bytes_len(1000).build().unwrap();
    let e = first_error(&client, BIG_STRING).await;
    assert_eq!(seen(&e, Limit::BytesLength, 1000), 100_000);
    let client = ws(&url).max_collection_len(3).build().unwrap();
    let e = first_error(&client, "g.V().fold()").await;
    assert_eq!(seen(&e, Limit::CollectionLength, 3), 6);
    assert!(e.to_string().contains("--max-collection-len"), "{e}");
    // The sum of a request's messages: one result a message, each under 200 bytes, over 200
    // bytes in all.
    let client = ws(&url).max_response_size(200).build().unwrap();
    let e = match client.request("g.V().values('name')").batch_size(1).await {
        Ok(s) => s.all().await.expect_err("over max_response_size"),
        Err(e) => e,
    };
    let n = seen(&e, Limit::ResponseSize, 200);
    assert!(n > 200, "{n}");
}

#[tokio::test]
async fn http_decode_limits_name_their_option() {
    if !gremlin_server::server_available("http_decode_limits_name_their_option").await {
        return;
    }
    let client = gremlin_server::builder()
        .max_collection_len(3)
        .build()
        .unwrap();
    let e = first_error(&client, "g.V().fold()").await;
    assert_eq!(seen(&e, Limit::CollectionLength, 3), 6);
    let text = e.to_string();
    assert!(text.contains("ClientBuilder::max_collection_len"), "{e}");
    let client = gremlin_server::builder().max_depth(2).build().unwrap();
    let e = first_error(&client, "g.inject(1).fold().fold().fold()").await;
    assert_eq!(seen(&e, Limit::Depth, 2), 3);
    let client = gremlin_server::builder()
        .compression(false)
        .max_response_size(100)
        .build()
        .unwrap();
    let e = first_error(&client, "g.V().valueMap()").await;
    let n = seen(&e, Limit::ResponseSize, 100);
    assert!(n > 100, "{n}");
    // Within the limits, the same client reads.
    assert_eq!(one::<i64>(&client, "g.V().count()").await, 6);
}

#[test]
fn the_cli_names_and_takes_the_flag() {
    let url = graphbinary_testkit::or_skip!(ws_url("the_cli_names_and_takes_the_flag"));
    let out = bin::run(
        &[
            "query",
            "--url",
            &url,
            "--max-message-size",
            "10KiB",
            BIG_STRING,
        ],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("--max-message-size"), "{err}");
    assert!(err.contains("10240"), "{err}");
    assert!(!err.contains("talking to the server"), "{err}");
    let out = bin::run(
        &[
            "query",
            "--url",
            &url,
            "--format",
            "count",
            "--max-message-size",
            "1MiB",
            BIG_STRING,
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
