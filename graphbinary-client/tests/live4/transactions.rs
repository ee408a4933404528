//! Transactions over HTTP against a real Gremlin Server with a TinkerTransactionGraph
//! (`cargo xtask server --dataset tx`, idle transaction timeout 5 s) at env `GREMLIN_TX_URL`
//! (default `http://127.0.0.1:8183/gremlin`). Skipped with a notice when it cannot be reached,
//! a failure when env `CI` is set.

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::results;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use graphbinary_client::client::{interceptor_fn, Client, ClientBuilder, Error, Transaction};
use tokio::sync::RwLockReadGuard;

use gremlin_server::TX;
use results::Sent;

/// The test of the server's transaction limit holds this exclusively, the others shared, so
/// that no other test meets the limit while it is reached.
static LIMIT: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// The set-up of every test but the limit's: `None` (the test returns) when the server does
/// not answer, else a client (`builder` given [`TX`]'s builder) and a shared hold on [`LIMIT`].
async fn set_up(
    test: &str,
    builder: impl FnOnce(ClientBuilder) -> ClientBuilder,
) -> Option<(Client, RwLockReadGuard<'static, ()>)> {
    if !TX.available(test).await {
        return None;
    }
    let shared = LIMIT.read().await;
    Some((builder(TX.builder()).build().unwrap(), shared))
}

/// [`set_up`], then a fresh key for the test's vertices and a transaction begun: the client,
/// the hold on [`LIMIT`], the key, the transaction.
async fn begin(
    test: &str,
    builder: impl FnOnce(ClientBuilder) -> ClientBuilder,
) -> Option<(Client, RwLockReadGuard<'static, ()>, String, Transaction)> {
    let (client, shared) = set_up(test, builder).await?;
    let tx = client.transaction().await.unwrap();
    Some((client, shared, key(), tx))
}

/// Checks that `e` is the error of a transaction already `state` ("committed", "rolled back").
fn assert_closed(e: &Error, state: &str) {
    assert!(
        matches!(e, Error::TransactionClosed { state: s, .. } if *s == state),
        "{e:?}"
    );
}

/// What an interceptor saw of each request: its JSON body and its `x-transaction-id` header.
type Seen = Arc<Mutex<Vec<(serde_json::Value, Option<String>)>>>;

/// A builder whose client records what it sends in `seen`.
fn recording(builder: ClientBuilder, seen: &Seen) -> ClientBuilder {
    let s = seen.clone();
    builder.interceptor(interceptor_fn("record", move |req| {
        let body: serde_json::Value = serde_json::from_slice(&req.body)?;
        let header = req
            .headers
            .get("x-transaction-id")
            .map(|v| v.to_str().unwrap_or("").to_owned());
        s.lock().unwrap().push((body, header));
        Ok(())
    }))
}

fn key() -> String {
    format!("k{}", uuid_like())
}

fn uuid_like() -> u128 {
    use std::time::{SystemTime, UNIX_EPOCH};
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    t * 1000 + u128::from(N.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// Vertices with property `k` = `key`, counted outside any transaction.
async fn count_outside(client: &Client, key: &str) -> i64 {
    client
        .request("g.V().has('k', kv).count()")
        .param("kv", key)
        .expect_one()
        .await
}

async fn add_in(tx: &Transaction, key: &str) {
    tx.request("g.addV('t').property('k', kv)")
        .param("kv", key)
        .expect_count()
        .await;
}

#[tokio::test]
async fn committed_writes_are_visible_to_other_requests() {
    let (client, _shared, k, tx) = graphbinary_testkit::or_skip!(
        begin("committed_writes_are_visible_to_other_requests", |b| b).await
    );
    assert!(!tx.id().is_empty());
    add_in(&tx, &k).await;
    add_in(&tx, &k).await;
    let inside: i64 = tx
        .request("g.V().has('k', kv).count()")
        .param("kv", k.as_str())
        .expect_one()
        .await;
    assert_eq!(inside, 2, "the transaction sees its own writes");
    assert_eq!(
        count_outside(&client, &k).await,
        0,
        "uncommitted writes leaked"
    );
    tx.commit().await.unwrap();
    assert!(!tx.is_open());
    assert_eq!(count_outside(&client, &k).await, 2);
    let e = tx.submit("g.V().count()").await.unwrap_err();
    assert_closed(&e, "committed");
}

#[tokio::test]
async fn rolled_back_writes_are_never_visible() {
    let (client, _shared, k, tx) =
        graphbinary_testkit::or_skip!(begin("rolled_back_writes_are_never_visible", |b| b).await);
    add_in(&tx, &k).await;
    tx.rollback().await.unwrap();
    assert_eq!(count_outside(&client, &k).await, 0);
    let e = tx.commit().await.unwrap_err();
    assert_closed(&e, "rolled back");
    assert_eq!(count_outside(&client, &k).await, 0);
}

#[tokio::test]
async fn concurrent_transactions_do_not_see_each_others_uncommitted_writes() {
    let (client, _shared) = graphbinary_testkit::or_skip!(
        set_up(
            "concurrent_transactions_do_not_see_each_others_uncommitted_writes",
            |b| b,
        )
        .await
    );
    let (ka, kb) = (key(), key());
    let (t1, t2) = tokio::join!(client.transaction(), client.transaction());
    let (t1, t2) = (t1.unwrap(), t2.unwrap());
    assert_ne!(t1.id(), t2.id());
    tokio::join!(add_in(&t1, &ka), add_in(&t2, &kb));
    let sees = |tx: graphbinary_client::client::Transaction, k: String| async move {
        tx.request("g.V().has('k', kv).count()")
            .param("kv", k)
            .expect_one::<i64>()
            .await
    };
    assert_eq!(sees(t1.clone(), ka.clone()).await, 1);
    assert_eq!(sees(t1.clone(), kb.clone()).await, 0, "t1 sees t2's write");
    assert_eq!(sees(t2.clone(), kb.clone()).await, 1);
    assert_eq!(sees(t2.clone(), ka.clone()).await, 0, "t2 sees t1's write");
    t1.commit().await.unwrap();
    t2.rollback().await.unwrap();
    assert_eq!(count_outside(&client, &ka).await, 1);
    assert_eq!(count_outside(&client, &kb).await, 0);
}

#[tokio::test]
async fn every_request_of_a_transaction_carries_its_id_in_body_and_header() {
    let seen = Seen::default();
    let (_client, _shared, k, tx) = graphbinary_testkit::or_skip!(
        begin(
            "every_request_of_a_transaction_carries_its_id_in_body_and_header",
            |b| recording(b, &seen),
        )
        .await
    );
    add_in(&tx, &k).await;
    tx.commit().await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(seen[0].0["gremlin"], "g.tx().begin()");
    assert_eq!(seen[0].0["g"], "g");
    assert!(seen[0].0.get("transactionId").is_none());
    assert_eq!(seen[0].1, None);
    for (body, header) in &seen[1..] {
        assert_eq!(body["transactionId"], tx.id(), "{body}");
        assert_eq!(header.as_deref(), Some(tx.id()));
        assert_eq!(body["g"], "g");
    }
    assert_eq!(seen[2].0["gremlin"], "g.tx().commit()");
}

#[tokio::test]
async fn execute_in_tx_commits_on_ok_and_rolls_back_on_err() {
    let (client, _shared) = graphbinary_testkit::or_skip!(
        set_up("execute_in_tx_commits_on_ok_and_rolls_back_on_err", |b| b).await
    );
    let (k1, k2) = (key(), key());
    let k = k1.clone();
    let n: i64 = client
        .execute_in_tx(|tx| async move {
            add_in(&tx, &k).await;
            tx.request("g.V().has('k', kv).count()")
                .param("kv", k)
                .await?
                .one()
                .await
        })
        .await
        .unwrap();
    assert_eq!(n, 1);
    assert_eq!(count_outside(&client, &k1).await, 1);
    let k = k2.clone();
    let e = client
        .execute_in_tx(|tx| async move {
            add_in(&tx, &k).await;
            // A failing query: the whole transaction is rolled back.
            tx.submit("g.V().fail('stop')").await?.count().await
        })
        .await
        .unwrap_err();
    assert!(e.server_error().is_some(), "{e:?}");
    assert_eq!(count_outside(&client, &k2).await, 0);
}

#[tokio::test]
async fn dropping_an_open_transaction_sends_a_rollback() {
    let seen = Seen::default();
    let Some((client, _shared, k, tx)) =
        begin("dropping_an_open_transaction_sends_a_rollback", |b| {
            recording(b, &seen)
        })
        .await
    else {
        return;
    };
    // The transaction ids of the rollbacks sent.
    let rollbacks = || -> Vec<String> {
        seen.lock()
            .unwrap()
            .iter()
            .filter(|(body, _)| body["gremlin"] == "g.tx().rollback()")
            .map(|(body, _)| body["transactionId"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let id = tx.id().to_owned();
    add_in(&tx, &k).await;
    let clone = tx.clone();
    drop(tx);
    assert!(rollbacks().is_empty(), "a clone is still alive");
    drop(clone);
    let mut sent = false;
    for _ in 0..100 {
        if rollbacks().contains(&id) {
            sent = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(sent, "no rollback was sent for the dropped transaction");
    assert_eq!(count_outside(&client, &k).await, 0);
}

#[tokio::test]
async fn an_expired_transaction_is_a_typed_not_found_error() {
    let (client, _shared, k, tx) = graphbinary_testkit::or_skip!(
        begin("an_expired_transaction_is_a_typed_not_found_error", |b| b).await
    );
    add_in(&tx, &k).await;
    // The tx server rolls back transactions idle for 5 s.
    tokio::time::sleep(Duration::from_millis(7500)).await;
    let e = tx.submit("g.V().count()").await.unwrap_err();
    match &e {
        Error::TransactionNotFound { id, source } => {
            assert_eq!(id, tx.id());
            assert_eq!(source.code, 404, "{source:?}");
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert!(tx.is_open(), "a failed request does not close the handle");
    let e = tx.commit().await.unwrap_err();
    assert!(matches!(e, Error::TransactionNotFound { .. }), "{e:?}");
    assert!(!tx.is_open(), "a commit answered 404 closes the handle");
    assert_eq!(count_outside(&client, &k).await, 0);
}

#[tokio::test]
async fn a_transaction_stays_on_the_host_that_began_it() {
    // Two host entries for the same server; plain requests alternate, the transaction's don't.
    let Some((client, _shared)) = set_up("a_transaction_stays_on_the_host_that_began_it", |b| {
        let url = TX.url();
        let other = url.replace("127.0.0.1", "localhost");
        assert_ne!(
            url, other,
            "GREMLIN_TX_URL must use 127.0.0.1 for this test"
        );
        b.add_host(other)
    })
    .await
    else {
        return;
    };
    let tx = client.transaction().await.unwrap();
    let pinned = client
        .hosts()
        .iter()
        .position(|h| h.url == tx.host())
        .unwrap();
    let before = client.hosts();
    for _ in 0..6 {
        tx.submit("g.V().limit(1).count()").expect_count().await;
    }
    tx.rollback().await.unwrap();
    let after = client.hosts();
    assert_eq!(after[pinned].requests - before[pinned].requests, 7);
    assert_eq!(after[1 - pinned].requests, before[1 - pinned].requests);
    for _ in 0..4 {
        client.submit("g.V().limit(1).count()").expect_count().await;
    }
    let last = client.hosts();
    assert_eq!(last[0].requests - after[0].requests, 2, "{last:?}");
    assert_eq!(last[1].requests - after[1].requests, 2, "{last:?}");
}

#[tokio::test]
async fn too_many_open_transactions_is_a_typed_unavailable_error() {
    let client = graphbinary_testkit::or_skip!(
        TX.client("too_many_open_transactions_is_a_typed_unavailable_error")
            .await
    );
    let _exclusive = LIMIT.write().await;
    // The tx server allows 20 open transactions; a leftover of another test (dropped, rolled
    // back in the background) may still count for a moment, so up to 25 are tried.
    let mut open = Vec::new();
    let mut refused = None;
    for _ in 0..25 {
        match client.transaction().await {
            Ok(tx) => open.push(tx),
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    let n = open.len();
    for tx in open {
        tx.rollback().await.unwrap();
    }
    match refused {
        Some(Error::TransactionUnavailable { source }) => {
            assert_eq!(source.code, 503, "{source:?}");
        }
        other => panic!("after {n} open transactions: {other:?}"),
    }
    assert!(n <= 20, "{n} transactions opened past the limit of 20");
    // Once they are closed, a new one can begin.
    client
        .transaction()
        .await
        .unwrap()
        .rollback()
        .await
        .unwrap();
}
