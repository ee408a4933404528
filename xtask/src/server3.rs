//! `cargo xtask server3`: a real TinkerPop 3 Gremlin Server (3.7.3 or 3.8.1) with the modern
//! TinkerGraph on 127.0.0.1, speaking GraphBinary 1 and GraphSON 3 over WebSocket.
//!
//! The jars come from Maven Central: `xtask/gremlin3/pom.xml` (gremlin-server, tinkergraph,
//! gremlin-groovy, logback) resolved with maven-dependency-plugin's `copy-dependencies` into
//! `target/gremlin-server3/lib-<version>/`, reused while the pom is unchanged. The config is
//! rendered from the templates in `xtask/gremlin3/` into `target/gremlin-server3/conf/`; pid and
//! log files of servers live in `target/gremlin-server3/`.
//!
//! `--auth` adds SimpleAuthenticator over a credentials graph (user `stephen`, password
//! `password`, as in TinkerPop's own `tinkergraph-credentials.properties`) that
//! `MakeCredentials.java` writes with TinkerPop's CredentialTraversalSource.
//!
//! `--tls` serves `wss://` (Netty's TLS in Gremlin Server, `ssl.keyStore`): a test CA and a
//! server certificate for 127.0.0.1 and localhost signed by it are made once with the JDK's
//! `keytool` into `target/gremlin-server3/tls/`; clients trust `tls/ca.pem` ([`tls_root`]).

use std::fs;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::server::{self, terminate};
use crate::util::{on_path, project_root, secs, show};

/// The TinkerPop 3 releases this command is tested with.
pub const VERSIONS: &[&str] = &["3.7.3", "3.8.1"];
/// The user and password of `--auth` (TinkerPop's credentials graph has the same).
pub const AUTH_USER: &str = "stephen";
/// See [`AUTH_USER`].
pub const AUTH_PASSWORD: &str = "password";
const MAIN_CLASS: &str = "org.apache.tinkerpop.gremlin.server.GremlinServer";
const JANUSGRAPH_MAIN_CLASS: &str = "org.janusgraph.graphdb.server.JanusGraphServer";
/// The JanusGraph release `--janusgraph` is tested with (it runs on TinkerPop 3.7.3).
pub const JANUSGRAPH_VERSION: &str = "1.1.0";

/// Which server: TinkerPop's own, or JanusGraph's (in-memory backend, modern graph loaded by a
/// script since TinkerFactory only fills a TinkerGraph).
#[derive(Debug, Clone)]
struct Flavor {
    janusgraph: bool,
    version: String,
    /// [`INTEGRATION`] for the graphs of TinkerPop's Gherkin suite, else the modern graph only.
    integration: bool,
    /// `--tls`: `wss://` with a certificate for 127.0.0.1 signed by [`tls_root`]'s test CA.
    tls: bool,
}

/// The `--dataset` of the graphs and traversal sources of TinkerPop's Gherkin suite: `ggraph`
/// (empty), `gnullable` (empty, null property values kept), `gclassic`, `gmodern`, `gcrew`,
/// `ggrateful`, `gsink`, all with INTEGER vertex and edge ids; `g` is the modern graph as with
/// the default dataset (so the start-up probe and the benchmarks work on either).
pub const INTEGRATION: &str = "integration";

impl Flavor {
    fn name(&self) -> String {
        let product = if self.janusgraph {
            "JanusGraph Server"
        } else {
            "Gremlin Server"
        };
        format!("{product} {}", self.version)
    }
    fn pom(&self) -> &'static str {
        if self.janusgraph {
            "xtask/gremlin3/janusgraph/pom.xml"
        } else {
            "xtask/gremlin3/pom.xml"
        }
    }
    fn version_property(&self) -> &'static str {
        if self.janusgraph {
            "jg.version"
        } else {
            "tp.version"
        }
    }
    fn lib_name(&self) -> String {
        if self.janusgraph {
            format!("lib-janusgraph-{}", self.version)
        } else {
            format!("lib-{}", self.version)
        }
    }
    fn main_class(&self) -> &'static str {
        if self.janusgraph {
            JANUSGRAPH_MAIN_CLASS
        } else {
            MAIN_CLASS
        }
    }
}
const JVM_HEAP: &[&str] = &["-Xms128m", "-Xmx1g"];
/// The list of 4.0's gremlin-server.sh (3.7.3 runs without it on Java 17; Gryo/Kryo needs it).
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

const HELP: &str = "usage: cargo xtask server3 [--tinkerpop 3.7.3|3.8.1 | --janusgraph 1.1.0] [--dataset modern|integration]
                           [--auth] [--tls] [--port N] [--detach] [--stop]
  (also spelled `cargo xtask server --tinkerpop V ...` / `cargo xtask server --janusgraph V ...`)

Runs a real TinkerPop 3 Gremlin Server (TinkerGraph, modern graph bound to `g`) on 127.0.0.1 with
the WebSocket channelizer and the GraphBinary 1 and GraphSON 3 serializers. Jars resolved with
Maven into target/gremlin-server3/. Needs java 17+ and mvn on PATH.

  --tinkerpop V   3.7.3 (default) or 3.8.1 (other 3.x versions are tried as given)
  --janusgraph V  a JanusGraph Server 1.1.0 instead (in-memory backend, modern graph, edge ids
                  are GraphBinary 1 custom types); default port 8199
  --dataset D     modern (default: the modern graph as `g`) or integration: the graphs and
                  sources of TinkerPop's Gherkin suite (ggraph, gnullable, gclassic, gmodern,
                  gcrew, ggrateful, gsink; `g` is still the modern graph)
  --auth          SimpleAuthenticator, user stephen, password password (SASL PLAIN)
  --tls           wss:// with a certificate signed by a test CA made with keytool; clients
                  trust target/gremlin-server3/tls/ca.pem (printed at start)
  --port N        TCP port (default: 8196 for 3.7.3, 8197 for 3.8.1, +2 with --auth)
  --detach        leave it running in the background (pid and log in target/gremlin-server3/)
  --stop          stop the detached server on the port

The port the end-to-end tests of graphbinary-client/tests/ws3.rs use by default are the same.";

/// The default port of a version: 8196 (3.7.x) or 8197 (other), plus 2 with auth.
pub fn default_port(version: &str, auth: bool) -> u16 {
    let base = if version.starts_with("3.7.") {
        8196
    } else {
        8197
    };
    base + if auth { 2 } else { 0 }
}

/// `cargo xtask server3 ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut version = VERSIONS[0].to_string();
    let mut janusgraph = None;
    let mut port = None;
    let (mut auth, mut detach, mut stop, mut tls) = (false, false, false, false);
    let mut integration = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--tinkerpop" => version = it.next().context("--tinkerpop needs a version")?.clone(),
            "--port" => {
                port = Some(
                    it.next()
                        .context("--port needs a number")?
                        .parse()
                        .context("--port needs a number 1-65535")?,
                )
            }
            "--janusgraph" => {
                janusgraph = Some(it.next().context("--janusgraph needs a version")?.clone())
            }
            "--dataset" => match it.next().map(String::as_str) {
                Some(INTEGRATION) => integration = true,
                Some("modern") => integration = false,
                _ => bail!("--dataset needs modern or {INTEGRATION}"),
            },
            "--auth" => auth = true,
            "--tls" => tls = true,
            "--detach" => detach = true,
            "--stop" => stop = true,
            "-h" | "--help" => {
                println!("{HELP}");
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n\n{HELP}"),
        }
    }
    ensure!(
        !(tls && janusgraph.is_some()),
        "--tls is for TinkerPop's Gremlin Server, not --janusgraph"
    );
    let flavor = match janusgraph {
        Some(v) => {
            if v != JANUSGRAPH_VERSION {
                eprintln!("xtask: JanusGraph {v} is untested here (tested: {JANUSGRAPH_VERSION})");
            }
            Flavor {
                janusgraph: true,
                version: v,
                integration: false,
                tls,
            }
        }
        None => {
            check_version(&version)?;
            Flavor {
                janusgraph: false,
                version,
                integration,
                tls,
            }
        }
    };
    let port = port.unwrap_or_else(|| {
        if flavor.janusgraph {
            8199
        } else {
            default_port(&flavor.version, auth)
        }
    });
    if stop {
        return stop_detached(port);
    }
    if let Ok(status) = probe(local(port), Duration::from_secs(2)) {
        println!(
            "A Gremlin Server already answers on {} (status {status} to g.V().count()); reusing it.",
            url(port)
        );
        return Ok(());
    }
    let server = start(&flavor, auth, port, detach)?;
    println!(
        "{}{} ready at {}",
        flavor.name(),
        if auth { " (auth)" } else { "" },
        flavor.url(port)
    );
    if tls {
        println!("Its root certificate (PEM): {}", tls_root()?.display());
    }
    if detach {
        println!(
            "Detached (pid {}); stop it with `cargo xtask server3 --stop --port {port}`.",
            server.id()
        );
        return Ok(());
    }
    server::wait_in_foreground(server)
}

/// A TinkerPop 3 server started for a test run, stopped when dropped.
pub struct Guard3 {
    child: Child,
    port: u16,
    name: String,
    tls: bool,
}

impl Guard3 {
    /// Its WebSocket URL (`wss://` for a TLS server).
    pub fn url(&self) -> String {
        if self.tls {
            tls_url(self.port)
        } else {
            url(self.port)
        }
    }
}

impl Drop for Guard3 {
    fn drop(&mut self) {
        eprintln!("xtask: stopping {} on port {}", self.name, self.port);
        terminate(&mut self.child);
    }
}

/// Starts TinkerPop 3 servers for tests, each `(tinkerpop, auth, tls, port)`: `tinkerpop` a 3.x
/// version, or `None` for JanusGraph Server [`JANUSGRAPH_VERSION`]. Jars and configs are
/// prepared one after the other (Maven and the shared conf directory are not raced), then the
/// JVMs start together and are awaited in parallel. Fails if something already listens on a
/// port (a server of unknown kind is never reused for tests); every server started is stopped
/// on failure.
pub fn start_for_tests(servers: &[(Option<&str>, bool, bool, u16)]) -> Result<Vec<Guard3>> {
    let mut guards = Vec::new();
    let mut flavors = Vec::new();
    for &(tinkerpop, auth, tls, port) in servers {
        let flavor = match tinkerpop {
            Some(v) => Flavor {
                janusgraph: false,
                version: v.to_owned(),
                integration: false,
                tls,
            },
            None => Flavor {
                janusgraph: true,
                version: JANUSGRAPH_VERSION.to_owned(),
                integration: false,
                tls,
            },
        };
        ensure!(
            TcpStream::connect_timeout(&local(port), Duration::from_millis(300)).is_err(),
            "port {port} is taken: cannot start {} there",
            flavor.name()
        );
        let child = spawn(&flavor, auth, port, false, true)?;
        guards.push(Guard3 {
            child,
            port,
            name: format!(
                "{}{}{}",
                flavor.name(),
                if auth { " (auth)" } else { "" },
                if tls { " (tls)" } else { "" }
            ),
            tls,
        });
        flavors.push(flavor);
    }
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = guards
            .iter_mut()
            .zip(&flavors)
            .map(|(g, f)| scope.spawn(move || await_up(f, &mut g.child, g.port, false)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("panicked")))
            })
            .collect()
    });
    for r in results {
        r?;
    }
    Ok(guards)
}

/// The URL clients use for a server on `port`.
pub fn url(port: u16) -> String {
    format!("ws://127.0.0.1:{port}/gremlin")
}

/// The URL of a `--tls` server on `port`.
pub fn tls_url(port: u16) -> String {
    format!("wss://127.0.0.1:{port}/gremlin")
}

impl Flavor {
    fn url(&self, port: u16) -> String {
        if self.tls {
            tls_url(port)
        } else {
            url(port)
        }
    }
}

const TLS_PASSWORD: &str = "changeit";

/// The test CA's certificate (PEM) that `--tls` servers' certificates are signed by, made
/// (with the server's PKCS#12 key store beside it) on first use.
pub fn tls_root() -> Result<PathBuf> {
    Ok(tls_files()?.0)
}

/// `(ca.pem, server.p12)` in `target/gremlin-server3/tls/`, made with `keytool` if missing:
/// a CA key pair (basic constraints CA), a server key pair whose certificate the CA signs for
/// IP 127.0.0.1 and DNS localhost (server auth), and both certificates imported into the
/// server's key store so it presents the chain.
fn tls_files() -> Result<(PathBuf, PathBuf)> {
    let dir = state_dir()?.join("tls");
    let (ca_pem, store) = (dir.join("ca.pem"), dir.join("server.p12"));
    if ca_pem.exists() && store.exists() {
        return Ok((ca_pem, store));
    }
    ensure!(
        on_path("keytool"),
        "--tls needs `keytool` (it comes with the JDK) on PATH"
    );
    let _ = fs::remove_dir_all(&dir);
    let tmp = state_dir()?.join(format!("tls-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp)?;
    let p = |f: &str| tmp.join(f).display().to_string();
    let (ca_p12, ca_pem_tmp, server_p12, csr, server_pem) = (
        p("ca.p12"),
        p("ca.pem"),
        p("server.p12"),
        p("server.csr"),
        p("server.pem"),
    );
    let pass = TLS_PASSWORD;
    let common = ["-storepass", pass, "-storetype", "PKCS12"];
    let key_pair = [
        "-genkeypair",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "3650",
    ];
    let ca_key: Vec<&str> = [
        &key_pair[..],
        &["-alias", "ca", "-dname", "CN=graphbinary-rs test CA"],
    ]
    .concat();
    let server_key: Vec<&str> = [
        &key_pair[..],
        &["-alias", "server", "-dname", "CN=localhost"],
    ]
    .concat();
    let steps: [&[&str]; 7] = [
        &[&ca_key[..], &["-ext", "bc:c", "-keystore", &ca_p12]].concat(),
        &[
            "-exportcert",
            "-rfc",
            "-alias",
            "ca",
            "-keystore",
            &ca_p12,
            "-file",
            &ca_pem_tmp,
        ],
        &[&server_key[..], &["-keystore", &server_p12]].concat(),
        &[
            "-certreq",
            "-alias",
            "server",
            "-keystore",
            &server_p12,
            "-file",
            &csr,
        ],
        &[
            "-gencert",
            "-alias",
            "ca",
            "-keystore",
            &ca_p12,
            "-infile",
            &csr,
            "-outfile",
            &server_pem,
            "-rfc",
            "-validity",
            "3650",
            "-ext",
            "SAN=ip:127.0.0.1,dns:localhost",
            "-ext",
            "ku:c=digitalSignature,keyEncipherment",
            "-ext",
            "eku=serverAuth",
        ],
        &[
            "-importcert",
            "-noprompt",
            "-alias",
            "ca",
            "-keystore",
            &server_p12,
            "-file",
            &ca_pem_tmp,
        ],
        &[
            "-importcert",
            "-noprompt",
            "-alias",
            "server",
            "-keystore",
            &server_p12,
            "-file",
            &server_pem,
        ],
    ];
    for args in steps {
        let out = Command::new("keytool")
            .args(args)
            .args(common)
            .stdin(Stdio::null())
            .output()
            .context("running keytool")?;
        ensure!(
            out.status.success(),
            "keytool {}: {}{}",
            args[0],
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    fs::rename(&tmp, &dir)?;
    Ok((ca_pem, store))
}

fn local(port: u16) -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}

fn check_version(version: &str) -> Result<()> {
    let parts: Vec<&str> = version.split('.').collect();
    ensure!(
        parts.len() == 3 && parts[0] == "3" && parts.iter().all(|p| p.parse::<u32>().is_ok()),
        "--tinkerpop {version:?}: expected a TinkerPop 3 release such as {}",
        VERSIONS.join(" or ")
    );
    if !VERSIONS.contains(&version) {
        eprintln!(
            "xtask: TinkerPop {version} is untested here (tested: {})",
            VERSIONS.join(", ")
        );
    }
    Ok(())
}

fn state_dir() -> Result<PathBuf> {
    let dir = project_root().join("target/gremlin-server3");
    fs::create_dir_all(dir.join("conf"))?;
    Ok(dir)
}

fn pid_file(state: &Path, port: u16) -> PathBuf {
    state.join(format!("server-{port}.pid"))
}

fn check_tools(need_mvn: bool) -> Result<()> {
    ensure!(
        on_path("java"),
        "`java` (a JDK 17 or newer) is not on PATH; the TinkerPop 3 server needs it"
    );
    ensure!(
        !need_mvn || on_path("mvn"),
        "`mvn` (Apache Maven 3) is not on PATH; resolving the TinkerPop 3 server needs it"
    );
    Ok(())
}

/// Makes sure `target/gremlin-server3/lib-<version>` holds the server's runtime jars.
fn ensure_jars(root: &Path, state: &Path, flavor: &Flavor) -> Result<PathBuf> {
    let version = &flavor.version;
    let pom_path = root.join(flavor.pom());
    let pom = fs::read_to_string(&pom_path).with_context(|| format!("reading {pom_path:?}"))?;
    let lib = state.join(flavor.lib_name());
    let stamp = lib.join(".resolved-from-pom.xml");
    if fs::read_to_string(&stamp).ok().as_deref() == Some(pom.as_str()) {
        check_tools(false)?;
        return Ok(lib);
    }
    check_tools(true)?;
    let started = Instant::now();
    eprintln!("xtask: resolving {} jars with Maven ...", flavor.name());
    let tmp = state.join(format!("{}.partial", flavor.lib_name()));
    let _ = fs::remove_dir_all(&tmp);
    server::resolve::copy_dependencies(
        &pom_path,
        &tmp,
        [format!("-D{}={version}", flavor.version_property())],
    )
    .with_context(|| format!("is {} a release?", flavor.name()))?;
    let _ = fs::remove_dir_all(&lib);
    fs::rename(&tmp, &lib)?;
    fs::write(&stamp, &pom)?;
    let jars = fs::read_dir(&lib)?.count() - 1;
    eprintln!(
        "xtask: resolved {jars} jars into {} in {}",
        lib.display(),
        secs(started.elapsed())
    );
    Ok(lib)
}

fn write_config(
    root: &Path,
    state: &Path,
    lib: &Path,
    flavor: &Flavor,
    auth: bool,
    port: u16,
) -> Result<PathBuf> {
    let templates = root.join("xtask/gremlin3");
    let conf = state.join("conf");
    fs::copy(templates.join("logback.xml"), conf.join("logback.xml"))?;
    let (dir, files, yaml_template): (PathBuf, &[&str], &str) = if flavor.janusgraph {
        (
            templates.join("janusgraph"),
            &["janusgraph-inmemory.properties", "load-modern.groovy"],
            "janusgraph-server.yaml.in",
        )
    } else {
        (
            templates.clone(),
            &[
                "tinkergraph-empty.properties",
                "generate-modern.groovy",
                "tinkergraph-integration.properties",
                "tinkergraph-nullable.properties",
                "generate-integration.groovy",
            ],
            "gremlin-server.yaml.in",
        )
    };
    let (graphs, script) = if flavor.integration {
        let props = conf.join("tinkergraph-integration.properties");
        let mut graphs: Vec<String> = ["graph", "classic", "modern", "crew", "grateful", "sink"]
            .iter()
            .map(|g| format!("{g}: {}", props.display()))
            .collect();
        graphs.push(format!(
            "nullable: {}",
            conf.join("tinkergraph-nullable.properties").display()
        ));
        (graphs.join(", "), "generate-integration.groovy")
    } else {
        (
            format!(
                "graph: {}",
                conf.join("tinkergraph-empty.properties").display()
            ),
            "generate-modern.groovy",
        )
    };
    for file in files {
        fs::copy(dir.join(file), conf.join(file))
            .with_context(|| format!("copying {file} into {}", conf.display()))?;
    }
    let authentication = if auth {
        let props = write_credentials(&templates, &conf, lib)?;
        format!(
            "authentication: {{ authenticator: org.apache.tinkerpop.gremlin.server.auth.SimpleAuthenticator, \
             config: {{ credentialsDb: {} }} }}",
            props.display()
        )
    } else {
        String::new()
    };
    let ssl = if flavor.tls {
        let (_, store) = tls_files()?;
        format!(
            "ssl: {{ enabled: true, keyStore: {}, keyStorePassword: {TLS_PASSWORD}, keyStoreType: PKCS12 }}",
            store.display()
        )
    } else {
        "ssl: { enabled: false }".to_string()
    };
    let yaml = fs::read_to_string(dir.join(yaml_template))?
        .replace("@PORT@", &port.to_string())
        .replace("@GRAPHS@", &graphs)
        .replace("@SCRIPT@", script)
        .replace("@CONF_DIR@", &conf.display().to_string())
        .replace("@AUTHENTICATION@", &authentication)
        .replace("ssl: { enabled: false }", &ssl);
    let path = conf.join(format!(
        "{}{}-{port}.yaml",
        flavor.lib_name().replace("lib-", "server-"),
        if flavor.integration {
            "-integration"
        } else {
            ""
        }
    ));
    fs::write(&path, yaml)?;
    Ok(path)
}

/// Writes (once per version of the jars) the credentials graph and its properties file.
fn write_credentials(templates: &Path, conf: &Path, lib: &Path) -> Result<PathBuf> {
    let data = conf.join("credentials.json");
    if !data.exists() {
        let started = Instant::now();
        let mut cmd = Command::new("java");
        cmd.arg("-cp")
            .arg(format!("{}/*", lib.display()))
            .arg(templates.join("MakeCredentials.java"))
            .args([AUTH_USER, AUTH_PASSWORD])
            .arg(&data)
            .stdin(Stdio::null());
        let out = cmd
            .output()
            .with_context(|| format!("running `{}`", show(&cmd)))?;
        if !out.status.success() || !data.exists() {
            bail!(
                "`{}` failed:\n{}{}",
                show(&cmd),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        eprintln!(
            "xtask: wrote the credentials graph {} in {}",
            data.display(),
            secs(started.elapsed())
        );
    }
    let props = conf.join("tinkergraph-credentials.properties");
    let text = fs::read_to_string(templates.join("tinkergraph-credentials.properties.in"))?
        .replace("@CREDENTIALS@", &data.display().to_string());
    fs::write(&props, text)?;
    Ok(props)
}

/// Resolves, configures and starts the server, and waits until it answers.
fn start(flavor: &Flavor, auth: bool, port: u16, detach: bool) -> Result<Child> {
    start_logged(flavor, auth, port, detach, detach)
}

/// [`start`], with the server's output in `target/gremlin-server3/server-<port>.log` when
/// `to_log` (always when detached).
fn start_logged(
    flavor: &Flavor,
    auth: bool,
    port: u16,
    detach: bool,
    to_log: bool,
) -> Result<Child> {
    let mut child = spawn(flavor, auth, port, detach, to_log)?;
    await_up(flavor, &mut child, port, detach)?;
    Ok(child)
}

/// Resolves the jars, writes the config and starts the JVM (without waiting for it).
fn spawn(flavor: &Flavor, auth: bool, port: u16, detach: bool, to_log: bool) -> Result<Child> {
    let name = flavor.name();
    let root = project_root();
    let state = state_dir()?;
    let lib = ensure_jars(&root, &state, flavor)?;
    let yaml = write_config(&root, &state, &lib, flavor, auth, port)?;
    let mut cmd = Command::new("java");
    cmd.args(JVM_HEAP)
        .args(JVM_OPENS)
        .arg(format!(
            "-Dlogback.configurationFile={}",
            state.join("conf/logback.xml").display()
        ))
        .arg("-cp")
        .arg(format!("{}/*", lib.display()))
        .arg(flavor.main_class())
        .arg(&yaml)
        .current_dir(&state)
        .stdin(Stdio::null());
    let log_path = state.join(format!("server-{port}.log"));
    if detach || to_log {
        let log = fs::File::create(&log_path)?;
        cmd.stdout(log.try_clone()?).stderr(log);
    }
    if detach {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let child = cmd.spawn().context("starting java")?;
    eprintln!(
        "xtask: starting {name} on 127.0.0.1:{port}, pid {} ...",
        child.id()
    );
    Ok(child)
}

/// Waits for a spawned server to answer its probe; on failure stops it and returns its log's
/// tail.
fn await_up(flavor: &Flavor, child: &mut Child, port: u16, detach: bool) -> Result<()> {
    let name = flavor.name();
    let state = state_dir()?;
    let log_path = state.join(format!("server-{port}.log"));
    let started = Instant::now();
    if let Err(err) = wait_until_answering(child, port, flavor.tls) {
        terminate(child);
        let text = fs::read_to_string(&log_path).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(err.context(format!("{name} did not come up\n{}", tail.join("\n"))));
    }
    eprintln!("xtask: {name} answered after {}", secs(started.elapsed()));
    if detach {
        fs::write(pid_file(&state, port), format!("{}\n", child.id()))?;
        eprintln!("xtask: log: {}", log_path.display());
    }
    Ok(())
}

/// Keeps a TinkerPop 3 server alive; stops it on drop if this process started it.
#[derive(Debug)]
pub struct Ensured3 {
    child: Option<Child>,
    port: u16,
}

impl Drop for Ensured3 {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let started = Instant::now();
            terminate(child);
            eprintln!(
                "xtask: Gremlin Server 3 on port {} stopped in {}",
                self.port,
                secs(started.elapsed())
            );
        }
    }
}

/// Makes sure a TinkerPop `version` server answers on 127.0.0.1:`port` (with the
/// [`INTEGRATION`] graphs when `integration`): reuses one that answers (the caller checks its
/// layout), else starts one, logged to `target/gremlin-server3/server-<port>.log`, that the
/// returned guard stops when dropped.
pub fn ensure_running(version: &str, integration: bool, port: u16) -> Result<Ensured3> {
    if let Ok(status) = probe(local(port), Duration::from_secs(2)) {
        eprintln!(
            "xtask: reusing the Gremlin Server that answers on {} (status {status})",
            url(port)
        );
        return Ok(Ensured3 { child: None, port });
    }
    check_version(version)?;
    let flavor = Flavor {
        janusgraph: false,
        version: version.to_string(),
        integration,
        tls: false,
    };
    let child = start_logged(&flavor, false, port, false, true)?;
    Ok(Ensured3 {
        child: Some(child),
        port,
    })
}

/// A TLS server is up once its port accepts: it binds only after its start-up script has
/// loaded the graph (the probe speaks plain WebSocket, not TLS).
fn wait_until_answering(child: &mut Child, port: u16, tls: bool) -> Result<()> {
    if tls {
        server::wait_until_probe_answers(child, port, |addr, timeout| {
            TcpStream::connect_timeout(&addr, timeout)
                .map(drop)
                .map_err(anyhow::Error::from)
        })
    } else {
        server::wait_until_probe_answers(child, port, probe)
    }
}

fn stop_detached(port: u16) -> Result<()> {
    let state = state_dir()?;
    let pid_path = pid_file(&state, port);
    let Ok(text) = fs::read_to_string(&pid_path) else {
        bail!("no detached TinkerPop 3 Gremlin Server recorded for port {port}");
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

/// A self-contained probe, independent of graphbinary-client: a WebSocket upgrade of
/// `GET /gremlin`, one masked binary frame holding a GraphBinary 1 `eval` of `g.V().count()`,
/// and the status code of the first response frame (200 with count 6, or 407 with `--auth`).
pub fn probe(addr: SocketAddr, timeout: Duration) -> Result<i32> {
    let mut s = TcpStream::connect_timeout(&addr, timeout)?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    write!(
        s,
        "GET /gremlin HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte)?;
        head.push(byte[0]);
        ensure!(head.len() < 8192, "upgrade response headers too long");
    }
    let head = String::from_utf8_lossy(&head);
    ensure!(
        head.starts_with("HTTP/1.1 101"),
        "no WebSocket upgrade: {}",
        head.lines().next().unwrap_or_default()
    );
    let payload = eval_request("g.V().count()");
    let mut frame = vec![0x82, 0x80 | 126];
    frame.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    let mask = [0x11, 0x22, 0x33, 0x44];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    s.write_all(&frame)?;
    let mut h = [0u8; 2];
    s.read_exact(&mut h)?;
    ensure!(
        h[0] & 0x0f == 2,
        "expected a binary frame, got opcode {}",
        h[0] & 0x0f
    );
    let len = match h[1] & 0x7f {
        126 => {
            let mut l = [0u8; 2];
            s.read_exact(&mut l)?;
            u16::from_be_bytes(l) as usize
        }
        127 => {
            let mut l = [0u8; 8];
            s.read_exact(&mut l)?;
            usize::try_from(u64::from_be_bytes(l))?
        }
        n => n as usize,
    };
    ensure!(
        (22..1 << 20).contains(&len),
        "response frame of {len} bytes"
    );
    let mut body = vec![0u8; len];
    s.read_exact(&mut body)?;
    ensure!(
        body[0] == 0x81,
        "response version 0x{:02x}, expected 0x81",
        body[0]
    );
    let status = i32::from_be_bytes(body[18..22].try_into()?);
    if status == 200 {
        // ... {result_data: 09 00 00000001 02 00 <Long 6>} at the end.
        let tail = &body[body.len() - 10..];
        ensure!(
            tail[..2] == [0x02, 0x00],
            "g.V().count() did not end in a Long"
        );
        let count = i64::from_be_bytes(tail[2..].try_into()?);
        ensure!(
            count == 6,
            "g.V().count() = {count}, expected the modern graph's 6"
        );
    }
    Ok(status)
}

/// `{mime}{0x81}{request id}{op "eval"}{processor ""}{args {gremlin, language}}`.
fn eval_request(gremlin: &str) -> Vec<u8> {
    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as i32).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn fq_string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&[0x03, 0x00]);
        string(out, s);
    }
    let mime = "application/vnd.graphbinary-v1.0";
    let mut out = vec![mime.len() as u8];
    out.extend_from_slice(mime.as_bytes());
    out.push(0x81);
    out.extend_from_slice(&[0x5a; 16]);
    string(&mut out, "eval");
    string(&mut out, "");
    out.extend_from_slice(&2i32.to_be_bytes());
    fq_string(&mut out, "gremlin");
    fq_string(&mut out, gremlin);
    fq_string(&mut out, "language");
    fq_string(&mut out, "gremlin-groovy");
    out
}
