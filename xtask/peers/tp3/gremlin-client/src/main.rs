//! The gremlin-client 0.8 peer (TinkerPop 3, GraphSON 3 over WebSocket) of `cargo xtask bench`:
//! the peers' command line and JSON line (see xtask/peers/README.md), with
//! `gremlin_client::aio::GremlinClient::execute` of a gremlin-groovy script and every result
//! of its `GResultSet` stream collected. Pool: `pool_size` = concurrency in throughput mode,
//! 1 in latency mode.

use std::sync::Arc;

use futures::StreamExt;
use gremlin_client::aio::GremlinClient;
use gremlin_client::{ConnectionOptions, GraphSON, WebSocketOptions};

// The measuring loops of `bench_client`, so that both Rust contenders time alike.
#[path = "../../../../../graphbinary-client/benches/support/measure.rs"]
mod measure;

struct Args {
    url: String,
    plan: measure::Plan,
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
        plan: measure::Plan::default(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let val = it
            .next()
            .unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        match a.plan.flag(&flag, || val.clone()) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => usage(&e),
        }
        match flag.as_str() {
            "--url" => a.url = val,
            "--compression" if val == "none" => {}
            other => usage(&format!("unknown argument {other} {val}")),
        }
    }
    if let Err(e) = a.plan.check() {
        usage(&e);
    }
    a
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
    (
        host.to_string(),
        port.parse().unwrap_or_else(|_| usage("bad port")),
    )
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
    let pool = if a.plan.mode == "throughput" {
        a.plan.concurrency
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
    let q = escape(&a.plan.query);
    if a.plan.mode == "latency" {
        let m = a
            .plan
            .latency(|n: &u64| *n, || one(&client, &a.plan.query))
            .await
            .unwrap_or_else(|e| fail(e));
        println!(
            "{{\"peer\":\"gremlin-client\",\"mode\":\"latency\",\"query\":\"{q}\",\
             \"compression\":\"none\",\"runs\":[{}],\"results\":{},\"bytes\":null,\
             \"cpu_secs\":{:.6}}}",
            json_runs(&m.runs),
            m.first.unwrap_or(0),
            m.cpu_secs
        );
        return;
    }
    let client = Arc::new(client);
    let query = Arc::new(a.plan.query.clone());
    let request = move |_: usize| {
        let (client, query) = (client.clone(), query.clone());
        async move { one(&client, &query).await }
    };
    let m = a.plan.throughput(request).await.unwrap_or_else(|e| fail(e));
    println!(
        "{{\"peer\":\"gremlin-client\",\"mode\":\"throughput\",\"query\":\"{q}\",\
         \"compression\":\"none\",\"concurrency\":{},\"requests\":{},\"wall_secs\":{:.6},\
         \"req_per_sec\":{:.3},\"results\":{},\"bytes\":null,\"cpu_secs\":{:.6}}}",
        a.plan.concurrency,
        a.plan.requests,
        m.wall_secs,
        a.plan.requests as f64 / m.wall_secs,
        m.results,
        m.cpu_secs
    );
}
