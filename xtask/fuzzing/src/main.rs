//! `graphbinary-fuzzing fuzz [--seconds N] [TARGET...]`: what `cargo xtask fuzz` runs (see
//! README.md).

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

mod fuzz;

// The kit's helpers under the name fuzz.rs had for them inside xtask (`crate::util`).
use graphbinary_kit::util;

fn main() {
    let usage = "usage: graphbinary-fuzzing fuzz [--seconds N] [TARGET...]";
    util::main_with(usage, |command, rest| {
        (command == "fuzz").then(|| fuzz::main(rest))
    });
}
