//! Runs the `graphbinary` binary of the tests. A module of the `cli` test
//! binary (not of graphbinary-testkit): `CARGO_BIN_EXE_graphbinary` exists where
//! the binary is built (feature `cli`).

#![allow(dead_code)]

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};
use std::thread::JoinHandle;

/// Runs `graphbinary args...` with `stdin` as its standard input (written from another thread,
/// so that a large input cannot block on a full output pipe) and returns what it printed.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_graphbinary"));
    let (child, writer) = spawn(cmd.args(args), stdin.to_vec());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Spawns `cmd` with its three standard streams piped and writes `stdin` to it from a thread
/// of its own (closing it after), so that a large output cannot block the writer. Join the
/// thread once the child is waited for.
pub fn spawn(cmd: &mut Command, stdin: Vec<u8>) -> (Child, JoinHandle<()>) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn graphbinary");
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    (child, writer)
}
