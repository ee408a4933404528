//! Small helpers shared by the xtask commands: repository paths, running commands, timings.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// How long `cargo xtask fuzz` and CI's fuzz step run each fuzz target by default: 8 targets
/// of 30 s, the step's 4 minutes as when there were 4 targets of 60 s.
pub const FUZZ_SECONDS: u64 = 30;

/// The `main` of xtask and of its tool crates: `run` gets the first argument (the command) and
/// the rest, and answers `None` for a command it does not know (then `usage` is printed and the
/// process exits with 2); an error is printed (`{:#}`, with its causes) and exits with 1.
pub fn main_with<E: std::fmt::Display>(
    usage: &str,
    run: impl FnOnce(&str, &[String]) -> Option<Result<(), E>>,
) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = args.first().map_or("", String::as_str);
    match run(command, args.get(1..).unwrap_or_default()) {
        None => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
        Some(Err(err)) => {
            eprintln!("error: {err:#}");
            std::process::exit(1);
        }
        Some(Ok(())) => {}
    }
}

/// Whether `cargo +nightly fuzz` (cargo-fuzz) is available.
pub fn cargo_fuzz_installed() -> bool {
    Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The workspace root (this crate lives in `xtask/kit/`).
pub fn project_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .ancestors()
        .nth(2)
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}

/// `cargo run -q --bin PACKAGE -- ARGS` from the root: how xtask runs the tools that link
/// graphbinary-client, so that xtask itself does not (each tool's binary is named after its
/// package). `--bin` rather than `-p`: the features are then resolved over the whole
/// workspace, the same for every tool, so that the tools share one build of
/// graphbinary-client and its dependencies (with `-p` each resolved its own: `cargo xtask ci`
/// built the client for chaos and again for conformance). Returns the tool's exit status.
pub fn tool_status<S: AsRef<std::ffi::OsStr>>(
    package: &str,
    args: &[S],
) -> Result<std::process::ExitStatus> {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(project_root())
        .args(["run", "-q", "--bin", package, "--"])
        .args(args);
    c.status()
        .with_context(|| format!("could not start `{}`", show(&c)))
}

/// [`tool_status`], failing (naming the tool) unless it succeeds.
pub fn run_tool<S: AsRef<std::ffi::OsStr>>(package: &str, args: &[S]) -> Result<()> {
    let status = tool_status(package, args)?;
    if !status.success() {
        bail!("{package} failed ({status})");
    }
    Ok(())
}

/// The shared directory beside the repository: `GRAPHBINARY_SHARED`, else `<root>/../shared`.
/// It holds TinkerPop's vectors, its 4.0.0-beta.3 Maven artifacts (`maven/`), the gremlin-go v4
/// module source and the data files of the test suite.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("GRAPHBINARY_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => project_root().join("../shared"),
    }
}

/// The `file://` URL of the Maven repository (file layout) in [`shared_dir`] that serves
/// TinkerPop 4.0.0-beta.3, which Maven Central does not; `None` when it is not there.
pub fn shared_maven_repo() -> Option<(PathBuf, String)> {
    let dir = shared_dir().join("maven");
    let dir = dir.canonicalize().ok()?;
    dir.join("org/apache/tinkerpop")
        .is_dir()
        .then(|| (dir.clone(), format!("file://{}", dir.display())))
}

/// Runs `cmd` with inherited stdio and fails unless it exits with status 0.
pub fn run(cmd: &mut Command) -> Result<()> {
    let shown = show(cmd);
    let status = cmd
        .status()
        .with_context(|| format!("could not start `{shown}`"))?;
    if !status.success() {
        bail!("`{shown}` failed ({status})");
    }
    Ok(())
}

/// `cargo build --release` of the `graphbinary` command line tool (feature `cli`), shown to
/// `note` before it runs; returns the binary's path.
pub fn build_cli(quiet: bool, note: &mut dyn FnMut(&Command)) -> Result<PathBuf> {
    let root = project_root();
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build.current_dir(&root).args(["build", "--release"]);
    if quiet {
        build.arg("-q");
    }
    build.args([
        "-p",
        "graphbinary-client",
        "--features",
        "cli",
        "--bin",
        "graphbinary",
    ]);
    note(&build);
    run(&mut build)?;
    Ok(root.join("target/release/graphbinary"))
}

/// A command line as a human would type it, for messages.
pub fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        s.push(' ');
        s.push_str(&arg.to_string_lossy());
    }
    s
}

/// `1.2s` or `2m03s`.
pub fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.1}s")
    } else {
        format!("{}m{:02}s", d.as_secs() / 60, d.as_secs() % 60)
    }
}

/// Whether an executable named `name` is on `PATH`.
pub fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| {
            let candidate = dir.join(name);
            candidate.is_file()
                && std::fs::metadata(&candidate)
                    .map(|m| {
                        use std::os::unix::fs::PermissionsExt;
                        m.permissions().mode() & 0o111 != 0
                    })
                    .unwrap_or(false)
        })
    })
}

/// Builds `name`, one of the tools in `graphbinary-client/benches/` (`bench_client`,
/// `write_corpus`, `failover`, ...: `harness = false`, `bench = false` targets), in the release
/// profile or the dev one, and returns its executable, copied to `target/bench-tools/<name>`
/// (`target/bench-tools/debug/<name>` for dev): a path free of cargo's hash, so that the
/// commands BENCHMARKS.md records read the same from run to run. `record` sees the cargo
/// command before it runs.
pub fn build_tool(name: &str, release: bool, record: &mut dyn FnMut(&Command)) -> Result<PathBuf> {
    build_tool_as(name, release, &["-p", "graphbinary-client"], record)
}

/// [`build_tool`] with `selection` instead of `-p graphbinary-client`: `cargo xtask ci` builds
/// the failover driver with `--workspace` and the features of its test step, whose build it
/// then shares.
pub fn build_tool_as(
    name: &str,
    release: bool,
    selection: &[&str],
    record: &mut dyn FnMut(&Command),
) -> Result<PathBuf> {
    let root = project_root();
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(&root).arg("build");
    if release {
        c.arg("--release");
    }
    c.args(selection).args(["--bench", name]);
    record(&c);
    let shown = show(&c);
    c.arg("--message-format=json-render-diagnostics")
        .stdout(std::process::Stdio::piped());
    let out = c
        .spawn()
        .and_then(|child| child.wait_with_output())
        .with_context(|| format!("could not start `{shown}`"))?;
    if !out.status.success() {
        bail!("`{shown}` failed ({})", out.status);
    }
    let built = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .with_context(|| format!("`{shown}` named no executable of {name}"))?;
    let dir = root.join(if release {
        "target/bench-tools"
    } else {
        "target/bench-tools/debug"
    });
    std::fs::create_dir_all(&dir)?;
    // Copied beside, then renamed over the old one: never a half-written executable.
    let (tmp, dest) = (dir.join(format!("{name}.tmp")), dir.join(name));
    std::fs::copy(&built, &tmp).with_context(|| format!("copying {}", built.display()))?;
    std::fs::rename(&tmp, &dest)?;
    Ok(dest)
}
