//! `graphbinary-bench bench|replay ARGS`: what `cargo xtask bench` and `cargo xtask replay` run
//! (see README.md). Links graphbinary-client, which xtask does not.

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

mod bench;
mod replay;

// The kit's modules under the names these modules had inside xtask.
use graphbinary_kit::{server, util};

fn main() {
    let usage = "usage: graphbinary-bench bench|replay [options] (see `cargo xtask`)";
    util::main_with(usage, |command, rest| match command {
        "bench" => Some(bench::cli(rest)),
        "replay" => Some(replay::cli(rest)),
        _ => None,
    });
}
