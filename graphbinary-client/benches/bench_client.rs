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
//!     [--consume all|drain|count]
//! ```
//!
//! `--consume all` (the default, like the peers) collects each response's results into a
//! `Vec`; `drain` drops each result as soon as it is decoded (the streaming use, with
//! `TraverserStream::for_each_result`); `count` only counts them (`ResultStream::count`: every
//! value stepped over and checked, none built: the transport's own cost). The JSON
//! line adds `peak_rss_kib` (the process's `VmHWM`) to the peers' fields. `cpu_secs` is the
//! process's user+system time during the measured part (`CLOCK_PROCESS_CPUTIME_ID`).
//!
//! A `ws://` URL selects the TinkerPop 3 mode (`support/tp3.rs`): `Client3`, GraphBinary 1 over
//! WebSocket; `--connections N` there says how many connections the throughput tasks share.
//! `--defaults` (any URL) runs every task's requests through one `Client::builder(url).build()`
//! with nothing set: what a user gets untouched (for `ws://`, its default pool multiplexing
//! the requests over a few connections).

use std::sync::Arc;
use std::time::Instant;

use graphbinary_client::client::Client;
use serde_json::json;

#[path = "support/tp3.rs"]
mod tp3;

struct Args {
    url: String,
    query: String,
    mode: String,
    runs: usize,
    concurrency: usize,
    requests: usize,
    warmup: Option<usize>,
    compression: bool,
    consume: Consume,
    timeout_ms: u64,
    /// TinkerPop 3 throughput: the connections the tasks share (default: one per task).
    connections: Option<usize>,
    /// One `Client::builder(url).build()`, nothing set, shared by every task.
    defaults: bool,
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
}

impl Consume {
    /// The name on the command line and in the JSON line.
    fn name(self) -> &'static str {
        match self {
            Consume::All => "all",
            Consume::Drain => "drain",
            Consume::Count => "count",
        }
    }
}

fn usage(msg: &str) -> ! {
    eprintln!("bench_client: {msg}");
    eprintln!(
        "usage: bench_client --url URL --query GREMLIN --mode latency|throughput [--runs N] \
         [--concurrency C] [--requests M] [--warmup W] [--compression none|deflate] \
         [--consume all|drain|count] [--timeout-ms MS] [--connections N (ws:// only)] [--defaults]"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = Args {
        url: "http://127.0.0.1:8182/gremlin".into(),
        query: String::new(),
        mode: String::new(),
        runs: 5,
        concurrency: 64,
        requests: 1000,
        warmup: None,
        compression: false,
        consume: Consume::All,
        timeout_ms: 600_000,
        connections: None,
        defaults: false,
    };
    // `cargo bench` adds `--bench`.
    let mut it = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(flag) = it.next() {
        let mut val = || {
            it.next()
                .unwrap_or_else(|| usage(&format!("{flag} needs a value")))
        };
        let num = |s: String| -> usize { s.parse().unwrap_or_else(|_| usage("not a number")) };
        match flag.as_str() {
            "--url" => a.url = val(),
            "--query" => a.query = val(),
            "--mode" => a.mode = val(),
            "--runs" => a.runs = num(val()),
            "--concurrency" => a.concurrency = num(val()),
            "--requests" => a.requests = num(val()),
            "--warmup" => a.warmup = Some(num(val())),
            "--timeout-ms" => a.timeout_ms = num(val()) as u64,
            "--connections" => a.connections = Some(num(val())),
            "--defaults" => a.defaults = true,
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
                    "count" => Consume::Count,
                    _ => usage("--consume is all, drain or count"),
                }
            }
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if a.query.is_empty() || !matches!(a.mode.as_str(), "latency" | "throughput") {
        usage("--query and --mode latency|throughput are required");
    }
    a
}

/// User+system CPU seconds of this process so far (all threads), to the nanosecond: the
/// 10 ms ticks of `/proc/self/stat` are too coarse for a few dozen short requests.
fn cpu_secs() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
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

/// One request, every result consumed; returns (results, body bytes).
async fn one(client: &Client, a: &Args) -> Result<(u64, u64), String> {
    let stream = client
        .request(a.query.clone())
        .bulk_results(false)
        .timeout_millis(a.timeout_ms)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let counters = stream.counters();
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
        Consume::All => stream.all().await.map_err(|e| e.to_string())?.len() as u64,
    };
    Ok((n, counters.body_bytes()))
}

fn fail(msg: String) -> ! {
    eprintln!("bench_client: request failed: {msg}");
    std::process::exit(1)
}

async fn latency(client: Client, a: Args) -> serde_json::Value {
    let mut expected = None;
    let mut check = |got: (u64, u64)| match expected {
        None => expected = Some(got),
        Some(e) if e.0 != got.0 => fail(format!("result count {} then {}", e.0, got.0)),
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
    let (results, bytes) = expected.unwrap_or((0, 0));
    json!({
        "peer": "rust", "mode": "latency", "query": a.query,
        "compression": if a.compression { "deflate" } else { "none" },
        "consume": a.consume.name(),
        "runs": runs, "results": results, "bytes": bytes, "cpu_secs": cpu,
        "peak_rss_kib": peak_rss_kib(),
    })
}

async fn throughput(client: Client, a: Args) -> serde_json::Value {
    let a = Arc::new(a);
    let run = |total: usize| {
        let client = client.clone();
        let a = a.clone();
        async move {
            let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let mut tasks = Vec::new();
            for _ in 0..a.concurrency.min(total.max(1)) {
                let (client, a, next) = (client.clone(), a.clone(), next.clone());
                tasks.push(tokio::spawn(async move {
                    let mut seen: Option<u64> = None;
                    while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < total {
                        let (n, _) = one(&client, &a).await.unwrap_or_else(|e| fail(e));
                        if seen.is_some_and(|s| s != n) {
                            fail(format!("result count {} then {n}", seen.unwrap()));
                        }
                        seen = Some(n);
                    }
                    seen
                }));
            }
            let mut counts = Vec::new();
            for t in tasks {
                counts.extend(t.await.expect("task"));
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
        "peer": "rust", "mode": "throughput", "query": a.query,
        "compression": if a.compression { "deflate" } else { "none" },
        "concurrency": a.concurrency, "requests": a.requests, "wall_secs": wall,
        "req_per_sec": a.requests as f64 / wall, "results": results, "bytes": null,
        "cpu_secs": cpu, "peak_rss_kib": peak_rss_kib(),
    })
}

fn main() {
    let a = parse();
    if a.url.starts_with("ws://") || a.url.starts_with("wss://") {
        if a.consume == Consume::Count {
            usage("--consume count is for http:// only");
        }
        if a.compression {
            usage("--compression deflate is not offered over WebSocket");
        }
        if !a.defaults {
            return tp3::main(a);
        }
    }
    let pool = if a.mode == "throughput" {
        a.concurrency
    } else {
        1
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let line = rt.block_on(async move {
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
        if a.mode == "latency" {
            latency(client, a).await
        } else {
            throughput(client, a).await
        }
    });
    println!("{line}");
}
