//! `graphbinary console`: an interactive Gremlin shell. Line editing and persistent history
//! (rustyline), input that goes on while a bracket or a quote is open, completion from the
//! step tables, results printed as they arrive (maps as aligned tables), `:commands` for the
//! server, source, format, bulk, timing, parameters and transactions. Ctrl-C cancels the
//! running query (its connection is closed, the pool stays usable); Ctrl-D leaves.

mod helper;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use futures::StreamExt;
use graphbinary_client::client::{redact_url, Client, Error, Transaction};
use rustyline::error::ReadlineError;
use rustyline::{Config, Editor};

use crate::args::ConnArgs;
use crate::exec::{self, Opts, Target};
use crate::render::{Format, Renderer};
use helper::{ConsoleHelper, Words, COMMANDS};

/// Arguments of `graphbinary console`.
#[derive(Debug, Clone, clap::Args)]
pub struct ConsoleArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// How results are printed at first (`:format` changes it).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// The history file (default: env GRAPHBINARY_HISTORY, else ~/.graphbinary_history).
    #[arg(long)]
    pub history: Option<PathBuf>,
}

struct State {
    args: ConsoleArgs,
    url: String,
    client: Client,
    opts: Opts,
    format: Format,
    timing: bool,
    tx: Option<Transaction>,
    color: bool,
}

const PROMPT: &str = "gremlin> ";

pub fn run(args: ConsoleArgs) -> ExitCode {
    let rt = match crate::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let url = args.conn.url();
    let client = match rt.block_on(args.conn.connect(&url)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("graphbinary: {e}");
            return ExitCode::from(64);
        }
    };
    let config = Config::builder()
        .auto_add_history(false)
        .max_history_size(10_000)
        .and_then(|b| b.history_ignore_dups(true))
        .map(|b| b.completion_type(rustyline::CompletionType::List).build());
    let editor = config.and_then(Editor::<ConsoleHelper, _>::with_config);
    let mut rl = match editor {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!("graphbinary: cannot start the line editor: {e}");
            return ExitCode::FAILURE;
        }
    };
    rl.set_helper(Some(ConsoleHelper {
        words: Words::new(),
    }));
    let history = args
        .history
        .clone()
        .or_else(|| std::env::var_os("GRAPHBINARY_HISTORY").map(PathBuf::from))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".graphbinary_history"))
        });
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }
    let color = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut st = State {
        format: args.format,
        opts: Opts {
            source: args.conn.source.clone(),
            ..Opts::default()
        },
        args,
        url,
        client,
        timing: false,
        tx: None,
        color,
    };
    println!(
        "graphbinary {} console: {} (:help for commands, Ctrl-D to leave)",
        env!("CARGO_PKG_VERSION"),
        redact_url(&st.url)
    );
    loop {
        match rl.readline(PROMPT) {
            Ok(line) => {
                let text = line.trim();
                if text.is_empty() {
                    continue;
                }
                if rl.add_history_entry(text).unwrap_or(false) {
                    if let Some(h) = &history {
                        let _ = rl.save_history(h);
                    }
                }
                if text.starts_with(':') {
                    match rt.block_on(command(&mut st, text)) {
                        Ok(Flow::Go) => {}
                        Ok(Flow::Quit) => break,
                        Err(e) => st.error(&e),
                    }
                } else {
                    rt.block_on(st.query(text));
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                st.error(&format!("reading input: {e}"));
                break;
            }
        }
    }
    if let Some(tx) = st.tx.take() {
        // Leaving with a transaction open rolls it back, as closing the session would.
        let _ = rt.block_on(end(tx, false));
        eprintln!("the open transaction was rolled back");
    }
    ExitCode::SUCCESS
}

enum Flow {
    Go,
    Quit,
}

async fn command(st: &mut State, text: &str) -> Result<Flow, String> {
    let (cmd, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let rest = rest.trim();
    let on_off = |what: &str| match rest {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{what} on|off")),
    };
    match cmd {
        ":quit" | ":exit" | ":q" => return Ok(Flow::Quit),
        ":help" | ":h" | ":?" => {
            println!("Gremlin scripts run on the server; these commands run here:");
            for (_, help) in COMMANDS {
                println!("  {help}");
            }
            println!(
                "Tab completes steps, predicates, tokens and commands; Ctrl-C cancels a query."
            );
        }
        ":remote" => {
            if rest.is_empty() {
                println!("{}", redact_url(&st.url));
                return Ok(Flow::Go);
            }
            if st.tx.is_some() {
                return Err("a transaction is open: :commit or :rollback first".into());
            }
            st.client = st.args.conn.connect(rest).await?;
            st.url = rest.to_owned();
            println!("connected to {}", redact_url(&st.url));
        }
        ":limit" => {
            let Some((name, value)) = rest.split_once(char::is_whitespace) else {
                return Err(":limit NAME SIZE, e.g. :limit max-message-size 64MiB".into());
            };
            if st.tx.is_some() {
                return Err("a transaction is open: :commit or :rollback first".into());
            }
            let mut conn = st.args.conn.clone();
            conn.limits.set(name, value.trim())?;
            st.client = conn.connect(&st.url).await?;
            st.args.conn = conn;
            println!("{} is {}", name.trim_start_matches('-'), value.trim());
        }
        ":source" => {
            st.opts.source = (!rest.is_empty()).then(|| rest.to_owned());
            println!("g is {}", if rest.is_empty() { "g" } else { rest });
        }
        ":format" => match Format::from_name(rest) {
            Some(f) => st.format = f,
            None if rest.is_empty() => println!("{}", st.format.name()),
            None => return Err(":format text|table|json|graphson|count".into()),
        },
        ":bulk" => st.opts.bulk = on_off(":bulk")?,
        ":timing" => st.timing = on_off(":timing")?,
        ":param" => {
            if rest.is_empty() {
                for (n, v) in &st.opts.params {
                    println!("{n} = {v}");
                }
            } else if rest == "clear" {
                st.opts.params.clear();
            } else {
                let (name, value) = crate::args::parse_param(rest)?;
                if !name.chars().all(|c| c.is_alphanumeric() || c == '_') || name.is_empty() {
                    return Err(format!("{name:?} is not a parameter name"));
                }
                st.opts.params.retain(|(n, _)| *n != name);
                st.opts.params.push((name, value));
            }
        }
        ":begin" => {
            if st.tx.is_some() {
                return Err("a transaction is already open".into());
            }
            let tx = if st.client.is_tinkerpop3() {
                st.client.session().await
            } else {
                match &st.opts.source {
                    Some(g) => st.client.transaction_on(g).await,
                    None => st.client.transaction().await,
                }
            };
            let tx = tx.map_err(|e| st.one_line(&e))?;
            st.tx = Some(tx);
            println!("transaction open");
        }
        ":commit" | ":rollback" => {
            let Some(tx) = st.tx.take() else {
                return Err("no transaction is open (:begin)".into());
            };
            end(tx, cmd == ":commit")
                .await
                .map_err(|e| st.one_line(&e))?;
            println!(
                "{}",
                if cmd == ":commit" {
                    "committed"
                } else {
                    "rolled back"
                }
            );
        }
        _ => return Err(format!("unknown command {cmd} (:help lists them)")),
    }
    Ok(Flow::Go)
}

/// Commits (`commit`) or rolls back the transaction; a 3.x session is closed after it
/// whatever the outcome.
async fn end(tx: Transaction, commit: bool) -> Result<(), Error> {
    let r = if commit {
        tx.commit().await
    } else {
        tx.rollback().await
    };
    if tx.is_session() {
        let _ = tx.close().await;
    }
    r
}

impl State {
    fn one_line(&self, e: &Error) -> String {
        graphbinary_client::format::text::one_line(e)
    }

    /// An error on one line on stderr, red on a terminal (none with NO_COLOR).
    fn error(&self, msg: &str) {
        let msg = msg.replace(['\r', '\n'], " ");
        if self.color {
            eprintln!("\x1b[31merror: {msg}\x1b[0m");
        } else {
            eprintln!("error: {msg}");
        }
    }

    /// Runs a script, printing results as they arrive, until its end, an error, the timeout
    /// or Ctrl-C.
    async fn query(&mut self, script: &str) {
        let start = Instant::now();
        let mut first = None;
        let stdout = io::stdout();
        let mut render = Renderer::new(
            stdout.lock(),
            self.format,
            self.opts.bulk,
            self.client.is_tinkerpop3(),
        );
        let target = match &self.tx {
            None => Target::Client(&self.client),
            Some(t) => Target::Tx(t),
        };
        let work = async {
            let failed = |e: Error| graphbinary_client::format::text::one_line(&e);
            let io_failed = |e: io::Error| format!("writing output: {e}");
            let mut results = exec::send(target, script, &self.opts)
                .await
                .map_err(failed)?
                .results;
            loop {
                // A table is printed when its batch is full, at the end, or when the results
                // pause, so that rows never wait on a slow stream.
                let next =
                    match tokio::time::timeout(Duration::from_millis(100), results.next()).await {
                        Ok(next) => next,
                        Err(_) => {
                            render.flush_table().map_err(io_failed)?;
                            render.flush().map_err(io_failed)?;
                            results.next().await
                        }
                    };
                match next {
                    None => return Ok(()),
                    Some(item) => {
                        let (v, bulk) = item.map_err(failed)?;
                        first.get_or_insert_with(|| start.elapsed());
                        render.push(&v, bulk).map_err(io_failed)?;
                    }
                }
            }
        };
        let deadline = self.args.conn.timeout;
        let outcome = tokio::select! {
            r = async {
                match deadline {
                    Some(t) => tokio::time::timeout(t, work)
                        .await
                        .unwrap_or_else(|_| Err(format!("no complete answer within --timeout {t:?}"))),
                    None => work.await,
                }
            } => Some(r),
            _ = tokio::signal::ctrl_c() => None,
        };
        let printed = match &outcome {
            Some(Ok(())) => render.finish(),
            _ => render.flush_table().and_then(|()| render.flush()),
        };
        let n = render.results;
        drop(render);
        match outcome {
            None => self.error("cancelled"),
            Some(Err(e)) => self.error(&e),
            Some(Ok(())) => {}
        }
        if let Err(e) = printed {
            self.error(&format!("writing output: {e}"));
        }
        if self.timing {
            let first = first.map_or_else(|| "-".to_owned(), |d| format!("{:.1} ms", ms(d)));
            eprintln!(
                "{n} result{} in {:.1} ms (first after {first})",
                if n == 1 { "" } else { "s" },
                ms(start.elapsed())
            );
        }
        let _ = io::stdout().flush();
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
