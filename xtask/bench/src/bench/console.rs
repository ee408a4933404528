//! `cargo xtask bench --only console`: how fast a person gets a prompt and a first answer.
//! `graphbinary console` (release build) against the Gremlin Console 3.7.3
//! (`org.apache.tinkerpop:gremlin-console:3.7.3` from Maven Central, `xtask/gremlin3/console/
//! pom.xml`), both on the same Gremlin Server 3.7.3 (modern graph) over WebSocket, each run a
//! fresh process in a pseudo-terminal (`xtask/bench/console_startup.py`): the time from its
//! start to its first prompt, and to the first result of `g.V().count()` typed at that prompt
//! (the Gremlin Console's with `:plugin use tinkerpop.server`, `:remote connect` and `:>`, as
//! its documentation has it).

use std::fmt::Write as _;
use std::process::Command;

use anyhow::{bail, Context, Result};

use super::Report;
use crate::util::project_root;

/// The start of the section in BENCHMARKS.md (a `--only console` run replaces just this one).
pub const SECTION_START: &str = "## 6. Console start-up";
/// The TinkerPop release of the server and of the Gremlin Console.
const VERSION: &str = "3.7.3";

/// One timed run: seconds to the first prompt and to the first result.
fn once(rep: &mut Report, name: &str, args: &[String], record: bool) -> Result<(f64, f64)> {
    let root = project_root();
    let mut cmd = Command::new("python3");
    cmd.arg(root.join("xtask/bench/console_startup.py"))
        .args(args)
        .current_dir(root.join("target/gremlin-console-3.7.3"));
    if record {
        rep.cmd(&cmd);
    }
    let out = cmd.output().context("running console_startup.py")?;
    if !out.status.success() {
        bail!(
            "console_startup.py failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let line = String::from_utf8_lossy(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(line.trim())
        .with_context(|| format!("console_startup.py printed {line:?}"))?;
    let secs = |k: &str| {
        json[k]
            .as_f64()
            .with_context(|| format!("no {k} in {line:?}"))
    };
    rep.raw.push(format!("console {name}: {}", line.trim()));
    Ok((secs("prompt")?, secs("first")?))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Measures both consoles against a 3.7.3 server on `port` and adds the section to `rep`.
pub fn run(quick: bool, port: u16, rep: &mut Report) -> Result<()> {
    let root = project_root();
    let ours = super::process::build_graphbinary(rep)?;
    let home = root.join("target/gremlin-console-3.7.3");
    let lib = crate::server::resolve::ensure_jars(
        &root.join("xtask/gremlin3/console/pom.xml"),
        &home.join("lib"),
        "Gremlin Console 3.7.3",
        std::iter::empty(),
    )?;
    let server = crate::server::Server::tp3(VERSION, "modern");
    let _guard = server.ensure_running(port)?;
    let url = server.url(port);
    let remote = home.join("remote.yaml");
    std::fs::write(
        &remote,
        format!(
            "hosts: [127.0.0.1]\nport: {port}\nserializer: {{ className: \
             org.apache.tinkerpop.gremlin.util.ser.GraphBinaryMessageSerializerV1, config: {{ \
             serializeResultToString: true }}}}\n"
        ),
    )?;
    let s = |x: &str| x.to_string();
    let ours_args = vec![
        s("--prompt"),
        s("gremlin> "),
        s("--expect"),
        s(r"\r\n6\r\n"),
        s("--send"),
        s("g.V().count()"),
        s("--"),
        ours.display().to_string(),
        s("console"),
        s("--url"),
        url.clone(),
    ];
    let java_args = vec![
        s("--prompt"),
        s("gremlin> "),
        // The console colours its answer: `==>`, then the value between resets.
        s("--expect"),
        s(r"6\x1b[m\r\n"),
        s("--send"),
        s(":plugin use tinkerpop.server"),
        s("--send"),
        format!(":remote connect tinkerpop.server {}", remote.display()),
        s("--send"),
        s(":> g.V().count()"),
        s("--"),
        s("java"),
        s("-cp"),
        format!("{}/*", lib.display()),
        s("org.apache.tinkerpop.gremlin.console.Console"),
    ];
    let runs = if quick { 2 } else { 7 };
    let (mut ours_p, mut ours_f, mut java_p, mut java_f) = (vec![], vec![], vec![], vec![]);
    // Interleaved, one warm-up run each (page cache, the JVM's class data).
    for i in 0..=runs {
        let (p, f) = once(rep, "graphbinary", &ours_args, i == 0)?;
        let (jp, jf) = once(rep, "gremlin-console", &java_args, i == 0)?;
        if i > 0 {
            ours_p.push(p);
            ours_f.push(f);
            java_p.push(jp);
            java_f.push(jf);
        }
    }
    let (op, of, jp, jf) = (
        median(&mut ours_p),
        median(&mut ours_f),
        median(&mut java_p),
        median(&mut java_f),
    );
    let ms = |x: f64| format!("{:.0} ms", x * 1000.0);
    let mut sec = String::new();
    writeln!(
        sec,
        "{SECTION_START}: `graphbinary console` against the Gremlin Console {VERSION}\n"
    )?;
    writeln!(
        sec,
        "`cargo xtask bench --only console`. Both on the same Gremlin Server {VERSION} (modern \
         graph) on loopback, each run a fresh process in a pseudo-terminal \
         (`xtask/bench/console_startup.py`), interleaved, {runs} runs after one warm-up each; \
         medians. *First prompt*: from the start of the process until its prompt shows. \
         *First result*: until the answer `6` of `g.V().count()`, typed at that prompt, shows \
         (ours: the line itself, over `ws://`; the Gremlin Console: `:plugin use \
         tinkerpop.server`, `:remote connect tinkerpop.server remote.yaml` with GraphBinary 1, \
         then `:> g.V().count()`, each sent once the previous answer is in). The Gremlin \
         Console is `org.apache.tinkerpop:gremlin-console:{VERSION}` with its Maven runtime \
         dependencies (`xtask/gremlin3/console/pom.xml`), started as `java -cp 'lib/*' \
         org.apache.tinkerpop.gremlin.console.Console`.\n"
    )?;
    writeln!(sec, "| console | first prompt | first result |")?;
    writeln!(sec, "| --- | ---: | ---: |")?;
    writeln!(sec, "| **graphbinary console** | {} | {} |", ms(op), ms(of))?;
    writeln!(
        sec,
        "| Gremlin Console {VERSION} | {} | {} |",
        ms(jp),
        ms(jf)
    )?;
    writeln!(
        sec,
        "| ratio (Gremlin Console / ours) | {:.0}x | {:.0}x |\n",
        jp / op.max(1e-9),
        jf / of.max(1e-9)
    )?;
    rep.sections.push(sec);
    Ok(())
}
