//! `xtask/features-skip.toml`: the scenarios `cargo xtask features` does not count as passing,
//! each with its reason. `expect = "skip"` is not run at all (only for steps a remote client
//! cannot check); `expect = "fail"` is run and must fail (the server itself answers wrongly;
//! the reason records the evidence). A listed scenario that passes is a failure of the run.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    Skip,
    Fail,
}

#[derive(Deserialize, Debug, Clone)]
pub struct Entry {
    /// Path relative to the features directory, e.g. `sideEffect/Write.feature`.
    pub file: String,
    pub scenario: String,
    pub expect: Expect,
    pub reason: String,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    scenario: Vec<Entry>,
}

pub struct Skips(HashMap<(String, String), Entry>);

impl Skips {
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.0.values()
    }

    pub fn get(&self, file: &str, scenario: &str) -> Option<&Entry> {
        self.0.get(&(file.to_string(), scenario.to_string()))
    }
}

pub fn load(path: &Path) -> Result<Skips> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let file: File =
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let mut map = HashMap::new();
    for e in file.scenario {
        anyhow::ensure!(
            !e.reason.trim().is_empty(),
            "{}: {} has no reason",
            e.file,
            e.scenario
        );
        map.insert((e.file.clone(), e.scenario.clone()), e);
    }
    Ok(Skips(map))
}
