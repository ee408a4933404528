//! `cargo xtask bench --only write`: air-routes (`../shared/datasets/air-routes`, 3,749
//! vertices and 57,645 edges in the Neptune bulk-load CSV format) written into the empty `g` of
//! a Gremlin Server 4.0.0-beta.3 (`--dataset integration` on `--write-port`) and of a Gremlin
//! Server 3.7.3 (the same dataset on `--write-port` + 1), each started unless one answers
//! there, by:
//!
//! * (a) a per-element loop as a user writes it, one upsert request per row, sequential, over
//!   the first [`SAMPLE`] rows (every vertex, then edges; gremlinpython: those of its first
//!   [`PYTHON_LOOP_SECS`] s): ours (`graphbinary-client/benches/write_loop.rs`: `merge_v` /
//!   `merge_e` of the traversal API, the row's maps as parameters), gremlinpython and
//!   gremlin-go (`xtask/peers/python/write.py`, `gowrite`/`gowrite3 --mode loop`);
//! * (b) gremlinpython and gremlin-go hand-batched with their own traversal API: 100 chained
//!   merges per request, 4 requests in flight for vertices and 1 for edges (`--mode batch`;
//!   bytecode on 3.7.3): their batches come in file order, and two edge requests at one vertex
//!   corrupt TinkerGraph (`process::Loader`), which ours avoids to send 4 edge requests at once;
//! * (c) `graphbinary load` (release build, the batch writer, its defaults: 100 rows per
//!   request as one merge step over them, a list literal on 4.0 and one binding on 3.7.3);
//! * (d) `graphbinary export` of what (c) wrote;
//! * (e) the floor: rows / ((the server's own CPU time while (c) wrote, all its threads from
//!   `/proc/PID/stat`, plus the writer's, its process's `RUSAGE_CHILDREN` share) / the
//!   machine's cores, `available_parallelism`): the rate were every core busy with that work
//!   alone, which no writer on this machine exceeds (server and writer share the cores).
//!
//! Every write starts from an empty graph and is checked (vertex count, `g.V().outE()` and
//! `g.V().inE()` counts). Verdicts for issues 39 and 40's targets close the section.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use serde_json::{json, Value as Json};

use super::Report;
use crate::util::{project_root, shared_dir};

/// The start of the section in BENCHMARKS.md (a `--only write` run replaces just this one).
pub const SECTION_START: &str = "## 7. Writing a whole graph";
/// Loads of the whole graph into each server before anything is measured.
const WARM_UPS: usize = 4;
/// air-routes' vertices and edges.
const VERTICES: u64 = 3_749;
const EDGES: u64 = 57_645;
/// air-routes' rows (vertices and edges).
const ROWS: u64 = VERTICES + EDGES;
/// The per-element loops' rows: every vertex, then the first edges.
const SAMPLE: u64 = 5_000;

/// At most this long for gremlinpython's per-element loop (it stops after the row in flight).
const PYTHON_LOOP_SECS: u64 = 30;

/// One server generation written to.
struct Target {
    label: &'static str,
    server: crate::server::Server,
    port: u16,
    /// The gremlinpython venv (`.bench-cache/NAME`) and the gremlin-go write peer binary.
    python: &'static str,
    go: &'static str,
}

/// One write: its rate, wall time, and the server's and the writer's CPU seconds during it.
#[derive(Clone, Copy, Default)]
struct Run {
    wall: f64,
    rows: u64,
    server_cpu: f64,
    writer_cpu: f64,
}

impl Run {
    fn rate(&self) -> f64 {
        self.rows as f64 / self.wall
    }
    /// The server's CPU per row, µs.
    fn cpu_us(&self) -> f64 {
        self.server_cpu / self.rows as f64 * 1e6
    }
}

/// What one target measured; `None` for a peer not set up (or failed, with why in `notes`).
#[derive(Default)]
struct Results {
    loops: [Option<Run>; 3],
    batches: [Option<Run>; 2],
    ours: Option<Run>,
    export: Option<Run>,
    notes: Vec<String>,
}

fn query(exe: &Path, url: &str, gremlin: &str) -> Result<String> {
    let out = Command::new(exe)
        .args(["query", "--url", url, gremlin])
        .output()
        .context("graphbinary query")?;
    ensure!(
        out.status.success(),
        "{gremlin}: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The pid of the process listening on 127.0.0.1:`port` (`ss -ltnp`).
fn listener_pid(port: u16) -> Option<u32> {
    let out = Command::new("ss")
        .args(["-Hltnp", &format!("sport = :{port}")])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find("pid=")? + 4;
    text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// User + system CPU seconds of this process's children that have ended and been waited for.
fn children_cpu_secs() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(f64::NAN, |u| {
        let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
        secs(u.user_time()) + secs(u.system_time())
    })
}

/// User + system CPU seconds of process `pid`, all its threads (`/proc/PID/stat`).
fn cpu_secs(pid: Option<u32>) -> f64 {
    let Some(pid) = pid else { return f64::NAN };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, r)| r.split_whitespace().collect())
        .unwrap_or_default();
    // utime and stime, fields 14 and 15 (11 and 12 after the command name), in clock ticks.
    let tick = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (tick(11), tick(12)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => f64::NAN,
    }
}

/// The sample files: every vertex, then edges up to [`SAMPLE`] rows in all.
fn sample_files(nodes: &Path, edges: &Path, dir: &Path) -> Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let n = dir.join("sample-nodes.csv");
    let e = dir.join("sample-edges.csv");
    std::fs::copy(nodes, &n)?;
    let text = std::fs::read_to_string(edges)?;
    // air-routes has no line breaks inside cells: a line is a row.
    let keep: Vec<&str> = text
        .lines()
        .take(1 + (SAMPLE - VERTICES) as usize)
        .collect();
    std::fs::write(&e, keep.join("\n") + "\n")?;
    Ok((n, e))
}

struct Bench<'a> {
    exe: &'a Path,
    url: String,
    pid: Option<u32>,
    files: (PathBuf, PathBuf),
    sample: (PathBuf, PathBuf),
    label: &'static str,
}

impl Bench<'_> {
    /// Empties the graph, runs `cmd` (ours: its whole process is timed; a peer's own JSON line
    /// gives its write time and rows), checks what it wrote.
    fn write(&self, rep: &mut Report, what: &str, mut cmd: Command, sample: bool) -> Result<Run> {
        query(self.exe, &self.url, "g.V().drop()")?;
        rep.cmd(&cmd);
        eprintln!("xtask bench: {}", crate::util::show(&cmd));
        let cpu0 = cpu_secs(self.pid);
        let writer0 = children_cpu_secs();
        let started = Instant::now();
        let out = cmd
            .current_dir(project_root())
            .output()
            .with_context(|| format!("running {what}"))?;
        let mut wall = started.elapsed().as_secs_f64();
        let server_cpu = cpu_secs(self.pid) - cpu0;
        let writer_cpu = children_cpu_secs() - writer0;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            bail!(
                "{what} failed ({}): {}",
                out.status,
                err.lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
            );
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        let (mut v, mut e) = if sample {
            (VERTICES, SAMPLE - VERTICES)
        } else {
            (VERTICES, EDGES)
        };
        if let Some(line) = stdout.lines().rev().find(|l| l.starts_with('{')) {
            let j: Json = serde_json::from_str(line).context("a peer's JSON line")?;
            wall = j["wall_secs"].as_f64().context("no wall_secs")?;
            // A loop stopped by --max-secs: its first rows (vertices first).
            let n = j["elements"].as_u64().context("no elements")?;
            if n < v + e {
                (v, e) = (n.min(VERTICES), n.saturating_sub(VERTICES));
            }
        }
        let got_v = query(self.exe, &self.url, "g.V().count()")?;
        let out_e = query(self.exe, &self.url, "g.V().outE().count()")?;
        let in_e = query(self.exe, &self.url, "g.V().inE().count()")?;
        ensure!(
            got_v == v.to_string() && out_e == e.to_string() && in_e == e.to_string(),
            "{what} left {got_v} vertices, outE {out_e}, inE {in_e} for {v} and {e}"
        );
        let run = Run {
            wall,
            rows: v + e,
            server_cpu,
            writer_cpu,
        };
        rep.raw.push(
            json!({"label": format!("write {} {what}", self.label), "rows": run.rows,
                "wall_secs": wall, "per_sec": run.rate(), "server_cpu_secs": server_cpu,
                "writer_cpu_secs": writer_cpu})
            .to_string(),
        );
        Ok(run)
    }

    fn ours(&self) -> Command {
        let (n, e) = &self.files;
        let mut c = Command::new(self.exe);
        c.args(["load", "--url", &self.url, "--quiet", "--nodes"])
            .arg(n)
            .arg("--edges")
            .arg(e);
        c
    }

    fn peer(&self, mut c: Command, loop_: bool) -> Command {
        let (n, e) = if loop_ { &self.sample } else { &self.files };
        c.args(["--url", &self.url, "--nodes"])
            .arg(n)
            .arg("--edges")
            .arg(e);
        if loop_ {
            c.args(["--mode", "loop", "--sample", &SAMPLE.to_string()]);
        } else {
            c.args(["--mode", "batch", "--batch", "100"]);
            c.args(["--in-flight", "4", "--edge-in-flight", "1"]);
        }
        c
    }
}

fn median_run(mut v: Vec<Run>) -> Option<Run> {
    v.sort_by(|a, b| a.wall.total_cmp(&b.wall));
    v.get(v.len() / 2).copied()
}

/// Measures one target; a peer that fails is noted and left out.
fn measure(
    rep: &mut Report,
    exe: &Path,
    write_loop: &Path,
    t: &Target,
    quick: bool,
) -> Result<Results> {
    let root = project_root();
    let data = shared_dir().join("datasets/air-routes");
    let files = (
        data.join("air-routes-latest-nodes.csv"),
        data.join("air-routes-latest-edges.csv"),
    );
    ensure!(
        files.0.exists() && files.1.exists(),
        "{} not found (set GRAPHBINARY_SHARED)",
        data.display()
    );
    let sample = sample_files(&files.0, &files.1, &root.join("target/bench-write"))?;
    let _guard = t.server.ensure_running(t.port)?;
    let b = Bench {
        exe,
        url: t.server.url(t.port),
        pid: listener_pid(t.port),
        files,
        sample,
        label: t.label,
    };
    let python = root.join(format!(".bench-cache/{}/bin/python", t.python));
    let go = root.join(format!(".bench-cache/peers/{}", t.go));
    let py_cmd = || {
        let mut c = Command::new(&python);
        c.arg(root.join("xtask/peers/python/write.py"));
        c
    };
    let mut r = Results::default();
    // Warm-up loads (not recorded): the server's JIT, before anything is measured. One was
    // not enough for 3.7.3: air-routes loaded by hand into one server took 5.4, 3.0, 2.6 s,
    // then 1.8-2.0 s from the sixth load on (2026-12-07).
    for _ in 0..if quick { 1 } else { WARM_UPS } {
        b.write(rep, "warm-up", b.ours(), false)?;
        rep.raw.pop();
    }
    let note = |r: &mut Results, who: &str, e: anyhow::Error| {
        eprintln!("xtask bench: {who} on {}: {e:#}", t.label);
        r.notes.push(format!("{who} on {}: {e:#}", t.label));
    };
    // (a) the loops.
    let ours_loop = b.peer(Command::new(write_loop), true);
    r.loops[0] = Some(b.write(rep, "loop ours", ours_loop, true)?);
    for (i, (who, exists, cmd)) in [
        ("loop python", python.exists(), {
            // gremlinpython 4.0.0b3's loop can take ~80 ms a request: bounded in time.
            let mut c = b.peer(py_cmd(), true);
            c.args(["--max-secs", &PYTHON_LOOP_SECS.to_string()]);
            c
        }),
        ("loop go", go.exists(), b.peer(Command::new(&go), true)),
    ]
    .into_iter()
    .enumerate()
    {
        if exists {
            match b.write(rep, who, cmd, true) {
                Ok(run) => r.loops[i + 1] = Some(run),
                Err(e) => note(&mut r, who, e),
            }
        }
    }
    // (b) and (c), alternating ours and gremlin-go (the two closest), gremlinpython once.
    let rounds = if quick { 1 } else { 3 };
    let (mut ours, mut gos) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        ours.push(b.write(rep, "load", b.ours(), false)?);
        if go.exists() && round < 2 {
            match b.write(rep, "batch go", b.peer(Command::new(&go), false), false) {
                Ok(run) => gos.push(run),
                Err(e) => note(&mut r, "batch go", e),
            }
        }
    }
    r.ours = median_run(ours);
    r.batches[1] = median_run(gos);
    // (d) export what the last load wrote.
    let out_dir = root.join("target/bench-write/export");
    let mut c = Command::new(exe);
    c.args(["export", "--url", &b.url, "--out"]).arg(&out_dir);
    rep.cmd(&c);
    let started = Instant::now();
    let out = c.output().context("graphbinary export")?;
    ensure!(
        out.status.success(),
        "export: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    let wall = started.elapsed().as_secs_f64();
    rep.raw
        .push(json!({"label": format!("write {} export", t.label), "wall_secs": wall}).to_string());
    r.export = Some(Run {
        wall,
        rows: ROWS,
        server_cpu: f64::NAN,
        writer_cpu: f64::NAN,
    });
    if python.exists() {
        match b.write(rep, "batch python", b.peer(py_cmd(), false), false) {
            Ok(run) => r.batches[0] = Some(run),
            Err(e) => note(&mut r, "batch python", e),
        }
    }
    query(exe, &b.url, "g.V().drop()")?;
    Ok(r)
}

fn rate(r: Option<Run>) -> String {
    r.map_or("-".into(), |r| format!("{:.0}", r.rate()))
}

fn cpu(r: Option<Run>) -> String {
    match r.map(|r| r.cpu_us()) {
        Some(us) if us.is_finite() => format!("{us:.0}"),
        _ => "-".into(),
    }
}

/// The verdict of `ours` >= `times` x `other`.
fn at_least(ours: f64, other: f64, times: f64) -> (f64, &'static str) {
    let x = ours / other;
    (x, if x >= times { "met" } else { "**not met**" })
}

/// Measures every target and adds the section to `rep`.
pub fn run(quick: bool, port: u16, rep: &mut Report) -> Result<()> {
    let exe = super::process::build_graphbinary(rep)?;
    // With the CLI's features: one release build of the client for both.
    let selection = ["-p", "graphbinary-client", "--features", "cli"];
    let write_loop =
        crate::util::build_tool_as("write_loop", true, &selection, &mut |c| rep.cmd(c))?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (log, _) = super::setup_sh(rep, &["python", "python3", "go", "go3"])?;
    let unavailable: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("setup.sh: unavailable: "))
        .collect();
    let targets = [
        Target {
            label: "4.0",
            server: crate::server::Server::tp4("integration"),
            port,
            python: "python",
            go: "gowrite",
        },
        Target {
            label: "3.7.3",
            server: crate::server::Server::tp3(super::tp3::VERSION, "integration"),
            port: port.saturating_add(1),
            python: "python3",
            go: "gowrite3",
        },
    ];
    let mut res = Vec::new();
    for t in &targets {
        res.push(measure(rep, &exe, &write_loop, t, quick)?);
    }

    let mut s = String::new();
    writeln!(
        s,
        "{SECTION_START}: air-routes into Gremlin Server 4.0.0-beta.3 and 3.7.3\n"
    )?;
    let all_cores = if cores == 2 {
        "both cores".to_owned()
    } else {
        format!("{cores} cores")
    };
    writeln!(
        s,
        "air-routes ({ROWS} rows, Neptune CSV) into an empty TinkerGraph, counts checked. \
         Rows/s; *srv* the server's CPU per row (µs, all threads). \
         (a) one request per row, sequential, first {SAMPLE} rows (gremlinpython: its first \
         {PYTHON_LOOP_SECS} s); ours: `benches/write_loop.rs`, parameters. (b) 100 chained \
         merges per request (bytecode on 3.7.3); (c) 100 rows per request in one step (4.0: a \
         list literal; 3.7.3: a binding); in flight: (b) 4 for vertices, 1 for edges (more \
         corrupt TinkerGraph), (c) 4, never two at one vertex. Servers warmed by {} loads of (c). (c): whole process, median of {}, gremlin-go of {}; others: their write loop. \
         (e) floor: rows / ((server + loader CPU) during (c) / {all_cores}).\n",
        if quick { 1 } else { WARM_UPS },
        if quick { 1 } else { 3 },
        if quick { 1 } else { 2 }
    )?;
    writeln!(s, "| Writer | 4.0 | srv | 3.7.3 | srv |")?;
    writeln!(s, "|---|---:|---:|---:|---:|")?;
    let row = |s: &mut String, name: &str, f: &dyn Fn(&Results) -> Option<Run>| {
        let _ = writeln!(
            s,
            "| {name} | {} | {} | {} | {} |",
            rate(f(&res[0])),
            cpu(f(&res[0])),
            rate(f(&res[1])),
            cpu(f(&res[1]))
        );
    };
    row(&mut s, "(a) loop, ours", &|r| r.loops[0]);
    row(&mut s, "(a) loop, gremlinpython", &|r| r.loops[1]);
    row(&mut s, "(a) loop, gremlin-go", &|r| r.loops[2]);
    row(&mut s, "(b) gremlinpython", &|r| r.batches[0]);
    row(&mut s, "(b) gremlin-go", &|r| r.batches[1]);
    row(&mut s, "(c) `graphbinary load`", &|r| r.ours);
    let _ = writeln!(
        s,
        "| (c) wall time | {:.1} s | | {:.1} s | |",
        res[0].ours.map_or(f64::NAN, |r| r.wall),
        res[1].ours.map_or(f64::NAN, |r| r.wall)
    );
    row(&mut s, "(d) `graphbinary export`", &|r| r.export);
    let loader_us = |r: &Results| {
        r.ours
            .map_or(f64::NAN, |o| o.writer_cpu / ROWS as f64 * 1e6)
    };
    let _ = writeln!(
        s,
        "| (c) loader CPU/row, µs | {:.0} | | {:.0} | |",
        loader_us(&res[0]),
        loader_us(&res[1])
    );
    let floor = |r: &Results| {
        r.ours
            .map(|o| ROWS as f64 / ((o.server_cpu + o.writer_cpu) / cores as f64))
    };
    let _ = writeln!(
        s,
        "| (e) floor: (server + loader CPU) / cores | {:.0} | | {:.0} | |\n",
        floor(&res[0]).unwrap_or(f64::NAN),
        floor(&res[1]).unwrap_or(f64::NAN)
    );

    writeln!(s, "Verdicts (issues 39 and 40):\n")?;
    for (t, r) in targets.iter().zip(&res) {
        let Some(ours) = r.ours else { continue };
        if let Some(l) = r.loops[0] {
            let (x, v) = at_least(ours.rate(), l.rate(), 20.0);
            let floor = floor(r).unwrap_or(f64::NAN);
            let reach = if x < 20.0 && 20.0 * l.rate() > floor {
                format!(
                    " (out of reach: 20x the loop, {:.0}, > the floor (e), {floor:.0})",
                    20.0 * l.rate()
                )
            } else {
                String::new()
            };
            writeln!(
                s,
                "* {}: load >= 20x our loop: {x:.1}x: {v}{reach}",
                t.label
            )?;
        }
        let best = r
            .batches
            .iter()
            .zip(["gremlinpython", "gremlin-go"])
            .filter_map(|(b, n)| b.map(|b| (b.rate(), n)))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((peer, name)) = best {
            let (x, v) = at_least(ours.rate(), peer, 1.2);
            let floor = floor(r).unwrap_or(f64::NAN);
            let reach = if x < 1.2 && floor < 1.2 * peer {
                format!(
                    " (out of reach: the floor (e), {floor:.0}, < 1.2x = {:.0})",
                    1.2 * peer
                )
            } else {
                String::new()
            };
            writeln!(
                s,
                "* {}: load >= 1.2x the best peer ({name}): {x:.2}x: {v}{reach}",
                t.label
            )?;
        }
    }
    if let Some(o) = res[0].ours {
        writeln!(
            s,
            "* 4.0: air-routes in under 10 s: {:.1} s: {}",
            o.wall,
            if o.wall < 10.0 { "met" } else { "**not met**" }
        )?;
    }
    for n in res.iter().flat_map(|r| &r.notes) {
        writeln!(s, "* failed, left out: {n}")?;
    }
    for u in unavailable {
        writeln!(s, "* unavailable, not measured: {u}")?;
    }
    writeln!(s)?;
    rep.sections.push(s);
    Ok(())
}
