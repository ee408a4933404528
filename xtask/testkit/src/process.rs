//! Running a child process of a test.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

/// Runs `cmd` with `input` written to its stdin (then closed), its stdout and stderr captured.
pub fn output_with_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}
