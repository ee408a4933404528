//! The `graphbinary` command line tool.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    /// Send a gremlin-lang script to Gremlin Server and print the results as they stream in.
    Query(query::QueryArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Query(args) => query::run(args),
    }
}
