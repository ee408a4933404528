//! `--compare-go`: gremlin-go's own cucumber runner (`driver/cucumber` of the gremlin-go
//! 4.0.0-beta.3 module in `../shared`) against the same server and the same feature files,
//! side by side with ours, written to `docs/CONFORMANCE.md`.
//!
//! The module is copied into `target/gremlin-go/` (the shared copy is read-only and `go test`
//! wants to write `go.sum` entries and build files), its dependencies come through Go's module
//! proxy, and the runner is started as gremlin-go's own docker-compose does: `go test` with
//! `GREMLIN_SERVER_URL` and `CUCUMBER_FEATURE_FOLDER`. Its godog "pretty" output names each
//! scenario with its file and line and colours each step by outcome (green passed, red failed,
//! yellow undefined or pending, cyan skipped); scenarios its tag filter leaves out do not
//! appear at all.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::{ModeRun, Outcome, Scenario};
use crate::util::{project_root, secs, shared_dir};

/// A gremlin-go scenario outcome.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum GoOutcome {
    Passed,
    Failed,
    /// A step without a definition (gremlin-go has none for `using the side effect`).
    Undefined,
}

pub fn run(url: &str, dir: &Path, scenarios: &[Scenario], runs: &[ModeRun]) -> Result<()> {
    let root = project_root();
    let module = shared_dir().join("gremlin-go-4.0.0-beta.3");
    anyhow::ensure!(
        module.join("driver/cucumber").is_dir(),
        "gremlin-go's module is not at {}",
        module.display()
    );
    let work = root.join("target/gremlin-go");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    crate::util::run(
        Command::new("cp")
            .arg("-r")
            .arg(format!("{}/.", module.display()))
            .arg(&work),
    )?;
    crate::util::run(Command::new("chmod").args(["-R", "u+w"]).arg(&work))?;
    let dir = dir
        .canonicalize()
        .with_context(|| format!("resolving {}", dir.display()))?;
    eprintln!("xtask: running gremlin-go's cucumber runner against {url} ...");
    let started = Instant::now();
    let out = Command::new("go")
        .args([
            "test",
            "-v",
            "-count=1",
            "-run",
            "TestCucumberFeatures",
            "./driver/cucumber/",
        ])
        .current_dir(&work)
        .env("GREMLIN_SERVER_URL", url)
        .env("CUCUMBER_FEATURE_FOLDER", &dir)
        .output()
        .context("running `go test` (is Go on PATH?)")?;
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    std::fs::write(work.join("go-test.log"), &text)?;
    let go = parse_pretty(&text, &dir);
    if go.is_empty() {
        bail!(
            "gremlin-go's runner reported no scenario ({}); see {}\n{}",
            out.status,
            work.join("go-test.log").display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let summary = text
        .lines()
        .map(strip_ansi)
        .find(|l| l.contains(" scenarios ("))
        .unwrap_or_default();
    eprintln!(
        "xtask: gremlin-go: {summary} in {} (go test {})",
        secs(took),
        out.status
    );
    let mut report = report(scenarios, runs, &go, &summary, took);
    // The TinkerPop 3 section (written by `--tinkerpop`) and the compatibility matrix (each
    // run's row, this one's included) are kept as they are.
    let old = std::fs::read_to_string(root.join("docs/CONFORMANCE.md")).unwrap_or_default();
    let sections = [super::tp3::section_of(&old), super::tp3::matrix_of(&old)];
    for section in sections.into_iter().flatten() {
        report = format!(
            "{}

{section}
",
            report.trim_end()
        );
    }
    std::fs::write(root.join("docs/CONFORMANCE.md"), &report)?;
    for line in report.lines().filter(|l| l.starts_with("| **all**")) {
        eprintln!("{line}");
    }
    // Side by side, on stdout before the closing line.
    for run in runs {
        let (mut p, mut f, mut s) = (0, 0, 0);
        for (_, o) in &run.outcomes {
            match o {
                Outcome::Passed => p += 1,
                Outcome::Failed => f += 1,
                Outcome::Skipped => s += 1,
            }
        }
        let label = format!("ours ({})", run.mode.name());
        println!("{label:<14} {p} passed, {f} failed, {s} skipped");
    }
    let (p, f, s) = go_totals(scenarios, &go);
    println!(
        "{:<14} {p} passed, {f} failed, {s} skipped (not selected by its tags, or undefined)",
        "gremlin-go"
    );
    eprintln!("xtask: wrote docs/CONFORMANCE.md");
    Ok(())
}

/// Per scenario (feature file relative to `dir`, line of `Scenario:`) its outcome.
fn parse_pretty(text: &str, dir: &Path) -> HashMap<(String, String), GoOutcome> {
    let prefix = format!("{}/", dir.display());
    let mut out = HashMap::new();
    let mut current: Option<((String, String), GoOutcome)> = None;
    let mut finish = |cur: &mut Option<((String, String), GoOutcome)>| {
        if let Some((k, v)) = cur.take() {
            out.insert(k, v);
        }
    };
    for raw in text.lines() {
        let plain = strip_ansi(raw);
        let trimmed = plain.trim_start();
        if let Some(rest) = trimmed.strip_prefix("Scenario:") {
            finish(&mut current);
            let Some((name, location)) = rest.split_once(" # ") else {
                continue;
            };
            let file = location
                .trim()
                .rsplit_once(':')
                .map_or(location.trim(), |(f, _)| f);
            let file = file.strip_prefix(&prefix).unwrap_or(file).to_string();
            current = Some(((file, name.trim().to_string()), GoOutcome::Passed));
            continue;
        }
        let Some((_, outcome)) = current.as_mut() else {
            continue;
        };
        let is_step = ["Given ", "When ", "Then ", "And ", "But "]
            .iter()
            .any(|k| trimmed.starts_with(k));
        if !is_step {
            continue;
        }
        let colour = raw
            .trim_start()
            .strip_prefix("\u{1b}[")
            .and_then(|r| r.get(..2));
        match colour {
            Some("31") => *outcome = GoOutcome::Failed,
            Some("33") if *outcome == GoOutcome::Passed => *outcome = GoOutcome::Undefined,
            _ => {}
        }
    }
    finish(&mut current);
    out
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn go_outcome(sc: &Scenario, go: &HashMap<(String, String), GoOutcome>) -> Option<GoOutcome> {
    go.get(&(sc.file.clone(), sc.name.clone())).copied()
}

/// gremlin-go's passed, failed and skipped (not selected, or with an undefined step).
fn go_totals(
    scenarios: &[Scenario],
    go: &HashMap<(String, String), GoOutcome>,
) -> (usize, usize, usize) {
    let (mut p, mut f, mut s) = (0, 0, 0);
    for sc in scenarios {
        match go_outcome(sc, go) {
            Some(GoOutcome::Passed) => p += 1,
            Some(GoOutcome::Failed) => f += 1,
            _ => s += 1,
        }
    }
    (p, f, s)
}

#[derive(Default, Clone, Copy)]
struct Count {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Count {
    fn add(&mut self, o: Outcome) {
        match o {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Skipped => self.skipped += 1,
        }
    }

    fn cell(self) -> String {
        format!("{} / {} / {}", self.passed, self.failed, self.skipped)
    }
}

fn report(
    scenarios: &[Scenario],
    runs: &[ModeRun],
    go: &HashMap<(String, String), GoOutcome>,
    go_summary: &str,
    go_took: std::time::Duration,
) -> String {
    // Per directory: scenarios, ours per mode, gremlin-go.
    let mut dirs: BTreeMap<String, (usize, Vec<Count>, Count, usize)> = BTreeMap::new();
    let dir_of = |file: &str| file.split('/').next().unwrap_or(file).to_string();
    for (i, sc) in scenarios.iter().enumerate() {
        let entry = dirs
            .entry(dir_of(&sc.file))
            .or_insert_with(|| (0, vec![Count::default(); runs.len()], Count::default(), 0));
        entry.0 += 1;
        for (m, run) in runs.iter().enumerate() {
            if let Some((_, o)) = run.outcomes.get(i) {
                entry.1[m].add(*o);
            }
        }
        match go_outcome(sc, go) {
            Some(GoOutcome::Passed) => entry.2.add(Outcome::Passed),
            Some(GoOutcome::Failed) => entry.2.add(Outcome::Failed),
            Some(GoOutcome::Undefined) => {
                entry.2.add(Outcome::Skipped);
                entry.3 += 1;
            }
            None => entry.2.add(Outcome::Skipped),
        }
    }
    let mut all = (0, vec![Count::default(); runs.len()], Count::default(), 0);
    for (n, ours, g, undefined) in dirs.values() {
        all.0 += n;
        for (a, o) in all.1.iter_mut().zip(ours) {
            a.passed += o.passed;
            a.failed += o.failed;
            a.skipped += o.skipped;
        }
        all.2.passed += g.passed;
        all.2.failed += g.failed;
        all.2.skipped += g.skipped;
        all.3 += undefined;
    }

    let mut md = String::new();
    let _ = writeln!(md, "# Conformance: TinkerPop's Gherkin feature suite\n");
    let _ = writeln!(
        md,
        "Generated by `cargo xtask features --compare-go` (do not edit). TinkerPop \
         {version}'s {n} scenarios (168 feature files of the gremlin-test jar), run against the \
         integration server (`cargo xtask server --dataset integration`) by our runner \
         (graphbinary-client, `cargo xtask features`) and by gremlin-go's own cucumber runner \
         (gremlin-go {version}, `go test ./driver/cucumber/`), on the same server and files.\n",
        version = crate::server::TINKERPOP_VERSION,
        n = scenarios.len()
    );
    let _ = writeln!(
        md,
        "Cells are passed / failed / skipped. Our skipped scenarios are those in \
         `xtask/features-skip.toml`, each with its reason. gremlin-go's skipped are those its \
         tag filter leaves out (`~@GraphComputerOnly && ~@AllowNullPropertyValues && ~@StepWrite \
         && ~@DataChar && ~@MultiLabelDefault`) and those with an undefined step (it has no \
         step for `using the side effect`; \"undefined\" column).\n"
    );
    let _ = writeln!(md, "## Totals\n");
    let _ = writeln!(md, "| runner | passed | failed | skipped | time |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    for (run, c) in runs.iter().zip(&all.1) {
        let _ = writeln!(
            md,
            "| ours, {} ({}) | {} | {} | {} | {} |",
            run.mode.name(),
            if run.mode == super::Mode::Plain {
                "bulkResults off"
            } else {
                "bulkResults on"
            },
            c.passed,
            c.failed,
            c.skipped,
            secs(run.took)
        );
    }
    let _ = writeln!(
        md,
        "| gremlin-go | {} | {} | {} ({} undefined) | {} (with its build) |",
        all.2.passed,
        all.2.failed,
        all.2.skipped,
        all.3,
        secs(go_took)
    );
    let _ = writeln!(md, "\ngremlin-go's own summary: `{}`\n", go_summary.trim());
    let _ = writeln!(md, "## Per feature directory\n");
    let mut head = String::from("| directory | scenarios |");
    let mut rule = String::from("|---|---:|");
    for run in runs {
        let _ = write!(head, " ours, {} |", run.mode.name());
        rule.push_str("---:|");
    }
    head.push_str(" gremlin-go | undefined (go) |");
    rule.push_str("---:|---:|");
    let _ = writeln!(md, "{head}\n{rule}");
    let mut row = |name: &str, (n, ours, g, u): &(usize, Vec<Count>, Count, usize)| {
        let mut line = format!("| {name} | {n} |");
        for o in ours {
            let _ = write!(line, " {} |", o.cell());
        }
        let _ = write!(line, " {} | {u} |", g.cell());
        let _ = writeln!(md, "{line}");
    };
    for (name, v) in &dirs {
        row(name, v);
    }
    row("**all**", &all);
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_godog_pretty_output() {
        let text = "\u{1b}[1;37mFeature:\u{1b}[0m x\n\
          \u{1b}[1;37mScenario:\u{1b}[0m a_ok \u{1b}[1;30m# /f/map/A.feature:3\u{1b}[0m\n\
          \u{1b}[32mGiven\u{1b}[0m \u{1b}[32mthe modern graph\u{1b}[0m\n\
          \u{1b}[1;37mScenario:\u{1b}[0m b_undef \u{1b}[1;30m# /f/map/A.feature:9\u{1b}[0m\n\
          \u{1b}[32mGiven\u{1b}[0m \u{1b}[32mthe modern graph\u{1b}[0m\n\
          \u{1b}[33mAnd\u{1b}[0m \u{1b}[33musing the side effect a defined as \"x\"\u{1b}[0m\n\
          \u{1b}[36mWhen\u{1b}[0m \u{1b}[36miterated to list\u{1b}[0m\n\
          \u{1b}[1;37mScenario:\u{1b}[0m c_fail \u{1b}[1;30m# /f/filter/B.feature:4\u{1b}[0m\n\
          \u{1b}[31mThen\u{1b}[0m \u{1b}[31mthe result should be empty\u{1b}[0m\n";
        let go = parse_pretty(text, Path::new("/f"));
        let get = |f: &str, n: &str| go.get(&(f.to_string(), n.to_string())).copied();
        assert_eq!(get("map/A.feature", "a_ok"), Some(GoOutcome::Passed));
        assert_eq!(get("map/A.feature", "b_undef"), Some(GoOutcome::Undefined));
        assert_eq!(get("filter/B.feature", "c_fail"), Some(GoOutcome::Failed));
        assert_eq!(go.len(), 3);
    }
}
