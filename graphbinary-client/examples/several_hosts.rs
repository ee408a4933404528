//! One client over several Gremlin Servers serving the same graph: requests go round-robin
//! over the hosts in the rotation; a host that refuses a connection or fails leaves it, and is
//! tried again after a backoff (1 s, doubling up to 30 s). A request that could not connect
//! moves on to the next host; one already sent is never retried.
//!
//! ```text
//! cargo xtask server --port 8182 --detach && cargo xtask server --port 8185 --detach
//! cargo run -p graphbinary-client --example several_hosts -- [URL...]
//! ```
//!
//! URLs: the arguments, else env `GREMLIN_URLS` (comma-separated), else
//! `http://127.0.0.1:8182/gremlin` and `http://127.0.0.1:8185/gremlin`. A URL where nothing
//! listens shows a host leaving the rotation while every request still succeeds.

use std::time::Duration;

use graphbinary_client::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut urls: Vec<String> = std::env::args().skip(1).collect();
    if urls.is_empty() {
        let list = std::env::var("GREMLIN_URLS").unwrap_or_else(|_| {
            "http://127.0.0.1:8182/gremlin,http://127.0.0.1:8185/gremlin".to_owned()
        });
        urls = list.split(',').map(str::to_owned).collect();
    }
    let mut builder = Client::builder(urls[0].as_str())
        // How long a connection attempt may take before the request moves on.
        .connect_timeout(Duration::from_secs(2))
        .host_retry_backoff(Duration::from_secs(1));
    for url in &urls[1..] {
        builder = builder.add_host(url.as_str());
    }
    let client = builder.build()?;

    let mut answered = 0;
    for _ in 0..20 {
        let n: i64 = client.submit("g.V().count()").await?.one().await?;
        answered += usize::from(n >= 0);
    }
    println!("{answered} of 20 requests answered");
    for h in client.hosts() {
        println!(
            "  {} available={} requests={} failures={}",
            h.url, h.available, h.requests, h.consecutive_failures
        );
    }
    Ok(())
}
