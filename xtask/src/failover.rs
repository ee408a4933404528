//! `cargo xtask failover`: the several-hosts test against three real Gremlin Servers.
//!
//! Starts three servers (modern dataset) on 127.0.0.1, runs the failover driver of
//! graphbinary-client (`benches/failover.rs`) against them, and stops (SIGTERM), kills
//! (SIGKILL) and restarts the one it asks for (`STOP <port>` / `KILL <port>` / `START <port>`
//! on its stdout, answered with `stopped <port>` / `started <port>` (or `failed <port>`) on its
//! stdin; a restart runs on a thread of its own, so kills and restarts overlap). The driver
//! keeps 256 idempotent reads in flight over the three hosts while a host is stopped or killed
//! every 10 s and restarted at once, and fails if a read issued after every failure so far was
//! detected fails or if a restarted server gets no requests again; its report lines (figures
//! included) are echoed. All servers this command started are stopped at the end, whatever happened.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::server;
use crate::util::{project_root, secs};

const HELP: &str = "usage: cargo xtask failover [--ports A,B,C] [--kill | --mixed] [--cycles N] [--every S]

Starts three Gremlin Servers (modern) on 127.0.0.1 (default ports 8195,8196,8197), keeps 256
idempotent reads in flight through one client over the three, stops the second and the third
host in turn during the run, one every 10 s, each restarted at once in the background (a stop
may fall while the host stopped before is still restarting; a host is stopped again only once
it serves again), and checks that every read issued while all failures so far were detected
succeeds and that each restarted server gets requests again. Prints the figures (reads, failures, retries, time to detect,
latency percentiles).

  --kill      stop the servers with SIGKILL (a crash) instead of SIGTERM (a clean shutdown)
  --mixed     SIGTERM for the first stop, SIGKILL for the others
  --cycles N  stops and restarts (default 3)
  --every S   seconds between two stops (default 10; shorter than a restart, stops overlap
              restarts)";

/// `cargo xtask failover ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut ports = vec![8195u16, 8196, 8197];
    let mut mode = Stop::Term;
    let mut cycles = 3usize;
    let mut every = 10u64;
    let mut a = graphbinary_kit::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--ports" => {
                ports = a
                    .value(arg)?
                    .split(',')
                    .map(|p| p.parse().context("--ports needs three port numbers"))
                    .collect::<Result<_>>()?;
            }
            "--kill" => mode = Stop::Kill,
            "--mixed" => mode = Stop::Mixed,
            "--cycles" => cycles = a.parse(arg)?,
            "--every" => every = a.parse(arg)?,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    if ports.len() != 3 {
        bail!("--ports needs exactly three ports");
    }
    run(&ports, mode, cycles, every, &["-p", "graphbinary-client"])
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

/// Runs the failover test on `ports` (three of them), `cycles` stops and restarts, one every
/// `every` seconds; the driver is built with `selection` (`-p graphbinary-client`, or CI's
/// `--workspace --features ...`).
pub fn run(ports: &[u16], mode: Stop, cycles: usize, every: u64, selection: &[&str]) -> Result<()> {
    // Started together (their JVMs awaited in parallel); a port already taken is refused: the
    // test must be able to stop what answers there.
    let servers: Vec<_> = ports
        .iter()
        .map(|&p| (server::Server::tp4("modern"), p))
        .collect();
    let up = server::start_all(&servers, false).context(
        "the failover test must be able to stop its servers: stop what answers on its ports or \
         choose other --ports",
    )?;
    let guards: HashMap<u16, server::Guard> = ports.iter().copied().zip(up).collect();
    let list = ports
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let driver = crate::util::build_tool_as("failover", false, selection, &mut |_| {})?;
    let started = Instant::now();
    let mut child = Command::new(driver)
        .current_dir(project_root())
        .arg(&list)
        .arg(cycles.to_string())
        .arg(mode.arg())
        .arg(every.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the failover driver")?;
    // The driver's asks: a stop or kill is done at once and answered `stopped <port>`; a
    // restart runs on a thread of its own and is answered `started <port>` when the server
    // answers, so that the next kill (every 10 s) may fall while a restart is still going on.
    let stdin = Arc::new(Mutex::new(child.stdin.take().context("piped stdin")?));
    let stdout = child.stdout.take().context("piped stdout")?;
    let guards = Arc::new(Mutex::new(guards));
    let mut restarts = Vec::new();
    let answer = |stdin: &Mutex<std::process::ChildStdin>, line: String| -> Result<()> {
        let mut stdin = stdin.lock().expect("stdin lock");
        writeln!(stdin, "{line}")?;
        stdin.flush()?;
        Ok(())
    };
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        let stop = line
            .strip_prefix("STOP ")
            .map(|p| (p, false))
            .or_else(|| line.strip_prefix("KILL ").map(|p| (p, true)));
        if let Some((p, kill)) = stop {
            let p: u16 = p.trim().parse()?;
            let t = Instant::now();
            let guard = guards.lock().expect("guards lock").remove(&p);
            match guard {
                Some(g) if kill => g.kill(),
                other => drop(other),
            }
            let how = if kill { "killed (SIGKILL)" } else { "stopped" };
            eprintln!(
                "xtask: {how} the server on port {p} in {}",
                secs(t.elapsed())
            );
            answer(&stdin, format!("stopped {p}"))?;
        } else if let Some(p) = line.strip_prefix("START ") {
            let p: u16 = p.trim().parse()?;
            let (guards, stdin) = (guards.clone(), stdin.clone());
            restarts.push(std::thread::spawn(move || -> Result<()> {
                let t = Instant::now();
                let outcome = server::ensure_running("modern", p);
                let reply = match outcome {
                    Ok(g) => {
                        guards.lock().expect("guards lock").insert(p, g);
                        eprintln!(
                            "xtask: restarted the server on port {p} in {}",
                            secs(t.elapsed())
                        );
                        format!("started {p}")
                    }
                    Err(e) => {
                        eprintln!("xtask: restarting the server on port {p} failed: {e:#}");
                        format!("failed {p}")
                    }
                };
                answer(&stdin, reply)
            }));
        } else {
            println!("{line}");
        }
    }
    for r in restarts {
        r.join()
            .map_err(|_| anyhow::anyhow!("a restart thread panicked"))??;
    }
    let status = child.wait()?;
    eprintln!("xtask: failover run took {}", secs(started.elapsed()));
    // The restart threads are done: the guards are ours alone, stopped together.
    if let Ok(guards) = Arc::try_unwrap(guards) {
        let guards = guards.into_inner().unwrap_or_else(|e| e.into_inner());
        server::stop_all(guards.into_values().collect());
    }
    if !status.success() {
        bail!("the failover run failed ({status})");
    }
    Ok(())
}
