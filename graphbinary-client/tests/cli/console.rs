//! End-to-end: `graphbinary console` (and `graphbinary query` beside it) through a
//! pseudo-terminal (rexpect), against the real Gremlin Server 4.0 (env GREMLIN_URL, modern
//! graph; GREMLIN_TX_URL, transactional). Each test skips (counted as skipped) without its
//! server; `tests/console3.rs` has the TinkerPop 3.7.3 (SASL) ones.
//!
//! ```text
//! cargo xtask server --port 8300 --detach; cargo xtask server --dataset tx --port 8301 --detach
//! GREMLIN_URL=http://127.0.0.1:8300/gremlin GREMLIN_TX_URL=http://127.0.0.1:8301/gremlin \
//!   cargo test -p graphbinary-client --test console
//! ```

use crate::pty as console;
use graphbinary_testkit::process;

use std::process::Command;

use console::{cancel_then_query, console, history_file, run, server, READY};
use process::output_with_stdin;

#[test]
fn prompt_query_multiline_completion_and_tables() {
    let url = graphbinary_testkit::or_skip!(server(
        "GREMLIN_URL",
        "console prompt_query_multiline_completion"
    ));
    let h = history_file("basic");
    let mut p = console(&url, &h, &[]);
    let out = run(&mut p, "g.V().count()");
    assert!(out.lines().any(|l| l.trim() == "6"), "{out:?}");

    // A bracket open at the end of the line: the input goes on.
    p.send_line("g.V().has('name',").unwrap();
    p.send_line("  'marko').values('age')").unwrap();
    let out = p.exp_string(READY).unwrap();
    assert!(out.lines().any(|l| l.trim() == "29"), "{out:?}");

    // Tab completes the step: `hasL` has one completion, `hasLabel(`.
    p.send("g.V().hasL").unwrap();
    p.send("\t").unwrap();
    p.flush().unwrap();
    p.exp_string("hasLabel(").unwrap();
    let out = run(&mut p, "'software').count()");
    assert!(out.lines().any(|l| l.trim() == "2"), "{out:?}");

    // Element maps as an aligned table.
    let out = run(
        &mut p,
        "g.V().hasLabel('person').order().by('age').elementMap('name','age')",
    );
    let rows: Vec<&str> = out
        .lines()
        .map(str::trim_end)
        .filter(|l| l.contains(" | "))
        .collect();
    assert_eq!(rows.len(), 5, "{out:?}");
    assert!(rows[0].starts_with("id | label  | name  | age"), "{out:?}");
    assert!(rows[1].contains("| person | vadas | 27"), "{out:?}");

    // Typed parameters and formats.
    run(&mut p, ":param who = 'josh'");
    run(&mut p, ":format json");
    let out = run(&mut p, "g.V().has('name', who).valueMap('age')");
    assert!(out.contains("{\"age\":[32]}"), "{out:?}");
    let out = run(&mut p, ":nonsense");
    assert!(out.contains("error: unknown command :nonsense"), "{out:?}");
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn history_is_kept_across_two_runs() {
    let url = graphbinary_testkit::or_skip!(server(
        "GREMLIN_URL",
        "console history_is_kept_across_two_runs"
    ));
    let h = history_file("history");
    let mut p = console(&url, &h, &[]);
    run(&mut p, "g.V().has('name','peter').values('age')");
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
    let saved = std::fs::read_to_string(&h).unwrap();
    assert!(
        saved.contains("g.V().has('name','peter').values('age')"),
        "{saved:?}"
    );

    let mut p = console(&url, &h, &[]);
    // Up arrow brings back the last line of the previous run.
    p.send("\x1b[A").unwrap();
    p.flush().unwrap();
    p.exp_string("gremlin> g.V().has('name','peter').values('age')")
        .unwrap();
    p.send("\r").unwrap();
    p.flush().unwrap();
    let out = p.exp_string(READY).unwrap();
    assert!(out.lines().any(|l| l.trim() == "35"), "{out:?}");
    p.send_line(":quit").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn ctrl_c_cancels_a_long_stream_and_errors_are_one_line() {
    let url = graphbinary_testkit::or_skip!(server(
        "GREMLIN_URL",
        "console ctrl_c_cancels_a_long_stream"
    ));
    let mut p = console(&url, &history_file("cancel"), &[]);
    cancel_then_query(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

/// Removes the test's vertices however the test ends.
struct Cleanup(String, String);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_graphbinary"))
            .args(["query", "--url", &self.0])
            .arg(format!("g.V().hasLabel('{}').drop()", self.1))
            .output();
    }
}

fn count(url: &str, label: &str, key: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .args(["query", "--url", url])
        .arg(format!(
            "g.V().hasLabel('{label}').has('k','{key}').count()"
        ))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().trim().to_owned()
}

#[test]
fn a_transaction_commits_and_another_rolls_back() {
    let url =
        graphbinary_testkit::or_skip!(server("GREMLIN_TX_URL", "console a_transaction_commits"));
    let label = format!("console_tx_{}", std::process::id());
    let _cleanup = Cleanup(url.clone(), label.clone());
    let mut p = console(&url, &history_file("tx"), &[]);
    assert!(run(&mut p, ":begin").contains("transaction open"));
    run(&mut p, &format!("g.addV('{label}').property('k','kept')"));
    // Not visible outside the transaction before the commit.
    assert_eq!(count(&url, &label, "kept"), "0");
    assert!(run(&mut p, ":commit").contains("committed"));
    assert_eq!(count(&url, &label, "kept"), "1");

    run(&mut p, ":begin");
    let out = run(
        &mut p,
        &format!("g.addV('{label}').property('k','gone').count()"),
    );
    assert!(out.lines().any(|l| l.trim() == "1"), "{out:?}");
    assert!(run(&mut p, ":rollback").contains("rolled back"));
    assert_eq!(count(&url, &label, "gone"), "0");
    let out = run(&mut p, ":commit");
    assert!(out.contains("error: no transaction is open"), "{out:?}");
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn without_a_terminal_the_console_reads_lines() {
    let url = graphbinary_testkit::or_skip!(server(
        "GREMLIN_URL",
        "console without_a_terminal_the_console_reads_lines",
    ));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_graphbinary"));
    cmd.args(["console", "--url", &url, "--format", "text"])
        .env("GRAPHBINARY_HISTORY", history_file("pipe"));
    let o = output_with_stdin(
        &mut cmd,
        b"g.V(1).values('name')\n:timing on\ng.V().count()\n",
    );
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("marko\n") && out.contains("6\n"), "{out}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1 result in "), "{err}");
}

#[test]
fn plain_graphbinary_on_a_terminal_is_the_console_and_errors_are_red() {
    let url = graphbinary_testkit::or_skip!(server(
        "GREMLIN_URL",
        "console plain_graphbinary_on_a_terminal_is_the_console",
    ));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_graphbinary"));
    cmd.env("GREMLIN_URL", &url)
        .env("GRAPHBINARY_HISTORY", history_file("plain"))
        .env_remove("NO_COLOR")
        .env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).unwrap();
    p.exp_string(READY).unwrap();
    let out = run(&mut p, "g.V().nosuchstep()");
    assert!(out.contains("\x1b[31merror: server error 400"), "{out:?}");
    let out = run(&mut p, ":help");
    assert!(out.contains(":rollback"), "{out:?}");
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}
