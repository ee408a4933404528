//! The server's config, rendered from the templates of its kind (`xtask/gremlin/` for
//! TinkerPop 4, `xtask/gremlin3/` for TinkerPop 3, `xtask/gremlin3/janusgraph/` for JanusGraph)
//! into the `conf/` directory of its state directory, with the files the config names beside it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::{
    Backend, Kind, Server, AUTH_PASSWORD, AUTH_USER, COSMOS_KEY, COSMOS_USER, INTEGRATION,
    TX_DATASET,
};
use crate::util::{secs, show};

/// Writes the config of `server` on `port` (and the files it names) into `state/conf/`;
/// returns the YAML file to start the server with. `lib` holds the server's jars (the
/// credentials graph of `--auth` is written with them).
pub fn write(server: &Server, state: &Path, lib: &Path, port: u16) -> Result<PathBuf> {
    let root = crate::util::project_root();
    let conf = state.join("conf");
    let integration = server.dataset == INTEGRATION;
    let dir = |d: &str| root.join("xtask").join(d);
    // (templates, files copied from them into conf/, YAML template, placeholders, YAML name)
    let (templates, files, template, vars, name): (PathBuf, &[&str], _, Vec<(&str, String)>, _) =
        match &server.kind {
            Kind::Tp4 => {
                let (template, files): (&str, &[&str]) = if integration {
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
                } else if server.dataset == TX_DATASET {
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
                let mut vars = vec![
                    ("@HOST@", "127.0.0.1".to_string()),
                    ("@DATASET@", server.dataset.clone()),
                ];
                if server.tls {
                    vars.push(("ssl: { enabled: false }", ssl_block()?));
                }
                let name = format!("gremlin-server-{}-{port}.yaml", server.dataset);
                (dir("gremlin"), files, template, vars, name)
            }
            Kind::Tp3(version) | Kind::JanusGraph(version) => {
                let janusgraph = matches!(server.kind, Kind::JanusGraph(_));
                fs::copy(dir("gremlin3/logback.xml"), conf.join("logback.xml"))?;
                let (templates, files, template): (_, &[&str], _) = if janusgraph {
                    (
                        dir("gremlin3/janusgraph"),
                        match server.backend {
                            Backend::InMemory => &[
                                "janusgraph-inmemory.properties",
                                "load-modern.groovy",
                                "bind-g.groovy",
                            ],
                            Backend::BerkeleyJe => &["berkeleyje-schema.groovy"],
                        },
                        "janusgraph-server.yaml.in",
                    )
                } else {
                    (
                        dir("gremlin3"),
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
                let name = format!(
                    "server-{}{version}{}{}-{port}.yaml",
                    if janusgraph { "janusgraph-" } else { "" },
                    if integration { "-integration" } else { "" },
                    if server.backend == Backend::BerkeleyJe {
                        "-berkeleyje"
                    } else {
                        ""
                    }
                );
                let mut vars = tp3_vars(server, &conf, lib)?;
                if janusgraph {
                    vars.extend(janusgraph_vars(server, &conf, port)?);
                }
                (templates, files, template, vars, name)
            }
        };
    for file in files {
        fs::copy(templates.join(file), conf.join(file))
            .with_context(|| format!("copying {file} into {}", conf.display()))?;
    }
    let mut yaml = fs::read_to_string(templates.join(template))?
        .replace("@PORT@", &port.to_string())
        .replace("@CONF_DIR@", &conf.display().to_string());
    for (placeholder, value) in vars {
        yaml = yaml.replace(placeholder, &value);
    }
    let path = conf.join(name);
    fs::write(&path, yaml)?;
    Ok(path)
}

/// The placeholders of the TinkerPop 3 templates: the graphs and their start-up script, the
/// authenticator of `--auth` and the TLS block of `--tls`.
fn tp3_vars(server: &Server, conf: &Path, lib: &Path) -> Result<Vec<(&'static str, String)>> {
    let (graphs, script) = if server.dataset == INTEGRATION {
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
    let authentication = if server.auth {
        let props = write_credentials(conf, lib)?;
        format!(
            "authentication: {{ authenticator: org.apache.tinkerpop.gremlin.server.auth.SimpleAuthenticator, \
             config: {{ credentialsDb: {} }} }}",
            props.display()
        )
    } else {
        String::new()
    };
    let ssl = if server.tls {
        ssl_block()?
    } else {
        "ssl: { enabled: false }".to_string()
    };
    // 3.5 and 3.6 keep their serializers in gremlin-driver's `driver.ser`, the GraphSON ones
    // named `...V3d0`, `...V2d0` (and TinkerGraph's registries `TinkerIoRegistryV3d0`, ...); 3.7 moved them to gremlin-util's `util.ser`, renamed them
    // `...V3`, `...V2`, and added GraphSONUntypedMessageSerializerV3.
    let pkg = serializer_package(&server.kind);
    let untyped_v3 = if pkg == SER_3_7 {
        format!("  - {{ className: {SER_3_7}.GraphSONUntypedMessageSerializerV3 }}\n")
    } else {
        String::new()
    };
    Ok(vec![
        ("@UNTYPED_V3@", untyped_v3),
        ("@SER@", pkg.to_string()),
        ("@D0@", if pkg == SER_3_6 { "d0" } else { "" }.to_string()),
        ("@GRAPHS@", graphs),
        ("@SCRIPT@", script.to_string()),
        ("@AUTHENTICATION@", authentication),
        ("ssl: { enabled: false }", ssl),
    ])
}

/// The `ssl` block of a `--tls` server: the test CA's server certificate.
fn ssl_block() -> Result<String> {
    let (_, store) = super::tls::tls_files()?;
    Ok(format!(
        "ssl: {{ enabled: true, keyStore: {}, keyStorePassword: {}, keyStoreType: PKCS12 }}",
        store.display(),
        super::tls::TLS_PASSWORD
    ))
}

/// The serializers' package from TinkerPop 3.7 on.
const SER_3_7: &str = "org.apache.tinkerpop.gremlin.util.ser";
/// Their package before 3.7.
const SER_3_6: &str = "org.apache.tinkerpop.gremlin.driver.ser";

/// The Java package of the message serializers of a server of `kind`.
fn serializer_package(kind: &Kind) -> &'static str {
    match kind {
        Kind::Tp3(v) if v.starts_with("3.5.") || v.starts_with("3.6.") => SER_3_6,
        _ => SER_3_7,
    }
}

/// The placeholders of the JanusGraph template: the graph's properties file and its start-up
/// script. On Cassandra (`cargo xtask cluster`) a properties file of its own naming the node and
/// keyspace, and a script that only binds `g` (the shared graph is never loaded twice);
/// otherwise by backend: in memory with the modern graph, or BerkeleyJE, whose properties are
/// rendered per port, naming the data directories of [`super::berkeleyje_data_dir`].
fn janusgraph_vars(server: &Server, conf: &Path, port: u16) -> Result<Vec<(&'static str, String)>> {
    if let Some(cql) = &server.cql {
        let props = conf.join(format!("janusgraph-cql-{port}.properties"));
        fs::write(
            &props,
            format!(
                "# Written by `cargo xtask cluster`: JanusGraph on the Cassandra node of 127.0.0.1:{p}.\n\
                 gremlin.graph=org.janusgraph.core.JanusGraphFactory\n\
                 storage.backend=cql\n\
                 storage.hostname=127.0.0.1\n\
                 storage.port={p}\n\
                 storage.cql.keyspace={ks}\n\
                 storage.cql.local-datacenter=datacenter1\n\
                 # Off, so that every server reads the others' writes at once.\n\
                 cache.db-cache=false\n\
                 # Creating a keyspace's tables on 2 busy cores can take longer than the default 12 s.\n\
                 storage.cql.request-timeout=60000\n\
                 storage.connection-timeout=60000\n",
                p = cql.port,
                ks = cql.keyspace
            ),
        )?;
        return Ok(vec![
            ("@JG_PROPERTIES@", props.display().to_string()),
            (
                "@JG_SCRIPT@",
                conf.join("bind-g.groovy").display().to_string(),
            ),
        ]);
    }
    let (props, script) = match server.backend {
        Backend::InMemory => (
            conf.join("janusgraph-inmemory.properties"),
            conf.join("load-modern.groovy"),
        ),
        Backend::BerkeleyJe => {
            let data = super::berkeleyje_data_dir(port)?;
            let props = conf.join(format!("janusgraph-berkeleyje-{port}.properties"));
            let template = crate::util::project_root()
                .join("xtask/gremlin3/janusgraph/janusgraph-berkeleyje.properties.in");
            let text = fs::read_to_string(&template)?
                .replace("@STORAGE_DIR@", &data.join("storage").display().to_string())
                .replace("@INDEX_DIR@", &data.join("index").display().to_string());
            fs::write(&props, text)?;
            (props, conf.join("berkeleyje-schema.groovy"))
        }
    };
    Ok(vec![
        ("@JG_PROPERTIES@", props.display().to_string()),
        ("@JG_SCRIPT@", script.display().to_string()),
    ])
}

/// Writes (once per version of the jars) the credentials graph of `--auth` (users
/// [`AUTH_USER`] and [`COSMOS_USER`]) and its properties file.
fn write_credentials(conf: &Path, lib: &Path) -> Result<PathBuf> {
    let templates = crate::util::project_root().join("xtask/gremlin3");
    // Named for its users: a file written before the Cosmos-shaped user was added is not reused.
    let data = conf.join("credentials-2.json");
    if !data.exists() {
        let started = Instant::now();
        let mut cmd = Command::new("java");
        cmd.arg("-cp")
            .arg(format!("{}/*", lib.display()))
            .arg(templates.join("MakeCredentials.java"))
            .args([AUTH_USER, AUTH_PASSWORD, COSMOS_USER, COSMOS_KEY])
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

/// The files Read.feature's `g.io("data/tinkerpop-modern.*").read()` open, relative to the
/// TinkerPop 4 server's working directory (its state directory): copied from the shared
/// folder's `tinkerpop-data/` on every start, never kept in the repository.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_version_names_its_own_serializer_classes() {
        assert_eq!(serializer_package(&Kind::Tp3("3.6.8".into())), SER_3_6);
        assert_eq!(serializer_package(&Kind::Tp3("3.5.7".into())), SER_3_6);
        for v in ["3.7.3", "3.7.5", "3.8.0", "3.8.1"] {
            assert_eq!(serializer_package(&Kind::Tp3(v.into())), SER_3_7, "{v}");
        }
        assert_eq!(
            serializer_package(&Kind::JanusGraph("1.1.0".into())),
            SER_3_7
        );
    }
}
