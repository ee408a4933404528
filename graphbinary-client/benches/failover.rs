//! Failover run against three real Gremlin Servers, driven by `cargo xtask failover` (which
//! starts the servers, and stops and restarts one when this program asks on stdout).
//!
//! Protocol: this program prints `STOP <port>` and `START <port>` lines on stdout, and the
//! driver answers `stopped` / `started` on stdin; everything else it prints is a report. It
//! runs 1000 queries: 300 with all hosts up, 400 from the moment it asks for one host to be
//! stopped (queries go on while it stops), 300 once it was restarted. It fails (exit 1) when a query issued after the failure was detected
//! fails, or when the restarted host receives no requests again.
//!
//! ```text
//! cargo xtask failover
//! ```
//!
//! A test driver kept with the tools of `benches/` (`harness = false`, `bench = false`: a
//! plain `cargo bench` leaves it out); `cargo xtask failover` builds and runs it.

use std::io::BufRead as _;
use std::time::{Duration, Instant};

use graphbinary_client::client::{Client, Error};

struct Tally {
    run: u32,
    failed: u32,
    failed_after_detection: u32,
    first_error: Option<String>,
}

async fn query(client: &Client) -> Result<i64, Error> {
    client.submit("g.V().count()").await?.one().await
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

fn wait_for(lines: &std::sync::mpsc::Receiver<String>, word: &str) -> Result<(), String> {
    loop {
        match lines.recv_timeout(Duration::from_secs(300)) {
            Ok(l) if l == word => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(format!("no {word:?} on stdin: {e}")),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("failover: FAILED: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let ports: Vec<u16> = std::env::args()
        .nth(1)
        .ok_or("usage: failover PORT,PORT,PORT")?
        .split(',')
        .map(|p| p.parse().map_err(|_| format!("bad port {p:?}")))
        .collect::<Result<_, _>>()?;
    if ports.len() != 3 {
        return Err("three ports expected".into());
    }
    let url = |p: u16| format!("http://127.0.0.1:{p}/gremlin");
    let client = Client::builder(url(ports[0]))
        .add_host(url(ports[1]))
        .add_host(url(ports[2]))
        .connect_timeout(Duration::from_secs(2))
        .read_timeout(Duration::from_secs(20))
        .host_retry_backoff(Duration::from_millis(250))
        .host_retry_backoff_max(Duration::from_secs(2))
        .build()
        .map_err(|e| e.to_string())?;
    let victim = 1usize;
    let lines = stdin_lines();
    let mut t = Tally {
        run: 0,
        failed: 0,
        failed_after_detection: 0,
        first_error: None,
    };
    let one = |res: Result<i64, Error>, detected: bool, t: &mut Tally| {
        t.run += 1;
        match res {
            Ok(6) => {}
            Ok(n) => {
                t.failed += 1;
                t.first_error.get_or_insert(format!("count {n}, not 6"));
            }
            Err(e) => {
                t.failed += 1;
                if detected {
                    t.failed_after_detection += 1;
                }
                t.first_error.get_or_insert_with(|| chain(&e));
            }
        }
    };

    for _ in 0..300 {
        one(query(&client).await, false, &mut t);
    }
    let before = client.hosts();
    println!(
        "phase 1: {} queries, {} failed; requests per host {:?}",
        t.run,
        t.failed,
        before.iter().map(|h| h.requests).collect::<Vec<_>>()
    );
    if before.iter().any(|h| h.requests < 90) {
        return Err("round-robin did not spread phase 1 over the three hosts".into());
    }

    // Queries go on while the server is being stopped.
    println!("STOP {}", ports[victim]);
    let stop_asked = Instant::now();
    let mut stopped_after: Option<Duration> = None;
    let mut detected_at: Option<Duration> = None;
    let failed_before = t.failed;
    for _ in 0..400 {
        let detected = detected_at.is_some();
        one(query(&client).await, detected, &mut t);
        tokio::time::sleep(Duration::from_millis(10)).await;
        if detected_at.is_none() && !client.hosts()[victim].available {
            detected_at = Some(stop_asked.elapsed());
        }
        if stopped_after.is_none() && lines.try_recv().is_ok_and(|l| l == "stopped") {
            stopped_after = Some(stop_asked.elapsed());
        }
    }
    let stopped_after = match stopped_after {
        Some(d) => d,
        None => {
            wait_for(&lines, "stopped")?;
            stop_asked.elapsed()
        }
    };
    let down = client.hosts();
    let detected_at = detected_at.ok_or("the stopped host was never marked unavailable")?;
    println!(
        "phase 2 (host {} stopping from the start, stopped {:.1} s in): 400 queries, {} failed \
         ({} after detection); detected unavailable {:.3} s after the stop was asked; \
         requests per host {:?}",
        ports[victim],
        stopped_after.as_secs_f64(),
        t.failed - failed_before,
        t.failed_after_detection,
        detected_at.as_secs_f64(),
        down.iter().map(|h| h.requests).collect::<Vec<_>>()
    );

    println!("START {}", ports[victim]);
    wait_for(&lines, "started")?;
    let restarted = Instant::now();
    let victim_before = client.hosts()[victim].requests;
    let mut back_at: Option<Duration> = None;
    let failed_before = t.failed;
    for _ in 0..300 {
        one(query(&client).await, true, &mut t);
        tokio::time::sleep(Duration::from_millis(10)).await;
        if back_at.is_none()
            && client.hosts()[victim].requests > victim_before
            && client.hosts()[victim].available
        {
            back_at = Some(restarted.elapsed());
        }
    }
    let after = client.hosts();
    let victim_got = after[victim].requests - victim_before;
    println!(
        "phase 3 (host {} restarted): 300 queries, {} failed; the restarted host got {} requests, \
         the first {:.3} s after it was up; requests per host {:?}",
        ports[victim],
        t.failed - failed_before,
        victim_got,
        back_at.map_or(f64::NAN, |d| d.as_secs_f64()),
        after.iter().map(|h| h.requests).collect::<Vec<_>>()
    );
    println!(
        "FIGURES queries={} failed={} failed_after_detection={} detect_s={:.3} first_error={:?}",
        t.run,
        t.failed,
        t.failed_after_detection,
        detected_at.as_secs_f64(),
        t.first_error
    );
    if t.failed_after_detection > 0 {
        return Err(format!(
            "{} queries issued after the failure was detected failed",
            t.failed_after_detection
        ));
    }
    if victim_got < 50 {
        return Err(format!(
            "the restarted host got only {victim_got} of 300 requests"
        ));
    }
    Ok(())
}

/// The error and its causes on one line.
fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut line = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        line.push_str(": ");
        line.push_str(&c.to_string());
        cause = c.source();
    }
    line
}
