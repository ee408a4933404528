//! Reporting a test that skips (no server, no vectors) so that it is counted as skipped, not
//! passed: the notice goes to the real stderr (past the harness's capture), and, when env
//! `GRAPHBINARY_SKIP_LOG` names a file (as `cargo xtask ci` sets it), one line is appended to
//! that file (in one write, so that lines of tests skipping at once never mix), which the CI
//! summary counts.

use std::io::Write as _;

/// Prints `NOTICE: {test} SKIPPED: {why}` and records the skip.
pub fn skipped(test: &str, why: &str) {
    let line = format!("NOTICE: {test} SKIPPED: {why}");
    let _ = writeln!(std::io::stderr(), "{line}");
    if let Some(path) = std::env::var_os("GRAPHBINARY_SKIP_LOG") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            // One write of the whole line: tests skip on several threads at once, and
            // `writeln!` writes the line and its newline apart, so two notices could share a
            // line.
            let _ = f.write_all(format!("{}\n", line.replace('\n', " ")).as_bytes());
        }
    }
}

/// `or_skip!(expr)`: the value in `expr`'s `Some`, or a `return` from the calling test when it
/// is `None` (the helpers that give `None`, such as `gremlin_server::client` or
/// `common::shared_dir`, have reported the skip already). The one place of the test openings'
/// "the server, or skip".
#[macro_export]
macro_rules! or_skip {
    ($e:expr) => {
        match $e {
            Some(v) => v,
            None => return,
        }
    };
}
