//! End-to-end: dropping a result stream mid-response cancels the request without leaking a
//! task or poisoning a pooled connection.

use graphbinary_testkit::gremlin_server;
use gremlin_server as common;

use std::time::Duration;

use futures::StreamExt;
use graphbinary_client::client::Client;
use graphbinary_client::value::Value;

const NAMES: [&str; 6] = ["marko", "vadas", "lop", "josh", "ripple", "peter"];

async fn drop_mid_stream_then_reuse(pool: usize) {
    let client = common::builder().pool_size(pool).build().unwrap();
    for round in 0..3 {
        let mut s = client
            .request("g.V().repeat(both()).times(12)")
            .batch_size(64)
            .send()
            .await
            .unwrap();
        for i in 0..10 {
            let t = s
                .next()
                .await
                .unwrap_or_else(|| panic!("round {round}: stream ended after {i}"))
                .unwrap();
            assert!(matches!(t, Value::Vertex(_)), "{t:?}");
        }
        assert_eq!(s.results(), 10);
        drop(s);
    }
    for i in 0..20 {
        if i % 2 == 0 {
            let id = (i / 2 % 6) as i64 + 1;
            let name: String = client
                .request("g.V(x).values('name')")
                .param("x", id)
                .send()
                .await
                .unwrap_or_else(|e| panic!("query {i}: {e:?}"))
                .one()
                .await
                .unwrap_or_else(|e| panic!("query {i}: {e:?}"));
            assert_eq!(name, NAMES[id as usize - 1], "query {i}");
        } else {
            let n: i64 = client
                .submit("g.V().repeat(both()).times(12).count()")
                .await
                .unwrap_or_else(|e| panic!("query {i}: {e:?}"))
                .one()
                .await
                .unwrap_or_else(|e| panic!("query {i}: {e:?}"));
            assert_eq!(n, 200_766, "query {i}");
        }
    }
    // Nothing is left running but the pool: its idle connections (one task each, at most
    // `pool`) and the HTTP library's idle-connection reaper.
    let metrics = tokio::runtime::Handle::current().metrics();
    let alive = settle(|| metrics.num_alive_tasks() <= pool + 1).await;
    assert!(
        alive,
        "{} tasks alive with a pool of {pool}",
        metrics.num_alive_tasks()
    );
    // Once the client is gone, nothing at all: no task outlived a cancelled response.
    drop(client);
    let alive = settle(|| metrics.num_alive_tasks() == 0).await;
    assert!(
        alive,
        "{} tasks alive after dropping the client",
        metrics.num_alive_tasks()
    );
}

/// Waits up to 2 s for `done`.
async fn settle(done: impl Fn() -> bool) -> bool {
    for _ in 0..100 {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

#[tokio::test]
async fn drop_mid_stream_pool_of_one() {
    if !common::server_available("drop_mid_stream_pool_of_one").await {
        return;
    }
    drop_mid_stream_then_reuse(1).await;
}

#[tokio::test]
async fn drop_mid_stream_default_pool() {
    if !common::server_available("drop_mid_stream_default_pool").await {
        return;
    }
    drop_mid_stream_then_reuse(graphbinary_client::client::DEFAULT_POOL_SIZE).await;
}

#[tokio::test]
async fn pool_of_one_serialises_concurrent_requests() {
    if !common::server_available("pool_of_one_serialises").await {
        return;
    }
    let client: Client = common::builder().pool_size(1).build().unwrap();
    // Ten concurrent requests over one connection slot all complete.
    let futs = (0..10).map(|i| {
        let c = client.clone();
        async move {
            c.request("g.V(x).values('age')")
                .param("x", [1i64, 2, 4, 6][i % 4])
                .send()
                .await?
                .one::<i32>()
                .await
        }
    });
    let got: Vec<i32> = futures::future::join_all(futs)
        .await
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    let ages = [29, 27, 32, 35];
    assert_eq!(got, (0..10).map(|i| ages[i % 4]).collect::<Vec<i32>>());
}

/// The connection slot is freed at the end of the body, not when the response is dropped: with
/// a pool of one, a second request goes through while the first, read to its end, is still
/// held. (Before issue 13 the slot was held until the body reader was dropped.)
#[tokio::test]
async fn the_slot_is_freed_at_the_end_of_the_body() {
    if !common::server_available("the_slot_is_freed_at_the_end_of_the_body").await {
        return;
    }
    for compression in [false, true] {
        let client = common::builder()
            .pool_size(1)
            .compression(compression)
            .build()
            .unwrap();
        let mut first = client.request("g.V()").send_raw().await.unwrap();
        let mut bytes = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut first.body, &mut bytes)
            .await
            .unwrap();
        assert!(bytes.ends_with(&[0, 0, 0, 0xc8, 1, 1]), "{bytes:?}");
        let second = tokio::time::timeout(Duration::from_secs(20), async {
            client.submit("g.V().count()").await?.one::<i64>().await
        })
        .await
        .unwrap_or_else(|_| panic!("compression {compression}: the slot was still held"))
        .unwrap();
        assert_eq!(second, 6);
        drop(first);
    }
}
