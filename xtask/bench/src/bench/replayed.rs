//! The replayed rows of `cargo xtask bench` e2e (issue 13): the same workloads as the live
//! tables, with every contender pointed at our replay server ([`crate::replay`]), which
//! answers each request with the bytes the real Gremlin Server sent for it once, at full speed.
//! Wall time and CPU are then the clients' own, not the server's noise.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::Ordering;

use anyhow::Result;

use super::tables::{
    median_cpu_ok, median_wall_ok, throughput_header, throughput_rows, ThroughputColumns,
};
use super::{
    as_is, latency_vs_raw, median_of, name, yes, Opts, Report, Rounds, BIG_QUERY, CONTENDERS,
    LATENCY_CONTENDERS,
};
use crate::replay;

/// The latency contenders here: the live tables', ours collecting with glibc keeping freed
/// memory (a process setting), and ours counting only (not a way to get results; it shows what
/// our transport and framing cost by themselves beside the raw drain).
const REPLAY_LATENCY: [&str; 8] = [
    LATENCY_CONTENDERS[0],
    "rust-keep",
    LATENCY_CONTENDERS[1],
    "rust-count",
    LATENCY_CONTENDERS[2],
    LATENCY_CONTENDERS[3],
    LATENCY_CONTENDERS[4],
    LATENCY_CONTENDERS[5],
];

/// The clients compared with ours for "fastest client".
const PEERS: [&str; 3] = ["java", "go", "python"];

/// The throughput table's columns: those of the live one and the connections opened.
fn columns<'a>(opened: &'a dyn Fn(&str) -> Vec<String>) -> ThroughputColumns<'a> {
    ThroughputColumns {
        name,
        extra: &["connections opened"],
        cells: opened,
    }
}

/// Why "within 1.2x of the raw drain" is out of reach for a client that builds every result
/// on this machine, in this run's numbers: the in-process decode of the same number of bytes
/// (section 1's interleaved (a), one slice, no I/O) against the raw drain.
fn floor(
    s: &mut String,
    bytes_per_sec: Option<f64>,
    body: f64,
    (raw, raw_cpu): (f64, f64),
    cores: usize,
) -> Result<()> {
    let Some(rate) = bytes_per_sec else {
        return Ok(writeln!(
            s,
            "(Section 1 did not run, so the decoding floor beside the raw drain is not computed.)\n"
        )?);
    };
    let decode = body / rate;
    let shared = (decode + raw_cpu) / cores as f64;
    writeln!(
        s,
        "The floor of a client that builds every result, in this run's numbers: decoding these\n\
         {:.1} MB into `Value`s takes {} of CPU in-process (section 1, (a) on vertices_200k at\n\
         {:.0} MB/s: one slice, no I/O), {:.2}x the raw drain's wall time by itself; the bytes must\n\
         also be received (the raw drain's own CPU: {}) while the replay server runs on the same\n\
         {cores} cores. Even with decoding split perfectly over all {cores} cores and no server,\n\
         (decode + receive) / {cores} = {} is {:.2}x the raw drain. 1.2x needs decoding at {:.0} MB/s\n\
         on one core overlapped with receiving ({:.2}x the speed measured), or more cores.\n",
        body / 1e6,
        super::fmt_secs(decode),
        rate / 1e6,
        decode / raw,
        super::fmt_secs(raw_cpu),
        super::fmt_secs(shared),
        shared / raw,
        body / (1.2 * raw) / 1e6,
        body / (1.2 * raw) / rate,
    )?;
    Ok(())
}

/// Records the workloads from the live server at `live_url`, serves them on `port`, measures
/// every contender against the replay, and adds the section to the report.
pub fn section(o: &Opts, rep: &mut Report, live_url: &str, client: &Path, port: u16) -> Result<()> {
    let queries = [BIG_QUERY.to_string(), "g.V()".to_string()];
    let recs = replay::record_all(live_url, &queries, true)?;
    let server = replay::serve(port, &recs, &[], 2)?;
    let url = server.url();
    let reps = if o.quick { 1 } else { 5 };
    let rounds = Rounds {
        client,
        url: &url,
        reps,
        prepare: &as_is,
    };
    let mut s = String::new();
    writeln!(
        s,
        "## 2b. End to end, replayed: the clients without the server's noise\n"
    )?;
    writeln!(
        s,
        "The same workloads, every contender pointed at `cargo xtask replay`'s loopback server\n\
         (`xtask/bench/src/replay.rs`), which answers each request with the bytes the Gremlin Server\n\
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

    for (q, runs) in super::latency_workloads(o.quick, 10) {
        let per_round = (runs / reps).max(1);
        let lat = rounds.latency(rep, q, &REPLAY_LATENCY, per_round);
        writeln!(
            s,
            "### Replayed latency of `{q}` (median of {} requests, one connection)\n\n\
             {reps} round(s), the order rotating; each contender a fresh process: 1 warm-up\n\
             request, then {per_round} timed sequential request(s).\n",
            per_round * reps
        )?;
        let med = |c: &str| median_wall_ok(&lat, c);
        let cpu = |c: &str| median_cpu_ok(&lat, c);
        let (raw, ours) = latency_vs_raw(&mut s, &REPLAY_LATENCY, &lat, &med)?;
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
            let body = recs
                .iter()
                .find(|r| r.query == BIG_QUERY && !r.deflate)
                .map_or(f64::NAN, |r| r.body.len() as f64);
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            floor(
                &mut s,
                rep.value_route_bytes_per_sec,
                body,
                (raw, cpu("raw")),
                cores,
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
    throughput_header(&mut s, &columns(&|_| Vec::new()))?;
    let mut verdicts = Vec::new();
    for conc in [64, 256, 1000] {
        // With the TCP connections the replay server accepted during each measurement.
        let accepted = || server.stats.connections.load(Ordering::Relaxed);
        let (t, conns) = rounds.throughput(rep, &CONTENDERS, (conc, requests), &accepted);
        let med = |c: &str| t.median(c);
        let best_peer = t.best_of(&PEERS);
        let opened = |c: &str| vec![format!("{:.0}", median_of(conns[c].clone()))];
        throughput_rows(
            &mut s,
            &columns(&opened),
            conc,
            reps,
            &CONTENDERS,
            &t,
            best_peer,
        )?;
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
    writeln!(s, "Replay server totals: {}.\n", server.stats.summary())?;
    rep.sections.push(s);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::floor;

    #[test]
    fn the_floor_is_worked_out_from_the_decode_speed() {
        let mut s = String::new();
        // 24 MB at 600 MB/s: 40 ms; with the drain's 16 ms of CPU over 2 cores, 28 ms.
        floor(&mut s, Some(600e6), 24e6, (0.020, 0.016), 2).unwrap();
        assert!(s.contains("takes 40.0 ms of CPU"), "{s}");
        assert!(s.contains("at\n600 MB/s"), "{s}");
        assert!(s.contains("2.00x the raw drain's wall time"), "{s}");
        assert!(s.contains("= 28.0 ms is 1.40x the raw drain"), "{s}");
        // 1.2 x 20 ms for 24 MB: 1000 MB/s, 1.67x the 600 measured.
        assert!(s.contains("at 1000 MB/s"), "{s}");
        assert!(s.contains("(1.67x the speed measured)"), "{s}");
        let mut none = String::new();
        floor(&mut none, None, 24e6, (0.020, 0.016), 2).unwrap();
        assert!(none.contains("did not run"), "{none}");
    }
}
