//! The TinkerPop 3 mode of `bench_client` (a `ws://` or `wss://` URL): the same command line
//! and JSON line, through `graphbinary_client::ws::Client3` (GraphBinary 1 over WebSocket,
//! `eval` scripts in gremlin-groovy against the traversal source `g`).
//!
//! Latency uses one connection. Throughput runs `--concurrency` tasks, each sending its
//! requests one after the other, over `--connections` connections (default: one per task, as
//! the 3.x drivers' pools lend a connection to one request at a time; fewer connections
//! multiplex the tasks' requests, which `Client3` routes by request id).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use graphbinary_client::ws::{Client3, Eval};
use serde_json::json;

use super::{cpu_secs, fail, peak_rss_kib, Args, Consume};

/// One request, every result consumed; returns the result count (bulks included).
async fn one(client: &Client3, a: &Args) -> Result<u64, String> {
    let mut stream = client
        .eval(Eval::new(a.query.clone()))
        .await
        .map_err(|e| e.to_string())?;
    if a.consume == Consume::Drain {
        let mut n = 0u64;
        while let Some(r) = stream.next().await {
            let (_, bulk) = r.map_err(|e| e.to_string())?;
            n += bulk.max(0) as u64;
        }
        Ok(n)
    } else {
        let mut all = Vec::new();
        while let Some(r) = stream.next().await {
            all.push(r.map_err(|e| e.to_string())?);
        }
        Ok(all.iter().map(|(_, b)| b.max(&0)).sum::<i64>() as u64)
    }
}

async fn connect(url: &str) -> Client3 {
    Client3::connect(url)
        .await
        .unwrap_or_else(|e| fail(format!("connecting to {url}: {e}")))
}

async fn latency(a: Args) -> serde_json::Value {
    let client = connect(&a.url).await;
    let mut expected = None;
    let mut check = |got: u64| match expected {
        None => expected = Some(got),
        Some(e) if e != got => fail(format!("result count {e} then {got}")),
        _ => {}
    };
    for _ in 0..a.warmup.unwrap_or(1) {
        check(one(&client, &a).await.unwrap_or_else(|e| fail(e)));
    }
    let cpu0 = cpu_secs();
    let mut runs = Vec::new();
    for _ in 0..a.runs {
        let t = Instant::now();
        let got = one(&client, &a).await.unwrap_or_else(|e| fail(e));
        runs.push(t.elapsed().as_secs_f64());
        check(got);
    }
    let cpu = cpu_secs() - cpu0;
    json!({
        "peer": "rust", "mode": "latency", "query": a.query, "compression": "none",
        "consume": a.consume.name(), "protocol": "graphbinary-v1 websocket",
        "runs": runs, "results": expected.unwrap_or(0), "bytes": null, "cpu_secs": cpu,
        "peak_rss_kib": peak_rss_kib(),
    })
}

async fn throughput(a: Args) -> serde_json::Value {
    let a = Arc::new(a);
    let mut clients = Vec::new();
    for _ in 0..a.connections.unwrap_or(a.concurrency).max(1) {
        clients.push(connect(&a.url).await);
    }
    let clients = Arc::new(clients);
    let run = |total: usize| {
        let (clients, a) = (clients.clone(), a.clone());
        async move {
            let next = Arc::new(AtomicUsize::new(0));
            let mut tasks = Vec::new();
            for i in 0..a.concurrency.min(total.max(1)) {
                let (clients, a, next) = (clients.clone(), a.clone(), next.clone());
                tasks.push(tokio::spawn(async move {
                    let mut seen: Option<u64> = None;
                    while next.fetch_add(1, Ordering::Relaxed) < total {
                        let n = one(&clients[i % clients.len()], &a)
                            .await
                            .unwrap_or_else(|e| fail(e));
                        if seen.is_some_and(|s| s != n) {
                            fail(format!("result count {} then {n}", seen.unwrap_or(0)));
                        }
                        seen = Some(n);
                    }
                    seen
                }));
            }
            let mut counts = Vec::new();
            for t in tasks {
                counts.extend(t.await.unwrap_or_else(|e| fail(e.to_string())));
            }
            counts.dedup();
            if counts.len() > 1 {
                fail(format!("responses disagree: {counts:?}"));
            }
            counts.first().copied().unwrap_or(0)
        }
    };
    run(a.warmup.unwrap_or(a.concurrency)).await;
    let cpu0 = cpu_secs();
    let t = Instant::now();
    let results = run(a.requests).await;
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu_secs() - cpu0;
    json!({
        "peer": "rust", "mode": "throughput", "query": a.query, "compression": "none",
        "protocol": "graphbinary-v1 websocket", "connections": clients.len(),
        "concurrency": a.concurrency, "requests": a.requests, "wall_secs": wall,
        "req_per_sec": a.requests as f64 / wall, "results": results, "bytes": null,
        "cpu_secs": cpu, "peak_rss_kib": peak_rss_kib(),
    })
}

/// Runs the measurement of `a` against a TinkerPop 3 server and prints its JSON line.
pub fn main(a: Args) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let line = rt.block_on(async move {
        if a.mode == "latency" {
            latency(a).await
        } else {
            throughput(a).await
        }
    });
    println!("{line}");
}
