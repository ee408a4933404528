//! Shared set-up of the end-to-end tests: the Gremlin Server URLs and the skip rule.
//!
//! The servers are real Gremlin Servers 4.0.0-beta.3: [`MODERN`] with the Modern graph at env
//! `GREMLIN_URL` (default `http://127.0.0.1:8182/gremlin`), [`TX`] with a transactional graph at
//! env `GREMLIN_TX_URL` (default `http://127.0.0.1:8183/gremlin`). When one cannot be reached a
//! test fails if env `CI` is set, and otherwise prints a notice and returns early.

#![allow(dead_code)]

use std::time::Duration;

use graphbinary_client::client::{Client, ClientBuilder, TransportKind};

pub use crate::skip;

/// A Gremlin Server under test: the env var naming its URL, the URL without it, and how to
/// start one.
pub struct Server {
    /// The env var of its URL.
    pub var: &'static str,
    /// Its URL when the var is unset.
    pub default: &'static str,
    /// What it is called in notices.
    pub what: &'static str,
    /// The command that starts it.
    pub start: &'static str,
}

/// The Gremlin Server with the modern graph (`GREMLIN_URL`).
pub const MODERN: Server = Server {
    var: "GREMLIN_URL",
    default: "http://127.0.0.1:8182/gremlin",
    what: "Gremlin Server",
    start: "cargo xtask server",
};

/// The Gremlin Server with an empty TinkerTransactionGraph (`GREMLIN_TX_URL`; idle
/// transactions time out after 5 s).
pub const TX: Server = Server {
    var: "GREMLIN_TX_URL",
    default: "http://127.0.0.1:8183/gremlin",
    what: "transactional Gremlin Server",
    start: "cargo xtask server --dataset tx --port 8183",
};

impl Server {
    /// The server URL under test.
    pub fn url(&self) -> String {
        std::env::var(self.var).unwrap_or_else(|_| self.default.to_owned())
    }

    /// A builder for the server with test-friendly timeouts.
    pub fn builder(&self) -> ClientBuilder {
        Client::builder(self.url())
            .connect_timeout(Duration::from_secs(5))
            .read_timeout(Duration::from_secs(60))
    }

    /// A client of the server ([`Server::builder`]), or `None` (the caller returns) when it
    /// does not answer, as [`Server::available`] decides and reports for `test`.
    pub async fn client(&self, test: &str) -> Option<Client> {
        if !self.available(test).await {
            return None;
        }
        Some(self.builder().build().unwrap())
    }

    /// Whether the server answers. On `false` the caller returns (after this printed why);
    /// with env `CI` set an unreachable server is a failure instead.
    pub async fn available(&self, test: &str) -> bool {
        let url = self.url();
        let client = Client::builder(&url)
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
        let what = self.what;
        assert!(
            unreachable,
            "{what} at {url} answered unexpectedly: {err:?}"
        );
        if std::env::var_os("CI").is_some() {
            panic!("{what} unreachable at {url} ({err}) and CI is set");
        }
        // Counted as skipped by `cargo xtask ci`, though libtest counts the test as passed.
        skip::skipped(
            test,
            &format!(
                "{what} unreachable at {url} ({err}); set {} or start it ({})",
                self.var, self.start
            ),
        );
        false
    }
}

/// The URL of the modern graph's server.
pub fn url() -> String {
    MODERN.url()
}

/// A builder for the modern graph's server.
pub fn builder() -> ClientBuilder {
    MODERN.builder()
}

/// A client of the modern graph's server, or `None` (the caller returns).
pub async fn client(test: &str) -> Option<Client> {
    MODERN.client(test).await
}

/// Whether the modern graph's server answers.
pub async fn server_available(test: &str) -> bool {
    MODERN.available(test).await
}
