//! The TinkerPop 3 servers of the WebSocket tests, each named by an env var that `cargo xtask
//! ci` sets (it starts them on 8186-8190): a test whose servers are all unset returns early
//! with a `SKIPPED` notice. It reports through `skip`.

#![allow(dead_code)]

use crate::skip;

/// TinkerPop 3.7.3 and 3.8.1 with the modern graph.
pub const TINKERPOP3: &[(&str, &str)] = &[
    ("3.7.3", "GREMLIN_WS_URL_373"),
    ("3.8.1", "GREMLIN_WS_URL_381"),
];

/// JanusGraph 1.1.0 with the modern graph.
pub const JANUSGRAPH: (&str, &str) = ("JanusGraph 1.1.0", "GREMLIN_WS_JANUSGRAPH_URL");

/// (label, URL) of each of `servers` (label, env var) whose env var is set; a notice for
/// `test` when there is none.
pub fn set(test: &str, servers: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    let found: Vec<_> = servers
        .iter()
        .filter_map(|&(label, var)| std::env::var(var).ok().map(|u| (label, u)))
        .collect();
    if found.is_empty() {
        let vars: Vec<_> = servers.iter().map(|(_, var)| *var).collect();
        skip::skipped(
            test,
            &format!("{} unset (TinkerPop 3 servers)", vars.join(" / ")),
        );
    }
    found
}

/// The URL in env `var` (a server that is `what`), or a notice for `test`.
pub fn one(test: &str, var: &str, what: &str) -> Option<String> {
    let url = std::env::var(var).ok();
    if url.is_none() {
        skip::skipped(test, &format!("{var} unset ({what})"));
    }
    url
}

/// The URL of TinkerPop 3.7.3 with SASL (`--auth`: user stephen, password password).
pub fn auth_server(test: &str) -> Option<String> {
    one(
        test,
        "GREMLIN_WS_AUTH_URL_373",
        "TinkerPop 3 server with --auth",
    )
}
