//! Results as user types (criterion): for each corpus of `decode.rs`, streamed from a reader
//! returning 8 KiB per read (as its mode (b)), four ways (the routes of `common/routes.rs`):
//!
//! * `value`: the `Value` route (`for_each_result`), each result dropped;
//! * `value_convert`: the `Value` route, then each `Value` converted by hand into a struct
//!   matching the corpus (what a user writes without serde);
//! * `serde_struct`: `for_each_as` into the same struct, straight from the bytes;
//! * `count`: `for_each_skipped`, stepping over every value without building it;
//! * for some corpora, the extra routes of `common/routes.rs` (`value_from_value`, `value_derive`,
//!   `slice_struct`, `slice_borrowed`).
//!
//! `cargo bench -p graphbinary-client --bench serde -- --warm-up-time 1 --measurement-time 3`
//! (`BENCH_CORPORA=vertices,element` to pick corpora). Time is the benchmark thread's CPU time.
//! Medians: `target/criterion/serde_<corpus>/<mode>/new/estimates.json`.

mod common;

#[path = "common/cpu.rs"]
#[macro_use]
mod cpu;
#[path = "common/routes.rs"]
mod routes;

use criterion::{Criterion, Throughput};
use routes::run;

fn serde_benches(c: &mut Criterion<cpu::ThreadCpu>) {
    let modes: Vec<String> = match std::env::var("BENCH_MODES") {
        Ok(m) => m.split(',').map(str::to_owned).collect(),
        Err(_) => routes::ROUTES
            .iter()
            .chain(&routes::EXTRA_ROUTES)
            .map(|m| m.to_string())
            .collect(),
    };
    let rt = common::runtime();
    for corpus in common::selected() {
        let mut group = c.benchmark_group(format!("serde_{}", corpus.name));
        group.sample_size(10);
        group.throughput(Throughput::Bytes(corpus.bytes.len() as u64));
        for mode in modes.iter().filter(|m| routes::applies(corpus.name, m)) {
            // Each mode agrees on the number of results before it is timed.
            assert_eq!(
                run(&rt, corpus.name, corpus.bytes, mode),
                corpus.results,
                "{mode}"
            );
            group.bench_function(mode.as_str(), |b| {
                b.iter(|| run(&rt, corpus.name, corpus.bytes, mode))
            });
        }
        group.finish();
    }
}

thread_cpu_main!(serde_benches);
