//! End-to-end: the `graphbinary query` subcommand against the real Gremlin Server.

mod gremlin_server;
use gremlin_server as common;

use std::process::{Command, Output};

fn query(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .arg("query")
        .arg("--url")
        .arg(common::url())
        .args(args)
        .output()
        .expect("run graphbinary")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[tokio::test]
async fn text_graphson_and_count() {
    if !common::server_available("cli text_graphson_and_count").await {
        return;
    }
    let o = query(&["g.V().hasLabel('person').order().by('age').values('name')"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "vadas\nmarko\njosh\npeter\n");

    let o = query(&["--format", "graphson", "g.V(1).values('age')"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{\"@type\":\"g:Int32\",\"@value\":29}\n");

    let o = query(&[
        "--format",
        "count",
        "--stats",
        "g.V().repeat(both()).times(8)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let n: u64 = stdout(&o).trim().parse().unwrap();
    let st = stderr(&o);
    assert!(st.contains(&format!("{n} results, ")), "{st}");
    assert!(st.contains("results/s"), "{st}");
    // Bulked: the same total from fewer traversers.
    let o = query(&[
        "--format",
        "count",
        "--bulk",
        "g.V().repeat(both()).times(8)",
    ]);
    assert_eq!(stdout(&o).trim().parse::<u64>().unwrap(), n);
    let o = query(&["--bulk", "g.V().repeat(both()).times(8)"]);
    let lines = stdout(&o);
    assert!(lines.lines().count() < 20, "{lines}");
    let total: u64 = lines
        .lines()
        .map(|l| l.rsplit_once("\tx").map_or(1, |(_, b)| b.parse().unwrap()))
        .sum();
    assert_eq!(total, n);
}

#[tokio::test]
async fn server_error_exits_non_zero() {
    if !common::server_available("cli server_error_exits_non_zero").await {
        return;
    }
    let o = query(&["g.V(.count()"]);
    assert_eq!(o.status.code(), Some(2));
    let st = stderr(&o);
    assert!(st.contains("MalformedQueryException"), "{st}");
    assert!(st.contains("400"), "{st}");
    assert_eq!(stdout(&o), "");
}
