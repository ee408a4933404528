//! Failover run against three real Gremlin Servers, driven by `cargo xtask failover` (which
//! starts the servers, and stops and restarts one when this program asks on stdout).
//!
//! Protocol: this program prints `STOP <port>` (SIGTERM), `KILL <port>` (SIGKILL) and
//! `START <port>` lines on stdout, and the driver answers `stopped` / `started` on stdin;
//! everything else it prints is a report. Arguments: the three ports, the number of cycles
//! (default 3), and how hosts are stopped: `term`, `kill` or `mixed` (the first cycle
//! SIGTERM, the others SIGKILL; default `term`).
//!
//! 256 tasks send idempotent reads (`g.V().count()`, marked
//! [`idempotent`](graphbinary_client::client::RequestBuilder::idempotent), so that the client
//! retries them on another host) through one client over the three hosts, without pause, for
//! the whole run. After a warm-up, one host after the other is stopped (killed with
//! `--kill`) and restarted, a kill every 10 s (or, when a restart takes longer, as soon as the
//! host killed before is back and has served requests again), for `CYCLES` cycles (argument
//! 2, default 3). It fails (exit 1) when a read issued after a kill was detected (the host
//! marked unavailable) fails, when a read gives a wrong count, or when a restarted host gets
//! no requests again.
//!
//! ```text
//! cargo xtask failover [--kill] [--cycles N]
//! ```
//!
//! A test driver kept with the tools of `benches/` (`harness = false`, `bench = false`: a
//! plain `cargo bench` leaves it out); `cargo xtask failover` builds and runs it.

use std::io::BufRead as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use graphbinary_client::client::{Client, Error};
use graphbinary_client::text::one_line;

const CONCURRENCY: usize = 256;
const KILL_EVERY: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Tally {
    run: AtomicU64,
    failed: AtomicU64,
    failed_after_detection: AtomicU64,
    wrong: AtomicU64,
    first_error: Mutex<Option<String>>,
    /// Latencies in microseconds.
    latencies: Mutex<Vec<u32>>,
}

/// Whether a kill was detected and its host is not back yet: a read issued then must not fail.
struct Window {
    detected: AtomicBool,
}

async fn query(client: &Client) -> Result<i64, Error> {
    client
        .request("g.V().count()")
        .idempotent(true)
        .await?
        .one()
        .await
}

/// The lines of stdin, read on a thread of their own so that queries go on meanwhile.
fn stdin_lines() -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { return };
            if tx.send(line.trim().to_owned()).is_err() {
                return;
            }
        }
    });
    rx
}

/// Waits for `word` on stdin without blocking the runtime.
async fn wait_for(
    lines: &Arc<Mutex<std::sync::mpsc::Receiver<String>>>,
    word: &str,
) -> Result<(), String> {
    let lines = lines.clone();
    let word = word.to_owned();
    tokio::task::spawn_blocking(move || {
        let rx = lines.lock().unwrap();
        loop {
            match rx.recv_timeout(Duration::from_secs(300)) {
                Ok(l) if l == word => return Ok(()),
                Ok(_) => {}
                Err(e) => return Err(format!("no {word:?} on stdin: {e}")),
            }
        }
    })
    .await
    .map_err(|e| e.to_string())?
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("failover: FAILED: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let ports: Vec<u16> = args
        .next()
        .ok_or("usage: failover PORT,PORT,PORT [CYCLES]")?
        .split(',')
        .map(|p| p.parse().map_err(|_| format!("bad port {p:?}")))
        .collect::<Result<_, _>>()?;
    if ports.len() != 3 {
        return Err("three ports expected".into());
    }
    let cycles: usize = match args.next() {
        Some(c) => c.parse().map_err(|_| format!("bad cycle count {c:?}"))?,
        None => 3,
    };
    let mode = args.next().unwrap_or_else(|| "term".to_owned());
    if !matches!(mode.as_str(), "term" | "kill" | "mixed") {
        return Err(format!("bad mode {mode:?}: term, kill or mixed"));
    }
    let url = |p: u16| format!("http://127.0.0.1:{p}/gremlin");
    let client = Client::builder(url(ports[0]))
        .add_host(url(ports[1]))
        .add_host(url(ports[2]))
        .pool_size(48)
        .failover_drill()
        .build()
        .map_err(|e| e.to_string())?;
    let lines = Arc::new(Mutex::new(stdin_lines()));
    let tally = Arc::new(Tally::default());
    let window = Arc::new(Window {
        detected: AtomicBool::new(false),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let workers: Vec<_> = (0..CONCURRENCY)
        .map(|_| {
            let (client, tally, window, stop) =
                (client.clone(), tally.clone(), window.clone(), stop.clone());
            tokio::spawn(async move {
                let mut lat = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let in_window = window.detected.load(Ordering::Acquire);
                    let t = Instant::now();
                    let res = query(&client).await;
                    lat.push(t.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
                    tally.run.fetch_add(1, Ordering::Relaxed);
                    let err = match res {
                        Ok(6) => continue,
                        Ok(n) => {
                            tally.wrong.fetch_add(1, Ordering::Relaxed);
                            format!("count {n}, not 6")
                        }
                        Err(e) => one_line(&e),
                    };
                    tally.failed.fetch_add(1, Ordering::Relaxed);
                    if in_window {
                        tally.failed_after_detection.fetch_add(1, Ordering::Relaxed);
                    }
                    tally.first_error.lock().unwrap().get_or_insert(err);
                }
                tally.latencies.lock().unwrap().extend(lat);
            })
        })
        .collect();

    tokio::time::sleep(Duration::from_secs(3)).await;
    let warm = client.hosts();
    println!(
        "warm-up: {} reads in 3 s at concurrency {CONCURRENCY}, {} failed; requests per host {:?}",
        tally.run.load(Ordering::Relaxed),
        tally.failed.load(Ordering::Relaxed),
        warm.iter().map(|h| h.requests).collect::<Vec<_>>()
    );
    if warm.iter().any(|h| h.requests < 10) {
        return Err("round-robin did not spread the warm-up over the three hosts".into());
    }

    let mut detect_times = Vec::new();
    let mut outcome = Ok(());
    for cycle in 0..cycles {
        let victim = 1 + cycle % 2;
        let port = ports[victim];
        let kill_at = Instant::now();
        let failed_before = tally.failed.load(Ordering::Relaxed);
        let run_before = tally.run.load(Ordering::Relaxed);
        let kill = mode == "kill" || (mode == "mixed" && cycle > 0);
        println!("{} {port}", if kill { "KILL" } else { "STOP" });
        // Detection: the host leaves the rotation (a reset, a refused connect).
        let detect = {
            let client = client.clone();
            let window = window.clone();
            tokio::spawn(async move {
                loop {
                    if !client.hosts()[victim].available {
                        window.detected.store(true, Ordering::Release);
                        return kill_at.elapsed();
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            })
        };
        wait_for(&lines, "stopped").await?;
        let stopped = kill_at.elapsed();
        let detected = tokio::time::timeout(Duration::from_secs(30), detect)
            .await
            .map_err(|_| format!("the stop of port {port} was never detected"))?
            .map_err(|e| e.to_string())?;
        detect_times.push(detected);
        println!("START {port}");
        wait_for(&lines, "started").await?;
        let up = kill_at.elapsed();
        // The restarted host back in the rotation, serving again.
        let before = client.hosts()[victim].requests;
        let back = Instant::now();
        while client.hosts()[victim].requests <= before || !client.hosts()[victim].available {
            if back.elapsed() > Duration::from_secs(15) {
                outcome = Err(format!("the restarted host {port} got no requests again"));
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let back_after = back.elapsed();
        window.detected.store(false, Ordering::Release);
        if let Some(rest) = KILL_EVERY.checked_sub(kill_at.elapsed()) {
            tokio::time::sleep(rest).await;
        }
        println!(
            "cycle {}: port {port} {} {:.1} s after the ask, detected unavailable after {:.3} s, \
             up again {:.1} s after the kill and serving {:.3} s after that; {} reads in the cycle, {} failed",
            cycle + 1,
            if kill { "killed (SIGKILL)" } else { "stopped (SIGTERM)" },
            stopped.as_secs_f64(),
            detected.as_secs_f64(),
            up.as_secs_f64(),
            back_after.as_secs_f64(),
            tally.run.load(Ordering::Relaxed) - run_before,
            tally.failed.load(Ordering::Relaxed) - failed_before,
        );
        if outcome.is_err() {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.await.map_err(|e| e.to_string())?;
    }
    let elapsed = started.elapsed();
    let mut lat = std::mem::take(&mut *tally.latencies.lock().unwrap());
    lat.sort_unstable();
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1)))
            .map_or(f64::NAN, |&us| f64::from(us) / 1000.0)
    };
    let run = tally.run.load(Ordering::Relaxed);
    let failed_after = tally.failed_after_detection.load(Ordering::Relaxed);
    println!(
        "FIGURES concurrency={CONCURRENCY} cycles={cycles} reads={run} reads_per_s={:.0} failed={} \
         failed_after_detection={failed_after} retries={} detect_s={:?} latency_ms_p50={:.1} p99={:.1} max={:.1} \
         requests_per_host={:?} first_error={:?}",
        run as f64 / elapsed.as_secs_f64(),
        tally.failed.load(Ordering::Relaxed),
        client.retries(),
        detect_times
            .iter()
            .map(|d| (d.as_secs_f64() * 1000.0).round() / 1000.0)
            .collect::<Vec<_>>(),
        pct(0.5),
        pct(0.99),
        pct(1.0),
        client.hosts().iter().map(|h| h.requests).collect::<Vec<_>>(),
        tally.first_error.lock().unwrap()
    );
    outcome?;
    if tally.wrong.load(Ordering::Relaxed) > 0 {
        return Err("a read gave a wrong count".into());
    }
    if failed_after > 0 {
        return Err(format!(
            "{failed_after} reads issued after a kill was detected failed"
        ));
    }
    Ok(())
}
