//! `graphbinary query`: sends a script to Gremlin Server (TinkerPop 4 over HTTP, or a
//! TinkerPop 3.x server for a `ws://` / `wss://` URL) and prints the results as they
//! stream in, as text (Gremlin Console style), tables, JSON, GraphSON (one document per line:
//! GraphSON 4 from a TinkerPop 4 server, GraphSON 3 from a TinkerPop 3.x one, the version its
//! own drivers and console write) or just their count. The script comes from the argument,
//! `--file F` or stdin. `--stats` prints results, bytes, seconds and results/s to stderr;
//! while stderr is a terminal a progress line shows results so far.
//!
//! Exit status: 0 success (also when the output's reader goes away, e.g. `| head`); 1 a
//! transport, format, output or timeout error; 2 the server reported an error (results before
//! it are printed first); 64 a usage error (bad option, parameter or file). Errors are one
//! line on stderr with their causes.

use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use futures::StreamExt;
use std::sync::Arc;

use graphbinary_client::client::{ByteCounters, Error};

use crate::args::ConnArgs;
use crate::exec::{self, Opts, Target};
use crate::render::{Format, Renderer};

/// Arguments of `graphbinary query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// Output format. With --bulk a result of bulk n > 1 is printed once, followed by
    /// `\tx{n}` (text), a bulk column (table) or as {"bulk":n,"value":...} (json, graphson).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Ask for bulked results (equal results merged into value + count).
    #[arg(long)]
    pub bulk: bool,
    /// A parameter of the script, `name=LITERAL` with a gremlin-lang literal, typed as the
    /// literal says (`29` an Int, `29L` a Long, `'x'` a String, `[a:1]` a Map,
    /// `datetime('...')`). Repeatable.
    #[arg(long = "param", value_name = "NAME=LITERAL", value_parser = crate::args::parse_param)]
    pub params: Vec<(String, graphbinary_client::value::Value)>,
    /// Print results, bytes, seconds and results/s to stderr at the end.
    #[arg(long)]
    pub stats: bool,
    /// Results per HTTP chunk or WebSocket message (8192 over HTTP; the server's 64 over WebSocket).
    #[arg(long)]
    pub batch_size: Option<u32>,
    /// Server-side timeout in milliseconds.
    #[arg(long)]
    pub timeout_millis: Option<u64>,
    /// Read the script from this file (`-`: stdin).
    #[arg(long, conflicts_with = "gremlin")]
    pub file: Option<PathBuf>,
    /// The gremlin-lang script (default: --file, else stdin).
    pub gremlin: Option<String>,
}

pub fn run(args: QueryArgs) -> ExitCode {
    let script = match script(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("graphbinary: {e}");
            return ExitCode::from(64);
        }
    };
    let rt = match crate::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(query(args, script)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(QueryError::BrokenPipe) => ExitCode::SUCCESS,
        Err(QueryError::Client(e)) => {
            let code = if e.server_error().is_some() { 2 } else { 1 };
            eprintln!(
                "graphbinary: {}",
                graphbinary_client::format::text::one_line(&e)
            );
            ExitCode::from(code)
        }
        Err(QueryError::Config(e)) => {
            eprintln!("graphbinary: {e}");
            ExitCode::from(64)
        }
        Err(QueryError::Timeout(t)) => {
            eprintln!("graphbinary: no complete answer within --timeout {t:?}");
            ExitCode::FAILURE
        }
        Err(QueryError::Io(e)) => {
            eprintln!("graphbinary: writing output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The script: the argument, `--file`, or stdin.
fn script(args: &QueryArgs) -> Result<String, String> {
    if let Some(g) = &args.gremlin {
        return Ok(g.clone());
    }
    let from_stdin = || {
        let mut s = String::new();
        io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("reading the script from stdin: {e}"))?;
        Ok::<_, String>(s)
    };
    let s = match &args.file {
        Some(p) if p.as_os_str() == "-" => from_stdin()?,
        Some(p) => std::fs::read_to_string(p)
            .map_err(|e| format!("reading --file {}: {e}", p.display()))?,
        None if io::stdin().is_terminal() => {
            return Err("no script: give it as an argument, with --file F, or on stdin".into())
        }
        None => from_stdin()?,
    };
    if s.trim().is_empty() {
        return Err("the script is empty".into());
    }
    Ok(s)
}

enum QueryError {
    Client(Error),
    Io(io::Error),
    /// A bad option found while connecting (e.g. an unreadable --cacert).
    Config(String),
    Timeout(Duration),
    /// The reader of our output went away (e.g. `| head`): stop quietly.
    BrokenPipe,
}

impl From<Error> for QueryError {
    fn from(e: Error) -> Self {
        QueryError::Client(e)
    }
}

impl From<io::Error> for QueryError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            QueryError::BrokenPipe
        } else {
            QueryError::Io(e)
        }
    }
}

async fn query(args: QueryArgs, script: String) -> Result<(), QueryError> {
    let client = args
        .conn
        .connect(&args.conn.url())
        .await
        .map_err(QueryError::Config)?;
    let opts = Opts {
        source: args.conn.source.clone(),
        params: args.params.clone(),
        bulk: args.bulk,
        batch_size: args.batch_size,
        timeout_millis: args.timeout_millis,
    };
    let stdout = io::stdout();
    let out = io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut render = Renderer::new(out, args.format, args.bulk, client.is_tinkerpop3());
    let start = Instant::now();
    let mut counters = None;
    let work = drain(&client, &script, &opts, &mut render, &mut counters, start);
    let outcome = match args.conn.timeout {
        Some(t) => tokio::time::timeout(t, work)
            .await
            .unwrap_or(Err(QueryError::Timeout(t))),
        None => work.await,
    };
    // Results before an error are printed; the count only after a complete answer.
    let flushed = if outcome.is_ok() {
        render.finish()
    } else {
        render.flush_table().and_then(|()| render.flush())
    };
    flushed?;
    if args.stats {
        let secs = start.elapsed().as_secs_f64();
        let results = render.results;
        let (body, wire) = counters
            .as_ref()
            .map_or((0, 0), |c| (c.body_bytes(), c.wire_bytes()));
        eprintln!(
            "{results} results, {body} bytes ({wire} on the wire), {secs:.3} s, {:.0} results/s",
            results as f64 / secs.max(1e-9)
        );
    }
    outcome
}

async fn drain(
    client: &graphbinary_client::Client,
    script: &str,
    opts: &Opts,
    render: &mut Renderer<impl Write>,
    counters: &mut Option<Arc<ByteCounters>>,
    start: Instant,
) -> Result<(), QueryError> {
    let sent = exec::send(Target::Client(client), script, opts).await?;
    *counters = sent.counters;
    let mut stream = sent.results;
    if !io::stderr().is_terminal() {
        while let Some(item) = stream.next().await {
            let (v, bulk) = item?;
            render.push(&v, bulk)?;
        }
        return Ok(());
    }
    // Redraw at most every 100 ms: checked per result while results flow, and on a timer
    // while the stream waits for bytes.
    let period = Duration::from_millis(100);
    let mut last = Instant::now();
    let mut items: u64 = 0;
    let mut drew = false;
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let outcome = loop {
        tokio::select! {
            biased;
            item = stream.next() => match item {
                None => break Ok(()),
                Some(Err(e)) => break Err(e.into()),
                Some(Ok((v, bulk))) => {
                    if let Err(e) = render.push(&v, bulk) {
                        break Err(e.into());
                    }
                    items += 1;
                    if items % 64 == 0 && last.elapsed() >= period {
                        draw_progress(render.results, start);
                        last = Instant::now();
                        drew = true;
                    }
                }
            },
            _ = tick.tick() => {
                if last.elapsed() >= period {
                    draw_progress(render.results, start);
                    last = Instant::now();
                    drew = true;
                }
            }
        }
    };
    if drew {
        // Clear the progress line.
        eprint!("\r\x1b[2K");
    }
    outcome
}

fn draw_progress(results: u64, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    eprint!("\r\x1b[2K{results} results, {secs:.1} s");
    let _ = io::stderr().flush();
}
