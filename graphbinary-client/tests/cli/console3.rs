//! End-to-end: `graphbinary console` and `graphbinary query --user` against a real TinkerPop
//! 3.7.3 server with SASL (env GREMLIN_WS_AUTH_URL_373, user stephen, password password),
//! through a pseudo-terminal (rexpect). Skips (counted as skipped) without the server.
//!
//! ```text
//! cargo xtask server3 --tinkerpop 3.7.3 --auth --port 8302 --detach
//! GREMLIN_WS_AUTH_URL_373=ws://127.0.0.1:8302/gremlin cargo test -p graphbinary-client --test console3
//! ```

use crate::pty as console;

use std::process::Command;

use console::{cancel_then_query, history_file, run, server, READY};

/// The `--auth` server's credentials (TinkerPop's credentials graph).
const USER: &str = "stephen";
const PASSWORD: &str = "password";

/// The TinkerPop 3.7.3 server with SASL (`GREMLIN_WS_AUTH_URL_373`), or `None` (the `test`
/// reported as skipped).
fn auth_server(test: &str) -> Option<String> {
    server("GREMLIN_WS_AUTH_URL_373", &format!("console3 {test}"))
}

#[test]
fn tinkerpop3_with_sasl_asks_the_password_and_cancels_cleanly() {
    let url = graphbinary_testkit::or_skip!(auth_server("tinkerpop3_with_sasl_asks_the_password"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_graphbinary"));
    cmd.args(["console", "--url", &url, "--user", USER])
        .env("GRAPHBINARY_HISTORY", history_file("tp3"))
        .env_remove("GREMLIN_PASSWORD")
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).unwrap();
    p.exp_string("password for stephen: ").unwrap();
    p.send_line(PASSWORD).unwrap();
    p.exp_string(READY).unwrap();
    let out = run(&mut p, "g.V().count()");
    assert!(out.lines().any(|l| l.trim() == "6"), "{out:?}");
    assert!(!out.contains(PASSWORD), "{out:?}");
    cancel_then_query(&mut p);
    // A session keeps script variables between requests (TinkerPop 3's transactions).
    run(&mut p, ":begin");
    run(&mut p, "x = 41");
    let out = run(&mut p, "x + 1");
    assert!(out.lines().any(|l| l.trim() == "42"), "{out:?}");
    // TinkerGraph has no transactions: the commit's error is one line, and the console goes on.
    let out = run(&mut p, ":commit");
    assert_eq!(
        out.lines().filter(|l| l.contains("error:")).count(),
        1,
        "{out:?}"
    );
    let out = run(&mut p, "g.V().count()");
    assert!(out.lines().any(|l| l.trim() == "6"), "{out:?}");
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn query_authenticates_with_the_password_from_the_environment() {
    let url = graphbinary_testkit::or_skip!(auth_server(
        "query_authenticates_with_the_password_from_the_environment"
    ));
    let query = |pw: &str| {
        Command::new(env!("CARGO_BIN_EXE_graphbinary"))
            .args(["query", "--url", &url, "--user", USER, "--timeout", "30s"])
            .args(["--param", "n='marko'", "g.V().has('name', n).values('age')"])
            .env("GREMLIN_PASSWORD", pw)
            .output()
            .unwrap()
    };
    let o = query(PASSWORD);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "29\n");
    let o = query("wrong-secret");
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("wrong-secret"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
