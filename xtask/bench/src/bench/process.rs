//! Section 4 of `cargo xtask bench` (`--only process`): the whole process, start-up included.
//! `graphbinary decode` (release build) against gremlinpython 4.0.0b3 deserializing the very
//! same bytes: the corpora of `benches/common/mod.rs`, written once to
//! `target/bench-corpus/<corpus>.gb` by `benches/write_corpus.rs`, and read by
//! `xtask/peers/python/decode_file.py` the way gremlinpython's driver reads an HTTP response
//! body. Every contender prints the number of results, which is checked.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::Value as Json;

use super::{fmt_secs, median_of, yes, Opts, Report};
use crate::util::{project_root, show};

/// The corpora measured: those of the targets, then one more shape.
const CORPORA: [&str; 5] = [
    "vertices_200k",
    "element_maps_100k",
    "paths_50k",
    "strings_1m",
    "bulked_mixed_500k",
];
/// The corpora the targets are stated on.
const TARGET_CORPORA: [&str; 4] = [
    "vertices_200k",
    "element_maps_100k",
    "paths_50k",
    "strings_1m",
];
/// A response with no result (header, marker, status 200): what starting the process costs.
const EMPTY: &str = "empty";
const EMPTY_BYTES: [u8; 11] = [
    0x84, 0x00, 0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01,
];

const CONTENDERS: [(&str, &str); 4] = [
    ("count", "`graphbinary decode --format count FILE`"),
    (
        "count_1k",
        "`graphbinary decode --format count --chunk-size 1024 FILE`",
    ),
    (
        "values",
        "`graphbinary decode --format count-values FILE` (every result built as a `Value`)",
    ),
    (
        "python",
        "gremlinpython 4.0.0b3, every result deserialized (`decode_file.py FILE`)",
    ),
];

/// The user+system CPU time of the waited-for children so far, in seconds.
fn children_cpu() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    match getrusage(UsageWho::RUSAGE_CHILDREN) {
        Ok(u) => {
            let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
            t(u.user_time()) + t(u.system_time())
        }
        Err(_) => f64::NAN,
    }
}

#[derive(Default)]
struct Samples {
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

struct Tools {
    cli: PathBuf,
    /// The venv's interpreter and the script, unless the Python peer could not be set up.
    python: Option<(PathBuf, PathBuf)>,
}

impl Tools {
    fn command(&self, contender: &str, file: &Path) -> Option<Command> {
        let mut c;
        match contender {
            "python" => {
                let (py, script) = self.python.as_ref()?;
                c = Command::new(py);
                c.arg(script);
            }
            _ => {
                c = Command::new(&self.cli);
                c.arg("decode").arg("--format");
                match contender {
                    "count" => c.arg("count"),
                    "count_1k" => c.args(["count", "--chunk-size", "1024"]),
                    _ => c.arg("count-values"),
                };
            }
        }
        c.arg(file).current_dir(project_root());
        Some(c)
    }
}

/// Runs `c` once; its wall and CPU time, after checking it printed `expect`.
fn time_one(c: &mut Command, expect: u64) -> Result<(f64, f64)> {
    let cpu0 = children_cpu();
    let t0 = Instant::now();
    let out = c
        .output()
        .with_context(|| format!("could not start `{}`", show(c)))?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu0;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || stdout.trim() != expect.to_string() {
        bail!(
            "`{}` ({}) printed {:?}, expected {expect}: {}",
            show(c),
            out.status,
            stdout.trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok((wall, cpu))
}

/// Builds the `graphbinary` binary (release, feature `cli`) and returns its path.
pub(super) fn build_graphbinary(rep: &mut Report) -> Result<std::path::PathBuf> {
    crate::util::build_cli(false, &mut |c| rep.cmd(c))
}

pub(super) fn process(o: &Opts, rep: &mut Report) -> Result<()> {
    let root = project_root();
    build_graphbinary(rep)?;
    let write_corpus = super::build_tool("write_corpus", true, &mut |c| rep.cmd(c))?;

    // The corpora, written once (a file already holding the same bytes is left alone).
    let dir = root.join("target/bench-corpus");
    let mut write = Command::new(write_corpus);
    write
        .current_dir(&root)
        .env("BENCH_CORPORA", CORPORA.join(","))
        .arg(&dir);
    rep.commands.push(format!(
        "BENCH_CORPORA={} {}",
        CORPORA.join(","),
        show(&write).replace(&format!("{}/", root.display()), "")
    ));
    let out = write.output().context("could not start write_corpus")?;
    if !out.status.success() {
        bail!(
            "write_corpus failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    // corpus -> (results with bulks summed, bytes, path)
    let mut corpora: BTreeMap<String, (u64, u64, PathBuf)> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let j: Json = serde_json::from_str(line)?;
        corpora.insert(
            j["corpus"].as_str().unwrap_or("").to_string(),
            (
                j["count"].as_u64().unwrap_or(0),
                j["bytes"].as_u64().unwrap_or(0),
                PathBuf::from(j["path"].as_str().unwrap_or("")),
            ),
        );
    }
    let empty = dir.join(format!("{EMPTY}.gb"));
    std::fs::write(&empty, EMPTY_BYTES)?;
    corpora.insert(EMPTY.into(), (0, EMPTY_BYTES.len() as u64, empty.clone()));
    for c in CORPORA {
        if !corpora.contains_key(c) {
            bail!("write_corpus did not write {c}");
        }
    }

    // gremlinpython, in the peers' venv.
    let mut setup = Command::new(root.join("xtask/peers/setup.sh"));
    setup.current_dir(&root).arg("python");
    rep.cmd(&setup);
    let python = match crate::util::run(&mut setup) {
        Ok(()) => Some((
            root.join(".bench-cache/python/bin/python"),
            root.join("xtask/peers/python/decode_file.py"),
        )),
        Err(e) => {
            eprintln!("xtask bench: gremlinpython unavailable, not measured: {e:#}");
            None
        }
    };
    let tools = Tools {
        cli: root.join("target/release/graphbinary"),
        python,
    };

    let rounds = if o.quick { 1 } else { 5 };
    let ours_per_round = 3;
    let mut shown = std::collections::BTreeSet::new();
    let mut samples: BTreeMap<(String, &str), Samples> = BTreeMap::new();
    let order: Vec<&str> = std::iter::once(EMPTY).chain(CORPORA).collect();
    for name in &order {
        let (results, _, path) = corpora[*name].clone();
        // Warm-up (page cache, Python's bytecode cache), not measured: each of ours once on
        // every corpus, Python once on the empty response.
        for (id, _) in CONTENDERS {
            if id == "python" && *name != EMPTY {
                continue;
            }
            if let Some(mut c) = tools.command(id, &path) {
                time_one(&mut c, results)?;
            }
        }
        for round in 0..rounds {
            // The order rotates from round to round.
            for i in 0..CONTENDERS.len() {
                let (id, _) = CONTENDERS[(i + round) % CONTENDERS.len()];
                let Some(mut c) = tools.command(id, &path) else {
                    continue;
                };
                let shown_cmd = show(&c).replace(&format!("{}/", root.display()), "");
                if shown.insert(shown_cmd.clone()) {
                    rep.commands.push(shown_cmd);
                }
                let times = if id == "python" { 1 } else { ours_per_round };
                for _ in 0..times {
                    let (wall, cpu) = time_one(&mut c, results)?;
                    let e = samples.entry((name.to_string(), id)).or_default();
                    e.wall.push(wall);
                    e.cpu.push(cpu);
                }
            }
        }
        eprintln!("xtask bench: process: {name} measured");
    }

    let med = |name: &str, id: &str| -> (f64, f64) {
        samples
            .get(&(name.to_string(), id))
            .map(|s| (median_of(s.wall.clone()), median_of(s.cpu.clone())))
            .unwrap_or((f64::NAN, f64::NAN))
    };
    let mut s = String::new();
    writeln!(
        s,
        "## 4. Whole process: `graphbinary decode` against gremlinpython\n"
    )?;
    writeln!(
        s,
        "The corpora of section 1, written once to `target/bench-corpus/<corpus>.gb` by\n\
         `benches/write_corpus.rs`; every contender reads the same file and prints the number\n\
         of results (checked). Ours: the release build of the `graphbinary` CLI; `count` steps\n\
         over every value without building it; `--chunk-size 1024` reads the file in 256 KiB\n\
         blocks and hands the decoder at most 1 KiB per read (the refill path); `count-values`\n\
         builds every result as a `Value`. gremlinpython 4.0.0b3 (`xtask/peers/python/decode_file.py`):\n\
         `GraphBinarySerializersV4().deserialize_response_stream` over the file's bytes in an\n\
         `io.BytesIO`, as its driver's `Connection._receive` iterates it over an HTTP body (an\n\
         `io.BytesIO` reads faster than the driver's aiohttp stream), every result built and\n\
         dropped. `empty` is a response with no result: what starting each process costs.\n\
         Each time is the whole process (start-up, reading the file, decoding, exit), median\n\
         over {rounds} round(s) in rotating order, ours {ours_per_round} runs per round and\n\
         Python 1, after one unmeasured warm-up run. CPU = the child's user+system time\n\
         (`getrusage(RUSAGE_CHILDREN)` around each run); the ratios and targets use CPU time,\n\
         which waiting for a core on this shared machine does not inflate; wall ratios beside.\n"
    )?;
    writeln!(
        s,
        "| corpus | size | results (bulks summed) | contender | median wall | median CPU | MB/s (CPU) | gremlinpython CPU ÷ this | gremlinpython wall ÷ this |\n\
         |---|---:|---:|---|---:|---:|---:|---:|---:|"
    )?;
    for name in &order {
        let (results, bytes, _) = corpora[*name].clone();
        let (py_wall, py_cpu) = med(name, "python");
        for (id, label) in CONTENDERS {
            if !samples.contains_key(&(name.to_string(), id)) {
                writeln!(s, "| {name} | | | {label} | not measured | | | | |")?;
                continue;
            }
            let (wall, cpu) = med(name, id);
            let size = if bytes >= 1_000_000 {
                format!("{:.1} MB", bytes as f64 / 1e6)
            } else {
                format!("{bytes} B")
            };
            writeln!(
                s,
                "| {name} | {size} | {results} | {label} | {} | {} | {} | {} | {} |",
                fmt_secs(wall),
                fmt_secs(cpu),
                if results == 0 {
                    "-".into()
                } else {
                    format!("{:.0}", bytes as f64 / cpu / 1e6)
                },
                ratio(py_cpu / cpu),
                ratio(py_wall / wall),
            )?;
        }
    }

    writeln!(s, "\n### Targets (whole process, CPU time)\n")?;
    writeln!(s, "| target | measured | met? |\n|---|---|---|")?;
    let speedup = |name: &str, id: &str| med(name, "python").1 / med(name, id).1;
    let speedup_wall = |name: &str, id: &str| med(name, "python").0 / med(name, id).0;
    let each: Vec<f64> = TARGET_CORPORA.iter().map(|c| speedup(c, "count")).collect();
    let each_wall: Vec<f64> = TARGET_CORPORA
        .iter()
        .map(|c| speedup_wall(c, "count"))
        .collect();
    let median = median_of(each.clone());
    let list = |v: &[f64]| {
        TARGET_CORPORA
            .iter()
            .zip(v)
            .map(|(c, r)| format!("{c} {}", ratio(*r)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    writeln!(
        s,
        "| `decode --format count` >= 80x gremlinpython at the median of vertices, maps, paths, strings | {} (wall: {}) | {} |",
        ratio(median),
        ratio(median_of(each_wall.clone())),
        yes(median >= 80.0)
    )?;
    let worst = each.iter().copied().fold(f64::INFINITY, f64::min);
    writeln!(
        s,
        "| `decode --format count` >= 50x gremlinpython on each | {} (wall: {}) | {} |",
        list(&each),
        list(&each_wall),
        yes(worst >= 50.0)
    )?;
    let kept: Vec<f64> = CORPORA
        .iter()
        .map(|c| med(c, "count").1 / med(c, "count_1k").1)
        .collect();
    let worst_kept = kept.iter().copied().fold(f64::INFINITY, f64::min);
    writeln!(
        s,
        "| `--chunk-size 1024` keeps >= 0.8 of the default speed | {} | {} |",
        CORPORA
            .iter()
            .zip(&kept)
            .map(|(c, k)| format!("{c} {k:.2}"))
            .collect::<Vec<_>>()
            .join(", "),
        yes(worst_kept >= 0.8)
    )?;
    let values: Vec<String> = TARGET_CORPORA
        .iter()
        .map(|c| format!("{c} {}", ratio(speedup(c, "values"))))
        .collect();
    writeln!(
        s,
        "| (for reference) `--format count-values` against gremlinpython | {} | |\n",
        values.join(", ")
    )?;
    rep.sections.push(s);
    Ok(())
}

fn ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.1}x")
    } else {
        "-".into()
    }
}
