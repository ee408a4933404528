//! Failover run against three real Gremlin Servers, driven by `cargo xtask failover` (which
//! starts the servers, and stops and restarts one when this program asks on stdout).
//!
//! Protocol: this program prints `STOP <port>` (SIGTERM), `KILL <port>` (SIGKILL) and
//! `START <port>` lines on stdout, and the driver answers `stopped <port>` / `started <port>`
//! (or `failed <port>`) on stdin, a restart in the background; everything else it prints is a
//! report. Arguments: the three ports, the number of cycles
//! (default 3), how hosts are stopped: `term`, `kill` or `mixed` (the first cycle
//! SIGTERM, the others SIGKILL; default `term`), and the seconds between two kills (default 10).
//!
//! 256 tasks send idempotent reads (`g.V().count()`, marked
//! [`idempotent`](graphbinary_client::client::RequestBuilder::idempotent), so that the client
//! retries them on another host) through one client over the three hosts, without pause, for
//! the whole run. After a warm-up, the second and the third host are stopped (killed with
//! `--kill`) in turn, one every 10 s, each restarted at once while the reads go on, so that
//! a kill may fall while the host killed before is still restarting (then both are down and
//! the first host serves all); a host is killed again only once it is back and has served
//! requests again. `CYCLES` kills (argument 2, default 3). It fails (exit 1) when a read fails
//! that was issued while every kill so far had been detected (its host marked unavailable)
//! and finished before the next kill, when a read gives a wrong count, or when a restarted
//! host gets no requests again.
//!
//! ```text
//! cargo xtask failover [--kill | --mixed] [--cycles N] [--every S]
//! ```
//!
//! A test driver kept with the tools of `benches/` (`harness = false`, `bench = false`: a
//! plain `cargo bench` leaves it out); `cargo xtask failover` builds and runs it.

use std::io::BufRead as _;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use graphbinary_client::client::{Client, Error};
use graphbinary_client::format::text::one_line;

const CONCURRENCY: usize = 256;
/// The default time between two kills (argument 4 sets another, in seconds).
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

/// Which reads must not fail: those issued while every kill so far was detected
/// (`undetected` 0) and finished before the next kill (`kills` unchanged).
#[derive(Default)]
struct Window {
    /// Hosts killed whose failure the client has not noticed yet.
    undetected: AtomicUsize,
    /// Kills so far.
    kills: AtomicU64,
}

async fn query(client: &Client) -> Result<i64, Error> {
    client
        .request("g.V().count()")
        .idempotent(true)
        .await?
        .one()
        .await
}

/// The driver's answers, read from stdin on a thread of their own so that queries go on
/// meanwhile; [`wait_for`] takes them out.
type Answers = Arc<Mutex<Vec<String>>>;

fn stdin_answers() -> Answers {
    let answers = Answers::default();
    let sink = answers.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { return };
            sink.lock().unwrap().push(line.trim().to_owned());
        }
    });
    answers
}

/// Waits (at most `limit`) for the answer `word <port>`; `failed <port>` is an error.
async fn wait_for(answers: &Answers, word: &str, port: u16, limit: Duration) -> Result<(), String> {
    let (want, failed) = (format!("{word} {port}"), format!("failed {port}"));
    let t = Instant::now();
    loop {
        {
            let mut a = answers.lock().unwrap();
            if let Some(i) = a.iter().position(|l| *l == want) {
                a.remove(i);
                return Ok(());
            }
            if a.contains(&failed) {
                return Err(format!("the driver could not restart port {port}"));
            }
        }
        if t.elapsed() > limit {
            return Err(format!("no {want:?} on stdin after {limit:?}"));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
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
    let kill_every = match args.next() {
        Some(s) => Duration::from_secs(s.parse().map_err(|_| format!("bad interval {s:?}"))?),
        None => KILL_EVERY,
    };
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
    let answers = stdin_answers();
    let tally = Arc::new(Tally::default());
    let window = Arc::new(Window::default());
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let workers: Vec<_> = (0..CONCURRENCY)
        .map(|_| {
            let (client, tally, window, stop) =
                (client.clone(), tally.clone(), window.clone(), stop.clone());
            tokio::spawn(async move {
                let mut lat = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    // Kills first, then undetected (a kill raises them the other way round).
                    let kills = window.kills.load(Ordering::SeqCst);
                    let must_succeed = window.undetected.load(Ordering::SeqCst) == 0;
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
                    if must_succeed && window.kills.load(Ordering::SeqCst) == kills {
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
    // Per victim (hosts 1 and 2), its restart under way: the task ends when the host is back
    // and serving, with its report line.
    let mut restarting: [Option<tokio::task::JoinHandle<Result<String, String>>>; 3] =
        [None, None, None];
    let mut last_kill: Option<Instant> = None;
    for cycle in 0..cycles {
        let victim = 1 + cycle % 2;
        let port = ports[victim];
        // A host is killed again only once it is back and serving.
        if let Some(back) = restarting[victim].take() {
            match back.await.map_err(|e| e.to_string())? {
                Ok(line) => println!("{line}"),
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        if let Some(rest) = last_kill.and_then(|t| kill_every.checked_sub(t.elapsed())) {
            tokio::time::sleep(rest).await;
        }
        let kill_at = Instant::now();
        last_kill = Some(kill_at);
        let (failed_before, run_before) = (
            tally.failed.load(Ordering::Relaxed),
            tally.run.load(Ordering::Relaxed),
        );
        let kill = mode == "kill" || (mode == "mixed" && cycle > 0);
        window.undetected.fetch_add(1, Ordering::SeqCst);
        window.kills.fetch_add(1, Ordering::SeqCst);
        let others_down = restarting
            .iter()
            .flatten()
            .filter(|r| !r.is_finished())
            .count();
        println!("{} {port}", if kill { "KILL" } else { "STOP" });
        wait_for(&answers, "stopped", port, Duration::from_secs(60)).await?;
        let stopped = kill_at.elapsed();
        // Detection: the host leaves the rotation (a reset, a refused connect).
        let detected = loop {
            if !client.hosts()[victim].available {
                window.undetected.fetch_sub(1, Ordering::SeqCst);
                break kill_at.elapsed();
            }
            if kill_at.elapsed() > Duration::from_secs(30) {
                return Err(format!("the stop of port {port} was never detected"));
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        detect_times.push(detected);
        println!("START {port}");
        let (client, tally, answers) = (client.clone(), tally.clone(), answers.clone());
        restarting[victim] = Some(tokio::spawn(async move {
            wait_for(&answers, "started", port, Duration::from_secs(180)).await?;
            let up = kill_at.elapsed();
            // The restarted host back in the rotation, serving again.
            let before = client.hosts()[victim].requests;
            let back = Instant::now();
            while client.hosts()[victim].requests <= before || !client.hosts()[victim].available {
                if back.elapsed() > Duration::from_secs(15) {
                    return Err(format!("the restarted host {port} got no requests again"));
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Ok(format!(
                "cycle {}: port {port} {} {:.1} s after the ask ({others_down} other host(s) \
                 still restarting), detected unavailable after {:.3} s, up again {:.1} s after the \
                 kill and serving {:.3} s after that; {} reads from the kill until then, {} failed",
                cycle + 1,
                if kill {
                    "killed (SIGKILL)"
                } else {
                    "stopped (SIGTERM)"
                },
                stopped.as_secs_f64(),
                detected.as_secs_f64(),
                up.as_secs_f64(),
                back.elapsed().as_secs_f64(),
                tally.run.load(Ordering::Relaxed) - run_before,
                tally.failed.load(Ordering::Relaxed) - failed_before,
            ))
        }));
    }
    for back in restarting.into_iter().flatten() {
        match back.await.map_err(|e| e.to_string())? {
            Ok(line) => println!("{line}"),
            Err(e) => outcome = outcome.and(Err(e)),
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
