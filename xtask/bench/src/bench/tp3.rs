//! `cargo xtask bench --only tp3`: side by side on TinkerPop 3. A Gremlin Server 3.7.3 (modern
//! graph, `cargo xtask server3`) on loopback, GraphBinary 1 (GraphSON 3 for gremlin-client)
//! over WebSocket; the contenders: ours (`bench_client` with a `ws://` URL), the Java
//! driver 3.7.3, gremlinpython 3.7.3, gremlin-go v3.7.3 and gremlin-client 0.8 (the Rust
//! incumbent), set up by `xtask/peers/setup.sh tp3`. The workloads of the 4.0 end-to-end part:
//! latency of `g.V().repeat(both()).times(12)` and of `g.V()`, client CPU, and `g.V()`
//! throughput at concurrency 64, 256 and 1000.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

use super::tables::{
    latency_table, median_cpu_ok, median_wall_ok, throughput_header, throughput_rows,
    LatencyColumns, ThroughputColumns,
};
use super::{setup_sh, unavailable, yes, Report, Rounds, BIG_QUERY};
use crate::replay;
use crate::util::project_root;

/// The TinkerPop 3 release the part runs against.
pub const VERSION: &str = "3.7.3";
/// Its contenders, in the order of the tables.
const CONTENDERS: [&str; 9] = contenders("rust-drain");

/// Ours with GraphBinary 1, `second` (ours another way), ours with GraphSON 3 and 2, the
/// peers, the raw frame drain: the order of the tables.
const fn contenders(second: &'static str) -> [&'static str; 9] {
    [
        "rust",
        second,
        "rust-graphson3",
        "rust-graphson2",
        "gremlin-client",
        "java3",
        "go3",
        "python3",
        "raw3",
    ]
}
/// The peers among them (set up by setup.sh).
const PEERS: [&str; 4] = ["gremlin-client", "java3", "go3", "python3"];
/// The start of the section in BENCHMARKS.md (a `--only tp3` run replaces just this section).
pub const SECTION_START: &str = "## 5. End to end on TinkerPop 3";

fn name(c: &str) -> &'static str {
    match c {
        "rust" => "**graphbinary-rs** (ours, GraphBinary 1)",
        "rust-drain" => "**graphbinary-rs**, streaming (each result dropped)",
        "rust-default" => "**graphbinary-rs**, defaults (`Client::builder(url).build()`, one client for all tasks)",
        "rust-graphson3" => "**graphbinary-rs**, GraphSON 3",
        "rust-graphson2" => "**graphbinary-rs**, GraphSON 2 (Cosmos DB's format)",
        "gremlin-client" => "gremlin-client 0.8 (Rust incumbent, GraphSON 3)",
        "java3" => "Java driver 3.7.3 (GraphBinary 1)",
        "go3" => "gremlin-go v3.7.3 (GraphBinary 1)",
        "python3" => "gremlinpython 3.7.3 (GraphBinary 1)",
        "raw3" => "raw frame drain (floor: WebSocket frames read, nothing decoded)",
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

/// The throughput contenders: ours with one connection per task (as the peers' pools lend
/// one connection per request), ours with its defaults, the peers.
const THROUGHPUT_CONTENDERS: [&str; 9] = contenders("rust-default");

/// Before the rounds at each concurrency, the raw frame drain sends this many times a
/// measurement's requests, unrecorded: the server's JIT and its handling of that many
/// connections are warm before the first contender is measured.
const WARM_UP: usize = 3;

/// Where one pass over the workloads runs: live or replayed.
struct Pass<'a> {
    /// `"live"` or `"replayed"`, in the headings.
    label: &'a str,
    rounds: Rounds<'a>,
}

/// Measures every contender against a 3.7.3 server on `port`, then against the replay of its
/// answers on `replay_port`, and adds the section to `rep`.
pub fn run(
    quick: bool,
    port: u16,
    replay_port: u16,
    rep: &mut Report,
    client: &Path,
) -> Result<()> {
    let (peers, built) = setup(rep)?;
    let server = crate::server::Server::tp3(VERSION, "modern");
    let guard = server.ensure_running(port)?;
    let url = server.url(port);
    let available = |c: &str| !PEERS.contains(&c) || built.iter().any(|b| b == c);
    let reps = if quick { 1 } else { 3 };
    // A peer that setup.sh did not build is not measured; `rust-default` is ours through
    // `Client::builder(url).build()`, nothing set, one client for every task.
    let prepare = |c: &'static str| match c {
        _ if !available(c) => Err("not set up".to_string()),
        "rust-default" => Ok(("rust", vec!["--defaults".to_string()])),
        "rust-graphson3" => Ok(("rust", vec!["--serializer".into(), "graphson3".into()])),
        "rust-graphson2" => Ok(("rust", vec!["--serializer".into(), "graphson2".into()])),
        "raw3" => Ok(("rust", vec!["--consume".into(), "raw".into()])),
        _ => Ok((c, Vec::new())),
    };
    // `g.inject(0)`: gremlin-client's pool checks each connection with it before lending it.
    let queries = [BIG_QUERY, "g.V()", "g.inject(0)"].map(String::from);
    let recs = replay::ws::record_all(&url, &queries)?;
    let replay = replay::serve(replay_port, &[], &recs, 2)?;
    let replay_url = replay.ws_url();
    let mut s = String::new();
    writeln!(
        s,
        "{SECTION_START}: Gremlin Server {VERSION} on loopback, live and replayed\n"
    )?;
    writeln!(
        s,
        "`cargo xtask bench --only tp3`. The modern graph over WebSocket, a gremlin-groovy \
         `eval` against `g` with the server's defaults (64 results a message). Every \
         contender consumes every result: ours and the GraphBinary drivers read GraphBinary 1, \
         gremlin-client GraphSON 3; ours runs again on GraphSON 3 and 2. The raw frame drain \
         is the floor, not a client: its own handshake, the frames read into one buffer, only \
         status codes decoded. Client CPU: the contender's user+system time while measured. \
         Contenders interleaved, {reps} round(s), the order rotating, each a fresh process. \
         One connection for latency; for throughput one connection per task, and ours again \
         at its defaults (one `Client` shared by every task). Before each concurrency the \
         drain sends {WARM_UP}x a measurement's requests, unrecorded, to warm the server.\n"
    )?;
    writeln!(s, "{peers}")?;
    writeln!(
        s,
        "**Replayed**: every table again against the replay server \
         (`xtask/bench/src/replay/ws.rs`): each request answered with the frames 3.7.3 sent \
         for it in this run (request ids rewritten; arguments that would change the answer \
         refused), from memory on 2 threads of the bench process, so wall time and CPU are \
         the clients' own. Recorded:\n"
    )?;
    writeln!(s, "| query | serializer | messages | frames | payload bytes | last status attributes |\n|---|---|---:|---:|---:|---|")?;
    for r in &recs {
        writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | `{}` |",
            r.query,
            r.mime,
            r.statuses.len(),
            r.frames.len(),
            r.bytes(),
            r.last_attributes.replace('|', "/")
        )?;
    }
    writeln!(s)?;
    let passes = [
        Pass {
            label: "live",
            rounds: Rounds {
                client,
                url: &url,
                reps,
                prepare: &prepare,
            },
        },
        Pass {
            label: "replayed",
            rounds: Rounds {
                client,
                url: &replay_url,
                reps,
                prepare: &prepare,
            },
        },
    ];
    let mut verdicts = Vec::new();
    for q in [BIG_QUERY, "g.V()"] {
        for p in &passes {
            // Live, the server's own spread (its garbage collection, its JIT) is as large as
            // the differences between the clients: more requests make the medians hold still.
            let runs = match (q == BIG_QUERY, quick) {
                (true, true) => 2,
                (true, false) => 6,
                (false, true) => 20,
                (false, false) => 600,
            };
            latency_pass(&mut s, rep, p, q, (runs / reps).max(1), &mut verdicts)?;
        }
    }
    let requests = if quick { 300 } else { 6000 };
    for p in &passes {
        throughput_pass(&mut s, rep, p, requests, &mut verdicts)?;
    }
    writeln!(
        s,
        "### TinkerPop 3: targets (issue 24; live 200k restated against the floor by issue 43)\n\n| target | measured | met? |\n|---|---|---|"
    )?;
    for v in &verdicts {
        writeln!(s, "{v}")?;
    }
    writeln!(s, "\nReplay server totals: {}.\n", replay.stats.summary())?;
    drop(replay);
    drop(guard);
    rep.sections.push(s);
    Ok(())
}

/// The latency table of `q` in pass `p`, and its verdicts.
fn latency_pass(
    s: &mut String,
    rep: &mut Report,
    p: &Pass<'_>,
    q: &str,
    per_round: usize,
    verdicts: &mut Vec<String>,
) -> Result<()> {
    let lat = p.rounds.latency(rep, q, &CONTENDERS, per_round);
    writeln!(
        s,
        "### TinkerPop 3, {}: latency of `{q}` (median of {} requests, one connection)\n",
        p.label,
        per_round * p.rounds.reps
    )?;
    let cols = LatencyColumns {
        name,
        bytes: true,
        vs: &[
            ("ours", median_wall_ok(&lat, "rust")),
            ("gremlin-client", median_wall_ok(&lat, "gremlin-client")),
            ("floor", median_wall_ok(&lat, "raw3")),
        ],
    };
    latency_table(s, &cols, &CONTENDERS, &lat)?;
    let counts: Vec<f64> = lat.values().filter_map(|l| l.results).collect();
    if counts.windows(2).any(|w| w[0] != w[1]) {
        writeln!(s, "\n**The contenders disagree on the result count.**")?;
    }
    writeln!(s)?;
    let wall = |c: &str| median_wall_ok(&lat, c);
    let cpu = |c: &str| median_cpu_ok(&lat, c);
    if q == BIG_QUERY && p.label == "live" {
        // Live, the server and the client share 2 cores and the raw frame drain (nothing
        // decoded) is slower than gremlin-go's 0.6x/0.8x targets allow: no client can meet
        // them here. So live, the targets are against that floor, measured in the same run
        // (issue 43): collecting within 1.35x of it, streaming within 1.1x.
        let floor = wall("raw3");
        for (what, contender, target) in
            [("collect", "rust", 1.35), ("streaming", "rust-drain", 1.1)]
        {
            let x = wall(contender) / floor;
            verdicts.push(format!(
                "| live: 200k {what} within {target}x of the raw frame drain's wall | {x:.2}x ({:.3} s against {:.3} s) | {} |",
                wall(contender),
                floor,
                yes(x <= target)
            ));
        }
        verdicts.push(format!(
            "| live: (not a target) against gremlin-go | collecting: wall {:.2}x, CPU {:.2}x; streaming: wall {:.2}x, CPU {:.2}x; the floor: wall {:.2}x | |",
            wall("rust") / wall("go3"),
            cpu("rust") / cpu("go3"),
            wall("rust-drain") / wall("go3"),
            cpu("rust-drain") / cpu("go3"),
            floor / wall("go3"),
        ));
    } else if q == BIG_QUERY {
        let (w, c) = (wall("rust") / wall("go3"), cpu("rust") / cpu("go3"));
        verdicts.push(format!(
            "| {}: 200k collect <= 0.8x gremlin-go's wall and CPU | wall {w:.2}x, CPU {c:.2}x | {} |",
            p.label,
            yes(w <= 0.8 && c <= 0.8)
        ));
        let (w, c) = (
            wall("rust-drain") / wall("go3"),
            cpu("rust-drain") / cpu("go3"),
        );
        verdicts.push(format!(
            "| {}: 200k streaming <= 0.6x gremlin-go's wall and CPU | wall {w:.2}x, CPU {c:.2}x | {} |",
            p.label,
            yes(w <= 0.6 && c <= 0.6)
        ));
        verdicts.push(format!(
            "| {}: (not a target) the floor, frames read and nothing decoded | wall {:.2}x gremlin-go's; ours collecting {:.2}x the floor, streaming {:.2}x | |",
            p.label,
            wall("raw3") / wall("go3"),
            wall("rust") / wall("raw3"),
            wall("rust-drain") / wall("raw3")
        ));
    } else {
        let best = PEERS
            .iter()
            .map(|c| wall(c))
            .filter(|m| m.is_finite())
            .fold(f64::INFINITY, f64::min);
        let ours = wall("rust").min(wall("rust-drain"));
        verdicts.push(format!(
            "| {}: `g.V()` latency, ours the lowest median | ours {} against the best peer's {} | {} |",
            p.label,
            super::fmt_secs(wall("rust")),
            super::fmt_secs(best),
            yes(wall("rust") < best && ours.is_finite())
        ));
    }
    Ok(())
}

/// The throughput table of pass `p` at concurrency 64, 256 and 1000, and its verdicts.
fn throughput_pass(
    s: &mut String,
    rep: &mut Report,
    p: &Pass<'_>,
    requests: usize,
    verdicts: &mut Vec<String>,
) -> Result<()> {
    let reps = p.rounds.reps;
    writeln!(
        s,
        "### TinkerPop 3, {}: throughput of `g.V()` ({requests} requests per measurement, pool = \
         concurrency; median of {reps} round(s))\n",
        p.label
    )?;
    let header = ThroughputColumns {
        name,
        extra: &["vs gremlin-client"],
        cells: &|_| Vec::new(),
    };
    throughput_header(s, &header)?;
    for conc in [64, 256, 1000] {
        p.rounds.warm_up(rep, "raw3", (conc, WARM_UP * requests));
        let (t, _) = p
            .rounds
            .throughput(rep, &THROUGHPUT_CONTENDERS, (conc, requests), &|| 0);
        let med = |c: &str| t.median(c);
        let best_peer = t.best_of(&PEERS);
        let vs_incumbent = |c: &str| vec![format!("{:.2}x", med(c) / med("gremlin-client"))];
        let cols = ThroughputColumns {
            cells: &vs_incumbent,
            ..header
        };
        throughput_rows(s, &cols, conc, reps, &THROUGHPUT_CONTENDERS, &t, best_peer)?;
        let (per_task, defaults) = (med("rust") / best_peer, med("rust-default") / best_peer);
        verdicts.push(format!(
            "| {}: `g.V()` throughput at {conc} >= 1.2x the best peer | one connection per task {per_task:.2}x, defaults {defaults:.2}x (the floor: {:.2}x) | {} per task; {} defaults |",
            p.label,
            med("raw3") / best_peer,
            yes(per_task >= 1.2),
            yes(defaults >= 1.2)
        ));
    }
    writeln!(s)?;
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
