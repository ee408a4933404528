//! Section 1 of `cargo xtask bench`: in-process decoding (criterion, `benches/decode.rs` for
//! the ways bytes arrive, `benches/serde.rs` for the routes a result takes), allocations
//! per result (`benches/alloc.rs`), and the issue 13 targets measured interleaved
//! (`benches/ab.rs`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::Value as Json;

use super::{fmt_rate, fmt_secs, yes, Opts, Report, CORPORA, MODES};
use crate::util::project_root;

/// The routes of `benches/serde.rs` measured here, with their labels. (Its `value` route is
/// mode (b) `for_each_result` of `decode.rs`, already measured.)
const ROUTES: [(&str, &str); 3] = [
    (
        "value_convert",
        "`Value` route + convert by hand to a struct (8 KiB reads)",
    ),
    (
        "serde_struct",
        "serde into a matching struct, `for_each_as` (8 KiB reads)",
    ),
    ("count", "count only, `for_each_skipped` (8 KiB reads)"),
];

/// The JSON lines a benchmark wrote to `path` (one object per line, with `corpus` and `mode`),
/// by (corpus, mode); each line is kept among the report's raw lines.
fn by_corpus_and_mode(
    path: &std::path::Path,
    rep: &mut Report,
) -> Result<BTreeMap<(String, String), Json>> {
    let mut by = BTreeMap::new();
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    for line in text.lines() {
        let j: Json = serde_json::from_str(line)?;
        let key = (
            j["corpus"].as_str().unwrap_or("").to_string(),
            j["mode"].as_str().unwrap_or("").to_string(),
        );
        by.insert(key, j);
        rep.raw.push(line.to_string());
    }
    Ok(by)
}

pub(super) fn inproc(o: &Opts, rep: &mut Report) -> Result<()> {
    let root = project_root();
    let (warm, measure) = if o.quick { ("0.5", "1") } else { ("1", "3") };
    let crit = root.join("target/criterion");
    for c in CORPORA {
        let _ = std::fs::remove_dir_all(crit.join(format!("decode_{c}")));
        let _ = std::fs::remove_dir_all(crit.join(format!("serde_{c}")));
    }
    // `cargo bench -p graphbinary-client --bench NAME` with `env`, and criterion's times for
    // the criterion benches.
    let run_bench = |rep: &mut Report, name: &str, env: &[(&str, String)], criterion: bool| {
        let mut cmd = Command::new("cargo");
        cmd.current_dir(&root)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .args(["bench", "-p", "graphbinary-client", "--bench", name]);
        if criterion {
            cmd.args(["--", "--warm-up-time", warm, "--measurement-time", measure]);
        }
        rep.cmd(&cmd);
        crate::util::run(&mut cmd)
    };
    run_bench(rep, "decode", &[], true)?;
    let modes = ROUTES.map(|(id, _)| id).join(",");
    run_bench(rep, "serde", &[("BENCH_MODES", modes)], true)?;
    run_bench(rep, "alloc", &[], false)?;
    let rounds = if o.quick { "5" } else { "21" };
    run_bench(rep, "ab", &[("AB_ROUNDS", rounds.to_owned())], false)?;
    // (corpus, mode) -> (results, bytes, allocs per result)
    let allocs: BTreeMap<_, _> = by_corpus_and_mode(&crit.join("alloc.jsonl"), rep)?
        .into_iter()
        .map(|(k, j)| {
            let v = (
                j["results"].as_f64().unwrap_or(0.0),
                j["bytes"].as_f64().unwrap_or(0.0),
                j["allocs_per_result"].as_f64().unwrap_or(f64::NAN),
            );
            (k, v)
        })
        .collect();
    // (corpus, mode) -> (median seconds, rounds, bytes)
    let inter: BTreeMap<_, _> = by_corpus_and_mode(&crit.join("ab.jsonl"), rep)?
        .into_iter()
        .map(|(k, j)| {
            let v = (
                j["median_secs"].as_f64().unwrap_or(f64::NAN),
                j["rounds"].as_u64().unwrap_or(0),
                j["bytes"].as_f64().unwrap_or(f64::NAN),
            );
            (k, v)
        })
        .collect();
    let interleaved = |c: &str, m: &str| -> Result<(f64, u64, f64)> {
        inter
            .get(&(c.to_string(), m.to_string()))
            .copied()
            .with_context(|| format!("benches/ab.rs measured no {c} {m}"))
    };
    // The criterion median of `<group>_<corpus>/<mode>`, in seconds.
    let median = |group: &str, corpus: &str, mode: &str| -> Result<f64> {
        let p = crit.join(format!("{group}_{corpus}/{mode}/new/estimates.json"));
        let j: Json = serde_json::from_str(
            &std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?,
        )?;
        Ok(j["median"]["point_estimate"].as_f64().unwrap_or(f64::NAN) / 1e9)
    };

    let mut s = String::new();
    writeln!(s, "## 1. In-process decoding\n")?;
    writeln!(
        s,
        "Each corpus is a whole GraphBinary 4 response generated in-process by the model's writer\n\
         (deterministic; see `graphbinary-client/benches/common/mod.rs`). Every result is dropped\n\
         as soon as it is decoded. (a) the fast path over one contiguous slice; (b) `read_response`\n\
         over a reader that returns 8 KiB per read (read buffer 64 KiB), consumed two ways: with\n\
         `StreamExt::next` (one `poll_next` per result) and with `ResponseStream::for_each_result`\n\
         (a closure per result; the buffered results are decoded in one synchronous loop: the\n\
         `Value` route); (c) 1 KiB per read, `StreamExt::next`; (d) as (b) with `StreamExt::next`\n\
         and `ReadOptions::fast_path = false`, so every value takes the async slow path.\n\
         Then the routes of `benches/serde.rs`, each over the reader of (b): the `Value` route\n\
         with each `Value` converted by hand into a struct matching the corpus (what a user\n\
         writes without serde); serde straight from the bytes into that struct\n\
         (`for_each_as`; the structs are in `benches/common/routes.rs`); and count only\n\
         (`for_each_skipped`: every value stepped over, checked, never built).\n\
         Time: criterion median of 10 samples of the benchmark thread's CPU time\n\
         (`CLOCK_THREAD_CPUTIME_ID`; everything runs on that one thread, a current-thread runtime),\n\
         since wall time on this shared machine moved by up to 2x between runs. MB = 10^6 bytes.\n\
         Allocations: a counting global allocator around one drain (`benches/alloc.rs`).\n"
    )?;
    writeln!(
        s,
        "| corpus | size | mode | median | results/s | MB/s | allocations/result |\n\
         |---|---:|---|---:|---:|---:|---:|"
    )?;
    let mut mbs = BTreeMap::new();
    let mut secs = BTreeMap::new();
    for c in CORPORA {
        let rows = MODES
            .iter()
            .map(|&(m, label)| ("decode", m, label))
            .chain(ROUTES.iter().map(|&(m, label)| ("serde", m, label)));
        for (group, m, label) in rows {
            let t = median(group, c, m)?;
            let (results, bytes, apr) = allocs
                .get(&(c.to_string(), m.to_string()))
                .copied()
                .unwrap_or((f64::NAN, f64::NAN, f64::NAN));
            let mb_s = bytes / t / 1e6;
            mbs.insert((c, m), mb_s);
            secs.insert((c, m), t);
            writeln!(
                s,
                "| {c} | {:.1} MB | {label} | {} | {} | {:.0} | {:.2} |",
                bytes / 1e6,
                fmt_secs(t),
                fmt_rate(results / t),
                mb_s,
                apr
            )?;
        }
    }
    writeln!(s, "\n### Targets\n")?;
    let (a_t, rounds, a_bytes) = interleaved("vertices_200k", "a_slice")?;
    let (b_t, _, _) = interleaved("vertices_200k", "b_visit_8k")?;
    let (conv_t, _, _) = interleaved("element_maps_100k", "value_convert")?;
    let (serde_t, _, _) = interleaved("element_maps_100k", "serde_struct")?;
    writeln!(
        s,
        "The targets are judged on `benches/ab.rs`: the routes a target compares drain one corpus\n\
         in turn, the order rotating ({rounds} rounds, after 3 warm-up drains each; median of each\n\
         route's thread CPU time per drain), so a slow spell of the shared machine falls on every\n\
         side of a ratio. The criterion medians of the table above are quoted beside them.\n"
    )?;
    writeln!(s, "| target | measured | met? |\n|---|---|---|")?;
    let v_a = a_bytes / a_t / 1e6;
    rep.value_route_bytes_per_sec = Some(a_bytes / a_t);
    writeln!(
        s,
        "| (a) >= 600 MB/s on vertices_200k | {v_a:.0} MB/s ({}, {:.2}x of target; criterion {:.0} MB/s) | {} |",
        fmt_secs(a_t),
        v_a / 600.0,
        mbs[&("vertices_200k", "a_slice")],
        yes(v_a >= 600.0)
    )?;
    let v_route = a_bytes / b_t / 1e6;
    writeln!(
        s,
        "| `Value` route (`for_each_result`, 8 KiB reads) >= 600 MB/s on vertices_200k | {v_route:.0} MB/s ({}, {:.2}x of target; criterion {:.0} MB/s) | {} |",
        fmt_secs(b_t),
        v_route / 600.0,
        mbs[&("vertices_200k", "b_visit_8k")],
        yes(v_route >= 600.0)
    )?;
    let v_count = mbs[&("vertices_200k", "count")];
    writeln!(
        s,
        "| count only (`for_each_skipped`, 8 KiB reads) >= 1.0 GB/s on vertices_200k | {:.2} GB/s ({:.2}x of target) | {} |",
        v_count / 1000.0,
        v_count / 1000.0,
        yes(v_count >= 1000.0)
    )?;
    let (by_hand, serde) = (
        secs[&("element_maps_100k", "value_convert")],
        secs[&("element_maps_100k", "serde_struct")],
    );
    writeln!(
        s,
        "| serde struct >= 2x (`Value` + convert) on element_maps_100k | {:.2}x ({} against {}; criterion {:.2}x) | {} |",
        conv_t / serde_t,
        fmt_secs(serde_t),
        fmt_secs(conv_t),
        by_hand / serde,
        yes(conv_t >= 2.0 * serde_t)
    )?;
    for c in CORPORA {
        let (a, _, _) = interleaved(c, "a_slice")?;
        let visit = a / interleaved(c, "b_visit_8k")?.0;
        let next = a / interleaved(c, "b_stream_8k")?.0;
        writeln!(
            s,
            "| (b) >= 0.95x (a) on {c} | `for_each_result` {visit:.2}x; `StreamExt::next` {next:.2}x (criterion {:.2}x; {:.2}x) | {} with `for_each_result`; {} with `next` |",
            mbs[&(c, "b_visit_8k")] / mbs[&(c, "a_slice")],
            mbs[&(c, "b_stream_8k")] / mbs[&(c, "a_slice")],
            yes(visit >= 0.95),
            yes(next >= 0.95)
        )?;
    }
    for c in CORPORA {
        let r = mbs[&(c, "b_stream_8k")] / mbs[&(c, "d_slow_8k")];
        // A single value larger than the read buffer takes the slow path in (b) as well.
        let verdict = if c == "binary_64mib" {
            "n/a: one value larger than the buffer streams by the slow path in (b) too"
        } else {
            yes(r >= 2.0)
        };
        writeln!(s, "| (b) `next` >= 2x (d) on {c} | {r:.2}x | {verdict} |")?;
    }
    let bin = mbs[&("binary_64mib", "b_stream_8k")];
    writeln!(
        s,
        "| 64 MiB Binary streamed, (b) `next` >= 1.5 GB/s | {:.2} GB/s | {} |\n",
        bin / 1000.0,
        yes(bin >= 1500.0)
    )?;
    rep.sections.push(s);
    Ok(())
}
