//! `graphbinary-regen [--root DIR] [types|vectors|v1|steps] [--check]`: what `cargo xtask regen`
//! runs, on the repository at DIR (default: the one this binary was built from).

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

use std::path::PathBuf;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut root = graphbinary_regen::project_root();
    if let Some(i) = args.iter().position(|a| a == "--root") {
        let Some(dir) = args.get(i + 1).cloned() else {
            eprintln!("error: --root needs a directory");
            std::process::exit(2);
        };
        root = PathBuf::from(dir);
        args.drain(i..=i + 1);
    }
    if let Err(e) = graphbinary_regen::run_in(&root, &args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
