//! `graphbinary export`: the whole graph as `DIR/nodes.csv` and `DIR/edges.csv` in the
//! Neptune bulk-load CSV format `graphbinary load` reads, through [`Exporter`] (its rules:
//! which types are written and which are refused, naming the element). At the end a one-line
//! summary (counts, seconds).
//!
//! Exit status: 0 the graph was written; 1 the run failed (the server does not answer, a file
//! cannot be written, a value the format cannot hold: nothing is written then, or the graph
//! changed during the export); 64 a usage error.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use graphbinary_client::format::text::one_line;
use graphbinary_client::process::Exporter;

use crate::args::ConnArgs;

/// Arguments of `graphbinary export`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 the graph was written; 1 the run failed (the server does not answer, a file \
cannot be written, a value the CSV format cannot hold, named with its element: then no file \
is written); 64 a usage error.")]
pub struct ExportArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// The directory of nodes.csv and edges.csv (created if missing; the files are replaced).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(args: ExportArgs) -> ExitCode {
    let rt = match crate::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(export(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("graphbinary: export: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn export(args: &ExportArgs) -> Result<(), String> {
    let url = args.conn.url();
    let client = args.conn.connect(&url).await?;
    let mut exporter = Exporter::new(&client);
    if let Some(s) = &args.conn.source {
        exporter = exporter.source(s.clone());
    }
    let started = Instant::now();
    let run = exporter.export_to_dir(&args.out);
    let summary = match args.conn.timeout {
        Some(t) => tokio::time::timeout(t, run)
            .await
            .map_err(|_| format!("not done within --timeout {t:?} (the files are incomplete)"))?,
        None => run.await,
    }
    .map_err(|e| one_line(&e).to_string())?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "graphbinary: export: {summary} to {} in {secs:.1} s ({:.0} elements/s)",
        args.out.display(),
        (summary.vertices + summary.edges) as f64 / secs.max(1e-9)
    );
    Ok(())
}
