//! Send Gremlin to a server and read what comes back: the first thing to try.
//!
//! ```text
//! cargo xtask server                    # a Gremlin Server 4.0 with the modern graph, port 8182
//! cargo run -p graphbinary-client --example query -- [URL]
//! ```
//!
//! URL: the first argument, else env `GREMLIN_URL`, else `http://127.0.0.1:8182/gremlin`.

use futures::TryStreamExt;
use graphbinary_client::{Client, Error, Value};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The server: the first argument, else env GREMLIN_URL, else http://127.0.0.1:8182/gremlin.
    let url = std::env::var("GREMLIN_URL").ok();
    let url = std::env::args().nth(1).or(url);
    // One client for the whole program: it keeps a pool of connections, and clones share it.
    let client = Client::new(url.as_deref().unwrap_or("http://127.0.0.1:8182/gremlin"))?;

    // The results stream in as the server sends them, each a `Value`.
    let mut names = client
        .submit("g.V().hasLabel('person').values('name')")
        .await?;
    while let Some(name) = names.try_next().await? {
        println!("person: {name}");
    }

    // Values go in as parameters, never pasted into the script.
    let friends: Vec<Value> = client
        .request("g.V().has('person', 'name', who).out('knows').values('name').order()")
        .param("who", "marko")
        .await?
        .all()
        .await?;
    let friends: Vec<&str> = friends.iter().filter_map(Value::as_str).collect();
    println!("marko knows {}", friends.join(", "));

    // Exactly one result, converted (`Error::NoResult` or `TooManyResults` otherwise).
    let n: i64 = client.submit("g.V().count()").await?.one().await?;
    println!("{n} vertices");

    // A script the server refuses is an `Error::Server` with the server's message.
    let refused = match client.submit("g.V().noSuchStep()").await {
        Ok(results) => results.all().await.err(),
        Err(e) => Some(e),
    };
    match refused.as_ref().and_then(Error::server_error) {
        Some(e) => println!("refused as expected: code {}", e.code),
        None => return Err(format!("expected a server error, got {refused:?}").into()),
    }
    Ok(())
}
