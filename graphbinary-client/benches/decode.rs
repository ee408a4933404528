//! Decoding throughput of realistic responses (criterion).
//!
//! Each corpus (see `common/mod.rs`) is decoded (a) from one contiguous slice, (b) streamed
//! through the read buffer from a reader returning 8 KiB per read, (c) 1 KiB per read, and
//! (d) as (b) with the fast path off. Every result is dropped as soon as it is decoded.
//!
//! `cargo bench -p graphbinary-client --bench decode -- --warm-up-time 1 --measurement-time 3`
//! (`BENCH_CORPORA=vertices,strings` to pick corpora).
//! Time is the benchmark thread's CPU time (see `common/cpu.rs`). `cargo xtask bench` reads
//! the medians from `target/criterion/decode_<corpus>/<mode>/new/estimates.json`.

mod common;

use criterion::{Criterion, Throughput};

#[path = "common/cpu.rs"]
#[macro_use]
mod cpu;

fn decode(c: &mut Criterion<cpu::ThreadCpu>) {
    let rt = common::runtime();
    for corpus in common::selected() {
        let mut group = c.benchmark_group(format!("decode_{}", corpus.name));
        group.sample_size(10);
        group.throughput(Throughput::Bytes(corpus.bytes.len() as u64));
        for mode in common::Mode::ALL {
            group.bench_function(mode.id(), |b| {
                b.iter(|| {
                    let n = common::run(&rt, &corpus, mode);
                    assert_eq!(n, corpus.results);
                })
            });
        }
        group.finish();
    }
}

thread_cpu_main!(decode);
