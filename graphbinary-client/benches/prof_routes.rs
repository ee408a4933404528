//! One drain of one benchmark corpus by one route or mode, for instruction counts under
//! callgrind (stable on a loaded machine, unlike time):
//!
//! ```text
//! cargo bench -p graphbinary-client --bench prof_routes --no-run   # prints the executable
//! valgrind --tool=callgrind --toggle-collect='*prof_run*' \
//!     target/release/deps/prof_routes-HASH element_maps serde_struct
//! ```
//!
//! `CORPUS` is a prefix of a corpus name of `benches/common/mod.rs`; `MODE` a mode of
//! `benches/decode.rs` (`a_slice`, `b_visit_8k`, ...) or a route of `benches/common/routes.rs`
//! (`value_convert`, `serde_struct`, `count`, ...); `N` drains (default 1). Only `prof_run` is
//! counted with `--toggle-collect`, not the making of the corpus.

mod common;
#[path = "common/routes.rs"]
mod routes;

/// One drain: the unit callgrind counts.
#[inline(never)]
fn prof_run(rt: &tokio::runtime::Runtime, c: &common::Corpus, mode: &str) -> u64 {
    routes::drain(rt, c, mode)
}

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").collect();
    let (Some(corpus), Some(mode)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: prof_routes CORPUS MODE [N]");
        std::process::exit(2);
    };
    let n: usize = args.get(3).map_or(1, |s| s.parse().expect("N is a number"));
    std::env::set_var("BENCH_CORPORA", corpus);
    let rt = common::runtime();
    let c = common::selected().pop().expect("no corpus of that name");
    for _ in 0..n {
        assert_eq!(prof_run(&rt, &c, mode), c.results, "{mode}");
    }
}
