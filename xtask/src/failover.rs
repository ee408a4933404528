//! `cargo xtask failover`: the several-hosts test against three real Gremlin Servers.
//!
//! Starts three servers (modern dataset) on 127.0.0.1, runs the failover driver of
//! graphbinary-client (`benches/failover.rs`) against them, and stops (SIGTERM), kills
//! (SIGKILL) and restarts the one it asks for (`STOP <port>` / `KILL <port>` / `START <port>`
//! on its stdout, answered with `stopped` / `started` on its stdin). The driver keeps 256
//! idempotent reads in flight over the three hosts while one host after the other is stopped
//! and restarted, one every 10 s, and fails if a read issued after the failure was detected
//! fails or if a restarted server gets no requests again; its report lines (figures included)
//! are echoed. All servers this command started are stopped at the end, whatever happened.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::server;
use crate::util::{project_root, secs};

const HELP: &str = "usage: cargo xtask failover [--ports A,B,C] [--kill | --mixed] [--cycles N]

Starts three Gremlin Servers (modern) on 127.0.0.1 (default ports 8195,8196,8197), keeps 256
idempotent reads in flight through one client over the three, stops one host after the other
during the run (a stop every 10 s, or as soon as the one before is back) and restarts it, and
checks that every read issued after a failure was detected succeeds and that each restarted
server gets requests again. Prints the figures (reads, failures, retries, time to detect,
latency percentiles).

  --kill      stop the servers with SIGKILL (a crash) instead of SIGTERM (a clean shutdown)
  --mixed     SIGTERM for the first stop, SIGKILL for the others
  --cycles N  stops and restarts (default 3)";

/// `cargo xtask failover ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut ports = vec![8195u16, 8196, 8197];
    let mut mode = Stop::Term;
    let mut cycles = 3usize;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--ports" => {
                ports = it
                    .next()
                    .context("--ports needs A,B,C")?
                    .split(',')
                    .map(|p| p.parse().context("--ports needs three port numbers"))
                    .collect::<Result<_>>()?;
            }
            "--kill" => mode = Stop::Kill,
            "--mixed" => mode = Stop::Mixed,
            "--cycles" => {
                cycles = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .context("--cycles needs a number")?;
            }
            "-h" | "--help" => {
                println!("{HELP}");
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n\n{HELP}"),
        }
    }
    if ports.len() != 3 {
        bail!("--ports needs exactly three ports");
    }
    run(&ports, mode, cycles)
}

/// How the driver's hosts are stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGTERM (a clean shutdown).
    Term,
    /// SIGKILL (a crash).
    Kill,
    /// SIGTERM first, then SIGKILL.
    Mixed,
}

impl Stop {
    fn arg(self) -> &'static str {
        match self {
            Stop::Term => "term",
            Stop::Kill => "kill",
            Stop::Mixed => "mixed",
        }
    }
}

/// The ports `cargo xtask ci` runs the failover test on: env `GREMLIN_FAILOVER_PORTS`
/// (`A,B,C`), else 8195, 8196, 8197.
pub fn ci_ports() -> Result<Vec<u16>> {
    let Ok(list) = std::env::var("GREMLIN_FAILOVER_PORTS") else {
        return Ok(vec![8195, 8196, 8197]);
    };
    let ports: Vec<u16> = list
        .split(',')
        .map(|p| {
            p.trim()
                .parse()
                .context("GREMLIN_FAILOVER_PORTS needs A,B,C")
        })
        .collect::<Result<_>>()?;
    if ports.len() != 3 {
        bail!("GREMLIN_FAILOVER_PORTS needs exactly three ports");
    }
    Ok(ports)
}

/// Runs the failover test on `ports` (three of them), `cycles` stops and restarts.
pub fn run(ports: &[u16], mode: Stop, cycles: usize) -> Result<()> {
    let mut guards: HashMap<u16, server::Guard> = HashMap::new();
    for &p in ports {
        let g = server::ensure_running("modern", p)?;
        if g.reused() {
            bail!(
                "a Gremlin Server already answers on port {p}; the failover test must be able to \
                 stop it: stop it or choose other --ports"
            );
        }
        guards.insert(p, g);
    }
    let list = ports
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let driver = crate::bench::build_tool("failover", false, &mut |_| {})?;
    let started = Instant::now();
    let mut child = Command::new(driver)
        .current_dir(project_root())
        .arg(&list)
        .arg(cycles.to_string())
        .arg(mode.arg())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the failover driver")?;
    let mut stdin = child.stdin.take().context("piped stdin")?;
    let stdout = child.stdout.take().context("piped stdout")?;
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        let stop = line
            .strip_prefix("STOP ")
            .map(|p| (p, false))
            .or_else(|| line.strip_prefix("KILL ").map(|p| (p, true)));
        if let Some((p, kill)) = stop {
            let p: u16 = p.trim().parse()?;
            let t = Instant::now();
            match guards.remove(&p) {
                Some(g) if kill => g.kill(),
                other => drop(other),
            }
            let how = if kill { "killed (SIGKILL)" } else { "stopped" };
            eprintln!(
                "xtask: {how} the server on port {p} in {}",
                secs(t.elapsed())
            );
            writeln!(stdin, "stopped")?;
        } else if let Some(p) = line.strip_prefix("START ") {
            let p: u16 = p.trim().parse()?;
            let t = Instant::now();
            guards.insert(p, server::ensure_running("modern", p)?);
            eprintln!(
                "xtask: restarted the server on port {p} in {}",
                secs(t.elapsed())
            );
            writeln!(stdin, "started")?;
        } else {
            println!("{line}");
        }
    }
    let status = child.wait()?;
    eprintln!("xtask: failover run took {}", secs(started.elapsed()));
    drop(guards);
    if !status.success() {
        bail!("the failover run failed ({status})");
    }
    Ok(())
}
