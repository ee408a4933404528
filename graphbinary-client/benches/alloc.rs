//! Allocations per result while decoding the benchmark corpora (no criterion: a counting
//! global allocator around one drain of each corpus in each mode of `decode.rs`, then by each
//! route of `serde.rs`: `value`, `value_convert`, `serde_struct`, `count`; see
//! `common/routes.rs`).
//!
//! `cargo bench -p graphbinary-client --bench alloc` prints one JSON object per line:
//! `{"corpus":..,"mode":..,"results":..,"bytes":..,"allocs":..,"allocs_per_result":..,
//! "alloc_bytes":..}`, and writes them all to `target/criterion/alloc.jsonl`.

mod common;
#[path = "common/routes.rs"]
mod routes;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size() as u64, Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size() as u64, Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(new_size.saturating_sub(layout.size()) as u64, Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    // `cargo bench` passes `--bench`; a filter argument, if any, picks corpora.
    let rt = common::runtime();
    let mut lines = Vec::new();
    for corpus in common::selected() {
        let mut measure = |mode: &str, drain: &mut dyn FnMut() -> u64| {
            let a0 = ALLOCS.load(Relaxed);
            let b0 = BYTES.load(Relaxed);
            let n = drain();
            let allocs = ALLOCS.load(Relaxed) - a0;
            let bytes = BYTES.load(Relaxed) - b0;
            assert_eq!(n, corpus.results, "{} {mode}", corpus.name);
            let line = format!(
                "{{\"corpus\":\"{}\",\"mode\":\"{}\",\"results\":{},\"bytes\":{},\"allocs\":{},\"allocs_per_result\":{:.3},\"alloc_bytes\":{}}}",
                corpus.name,
                mode,
                n,
                corpus.bytes.len(),
                allocs,
                allocs as f64 / n as f64,
                bytes
            );
            println!("{line}");
            lines.push(line);
        };
        for mode in common::Mode::ALL {
            measure(mode.id(), &mut || common::run(&rt, &corpus, mode));
        }
        for route in routes::ROUTES {
            measure(route, &mut || {
                routes::run(&rt, corpus.name, corpus.bytes, route)
            });
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion");
    std::fs::create_dir_all(&dir).expect("create target/criterion");
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(dir.join("alloc.jsonl"), text).expect("write alloc.jsonl");
}
