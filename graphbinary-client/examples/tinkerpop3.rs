//! TinkerPop 3 servers (Gremlin Server 3.5 to 3.8, JanusGraph, Neptune's WebSocket endpoint):
//! the same `Client` with a `ws://` or `wss://` URL speaks GraphBinary 1 over WebSocket.
//! Queries, parameters (sent as bindings), typed results and the traversal API work as over
//! HTTP; sessions are how 3.x keeps state (and transactions) across requests.
//!
//! ```text
//! cargo xtask server --tinkerpop 3.7.3 --port 8182      # or --janusgraph 1.1.0
//! cargo run -p graphbinary-client --example tinkerpop3 -- [URL]
//! ```
//!
//! URL: the first argument, else env `GREMLIN_WS_URL`, else `ws://127.0.0.1:8182/gremlin`.

use graphbinary_client::process::GraphTraversalSource;
use graphbinary_client::Client;
use serde::Deserialize;

#[derive(Deserialize)]
struct Person {
    name: String,
    age: i32,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The server: the first argument, else env GREMLIN_WS_URL, else ws://127.0.0.1:8182/gremlin.
    let url = std::env::var("GREMLIN_WS_URL").ok();
    let url = std::env::args().nth(1).or(url);
    let client = Client::builder(url.as_deref().unwrap_or("ws://127.0.0.1:8182/gremlin"))
        .pool_size(2) // WebSocket connections; requests are multiplexed on each
        .build()?;

    // A script, with a parameter (a binding).
    let n: i64 = client
        .request("g.V().hasLabel(l).count()")
        .param("l", "person")
        .await?
        .one()
        .await?;
    println!("{n} people at {}", client.url());

    // Typed results, straight from GraphBinary 1.
    client
        .submit("g.V().hasLabel('person').valueMap('name','age').by(unfold()).order().by('age')")
        .await?
        .for_each_as(|p: Person| println!("person {} ({})", p.name, p.age))
        .await?;

    // The traversal API: sent as its Groovy text, parameters as bindings.
    let g = GraphTraversalSource::new(client.clone());
    let software: Vec<String> = g
        .v(())
        .has_label("software")
        .values("name")
        .order(())
        .to_list_as()
        .await?;
    println!("software: {}", software.join(", "));

    // A session: one connection, the script bindings kept from one request to the next (on
    // a transactional graph such as JanusGraph's, `commit` / `rollback` end its transaction).
    let session = client.session().await?;
    session.submit("x = 40").await?.all().await?;
    let answer: i64 = session.submit("x + 2").await?.one().await?;
    session.close().await?;
    println!("in a session: x + 2 = {answer}");
    Ok(())
}
