//! The server behind a URL, for the test proxies (`support/fault_proxy.rs`, `ws3_hosts.rs`).

use std::net::SocketAddr;

/// The address `url`'s authority resolves to and its path (`/gremlin`), from
/// `http://host:port/path`, `ws://...` and kin.
pub async fn upstream(url: &str) -> (SocketAddr, String) {
    let rest = url.split_once("://").expect("a URL").1;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let addr = tokio::net::lookup_host(authority)
        .await
        .expect("the upstream address")
        .next()
        .expect("an upstream address");
    (addr, path.to_owned())
}
