//! Writes the benchmark corpora of `benches/common/mod.rs` to files, one whole GraphBinary 4
//! response per file (`DIR/<corpus>.gb`), for the whole-process section of `cargo xtask bench`:
//! the `graphbinary` CLI and gremlinpython then read the very same bytes.
//!
//! ```text
//! cargo bench -p graphbinary-client --bench write_corpus -- DIR
//! ```
//!
//! `BENCH_CORPORA=vertices,strings` picks corpora (as the benches). Prints one JSON line per
//! corpus: `{"corpus":..,"results":..,"count":..,"bytes":..,"path":..}`, where `count` is the
//! number of results with bulks summed (what `graphbinary decode --format count` prints). A file
//! that already holds the same bytes is left alone.

mod common;

use std::path::PathBuf;

use graphbinary_client::response::{read_response, ReadOptions};

fn main() {
    // `cargo bench` adds `--bench`.
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: write_corpus DIR");
        std::process::exit(64);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("write_corpus: cannot create {}: {e}", dir.display());
        std::process::exit(1);
    }
    let rt = common::runtime();
    for corpus in common::selected() {
        let count = rt
            .block_on(read_response(corpus.bytes, ReadOptions::default()).count_results())
            .expect("corpus decodes");
        let path = dir.join(format!("{}.gb", corpus.name));
        let same = std::fs::read(&path).is_ok_and(|old| old == corpus.bytes);
        if !same {
            if let Err(e) = std::fs::write(&path, corpus.bytes) {
                eprintln!("write_corpus: cannot write {}: {e}", path.display());
                std::process::exit(1);
            }
        }
        println!(
            "{{\"corpus\":\"{}\",\"results\":{},\"count\":{count},\"bytes\":{},\"path\":\"{}\"}}",
            corpus.name,
            corpus.results,
            corpus.bytes.len(),
            path.display()
        );
    }
}
