//! The gremlin-client 0.8 peer (TinkerPop 3, GraphSON 3 over WebSocket) of `cargo xtask bench`:
//! the peers' command line and JSON line (see xtask/peers/README.md), with
//! `gremlin_client::aio::GremlinClient::execute` of a gremlin-groovy script and every result
//! of its `GResultSet` stream collected. Pool: `pool_size` = concurrency in throughput mode,
//! 1 in latency mode.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use gremlin_client::aio::GremlinClient;
use gremlin_client::{ConnectionOptions, GraphSON, WebSocketOptions};

struct Args {
    url: String,
    query: String,
    mode: String,
    runs: usize,
    concurrency: usize,
    requests: usize,
    warmup: Option<usize>,
}

fn usage(msg: &str) -> ! {
    eprintln!("gremlin-client peer: {msg}");
    eprintln!(
        "usage: peer-gremlin-client --url ws://HOST:PORT/gremlin --query GREMLIN \
         --mode latency|throughput [--runs N] [--concurrency C] [--requests M] [--warmup W]"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = Args {
        url: "ws://127.0.0.1:8186/gremlin".into(),
        query: String::new(),
        mode: String::new(),
        runs: 5,
        concurrency: 64,
        requests: 1000,
        warmup: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let val = it
            .next()
            .unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let num = |s: &str| -> usize { s.parse().unwrap_or_else(|_| usage("not a number")) };
        match flag.as_str() {
            "--url" => a.url = val,
            "--query" => a.query = val,
            "--mode" => a.mode = val,
            "--runs" => a.runs = num(&val),
            "--concurrency" => a.concurrency = num(&val),
            "--requests" => a.requests = num(&val),
            "--warmup" => a.warmup = Some(num(&val)),
            "--compression" if val == "none" => {}
            other => usage(&format!("unknown argument {other} {val}")),
        }
    }
    if a.query.is_empty() || !matches!(a.mode.as_str(), "latency" | "throughput") {
        usage("--query and --mode latency|throughput are required");
    }
    if a.runs == 0 || a.concurrency == 0 || a.requests == 0 {
        usage("--runs, --concurrency and --requests must be >= 1");
    }
    a
}

fn cpu_secs() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0);
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

fn fail(msg: String) -> ! {
    eprintln!("gremlin-client peer: request failed: {msg}");
    std::process::exit(1)
}

/// `ws://host:port/path` -> (host, port).
fn host_port(url: &str) -> (String, u16) {
    let rest = url
        .strip_prefix("ws://")
        .unwrap_or_else(|| usage("--url must be ws://HOST:PORT/gremlin"));
    let authority = rest.split('/').next().unwrap_or_default();
    let (host, port) = authority
        .rsplit_once(':')
        .unwrap_or_else(|| usage("--url needs a port"));
    (host.to_string(), port.parse().unwrap_or_else(|_| usage("bad port")))
}

async fn one(client: &GremlinClient, query: &str) -> Result<u64, String> {
    let mut stream = client
        .execute(query, &[])
        .await
        .map_err(|e| e.to_string())?;
    let mut all = Vec::new();
    while let Some(r) = stream.next().await {
        all.push(r.map_err(|e| e.to_string())?);
    }
    Ok(all.len() as u64)
}

fn json_runs(runs: &[f64]) -> String {
    runs.iter()
        .map(|r| format!("{r:.6}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[tokio::main]
async fn main() {
    let a = parse();
    let pool = if a.mode == "throughput" {
        a.concurrency
    } else {
        1
    };
    let (host, port) = host_port(&a.url);
    let options = ConnectionOptions::builder()
        .host(host)
        .port(port)
        .pool_size(pool as u32)
        .pool_connection_timeout(Some(std::time::Duration::from_secs(120)))
        .serializer(GraphSON::V3)
        .deserializer(GraphSON::V3)
        .websocket_options(
            WebSocketOptions::builder()
                .max_message_size(Some(64 << 20))
                .max_frame_size(Some(64 << 20))
                .build(),
        )
        .build();
    let client = GremlinClient::connect(options)
        .await
        .unwrap_or_else(|e| fail(format!("connecting: {e}")));
    let q = escape(&a.query);
    if a.mode == "latency" {
        let mut expected = None;
        let mut check = |n: u64| match expected {
            None => expected = Some(n),
            Some(e) if e != n => fail(format!("result count {e} then {n}")),
            _ => {}
        };
        for _ in 0..a.warmup.unwrap_or(1) {
            check(one(&client, &a.query).await.unwrap_or_else(|e| fail(e)));
        }
        let cpu0 = cpu_secs();
        let mut runs = Vec::new();
        for _ in 0..a.runs {
            let t = Instant::now();
            let n = one(&client, &a.query).await.unwrap_or_else(|e| fail(e));
            runs.push(t.elapsed().as_secs_f64());
            check(n);
        }
        let cpu = cpu_secs() - cpu0;
        println!(
            "{{\"peer\":\"gremlin-client\",\"mode\":\"latency\",\"query\":\"{q}\",\
             \"compression\":\"none\",\"runs\":[{}],\"results\":{},\"bytes\":null,\
             \"cpu_secs\":{cpu:.6}}}",
            json_runs(&runs),
            expected.unwrap_or(0)
        );
        return;
    }
    let client = Arc::new(client);
    let query = Arc::new(a.query.clone());
    let run = |total: usize| {
        let (client, query) = (client.clone(), query.clone());
        let workers = a.concurrency.min(total.max(1));
        async move {
            let next = Arc::new(AtomicUsize::new(0));
            let mut tasks = Vec::new();
            for _ in 0..workers {
                let (client, query, next) = (client.clone(), query.clone(), next.clone());
                tasks.push(tokio::spawn(async move {
                    let mut seen: Option<u64> = None;
                    while next.fetch_add(1, Ordering::Relaxed) < total {
                        let n = one(&client, &query).await.unwrap_or_else(|e| fail(e));
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
    println!(
        "{{\"peer\":\"gremlin-client\",\"mode\":\"throughput\",\"query\":\"{q}\",\
         \"compression\":\"none\",\"concurrency\":{},\"requests\":{},\"wall_secs\":{wall:.6},\
         \"req_per_sec\":{:.3},\"results\":{results},\"bytes\":null,\"cpu_secs\":{cpu:.6}}}",
        a.concurrency,
        a.requests,
        a.requests as f64 / wall
    );
}
