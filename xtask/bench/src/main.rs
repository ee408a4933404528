//! `graphbinary-bench bench|replay ARGS`: what `cargo xtask bench` and `cargo xtask replay` run
//! (see README.md). Links graphbinary-client, which xtask does not.

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

mod bench;
mod replay;

// The kit's modules under the names these modules had inside xtask.
use graphbinary_kit::{server, util};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("bench") => bench::cli(rest),
        Some("replay") => replay::cli(rest),
        _ => {
            eprintln!("usage: graphbinary-bench bench|replay [options] (see `cargo xtask`)");
            std::process::exit(2);
        }
    };
    if let Err(err) = result {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}
