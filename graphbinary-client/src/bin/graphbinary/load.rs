//! `graphbinary load`: loads vertex and edge files in the Neptune bulk-load CSV format through
//! [`Loader`] (upserts by `~id`: loading again writes nothing twice, and a load cut short is
//! completed by running it again). While stderr is a terminal, a progress line; at the end a
//! one-line summary (rows, counts, seconds, rows/s) and each rejected row as
//! `file:line:column: message`.
//!
//! Ctrl-C (or the end of `--timeout`) stops reading the files; what is queued is written
//! before the summary (exit 1).
//!
//! Exit status: 0 every row was written; 2 some rows (or a file's header) were rejected, the
//! others written; 1 the run failed (the server does not answer, a file could not be read to
//! its end, Ctrl-C); 64 a usage error (bad option, a file that cannot be opened).

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use graphbinary_client::format::text::one_line;
use graphbinary_client::process::{BatchOptions, GraphTraversalSource, LoadSummary, Loader};

use crate::args::ConnArgs;

/// Arguments of `graphbinary load`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 every row was written; 2 some rows (or a file's header) were rejected, each \
printed as file:line:column: message, the others written; 1 the run failed (the server does \
not answer, a file could not be read to its end, Ctrl-C or --timeout: what was queued is \
written first; \
run the same load again to complete it); 64 a usage error (bad option, a file that cannot be \
opened).")]
pub struct LoadArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// Vertex files (`~id`, `~label`, `name:type` columns), loaded first, in order.
    #[arg(long, value_name = "FILE", num_args = 1.., action = clap::ArgAction::Append)]
    pub nodes: Vec<PathBuf>,
    /// Edge files (`~id`, `~from`, `~to`, `~label`, `name:type` columns), loaded once every
    /// vertex is written.
    #[arg(long, value_name = "FILE", num_args = 1.., action = clap::ArgAction::Append)]
    pub edges: Vec<PathBuf>,
    /// Upserts per request (default 100).
    #[arg(long, value_name = "N")]
    pub batch_size: Option<usize>,
    /// Requests in flight at once (no two of them writing at one vertex).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub in_flight: usize,
    /// Upsert by this property instead of by id, for a graph that assigns its own ids
    /// (JanusGraph): each vertex's ~id is kept as this String property, and edges find their
    /// ends by it (read back as the server's ids once the vertices are written).
    #[arg(long, value_name = "NAME")]
    pub key: Option<String>,
    /// With --key on JanusGraph: first create a composite index on the key property through
    /// JanusGraph's management API (kept if one exists; a key that holds values is reindexed),
    /// and wait until it is enabled. Without it, a JanusGraph with query.force-index and no
    /// index on the key stops the load before anything is written.
    #[arg(long, requires = "key")]
    pub create_index: bool,
    /// No progress line, even on a terminal.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: LoadArgs) -> ExitCode {
    if args.nodes.is_empty() && args.edges.is_empty() {
        eprintln!(
            "graphbinary: load: nothing to load: give --nodes FILE... and/or --edges FILE..."
        );
        return ExitCode::from(64);
    }
    // Every file opens before anything is sent.
    let mut files = Vec::new();
    for (edges, path) in args
        .nodes
        .iter()
        .map(|p| (false, p))
        .chain(args.edges.iter().map(|p| (true, p)))
    {
        match File::open(path) {
            Ok(f) => {
                let len = f.metadata().map(|m| m.len()).unwrap_or(0);
                files.push((edges, path.clone(), f, len));
            }
            Err(e) => {
                eprintln!("graphbinary: load: {}: {e}", path.display());
                return ExitCode::from(64);
            }
        }
    }
    let rt = match crate::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(load(&args, files)) {
        Ok(s) if s.is_complete() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(2),
        Err(e) => {
            eprintln!("graphbinary: load: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn load(
    args: &LoadArgs,
    files: Vec<(bool, PathBuf, File, u64)>,
) -> Result<LoadSummary, String> {
    let url = args.conn.url();
    let client = args.conn.connect(&url).await?;
    // A server that does not answer fails the run here, not as every row rejected.
    let mut g = GraphTraversalSource::new(client.clone());
    if let Some(s) = &args.conn.source {
        g = g.alias(s.clone());
    }
    g.inject(1)
        .iterate()
        .await
        .map_err(|e| format!("{}: {}", redact(&url), one_line(&e)))?;

    let mut options = BatchOptions::default();
    if let Some(n) = args.batch_size {
        options = options.batch_size(n);
    }
    options = options.in_flight(args.in_flight);
    if let Some(s) = &args.conn.source {
        options = options.source(s.clone());
    }
    let total: u64 = files.iter().map(|f| f.3).sum();
    let progress = (!args.quiet && io::stderr().is_terminal()).then(|| Progress::new(total));
    let started = Instant::now();
    let mut loader = Loader::new(&client, options);
    if let Some(k) = &args.key {
        loader = loader.key_property(k.clone());
        if args.create_index {
            loader = loader.create_index();
        }
    }
    let mut interrupted = false;
    // Ctrl-C, or the end of --timeout.
    let timeout = args.conn.timeout;
    let ctrl_c = async move {
        match timeout {
            Some(t) => tokio::select! {
                _ = tokio::signal::ctrl_c() => "interrupted",
                () = tokio::time::sleep(t) => "--timeout reached",
            },
            None => {
                let _ = tokio::signal::ctrl_c().await;
                "interrupted"
            }
        }
    };
    tokio::pin!(ctrl_c);
    let mut why = "";
    for (edges, path, file, _) in files {
        let name = path.display().to_string();
        let reader = Counted {
            inner: file,
            progress: progress.clone(),
            name: short_name(&path),
        };
        // Ctrl-C stops reading; what is queued is still written (a request cut midway can
        // leave a non-transactional graph such as TinkerGraph half-updated).
        let done = tokio::select! {
            done = async {
                if edges {
                    loader.load_edges(&name, reader).await
                } else {
                    loader.load_vertices(&name, reader).await
                }
            } => done,
            w = &mut ctrl_c => {
                interrupted = true;
                why = w;
                Ok(())
            }
        };
        done.map_err(|e| one_line(&e).to_string())?;
        if interrupted {
            break;
        }
    }
    if let Some(p) = &progress {
        p.note(if interrupted {
            "stopped: writing what is queued (run again to complete the load)"
        } else {
            "writing the last batches"
        });
    }
    let summary = loader.finish().await;
    let secs = started.elapsed().as_secs_f64();
    if progress.is_some() {
        eprint!("\r\x1b[2K");
    }
    for e in &summary.errors {
        eprintln!("{e}");
    }
    if summary.rejected > summary.errors.len() as u64 {
        eprintln!(
            "... and {} more rejected rows",
            summary.rejected - summary.errors.len() as u64
        );
    }
    eprintln!(
        "graphbinary: load: {} in {secs:.1} s ({:.0} rows/s)",
        summary,
        summary.rows as f64 / secs.max(1e-9)
    );
    if interrupted {
        return Err(format!(
            "{why} before every row was read: run the same load again to complete it (rows \
             are upserts by ~id)"
        ));
    }
    Ok(summary)
}

fn redact(url: &str) -> String {
    graphbinary_client::client::redact_url(url).to_string()
}

fn short_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The progress line: bytes read of all the files, redrawn at most 5 times a second.
#[derive(Clone)]
struct Progress {
    read: Arc<AtomicU64>,
    total: u64,
    started: Instant,
    last: Arc<std::sync::Mutex<Instant>>,
}

impl Progress {
    fn new(total: u64) -> Progress {
        let now = Instant::now();
        Progress {
            read: Arc::default(),
            total,
            started: now,
            last: Arc::new(std::sync::Mutex::new(now)),
        }
    }

    fn add(&self, n: usize, name: &str) {
        let read = self.read.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.elapsed() < Duration::from_millis(200) {
            return;
        }
        *last = Instant::now();
        let pct = if self.total == 0 {
            100.0
        } else {
            read as f64 * 100.0 / self.total as f64
        };
        let mut err = io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2Kloading {name}: {pct:5.1}% of {:.1} MB, {:.1} s",
            self.total as f64 / 1e6,
            self.started.elapsed().as_secs_f64()
        );
        let _ = err.flush();
    }

    fn note(&self, what: &str) {
        let mut err = io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2K{what}, {:.1} s",
            self.started.elapsed().as_secs_f64()
        );
        let _ = err.flush();
    }
}

/// A file whose reads advance the progress line.
struct Counted {
    inner: File,
    progress: Option<Progress>,
    name: String,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(p) = &self.progress {
            p.add(n, &self.name);
        }
        Ok(n)
    }
}
