//! `cargo xtask bench --only wan` (issue 43): the clients against a live Gremlin Server 4
//! behind the simulated WAN link of `graphbinary_kit::link`, at a cross-region setting
//! (30 ms one way, 200 Mbit/s) and a same-region one (1 ms, no cap), compression on and off,
//! each row beside the link's floor: what the link alone costs (round trips x delay, plus the
//! bytes the link carried over its bandwidth). The latency rows again through the same link in
//! front of the replay server (`crate::replay`: the clients alone) and in front of the servers
//! over TLS (`--tls`, each contender trusting the test CA through `SSL_CERT_FILE`).
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

use super::{fmt_rate, fmt_secs, measure, measure_env, median_of, Report, BIG_QUERY};
use crate::server;

/// The heading this part's section starts with.
pub const SECTION_START: &str = "## WAN link";

/// The link settings measured: cross-region, same region, and a slow cross-region link (where
/// compression's break-even shows).
const SETTINGS: [&str; 3] = ["30ms,200mbit", "1ms,none", "30ms,50mbit"];

/// The first of this part's ports (the links listen on it and the next ones).
const LINK_PORT: u16 = 8250;

/// The port of the Gremlin Server 4 over TLS (and the next one, 3.7.3's), started unless one
/// answers there.
const TLS_PORT: u16 = 8262;

/// The contenders: ours, then the peers of `xtask/peers/` (TinkerPop 4 drivers) that are set up.
const CONTENDERS: [&str; 4] = ["rust", "java", "go", "python"];

/// The same on TinkerPop 3 (Gremlin Server 3.7.3, WebSocket, GraphBinary 1).
const CONTENDERS3: [&str; 4] = ["rust", "java3", "go3", "python3"];

/// The concurrencies of the throughput rows.
const CONCURRENCY: [usize; 3] = [64, 256, 1000];

/// A column's heading.
fn short(c: &str) -> &'static str {
    match c {
        "rust" => "ours",
        "java" | "java3" => "Java",
        "go" | "go3" => "Go",
        "python" | "python3" => "Python",
        _ => "?",
    }
}

fn name(c: &str) -> &'static str {
    match c {
        "rust" => "graphbinary-rs",
        "java" => "Java driver 4.0.0-beta.3",
        "go" => "gremlin-go v4.0.0-beta.3",
        "python" => "gremlinpython 4.0.0b3",
        "java3" => "Java driver 3.7.3",
        "go3" => "gremlin-go v3.7.3",
        "python3" => "gremlinpython 3.7.3",
        _ => "?",
    }
}

/// One row measured: the contender's JSON line and what the link carried meanwhile.
struct Row {
    contender: &'static str,
    outcome: Result<Json, String>,
    /// Bytes the link carried (up + down) per request, warm-up requests included in the count.
    wire_per_request: f64,
}

/// One line of a table: each contender's figure (seconds, or requests/s), `None` if it failed.
struct Line {
    label: String,
    /// Requests/s (higher is better) rather than seconds.
    rate: bool,
    cells: Vec<(&'static str, Option<f64>)>,
    /// A throughput line's ceiling: the most requests/s the link lets through.
    ceiling: Option<f64>,
}

impl Line {
    fn get(&self, c: &str) -> Option<f64> {
        self.cells.iter().find(|x| x.0 == c).and_then(|x| x.1)
    }

    /// The contenders' cells of its Markdown table row, in the order of `contenders` (`-`: not
    /// measured in this row).
    fn table_cells(&self, contenders: &[&str]) -> String {
        contenders
            .iter()
            .map(|c| match self.cells.iter().find(|x| x.0 == *c) {
                Some((_, v)) => format!(" {} |", cell(*v, self.rate)),
                None => " - |".into(),
            })
            .collect()
    }

    /// The best peer's figure and name.
    fn best_peer(&self) -> Option<(f64, &'static str)> {
        let better = |a: f64, b: f64| if self.rate { a > b } else { a < b };
        self.cells
            .iter()
            .filter(|x| x.0 != "rust")
            .filter_map(|x| x.1.map(|v| (v, x.0)))
            .fold(None, |best: Option<(f64, &str)>, (v, c)| match best {
                Some((b, _)) if !better(v, b) => best,
                _ => Some((v, c)),
            })
    }

    /// Ours against the best peer, > 1 when ours is better.
    fn ours_vs_best(&self) -> Option<(f64, &'static str)> {
        let ours = self.get("rust")?;
        let (best, who) = self.best_peer()?;
        Some((if self.rate { ours / best } else { best / ours }, who))
    }
}

/// The rows of a setting besides the live ones: the replay server's address, and the server
/// over TLS (its address and the root certificate, PEM, its certificate is signed by).
#[derive(Clone, Copy, Default)]
struct Extra<'a> {
    replay: Option<&'a str>,
    tls: Option<(&'a str, &'a Path)>,
}

/// What one setting measured, for the verdicts.
struct Outcome {
    spec: Spec,
    /// TinkerPop 3 rather than 4.
    tp3: bool,
    /// Measured before the TinkerPop 4 rows (the TinkerPop 3 ones use the same settings).
    fidelity: Option<link::Fidelity>,
    /// Ours on the ~200k query: (compression, median, computed floor, raw drain's median).
    big: Vec<(&'static str, f64, f64, f64)>,
    /// Every latency line, then every throughput line with pools sized to the concurrency.
    sized: Vec<Line>,
    /// The throughput lines at each contender's defaults.
    defaults: Vec<Line>,
    peers: bool,
}

/// Runs the part: `port` is the Gremlin Server 4's (started if none answers).
pub fn run(quick: bool, (port, port3): (u16, u16), rep: &mut Report, client: &Path) -> Result<()> {
    // The peers of both generations (a `--only wan` run on a new machine had none; a peer
    // that cannot be set up is a "failed" cell and its rows are not wins).
    super::setup_sh(rep, &["java", "go", "python", "java3", "go3", "python3"])?;
    // Kept to the end: a server started here is stopped when it drops. The four start at
    // once; one that already answers is reused. Over TLS (`--tls`): a certificate of the test
    // CA `ca`.
    let server3 = server::Server::tp3("3.7.3", "modern");
    let _servers = server::ensure_all(vec![
        (server::Server::tp4("modern"), port),
        (server3.clone(), port3),
        (server::Server::tp4("modern").with_tls(true), TLS_PORT),
        (server3.with_tls(true), TLS_PORT + 1),
    ])?;
    let target = format!("127.0.0.1:{port}");
    let target3 = format!("127.0.0.1:{port3}");
    // The replayed rows' server: each latency query's answers as the live servers sent them
    // (HTTP with and without deflate, and the WebSocket frames), served at full speed.
    let queries = [BIG_QUERY.to_string(), "g.V()".to_string()];
    let replay = crate::replay::serve(
        0,
        &crate::replay::record_all(&format!("http://{target}/gremlin"), &queries, true)?,
        &crate::replay::ws::record_all(&format!("ws://{target3}/gremlin"), &queries)?,
        2,
    )?;
    let replay_target = replay.addr.to_string();
    let (tls_target, tls_target3) = (
        format!("127.0.0.1:{TLS_PORT}"),
        format!("127.0.0.1:{}", TLS_PORT + 1),
    );
    let ca = server::tls_root()?;
    let mut body = String::new();
    let mut outcomes = Vec::new();
    let mut missing: Vec<(&'static str, String)> = Vec::new();
    for (i, setting) in SETTINGS.iter().enumerate() {
        let spec = Spec::parse(setting)?;
        // The peers on the two settings; the slow link is for compression alone.
        let peers = i < 2;
        outcomes.push(setting_section(
            &mut body,
            rep,
            client,
            (spec, peers, false, quick),
            (LINK_PORT + i as u16, &target),
            if peers {
                Extra {
                    replay: Some(&replay_target),
                    tls: Some((&tls_target, &ca)),
                }
            } else {
                Extra::default()
            },
            &mut missing,
        )?);
    }
    // TinkerPop 3 on the two settings.
    for (i, setting) in SETTINGS[..2].iter().enumerate() {
        let spec = Spec::parse(setting)?;
        outcomes.push(setting_section(
            &mut body,
            rep,
            client,
            (spec, true, true, quick),
            (LINK_PORT + 3 + i as u16, &target3),
            Extra {
                replay: Some(&replay_target),
                tls: Some((&tls_target3, &ca)),
            },
            &mut missing,
        )?);
    }
    let mut s = String::new();
    writeln!(
        s,
        "{SECTION_START}: Gremlin Server 4.0.0-beta.3 across a simulated link\n"
    )?;
    writeln!(
        s,
        "`cargo xtask bench --only wan`: the servers behind our link (`graphbinary_kit::link`: \
         one-way delay, bandwidth cap, a new connection's first byte a round trip late) for \
         ours ({}), Java ({}), Go ({}), Python ({}), and on 3.7.3 their 3.7.3 drivers \
         (*deflate*: WebSocket permessage-deflate). Latency: one connection, median; \
         *replayed*: the link before our replay server (the clients alone); *tls*: `xtask \
         server --tls`, its CA in `SSL_CERT_FILE`; those two: 3 runs of ~200k, 15 of `g.V()` \
         (none replayed). Python: ~200k live and one run; uncompressed. Ours runs in a tokio \
         task (a service's handler) and drops its results after the clock (as a GC would). \
         Each row starts with the next contender. Throughput: pools sized to the concurrency or at *defaults* (ours {} HTTP or 8 WebSocket connections; 4.0 peers 128, \
         deflate). Floor: *computed* (round trip + wire bytes over the cap) or *drain* (nothing \
         decoded), the larger. Break-even: `ClientBuilder::compression`.\n",
        name("rust"),
        name("java"),
        name("go"),
        name("python"),
        graphbinary_client::client::DEFAULT_POOL_SIZE,
    )?;
    writeln!(
        s,
        "Fidelity (an echo server behind the link), measured (expected):\n\n\
         | link | round trip | new connection | 20 MB | within 10% |\n\
         |---|---:|---:|---:|---|"
    )?;
    for o in &outcomes {
        let Some(f) = &o.fidelity else { continue };
        let ms = |d: Duration, e: Option<Duration>| match e {
            Some(e) => format!(
                "{:.2} ({:.2}) ms",
                d.as_secs_f64() * 1e3,
                e.as_secs_f64() * 1e3
            ),
            None => format!("{:.2} ms (no cap)", d.as_secs_f64() * 1e3),
        };
        writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            o.spec,
            ms(f.rtt, Some(f.expected_rtt())),
            ms(f.first_byte, Some(f.expected_first_byte())),
            ms(f.bulk, o.spec.bits_per_sec.map(|_| f.expected_bulk())),
            if f.within(0.1) { "yes" } else { "**no**" }
        )?;
    }
    writeln!(s)?;
    s.push_str(&body);
    writeln!(s, "### Verdicts (issue 43's targets, this run)\n")?;
    for o in &outcomes {
        verdicts(&mut s, o)?;
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

/// The verdict lines of one setting.
fn verdicts(s: &mut String, o: &Outcome) -> Result<()> {
    let l = format!("{}{}", if o.tp3 { "TP3 " } else { "" }, o.spec);
    if let Some(f) = &o.fidelity {
        writeln!(s, "* {l}, link fidelity: {}", met(f.within(0.1)))?;
    }
    if !o.big.is_empty() {
        // No client beats the server's own time: the floor is the larger of the computed one
        // and the measured raw drain.
        let parts: Vec<String> = o
            .big
            .iter()
            .map(|(comp, med, computed, drain)| {
                format!(
                    "{comp} {:.2}x ({} / {})",
                    med / computed.max(*drain),
                    fmt_secs(*med),
                    fmt_secs(computed.max(*drain))
                )
            })
            .collect();
        let ok = o
            .big
            .iter()
            .all(|(_, med, computed, drain)| *med <= 1.2 * computed.max(*drain));
        writeln!(
            s,
            "* {l}, ~200k within 1.2x of the floor: {}: {}",
            parts.join(", "),
            met(ok)
        )?;
    }
    let get = |c: &str| o.big.iter().find(|b| b.0 == c).map(|b| b.1);
    if let (Some(none), Some(deflate)) = (get("none"), get("deflate")) {
        writeln!(
            s,
            "* {l}, compression on ~200k: deflate {}, none {}: favours **{}**",
            fmt_secs(deflate),
            fmt_secs(none),
            if deflate > none { "off" } else { "on" },
        )?;
    }
    if !o.peers {
        return Ok(());
    }
    let losses: Vec<String> = o
        .sized
        .iter()
        .chain(&o.defaults)
        .filter_map(|line| match line.ours_vs_best() {
            Some((r, who)) if r < 1.0 => Some(format!("{} ({} {r:.2}x)", line.label, short(who))),
            None if line.get("rust").is_none() => Some(format!("{} (ours failed)", line.label)),
            // No peer measured (not set up, or every one failed): not a win.
            None => Some(format!("{} (no peer measured)", line.label)),
            _ => None,
        })
        .collect();
    let rows = o.sized.len() + o.defaults.len();
    writeln!(
        s,
        "* {l}, ours fastest in every row: {} of {rows}{}: {}",
        rows - losses.len(),
        if losses.is_empty() {
            String::new()
        } else {
            format!(", not in {}", losses.join(", "))
        },
        met(losses.is_empty())
    )?;
    let ratios = |lines: &[Line], bound: f64| -> (Vec<String>, bool) {
        let mut ok = true;
        let v = lines
            .iter()
            .filter(|line| line.rate)
            .map(|line| (line, short_label(&line.label)))
            .map(|(line, label)| match line.ours_vs_best() {
                Some((r, who)) => {
                    ok &= r >= bound;
                    let best = line.best_peer().map_or(0.0, |b| b.0);
                    match line.ceiling {
                        // A target above what the link lets through is shown, not guessed.
                        Some(c) if r < bound && bound * best > c => format!(
                            "{label} {r:.2}x (out of reach: {bound}x {} = {} > ceiling {})",
                            short(who),
                            fmt_rate(bound * best),
                            fmt_rate(c)
                        ),
                        _ => format!("{label} {r:.2}x"),
                    }
                }
                None => {
                    ok = false;
                    format!("{label} n/a")
                }
            })
            .collect();
        (v, ok)
    };
    let (v, ok) = ratios(&o.sized, 1.2);
    writeln!(
        s,
        "* {l}, throughput >= 1.2x the best peer, pools sized: {}: {}",
        v.join(", "),
        met(ok)
    )?;
    let (v, ok) = ratios(&o.defaults, 1.0);
    writeln!(
        s,
        "* {l}, ours at defaults >= every peer's: {}: {}",
        v.join(", "),
        met(ok)
    )?;
    Ok(())
}

/// A throughput line's label in a verdict that names its pools: `64 sized, none` is `64 none`,
/// `64 defaults` is `64`.
fn short_label(label: &str) -> String {
    label
        .replace("sized, ", "")
        .replace(" sized", "")
        .replace(" defaults", "")
}

fn met(b: bool) -> &'static str {
    if b {
        "met"
    } else {
        "**not met**"
    }
}

fn cell(v: Option<f64>, rate: bool) -> String {
    match v {
        Some(v) if rate => fmt_rate(v),
        Some(v) => fmt_secs(v),
        None => "failed".into(),
    }
}

/// One link setting: the latency and throughput tables through it (`peers`: with the peers).
fn setting_section(
    s: &mut String,
    rep: &mut Report,
    client: &Path,
    (spec, peers, tp3, quick): (Spec, bool, bool, bool),
    (listen, target): (u16, &str),
    Extra { replay, tls }: Extra,
    missing: &mut Vec<(&'static str, String)>,
) -> Result<Outcome> {
    let fid = if tp3 {
        None
    } else {
        let fid = link::fidelity(spec, 20, 20_000_000)?;
        eprintln!("xtask bench: wan: {fid}");
        rep.raw.push(fid.to_string());
        Some(fid)
    };
    let running = link::spawn(&format!("127.0.0.1:{listen}"), target, spec)?;
    let url_of = |r: &link::Running, tls: bool| {
        let scheme = match (tp3, tls) {
            (false, false) => "http",
            (false, true) => "https",
            (true, false) => "ws",
            (true, true) => "wss",
        };
        format!("{scheme}://{}/gremlin", r.addr())
    };
    let url = url_of(&running, false);
    // The replayed and TLS rows: the same link (any free port) in front of the replay server
    // or of the server over TLS.
    let replayed = match replay {
        Some(to) => Some(link::spawn("127.0.0.1:0", to, spec)?),
        None => None,
    };
    let over_tls = match tls {
        Some((to, _)) => Some(link::spawn("127.0.0.1:0", to, spec)?),
        None => None,
    };
    let all = if tp3 { &CONTENDERS3 } else { &CONTENDERS };
    let contenders: &[&'static str] = if peers { all } else { &all[..1] };
    // On TinkerPop 3 "deflate" is the WebSocket's permessage-deflate.
    let compressions: &[&'static str] = &["none", "deflate"];
    let cols: String = contenders
        .iter()
        .map(|c| format!(" {} |", short(c)))
        .collect();
    let dashes = "---:|".repeat(contenders.len());
    writeln!(
        s,
        "### {}Link {spec}{}\n",
        if tp3 {
            "TinkerPop 3.7.3, WebSocket: "
        } else {
            ""
        },
        if peers {
            ""
        } else {
            ": ours alone, for compression's break-even"
        }
    )?;
    let mut failures: Vec<String> = Vec::new();

    // Latency.
    let mut big = Vec::new();
    let mut sized = Vec::new();
    // Each row (latency and throughput) starts with the next contender: the first run after
    // the ~200k rows met a server still busy with their garbage (ours, always first, lost the
    // first throughput row of both links by 7-22% in two runs, and won it measured in turn
    // with Go).
    let mut row = 0;
    let mut next_row = || {
        let first = row % contenders.len();
        row += 1;
        contenders[first..]
            .iter()
            .chain(&contenders[..first])
            .copied()
            .collect::<Vec<&str>>()
    };
    writeln!(
        s,
        "| latency | compression | wire | computed | drain |{cols}\n|---|---|---:|---:|---:|{dashes}"
    )?;
    let sources = std::iter::once((&running, "", None))
        .chain(replayed.iter().map(|r| (r, " replayed", None)))
        .chain(over_tls.iter().map(|r| (r, " tls", tls.map(|t| t.1))));
    for ((running, source, ca), (q, label, runs)) in sources.flat_map(|src| {
        [
            // 5 runs live; 3 replayed, over TLS and on the slow link (4 s each: compression's
            // break-even only), for the part's 20 minutes.
            (
                BIG_QUERY,
                "~200k",
                if quick {
                    2
                } else if peers && src.1.is_empty() {
                    5
                } else {
                    3
                },
            ),
            (
                "g.V()",
                "`g.V()`",
                match (quick, src.1.is_empty()) {
                    (true, _) => 5,
                    (false, true) => 30,
                    (false, false) => 15,
                },
            ),
        ]
        .map(|row| (src, row))
    }) {
        // `g.V()` replayed is the link's round trip, as live; the slow link is for ~200k's
        // compression alone.
        if (source == " replayed" || !peers) && q != BIG_QUERY {
            continue;
        }
        let url = url_of(running, ca.is_some());
        let label = format!("{label}{source}");
        // Over TLS, the answer as it is (no compression) and no raw drain (it speaks plain
        // TCP): the computed floor alone. The replay server of TinkerPop 3 agrees to no
        // extension: its answers cross uncompressed. `g.V()`'s 1 kB compressed is its round
        // trip either way (63.8 ms with and without for ours at 30 ms, 2026-12-07): no latency
        // row with compression (4.0's throughput rows have it), for the part's 20 minutes.
        let compressions = if ca.is_some() || (tp3 && source == " replayed") || q != BIG_QUERY {
            &["none"]
        } else {
            compressions
        };
        for &comp in compressions {
            // The measured floor first: the same requests drained, nothing decoded (on
            // TinkerPop 3 ours reading the frames, `bench_client --consume raw`); on the slow
            // link uncompressed, the computed floor alone (the cap bounds it: 3.91 s drained
            // against 3.91 s computed, 2026-12-07).
            let (up0, down0, _) = running.counters().snapshot();
            let no_drain = ca.is_some() || (!peers && comp == "none");
            let drained = if no_drain {
                None
            } else if tp3 {
                let a = args(
                    &url,
                    q,
                    "latency",
                    Some(comp),
                    &["--runs", &runs.to_string(), "--consume", "raw"],
                );
                Some(measure(rep, "rust", client, &a).map(|j| {
                    j["runs"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Json::as_f64).collect())
                        .unwrap_or_default()
                }))
            } else {
                Some(raw_drain(running.addr(), q, comp == "deflate", runs))
            };
            std::thread::sleep(Duration::from_millis(5) + spec.delay);
            let (up1, down1, _) = running.counters().snapshot();
            // Without a drain (TLS, the slow link uncompressed): what the link carried for
            // ours, below.
            let mut wire = ((up1 - up0) + (down1 - down0)) as f64 / (runs + 1) as f64;
            let mut floor = spec.floor(1.0, wire as u64).as_secs_f64();
            let drain = match drained {
                Some(Ok(times)) => {
                    let med = median_of(times);
                    rep.raw.push(format!(
                        "wan {spec} raw drain {q:?} compression {comp}: median {med:.4} s, \
                         {wire:.0} wire bytes/request"
                    ));
                    Some(med)
                }
                Some(Err(e)) => {
                    failures.push(format!("{spec} {label} {comp} raw drain: {e}"));
                    None
                }
                None => None,
            };
            let mut line = Line {
                // The compression named only where the row has both.
                label: if compressions.len() > 1 {
                    format!("{label} {comp}")
                } else {
                    label.clone()
                },
                rate: false,
                cells: Vec::new(),
                ceiling: None,
            };
            for c in next_row() {
                if missing.iter().any(|m| m.0 == c) {
                    continue;
                }
                // Python decodes ~200k results in ~10 s, over any link: one request, no
                // warm-up, live and uncompressed only (for the part's 20 minutes).
                if c.starts_with("python")
                    && q == BIG_QUERY
                    && (!source.is_empty() || comp != "none")
                {
                    continue;
                }
                let runs_arg = runs.to_string();
                let (extra, requests) = if c.starts_with("python") && q == BIG_QUERY {
                    (vec!["--runs", "1", "--warmup", "0"], 1)
                } else {
                    (vec!["--runs", runs_arg.as_str()], runs + 1)
                };
                let a = args(&url, q, "latency", Some(comp), &extra);
                let row = one_row(rep, running, c, client, &a, requests, (false, ca));
                if not_built(&row, missing) {
                    continue;
                }
                if c == "rust" && no_drain {
                    wire = row.wire_per_request;
                    floor = spec.floor(1.0, wire as u64).as_secs_f64();
                }
                let med = match &row.outcome {
                    Ok(j) => Some(median_of(
                        j["runs"]
                            .as_array()
                            .map(|a| a.iter().filter_map(Json::as_f64).collect())
                            .unwrap_or_default(),
                    )),
                    Err(e) => {
                        failures.push(format!("{spec} {label} {comp} {}: {e}", short(c)));
                        None
                    }
                };
                // The floor's target is the live rows' (a replayed drain decodes nothing at
                // local speed: replayed.rs says why no client comes within 1.2x of it).
                if c == "rust" && q == BIG_QUERY && source.is_empty() {
                    if let Some(m) = med {
                        big.push((comp, m, floor, drain.unwrap_or(f64::NAN)));
                    }
                }
                line.cells.push((c, med));
            }
            let cells = line.table_cells(contenders);
            writeln!(
                s,
                "| {label} | {comp} | {} | {} | {} |{cells}",
                bytes(wire),
                fmt_secs(floor),
                match drain {
                    Some(d) => fmt_secs(d),
                    None if no_drain => "-".into(),
                    None => "failed".into(),
                }
            )?;
            sized.push(line);
        }
    }

    // Throughput: 3 rounds at least, and on a short link at least 2,000 requests, so that a
    // run lasts some tenths of a second (1,000 took 0.1 s at 1 ms, one round at 1000 a burst).
    let least = if spec.rtt() > Duration::from_millis(10) {
        1000
    } else {
        2000
    };
    let requests_at = |conc: usize| match quick {
        true => 300,
        false => (3 * conc).max(least),
    };
    let pools: &[&str] = match (peers, tp3) {
        // The slow link is for compression's break-even: no throughput there.
        (false, _) => &[],
        (true, true) => &["sized", "defaults"],
        (true, false) => &["sized, none", "sized, deflate", "defaults"],
    };
    if !pools.is_empty() {
        writeln!(
            s,
            "\n| `g.V()` req/s ({}; {} at 1000) | pool, compression | ceiling |{cols}\n|---:|---|---:|{dashes}",
            requests_at(256),
            requests_at(1000)
        )?;
    }
    let mut defaults = Vec::new();
    for conc in CONCURRENCY.iter().copied().filter(|_| !pools.is_empty()) {
        let requests = requests_at(conc);
        for &pool in pools {
            let mut line = Line {
                label: format!("{conc} {pool}"),
                rate: true,
                cells: Vec::new(),
                ceiling: None,
            };
            let mut ceiling = None;
            for c in next_row() {
                if missing.iter().any(|m| m.0 == c) {
                    continue;
                }
                // At the defaults a pool of a few connections may serve hundreds of requests/s
                // or fewer: a shorter warm-up (the same for every contender of the row).
                let warmup = if pool == "defaults" {
                    conc.min(64)
                } else {
                    conc
                };
                let load = [
                    "--concurrency",
                    &conc.to_string(),
                    "--requests",
                    &requests.to_string(),
                    "--warmup",
                    &warmup.to_string(),
                ];
                let a = match pool {
                    "defaults" if c == "rust" => {
                        // Everything as the defaults have it (compression on, the default pool).
                        let mut a = args(&url, "g.V()", "throughput", None, &load);
                        a.push("--defaults".into());
                        a
                    }
                    "defaults" => args(&url, "g.V()", "throughput", None, &load),
                    "sized" => args(&url, "g.V()", "throughput", Some("none"), &load),
                    _ => args(
                        &url,
                        "g.V()",
                        "throughput",
                        Some(pool.trim_start_matches("sized, ")),
                        &load,
                    ),
                };
                // The warm-up round is `conc` requests.
                let row = one_row(
                    rep,
                    &running,
                    c,
                    client,
                    &a,
                    requests + warmup,
                    (pool == "defaults" && c != "rust", None),
                );
                if not_built(&row, missing) {
                    continue;
                }
                let rate = match &row.outcome {
                    Ok(j) => j["req_per_sec"].as_f64(),
                    Err(e) => {
                        failures.push(format!("{spec} {conc} {pool} {}: {e}", short(c)));
                        None
                    }
                };
                if ceiling.is_none() && rate.is_some() {
                    let rounds = requests.div_ceil(conc) as f64;
                    let wire_time = spec
                        .serialization((row.wire_per_request * requests as f64) as u64)
                        .as_secs_f64();
                    ceiling =
                        Some(requests as f64 / (rounds * spec.rtt().as_secs_f64()).max(wire_time));
                }
                line.cells.push((c, rate));
            }
            line.ceiling = ceiling;
            let cells = line.table_cells(contenders);
            writeln!(
                s,
                "| {conc} | {pool} | {} |{cells}",
                ceiling.map_or("?".into(), fmt_rate)
            )?;
            if pool == "defaults" {
                defaults.push(line);
            } else {
                sized.push(line);
            }
        }
    }
    writeln!(s)?;
    if !failures.is_empty() {
        writeln!(s, "Failed:\n")?;
        for f in &failures {
            writeln!(s, "* {}", f.replace('|', "/"))?;
        }
        writeln!(s)?;
    }
    drop(running);
    Ok(Outcome {
        spec,
        tp3,
        fidelity: fid,
        big,
        sized,
        defaults,
        peers,
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
/// requests (warm-up included); `defaults`: a peer with its driver's own pool and compression
/// (`PEER_DEFAULTS=1`, the `-defaults` contender of [`super::contender_cmd`]).
fn one_row(
    rep: &mut Report,
    running: &link::Running,
    c: &'static str,
    client: &Path,
    args: &[String],
    requests: usize,
    (defaults, ca): (bool, Option<&Path>),
) -> Row {
    let (up0, down0, _) = running.counters().snapshot();
    let peer = if defaults {
        format!("{c}-defaults")
    } else {
        c.to_string()
    };
    let env: Vec<(&str, &Path)> = ca.map(|ca| ("SSL_CERT_FILE", ca)).into_iter().collect();
    let outcome = measure_env(rep, &peer, client, args, &env);
    // Let the link's last bytes (its delay) pass before reading the counters.
    std::thread::sleep(Duration::from_millis(5) + running.spec().delay);
    let (up1, down1, _) = running.counters().snapshot();
    Row {
        contender: c,
        outcome,
        wire_per_request: ((up1 - up0) + (down1 - down0)) as f64 / requests.max(1) as f64,
    }
}

/// Whether `row` failed because its peer is not set up (then noted once in `missing`).
fn not_built(row: &Row, missing: &mut Vec<(&'static str, String)>) -> bool {
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
/// warm-up), each body read to its end and nothing decoded; their seconds. The request body is
/// the one our client sends with compression `deflate` (its batch size included), so the drain
/// asks the server for the same answer as the row it bounds.
fn raw_drain(addr: SocketAddr, q: &str, deflate: bool, runs: usize) -> Result<Vec<f64>, String> {
    let mut c = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    c.set_nodelay(true).map_err(|e| e.to_string())?;
    let body = ours_body(addr, q, deflate)?;
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

/// The JSON body our client sends for `q` with compression `deflate`.
fn ours_body(addr: SocketAddr, q: &str, deflate: bool) -> Result<String, String> {
    let client = graphbinary_client::Client::builder(format!("http://{addr}/gremlin"))
        .compression(deflate)
        .build()
        .map_err(|e| e.to_string())?;
    Ok(client.request(q).body_json())
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
    super::with_prefix(b, "B", [1, 1, 0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict line containing `what` of a TinkerPop 4 setting `spec` whose pool-sized
    /// lines are `sized`.
    fn verdict(spec: &str, sized: Vec<Line>, what: &str) -> String {
        let o = Outcome {
            spec: Spec::parse(spec).unwrap(),
            tp3: false,
            fidelity: None,
            big: Vec::new(),
            sized,
            defaults: Vec::new(),
            peers: true,
        };
        let mut s = String::new();
        verdicts(&mut s, &o).unwrap();
        s.lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no verdict with {what:?} in {s}"))
            .to_owned()
    }

    /// A throughput target above the link's ceiling is named out of reach; one below it is
    /// only not met.
    #[test]
    fn a_target_above_the_links_ceiling_is_named_out_of_reach() {
        let line = |label: &str, ours: f64, go: f64, ceiling: f64| Line {
            label: label.into(),
            rate: true,
            cells: vec![("rust", Some(ours)), ("go", Some(go))],
            ceiling: Some(ceiling),
        };
        let t = verdict(
            "30ms,200mbit",
            vec![
                line("64 sized", 883.0, 934.6, 1041.7),
                line("256 sized", 2900.0, 3200.0, 4166.7),
            ],
            "pools sized",
        );
        assert!(
            t.contains("64 0.94x (out of reach: 1.2x Go = 1.1 k > ceiling 1.0 k)"),
            "{t}"
        );
        assert!(t.contains("256 0.91x:") || t.contains("256 0.91x,"), "{t}");
        assert!(!t.contains("256 0.91x (out of reach"), "{t}");
        assert!(t.ends_with("**not met**"), "{t}");
    }

    /// A row where no peer was measured counts against "ours fastest in every row" (a run
    /// whose peers were not set up once printed "13 of 13: met").
    #[test]
    fn a_row_without_peers_is_not_a_win() {
        let t = verdict(
            "1ms,none",
            vec![
                Line {
                    label: "64 sized".into(),
                    rate: true,
                    cells: vec![("rust", Some(900.0)), ("go", None), ("java", None)],
                    ceiling: None,
                },
                Line {
                    label: "256 sized".into(),
                    rate: true,
                    cells: vec![("rust", Some(2000.0)), ("go", Some(1500.0))],
                    ceiling: None,
                },
            ],
            "fastest in every row",
        );
        assert!(
            t.contains("1 of 2, not in 64 sized (no peer measured)"),
            "{t}"
        );
        assert!(t.ends_with("**not met**"), "{t}");
    }

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
        // The drain asks for what ours asks for, its batch size included, plain or deflated.
        for deflate in [false, true] {
            let body = ours_body(running.addr(), "g.V()", deflate).unwrap();
            assert!(body.contains("\"batchSize\":8192"), "{body}");
        }
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
