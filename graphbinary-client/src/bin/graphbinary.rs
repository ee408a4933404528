//! The `graphbinary` command line tool.
//!
//! * `graphbinary decode [--value] [--graphbinary-version 1|4] [--format
//!   text|graphson|graphbinary|count|count-values] [--chunk-size N] [FILE|-]`: decode a
//!   GraphBinary 4 (or, with `--graphbinary-version 1`, GraphBinary 1) response (or one value)
//!   and print its results.
//! * `graphbinary query [--url URL] [--user NAME] [--sigv4 REGION] [--cacert PEM] [-g NAME]
//!   [--param name=literal]... [--timeout DURATION] [--bulk] [--format
//!   text|table|json|graphson|count] [--stats] [GREMLIN | --file F]`: send a script
//!   (argument, file or stdin) to Gremlin Server (`ws://` URLs: TinkerPop 3.x) and print the
//!   results as they stream in (`--format graphson`: GraphSON 4 from TinkerPop 4, GraphSON 3
//!   from 3.x).
//! * `graphbinary console [--url URL] [...]`, or `graphbinary` alone on a terminal: the
//!   interactive console (see `console/mod.rs`).
//! * `graphbinary load [--url URL] [-g NAME] --nodes FILE... --edges FILE...`: load a graph
//!   in the Neptune bulk-load CSV format (`load.rs`).
//! * `graphbinary export [--url URL] [-g NAME] --out DIR`: write the whole graph as
//!   `DIR/nodes.csv` and `DIR/edges.csv` in that format (`export.rs`).
//!
//! Exit status: 0 success; 1 malformed input, a transport, I/O or timeout error; 2 the server's
//! status was not 200 (`load`: some rows were rejected); 64 a usage error (bad option,
//! parameter, file or certificate).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[path = "graphbinary/args.rs"]
mod args;
#[path = "graphbinary/console/mod.rs"]
mod console;
#[path = "graphbinary/decode.rs"]
mod decode;
#[path = "graphbinary/exec.rs"]
mod exec;
#[path = "graphbinary/export.rs"]
mod export;
#[path = "graphbinary/load.rs"]
mod load;
#[path = "graphbinary/query.rs"]
mod query;
#[path = "graphbinary/render.rs"]
mod render;

/// GraphBinary 4 tools for Apache TinkerPop 4 Gremlin Server.
#[derive(Debug, Parser)]
#[command(name = "graphbinary", version)]
struct Cli {
    /// Without a subcommand on a terminal: the console.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decode a GraphBinary 4 (or 1) response (or, with --value, one value) and print its results.
    Decode(decode::DecodeArgs),
    /// Send a gremlin-lang script to Gremlin Server and print the results as they stream in.
    Query(query::QueryArgs),
    /// The interactive Gremlin console: line editing, history, completion, :commands.
    Console(console::ConsoleArgs),
    /// Load vertex and edge files in the Neptune bulk-load CSV format (upserts by ~id: loading
    /// again writes nothing twice).
    Load(load::LoadArgs),
    /// Export the whole graph as DIR/nodes.csv and DIR/edges.csv (Neptune bulk-load CSV).
    Export(export::ExportArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Usage errors exit 64 (EX_USAGE): 1 and 2 mean malformed input and a server error.
            let code = if e.use_stderr() { 64 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // Decoding nests one group of stack frames per nesting level; a large stack keeps the
    // configured depth limit (not the stack) the bound, in every build profile.
    let command = match cli.command {
        Some(c) => c,
        None if std::io::IsTerminal::is_terminal(&std::io::stdin()) => {
            match Cli::try_parse_from(["graphbinary", "console"]) {
                Ok(Cli {
                    command: Some(c), ..
                }) => c,
                _ => return ExitCode::from(64),
            }
        }
        None => {
            eprintln!(
                "graphbinary: a subcommand is needed (decode, query, console, load, export); --help lists them"
            );
            return ExitCode::from(64);
        }
    };
    match command {
        Command::Decode(args) => on_large_stack("graphbinary-decode", move || decode::run(args)),
        Command::Query(args) => on_large_stack("graphbinary-query", move || query::run(args)),
        Command::Console(args) => on_large_stack("graphbinary-console", move || console::run(args)),
        Command::Load(args) => load::run(args),
        Command::Export(args) => on_large_stack("graphbinary-export", move || export::run(args)),
    }
}

/// The current-thread runtime a subcommand runs on, or exit status 1 (after saying why) when
/// it cannot start.
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("graphbinary: cannot start the runtime: {e}");
            ExitCode::FAILURE
        })
}

/// Runs `f` on a thread with a 256 MiB stack and returns its exit code.
fn on_large_stack(name: &str, f: impl FnOnce() -> ExitCode + Send + 'static) -> ExitCode {
    match std::thread::Builder::new()
        .name(name.into())
        .stack_size(256 << 20)
        .spawn(f)
    {
        Ok(h) => h.join().unwrap_or(ExitCode::from(1)),
        Err(e) => {
            eprintln!("graphbinary: cannot start: {e}");
            ExitCode::from(1)
        }
    }
}
