//! `cargo xtask bench --only tp3`: side by side on TinkerPop 3. A Gremlin Server 3.7.3 (modern
//! graph, `cargo xtask server3`) on loopback, GraphBinary 1 (GraphSON 3 for gremlin-client)
//! over WebSocket; the contenders: ours (`bench_client` with a `ws://` URL: `Client3`), the Java
//! driver 3.7.3, gremlinpython 3.7.3, gremlin-go v3.7.3 and gremlin-client 0.8 (the Rust
//! incumbent), set up by `xtask/peers/setup.sh tp3`. The workloads of the 4.0 end-to-end part:
//! latency of `g.V().repeat(both()).times(12)` and of `g.V()`, client CPU, and `g.V()`
//! throughput at concurrency 64, 256 and 1000.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

use super::tables::{
    latency_table, median_wall_ok, throughput_header, throughput_rows, LatencyColumns,
    ThroughputColumns,
};
use super::{setup_sh, unavailable, Report, Rounds, BIG_QUERY};
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
    // Its exit status is not checked: the peers it could not build are left out.
    let (log, _) = setup_sh(rep, &["tp3"])?;
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
    unavailable(&mut p, &log)?;
    Ok((p, built))
}

/// Measures every contender against a 3.7.3 server on `port` and adds the section to `rep`.
pub fn run(quick: bool, port: u16, rep: &mut Report, client: &Path) -> Result<()> {
    let (peers, built) = setup(rep)?;
    let server = crate::server::Server::tp3(VERSION, "modern");
    let guard = server.ensure_running(port)?;
    let url = server.url(port);
    let available = |c: &str| !PEERS.contains(&c) || built.iter().any(|b| b == c);
    let reps = if quick { 1 } else { 3 };
    // A peer that setup.sh did not build is not measured; `rust-mux` is ours with every
    // task's requests on one connection.
    let prepare = |c: &'static str| match c {
        _ if !available(c) => Err("not set up".to_string()),
        "rust-mux" => Ok(("rust", vec!["--connections".to_string(), "1".to_string()])),
        _ => Ok((c, Vec::new())),
    };
    let rounds = Rounds {
        client,
        url: &url,
        reps,
        prepare: &prepare,
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
        let per_round = (runs / reps).max(1);
        let lat = rounds.latency(rep, q, &CONTENDERS, per_round);
        writeln!(
            s,
            "### TinkerPop 3: latency of `{q}` (median of {} requests, one connection)\n",
            per_round * reps
        )?;
        let cols = LatencyColumns {
            name,
            bytes: false,
            vs: &[("ours", median_wall_ok(&lat, "rust"))],
        };
        latency_table(&mut s, &cols, &CONTENDERS, &lat)?;
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
    let header = ThroughputColumns {
        name,
        extra: &["vs gremlin-client"],
        cells: &|_| Vec::new(),
    };
    throughput_header(&mut s, &header)?;
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
        let (t, _) = rounds.throughput(rep, &throughput_contenders, (conc, requests), &|| 0);
        let med = |c: &str| t.median(c);
        let best_peer = t.best_of(&PEERS);
        let vs_incumbent = |c: &str| vec![format!("{:.2}x", med(c) / med("gremlin-client"))];
        let cols = ThroughputColumns {
            cells: &vs_incumbent,
            ..header
        };
        throughput_rows(
            &mut s,
            &cols,
            conc,
            reps,
            &throughput_contenders,
            &t,
            best_peer,
        )?;
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

/// Puts `section` (starting with `heading`) into BENCHMARKS.md in place of the one there,
/// keeping every other section: what a `--only tp3` or `--only console` run writes.
pub fn splice(heading: &str, section: &str) -> Result<()> {
    let path = project_root().join("BENCHMARKS.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmarks\n".into());
    std::fs::write(&path, spliced(&text, heading, section))?;
    eprintln!("xtask bench: wrote {heading:?} in {}", path.display());
    Ok(())
}

/// `text` with its section under `heading` replaced by `section` (or `section` put before
/// "## Exact commands", or at the end).
fn spliced(text: &str, heading: &str, section: &str) -> String {
    let section = section.trim_end();
    match text.find(heading) {
        Some(start) => {
            let after = start + heading.len();
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
            spliced(&doc, SECTION_START, &new),
            format!("# B\n\n## 2. End to end\n\nx\n\n{SECTION_START}: new\n\nnew table\n\n## Exact commands\n\nc\n")
        );
        let without = "# B\n\n## 2. x\n\ny\n\n## Exact commands\n\nc\n";
        assert_eq!(
            spliced(without, SECTION_START, &new),
            format!("# B\n\n## 2. x\n\ny\n\n{SECTION_START}: new\n\nnew table\n\n## Exact commands\n\nc\n")
        );
        let at_end = format!("# B\n\n{SECTION_START}: old\n\nold\n");
        assert_eq!(
            spliced(&at_end, SECTION_START, &new),
            format!("# B\n\n{SECTION_START}: new\n\nnew table\n")
        );
    }
}
