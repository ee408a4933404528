//! `cargo xtask matrix`: every server version the README names, each on its own port, run
//! through its own Gherkin suite (per format) and the value round trip, into the
//! compatibility table of the guide, `docs/guide/src/compatibility.md`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use graphbinary_client::Serializer;

use crate::features::{self, tp3};
use crate::server::{self, Server};
use crate::util::{project_root, secs};

const HELP: &str = "usage: cargo xtask matrix [--port N] [--only S] [--cases N]

Runs every server version the README names, each on its own port on 127.0.0.1 (started there
and stopped after; a TinkerPop 3 server must answer `Gremlin.version()` with its version, so a
server of another version left on a port is refused, not tested), and writes the compatibility
table docs/guide/src/compatibility.md (the rows it ran; with --only the others are kept):

  Gremlin Server 3.6.8, 3.7.3, 3.7.5, 3.8.0, 3.8.1 (WebSocket, integration graphs): that
    version's own Gherkin suite, its gremlin-test jar, through GraphBinary 1 and through
    GraphSON 3 (`cargo xtask features --tinkerpop V --port N [--serializer graphson3]`), and
    the round trip of every value kind with its Java class (the roundtrip module of
    graphbinary-client/tests/live3, env GREMLIN_WS_URL_<V>, every other GREMLIN_* unset);
  Gremlin Server 4.0.0-beta.3 (HTTP, GraphBinary 4): its suite (`cargo xtask features`) and
    the round trip (env GREMLIN_URL);
  JanusGraph Server 1.1.0 (WebSocket, GraphBinary 1): the round trip and the project's
    end-to-end tests against it, in memory (ws3_janusgraph, e2e_export's JanusGraph load),
    then on BerkeleyJE + Lucene (ws3_janusgraph_index: written, server restarted, read).
    TinkerPop's suite does not run on it (the page says why).

A suite that cannot run here (its jar not served, ...) gets its row with the reason.

  --port N    the first of 8 ports: 3.6.8, 3.7.3, 3.7.5, 3.8.0, 3.8.1, 4.0.0-beta.3,
              JanusGraph in memory, JanusGraph on BerkeleyJE on N, N+1, ... (default 8220)
  --only S    only the servers whose name or version contains S (e.g. 3.8, Janus)
  --cases N   round-trip cases per route and server (GRAPHBINARY_ROUNDTRIP_CASES; default 40)

Exit status 1 if a suite scenario or a test failed, or a server did not start.";

/// The page this command writes.
pub const PAGE: &str = "docs/guide/src/compatibility.md";

/// The TinkerPop 3 versions of the matrix, in order (their ports follow `--port`).
pub const TINKERPOP3: &[&str] = &["3.6.8", "3.7.3", "3.7.5", "3.8.0", "3.8.1"];

/// The formats each TinkerPop 3 suite runs through.
const FORMATS: &[Serializer] = &[Serializer::GraphBinary1, Serializer::GraphSon3];

const TP4: &str = "4.0.0-beta.3";
const JANUSGRAPH: &str = "1.1.0";

/// Why TinkerPop's suite does not run on JanusGraph.
const JANUSGRAPH_NO_SUITE: &str = "the suite needs TinkerPop's integration graphs \
(TinkerFactory builds them in a TinkerGraph with its own ids; the crew graph needs LIST \
cardinality, the nullable graph null property values, which JanusGraph refuses)";

/// One line of the table.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    server: String,
    version: String,
    transport: String,
    format: String,
    /// `passed / failed / skipped` of the suite, or `not run: why`.
    suite: String,
    /// The round trip's outcome, or `-` where it is another row's.
    round_trip: String,
}

impl Row {
    fn line(&self) -> String {
        format!(
            "| {} | {} | {} | {} | {} | {} |",
            self.server, self.version, self.transport, self.format, self.suite, self.round_trip
        )
    }

    fn parse(line: &str) -> Option<Row> {
        let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").collect();
        let [server, version, transport, format, suite, round_trip] = cells[..] else {
            return None;
        };
        let row = Row {
            server: server.trim().into(),
            version: version.trim().into(),
            transport: transport.trim().into(),
            format: format.trim().into(),
            suite: suite.trim().into(),
            round_trip: round_trip.trim().into(),
        };
        (row.server != "server" && !row.server.starts_with("---")).then_some(row)
    }

    /// Where the row goes: TinkerPop 3 by version, then 4, then JanusGraph; formats in
    /// [`FORMATS`] order.
    fn order(&self) -> (usize, usize) {
        let server = match (self.server.as_str(), self.version.as_str()) {
            ("JanusGraph Server", _) => TINKERPOP3.len() + 1,
            (_, TP4) => TINKERPOP3.len(),
            (_, v) => TINKERPOP3
                .iter()
                .position(|x| *x == v)
                .unwrap_or(TINKERPOP3.len() + 2),
        };
        let format = FORMATS
            .iter()
            .position(|f| tp3::serializer_label(*f) == self.format)
            .unwrap_or(0);
        (server, format)
    }
}

/// One run of tests of graphbinary-client (`cargo test`): libtest's counts less the tests
/// that reported a skip (`graphbinary_testkit::skip`), and the values the round trip said
/// were equal.
#[derive(Default, Debug, Clone, PartialEq)]
struct Tests {
    passed: usize,
    failed: usize,
    skipped: usize,
    values: usize,
    /// Each failed test's name and the first lines of its failure, on one line.
    failures: Vec<String>,
}

impl Tests {
    fn add(&mut self, o: Tests) {
        self.passed += o.passed;
        self.failed += o.failed;
        self.skipped += o.skipped;
        self.values += o.values;
        self.failures.extend(o.failures);
    }

    fn cell(&self) -> String {
        let mut s = format!("{} / {} / {} tests", self.passed, self.failed, self.skipped);
        if self.values > 0 {
            s.push_str(&format!(", {} values equal", self.values));
        }
        for f in &self.failures {
            s.push_str(&format!("; failed: {f}"));
        }
        s
    }
}

/// Counts of a `cargo test` output: `stdout` has libtest's `test result:` lines, `skips` the
/// skip log's lines, and the round trip's `roundtrip: ... N cases equal` / `N values equal`
/// lines are in `stdout` or `stderr`.
fn count_tests(stdout: &str, stderr: &str, skips: &str) -> Tests {
    let mut t = Tests::default();
    let number_before = |line: &str, word: &str| -> usize {
        line.split(';')
            .find_map(|part| {
                let part = part.trim();
                let (n, w) = part.rsplit_once(' ')?;
                let n = n.rsplit(' ').next()?;
                (w == word).then(|| n.parse().ok()).flatten()
            })
            .unwrap_or(0)
    };
    for line in stdout.lines().filter(|l| l.starts_with("test result:")) {
        t.passed += number_before(line, "passed");
        t.failed += number_before(line, "failed");
    }
    for line in stdout.lines().chain(stderr.lines()) {
        let Some(rest) = line.trim().strip_prefix("roundtrip: ") else {
            continue;
        };
        let Some(head) = rest
            .strip_suffix(" cases equal")
            .or_else(|| rest.strip_suffix(" values equal"))
        else {
            continue;
        };
        t.values += head
            .rsplit(' ')
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
    }
    // The failed tests (libtest's terse `name --- FAILED`), each with its panic's first lines
    // (a proptest failure: `Test failed: ...`, `left: ...`, `right: ...`).
    let all: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
    for name in all
        .iter()
        .filter_map(|l| l.trim().strip_suffix(" --- FAILED"))
    {
        let short = name.rsplit("::").next().unwrap_or(name);
        let why = all
            .iter()
            .position(|l| l.starts_with(&format!("thread '{name}'")))
            .map(|i| {
                all[i + 1..]
                    .iter()
                    .take(3)
                    .map(|l| l.trim().trim_end_matches(','))
                    .collect::<Vec<_>>()
                    .join(" ")
                    .replace('`', "")
                    .replace('|', "/")
            })
            .unwrap_or_default();
        let why: String = why.chars().take(240).collect();
        t.failures.push(if why.is_empty() {
            format!("`{short}`")
        } else {
            format!("`{short}` ({why})")
        });
    }
    t.skipped = skips.lines().filter(|l| l.contains(" SKIPPED")).count();
    // A test that skipped returned early: libtest counted it as passed.
    t.passed = t.passed.saturating_sub(t.skipped);
    t
}

/// Runs graphbinary-client's test binary `binary` with the libtest `filters`, `env` its only
/// GREMLIN_* variables (the servers it may use), and counts what ran.
fn client_tests(
    binary: &str,
    filters: &[&str],
    env: &[(&str, String)],
    cases: u32,
) -> Result<Tests> {
    let dir = project_root().join("target/matrix");
    std::fs::create_dir_all(&dir)?;
    let skip_log = dir.join(format!("skips-{binary}.log"));
    let _ = std::fs::remove_file(&skip_log);
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(project_root())
        .args([
            "test",
            "-q",
            "-p",
            "graphbinary-client",
            "--test",
            binary,
            "--",
        ])
        .args(filters)
        .arg("--nocapture")
        .env("GRAPHBINARY_SKIP_LOG", &skip_log)
        .env("GRAPHBINARY_ROUNDTRIP_CASES", cases.to_string());
    for (k, _) in std::env::vars() {
        if k.starts_with("GREMLIN_") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let t = Instant::now();
    let out = cmd
        .output()
        .with_context(|| format!("running cargo test --test {binary}"))?;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let skips = std::fs::read_to_string(&skip_log).unwrap_or_default();
    let tests = count_tests(&stdout, &stderr, &skips);
    for line in stdout.lines().chain(stderr.lines()) {
        let l = line.trim_start();
        if l.starts_with("test ") && (l.contains("FAILED") || l.contains("panicked"))
            || l.starts_with("thread '")
            || l.starts_with("NOTICE:")
            || l.starts_with("error")
        {
            eprintln!("  {line}");
        }
    }
    if !out.status.success() && tests.failed == 0 && tests.failures.is_empty() {
        bail!(
            "cargo test --test {binary} failed ({}) with no failed test: {}",
            out.status,
            stderr.lines().rev().take(5).collect::<Vec<_>>().join(" / ")
        );
    }
    eprintln!(
        "xtask: matrix: {binary} {filters:?}: {} in {}",
        tests.cell(),
        secs(t.elapsed())
    );
    Ok(tests)
}

/// The round-trip tests of `tests/live3/roundtrip.rs` for TinkerPop 3 servers.
const ROUND_TRIP3: &[&str] = &[
    "roundtrip::tinkerpop3_every_route_reads_back_what_was_sent",
    "roundtrip::tinkerpop3_bindings_keep_their_java_class_and_match_what_was_stored",
    "roundtrip::a_tinkerpop3_sessions_requests_read_back_what_was_sent",
    "roundtrip::every_value_type_reads_back_on_each_tinkerpop3_version",
];

/// The env var that names TinkerPop 3 `version`'s server in the round trip (as
/// `tests/live3/roundtrip.rs`'s VERSIONS has it): `GREMLIN_WS_URL_381` for 3.8.1.
fn url_var(version: &str) -> String {
    format!("GREMLIN_WS_URL_{}", version.replace('.', ""))
}

/// A suite's counts as a cell.
fn suite_cell(t: &features::Totals) -> String {
    format!("{} / {} / {}", t.passed, t.failed, t.skipped)
}

/// The first line of an error chain, for a cell (no `|`, no paths of this machine).
fn reason(e: &anyhow::Error) -> String {
    let root = project_root().display().to_string();
    format!("{e:#}")
        .replace(&root, ".")
        .replace('|', "/")
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The rows of TinkerPop 3 `version` on `port`.
fn tinkerpop3(version: &str, port: u16, cases: u32, failed: &mut Vec<String>) -> Vec<Row> {
    let row = |format: Serializer, suite: String, round_trip: String| Row {
        server: "Gremlin Server".into(),
        version: version.into(),
        transport: "WebSocket".into(),
        format: tp3::serializer_label(format).into(),
        suite,
        round_trip,
    };
    // The suite first: a version whose jar is not served still gets its round trip.
    let suite_missing = tp3::features_dir(version).err().map(|e| {
        eprintln!("xtask: matrix: {version}: no suite: {e:#}");
        format!(
            "not run: its suite, gremlin-test {version}, could not be fetched with Maven \
             (not served by the registry these machines reach)"
        )
    });
    let server = Server::tp3(version, server::INTEGRATION);
    let guard = match server.ensure_running(port) {
        Ok(g) => g,
        Err(e) => {
            failed.push(format!("{version}: server: {e:#}"));
            let why = format!("not run: the server did not start: {}", reason(&e));
            return FORMATS
                .iter()
                .map(|f| row(*f, why.clone(), "not run".into()))
                .collect();
        }
    };
    let mut rows = Vec::new();
    for &format in FORMATS {
        let suite = match &suite_missing {
            Some(why) => why.clone(),
            None => match features::run_suite(Some(version), format, port) {
                Ok(t) => {
                    if t.failed > 0 {
                        failed.push(format!(
                            "{version} {}: {} scenarios failed",
                            tp3::serializer_label(format),
                            t.failed
                        ));
                    }
                    suite_cell(&t)
                }
                Err(e) => {
                    failed.push(format!("{version}: {e:#}"));
                    format!("not run: {}", reason(&e))
                }
            },
        };
        rows.push(row(format, suite, "-".into()));
    }
    rows[0].round_trip = round_trip(
        version,
        "live3",
        ROUND_TRIP3,
        &[(url_var(version).as_str(), guard.url())],
        cases,
        failed,
    );
    drop(guard);
    rows
}

/// The cell of a test run (and its failure noted).
fn round_trip(
    what: &str,
    binary: &str,
    filters: &[&str],
    env: &[(&str, String)],
    cases: u32,
    failed: &mut Vec<String>,
) -> String {
    match client_tests(binary, filters, env, cases) {
        Ok(t) => {
            if t.failed > 0 {
                failed.push(format!("{what}: {} tests failed", t.failed));
            }
            t.cell()
        }
        Err(e) => {
            failed.push(format!("{what}: {e:#}"));
            format!("not run: {}", reason(&e))
        }
    }
}

/// TinkerPop 4's row on `port`.
fn tinkerpop4(port: u16, cases: u32, failed: &mut Vec<String>) -> Vec<Row> {
    let mut row = Row {
        server: "Gremlin Server".into(),
        version: TP4.into(),
        transport: "HTTP".into(),
        format: "GraphBinary 4".into(),
        suite: String::new(),
        round_trip: String::new(),
    };
    let guard = match Server::tp4(server::INTEGRATION).ensure_running(port) {
        Ok(g) => g,
        Err(e) => {
            failed.push(format!("{TP4}: server: {e:#}"));
            row.suite = format!("not run: the server did not start: {}", reason(&e));
            row.round_trip = "not run".into();
            return vec![row];
        }
    };
    row.suite = match features::run_suite(None, Serializer::GraphBinary1, port) {
        Ok(t) => {
            if t.failed > 0 {
                failed.push(format!("{TP4}: {} scenarios failed", t.failed));
            }
            suite_cell(&t)
        }
        Err(e) => {
            failed.push(format!("{TP4}: {e:#}"));
            format!("not run: {}", reason(&e))
        }
    };
    row.round_trip = round_trip(
        TP4,
        "live3",
        &["roundtrip::tinkerpop4_every_route_reads_back_what_was_sent"],
        &[("GREMLIN_URL", guard.url())],
        cases,
        failed,
    );
    vec![row]
}

/// JanusGraph's row on `port` (in memory) and `port + 1` (BerkeleyJE), and its end-to-end
/// tests' counts: (test, backend, cell).
fn janusgraph(
    port: u16,
    cases: u32,
    failed: &mut Vec<String>,
) -> (Vec<Row>, Vec<(String, String, String)>) {
    let mut row = Row {
        server: "JanusGraph Server".into(),
        version: JANUSGRAPH.into(),
        transport: "WebSocket".into(),
        format: tp3::serializer_label(Serializer::GraphBinary1).into(),
        suite: format!("not run: {JANUSGRAPH_NO_SUITE}"),
        round_trip: String::new(),
    };
    let mut e2e = Vec::new();
    let servers = match server::start_for_tests(&[(None, false, false, port)]) {
        Ok(s) => s,
        Err(e) => {
            failed.push(format!("JanusGraph: server: {e:#}"));
            row.round_trip = format!("not run: the server did not start: {}", reason(&e));
            return (vec![row], e2e);
        }
    };
    let url = servers[0].url();
    let var = "GREMLIN_WS_JANUSGRAPH_URL";
    row.round_trip = round_trip(
        "JanusGraph round trip",
        "live3",
        // Not the last, every type by version: JanusGraph is not a TinkerPop version.
        &ROUND_TRIP3[..3],
        &[(var, url.clone())],
        cases,
        failed,
    );
    for (name, binary, filter) in [
        ("ws3_janusgraph", "live3", "ws3_janusgraph::"),
        (
            "e2e_export (JanusGraph load and export)",
            "e2e",
            "e2e_export::ws_janusgraph_",
        ),
    ] {
        let cell = round_trip(
            name,
            binary,
            &[filter],
            &[(var, url.clone())],
            cases,
            failed,
        );
        e2e.push((name.to_string(), "in memory".to_string(), cell));
    }
    drop(servers);
    // BerkeleyJE + Lucene: written, the server restarted on the same data, read back (as `cargo
    // xtask ci`'s JanusGraph BerkeleyJE step).
    let port = port + 1;
    let cell = berkeleyje(port, cases, failed).unwrap_or_else(|e| {
        failed.push(format!("JanusGraph BerkeleyJE: {e:#}"));
        format!("not run: {}", reason(&e))
    });
    e2e.push((
        "ws3_janusgraph_index (write, restart, read)".into(),
        "BerkeleyJE + Lucene".into(),
        cell,
    ));
    (vec![row], e2e)
}

fn berkeleyje(port: u16, cases: u32, failed: &mut Vec<String>) -> Result<String> {
    server::remove_berkeleyje_data(port)?;
    let run_word = format!(
        "m{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis()
    );
    let mut all = Tests::default();
    for phase in ["write", "reopened"] {
        let guard = server::start_janusgraph_berkeleyje(port)?;
        let t = client_tests(
            "live3",
            &[&format!("ws3_janusgraph_index::{phase}_phase")],
            &[
                ("GREMLIN_WS_JANUSGRAPH_BDB_URL", guard.url()),
                ("JANUSGRAPH_BDB_RUN", run_word.clone()),
                ("JANUSGRAPH_BDB_PHASE", phase.into()),
            ],
            cases,
        )?;
        // SIGTERM: JanusGraph closes the graph before the next phase opens it again.
        drop(guard);
        all.add(t);
    }
    if all.failed > 0 {
        failed.push(format!("ws3_janusgraph_index: {} failed", all.failed));
    }
    Ok(all.cell())
}

/// The page: its rows (in order) and JanusGraph's end-to-end tests.
fn page(rows: &[Row], e2e: &[(String, String, String)]) -> String {
    let mut s = String::from(
        "# Compatibility\n\n\
         <!-- Written by `cargo xtask matrix` (do not edit; run it again). -->\n\n\
         Every server the client is tested against, each version on its own port on one \
         machine; each TinkerPop 3 server checked to answer `Gremlin.version()` with the \
         version of its row (by the suite's runner and by the round trip), so that a server \
         of another version left on a port is refused, not tested. **Suite**: \
         that version's own Gherkin suite (TinkerPop's feature files from its gremlin-test jar, \
         against a server holding the suite's graphs) run through this client, scenarios \
         passed / failed / skipped; a skipped scenario is listed with its reason in \
         `xtask/features-skip*.toml`. **Round trip**: values of every kind (generated, and one \
         of each type) sent through every route that sends a value (bindings or parameters, \
         the traversal API, literals in the script, a session or transaction), read back \
         equal, and on TinkerPop 3 with the Java class each stands for \
         (`graphbinary-client/tests/live3/roundtrip.rs`, through GraphBinary); tests passed / \
         failed / skipped. GraphSON 2 and the untyped GraphSON variants, Amazon Neptune and \
         Azure Cosmos DB are not in this table: see [the conformance report]\
         (../../CONFORMANCE.md) for GraphSON 2's runs, [Neptune](neptune.md) and \
         [Cosmos DB](cosmos.md) for what is checked of those services. Run again with \
         `cargo xtask matrix` (about 15 minutes on a shared 2-core machine; `--only 3.8` runs \
         some rows and keeps the others).\n\n\
         | server | version | transport | format | suite (passed / failed / skipped) | round trip |\n\
         |---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&r.line());
        s.push('\n');
    }
    if !e2e.is_empty() {
        s.push_str(
            "\nJanusGraph 1.1.0: TinkerPop's suite does not run on it (its graphs are made for \
             TinkerGraph), so its row holds the round trip and the project's end-to-end tests \
             against it (tests passed / failed / skipped):\n\n\
             | tests | backend | result |\n|---|---|---|\n",
        );
        for (name, backend, cell) in e2e {
            s.push_str(&format!("| {name} | {backend} | {cell} |\n"));
        }
    }
    s.push_str(
        "\n**What each version's language has**: the steps, predicates and tokens newer than \
         3.7 (3.8.0's `asNumber`, `asBool`, `discard()`, `none(P)`, `P.typeOf`, `GType`, \
         `Pick.unproductive`; 4.0's `addLabel`, ...) are marked `since` in `spec/steps.toml`. \
         Tell the client the server's version, `Client::builder(url).server_version(\
         ServerVersion::new(3, 7, 3))` (a `ws://` server's is not learned: `Gremlin.version()` \
         is a Groovy script that Neptune and Cosmos DB refuse; `http://` is 4.0), and a \
         traversal using what the server lacks fails with `Error::NeedsVersion` (kind \
         `unsupported`) naming it, the version it needs and the server's; nothing is sent. \
         Unset, it is sent as written and the server's error says what it lacks. `Set`, `UUID` \
         and `Byte` literals reach every 3.x (as bindings, or literal-only as Groovy \
         expressions). Checked on 3.7.3 and 3.8.1 by \
         `graphbinary-client/tests/live3/ws3_versions.rs`.\n",
    );
    s
}

/// The rows and JanusGraph's test lines of an existing page.
fn parse_page(text: &str) -> (Vec<Row>, Vec<(String, String, String)>) {
    let mut rows = Vec::new();
    let mut e2e = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("| ")) {
        if let Some(r) = Row::parse(line) {
            rows.push(r);
            continue;
        }
        let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").collect();
        if let [name, backend, cell] = cells[..] {
            if name.trim() != "tests" {
                e2e.push((
                    name.trim().into(),
                    backend.trim().into(),
                    cell.trim().into(),
                ));
            }
        }
    }
    (rows, e2e)
}

/// `cargo xtask matrix ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut port: u16 = 8220;
    let mut only: Option<String> = None;
    let mut cases: u32 = 40;
    let mut a = graphbinary_kit::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--port" => port = a.parse(arg)?,
            "--only" => only = Some(a.value(arg)?.to_string()),
            "--cases" => cases = a.parse(arg)?,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    anyhow::ensure!(
        port.checked_add(7).is_some(),
        "--port {port}: the matrix needs 8 ports from it"
    );
    let wanted = |name: &str, version: &str| {
        only.as_deref()
            .is_none_or(|s| name.contains(s) || version.contains(s))
    };
    let started = Instant::now();
    let mut failed = Vec::new();
    let mut rows = Vec::new();
    let mut e2e = None;
    for (i, v) in TINKERPOP3.iter().enumerate() {
        if wanted("Gremlin Server", v) {
            eprintln!(
                "xtask: matrix: Gremlin Server {v} on port {}",
                port + i as u16
            );
            rows.extend(tinkerpop3(v, port + i as u16, cases, &mut failed));
        }
    }
    let next = port + TINKERPOP3.len() as u16;
    if wanted("Gremlin Server", TP4) {
        eprintln!("xtask: matrix: Gremlin Server {TP4} on port {next}");
        rows.extend(tinkerpop4(next, cases, &mut failed));
    }
    if wanted("JanusGraph Server", JANUSGRAPH) {
        eprintln!(
            "xtask: matrix: JanusGraph Server {JANUSGRAPH} on ports {} and {}",
            next + 1,
            next + 2
        );
        let (r, tests) = janusgraph(next + 1, cases, &mut failed);
        rows.extend(r);
        e2e = Some(tests);
    }
    let path = project_root().join(PAGE);
    write_page(&path, rows, e2e)?;
    println!(
        "matrix: wrote {PAGE} in {}; {}",
        secs(started.elapsed()),
        if failed.is_empty() {
            "no failure".to_string()
        } else {
            format!("{} failures", failed.len())
        }
    );
    if !failed.is_empty() {
        for f in &failed {
            println!("FAIL {f}");
        }
        std::process::exit(1);
    }
    Ok(())
}

/// Writes the page: `rows` replace the page's rows of the same server, version and format (the
/// others kept), `e2e` JanusGraph's tests when it ran.
fn write_page(
    path: &Path,
    rows: Vec<Row>,
    e2e: Option<Vec<(String, String, String)>>,
) -> Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let (mut all, old_e2e) = parse_page(&old);
    let key = |r: &Row| (r.server.clone(), r.version.clone(), r.format.clone());
    all.retain(|r| !rows.iter().any(|n| key(n) == key(r)));
    all.extend(rows);
    all.sort_by_key(Row::order);
    let text = page(&all, &e2e.unwrap_or(old_e2e));
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_output_is_counted_without_the_tests_that_skipped() {
        let stdout = "running 4 tests\nroundtrip: 3.8.1 param: 40 cases equal\n\
                      m::b --- FAILED\n\
                      test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 60 filtered out\n\
                      test result: FAILED. 1 passed; 2 failed; 0 ignored";
        let stderr = "roundtrip: 3.8.1 every type: 31 values equal\nroundtrip: x: nothing\n\
                      thread 'm::b' (7) panicked at t.rs:1:2:\nTest failed: `Float(0.0)`,\n";
        let skips = "NOTICE: a SKIPPED: GREMLIN_URL unset (Gremlin Server 4)\n";
        let t = count_tests(stdout, stderr, skips);
        assert_eq!(
            t,
            Tests {
                passed: 4,
                failed: 2,
                skipped: 1,
                values: 71,
                failures: vec!["`b` (Test failed: Float(0.0))".into()],
            }
        );
        assert_eq!(
            t.cell(),
            "4 / 2 / 1 tests, 71 values equal; failed: `b` (Test failed: Float(0.0))"
        );
    }

    /// The committed page is what `page` writes of its own rows (its prose edited only here).
    #[test]
    fn the_committed_page_is_what_page_writes() {
        let path = project_root().join("docs/guide/src/compatibility.md");
        let text = std::fs::read_to_string(&path).unwrap();
        let (rows, e2e) = parse_page(&text);
        assert!(!rows.is_empty());
        assert_eq!(
            page(&rows, &e2e),
            text,
            "run `cargo xtask matrix` or fix its prose"
        );
    }

    #[test]
    fn rows_are_replaced_by_key_and_ordered() {
        let row = |version: &str, format: Serializer, suite: &str| Row {
            server: "Gremlin Server".into(),
            version: version.into(),
            transport: "WebSocket".into(),
            format: tp3::serializer_label(format).into(),
            suite: suite.into(),
            round_trip: "-".into(),
        };
        let dir = project_root().join("target/matrix");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("page-test.md");
        let _ = std::fs::remove_file(&path);
        let old = vec![
            row("3.8.1", Serializer::GraphSon3, "1 / 0 / 0"),
            row("3.7.3", Serializer::GraphBinary1, "2 / 0 / 0"),
        ];
        write_page(&path, old, None).unwrap();
        write_page(
            &path,
            vec![row("3.8.1", Serializer::GraphSon3, "3 / 1 / 0")],
            Some(vec![(
                "t".into(),
                "in memory".into(),
                "1 / 0 / 0 tests".into(),
            )]),
        )
        .unwrap();
        let (rows, e2e) = parse_page(&std::fs::read_to_string(&path).unwrap());
        assert_eq!(
            rows,
            vec![
                row("3.7.3", Serializer::GraphBinary1, "2 / 0 / 0"),
                row("3.8.1", Serializer::GraphSon3, "3 / 1 / 0"),
            ]
        );
        assert_eq!(e2e.len(), 1);
        assert!(Row::parse("| server | version | a | b | c | d |").is_none());
    }
}
