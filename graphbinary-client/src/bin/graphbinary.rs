//! The `graphbinary` command line tool.
//!
//! * `graphbinary decode [--value] [--graphbinary-version 1|4] [--format
//!   text|graphson|graphbinary|count|count-values] [--chunk-size N] [FILE|-]`: decode a
//!   GraphBinary 4 (or, with `--graphbinary-version 1`, GraphBinary 1) response (or one value)
//!   and print its results.
//! * `graphbinary query [--url URL] [--format text|graphson|count] [--bulk] [--stats] GREMLIN`:
//!   send a script to Gremlin Server (`ws://` URLs: TinkerPop 3.x) and print the results as
//!   they stream in (`--format graphson`: GraphSON 4 from TinkerPop 4, GraphSON 3 from 3.x).
//!
//! Exit status: 0 success; 1 malformed input or an I/O error; 2 the server's status was not
//! 200; 64 a usage error.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[path = "graphbinary/decode.rs"]
mod decode;
#[path = "graphbinary/one_line.rs"]
mod one_line;
#[path = "graphbinary/query.rs"]
mod query;

/// GraphBinary 4 tools for Apache TinkerPop 4 Gremlin Server.
#[derive(Debug, Parser)]
#[command(name = "graphbinary", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decode a GraphBinary 4 (or 1) response (or, with --value, one value) and print its results.
    Decode(decode::DecodeArgs),
    /// Send a gremlin-lang script to Gremlin Server and print the results as they stream in.
    Query(query::QueryArgs),
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
    match cli.command {
        Command::Decode(args) => on_large_stack("graphbinary-decode", move || decode::run(args)),
        Command::Query(args) => on_large_stack("graphbinary-query", move || query::run(args)),
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
