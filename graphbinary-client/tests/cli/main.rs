//! The `graphbinary` binary and its console (`CARGO_BIN_EXE_graphbinary`, pseudo-terminals), offline and against the servers of `GREMLIN_URL` / `GREMLIN_WS_*`.
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

mod bin;
mod pty;

mod cli;
mod console;
mod console3;
mod e2e_cli;
mod guide_cli;
mod limits;
mod v1_cli;
