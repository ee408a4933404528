//! `cargo xtask bench --only wan` (issue 43): the clients against a live Gremlin Server 4
//! behind the simulated WAN link of `graphbinary_kit::link`, at a cross-region setting
//! (30 ms one way, 200 Mbit/s) and a same-region one (1 ms, no cap), compression on and off,
//! each row beside the link's floor: what the link alone costs (round trips x delay, plus the
//! bytes the link carried over its bandwidth).
//!
//! Its own section of BENCHMARKS.md ([`SECTION_START`]); run alone it replaces only that.

use std::fmt::Write as _;
use std::io::{Read, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use graphbinary_kit::link::{self, Spec};
use serde_json::Value as Json;

use super::{fmt_rate, fmt_secs, measure, median_of, Report, BIG_QUERY};
use crate::server;

/// The heading this part's section starts with.
pub const SECTION_START: &str = "## WAN link";

/// The link settings measured: cross-region, same region, and a slow cross-region link (where
/// compression's break-even shows).
const SETTINGS: [&str; 3] = ["30ms,200mbit", "1ms,none", "30ms,50mbit"];

/// The first of this part's ports (the links listen on it and the next ones).
const LINK_PORT: u16 = 8250;

/// The contenders of the section: ours, then the peers of `xtask/peers/` that are set up.
const CONTENDERS: [&str; 4] = ["rust", "java", "go", "python"];

fn name(c: &str) -> &'static str {
    match c {
        "rust" => "**graphbinary-rs** (ours)",
        "rust-defaults" => "**graphbinary-rs**, defaults (`Client::builder(url).build()`)",
        "java" => "Java driver 4.0.0-beta.3",
        "go" => "gremlin-go v4.0.0-beta.3",
        "python" => "gremlinpython 4.0.0b3",
        _ => "?",
    }
}

/// One row measured: the contender's JSON line and what the link carried meanwhile.
struct Row {
    contender: &'static str,
    compression: &'static str,
    outcome: Result<Json, String>,
    /// Bytes the link carried (up + down) per request, warm-up requests included in the count.
    wire_per_request: f64,
}

/// What one setting measured, for the verdicts.
struct Outcome {
    spec: Spec,
    /// Ours on the ~200k query: (compression, median seconds, floor seconds).
    big: Vec<(&'static str, f64, f64)>,
    /// The raw drain's median on the ~200k query: (compression, seconds).
    drains: Vec<(&'static str, f64)>,
    fidelity_ok: bool,
}

/// Runs the part: `port` is the Gremlin Server 4's (started if none answers).
pub fn run(quick: bool, port: u16, rep: &mut Report, client: &Path) -> Result<()> {
    // Kept to the end: a server started here is stopped when it drops.
    let _server = server::ensure_running("modern", port)?;
    let target = format!("127.0.0.1:{port}");
    let mut s = String::new();
    writeln!(
        s,
        "{SECTION_START}: Gremlin Server 4.0.0-beta.3 across a simulated link\n"
    )?;
    writeln!(
        s,
        "`cargo xtask bench --only wan`. The same live server as section 2 (modern graph), \
         reached through `graphbinary_kit::link` (`cargo xtask link`): a TCP proxy in user \
         space (this kernel has no netem) that delays every byte by the one-way delay in each \
         direction (a timed queue: the delay costs no throughput), serializes each direction \
         at the bandwidth cap, and holds a new connection's first byte for one round trip (the \
         TCP handshake). Every contender meets the same link. Latency: one process per row, \
         one connection opened by a warm-up request, then the timed requests on it (median). \
         Throughput: a pool of as many connections as the concurrency, opened by a warm-up \
         round, then the timed requests. \"wire\" is what the link carried per request (both \
         directions, HTTP framing included, the warm-up requests counted alike). The floor of \
         a latency row is what the link alone costs: one round trip plus the wire bytes over \
         the bandwidth; the ceiling of a throughput row is the most the link allows: \
         requests / max(rounds of round trips, wire bytes / bandwidth), a round being one \
         request per connection. The raw drain row of each latency pair is the measured floor: \
         the bench's own HTTP/1.1 reader sends the same request on one connection and reads \
         each body to its end, decoding nothing (what the server and the link take).\n"
    )?;
    let mut outcomes = Vec::new();
    let mut missing: Vec<(&'static str, String)> = Vec::new();
    for (i, setting) in SETTINGS.iter().enumerate() {
        let spec = Spec::parse(setting)?;
        outcomes.push(setting_section(
            &mut s,
            rep,
            client,
            quick,
            spec,
            (LINK_PORT + i as u16, &target),
            &mut missing,
        )?);
    }
    writeln!(s, "### Verdicts\n")?;
    for o in &outcomes {
        writeln!(
            s,
            "* link {} fidelity (round trip, a new connection's first byte and 20 MB within \
             10% of the settings): {}",
            o.spec,
            met(o.fidelity_ok)
        )?;
        for (comp, med, computed) in &o.big {
            // No client beats the server's own time: the floor is the larger of the computed
            // one and the measured raw drain.
            let drain = o
                .drains
                .iter()
                .find(|d| d.0 == *comp)
                .map_or(f64::NAN, |d| d.1);
            let floor = computed.max(drain);
            writeln!(
                s,
                "* link {}: ours on the ~200k query within 1.2x of the floor (the larger of the \
                 computed {} and the raw drain's {}), compression {comp}: {:.2}x ({}), {}",
                o.spec,
                fmt_secs(*computed),
                fmt_secs(drain),
                med / floor,
                fmt_secs(*med),
                met(*med <= 1.2 * floor)
            )?;
        }
        let get = |c: &str| o.big.iter().find(|b| b.0 == c).map(|b| b.1);
        if let (Some(none), Some(deflate)) = (get("none"), get("deflate")) {
            writeln!(
                s,
                "* link {}: the ~200k query is {:.2}x {} with compression (deflate {} against \
                 none {}): the rows favour compression **{}** on this link",
                o.spec,
                if deflate > none {
                    deflate / none
                } else {
                    none / deflate
                },
                if deflate > none { "slower" } else { "faster" },
                fmt_secs(deflate),
                fmt_secs(none),
                if deflate > none { "off" } else { "on" },
            )?;
        }
    }
    if !missing.is_empty() {
        writeln!(s, "\nNot measured:\n")?;
        for (c, why) in &missing {
            writeln!(s, "* {}: {why}", name(c))?;
        }
    }
    writeln!(s)?;
    rep.sections.push(s);
    Ok(())
}

fn met(b: bool) -> &'static str {
    if b {
        "met"
    } else {
        "**not met**"
    }
}

/// One link setting: its fidelity, then the latency and throughput tables through it.
fn setting_section(
    s: &mut String,
    rep: &mut Report,
    client: &Path,
    quick: bool,
    spec: Spec,
    (listen, target): (u16, &str),
    missing: &mut Vec<(&'static str, String)>,
) -> Result<Outcome> {
    let fid = link::fidelity(spec, 20, 20_000_000)?;
    eprintln!("xtask bench: wan: {fid}");
    rep.raw.push(fid.to_string());
    let running = link::spawn(&format!("127.0.0.1:{listen}"), target, spec)?;
    let url = format!("http://{}/gremlin", running.addr());
    writeln!(
        s,
        "### Link {spec} ({} one way, {})\n",
        fmt_secs(spec.delay.as_secs_f64()),
        match spec.bits_per_sec {
            Some(b) => format!("{} Mbit/s each way", b / 1_000_000),
            None => "no bandwidth cap".into(),
        }
    )?;
    writeln!(
        s,
        "Fidelity, measured before the rows (an echo server behind the same link): {fid}: \
         {}.\n",
        if fid.within(0.1) {
            "within 10%"
        } else {
            "**not within 10%**"
        }
    )?;

    // Latency.
    let mut big = Vec::new();
    let mut drains = Vec::new();
    writeln!(
        s,
        "| query | contender | compression | median | min | wire / request | link floor | vs floor | vs raw drain |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|"
    )?;
    for (q, label, runs) in [
        (BIG_QUERY, "~200k results", if quick { 2 } else { 5 }),
        ("g.V()", "`g.V()`", if quick { 5 } else { 30 }),
    ] {
        for comp in ["none", "deflate"] {
            // The measured floor first: the same requests drained, nothing decoded.
            let (up0, down0, _) = running.counters().snapshot();
            let drained = raw_drain(running.addr(), q, comp == "deflate", runs);
            let mut drain_med = f64::NAN;
            std::thread::sleep(Duration::from_millis(5) + spec.delay);
            let (up1, down1, _) = running.counters().snapshot();
            let wire = ((up1 - up0) + (down1 - down0)) as f64 / (runs + 1) as f64;
            let floor = spec.floor(1.0, wire as u64).as_secs_f64();
            match drained {
                Ok(times) => {
                    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
                    let med = median_of(times);
                    drain_med = med;
                    rep.raw.push(format!(
                        "wan {spec} raw drain {q:?} compression {comp}: median {med:.4} s, \
                         {wire:.0} wire bytes/request"
                    ));
                    if q == BIG_QUERY {
                        drains.push((comp, med));
                    }
                    writeln!(
                        s,
                        "| {label} | raw drain (measured floor: the body read, nothing decoded) \
                         | {comp} | {} | {} | {} | {} | {:.2}x | 1.00x |",
                        fmt_secs(med),
                        fmt_secs(min),
                        bytes(wire),
                        fmt_secs(floor),
                        med / floor
                    )?
                }
                Err(e) => writeln!(
                    s,
                    "| {label} | raw drain | {comp} | failed: {e} | | | | | |"
                )?,
            }
            for c in CONTENDERS {
                if missing.iter().any(|m| m.0 == c) {
                    continue;
                }
                let args = args(
                    &url,
                    q,
                    "latency",
                    Some(comp),
                    &["--runs", &runs.to_string()],
                );
                let row = one_row(rep, &running, c, comp, client, &args, runs + 1);
                if not_built(&row, missing) {
                    continue;
                }
                let (med, min) = match &row.outcome {
                    Ok(j) => {
                        let runs: Vec<f64> = j["runs"]
                            .as_array()
                            .map(|a| a.iter().filter_map(Json::as_f64).collect())
                            .unwrap_or_default();
                        let min = runs.iter().copied().fold(f64::INFINITY, f64::min);
                        (median_of(runs), min)
                    }
                    Err(_) => (f64::NAN, f64::NAN),
                };
                let floor = spec.floor(1.0, row.wire_per_request as u64).as_secs_f64();
                if c == "rust" && q == BIG_QUERY && med.is_finite() {
                    big.push((comp, med, floor));
                }
                match &row.outcome {
                    Ok(_) => writeln!(
                        s,
                        "| {label} | {} | {comp} | {} | {} | {} | {} | {:.2}x | {:.2}x |",
                        name(c),
                        fmt_secs(med),
                        fmt_secs(min),
                        bytes(row.wire_per_request),
                        fmt_secs(floor),
                        med / floor,
                        med / drain_med
                    )?,
                    Err(e) => writeln!(
                        s,
                        "| {label} | {} | {comp} | failed: {} | | | | | |",
                        name(c),
                        e.replace('|', "/")
                    )?,
                }
            }
        }
    }

    // Throughput.
    let requests = if quick { 300 } else { 2000 };
    writeln!(
        s,
        "\n`g.V()` throughput, {requests} requests a measurement:\n\n\
         | concurrency | contender | compression | requests/s | link ceiling | of the ceiling | wire / request |\n\
         |---:|---|---|---:|---:|---:|---:|"
    )?;
    for conc in [64usize, 256] {
        let rows: Vec<(&'static str, &'static str)> = ["none", "deflate"]
            .iter()
            .flat_map(|comp| CONTENDERS.iter().map(move |c| (*c, *comp)))
            .chain([("rust-defaults", "deflate")])
            .collect();
        for (c, comp) in rows {
            if missing.iter().any(|m| m.0 == c) {
                continue;
            }
            let load = [
                "--concurrency",
                &conc.to_string(),
                "--requests",
                &requests.to_string(),
            ];
            let (contender, a) = if c == "rust-defaults" {
                // Everything as the defaults have it (compression on, the default pool).
                let mut a = args(&url, "g.V()", "throughput", None, &load);
                a.push("--defaults".into());
                ("rust", a)
            } else {
                (c, args(&url, "g.V()", "throughput", Some(comp), &load))
            };
            // The warm-up round is `conc` requests.
            let mut row = one_row(rep, &running, contender, comp, client, &a, requests + conc);
            row.contender = c;
            if not_built(&row, missing) {
                continue;
            }
            let rounds = requests.div_ceil(conc) as f64;
            let wire_time = spec
                .serialization((row.wire_per_request * requests as f64) as u64)
                .as_secs_f64();
            let ceiling = requests as f64 / (rounds * spec.rtt().as_secs_f64()).max(wire_time);
            match &row.outcome {
                Ok(j) => {
                    let rate = j["req_per_sec"].as_f64().unwrap_or(f64::NAN);
                    writeln!(
                        s,
                        "| {conc} | {} | {comp} | {} | {} | {:.0}% | {} |",
                        name(c),
                        fmt_rate(rate),
                        fmt_rate(ceiling),
                        100.0 * rate / ceiling,
                        bytes(row.wire_per_request)
                    )?
                }
                Err(e) => writeln!(
                    s,
                    "| {conc} | {} | {comp} | failed: {} | | | |",
                    name(c),
                    e.replace('|', "/")
                )?,
            }
        }
    }
    writeln!(s)?;
    let fidelity_ok = fid.within(0.1);
    drop(running);
    Ok(Outcome {
        spec,
        big,
        drains,
        fidelity_ok,
    })
}

/// A contender's arguments (`--compression` when `comp` is given).
fn args(url: &str, q: &str, mode: &str, comp: Option<&str>, extra: &[&str]) -> Vec<String> {
    let comp = comp.map(|c| ["--compression", c]);
    ["--url", url, "--query", q, "--mode", mode]
        .iter()
        .chain(comp.iter().flatten())
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// Runs contender `c` once with `args`, counting what the link carried for its `requests`
/// requests (warm-up included).
fn one_row(
    rep: &mut Report,
    running: &link::Running,
    c: &'static str,
    compression: &'static str,
    client: &Path,
    args: &[String],
    requests: usize,
) -> Row {
    let (up0, down0, _) = running.counters().snapshot();
    let outcome = measure(rep, c, client, args);
    // Let the link's last bytes (its delay) pass before reading the counters.
    std::thread::sleep(Duration::from_millis(5) + running.spec().delay);
    let (up1, down1, _) = running.counters().snapshot();
    Row {
        contender: c,
        compression,
        outcome,
        wire_per_request: ((up1 - up0) + (down1 - down0)) as f64 / requests.max(1) as f64,
    }
}

/// Whether `row` failed because its peer is not set up (then noted once in `missing`).
fn not_built(row: &Row, missing: &mut Vec<(&'static str, String)>) -> bool {
    let _ = row.compression;
    match &row.outcome {
        Err(e) if e.contains("is not built") => {
            if !missing.iter().any(|m| m.0 == row.contender) {
                missing.push((
                    row.contender,
                    "not set up on this machine (`xtask/peers/setup.sh`)".into(),
                ));
            }
            true
        }
        _ => false,
    }
}

/// The measured floor: `runs` requests of `q` on one connection through `addr` (after one
/// warm-up), each body read to its end and nothing decoded; their seconds.
fn raw_drain(addr: SocketAddr, q: &str, deflate: bool, runs: usize) -> Result<Vec<f64>, String> {
    let mut c = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    c.set_nodelay(true).map_err(|e| e.to_string())?;
    let body = serde_json::json!({ "gremlin": q, "bulkResults": false }).to_string();
    let request = format!(
        "POST /gremlin HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/vnd.graphbinary-v4.0\r\nAccept-Encoding: {}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        if deflate { "deflate" } else { "identity" },
        body.len()
    );
    let mut times = Vec::new();
    let mut buf = Vec::with_capacity(1 << 20);
    for i in 0..=runs {
        let t = Instant::now();
        c.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
        read_response(&mut c, &mut buf)?;
        if i > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    Ok(times)
}

/// Reads one HTTP/1.1 response (a `Content-Length` or a chunked body) from `c`, leaving what
/// follows it in `buf`; fails on anything else.
fn read_response(c: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(), String> {
    let mut chunk = [0u8; 64 << 10];
    let mut fill = |buf: &mut Vec<u8>| -> Result<(), String> {
        let n = c.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the server closed the connection inside a response".into());
        }
        buf.extend_from_slice(&chunk[..n]);
        Ok(())
    };
    let find = |b: &[u8], pat: &[u8]| b.windows(pat.len()).position(|w| w == pat);
    let head_end = loop {
        if let Some(i) = find(buf, b"\r\n\r\n") {
            break i + 4;
        }
        fill(buf)?;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    if !head.starts_with("http/1.1 200") {
        return Err(format!("not a 200: {}", head.lines().next().unwrap_or("")));
    }
    buf.drain(..head_end);
    if let Some(len) = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        while buf.len() < len {
            fill(buf)?;
        }
        buf.drain(..len);
        return Ok(());
    }
    if !head.contains("transfer-encoding: chunked") {
        return Err("a response neither chunked nor of a known length".into());
    }
    loop {
        let line_end = loop {
            if let Some(i) = find(buf, b"\r\n") {
                break i;
            }
            fill(buf)?;
        };
        let size_text = String::from_utf8_lossy(&buf[..line_end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| format!("a bad chunk size {size_text:?}"))?;
        if size == 0 {
            // The last chunk, then the trailer fields (Gremlin Server 4 sends its status there)
            // up to an empty line.
            buf.drain(..line_end + 2);
            loop {
                if buf.starts_with(b"\r\n") {
                    buf.drain(..2);
                    return Ok(());
                }
                match find(buf, b"\r\n") {
                    Some(i) => {
                        let field = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                        buf.drain(..i + 2);
                        // The server's status: a failure after a 200 head is said here.
                        if let Some(code) = field.strip_prefix("code:").map(str::trim) {
                            if code != "200" && code != "204" {
                                return Err(format!("not a 200: the trailer says code {code}"));
                            }
                        }
                    }
                    None => fill(buf)?,
                }
            }
        }
        // The chunk and its CRLF.
        let need = line_end + 2 + size + 2;
        while buf.len() < need {
            fill(buf)?;
        }
        buf.drain(..need);
    }
}

fn bytes(b: f64) -> String {
    if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{b:.0} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The raw drain reads answer after answer on one connection, plain and deflated, through
    /// a link (a trailer left unread would break the second), and fails cleanly on a bad query.
    /// Against the live server of `GREMLIN_URL` (skipped when it is unset, as `cargo xtask ci
    /// --no-server` runs).
    #[test]
    fn the_raw_drain_reads_answers_one_after_another_through_a_link() {
        let Ok(url) = std::env::var("GREMLIN_URL") else {
            eprintln!("skipped: GREMLIN_URL is unset");
            return;
        };
        let host = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let running = link::spawn("127.0.0.1:0", &host, Spec::parse("1ms,none").unwrap()).unwrap();
        for deflate in [false, true] {
            let times = raw_drain(running.addr(), "g.V()", deflate, 3).unwrap();
            assert_eq!(times.len(), 3);
            // Each at least the link's round trip.
            assert!(times.iter().all(|t| *t >= 0.002), "{times:?}");
        }
        let e = raw_drain(running.addr(), "g.V(", false, 1).unwrap_err();
        assert!(e.contains("not a 200"), "{e}");
        let (up, down, conns) = running.counters().snapshot();
        assert_eq!(conns, 3);
        assert!(up > 0 && down > 0);
    }
}
