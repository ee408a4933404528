//! What the transports share, below the [`Client`](crate::Client) and beside each other.
//!
//! * [`http`]: TinkerPop 4, GraphBinary 4 over HTTP/1.1 (hyper-util's pool over our connector): the response body as an
//!   `AsyncRead` ([`BodyReader`](http::BodyReader)), decompressed.
//! * [`ws`]: TinkerPop 3, GraphBinary 1 over WebSocket: the connection pool
//!   ([`Client3`](ws::Client3)), its messages and sessions.
//!
//! Both use this module's request hooks ([`Interceptor`], [`HttpRequest`]: an HTTP request
//! for `http`, the WebSocket handshake for `ws`), credentials ([`Secret`], [`redact_url`]),
//! byte counters and TLS roots. Neither imports the other nor anything above: the client
//! picks the transport of a URL in one `match` (`client::Transport`).

use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) mod http;
mod interceptor;
mod limit;
pub(crate) mod secret;
#[cfg(feature = "sigv4")]
mod sigv4;
pub(crate) mod ws;

/// The HTTP types of [`HttpRequest`]: the `http` crate's (as reqwest and hyper re-export
/// them) and the `url` crate's `Url`.
pub use ::http::{
    header::{HeaderMap, HeaderName, HeaderValue},
    Method,
};
pub(crate) use interceptor::Chain;
pub use interceptor::{
    interceptor_fn, BasicAuth, FnInterceptor, HttpRequest, InterceptFuture, Interceptor,
};
pub use limit::Limit;
pub use secret::{redact_url, Secret};
#[cfg(feature = "sigv4")]
pub use sigv4::SigV4;
pub use url::Url;

/// A boxed error source (spelled out in public signatures).
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Byte counters of one response, shared between the body reader and whoever watches it.
#[derive(Debug, Default)]
pub struct ByteCounters {
    pub(crate) wire: AtomicU64,
    pub(crate) body: AtomicU64,
}

impl ByteCounters {
    /// Bytes of the HTTP body (or of the WebSocket frames) received so far, as sent
    /// (compressed when compressed).
    pub fn wire_bytes(&self) -> u64 {
        self.wire.load(Ordering::Relaxed)
    }

    /// Bytes of the (decompressed) GraphBinary body handed to the reader so far.
    pub fn body_bytes(&self) -> u64 {
        self.body.load(Ordering::Relaxed)
    }

    /// Counts a TinkerPop 3 WebSocket message of `body` bytes that took `wire` bytes on the
    /// wire (its frames' headers and payloads, compressed where permessage-deflate was agreed).
    pub(crate) fn add_message(&self, wire: u64, body: u64) {
        self.wire.fetch_add(wire, Ordering::Relaxed);
        self.body.fetch_add(body, Ordering::Relaxed);
    }
}

/// Connections opened and closed, per host: what
/// [`ClientStats::connections`](crate::client::ClientStats::connections) reports. A cheap
/// handle: clones count into the same tally. The key of a host is its scheme, host and port
/// (`http://127.0.0.1:8182`), never credentials.
#[derive(Debug, Clone, Default)]
pub struct ConnectionTally {
    hosts: std::sync::Arc<std::sync::Mutex<std::collections::BTreeMap<String, ConnectionCounts>>>,
}

/// The connections of one host (see [`ConnectionTally`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConnectionCounts {
    /// Connections opened (TCP connected, and for `ws://` the WebSocket handshake done).
    pub opened: u64,
    /// Connections closed, when the transport reports closes: both do (`ws://` since its
    /// first release, `http://` / `https://` through the client's own connector); `None` only
    /// for a host whose connections are not tracked.
    pub closed: Option<u64>,
}

impl ConnectionCounts {
    /// Connections open now, when closes are reported (`opened - closed`).
    pub fn open(&self) -> Option<u64> {
        self.closed.map(|c| self.opened.saturating_sub(c))
    }
}

/// The tally's key of a URL: `scheme://host:port`, or the redacted URL when it does not parse.
pub(crate) fn host_key(url: &str) -> String {
    match Url::parse(url) {
        Ok(u) => match (u.host_str(), u.port_or_known_default()) {
            (Some(h), Some(p)) => format!("{}://{h}:{p}", u.scheme()),
            (Some(h), None) => format!("{}://{h}", u.scheme()),
            _ => redact_url(url).into_owned(),
        },
        Err(_) => redact_url(url).into_owned(),
    }
}

/// How long a pool's `close` waits, once nothing is in flight, for its connections to end on
/// their own tasks and be counted closed.
pub(crate) const CLOSE_SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

impl ConnectionTally {
    fn with(&self, key: String, f: impl FnOnce(&mut ConnectionCounts)) {
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        f(hosts.entry(key).or_default());
    }

    /// Counts a connection opened to `url` (keyed by [`host_key`]); dropping the guard counts
    /// its close.
    pub(crate) fn open_guard(&self, url: &str) -> ConnectionGuard {
        let key = host_key(url);
        #[cfg(feature = "metrics")]
        {
            metrics::counter!("gremlin_client_connections_opened_total", "host" => key.clone())
                .increment(1);
            metrics::gauge!("gremlin_client_connections_open", "host" => key.clone()).increment(1);
        }
        // This host's closes are reported: counted from 0.
        self.with(key.clone(), |c| {
            c.opened += 1;
            c.closed.get_or_insert(0);
        });
        ConnectionGuard {
            tally: self.clone(),
            key,
        }
    }

    /// Connections open now to `url`'s host ([`host_key`]), or to every host with `None`;
    /// hosts whose closes are not counted count 0.
    pub(crate) fn open_now(&self, url: Option<&str>) -> u64 {
        let hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        match url {
            Some(u) => hosts
                .get(&host_key(u))
                .and_then(ConnectionCounts::open)
                .unwrap_or(0),
            None => hosts.values().filter_map(ConnectionCounts::open).sum(),
        }
    }

    /// Waits until [`open_now`](Self::open_now) is 0, at most `limit`: a pool's connections
    /// end on their own tasks after it is shut down, and `close` returns once they are
    /// counted closed.
    pub(crate) async fn settle(&self, url: Option<&str>, limit: std::time::Duration) {
        let until = tokio::time::Instant::now() + limit;
        while self.open_now(url) > 0 && tokio::time::Instant::now() < until {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    }

    /// The counts per host, by key.
    pub fn snapshot(&self) -> std::collections::BTreeMap<String, ConnectionCounts> {
        self.hosts.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Counts a close into its [`ConnectionTally`] when dropped.
#[derive(Debug)]
pub(crate) struct ConnectionGuard {
    tally: ConnectionTally,
    key: String,
}

impl ConnectionGuard {
    /// The host's key (`scheme://host:port`).
    pub(crate) fn key(&self) -> &str {
        &self.key
    }
}

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        let key = std::mem::take(&mut self.key);
        #[cfg(feature = "metrics")]
        {
            metrics::counter!("gremlin_client_connections_closed_total", "host" => key.clone())
                .increment(1);
            metrics::gauge!("gremlin_client_connections_open", "host" => key.clone()).decrement(1);
        }
        self.tally.with(key, |c| *c.closed.get_or_insert(0) += 1);
    }
}

/// What [`Client::close`](crate::Client::close) tells the requests and bodies of a client.
#[derive(Debug, Default)]
pub(crate) struct Closing {
    /// No new request is sent.
    pub(crate) closed: std::sync::atomic::AtomicBool,
    /// Bodies still being read fail at their next read.
    pub(crate) cut: std::sync::atomic::AtomicBool,
}

impl Closing {
    pub(crate) fn is_cut(&self) -> bool {
        self.cut.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// The certificates of each PEM text (one may hold several); an error names the entry (from
/// 0) that holds no certificate or a malformed one. Both transports trust these roots.
pub(crate) fn parse_root_certificates(
    pems: &[Vec<u8>],
) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;
    let mut roots = Vec::new();
    for (i, pem) in pems.iter().enumerate() {
        let before = roots.len();
        for cert in CertificateDer::pem_slice_iter(pem) {
            roots.push(cert.map_err(|e| format!("root certificate {i}: invalid PEM: {e}"))?);
        }
        if roots.len() == before {
            return Err(format!("root certificate {i}: no PEM CERTIFICATE section"));
        }
    }
    Ok(roots)
}

/// The rustls configuration both transports connect with: the platform's trust store
/// (`rustls-platform-verifier`) plus the PEM `roots` ([`parse_root_certificates`]), with the
/// process's default crypto provider (aws-lc-rs when none is installed). No ALPN: the HTTP
/// transport sets its own on a copy.
pub(crate) fn tls_client_config(
    roots: &[Vec<u8>],
) -> Result<std::sync::Arc<rustls::ClientConfig>, String> {
    use std::sync::Arc;
    let roots = parse_root_certificates(roots)?;
    let provider = rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
    let verifier = platform_verifier(roots, provider.clone())?;
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS protocol versions: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    Ok(Arc::new(config))
}

#[cfg(any(all(unix, not(target_os = "android")), target_os = "windows"))]
fn platform_verifier(
    roots: Vec<rustls::pki_types::CertificateDer<'static>>,
    provider: std::sync::Arc<rustls::crypto::CryptoProvider>,
) -> Result<rustls_platform_verifier::Verifier, String> {
    let v = if roots.is_empty() {
        rustls_platform_verifier::Verifier::new(provider)
    } else {
        rustls_platform_verifier::Verifier::new_with_extra_roots(roots, provider)
    };
    v.map_err(|e| format!("TLS certificate verifier: {e}"))
}

#[cfg(not(any(all(unix, not(target_os = "android")), target_os = "windows")))]
fn platform_verifier(
    roots: Vec<rustls::pki_types::CertificateDer<'static>>,
    provider: std::sync::Arc<rustls::crypto::CryptoProvider>,
) -> Result<rustls_platform_verifier::Verifier, String> {
    if !roots.is_empty() {
        // The platform verifier takes no extra roots here.
        return Err("extra root certificates are not supported on this platform".into());
    }
    rustls_platform_verifier::Verifier::new(provider)
        .map_err(|e| format!("TLS certificate verifier: {e}"))
}
