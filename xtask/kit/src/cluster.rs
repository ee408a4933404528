//! `cargo xtask cluster up|down|chaos`: a JanusGraph cluster on loopback, one Apache Cassandra
//! node and two or three JanusGraph Servers sharing one keyspace on it.
//!
//! * Cassandra [`CASSANDRA_VERSION`] runs from `org.apache.cassandra:cassandra-all` and its
//!   runtime dependencies, resolved with Maven from `xtask/cluster/pom.xml` (the same
//!   [`resolve::ensure_jars`] as the servers), with a `cassandra.yaml` written here
//!   ([`cassandra_yaml`]) and its data, logs and pid file under `target/cluster/`.
//! * The JanusGraph Servers are the launcher's own ([`Server::janusgraph_cql`]): the
//!   `janusgraph-cql` jars, one properties file per server naming the node and the keyspace,
//!   `cache.db-cache` off; their logs and pid files are the launcher's, in
//!   `target/gremlin-server3/`. The first one creates the keyspace alone, then the others start
//!   together.
//!
//! Ports (all on 127.0.0.1): Cassandra's storage [`STORAGE_PORT`], native (CQL)
//! [`NATIVE_PORT`], JMX [`JMX_PORT`]; the JanusGraph Servers [`JG_PORTS`]. Memory: Cassandra
//! 1 GiB of heap, each JanusGraph Server at most 1 GiB (about 4-5 GB resident in all with three,
//! for the 2-core, 24 GiB CI machine).
//!
//! `chaos` (the crate `xtask/chaos`, `graphbinary-chaos`, which links the client) starts a
//! cluster of its own, drives it and stops it; [`cli`] parses its flags and hands them over.

use std::fs;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::server::{self, resolve, Cql, Guard, Server};
use crate::util::{project_root, secs};

/// The Cassandra release the cluster runs (5.0 runs on Java 17).
pub const CASSANDRA_VERSION: &str = "5.0.4";
/// Cassandra's inter-node (storage) port.
pub const STORAGE_PORT: u16 = 8340;
/// Cassandra's native transport (CQL) port, the one JanusGraph connects to.
pub const NATIVE_PORT: u16 = 8341;
/// Cassandra's local JMX port.
pub const JMX_PORT: u16 = 8342;
/// The JanusGraph Servers' ports (the first `--servers` of them).
pub const JG_PORTS: [u16; 3] = [8350, 8351, 8352];
/// The keyspace of `cluster up`.
const KEYSPACE: &str = "janusgraph";
const STATE: &str = "target/cluster";
const CASSANDRA_MAIN_CLASS: &str = "org.apache.cassandra.service.CassandraDaemon";
/// How long Cassandra may take to open its CQL port.
const CASSANDRA_START_TIMEOUT: Duration = Duration::from_secs(180);
const CASSANDRA_HEAP: &[&str] = &["-Xms1g", "-Xmx1g", "-Xss256k"];

const HELP: &str = "usage: cargo xtask cluster up [--servers 2|3]
       cargo xtask cluster down
       cargo xtask cluster chaos [--servers 2|3] [--secs N] [--cycles N]

A JanusGraph cluster on 127.0.0.1: one Apache Cassandra 5.0.4 node (cassandra-all resolved with
Maven, config and data under target/cluster/) and JanusGraph Server 1.1.0s on it (CQL backend,
one keyspace, db-cache off). Needs java 17+ and mvn on PATH.

  up       start Cassandra (storage 8340, CQL 8341, JMX 8342) and the JanusGraph Servers
           (ws://127.0.0.1:8350/gremlin, 8351, 8352), detached; wait until all answer; print the
           time it took
  down     stop what `up` started
  chaos    start a cluster of its own (a fresh keyspace), run concurrent writers (a unique key
           per write, never retried once sent), idempotent readers and a loader (2,000
           vertices and edges in Neptune CSV by a key, loaded again and again) through one
           client over the JanusGraph Servers while one server after the other is killed
           (SIGKILL) and restarted, then check that every acknowledged write is present
           exactly once, and, loaded once more, every loaded row; stop the cluster. Fails on
           a lost or duplicated write or row, or a read failed after the kill was detected.
           Last line (the loader's, `load: ...`, comes before it): chaos: N acknowledged,
           N found, lost N, duplicated N, N failed, N unknown; reads: N, N failed after
           detection

  --servers N  JanusGraph Servers (default 3)
  --secs N     chaos: how long the writers and readers run (default 120)
  --cycles N   chaos: kills and restarts (default 3)";

/// The chaos drill: `(servers, secs, cycles)`. Lives outside this crate (it needs the client).
pub type Chaos<'a> = &'a dyn Fn(usize, u64, usize) -> Result<()>;

/// `cargo xtask cluster ...`; `chaos` runs the drill given.
pub fn cli(args: &[String], chaos: Chaos<'_>) -> Result<()> {
    let mut servers = 3usize;
    let mut secs = 120u64;
    let mut cycles = 3usize;
    let mut command = None;
    let mut a = crate::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "up" | "down" | "chaos" if command.is_none() => command = Some(arg),
            "--servers" => {
                servers = a.parse(arg)?;
                ensure!((2..=3).contains(&servers), "--servers needs 2 or 3");
            }
            "--secs" => {
                secs = a.parse(arg)?;
                ensure!(secs >= 20, "--secs needs at least 20");
            }
            "--cycles" => {
                cycles = a.parse(arg)?;
                ensure!(cycles >= 1, "--cycles needs at least 1");
            }
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    match command {
        Some("up") => up(servers),
        Some("down") => down(),
        Some("chaos") => chaos(servers, secs, cycles),
        _ => bail!("{HELP}"),
    }
}

/// The URL of the JanusGraph Server on `port`.
pub fn url(port: u16) -> String {
    format!("ws://127.0.0.1:{port}/gremlin")
}

/// `target/cluster/` under the repository root.
fn state_dir() -> Result<PathBuf> {
    let dir = project_root().join(STATE);
    fs::create_dir_all(dir.join("conf"))?;
    Ok(dir)
}

fn pid_file(state: &Path) -> PathBuf {
    state.join("cassandra.pid")
}

fn log_file(state: &Path) -> PathBuf {
    state.join("cassandra.log")
}

/// `cluster up`: Cassandra, then the first JanusGraph Server (it creates the keyspace), then
/// the others together; all detached. Whatever started is stopped again on failure.
fn up(servers: usize) -> Result<()> {
    let started = Instant::now();
    for port in [STORAGE_PORT, NATIVE_PORT, JMX_PORT]
        .into_iter()
        .chain(JG_PORTS[..servers].iter().copied())
    {
        server::ensure_free(port, "the cluster")
            .context("is a cluster already up? (`cargo xtask cluster down` stops it)")?;
    }
    let result = (|| -> Result<()> {
        let mut cassandra = Cassandra::start(true)?;
        cassandra.detach();
        let cql = Cql {
            port: NATIVE_PORT,
            keyspace: KEYSPACE.to_string(),
        };
        start_janusgraph(&cql, &JG_PORTS[..servers], true)?
            .into_iter()
            .for_each(|g| {
                g.detach();
            });
        Ok(())
    })();
    if let Err(err) = result {
        let _ = down();
        return Err(err);
    }
    println!(
        "Cluster up in {}: Apache Cassandra {CASSANDRA_VERSION} on 127.0.0.1:{NATIVE_PORT} (CQL), \
         keyspace {KEYSPACE}; JanusGraph Servers at {}.",
        secs(started.elapsed()),
        JG_PORTS[..servers]
            .iter()
            .map(|&p| url(p))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("Stop it with `cargo xtask cluster down`.");
    Ok(())
}

/// Starts the JanusGraph Servers of `ports` on `cql`: the first alone (it creates the keyspace
/// and JanusGraph's tables), then the others together.
pub fn start_janusgraph(cql: &Cql, ports: &[u16], detach: bool) -> Result<Vec<Guard>> {
    let server = Server::janusgraph_cql(cql.clone());
    let t = Instant::now();
    let mut guards = server::start_all(&[(server.clone(), ports[0])], detach)?;
    eprintln!(
        "xtask: the first JanusGraph Server (keyspace {}) answered after {}",
        cql.keyspace,
        secs(t.elapsed())
    );
    let rest: Vec<(Server, u16)> = ports[1..].iter().map(|&p| (server.clone(), p)).collect();
    guards.extend(server::start_all(&rest, detach)?);
    Ok(guards)
}

/// `cluster down`: the JanusGraph Servers `up` left (any of [`JG_PORTS`] with a pid file), then
/// Cassandra.
fn down() -> Result<()> {
    let mut stopped = 0;
    for port in JG_PORTS {
        match server::stop(port) {
            Ok(()) => stopped += 1,
            Err(e) if e.to_string().contains("no detached") => {}
            Err(e) => eprintln!("xtask: port {port}: {e:#}"),
        }
    }
    let state = state_dir()?;
    let pid_path = pid_file(&state);
    if let Ok(text) = fs::read_to_string(&pid_path) {
        let pid: i32 = text
            .trim()
            .parse()
            .with_context(|| format!("bad pid in {}", pid_path.display()))?;
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(CASSANDRA_MAIN_CLASS) {
            let t = Instant::now();
            stop_pid(pid);
            println!(
                "Stopped Apache Cassandra (pid {pid}) in {}.",
                secs(t.elapsed())
            );
            stopped += 1;
        }
        fs::remove_file(&pid_path)?;
    }
    if stopped == 0 {
        println!("No cluster was up.");
    }
    Ok(())
}

/// SIGTERM, then SIGKILL after 30 s.
fn stop_pid(pid: i32) {
    let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(30);
    while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
        // A child of ours stays a zombie until reaped: its cmdline is empty then.
        if fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c.is_empty()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if Path::new(&format!("/proc/{pid}")).exists() {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// Cassandra's jars in `state` (resolved with Maven on first use).
fn cassandra_jars(state: &Path) -> Result<PathBuf> {
    resolve::ensure_jars(
        &project_root().join("xtask/cluster/pom.xml"),
        &state.join(format!("lib-cassandra-{CASSANDRA_VERSION}")),
        &format!("Apache Cassandra {CASSANDRA_VERSION}"),
        [format!("-Dcassandra.version={CASSANDRA_VERSION}")],
    )
}

/// Resolves the cluster's jars (Cassandra's, then the JanusGraph Servers' on CQL) without
/// starting anything.
pub fn resolve_jars() -> Result<()> {
    cassandra_jars(&state_dir()?)?;
    let cql = Cql {
        port: NATIVE_PORT,
        keyspace: KEYSPACE.to_string(),
    };
    Server::janusgraph_cql(cql).resolve_jars()?;
    Ok(())
}

/// The Cassandra node; stopped (SIGTERM, then SIGKILL) when dropped unless detached.
pub struct Cassandra {
    child: Option<Child>,
}

impl Cassandra {
    /// Resolves the jars, writes the config, starts the JVM (in its own process group with a
    /// pid file if `detached`) and waits until the CQL port accepts connections.
    pub fn start(detached: bool) -> Result<Cassandra> {
        let started = Instant::now();
        let state = state_dir()?;
        let lib = cassandra_jars(&state)?;
        let conf = state.join("conf");
        let data = state.join("data");
        fs::create_dir_all(&data)?;
        let yaml = conf.join("cassandra.yaml");
        fs::write(&yaml, cassandra_yaml(&data))?;
        fs::copy(
            project_root().join("xtask/cluster/logback.xml"),
            conf.join("logback.xml"),
        )?;
        let log = fs::File::create(log_file(&state))?;
        let mut cmd = Command::new("java");
        cmd.args(CASSANDRA_HEAP)
            .args(jvm_flags())
            .arg(format!("-Dcassandra.config=file://{}", yaml.display()))
            .arg("-Dcassandra-foreground=yes")
            .arg(format!("-Dcassandra.jmx.local.port={JMX_PORT}"))
            .arg(format!(
                "-Dcassandra.logdir={}",
                state.join("logs").display()
            ))
            .arg(format!("-Dcassandra.storagedir={}", data.display()))
            .arg(format!(
                "-Dlogback.configurationFile={}",
                conf.join("logback.xml").display()
            ))
            .arg("-cp")
            .arg(format!("{}:{}/*", conf.display(), lib.display()))
            .arg(CASSANDRA_MAIN_CLASS)
            .current_dir(&state)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        if detached {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = cmd.spawn().context("starting java (Cassandra)")?;
        eprintln!(
            "xtask: starting Apache Cassandra {CASSANDRA_VERSION} on 127.0.0.1:{NATIVE_PORT}, pid {} ...",
            child.id()
        );
        let mut node = Cassandra { child: Some(child) };
        node.await_up(&state)?;
        if detached {
            let pid = node.child.as_ref().map_or(0, Child::id);
            fs::write(pid_file(&state), format!("{pid}\n"))?;
        }
        eprintln!(
            "xtask: Apache Cassandra answered on its CQL port after {} (log: {})",
            secs(started.elapsed()),
            log_file(&state).display()
        );
        Ok(node)
    }

    fn await_up(&mut self, state: &Path) -> Result<()> {
        let deadline = Instant::now() + CASSANDRA_START_TIMEOUT;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, NATIVE_PORT));
        let child = self.child.as_mut().context("no process")?;
        let err = loop {
            if let Some(status) = child.try_wait()? {
                break anyhow::anyhow!("Cassandra exited ({status}) before opening its CQL port");
            }
            if TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                break anyhow::anyhow!(
                    "Cassandra did not open its CQL port {NATIVE_PORT} within {}s",
                    CASSANDRA_START_TIMEOUT.as_secs()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let text = fs::read_to_string(log_file(state)).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        Err(err.context(format!(
            "last lines of {}:\n{}",
            log_file(state).display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )))
    }

    /// Leaves the node running after this process (`cluster up`).
    fn detach(&mut self) {
        self.child = None;
    }
}

impl Drop for Cassandra {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let t = Instant::now();
            stop_pid(child.id() as i32);
            let _ = child.kill();
            let _ = child.wait();
            eprintln!("xtask: Apache Cassandra stopped in {}", secs(t.elapsed()));
        }
    }
}

/// A minimal single-node `cassandra.yaml`: everything on 127.0.0.1, data under `data`.
fn cassandra_yaml(data: &Path) -> String {
    let d = data.display();
    format!(
        "# Written by `cargo xtask cluster`: one Apache Cassandra node on 127.0.0.1.
cluster_name: graphbinary-rs
num_tokens: 16
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
commitlog_sync: periodic
commitlog_sync_period: 10000ms
commitlog_directory: {d}/commitlog
data_file_directories: [{d}/data]
saved_caches_directory: {d}/saved_caches
hints_directory: {d}/hints
cdc_raw_directory: {d}/cdc_raw
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: \"127.0.0.1:{STORAGE_PORT}\"
listen_address: 127.0.0.1
rpc_address: 127.0.0.1
storage_port: {STORAGE_PORT}
native_transport_port: {NATIVE_PORT}
start_native_transport: true
endpoint_snitch: SimpleSnitch
concurrent_reads: 8
concurrent_writes: 8
"
    )
}

/// The Java 17 module flags Cassandra 5.0 needs (those of its own `jvm17-server.options`).
fn jvm_flags() -> Vec<String> {
    let mut flags = Vec::new();
    for p in [
        "java.io",
        "java.lang",
        "java.lang.reflect",
        "java.lang.invoke",
        "java.nio",
        "java.util",
        "java.util.concurrent",
        "java.util.concurrent.atomic",
        "sun.nio.ch",
        "jdk.internal.misc",
        "jdk.internal.ref",
        "java.net",
        "sun.nio.fs",
        "java.nio.file.spi",
        "jdk.internal.math",
        "jdk.internal.module",
        "jdk.internal.util.jar",
        "jdk.internal.loader",
        "sun.security.action",
        "java.lang.module",
        "java.security",
        "sun.security.util",
    ] {
        flags.push(format!("--add-opens=java.base/{p}=ALL-UNNAMED"));
    }
    for mp in [
        "java.management/com.sun.jmx.mbeanserver",
        "java.management/javax.management",
        "java.management/javax.management.openmbean",
        "java.rmi/sun.rmi.registry",
        "jdk.management/com.sun.management.internal",
    ] {
        flags.push(format!("--add-opens={mp}=ALL-UNNAMED"));
    }
    for mp in [
        "java.base/jdk.internal.misc",
        "java.base/jdk.internal.ref",
        "java.base/sun.nio.ch",
        "java.base/java.lang.ref",
        "java.management.rmi/com.sun.jmx.remote.internal.rmi",
        "java.rmi/sun.rmi.registry",
        "java.rmi/sun.rmi.server",
        "java.sql/java.sql",
        "jdk.unsupported/sun.misc",
    ] {
        flags.push(format!("--add-exports={mp}=ALL-UNNAMED"));
    }
    flags
}
