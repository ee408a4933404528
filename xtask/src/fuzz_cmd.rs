//! `cargo xtask fuzz` and CI's fuzz step, as xtask sees them: the seeding and the runs are the
//! crate `xtask/fuzzing` (`graphbinary-fuzzing`, which links graphbinary-client for its GraphSON
//! writer), run with `cargo run -q --bin`. `main.rs` names this module `fuzz`.

pub use graphbinary_kit::util::cargo_fuzz_installed as installed;

/// Seeds the corpora and runs every target for `seconds` (`cargo xtask fuzz --seconds N`).
pub fn run_all(seconds: u64) -> Result<(), String> {
    crate::util::run_tool(
        "graphbinary-fuzzing",
        &["fuzz", "--seconds", &seconds.to_string()],
    )
    .map_err(|e| format!("{e:#}"))
}
