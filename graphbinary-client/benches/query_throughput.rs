//! Throughput of the client against a running Gremlin Server: the same query fetched as raw
//! body bytes through the client's transport (what `curl -o /dev/null` measures) and decoded
//! into results, with compression off and on.
//!
//! Run (release build; server at env GREMLIN_URL, default http://127.0.0.1:8182/gremlin):
//!
//! ```text
//! cargo bench -p graphbinary-client --bench query_throughput -- [RUNS] [GREMLIN]
//! ```
//!
//! Default: 5 runs of `g.V().repeat(both()).times(12)` (200,766 vertices). Prints the median
//! and best time of each mode. The server's own work is in every number: compare modes, and
//! compare "bytes" against "decode" to see what decoding adds.

use std::time::{Duration, Instant};

use graphbinary_client::client::{Client, Error};
use tokio::io::AsyncReadExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    // `cargo bench` adds `--bench`.
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let gremlin = args
        .next()
        .unwrap_or_else(|| "g.V().repeat(both()).times(12)".to_owned());
    let url = std::env::var("GREMLIN_URL")
        .unwrap_or_else(|_| graphbinary_client::client::DEFAULT_URL.to_owned());
    println!("{gremlin} x {runs} at {url}");
    for compression in [false, true] {
        let client = Client::builder(url.as_str())
            .compression(compression)
            .build()?;
        // Warm up the connection and the server's caches.
        client.submit(gremlin.as_str()).await?.count().await?;
        let mut bytes_t = Vec::new();
        let mut decode_t = Vec::new();
        let mut body_bytes = 0;
        let mut results = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let mut raw = client.request(gremlin.as_str()).send_raw().await?;
            let mut sink = vec![0u8; 64 * 1024];
            let mut n = 0u64;
            loop {
                let got = raw.body.read(&mut sink).await.map_err(|e| {
                    Error::from(graphbinary_core::DecodeError::new(
                        n,
                        graphbinary_core::ErrorKind::Io(e),
                    ))
                })?;
                if got == 0 {
                    break;
                }
                n += got as u64;
            }
            bytes_t.push(t.elapsed());
            body_bytes = n;

            let t = Instant::now();
            results = client.submit(gremlin.as_str()).await?.count().await?;
            decode_t.push(t.elapsed());
        }
        let label = if compression { "deflate" } else { "identity" };
        report(&format!("{label:8} bytes "), &mut bytes_t, results);
        report(&format!("{label:8} decode"), &mut decode_t, results);
        println!("         ({results} results, {body_bytes} body bytes)");
    }
    Ok(())
}

fn report(label: &str, times: &mut [Duration], results: u64) {
    times.sort();
    let median = times[times.len() / 2];
    let best = times[0];
    println!(
        "{label}: median {:7.3} s ({:9.0} results/s), best {:7.3} s",
        median.as_secs_f64(),
        results as f64 / median.as_secs_f64(),
        best.as_secs_f64()
    );
}
