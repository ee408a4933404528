//! `cargo xtask server`: a real Gremlin Server 4.0.0-beta.3 with TinkerGraph on 127.0.0.1.
//!
//! The jars come from Maven (see [`resolve`]); the config is rendered from the templates in
//! `xtask/gremlin/` into `.gremlin-server/` at the repository root, which also holds the pid
//! and log files of detached servers. Other commands call [`ensure_running`] and keep the
//! returned [`Guard`] alive while they need the server.

mod probe;
pub(crate) mod resolve;

use std::fs;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

pub use resolve::TINKERPOP_VERSION;

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
/// Not a dataset but a layout: the graphs and traversal sources of TinkerPop's integration
/// server (`gmodern`, `gcrew`, ..., `ggraph`, `gtx`), which the Gherkin feature suite runs on.
pub const INTEGRATION: &str = "integration";
/// Not a TinkerPop dataset: an empty `TinkerTransactionGraph` (transactions over HTTP) bound to
/// `g`, from its own template `gremlin-server-tx.yaml.in`.
pub const TX_DATASET: &str = "tx";
/// The default port, as in TinkerPop's own configs.
pub const DEFAULT_PORT: u16 = 8182;

/// The port to use when `--port` is not given: `GREMLIN_SERVER_PORT`, else [`DEFAULT_PORT`].
pub fn default_port() -> Result<u16> {
    match std::env::var("GREMLIN_SERVER_PORT") {
        Ok(p) => p
            .parse()
            .with_context(|| format!("GREMLIN_SERVER_PORT={p:?} is not a port number")),
        Err(_) => Ok(DEFAULT_PORT),
    }
}

/// JVM options, after the Java 17+ `--add-opens` list that TinkerPop's `gremlin-server.sh`
/// always appends (Kryo, used to load some datasets, needs it). Heap: the CI machine has 2 cores
/// and 24 GiB, shared with cargo builds; 2 GiB is ample for these datasets.
const JVM_HEAP: &[&str] = &["-Xms256m", "-Xmx2g"];
const JVM_OPENS: &[&str] = &[
    "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-exports=java.base/sun.security.x509=ALL-UNNAMED",
    "--add-exports=java.base/sun.security.action=ALL-UNNAMED",
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
const MAIN_CLASS: &str = "org.apache.tinkerpop.gremlin.server.GremlinServer";
/// How long a starting server may take to answer `g.V().count()`.
const START_TIMEOUT: Duration = Duration::from_secs(180);

const HELP: &str = "usage: cargo xtask server [--dataset NAME] [--port N] [--detach] [--stop]
       cargo xtask server --tinkerpop 3.7.3|3.8.1 [--auth] | --janusgraph 1.1.0 [--port N] [--detach] [--stop]
                              (a TinkerPop 3 server over WebSocket: see `cargo xtask server3 --help`)

Runs a real Gremlin Server 4.0.0-beta.3 (TinkerGraph) on 127.0.0.1, resolved with Maven and cached
under .gremlin-server/. Needs java 17+ and mvn on PATH.

  --dataset NAME  modern (default), classic, crew, grateful, sink, airroutes, zoo;
                  integration: TinkerPop's integration-server layout (g/ggraph empty, gmodern,
                  gclassic, gcrew, ggrateful, gsink, gzoo, gmultilabel, gimmutable, gtx, plus
                  gnullable, gmodernmultilabel, gmultilabeldefault), as `cargo xtask features` needs;
                  or tx: an empty TinkerTransactionGraph bound to g, idle tx timeout 5 s
  --port N        TCP port (default 8182, or GREMLIN_SERVER_PORT)
  --detach        leave it running in the background (pid and log in .gremlin-server/)
  --stop          stop the detached server on --port

Environment: GREMLIN_SERVER_PORT sets the default port; GREMLIN_SERVER_JAVA_OPTS replaces the heap options (default: -Xms256m -Xmx2g).
GREMLIN_SERVER_HOME, if set, names an unpacked Gremlin Server 4.0.0-beta.3 distribution whose lib/
is used instead of resolving with Maven.";

/// `cargo xtask server ...`
pub fn cli(args: &[String]) -> Result<()> {
    // `--tinkerpop 3.x` / `--janusgraph V`: a TinkerPop 3 server (the same as `server3`).
    if args
        .iter()
        .any(|a| a == "--tinkerpop" || a == "--janusgraph")
    {
        return crate::server3::cli(args);
    }
    let mut dataset = "modern".to_string();
    let mut port = default_port()?;
    let (mut detach, mut stop) = (false, false);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--dataset" => dataset = it.next().context("--dataset needs a name")?.clone(),
            "--port" => {
                port = it
                    .next()
                    .context("--port needs a number")?
                    .parse()
                    .context("--port needs a number 1-65535")?
            }
            "--detach" => detach = true,
            "--stop" => stop = true,
            "-h" | "--help" => {
                println!("{HELP}");
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n\n{HELP}"),
        }
    }
    if stop {
        return stop_detached(port);
    }
    check_dataset(&dataset)?;
    let addr = local(port);
    if let Ok(count) = probe::vertex_count(addr, Duration::from_secs(2)) {
        println!(
            "A Gremlin Server already answers on {} (g.V().count() = {count}); reusing it.",
            url(port)
        );
        return Ok(());
    }
    let mode = if detach {
        Mode::Detached
    } else {
        Mode::Foreground
    };
    let server = start(&dataset, port, mode)?;
    println!("Gremlin Server ({dataset}) ready at {}", url(port));
    if detach {
        println!(
            "Detached (pid {}); stop it with `cargo xtask server --stop{}`.",
            server.id(),
            port_arg(port)
        );
        return Ok(());
    }
    wait_in_foreground(server)
}

/// Waits for a server started in the foreground until it exits; Ctrl-C stops it. Ctrl-C usually
/// reaches the server too (same process group) and the JVM shuts down on SIGINT; SIGTERM makes
/// sure of it (SIGINT may be ignored, e.g. under `nohup` or `&`). We wait for the server to
/// finish instead of dying first. Shared with `server3`.
pub(crate) fn wait_in_foreground(mut server: Child) -> Result<()> {
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

/// The URL clients use for a server on `port`.
pub fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/gremlin")
}

fn local(port: u16) -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}

fn port_arg(port: u16) -> String {
    if port == DEFAULT_PORT {
        String::new()
    } else {
        format!(" --port {port}")
    }
}

fn check_dataset(dataset: &str) -> Result<()> {
    if !DATASETS.contains(&dataset) && dataset != TX_DATASET {
        bail!(
            "unknown dataset {dataset:?}; known: {}",
            DATASETS.join(", ")
        );
    }
    Ok(())
}

/// Keeps a server alive; stops it on drop if this process started it.
#[derive(Debug)]
pub struct Guard {
    child: Option<Child>,
    port: u16,
}

impl Guard {
    /// The URL to send requests to.
    pub fn url(&self) -> String {
        url(self.port)
    }

    /// Whether an already running server was reused (and so will be left running).
    pub fn reused(&self) -> bool {
        self.child.is_none()
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

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let started = Instant::now();
            terminate(child);
            eprintln!(
                "xtask: Gremlin Server on port {} stopped in {}",
                self.port,
                secs(started.elapsed())
            );
        }
    }
}

/// Makes sure a Gremlin Server with `dataset` answers on 127.0.0.1:`port`: reuses one that
/// already answers, else starts one that the returned guard stops when dropped. Server output
/// goes to `.gremlin-server/server-<port>.log`.
pub fn ensure_running(dataset: &str, port: u16) -> Result<Guard> {
    check_dataset(dataset)?;
    if let Ok(count) = probe::vertex_count(local(port), Duration::from_secs(2)) {
        eprintln!(
            "xtask: reusing the Gremlin Server that answers on {} (g.V().count() = {count})",
            url(port)
        );
        if let Some(expected) = expected_vertex_count(dataset) {
            if count != expected {
                bail!(
                    "the server on port {port} has {count} vertices, not the {expected} of \
                     {dataset}; stop it or choose another port"
                );
            }
        }
        return Ok(Guard { child: None, port });
    }
    let child = start(dataset, port, Mode::Logged)?;
    Ok(Guard {
        child: Some(child),
        port,
    })
}

fn expected_vertex_count(dataset: &str) -> Option<i64> {
    match dataset {
        "modern" | "classic" => Some(6),
        _ => None,
    }
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

fn state_dir() -> Result<PathBuf> {
    let dir = project_root().join(".gremlin-server");
    fs::create_dir_all(dir.join("conf"))?;
    Ok(dir)
}

fn pid_file(state: &Path, port: u16) -> PathBuf {
    state.join(format!("server-{port}.pid"))
}

/// Resolves, configures and starts the server, and waits until it answers.
fn start(dataset: &str, port: u16, mode: Mode) -> Result<Child> {
    let root = project_root();
    let state = state_dir()?;
    let lib = match std::env::var_os("GREMLIN_SERVER_HOME") {
        Some(home) => {
            resolve::check_tools(false)?;
            let lib = PathBuf::from(home).join("lib");
            anyhow::ensure!(
                lib.is_dir(),
                "GREMLIN_SERVER_HOME has no lib/ directory: {}",
                lib.display()
            );
            lib
        }
        None => resolve::ensure_jars(&root, &state)?,
    };
    let yaml = write_config(&root, &state, dataset, port)?;

    let mut cmd = Command::new("java");
    match std::env::var("GREMLIN_SERVER_JAVA_OPTS") {
        Ok(opts) => cmd.args(opts.split_whitespace()),
        Err(_) => cmd.args(JVM_HEAP),
    };
    cmd.args(JVM_OPENS)
        .arg(format!(
            "-Dlogback.configurationFile={}",
            state.join("conf/logback.xml").display()
        ))
        .arg("-cp")
        .arg(format!("{}/*", lib.display()))
        .arg(MAIN_CLASS)
        .arg(&yaml)
        .current_dir(&state)
        .stdin(Stdio::null());
    let log_path = state.join(format!("server-{port}.log"));
    if mode != Mode::Foreground {
        let log = fs::File::create(&log_path)?;
        cmd.stdout(log.try_clone()?).stderr(log);
    }
    if mode == Mode::Detached {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let started = Instant::now();
    let mut child = cmd.spawn().context("starting java")?;
    eprintln!(
        "xtask: starting Gremlin Server {} ({dataset}) on 127.0.0.1:{port}, pid {} ...",
        resolve::TINKERPOP_VERSION,
        child.id()
    );
    if let Err(err) = wait_until_answering(&mut child, port) {
        terminate(&mut child);
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
        return Err(err.context(format!("Gremlin Server did not come up{log}")));
    }
    eprintln!(
        "xtask: Gremlin Server answered g.V().count() after {}",
        secs(started.elapsed())
    );
    if mode == Mode::Detached {
        fs::write(pid_file(&state, port), format!("{}\n", child.id()))?;
        eprintln!("xtask: log: {}", log_path.display());
    }
    Ok(child)
}

fn write_config(root: &Path, state: &Path, dataset: &str, port: u16) -> Result<PathBuf> {
    let templates = root.join("xtask/gremlin");
    let conf = state.join("conf");
    let (template, files): (&str, &[&str]) = if dataset == INTEGRATION {
        copy_suite_data(state)?;
        (
            "gremlin-server-integration.yaml.in",
            &[
                "logback.xml",
                "tinkergraph-service.properties",
                "tinkergraph-multilabel.properties",
                "tinkergraph-nullable.properties",
                "tinkertransactiongraph-service.properties",
            ],
        )
    } else if dataset == TX_DATASET {
        (
            "gremlin-server-tx.yaml.in",
            &["logback.xml", "tinkertransactiongraph.properties"],
        )
    } else {
        (
            "gremlin-server.yaml.in",
            &["logback.xml", "tinkergraph-empty.properties"],
        )
    };
    for file in files {
        fs::copy(templates.join(file), conf.join(file))
            .with_context(|| format!("copying {file} into {}", conf.display()))?;
    }
    let template = fs::read_to_string(templates.join(template))?;
    let yaml = template
        .replace("@HOST@", "127.0.0.1")
        .replace("@PORT@", &port.to_string())
        .replace("@DATASET@", dataset)
        .replace("@CONF_DIR@", &conf.display().to_string());
    let path = conf.join(format!("gremlin-server-{dataset}-{port}.yaml"));
    fs::write(&path, yaml)?;
    Ok(path)
}

/// The files Read.feature's `g.io("data/tinkerpop-modern.*").read()` open, relative to the
/// server's working directory (the state directory): copied from the shared folder's
/// `tinkerpop-data/` on every start, never kept in the repository.
fn copy_suite_data(state: &Path) -> Result<()> {
    let from = crate::util::shared_dir().join("tinkerpop-data");
    let to = state.join("data");
    fs::create_dir_all(&to)?;
    for ext in ["kryo", "json", "xml"] {
        let name = format!("tinkerpop-modern.{ext}");
        fs::copy(from.join(&name), to.join(&name)).with_context(|| {
            format!(
                "copying {name} from {} (the data files of TinkerPop's test suite)",
                from.display()
            )
        })?;
    }
    Ok(())
}

fn wait_until_answering(child: &mut Child, port: u16) -> Result<()> {
    wait_until_probe_answers(child, port, probe::vertex_count)
}

/// Waits (up to 180 s) until `probe` (a `g.V().count()` over the server's own protocol)
/// answers on 127.0.0.1:`port`, failing early if `child` exits. Shared with `server3`.
pub(crate) fn wait_until_probe_answers<T>(
    child: &mut Child,
    port: u16,
    probe: impl Fn(SocketAddr, Duration) -> Result<T>,
) -> Result<()> {
    let deadline = Instant::now() + START_TIMEOUT;
    let mut last_err = None;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait()? {
            bail!("the server exited ({status}) before answering");
        }
        match probe(local(port), Duration::from_secs(5)) {
            Ok(_) => return Ok(()),
            Err(err) => last_err = Some(err),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!(
        "no answer to g.V().count() on port {port} within {}s (last error: {:#})",
        START_TIMEOUT.as_secs(),
        last_err.unwrap_or_else(|| anyhow::anyhow!("none"))
    )
}

/// SIGTERM (the JVM runs its shutdown hooks and Gremlin Server closes cleanly), then SIGKILL
/// after 20 s. Shared with `server3`.
pub(crate) fn terminate(child: &mut Child) {
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

/// `--stop`: stops the server that `--detach` recorded for `port`.
fn stop_detached(port: u16) -> Result<()> {
    let state = state_dir()?;
    let pid_path = pid_file(&state, port);
    let Ok(text) = fs::read_to_string(&pid_path) else {
        let also = if probe::vertex_count(local(port), Duration::from_secs(2)).is_ok() {
            " (a server does answer on that port, but xtask did not detach it)"
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
    if !String::from_utf8_lossy(&cmdline).contains(MAIN_CLASS) {
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
