//! The TinkerPop 4 transport: GraphBinary 4 over HTTP/1.1, through hyper-util's pooled client
//! with our own connector (`conn.rs`: TCP, proxy, rustls) so that each connection's open and
//! close are counted.
//!
//! A request is one `POST` ([`HttpClient::send`]); its response body is read as an
//! `AsyncRead` ([`BodyReader`]), decompressed (`Content-Encoding: deflate`, which in HTTP is
//! zlib), with byte counters. The client above picks the host, runs the interceptors and
//! decodes the body.

mod body;
mod conn;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method};
use http_body_util::Full;
use hyper::body::{Body as _, Incoming};
use hyper_util::client::legacy;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tokio::time::{Instant, Sleep};

pub use body::BodyReader;
pub(crate) use body::{ClientClosed, DecompressError};
pub(crate) use conn::ConnectTimedOut;

use super::secret::{redact_url, take_userinfo};
use super::{BoxError, ConnectionTally, Url};

/// What an [`HttpClient`] is built from (the builder's HTTP settings).
#[derive(Debug, Default)]
pub(crate) struct HttpSettings {
    pub(crate) connect_timeout: Option<Duration>,
    pub(crate) read_timeout: Option<Duration>,
    /// Idle connections kept per host.
    pub(crate) pool_max_idle: usize,
    pub(crate) pool_idle_timeout: Option<Duration>,
    /// `http://[user:password@]host:port`.
    pub(crate) proxy: Option<String>,
    /// PEM texts trusted beside the platform's roots.
    pub(crate) root_certificates: Vec<Vec<u8>>,
}

/// The pooled HTTP/1.1 client of `http://` and `https://` hosts. Cheap to clone (one pool);
/// the pool and its idle connections go when the last clone is dropped.
#[derive(Clone)]
pub(crate) struct HttpClient(Arc<Shared>);

struct Shared {
    pool: legacy::Client<conn::Connector, Full<Bytes>>,
    read_timeout: Option<Duration>,
    /// `Proxy-Authorization` of requests sent to the proxy in absolute form (`http://`).
    proxy_auth: Option<HeaderValue>,
}

impl HttpClient {
    /// The client of `settings`, counting its connections into `tally`. Fails (with a message
    /// that holds no credential) on a bad proxy URL or TLS configuration.
    pub(crate) fn new(settings: HttpSettings, tally: ConnectionTally) -> Result<Self, String> {
        let proxy = settings.proxy.as_deref().map(parse_proxy).transpose()?;
        let mut tls = (*super::tls_client_config(&settings.root_certificates)?).clone();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let proxy_auth = proxy.as_ref().and_then(|p| p.auth.clone());
        let connector = conn::Connector::new(settings.connect_timeout, Arc::new(tls), proxy, tally);
        // As reqwest configured the same pool: tokio's timer for hyper and for the pool's idle
        // reaper; HTTP/1.1 only, the host header set from the URI, canceled requests retried.
        let pool = legacy::Client::builder(TokioExecutor::new())
            .timer(TokioTimer::new())
            .pool_timer(TokioTimer::new())
            .pool_max_idle_per_host(settings.pool_max_idle)
            .pool_idle_timeout(settings.pool_idle_timeout)
            .build(connector);
        Ok(HttpClient(Arc::new(Shared {
            pool,
            read_timeout: settings.read_timeout,
            proxy_auth,
        })))
    }

    /// Sends a request and waits for its response's head. `timeout` bounds the whole request,
    /// to the end of its body (the body returned keeps that deadline); the read timeout bounds
    /// the wait for the head and each wait for body bytes.
    ///
    /// # Cancel safety
    /// Dropping the future abandons the request (its connection is closed if it was sent).
    pub(crate) async fn send(
        &self,
        method: Method,
        url: &Url,
        headers: HeaderMap,
        body: Bytes,
        timeout: Option<Duration>,
    ) -> Result<Response, HttpError> {
        let this = &*self.0;
        let deadline = timeout.map(|t| (Instant::now() + t, t));
        let uri: http::Uri = url.as_str().parse().map_err(|e: http::uri::InvalidUri| {
            HttpError::new(
                FailKind::Http,
                false,
                format!("invalid request URI {}: {e}", redact_url(url.as_str())).into(),
            )
        })?;
        let mut req = http::Request::new(Full::new(body));
        *req.method_mut() = method;
        *req.uri_mut() = uri;
        *req.headers_mut() = headers;
        if let (Some(auth), "http") = (&this.proxy_auth, url.scheme()) {
            req.headers_mut()
                .insert(http::header::PROXY_AUTHORIZATION, auth.clone());
        }
        let sending = this.pool.request(req);
        // The head is awaited within the read timeout and the request's deadline, the earlier.
        let limit = match (this.read_timeout, deadline) {
            (Some(r), Some((at, t))) if at <= Instant::now() + r => Some((at, Limit::Request(t))),
            (Some(r), _) => Some((Instant::now() + r, Limit::Read(r))),
            (None, Some((at, t))) => Some((at, Limit::Request(t))),
            (None, None) => None,
        };
        let resp = match limit {
            None => sending.await,
            Some((at, which)) => match tokio::time::timeout_at(at, sending).await {
                Ok(r) => r,
                Err(_) => return Err(which.error()),
            },
        }
        .map_err(HttpError::from_pool)?;
        if let Some(served) = resp.extensions().get::<conn::Served>() {
            served.0.fetch_add(1, Ordering::Relaxed);
        }
        let (parts, incoming) = resp.into_parts();
        Ok(Response {
            status: parts.status.as_u16(),
            headers: parts.headers,
            body: Body {
                incoming,
                read_timeout: this.read_timeout,
                idle: None,
                reset: false,
                deadline: deadline.map(|(at, t)| (Box::pin(tokio::time::sleep_until(at)), t)),
            },
        })
    }
}

/// The proxy of `url`: `http://` only; its credentials become `Proxy-Authorization`.
fn parse_proxy(url: &str) -> Result<conn::Proxy, String> {
    let bad = |e: &dyn std::fmt::Display| format!("invalid proxy URL {:?}: {e}", redact_url(url));
    let mut u = Url::parse(url).map_err(|e| bad(&e))?;
    if u.scheme() != "http" {
        return Err(bad(&format!(
            "the scheme must be http, not {:?}",
            u.scheme()
        )));
    }
    let auth = match take_userinfo(&mut u).map_err(|e| bad(&e))? {
        None => None,
        Some((user, password)) => {
            let mut v = HeaderValue::from_str(&super::interceptor::basic_auth_header(
                &user,
                password.expose(),
            ))
            .map_err(|e| bad(&e))?;
            v.set_sensitive(true);
            Some(v)
        }
    };
    let host = u.host_str().ok_or_else(|| bad(&"no host"))?;
    let port = u.port_or_known_default().unwrap_or(80);
    let uri = format!("http://{host}:{port}/")
        .parse()
        .map_err(|e: http::uri::InvalidUri| bad(&e))?;
    Ok(conn::Proxy { uri, auth })
}

/// A response whose head has arrived.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Body,
}

/// A response body: its data frames as a stream, within the read timeout (each wait) and the
/// request's deadline. Dropping it before its end closes its connection.
pub(crate) struct Body {
    incoming: Incoming,
    read_timeout: Option<Duration>,
    /// The read timeout's timer, created at the first wait.
    idle: Option<Pin<Box<Sleep>>>,
    /// Bytes arrived since the timer was last set: set it again at the next wait.
    reset: bool,
    deadline: Option<(Pin<Box<Sleep>>, Duration)>,
}

impl futures::Stream for Body {
    type Item = Result<Bytes, HttpError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match Pin::new(&mut this.incoming).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => {
                    this.reset = true;
                    match frame.into_data() {
                        Ok(data) => return Poll::Ready(Some(Ok(data))),
                        // Trailers: Gremlin Server sends none that the client reads.
                        Err(_) => continue,
                    }
                }
                Poll::Ready(Some(Err(e))) => {
                    return Poll::Ready(Some(Err(HttpError::new(FailKind::Io, false, Box::new(e)))))
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => break,
            }
        }
        if let Some((sleep, t)) = &mut this.deadline {
            if sleep.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Some(Err(Limit::Request(*t).error())));
            }
        }
        if let Some(t) = this.read_timeout {
            let idle = match &mut this.idle {
                Some(s) => {
                    if std::mem::take(&mut this.reset) {
                        s.as_mut().reset(Instant::now() + t);
                    }
                    s
                }
                None => {
                    this.reset = false;
                    this.idle.insert(Box::pin(tokio::time::sleep(t)))
                }
            };
            if idle.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Some(Err(Limit::Read(t).error())));
            }
        }
        Poll::Pending
    }
}

/// Which timeout expired.
#[derive(Clone, Copy)]
enum Limit {
    Read(Duration),
    Request(Duration),
}

impl Limit {
    fn error(self) -> HttpError {
        let source: BoxError = match self {
            Limit::Read(t) => Box::new(ReadTimedOut(t)),
            Limit::Request(t) => Box::new(RequestTimedOut(t)),
        };
        HttpError::new(FailKind::Timeout, false, source)
    }
}

/// No response bytes arrived within the read timeout.
#[derive(Debug, thiserror::Error)]
#[error("no response bytes for {0:?} (the read timeout)")]
pub(crate) struct ReadTimedOut(pub(crate) Duration);

/// The request did not end within its deadline.
#[derive(Debug, thiserror::Error)]
#[error("the request took over {0:?}")]
pub(crate) struct RequestTimedOut(pub(crate) Duration);

/// What kind of failure an [`HttpError`] is (the client's `TransportKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailKind {
    Connect,
    Tls,
    Timeout,
    Io,
    Http,
}

/// A failure of the HTTP transport: its kind, whether it happened while connecting (nothing
/// was sent), and its cause. Displays as its cause (and chains the cause's sources): it is a
/// carrier, which the client turns into `Error::Transport` with the cause as its source.
#[derive(Debug)]
pub(crate) struct HttpError {
    pub(crate) kind: FailKind,
    /// The connection could not be made: nothing of the request was sent.
    pub(crate) connect: bool,
    pub(crate) source: BoxError,
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.source.fmt(f)
    }
}

impl std::error::Error for HttpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.source()
    }
}

impl HttpError {
    fn new(kind: FailKind, connect: bool, source: BoxError) -> Self {
        HttpError {
            kind,
            connect,
            source,
        }
    }

    /// The pool's error: a connect failure (TLS, the connect timeout, or refused, DNS...) or
    /// a failure of the exchange.
    fn from_pool(e: legacy::Error) -> Self {
        let connect = e.is_connect();
        let kind = if has_source::<rustls::Error>(&e) {
            FailKind::Tls
        } else if has_source::<ConnectTimedOut>(&e) {
            FailKind::Timeout
        } else if connect {
            FailKind::Connect
        } else {
            FailKind::Io
        };
        HttpError::new(kind, connect, Box::new(e))
    }

    /// Whether a timeout expired.
    pub(crate) fn is_timeout(&self) -> bool {
        self.kind == FailKind::Timeout
    }
}

/// Whether `e` or an error in its source chain (io errors' payloads included) is a `T`.
pub(crate) fn has_source<T: std::error::Error + 'static>(
    e: &(dyn std::error::Error + 'static),
) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if err.is::<T>() {
            return true;
        }
        // An io::Error's `source` skips its custom payload; step into the payload itself.
        cur = match err
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => err.source(),
        };
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_url_gives_its_address_and_a_sensitive_authorization() {
        let p = parse_proxy("http://alice:s%40cret@127.0.0.1:3128").unwrap();
        assert_eq!(p.uri.to_string(), "http://127.0.0.1:3128/");
        let auth = p.auth.unwrap();
        assert!(auth.is_sensitive());
        // alice:s@cret
        assert_eq!(auth.to_str().unwrap(), "Basic YWxpY2U6c0BjcmV0");
        let p = parse_proxy("http://proxy.internal").unwrap();
        assert_eq!(p.uri.to_string(), "http://proxy.internal:80/");
        assert!(p.auth.is_none());
        let e = parse_proxy("socks5://u:hunter2@127.0.0.1:1080").unwrap_err();
        assert!(e.contains("must be http") && !e.contains("hunter2"), "{e}");
        let e = parse_proxy("http://u:hunter2@[::1").unwrap_err();
        assert!(!e.contains("hunter2"), "{e}");
    }
}
