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

fn ws_url(test: &str) -> Option<String> {
    servers3::one(test, "GREMLIN_WS_URL_373", "TinkerPop 3.7.3")
}

fn ws(url: &str) -> ClientBuilder {
    Client::builder(url)
}

#[tokio::test]
async fn a_websocket_message_over_max_message_size_names_the_limit_not_the_server() {
    let Some(url) = ws_url("a_websocket_message_over_max_message_size_names_the_limit") else {
        return;
    };
    let client = ws(&url).max_message_size(10_000).build().unwrap();
    let e = first_error(&client, BIG_STRING).await;
    match &e {
        Error::Limit {
            limit: Limit::MessageSize,
            seen,
            max: 10_000,
        } => assert!(*seen > 100_000, "{seen}"),
        other => panic!("{other:?}"),
    }
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
    let n: i64 = client
        .submit("g.V().count()")
        .await
        .unwrap()
        .one()
        .await
        .unwrap();
    assert_eq!(n, 6);
    // Raised, the same answer is read whole.
    let client = ws(&url).max_message_size(1 << 20).build().unwrap();
    let s: String = client
        .submit(BIG_STRING)
        .await
        .unwrap()
        .one()
        .await
        .unwrap();
    assert_eq!(s.len(), 100_000);
}

#[tokio::test]
async fn websocket_decode_limits_name_their_option() {
    let Some(url) = ws_url("websocket_decode_limits_name_their_option") else {
        return;
    };
    let client = ws(&url).max_bytes_len(1000).build().unwrap();
    match first_error(&client, BIG_STRING).await {
        Error::Limit {
            limit: Limit::BytesLength,
            seen: 100_000,
            max: 1000,
        } => {}
        other => panic!("{other:?}"),
    }
    let client = ws(&url).max_collection_len(3).build().unwrap();
    let e = first_error(&client, "g.V().fold()").await;
    match &e {
        Error::Limit {
            limit: Limit::CollectionLength,
            seen: 6,
            max: 3,
        } => assert!(e.to_string().contains("--max-collection-len"), "{e}"),
        other => panic!("{other:?}"),
    }
    // The sum of a request's messages: one result a message, each under 200 bytes, over 200
    // bytes in all.
    let client = ws(&url).max_response_size(200).build().unwrap();
    let e = match client.request("g.V().values('name')").batch_size(1).await {
        Ok(s) => s.all().await.expect_err("over max_response_size"),
        Err(e) => e,
    };
    match e {
        Error::Limit {
            limit: Limit::ResponseSize,
            seen,
            max: 200,
        } => assert!(seen > 200, "{seen}"),
        other => panic!("{other:?}"),
    }
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
    match &e {
        Error::Limit {
            limit: Limit::CollectionLength,
            seen: 6,
            max: 3,
        } => assert!(
            e.to_string().contains("ClientBuilder::max_collection_len"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
    let client = gremlin_server::builder().max_depth(2).build().unwrap();
    match first_error(&client, "g.inject(1).fold().fold().fold()").await {
        Error::Limit {
            limit: Limit::Depth,
            seen: 3,
            max: 2,
        } => {}
        other => panic!("{other:?}"),
    }
    let client = gremlin_server::builder()
        .compression(false)
        .max_response_size(100)
        .build()
        .unwrap();
    match first_error(&client, "g.V().valueMap()").await {
        Error::Limit {
            limit: Limit::ResponseSize,
            seen,
            max: 100,
        } => assert!(seen > 100, "{seen}"),
        other => panic!("{other:?}"),
    }
    // Within the limits, the same client reads.
    let n: i64 = client
        .submit("g.V().count()")
        .await
        .unwrap()
        .one()
        .await
        .unwrap();
    assert_eq!(n, 6);
}

#[test]
fn the_cli_names_and_takes_the_flag() {
    let Some(url) = ws_url("the_cli_names_and_takes_the_flag") else {
        return;
    };
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
