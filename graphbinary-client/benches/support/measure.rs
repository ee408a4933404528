//! The measuring loops of every Rust contender of `cargo xtask bench`: `bench_client` (both
//! its modes) and the gremlin-client peer (`xtask/peers/tp3/gremlin-client`, a crate of its
//! own that includes this file by path), so that all of them time the same way. Only std,
//! tokio and libc.
//!
//! Latency: sequential requests on one connection, each timed. Throughput: `total` requests
//! shared by concurrent tasks, each sending one after the other, timed as a whole. Both check
//! that every response had the same result count, and measure the process's CPU time.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[path = "clock.rs"]
mod clock;

/// User+system CPU seconds of this process so far (all threads), to the nanosecond: the
/// 10 ms ticks of `/proc/self/stat` are too coarse for a few dozen short requests.
pub fn cpu_secs() -> f64 {
    clock::cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID).as_secs_f64()
}

/// What the contenders' common command line says of a measurement, with its defaults:
/// `--query`, `--mode latency|throughput`, `--runs N` (5), `--concurrency C` (64),
/// `--requests M` (1000), `--warmup W` (1 request in latency mode, C in throughput mode).
pub struct Plan {
    pub query: String,
    pub mode: String,
    pub runs: usize,
    pub concurrency: usize,
    pub requests: usize,
    pub warmup: Option<usize>,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            query: String::new(),
            mode: String::new(),
            runs: 5,
            concurrency: 64,
            requests: 1000,
            warmup: None,
        }
    }
}

impl Plan {
    /// Takes `flag` if it is one of the plan's, its value from `val`; `Ok(false)` if not.
    pub fn flag(&mut self, flag: &str, val: impl FnOnce() -> String) -> Result<bool, String> {
        let num = |s: String| {
            s.parse::<usize>()
                .map_err(|_| format!("{flag}: not a number"))
        };
        match flag {
            "--query" => self.query = val(),
            "--mode" => self.mode = val(),
            "--runs" => self.runs = num(val())?,
            "--concurrency" => self.concurrency = num(val())?,
            "--requests" => self.requests = num(val())?,
            "--warmup" => self.warmup = Some(num(val())?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Whether the command line gave what a measurement needs.
    pub fn check(&self) -> Result<(), String> {
        if self.query.is_empty() || !matches!(self.mode.as_str(), "latency" | "throughput") {
            return Err("--query and --mode latency|throughput are required".into());
        }
        if self.runs == 0 || self.concurrency == 0 || self.requests == 0 {
            return Err("--runs, --concurrency and --requests must be >= 1".into());
        }
        Ok(())
    }

    /// [`latency`] with the plan's warm-up and runs.
    pub async fn latency<T, H, F, Fut>(
        &self,
        count: fn(&T) -> u64,
        one: F,
    ) -> Result<Latency<T>, String>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<(T, H), String>>,
    {
        latency(self.warmup.unwrap_or(1), self.runs, count, one).await
    }

    /// [`throughput`] with the plan's warm-up, requests and concurrency.
    pub async fn throughput<F, Fut>(&self, one: F) -> Result<Throughput, String>
    where
        F: Fn(usize) -> Fut + Clone + Send + 'static,
        Fut: Future<Output = Result<u64, String>> + Send + 'static,
    {
        let warmup = self.warmup.unwrap_or(self.concurrency);
        throughput(warmup, self.requests, self.concurrency, one).await
    }
}

/// What a latency run measured.
pub struct Latency<T> {
    /// Each measured request's seconds.
    pub runs: Vec<f64>,
    /// The first response's outcome (every other one had its result count).
    pub first: Option<T>,
    /// CPU seconds during the measured requests.
    pub cpu_secs: f64,
}

/// `warmup` requests, then `runs` timed ones, one after the other; `count` says an outcome's
/// result count, which must be the same for every request. Each request gives its outcome
/// and what it holds (the results it collected), dropped once its time is taken: the time is
/// until the results are in hand, as the peers' is (their garbage collectors free the results
/// later, off the clock); the CPU seconds count the drop.
pub async fn latency<T, H, F, Fut>(
    warmup: usize,
    runs: usize,
    count: fn(&T) -> u64,
    mut one: F,
) -> Result<Latency<T>, String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(T, H), String>>,
{
    let mut first: Option<T> = None;
    let mut check = |got: T| match &first {
        None => {
            first = Some(got);
            Ok(())
        }
        Some(e) if count(e) != count(&got) => {
            Err(format!("result count {} then {}", count(e), count(&got)))
        }
        _ => Ok(()),
    };
    for _ in 0..warmup {
        check(one().await?.0)?;
    }
    let cpu0 = cpu_secs();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let (got, held) = one().await?;
        times.push(t.elapsed().as_secs_f64());
        drop(held);
        check(got)?;
    }
    Ok(Latency {
        runs: times,
        first,
        cpu_secs: cpu_secs() - cpu0,
    })
}

/// What a throughput run measured.
pub struct Throughput {
    /// Seconds for all the measured requests.
    pub wall_secs: f64,
    /// Each response's result count.
    pub results: u64,
    /// CPU seconds during the measured requests.
    pub cpu_secs: f64,
}

/// `warmup` requests, then `total` timed ones, each run shared by `tasks` tokio tasks (at most
/// one a request) that send theirs one after the other, task `i` through `one(i)` (its result
/// count). The first error ends the run.
pub async fn throughput<F, Fut>(
    warmup: usize,
    total: usize,
    tasks: usize,
    one: F,
) -> Result<Throughput, String>
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<u64, String>> + Send + 'static,
{
    run_tasks(warmup, tasks, one.clone()).await?;
    let cpu0 = cpu_secs();
    let t = Instant::now();
    let results = run_tasks(total, tasks, one).await?;
    Ok(Throughput {
        wall_secs: t.elapsed().as_secs_f64(),
        results,
        cpu_secs: cpu_secs() - cpu0,
    })
}

/// `total` requests from `tasks` tasks; the result count they all saw.
async fn run_tasks<F, Fut>(total: usize, tasks: usize, one: F) -> Result<u64, String>
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<u64, String>> + Send + 'static,
{
    let next = Arc::new(AtomicUsize::new(0));
    let mut handles = Vec::new();
    for i in 0..tasks.min(total.max(1)) {
        let (one, next) = (one.clone(), next.clone());
        handles.push(tokio::spawn(async move {
            let mut seen: Option<u64> = None;
            while next.fetch_add(1, Ordering::Relaxed) < total {
                let outcome = one(i).await.and_then(|n| match seen {
                    Some(s) if s != n => Err(format!("result count {s} then {n}")),
                    _ => Ok(n),
                });
                match outcome {
                    Ok(n) => seen = Some(n),
                    Err(e) => {
                        // The other tasks stop at their next request.
                        next.store(total, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok(seen)
        }));
    }
    let mut counts = Vec::new();
    for h in handles {
        counts.extend(h.await.map_err(|e| e.to_string())??);
    }
    counts.dedup();
    if counts.len() > 1 {
        return Err(format!("responses disagree: {counts:?}"));
    }
    Ok(counts.first().copied().unwrap_or(0))
}
