//! What the transports share, below the [`Client`](crate::Client) and beside each other.
//!
//! * [`http`]: TinkerPop 4, GraphBinary 4 over HTTP/1.1 (reqwest): the response body as an
//!   `AsyncRead` ([`BodyReader`](http::BodyReader)), decompressed.
//! * [`ws`]: TinkerPop 3, GraphBinary 1 over WebSocket: the connection pool
//!   ([`Client3`](ws::Client3)), its messages and sessions.
//!
//! Both use this module's request hooks ([`Interceptor`], [`HttpRequest`]: an HTTP request
//! for `http`, the WebSocket handshake for `ws`), credentials ([`Secret`], [`redact_url`]),
//! byte counters and TLS roots. Neither imports the other nor anything above: the client
//! picks the transport of a URL in one `match` (`client::Transport`).

use std::sync::atomic::{AtomicU64, Ordering};

pub mod http;
mod interceptor;
pub(crate) mod secret;
#[cfg(feature = "sigv4")]
mod sigv4;
pub mod ws;

pub(crate) use interceptor::Chain;
pub use interceptor::{
    interceptor_fn, BasicAuth, FnInterceptor, HttpRequest, InterceptFuture, Interceptor,
};
/// The HTTP types of [`HttpRequest`], re-exported from the HTTP library.
pub use reqwest::{
    header::{HeaderMap, HeaderName, HeaderValue},
    Method, Url,
};
pub use secret::{redact_url, Secret};
#[cfg(feature = "sigv4")]
pub use sigv4::SigV4;

/// A boxed error source.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Byte counters of one response, shared between the body reader and whoever watches it.
#[derive(Debug, Default)]
pub struct ByteCounters {
    pub(crate) wire: AtomicU64,
    pub(crate) body: AtomicU64,
}

impl ByteCounters {
    /// Bytes of the HTTP body received so far, as sent (compressed when compressed).
    pub fn wire_bytes(&self) -> u64 {
        self.wire.load(Ordering::Relaxed)
    }

    /// Bytes of the (decompressed) GraphBinary body handed to the reader so far.
    pub fn body_bytes(&self) -> u64 {
        self.body.load(Ordering::Relaxed)
    }

    /// Counts `n` bytes received both on the wire and as GraphBinary (a TinkerPop 3 WebSocket
    /// message: uncompressed, each message whole).
    pub(crate) fn add_message(&self, n: u64) {
        self.wire.fetch_add(n, Ordering::Relaxed);
        self.body.fetch_add(n, Ordering::Relaxed);
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
