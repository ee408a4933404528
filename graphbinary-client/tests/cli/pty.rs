//! The pseudo-terminal helpers of the console tests (`tests/console.rs`, `tests/console3.rs`).

#![allow(dead_code)]

use std::process::Command;

use rexpect::session::PtySession;

use graphbinary_testkit::skip;

pub const PROMPT: &str = "gremlin> ";
/// A fresh, empty prompt as the line editor draws it (the prompt, then the cursor moved to
/// column 9): a redraw of a line being edited has the line's text after the prompt instead.
pub const READY: &str = "gremlin> \r\x1b[9C";

pub fn server(var: &str, test: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) => Some(url),
        Err(_) => {
            skip::skipped(test, &format!("{var} unset"));
            None
        }
    }
}

/// A console on `url` in a pseudo-terminal, with its own history file, at its first prompt.
pub fn console(url: &str, history: &std::path::Path, extra: &[&str]) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_graphbinary"));
    cmd.arg("console")
        .arg("--url")
        .arg(url)
        .args(extra)
        .env("GRAPHBINARY_HISTORY", history)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).expect("spawn console");
    p.exp_string(READY).expect("first prompt");
    p
}

/// Sends a line and returns what was printed before the next prompt.
pub fn run(p: &mut PtySession, line: &str) -> String {
    p.send_line(line).unwrap();
    // The echo of the line itself, then its output up to the next prompt.
    p.exp_string(READY)
        .unwrap_or_else(|e| panic!("{line}: no prompt after it: {e}"))
}

pub fn history_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("graphbinary-console-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(name);
    let _ = std::fs::remove_file(&f);
    f
}

/// Ctrl-C in the middle of a long stream cancels it; the console and its pool go on.
pub fn cancel_then_query(p: &mut PtySession) {
    run(p, ":format text");
    p.send_line("g.V().repeat(both()).times(12).valueMap()")
        .unwrap();
    // Results are flowing.
    p.exp_string("[name:").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("error: cancelled").unwrap();
    p.exp_string(READY).unwrap();
    for _ in 0..3 {
        let out = run(p, "g.V().count()");
        assert!(out.lines().any(|l| l.trim() == "6"), "{out:?}");
    }
    // A server error is one line, then the next query runs.
    let out = run(p, "g.V().nosuchstep()");
    let errors: Vec<&str> = out.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{out:?}");
    let out = run(p, "g.V().hasLabel('software').count()");
    assert!(out.lines().any(|l| l.trim() == "2"), "{out:?}");
}
