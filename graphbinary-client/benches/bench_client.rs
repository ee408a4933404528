//! The graphbinary-rs contender of `cargo xtask bench`: the same command line and JSON line as
//! the peers in `xtask/peers/` (see its README), so all contenders are driven alike.
//!
//! A tool, not a criterion benchmark (`harness = false`, and `bench = false` so that a plain
//! `cargo bench` leaves it out); `cargo xtask bench` builds it and runs
//! `target/bench-tools/bench_client`. By hand (cargo adds a `--bench` argument, ignored):
//!
//! ```text
//! cargo bench -p graphbinary-client --bench bench_client -- \
//!     --url http://127.0.0.1:8182/gremlin --query "g.V()" --mode latency|throughput \
//!     [--runs N] [--concurrency C] [--requests M] [--warmup W] [--compression none|deflate] \
//!     [--consume all|drain|count|raw]
//! ```
//!
//! `--consume raw` (ws:// only) is the floor: frames read, nothing decoded (`support/tp3.rs`).
//! `--consume all` (the default, like the peers) collects each response's results into a
//! `Vec`; `drain` drops each result as soon as it is decoded (the streaming use, with
//! `TraverserStream::for_each_result`); `count` only counts them (`ResultStream::count`: every
//! value stepped over and checked, none built: the transport's own cost). The JSON
//! line adds `peak_rss_kib` (the process's `VmHWM`) to the peers' fields. `cpu_secs` is the
//! process's user+system time during the measured part (`CLOCK_PROCESS_CPUTIME_ID`).
//!
//! A `ws://` URL selects the TinkerPop 3 mode (`support/tp3.rs`): `Client3`, GraphBinary 1 over
//! WebSocket; `--connections N` there says how many connections the throughput tasks share,
//! and `--serializer graphbinary1|graphson3|graphson2` picks the format (GraphSON 2 and 3 as
//! `ClientBuilder::serializer` offers them, for Azure Cosmos DB's dialect).
//! `--defaults` (any URL) runs every task's requests through one `Client::builder(url).build()`
//! with nothing set: what a user gets untouched (for `ws://`, its default pool multiplexing
//! the requests over a few connections).

use std::sync::Arc;

use graphbinary_client::client::Client;
use graphbinary_client::Value;
use serde_json::json;

#[path = "support/measure.rs"]
mod measure;
#[path = "support/tp3.rs"]
mod tp3;

struct Args {
    url: String,
    plan: measure::Plan,
    compression: bool,
    consume: Consume,
    timeout_ms: u64,
    /// TinkerPop 3 throughput: the connections the tasks share (default: one per task).
    connections: Option<usize>,
    /// One `Client::builder(url).build()`, nothing set, shared by every task.
    defaults: bool,
    /// TinkerPop 3: the wire format (GraphBinary 1 unless `--serializer` says otherwise).
    serializer: graphbinary_client::Serializer,
}

/// `--consume`: what is done with each response's results.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Consume {
    /// Collected into a `Vec` (the default, like the peers).
    All,
    /// Each dropped as soon as it is decoded.
    Drain,
    /// Counted, never built.
    Count,
    /// Not read by the client at all: the raw floor of `support/tp3.rs` (ws:// only).
    Raw,
}

impl Consume {
    /// The name on the command line and in the JSON line.
    fn name(self) -> &'static str {
        match self {
            Consume::All => "all",
            Consume::Drain => "drain",
            Consume::Raw => "raw",
            Consume::Count => "count",
        }
    }
}

fn usage(msg: &str) -> ! {
    eprintln!("bench_client: {msg}");
    eprintln!(
        "usage: bench_client --url URL --query GREMLIN --mode latency|throughput [--runs N] \
         [--concurrency C] [--requests M] [--warmup W] [--compression none|deflate] \
         [--consume all|drain|count|raw] [--timeout-ms MS] [--connections N (ws:// only)] [--defaults] \
         [--serializer graphbinary1|graphson3|graphson2 (ws:// only)]"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = Args {
        url: "http://127.0.0.1:8182/gremlin".into(),
        plan: measure::Plan::default(),
        compression: false,
        consume: Consume::All,
        timeout_ms: 600_000,
        connections: None,
        defaults: false,
        serializer: graphbinary_client::Serializer::GraphBinary1,
    };
    // `cargo bench` adds `--bench`.
    let mut it = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(flag) = it.next() {
        let mut val = || {
            it.next()
                .unwrap_or_else(|| usage(&format!("{flag} needs a value")))
        };
        let num = |s: String| -> usize { s.parse().unwrap_or_else(|_| usage("not a number")) };
        match a.plan.flag(&flag, &mut val) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => usage(&e),
        }
        match flag.as_str() {
            "--url" => a.url = val(),
            "--timeout-ms" => a.timeout_ms = num(val()) as u64,
            "--connections" => a.connections = Some(num(val())),
            "--defaults" => a.defaults = true,
            "--serializer" => {
                use graphbinary_client::Serializer;
                a.serializer = match val().as_str() {
                    "graphbinary1" => Serializer::GraphBinary1,
                    "graphson3" => Serializer::GraphSon3,
                    "graphson2" => Serializer::GraphSon2,
                    _ => usage("--serializer is graphbinary1, graphson3 or graphson2"),
                }
            }
            "--compression" => {
                a.compression = match val().as_str() {
                    "none" => false,
                    "deflate" => true,
                    _ => usage("--compression is none or deflate"),
                }
            }
            "--consume" => {
                a.consume = match val().as_str() {
                    "all" => Consume::All,
                    "drain" => Consume::Drain,
                    "raw" => Consume::Raw,
                    "count" => Consume::Count,
                    _ => usage("--consume is all, drain, count or raw"),
                }
            }
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if let Err(e) = a.plan.check() {
        usage(&e);
    }
    a
}

/// Runs `f` as a task of the runtime's workers, as a service's requests run (a handler's task),
/// rather than on the thread that blocks on the runtime: there every message between the
/// request and its connection's task crossed threads.
async fn in_task<F>(f: F) -> F::Output
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    tokio::spawn(f).await.expect("the measurement's task")
}

/// Peak resident set size in KiB (`VmHWM`).
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// One request, every result consumed; returns (results, body bytes) and, with `--consume
/// all`, the results.
async fn one(client: &Client, a: &Args) -> Result<((u64, u64), Vec<Value>), String> {
    let stream = client
        .request(a.plan.query.clone())
        .bulk_results(false)
        .timeout_millis(a.timeout_ms)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let counters = stream.counters();
    let mut held = Vec::new();
    let n = match a.consume {
        Consume::Count => stream.count().await.map_err(|e| e.to_string())?,
        Consume::Drain => {
            let mut n = 0u64;
            stream
                .traversers()
                .for_each_result(|t| n += t.bulk.max(0) as u64)
                .await
                .map_err(|e| e.to_string())?;
            n
        }
        Consume::All => {
            held = stream.all().await.map_err(|e| e.to_string())?;
            held.len() as u64
        }
        Consume::Raw => return Err("--consume raw is for ws:// only".into()),
    };
    Ok(((n, counters.body_bytes()), held))
}

fn fail(msg: String) -> ! {
    eprintln!("bench_client: request failed: {msg}");
    std::process::exit(1)
}

async fn latency(client: Client, a: Args) -> serde_json::Value {
    let m = a
        .plan
        .latency(|r: &(u64, u64)| r.0, || one(&client, &a))
        .await
        .unwrap_or_else(|e| fail(e));
    let (results, bytes) = m.first.unwrap_or((0, 0));
    json!({
        "peer": "rust", "mode": "latency", "query": a.plan.query,
        "compression": if a.compression { "deflate" } else { "none" },
        "consume": a.consume.name(),
        "runs": m.runs, "results": results, "bytes": bytes, "cpu_secs": m.cpu_secs,
        "peak_rss_kib": peak_rss_kib(),
    })
}

async fn throughput(client: Client, a: Args) -> serde_json::Value {
    let a = Arc::new(a);
    let request = {
        let a = a.clone();
        move |_: usize| {
            let (client, a) = (client.clone(), a.clone());
            async move { one(&client, &a).await.map(|((n, _), _)| n) }
        }
    };
    let m = a.plan.throughput(request).await.unwrap_or_else(|e| fail(e));
    json!({
        "peer": "rust", "mode": "throughput", "query": a.plan.query,
        "compression": if a.compression { "deflate" } else { "none" },
        "concurrency": a.plan.concurrency, "requests": a.plan.requests, "wall_secs": m.wall_secs,
        "req_per_sec": a.plan.requests as f64 / m.wall_secs, "results": m.results, "bytes": null,
        "cpu_secs": m.cpu_secs, "peak_rss_kib": peak_rss_kib(),
    })
}

fn main() {
    let a = parse();
    if a.url.starts_with("ws://") || a.url.starts_with("wss://") {
        if a.consume == Consume::Count {
            usage("--consume count is for http:// only");
        }
        if a.consume == Consume::Raw && (a.defaults || a.serializer.is_graphson()) {
            usage("--consume raw takes neither --defaults nor --serializer");
        }
        if !a.defaults {
            return tp3::main(a);
        }
    }
    if a.serializer.is_graphson() {
        usage("--serializer is for ws:// without --defaults");
    }
    if a.consume == Consume::Raw {
        usage("--consume raw is for ws:// only");
    }
    let pool = if a.plan.mode == "throughput" {
        a.plan.concurrency
    } else {
        1
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let line = rt.block_on(in_task(async move {
        let client = if a.defaults {
            Client::builder(a.url.clone()).build()
        } else {
            Client::builder(a.url.clone())
                .pool_size(pool)
                .compression(a.compression)
                .read_timeout(None)
                .build()
        }
        .unwrap_or_else(|e| fail(e.to_string()));
        if a.plan.mode == "latency" {
            latency(client, a).await
        } else {
            throughput(client, a).await
        }
    }));
    println!("{line}");
}
