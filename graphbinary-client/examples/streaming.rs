//! A large response, read as it arrives: memory stays at what is buffered (about 1 MiB),
//! however many results the server sends.
//!
//! ```text
//! cargo xtask server                    # a Gremlin Server 4.0 with the modern graph, port 8182
//! cargo run --release -p graphbinary-client --example streaming -- [URL]
//! ```
//!
//! URL: the first argument, else env `GREMLIN_URL`, else `http://127.0.0.1:8182/gremlin`.
//! On the modern graph the query below yields 34,446 results (with `times(12)`: 200,766).

use std::collections::BTreeMap;
use std::time::Instant;

use futures::TryStreamExt;
use graphbinary_client::{Client, Value};

const QUERY: &str = "g.V().repeat(both()).times(10).values('name')";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The server: the first argument, else env GREMLIN_URL, else http://127.0.0.1:8182/gremlin.
    let url = std::env::var("GREMLIN_URL").ok();
    let url = std::env::args().nth(1).or(url);
    let client = Client::new(url.as_deref().unwrap_or("http://127.0.0.1:8182/gremlin"))?;

    // 1. As a `futures::Stream` of `Value`s: each result is yours as soon as it is decoded.
    let t = Instant::now();
    let mut results = client.submit(QUERY).await?;
    let mut n = 0u64;
    while let Some(name) = results.try_next().await? {
        n += u64::from(name.as_str().is_some());
    }
    println!("streamed {n} results in {:?}", t.elapsed());

    // 2. `for_each_result`: less work per result (the buffered ones are decoded in one
    //    synchronous loop). Each traverser comes with its bulk: how many times it counts.
    let t = Instant::now();
    let mut per_name: BTreeMap<String, i64> = BTreeMap::new();
    client
        .submit(QUERY)
        .await?
        .traversers()
        .for_each_result(|t| {
            if let Value::String(name) = t.value {
                *per_name.entry(name).or_default() += t.bulk;
            }
        })
        .await?;
    println!("per name, in {:?}: {per_name:?}", t.elapsed());

    // 3. Bulked: the server sends each distinct result once, with its count.
    let mut bulked = client.request(QUERY).bulk_results(true).await?.traversers();
    let (mut traversers, mut total) = (0u64, 0i64);
    while let Some(t) = bulked.try_next().await? {
        traversers += 1;
        total += t.bulk;
    }
    println!("bulked: {total} results in {traversers} traversers");

    // 4. Only counted: every value is checked, none is built.
    let counted = client.submit(QUERY).await?.count().await?;
    println!("counted {counted} results");
    if counted != n || total != n as i64 {
        return Err(format!("the four reads disagree: {n}, {total}, {counted}").into());
    }
    Ok(())
}
