//! The asynchronous HTTP client for Gremlin Server 4.
//!
//! A [`Client`] sends a script as an HTTP/1.1 `POST` with a JSON body and
//! `Accept: application/vnd.graphbinary-v4.0`, and decodes the GraphBinary 4 response as its
//! bytes arrive. It is built with [`Client::builder`]:
//!
//! ```no_run
//! # async fn demo() -> Result<(), graphbinary_client::client::Error> {
//! use std::time::Duration;
//! use graphbinary_client::client::Client;
//!
//! let client = Client::builder("http://127.0.0.1:8182/gremlin")
//!     .connect_timeout(Duration::from_secs(5))
//!     .read_timeout(Duration::from_secs(60))
//!     .pool_size(4)
//!     .build()?;
//! let raw = client.request("g.V().has('name', who).count()").param("who", "marko").send_raw().await?;
//! # drop(raw); Ok(()) }
//! ```
//!
//! Results stream as they are decoded; the stream's last item is the server's error, if any:
//!
//! ```no_run
//! use futures::TryStreamExt;
//! use graphbinary_client::Client;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::builder("http://127.0.0.1:8182/gremlin").build()?;
//! let mut results = client.submit("g.V().has('name', 'marko').out('knows')").await?;
//! while let Some(v) = results.try_next().await? {
//!     println!("{v}");
//! }
//! # Ok(()) }
//! ```
//!
//! # Transport
//!
//! HTTP goes through hyper-util's connection pool over our own connector
//! (`transport/http/conn.rs`: TCP, the proxy, rustls for TLS), with no decompression of its
//! own, so the only `Accept-Encoding` sent is ours:
//! `deflate` when compression is on (the default). Gremlin Server's "deflate" is zlib
//! (RFC 1950) and is decoded per response, from its `Content-Encoding` header, since error
//! responses are never compressed.
//!
//! Gremlin Server does not pipeline, so each request needs a connection of its own; the pool
//! size bounds both the idle connections kept and the requests in flight: a request waits for a
//! free slot, and holds it until its response is read to the end (the end of the body frees
//! it, even while the response is still held) or dropped. Dropping a
//! response early closes its connection (it is never returned to the pool half-read).
//!
//! # Interceptors and authentication
//!
//! [`ClientBuilder::interceptor`] adds hooks that see and may change each final HTTP request
//! (method, URL, headers, body bytes); the authentication interceptor
//! ([`ClientBuilder::basic_auth`], [`ClientBuilder::auth`], e.g. `SigV4` with feature `sigv4`)
//! runs after them. See [`Interceptor`]. A `user:password@` in the URL is taken out of it and
//! sent as Basic authentication (SASL PLAIN for `ws://`), see
//! [Credentials in the URL](ClientBuilder#credentials-in-the-url). No credential appears in a
//! `Debug`, `Display` or error: passwords are held as [`Secret`], URLs are shown through
//! [`redact_url`].
//!
//! # Several hosts
//!
//! [`ClientBuilder::add_host`] adds endpoints serving the same graph: `http://` hosts
//! (TinkerPop 4) or `ws://` hosts (TinkerPop 3, e.g. the JanusGraph Servers of one storage
//! cluster; a WebSocket pool per host), the same rules for both. Requests are dealt
//! round-robin over the hosts in the rotation. A host that refuses connections or fails on the
//! connection leaves the rotation for a backoff ([`ClientBuilder::host_retry_backoff`],
//! doubling up to [`ClientBuilder::host_retry_backoff_max`]); the next request after it is its
//! probe. A request that could not connect (nothing was sent) moves on to the next host; a
//! request already sent is never sent again unless it is marked
//! [idempotent](RequestBuilder::idempotent): it fails with [`Error::Transport`]. An
//! idempotent one is retried, on another host, after a connection failure before its first
//! result or a 429 / 503 / 596, as the [`RetryPolicy`] of [`ClientBuilder::retry_policy`]
//! says ([`Client::retries`] counts them). A [`Transaction`] stays on the host that began it
//! and is never retried. [`Client::hosts`] reports each host. [`Client::close`] ends a
//! client: requests in flight get a grace, the connections are closed, later requests fail
//! with [`Error::Closed`].
//!
//! # Observability
//!
//! Each request runs in a `tracing` span `gremlin.request` (protocol, host, traversal source,
//! request id, status, results, bytes, duration, retries, outcome; the script and parameters
//! only with [`ClientBuilder::trace_query_text`]), with events for retries, hosts marked down
//! and up, pool waits and WebSocket connections. [`Client::stats`] is a snapshot of the
//! counters (requests, outcomes, errors by [`Error::kind`], retries, in flight, bytes, latency
//! percentiles); feature `metrics` sends the same to the `metrics` facade; a
//! [`RequestListener`] ([`ClientBuilder::listener`]) is called at the start, first byte, end
//! and each retry of every request. No credential appears in any of them.
//!
//! # Transactions
//!
//! [`Client::transaction`] and [`Client::execute_in_tx`]; see [`Transaction`].
//!
//! # Timeouts, proxy, limits
//!
//! [`ClientBuilder::connect_timeout`] (TCP and TLS, default 10 s),
//! [`ClientBuilder::read_timeout`] (each read, off by default),
//! [`ClientBuilder::pool_idle_timeout`] (idle connections, 90 s),
//! [`ClientBuilder::request_timeout`] (a client-side deadline for a whole request, off by
//! default; [`RequestBuilder::timeout`] overrides it per request; the server-side
//! `timeoutMillis` is [`RequestBuilder::timeout_millis`]), [`ClientBuilder::proxy`] (HTTP
//! proxy, `CONNECT` for `https://`), [`ClientBuilder::max_response_header_bytes`]. The
//! `Gremlin-RequestId` of a response is [`ResultStream::request_id`].

mod builder;
mod convert;
pub(crate) mod cosmos;
mod error;
mod hosts;
mod http4;
mod observe;
mod params;
mod request;
mod results;
mod retry;
mod send;
mod transaction;
#[cfg(feature = "serde")]
mod typed;
mod ws3;

use std::sync::Arc;

use tokio::sync::Semaphore;

pub use crate::lang::ServerVersion;
pub use crate::transport::http::BodyReader;
pub use crate::transport::{ByteCounters, ConnectionCounts, ConnectionTally};
pub use builder::ClientBuilder;
pub use http4::RawResponse;
pub use request::{MaterializeProperties, RequestBuilder};
pub use results::{ResultStream, TraverserStream};
pub use retry::RetryPolicy;

pub use crate::transport::ws::SlowConsumer;

use crate::protocol::http4::response::ReadOptions;
pub use crate::protocol::http4::response::StatusAttributes;
use crate::transport::Closing;
#[cfg(feature = "sigv4")]
pub use crate::transport::SigV4;
pub use crate::transport::{
    interceptor_fn, BasicAuth, FnInterceptor, HttpRequest, InterceptFuture, Interceptor,
};
pub use crate::transport::{redact_url, Secret};
/// The HTTP types of [`HttpRequest`], re-exported from the HTTP library.
pub use crate::transport::{HeaderMap, HeaderName, HeaderValue, Method, Url};
pub use error::{Error, ErrorKind, Limit, ServerError, TransportKind};
pub use hosts::HostStatus;
pub use observe::{ClientStats, Latency, RequestEnd, RequestInfo, RequestListener, RetryInfo};
pub use transaction::{Transaction, TRANSACTION_ID_HEADER};
#[cfg(feature = "serde")]
pub use typed::Typed;
pub use ws3::decode_graphbinary1_response;

/// The GraphBinary 4 MIME type sent in `Accept`.
pub const GRAPHBINARY_MIME: &str = "application/vnd.graphbinary-v4.0";

/// The default URL of a local Gremlin Server.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8182/gremlin";

/// The default pool size over HTTP (TinkerPop 4); why 128: [`ClientBuilder::pool_size`].
pub const DEFAULT_POOL_SIZE: usize = 128;

/// The `batchSize` an HTTP request asks for when it names none; why 8192:
/// [`RequestBuilder::batch_size`].
pub const DEFAULT_BATCH_SIZE: u32 = 8192;

/// The default of [`ClientBuilder::max_message_size`]: 10 MiB, the Java driver's.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = crate::transport::ws::MAX_MESSAGE_SIZE;

/// A client for one Gremlin Server endpoint. Cheap to clone: clones share the connection pool.
///
/// Its `Debug` shows the URL, hosts, headers and interceptor names, never a credential (see
/// [`Secret`]).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let i = &*self.inner;
        f.debug_struct("Client")
            .field("url", &redact_url(i.url.as_str()))
            .field("hosts", &i.hosts)
            .field("compression", &i.compression)
            .field("read_options", &i.read_options)
            .field("headers", &i.headers)
            .field("interceptors", &i.interceptors)
            .field("request_timeout", &i.request_timeout)
            .field("retry", &i.retry)
            .field("max_response_header_bytes", &i.max_response_header_bytes)
            .field("transport", &i.transport)
            .finish_non_exhaustive()
    }
}

/// The transport a URL's scheme selects, below the client (see [`crate::transport`]). A new
/// transport (GraphSON over WebSocket is the next planned) is a new sibling module under
/// `transport/` and one more arm here.
enum Transport {
    /// `http://`, `https://`: TinkerPop 4, GraphBinary 4 over HTTP (the pooled client of
    /// `transport/http`; `None` once [`Client::close`] dropped it).
    Http(std::sync::RwLock<Option<crate::transport::http::HttpClient>>),
    /// `ws://`, `wss://`: TinkerPop 3, GraphBinary 1 over WebSocket (a [`Client3`] pool,
    /// connected at the first request).
    ///
    /// [`Client3`]: crate::transport::ws::Client3
    Ws(Box<ws3::Ws3>),
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The HTTP library's own Debug is left out.
            Transport::Http(_) => f.write_str("Http"),
            Transport::Ws(ws) => f.debug_tuple("Ws").field(ws).finish(),
        }
    }
}

/// The client's state (its `Debug` is [`Client`]'s).
struct Inner {
    transport: Transport,
    url: url::Url,
    slots: Arc<Semaphore>,
    pool_size: usize,
    retry: RetryPolicy,
    /// Spans, events, statistics, metrics and the listener.
    observer: Arc<observe::Observer>,
    /// Set by [`Client::close`]; read by every request and response body.
    closing: Arc<Closing>,
    /// Also bounds each wait for a TinkerPop 3 message (the HTTP client has its own).
    read_timeout: Option<std::time::Duration>,
    compression: bool,
    read_options: ReadOptions,
    /// Every host, the first being `url`.
    hosts: hosts::Hosts,
    /// The headers every request starts with, before the interceptors run.
    headers: http::HeaderMap,
    interceptors: crate::transport::Chain,
    request_timeout: Option<std::time::Duration>,
    max_response_header_bytes: Option<usize>,
    /// Built with [`ClientBuilder::cosmos`]: scripts are checked for what Cosmos refuses.
    cosmos: bool,
    /// [`ClientBuilder::server_version`]; 4.0.0 over HTTP when unset.
    server_version: Option<ServerVersion>,
}

impl Inner {
    /// [`Error::Closed`] once the client was closed.
    fn check_open(&self) -> Result<(), Error> {
        if self
            .closing
            .closed
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return Err(Error::Closed);
        }
        Ok(())
    }

    /// The HTTP client ([`Error::Closed`] once closed); for a `ws://` client, the error a
    /// request that needs HTTP gets.
    fn http(&self) -> Result<crate::transport::http::HttpClient, Error> {
        match &self.transport {
            Transport::Http(http) => http
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
                .ok_or(Error::Closed),
            Transport::Ws(_) => Err(Error::InvalidRequest(
                "this is for HTTP (TinkerPop 4); a ws:// client sends no HTTP request".into(),
            )),
        }
    }
}

/// How long [`Client::close`] waits, once nothing is in flight, for the dropped HTTP pool's
/// connections to end on their own tasks (each is counted closed as it ends).
const CLOSE_SETTLE: std::time::Duration = crate::transport::CLOSE_SETTLE;

impl Client {
    /// Closes the client (every clone of it): new requests fail at once with
    /// [`Error::Closed`]; requests in flight get up to `grace` to end (read to their end or
    /// dropped); then any still being read fail at their next read with [`Error::Closed`]
    /// and their connections are closed; the pooled idle connections are closed. Returns the
    /// number of requests that were still in flight when the grace ended.
    ///
    /// A response held but no longer read keeps its connection until it is dropped or read
    /// again (the read then fails); everything else is closed when this returns. For a
    /// `ws://` client the same: the pool's connections are closed (a close frame sent) and
    /// requests still waiting end with [`Error::Closed`].
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// use std::time::Duration;
    /// let client = graphbinary_client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// let n: i64 = client.submit("g.V().count()").await?.one().await?;
    /// assert_eq!(client.close(Duration::from_secs(5)).await, 0);
    /// assert!(matches!(client.submit("g.V()").await, Err(graphbinary_client::client::Error::Closed)));
    /// # Ok(()) }
    /// ```
    ///
    /// # Cancel safety
    /// Dropping the future leaves the client closed to new requests; the requests in flight
    /// then go on until they end, and the idle connections stay pooled until the last clone
    /// is dropped.
    pub async fn close(&self, grace: std::time::Duration) -> usize {
        use std::sync::atomic::Ordering;
        let inner = &*self.inner;
        inner.closing.closed.store(true, Ordering::Release);
        match &inner.transport {
            Transport::Ws(ws) => ws.close(grace).await,
            Transport::Http(http) => {
                let all = u32::try_from(inner.pool_size).unwrap_or(u32::MAX);
                let waited = tokio::time::timeout(grace, inner.slots.acquire_many(all)).await;
                let left = match waited {
                    Ok(_) => 0,
                    Err(_) => inner.pool_size - inner.slots.available_permits(),
                };
                inner.closing.cut.store(true, Ordering::Release);
                // Dropping the HTTP client drops its pool: idle connections close now, those
                // of bodies still held when those are dropped (they are not returned).
                drop(http.write().unwrap_or_else(|e| e.into_inner()).take());
                if left == 0 {
                    // The pool's connections end on their own tasks once it is dropped:
                    // they are counted closed when this returns.
                    inner
                        .observer
                        .connections()
                        .settle(None, CLOSE_SETTLE)
                        .await;
                }
                left
            }
        }
    }

    /// Whether [`Client::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.inner.check_open().is_err()
    }

    /// What this client (and its clones) did so far: requests, outcomes, errors by kind,
    /// retries, requests in flight, bytes and latency percentiles (see
    /// [`ClientStats`]; spans and events: [Observability](self#observability)).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// client.submit("g.V().count()").await?.all().await?;
    /// let stats = client.stats();
    /// assert_eq!((stats.requests, stats.succeeded, stats.in_flight), (1, 1, 0));
    /// println!("p99 {:?}", stats.latency.p99);
    /// # Ok(()) }
    /// ```
    pub fn stats(&self) -> ClientStats {
        self.inner.observer.stats()
    }

    /// Retries made so far by this client (and its clones): each further attempt of an
    /// [`idempotent`](RequestBuilder::idempotent) request counts once.
    pub fn retries(&self) -> u64 {
        self.inner.observer.retries()
    }

    /// A builder for a client of the server at `url`.
    pub fn builder(url: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(url.into())
    }

    /// A client with default settings for the server at `url`.
    pub fn new(url: impl Into<String>) -> Result<Client, Error> {
        ClientBuilder::new(url.into()).build()
    }

    /// The server URL.
    pub fn url(&self) -> &str {
        self.inner.url.as_str()
    }

    /// Whether the URL is `ws://` or `wss://`: requests go to a TinkerPop 3 server as
    /// GraphBinary 1 (or GraphSON, [`ClientBuilder::serializer`]) over WebSocket.
    pub fn is_tinkerpop3(&self) -> bool {
        matches!(self.inner.transport, Transport::Ws(_))
    }

    /// The server's TinkerPop version, as [`ClientBuilder::server_version`] set it; unset,
    /// 4.0.0 for an `http://` client and `None` for a `ws://` one (then traversals are sent
    /// unchecked).
    ///
    /// ```
    /// use graphbinary_client::client::{Client, ServerVersion};
    ///
    /// assert_eq!(Client::new("http://127.0.0.1:8182/gremlin")?.server_version(), Some(ServerVersion::V4_0_0));
    /// assert_eq!(Client::new("ws://127.0.0.1:8182/gremlin")?.server_version(), None);
    /// # Ok::<(), graphbinary_client::Error>(())
    /// ```
    pub fn server_version(&self) -> Option<ServerVersion> {
        self.inner.server_version
    }

    /// Whether the client was built with the Azure Cosmos DB profile
    /// ([`ClientBuilder::cosmos`]): its scripts and traversals are checked for what Cosmos
    /// refuses before they are sent.
    pub fn is_cosmos(&self) -> bool {
        self.inner.cosmos
    }

    /// The TinkerPop 3 connection pool of a `ws://` client (connected at the first use), with
    /// the index of its host; with several hosts, the pool of the next host in the rotation
    /// that can be connected to (a host that cannot is marked down, as a request to it
    /// would). [`Error::InvalidRequest`] for an HTTP client.
    async fn tinkerpop3_on(&self) -> Result<(&crate::transport::ws::Client3, usize), Error> {
        match &self.inner.transport {
            Transport::Ws(ws) => {
                let hosts = &self.inner.hosts;
                let mut plan = hosts::HostPlan::new(hosts, None);
                while let Some(hosts::Target { host, .. }) = plan.next() {
                    match ws.client(host).await {
                        Ok(c) => {
                            hosts.succeeded(host);
                            return Ok((c, host));
                        }
                        Err(e) => {
                            let unreachable = ws3::unreachable(&e);
                            if unreachable {
                                hosts.failed(host);
                            }
                            if !(unreachable && plan.has_more()) {
                                return Err(ws3::from_error3(e));
                            }
                        }
                    }
                }
                Err(Error::Config("the client has no host".to_owned()))
            }
            Transport::Http(_) => Err(Error::InvalidRequest(format!(
                "{} is not a ws:// URL (TinkerPop 3)",
                self.inner.url
            ))),
        }
    }

    /// Whether responses are requested compressed.
    pub fn compression(&self) -> bool {
        self.inner.compression
    }

    /// Sends `gremlin` with default options; the results stream as they arrive.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// let n: i64 = client.submit("g.V().count()").await?.one().await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Cancel safety
    /// Dropping the future abandons the request: a connection it opened or took from the pool
    /// is closed and its pool slot freed. The request may or may not have reached the server
    /// (a mutation may have run); nothing is retried.
    pub async fn submit(&self, gremlin: impl Into<String>) -> Result<ResultStream, Error> {
        self.request(gremlin).send().await
    }

    /// A request for `gremlin`, to add parameters and options to before sending. It can be
    /// `.await`ed directly (same as [`RequestBuilder::send`]).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// let names = client
    ///     .request("g.V().hasLabel(l).values('name')")
    ///     .param("l", "person")
    ///     .batch_size(256)
    ///     .await?
    ///     .all()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn request(&self, gremlin: impl Into<String>) -> RequestBuilder {
        RequestBuilder::new(self.clone(), gremlin.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_urls_are_config_errors() {
        assert!(matches!(Client::new("not a url"), Err(Error::Config(_))));
        assert!(matches!(
            Client::new("ftp://127.0.0.1/"),
            Err(Error::Config(_))
        ));
    }
}
