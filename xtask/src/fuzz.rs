//! `cargo xtask fuzz [--seconds N] [TARGET...]`: seed the corpora from the spec vectors and run
//! each cargo-fuzz target (`fuzz/`) for N seconds (default 60).
//!
//! Seeds are written at run time into `fuzz/corpus/<target>/` (gitignored): every value vector
//! of `spec/vectors/` (and of the shared canonical vectors when present) for `value` and
//! `serde`, each one
//! wrapped in a response and every response vector for `response`, and the element vectors in
//! their bare form behind a type selector byte for `derived`. Needs cargo-fuzz and the nightly
//! toolchain; [`installed`] tells whether they are there (`cargo xtask ci` runs
//! [`run`] only then).

use std::path::{Path, PathBuf};
use std::process::Command;

use graphbinary_regen as regen;

/// The fuzz targets, in the order they run.
pub const TARGETS: [&str; 4] = ["response", "value", "derived", "serde"];

/// Whether `cargo +nightly fuzz` is available.
pub fn installed() -> bool {
    Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Entry point of `cargo xtask fuzz`.
pub fn main(args: &[String]) -> Result<(), String> {
    let mut seconds = 60u64;
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = crate::util::flag_value(&mut it, "--seconds", "a number")
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--seconds needs a number")?;
            }
            t if TARGETS.contains(&t) => targets.push(t.to_string()),
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: cargo xtask fuzz [--seconds N] [{}]",
                    TARGETS.join("|")
                ))
            }
        }
    }
    if !installed() {
        return Err("cargo-fuzz is not installed: `cargo install cargo-fuzz` (and `rustup toolchain install nightly`)".into());
    }
    if targets.is_empty() {
        return run_all(seconds);
    }
    run(&targets, seconds)
}

/// Seeds the corpora and runs every target for `seconds`: the step `cargo xtask ci` runs when
/// [`installed`] (60 s a target).
pub fn run_all(seconds: u64) -> Result<(), String> {
    let targets: Vec<String> = TARGETS.iter().map(|t| t.to_string()).collect();
    run(&targets, seconds)
}

/// Seeds the corpora and runs each target for `seconds`; fails on the first target that
/// finds a crash (its input is in `fuzz/artifacts/<target>/`).
pub fn run(targets: &[String], seconds: u64) -> Result<(), String> {
    let root = regen::project_root();
    let n = seed(&root)?;
    eprintln!("fuzz: seeded {n} inputs from the spec vectors");
    for t in targets {
        eprintln!("fuzz: {t} for {seconds} s");
        let status = Command::new("cargo")
            .current_dir(root.join("fuzz"))
            .args(["+nightly", "fuzz", "run", t, "--"])
            .arg(format!("-max_total_time={seconds}"))
            .args([
                "-max_len=65536",
                "-timeout=10",
                "-rss_limit_mb=2048",
                "-print_final_stats=1",
            ])
            .status()
            .map_err(|e| format!("cargo fuzz: {e}"))?;
        if !status.success() {
            return Err(format!(
                "fuzz target {t} failed (crash input in fuzz/artifacts/{t}/)"
            ));
        }
    }
    Ok(())
}

/// Writes the seed corpora; returns how many files were written.
pub fn seed(root: &Path) -> Result<usize, String> {
    let spec = regen::load_spec(root).map_err(|e| e.to_string())?;
    let loaded = regen::vectors::load_all(root, &spec).map_err(|e| e.to_string())?;
    let mut values: Vec<(String, Vec<u8>)> = loaded
        .values
        .iter()
        .map(|v| (v.vector.name.clone(), v.bytes.clone()))
        .collect();
    let shared = std::env::var_os("GRAPHBINARY_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared"));
    if let Ok(dir) = std::fs::read_dir(shared.join("vectors/graphbinary-v4")) {
        for e in dir.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "gbin") {
                if let Ok(b) = std::fs::read(&p) {
                    let name = p.file_stem().unwrap().to_string_lossy();
                    values.push((format!("shared-{name}"), b));
                }
            }
        }
    }
    let corpus = root.join("fuzz/corpus");
    let mut n = 0;
    let mut put = |target: &str, name: &str, bytes: &[u8]| -> Result<(), String> {
        let dir = corpus.join(target);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        std::fs::write(dir.join(name), bytes).map_err(|e| format!("{name}: {e}"))?;
        n += 1;
        Ok(())
    };
    // Selector bytes of the `derived` target, by type code.
    let derived: [(u8, u8); 11] = [
        (0x11, 0),
        (0x0d, 1),
        (0x12, 2),
        (0x0f, 3),
        (0x0e, 4),
        (0x04, 5),
        (0x81, 6),
        (0x22, 7),
        (0x18, 8),
        (0x20, 9),
        (0x2e, 10),
    ];
    for (name, bytes) in &values {
        // value: {capacity byte}{value}
        put("value", name, &[&[16u8][..], bytes].concat())?;
        // serde: {capacity byte}{value}
        put("serde", name, &[&[16u8][..], bytes].concat())?;
        // response: {capacity byte}{header}{value}{marker}{status 200}
        let resp = [
            &[16u8, 0x84, 0x00][..],
            bytes,
            &[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01],
        ]
        .concat();
        put("response", name, &resp)?;
        if bytes.len() >= 2 && bytes[1] == 0x00 {
            if let Some((_, sel)) = derived.iter().find(|(c, _)| *c == bytes[0]) {
                put("derived", name, &[&[0x30 | sel][..], &bytes[2..]].concat())?;
            }
        }
    }
    for r in &loaded.responses {
        put("response", &r.vector.name, &[&[8u8][..], &r.bytes].concat())?;
    }
    Ok(n)
}
