//! The run's data beside the report, in [`DIR`]: `runs.jsonl` (every measurement line, one
//! JSON object each), `commands.txt` (every command the run ran, in order) and, from
//! `super::charts`, `tables.jsonl` and the charts. A part run alone (`--only tp3`) writes
//! `runs-<part>.jsonl` and `commands-<part>.txt` and its section links them; a run that
//! writes the whole report removes those.
//!
//! `cargo xtask bench --report-only` ([`report_only`]) measures nothing: it moves the data of
//! a report written before this layout (the commands and raw lines in the Markdown) into
//! these files, then draws the charts again from the report's tables.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value as Json;

pub use super::charts::DIR;

/// One measurement line as a JSON object: a JSON line as it is; `label: {json}` (the
/// console's `console graphbinary: {...}`) as that object with a `label`; anything else as
/// `{"text": line}`.
pub fn json_line(line: &str) -> String {
    let line = line.trim();
    if serde_json::from_str::<Json>(line).is_ok_and(|j| j.is_object()) {
        return line.to_string();
    }
    if let Some((label, rest)) = line.split_once(": ") {
        if let Ok(Json::Object(mut o)) = serde_json::from_str::<Json>(rest) {
            o.insert("label".into(), Json::String(label.to_string()));
            return Json::Object(o).to_string();
        }
    }
    serde_json::json!({ "text": line }).to_string()
}

/// The file names of a whole run's data (`part` None) or of one part's.
fn names(part: Option<&str>) -> (String, String) {
    match part {
        None => ("runs.jsonl".into(), "commands.txt".into()),
        Some(p) => (format!("runs-{p}.jsonl"), format!("commands-{p}.txt")),
    }
}

/// Writes `commands` and `raw` into `root/DIR` (a whole run's, or `part`'s alone) and returns
/// the Markdown sentence that links them.
pub fn write(
    root: &Path,
    commands: &[String],
    raw: &[String],
    part: Option<&str>,
) -> Result<String> {
    let dir = root.join(DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    if part.is_none() {
        // The whole report is written again: no section links a part's files any more.
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("runs-") || name.starts_with("commands-") {
                std::fs::remove_file(&path)?;
            }
        }
    }
    let (runs, cmds) = names(part);
    let mut text = String::new();
    for c in commands {
        writeln!(text, "{c}")?;
    }
    std::fs::write(dir.join(&cmds), text)?;
    let mut text = String::new();
    for r in raw {
        writeln!(text, "{}", json_line(r))?;
    }
    std::fs::write(dir.join(&runs), text)?;
    Ok(format!(
        "Its {} commands in order (the first is the one to type): [{cmds}]({DIR}/{cmds}); \
         its {} measurements, one JSON object a line: [{runs}]({DIR}/{runs}).",
        commands.len(),
        raw.len(),
    ))
}

/// The `## Exact commands` section of a whole report (its heading stays: a part run alone
/// puts a new section before it).
pub fn exact_commands(links: &str) -> String {
    format!(
        "## Exact commands\n\n{links} Every table of this report as JSON, one a line: \
         [{DIR}/tables.jsonl]({DIR}/tables.jsonl).\n"
    )
}

const OLD_RAW: &str = "<details><summary>Raw measurement lines</summary>";

/// `md` with the commands and raw lines of the old layout (a code block under `## Exact
/// commands` and a `<details>` block after it) moved into the data files; None when `md` has
/// none.
fn migrate(root: &Path, md: &str) -> Result<Option<String>> {
    let Some(start) = md.find("\n## Exact commands") else {
        return Ok(None);
    };
    let tail = &md[start..];
    let Some(open) = tail.find("```\n") else {
        return Ok(None);
    };
    let body = &tail[open + 4..];
    let close = body
        .find("\n```")
        .context("an unclosed code block of commands")?;
    let commands: Vec<String> = body[..close].lines().map(str::to_owned).collect();
    let raw: Vec<String> = match tail.find(OLD_RAW) {
        Some(r) => {
            let block = &tail[r + OLD_RAW.len()..];
            let open = block
                .find("```\n")
                .context("raw lines without their code block")?;
            let body = &block[open + 4..];
            let close = body
                .find("\n```")
                .context("an unclosed block of raw lines")?;
            body[..close].lines().map(str::to_owned).collect()
        }
        None => Vec::new(),
    };
    let links = write(root, &commands, &raw, None)?;
    Ok(Some(format!(
        "{}\n{}",
        md[..start].trim_end_matches('\n').to_string() + "\n",
        exact_commands(&links)
    )))
}

/// `cargo xtask bench --report-only`.
pub fn report_only(root: &Path) -> Result<()> {
    let path = root.join("BENCHMARKS.md");
    let md =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let md = migrate(root, &md)?.unwrap_or(md);
    std::fs::write(&path, super::charts::update(root, &md)?)?;
    eprintln!(
        "xtask bench: drew the charts of {} again, into {}",
        path.display(),
        root.join(DIR).display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_measurement_line_becomes_one_json_object() {
        assert_eq!(json_line(r#"{"a":1.250}"#), r#"{"a":1.250}"#);
        let j: Json =
            serde_json::from_str(&json_line(r#"console graphbinary: {"prompt": 0.5}"#)).unwrap();
        assert_eq!(j["label"], "console graphbinary");
        assert_eq!(j["prompt"], 0.5);
        let j: Json = serde_json::from_str(&json_line("a | b: [1]")).unwrap();
        assert_eq!(j["text"], "a | b: [1]");
    }

    #[test]
    fn the_old_layout_moves_out_of_the_markdown() {
        let dir = std::env::temp_dir().join(format!("results-test-{}", std::process::id()));
        let md = format!(
            "# B\n\n## 6. x\n\nt\n\n\n## Exact commands\n\n```\ncargo xtask bench\ncargo bench\n```\n\n\
             {OLD_RAW}\n\n```\n{{\"a\":1}}\nconsole x: {{\"b\":2}}\n```\n</details>\n"
        );
        std::fs::create_dir_all(dir.join(DIR)).unwrap();
        std::fs::write(dir.join(DIR).join("runs-tp3.jsonl"), "stale").unwrap();
        let new = migrate(&dir, &md).unwrap().unwrap();
        assert!(
            new.starts_with("# B\n\n## 6. x\n\nt\n\n## Exact commands\n\nIts 2 commands in order")
        );
        assert!(!new.contains("cargo bench") && !new.contains("details"));
        assert!(new.contains("[runs.jsonl](benchmarks/runs.jsonl)"));
        let d = dir.join(DIR);
        assert_eq!(
            std::fs::read_to_string(d.join("commands.txt")).unwrap(),
            "cargo xtask bench\ncargo bench\n"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("runs.jsonl")).unwrap(),
            "{\"a\":1}\n{\"b\":2,\"label\":\"console x\"}\n"
        );
        assert!(!d.join("runs-tp3.jsonl").exists());
        assert_eq!(migrate(&dir, &new).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
