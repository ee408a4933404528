//! The TinkerPop 3 mode of `bench_client` (a `ws://` or `wss://` URL): the same command line
//! and JSON line, through `graphbinary_client::ws::Client3` (GraphBinary 1 over WebSocket,
//! `eval` scripts in gremlin-groovy against the traversal source `g`).
//!
//! Latency uses one connection. Throughput runs `--concurrency` tasks, each sending its
//! requests one after the other, over `--connections` connections (default: one per task, as
//! the 3.x drivers' pools lend a connection to one request at a time; fewer connections
//! multiplex the tasks' requests, which `Client3` routes by request id). `--serializer` picks
//! GraphBinary 1 (the default) or GraphSON 3 / 2 (`Options3::serializer`).

use std::sync::Arc;

use futures::StreamExt;
use graphbinary_client::graphson_ws::Serializer;
use graphbinary_client::ws::{Client3, Eval, Options3};
use serde_json::json;

use super::{fail, peak_rss_kib, Args, Consume};

/// One request, every result consumed; returns the result count (bulks included).
async fn one(client: &Client3, a: &Args) -> Result<u64, String> {
    let mut stream = client
        .eval(Eval::new(a.plan.query.clone()))
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

async fn connect(url: &str, serializer: Serializer) -> Client3 {
    let options = Options3 {
        serializer,
        ..Options3::default()
    };
    Client3::connect_with(url, options)
        .await
        .unwrap_or_else(|e| fail(format!("connecting to {url}: {e}")))
}

async fn latency(a: Args) -> serde_json::Value {
    let client = connect(&a.url, a.serializer).await;
    let m = a
        .plan
        .latency(|n: &u64| *n, || one(&client, &a))
        .await
        .unwrap_or_else(|e| fail(e));
    json!({
        "peer": "rust", "mode": "latency", "query": a.plan.query, "compression": "none",
        "consume": a.consume.name(), "protocol": protocol(a.serializer),
        "runs": m.runs, "results": m.first.unwrap_or(0), "bytes": null, "cpu_secs": m.cpu_secs,
        "peak_rss_kib": peak_rss_kib(),
    })
}

async fn throughput(a: Args) -> serde_json::Value {
    let a = Arc::new(a);
    let mut clients = Vec::new();
    for _ in 0..a.connections.unwrap_or(a.plan.concurrency).max(1) {
        clients.push(connect(&a.url, a.serializer).await);
    }
    let clients = Arc::new(clients);
    let request = {
        let (clients, a) = (clients.clone(), a.clone());
        move |i: usize| {
            let (clients, a) = (clients.clone(), a.clone());
            async move { one(&clients[i % clients.len()], &a).await }
        }
    };
    let m = a.plan.throughput(request).await.unwrap_or_else(|e| fail(e));
    json!({
        "peer": "rust", "mode": "throughput", "query": a.plan.query, "compression": "none",
        "protocol": protocol(a.serializer), "connections": clients.len(),
        "concurrency": a.plan.concurrency, "requests": a.plan.requests, "wall_secs": m.wall_secs,
        "req_per_sec": a.plan.requests as f64 / m.wall_secs, "results": m.results, "bytes": null,
        "cpu_secs": m.cpu_secs, "peak_rss_kib": peak_rss_kib(),
    })
}

/// The `protocol` field of the JSON line: the serializer's mime type over WebSocket.
fn protocol(s: Serializer) -> String {
    format!("{} websocket", s.mime_type())
}

/// Runs the measurement of `a` against a TinkerPop 3 server and prints its JSON line.
pub fn main(a: Args) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let line = rt.block_on(async move {
        if a.plan.mode == "latency" {
            latency(a).await
        } else {
            throughput(a).await
        }
    });
    println!("{line}");
}
