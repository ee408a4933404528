//! The in-process targets, measured interleaved (no criterion): the routes compared in a target
//! drain one corpus in turn, round after round, so a slow spell of the shared machine falls on
//! every side of a ratio instead of on whichever benchmark criterion happened to be running (in
//! one full run, serde's criterion median came out 41% above the one of a run before, while the
//! conversion route it is compared with did not move).
//!
//! Groups: on every corpus, (a) one slice against (b) over 8 KiB reads, `for_each_result` and
//! `StreamExt::next` (issue 13's 600 MB/s on `vertices_200k`, and "(b) >= 0.95x (a)"); on
//! `element_maps_100k`, `value_convert` against `serde_struct` (serde's 2x target). Each round
//! drains the corpus once by each route of the group, the order rotating by one each round;
//! time is the thread's CPU time of one drain (`common/cpu.rs`). After 3 warm-up drains per
//! route, `AB_ROUNDS` rounds (default 21).
//!
//! `cargo bench -p graphbinary-client --bench ab` prints one JSON object per line,
//! `{"corpus":..,"mode":..,"rounds":..,"median_secs":..,"min_secs":..,"max_secs":..,
//! "bytes":..}`, and writes them all to `target/criterion/ab.jsonl`.

mod common;
#[path = "common/cpu.rs"]
#[allow(dead_code)]
mod cpu;
#[path = "common/routes.rs"]
mod routes;

use std::io::Write;

/// The modes of `decode.rs` compared on every corpus.
const SLICE_AND_STREAM: &[&str] = &["a_slice", "b_visit_8k", "b_stream_8k"];

/// (corpus, routes): each a mode of `decode.rs` or a route of `common/routes.rs`.
const GROUPS: [(&str, &[&str]); 7] = [
    ("vertices_200k", SLICE_AND_STREAM),
    ("element_maps_100k", SLICE_AND_STREAM),
    ("element_maps_100k", &["value_convert", "serde_struct"]),
    ("paths_50k", SLICE_AND_STREAM),
    ("strings_1m", SLICE_AND_STREAM),
    ("bulked_mixed_500k", SLICE_AND_STREAM),
    ("binary_64mib", SLICE_AND_STREAM),
];

/// One drain's thread CPU time, in seconds; checks the number of results.
fn timed(rt: &tokio::runtime::Runtime, c: &common::Corpus, mode: &str) -> f64 {
    let t0 = cpu::thread_cpu();
    let n = routes::drain(rt, c, mode);
    let t = cpu::thread_cpu().saturating_sub(t0).as_secs_f64();
    assert_eq!(n, c.results, "{} {mode}", c.name);
    t
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let rounds: usize = std::env::var("AB_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(21)
        .max(1);
    let rt = common::runtime();
    let corpora = common::selected();
    let mut lines = Vec::new();
    for (corpus, routes) in GROUPS {
        let Some(c) = corpora.iter().find(|c| c.name == corpus) else {
            continue;
        };
        for _ in 0..3 {
            for m in routes {
                timed(&rt, c, m);
            }
        }
        let mut times = vec![Vec::with_capacity(rounds); routes.len()];
        for r in 0..rounds {
            for i in 0..routes.len() {
                let k = (i + r) % routes.len();
                times[k].push(timed(&rt, c, routes[k]));
            }
        }
        for (mode, t) in routes.iter().zip(&mut times) {
            let (min, max) = (
                t.iter().copied().fold(f64::INFINITY, f64::min),
                t.iter().copied().fold(0.0, f64::max),
            );
            let line = serde_json::json!({
                "corpus": corpus, "mode": mode, "rounds": rounds,
                "median_secs": median(t), "min_secs": min, "max_secs": max,
                "bytes": c.bytes.len(),
            })
            .to_string();
            println!("{line}");
            lines.push(line);
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion");
    std::fs::create_dir_all(&dir).expect("target/criterion");
    let mut f = std::fs::File::create(dir.join("ab.jsonl")).expect("ab.jsonl");
    for l in &lines {
        writeln!(f, "{l}").expect("write ab.jsonl");
    }
}
