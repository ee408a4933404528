//! `cargo xtask bench --only tp3`: side by side on TinkerPop 3. A Gremlin Server 3.7.3 (modern
//! graph, `cargo xtask server3`) on loopback, GraphBinary 1 (GraphSON 3 for gremlin-client)
//! over WebSocket; the contenders: ours (`bench_client` with a `ws://` URL: `Client3`), the Java
//! driver 3.7.3, gremlinpython 3.7.3, gremlin-go v3.7.3 and gremlin-client 0.8 (the Rust
//! incumbent), set up by `xtask/peers/setup.sh tp3`. The workloads of the 4.0 end-to-end part:
//! latency of `g.V().repeat(both()).times(12)` and of `g.V()`, client CPU, and `g.V()`
//! throughput at concurrency 64, 256 and 1000.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::Value as Json;

use super::{fmt_secs, measure, median_of, Report, BIG_QUERY};
use crate::util::project_root;

/// The TinkerPop 3 release the part runs against.
pub const VERSION: &str = "3.7.3";
/// Its contenders, in the order of the tables.
const CONTENDERS: [&str; 6] = [
    "rust",
    "rust-drain",
    "gremlin-client",
    "java3",
    "go3",
    "python3",
];
/// The peers among them (set up by setup.sh).
const PEERS: [&str; 4] = ["gremlin-client", "java3", "go3", "python3"];
/// The start of the section in BENCHMARKS.md (a `--only tp3` run replaces just this section).
pub const SECTION_START: &str = "## 5. End to end on TinkerPop 3";

fn name(c: &str) -> &'static str {
    match c {
        "rust" => "**graphbinary-rs** (ours, `Client3`, GraphBinary 1)",
        "rust-drain" => "**graphbinary-rs**, streaming (each result dropped)",
        "rust-mux" => "**graphbinary-rs**, all requests on one `Client3` connection",
        "gremlin-client" => "gremlin-client 0.8 (Rust incumbent, GraphSON 3)",
        "java3" => "Java driver 3.7.3 (GraphBinary 1)",
        "go3" => "gremlin-go v3.7.3 (GraphBinary 1)",
        "python3" => "gremlinpython 3.7.3 (GraphBinary 1)",
        _ => "?",
    }
}

/// Runs `xtask/peers/setup.sh tp3`: the paragraph saying where each peer came from, and the
/// peers built in this run.
fn setup(rep: &mut Report) -> Result<(String, Vec<String>)> {
    let mut c = Command::new(project_root().join("xtask/peers/setup.sh"));
    c.current_dir(project_root()).arg("tp3");
    rep.cmd(&c);
    let out = c
        .stderr(std::process::Stdio::piped())
        .output()
        .context("could not start xtask/peers/setup.sh")?;
    let log = String::from_utf8_lossy(&out.stderr);
    eprint!("{log}");
    let built: Vec<String> = log
        .lines()
        .filter_map(|l| l.strip_prefix("setup.sh: built: "))
        .flat_map(|l| l.split(';').next().unwrap_or_default().split_whitespace())
        .map(str::to_string)
        .collect();
    let origins = std::fs::read_to_string(project_root().join(".bench-cache/peers/origins.txt"))
        .unwrap_or_default();
    let mut p = String::from("Peers, as `xtask/peers/setup.sh tp3` set them up in this run:\n\n");
    for line in origins.lines() {
        if let Some((peer, from)) = line.split_once(' ') {
            if PEERS.contains(&peer) && built.iter().any(|b| b == peer) {
                writeln!(p, "* {peer}: {from}.")?;
            }
        }
    }
    for u in log
        .lines()
        .filter_map(|l| l.strip_prefix("setup.sh: unavailable: "))
    {
        writeln!(p, "* unavailable, not measured: {u}.")?;
    }
    Ok((p, built))
}

#[derive(Default)]
struct Latency {
    runs: Vec<f64>,
    cpu_per_req: Vec<f64>,
    results: Option<f64>,
    error: Option<String>,
}

/// Measures every contender against a 3.7.3 server on `port` and adds the section to `rep`.
pub fn run(quick: bool, port: u16, rep: &mut Report, client: &Path) -> Result<()> {
    let (peers, built) = setup(rep)?;
    let guard = crate::server3::ensure_running(VERSION, false, port)?;
    let url = crate::server3::url(port);
    let available = |c: &str| !PEERS.contains(&c) || built.iter().any(|b| b == c);
    let reps = if quick { 1 } else { 3 };
    let base = |q: &str, mode: &str| -> Vec<String> {
        ["--url", &url, "--query", q, "--mode", mode]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let mut s = String::new();
    writeln!(s, "{SECTION_START}: Gremlin Server {VERSION} on loopback\n")?;
    writeln!(
        s,
        "`cargo xtask bench --only tp3`. Modern graph (TinkerGraph, `cargo xtask server3`), \
         WebSocket, `eval` of a gremlin-groovy script against `g`; the server's defaults \
         (batches of 64 results, properties materialized). Every contender consumes every \
         result; ours and the GraphBinary drivers read GraphBinary 1, gremlin-client reads \
         GraphSON 3 (the only format it has). Client CPU is the contender process's \
         user+system time during the measured part. Contenders run interleaved, {reps} \
         round(s), each as a fresh process. One connection for latency; for throughput a pool \
         of as many connections as the concurrency (ours: that many `Client3`s, one task \
         each; the drivers' pools sized to it), and ours once more with every task's requests \
         multiplexed over one `Client3` connection (`--connections 1`; `Client3` routes \
         responses by request id).\n"
    )?;
    writeln!(s, "{peers}")?;

    for (q, runs) in [
        (BIG_QUERY, if quick { 2 } else { 3 }),
        ("g.V()", if quick { 20 } else { 150 }),
    ] {
        let mut lat: BTreeMap<&str, Latency> = BTreeMap::new();
        let per_round = (runs / reps).max(1);
        for round in 0..reps {
            for i in 0..CONTENDERS.len() {
                let c = CONTENDERS[(i + round) % CONTENDERS.len()];
                let e = lat.entry(c).or_default();
                if !available(c) {
                    e.error = Some("not set up".into());
                    continue;
                }
                let mut args = base(q, "latency");
                args.extend(["--runs".to_string(), per_round.to_string()]);
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
                    }
                    Err(err) => e.error = Some(err),
                }
            }
        }
        writeln!(
            s,
            "### TinkerPop 3: latency of `{q}` (median of {} requests, one connection)\n",
            per_round * reps
        )?;
        writeln!(
            s,
            "| contender | median wall | min | max | client CPU/request | results | vs ours |\n\
             |---|---:|---:|---:|---:|---:|---:|"
        )?;
        let med = |c: &str| {
            lat.get(c)
                .filter(|l| l.error.is_none())
                .map(|l| median_of(l.runs.clone()))
                .unwrap_or(f64::NAN)
        };
        let ours = med("rust");
        for c in CONTENDERS {
            let l = &lat[c];
            if let Some(e) = &l.error {
                writeln!(
                    s,
                    "| {} | failed: {} | | | | | |",
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
                "| {} | {} | {} | {} | {} | {} | {:.2}x |",
                name(c),
                fmt_secs(m),
                fmt_secs(min),
                fmt_secs(max),
                fmt_secs(median_of(l.cpu_per_req.clone())),
                l.results.map(|r| format!("{r}")).unwrap_or_default(),
                m / ours
            )?;
        }
        let counts: Vec<f64> = lat.values().filter_map(|l| l.results).collect();
        if counts.windows(2).any(|w| w[0] != w[1]) {
            writeln!(s, "\n**The contenders disagree on the result count.**")?;
        }
        writeln!(s)?;
    }

    let requests = if quick { 300 } else { 2000 };
    writeln!(
        s,
        "### TinkerPop 3: throughput of `g.V()` ({requests} requests per measurement, pool = \
         concurrency; median of {reps} round(s))\n"
    )?;
    writeln!(
        s,
        "| concurrency | contender | median req/s | client CPU per 1000 req | vs gremlin-client | vs best peer |\n\
         |---:|---|---:|---:|---:|---:|"
    )?;
    let mut verdicts = Vec::new();
    let throughput_contenders = [
        "rust",
        "rust-mux",
        "gremlin-client",
        "java3",
        "go3",
        "python3",
    ];
    for conc in [64, 256, 1000] {
        let mut rps: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        let mut cpu: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        let mut errs: BTreeMap<&str, String> = BTreeMap::new();
        for _ in 0..reps {
            for c in throughput_contenders {
                if !available(c) {
                    errs.insert(c, "not set up".into());
                    continue;
                }
                let mut args = base("g.V()", "throughput");
                args.extend([
                    "--concurrency".into(),
                    conc.to_string(),
                    "--requests".into(),
                    requests.to_string(),
                ]);
                let cmd = if c == "rust-mux" {
                    args.extend(["--connections".into(), "1".into()]);
                    "rust"
                } else {
                    c
                };
                match measure(rep, cmd, client, &args) {
                    Ok(j) => {
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
        for c in throughput_contenders {
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
                "| {conc} | {} | {:.0}{extra} | {} | {:.2}x | {:.2}x |",
                name(c),
                med(c),
                fmt_secs(median_of(cpu[c].clone())),
                med(c) / med("gremlin-client"),
                med(c) / best_peer
            )?;
        }
        verdicts.push(format!(
            "concurrency {conc}: ours {:.2}x gremlin-client and {:.2}x the best peer with one \
             connection per task, {:.2}x and {:.2}x on one connection",
            med("rust") / med("gremlin-client"),
            med("rust") / best_peer,
            med("rust-mux") / med("gremlin-client"),
            med("rust-mux") / best_peer
        ));
    }
    writeln!(s, "\n{}.\n", verdicts.join("; "))?;
    drop(guard);
    rep.sections.push(s);
    Ok(())
}

/// Puts `section` (starting with [`SECTION_START`]) into BENCHMARKS.md in place of the one
/// there, keeping every other section: what a `--only tp3` run writes.
pub fn splice(section: &str) -> Result<()> {
    let path = project_root().join("BENCHMARKS.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmarks\n".into());
    std::fs::write(&path, spliced(&text, section))?;
    eprintln!(
        "xtask bench: wrote the TinkerPop 3 section of {}",
        path.display()
    );
    Ok(())
}

/// `text` with its TinkerPop 3 section replaced by `section` (or `section` put before
/// "## Exact commands", or at the end).
fn spliced(text: &str, section: &str) -> String {
    let section = section.trim_end();
    match text.find(SECTION_START) {
        Some(start) => {
            let after = start + SECTION_START.len();
            // The section ends at the next `## ` heading.
            let end = text[after..]
                .find("\n## ")
                .map(|i| after + i + 1)
                .unwrap_or(text.len());
            let tail = &text[end..];
            let sep = if tail.is_empty() { "\n" } else { "\n\n" };
            format!("{}{section}{sep}{tail}", &text[..start])
        }
        None => match text.find("\n## Exact commands") {
            Some(i) => format!("{}{section}\n\n{}", &text[..i + 1], &text[i + 1..]),
            None => format!("{}\n\n{section}\n", text.trim_end()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splicing_replaces_only_the_tp3_section() {
        let new = format!("{SECTION_START}: new\n\nnew table\n");
        let doc = format!(
            "# B\n\n## 2. End to end\n\nx\n\n{SECTION_START}: old\n\nold\n\n## Exact commands\n\nc\n"
        );
        assert_eq!(
            spliced(&doc, &new),
            format!("# B\n\n## 2. End to end\n\nx\n\n{SECTION_START}: new\n\nnew table\n\n## Exact commands\n\nc\n")
        );
        let without = "# B\n\n## 2. x\n\ny\n\n## Exact commands\n\nc\n";
        assert_eq!(
            spliced(without, &new),
            format!("# B\n\n## 2. x\n\ny\n\n{SECTION_START}: new\n\nnew table\n\n## Exact commands\n\nc\n")
        );
        let at_end = format!("# B\n\n{SECTION_START}: old\n\nold\n");
        assert_eq!(
            spliced(&at_end, &new),
            format!("# B\n\n{SECTION_START}: new\n\nnew table\n")
        );
    }
}
