//! A transaction over HTTP: writes that other requests see only once committed, or never.
//!
//! Needs a transactional graph (TinkerPop 4's TinkerTransactionGraph, or a provider's):
//!
//! ```text
//! cargo xtask server --dataset tx --port 8183
//! cargo run -p graphbinary-client --example transaction -- [URL]
//! ```
//!
//! URL: the first argument, else env `GREMLIN_TX_URL`, else `http://127.0.0.1:8183/gremlin`.

use graphbinary_client::client::{Client, Error, Transaction};

/// Adds a person named `name` inside the transaction `tx`.
async fn add_person(tx: &Transaction, name: &str) -> Result<(), Error> {
    tx.request("g.addV('person').property('name', n)")
        .param("n", name)
        .await?
        .count()
        .await?;
    Ok(())
}

/// Vertices named `name`, counted by a request outside any transaction.
async fn count_named(client: &Client, name: &str) -> Result<i64, Error> {
    client
        .request("g.V().has('name', n).count()")
        .param("n", name)
        .await?
        .one()
        .await
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The server: the first argument, else env GREMLIN_TX_URL, else http://127.0.0.1:8183/gremlin.
    let url = std::env::var("GREMLIN_TX_URL").ok();
    let url = std::env::args().nth(1).or(url);
    let client = Client::new(url.as_deref().unwrap_or("http://127.0.0.1:8183/gremlin"))?;
    // A name of this run's own, so that the example can run again on the same graph.
    let name = format!("ada-{}", std::process::id());

    // Begin (`g.tx().begin()`), write, commit. Every request of `tx` carries its id and goes
    // to the same host.
    let tx = client.transaction().await?;
    add_person(&tx, &name).await?;
    let before = count_named(&client, &name).await?;
    tx.commit().await?;
    let after = count_named(&client, &name).await?;
    println!("committed: {before} visible before the commit, {after} after");

    // Rolled back: never visible. (Dropping an open `Transaction` rolls it back too.)
    let unwritten = format!("{name}-rolled-back");
    let tx = client.transaction().await?;
    add_person(&tx, &unwritten).await?;
    tx.rollback().await?;
    let rolled_back = count_named(&client, &unwritten).await?;
    println!("rolled back: {rolled_back} visible");

    // `execute_in_tx`: commits when the closure returns Ok, rolls back when it returns Err.
    let n = name.clone();
    let dropped: i64 = client
        .execute_in_tx(|tx| async move {
            let found: i64 = tx
                .request("g.V().has('name', n).count()")
                .param("n", n.as_str())
                .await?
                .one()
                .await?;
            tx.request("g.V().has('name', n).drop()")
                .param("n", n.as_str())
                .await?
                .count()
                .await?;
            Ok::<_, Error>(found)
        })
        .await?;
    let left = count_named(&client, &name).await?;
    println!("cleaned up: dropped {dropped}, {left} left");
    if (before, after, rolled_back, dropped, left) != (0, 1, 0, 1, 0) {
        let counts = format!("{before}, {after}, {rolled_back}, {dropped}, {left}");
        return Err(format!("unexpected counts: {counts}").into());
    }
    Ok(())
}
