//! Shared set-up of the end-to-end tests: the Gremlin Server URL and the skip rule.
//!
//! The server is the real Gremlin Server 4.0.0-beta.3 with the Modern graph, at env
//! `GREMLIN_URL` (default `http://127.0.0.1:8182/gremlin`). When it cannot be reached a test
//! fails if env `CI` is set, and otherwise prints a notice and returns early.

#![allow(dead_code)]

use std::time::Duration;

use graphbinary_client::client::{Client, ClientBuilder, TransportKind};

#[path = "../common/skip.rs"]
pub mod skip;

/// The server URL under test.
pub fn url() -> String {
    std::env::var("GREMLIN_URL").unwrap_or_else(|_| "http://127.0.0.1:8182/gremlin".to_owned())
}

/// A builder for the server under test with test-friendly timeouts.
pub fn builder() -> ClientBuilder {
    Client::builder(url())
        .connect_timeout(Duration::from_secs(5))
        .read_timeout(Duration::from_secs(60))
}

/// A client of the server under test ([`builder`]), or `None` (the caller returns) when the
/// server does not answer, as [`server_available`] decides and reports for `test`.
pub async fn client(test: &str) -> Option<Client> {
    if !server_available(test).await {
        return None;
    }
    Some(builder().build().unwrap())
}

/// Whether the server answers. On `false` the caller returns (after this printed why);
/// with env `CI` set an unreachable server is a failure instead.
pub async fn server_available(test: &str) -> bool {
    let client = Client::builder(url())
        .connect_timeout(Duration::from_secs(3))
        .read_timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let err = match client.request("g.inject(1)").send_raw().await {
        Ok(_) => return true,
        Err(e) => e,
    };
    let unreachable = matches!(
        err.transport_kind(),
        Some(TransportKind::Connect | TransportKind::Timeout)
    );
    assert!(
        unreachable,
        "Gremlin Server at {} answered unexpectedly: {err:?}",
        url()
    );
    if std::env::var_os("CI").is_some() {
        panic!(
            "Gremlin Server unreachable at {} ({err}) and CI is set",
            url()
        );
    }
    // Counted as skipped by `cargo xtask ci`, though libtest counts the test as passed.
    skip::skipped(
        test,
        &format!(
            "Gremlin Server unreachable at {} ({err}); set GREMLIN_URL or start it (cargo xtask server)",
            url()
        ),
    );
    false
}
