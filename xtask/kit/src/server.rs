//! `cargo xtask server` (and its alias `server3`): one launcher for every real server the tests,
//! benchmarks and feature suites run against, on 127.0.0.1:
//!
//! * Gremlin Server 4.0.0-beta.3 with TinkerGraph (HTTP, GraphBinary 4; [`Kind::Tp4`]), state in
//!   `.gremlin-server/` at the repository root;
//! * Gremlin Server 3.6.8 / 3.7.3 / 3.7.5 / 3.8.0 / 3.8.1 (WebSocket, GraphBinary 1 and GraphSON 3; [`Kind::Tp3`]) and
//!   JanusGraph Server 1.1.0 ([`Kind::JanusGraph`]): in-memory with the modern graph loaded by a
//!   script, or with `--backend berkeleyje` persistent on BerkeleyJE with a Lucene mixed index,
//!   its schema made by a script and `query.force-index=true` ([`Backend`]); state in
//!   `target/gremlin-server3/` (BerkeleyJE's data in `janusgraph-berkeleyje-<port>/` there).
//!
//! Every kind goes the same way: its jars resolved with Maven ([`resolve`]), its config rendered
//! from its templates ([`config`]), one `java` process (output on the terminal, or in
//! `server-<port>.log` of its state directory, which also holds the pid files of detached
//! servers), awaited until a probe over its own protocol answers `g.V().count()`
//! ([`probe`] for HTTP, [`ws_probe`] for WebSocket; a `--tls` server once its port accepts).
//! Other commands call [`ensure_running`] / [`Server::ensure_running`] or [`start_for_tests`] and
//! keep the returned [`Guard`]s alive while they need the servers.
//!
//! TinkerPop 3's `--auth` adds SimpleAuthenticator over a credentials graph (user `stephen`,
//! password `password`, as in TinkerPop's own `tinkergraph-credentials.properties`; and
//! [`COSMOS_USER`], a user shaped as Azure Cosmos DB's, for the client's Cosmos profile) that
//! `MakeCredentials.java` writes with TinkerPop's CredentialTraversalSource; `--tls` serves
//! `https://` (4.0) or `wss://` (3.x) with a test CA's certificate ([`tls`]).

mod config;
mod probe;
pub mod resolve;
mod tls;
mod ws_probe;

use std::fs;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

pub use resolve::TINKERPOP_VERSION;
pub use tls::tls_root;

use crate::util::{project_root, secs};

/// Datasets that TinkerPop's `TinkerFactoryDataLoader` knows (an unknown name only logs a warning
/// and leaves the graph empty, so we refuse it up front).
pub const DATASETS: &[&str] = &[
    "modern",
    "classic",
    "crew",
    "grateful",
    "sink",
    "airroutes",
    "zoo",
    INTEGRATION,
];
/// Not a dataset but a layout: the graphs and traversal sources of TinkerPop's Gherkin suite.
/// On 4.0, those of TinkerPop's integration server (`gmodern`, `gcrew`, ..., `ggraph`, `gtx`);
/// on 3.x, `ggraph` (empty), `gnullable` (empty, null property values kept), `gclassic`,
/// `gmodern`, `gcrew`, `ggrateful`, `gsink`, all with INTEGER ids, and `g` the modern graph as
/// with the default dataset (so the start-up probe and the benchmarks work on either).
pub const INTEGRATION: &str = "integration";
/// Not a TinkerPop dataset: an empty `TinkerTransactionGraph` (transactions over HTTP) bound to
/// `g`, from its own template `gremlin-server-tx.yaml.in`.
pub const TX_DATASET: &str = "tx";
/// The default port of TinkerPop 4, as in TinkerPop's own configs.
pub const DEFAULT_PORT: u16 = 8182;
/// The TinkerPop 3 releases this command is tested with (the first is `server3`'s default):
/// each starts on Java 17 with the modern and integration datasets.
pub const VERSIONS: &[&str] = &["3.7.3", "3.6.8", "3.7.5", "3.8.0", "3.8.1"];
/// The JanusGraph release `--janusgraph` is tested with (it runs on TinkerPop 3.7.3).
pub const JANUSGRAPH_VERSION: &str = "1.1.0";
/// The user and password of `--auth` (TinkerPop's credentials graph has the same).
pub const AUTH_USER: &str = "stephen";
/// See [`AUTH_USER`].
pub const AUTH_PASSWORD: &str = "password";
/// A second `--auth` user, shaped as Azure Cosmos DB's SASL user
/// (`/dbs/<database>/colls/<collection>`), for the client's Cosmos profile tests
/// (`graphbinary-client/tests/cosmos.rs` names the same two values).
pub const COSMOS_USER: &str = "/dbs/graphdb/colls/modern";
/// The password of [`COSMOS_USER`]: a made-up key of a Cosmos key's shape (base64, with `+`,
/// `/` and `=`), no real account's.
pub const COSMOS_KEY: &str = "dGVzdC1rZXk+bm90L2Etc2VjcmV0+Y29zbW9zLWtleQ==";

/// The state directories (configs, jars, logs, pid files) of TinkerPop 4 and of the others.
const STATE_4: &str = ".gremlin-server";
const STATE_3: &str = "target/gremlin-server3";
const MAIN_CLASS: &str = "org.apache.tinkerpop.gremlin.server.GremlinServer";
const JANUSGRAPH_MAIN_CLASS: &str = "org.janusgraph.graphdb.server.JanusGraphServer";
/// JVM heaps. The CI machine has 2 cores and 24 GiB, shared with cargo builds; 2 GiB is ample
/// for TinkerPop 4's datasets (`GREMLIN_SERVER_JAVA_OPTS` replaces it), 1 GiB for the others.
const JVM_HEAP_4: &[&str] = &["-Xms256m", "-Xmx2g"];
const JVM_HEAP_3: &[&str] = &["-Xms128m", "-Xmx1g"];
/// The Java 17+ `--add-opens` list that TinkerPop 4's `gremlin-server.sh` always appends (Kryo,
/// used to load some datasets, needs it; 3.7.3 runs without it on Java 17).
const JVM_OPENS: &[&str] = &[
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
    "--add-opens=java.base/java.net=ALL-UNNAMED",
];
/// What 4.0's list has beyond [`JVM_OPENS`].
const JVM_OPENS_4: &[&str] = &[
    "--add-exports=java.base/sun.security.x509=ALL-UNNAMED",
    "--add-exports=java.base/sun.security.action=ALL-UNNAMED",
];
/// How long a starting server may take to answer `g.V().count()`.
const START_TIMEOUT: Duration = Duration::from_secs(180);

const HELP: &str = "usage: cargo xtask server [--dataset NAME] [--tls] [--port N] [--detach] [--stop]
       cargo xtask server --tinkerpop 3.6.8|3.7.3|3.7.5|3.8.0|3.8.1 [--dataset modern|integration]
                          [--auth] [--tls]
                          [--port N] [--detach] [--stop]
       cargo xtask server --janusgraph 1.1.0 [--backend inmemory|berkeleyje [--fresh]] [--auth]
                          [--port N] [--detach] [--stop]
       cargo xtask server3 ...   (the same, TinkerPop 3.7.3 unless --tinkerpop or --janusgraph)

Runs a real server on 127.0.0.1, resolved with Maven. Needs java 17+ and mvn on PATH.
By default a Gremlin Server 4.0.0-beta.3 (TinkerGraph, HTTP, GraphBinary 4), cached under
.gremlin-server/; with --tinkerpop or --janusgraph (or as server3) a TinkerPop 3 server
(WebSocket channelizer, GraphBinary 1 and GraphSON 3, the modern graph bound to `g`), cached
under target/gremlin-server3/.

  --tinkerpop V   a Gremlin Server V: 3.7.3 (server3's default), 3.6.8, 3.7.5, 3.8.0 or 3.8.1
                  (other 3.x versions are tried as given; 3.5/3.6 get their driver.ser
                  serializer classes)
  --janusgraph V  a JanusGraph Server 1.1.0 instead (in-memory backend, modern graph, edge ids
                  are GraphBinary 1 custom types); default port 8199
  --backend B     with --janusgraph: inmemory (default) or berkeleyje: persistent on BerkeleyJE
                  with a Lucene mixed index `byText` over `name` (TEXT), `tag` (STRING),
                  `place` and `area` (Geoshape), `shape` (Geoshape) unindexed; query.force-index=true (a
                  query no index answers is refused); starts empty, keeps what is written across
                  restarts in target/gremlin-server3/janusgraph-berkeleyje-<port>/; default port 8200
  --fresh         with --backend berkeleyje: delete that data directory first
  --dataset NAME  4.0: modern (default), classic, crew, grateful, sink, airroutes, zoo;
                  integration: TinkerPop's integration-server layout (g/ggraph empty, gmodern,
                  gclassic, gcrew, ggrateful, gsink, gzoo, gmultilabel, gimmutable, gtx, plus
                  gnullable, gmodernmultilabel, gmultilabeldefault), as `cargo xtask features` needs;
                  or tx: an empty TinkerTransactionGraph bound to g, idle tx timeout 5 s.
                  3.x: modern (default: the modern graph as `g`) or integration: the graphs and
                  sources of TinkerPop's Gherkin suite (ggraph, gnullable, gclassic, gmodern,
                  gcrew, ggrateful, gsink; `g` is still the modern graph)
  --auth          3.x: SimpleAuthenticator, user stephen, password password (SASL PLAIN),
                  and a Cosmos-shaped user /dbs/graphdb/colls/modern (xtask's COSMOS_KEY)
  --tls           https:// (4.0) or wss:// (3.x) with a certificate signed by a test CA made
                  with keytool; clients trust target/gremlin-server3/tls/ca.pem (printed at start)
  --port N        TCP port (default: 4.0 8182, or GREMLIN_SERVER_PORT; 8196 for 3.7.3, 8197
                  for 3.8.1, +2 with --auth: the ports graphbinary-client/tests/ws3.rs uses by
                  default; JanusGraph 8199)
  --detach        leave it running in the background (pid and log in its state directory)
  --stop          stop the server that --detach left on --port

Environment: GREMLIN_SERVER_PORT sets 4.0's default port; GREMLIN_SERVER_JAVA_OPTS replaces 4.0's
heap options (default: -Xms256m -Xmx2g). GREMLIN_SERVER_HOME, if set, names an unpacked Gremlin
Server 4.0.0-beta.3 distribution whose lib/ is used instead of resolving with Maven.";

/// Which server.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Gremlin Server [`TINKERPOP_VERSION`] (HTTP).
    Tp4,
    /// Gremlin Server 3.x, of this version (WebSocket).
    Tp3(String),
    /// JanusGraph Server, of this version (WebSocket).
    JanusGraph(String),
}

/// JanusGraph's storage backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `storage.backend=inmemory`, the modern graph loaded at start.
    InMemory,
    /// `storage.backend=berkeleyje` with a Lucene mixed index and `query.force-index=true`:
    /// persistent in [`berkeleyje_data_dir`], the schema of `berkeleyje-schema.groovy`.
    BerkeleyJe,
}

/// A server to run: its kind, dataset and options (where it runs is the port given with it).
#[derive(Debug, Clone)]
pub struct Server {
    kind: Kind,
    /// JanusGraph's storage backend (in-memory for the others).
    backend: Backend,
    dataset: String,
    /// `--auth` (3.x): SASL PLAIN over the credentials graph.
    auth: bool,
    /// `--tls` (TinkerPop's Gremlin Server): `https://` (4.0) or `wss://` (3.x) with a
    /// certificate signed by [`tls_root`]'s test CA.
    tls: bool,
    /// JanusGraph only: on Apache Cassandra (CQL backend) instead of the in-memory backend.
    cql: Option<Cql>,
}

/// Where a JanusGraph Server on Cassandra keeps its graph (`cargo xtask cluster`): the CQL
/// (native transport) port of a node on 127.0.0.1 and the keyspace. Servers given the same
/// share one graph; the graph starts empty (no dataset is loaded) and `db-cache` is off, so
/// that each server reads the others' writes at once.
#[derive(Debug, Clone, PartialEq)]
pub struct Cql {
    /// The node's native transport port.
    pub port: u16,
    /// The keyspace (created by the first server that opens it).
    pub keyspace: String,
}

/// What answered a probe of a running server.
enum Answer {
    /// 4.0's `g.V().count()`.
    Count(i64),
    /// The status of 3.x's first response frame to `g.V().count()` (200, or 407 with `--auth`).
    Status(i32),
    /// A `--tls` server's port accepted a connection (the probes speak plain protocols).
    Accepts,
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Count(n) => write!(f, "g.V().count() = {n}"),
            Answer::Status(s) => write!(f, "status {s} to g.V().count()"),
            Answer::Accepts => f.write_str("its port accepts connections"),
        }
    }
}

impl Server {
    /// A Gremlin Server 4.0.0-beta.3 with `dataset` ([`DATASETS`], or [`TX_DATASET`]).
    pub fn tp4(dataset: &str) -> Server {
        Server::new(Kind::Tp4, dataset)
    }

    /// A Gremlin Server `version` (3.x) with `dataset` (`modern` or [`INTEGRATION`]).
    pub fn tp3(version: &str, dataset: &str) -> Server {
        Server::new(Kind::Tp3(version.to_string()), dataset)
    }

    /// A JanusGraph Server [`JANUSGRAPH_VERSION`] on Cassandra (see [`Cql`]).
    pub fn janusgraph_cql(cql: Cql) -> Server {
        Server {
            cql: Some(cql),
            ..Server::new(Kind::JanusGraph(JANUSGRAPH_VERSION.to_string()), "modern")
        }
    }

    fn new(kind: Kind, dataset: &str) -> Server {
        Server {
            kind,
            backend: Backend::InMemory,
            dataset: dataset.to_string(),
            auth: false,
            tls: false,
            cql: None,
        }
    }

    /// This server over TLS (`--tls`), or not.
    pub fn with_tls(self, tls: bool) -> Server {
        Server { tls, ..self }
    }

    /// JanusGraph Server [`JANUSGRAPH_VERSION`] in memory, with the modern graph.
    pub fn janusgraph() -> Server {
        Server::new(Kind::JanusGraph(JANUSGRAPH_VERSION.to_owned()), "modern")
    }

    /// Resolves this server's jars (with Maven, on first use) without starting it.
    pub fn resolve_jars(&self) -> Result<PathBuf> {
        self.lib(&self.state_dir()?)
    }

    /// JanusGraph Server [`JANUSGRAPH_VERSION`] on BerkeleyJE with a Lucene mixed index.
    pub fn janusgraph_berkeleyje() -> Server {
        Server {
            backend: Backend::BerkeleyJe,
            ..Server::new(Kind::JanusGraph(JANUSGRAPH_VERSION.to_owned()), "modern")
        }
    }

    /// `Gremlin Server 3.7.3`, `JanusGraph Server 1.1.0`, ... (4.0's without its version, as it
    /// always was: `Gremlin Server`).
    fn product(&self) -> String {
        match &self.kind {
            Kind::Tp4 => "Gremlin Server".to_string(),
            Kind::Tp3(v) => format!("Gremlin Server {v}"),
            Kind::JanusGraph(v) if self.cql.is_some() => {
                format!("JanusGraph Server {v} (Cassandra)")
            }
            Kind::JanusGraph(v) => format!("JanusGraph Server {v}"),
        }
    }

    /// The name in messages: the product, with 4.0's dataset or 3.x's options.
    fn name(&self) -> String {
        match &self.kind {
            Kind::Tp4 => format!(
                "Gremlin Server {TINKERPOP_VERSION} ({}){}",
                self.dataset,
                if self.tls { " (tls)" } else { "" }
            ),
            _ => format!(
                "{}{}{}{}",
                self.product(),
                if self.backend == Backend::BerkeleyJe {
                    " (BerkeleyJE + Lucene)"
                } else {
                    ""
                },
                if self.auth { " (auth)" } else { "" },
                if self.tls { " (tls)" } else { "" }
            ),
        }
    }

    /// The URL clients use for this server on `port`.
    pub fn url(&self, port: u16) -> String {
        match (&self.kind, self.tls) {
            (Kind::Tp4, false) => url(port),
            (Kind::Tp4, true) => format!("https://127.0.0.1:{port}/gremlin"),
            (_, false) => format!("ws://127.0.0.1:{port}/gremlin"),
            (_, true) => format!("wss://127.0.0.1:{port}/gremlin"),
        }
    }

    /// The port when `--port` is not given.
    fn default_port(&self) -> Result<u16> {
        Ok(match &self.kind {
            Kind::Tp4 => default_port()?,
            Kind::Tp3(v) => default_port3(v, self.auth),
            Kind::JanusGraph(_) if self.backend == Backend::BerkeleyJe => 8200,
            Kind::JanusGraph(_) => 8199,
        })
    }

    fn state_dir(&self) -> Result<PathBuf> {
        state_dir(if self.kind == Kind::Tp4 {
            STATE_4
        } else {
            STATE_3
        })
    }

    /// Refuses what this kind does not have; warns about an untested version.
    fn check(&self) -> Result<()> {
        let dataset = self.dataset.as_str();
        ensure!(
            self.backend == Backend::InMemory || matches!(self.kind, Kind::JanusGraph(_)),
            "--backend is for --janusgraph"
        );
        match &self.kind {
            Kind::Tp4 => {
                ensure!(
                    DATASETS.contains(&dataset) || dataset == TX_DATASET,
                    "unknown dataset {dataset:?}; known: {}",
                    DATASETS.join(", ")
                );
                ensure!(
                    !self.auth,
                    "--auth is for a TinkerPop 3 server (--tinkerpop V)"
                );
            }
            Kind::Tp3(version) => {
                ensure!(
                    dataset == "modern" || dataset == INTEGRATION,
                    "--dataset needs modern or {INTEGRATION}"
                );
                let parts: Vec<&str> = version.split('.').collect();
                ensure!(
                    parts.len() == 3
                        && parts[0] == "3"
                        && parts.iter().all(|p| p.parse::<u32>().is_ok()),
                    "--tinkerpop {version:?}: expected a TinkerPop 3 release such as {}",
                    VERSIONS.join(" or ")
                );
                if !VERSIONS.contains(&version.as_str()) {
                    eprintln!(
                        "xtask: TinkerPop {version} is untested here (tested: {})",
                        VERSIONS.join(", ")
                    );
                }
            }
            Kind::JanusGraph(version) => {
                ensure!(
                    self.cql.is_none() || !self.auth,
                    "a JanusGraph Server on Cassandra runs without --auth"
                );
                ensure!(
                    dataset == "modern",
                    "{}",
                    match self.backend {
                        Backend::InMemory => format!(
                            "--janusgraph serves the modern graph only (no --dataset {dataset})"
                        ),
                        Backend::BerkeleyJe => format!(
                            "--backend berkeleyje holds what was written to it (no --dataset {dataset})"
                        ),
                    }
                );
                ensure!(
                    !self.tls,
                    "--tls is for TinkerPop's Gremlin Server, not --janusgraph"
                );
                if version != JANUSGRAPH_VERSION {
                    eprintln!(
                        "xtask: JanusGraph {version} is untested here (tested: {JANUSGRAPH_VERSION})"
                    );
                }
            }
        }
        Ok(())
    }

    /// Asks the server on `port` what its kind answers to (see [`Answer`]).
    fn probe(&self, port: u16, timeout: Duration) -> Result<Answer> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        Ok(match (&self.kind, self.tls) {
            (Kind::Tp4, false) => Answer::Count(probe::vertex_count(addr, timeout)?),
            (_, false) if self.cql.is_some() => {
                let status = ws_probe::status(addr, timeout, None)?;
                ensure!(status == 200, "status {status} to g.V().count()");
                Answer::Status(status)
            }
            // The modern graph has 6 vertices; an integration layout's `g` starts empty (and
            // is written to: any count).
            (_, false) => Answer::Status(ws_probe::status(
                addr,
                timeout,
                (self.dataset != INTEGRATION).then_some(6),
            )?),
            (_, true) => {
                TcpStream::connect_timeout(&addr, timeout)?;
                Answer::Accepts
            }
        })
    }

    /// The directory of the server's jars, resolved on first use.
    fn lib(&self, state: &Path) -> Result<PathBuf> {
        let (pom, property, lib, version) = match &self.kind {
            Kind::JanusGraph(v) if self.cql.is_some() => (
                "xtask/gremlin3/janusgraph/pom-cql.xml",
                "jg.version",
                format!("lib-janusgraph-{v}-cql"),
                v,
            ),
            Kind::Tp4 => return resolve::ensure_jars4(state),
            Kind::Tp3(v) => (
                "xtask/gremlin3/pom.xml",
                "tp.version",
                format!("lib-{v}"),
                v,
            ),
            Kind::JanusGraph(v) if self.backend == Backend::BerkeleyJe => (
                "xtask/gremlin3/janusgraph/pom-berkeleyje.xml",
                "jg.version",
                format!("lib-janusgraph-{v}-berkeleyje"),
                v,
            ),
            Kind::JanusGraph(v) => (
                "xtask/gremlin3/janusgraph/pom.xml",
                "jg.version",
                format!("lib-janusgraph-{v}"),
                v,
            ),
        };
        resolve::ensure_jars(
            &project_root().join(pom),
            &state.join(lib),
            &self.product(),
            [format!("-D{property}={version}")],
        )
        .with_context(|| format!("is {} a release?", self.product()))
    }

    /// Resolves the jars, writes the config and starts the JVM (without waiting for it).
    fn spawn(&self, port: u16, mode: Mode) -> Result<Child> {
        let state = self.state_dir()?;
        let lib = self.lib(&state)?;
        let yaml = config::write(self, &state, &lib, port)?;
        let mut cmd = Command::new("java");
        match (&self.kind, std::env::var("GREMLIN_SERVER_JAVA_OPTS")) {
            (Kind::Tp4, Ok(opts)) => cmd.args(opts.split_whitespace()).args(JVM_OPENS_4),
            (Kind::Tp4, Err(_)) => cmd.args(JVM_HEAP_4).args(JVM_OPENS_4),
            _ => cmd.args(JVM_HEAP_3),
        };
        if self.cql.is_some() {
            // The cluster's servers are killed and restarted again and again on 2 busy cores:
            // C1 only starts them in a fraction of the CPU time (their load is light).
            cmd.arg("-XX:TieredStopAtLevel=1");
        }
        let main_class = match self.kind {
            Kind::JanusGraph(_) => JANUSGRAPH_MAIN_CLASS,
            _ => MAIN_CLASS,
        };
        cmd.args(JVM_OPENS)
            .arg(format!(
                "-Dlogback.configurationFile={}",
                state.join("conf/logback.xml").display()
            ))
            .arg("-cp")
            .arg(format!("{}/*", lib.display()))
            .arg(main_class)
            .arg(&yaml)
            .current_dir(&state)
            .stdin(Stdio::null());
        if mode != Mode::Foreground {
            let log = fs::File::create(log_file(&state, port))?;
            cmd.stdout(log.try_clone()?).stderr(log);
        }
        if mode == Mode::Detached {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = cmd.spawn().context("starting java")?;
        eprintln!(
            "xtask: starting {} on 127.0.0.1:{port}, pid {} ...",
            self.name(),
            child.id()
        );
        Ok(child)
    }

    /// Waits (up to 180 s) until the spawned server answers its probe, failing early if it
    /// exits; on failure stops it and returns the tail of its log.
    fn await_up(&self, child: &mut Child, port: u16, mode: Mode) -> Result<()> {
        let started = Instant::now();
        let deadline = started + START_TIMEOUT;
        let mut last_err = anyhow::anyhow!("none");
        let answered = loop {
            if let Some(status) = child.try_wait()? {
                break Err(anyhow::anyhow!(
                    "the server exited ({status}) before answering"
                ));
            }
            match self.probe(port, Duration::from_secs(5)) {
                Ok(_) => break Ok(()),
                Err(err) => last_err = err,
            }
            if Instant::now() >= deadline {
                break Err(anyhow::anyhow!(
                    "no answer to g.V().count() on port {port} within {}s (last error: {last_err:#})",
                    START_TIMEOUT.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let state = self.state_dir()?;
        let log_path = log_file(&state, port);
        if let Err(err) = answered {
            terminate(child);
            let log = if mode == Mode::Foreground {
                String::new()
            } else {
                let text = fs::read_to_string(&log_path).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(40).collect();
                format!(
                    "\nlast lines of {}:\n{}",
                    log_path.display(),
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            };
            return Err(err.context(format!("{} did not come up{log}", self.product())));
        }
        eprintln!(
            "xtask: {} answered g.V().count() after {}",
            self.product(),
            secs(started.elapsed())
        );
        if mode == Mode::Detached {
            fs::write(pid_file(&state, port), format!("{}\n", child.id()))?;
            eprintln!("xtask: log: {}", log_path.display());
        }
        Ok(())
    }

    /// Makes sure this server answers on 127.0.0.1:`port`: reuses one that already answers
    /// (for 4.0's modern and classic datasets, only with their 6 vertices; a 3.x caller checks
    /// the layout itself), else starts one, logged to `server-<port>.log` in its state
    /// directory, that the returned guard stops when dropped.
    pub fn ensure_running(&self, port: u16) -> Result<Guard> {
        self.check()?;
        let guard = |child| Guard {
            child,
            port,
            name: self.name(),
            url: self.url(port),
        };
        if let Ok(answer) = self.probe(port, Duration::from_secs(2)) {
            // The probe does not ask the version: a TinkerPop 3 server left there may be of
            // another one (the features runner checks `Gremlin.version()` itself).
            eprintln!(
                "xtask: reusing the server that answers on {} ({answer}) as the {} asked for",
                self.url(port),
                self.product()
            );
            let expected = match self.dataset.as_str() {
                "modern" | "classic" if self.kind == Kind::Tp4 => Some(6),
                _ => None,
            };
            if let (Answer::Count(count), Some(expected)) = (answer, expected) {
                ensure!(
                    count == expected,
                    "the server on port {port} has {count} vertices, not the {expected} of \
                     {}; stop it or choose another port",
                    self.dataset
                );
            }
            return Ok(guard(None));
        }
        let mut child = self.spawn(port, Mode::Logged)?;
        self.await_up(&mut child, port, Mode::Logged)?;
        Ok(guard(Some(child)))
    }
}

/// Fails if something accepts connections on 127.0.0.1:`port`, where `what` is to start.
pub fn ensure_free(port: u16, what: &str) -> Result<()> {
    ensure!(
        TcpStream::connect_timeout(
            &SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            Duration::from_millis(300)
        )
        .is_err(),
        "port {port} is taken: cannot start {what} there"
    );
    Ok(())
}

/// Stops the TinkerPop 3 or JanusGraph server that [`start_all`] detached on `port`
/// (as `cargo xtask server --stop --port P`).
pub fn stop(port: u16) -> Result<()> {
    stop_detached(port, &state_dir(STATE_3)?)
}

/// The port to use for TinkerPop 4 when `--port` is not given: `GREMLIN_SERVER_PORT`, else
/// [`DEFAULT_PORT`].
pub fn default_port() -> Result<u16> {
    match std::env::var("GREMLIN_SERVER_PORT") {
        Ok(p) => p
            .parse()
            .with_context(|| format!("GREMLIN_SERVER_PORT={p:?} is not a port number")),
        Err(_) => Ok(DEFAULT_PORT),
    }
}

/// The default port of a TinkerPop 3 `version`: 8196 (3.7.x) or 8197 (other), plus 2 with auth.
pub fn default_port3(version: &str, auth: bool) -> u16 {
    let base = if version.starts_with("3.7.") {
        8196
    } else {
        8197
    };
    base + if auth { 2 } else { 0 }
}

/// The URL clients use for a TinkerPop 4 server on `port`.
pub fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/gremlin")
}

/// Makes sure a Gremlin Server 4.0.0-beta.3 with `dataset` answers on 127.0.0.1:`port`
/// ([`Server::ensure_running`]).
pub fn ensure_running(dataset: &str, port: u16) -> Result<Guard> {
    Server::tp4(dataset).ensure_running(port)
}

/// `cargo xtask server ...`
pub fn cli(args: &[String]) -> Result<()> {
    run_cli(args, Kind::Tp4)
}

/// `cargo xtask server3 ...`: `server` whose default is TinkerPop 3.7.3.
pub fn cli3(args: &[String]) -> Result<()> {
    run_cli(args, Kind::Tp3(VERSIONS[0].to_string()))
}

fn run_cli(args: &[String], default: Kind) -> Result<()> {
    let mut server = Server::new(default, "modern");
    let (mut tinkerpop, mut janusgraph) = (None, None);
    let mut port = None;
    let (mut detach, mut stop, mut fresh) = (false, false, false);
    let mut a = crate::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--tinkerpop" => tinkerpop = Some(a.value(arg)?),
            "--janusgraph" => janusgraph = Some(a.value(arg)?),
            "--dataset" => server.dataset = a.value(arg)?.to_string(),
            "--port" => port = Some(a.parse(arg)?),
            "--backend" => {
                server.backend = match a.choice(arg, &["inmemory", "berkeleyje"])? {
                    "inmemory" => Backend::InMemory,
                    _ => Backend::BerkeleyJe,
                }
            }
            "--fresh" => fresh = true,
            "--auth" => server.auth = true,
            "--tls" => server.tls = true,
            "--detach" => detach = true,
            "--stop" => stop = true,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    // --janusgraph wins over --tinkerpop, as it always did.
    match (janusgraph, tinkerpop) {
        (Some(v), _) => server.kind = Kind::JanusGraph(v.to_string()),
        (None, Some(v)) => server.kind = Kind::Tp3(v.to_string()),
        (None, None) => {}
    }
    let port = match port {
        Some(p) => p,
        None => server.default_port()?,
    };
    if stop {
        return stop_detached(port, &server.state_dir()?);
    }
    server.check()?;
    ensure!(
        !fresh || server.backend == Backend::BerkeleyJe,
        "--fresh is for --backend berkeleyje"
    );
    let url = server.url(port);
    if let Ok(answer) = server.probe(port, Duration::from_secs(2)) {
        ensure!(
            !fresh,
            "a server already answers on {url} ({answer}); stop it before --fresh"
        );
        println!("A Gremlin Server already answers on {url} ({answer}); reusing it.");
        return Ok(());
    }
    if fresh {
        remove_berkeleyje_data(port)?;
    }
    let mode = if detach {
        Mode::Detached
    } else {
        Mode::Foreground
    };
    let mut child = server.spawn(port, mode)?;
    server.await_up(&mut child, port, mode)?;
    println!("{} ready at {url}", server.name());
    if server.tls {
        println!("Its root certificate (PEM): {}", tls_root()?.display());
    }
    if detach {
        let port_arg = if server.kind == Kind::Tp4 && port == DEFAULT_PORT {
            String::new()
        } else {
            format!(" --port {port}")
        };
        println!(
            "Detached (pid {}); stop it with `cargo xtask server --stop{port_arg}`.",
            child.id()
        );
        return Ok(());
    }
    wait_in_foreground(child)
}

/// Waits for a server started in the foreground until it exits; Ctrl-C stops it. Ctrl-C usually
/// reaches the server too (same process group) and the JVM shuts down on SIGINT; SIGTERM makes
/// sure of it (SIGINT may be ignored, e.g. under `nohup` or `&`). We wait for the server to
/// finish instead of dying first.
fn wait_in_foreground(mut server: Child) -> Result<()> {
    println!("Press Ctrl-C to stop it.");
    let pid = Pid::from_raw(server.id() as i32);
    ctrlc::set_handler(move || {
        eprintln!("\nxtask: stopping Gremlin Server ...");
        let _ = kill(pid, Signal::SIGTERM);
    })
    .context("installing the Ctrl-C handler")?;
    let status = server.wait()?;
    println!("Gremlin Server exited ({status}).");
    Ok(())
}

/// Keeps a server alive; stops it on drop if this process started it.
#[derive(Debug)]
pub struct Guard {
    child: Option<Child>,
    port: u16,
    name: String,
    url: String,
}

impl Guard {
    /// The URL to send requests to (`wss://` for a TLS server).
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// Whether an already running server was reused (and so will be left running).
    pub fn reused(&self) -> bool {
        self.child.is_none()
    }

    /// Leaves the server this guard started running after this process; its pid.
    pub fn detach(mut self) -> Option<u32> {
        self.child.take().map(|c| c.id())
    }

    /// Kills the server this guard started with SIGKILL (a crash: no shutdown hooks, open
    /// connections reset) and waits for it to exit. A reused server is left alone.
    pub fn kill(mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Stops the servers `guards` started (as dropping them does) together: SIGTERM to each, then
/// the waits, so that their JVMs shut down side by side (a few seconds each, once one after
/// another).
pub fn stop_all(guards: Vec<Guard>) {
    for g in &guards {
        if let Some(child) = &g.child {
            let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM);
        }
    }
    drop(guards);
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let started = Instant::now();
            terminate(child);
            eprintln!(
                "xtask: {} on port {} stopped in {}",
                self.name,
                self.port,
                secs(started.elapsed())
            );
        }
    }
}

/// Starts TinkerPop 3 servers for tests, each `(tinkerpop, auth, tls, port)`: `tinkerpop` a 3.x
/// version, or `None` for JanusGraph Server [`JANUSGRAPH_VERSION`]; see [`start_all`].
pub fn start_for_tests(servers: &[(Option<&str>, bool, bool, u16)]) -> Result<Vec<Guard>> {
    let servers: Vec<(Server, u16)> = servers
        .iter()
        .map(|&(tinkerpop, auth, tls, port)| {
            let kind = match tinkerpop {
                Some(v) => Kind::Tp3(v.to_owned()),
                None => Kind::JanusGraph(JANUSGRAPH_VERSION.to_owned()),
            };
            let server = Server {
                auth,
                tls,
                ..Server::new(kind, "modern")
            };
            (server, port)
        })
        .collect();
    start_all(&servers, false)
}

/// Makes sure each of `servers` answers on its port, as [`Server::ensure_running`] does (one
/// that already answers there is reused), but starts those that do not together
/// ([`start_all`]: their JVMs start at once and are awaited in parallel). The guards
/// come in the order of `servers`.
pub fn ensure_all(servers: Vec<(Server, u16)>) -> Result<Vec<Guard>> {
    let mut guards: Vec<Option<Guard>> = servers.iter().map(|_| None).collect();
    let mut free = Vec::new();
    for (i, (s, port)) in servers.into_iter().enumerate() {
        if ensure_free(port, "a server").is_err() {
            guards[i] = Some(s.ensure_running(port)?);
        } else {
            free.push((i, (s, port)));
        }
    }
    let (at, free): (Vec<usize>, Vec<(Server, u16)>) = free.into_iter().unzip();
    for (i, g) in at.into_iter().zip(start_all(&free, false)?) {
        guards[i] = Some(g);
    }
    Ok(guards.into_iter().flatten().collect())
}

/// Starts TinkerPop 3 or JanusGraph `servers`, each on its port: jars and configs are prepared
/// one after the other (Maven and the shared conf directory are not raced), then the JVMs
/// start together and are awaited in parallel. Fails if something already listens on a port
/// (a server of unknown kind is never reused); every server started is stopped on failure.
/// With `detach`, each runs in its own process group with a pid file, as with `--detach`
/// ([`Guard::detach`] then leaves it running; [`stop`] stops it).
pub fn start_all(servers: &[(Server, u16)], detach: bool) -> Result<Vec<Guard>> {
    let mode = if detach { Mode::Detached } else { Mode::Logged };
    let mut started = Vec::new();
    for (server, port) in servers {
        let port = *port;
        server.check()?;
        ensure_free(port, &server.product())?;
        let child = server.spawn(port, mode)?;
        let guard = Guard {
            child: Some(child),
            port,
            name: server.name(),
            url: server.url(port),
        };
        started.push((server, guard));
    }
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = started
            .iter_mut()
            .map(|(server, g)| {
                let child = g.child.as_mut().expect("started above");
                let port = g.port;
                scope.spawn(move || server.await_up(child, port, mode))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("panicked")))
            })
            .collect()
    });
    let guards: Vec<Guard> = started.into_iter().map(|(_, g)| g).collect();
    for r in results {
        r?;
    }
    Ok(guards)
}

/// Where a BerkeleyJE JanusGraph on `port` keeps its data (`storage/`, Lucene's `index/`):
/// `target/gremlin-server3/janusgraph-berkeleyje-<port>/`.
pub fn berkeleyje_data_dir(port: u16) -> Result<PathBuf> {
    Ok(state_dir(STATE_3)?.join(format!("janusgraph-berkeleyje-{port}")))
}

/// Deletes [`berkeleyje_data_dir`] of `port` (nothing to do when there is none).
pub fn remove_berkeleyje_data(port: u16) -> Result<()> {
    let dir = berkeleyje_data_dir(port)?;
    if dir.exists() {
        fs::remove_dir_all(&dir).with_context(|| format!("deleting {}", dir.display()))?;
        eprintln!("xtask: deleted {}", dir.display());
    }
    Ok(())
}

/// Starts a JanusGraph Server on BerkeleyJE + Lucene on `port` for tests (the data directory
/// kept as it is: delete it first with [`remove_berkeleyje_data`] for an empty graph) and
/// waits until it answers; the guard stops it (SIGTERM: JanusGraph closes the graph). Fails if
/// something already listens on the port.
pub fn start_janusgraph_berkeleyje(port: u16) -> Result<Guard> {
    let server = Server::janusgraph_berkeleyje();
    server.check()?;
    ensure!(
        TcpStream::connect_timeout(
            &SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            Duration::from_millis(300)
        )
        .is_err(),
        "port {port} is taken: cannot start {} there",
        server.name()
    );
    let mut child = server.spawn(port, Mode::Logged)?;
    server.await_up(&mut child, port, Mode::Logged)?;
    Ok(Guard {
        child: Some(child),
        port,
        name: server.name(),
        url: server.url(port),
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Output on our terminal, same process group (Ctrl-C reaches it).
    Foreground,
    /// Output in a log file, same process group.
    Logged,
    /// Output in a log file, own process group, pid file; outlives us.
    Detached,
}

/// `dir` (one of [`STATE_4`], [`STATE_3`]) under the repository root, with its `conf/`.
fn state_dir(dir: &str) -> Result<PathBuf> {
    let dir = project_root().join(dir);
    fs::create_dir_all(dir.join("conf"))?;
    Ok(dir)
}

fn pid_file(state: &Path, port: u16) -> PathBuf {
    state.join(format!("server-{port}.pid"))
}

fn log_file(state: &Path, port: u16) -> PathBuf {
    state.join(format!("server-{port}.log"))
}

/// SIGTERM (the JVM runs its shutdown hooks and Gremlin Server closes cleanly), then SIGKILL
/// after 20 s.
fn terminate(child: &mut Child) {
    if matches!(child.try_wait(), Ok(Some(_))) {
        return;
    }
    let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `--stop`: stops the server that `--detach` recorded for `port`, in `state` (the state
/// directory of the kind the command line names) or else in the other one.
fn stop_detached(port: u16, state: &Path) -> Result<()> {
    let other = state_dir(if state.ends_with(STATE_4) {
        STATE_3
    } else {
        STATE_4
    })?;
    let Some((pid_path, text)) = [state, &other].into_iter().find_map(|dir| {
        let path = pid_file(dir, port);
        fs::read_to_string(&path).ok().map(|text| (path, text))
    }) else {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let also = if TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok() {
            " (something does listen on that port, but xtask did not detach it)"
        } else {
            ""
        };
        bail!("no detached Gremlin Server recorded for port {port}{also}");
    };
    let pid: i32 = text
        .trim()
        .parse()
        .with_context(|| format!("bad pid in {}", pid_path.display()))?;
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline);
    if !cmdline.contains(MAIN_CLASS) && !cmdline.contains(JANUSGRAPH_MAIN_CLASS) {
        fs::remove_file(&pid_path)?;
        println!("The detached Gremlin Server (pid {pid}) is no longer running.");
        return Ok(());
    }
    kill(Pid::from_raw(pid), Signal::SIGTERM).context("sending SIGTERM")?;
    let deadline = Instant::now() + Duration::from_secs(20);
    while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    if Path::new(&format!("/proc/{pid}")).exists() {
        kill(Pid::from_raw(pid), Signal::SIGKILL).context("sending SIGKILL")?;
    }
    fs::remove_file(&pid_path)?;
    println!("Stopped the Gremlin Server on port {port} (pid {pid}).");
    Ok(())
}
