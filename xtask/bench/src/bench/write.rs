//! `cargo xtask bench --only write`: a whole graph written and read back. `graphbinary load`
//! (release build) writes air-routes (`../shared/datasets/air-routes`, 3,749 vertices and
//! 57,645 edges in the Neptune bulk-load CSV format) into the empty `g` of a Gremlin Server
//! 4.0.0-beta.3 (`--dataset integration`, started on `--write-port` unless one answers there),
//! through the batch writer (100 upserts per request, 1 in flight: TinkerGraph takes no
//! concurrent edge writes), against the per-element loop (`--batch-size 1`: one `mergeV` or
//! `mergeE` request per row, one at a time, the same code otherwise); then `graphbinary
//! export` reads it back. Each load starts from an empty graph and is checked whole
//! (`g.V().outE().count()` and `g.V().inE().count()` equal to the edges).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};

use super::Report;
use crate::util::{project_root, shared_dir};

/// The start of the section in BENCHMARKS.md (a `--only write` run replaces just this one).
pub const SECTION_START: &str = "## 7. Writing a whole graph";
/// air-routes' edges.
const EDGES: u64 = 57_645;
/// air-routes' rows (vertices and edges).
const ROWS: u64 = 3_749 + EDGES;

/// Runs `cmd` under `/usr/bin/time`: (wall seconds, peak RSS in MB, stdout).
fn timed(rep: &mut Report, cmd: Command, record: bool) -> Result<(f64, f64, String)> {
    let mut t = Command::new("/usr/bin/time");
    t.args(["-f", "peak-rss-kb %M"]).arg(cmd.get_program());
    t.args(cmd.get_args());
    if record {
        rep.cmd(&cmd);
    }
    let started = Instant::now();
    let out = t.output().context("running /usr/bin/time")?;
    let wall = started.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("{} failed: {}", crate::util::show(&cmd), err.trim());
    }
    let kb: f64 = err
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak-rss-kb "))
        .and_then(|k| k.trim().parse().ok())
        .with_context(|| format!("no peak RSS in {err:?}"))?;
    Ok((
        wall,
        kb / 1024.0,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
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

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Measures load (batched and per element) and export on a 4.0 server on `port` and adds the
/// section to `rep`.
pub fn run(quick: bool, port: u16, rep: &mut Report) -> Result<()> {
    let exe = super::process::build_graphbinary(rep)?;
    let data = shared_dir().join("datasets/air-routes");
    let nodes = data.join("air-routes-latest-nodes.csv");
    let edges = data.join("air-routes-latest-edges.csv");
    ensure!(
        nodes.exists() && edges.exists(),
        "{} not found (set GRAPHBINARY_SHARED)",
        data.display()
    );
    let server = crate::server::Server::tp4("integration");
    let _guard = server.ensure_running(port)?;
    let url = server.url(port);
    let out_dir = project_root().join("target/bench-write-export");
    let rounds = if quick { 1 } else { 3 };
    let per_element_rounds = 1;

    let load = |rep: &mut Report, batch: Option<&str>, record: bool| -> Result<(f64, f64)> {
        query(&exe, &url, "g.V().drop()")?;
        let mut c = Command::new(&exe);
        c.args(["load", "--url", &url, "--quiet", "--nodes"])
            .arg(&nodes)
            .arg("--edges")
            .arg(&edges);
        if let Some(b) = batch {
            c.args(["--batch-size", b]);
        }
        let (wall, rss, _) = timed(rep, c, record)?;
        let out_e = query(&exe, &url, "g.V().outE().count()")?;
        let in_e = query(&exe, &url, "g.V().inE().count()")?;
        ensure!(
            out_e == EDGES.to_string() && in_e == EDGES.to_string(),
            "the load left outE {out_e}, inE {in_e} for {EDGES} edges"
        );
        rep.raw.push(format!(
            "write load batch={}: {wall:.2} s, {rss:.1} MB, outE {out_e}, inE {in_e}",
            batch.unwrap_or("100")
        ));
        Ok((wall, rss))
    };

    let (mut lw, mut lr, mut ew, mut er) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (w, r) = load(rep, None, round == 0)?;
        lw.push(w);
        lr.push(r);
        let mut c = Command::new(&exe);
        c.args(["export", "--url", &url, "--out"]).arg(&out_dir);
        let (w, r, _) = timed(rep, c, round == 0)?;
        rep.raw.push(format!("write export: {w:.2} s, {r:.1} MB"));
        ew.push(w);
        er.push(r);
    }
    let (mut pw, mut pr) = (Vec::new(), Vec::new());
    for round in 0..per_element_rounds {
        let (w, r) = load(rep, Some("1"), round == 0)?;
        pw.push(w);
        pr.push(r);
    }
    query(&exe, &url, "g.V().drop()")?;

    let mut s = String::new();
    writeln!(
        s,
        "{SECTION_START}: air-routes loaded into Gremlin Server 4.0.0-beta.3 and exported\n"
    )?;
    writeln!(
        s,
        "`graphbinary load` (release build) writes air-routes ({} rows: 3,749 vertices, \
         57,645 edges, Neptune bulk-load CSV) into an empty TinkerGraph over HTTP, each run from \
         an empty graph and checked whole (`g.V().outE()` and `g.V().inE()` count every edge); \
         `graphbinary export` then reads it back into two files. The per-element loop is the \
         same loader with `--batch-size 1`: one `mergeV`/`mergeE` request per row, one at a \
         time. One request in flight throughout (TinkerGraph takes no concurrent edge writes, \
         see `process::Loader`). Wall time of the whole process, median of {rounds} run(s) \
         ({per_element_rounds} for the per-element loop); peak RSS of the process.\n",
        ROWS
    )?;
    writeln!(s, "| Writer | Wall time | Rows/s | Peak RSS | Speed-up |")?;
    writeln!(s, "|---|---:|---:|---:|---:|")?;
    let (l, p) = (median(&mut lw), median(&mut pw));
    let rate = |t: f64| format!("{:.0}", ROWS as f64 / t);
    writeln!(
        s,
        "| `graphbinary load` (batch writer, 100 upserts per request) | {l:.1} s | {} | {:.1} MB | {:.1}x |",
        rate(l),
        median(&mut lr),
        p / l
    )?;
    writeln!(
        s,
        "| per-element loop (`--batch-size 1`) | {p:.1} s | {} | {:.1} MB | 1.0x |",
        rate(p),
        median(&mut pr)
    )?;
    let e = median(&mut ew);
    writeln!(
        s,
        "| `graphbinary export` (read back, two streamed passes) | {e:.1} s | {} | {:.1} MB | |\n",
        rate(e),
        median(&mut er)
    )?;
    rep.sections.push(s);
    Ok(())
}
