//! Runs the `graphbinary` binary of the tests. A module of the `cli` test
//! binary (not of graphbinary-testkit): `CARGO_BIN_EXE_graphbinary` exists where
//! the binary is built (feature `cli`).

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `graphbinary args...` with `stdin` as its standard input (written from another thread,
/// so that a large input cannot block on a full output pipe) and returns what it printed.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn graphbinary");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}
