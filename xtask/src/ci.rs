//! `cargo xtask ci`: every check and test, in the order CI runs them.
//!
//! Steps: `cargo xtask regen --check`, `cargo xtask api --check` (the public API snapshot),
//! `cargo fmt --check`,
//! `cargo clippy -D warnings`, `cargo doc --no-deps --all-features` with
//! `RUSTDOCFLAGS=-D warnings`, then `cargo test --workspace --features` [`CI_FEATURES`] (every
//! later cargo build and test of CI with the same, so that they share its build) with
//! `GREMLIN_URL` pointing at a
//! real Gremlin Server (modern dataset) and `GREMLIN_TX_URL` at a transactional one, started for
//! the tests and stopped afterwards, whatever they do; the examples of graphbinary-client run
//! against the same two servers (`ci/examples.rs`; the `tinkerpop3` one in the TinkerPop 3
//! step), the SigV4 test (checked against botocore) and the `metrics` facade's among them;
//! `cargo xtask failover` over three servers; the TinkerPop 3
//! WebSocket tests against 3.7.3, 3.8.1, 3.7.3 with SASL and JanusGraph 1.1.0; JanusGraph 1.1.0
//! on BerkeleyJE + Lucene (index-answered text and geo predicates, Geoshapes, a restart on the
//! same data: [`janusgraph_berkeleyje_tests`]); TinkerPop
//! 3.7.3's Gherkin suite through the WebSocket client (`cargo xtask features --tinkerpop
//! 3.7.3`, then with `--serializer graphson3` and `graphson2`, the three on one 3.7.3 server) and
//! TinkerPop 3.8.1's (`--tinkerpop 3.8.1`), then the loader on those two servers (air-routes
//! whole and twice into each one's empty `ggraph`: tests/e2e's `ws3_load` tests); TinkerPop
//! 4's Gherkin feature suite in both modes against the integration server (`cargo xtask features --mode
//! all`) and through the traversal API in plain mode (`--via api`, `--via api-params`, `--via
//! rust`), the three integration servers started together once ([`gherkin_steps`]); then a
//! [`FUZZ_SECS`] s run of each of the 8 fuzz targets (GraphBinary 4, GraphBinary 1,
//! GraphSON, gremlin-lang literals; installing cargo-fuzz first when it is missing); last, the
//! link's fidelity tests alone ([`FIDELITY_TESTS`]). All steps run even after a failure; a
//! summary follows; the exit status is non-zero if any step failed.

use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Result};

use graphbinary_kit::link::FIDELITY_TESTS;

use crate::server::{self, Server};
use crate::util::{project_root, run, secs};

mod examples;

/// The integration server of the feature suite (graphbinary-conformance's default port).
const FEATURES_PORT: u16 = 8184;
/// How long the CI chaos run's writers and readers run, and how many kills (shorter than
/// `cargo xtask cluster chaos`'s 120 s and 3: the step took 1m45s here, 3m02s with the jars
/// still to resolve).
const CHAOS_SECS: u64 = 60;
const CHAOS_CYCLES: usize = 2;
/// Seconds the soak test (tests/measured/soak.rs, 60 by default) holds its load in CI, its
/// `ws://` half a fifth of that: tuned, like [`FUZZ_SECS`], for the 20-minute budget (issue 38).
const SOAK_SECS: &str = "30";
/// Seconds of each fuzz target in CI (`cargo xtask fuzz` runs 30 by default): 8 targets of
/// 10 s, two at a time on 2 cores (40 s), so that the whole of `cargo xtask ci` stays under 20
/// minutes (issue 38); 8 of 15 s one after another once (2m13s here), 8 of 30 s and 4 of 60 s
/// before that.
const FUZZ_SECS: u64 = 10;

/// The features every `cargo test` and `cargo build` of CI turns on, each run with
/// `--workspace`: then they all resolve the workspace's features alike and share one build of
/// graphbinary-client and of each test binary. (The sigv4 step once built the client and its
/// test binaries again with `-p graphbinary-client --features "sigv4 metrics"`, the examples
/// once more with `--features sigv4`, and the TinkerPop 3, JanusGraph and failover steps once
/// more with `-p graphbinary-client`'s features: six test binaries built twice, three of them
/// three times.) Nothing is gated on these features being off. `sigv4-aws-config` (a superset
/// of `sigv4`) is there for the CLI's `--sigv4`, which the guide's Neptune example runs
/// (`guide_cli`): its aws-config and AWS SDK crates cost ~70 s of compile time, cold.
pub(crate) const CI_FEATURES: &str =
    "graphbinary-client/sigv4-aws-config,graphbinary-client/metrics";

/// `cargo ARGS --workspace --features` [`CI_FEATURES`]: the one feature resolution of CI's
/// builds.
fn with_ci_features(mut cmd: Command, args: &[&str]) -> Command {
    cmd.args(args)
        .args(["--workspace", "--features", CI_FEATURES]);
    cmd
}

const HELP: &str =
    "usage: cargo xtask ci [--no-server] [--port N] [--features-port N] [--tinkerpop3-only]
                      [--janusgraph-index-only] [--chaos-only] [--gherkin-only]

Runs regen --check, api --check (graphbinary-client/api.txt, nightly rustdoc), fmt --check, clippy -D warnings, doc (-D warnings), and cargo test --workspace
--features graphbinary-client/sigv4-aws-config,graphbinary-client/metrics (every later cargo test and build
with the same, sharing that build) against a real Gremlin Server (modern dataset) on 127.0.0.1:<port> (default 8182; a server that
already answers there with the modern graph is reused) and a transactional one (dataset tx) on
<port>+1, the examples (graphbinary-client/examples, run against those two servers and, for
tinkerpop3, the 3.7.3 and JanusGraph ones), the SigV4 and metrics tests again on their own, the failover test over three
servers on 8195-8197 or env GREMLIN_FAILOVER_PORTS=A,B,C (`cargo xtask failover --mixed`: 256
idempotent reads in flight, a host stopped with SIGTERM, then two killed with SIGKILL, each
restarted), the TinkerPop 3 WebSocket tests (tests/ws3.rs, tests/ws3_janusgraph.rs, tests/ws3_hosts.rs, tests/faults.rs, tests/soak.rs)
against Gremlin Server 3.7.3, 3.8.1, 3.7.3 with SASL, JanusGraph 1.1.0 and 3.7.3 with SASL over
TLS (wss://) on 8186-8190 or env GREMLIN_WS_CI_PORTS=A,B,C,D,E, JanusGraph 1.1.0 on BerkeleyJE with a
Lucene mixed index and query.force-index (tests/live3/ws3_janusgraph_index.rs: text and geo predicates,
Geoshapes, then a restart on the same data) on 8191 or env GREMLIN_JANUSGRAPH_BDB_PORT, the
chaos run of a JanusGraph cluster on Cassandra (`cargo xtask cluster chaos --secs 60 --cycles 2`:
no acknowledged write lost or duplicated while servers are killed, nor a row of a load by
key made meanwhile; ports 8340-8342, 8350-8352),
TinkerPop 3.7.3's Gherkin suite through the WebSocket client
(`cargo xtask features --tinkerpop 3.7.3`; GraphBinary 1, GraphSON 3 and GraphSON 2, on one
3.7.3 integration server on 8186) and 3.8.1's (a 3.8.1 one on 8179), then air-routes loaded
whole and twice into the empty ggraph of both (tests/e2e's ws3_load tests), then TinkerPop's
Gherkin feature suite in both modes (`cargo xtask features
--mode all`) and through the traversal API in plain mode (`--via api`, `--via api-params`; and
`--via rust`, compiled, no server) against the integration server on
127.0.0.1:<features-port> (default 8184); these three servers start together (one that
already answers is reused) and serve every run. Then a 10 s run of each of
the 8 fuzz targets, one a core at a time (cargo-fuzz is installed with `cargo install` first when missing; it needs the nightly
toolchain).

  --tinkerpop3-only  only the TinkerPop 3 step: start the five 3.x servers (and a 4.0
                     integration server on 8184 for the guide's copy example, unless env
                     GREMLIN_LOAD_URL names one whose graph may be cleared), run the ws3
                     tests against them, stop them
  --janusgraph-index-only  only the JanusGraph BerkeleyJE step (write, restart, read; then
                           the loader's key index, e2e_load::ws_janusgraph_berkeleyje)
  --chaos-only       only the cluster chaos step
  --gherkin-only     only the Gherkin steps: start their three servers, run the 7 suites
                     and the ws3_load tests, stop them
  --no-server        run the tests without a server (GREMLIN_URL unset: end-to-end tests
                     skip) and no feature suite
  --port N           server port (default 8182, or GREMLIN_SERVER_PORT)
  --features-port N  integration server port for the feature suite (default 8184)";

/// What runs a step: its name and its work (timed, its failure recorded).
type StepRunner<'a> = dyn FnMut(&'static str, &mut dyn FnMut() -> Result<()>) + 'a;

/// Outcome of one step, for the summary.
struct Step {
    name: &'static str,
    outcome: Result<()>,
    took: std::time::Duration,
}

/// Test counts summed over every `test result:` line of `cargo test`, plus the tests that
/// returned early for lack of a server or of vectors (libtest counts those as passed; each
/// appends a line to the file named by `GRAPHBINARY_SKIP_LOG`).
#[derive(Default)]
struct TestTotals {
    passed: u64,
    failed: u64,
    ignored: u64,
    skipped_early: u64,
}

impl TestTotals {
    /// Tests that really passed: libtest's passed minus those that skipped early.
    fn passed(&self) -> u64 {
        self.passed.saturating_sub(self.skipped_early)
    }

    /// Ignored tests and tests that skipped early.
    fn skipped(&self) -> u64 {
        self.ignored + self.skipped_early
    }

    /// Counts the skip notices in the contents of a skip log (one `NOTICE: ... SKIPPED` line
    /// per skipped test, written in one go; notices are counted, not lines, so that two that
    /// ever share a line still count as two skips rather than one skip and one pass).
    fn add_skip_log(&mut self, log: &str) {
        self.skipped_early += log.matches(" SKIPPED").count() as u64;
    }
}

impl TestTotals {
    /// Adds the counts of a libtest summary line such as
    /// `test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; ...`.
    fn add_line(&mut self, line: &str) {
        let Some(rest) = line.trim().strip_prefix("test result: ") else {
            return;
        };
        for part in rest.split(['.', ';']) {
            let mut words = part.split_whitespace();
            if let (Some(n), Some(what)) = (words.next(), words.next()) {
                let Ok(n) = n.parse::<u64>() else { continue };
                match what {
                    "passed" => self.passed += n,
                    "failed" => self.failed += n,
                    "ignored" => self.ignored += n,
                    _ => {}
                }
            }
        }
    }
}

/// Runs `cargo test`, echoing its stdout line by line and counting its results, and the
/// tests that skipped early.
fn run_tests(cmd: &mut Command, totals: &mut TestTotals) -> Result<()> {
    let log = std::env::temp_dir().join(format!("xtask-ci-skips-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    cmd.env("GRAPHBINARY_SKIP_LOG", &log);
    let result = run_counting(cmd, totals);
    if let Ok(text) = std::fs::read_to_string(&log) {
        totals.add_skip_log(&text);
        let _ = std::fs::remove_file(&log);
    }
    result
}

fn run_counting(cmd: &mut Command, totals: &mut TestTotals) -> Result<()> {
    use std::io::BufRead;
    let shown = crate::util::show(cmd);
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn()?;
    let stdout = child.stdout.take().expect("piped stdout");
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line?;
        println!("{line}");
        totals.add_line(&line);
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("`{shown}` failed ({status})");
    }
    Ok(())
}

/// The ports of the TinkerPop 3.7.3 and 3.8.1 integration servers of the Gherkin steps (the
/// `features --tinkerpop` defaults of those versions).
const TP3_FEATURES_PORTS: [u16; 2] = [8186, 8179];

/// The ports of CI's TinkerPop 3 servers: 3.7.3, 3.8.1, 3.7.3 with auth, JanusGraph 1.1.0,
/// 3.7.3 with auth over TLS (env `GREMLIN_WS_CI_PORTS=A,B,C,D,E`; default 8186-8190, clear of
/// the failover step's 8195-8197 and of server3's defaults 8196-8199).
fn tinkerpop3_ports() -> Result<[u16; 5]> {
    let Ok(text) = std::env::var("GREMLIN_WS_CI_PORTS") else {
        return Ok([8186, 8187, 8188, 8189, 8190]);
    };
    let ports: Vec<u16> = text
        .split(',')
        .map(|p| p.trim().parse())
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("GREMLIN_WS_CI_PORTS={text:?}: {e}"))?;
    ports
        .try_into()
        .map_err(|_| anyhow::anyhow!("GREMLIN_WS_CI_PORTS={text:?}: five ports, A,B,C,D,E"))
}

/// `cargo test --workspace --features CI_FEATURES --no-fail-fast --test T...` for each of
/// `tests`, test binaries of graphbinary-client (every binary runs even after one fails, so
/// one failure does not hide another); the binaries the test step built ([`CI_FEATURES`]).
fn client_tests(cmd: Command, tests: &[&str]) -> Command {
    let mut cmd = with_ci_features(cmd, &["test", "--no-fail-fast"]);
    for t in tests {
        cmd.args(["--test", t]);
    }
    cmd
}

/// The libtest filters (after `--`) that select the tests of the modules `modules` of a test
/// binary (`ws3` selects `ws3::...` and not `ws3_graphson::...`): each module of
/// `graphbinary-client/tests/BINARY/main.rs` was a test binary of its own.
fn modules(modules: &[&str]) -> Vec<String> {
    modules.iter().map(|m| format!("{m}::")).collect()
}

/// Starts TinkerPop 3.7.3, 3.8.1, 3.7.3 with SASL, JanusGraph 1.1.0 and 3.7.3 with SASL over
/// TLS (jars from Maven
/// Central on first use), runs the WebSocket end-to-end tests against them, stops them.
/// `load_url` is the 4.0 server whose graph the tests may clear (`GREMLIN_LOAD_URL`, the test
/// step's): the guide's copy example loads into it what it exported from 3.7.3.
fn tinkerpop3_tests(
    cargo: &dyn Fn() -> Command,
    totals: &mut TestTotals,
    load_url: Option<&str>,
) -> Result<()> {
    use crate::server::start_for_tests;
    let [p373, p381, p_auth, p_jg, p_tls] = tinkerpop3_ports()?;
    let t = Instant::now();
    let servers = start_for_tests(&[
        (Some("3.7.3"), false, false, p373),
        (Some("3.8.1"), false, false, p381),
        (Some("3.7.3"), true, false, p_auth),
        (None, false, false, p_jg),
        (Some("3.7.3"), true, true, p_tls),
    ])?;
    let [s373, s381, s_auth, s_jg, s_tls] = &servers[..] else {
        bail!("five servers expected");
    };
    eprintln!(
        "xtask: five TinkerPop 3 servers up in {}",
        secs(t.elapsed())
    );
    let mut ws3 = client_tests(cargo(), &["live3", "cli"]);
    if let Some(url) = load_url {
        ws3.env("GREMLIN_LOAD_URL", url);
    }
    let outcome = run_tests(
        ws3.arg("--")
            .args(modules(&[
                "ws3",
                // GraphSON 2/3, typed and untyped, against 3.7.3 (and SASL on the --auth one).
                "ws3_graphson",
                "ws3_janusgraph",
                // Several ws:// hosts, one killed (forwarders of ours in front of 3.7.3 / 3.8.1).
                "ws3_hosts",
                // Every route's values read back from 3.7.3, 3.8.1 and JanusGraph.
                "roundtrip",
                // The traversal API per server version: 3.8's steps on 3.8.1, refused on 3.7.3.
                "ws3_versions",
                // SASL with URL credentials against the --auth server.
                "secrets",
                // The Azure Cosmos DB profile: its Cosmos-shaped user on the --auth servers
                // (ws:// and wss://), Cosmos's attributes and throttling through our proxy.
                "cosmos",
                // The console and `query --user` through a pseudo-terminal, on the --auth server.
                "console3",
            ]))
            // The guide's CLI examples marked `cli-server: tinkerpop3` / `janusgraph` / `load`
            // (the Neptune page's `--sigv4` one against 3.7.3; the copy from 3.7.3 into
            // GREMLIN_LOAD_URL's graph).
            .arg("guide_cli::ws3_examples")
            .env("GREMLIN_WS_URL_373", s373.url())
            .env("GREMLIN_WS_URL_381", s381.url())
            .env("GREMLIN_WS_AUTH_URL_373", s_auth.url())
            .env("GREMLIN_WS_JANUSGRAPH_URL", s_jg.url())
            .env("GREMLIN_WSS_AUTH_URL_373", s_tls.url())
            .env("GREMLIN_WSS_ROOT_PEM", crate::server::tls_root()?),
        totals,
    );
    // The ws:// halves of the fault-proxy and soak tests (their http:// halves ran in the
    // plain test step, against GREMLIN_URL): the tests named `ws_...` (or `...::ws_373`) of
    // faults and observe (`live4`), e2e_elements and e2e_batch (`live4_writes`), soak
    // (`measured`) and e2e_export (`e2e`): `::ws_` (a bare `ws_` would also pick
    // `marko_knows_vadas...`).
    let faults = run_tests(
        client_tests(cargo(), &["live4", "live4_writes", "measured", "e2e"])
            .args(["--", "::ws_"])
            .env("GRAPHBINARY_SOAK_SECS", SOAK_SECS)
            .env("GREMLIN_WS_URL_373", s373.url())
            // e2e_elements' `ws_381` tests.
            .env("GREMLIN_WS_URL_381", s381.url())
            // e2e_elements' `ws_janusgraph` tests, e2e_export's JanusGraph load (by a key
            // property, ~2 s) and e2e_load's air-routes into it (every row, the schema's
            // cardinalities; minutes): the ws3_janusgraph and roundtrip tests are done with
            // this server; what they write they drop.
            .env("GREMLIN_WS_JANUSGRAPH_URL", s_jg.url()),
        totals,
    );
    let outcome = outcome.and(faults);
    // The `tinkerpop3` example, on TinkerPop's server and on JanusGraph.
    let examples = examples::run_tinkerpop3(&[s373.url(), s_jg.url()]);
    server::stop_all(servers);
    outcome.and(examples)
}

/// The port of CI's JanusGraph on BerkeleyJE + Lucene (env `GREMLIN_JANUSGRAPH_BDB_PORT`;
/// default 8191, clear of the TinkerPop 3 step's 8186-8190 and the failover step's 8195-8197).
fn janusgraph_berkeleyje_port() -> Result<u16> {
    match std::env::var("GREMLIN_JANUSGRAPH_BDB_PORT") {
        Ok(p) => p
            .parse()
            .map_err(|e| anyhow::anyhow!("GREMLIN_JANUSGRAPH_BDB_PORT={p:?}: {e}")),
        Err(_) => Ok(8191),
    }
}

/// JanusGraph 1.1.0 on BerkeleyJE with a Lucene mixed index and `query.force-index=true`, on
/// a fresh data directory: `tests/live3/ws3_janusgraph_index.rs` writes (text and geo predicates
/// answered by the index, a query it cannot answer refused, Geoshapes of every shape read
/// back), the server is stopped and started again on the same directory, and the test reads
/// what was written.
fn janusgraph_berkeleyje_tests(cargo: &dyn Fn() -> Command, totals: &mut TestTotals) -> Result<()> {
    let port = janusgraph_berkeleyje_port()?;
    server::remove_berkeleyje_data(port)?;
    // A word in every name this run writes (the data directory is fresh, but a test run by
    // hand against the same directory must not count it).
    let run_word = format!(
        "r{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis()
    );
    let mut phase = |guard: &server::Guard, phase: &str| {
        run_tests(
            client_tests(cargo(), &["live3"])
                .args(["--", &format!("ws3_janusgraph_index::{phase}_phase")])
                .env("GREMLIN_WS_JANUSGRAPH_BDB_URL", guard.url())
                .env("JANUSGRAPH_BDB_RUN", &run_word)
                .env("JANUSGRAPH_BDB_PHASE", phase),
            totals,
        )
    };
    let t = Instant::now();
    let guard = server::start_janusgraph_berkeleyje(port)?;
    eprintln!(
        "xtask: JanusGraph (BerkeleyJE + Lucene) up in {}",
        secs(t.elapsed())
    );
    let written = phase(&guard, "write");
    // SIGTERM: JanusGraph closes the graph; the same directory is opened again.
    drop(guard);
    let t = Instant::now();
    let guard = server::start_janusgraph_berkeleyje(port)?;
    eprintln!("xtask: JanusGraph restarted in {}", secs(t.elapsed()));
    let reopened = phase(&guard, "reopened");
    // The loader's key index (`--create-index`, and the load refused without it under
    // force-index) and its schema made before the rows (one label or key per name):
    // tests/e2e/e2e_load.rs's ws_janusgraph_berkeleyje test on the same server, env
    // GREMLIN_WS_JANUSGRAPH_BDB_URL (10-30 s; no server started for it).
    let reopened = reopened.and(run_tests(
        client_tests(cargo(), &["e2e"])
            .args(["--", "e2e_load::ws_janusgraph_berkeleyje"])
            .env("GREMLIN_WS_JANUSGRAPH_BDB_URL", guard.url()),
        totals,
    ));
    drop(guard);
    written.and(reopened)
}

/// The Gherkin steps: TinkerPop 3.7.3's suite (GraphBinary 1, GraphSON 3, GraphSON 2) and
/// 3.8.1's through the WebSocket client, then the loader's `ws3_load` tests on those two
/// servers (`cargo test` through `cargo`, counted in `totals`), TinkerPop 4's suite in both
/// modes and through the traversal API, each a `cargo xtask features` run given to `step`.
fn gherkin_steps(
    step: &mut StepRunner,
    features_port: u16,
    cargo: &dyn Fn() -> Command,
    totals: &mut TestTotals,
) {
    let root = project_root();
    // The integration servers of the Gherkin suites (TinkerPop 3.7.3's, 3.8.1's and
    // 4.0's, each with the suite's graphs), started together once: each `features` run
    // below is given its server's --url (and would start its own there if it were gone).
    // Each run once started and stopped its own (3.7.3's three times, 4.0's three times).
    let gherkin_urls = [
        Server::tp3("3.7.3", server::INTEGRATION).url(TP3_FEATURES_PORTS[0]),
        Server::tp3("3.8.1", server::INTEGRATION).url(TP3_FEATURES_PORTS[1]),
        server::url(features_port),
    ];
    let mut gherkin_servers = Vec::new();
    step("gherkin servers", &mut || {
        gherkin_servers = server::ensure_all(vec![
            (
                Server::tp3("3.7.3", server::INTEGRATION),
                TP3_FEATURES_PORTS[0],
            ),
            (
                Server::tp3("3.8.1", server::INTEGRATION),
                TP3_FEATURES_PORTS[1],
            ),
            (Server::tp4(server::INTEGRATION), features_port),
        ])?;
        Ok(())
    });
    let features = |args: &[&str]| -> Result<()> {
        run(Command::new(std::env::current_exe()?)
            .current_dir(&root)
            .arg("features")
            .args(args))
    };
    let [url373, url381, url4] = &gherkin_urls;
    // TinkerPop 3.7.3's own Gherkin suite through the WebSocket client.
    step("features --tinkerpop 3.7.3", &mut || {
        features(&["--tinkerpop", "3.7.3", "--url", url373])
    });
    // TinkerPop 3.8.1's own suite (gremlin-lang texts made Groovy, GType, Set and UUID
    // literals), on a 3.8.1 server; about 15 s.
    step("features --tinkerpop 3.8.1", &mut || {
        features(&["--tinkerpop", "3.8.1", "--url", url381])
    });
    // The same suite through GraphSON 3 and GraphSON 2 (what GraphSON 2 cannot carry is
    // listed as expected failures in xtask/features-skip-tp3-graphson2.toml), on the same
    // 3.7.3 server (each scenario on the empty graph clears it first, as in one run).
    for (serializer, name) in [
        (
            "graphson3",
            "features --tinkerpop 3.7.3 --serializer graphson3",
        ),
        (
            "graphson2",
            "features --tinkerpop 3.7.3 --serializer graphson2",
        ),
    ] {
        step(name, &mut || {
            features(&[
                "--tinkerpop",
                "3.7.3",
                "--serializer",
                serializer,
                "--url",
                url373,
            ])
        });
    }
    // Issue 40 item 4 on TinkerPop 3: air-routes loaded whole and twice into the empty
    // `ggraph` of each (e2e_load's ws3_load tests; e2e_export's modern graph into 3.7.3's),
    // on these integration servers: the suites are done with them, and each test clears that
    // graph first. The two servers' tests run at once: 23 s on an idle 2-core machine (each
    // alone 13.5 s), 67 s at load average 10.
    step("e2e loads into 3.7.3 + 3.8.1", &mut || {
        run_tests(
            client_tests(cargo(), &["e2e"])
                .args(["--", "ws3_load"])
                .env("GREMLIN_WS_LOAD_URL_373", url373)
                .env("GREMLIN_WS_LOAD_URL_381", url381),
            totals,
        )
    });
    // TinkerPop's Gherkin suite, both modes, on the 4.0 integration server.
    step("features (plain + bulked)", &mut || {
        features(&["--mode", "all", "--url", url4])
    });
    // The same suite through the traversal API (each text parsed and rebuilt), plain mode,
    // values in place and then as parameters.
    // And translated to Rust calling the typed API, compiled and run (no server).
    step("features --via rust", &mut || features(&["--via", "rust"]));
    for (name, via) in [
        ("features --via api (plain)", "api"),
        ("features --via api-params (plain)", "api-params"),
    ] {
        step(name, &mut || features(&["--via", via, "--url", url4]));
    }
    server::stop_all(gherkin_servers);
}

/// A `cargo` command (`CARGO`, else `cargo` on PATH) run in `root`.
fn cargo_in(root: &std::path::Path) -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root);
    cmd
}

/// `cargo xtask ci --gherkin-only`.
fn gherkin_only(features_port: u16) -> Result<()> {
    let root = project_root();
    let cargo = || cargo_in(&root);
    let mut totals = TestTotals::default();
    let started = Instant::now();
    let mut failed = Vec::new();
    gherkin_steps(
        &mut |name, f| {
            let t = Instant::now();
            let outcome = f();
            eprintln!("==> {name}: done in {}", secs(t.elapsed()));
            if let Err(e) = outcome {
                eprintln!("==> {name}: FAILED: {e:#}");
                failed.push(name);
            }
        },
        features_port,
        &cargo,
        &mut totals,
    );
    eprintln!("xtask: Gherkin steps in {}", secs(started.elapsed()));
    println!(
        "tests: {} passed, {} failed, {} skipped",
        totals.passed(),
        totals.failed,
        totals.skipped()
    );
    if !failed.is_empty() {
        bail!("failed: {}", failed.join(", "));
    }
    Ok(())
}

/// `cargo xtask ci --janusgraph-index-only`.
fn janusgraph_index_only() -> Result<()> {
    one_step("JanusGraph BerkeleyJE", janusgraph_berkeleyje_tests)
}

/// `cargo xtask ci --tinkerpop3-only`: with the load server of env `GREMLIN_LOAD_URL`, else a
/// 4.0 integration server on [`FEATURES_PORT`] (one that answers there is reused), as the
/// whole `ci` keeps its test step's through this step.
fn tinkerpop3_only() -> Result<()> {
    one_step("TinkerPop 3", |cargo, totals| {
        if let Ok(url) = std::env::var("GREMLIN_LOAD_URL") {
            return tinkerpop3_tests(cargo, totals, Some(&url));
        }
        let load = server::ensure_all(vec![(Server::tp4(server::INTEGRATION), FEATURES_PORT)])?;
        let outcome = tinkerpop3_tests(cargo, totals, Some(&load[0].url()));
        server::stop_all(load);
        outcome
    })
}

/// One test step of `ci` run alone (its servers started by `step`), timed, with its totals.
fn one_step(
    name: &str,
    step: fn(&dyn Fn() -> Command, &mut TestTotals) -> Result<()>,
) -> Result<()> {
    let root = project_root();
    let cargo = || cargo_in(&root);
    let started = Instant::now();
    let mut totals = TestTotals::default();
    let outcome = step(&cargo, &mut totals);
    eprintln!("xtask: {name} step in {}", secs(started.elapsed()));
    println!(
        "tests: {} passed, {} failed, {} skipped",
        totals.passed(),
        totals.failed,
        totals.skipped()
    );
    outcome
}

/// The chaos drill as CI runs it: 3 servers, [`CHAOS_SECS`], [`CHAOS_CYCLES`] (the
/// `graphbinary-chaos` binary, which links the client that xtask does not).
fn chaos() -> Result<()> {
    let (secs, cycles) = (CHAOS_SECS.to_string(), CHAOS_CYCLES.to_string());
    crate::util::run_tool(
        "graphbinary-chaos",
        &[
            "chaos",
            "--servers",
            "3",
            "--secs",
            &secs,
            "--cycles",
            &cycles,
        ],
    )
}

/// Resolves the jars of every server CI starts, in the order the steps need them (TinkerPop 4;
/// 3.7.3, 3.8.1 and JanusGraph in memory; JanusGraph on BerkeleyJE; Cassandra and JanusGraph
/// on CQL). A failure is only reported: the step that needs the jars resolves them again.
fn prefetch_jars() {
    let t = Instant::now();
    let servers = [
        Server::tp4("modern"),
        Server::tp3("3.7.3", "modern"),
        Server::tp3("3.8.1", "modern"),
        Server::janusgraph(),
        Server::janusgraph_berkeleyje(),
    ];
    let outcomes = servers
        .iter()
        .map(|s| s.resolve_jars().map(drop))
        .chain(std::iter::once_with(crate::cluster::resolve_jars));
    for outcome in outcomes {
        if let Err(e) = outcome {
            eprintln!("xtask: resolving jars ahead failed: {e:#}");
        }
    }
    eprintln!("xtask: the servers' jars resolved in {}", secs(t.elapsed()));
}

/// The free space of the file system holding `dir`, as `df -h` prints it, or `?`.
fn disk_free(dir: &std::path::Path) -> String {
    Command::new("df")
        .args(["-Ph"])
        .arg(dir)
        .output()
        .ok()
        .and_then(|out| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let line = text.lines().nth(1)?.to_owned();
            line.split_whitespace()
                .nth(3)
                .map(|free| format!("{free} free"))
        })
        .unwrap_or_else(|| "?".to_owned())
}

/// `cargo xtask ci ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut with_server = true;
    let mut port = server::default_port()?;
    let mut features_port = FEATURES_PORT;
    let mut gherkin_only = false;
    let mut a = graphbinary_kit::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--no-server" => with_server = false,
            "--tinkerpop3-only" => return tinkerpop3_only(),
            "--janusgraph-index-only" => return janusgraph_index_only(),
            "--chaos-only" => return chaos(),
            "--gherkin-only" => gherkin_only = true,
            "--port" => port = a.parse(arg)?,
            "--features-port" => features_port = a.parse(arg)?,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    if gherkin_only {
        return self::gherkin_only(features_port);
    }
    let root = project_root();
    let started = Instant::now();
    // Every server's jars, resolved by Maven in the background while the checks and builds
    // below keep the cores busy: from an empty Maven repository the seven sets took ~2.5 min
    // of downloads, which the server steps once waited for one after another. A step that
    // needs jars not yet there waits for them (`resolve::ensure_jars` locks each directory).
    let prefetch = with_server.then(|| std::thread::spawn(prefetch_jars));
    let mut totals = TestTotals::default();
    let mut steps = Vec::new();
    let mut step = |name: &'static str, f: &mut dyn FnMut() -> Result<()>| {
        eprintln!("\n==> {name}");
        let t = Instant::now();
        let outcome = f();
        if let Err(err) = &outcome {
            eprintln!("==> {name}: FAILED: {err:#}");
        }
        // CI machines have little disk (a run once died of a full one): say what is left.
        eprintln!(
            "==> {name}: done in {}; disk: {}",
            secs(t.elapsed()),
            disk_free(&root)
        );
        steps.push(Step {
            name,
            outcome,
            took: t.elapsed(),
        });
    };
    let cargo = || cargo_in(&root);

    step("regen --check", &mut || {
        run(Command::new(std::env::current_exe()?)
            .current_dir(&root)
            .args(["regen", "--check"]))
    });
    // The public API snapshot (graphbinary-client/api.txt, from nightly rustdoc JSON): fails
    // when the surface changed and the file was not regenerated.
    step("api --check", &mut || {
        run(Command::new(std::env::current_exe()?)
            .current_dir(&root)
            .args(["api", "--check"]))
    });
    step("fmt --check", &mut || {
        run(cargo().args(["fmt", "--all", "--check"]))
    });
    step("clippy", &mut || {
        run(cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))
    });
    step("doc", &mut || {
        run(cargo()
            .args(["doc", "--workspace", "--no-deps", "--all-features"])
            .env("RUSTDOCFLAGS", "-D warnings"))
    });
    if with_server {
        let mut guard = None;
        let mut tx_guard = None;
        // An empty graph the loader's tests (e2e_load, e2e_export) and the guide's copy example
        // (guide_cli, in the TinkerPop 3 step) may clear: the `g` of an integration server on
        // the feature suite's port, kept through the TinkerPop 3 step and stopped before that
        // suite starts its own there.
        let mut load_guard = None;
        step("gremlin server", &mut || {
            let mut three = server::ensure_all(vec![
                (Server::tp4("modern"), port),
                (Server::tp4(server::TX_DATASET), port + 1),
                (Server::tp4(server::INTEGRATION), features_port),
            ])?
            .into_iter();
            (guard, tx_guard, load_guard) = (three.next(), three.next(), three.next());
            Ok(())
        });
        if let (Some(guard), Some(tx_guard), Some(load_guard)) = (&guard, &tx_guard, &load_guard) {
            let url = guard.url();
            let tx_url = tx_guard.url();
            let load_url = load_guard.url();
            step("test", &mut || {
                eprintln!("GREMLIN_URL={url} GREMLIN_TX_URL={tx_url} GREMLIN_LOAD_URL={load_url}");
                run_tests(
                    with_ci_features(cargo(), &["test", "--no-fail-fast"])
                        .args(["--", "--skip", FIDELITY_TESTS])
                        .env("GREMLIN_URL", &url)
                        .env("GREMLIN_TX_URL", &tx_url)
                        .env("GREMLIN_LOAD_URL", &load_url)
                        .env("GRAPHBINARY_SOAK_SECS", SOAK_SECS),
                    &mut totals,
                )
            });
            step("examples", &mut || examples::run_tinkerpop4(&url, &tx_url));
        }
        server::stop_all(tx_guard.into_iter().collect());
        step("failover", &mut || {
            let ports = crate::failover::ci_ports()?;
            // One run: a clean shutdown, then two crashes.
            let selection = ["--workspace", "--features", CI_FEATURES];
            crate::failover::run(&ports, crate::failover::Stop::Mixed, 3, 10, &selection)
        });
        step("tinkerpop 3 (ws3 tests)", &mut || {
            // Without it (the gremlin server step failed), guide_cli's copy reports a skip.
            let load_url = load_guard.as_ref().map(server::Guard::url);
            tinkerpop3_tests(&cargo, &mut totals, load_url.as_deref())
        });
        server::stop_all(load_guard.take().into_iter().collect());
        step("janusgraph berkeleyje", &mut || {
            janusgraph_berkeleyje_tests(&cargo, &mut totals)
        });
        // Issue 28's chaos run, shortened for CI: one Cassandra node and three JanusGraph
        // Servers of its own, writers and idempotent readers through one client while two
        // servers are killed (SIGKILL) and restarted; fails on a lost or duplicated
        // acknowledged write or a read failed after the kill was detected.
        step("cluster chaos", &mut chaos);
        // Stops the server if we started it, also after failed tests.
        if guard.as_ref().is_some_and(server::Guard::reused) {
            eprintln!("xtask: leaving the reused Gremlin Server running");
        }
        drop(guard);
        gherkin_steps(&mut step, features_port, &cargo, &mut totals);
    } else {
        step("test (no server)", &mut || {
            run_tests(
                with_ci_features(cargo(), &["test", "--no-fail-fast"])
                    .args(["--", "--skip", FIDELITY_TESTS])
                    .env_remove("GREMLIN_URL"),
                &mut totals,
            )
        });
    }

    // A short coverage-guided fuzz run of every target. cargo-fuzz comes from cargo's registry and is
    // installed here when missing (it needs the nightly toolchain, which rustup provides), so a
    // fresh machine fuzzes too; if it cannot be installed the step fails rather than skips.
    if !crate::fuzz::installed() {
        step("install cargo-fuzz", &mut || {
            run(Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]))?;
            anyhow::ensure!(
                crate::fuzz::installed(),
                "`cargo +nightly fuzz` still does not run (is the nightly toolchain installed?)"
            );
            Ok(())
        });
    }
    if crate::fuzz::installed() {
        step("fuzz (10 s a target)", &mut || {
            crate::fuzz::run_all(FUZZ_SECS).map_err(|e| anyhow::anyhow!(e))
        });
    }

    if let Some(prefetch) = prefetch {
        let _ = prefetch.join();
    }
    // The link's fidelity tests, skipped by the test steps above: alone, once no server, build
    // or download competes for the cores the link's threads need to keep to their delays.
    step("link fidelity (alone)", &mut || {
        run_tests(
            with_ci_features(cargo(), &["test", "--no-fail-fast", "--lib"])
                .args(["--", FIDELITY_TESTS]),
            &mut totals,
        )
    });
    eprintln!("\n==> summary ({} in all)", secs(started.elapsed()));
    let mut failed = 0;
    for s in &steps {
        let verdict = if s.outcome.is_ok() { "ok" } else { "FAILED" };
        failed += usize::from(s.outcome.is_err());
        eprintln!("  {:<26} {:<7} {}", s.name, verdict, secs(s.took));
    }
    if with_server && !steps.iter().any(|s| s.name == "test") {
        bail!("tests not run: the Gremlin Server did not start");
    }
    eprintln!(
        "  (cargo test: {} passed, {} failed, {} ignored in all test binaries; {} of the passed returned early for lack of a server or vectors)",
        totals.passed, totals.failed, totals.ignored, totals.skipped_early
    );
    // The closing line, in the plain form CI log readers understand: test counts, not steps.
    // A test that skipped for lack of a server or vectors counts as skipped, not passed.
    println!(
        "tests: {} passed, {} failed, {} skipped",
        totals.passed(),
        totals.failed,
        totals.skipped()
    );
    if failed > 0 {
        bail!("{failed} step(s) failed");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::TestTotals;

    #[test]
    fn sums_libtest_summaries() {
        let mut t = TestTotals::default();
        t.add_line("test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s");
        t.add_line(
            "test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out",
        );
        t.add_line("running 3 tests");
        assert_eq!((t.passed, t.failed, t.ignored), (4, 2, 1));
    }

    #[test]
    fn early_skips_count_as_skipped_not_passed() {
        let mut t = TestTotals::default();
        t.add_line("test result: ok. 5 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out");
        t.add_skip_log("NOTICE: e2e_a SKIPPED: Gremlin Server unreachable\nNOTICE: vectors SKIPPED: not found\n");
        assert_eq!((t.passed(), t.failed, t.skipped()), (3, 0, 3));
        // Two notices written on one line (as `writeln!` from two threads could) are two skips.
        t.add_skip_log(
            "NOTICE: e2e_b SKIPPED: unset (TinkerPop 3 servers)NOTICE: e2e_c SKIPPED: unset\n\n",
        );
        assert_eq!((t.passed(), t.failed, t.skipped()), (1, 0, 5));
    }
}
