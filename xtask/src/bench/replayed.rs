//! The replayed rows of `cargo xtask bench` e2e (issue 13): the same workloads as the live
//! tables, with every contender pointed at our replay server ([`crate::replay`]), which
//! answers each request with the bytes the real Gremlin Server sent for it once, at full speed.
//! Wall time and CPU are then the clients' own, not the server's noise.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::Ordering;

use anyhow::Result;
use serde_json::Value as Json;

use super::{
    fmt_secs, measure, median_of, name, yes, Latency, Opts, Report, BIG_QUERY, CONTENDERS,
    LATENCY_CONTENDERS,
};
use crate::replay;

/// The clients compared with ours for "fastest client".
const PEERS: [&str; 3] = ["java", "go", "python"];

/// Records the workloads from the live server at `live_url`, serves them on `port`, measures
/// every contender against the replay, and adds the section to the report.
pub fn section(o: &Opts, rep: &mut Report, live_url: &str, client: &Path, port: u16) -> Result<()> {
    let queries = [BIG_QUERY.to_string(), "g.V()".to_string()];
    let recs = replay::record_all(live_url, &queries, true)?;
    let server = replay::serve(port, &recs, 2)?;
    let url = server.url();
    let reps = if o.quick { 1 } else { 5 };
    let base = |q: &str, mode: &str| -> Vec<String> {
        ["--url", &url, "--query", q, "--mode", mode]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let mut s = String::new();
    writeln!(
        s,
        "## 2b. End to end, replayed: the clients without the server's noise\n"
    )?;
    writeln!(
        s,
        "The same workloads, every contender pointed at `cargo xtask replay`'s loopback server\n\
         (`xtask/src/replay.rs`), which answers each request with the bytes the Gremlin Server\n\
         above sent for it once, recorded in this run: the status line and headers (a fresh\n\
         `Gremlin-RequestId` per response), the body in the server's own chunks, the trailers.\n\
         Requests are matched by the `gremlin` text of their JSON body; options that would\n\
         change the response are refused. It serves from memory on 2 threads of the bench\n\
         process, so wall time and CPU are the clients' own. Recorded in this run:\n"
    )?;
    writeln!(
        s,
        "| query | encoding | HTTP | body bytes | chunks | trailers |\n|---|---|---|---:|---:|---|"
    )?;
    for r in &recs {
        writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} |",
            r.query,
            if r.deflate { "deflate" } else { "identity" },
            r.status(),
            r.body.len(),
            r.chunk_sizes.len(),
            r.trailers
                .iter()
                .map(|(k, v)| format!("`{k}: {v}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    writeln!(s)?;

    for (q, runs) in [
        (BIG_QUERY, if o.quick { 2 } else { 10 }),
        ("g.V()", if o.quick { 20 } else { 200 }),
    ] {
        let per_round = (runs / reps).max(1);
        let mut lat: BTreeMap<&str, Latency> = BTreeMap::new();
        for round in 0..reps {
            for i in 0..LATENCY_CONTENDERS.len() {
                let c = LATENCY_CONTENDERS[(i + round) % LATENCY_CONTENDERS.len()];
                let mut args = base(q, "latency");
                args.extend(["--runs".to_string(), per_round.to_string()]);
                let e = lat.entry(c).or_default();
                match measure(rep, c, client, &args) {
                    Ok(j) => {
                        let r: Vec<f64> = j["runs"]
                            .as_array()
                            .map(|a| a.iter().filter_map(Json::as_f64).collect())
                            .unwrap_or_default();
                        if let Some(cpu) = j["cpu_secs"].as_f64() {
                            e.cpu_per_req.push(cpu / r.len().max(1) as f64);
                        }
                        e.runs.extend(r);
                        e.results = j["results"].as_f64().or(e.results);
                        e.bytes = j["bytes"].as_f64().or(e.bytes);
                    }
                    Err(err) => e.error = Some(err),
                }
            }
        }
        writeln!(
            s,
            "### Replayed latency of `{q}` (median of {} requests, one connection)\n\n\
             {reps} round(s), the order rotating; each contender a fresh process: 1 warm-up\n\
             request, then {per_round} timed sequential request(s).\n",
            per_round * reps
        )?;
        writeln!(
            s,
            "| contender | median wall | min | max | client CPU/request | results | vs raw | vs ours |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|"
        )?;
        let med = |c: &str| {
            lat.get(c)
                .filter(|l| l.error.is_none())
                .map(|l| median_of(l.runs.clone()))
                .unwrap_or(f64::NAN)
        };
        let cpu = |c: &str| {
            lat.get(c)
                .filter(|l| l.error.is_none())
                .map(|l| median_of(l.cpu_per_req.clone()))
                .unwrap_or(f64::NAN)
        };
        let (raw, ours) = (med("raw"), med("rust"));
        for c in LATENCY_CONTENDERS {
            let l = &lat[c];
            if let Some(e) = &l.error {
                writeln!(
                    s,
                    "| {} | failed: {} | | | | | | |",
                    name(c),
                    e.replace('|', "/")
                )?;
                continue;
            }
            let m = med(c);
            let min = l.runs.iter().copied().fold(f64::INFINITY, f64::min);
            let max = l.runs.iter().copied().fold(0.0, f64::max);
            writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {:.2}x | {:.2}x |",
                name(c),
                fmt_secs(m),
                fmt_secs(min),
                fmt_secs(max),
                fmt_secs(cpu(c)),
                l.results
                    .map(|r| format!("{r}"))
                    .or(l.bytes.map(|b| format!("({b} bytes)")))
                    .unwrap_or_default(),
                m / raw,
                m / ours
            )?;
        }
        if q == BIG_QUERY {
            // A failed peer is no faster than ours: NaN compares false.
            let best = |f: &dyn Fn(&str) -> f64| {
                PEERS
                    .iter()
                    .map(|c| f(c))
                    .filter(|m| m.is_finite())
                    .fold(f64::INFINITY, f64::min)
            };
            let (peer_wall, peer_cpu) = (best(&med), best(&cpu));
            let (drain, drain_cpu) = (med("rust-drain"), cpu("rust-drain"));
            let ours_cpu = cpu("rust");
            writeln!(
                s,
                "\nTargets (issue 13), replayed 200k-result response:\n\n\
                 | target | measured | met? |\n|---|---|---|\n\
                 | ours the fastest client in wall time | collecting {:.2}x, streaming {:.2}x the fastest peer's median | {} collecting; {} streaming |\n\
                 | ours the fastest client in CPU | collecting {:.2}x, streaming {:.2}x the most frugal peer's CPU/request | {} collecting; {} streaming |\n\
                 | ours within 1.2x of the raw drain | collecting {:.2}x, streaming {:.2}x | {} collecting; {} streaming |\n",
                ours / peer_wall,
                drain / peer_wall,
                yes(ours < peer_wall),
                yes(drain < peer_wall),
                ours_cpu / peer_cpu,
                drain_cpu / peer_cpu,
                yes(ours_cpu < peer_cpu),
                yes(drain_cpu < peer_cpu),
                ours / raw,
                drain / raw,
                yes(ours <= 1.2 * raw),
                yes(drain <= 1.2 * raw),
            )?;
        } else {
            writeln!(s)?;
        }
    }

    let requests = if o.quick { 500 } else { 3000 };
    writeln!(
        s,
        "### Replayed throughput of `g.V()` ({requests} requests per measurement, pool = \
         concurrency; median of {reps} round(s))\n"
    )?;
    writeln!(
        s,
        "| concurrency | contender | median req/s | client CPU per 1000 req | connections opened | vs best peer |\n\
         |---:|---|---:|---:|---:|---:|"
    )?;
    let mut verdicts = Vec::new();
    for conc in [64, 256, 1000] {
        let mut rps: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        let mut cpu: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        let mut conns: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        let mut errs: BTreeMap<&str, String> = BTreeMap::new();
        for _ in 0..reps {
            for c in CONTENDERS {
                let mut args = base("g.V()", "throughput");
                args.extend([
                    "--concurrency".into(),
                    conc.to_string(),
                    "--requests".into(),
                    requests.to_string(),
                ]);
                let before = server.stats.connections.load(Ordering::Relaxed);
                match measure(rep, c, client, &args) {
                    Ok(j) => {
                        let opened = server.stats.connections.load(Ordering::Relaxed) - before;
                        conns.entry(c).or_default().push(opened as f64);
                        rps.entry(c)
                            .or_default()
                            .push(j["req_per_sec"].as_f64().unwrap_or(f64::NAN));
                        cpu.entry(c).or_default().push(
                            j["cpu_secs"].as_f64().unwrap_or(f64::NAN) / requests as f64 * 1000.0,
                        );
                    }
                    Err(e) => {
                        errs.insert(c, e);
                    }
                }
            }
        }
        let med = |c: &str| rps.get(c).map(|v| median_of(v.clone())).unwrap_or(f64::NAN);
        let best_peer = PEERS
            .iter()
            .map(|c| med(c))
            .filter(|m| m.is_finite())
            .fold(0.0, f64::max);
        for c in CONTENDERS {
            if !rps.contains_key(c) {
                let e = errs.get(c).cloned().unwrap_or_default();
                writeln!(
                    s,
                    "| {conc} | {} | failed: {} | | | |",
                    name(c),
                    e.replace('|', "/")
                )?;
                continue;
            }
            let extra = if errs.contains_key(c) {
                format!(" ({} of {reps} rounds failed)", reps - rps[c].len())
            } else {
                String::new()
            };
            writeln!(
                s,
                "| {conc} | {} | {:.0}{extra} | {} | {:.0} | {:.2}x |",
                name(c),
                med(c),
                fmt_secs(median_of(cpu[c].clone())),
                median_of(conns[c].clone()),
                med(c) / best_peer
            )?;
        }
        verdicts.push(format!(
            "concurrency {conc}: {:.2}x the best peer, {}",
            med("rust") / best_peer,
            yes(med("rust") >= best_peer)
        ));
    }
    writeln!(
        s,
        "\n\"connections opened\": TCP connections the replay server accepted during the whole\n\
         process run (warm-up included), median over the rounds.\n\n\
         Target: throughput >= best peer at each concurrency, replayed: {}.\n",
        verdicts.join("; ")
    )?;
    writeln!(
        s,
        "Replay server totals: {} responses served, {} requests refused, {} connections.\n",
        server.stats.served.load(Ordering::Relaxed),
        server.stats.refused.load(Ordering::Relaxed),
        server.stats.connections.load(Ordering::Relaxed)
    )?;
    rep.sections.push(s);
    Ok(())
}
