//! The long end-to-end runs of the loader and the exporter (`GREMLIN_LOAD_URL`: an empty graph they may clear; `GREMLIN_WS_*` for their TinkerPop 3 halves).
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

/// The graph of `GREMLIN_LOAD_URL`, which the tests of both modules clear: one test at a time.
pub static LOAD_GRAPH: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The JanusGraph of `GREMLIN_WS_JANUSGRAPH_URL`, whose vertices the tests of both modules
/// count: one test at a time.
pub static JANUSGRAPH: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

mod e2e_export;
mod e2e_load;
