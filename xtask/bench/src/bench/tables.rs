//! The latency and throughput tables of the end-to-end sections of `cargo xtask bench` (live
//! on TinkerPop 4, replayed, live on TinkerPop 3): what a measurement's JSON line adds to a
//! contender's figures ([`Latency::record`], [`Throughput::record`]) and the one renderer of
//! their rows ([`latency_table`], [`throughput_header`], [`throughput_rows`]). Each section
//! keeps its own headings, workloads and targets; the columns they differ in are parameters.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use serde_json::Value as Json;

use super::{fmt_secs, median_of};

/// One contender's latency measurements over every round of one workload.
#[derive(Default)]
pub struct Latency {
    /// Wall time of each timed request, in seconds.
    pub runs: Vec<f64>,
    /// Client CPU per request of each round, in seconds.
    pub cpu_per_req: Vec<f64>,
    /// The result count the contender reported.
    pub results: Option<f64>,
    /// The body size the contender reported (the raw drain counts bytes, not results).
    pub bytes: Option<f64>,
    /// The last failure; a failed contender's row says so instead of its figures.
    pub error: Option<String>,
}

impl Latency {
    /// Adds one measurement (a latency-mode JSON line from `measure`, or its failure).
    pub fn record(&mut self, m: Result<Json, String>) {
        match m {
            Ok(j) => {
                let r: Vec<f64> = j["runs"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Json::as_f64).collect())
                    .unwrap_or_default();
                if let Some(cpu) = j["cpu_secs"].as_f64() {
                    self.cpu_per_req.push(cpu / r.len().max(1) as f64);
                }
                self.runs.extend(r);
                self.results = j["results"].as_f64().or(self.results);
                self.bytes = j["bytes"].as_f64().or(self.bytes);
            }
            Err(err) => self.error = Some(err),
        }
    }

    /// The median wall time per request (NaN without runs).
    pub fn median_wall(&self) -> f64 {
        median_of(self.runs.clone())
    }

    /// The median client CPU per request (NaN without rounds).
    pub fn median_cpu(&self) -> f64 {
        median_of(self.cpu_per_req.clone())
    }
}

/// The median client CPU per request of `c` in `lat`, NaN when it has none or failed.
pub fn median_cpu_ok(lat: &BTreeMap<&str, Latency>, c: &str) -> f64 {
    lat.get(c)
        .filter(|l| l.error.is_none())
        .map(Latency::median_cpu)
        .unwrap_or(f64::NAN)
}

/// The median wall time of `c` in `lat`, NaN when it has none or failed.
pub fn median_wall_ok(lat: &BTreeMap<&str, Latency>, c: &str) -> f64 {
    lat.get(c)
        .filter(|l| l.error.is_none())
        .map(Latency::median_wall)
        .unwrap_or(f64::NAN)
}

/// What varies between the sections' latency tables.
pub struct LatencyColumns<'a> {
    /// The row label of a contender.
    pub name: fn(&str) -> &'static str,
    /// Whether the results column falls back to `(N bytes)` for a contender that reported a
    /// body size instead of a result count.
    pub bytes: bool,
    /// The `vs X` columns, in order: `X` and the median wall time each row is divided by.
    pub vs: &'a [(&'a str, f64)],
}

/// Writes the latency table (header and one row per contender of `contenders`, each of which
/// must be in `lat`).
pub fn latency_table(
    s: &mut String,
    cols: &LatencyColumns<'_>,
    contenders: &[&str],
    lat: &BTreeMap<&str, Latency>,
) -> fmt::Result {
    write!(
        s,
        "| contender | median wall | min | max | client CPU/request | results |"
    )?;
    for (x, _) in cols.vs {
        write!(s, " vs {x} |")?;
    }
    write!(s, "\n|---|---:|---:|---:|---:|---:|")?;
    for _ in cols.vs {
        write!(s, "---:|")?;
    }
    writeln!(s)?;
    for &c in contenders {
        let l = &lat[c];
        if let Some(e) = &l.error {
            failed_row(s, &format!("| {} |", (cols.name)(c)), e, 4 + cols.vs.len())?;
            continue;
        }
        let m = l.median_wall();
        let min = l.runs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = l.runs.iter().copied().fold(0.0, f64::max);
        let results = l.results.map(|r| format!("{r}"));
        let results = if cols.bytes {
            results.or(l.bytes.map(|b| format!("({b} bytes)")))
        } else {
            results
        };
        write!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            (cols.name)(c),
            fmt_secs(m),
            fmt_secs(min),
            fmt_secs(max),
            fmt_secs(l.median_cpu()),
            results.unwrap_or_default(),
        )?;
        for (_, by) in cols.vs {
            write!(s, " {:.2}x |", m / by)?;
        }
        writeln!(s)?;
    }
    Ok(())
}

/// Every contender's throughput measurements at one concurrency, over the rounds.
#[derive(Default)]
pub struct Throughput<'a> {
    rps: BTreeMap<&'a str, Vec<f64>>,
    cpu: BTreeMap<&'a str, Vec<f64>>,
    errs: BTreeMap<&'a str, String>,
}

impl<'a> Throughput<'a> {
    /// Adds one measurement of `c` (a throughput-mode JSON line from `measure` over
    /// `requests` requests, or its failure).
    pub fn record(&mut self, c: &'a str, m: Result<Json, String>, requests: usize) {
        match m {
            Ok(j) => {
                self.rps
                    .entry(c)
                    .or_default()
                    .push(j["req_per_sec"].as_f64().unwrap_or(f64::NAN));
                self.cpu
                    .entry(c)
                    .or_default()
                    .push(j["cpu_secs"].as_f64().unwrap_or(f64::NAN) / requests as f64 * 1000.0);
            }
            Err(e) => self.fail(c, e),
        }
    }

    /// Records a failure of `c` (its row says `failed` unless another round succeeded).
    pub fn fail(&mut self, c: &'a str, e: String) {
        self.errs.insert(c, e);
    }

    /// The median requests per second of `c`, NaN when no round of it succeeded.
    pub fn median(&self, c: &str) -> f64 {
        self.rps
            .get(c)
            .map(|v| median_of(v.clone()))
            .unwrap_or(f64::NAN)
    }

    /// The highest median of `peers` that succeeded (0 when none did).
    pub fn best_of(&self, peers: &[&str]) -> f64 {
        peers
            .iter()
            .map(|c| self.median(c))
            .filter(|m| m.is_finite())
            .fold(0.0, f64::max)
    }

    /// Whether some round of `c` succeeded.
    pub fn succeeded(&self, c: &str) -> bool {
        self.rps.contains_key(c)
    }
}

/// What varies between the sections' throughput tables.
pub struct ThroughputColumns<'a> {
    /// The row label of a contender.
    pub name: fn(&str) -> &'static str,
    /// The headers of the columns between the CPU column and `vs best peer`.
    pub extra: &'a [&'a str],
    /// A contender's cells of the `extra` columns, formatted (asked only of a contender with a
    /// successful round).
    pub cells: &'a dyn Fn(&str) -> Vec<String>,
}

/// Writes the throughput table's header.
pub fn throughput_header(s: &mut String, cols: &ThroughputColumns<'_>) -> fmt::Result {
    write!(
        s,
        "| concurrency | contender | median req/s | client CPU per 1000 req |"
    )?;
    for x in cols.extra {
        write!(s, " {x} |")?;
    }
    write!(s, " vs best peer |\n|---:|---|---:|---:|")?;
    for _ in cols.extra {
        write!(s, "---:|")?;
    }
    writeln!(s, "---:|")
}

/// Writes the throughput rows of `contenders` at concurrency `conc` over `reps` rounds, each
/// divided by `best_peer`, under [`throughput_header`].
pub fn throughput_rows(
    s: &mut String,
    cols: &ThroughputColumns<'_>,
    conc: usize,
    reps: usize,
    contenders: &[&str],
    t: &Throughput<'_>,
    best_peer: f64,
) -> fmt::Result {
    let name = cols.name;
    for &c in contenders {
        if !t.succeeded(c) {
            let e = t.errs.get(c).cloned().unwrap_or_default();
            failed_row(
                s,
                &format!("| {conc} | {} |", name(c)),
                &e,
                2 + cols.extra.len(),
            )?;
            continue;
        }
        let note = if t.errs.contains_key(c) {
            format!(" ({} of {reps} rounds failed)", reps - t.rps[c].len())
        } else {
            String::new()
        };
        write!(
            s,
            "| {conc} | {} | {:.0}{note} | {} |",
            name(c),
            t.median(c),
            fmt_secs(median_of(t.cpu[c].clone())),
        )?;
        for cell in (cols.cells)(c) {
            write!(s, " {cell} |")?;
        }
        writeln!(s, " {:.2}x |", t.median(c) / best_peer)?;
    }
    Ok(())
}

/// A table row of a contender that failed: `lead` (its first cells), the error, then `empty`
/// empty cells.
fn failed_row(s: &mut String, lead: &str, error: &str, empty: usize) -> fmt::Result {
    write!(s, "{lead} failed: {} |", error.replace('|', "/"))?;
    for _ in 0..empty {
        write!(s, " |")?;
    }
    writeln!(s)
}

#[cfg(test)]
mod tests {
    //! The expected tables are what the three sections' own renderers wrote for the same
    //! figures before they became this one (BENCHMARKS.md keeps its format).

    use super::super::{name, CONTENDERS, LATENCY_CONTENDERS};
    use super::*;

    fn tp3_name(c: &str) -> &'static str {
        match c {
            "rust" => "R3",
            "gremlin-client" => "GC",
            "java3" => "J3",
            _ => "?",
        }
    }

    fn lat(runs: &[f64], cpu: &[f64], results: Option<f64>, bytes: Option<f64>) -> Latency {
        Latency {
            runs: runs.to_vec(),
            cpu_per_req: cpu.to_vec(),
            results,
            bytes,
            error: None,
        }
    }

    /// A failure (with a `|` to escape), a contender without runs, one with a byte count only.
    fn latencies() -> BTreeMap<&'static str, Latency> {
        let mut failed = lat(&[1.5], &[], None, None);
        failed.error = Some("exit status: 1 (a|b)".into());
        let mut m = BTreeMap::new();
        m.insert(
            "rust",
            lat(&[0.5, 0.25, 0.75], &[0.1, 0.3], Some(2e5), Some(12.0)),
        );
        m.insert(
            "rust-drain",
            lat(&[0.002, 0.004], &[0.0005], Some(6.0), None),
        );
        m.insert("go", lat(&[], &[], None, None));
        m.insert("python", lat(&[2.0, 3.0], &[1.0], Some(2e5), None));
        m.insert("raw", lat(&[0.2, 0.4], &[0.01], None, Some(123456.0)));
        m.insert("java", failed);
        m
    }

    #[test]
    fn latency_tables_are_as_the_sections_wrote_them() {
        let l = latencies();
        let (raw, ours) = (median_wall_ok(&l, "raw"), median_wall_ok(&l, "rust"));
        let cols = LatencyColumns {
            name,
            bytes: true,
            vs: &[("raw", raw), ("ours", ours)],
        };
        let mut s = String::new();
        latency_table(&mut s, &cols, &LATENCY_CONTENDERS, &l).unwrap();
        assert_eq!(
            s,
            concat!(
            "| contender | median wall | min | max | client CPU/request | results | vs raw | vs ours |\n",
            "|---|---:|---:|---:|---:|---:|---:|---:|\n",
            "| **graphbinary-rs** (ours) | 500.0 ms | 250.0 ms | 750.0 ms | 200.0 ms | 200000 | 1.67x | 1.00x |\n",
            "| **graphbinary-rs**, streaming (each result dropped) | 3.0 ms | 2.0 ms | 4.0 ms | 500 µs | 6 | 0.01x | 0.01x |\n",
            "| Java driver 4.0.0-beta.3 | failed: exit status: 1 (a/b) | | | | | | |\n",
            "| gremlin-go v4.0.0-beta.3 | NaN µs | inf s | 0 µs | NaN µs |  | NaNx | NaNx |\n",
            "| gremlinpython 4.0.0b3 | 2.50 s | 2.00 s | 3.00 s | 1.00 s | 200000 | 8.33x | 5.00x |\n",
            "| raw byte drain (floor) | 300.0 ms | 200.0 ms | 400.0 ms | 10.0 ms | (123456 bytes) | 1.00x | 0.60x |\n",
        )
        );
        // TinkerPop 3: no byte fallback, one `vs` column, its own names.
        let mut l3 = BTreeMap::new();
        for (from, to) in [
            ("rust", "rust"),
            ("java", "java3"),
            ("python", "gremlin-client"),
            ("raw", "raw"),
        ] {
            l3.insert(to, latencies().remove(from).unwrap());
        }
        let cols = LatencyColumns {
            name: tp3_name,
            bytes: false,
            vs: &[("ours", median_wall_ok(&l3, "rust"))],
        };
        let mut s = String::new();
        latency_table(
            &mut s,
            &cols,
            &["rust", "gremlin-client", "java3", "raw"],
            &l3,
        )
        .unwrap();
        assert_eq!(
            s,
            concat!(
            "| contender | median wall | min | max | client CPU/request | results | vs ours |\n",
            "|---|---:|---:|---:|---:|---:|---:|\n",
            "| R3 | 500.0 ms | 250.0 ms | 750.0 ms | 200.0 ms | 200000 | 1.00x |\n",
            "| GC | 2.50 s | 2.00 s | 3.00 s | 1.00 s | 200000 | 5.00x |\n",
            "| J3 | failed: exit status: 1 (a/b) | | | | | |\n",
            "| ? | 300.0 ms | 200.0 ms | 400.0 ms | 10.0 ms |  | 0.60x |\n",
        )
        );
    }

    /// Over 1000 requests, so that `cpu_secs` is the CPU per 1000 requests.
    fn throughput() -> (Throughput<'static>, BTreeMap<&'static str, Vec<f64>>) {
        let ok = |rps: f64, cpu: f64| Ok(serde_json::json!({"req_per_sec": rps, "cpu_secs": cpu}));
        let mut t = Throughput::default();
        for (rps, cpu) in [(5000.0, 0.05), (7000.4, 0.07), (6000.6, 0.06)] {
            t.record("rust", ok(rps, cpu), 1000);
        }
        t.record("java", ok(3000.0, 0.2), 1000);
        t.record("java", Err("exit status: 2 (x|y)".into()), 1000);
        t.fail("go", "not set up".into());
        t.record("python", ok(1000.0, 1.5), 1000);
        t.record("python", ok(1200.0, 0.5), 1000);
        t.record("raw", ok(9000.0, 0.001), 1000);
        t.record("gremlin-client", ok(4000.0, 0.3), 1000);
        let conns = BTreeMap::from([
            ("rust", vec![64.0, 65.0, 66.0]),
            ("java", vec![64.0]),
            ("python", vec![10.0, 11.0]),
            ("raw", vec![1.0]),
        ]);
        (t, conns)
    }

    fn table(
        cols: &ThroughputColumns<'_>,
        conc: usize,
        order: &[&str],
        t: &Throughput<'_>,
        best: f64,
    ) -> String {
        let mut s = String::new();
        throughput_header(&mut s, cols).unwrap();
        throughput_rows(&mut s, cols, conc, 3, order, t, best).unwrap();
        s
    }

    #[test]
    fn throughput_tables_are_as_the_sections_wrote_them() {
        let (t, conns) = throughput();
        let best = t.best_of(&["java", "go", "python"]);
        let live = ThroughputColumns {
            name,
            extra: &[],
            cells: &|_| Vec::new(),
        };
        assert_eq!(
            table(&live, 256, &CONTENDERS, &t, best),
            concat!(
            "| concurrency | contender | median req/s | client CPU per 1000 req | vs best peer |\n",
            "|---:|---|---:|---:|---:|\n",
            "| 256 | **graphbinary-rs** (ours) | 6001 | 60.0 ms | 2.00x |\n",
            "| 256 | Java driver 4.0.0-beta.3 | 3000 (2 of 3 rounds failed) | 200.0 ms | 1.00x |\n",
            "| 256 | gremlin-go v4.0.0-beta.3 | failed: not set up | | |\n",
            "| 256 | gremlinpython 4.0.0b3 | 1100 | 1.00 s | 0.37x |\n",
            "| 256 | raw byte drain (floor) | 9000 | 1.0 ms | 3.00x |\n",
        )
        );
        let opened = |c: &str| vec![format!("{:.0}", median_of(conns[c].clone()))];
        let replayed = ThroughputColumns {
            name,
            extra: &["connections opened"],
            cells: &opened,
        };
        assert_eq!(
            table(&replayed, 64, &CONTENDERS, &t, best),
            concat!(
            "| concurrency | contender | median req/s | client CPU per 1000 req | connections opened | vs best peer |\n",
            "|---:|---|---:|---:|---:|---:|\n",
            "| 64 | **graphbinary-rs** (ours) | 6001 | 60.0 ms | 65 | 2.00x |\n",
            "| 64 | Java driver 4.0.0-beta.3 | 3000 (2 of 3 rounds failed) | 200.0 ms | 64 | 1.00x |\n",
            "| 64 | gremlin-go v4.0.0-beta.3 | failed: not set up | | | |\n",
            "| 64 | gremlinpython 4.0.0b3 | 1100 | 1.00 s | 10 | 0.37x |\n",
            "| 64 | raw byte drain (floor) | 9000 | 1.0 ms | 1 | 3.00x |\n",
        )
        );
        let vs = |c: &str| vec![format!("{:.2}x", t.median(c) / t.median("gremlin-client"))];
        let tp3 = ThroughputColumns {
            name: tp3_name,
            extra: &["vs gremlin-client"],
            cells: &vs,
        };
        let order = ["rust", "gremlin-client", "java3", "java", "python"];
        let best = t.best_of(&["gremlin-client", "java", "python"]);
        assert_eq!(
            table(&tp3, 1000, &order, &t, best),
            concat!(
            "| concurrency | contender | median req/s | client CPU per 1000 req | vs gremlin-client | vs best peer |\n",
            "|---:|---|---:|---:|---:|---:|\n",
            "| 1000 | R3 | 6001 | 60.0 ms | 1.50x | 1.50x |\n",
            "| 1000 | GC | 4000 | 300.0 ms | 1.00x | 1.00x |\n",
            "| 1000 | J3 | failed:  | | | |\n",
            "| 1000 | ? | 3000 (2 of 3 rounds failed) | 200.0 ms | 0.75x | 0.75x |\n",
            "| 1000 | ? | 1100 | 1.00 s | 0.28x | 0.28x |\n",
        )
        );
    }
}
