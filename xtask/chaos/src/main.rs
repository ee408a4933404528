//! `cargo xtask cluster chaos`: no acknowledged write lost or duplicated while JanusGraph
//! Servers die.
//!
//! Starts a cluster of its own (Cassandra and the JanusGraph Servers, a fresh keyspace
//! `chaos_<unix time>`), declares the schema (vertex label `chaos`, property key `k`), then
//! runs [`WRITERS`] writers and [`READERS`] readers through one
//! [`Client`] over every server for `--secs`:
//!
//! * a writer adds one vertex after the other, each with a key of its own (`w<writer>-<seq>`),
//!   never marked idempotent: the client never sends a write twice; a write that could not
//!   reach a host (nothing sent) goes to the next one;
//! * a reader sends idempotent reads (`g.V().limit(20).count()`), which the client retries on
//!   another host.
//!
//! Meanwhile `--cycles` times, one server after the other is killed with SIGKILL and restarted
//! at once; a kill is *detected* when the client takes the host out of its rotation, and it
//! stays so until the restarted host is back and serving.
//!
//! Each write ends in one of three outcomes (as Jepsen counts them): *acknowledged* (the
//! server answered its result), *failed* (nothing was sent, [`TransportKind::Connect`], or
//! the server answered an error: its transaction was rolled back) or *unknown* (the
//! connection died or the deadline passed after it was sent: it may or may not have been
//! applied). At the end every key is read back (one scan of the graph, through the same
//! client, once the writers and readers have stopped); the run fails if an acknowledged write is missing (lost) or any key is there twice
//! (duplicated), if a write that was never sent is there, or if a read issued after a kill was
//! detected failed. Its last line:
//!
//! ```text
//! chaos: N acknowledged, N found, lost N, duplicated N, N failed, N unknown; reads: N, N failed after detection
//! ```
//!
//! Beside them, a [`Loader`] loads a part of a graph ([`LOAD_VERTICES`] vertices and as many
//! edges, Neptune CSV, by the key property `lk`; its index and keys made before the first
//! kill) through the same client, again and again until the writers stop (every pass after the first matches what is
//! there: the kills meet upserts of a load that is there already, or not yet), then once
//! more to complete what the kills left out; every vertex and edge must then be there exactly
//! once (line `load: ...`).

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use graphbinary_client::client::{Client, Error, TransportKind};
use graphbinary_client::format::text::one_line;
use graphbinary_client::process::{BatchOptions, LoadSummary, Loader};
use graphbinary_client::Value;

use graphbinary_kit::cluster::{
    start_janusgraph, url, Cassandra, JG_PORTS, JMX_PORT, NATIVE_PORT, STORAGE_PORT,
};
use graphbinary_kit::server::{self, Cql, Guard, Server};
use graphbinary_kit::util::secs;

/// `graphbinary-chaos [chaos] [--servers 2|3] [--secs N] [--cycles N]` (the flags of
/// `cargo xtask cluster`, which runs this binary for `chaos`).
fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("chaos") {
        args.insert(0, "chaos".into());
    }
    if let Err(err) = graphbinary_kit::cluster::cli(&args, &run) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

/// Concurrent writers.
pub const WRITERS: usize = 4;
/// Concurrent readers.
pub const READERS: usize = 4;
/// The schema, declared once through the first server before any write (automatic schema
/// creation from several servers at once would race).
const SCHEMA: &str = "mgmt = graph.openManagement(); \
    if (mgmt.getPropertyKey('k') == null) { \
      mgmt.makePropertyKey('k').dataType(String.class).cardinality(org.janusgraph.core.Cardinality.SINGLE).make(); \
      mgmt.makeVertexLabel('chaos').make() }; \
    mgmt.commit(); 'ok'";
const WRITE: &str = "g.addV('chaos').property('k', k).id()";
const READ: &str = "g.V().limit(20).count()";
const VERIFY: &str = "g.V().hasLabel('chaos').values('k')";
/// Vertices (and edges) of the loader's part of a graph.
pub const LOAD_VERTICES: usize = 2000;
/// The loader's key property, and its vertices' and edges' labels.
const LOAD_KEY: &str = "lk";
const LOAD_VERIFY_V: &str = "g.V().hasLabel('chaos_load').values('lk')";
const LOAD_VERIFY_E: &str = "g.E().hasLabel('chaos_link').values('lk')";
/// The read-back is a scan of the whole graph: longer than the servers' `evaluationTimeout`.
const VERIFY_TIMEOUT: Duration = Duration::from_secs(600);

/// Every write's outcome, by key.
#[derive(Default)]
struct Writes {
    acknowledged: Vec<String>,
    /// Nothing was sent (no host could be reached).
    not_sent: Vec<String>,
    /// The server answered an error.
    refused: Vec<String>,
    unknown: Vec<String>,
    first_error: HashMap<&'static str, String>,
}

#[derive(Default)]
struct Reads {
    run: AtomicU64,
    failed: AtomicU64,
    failed_after_detection: AtomicU64,
    first_error: Mutex<Option<String>>,
}

/// `cargo xtask cluster chaos`.
pub fn run(servers: usize, run_secs: u64, cycles: usize) -> Result<()> {
    let t0 = Instant::now();
    let ports = &JG_PORTS[..servers];
    for port in [STORAGE_PORT, NATIVE_PORT, JMX_PORT]
        .into_iter()
        .chain(ports.iter().copied())
    {
        server::ensure_free(port, "the chaos cluster")
            .context("is a cluster up? (`cargo xtask cluster down` stops it)")?;
    }
    let cassandra = Cassandra::start(false)?;
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let cql = Cql {
        port: NATIVE_PORT,
        keyspace: format!("chaos_{unix}"),
    };
    let mut guards: Vec<Option<Guard>> = start_janusgraph(&cql, ports, false)?
        .into_iter()
        .map(Some)
        .collect();
    let up_after = t0.elapsed();
    println!(
        "cluster: Apache Cassandra {} and {servers} JanusGraph Servers up after {}",
        graphbinary_kit::cluster::CASSANDRA_VERSION,
        secs(up_after)
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = drive(&rt, &mut guards, ports, &cql, (run_secs, cycles), up_after);
    drop(rt);
    let t = Instant::now();
    // The JanusGraph Servers side by side, then Cassandra (they write to it while closing).
    server::stop_all(guards.into_iter().flatten().collect());
    drop(cassandra);
    eprintln!("xtask: cluster stopped in {}", secs(t.elapsed()));
    println!("chaos: whole run {}", secs(t0.elapsed()));
    let line = result?;
    println!("{line}");
    Ok(())
}

fn client(ports: &[u16]) -> Result<Client> {
    let mut b = Client::builder(url(ports[0]));
    for &p in &ports[1..] {
        b = b.add_host(url(p));
    }
    Ok(b.pool_size(16)
        .failover_drill()
        .request_timeout(Duration::from_secs(30))
        .build()?)
}

/// The writers, readers, kills and the check; the last line on success (an error naming what
/// broke otherwise, after the same line).
fn drive(
    rt: &tokio::runtime::Runtime,
    guards: &mut [Option<Guard>],
    ports: &[u16],
    cql: &Cql,
    (run_secs, cycles): (u64, usize),
    up_after: Duration,
) -> Result<String> {
    let client = client(ports)?;
    rt.block_on(async {
        client
            .request(SCHEMA)
            .timeout(Duration::from_secs(60))
            .await?
            .all()
            .await
    })
    .context("declaring the schema")?;
    rt.block_on(load_schema(&client))
        .context("making the load's schema")?;
    let stop = Arc::new(AtomicBool::new(false));
    let detected = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(Mutex::new(Writes::default()));
    let reads = Arc::new(Reads::default());
    let mut tasks = Vec::new();
    for w in 0..WRITERS {
        let (client, stop, writes) = (client.clone(), stop.clone(), writes.clone());
        tasks.push(rt.spawn(async move { writer(w, client, stop, writes).await }));
    }
    for _ in 0..READERS {
        let (client, stop, detected, reads) = (
            client.clone(),
            stop.clone(),
            detected.clone(),
            reads.clone(),
        );
        tasks.push(rt.spawn(async move { reader(client, stop, detected, reads).await }));
    }
    let loads = {
        let (client, stop) = (client.clone(), stop.clone());
        rt.spawn(async move { loader(client, stop).await })
    };
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(5));
    let warm = client.hosts();
    println!(
        "warm-up: 5 s, {} writes acknowledged, {} reads; requests per host {:?}",
        lock(&writes).acknowledged.len(),
        reads.run.load(Ordering::Relaxed),
        warm.iter().map(|h| h.requests).collect::<Vec<_>>()
    );
    let mut problems = Vec::new();
    if warm.iter().any(|h| h.requests == 0) {
        problems.push("round-robin did not spread the warm-up over every server".to_string());
    }
    let run = Duration::from_secs(run_secs);
    let mut detections = Vec::new();
    let mut kills = 0;
    for cycle in 0..cycles {
        let victim = cycle % ports.len();
        let port = ports[victim];
        let planned = run * (cycle as u32 + 1) / (cycles as u32 + 1);
        if let Some(wait) = planned.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
        let writes_before = lock(&writes).acknowledged.len();
        let reads_before = reads.run.load(Ordering::Relaxed);
        let kill_at = Instant::now();
        if let Some(g) = guards[victim].take() {
            g.kill();
        }
        kills += 1;
        let killed = kill_at.elapsed();
        let detect = loop {
            if !client.hosts()[victim].available {
                detected.store(true, Ordering::Release);
                break Some(kill_at.elapsed());
            }
            if kill_at.elapsed() > Duration::from_secs(30) {
                break None;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        match detect {
            Some(d) => detections.push(d),
            None => problems.push(format!("the kill of port {port} was never detected")),
        }
        let restart = Instant::now();
        let server = Server::janusgraph_cql(cql.clone());
        match server::start_all(&[(server, port)], false) {
            Ok(mut g) => guards[victim] = g.pop(),
            Err(e) => {
                problems.push(format!("restarting port {port}: {e:#}"));
                break;
            }
        }
        let restarted = restart.elapsed();
        let before = client.hosts()[victim].requests;
        let back = Instant::now();
        let serving = loop {
            let h = &client.hosts()[victim];
            if h.available && h.requests > before {
                break Some(back.elapsed());
            }
            if back.elapsed() > Duration::from_secs(30) {
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        detected.store(false, Ordering::Release);
        if serving.is_none() {
            problems.push(format!(
                "the restarted server on {port} got no requests again"
            ));
        }
        println!(
            "cycle {}: port {port} killed (SIGKILL) in {:.2} s, detected after {}, restarted in {:.1} s, \
             serving {} after that; {} writes acknowledged, {} reads in the cycle",
            cycle + 1,
            killed.as_secs_f64(),
            detect.map_or("never".into(), |d| format!("{:.3} s", d.as_secs_f64())),
            restarted.as_secs_f64(),
            serving.map_or("never".into(), |d| format!("{:.3} s", d.as_secs_f64())),
            lock(&writes).acknowledged.len() - writes_before,
            reads.run.load(Ordering::Relaxed) - reads_before,
        );
    }
    if let Some(rest) = run.checked_sub(started.elapsed()) {
        std::thread::sleep(rest);
    }
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        rt.block_on(t)?;
    }
    let ran = started.elapsed();
    let loads = rt.block_on(loads)?;
    let (load_line, load_whole) = rt.block_on(check_load(&client, loads));
    println!("{load_line}");
    if !load_whole {
        problems.push("the load is not there exactly once".to_string());
    }
    let hosts = client.hosts();
    // Read every key back (the last server restarted has been serving for a while; any will do).
    let verify_started = Instant::now();
    let found: Vec<Value> = rt
        .block_on(async {
            client
                .request(VERIFY)
                .idempotent(true)
                .batch_size(2000)
                .timeout_millis(VERIFY_TIMEOUT.as_millis() as u64)
                .timeout(VERIFY_TIMEOUT)
                .await?
                .all()
                .await
        })
        .context("reading the keys back")?;
    let verify_took = verify_started.elapsed();
    let mut present: HashMap<String, u32> = HashMap::new();
    for v in found {
        match v {
            Value::String(k) => *present.entry(k).or_default() += 1,
            other => bail!("a key that is not a string: {other:?}"),
        }
    }
    let w = std::mem::take(&mut *lock(&writes));
    let count = |k: &String| present.get(k).copied().unwrap_or(0);
    let acknowledged = w.acknowledged.len();
    let found_acked = w.acknowledged.iter().filter(|k| count(k) > 0).count();
    let lost = acknowledged - found_acked;
    let duplicated = present.values().filter(|&&n| n > 1).count();
    let not_sent_present = w.not_sent.iter().filter(|k| count(k) > 0).count();
    let refused_present = w.refused.iter().filter(|k| count(k) > 0).count();
    let unknown_present = w.unknown.iter().filter(|k| count(k) > 0).count();
    let failed = w.not_sent.len() + w.refused.len();
    let attempted = acknowledged + failed + w.unknown.len();
    let stray = present.len() - found_acked - not_sent_present - refused_present - unknown_present;
    let read_count = reads.run.load(Ordering::Relaxed);
    let read_failed_after = reads.failed_after_detection.load(Ordering::Relaxed);
    println!(
        "figures: {} JanusGraph Servers, {WRITERS} writers, {READERS} readers, {kills} kills in {}; \
         cluster up after {}; writes {attempted} ({:.0}/s): {acknowledged} acknowledged, {} not sent, \
         {} refused by the server, {} unknown (of which {unknown_present} applied); reads {read_count} \
         ({:.0}/s), {} failed ({read_failed_after} after detection); retries {}; detection after {:?} s; \
         requests per host {:?}; {} keys read back in {}",
        ports.len(),
        secs(ran),
        secs(up_after),
        attempted as f64 / ran.as_secs_f64(),
        w.not_sent.len(),
        w.refused.len(),
        w.unknown.len(),
        read_count as f64 / ran.as_secs_f64(),
        reads.failed.load(Ordering::Relaxed),
        client.retries(),
        detections
            .iter()
            .map(|d| (d.as_secs_f64() * 1000.0).round() / 1000.0)
            .collect::<Vec<_>>(),
        hosts.iter().map(|h| h.requests).collect::<Vec<_>>(),
        present.values().map(|&n| n as usize).sum::<usize>(),
        secs(verify_took),
    );
    for (class, e) in &w.first_error {
        println!("first {class} write error: {e}");
    }
    if let Some(e) = &*lock(&reads.first_error) {
        println!("first read error: {e}");
    }
    if not_sent_present > 0 {
        problems.push(format!(
            "{not_sent_present} writes reported as not sent are present"
        ));
    }
    if refused_present > 0 {
        println!("note: {refused_present} writes the server answered with an error are present");
    }
    if stray > 0 {
        problems.push(format!("{stray} keys present that no writer wrote"));
    }
    if lost > 0 {
        problems.push(format!("{lost} acknowledged writes lost"));
    }
    if duplicated > 0 {
        problems.push(format!("{duplicated} keys present more than once"));
    }
    if read_failed_after > 0 {
        problems.push(format!(
            "{read_failed_after} reads issued after a kill was detected failed"
        ));
    }
    if acknowledged == 0 || read_count == 0 {
        problems.push("no write acknowledged or no read made".to_string());
    }
    let line = format!(
        "chaos: {acknowledged} acknowledged, {found_acked} found, lost {lost}, duplicated {duplicated}, \
         {failed} failed, {} unknown; reads: {read_count}, {read_failed_after} failed after detection",
        w.unknown.len()
    );
    if problems.is_empty() {
        Ok(line)
    } else {
        println!("{line}");
        bail!("the chaos run failed: {}", problems.join("; "))
    }
}

/// The loader's files: `LOAD_VERTICES` vertices `l<i>` and as many edges `e<i>`.
fn load_files() -> (String, String) {
    let mut nodes = String::from("~id,~label,n:Int\n");
    let mut edges = String::from("~id,~from,~to,~label,w:Int\n");
    for i in 0..LOAD_VERTICES {
        nodes += &format!("l{i},chaos_load,{i}\n");
        let to = (i * 7 + 1) % LOAD_VERTICES;
        edges += &format!("e{i},l{i},l{to},chaos_link,{i}\n");
    }
    (nodes, edges)
}

/// One load of the files, by the key (its index made first, or found).
async fn load_once(client: &Client) -> Result<LoadSummary, Error> {
    let (nodes, edges) = load_files();
    load(client, &nodes, &edges).await
}

/// The load's schema (the key's index, the headers' keys), made before the first kill by a
/// load of the headers alone: JanusGraph's management API may wait for every instance it
/// knows of, a killed one included, so a key made during the kills timed out (once in a CI
/// run, in the pass during the kills and again in the pass after).
async fn load_schema(client: &Client) -> Result<()> {
    let (nodes, edges) = load_files();
    let header = |f: &str| f.lines().next().unwrap_or_default().to_owned() + "\n";
    let s = load(client, &header(&nodes), &header(&edges)).await?;
    match s.errors.first() {
        None => Ok(()),
        Some(e) => bail!("the load's headers: {e}"),
    }
}

async fn load(client: &Client, nodes: &str, edges: &str) -> Result<LoadSummary, Error> {
    let mut l = Loader::new(client, BatchOptions::default())
        .key_property(LOAD_KEY)
        .create_index();
    l.load_vertices("nodes.csv", nodes.as_bytes()).await?;
    l.load_edges("edges.csv", edges.as_bytes()).await?;
    Ok(l.finish().await)
}

/// What the loader did while the servers died.
#[derive(Default)]
struct Loads {
    passes: u32,
    /// Passes that stopped on an error of the run (the index or the ids could not be read).
    failed: u32,
    /// Rows rejected (not written after the writer's retries), over every pass.
    rejected: u64,
    retried: u64,
    first_error: Option<String>,
}

/// Loads the files again and again until `stop`.
async fn loader(client: Client, stop: Arc<AtomicBool>) -> Loads {
    let mut loads = Loads::default();
    while !stop.load(Ordering::Relaxed) {
        loads.passes += 1;
        match load_once(&client).await {
            Ok(s) => {
                loads.rejected += s.rejected;
                loads.retried += s.retried;
                if let (None, Some(e)) = (&loads.first_error, s.errors.first()) {
                    loads.first_error = Some(e.to_string());
                }
            }
            Err(e) => {
                loads.failed += 1;
                loads.first_error.get_or_insert_with(|| one_line(&e));
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    loads
}

/// Once more after the chaos (the servers all up), then every key read back: the line
/// `load: ...`, and whether the last load was complete and each vertex and edge is there once.
async fn check_load(client: &Client, loads: Loads) -> (String, bool) {
    let last = load_once(client).await;
    let (last, complete) = match last {
        Ok(s) if s.is_complete() => (format!("complete: {s}"), true),
        Ok(s) => (format!("incomplete: {s}: {:?}", s.errors.first()), false),
        Err(e) => (format!("failed: {}", one_line(&e)), false),
    };
    let mut lost_dup = [0usize; 2];
    let mut found = [0usize; 2];
    for (i, q) in [LOAD_VERIFY_V, LOAD_VERIFY_E].into_iter().enumerate() {
        let keys = async {
            client
                .request(q)
                .idempotent(true)
                .batch_size(2000)
                .timeout(VERIFY_TIMEOUT)
                .await?
                .all()
                .await
        }
        .await;
        let keys = match keys {
            Ok(keys) => keys,
            Err(e) => {
                return (
                    format!("load: reading its keys back: {}", one_line(&e)),
                    false,
                )
            }
        };
        let mut present: HashMap<String, u32> = HashMap::new();
        for k in keys {
            if let Value::String(k) = k {
                *present.entry(k).or_default() += 1;
            }
        }
        found[i] = present.len();
        lost_dup[0] += LOAD_VERTICES - present.len().min(LOAD_VERTICES);
        lost_dup[1] += present.values().filter(|&&n| n > 1).count();
    }
    let line = format!(
        "load: {} passes during the chaos ({} stopped by an error, {} rows rejected, {} requests \
         retried; first error: {}), then one more, {last}; {} of {LOAD_VERTICES} vertices and {} of \
         {LOAD_VERTICES} edges found, lost {}, duplicated {}",
        loads.passes,
        loads.failed,
        loads.rejected,
        loads.retried,
        loads.first_error.as_deref().unwrap_or("none"),
        found[0],
        found[1],
        lost_dup[0],
        lost_dup[1]
    );
    (line, complete && lost_dup == [0, 0])
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `w<writer>-<seq>` keys one after the other until `stop`.
async fn writer(writer: usize, client: Client, stop: Arc<AtomicBool>, writes: Arc<Mutex<Writes>>) {
    let mut seq = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let key = format!("w{writer}-{seq}");
        seq += 1;
        let res = async {
            client
                .request(WRITE)
                .param("k", Value::String(key.clone()))
                .await?
                .all()
                .await
        }
        .await;
        let class = match &res {
            Ok(ids) if ids.len() == 1 => "acknowledged",
            Err(Error::Transport {
                kind: TransportKind::Connect,
                ..
            }) => "not-sent",
            Err(Error::Server(_)) => "refused",
            _ => "unknown",
        };
        {
            let mut w = lock(&writes);
            match class {
                "acknowledged" => w.acknowledged.push(key),
                "not-sent" => w.not_sent.push(key),
                "refused" => w.refused.push(key),
                _ => w.unknown.push(key),
            }
            if class != "acknowledged" && !w.first_error.contains_key(class) {
                let text = match &res {
                    Ok(ids) => format!("{} results to one addV", ids.len()),
                    Err(e) => one_line(e),
                };
                w.first_error.insert(class, text);
            }
        }
        if class == "not-sent" {
            // No host could be reached: do not spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Idempotent reads until `stop`; a failure while `detected` counts as one after detection.
async fn reader(
    client: Client,
    stop: Arc<AtomicBool>,
    detected: Arc<AtomicBool>,
    reads: Arc<Reads>,
) {
    while !stop.load(Ordering::Relaxed) {
        let in_window = detected.load(Ordering::Acquire);
        let res: Result<i64, Error> = async {
            client
                .request(READ)
                .idempotent(true)
                .await?
                .one::<i64>()
                .await
        }
        .await;
        reads.run.fetch_add(1, Ordering::Relaxed);
        if let Err(e) = res {
            reads.failed.fetch_add(1, Ordering::Relaxed);
            if in_window {
                reads.failed_after_detection.fetch_add(1, Ordering::Relaxed);
            }
            lock(&reads.first_error).get_or_insert_with(|| one_line(&e));
        }
    }
}
