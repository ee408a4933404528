//! The charts at the top of `BENCHMARKS.md`: drawn from the report's own tables (the same
//! numbers, never measured again), as plain SVG written here (a few rects and texts: no
//! plotting crate, no font files, the same bytes for the same tables).
//!
//! [`tables`] reads every Markdown table of the report with the headings it sits under;
//! [`charts`] picks the comparisons (ours against the Java, Go and Python drivers, live and
//! replayed, TinkerPop 4 and 3: the 200k-result query, `g.V()` latency, throughput by
//! concurrency) by their headings; [`update`] writes the SVGs into [`DIR`] and puts the block
//! that shows them (between [`BEGIN`] and [`END`]) before `## Machine`. A table that a run did
//! not write (a partial run) leaves its chart out.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::json;

/// The folder, beside `BENCHMARKS.md`, of what `cargo xtask bench` writes besides the report:
/// the charts and the run's data (`super::results`).
pub const DIR: &str = "benchmarks";
/// The first line of the charts block in `BENCHMARKS.md`.
pub const BEGIN: &str =
    "<!-- charts: drawn by `cargo xtask bench` from the tables below; edits here are lost -->";
/// The last line of the charts block.
pub const END: &str = "<!-- /charts -->";

/// One Markdown table of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The `## ` heading it is under, without the hashes.
    pub section: String,
    /// The nearest heading above it (`## ` or `### `), without the hashes.
    pub heading: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The index of the column named `name`.
    fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// As one JSON line of `tables.jsonl`.
    pub fn to_json(&self) -> String {
        json!({
            "section": self.section,
            "heading": self.heading,
            "header": self.header,
            "rows": self.rows,
        })
        .to_string()
    }
}

/// Every table of `md` (outside code blocks and the charts block), in order.
pub fn tables(md: &str) -> Vec<Table> {
    let mut out = Vec::new();
    let (mut section, mut heading) = (String::new(), String::new());
    let mut fence = false;
    let mut lines = md.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        if let Some(h) = line.strip_prefix("## ") {
            section = h.trim().to_string();
            heading = section.clone();
        } else if let Some(h) = line.strip_prefix("### ") {
            heading = h.trim().to_string();
        } else if line.starts_with('|') && lines.peek().is_some_and(|l| is_rule(l)) {
            lines.next();
            let mut rows = Vec::new();
            while let Some(row) = lines.next_if(|l| l.starts_with('|')) {
                rows.push(cells(row));
            }
            out.push(Table {
                section: section.clone(),
                heading: heading.clone(),
                header: cells(line),
                rows,
            });
        }
    }
    out
}

/// `|---|---:|` (the line under a table's header).
fn is_rule(line: &str) -> bool {
    let l = line.trim();
    l.starts_with('|') && l.contains('-') && l.chars().all(|c| "|-: ".contains(c))
}

fn cells(row: &str) -> Vec<String> {
    let r = row.trim();
    let r = r.strip_prefix('|').unwrap_or(r);
    let r = r.strip_suffix('|').unwrap_or(r);
    r.split('|').map(|c| c.trim().to_string()).collect()
}

/// A duration as the tables write it (`1.70 s`, `629.7 ms`, `712 µs`), in seconds.
pub fn parse_secs(cell: &str) -> Option<f64> {
    let mut it = cell.split_whitespace();
    let n: f64 = it.next()?.parse().ok()?;
    let scale = match it.next()? {
        "s" => 1.0,
        "ms" => 1e-3,
        "µs" | "us" => 1e-6,
        _ => return None,
    };
    Some(n * scale).filter(|v| v.is_finite())
}

/// The number a cell starts with (`7592`, `3000 (2 of 3 rounds failed)`).
pub fn parse_num(cell: &str) -> Option<f64> {
    cell.split_whitespace()
        .next()?
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
}

/// How a chart's axis reads.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Unit {
    /// Seconds, lower is better.
    Secs,
    /// Requests per second, higher is better.
    Rate,
    /// Megabytes (10^6 bytes) per second, higher is better.
    Mbps,
}

/// One bar: its value and the text the table wrote for it.
#[derive(Clone, Debug, PartialEq)]
struct Bar {
    value: f64,
    text: String,
}

/// One contender's bars, one per series (None where a series has no figure for it).
#[derive(Clone, Debug, PartialEq)]
struct Group {
    label: String,
    ours: bool,
    bars: Vec<Option<Bar>>,
}

/// Puts the bar (`value`, shown as `text`) as series `i` of `series` in the group labelled
/// `label` (with its `ours` flag), a new group of empty bars when none has that label yet.
fn set_bar(
    groups: &mut Vec<Group>,
    (label, ours): (String, bool),
    (i, series): (usize, usize),
    value: f64,
    text: String,
) {
    let g = match groups.iter().position(|g| g.label == label) {
        Some(g) => g,
        None => {
            groups.push(Group {
                label,
                ours,
                bars: vec![None; series],
            });
            groups.len() - 1
        }
    };
    groups[g].bars[i] = Some(Bar { value, text });
}

/// A horizontal grouped bar chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The file name in [`DIR`].
    pub file: &'static str,
    title: String,
    subtitle: String,
    unit: Unit,
    series: Vec<String>,
    /// One panel per series, each with its own axis (live and replayed differ tenfold), or
    /// every series on one axis (throughput by concurrency).
    panels: bool,
    groups: Vec<Group>,
}

/// The label a contender's row gets in a chart (`None`: the row is left out, e.g. our
/// GraphSON or allocator variants, which the tables show), and whether it is ours.
fn short(row: &str) -> Option<(String, bool)> {
    let r = row.replace("**", "");
    if let Some(rest) = r.strip_prefix("graphbinary-rs") {
        return if rest.starts_with(" (ours") {
            Some(("graphbinary-rs".into(), true))
        } else if rest.starts_with(", streaming") {
            Some(("graphbinary-rs, streaming".into(), true))
        } else if rest.starts_with(", defaults") {
            Some(("graphbinary-rs, defaults".into(), true))
        } else {
            None
        };
    }
    if r.starts_with("raw ") {
        return Some(("floor: raw drain".into(), false));
    }
    let name = r.split(" (").next().unwrap_or(&r).trim();
    (!name.is_empty()).then(|| (name.to_string(), false))
}

/// The first table whose heading, lowercased, starts with `prefix`.
fn find<'a>(tables: &'a [Table], prefix: &str) -> Option<&'a Table> {
    tables
        .iter()
        .find(|t| t.heading.to_lowercase().starts_with(prefix))
}

/// What the section heading of `t` says after its number: `Gremlin Server 4.0.0-beta.3 on
/// loopback`.
fn server(t: &Table) -> &str {
    let s = t
        .section
        .split_once(": ")
        .map(|(_, s)| s)
        .unwrap_or(&t.section);
    s.strip_suffix(", live and replayed").unwrap_or(s)
}

/// One series per table (`(series name, table)`), the contenders' median wall times.
fn latency(
    file: &'static str,
    title: String,
    subtitle: String,
    series: &[(&str, Option<&Table>)],
) -> Option<Chart> {
    let series: Vec<(&str, &Table)> = series
        .iter()
        .filter_map(|(n, t)| t.map(|t| (*n, t)))
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    for (i, (_, t)) in series.iter().enumerate() {
        let (Some(c), Some(wall)) = (t.col("contender"), t.col("median wall")) else {
            continue;
        };
        for row in &t.rows {
            let (Some((label, ours)), Some(cell)) =
                (row.get(c).and_then(|r| short(r)), row.get(wall))
            else {
                continue;
            };
            let Some(value) = parse_secs(cell) else {
                continue;
            };
            set_bar(
                &mut groups,
                (label, ours),
                (i, series.len()),
                value,
                cell.clone(),
            );
        }
    }
    (!groups.is_empty()).then(|| Chart {
        file,
        title,
        subtitle,
        unit: Unit::Secs,
        series: series.iter().map(|(n, _)| n.to_string()).collect(),
        panels: true,
        groups,
    })
}

/// One series per concurrency of `t`, the contenders' median requests per second.
fn throughput(file: &'static str, title: String, subtitle: String, t: &Table) -> Option<Chart> {
    let (conc, c, rps) = (
        t.col("concurrency")?,
        t.col("contender")?,
        t.col("median req/s")?,
    );
    let mut series: Vec<String> = Vec::new();
    for row in &t.rows {
        let s = row.get(conc)?.clone();
        if !series.contains(&s) {
            series.push(s);
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    for row in &t.rows {
        let (Some((label, ours)), Some(value)) = (
            row.get(c).and_then(|r| short(r)),
            row.get(rps).and_then(|r| parse_num(r)),
        ) else {
            continue;
        };
        let i = series.iter().position(|s| Some(s) == row.get(conc))?;
        let text = format!("{value:.0}/s");
        set_bar(&mut groups, (label, ours), (i, series.len()), value, text);
    }
    (!groups.is_empty()).then(|| Chart {
        file,
        title,
        subtitle,
        unit: Unit::Rate,
        series: series.iter().map(|s| format!("{s} at once")).collect(),
        panels: false,
        groups,
    })
}

/// The routes of the in-process chart: a prefix of the table's `mode` cell, and its name.
const ROUTES: [(&str, &str); 4] = [
    ("(a) slice", "Value, one slice (a)"),
    (
        "(b) 8 KiB reads, `for_each_result`",
        "Value, 8 KiB reads (b)",
    ),
    ("serde into a matching struct", "serde into a struct"),
    ("count only", "count only, nothing built"),
];

/// Section 1's table: MB/s of each corpus by the routes of [`ROUTES`].
fn inproc(tables: &[Table]) -> Option<Chart> {
    let t = tables
        .iter()
        .find(|t| t.section.starts_with("1. In-process") && t.col("MB/s").is_some())?;
    let (corpus, mode, mbps) = (t.col("corpus")?, t.col("mode")?, t.col("MB/s")?);
    let mut groups: Vec<Group> = Vec::new();
    for row in &t.rows {
        let (Some(c), Some(m), Some(value)) = (
            row.get(corpus),
            row.get(mode),
            row.get(mbps).and_then(|v| parse_num(v)),
        ) else {
            continue;
        };
        let Some(i) = ROUTES.iter().position(|(p, _)| m.starts_with(p)) else {
            continue;
        };
        let text = format!("{value:.0} MB/s");
        set_bar(
            &mut groups,
            (c.clone(), false),
            (i, ROUTES.len()),
            value,
            text,
        );
    }
    (!groups.is_empty()).then(|| Chart {
        file: "inproc.svg",
        title: "In process: decoding a whole GraphBinary 4 response, by route".into(),
        subtitle: "MB per second of the decoding thread's CPU time, higher is better; every \
                   result dropped once decoded. (a) one contiguous slice; (b) 8 KiB per read, \
                   64 KiB buffer, as from a socket; serde and count over the reads of (b)."
            .into(),
        unit: Unit::Mbps,
        series: ROUTES.iter().map(|(_, n)| n.to_string()).collect(),
        panels: false,
        groups,
    })
}

/// The charts the tables of a report give, in the order the report shows them.
pub fn charts(tables: &[Table]) -> Vec<Chart> {
    const BIG: &str = "`g.v().repeat(both()).times(12)`";
    const SMALL: &str = "`g.v()`";
    let mut out = Vec::new();
    let lat = |live: &str, replayed: &str| (find(tables, live), find(tables, replayed));
    for (tp, file_big, file_small, file_tl, file_tr, live, replayed, tput_live, tput_rep) in [
        (
            "TinkerPop 4",
            "tp4-200k.svg",
            "tp4-g-v.svg",
            "tp4-throughput-live.svg",
            "tp4-throughput-replayed.svg",
            "latency of ",
            "replayed latency of ",
            "throughput of ",
            "replayed throughput of ",
        ),
        (
            "TinkerPop 3",
            "tp3-200k.svg",
            "tp3-g-v.svg",
            "tp3-throughput-live.svg",
            "tp3-throughput-replayed.svg",
            "tinkerpop 3, live: latency of ",
            "tinkerpop 3, replayed: latency of ",
            "tinkerpop 3, live: throughput of ",
            "tinkerpop 3, replayed: throughput of ",
        ),
    ] {
        let (l, r) = lat(&format!("{live}{BIG}"), &format!("{replayed}{BIG}"));
        let Some(srv) = l.or(r).map(server) else {
            continue;
        };
        let results = |t: Option<&Table>| {
            t.and_then(|t| {
                let c = t.col("results")?;
                t.rows.iter().find_map(|row| parse_num(row.get(c)?))
            })
            .map(|n| format!("{} results", thousands(n)))
            .unwrap_or_else(|| "every result".into())
        };
        let results_big = results(l.or(r));
        out.extend(latency(
            file_big,
            format!("{tp}: g.V().repeat(both()).times(12), {results_big}, each client reading all"),
            format!(
                "Median wall time per request, lower is better. Live: {srv}; replayed: its \
                 recorded answer served from memory."
            ),
            &[("live", l), ("replayed", r)],
        ));
        let (l, r) = lat(&format!("{live}{SMALL}"), &format!("{replayed}{SMALL}"));
        out.extend(latency(
            file_small,
            format!("{tp}: g.V() latency ({}), one connection", results(l.or(r))),
            format!(
                "Median wall time per request, lower is better. Live: {srv}; replayed: its \
                 recorded answer served from memory."
            ),
            &[("live", l), ("replayed", r)],
        ));
        for (file, prefix, how) in [
            (file_tl, tput_live, "live"),
            (file_tr, tput_rep, "replayed"),
        ] {
            if let Some(t) = find(tables, &format!("{prefix}{SMALL}")) {
                out.extend(throughput(
                    file,
                    format!("{tp}, {how}: g.V() throughput by concurrency"),
                    format!(
                        "Median requests per second, higher is better; a pool of as many \
                         connections as requests at once. {}",
                        if how == "live" {
                            format!("Live: {srv}.")
                        } else {
                            "Replayed: the recorded answer served from memory.".to_string()
                        }
                    ),
                    t,
                ));
            }
        }
    }
    out.extend(inproc(tables));
    out
}

fn thousands(n: f64) -> String {
    let s = format!("{n:.0}");
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// SVG

const WIDTH: f64 = 780.0;
const LEFT: f64 = 200.0;
const RIGHT: f64 = 90.0;
const BAR: f64 = 15.0;
const BAR_GAP: f64 = 3.0;
const GROUP_GAP: f64 = 14.0;
const COLORS: [&str; 4] = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A step of 1, 2 or 5 times a power of ten, about `max / divisions`.
fn nice_step(max: f64, divisions: f64) -> f64 {
    let raw = max / divisions;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// Where the axis ends: past the largest bar, unless a few bars (at most a third) are each
/// more than 3x all the others: then past the others, and those few are cut (drawn with a
/// break mark and their value), so that the others stay readable.
fn axis_max(values: &[f64], divisions: f64) -> (f64, f64) {
    let mut v: Vec<f64> = values.iter().copied().filter(|v| *v > 0.0).collect();
    v.sort_by(|a, b| b.total_cmp(a));
    let mut top = v.first().copied().unwrap_or(1.0);
    for k in 1..=v.len() / 3 {
        if v[k - 1] > 3.0 * v[k] {
            top = v[k] * 1.25;
            break;
        }
    }
    let step = nice_step(top, divisions);
    ((top / step).ceil() * step, step)
}

fn tick_label(x: f64, step: f64, unit: Unit) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let (scale, suffix) = match unit {
        Unit::Secs if step >= 0.1 => (1.0, " s"),
        Unit::Secs if step >= 1e-4 => (1e3, " ms"),
        Unit::Secs => (1e6, " µs"),
        Unit::Rate if step >= 1000.0 => (1e-3, "k/s"),
        Unit::Rate => (1.0, "/s"),
        Unit::Mbps => (1.0, " MB/s"),
    };
    let decimals = (-(step * scale).log10().floor()).max(0.0) as usize;
    format!("{:.*}{suffix}", decimals, x * scale)
}

impl Chart {
    /// The chart as an SVG document.
    pub fn svg(&self) -> String {
        // One panel per series, each with its own axis, or all series in one panel.
        let panels: Vec<Vec<usize>> = if self.panels {
            (0..self.series.len()).map(|i| vec![i]).collect()
        } else {
            vec![(0..self.series.len()).collect()]
        };
        let per = panels.first().map_or(1, Vec::len).max(1) as f64;
        let pw = (WIDTH - LEFT) / panels.len().max(1) as f64;
        let plot = pw - RIGHT;
        // The legend's places: (x, y) of each series' entry, wrapping before the right edge.
        let mut legend = Vec::new();
        for (p, series) in panels.iter().enumerate() {
            let mut lx = LEFT + p as f64 * pw;
            let mut ly = 64.0;
            for &i in series {
                let w = 17.0 + 7.0 * self.series[i].chars().count() as f64 + 20.0;
                if lx + w > WIDTH && lx > LEFT + p as f64 * pw {
                    lx = LEFT + p as f64 * pw;
                    ly += 18.0;
                }
                legend.push((i, lx, ly));
                lx += w;
            }
        }
        let top = legend.iter().map(|l| l.2).fold(64.0, f64::max) + 22.0;
        let group_h = per * BAR + (per - 1.0) * BAR_GAP;
        let groups = self.groups.len() as f64;
        let plot_h = groups * group_h + (groups - 1.0).max(0.0) * GROUP_GAP;
        let height = top + plot_h + 44.0;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12" role="img">"#
        );
        let _ = writeln!(s, "<title>{}</title>", esc(&self.title));
        let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
        let _ = writeln!(
            s,
            r##"<text x="12" y="24" font-size="15" font-weight="bold" fill="#222">{}</text>"##,
            esc(&self.title)
        );
        // The subtitle on up to two lines of about 110 characters.
        let mut lines = vec![String::new()];
        for word in self.subtitle.split_whitespace() {
            let room = lines.len() < 2;
            let cur = lines.last_mut().expect("one line");
            if !cur.is_empty() && cur.len() + word.len() > 110 && room {
                lines.push(word.to_string());
            } else {
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.push_str(word);
            }
        }
        for (i, l) in lines.iter().enumerate() {
            let _ = writeln!(
                s,
                r##"<text x="12" y="{}" fill="#555">{}</text>"##,
                42 + 15 * i,
                esc(l)
            );
        }
        let mut y = top;
        for g in &self.groups {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{:.1}" text-anchor="end" fill="#222"{}>{}</text>"##,
                LEFT - 8.0,
                y + group_h / 2.0 + 4.0,
                if g.ours { r#" font-weight="bold""# } else { "" },
                esc(&g.label)
            );
            y += group_h + GROUP_GAP;
        }
        for (p, series) in panels.iter().enumerate() {
            let x0 = LEFT + p as f64 * pw;
            // The legend, or the panel's name.
            for &(i, lx, ly) in legend.iter().filter(|l| series.contains(&l.0)) {
                let _ = writeln!(
                    s,
                    r##"<rect x="{lx:.1}" y="{ly}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{}" fill="#222"{}>{}</text>"##,
                    COLORS[i % COLORS.len()],
                    lx + 17.0,
                    ly + 10.5,
                    if self.panels {
                        r#" font-weight="bold""#
                    } else {
                        ""
                    },
                    esc(&self.series[i])
                );
            }
            let values: Vec<f64> = self
                .groups
                .iter()
                .flat_map(|g| series.iter().filter_map(|&i| g.bars[i].as_ref()))
                .map(|b| b.value)
                .collect();
            let divisions = if self.panels { 3.0 } else { 5.0 };
            let (max, step) = axis_max(&values, divisions);
            let x = |v: f64| x0 + plot * (v / max).min(1.0);
            let mut t = 0.0;
            while t <= max * (1.0 + 1e-9) {
                let gx = x(t);
                let _ = writeln!(
                    s,
                    r##"<line x1="{gx:.1}" y1="{}" x2="{gx:.1}" y2="{:.1}" stroke="#ddd"/><text x="{gx:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}</text>"##,
                    top - 4.0,
                    top + plot_h + 4.0,
                    top + plot_h + 20.0,
                    tick_label(t, step, self.unit)
                );
                t += step;
            }
            let _ = writeln!(
                s,
                r##"<line x1="{x0:.1}" y1="{}" x2="{x0:.1}" y2="{:.1}" stroke="#888"/>"##,
                top - 4.0,
                top + plot_h + 4.0
            );
            let mut y = top;
            for g in &self.groups {
                for (k, &i) in series.iter().enumerate() {
                    let by = y + k as f64 * (BAR + BAR_GAP);
                    let Some(bar) = &g.bars[i] else {
                        let _ = writeln!(
                            s,
                            r##"<text x="{:.1}" y="{:.1}" fill="#888" font-style="italic">no figure</text>"##,
                            x0 + 6.0,
                            by + BAR - 3.5
                        );
                        continue;
                    };
                    let end = x(bar.value);
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x0:.1}" y="{by:.1}" width="{:.1}" height="{BAR}" fill="{}"><title>{}: {}</title></rect>"#,
                        (end - x0).max(1.0),
                        COLORS[i % COLORS.len()],
                        esc(&self.series[i]),
                        esc(&bar.text)
                    );
                    if bar.value > max {
                        // The break mark of a bar longer than the axis.
                        let _ = writeln!(
                            s,
                            r##"<path d="M{:.1} {:.1} l6 {} M{:.1} {:.1} l6 {}" stroke="#fff" stroke-width="2.5"/>"##,
                            end - 22.0,
                            by + BAR + 1.0,
                            -(BAR + 2.0),
                            end - 15.0,
                            by + BAR + 1.0,
                            -(BAR + 2.0)
                        );
                    }
                    let _ = writeln!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" fill="#222">{}</text>"##,
                        end + 5.0,
                        by + BAR - 3.5,
                        esc(&bar.text)
                    );
                }
                y += group_h + GROUP_GAP;
            }
        }
        s.push_str("</svg>\n");
        s
    }

    /// The chart's figures in words, for the image's alternative text.
    pub fn alt(&self) -> String {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|g| {
                let bars: Vec<String> = g
                    .bars
                    .iter()
                    .zip(&self.series)
                    .filter_map(|(b, s)| {
                        b.as_ref().map(|b| match s.strip_suffix(" at once") {
                            Some(n) => format!("{n}: {}", b.text),
                            None => format!("{s} {}", b.text),
                        })
                    })
                    .collect();
                // Without versions (the title names the generation): BENCHMARKS.md's size.
                let label: Vec<&str> = g
                    .label
                    .split(' ')
                    .filter(|w| {
                        let w = w.strip_prefix('v').unwrap_or(w);
                        w != "driver" && !w.starts_with(|c: char| c.is_ascii_digit())
                    })
                    .collect();
                format!("{} {}", label.join(" "), bars.join(", "))
            })
            .collect();
        format!("{}: {}", self.title, groups.join("; "))
            .replace(['[', ']'], "")
            .replace('`', "")
    }
}

// ---------------------------------------------------------------------------------------------
// The block in BENCHMARKS.md

/// The Markdown block showing `charts` (files in [`DIR`]).
fn block(charts: &[Chart]) -> String {
    let mut s = format!("{BEGIN}\n## At a glance\n\n");
    s.push_str(
        "Drawn from the tables below (`cargo xtask bench --report-only` draws them again \
         without measuring). Each bar is a median; a bar cut by a white break mark carries its \
         value. \"Replayed\": the server's recorded answer served from memory, so that only the \
         client differs (section 2b).\n\n",
    );
    for c in charts {
        let _ = writeln!(s, "![{}]({DIR}/{})\n", c.alt(), c.file);
    }
    s.push_str(END);
    s.push('\n');
    s
}

/// `md` with its charts block replaced by `block` (or put before `## Machine`, or after the
/// first paragraph when there is no such heading).
fn with_block(md: &str, block: &str) -> String {
    if let (Some(b), Some(e)) = (md.find(BEGIN), md.find(END)) {
        if b < e {
            let after = md[e + END.len()..].trim_start_matches('\n');
            return format!("{}{block}\n{after}", &md[..b]);
        }
    }
    let at = md
        .find("\n## Machine")
        .map(|i| i + 1)
        .or_else(|| md.find("\n\n").map(|i| i + 2))
        .unwrap_or(md.len());
    format!("{}{block}\n{}", &md[..at], &md[at..])
}

/// Draws the charts of `md`'s tables into `root/DIR` (removing the SVGs it no longer draws),
/// writes `root/DIR/tables.jsonl` (every table of `md`, one JSON object a line), and returns
/// `md` with the block that shows them.
pub fn update(root: &Path, md: &str) -> Result<String> {
    let dir = root.join(DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let tables = tables(md);
    let mut jsonl = String::new();
    for t in &tables {
        jsonl.push_str(&t.to_json());
        jsonl.push('\n');
    }
    std::fs::write(dir.join("tables.jsonl"), jsonl)?;
    let charts = charts(&tables);
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".svg") && !charts.iter().any(|c| c.file == name) {
            std::fs::remove_file(&path)?;
        }
    }
    for c in &charts {
        std::fs::write(dir.join(c.file), c.svg())?;
    }
    Ok(with_block(md, &block(&charts)))
}

/// Reads `root/BENCHMARKS.md`, [`update`]s it and writes it back.
pub fn refresh(root: &Path) -> Result<()> {
    let path = root.join("BENCHMARKS.md");
    let md =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    std::fs::write(&path, update(root, &md)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &str = "# Benchmarks

Written by a run.

## Machine

| | |
|---|---|
| CPU | x |

## 1. In-process decoding

| corpus | size | mode | median | results/s | MB/s | allocations/result |
|---|---:|---|---:|---:|---:|---:|
| vertices_200k | 23.7 MB | (a) slice | 66.7 ms | 3.00 M | 356 | 3.25 |
| vertices_200k | 23.7 MB | (d) 8 KiB, slow path only | 554.5 ms | 360.7 k | 43 | 24.25 |
| vertices_200k | 23.7 MB | count only, `for_each_skipped` (8 KiB reads) | 32.9 ms | 6.08 M | 722 | 0.00 |

## 2. End to end: Gremlin Server 4.0.0-beta.3 on loopback

### Latency of `g.V().repeat(both()).times(12)` (median of 5 requests, one connection)

| contender | median wall | min | max | client CPU/request | results | vs raw | vs ours |
|---|---:|---:|---:|---:|---:|---:|---:|
| **graphbinary-rs** (ours) | 1.70 s | 629.7 ms | 2.11 s | 366.9 ms | 200766 | 0.84x | 1.00x |
| **graphbinary-rs**, counting only (`count()`: no result built) | 37.5 ms | 28.6 ms | 51.8 ms | 54.2 ms | 200766 | 1.93x | 0.23x |
| Java driver 4.0.0-beta.3 | failed: exit status: 1 | | | | | | |
| gremlinpython 4.0.0b3 | 20.15 s | 18.17 s | 21.22 s | 19.89 s | 200766 | 10.03x | 11.88x |
| raw byte drain (floor) | 712 µs | 529.4 ms | 2.73 s | 107.1 ms | (24036491 bytes) | 1.00x | 1.18x |

### Throughput of `g.V()` (3000 requests per measurement, pool = concurrency; median of 5 round(s))

| concurrency | contender | median req/s | client CPU per 1000 req | vs best peer |
|---:|---|---:|---:|---:|
| 64 | **graphbinary-rs** (ours) | 7592 | 82.5 ms | 1.66x |
| 64 | Java driver 4.0.0-beta.3 | 1795 (1 of 5 rounds failed) | 873.3 ms | 0.39x |
| 256 | **graphbinary-rs** (ours) | 7121 | 98.6 ms | 1.43x |

```
| not | a table |
|---|---|
```

## Exact commands
";

    #[test]
    fn tables_are_read_with_their_headings_and_not_from_code_blocks() {
        let t = tables(MD);
        assert_eq!(t.len(), 4);
        assert_eq!(t[0].heading, "Machine");
        assert_eq!(t[1].heading, "1. In-process decoding");
        let t = &t[1..];
        assert_eq!(
            t[1].section,
            "2. End to end: Gremlin Server 4.0.0-beta.3 on loopback"
        );
        assert!(t[1].heading.starts_with("Latency of `g.V().repeat"));
        assert_eq!(t[1].rows.len(), 5);
        assert_eq!(t[1].rows[0][1], "1.70 s");
        assert_eq!(t[2].rows[1][2], "1795 (1 of 5 rounds failed)");
        let j: serde_json::Value = serde_json::from_str(&t[2].to_json()).unwrap();
        assert_eq!(j["rows"][0][2], "7592");
    }

    #[test]
    fn cells_parse_as_the_tables_write_them() {
        assert_eq!(parse_secs("1.70 s"), Some(1.7));
        assert_eq!(parse_secs("629.7 ms"), Some(0.6297));
        assert_eq!(parse_secs("712 µs"), Some(712e-6));
        assert_eq!(parse_secs("failed: exit status: 1"), None);
        assert_eq!(parse_secs("NaN µs"), None);
        assert_eq!(parse_num("3000 (2 of 3 rounds failed)"), Some(3000.0));
        assert_eq!(parse_num("failed: x"), None);
    }

    #[test]
    fn charts_carry_the_tables_numbers_and_leave_out_failures_and_variants() {
        let c = charts(&tables(MD));
        assert_eq!(
            c.iter().map(|c| c.file).collect::<Vec<_>>(),
            ["tp4-200k.svg", "tp4-throughput-live.svg", "inproc.svg"]
        );
        // In process: the routes charted, the slow path left out.
        let inproc = &c[2];
        assert_eq!(inproc.groups.len(), 1);
        let bars: Vec<Option<f64>> = inproc.groups[0]
            .bars
            .iter()
            .map(|b| b.as_ref().map(|b| b.value))
            .collect();
        assert_eq!(bars, [Some(356.0), None, None, Some(722.0)]);
        let big = &c[0];
        assert_eq!(big.series, ["live"]);
        let labels: Vec<&str> = big.groups.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "graphbinary-rs",
                "gremlinpython 4.0.0b3",
                "floor: raw drain"
            ]
        );
        assert_eq!(big.groups[1].bars[0].as_ref().unwrap().value, 20.15);
        assert!(big.title.contains("200,766 results"));
        let svg = big.svg();
        assert!(svg.contains(">20.15 s</text>") && svg.contains(">1.70 s</text>"));
        // Python's 20 s is over 3x the next bar: it is cut, with a break mark.
        assert!(svg.contains("stroke-width=\"2.5\""));
        let t = &c[1];
        assert_eq!(t.series, ["64 at once", "256 at once"]);
        assert_eq!(t.groups[1].label, "Java driver 4.0.0-beta.3");
        assert_eq!(t.groups[1].bars[0].as_ref().unwrap().value, 1795.0);
        assert!(t.groups[1].bars[1].is_none());
        assert!(t.svg().contains("no figure"));
        assert!(t.alt().contains("graphbinary-rs 64: 7592/s, 256: 7121/s"));
    }

    #[test]
    fn the_block_goes_before_machine_then_replaces_itself() {
        let dir = std::env::temp_dir().join(format!("charts-test-{}", std::process::id()));
        let once = update(&dir, MD).unwrap();
        assert!(once.find(BEGIN).unwrap() < once.find("## Machine").unwrap());
        assert!(dir.join(DIR).join("tp4-200k.svg").exists());
        assert_eq!(
            std::fs::read_to_string(dir.join(DIR).join("tables.jsonl"))
                .unwrap()
                .lines()
                .count(),
            4
        );
        std::fs::write(dir.join(DIR).join("stale.svg"), "x").unwrap();
        let twice = update(&dir, &once).unwrap();
        assert_eq!(once, twice);
        assert!(!dir.join(DIR).join("stale.svg").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn axis_cuts_only_an_outlier() {
        assert_eq!(axis_max(&[1.7, 2.0, 1.8], 5.0), (2.0, 0.5));
        // Two bars far above four: cut at the four.
        assert_eq!(
            axis_max(&[1.7, 20.15, 1.8, 13.55, 2.01, 1.9], 5.0),
            (3.0, 1.0)
        );
        // Half the bars far above the others: not outliers, nothing is cut.
        assert_eq!(axis_max(&[0.1, 0.12, 1.0, 1.1], 5.0), (1.5, 0.5));
        assert_eq!(nice_step(20000.0, 5.0), 5000.0);
        assert_eq!(tick_label(0.5, 0.5, Unit::Secs), "0.5 s");
        assert_eq!(tick_label(0.004, 0.001, Unit::Secs), "4 ms");
        assert_eq!(tick_label(10000.0, 5000.0, Unit::Rate), "10k/s");
    }
}
