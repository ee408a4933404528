//! The step of `cargo xtask ci` that builds the examples of `graphbinary-client/examples/`
//! (all of them: also `neptune_iam`, feature `sigv4`, built but not run, as it needs AWS) and
//! runs each against the servers CI starts: the 4.0 modern and transactional servers
//! ([`run_tinkerpop4`]), the 3.7.3 and JanusGraph ones of the TinkerPop 3 step
//! ([`run_tinkerpop3`]). An example passes when it exits with status 0 and, for each line
//! expected of it (on the modern graph), prints a line that starts with it.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::util::{project_root, run, show};

/// One run of one example: its name, arguments and the starts of lines its output must hold.
struct Example<'a> {
    name: &'a str,
    args: Vec<String>,
    expect: &'a [&'a str],
}

/// Builds every example (dev profile) and returns the directory of their executables: with
/// the features of the test step ([`super::CI_FEATURES`], which have `sigv4`), whose build
/// already holds them.
fn build() -> Result<PathBuf> {
    let root = project_root();
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.current_dir(&root);
    run(&mut super::with_ci_features(
        cargo,
        &["build", "--examples"],
    ))?;
    Ok(root.join("target/debug/examples"))
}

/// Runs each example, echoing its output; fails at the end if any failed.
fn run_all(examples: &[Example<'_>]) -> Result<()> {
    let dir = build()?;
    let mut failed = Vec::new();
    for e in examples {
        let mut cmd = Command::new(dir.join(e.name));
        cmd.args(&e.args).env_remove("GREMLIN_URL");
        let shown = show(&cmd).replace(&format!("{}/", project_root().display()), "");
        eprintln!("xtask: example {shown}");
        let out = cmd
            .output()
            .with_context(|| format!("could not start `{shown}`"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        print!("{stdout}");
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        let missing: Vec<&str> = e
            .expect
            .iter()
            .copied()
            .filter(|line| !stdout.lines().any(|l| l.trim_start().starts_with(line)))
            .collect();
        if !out.status.success() || !missing.is_empty() {
            eprintln!(
                "xtask: example {} FAILED ({}; lines missing: {missing:?})",
                e.name, out.status
            );
            failed.push(e.name);
        }
    }
    if !failed.is_empty() {
        bail!("examples failed: {}", failed.join(", "));
    }
    Ok(())
}

/// The examples of TinkerPop 4: `url` a 4.0 server with the modern graph, `tx_url` one with
/// a transactional graph (dataset `tx`).
pub fn run_tinkerpop4(url: &str, tx_url: &str) -> Result<()> {
    // A host where nothing listens (a port just freed), for `several_hosts` to route around.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0")?;
        format!("http://127.0.0.1:{}/gremlin", l.local_addr()?.port())
    };
    let on = |u: &str| vec![u.to_owned()];
    run_all(&[
        Example {
            name: "query",
            args: on(url),
            expect: &["marko knows josh, vadas", "6 vertices"],
        },
        Example {
            name: "traversal",
            args: on(url),
            expect: &[
                "marko knows josh, vadas",
                "older than 26, oldest first: peter, josh, marko, vadas",
                "3 people created software",
            ],
        },
        Example {
            name: "typed_serde",
            args: on(url),
            expect: &["person 2 vadas (27)", "4 people, 2 software"],
        },
        Example {
            name: "streaming",
            args: on(url),
            expect: &["streamed ", "bulked: ", "counted "],
        },
        Example {
            name: "transaction",
            args: on(tx_url),
            expect: &[
                "committed: 0 visible before the commit, 1 after",
                "rolled back: 0 visible",
                "cleaned up: dropped 1, 0 left",
            ],
        },
        Example {
            name: "several_hosts",
            args: vec![dead, url.to_owned()],
            expect: &["20 of 20 requests answered"],
        },
        Example {
            name: "tracing",
            args: on(url),
            expect: &[
                "6 vertices",
                "174 results",
                "refused: server error 400",
                "3 requests, errors {\"server\": 1}, connections open after close: 0",
            ],
        },
        Example {
            name: "pdt_point",
            args: vec![],
            expect: &["typed:   Point { x: 1, y: 2 }"],
        },
    ])
}

/// The TinkerPop 3 example against each of `urls` (`ws://`, the modern graph).
pub fn run_tinkerpop3(urls: &[String]) -> Result<()> {
    let runs: Vec<Example<'_>> = urls
        .iter()
        .map(|u| Example {
            name: "tinkerpop3",
            args: vec![u.clone()],
            expect: &[
                "4 people at",
                "person vadas (27)",
                "software: lop, ripple",
                "in a session: x + 2 = 42",
            ],
        })
        .collect();
    run_all(&runs)
}
