//! `graphbinary-fuzzing fuzz [--seconds N] [TARGET...]`: what `cargo xtask fuzz` runs (see
//! README.md).

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

mod fuzz;

// The kit's helpers under the name fuzz.rs had for them inside xtask (`crate::util`).
use graphbinary_kit::util;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("fuzz") => fuzz::main(rest),
        _ => Err("usage: graphbinary-fuzzing fuzz [--seconds N] [TARGET...]".to_string()),
    };
    if let Err(err) = result {
        eprintln!("error: {err}");
        std::process::exit(1);
    }
}
