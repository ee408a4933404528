//! Finding the tools (java 17+, mvn) and the servers' jars.
//!
//! The jars are resolved by Maven from a pom (`xtask/gremlin/pom.xml` for TinkerPop 4,
//! `xtask/gremlin3/pom.xml` or `xtask/gremlin3/janusgraph/pom.xml` with the version as a
//! property) and copied into a `lib` directory of the server's state directory, next to a stamp
//! holding the pom they came from; later runs reuse them while the pom is unchanged.
//!
//! Maven resolves through its usual repositories, the local one (`~/.m2`) first, plus one more:
//! the Maven repository in file layout at `../shared/maven` (or `$GRAPHBINARY_SHARED/maven`),
//! which holds TinkerPop 4.0.0-beta.3's own artifacts until Maven Central serves 4.0. Their
//! third-party dependencies come from Maven Central. When neither has TinkerPop 4.0.0-beta.3 the
//! error names both places, and the alternative: `GREMLIN_SERVER_HOME` pointing at an unpacked
//! Gremlin Server 4.0.0-beta.3 distribution, whose `lib/` is used as it is.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};

use crate::util::{on_path, secs, shared_dir, shared_maven_repo, show};

/// The TinkerPop release we run.
pub const TINKERPOP_VERSION: &str = "4.0.0-beta.3";
/// maven-dependency-plugin, pinned so Maven does not pick an old default.
pub const DEPENDENCY_PLUGIN: &str = "org.apache.maven.plugins:maven-dependency-plugin:3.9.0";

/// Checks that `java` (17 or newer) and, if `need_mvn`, `mvn` are on `PATH`.
pub fn check_tools(need_mvn: bool) -> Result<()> {
    let mut missing = Vec::new();
    if !on_path("java") {
        missing.push("java (a JDK 17 or newer, e.g. Debian's openjdk-17-jdk-headless)");
    }
    if need_mvn && !on_path("mvn") {
        missing.push("mvn (Apache Maven 3, e.g. Debian's maven)");
    }
    if !missing.is_empty() {
        bail!(
            "not found on PATH: {}; a local Gremlin Server needs them",
            missing.join(" and ")
        );
    }
    let major = java_major_version()?;
    ensure!(
        major >= 17,
        "`java` on PATH is version {major}; Gremlin Server needs 17 or newer"
    );
    Ok(())
}

fn java_major_version() -> Result<u32> {
    let out = Command::new("java")
        .arg("-version")
        .output()
        .context("running `java -version`")?;
    // `java -version` prints e.g. `openjdk version "17.0.15" 2025-04-15` (or "1.8.0_392").
    let text = String::from_utf8_lossy(&out.stderr);
    let quoted = text
        .split('"')
        .nth(1)
        .with_context(|| format!("cannot read the version in `java -version`: {text}"))?;
    let mut parts = quoted.split(['.', '-', '+', '_']);
    let first: u32 = parts.next().unwrap_or_default().parse().unwrap_or(0);
    Ok(if first == 1 {
        parts.next().and_then(|p| p.parse().ok()).unwrap_or(0)
    } else {
        first
    })
}

/// Makes sure `lib` holds the runtime jars of `pom_path` (Maven resolves them with `extra`
/// arguments; `name` says what for in messages); returns `lib`. The jars are copied into
/// `<lib>.partial` first and renamed, next to a stamp holding the pom they came from; later
/// calls reuse them while the pom is unchanged. A lock file beside `lib` makes a second caller
/// (another thread or process: `cargo xtask ci` resolves every server's jars in the background,
/// [`crate::server::Server::resolve_jars`]) wait for the first and reuse its jars.
pub fn ensure_jars(
    pom_path: &Path,
    lib: &Path,
    name: &str,
    extra: impl IntoIterator<Item = String>,
) -> Result<PathBuf> {
    let pom = fs::read_to_string(pom_path).with_context(|| format!("reading {pom_path:?}"))?;
    let file_name = lib.file_name().unwrap_or_default().to_string_lossy();
    if let Some(parent) = lib.parent() {
        fs::create_dir_all(parent)?;
    }
    let lock_path = lib.with_file_name(format!("{file_name}.lock"));
    let lock = fs::File::create(&lock_path).with_context(|| format!("{lock_path:?}"))?;
    // Released when `lock` is dropped, on return.
    lock.lock()
        .with_context(|| format!("locking {lock_path:?}"))?;
    let stamp = lib.join(".resolved-from-pom.xml");
    if fs::read_to_string(&stamp).ok().as_deref() == Some(pom.as_str()) {
        check_tools(false)?;
        return Ok(lib.to_path_buf());
    }
    check_tools(true)?;
    let started = Instant::now();
    eprintln!("xtask: resolving {name} jars with Maven ...");
    let tmp = lib.with_file_name(format!("{file_name}.partial"));
    let _ = fs::remove_dir_all(&tmp);
    copy_dependencies(pom_path, &tmp, extra)?;
    let _ = fs::remove_dir_all(lib);
    fs::rename(&tmp, lib)?;
    fs::write(&stamp, &pom)?;
    let jars = fs::read_dir(lib)?.count() - 1;
    eprintln!(
        "xtask: resolved {jars} jars into {} in {}",
        lib.display(),
        secs(started.elapsed())
    );
    Ok(lib.to_path_buf())
}

/// The jars of Gremlin Server 4.0.0-beta.3: `GREMLIN_SERVER_HOME`'s `lib/` when that is set,
/// else [`ensure_jars`] of `xtask/gremlin/pom.xml` into `state_dir/lib`, TinkerPop's own
/// artifacts from the shared repository.
pub fn ensure_jars4(state_dir: &Path) -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("GREMLIN_SERVER_HOME") {
        check_tools(false)?;
        let lib = PathBuf::from(home).join("lib");
        ensure!(
            lib.is_dir(),
            "GREMLIN_SERVER_HOME has no lib/ directory: {}",
            lib.display()
        );
        return Ok(lib);
    }
    let name = format!("Gremlin Server {TINKERPOP_VERSION}");
    let pom = crate::util::project_root().join("xtask/gremlin/pom.xml");
    ensure_jars(&pom, &state_dir.join("lib"), &name, repo_url_arg()).map_err(|err| {
        if err.to_string().contains("org.apache.tinkerpop") {
            anyhow::anyhow!("{}\n\n{err}", not_found_message())
        } else {
            err
        }
    })
}

/// What to say when no repository Maven reaches has TinkerPop 4.0.0-beta.3.
fn not_found_message() -> String {
    let shared = shared_dir().join("maven");
    let shared_state = match shared_maven_repo() {
        Some((dir, _)) => format!("{} (present, but without these artifacts)", dir.display()),
        None => format!("{} (not found)", shared.display()),
    };
    format!(
        "Maven cannot resolve org.apache.tinkerpop:gremlin-server:{TINKERPOP_VERSION}. It looked \
         in the remote repositories it reaches (Maven Central serves TinkerPop only up to 3.x) \
         and the local repository, and in the shared TinkerPop 4 repository at {shared_state}. \
         Put the shared folder (with maven/org/apache/tinkerpop/...) beside the repository root, \
         or set GRAPHBINARY_SHARED to it, or set GREMLIN_SERVER_HOME to an unpacked Gremlin \
         Server {TINKERPOP_VERSION} distribution."
    )
}

/// `-Dtinkerpop.repo.url=...` for a pom that declares the shared TinkerPop 4 repository
/// (`xtask/gremlin/pom.xml`, the Java peer's): its absolute URL, so the pom's relative default
/// never matters. `None` when the shared repository is missing (Maven then reports what it
/// could not find, and [`not_found_message`] says where to put it).
pub fn repo_url_arg() -> Option<String> {
    shared_maven_repo().map(|(_, url)| format!("-Dtinkerpop.repo.url={url}"))
}

/// Copies the runtime dependencies of `pom` into `out_dir` with maven-dependency-plugin, with
/// `extra` arguments for Maven (properties).
fn copy_dependencies(
    pom: &Path,
    out_dir: &Path,
    extra: impl IntoIterator<Item = String>,
) -> Result<()> {
    let mut cmd = Command::new("mvn");
    cmd.args(["-B", "-q", "-f"])
        .arg(pom)
        .args(extra)
        .arg(format!("{DEPENDENCY_PLUGIN}:copy-dependencies"))
        .arg(format!("-DoutputDirectory={}", out_dir.display()))
        .arg("-DincludeScope=runtime")
        .stdin(Stdio::null());
    let out = cmd
        .output()
        .with_context(|| format!("running `{}`", show(&cmd)))?;
    if !out.status.success() {
        bail!(
            "`{}` failed:\n{}{}",
            show(&cmd),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}
