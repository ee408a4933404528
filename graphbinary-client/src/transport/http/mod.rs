//! The TinkerPop 4 transport: GraphBinary 4 over HTTP/1.1, through reqwest (hyper) with rustls.
//!
//! A request is one `POST`; its response body is read as an `AsyncRead` ([`BodyReader`]),
//! decompressed (`Content-Encoding: deflate`, which in HTTP is zlib), with byte counters. The
//! client above picks the host, runs the interceptors and decodes the body.

mod body;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pub use body::BodyReader;
pub(crate) use body::{ClientClosed, DecompressError};

use super::{host_key, ConnectionTally};

/// A connector layer for reqwest that counts each connection the pool opens into a
/// [`ConnectionTally`] and emits the `HTTP connection opened` event (`DEBUG`, target
/// `graphbinary_client`, field `host`: scheme, host and port only). reqwest's pool does not
/// report when it drops a connection, so closes are not counted.
#[derive(Clone, Debug)]
pub(crate) struct CountConnects(pub(crate) ConnectionTally);

impl<S> tower_layer::Layer<S> for CountConnects {
    type Service = Counted<S>;

    fn layer(&self, inner: S) -> Counted<S> {
        Counted {
            inner,
            tally: self.0.clone(),
        }
    }
}

/// The service of [`CountConnects`].
#[derive(Clone, Debug)]
pub(crate) struct Counted<S> {
    inner: S,
    tally: ConnectionTally,
}

/// The destination of a connect: reqwest names it only through `Debug`
/// (`Unnameable(http://host:port/)`); the URI inside it, or the whole text.
fn destination(debug: &str) -> &str {
    debug
        .strip_prefix("Unnameable(")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(debug)
}

impl<S, R> tower_service::Service<R> for Counted<S>
where
    S: tower_service::Service<R>,
    S::Future: Send + 'static,
    R: std::fmt::Debug,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: R) -> Self::Future {
        let host = host_key(destination(&format!("{req:?}")));
        let connecting = self.inner.call(req);
        let tally = self.tally.clone();
        Box::pin(async move {
            let conn = connecting.await?;
            tally.opened_key(host.clone());
            tracing::debug!(target: "graphbinary_client", host = %host, "HTTP connection opened");
            Ok(conn)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_destination_is_read_from_reqwests_debug_text() {
        assert_eq!(
            destination("Unnameable(http://127.0.0.1:8182/)"),
            "http://127.0.0.1:8182/"
        );
        assert_eq!(
            host_key(destination("Unnameable(http://127.0.0.1:8182/)")),
            "http://127.0.0.1:8182"
        );
        // Another text is kept whole (and keyed as the redacted text).
        assert_eq!(destination("something else"), "something else");
    }
}
