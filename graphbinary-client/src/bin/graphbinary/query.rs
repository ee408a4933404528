//! `graphbinary query`: sends a script to Gremlin Server (TinkerPop 4 over HTTP, or a
//! TinkerPop 3.x server for a `ws://` / `wss://` URL) and prints the results as they
//! stream in, as text (Gremlin Console style), GraphSON (one document per line: GraphSON 4
//! from a TinkerPop 4 server, GraphSON 3 from a TinkerPop 3.x one, the version its own
//! drivers and console write) or just their count. `--stats` prints results, bytes, seconds and results/s to stderr; while
//! stderr is a terminal a progress line shows results and bytes so far.
//!
//! Exit status: 0 success (also when the output's reader goes away, e.g. `| head`); 1 a
//! transport, format or output error; 2 the server reported an error (results before it are
//! printed first). Errors are one line on stderr with their causes.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use futures::StreamExt;
use graphbinary_client::client::{redact_url, ByteCounters, Client, Error, DEFAULT_URL};
use graphbinary_client::graphson::write_graphson;
use graphbinary_client::response::Traverser;

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QueryFormat {
    /// One Gremlin Console style line per result.
    Text,
    /// One GraphSON document per line: GraphSON 4 over http(s)://, GraphSON 3 over ws(s)://
    /// (TinkerPop 3.x).
    Graphson,
    /// Only the number of results.
    Count,
}

/// Arguments of `graphbinary query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    /// Server URL: http(s):// for TinkerPop 4, ws(s):// for a TinkerPop 3.x server (default:
    /// env GREMLIN_URL, else http://127.0.0.1:8182/gremlin). A user:password@ in it is sent
    /// as Basic authentication (http) or SASL PLAIN (ws), and never printed.
    #[arg(long)]
    pub url: Option<ServerUrl>,
    /// Output format. With --bulk a result of bulk n > 1 is printed once, followed by
    /// `\tx{n}` (text) or as {"bulk":n,"value":...} (graphson).
    #[arg(long, value_enum, default_value_t = QueryFormat::Text)]
    pub format: QueryFormat,
    /// Ask for bulked results (equal results merged into value + count).
    #[arg(long)]
    pub bulk: bool,
    /// Print results, bytes, seconds and results/s to stderr at the end.
    #[arg(long)]
    pub stats: bool,
    /// Results per HTTP chunk or WebSocket message (server default 64).
    #[arg(long)]
    pub batch_size: Option<u32>,
    /// Server-side timeout in milliseconds.
    #[arg(long)]
    pub timeout_millis: Option<u64>,
    /// Do not ask for compressed responses.
    #[arg(long)]
    pub no_compression: bool,
    /// The gremlin-lang script.
    pub gremlin: String,
}

/// A `--url` value: its `Debug` redacts the password of its userinfo.
#[derive(Clone)]
pub struct ServerUrl(String);

impl From<String> for ServerUrl {
    fn from(s: String) -> Self {
        ServerUrl(s)
    }
}

impl std::fmt::Debug for ServerUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&redact_url(&self.0), f)
    }
}

pub fn run(args: QueryArgs) -> ExitCode {
    let rt = match crate::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(query(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(QueryError::BrokenPipe) => ExitCode::SUCCESS,
        Err(QueryError::Client(e)) => {
            let code = if e.server_error().is_some() { 2 } else { 1 };
            eprintln!("graphbinary: {}", crate::one_line::one_line(&e));
            ExitCode::from(code)
        }
        Err(QueryError::Io(e)) => {
            eprintln!("graphbinary: writing output: {e}");
            ExitCode::FAILURE
        }
    }
}

enum QueryError {
    Client(Error),
    Io(io::Error),
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

async fn query(args: QueryArgs) -> Result<(), QueryError> {
    let url = args
        .url
        .clone()
        .map(|u| u.0)
        .or_else(|| std::env::var("GREMLIN_URL").ok())
        .unwrap_or_else(|| DEFAULT_URL.to_owned());
    let client = Client::builder(url)
        .compression(!args.no_compression)
        .build()?;
    let mut req = client.request(args.gremlin.clone());
    if args.bulk {
        req = req.bulk_results(true);
    }
    if let Some(n) = args.batch_size {
        req = req.batch_size(n);
    }
    if let Some(ms) = args.timeout_millis {
        req = req.timeout_millis(ms);
    }
    let graphson3 = client.is_tinkerpop3();
    let start = Instant::now();
    let mut stream = req.send().await?.traversers();
    let counters = stream.counters();
    let progress = io::stderr().is_terminal();

    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut line = String::new();
    let mut results: u64 = 0;
    let mut drew = false;
    let outcome: Result<(), QueryError> = if !progress {
        loop {
            match stream.next().await {
                None => break Ok(()),
                Some(Err(e)) => break Err(e.into()),
                Some(Ok(t)) => {
                    results += t.bulk.max(0) as u64;
                    if let Err(e) = print(&mut out, &mut line, args.format, args.bulk, graphson3, t)
                    {
                        break Err(e.into());
                    }
                }
            }
        }
    } else {
        // Redraw at most every 100 ms: checked per result while results flow, and on a
        // timer while the stream waits for bytes.
        let period = Duration::from_millis(100);
        let mut last = Instant::now();
        let mut items: u64 = 0;
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                item = stream.next() => match item {
                    None => break Ok(()),
                    Some(Err(e)) => break Err(e.into()),
                    Some(Ok(t)) => {
                        results += t.bulk.max(0) as u64;
                        if let Err(e) = print(&mut out, &mut line, args.format, args.bulk, graphson3, t) {
                            break Err(e.into());
                        }
                        items += 1;
                        if items % 64 == 0 && last.elapsed() >= period {
                            draw_progress(results, &counters, start);
                            last = Instant::now();
                            drew = true;
                        }
                    }
                },
                _ = tick.tick() => {
                    if last.elapsed() >= period {
                        draw_progress(results, &counters, start);
                        last = Instant::now();
                        drew = true;
                    }
                }
            }
        }
    };
    if drew {
        // Clear the progress line.
        eprint!("\r\x1b[2K");
    }
    if outcome.is_ok() && args.format == QueryFormat::Count {
        writeln!(out, "{results}")?;
    }
    out.flush()?;
    if args.stats {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "{results} results, {} bytes ({} on the wire), {secs:.3} s, {:.0} results/s",
            counters.body_bytes(),
            counters.wire_bytes(),
            results as f64 / secs.max(1e-9)
        );
    }
    outcome
}

fn print(
    out: &mut impl Write,
    line: &mut String,
    format: QueryFormat,
    bulk: bool,
    graphson3: bool,
    t: Traverser,
) -> io::Result<()> {
    let graphson = |line: &mut String, v: &graphbinary_client::model::Value| {
        if graphson3 {
            graphbinary_client::v1::write_graphson3(line, v);
        } else {
            write_graphson(line, v);
        }
    };
    match format {
        QueryFormat::Count => Ok(()),
        QueryFormat::Text => {
            if bulk && t.bulk != 1 {
                writeln!(out, "{}\tx{}", t.value, t.bulk)
            } else {
                writeln!(out, "{}", t.value)
            }
        }
        QueryFormat::Graphson => {
            line.clear();
            if bulk {
                line.push_str("{\"bulk\":");
                line.push_str(&t.bulk.to_string());
                line.push_str(",\"value\":");
                graphson(line, &t.value);
                line.push('}');
            } else {
                graphson(line, &t.value);
            }
            line.push('\n');
            out.write_all(line.as_bytes())
        }
    }
}

fn draw_progress(results: u64, counters: &ByteCounters, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    eprint!(
        "\r\x1b[2K{results} results, {} bytes, {secs:.1} s",
        counters.body_bytes()
    );
    let _ = io::stderr().flush();
}
