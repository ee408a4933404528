//! End-to-end: the `graphbinary query` subcommand against the real Gremlin Server.

use graphbinary_testkit::gremlin_server;
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

/// `graphbinary query ARGS`'s stdout, after asserting that it succeeded (its stderr if not).
fn query_ok(args: &[&str]) -> String {
    let o = query(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
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
    assert_eq!(
        query_ok(&["g.V().hasLabel('person').order().by('age').values('name')"]),
        "vadas\nmarko\njosh\npeter\n"
    );

    assert_eq!(
        query_ok(&["--format", "graphson", "g.V(1).values('age')"]),
        "{\"@type\":\"g:Int32\",\"@value\":29}\n"
    );

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

fn query_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .arg("query")
        .arg("--url")
        .arg(common::url())
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run graphbinary");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn typed_params_script_from_file_or_stdin_source_and_formats() {
    if !common::server_available("cli typed_params_script_from_file_or_stdin").await {
        return;
    }
    // Typed: 29 is an Int, '29' a String (which matches nothing).
    assert_eq!(
        query_ok(&["--param", "a=29", "g.V().has('age', a).values('name')"]),
        "marko\n"
    );
    assert_eq!(
        query_ok(&["--param", "a='29'", "g.V().has('age', a).values('name')"]),
        ""
    );
    assert_eq!(
        query_ok(&[
            "--param",
            "names=['josh','peter']",
            "--param",
            "n=2L",
            "g.V().has('name', within(names)).limit(n).values('age').order()",
        ]),
        "32\n35\n"
    );
    // A bad literal is a usage error, before anything is sent.
    let o = query(&["--param", "a=[1,", "g.V()"]);
    assert_eq!(o.status.code(), Some(64));
    assert!(stderr(&o).contains("parameter a"), "{}", stderr(&o));

    let dir = std::env::temp_dir().join(format!("graphbinary-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("q.gremlin");
    std::fs::write(&file, "g.V().\n  hasLabel('software').\n  count()\n").unwrap();
    assert_eq!(query_ok(&["--file", file.to_str().unwrap()]), "2\n");
    let o = query(&["--file", dir.join("missing").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(64));
    let o = query_stdin(&[], "g.V(1).values('name')");
    assert_eq!(stdout(&o), "marko\n", "{}", stderr(&o));
    let o = query_stdin(&[], "  \n");
    assert_eq!(o.status.code(), Some(64));

    // -g: an alias the server does not have is its error.
    assert_eq!(query_ok(&["-g", "g", "g.V().count()"]), "6\n");
    let o = query(&["-g", "nosuchsource", "g.V().count()"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    assert_eq!(
        query_ok(&["--format", "json", "g.V(1).valueMap('name')"]),
        "{\"name\":[\"marko\"]}\n"
    );
    assert_eq!(
        query_ok(&[
            "--format",
            "table",
            "g.V().hasLabel('software').order().by('name').elementMap()",
        ]),
        "id | label    | name   | lang\n\
         ---+----------+--------+-----\n\
         3  | software | lop    | java\n\
         5  | software | ripple | java\n"
    );
}

#[test]
fn timeout_ends_a_query_to_a_server_that_does_not_answer() {
    // A socket that accepts and never answers (no server behind it).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/gremlin", listener.local_addr().unwrap());
    let hold = std::thread::spawn(move || {
        let held = listener.accept();
        std::thread::sleep(std::time::Duration::from_secs(5));
        drop(held);
    });
    let start = std::time::Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .args(["query", "--url", &url, "--timeout", "300ms", "g.V()"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(stderr(&o).contains("--timeout 300ms"), "{}", stderr(&o));
    assert!(start.elapsed() < std::time::Duration::from_secs(4));
    let o = Command::new(env!("CARGO_BIN_EXE_graphbinary"))
        .args(["query", "--timeout", "soon", "g.V()"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(64));
    hold.join().unwrap();
}
