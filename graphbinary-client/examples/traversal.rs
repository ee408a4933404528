//! Gremlin written in Rust: the traversal API (`graphbinary_client::process`).
//!
//! Every step of Gremlin is a method (`hasLabel` is `has_label`, `V` is `v`, `as` is `as_`);
//! arguments are `()` for none, a value, or a tuple for several. Each call is checked against
//! the grammar before anything is sent.
//!
//! ```text
//! cargo xtask server                    # a Gremlin Server 4.0 with the modern graph, port 8182
//! cargo run -p graphbinary-client --example traversal -- [URL]
//! ```
//!
//! URL: the first argument, else env `GREMLIN_URL`, else `http://127.0.0.1:8182/gremlin`.

use graphbinary_client::process::{GValue, GraphTraversalSource, Order, __, P};
use graphbinary_client::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The server: the first argument, else env GREMLIN_URL, else http://127.0.0.1:8182/gremlin.
    let url = std::env::var("GREMLIN_URL").ok();
    let url = std::env::args().nth(1).or(url);
    let client = Client::new(url.as_deref().unwrap_or("http://127.0.0.1:8182/gremlin"))?;
    // `g`, as in Gremlin: a traversal source over the client.
    let g = GraphTraversalSource::new(client);

    // g.V().has('person','name',who).out('knows').values('name').order(), `who` a parameter.
    let friends: Vec<String> = g
        .v(())
        .has(("person", "name", GValue::new("who", "marko")))
        .out("knows")
        .values("name")
        .order(())
        .to_list_as()
        .await?;
    println!("marko knows {}", friends.join(", "));

    // Predicates and ordering. A traversal is a value: build it, look at it, then run it.
    let oldest_first = g
        .v(())
        .has_label("person")
        .has(("age", P::gt(26)))
        .order(())
        .by(("age", Order::Desc))
        .values("name");
    println!("sent as {}", oldest_first.gremlin_lang()?.gremlin);
    let names: Vec<String> = oldest_first.to_list_as().await?;
    println!("older than 26, oldest first: {}", names.join(", "));

    // Anonymous traversals (`__`) inside steps; `next_as` takes the first result, if any.
    let creators: Option<i64> = g
        .v(())
        .where_(__::out("created"))
        .count(())
        .next_as()
        .await?;
    println!("{} people created software", creators.unwrap_or(0));

    // Results that are not plain values come back as `Value`s (here a Map per person).
    let rows = g
        .v(())
        .has_label("person")
        .project(("name", "created"))
        .by("name")
        .by(__::out("created").count(()))
        .to_list()
        .await?;
    for row in rows {
        println!("  {row}");
    }

    // A call that fits no form of its step is an error before anything is sent.
    match g.v(()).limit("ten").to_list().await {
        Err(e) => println!("refused before sending: {e}"),
        Ok(_) => return Err("limit(\"ten\") was sent".into()),
    }
    Ok(())
}
