//! The connector of the HTTP pool: TCP (`TCP_NODELAY`), the proxy (absolute-form requests
//! for `http://`, a `CONNECT` tunnel for `https://`), rustls for `https://`; and [`Conn`],
//! the stream it hands to hyper, which counts its own close when hyper drops it.
//!
//! hyper-util's pool owns each connection in a task of its own and drops it when the server
//! closes it, when it has been idle longer than the pool's idle timeout, when a response is
//! abandoned mid-body, or when the last handle of the client is dropped
//! ([`Client::close`](crate::Client::close)). Whichever it is, [`Conn`]'s `Drop` runs: that is
//! where the close is counted ([`ConnectionTally`]) and the `HTTP connection closed` event is
//! emitted.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::{HeaderValue, Uri};
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::transport::{BoxError, ConnectionGuard, ConnectionTally};

/// The proxy every request goes through (see [`ClientBuilder::proxy`](crate::client::ClientBuilder::proxy)).
#[derive(Clone, Debug)]
pub(crate) struct Proxy {
    /// `http://host:port/`, without credentials.
    pub(crate) uri: Uri,
    /// `Proxy-Authorization` (sensitive), from the proxy URL's userinfo.
    pub(crate) auth: Option<HeaderValue>,
}

/// The pool's connector: a [`tower_service::Service`] from a destination URI (`scheme://host:port`)
/// to a connected [`Conn`]. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Connector {
    config: Arc<Config>,
}

struct Config {
    connect_timeout: Option<Duration>,
    tls: Arc<rustls::ClientConfig>,
    proxy: Option<Proxy>,
    tally: ConnectionTally,
}

impl Connector {
    pub(crate) fn new(
        connect_timeout: Option<Duration>,
        tls: Arc<rustls::ClientConfig>,
        proxy: Option<Proxy>,
        tally: ConnectionTally,
    ) -> Self {
        Connector {
            config: Arc::new(Config {
                connect_timeout,
                tls,
                proxy,
                tally,
            }),
        }
    }
}

/// The connect timeout expired (TCP, the proxy's tunnel and the TLS handshake together).
#[derive(Debug, thiserror::Error)]
#[error("connecting took over {0:?} (the connect timeout)")]
pub(crate) struct ConnectTimedOut(pub(crate) Duration);

/// A destination the connector cannot reach as given.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct BadDestination(String);

impl tower_service::Service<Uri> for Connector {
    type Response = Conn;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Conn, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        let config = self.config.clone();
        Box::pin(async move {
            let connecting = config.connect(&dst);
            let (stream, proxied) = match config.connect_timeout {
                Some(t) => tokio::time::timeout(t, connecting)
                    .await
                    .map_err(|_| ConnectTimedOut(t))??,
                None => connecting.await?,
            };
            Ok(Conn::new(stream, proxied, &dst, &config.tally))
        })
    }
}

impl Config {
    /// The stream to `dst`, and whether it is a plain-text proxy's (requests then go in
    /// absolute form).
    async fn connect(&self, dst: &Uri) -> Result<(Stream, bool), BoxError> {
        let https = match dst.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            other => return Err(BadDestination(format!("unsupported URL scheme {other:?}")).into()),
        };
        let host = dst
            .host()
            .ok_or_else(|| BadDestination("the URL has no host".into()))?;
        let port = dst.port_u16().unwrap_or(if https { 443 } else { 80 });
        match (&self.proxy, https) {
            (None, false) => Ok((Stream::Plain(tcp(host, port).await?), false)),
            (None, true) => Ok((self.tls(tcp(host, port).await?, host).await?, false)),
            (Some(p), false) => Ok((Stream::Plain(tcp_to(&p.uri).await?), true)),
            (Some(p), true) => {
                use tower_service::Service;
                let mut tunnel = hyper_util::client::legacy::connect::proxy::Tunnel::new(
                    p.uri.clone(),
                    TcpConnect,
                );
                if let Some(auth) = &p.auth {
                    tunnel = tunnel.with_auth(auth.clone());
                }
                let tcp = tunnel.call(dst.clone()).await?.into_inner();
                Ok((self.tls(tcp, host).await?, false))
            }
        }
    }

    async fn tls(&self, tcp: TcpStream, host: &str) -> Result<Stream, BoxError> {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let name = rustls::pki_types::ServerName::try_from(host.to_owned())
            .map_err(|e| BadDestination(format!("invalid TLS server name {host:?}: {e}")))?;
        let tls = tokio_rustls::TlsConnector::from(self.tls.clone())
            .connect(name, tcp)
            .await?;
        Ok(Stream::Tls(Box::new(tls)))
    }
}

/// TCP to `host:port` with `TCP_NODELAY`: a request is one small write that must not wait for
/// Nagle's algorithm.
async fn tcp(host: &str, port: u16) -> io::Result<TcpStream> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let socket = TcpStream::connect((host, port)).await?;
    socket.set_nodelay(true)?;
    Ok(socket)
}

async fn tcp_to(uri: &Uri) -> io::Result<TcpStream> {
    let host = uri.host().unwrap_or_default();
    tcp(host, uri.port_u16().unwrap_or(80)).await
}

/// The TCP connector under the proxy's tunnel.
#[derive(Clone, Copy)]
struct TcpConnect;

impl tower_service::Service<Uri> for TcpConnect {
    type Response = TokioIo<TcpStream>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<TokioIo<TcpStream>>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        Box::pin(async move { tcp_to(&uri).await.map(TokioIo::new) })
    }
}

/// A connection's bytes: plain TCP or TLS over it.
enum Stream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(s) => s.is_write_vectored(),
            Stream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// The responses a connection carried: the pool hands a clone to each response it answers
/// (hyper-util's `Connected::extra`, in the response's extensions), and the client counts it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Served(pub(crate) Arc<AtomicU64>);

/// One pooled connection as hyper sees it. Dropping it (hyper's connection task ended) counts
/// the close and emits `HTTP connection closed` (`DEBUG`, target `graphbinary_client`: `host`,
/// `lived_ms`, `requests`).
pub(crate) struct Conn {
    io: TokioIo<Stream>,
    proxied: bool,
    opened: Instant,
    served: Served,
    /// Counts the close into the client's tally when dropped; holds the host key.
    guard: ConnectionGuard,
}

impl Conn {
    fn new(stream: Stream, proxied: bool, dst: &Uri, tally: &ConnectionTally) -> Conn {
        let guard = tally.open_guard(&dst.to_string());
        tracing::debug!(target: "graphbinary_client", host = %guard.key(), "HTTP connection opened");
        Conn {
            io: TokioIo::new(stream),
            proxied,
            opened: Instant::now(),
            served: Served::default(),
            guard,
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        tracing::debug!(
            target: "graphbinary_client",
            host = %self.guard.key(),
            lived_ms = self.opened.elapsed().as_millis() as u64,
            requests = self.served.0.load(Ordering::Relaxed),
            "HTTP connection closed"
        );
    }
}

impl Connection for Conn {
    fn connected(&self) -> Connected {
        Connected::new()
            .proxy(self.proxied)
            .extra(self.served.clone())
    }
}

impl hyper::rt::Read for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        hyper::rt::Write::is_write_vectored(&self.io)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
