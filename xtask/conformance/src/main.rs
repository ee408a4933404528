//! `graphbinary-conformance features|matrix ARGS`: what `cargo xtask features ARGS` and
//! `cargo xtask matrix ARGS` run (see README.md). Links graphbinary-client, which xtask does not.

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("features") => graphbinary_conformance::features::cli(rest),
        Some("matrix") => graphbinary_conformance::matrix::cli(rest),
        _ => {
            eprintln!(
                "usage: graphbinary-conformance features|matrix [options] (see `cargo xtask features --help`)"
            );
            std::process::exit(2);
        }
    };
    if let Err(err) = result {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}
