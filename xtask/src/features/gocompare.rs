//! `--compare-go`: gremlin-go's own cucumber runner against the same server, side by side.

use std::path::Path;

use anyhow::Result;

use super::{Mode, Outcome, Totals};

pub fn run(
    _url: &str,
    _dir: &Path,
    _per_mode: &[(Mode, Totals)],
    _outcomes: &[(String, Outcome)],
) -> Result<()> {
    anyhow::bail!("--compare-go is not implemented yet")
}
