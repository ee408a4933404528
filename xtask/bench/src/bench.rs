//! `cargo xtask bench`: runs the benchmarks of issue 5 and writes `BENCHMARKS.md`.
//!
//! 1. In-process decoding (criterion, `graphbinary-client/benches/decode.rs` and
//!    `benches/serde.rs`) and allocations per result (`benches/alloc.rs`): `bench/inproc.rs`.
//! 2. End to end against a real Gremlin Server (modern) on loopback: our client
//!    (`benches/bench_client.rs`) and, in the same run, the peers of `xtask/peers/` (Java,
//!    Go, Python drivers and the raw byte drain), interleaved run by run; then the same
//!    contenders against a replay of the server's recorded responses (`bench/replayed.rs`,
//!    `crate::replay`), which measures the clients without the server's noise.
//! 3. Memory: peak RSS of our client streaming a response of more than 1 GiB, each result
//!    dropped as it is decoded.
//! 4. Whole process: `graphbinary decode` against gremlinpython on the same corpus files
//!    (`bench/process.rs`).
//! 5. TinkerPop 3 (`tp3`, [`tp3`]): a Gremlin Server 3.7.3 over WebSocket; ours (`Client3`)
//!    beside the Java, Python and Go 3.7.3 drivers and gremlin-client 0.8.
//! 6. Console start-up (`console`, [`console`]): `graphbinary console` against the Gremlin
//!    Console 3.7.3, time to the first prompt and to the first result.
//! 7. WAN link (`wan`, [`wan`]): the Gremlin Server 4 behind the simulated link of
//!    `graphbinary_kit::link` (issue 43), compression on and off, beside the link's floor.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::Value as Json;

use crate::server;
use crate::util::{project_root, secs, show};

mod charts;
mod console;
mod inproc;
mod process;
mod replayed;
mod results;
mod tables;
mod tp3;
mod wan;
mod write;

use tables::{
    latency_table, throughput_header, throughput_rows, Latency, LatencyColumns, Throughput,
    ThroughputColumns,
};

const HELP: &str =
    "usage: cargo xtask bench [--quick] [--only inproc|e2e|memory|process|tp3|console|write|wan]...
                         [--port N] [--replay-port N] [--port3 N] [--write-port N]
       cargo xtask bench --report-only

Runs the benchmarks and writes BENCHMARKS.md at the repository root (sections not run are
left out, and the header says which ran: commit only a full run's), with its charts, the
commands it ran and its measurement lines in benchmarks/. Starts a Gremlin Server (modern) for
e2e/memory unless one answers on --port.

  --quick       fewer runs and shorter measurements: a smoke check, not numbers to quote
  --only PART   run only PART (repeatable): inproc, e2e, memory, process, tp3 (TinkerPop
                3.7.3 over WebSocket), console (start-up of `graphbinary console` and of the
                Gremlin Console 3.7.3), write (air-routes written into empty 4.0 and
                3.7.3 servers by ours and the write peers, and exported), wan (the Gremlin Server behind a
                simulated WAN link on ports 8250-8252, compression on and off); `--only tp3`,
                `--only console`, `--only write` or `--only wan` alone replaces just its
                section of BENCHMARKS.md
  --port N      the Gremlin Server port (default 8182)
  --replay-port N
                the port of the replay server of the e2e's replayed rows (default: --port + 1)
  --port3 N     the TinkerPop 3.7.3 Gremlin Server port of tp3 and console (default 8196)
  --write-port N
                the port of write's empty Gremlin Server 4.0, and + 1 its 3.7.3 (--dataset
                integration; each started unless one answers there; its g is cleared;
                default 8260)
  --report-only measure nothing: draw the charts of BENCHMARKS.md again from its tables (and
                move the data of a report of the old layout into benchmarks/)";

const CORPORA: [&str; 6] = [
    "vertices_200k",
    "element_maps_100k",
    "paths_50k",
    "strings_1m",
    "bulked_mixed_500k",
    "binary_64mib",
];
const MODES: [(&str, &str); 5] = [
    ("a_slice", "(a) slice"),
    ("b_stream_8k", "(b) 8 KiB reads, `StreamExt::next`"),
    ("b_visit_8k", "(b) 8 KiB reads, `for_each_result`"),
    ("c_stream_1k", "(c) 1 KiB reads"),
    ("d_slow_8k", "(d) 8 KiB, slow path only"),
];
const CONTENDERS: [&str; 5] = ["rust", "java", "go", "python", "raw"];
/// Latency also measures our client streaming (each result dropped as decoded).
const LATENCY_CONTENDERS: [&str; 6] = ["rust", "rust-drain", "java", "go", "python", "raw"];
const BIG_QUERY: &str = "g.V().repeat(both()).times(12)";

/// The latency workloads of the end-to-end sections and their total requests: [`BIG_QUERY`]
/// `big_runs` times, `g.V()` 200 times (2 and 20 with `--quick`).
fn latency_workloads(quick: bool, big_runs: usize) -> [(&'static str, usize); 2] {
    [
        (BIG_QUERY, if quick { 2 } else { big_runs }),
        ("g.V()", if quick { 20 } else { 200 }),
    ]
}
/// The `GLIBC_TUNABLES` of the `rust-keep` contender (docs/guide/src/results.md): freed memory
/// is trimmed from the heap only past 1 GiB, and blocks up to 32 MiB come from the heap rather
/// than from their own `mmap` (each unmapped when freed).
const GLIBC_KEEP: &str =
    "glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432";

/// Every part, in the order a full run reports them.
const PARTS: [&str; 8] = [
    "inproc", "e2e", "memory", "process", "tp3", "console", "write", "wan",
];

/// The default `--write-port` (4.0; 3.7.3 on the next), outside CI's 8179-8199.
const WRITE_PORT: u16 = 8260;

struct Opts {
    quick: bool,
    parts: Vec<String>,
    port: u16,
    replay_port: Option<u16>,
    port3: u16,
    /// The empty 4.0 server of `write`.
    write_port: u16,
}

/// `cargo xtask bench ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut o = Opts {
        quick: false,
        parts: Vec::new(),
        port: 8182,
        replay_port: None,
        port3: crate::server::default_port3(tp3::VERSION, false),
        write_port: WRITE_PORT,
    };
    let mut a = graphbinary_kit::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--quick" => o.quick = true,
            "--report-only" => {
                if args.len() > 1 {
                    bail!("--report-only takes no other argument\n\n{HELP}");
                }
                return results::report_only(&project_root());
            }
            "--only" => {
                for p in a.value(arg)?.split(',') {
                    if !PARTS.contains(&p) {
                        bail!("--only takes {}, not {p:?}", PARTS.join(", "));
                    }
                    if !o.parts.iter().any(|q| q == p) {
                        o.parts.push(p.to_string());
                    }
                }
            }
            "--port" => o.port = a.parse(arg)?,
            "--replay-port" => o.replay_port = Some(a.parse(arg)?),
            "--port3" => o.port3 = a.parse(arg)?,
            "--write-port" => o.write_port = a.parse(arg)?,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    if o.parts.is_empty() {
        o.parts = PARTS.map(String::from).to_vec();
    }
    run(&o)
}

struct Report {
    commands: Vec<String>,
    sections: Vec<String>,
    raw: Vec<String>,
    /// Section 1's interleaved (a) speed on vertices_200k, bytes per second of CPU, when it
    /// ran: the replayed section compares its floor with the raw drain.
    value_route_bytes_per_sec: Option<f64>,
}

impl Report {
    /// Records `c` as a reader would type it: paths in the project relative to its root, and
    /// the cargo that runs xtask (`$CARGO`, a toolchain's absolute path) as `cargo`.
    fn cmd(&mut self, c: &Command) {
        let root = project_root();
        let mut s = show(c).replace(&format!("{}/", root.display()), "");
        if let Some(rest) = std::env::var("CARGO")
            .ok()
            .and_then(|cargo| s.strip_prefix(&format!("{cargo} ")).map(str::to_owned))
        {
            s = format!("cargo {rest}");
        }
        self.commands.push(s);
    }
}

fn run(o: &Opts) -> Result<()> {
    let root = project_root();
    let started = Instant::now();
    let mut rep = Report {
        commands: vec![format!(
            "cargo xtask bench{}{}{}{}",
            if o.quick { " --quick" } else { "" },
            if o.port == 8182 {
                String::new()
            } else {
                format!(" --port {}", o.port)
            },
            o.parts
                .iter()
                .map(|p| format!(" --only {p}"))
                .collect::<String>(),
            if o.write_port == WRITE_PORT || !o.parts.iter().any(|p| p == "write") {
                String::new()
            } else {
                format!(" --write-port {}", o.write_port)
            }
        )],
        sections: Vec::new(),
        raw: Vec::new(),
        value_route_bytes_per_sec: None,
    };
    let load_before = loadavg();
    if o.parts.iter().any(|p| p == "inproc") {
        inproc::inproc(o, &mut rep)?;
    }
    let needs_server = o.parts.iter().any(|p| p == "e2e" || p == "memory");
    if needs_server {
        let guard = server::ensure_running("modern", o.port)?;
        let url = guard.url();
        let client = build_client(&mut rep)?;
        if o.parts.iter().any(|p| p == "e2e") {
            e2e(o, &mut rep, &url, &client)?;
            let replay_port = o.replay_port.unwrap_or(o.port.saturating_add(1));
            replayed::section(o, &mut rep, &url, &client, replay_port)?;
        }
        if o.parts.iter().any(|p| p == "memory") {
            memory(&mut rep, &url, &client)?;
        }
    }
    if o.parts.iter().any(|p| p == "process") {
        process::process(o, &mut rep)?;
    }
    if o.parts.iter().any(|p| p == "tp3") {
        let client = build_client(&mut rep)?;
        tp3::run(
            o.quick,
            o.port3,
            o.port3.saturating_add(1),
            &mut rep,
            &client,
        )?;
    }
    if o.parts.iter().any(|p| p == "console") {
        console::run(o.quick, o.port3, &mut rep)?;
    }
    if o.parts.iter().any(|p| p == "write") {
        write::run(o.quick, o.write_port, &mut rep)?;
    }
    if o.parts.iter().any(|p| p == "wan") {
        let client = build_client(&mut rep)?;
        wan::run(o.quick, (o.port, o.port3), &mut rep, &client)?;
    }
    // A part with a section of its own, run alone, replaces only its section.
    for (part, start, title) in [
        ("tp3", tp3::SECTION_START, "TinkerPop 3"),
        ("console", console::SECTION_START, "console"),
        ("write", write::SECTION_START, "write"),
        ("wan", wan::SECTION_START, "WAN link"),
    ] {
        if o.parts == [part] {
            splice_alone(&mut rep, part, start, title, started, &load_before)?;
            return charts::refresh(&root);
        }
    }
    let load_after = loadavg();
    let mut md = String::new();
    writeln!(md, "# Benchmarks\n")?;
    writeln!(
        md,
        "Written by `cargo xtask bench` ({}) on {} in {}. All contenders ran in this same run.\n",
        match (o.quick, o.parts.len() == PARTS.len()) {
            (true, _) => "--quick: a smoke check, not numbers to quote".to_string(),
            (false, true) => "full run".to_string(),
            (false, false) => format!("partial run: only {}", o.parts.join(", ")),
        },
        utc_now(),
        secs(started.elapsed()),
    )?;
    writeln!(md, "## Machine\n")?;
    writeln!(md, "{}", machine(&load_before, &load_after))?;
    for s in &rep.sections {
        writeln!(md, "{s}")?;
    }
    // The commands and measurement lines go to benchmarks/, the charts before `## Machine`.
    let links = results::write(&root, &rep.commands, &rep.raw, None)?;
    write!(md, "{}", results::exact_commands(&links))?;
    let md = charts::update(&root, &md)?;
    let out = root.join("BENCHMARKS.md");
    std::fs::write(&out, md)?;
    eprintln!(
        "xtask bench: wrote {} in {}",
        out.display(),
        secs(started.elapsed())
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Machine

fn capture(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// A part run alone replaces just its own section (with this run's machine in it, and links
/// to its commands and measurement lines in benchmarks/), keeping the others.
fn splice_alone(
    rep: &mut Report,
    part: &str,
    heading: &str,
    what: &str,
    started: Instant,
    load_before: &str,
) -> Result<()> {
    let mut s = rep.sections.pop().unwrap_or_default();
    let links = results::write(&project_root(), &rep.commands, &rep.raw, Some(part))?;
    if part == "wan" || part == "write" {
        // Kept short (BENCHMARKS.md's size): the machine is the one of `## Machine`.
        writeln!(
            s,
            "The {what} run on {} in {} (load average {load_before}, then {}).\n\n{links}\n",
            utc_now(),
            secs(started.elapsed()),
            loadavg()
        )?;
    } else {
        writeln!(
            s,
            "The {what} run on {} in {}, on this machine:\n\n{}\n\n{links}\n",
            utc_now(),
            secs(started.elapsed()),
            machine(load_before, &loadavg()).trim()
        )?;
    }
    tp3::splice(heading, &s)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn utc_now() -> String {
    capture("date", &["-u", "+%Y-%m-%d %H:%M UTC"])
}

fn machine(load_before: &str, load_after: &str) -> String {
    let lscpu = capture("lscpu", &[]);
    let pick = |key: &str| {
        lscpu
            .lines()
            .find_map(|l| l.strip_prefix(key).map(|v| v.trim().to_string()))
            .unwrap_or_else(|| "?".into())
    };
    let mem = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:").map(|v| v.trim().to_string()))
        .unwrap_or_default();
    let java = Command::new("java")
        .arg("-version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    format!(
        "| | |\n|---|---|\n\
         | CPU | {} ({} CPUs, {} thread(s) per core, {}) |\n\
         | Memory | {} |\n\
         | Kernel | {} |\n\
         | rustc | {} |\n\
         | Java (driver and server) | {} |\n\
         | Go | {} |\n\
         | Python | {} |\n\
         | Load average (1/5/15 min) | {} at the start, {} at the end |\n\n\
         The machine is shared (2 cores, other jobs running), so absolute numbers move from run to\n\
         run; the ratios between contenders measured in the same run are the stable part.\n",
        pick("Model name:"),
        pick("CPU(s):"),
        pick("Thread(s) per core:"),
        pick("Hypervisor vendor:").replace('?', "bare metal or unknown hypervisor"),
        mem,
        capture("uname", &["-r"]),
        capture("rustc", &["-V"]),
        java,
        capture("go", &["version"]),
        capture("python3", &["--version"]),
        load_before,
        load_after,
    )
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "**no**"
    }
}

fn fmt_secs(t: f64) -> String {
    if t >= 1.0 {
        format!("{t:.2} s")
    } else if t >= 1e-3 {
        format!("{:.1} ms", t * 1e3)
    } else {
        format!("{:.0} µs", t * 1e6)
    }
}

fn fmt_rate(r: f64) -> String {
    with_prefix(r, "", [2, 1, 1])
}

/// `x` in `unit` with a decimal prefix: `M` from a million, `k` from a thousand, with
/// `decimals[0]`, `[1]` or `[2]` (no prefix) digits after the point.
fn with_prefix(x: f64, unit: &str, decimals: [usize; 3]) -> String {
    let (v, prefix, d) = if x >= 1e6 {
        (x / 1e6, "M", decimals[0])
    } else if x >= 1e3 {
        (x / 1e3, "k", decimals[1])
    } else {
        (x, "", decimals[2])
    };
    let space = if prefix.is_empty() && unit.is_empty() {
        ""
    } else {
        " "
    };
    format!("{v:.d$}{space}{prefix}{unit}")
}

// ---------------------------------------------------------------------------------------------
// End to end

fn build_client(rep: &mut Report) -> Result<PathBuf> {
    build_tool("bench_client", true, &mut |c| rep.cmd(c))
}

use crate::util::build_tool;

/// The command that runs `contender` with the peers' common arguments.
fn contender_cmd(contender: &str, client: &Path) -> Command {
    if contender == "rust" {
        Command::new(client)
    } else if contender == "rust-drain" {
        let mut c = Command::new(client);
        c.args(["--consume", "drain"]);
        c
    } else if contender == "rust-count" {
        let mut c = Command::new(client);
        c.args(["--consume", "count"]);
        c
    } else if contender == "rust-keep" {
        // Collecting, with glibc told to keep freed memory for the next request instead of
        // returning it to the system (and re-faulting it in): a setting of the process, no code.
        let mut c = Command::new(client);
        c.env("GLIBC_TUNABLES", GLIBC_KEEP);
        c
    } else if let Some(peer) = contender.strip_suffix("-defaults") {
        // The WAN part's peer at its driver's own pool and compression (xtask/peers/README.md).
        let mut c = Command::new(project_root().join("xtask/peers/peer"));
        c.arg(peer).env("PEER_DEFAULTS", "1");
        c
    } else {
        let mut c = Command::new(project_root().join("xtask/peers/peer"));
        c.arg(contender);
        c
    }
}

/// Runs one measurement; the parsed JSON line, or the failure.
fn measure(
    rep: &mut Report,
    contender: &str,
    client: &Path,
    args: &[String],
) -> Result<Json, String> {
    measure_env(rep, contender, client, args, &[])
}

/// [`measure`] with environment variables for the contender's process.
fn measure_env(
    rep: &mut Report,
    contender: &str,
    client: &Path,
    args: &[String],
    env: &[(&str, &Path)],
) -> Result<Json, String> {
    let mut c = contender_cmd(contender, client);
    c.current_dir(project_root())
        .args(args)
        .envs(env.iter().copied());
    rep.cmd(&c);
    eprintln!("xtask bench: {}", show(&c));
    let out = c.output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'));
    match (out.status.success(), line) {
        (true, Some(l)) => {
            rep.raw.push(l.to_string());
            serde_json::from_str(l).map_err(|e| format!("bad JSON line: {e}"))
        }
        _ => {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            Err(format!(
                "{} ({})",
                out.status,
                last.chars().take(160).collect::<String>()
            ))
        }
    }
}

/// How [`measure`] runs a contender: the contender it starts and the arguments it adds, or
/// why the contender is not measured (a peer that is not set up).
type Prepare<'p> = &'p dyn Fn(&'static str) -> Result<(&'static str, Vec<String>), String>;

/// [`Prepare`] for contenders run as they are.
fn as_is(c: &'static str) -> Result<(&'static str, Vec<String>), String> {
    Ok((c, Vec::new()))
}

/// The arguments of one measurement of `q` at `url` in `mode`, followed by `extra`.
fn contender_args(url: &str, q: &str, mode: &str, extra: &[String]) -> Vec<String> {
    let mut args: Vec<String> = ["--url", url, "--query", q, "--mode", mode]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend_from_slice(extra);
    args
}

/// What the measurements of one section share: the client executable, the server's URL, the
/// number of rounds, and how each contender is run.
#[derive(Clone, Copy)]
struct Rounds<'a> {
    client: &'a Path,
    url: &'a str,
    reps: usize,
    prepare: Prepare<'a>,
}

impl Rounds<'_> {
    /// The latency of `q` over the rounds: in each, every one of `contenders` in turn, the order
    /// rotating from round to round (so that no contender always follows the same one: the
    /// server's garbage collection after a large response lands on whoever comes next), as a
    /// fresh process timing `per_round` sequential requests.
    fn latency(
        self,
        rep: &mut Report,
        q: &str,
        contenders: &[&'static str],
        per_round: usize,
    ) -> BTreeMap<&'static str, Latency> {
        let mut lat: BTreeMap<&str, Latency> = BTreeMap::new();
        let runs = ["--runs".to_string(), per_round.to_string()];
        for round in 0..self.reps {
            for i in 0..contenders.len() {
                let c = contenders[(i + round) % contenders.len()];
                let m = self.measure(rep, c, q, "latency", &runs);
                lat.entry(c).or_default().record(m);
            }
        }
        lat
    }

    /// The throughput of `g.V()` at concurrency `conc` over the rounds, `requests` requests a
    /// measurement, every one of `contenders` in each round, the order rotating from round to
    /// round as in [`Rounds::latency`] (so that no contender is always the first to meet a
    /// server that has just done something else); with, for each contender, how much
    /// `counter` grew during each of its measurements that succeeded.
    fn throughput(
        self,
        rep: &mut Report,
        contenders: &[&'static str],
        (conc, requests): (usize, usize),
        counter: &dyn Fn() -> u64,
    ) -> (Throughput<'static>, BTreeMap<&'static str, Vec<f64>>) {
        let mut t = Throughput::default();
        let mut grew: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        let load = [
            "--concurrency".to_string(),
            conc.to_string(),
            "--requests".to_string(),
            requests.to_string(),
        ];
        for round in 0..self.reps {
            for i in 0..contenders.len() {
                let c = contenders[(i + round) % contenders.len()];
                let before = counter();
                let m = self.measure(rep, c, "g.V()", "throughput", &load);
                if m.is_ok() {
                    grew.entry(c).or_default().push((counter() - before) as f64);
                }
                t.record(c, m, requests);
            }
        }
        (t, grew)
    }

    /// Runs `g.V()` at concurrency `conc`, `requests` requests, through contender `c` and
    /// records nothing: the server's warm-up (its JIT, its connection handling at that
    /// concurrency) before the measured rounds, so that the first contender measured does not
    /// pay for it. Its failure is reported and otherwise ignored (the rounds will show it).
    fn warm_up(self, rep: &mut Report, c: &'static str, (conc, requests): (usize, usize)) {
        let load = [
            "--concurrency".to_string(),
            conc.to_string(),
            "--requests".to_string(),
            requests.to_string(),
        ];
        let results = rep.raw.len();
        if let Err(e) = self.measure(rep, c, "g.V()", "throughput", &load) {
            eprintln!("xtask bench: warm-up through {c} failed: {e}");
        }
        // Not a measurement: its JSON line is not one of the run's results (its command stays
        // among the run's commands).
        rep.raw.truncate(results);
    }

    /// One measurement of contender `c`: `q` in `mode` with the arguments `load`, then the
    /// contender's own; its failure, or why it is not measured.
    fn measure(
        self,
        rep: &mut Report,
        c: &'static str,
        q: &str,
        mode: &str,
        load: &[String],
    ) -> Result<Json, String> {
        let (cmd, extra) = (self.prepare)(c)?;
        let args = contender_args(self.url, q, mode, &[load, &extra[..]].concat());
        measure(rep, cmd, self.client, &args)
    }
}

fn median_of(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs `xtask/peers/setup.sh`; returns a paragraph for the report saying where each peer came
/// from, as setup.sh recorded it in `.bench-cache/peers/origins.txt` for this run, and which
/// could not be set up (with setup.sh's reason).
fn peers_setup(rep: &mut Report) -> Result<String> {
    let origins_path = project_root().join(".bench-cache/peers/origins.txt");
    // Only what this run of setup.sh records counts.
    let _ = std::fs::remove_file(&origins_path);
    let (log, status) = setup_sh(rep, &[])?;
    if !status.success() {
        bail!("xtask/peers/setup.sh failed ({status})");
    }
    let origins = std::fs::read_to_string(&origins_path).unwrap_or_default();
    let mut p = String::from("Peers, as `xtask/peers/setup.sh` set them up in this run:\n\n");
    for line in origins.lines() {
        if let Some((peer, from)) = line.split_once(' ') {
            writeln!(p, "* {peer}: {from}.")?;
        }
    }
    unavailable(&mut p, &log)?;
    Ok(p)
}

/// Runs `xtask/peers/setup.sh` with `args`, echoing its log (stderr); the log and how it ended.
fn setup_sh(rep: &mut Report, args: &[&str]) -> Result<(String, std::process::ExitStatus)> {
    let mut c = Command::new(project_root().join("xtask/peers/setup.sh"));
    c.current_dir(project_root()).args(args);
    rep.cmd(&c);
    let out = c
        .stderr(std::process::Stdio::piped())
        .output()
        .context("could not start xtask/peers/setup.sh")?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    eprint!("{log}");
    Ok((log, out.status))
}

/// The lines of a peers paragraph for the peers that setup.sh's `log` says it could not set
/// up, with its reason.
fn unavailable(p: &mut String, log: &str) -> std::fmt::Result {
    for u in log
        .lines()
        .filter_map(|l| l.strip_prefix("setup.sh: unavailable: "))
    {
        writeln!(p, "* unavailable, not measured: {u}.")?;
    }
    Ok(())
}

fn e2e(o: &Opts, rep: &mut Report, url: &str, client: &Path) -> Result<()> {
    let peers = peers_setup(rep)?;
    let reps = if o.quick { 1 } else { 5 };
    let rounds = Rounds {
        client,
        url,
        reps,
        prepare: &as_is,
    };
    let mut s = String::new();
    writeln!(
        s,
        "## 2. End to end: Gremlin Server 4.0.0-beta.3 on loopback\n"
    )?;
    writeln!(
        s,
        "Modern graph (TinkerGraph), HTTP/1.1, `Accept: application/vnd.graphbinary-v4.0`, no\n\
         compression, `bulkResults` off; every contender consumes every result (our client:\n\
         `ResultStream::all()`, like the drivers' `all()`; \"streaming\" drops each result as it\n\
         is decoded instead of collecting them, with `for_each_result`). `raw` POSTs and drains the body without\n\
         decoding anything: the floor. Client CPU is the contender process's user+system time\n\
         during the measured part. Contenders run interleaved, {reps} round(s).\n"
    )?;
    writeln!(s, "{peers}")?;

    // Latency workloads.
    for (q, runs) in latency_workloads(o.quick, 5) {
        let per_round = (runs / reps).max(1);
        let lat = rounds.latency(rep, q, &LATENCY_CONTENDERS, per_round);
        writeln!(
            s,
            "### Latency of `{q}` (median of {} requests, one connection)\n\n\
             {reps} round(s); in each, every contender in turn (the order rotating from round to\n\
             round) runs as a fresh process: 1 warm-up request, then {per_round} timed sequential\n\
             request(s).\n",
            per_round * reps
        )?;
        // A contender's median even when some round of it failed.
        let med = |c: &str| lat.get(c).map(Latency::median_wall).unwrap_or(f64::NAN);
        let (raw, ours) = latency_vs_raw(&mut s, &LATENCY_CONTENDERS, &lat, &med)?;
        if q == BIG_QUERY {
            let fastest_peer = ["java", "go", "python"]
                .iter()
                .map(|c| med(c))
                .filter(|m| m.is_finite())
                .fold(f64::INFINITY, f64::min);
            let drain = med("rust-drain");
            writeln!(
                s,
                "\nTarget: ours within 1.1x the raw drain: {:.2}x collecting every result, {}; \
                 {:.2}x streaming, {}; within 1.1x the fastest client: {:.2}x of the fastest \
                 peer, {}.\n",
                ours / raw,
                yes(ours <= 1.1 * raw),
                drain / raw,
                yes(drain <= 1.1 * raw),
                ours / fastest_peer,
                yes(ours <= 1.1 * fastest_peer)
            )?;
        } else {
            writeln!(s)?;
        }
    }

    // Throughput.
    let requests = if o.quick { 500 } else { 3000 };
    writeln!(
        s,
        "### Throughput of `g.V()` ({requests} requests per measurement, pool = concurrency; \
         median of {reps} round(s))\n"
    )?;
    let cols = ThroughputColumns {
        name,
        extra: &[],
        cells: &|_| Vec::new(),
    };
    throughput_header(&mut s, &cols)?;
    let mut verdicts = Vec::new();
    for conc in [64, 256, 1000] {
        let (t, _) = rounds.throughput(rep, &CONTENDERS, (conc, requests), &|| 0);
        let med = |c: &str| t.median(c);
        let best_peer = t.best_of(&["java", "go", "python"]);
        throughput_rows(&mut s, &cols, conc, reps, &CONTENDERS, &t, best_peer)?;
        verdicts.push(format!(
            "concurrency {conc}: {:.2}x the best peer, {}",
            med("rust") / best_peer,
            yes(med("rust") >= best_peer)
        ));
    }
    writeln!(
        s,
        "\nTarget: throughput >= best peer at each concurrency: {}.\n",
        verdicts.join("; ")
    )?;
    rep.sections.push(s);
    Ok(())
}

/// A latency table of the 4.0 parts (live or replayed): every contender's row beside the raw
/// drain and ours, by `med` (a contender's median wall time); returns those two medians.
fn latency_vs_raw(
    s: &mut String,
    contenders: &[&str],
    lat: &BTreeMap<&str, Latency>,
    med: &dyn Fn(&str) -> f64,
) -> Result<(f64, f64)> {
    let (raw, ours) = (med("raw"), med("rust"));
    let cols = LatencyColumns {
        name,
        bytes: true,
        vs: &[("raw", raw), ("ours", ours)],
    };
    latency_table(s, &cols, contenders, lat)?;
    Ok((raw, ours))
}

fn name(c: &str) -> &'static str {
    match c {
        "rust" => "**graphbinary-rs** (ours)",
        "rust-drain" => "**graphbinary-rs**, streaming (each result dropped)",
        "rust-count" => "**graphbinary-rs**, counting only (`count()`: no result built)",
        "rust-keep" => "**graphbinary-rs**, collecting, glibc keeping freed memory (`GLIBC_TUNABLES`, see docs/guide/src/results.md)",
        "java" => "Java driver 4.0.0-beta.3",
        "go" => "gremlin-go v4.0.0-beta.3",
        "python" => "gremlinpython 4.0.0b3",
        "raw" => "raw byte drain (floor)",
        _ => "?",
    }
}

// ---------------------------------------------------------------------------------------------
// Memory

/// A query whose response is more than 1 GiB: 484,692 results (walks of length 13 on modern),
/// each a 2,300-character String.
fn memory_query() -> String {
    format!(
        "g.V().repeat(both()).times(13).constant('{}')",
        "x".repeat(2300)
    )
}

fn memory(rep: &mut Report, url: &str, client: &Path) -> Result<()> {
    let q = memory_query();
    let args: Vec<String> = [
        "--url",
        url,
        "--query",
        &q,
        "--mode",
        "latency",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--consume",
        "drain",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut c = Command::new(client);
    c.args(&args);
    let shown = show(&c).replace(&"x".repeat(2300), "x…(2,300 x)…x");
    rep.commands
        .push(shown.replace(&format!("{}/", project_root().display()), ""));
    eprintln!("xtask bench: {shown}");
    let out = c.output()?;
    if !out.status.success() {
        bail!(
            "memory run failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let j: Json = serde_json::from_str(&line)?;
    let bytes = j["bytes"].as_f64().unwrap_or(0.0);
    let rss = j["peak_rss_kib"].as_f64().unwrap_or(f64::NAN);
    let wall = j["runs"][0].as_f64().unwrap_or(f64::NAN);
    rep.raw.push(line.replace(&"x".repeat(2300), "x…x"));
    let mut s = String::new();
    writeln!(s, "## 3. Memory while streaming a large response\n")?;
    writeln!(
        s,
        "Our client (`bench_client --consume drain`) streams \
         `g.V().repeat(both()).times(13).constant('x…x')` (a 2,300-character literal), dropping \
         each result as it is decoded; peak RSS is the process's `VmHWM`.\n"
    )?;
    writeln!(
        s,
        "| response body | results | wall | throughput | peak RSS | target < 32 MiB |\n\
         |---:|---:|---:|---:|---:|---|"
    )?;
    writeln!(
        s,
        "| {:.2} GiB | {} | {} | {:.0} MB/s | {:.1} MiB | {} |\n",
        bytes / (1u64 << 30) as f64,
        j["results"],
        fmt_secs(wall),
        bytes / wall / 1e6,
        rss / 1024.0,
        yes(rss < 32.0 * 1024.0 && bytes >= (1u64 << 30) as f64)
    )?;
    rep.sections.push(s);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{as_is, Report, Rounds};

    /// A stand-in client: prints one JSON line of both modes.
    fn fake_client() -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = std::env::temp_dir().join(format!("xtask-fake-client-{}", std::process::id()));
        std::fs::write(
            &path,
            "#!/bin/sh\necho '{\"runs\":[0.5],\"cpu_secs\":0.25,\"results\":6,\"req_per_sec\":100}'\n",
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn report() -> Report {
        Report {
            commands: Vec::new(),
            sections: Vec::new(),
            raw: Vec::new(),
            value_route_bytes_per_sec: None,
        }
    }

    #[test]
    fn a_recorded_cargo_command_reads_as_cargo_not_the_toolchain_path() {
        let cargo = std::env::var("CARGO").expect("cargo sets CARGO for its tests");
        assert!(cargo.contains('/'), "{cargo}");
        let mut c = std::process::Command::new(&cargo);
        c.args(["build", "--release", "-p", "graphbinary-client"]);
        let mut rep = report();
        rep.cmd(&c);
        // Another program whose name starts like it is left alone.
        rep.cmd(&std::process::Command::new(format!("{cargo}-fuzz")));
        assert_eq!(
            rep.commands,
            [
                "cargo build --release -p graphbinary-client".to_string(),
                format!("{cargo}-fuzz"),
            ]
        );
    }

    #[test]
    fn rounds_rotate_the_contenders_and_pass_each_its_arguments() {
        let client = fake_client();
        let exe = client.display().to_string();
        let rounds = Rounds {
            client: &client,
            url: "http://h/g",
            reps: 2,
            prepare: &as_is,
        };
        let mut rep = report();
        let lat = rounds.latency(&mut rep, "g.V()", &["rust", "rust-drain"], 3);
        let q = "--url http://h/g --query g.V() --mode latency --runs 3";
        assert_eq!(
            rep.commands,
            [
                format!("{exe} {q}"),
                format!("{exe} --consume drain {q}"),
                format!("{exe} --consume drain {q}"),
                format!("{exe} {q}"),
            ]
        );
        assert_eq!(lat["rust"].runs, [0.5, 0.5]);
        assert!(lat["rust-drain"].error.is_none());

        // A contender not set up is recorded as failed and never run; one may run as another
        // with arguments of its own; the counter is read around each measurement.
        let prepare = |c: &'static str| match c {
            "rust-drain" => Err("not set up".to_string()),
            "rust-mux" => Ok(("rust", vec!["--connections".to_string(), "1".to_string()])),
            _ => Ok((c, Vec::new())),
        };
        let rounds = Rounds {
            prepare: &prepare,
            reps: 1,
            ..rounds
        };
        let mut rep = report();
        let n = std::cell::Cell::new(0);
        let counter = || {
            n.set(n.get() + 1);
            n.get()
        };
        let (t, grew) =
            rounds.throughput(&mut rep, &["rust-mux", "rust-drain"], (64, 500), &counter);
        let load =
            "--url http://h/g --query g.V() --mode throughput --concurrency 64 --requests 500";
        assert_eq!(rep.commands, [format!("{exe} {load} --connections 1")]);
        assert_eq!(t.median("rust-mux"), 100.0);
        assert!(!t.succeeded("rust-drain"));
        assert_eq!(grew["rust-mux"], [1.0]);
        assert!(!grew.contains_key("rust-drain"));
        let _ = std::fs::remove_file(client);
    }
}
