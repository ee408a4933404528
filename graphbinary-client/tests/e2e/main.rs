//! The long end-to-end runs of the loader and the exporter (`GREMLIN_LOAD_URL`: an empty graph they may clear; `GREMLIN_WS_*` for their TinkerPop 3 halves).
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

use std::time::Duration;

use graphbinary_client::process::GraphTraversalSource;
use graphbinary_client::Client;
use graphbinary_testkit::common;
use tokio::sync::{Mutex, MutexGuard};

/// The graph of `GREMLIN_LOAD_URL`, which the tests of both modules clear: one test at a time.
pub static LOAD_GRAPH: Mutex<()> = Mutex::const_new(());

/// The JanusGraph of `GREMLIN_WS_JANUSGRAPH_URL`, whose vertices the tests of both modules
/// count: one test at a time.
pub static JANUSGRAPH: Mutex<()> = Mutex::const_new(());

/// The TinkerPop 3 servers whose `ggraph` the `ws3_load` tests of both modules clear, by the
/// variable naming each, with the lock of its graph: one test at a time per server.
static WS3_LOAD_GRAPHS: [(&str, Mutex<()>); 2] = [
    ("GREMLIN_WS_LOAD_URL_373", Mutex::const_new(())),
    ("GREMLIN_WS_LOAD_URL_381", Mutex::const_new(())),
];

/// The graph the `ws3_load` tests load into: `ggraph` of a TinkerPop 3 server started with
/// `--dataset integration` (empty, LONG ids; `cargo xtask ci` runs them on its Gherkin servers
/// after the suites, which leave it as they please).
pub const WS3_LOAD_SOURCE: &str = "ggraph";

/// The TinkerPop 3 server named by `var` (one of [`WS3_LOAD_GRAPHS`]), or `None` (a
/// notice): a client of it and the lock of its `ggraph`, taken once that graph is emptied.
/// Unset, the test skips; set and not answering, it skips too, unless `CI` is set (then it
/// fails).
pub async fn ws3_load_server(test: &str, var: &str) -> Option<(Client, MutexGuard<'static, ()>)> {
    let lock = &WS3_LOAD_GRAPHS
        .iter()
        .find(|(v, _)| *v == var)
        .unwrap_or_else(|| panic!("{var}: not a ws3_load server"))
        .1;
    let Ok(url) = std::env::var(var) else {
        common::skip::skipped(
            test,
            &format!(
                "{var} unset (a TinkerPop 3 server with --dataset integration: its \
                 {WS3_LOAD_SOURCE} is cleared)"
            ),
        );
        return None;
    };
    let client = Client::builder(url.as_str())
        .connect_timeout(Duration::from_secs(5))
        .read_timeout(Duration::from_secs(300))
        .build()
        .expect("a client");
    let g = GraphTraversalSource::new(client.clone()).alias(WS3_LOAD_SOURCE);
    if let Err(e) = g.inject(1).iterate().await {
        assert!(
            std::env::var_os("CI").is_none(),
            "{url} {WS3_LOAD_SOURCE} does not answer ({e}) and CI is set"
        );
        common::skip::skipped(
            test,
            &format!("{url} {WS3_LOAD_SOURCE} does not answer: {e}"),
        );
        return None;
    }
    let one = lock.lock().await;
    g.e(()).drop().iterate().await.unwrap();
    g.v(()).drop().iterate().await.unwrap();
    Some((client, one))
}

mod e2e_export;
mod e2e_load;
