//! `cargo xtask features`: TinkerPop's own Gherkin feature suite (the one its drivers run),
//! through `graphbinary_client::Client`, against the integration server
//! (`cargo xtask server --dataset integration`).
//!
//! The feature files are read at run time from the gremlin-test jar in `../shared/maven`
//! (unpacked into `target/tinkerpop-features/`), or from `--features DIR`. Each scenario's
//! traversal text is sent as gremlin-lang with `g` set to the graph's traversal source and every
//! `using the parameter` value as a typed parameter in the request's `parameters` field; side
//! effects become `withSideEffect` source steps, as gremlin-python and gremlin-javascript
//! apply them. Results are checked with the semantics in [`compare`]. Scenarios listed in
//! `xtask/features-skip.toml` are skipped or expected to fail, each with its reason.
//!
//! `--tinkerpop 3.7.3` runs TinkerPop 3's suite instead, through a `ws://` `Client`
//! against `cargo xtask server3 --dataset integration` ([`tp3`]).
//!
//! `--via api` / `--via api-params` build each request with the traversal API instead: the text
//! is parsed ([`gremlin_lang`]), rebuilt by name ([`via_api`]) on a `GraphTraversalSource` with
//! the same side effects, and sent with its `request()` (values written in place with
//! `literal_only`, or parameters as `GValue`s); the API's text must parse back to the same
//! request. `--via rust` needs no server: it translates the scenarios to Rust calling the typed
//! methods, compiles them in `target/features-api/` and compares their GremlinLang with the
//! interpreter's.

mod compare;
mod gocompare;
pub mod gremlin_lang;
mod literal;
mod notation;
mod skips;
pub mod tp3;
pub mod via_api;
mod via_rust;

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use graphbinary_client::client::Error as ClientError;
use graphbinary_client::value::{Edge, Vertex};
use graphbinary_client::{Client, Value};

use crate::server::{self, Server};
use crate::util::{project_root, secs, shared_dir};
use compare::{matches, Lookup};
use literal::{literal, Lang};
use notation::Typed;

/// The port of the integration server this command starts when none answers at `--url`.
pub const DEFAULT_PORT: u16 = 8184;

const HELP: &str =
    "usage: cargo xtask features [--mode plain|bulked|all] [--features DIR] [--only SUBSTRING]
                              [--url URL] [--via text|api|api-params] [--compare-go] [--verbose]
                              [--port N] [--tinkerpop 3.7.3 [--serializer S]]

Runs TinkerPop 4.0.0-beta.3's Gherkin feature suite through graphbinary_client::Client against
the integration server (started with `cargo xtask server --dataset integration --port 8184` if
nothing answers at --url).

  --mode M        plain (bulkResults off), bulked (bulkResults on) or all (both; default plain)
  --via V         how each request is built: text (the scenario's text; default), api (the text
                  parsed and rebuilt with graphbinary_client::process, values in place) or
                  api-params (the same, scenario parameters as GValues in `parameters`);
                  rust: no server; the (--only) scenarios translated to Rust calling the
                  typed API, compiled in target/features-api/, their text checked
  --features DIR  run the .feature files under DIR instead of those in the gremlin-test jar
  --only S        run only the scenarios whose `file: name` contains S
  --url URL       server URL (default http://127.0.0.1:8184/gremlin); on 127.0.0.1 or
                  localhost an integration server is started on its port if none answers
  --port N        the server on 127.0.0.1:N (instead of --url): http://127.0.0.1:N/gremlin, or
                  with --tinkerpop ws://127.0.0.1:N/gremlin; started there if none answers
  --compare-go    also run gremlin-go's cucumber runner against the same server and write
                  docs/CONFORMANCE.md (ours vs gremlin-go, per feature directory)
  --verbose       print every scenario's outcome
  --tinkerpop V   TinkerPop V's (3.x) suite instead: the gremlin-test V jar fetched with Maven,
                  run through a ws:// Client (GraphBinary 1, eval scripts with
                  bindings) against `cargo xtask server3 --tinkerpop V --dataset integration`
                  (default ws://127.0.0.1:P/gremlin, P 8186 for 3.7.3, 8176-8179 for 3.6.8,
                  3.7.5, 3.8.0, 3.8.1; the server must answer `Gremlin.version()` with V, or
                  the run stops before its first scenario); skips in
                  xtask/features-skip-tp3.toml; writes its row of docs/CONFORMANCE.md's matrix
                  (every version and server in turn, each on its own port, with the value
                  round trip: `cargo xtask matrix`, which writes docs/guide/src/compatibility.md)
  --serializer S  with --tinkerpop: the client's serializer, graphbinary1 (default), graphson2,
                  graphson2-untyped, graphson3 or graphson3-untyped; skips (what the format
                  cannot carry) in xtask/features-skip-tp3-<S>.toml (graphson2's: 79 Sets
                  and Map keys; none for the untyped ones, which lose every type and fail about
                  half the suite); only graphbinary1 writes docs/CONFORMANCE.md

Prints one line per failing scenario and ends with `features: N passed, N failed, N skipped`.
Exit status 1 on a failure, including a scenario that xtask/features-skip.toml expects to fail
but that passes.";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Plain,
    Bulked,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Plain => "plain",
            Mode::Bulked => "bulked",
        }
    }
}

/// How each scenario's request is built.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Via {
    /// The scenario's traversal text, with its parameters in the request.
    Text,
    /// The text parsed and rebuilt with the traversal API, values written in place
    /// (`literal_only`).
    Api,
    /// The same, with the scenario's parameters as `GValue`s in the request's `parameters`.
    ApiParams,
    /// No server: the traversals translated to Rust calling the typed API, compiled in
    /// `target/features-api/` and run; their text must equal the interpreter's.
    Rust,
}

impl Via {
    pub fn name(self) -> &'static str {
        match self {
            Via::Text => "text",
            Via::Api => "api",
            Via::ApiParams => "api-params",
            Via::Rust => "rust",
        }
    }
}

struct Options {
    via: Via,
    modes: Vec<Mode>,
    features: Option<PathBuf>,
    only: Option<String>,
    url: Option<String>,
    /// `--port`: the server on 127.0.0.1 at this port (instead of `url`).
    port: Option<u16>,
    compare_go: bool,
    verbose: bool,
    /// `--tinkerpop 3.x`: TinkerPop 3's suite through a `ws://` client.
    tinkerpop3: Option<String>,
    /// `--serializer`: the `ws://` client's serializer for `--tinkerpop` (GraphBinary 1 by default).
    serializer: tp3::Serializer,
}

/// `cargo xtask features ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut opts = Options {
        via: Via::Text,
        modes: vec![Mode::Plain],
        features: None,
        only: None,
        url: None,
        port: None,
        compare_go: false,
        verbose: false,
        tinkerpop3: None,
        serializer: tp3::Serializer::GraphBinary1,
    };
    let mut a = graphbinary_kit::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--mode" => {
                opts.modes = match a.choice(arg, &["plain", "bulked", "all"])? {
                    "plain" => vec![Mode::Plain],
                    "bulked" => vec![Mode::Bulked],
                    _ => vec![Mode::Plain, Mode::Bulked],
                }
            }
            "--via" => {
                opts.via = match a.choice(arg, &["text", "api", "api-params", "rust"])? {
                    "text" => Via::Text,
                    "api" => Via::Api,
                    "api-params" => Via::ApiParams,
                    _ => Via::Rust,
                }
            }
            "--features" => opts.features = Some(a.value(arg)?.into()),
            "--only" => opts.only = Some(a.value(arg)?.to_string()),
            "--url" => opts.url = Some(a.value(arg)?.to_string()),
            "--port" => opts.port = Some(a.parse(arg)?),
            "--compare-go" => opts.compare_go = true,
            "--tinkerpop" => {
                let v = a.value(arg)?;
                if !v.starts_with("3.") {
                    bail!("--tinkerpop takes a TinkerPop 3 release (the default suite is 4.0)");
                }
                opts.tinkerpop3 = Some(v.to_string());
            }
            "--serializer" => opts.serializer = tp3::serializer(a.value(arg)?)?,
            "--verbose" | "-v" => opts.verbose = true,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    anyhow::ensure!(
        opts.url.is_none() || opts.port.is_none(),
        "--url and --port both name the server: give one"
    );
    let totals = run(&opts)?;
    if totals.failed > 0 {
        std::process::exit(1);
    }
    Ok(())
}

/// One whole run of a suite against the server on 127.0.0.1:`port` (started there if none
/// answers, stopped after): TinkerPop `version`'s (3.x) through `serializer`, or TinkerPop 4's
/// plain text run when `version` is `None`. What `cargo xtask matrix` runs for each row; it
/// writes that row of docs/CONFORMANCE.md's matrix as `--tinkerpop V --port N` does.
pub fn run_suite(version: Option<&str>, serializer: tp3::Serializer, port: u16) -> Result<Totals> {
    run(&Options {
        via: Via::Text,
        modes: vec![Mode::Plain],
        features: None,
        only: None,
        url: None,
        port: Some(port),
        compare_go: false,
        verbose: false,
        tinkerpop3: version.map(str::to_string),
        serializer,
    })
}

/// The counts of one run (all modes together).
#[derive(Default, Clone, Copy, Debug)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub retried: usize,
}

/// The directory of TinkerPop's feature files: unpacked from the gremlin-test jar into
/// `target/tinkerpop-features/` at first use.
pub fn default_features_dir() -> Result<PathBuf> {
    let version = server::TINKERPOP_VERSION;
    let jar = shared_dir().join(format!(
        "maven/org/apache/tinkerpop/gremlin-test/{version}/gremlin-test-{version}.jar"
    ));
    let out = project_root().join(format!("target/tinkerpop-features/{version}"));
    let dir = out.join("org/apache/tinkerpop/gremlin/test/features");
    if !dir.is_dir() {
        anyhow::ensure!(
            jar.is_file(),
            "the gremlin-test jar is not at {}",
            jar.display()
        );
        unpack_features(&jar, &out)?;
    }
    Ok(dir)
}

/// Unpacks the feature files of a gremlin-test `jar` into `out`.
fn unpack_features(jar: &Path, out: &Path) -> Result<()> {
    {
        // Unpacked beside, then renamed: an interrupted unpacking is never taken for the files.
        let partial = PathBuf::from(format!("{}.partial", out.display()));
        let _ = std::fs::remove_dir_all(&partial);
        std::fs::create_dir_all(&partial)?;
        // `unzip` where there is one, else the JDK's `jar` (the server needs a JDK anyway).
        let member = "org/apache/tinkerpop/gremlin/test/features/";
        let mut cmd = if crate::util::on_path("unzip") {
            let mut c = std::process::Command::new("unzip");
            c.args(["-q", "-o"])
                .arg(jar)
                .arg(format!("{member}*"))
                .arg("-d")
                .arg(&partial);
            c
        } else {
            let mut c = std::process::Command::new("jar");
            c.arg("xf").arg(jar).arg(member).current_dir(&partial);
            c
        };
        crate::util::run(&mut cmd)
            .context("unpacking the feature files (needs `unzip` or `jar`)")?;
        let _ = std::fs::remove_dir_all(out);
        std::fs::rename(&partial, out)?;
    }
    Ok(())
}

fn run(opts: &Options) -> Result<Totals> {
    let started = Instant::now();
    let tp3 = opts.tinkerpop3.as_deref();
    anyhow::ensure!(
        tp3.is_some() || opts.serializer == tp3::Serializer::GraphBinary1,
        "--serializer is for --tinkerpop (a TinkerPop 4 server speaks GraphBinary 4)"
    );
    if tp3.is_some() {
        anyhow::ensure!(
            opts.via == Via::Text && opts.modes == [Mode::Plain] && !opts.compare_go,
            "--tinkerpop runs the text route in plain mode only (no --via, --mode or --compare-go)"
        );
    }
    let dir = match (&opts.features, tp3) {
        (Some(d), _) => d.clone(),
        (None, Some(v)) => tp3::features_dir(v)?,
        (None, None) => default_features_dir()?,
    };
    let mut scenarios = load(&dir)?;
    let parsed = scenarios.len();
    let skip_file = match tp3 {
        Some(v) => tp3::skip_file(v, opts.serializer),
        None => "xtask/features-skip.toml".to_string(),
    };
    let skips = skips::load(&project_root().join(&skip_file))?;
    // An entry that names no scenario of TinkerPop's files is stale (or misspelt).
    let mut stale = 0;
    if opts.features.is_none() {
        for e in skips.entries() {
            if !scenarios
                .iter()
                .any(|s| s.file == e.file && s.name == e.scenario)
            {
                stale += 1;
                println!(
                    "FAIL {skip_file}: {}: {} names no scenario",
                    e.file, e.scenario
                );
            }
        }
    }
    if let Some(only) = &opts.only {
        scenarios.retain(|s| s.id().contains(only.as_str()));
    }
    eprintln!(
        "xtask: {parsed} scenarios parsed from {}; running {}",
        dir.display(),
        scenarios.len()
    );
    if opts.via == Via::Rust {
        let (same, failed) = via_rust::run(&scenarios)?;
        println!("features --via rust: {same} identical, {failed} failed");
        return Ok(Totals {
            passed: same,
            failed: failed + stale,
            ..Totals::default()
        });
    }

    // A local URL gets a server started on its port when none answers there (and a reused one
    // is left running); any other URL is taken as it is.
    let (server, port) = match tp3 {
        Some(v) => (Server::tp3(v, server::INTEGRATION), tp3::default_port(v)),
        None => (Server::tp4(server::INTEGRATION), DEFAULT_PORT),
    };
    let port = opts.port.unwrap_or(port);
    let url = opts.url.clone().unwrap_or_else(|| server.url(port));
    let guard = match local_port(&url) {
        Some(port) => Some(server.ensure_running(port)?),
        None => None,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let backend = match tp3 {
        Some(v) => {
            tp3::write_read_feature_data(v)?;
            Backend::Ws3(rt.block_on(tp3::connect(&url, v, opts.serializer))?)
        }
        None => {
            let client = Client::builder(&url)
                .read_timeout(Duration::from_secs(120))
                .build()?;
            check_layout(&rt, &client, &url)?;
            Backend::Http(client)
        }
    };
    let mut all = Totals {
        failed: stale,
        ..Totals::default()
    };
    let mut per_mode = Vec::new();
    for &mode in &opts.modes {
        let t = Instant::now();
        let mut runner = Runner {
            backend: backend.clone(),
            mode,
            via: opts.via,
            lookups: BTreeMap::new(),
            translate: tp3.is_some_and(tp3::translates),
            responses: Default::default(),
            bulked: Default::default(),
        };
        let mut totals = Totals::default();
        let mut outcomes = Vec::new();
        for sc in &scenarios {
            let skip = skips.get(&sc.file, &sc.name);
            if let Some(entry) = skip.filter(|e| e.expect == skips::Expect::Skip) {
                totals.skipped += 1;
                if opts.verbose {
                    println!("SKIP [{}] {}: {}", mode.name(), sc.id(), entry.reason);
                }
                outcomes.push((sc.file.clone(), Outcome::Skipped));
                continue;
            }
            let mut result = rt.block_on(runner.scenario(sc));
            if result.is_err() {
                let again = rt.block_on(runner.scenario(sc));
                if again.is_ok() {
                    totals.retried += 1;
                }
                result = again;
            }
            let expected_fail = skip.is_some();
            let outcome = match (result, expected_fail) {
                (Ok(()), false) => {
                    totals.passed += 1;
                    if opts.verbose {
                        println!("ok   [{}] {}", mode.name(), sc.id());
                    }
                    Outcome::Passed
                }
                (Err(_), true) => {
                    totals.skipped += 1;
                    Outcome::Skipped
                }
                (Ok(()), true) => {
                    totals.failed += 1;
                    println!(
                        "FAIL [{}] {}: listed in {skip_file} as failing, but passes",
                        mode.name(),
                        sc.id()
                    );
                    Outcome::Failed
                }
                (Err(why), false) => {
                    totals.failed += 1;
                    println!("FAIL [{}] {}: {}", mode.name(), sc.id(), one_line(&why));
                    Outcome::Failed
                }
            };
            outcomes.push((sc.file.clone(), outcome));
        }
        let (responses, bulked) = (runner.responses.get(), runner.bulked.get());
        eprintln!("xtask: {responses} responses, {bulked} of them bulked");
        if (mode == Mode::Bulked) != (bulked > 0) {
            totals.failed += 1;
            println!(
                "FAIL [{}] the server sent {bulked} bulked responses of {responses}",
                mode.name()
            );
        }
        let line = format!(
            "{} (via {}): {} passed, {} failed, {} skipped ({} retried) in {}",
            mode.name(),
            opts.via.name(),
            totals.passed,
            totals.failed,
            totals.skipped,
            totals.retried,
            secs(t.elapsed())
        );
        eprintln!("{line}");
        per_mode.push(ModeRun {
            mode,
            outcomes,
            took: t.elapsed(),
        });
        all.passed += totals.passed;
        all.failed += totals.failed;
        all.skipped += totals.skipped;
        all.retried += totals.retried;
    }
    // docs/CONFORMANCE.md records each whole run in its matrix row (3.7.3's GraphBinary 1 run
    // in its own section too); TinkerPop 4's row is its plain run of the text route.
    match (tp3, &opts.only, per_mode.as_slice()) {
        (Some(v), None, [run]) => {
            if v == "3.7.3" && opts.serializer == tp3::Serializer::GraphBinary1 {
                tp3::write_section(&tp3::section(v, &scenarios, run, &skips))?;
            }
            let ser = tp3::serializer_label(opts.serializer);
            tp3::write_matrix_row(&tp3::matrix_row(v, ser, &scenarios, run, &skips))?;
        }
        (None, None, runs) if opts.via == Via::Text && opts.features.is_none() => {
            if let Some(run) = runs.iter().find(|r| r.mode == Mode::Plain) {
                let row =
                    tp3::matrix_row("4.0.0-beta.3", tp3::GRAPHBINARY4, &scenarios, run, &skips);
                tp3::write_matrix_row(&row)?;
            }
        }
        _ => {}
    }
    if opts.compare_go {
        if let Err(e) = gocompare::run(&url, &dir, &scenarios, &per_mode) {
            all.failed += 1;
            println!("FAIL --compare-go: {e:#}");
        }
    }
    eprintln!("xtask: features took {}", secs(started.elapsed()));
    // Stops a server we started before the closing line, so that the line is the last.
    drop(guard);
    println!(
        "features: {} passed, {} failed, {} skipped",
        all.passed, all.failed, all.skipped
    );
    Ok(all)
}

/// One mode's run: its counts and each scenario's outcome, in scenario order.
pub struct ModeRun {
    pub mode: Mode,
    pub outcomes: Vec<(String, Outcome)>,
    pub took: Duration,
}

/// The port of an `http://127.0.0.1:PORT/...` or `http://localhost:PORT/...` URL.
fn local_port(url: &str) -> Option<u16> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("ws://"))?;
    let authority = rest.split('/').next()?;
    let (host, port) = authority.rsplit_once(':')?;
    matches!(host, "127.0.0.1" | "localhost")
        .then(|| port.parse().ok())
        .flatten()
}

/// Fails unless the server has the integration layout (a reused server may be another one).
fn check_layout(rt: &tokio::runtime::Runtime, client: &Client, url: &str) -> Result<()> {
    for (source, count) in [("gmodern", 6), ("gcrew", 6), ("ggrateful", 808)] {
        let got: Result<i64, _> = rt.block_on(async {
            client
                .request("g.V().count()")
                .g(source)
                .send()
                .await?
                .one()
                .await
        });
        match got {
            Ok(n) if n == count => {}
            other => bail!(
                "the server at {url} does not have the integration layout ({source}: \
                 g.V().count() gave {other:?}, not {count}); start one with \
                 `cargo xtask server --dataset integration --port {DEFAULT_PORT}`"
            ),
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    Passed,
    Failed,
    Skipped,
}

fn one_line(s: &str) -> String {
    let s = s.replace('\n', " ");
    if s.chars().count() > 600 {
        let cut: String = s.chars().take(600).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// One scenario with its effective tags.
pub struct Scenario {
    /// Path relative to the features directory, e.g. `map/Select.feature`.
    pub file: String,
    pub name: String,
    pub tags: HashSet<String>,
    pub steps: Vec<gherkin::Step>,
}

impl Scenario {
    fn id(&self) -> String {
        format!("{}: {}", self.file, self.name)
    }
}

/// Parses every `.feature` file under `dir`, in path order.
pub fn load(dir: &Path) -> Result<Vec<Scenario>> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    anyhow::ensure!(
        !files.is_empty(),
        "no .feature files under {}",
        dir.display()
    );
    let mut out = Vec::new();
    for path in files {
        let feature = gherkin::Feature::parse_path(&path, gherkin::GherkinEnv::default())
            .with_context(|| format!("parsing {}", path.display()))?;
        let file = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let ftags: HashSet<String> = feature.tags.iter().map(|t| norm_tag(t)).collect();
        for sc in feature.scenarios {
            let mut tags = ftags.clone();
            tags.extend(sc.tags.iter().map(|t| norm_tag(t)));
            out.push(Scenario {
                file: file.clone(),
                name: sc.name,
                tags,
                steps: sc.steps,
            });
        }
    }
    Ok(out)
}

fn norm_tag(t: &str) -> String {
    t.trim_start_matches('@').to_string()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "feature") {
            out.push(path);
        }
    }
    Ok(())
}

/// What a traversal gave: its results (bulks expanded), or the server's error message.
type Answer = std::result::Result<Vec<Value>, String>;

/// The client a run talks through.
#[derive(Clone)]
enum Backend {
    /// TinkerPop 4: GraphBinary 4 over HTTP.
    Http(Client),
    /// TinkerPop 3: GraphBinary 1 over WebSocket (eval scripts, gremlin-groovy).
    Ws3(Client),
}

/// A parameter of a request: a gremlin-lang literal (TinkerPop 4), or for TinkerPop 3 a Groovy
/// expression and, when GraphBinary 1's writer has the value, the binding that carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub text: String,
    pub binding: Option<Value>,
}

struct Runner {
    backend: Backend,
    mode: Mode,
    via: Via,
    /// Lookups of the graphs that are never modified, by traversal source.
    lookups: BTreeMap<String, std::rc::Rc<Lookup>>,
    /// TinkerPop 3.8+: the scenarios' texts are canonical gremlin-lang
    /// ([`tp3::lang_to_groovy`]).
    translate: bool,
    /// Responses read, and how many of them came bulked.
    responses: std::cell::Cell<usize>,
    bulked: std::cell::Cell<usize>,
}

/// Per-scenario state.
struct State {
    source: String,
    empty: bool,
    lookup: std::rc::Rc<Lookup>,
    params: Vec<(String, Typed)>,
    /// TinkerPop 3 parameters given as Groovy (`c[...]` lambdas, `of P.within(...)`).
    groovy_params: Vec<(String, String)>,
    side_effects: Vec<(String, Typed)>,
    traversal: Option<String>,
    rendered: Vec<Param>,
    answer: Option<Answer>,
    /// The entry count when `iterated next` gave a map.
    next_map_len: Option<usize>,
}

impl Runner {
    /// A scenario's text as gremlin-groovy reads it ([`tp3::groovy_text`], after
    /// [`tp3::lang_to_groovy`] for a 3.8+ suite).
    fn groovy(&self, text: &str) -> String {
        if self.translate {
            tp3::groovy_text(&tp3::lang_to_groovy(text))
        } else {
            tp3::groovy_text(text)
        }
    }

    async fn submit(&self, source: &str, text: &str, params: &[Param]) -> Answer {
        let client = match &self.backend {
            Backend::Http(c) => c,
            Backend::Ws3(c) => {
                self.responses.set(self.responses.get() + 1);
                return tp3::submit(c, source, text, params).await;
            }
        };
        let mut req = client.request(text).g(source).language("gremlin-lang");
        for p in params {
            req = req.param_literal(&p.name, &p.text);
        }
        if self.mode == Mode::Bulked {
            req = req.bulk_results(true);
        }
        self.read(req).await
    }

    /// Sends a request and reads its results (bulks expanded).
    async fn read(&self, req: graphbinary_client::client::RequestBuilder) -> Answer {
        let stream = match req.send().await {
            Ok(s) => s,
            Err(e) => return Err(error_text(e)),
        };
        let mut stream = stream.traversers();
        let mut out = Vec::new();
        let read = stream
            .for_each_result(|t| {
                for _ in 0..t.bulk {
                    out.push(t.value.clone());
                }
            })
            .await;
        self.responses.set(self.responses.get() + 1);
        if stream.bulked() == Some(true) {
            self.bulked.set(self.bulked.get() + 1);
        }
        match read {
            Ok(()) => Ok(out),
            Err(e) => Err(error_text(e)),
        }
    }

    async fn lookup_of(&self, source: &str) -> Result<Lookup> {
        let v = self
            .submit(source, "g.V()", &[])
            .await
            .map_err(|e| anyhow::anyhow!("g.V() on {source}: {e}"))?;
        let e = self
            .submit(source, "g.E()", &[])
            .await
            .map_err(|e| anyhow::anyhow!("g.E() on {source}: {e}"))?;
        Ok(Lookup::new(v, e))
    }

    async fn cached_lookup(&mut self, source: &str) -> Result<std::rc::Rc<Lookup>> {
        if let Some(l) = self.lookups.get(source) {
            return Ok(l.clone());
        }
        let l = std::rc::Rc::new(self.lookup_of(source).await?);
        self.lookups.insert(source.to_string(), l.clone());
        Ok(l)
    }

    /// Runs one scenario; `Err` says why it failed.
    async fn scenario(&mut self, sc: &Scenario) -> std::result::Result<(), String> {
        self.scenario_inner(sc).await.map_err(|e| format!("{e:#}"))
    }

    async fn scenario_inner(&mut self, sc: &Scenario) -> Result<()> {
        let mut st = State {
            source: String::new(),
            empty: false,
            lookup: Default::default(),
            params: Vec::new(),
            groovy_params: Vec::new(),
            side_effects: Vec::new(),
            traversal: None,
            rendered: Vec::new(),
            answer: None,
            next_map_len: None,
        };
        for step in &sc.steps {
            let text = step.value.trim();
            if text == "an unsupported test" {
                return Ok(());
            }
            if let Some(graph) = text
                .strip_prefix("the ")
                .and_then(|t| t.strip_suffix(" graph"))
                .filter(|g| !g.contains(' '))
            {
                st.source = source_for(graph, sc);
                st.empty = graph == "empty";
                if st.empty {
                    self.submit(&st.source, "g.V().drop()", &[])
                        .await
                        .map_err(|e| anyhow::anyhow!("resetting {}: {e}", st.source))?;
                    st.lookup = Default::default();
                } else {
                    st.lookup = self.cached_lookup(&st.source).await?;
                }
            } else if text == "the graph initializer of" {
                let init = step
                    .docstring
                    .as_deref()
                    .context("initializer without text")?;
                let init = self.groovy(init.trim());
                let res = self.submit(&st.source, &init, &[]).await;
                match res {
                    Ok(r) if !r.is_empty() => {}
                    Ok(_) => bail!("the graph initializer returned nothing"),
                    Err(e) => bail!("the graph initializer failed: {e}"),
                }
                st.lookup = std::rc::Rc::new(self.lookup_of(&st.source).await?);
            } else if let Some(rest) = text.strip_prefix("using the parameter ") {
                let tp3 = matches!(self.backend, Backend::Ws3(_));
                if tp3 && !rest.contains(" defined as ") {
                    // 3.x: `using the parameter xx1 of P.within("l[]")`.
                    st.groovy_params
                        .push(tp3::predicate_param(rest, &st.lookup)?);
                    continue;
                }
                let (name, value) = defined_as(rest)?;
                if let (true, Some(body)) = (
                    tp3,
                    value.strip_prefix("c[").and_then(|v| v.strip_suffix(']')),
                ) {
                    // 3.x: a lambda, a Groovy closure.
                    st.groovy_params.push((name, format!("{{{body}}}")));
                    continue;
                }
                st.params.push((name, notation::parse(&value)?));
            } else if let Some(rest) = text.strip_prefix("using the side effect ") {
                let (name, value) = defined_as(rest)?;
                st.side_effects.push((name, notation::parse(&value)?));
            } else if text == "the traversal of" {
                let t = step
                    .docstring
                    .as_deref()
                    .context("traversal without text")?;
                st.traversal = Some(match self.backend {
                    Backend::Ws3(_) => self.groovy(t.trim()),
                    Backend::Http(_) => t.trim().to_string(),
                });
            } else if text == "iterated to list" || text == "iterated next" {
                self.execute(sc, &mut st, text == "iterated next").await?;
            } else if let Some(rest) = text.strip_prefix("the traversal will raise an error") {
                let answer = st.answer.as_ref().context("nothing was iterated")?;
                let Err(message) = answer else {
                    bail!(
                        "expected an error{rest}; got {}",
                        show(answer.as_ref().unwrap())
                    );
                };
                if let Some(m) = rest.strip_prefix(" with message ") {
                    let (how, want) = m
                        .split_once(" text of ")
                        .context("bad error-message step")?;
                    let want = unquote(want).to_uppercase();
                    let got = message.to_uppercase();
                    let ok = match how {
                        "containing" => got.contains(&want),
                        "starting" => got.starts_with(&want),
                        "ending" => got.ends_with(&want),
                        other => bail!("unknown comparison {other:?}"),
                    };
                    if !ok {
                        bail!("expected an error {how} {want:?}; got error {message:?}");
                    }
                }
            } else if text == "nothing should happen because" {
            } else if text.starts_with("the file ") {
                // @StepWrite: the server writes the file on its own disk.
                bail!("{text:?} cannot be checked from a remote client; list it as a skip");
            } else if let Some(rest) = text.strip_prefix("the graph should return ") {
                let (n, t) = rest
                    .split_once(" for count of ")
                    .context("bad count step")?;
                let n: usize = n.parse()?;
                let t = unquote(t).replace("\\\"", "\"");
                let got = self
                    .submit(&st.source, &format!("{t}.count()"), &st.rendered)
                    .await
                    .map_err(|e| anyhow::anyhow!("{t}.count() failed: {e}"))?;
                let count = match got.as_slice() {
                    [Value::Long(c)] => *c as usize,
                    other => bail!("{t}.count() gave {}", show(other)),
                };
                if count != n {
                    bail!("expected {n} for count of {t}; got {count}");
                }
            } else if let Some(rest) = text.strip_prefix("the result should ") {
                check_result(rest, step, &st)?;
            } else {
                bail!("unknown step {text:?}");
            }
        }
        Ok(())
    }

    async fn execute(&mut self, sc: &Scenario, st: &mut State, next: bool) -> Result<()> {
        let text = st.traversal.clone().context("no traversal")?;
        let tp3 = matches!(self.backend, Backend::Ws3(_));
        let mut rendered = Vec::new();
        for (k, v) in &st.params {
            rendered.push(if tp3 {
                tp3::param(k, v, &st.lookup)?
            } else {
                Param {
                    name: k.clone(),
                    text: literal(v, &st.lookup, Lang::GremlinLang)?,
                    binding: None,
                }
            });
        }
        for (k, v) in &st.groovy_params {
            anyhow::ensure!(tp3, "the parameter {k} is Groovy ({v}), not gremlin-lang");
            rendered.push(Param {
                name: k.clone(),
                text: v.clone(),
                binding: None,
            });
        }
        let mut prefix = String::new();
        if tp3 && sc.tags.contains("GraphComputerOnly") {
            prefix.push_str(".withComputer()");
        } else if sc.tags.contains("GraphComputerOnly") {
            // What withComputer() becomes in gremlin-lang (which has no withComputer).
            prefix.push_str(".withStrategies(VertexProgramStrategy)");
        }
        for (k, v) in &st.side_effects {
            let mut key = String::new();
            literal::GremlinLiteral::write_literal(k.as_str(), &mut key);
            let lang = if tp3 { Lang::Groovy } else { Lang::GremlinLang };
            let value = literal(v, &st.lookup, lang)?;
            let _ = write!(prefix, ".withSideEffect({key},{value})");
        }
        let full = if prefix.is_empty() {
            text.clone()
        } else {
            let rest = text
                .strip_prefix('g')
                .context("traversal does not start with g")?;
            format!("g{prefix}{rest}")
        };
        let mut answer = match self.via {
            _ if tp3 => self.submit(&st.source, &full, &rendered).await,
            Via::Text => self.submit(&st.source, &full, &rendered).await,
            via => {
                let req = self
                    .api_request(sc, st, &text, via)
                    .with_context(|| format!("--via {}: {text}", via.name()))?;
                self.read(req).await
            }
        };
        if let Err(e) = &answer {
            // Only the server's errors are the traversal's; ours (transport, decoding) fail the
            // scenario whatever it expects.
            if e.starts_with(CLIENT_ERROR) {
                bail!("{e}");
            }
        }
        if next {
            answer = answer.and_then(|r| match r.into_iter().next() {
                None => Err("next() on an empty result".to_string()),
                Some(Value::List(items)) | Some(Value::Set(items)) => Ok(items),
                Some(Value::BulkList(items)) => Ok(compare::expand(&items)),
                // A path iterates as its objects (TinkerPop 3's runners unfold what next() gives).
                Some(Value::Path(p)) if tp3 => Ok(p.objects.clone()),
                Some(other) => {
                    // A map iterates as its entries (as the GLVs count it); tables compare
                    // the map itself.
                    if let Value::Map(m) | Value::OrderedMap(m) = &other {
                        st.next_map_len = Some(m.len());
                    }
                    Ok(vec![other])
                }
            });
        }
        st.answer = Some(answer);
        st.rendered = rendered;
        if st.empty {
            st.lookup = std::rc::Rc::new(self.lookup_of(&st.source).await?);
        }
        Ok(())
    }
}

impl Runner {
    /// The request the traversal API writes for the scenario's traversal `text`: parsed,
    /// rebuilt by name on a source with the same side effects and strategies as the text
    /// route, parameters as `GValue`s (written in place with `--via api`).
    fn api_request(
        &self,
        sc: &Scenario,
        st: &State,
        text: &str,
        via: Via,
    ) -> Result<graphbinary_client::client::RequestBuilder> {
        use graphbinary_client::process::{GraphTraversalSource, Strategy};
        let Backend::Http(client) = &self.backend else {
            bail!("--via {} needs the TinkerPop 4 client", via.name());
        };
        let mut params = Vec::new();
        for (k, v) in &st.params {
            params.push((
                k.clone(),
                via_api::literal(&literal(v, &st.lookup, Lang::GremlinLang)?)?,
            ));
        }
        let base = GraphTraversalSource::new(client.clone())
            .alias(st.source.clone())
            .literal_only(via == Via::Api)
            .with("bulkResults", self.mode == Mode::Bulked);
        let mut g = base.clone();
        if sc.tags.contains("GraphComputerOnly") {
            g = g.source_step("withStrategies", Strategy::new("VertexProgramStrategy"));
        }
        for (k, v) in &st.side_effects {
            let value = via_api::literal(&literal(v, &st.lookup, Lang::GremlinLang)?)?;
            g = g.source_step("withSideEffect", (k.as_str(), value));
        }
        let interp = via_api::Interp { params: &params };
        let t = interp.traversal(&g, text)?;
        // Round trip: the API's own text, parsed and rebuilt, is the same request.
        let lang = t.gremlin_lang()?;
        let again = interp.traversal(&base, &lang.gremlin)?.gremlin_lang()?;
        if (&again.gremlin, again.parameters_text()?) != (&lang.gremlin, lang.parameters_text()?) {
            bail!(
                "the API's text does not round-trip: {} became {}",
                lang.gremlin,
                again.gremlin
            );
        }
        Ok(t.request()?)
    }
}

/// The traversal source of a graph, as the GLVs map them, plus our extra sources: a graph
/// that keeps null property values, and the multi-label default (labels as sets) unless the
/// traversal itself asks for `with("singlelabel")`, which the server refuses to combine.
fn source_for(graph: &str, sc: &Scenario) -> String {
    let tags = &sc.tags;
    let single = sc.steps.iter().any(|s| {
        s.docstring
            .as_deref()
            .is_some_and(|d| d.contains("with(\"singlelabel\")"))
    });
    let multi_default = tags.contains("MultiLabelDefault") && !single;
    match graph {
        "empty" if tags.contains("AllowNullPropertyValues") => "gnullable".into(),
        "empty" if multi_default => "gmultilabeldefault".into(),
        "empty" if tags.contains("MultiLabel") => "gmultilabel".into(),
        "empty" => "ggraph".into(),
        "modern" if multi_default => "gmodernmultilabel".into(),
        other => format!("g{other}"),
    }
}

/// `NAME defined as "VALUE"` (escaped quotes inside unescaped).
fn defined_as(rest: &str) -> Result<(String, String)> {
    let (name, value) = rest
        .split_once(" defined as ")
        .context("bad `defined as` step")?;
    Ok((
        name.trim().to_string(),
        unquote(value).replace("\\\"", "\""),
    ))
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
}

const CLIENT_ERROR: &str = "client error: ";

fn error_text(e: ClientError) -> String {
    match e {
        ClientError::Server(s) => s.message.clone().unwrap_or_else(|| s.to_string()),
        other => format!("{CLIENT_ERROR}{other:#}"),
    }
}

fn show(values: &[Value]) -> String {
    let mut s = String::from("[");
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{v}");
        if s.len() > 400 {
            s.push_str(", ...");
            break;
        }
    }
    s.push(']');
    s
}

fn table_column(step: &gherkin::Step) -> Result<(String, Vec<String>)> {
    let table = step.table.as_ref().context("step without a table")?;
    let mut rows = table.rows.iter();
    let header = rows.next().context("empty table")?;
    let head = header.first().cloned().unwrap_or_default();
    Ok((
        head,
        rows.map(|r| r.first().cloned().unwrap_or_default())
            .collect(),
    ))
}

fn check_result(rest: &str, step: &gherkin::Step, st: &State) -> Result<()> {
    let answer = st.answer.as_ref().context("nothing was iterated")?;
    let results = match answer {
        Ok(r) => r,
        Err(e) => bail!("expected results; got error {e:?}"),
    };
    let lk = &st.lookup;
    let parse_rows = |rows: &[String]| -> Result<Vec<Typed>> {
        rows.iter().map(|r| notation::parse(r)).collect()
    };
    match rest {
        "be empty" => {
            if !results.is_empty() {
                bail!("expected no results; got {}", show(results));
            }
        }
        "be ordered" | "be unordered" | "be of" => {
            let (_, rows) = table_column(step)?;
            let want = parse_rows(&rows)?;
            let ok = match rest {
                "be ordered" => {
                    results.len() == want.len()
                        && results.iter().zip(&want).all(|(a, w)| matches(a, w, lk))
                }
                "be unordered" => compare::unordered(results, &want, lk),
                _ => results
                    .iter()
                    .all(|a| want.iter().any(|w| matches(a, w, lk))),
            };
            if !ok {
                bail!(
                    "expected {} {}; got {}",
                    rest.trim_start_matches("be "),
                    rows.join(" | "),
                    show(results)
                );
            }
        }
        "be a tree with a structure of" => {
            let doc = step.docstring.as_deref().unwrap_or_default();
            let want = parse_tree(doc)?;
            let Some(Value::Tree(tree)) = results.first() else {
                bail!("expected a tree; got {}", show(results));
            };
            if !tree_matches(tree, &want, lk) {
                bail!("expected the tree\n{doc}\ngot {}", show(results));
            }
        }
        "be a subgraph with the following" => {
            let (head, rows) = table_column(step)?;
            let want = parse_rows(&rows)?;
            let Some(Value::Graph(g)) = results.first() else {
                bail!("expected a subgraph; got {}", show(results));
            };
            let got: Vec<Value> = if head == "vertices" {
                let each = |v: &Vertex| Value::Vertex(Box::new(v.clone()));
                g.vertices.iter().map(each).collect()
            } else {
                let each = |e: &Edge| Value::Edge(Box::new(e.clone()));
                g.edges.iter().map(each).collect()
            };
            let ok = compare::unordered_by(&got, &want, lk, compare::same_element);
            if !ok {
                bail!(
                    "expected a subgraph with {head} {}; got {} vertices, {} edges",
                    rows.join(" | "),
                    g.vertices.len(),
                    g.edges.len()
                );
            }
        }
        other => {
            if let Some(n) = other.strip_prefix("have a count of ") {
                let n: usize = n.trim().parse()?;
                if st.next_map_len.unwrap_or(results.len()) != n {
                    bail!(
                        "expected a count of {n}; got {}: {}",
                        results.len(),
                        show(results)
                    );
                }
            } else {
                bail!("unknown assertion {other:?}");
            }
        }
    }
    Ok(())
}

struct TreeNode {
    value: Typed,
    children: Vec<TreeNode>,
}

/// An ASCII tree, three spaces a level, each line `|--value`.
fn parse_tree(doc: &str) -> Result<Vec<TreeNode>> {
    let mut lines: Vec<(usize, Typed)> = Vec::new();
    for line in doc.lines().filter(|l| !l.trim().is_empty()) {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let value = line.trim().trim_start_matches("|--").trim();
        lines.push((indent / 3, notation::parse(value)?));
    }
    fn build(lines: &[(usize, Typed)], i: &mut usize, level: usize) -> Vec<TreeNode> {
        let mut out = Vec::new();
        while *i < lines.len() && lines[*i].0 >= level {
            let value = lines[*i].1.clone();
            *i += 1;
            let children = build(lines, i, level + 1);
            out.push(TreeNode { value, children });
        }
        out
    }
    let mut i = 0;
    Ok(build(&lines, &mut i, 0))
}

fn tree_matches(tree: &graphbinary_client::value::Tree, want: &[TreeNode], lk: &Lookup) -> bool {
    tree.0.len() == want.len()
        && want.iter().all(|w| {
            tree.0
                .iter()
                .any(|(k, sub)| matches(k, &w.value, lk) && tree_matches(sub, &w.children, lk))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_urls_get_a_server() {
        assert_eq!(local_port("http://127.0.0.1:8184/gremlin"), Some(8184));
        assert_eq!(local_port("http://localhost:9000/gremlin"), Some(9000));
        assert_eq!(local_port("http://example.org:8184/gremlin"), None);
        assert_eq!(local_port("https://127.0.0.1:8184/gremlin"), None);
    }

    #[test]
    fn trees_nest_by_three_spaces() {
        let t = parse_tree("|--marko\n   |--josh\n      |--lop\n   |--vadas\n|--peter\n").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].children.len(), 2);
        assert_eq!(t[0].children[0].children.len(), 1);
        assert_eq!(t[0].children[0].children[0].value, Typed::Str("lop".into()));
        assert!(t[1].children.is_empty());
    }

    #[test]
    fn sources_follow_the_glvs_plus_our_graphs() {
        let sc = |tags: &[&str], text: &str| {
            Scenario {
            file: "x.feature".into(),
            name: "x".into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            steps: gherkin::Feature::parse(
                format!("Feature: f\n  Scenario: x\n    Given the traversal of\n      \"\"\"\n      {text}\n      \"\"\"\n"),
                gherkin::GherkinEnv::default(),
            )
            .unwrap()
            .scenarios
            .remove(0)
            .steps,
        }
        };
        assert_eq!(source_for("modern", &sc(&[], "g.V()")), "gmodern");
        assert_eq!(source_for("empty", &sc(&[], "g.V()")), "ggraph");
        assert_eq!(
            source_for("empty", &sc(&["MultiLabel"], "g.V()")),
            "gmultilabel"
        );
        assert_eq!(
            source_for("empty", &sc(&["AllowNullPropertyValues"], "g.V()")),
            "gnullable"
        );
        assert_eq!(
            source_for("modern", &sc(&["MultiLabelDefault"], "g.V()")),
            "gmodernmultilabel"
        );
        assert_eq!(
            source_for(
                "zoo",
                &sc(
                    &["MultiLabel", "MultiLabelDefault"],
                    r#"g.with("singlelabel").V()"#
                )
            ),
            "gzoo"
        );
    }
}
