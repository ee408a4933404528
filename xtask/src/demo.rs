//! `cargo xtask demo`: the main job on a fresh machine. Makes sure a Gremlin Server answers
//! (starting the local one with the modern graph if none does), then runs a few queries through
//! the `graphbinary` command-line tool and prints their results.

use std::process::Command;

use anyhow::Result;

use crate::server;
use crate::util::run;

const HELP: &str = "usage: cargo xtask demo [--port N]

Starts a local Gremlin Server 4.0.0-beta.3 with the modern graph unless one already answers on
the port (default 8182), then runs a few queries with `graphbinary query` and prints the results.
A server it started is stopped at the end.";

/// The queries the demo runs, with what they show.
const QUERIES: &[(&str, &str)] = &[
    ("every vertex", "g.V()"),
    ("every edge", "g.E()"),
    (
        "marko's friends' names",
        "g.V().has('name','marko').out('knows').values('name')",
    ),
    (
        "a vertex with its properties as a map",
        "g.V(1).elementMap()",
    ),
    (
        "paths of length two",
        "g.V(1).out().out().path().by('name')",
    ),
    ("vertices grouped by label", "g.V().groupCount().by(label)"),
    (
        "a 200,766-result stream, counted as it arrives (--stats on stderr)",
        "g.V().repeat(both()).times(12)",
    ),
];

/// `cargo xtask demo ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut port = server::default_port()?;
    let mut a = graphbinary_kit::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--port" => port = a.parse(arg)?,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    // Build first, so the server does not wait on the compiler.
    let bin = crate::util::build_cli(true, &mut |_| {})?;
    let _server = server::ensure_running("modern", port)?;
    let url = format!("http://127.0.0.1:{port}/gremlin");
    for (what, gremlin) in QUERIES {
        println!("\n# {what}\n$ graphbinary query \"{gremlin}\"");
        let mut cmd = Command::new(&bin);
        cmd.args(["query", "--url", &url]);
        if gremlin.contains("times(12)") {
            cmd.args(["--format", "count", "--stats"]);
        }
        cmd.arg(gremlin);
        run(&mut cmd)?;
    }
    Ok(())
}
