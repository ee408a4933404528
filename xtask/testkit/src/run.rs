//! Tests that write to a shared server: a tag unique to the run, what the run wrote read
//! back, and the clean-up that runs whether the test passed or panicked.

use std::future::Future;

use graphbinary_client::element::Element;
use graphbinary_client::process::GraphTraversalSource;

/// `{test}_{pid}_{nanos}`: a value that marks what this run writes, distinct between runs.
pub fn run_tag(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{test}_{}_{nanos}", std::process::id())
}

/// Awaits `test`, then `cleanup` even when `test` panicked, then lets the panic go on.
pub async fn cleaned_up(test: impl Future<Output = ()>, cleanup: impl Future<Output = ()>) {
    let outcome = futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(test)).await;
    cleanup.await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}

/// Every `E` of the run (property `run` equal to `run`), in the server's order.
pub async fn of_run<E: Element>(g: &GraphTraversalSource, run: &str) -> Vec<E> {
    g.all::<E>()
        .filter(|t| t.has(("run", run)))
        .to_list()
        .await
        .unwrap()
}

/// Drops the edges, then the vertices, of the run.
pub async fn cleanup(g: &GraphTraversalSource, run: &str) {
    g.e(()).has(("run", run)).drop().iterate().await.unwrap();
    g.v(()).has(("run", run)).drop().iterate().await.unwrap();
}
