//! `cargo xtask fuzz` and CI's fuzz step, as xtask sees them: the seeding and the runs are the
//! crate `xtask/fuzzing` (`graphbinary-fuzzing`, which links graphbinary-client for its GraphSON
//! writer), run with `cargo run -q -p`. `main.rs` names this module `fuzz`.

use std::process::Command;

/// How long CI's fuzz step runs each target: graphbinary-fuzzing's own default (8 targets of
/// 30 s, the step's 4 minutes as when there were 4 targets of 60 s).
pub const DEFAULT_SECONDS: u64 = 30;

/// Whether `cargo +nightly fuzz` is available.
pub fn installed() -> bool {
    Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Seeds the corpora and runs every target for `seconds` (`cargo xtask fuzz --seconds N`).
pub fn run_all(seconds: u64) -> Result<(), String> {
    crate::util::run_tool(
        "graphbinary-fuzzing",
        &["fuzz", "--seconds", &seconds.to_string()],
    )
    .map_err(|e| format!("{e:#}"))
}
