//! [`ClientBuilder`]: every connection option, validated at [`ClientBuilder::build`]; the
//! `Authorization` and `User-Agent` headers it sends.

use std::sync::Arc;
use std::time::Duration;

use http::header::{HeaderMap, HeaderValue, ACCEPT, ACCEPT_ENCODING, CONTENT_TYPE, USER_AGENT};
use tokio::sync::Semaphore;

use super::hosts::Hosts;
use super::retry::RetryPolicy;
use super::{
    Client, Error, Inner, Transport, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_POOL_SIZE, GRAPHBINARY_MIME,
};
use crate::protocol::http4::response::ReadOptions;

/// The default pool over WebSocket (TinkerPop 3): requests are multiplexed there, so a few
/// connections carry any number in flight and a long round trip does not bound them.
const WS_DEFAULT_POOL_SIZE: usize = 8;
use crate::transport::secret::{redact_url, take_userinfo, Credentials, Secret, UrlText};
use crate::transport::{BasicAuth, Chain, Interceptor};

/// Builds a [`Client`]. See [`Client::builder`].
///
/// # Credentials in the URL
///
/// A `user:password@` in a server URL (percent-encoded, as URLs write it) is taken out of the
/// URL the client uses and becomes its credentials: for `http://` / `https://`, HTTP Basic
/// authentication, as if [`ClientBuilder::basic_auth`] had been called; for `ws://` /
/// `wss://` (TinkerPop 3), the SASL PLAIN answer to the server's challenge. A URL with a user
/// and no password gives an empty password. [`ClientBuilder::build`] refuses with
/// [`Error::Config`] credentials given both in a URL and with [`ClientBuilder::basic_auth`] or
/// [`ClientBuilder::auth`], and hosts ([`ClientBuilder::add_host`]) whose URLs carry different
/// credentials. The password is never shown: [`Client::url`] and [`Client::hosts`] have no
/// userinfo, and every `Debug`, `Display` and error message shows a URL through
/// [`redact_url`](super::redact_url).
///
/// ```
/// # fn demo() -> Result<(), graphbinary_client::client::Error> {
/// let client = graphbinary_client::Client::new("http://stephen:pa%24%24@127.0.0.1:8182/gremlin")?;
/// assert_eq!(client.url(), "http://127.0.0.1:8182/gremlin"); // and Basic stephen:pa$$ is sent
/// assert!(!format!("{client:?}").contains("pa%24%24"));
/// # Ok(()) }
/// ```
///
/// The `Debug` of a builder redacts its URLs (the proxy's too) and credentials.
#[derive(Debug)]
pub struct ClientBuilder {
    url: UrlText,
    connect_timeout: Option<Duration>,
    read_timeout: Option<Duration>,
    interceptors: Chain,
    auth: Option<Arc<dyn Interceptor>>,
    extra_hosts: Vec<UrlText>,
    host_retry_backoff: Duration,
    host_retry_backoff_max: Duration,
    proxy: Option<UrlText>,
    request_timeout: Option<Duration>,
    max_response_header_bytes: Option<usize>,
    compression: bool,
    user_agent: Option<String>,
    application_name: String,
    /// `None`: [`DEFAULT_POOL_SIZE`] over HTTP, [`WS_DEFAULT_POOL_SIZE`] over WebSocket.
    pool_size: Option<usize>,
    pool_idle_timeout: Option<Duration>,
    root_certificates: Vec<Vec<u8>>,
    read_options: ReadOptions,
    /// The user and password of [`ClientBuilder::basic_auth`]: SASL PLAIN for TinkerPop 3.
    credentials: Option<Credentials>,
    /// Readers of GraphBinary 1 custom types for TinkerPop 3 servers.
    custom_types: crate::format::graphbinary1::CustomTypes,
    /// The serialization for TinkerPop 3 servers.
    serializer: crate::protocol::ws3::graphson::Serializer,
    retry: RetryPolicy,
    listener: Option<Arc<dyn super::RequestListener>>,
    trace_query_text: bool,
    /// [`ClientBuilder::cosmos`] was called: `Err` when its names were bad.
    cosmos: Option<Result<(), Error>>,
    /// [`ClientBuilder::server_version`].
    server_version: Option<super::ServerVersion>,
    /// The largest WebSocket message accepted (TinkerPop 3).
    max_message_size: usize,
    /// Response messages one TinkerPop 3 request may have queued.
    request_backlog: usize,
    /// Bytes of response messages one TinkerPop 3 request may have queued.
    request_backlog_bytes: usize,
    /// What a WebSocket connection does when a request's queue is full.
    slow_consumer: crate::transport::ws::SlowConsumer,
    /// The WebSocket keep-alive ping interval.
    ping_interval: Option<Duration>,
}

impl ClientBuilder {
    pub(super) fn new(url: String) -> Self {
        ClientBuilder {
            url: UrlText(url),
            connect_timeout: Some(Duration::from_secs(10)),
            read_timeout: None,
            interceptors: Chain::default(),
            auth: None,
            extra_hosts: Vec::new(),
            host_retry_backoff: Duration::from_secs(1),
            host_retry_backoff_max: Duration::from_secs(30),
            proxy: None,
            request_timeout: None,
            max_response_header_bytes: None,
            compression: true,
            user_agent: None,
            application_name: "graphbinary-rs".to_owned(),
            pool_size: None,
            pool_idle_timeout: Some(Duration::from_secs(90)),
            root_certificates: Vec::new(),
            read_options: ReadOptions::default(),
            credentials: None,
            custom_types: crate::format::graphbinary1::CustomTypes::janusgraph(),
            serializer: crate::protocol::ws3::graphson::Serializer::GraphBinary1,
            retry: RetryPolicy::default(),
            listener: None,
            trace_query_text: false,
            cosmos: None,
            server_version: None,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            request_backlog: crate::transport::ws::REQUEST_BACKLOG,
            request_backlog_bytes: crate::transport::ws::REQUEST_BACKLOG_BYTES,
            slow_consumer: crate::transport::ws::SlowConsumer::Wait,
            ping_interval: Some(Duration::from_secs(60)),
        }
    }

    /// Both transports: the deepest nesting of values (a List in a Map in a List...) a
    /// response may hold (default [`DEFAULT_MAX_DEPTH`](crate::response::DEFAULT_MAX_DEPTH),
    /// 128: each level takes stack while decoding). A deeper response fails its request with
    /// an error (limit Depth); the CLI's flag is
    /// `--max-depth`. Shorthand for the same field of [`ClientBuilder::read_options`].
    pub fn max_depth(mut self, levels: u32) -> Self {
        self.read_options.limits.max_depth = levels;
        self
    }

    /// Both transports: the most elements a List, Set, Map, Path, Tree or Graph of a response
    /// may claim (default 64 Mi), checked before anything is allocated. A larger one fails
    /// its request with an error (limit CollectionLength); the CLI's flag is
    /// `--max-collection-len`.
    pub fn max_collection_len(mut self, elements: usize) -> Self {
        self.read_options.limits.max_collection_len = elements;
        self
    }

    /// Both transports: the most bytes a String, Binary or BigInteger of a response may claim
    /// (default 256 MiB), checked before anything is allocated. A larger one fails its request
    /// with an error (limit BytesLength); the
    /// CLI's flag is `--max-bytes-len`.
    pub fn max_bytes_len(mut self, bytes: usize) -> Self {
        self.read_options.limits.max_bytes_len = bytes;
        self
    }

    /// Both transports: the most bytes one response may have in all (an HTTP body as
    /// received, or the sum of a TinkerPop 3 request's WebSocket messages); `None` (the
    /// default) for no bound. A larger response fails its request with an error (limit ResponseSize); the CLI's flag is
    /// `--max-response-size`. Over WebSocket it also caps each message, when smaller than
    /// [`ClientBuilder::max_message_size`].
    pub fn max_response_size(mut self, bytes: impl Into<Option<u64>>) -> Self {
        self.read_options.limits.max_response_size = bytes.into();
        self
    }

    /// `ws://` / `wss://` only (TinkerPop 3): the largest WebSocket message (one batch of
    /// results) accepted, in bytes (default 10 MiB, the Java driver's). A larger message
    /// fails the requests of its connection with an error (limit MessageSize), and the connection is closed (the
    /// protocol cannot skip a message); the CLI's flag is `--max-message-size`. A smaller
    /// [`batch_size`](super::RequestBuilder::batch_size) makes the server's messages smaller.
    /// HTTP has no messages: its bound is [`ClientBuilder::max_response_size`].
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// `ws://` / `wss://` only (TinkerPop 3): how many response messages one request may have
    /// read but not yet consumed (default 1024); see [`ClientBuilder::slow_consumer`] for what
    /// happens beyond. At least 1.
    pub fn request_backlog(mut self, messages: usize) -> Self {
        self.request_backlog = messages.max(1);
        self
    }

    /// `ws://` / `wss://` only (TinkerPop 3): how many bytes of response messages one request
    /// may have read but not yet consumed (default 8 MiB); a message always gets through when
    /// nothing else is queued, however large. See [`ClientBuilder::slow_consumer`].
    pub fn request_backlog_bytes(mut self, bytes: usize) -> Self {
        self.request_backlog_bytes = bytes;
        self
    }

    /// `ws://` / `wss://` only (TinkerPop 3): what a connection does when a request's consumer
    /// falls [`request_backlog`](ClientBuilder::request_backlog) messages or
    /// [`request_backlog_bytes`](ClientBuilder::request_backlog_bytes) behind. By default
    /// ([`SlowConsumer::Wait`](super::SlowConsumer::Wait)) the connection stops reading until
    /// the consumer catches up (nothing is lost, but the other requests multiplexed on that
    /// connection wait too); [`SlowConsumer::Fail`](super::SlowConsumer::Fail) ends that
    /// request alone with an error and reads on. HTTP has a connection per request: TCP
    /// pushes back on the server, nothing to choose.
    pub fn slow_consumer(mut self, policy: crate::transport::ws::SlowConsumer) -> Self {
        self.slow_consumer = policy;
        self
    }

    /// `ws://` / `wss://` only (TinkerPop 3): a connection idle this long sends a WebSocket
    /// ping, and closes when no frame comes within the next interval; `None` for no pings.
    /// Default 60 s. Over HTTP, idle connections are bounded by
    /// [`ClientBuilder::pool_idle_timeout`].
    pub fn ping_interval(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.ping_interval = t.into();
        self
    }

    /// How responses are decoded: limits against hostile input, read buffer capacity, fast
    /// path on or off (default [`ReadOptions::default`]).
    pub fn read_options(mut self, opts: ReadOptions) -> Self {
        self.read_options = opts;
        self
    }

    /// The server URL: `http://` or `https://` for TinkerPop 4, `ws://` or `wss://` for
    /// TinkerPop 3 (default [`DEFAULT_URL`](super::DEFAULT_URL)). A `user:password@` in it is
    /// the client's credentials (see [Credentials in the URL](ClientBuilder#credentials-in-the-url)).
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.url = UrlText(url.into());
        self
    }

    /// How long to wait for a TCP (and TLS) connection; `None` waits forever. Default 10 s.
    pub fn connect_timeout(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.connect_timeout = t.into();
        self
    }

    /// How long to wait for each read from the connection (response headers or the next body
    /// bytes); `None` waits forever. Default `None`: the server's own `timeoutMillis` bounds a
    /// request.
    pub fn read_timeout(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.read_timeout = t.into();
        self
    }

    /// HTTP Basic authentication: installs a [`BasicAuth`](super::BasicAuth) as the
    /// authentication interceptor (replacing any set with [`ClientBuilder::auth`]). For a
    /// `ws://` / `wss://` URL (TinkerPop 3) the same user and password answer the server's
    /// SASL PLAIN challenge instead (no `Authorization` header on the upgrade request).
    pub fn basic_auth(self, user: impl Into<String>, password: impl Into<String>) -> Self {
        let (user, password) = (user.into(), Secret::new(password));
        let mut b = self.auth(BasicAuth::new(&user, password.expose()));
        b.credentials = Some((user, password));
        b
    }

    /// Appends `interceptor` to the chain that sees and may change every request before it is
    /// sent (after its body is serialized). Interceptors run in the order added; the
    /// authentication interceptor ([`ClientBuilder::auth`]) runs after all of them. See
    /// [`Interceptor`](super::Interceptor).
    ///
    /// ```
    /// use graphbinary_client::client::{interceptor_fn, Client};
    ///
    /// # fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = Client::builder("http://127.0.0.1:8182/gremlin")
    ///     .interceptor(interceptor_fn("trace", |req| {
    ///         req.headers.insert("x-trace", "on".parse()?);
    ///         Ok(())
    ///     }))
    ///     .build()?;
    /// # drop(client); Ok(()) }
    /// ```
    pub fn interceptor(mut self, interceptor: impl Interceptor) -> Self {
        self.interceptors.0.push(Arc::new(interceptor));
        self
    }

    /// The authentication interceptor, run after every other interceptor (e.g.
    /// [`BasicAuth`](super::BasicAuth), or `SigV4` with feature `sigv4`). Replaces the previous one.
    pub fn auth(mut self, interceptor: impl Interceptor) -> Self {
        self.auth = Some(Arc::new(interceptor));
        self.credentials = None;
        self
    }

    /// Adds another host serving the same graph. Requests go round-robin over the hosts that
    /// are available; see [`Client::hosts`] and the host rules in the
    /// [`client`](super) documentation. Credentials in its URL must be those of the other URLs
    /// that have some (see [Credentials in the URL](ClientBuilder#credentials-in-the-url)).
    /// Every host speaks the protocol of the first URL: `http://` / `https://` hosts
    /// (TinkerPop 4) or `ws://` / `wss://` hosts (TinkerPop 3, a connection pool per host);
    /// [`ClientBuilder::build`] refuses a mix.
    ///
    /// ```
    /// # fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::Client::builder("http://gremlin-1.example.internal:8182/gremlin")
    ///     .add_host("http://gremlin-2.example.internal:8182/gremlin")
    ///     .add_host("http://gremlin-3.example.internal:8182/gremlin")
    ///     .build()?;
    /// assert_eq!(client.hosts().len(), 3);
    /// // The JanusGraph Servers of one storage cluster (TinkerPop 3, a pool per host, each
    /// // connected at its first request):
    /// let janus = graphbinary_client::Client::builder("ws://janusgraph-1.example.internal:8182/gremlin")
    ///     .add_host("ws://janusgraph-2.example.internal:8182/gremlin")
    ///     .build()?;
    /// assert!(janus.is_tinkerpop3());
    /// assert_eq!(janus.hosts().len(), 2);
    /// # Ok(()) }
    /// ```
    pub fn add_host(mut self, url: impl Into<String>) -> Self {
        self.extra_hosts.push(UrlText(url.into()));
        self
    }

    /// How long a host that failed stays out of the rotation before it is tried again
    /// (default 1 s); each further failure doubles it, up to
    /// [`ClientBuilder::host_retry_backoff_max`].
    pub fn host_retry_backoff(mut self, t: Duration) -> Self {
        self.host_retry_backoff = t;
        self
    }

    /// Hooks called at the start, first byte, end and each retry of every request (see
    /// [`RequestListener`](super::RequestListener)); one listener a client, the last set wins.
    pub fn listener(mut self, listener: Arc<dyn super::RequestListener>) -> Self {
        self.listener = Some(listener);
        self
    }

    /// Whether each request's tracing span records its script and parameters (fields
    /// `gremlin` and `parameters`). Off by default: they carry the application's data.
    pub fn trace_query_text(mut self, on: bool) -> Self {
        self.trace_query_text = on;
        self
    }

    /// How requests marked [`idempotent`](super::RequestBuilder::idempotent) are retried
    /// (default [`RetryPolicy::default`]: 3 attempts, backoff from 50 ms to 2 s with jitter,
    /// `Retry-After` honoured up to 10 s); see [`RetryPolicy`] for what is retried. Requests not
    /// marked idempotent are never sent twice, whatever the policy.
    ///
    /// ```
    /// use std::time::Duration;
    /// use graphbinary_client::client::{Client, RetryPolicy};
    ///
    /// # fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = Client::builder("http://127.0.0.1:8182/gremlin")
    ///     .add_host("http://127.0.0.1:8183/gremlin")
    ///     .retry_policy(RetryPolicy::default().max_attempts(4).max_backoff(Duration::from_secs(1)))
    ///     .build()?;
    /// # drop(client); Ok(()) }
    /// ```
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The longest a failed host stays out of the rotation (default 30 s).
    pub fn host_retry_backoff_max(mut self, t: Duration) -> Self {
        self.host_retry_backoff_max = t;
        self
    }

    /// The settings of the failover drills (`cargo xtask failover`'s bench and `cargo xtask
    /// cluster chaos`), in one place so both measure the same client: connect timeout 2 s,
    /// read timeout 20 s, a failed host out of the rotation for 250 ms to 2 s, and idempotent
    /// requests tried 4 times with a backoff of 20 ms to 500 ms. Feature `test-util`; not part
    /// of the stable API.
    #[cfg(feature = "test-util")]
    pub fn failover_drill(self) -> Self {
        self.connect_timeout(Duration::from_secs(2))
            .read_timeout(Duration::from_secs(20))
            .host_retry_backoff(Duration::from_millis(250))
            .host_retry_backoff_max(Duration::from_secs(2))
            .retry_policy(
                RetryPolicy::default()
                    .max_attempts(4)
                    .initial_backoff(Duration::from_millis(20))
                    .max_backoff(Duration::from_millis(500)),
            )
    }

    /// Sends every request through the HTTP proxy at `url` (`http://[user:password@]host:port`;
    /// the credentials, if any, go in `Proxy-Authorization`). `https://` servers are reached
    /// through an HTTP `CONNECT` tunnel, `http://` ones by sending the request to the proxy in
    /// absolute form. Default: no proxy (the `HTTP_PROXY` environment variables are ignored).
    /// The proxy's password is redacted from the builder's `Debug` and from errors.
    pub fn proxy(mut self, url: impl Into<String>) -> Self {
        self.proxy = Some(UrlText(url.into()));
        self
    }

    /// A client-side deadline for every request, from sending it until its last body byte
    /// (default `None`); a request can override it with
    /// [`RequestBuilder::timeout`](super::RequestBuilder::timeout).
    pub fn request_timeout(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.request_timeout = t.into();
        self
    }

    /// The largest response header section accepted, in bytes (names, values and separators
    /// counted); a larger one fails the request with [`Error::Protocol`]. Default `None`: only
    /// the HTTP library's own bound (about 400 KiB) applies.
    pub fn max_response_header_bytes(mut self, n: impl Into<Option<usize>>) -> Self {
        self.max_response_header_bytes = n.into();
        self
    }

    /// Asks for compressed responses. Default on.
    ///
    /// Over HTTP (TinkerPop 4) each request says `Accept-Encoding: deflate`; over WebSocket
    /// (`ws://`, `wss://`) the upgrade offers permessage-deflate (RFC 7692), which Gremlin
    /// Server 3.7 and 3.8 accept (a server that does not answers uncompressed). The client
    /// compresses nothing it sends.
    ///
    /// Compression trades the server's CPU for bytes on the wire: a ~200k-result answer of 24 MB
    /// crosses as 83 KB (from 3.7.3, 20.6 MB as under 150 KB). Across a simulated link
    /// (BENCHMARKS.md, "WAN link", `cargo xtask link`; 2026-12-07, medians of 5) it pays
    /// wherever the link is slower than the server's deflate: that answer took 531 ms with it
    /// against 1.09 s without at 30 ms one way and 200 Mbit/s (from 3.7.3: 298 ms against
    /// 917 ms), and 450 ms against 3.94 s at 50 Mbit/s. The break-even is near an uncapped link
    /// 1 ms away, where one run favours it and another not (4.0: 439 ms against 458 ms, and
    /// 437 ms against 401 ms the day before; 3.7.3: 234 ms against 261 ms); for small answers
    /// (`g.V()`) it makes no measurable difference. Turn it off (`compression(false)`) for a
    /// server in the same region whose CPU is scarcer than the link. It stays on by default,
    /// as TinkerPop 4's Java, Go and Python drivers and the 3.x Java driver have it: on a slow
    /// link its absence costs without bound, and bytes across regions are billed.
    pub fn compression(mut self, on: bool) -> Self {
        self.compression = on;
        self
    }

    /// Replaces the whole `User-Agent` header.
    pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
        self.user_agent = Some(ua.into());
        self
    }

    /// The application name at the start of the default `User-Agent` (default
    /// `graphbinary-rs`).
    pub fn application_name(mut self, name: impl Into<String>) -> Self {
        self.application_name = name.into();
        self
    }

    /// The number of connections: requests in flight at once (at least 1), and idle
    /// connections kept (one more over HTTP). Default [`DEFAULT_POOL_SIZE`] (128) over HTTP,
    /// 8 over WebSocket.
    ///
    /// Over HTTP/1.1 each request in flight holds a connection of its own, so the pool bounds
    /// throughput to `pool / round trip`: 8 connections across a 60 ms round trip make at most
    /// ~133 requests/s. Measured (BENCHMARKS.md, "WAN link": a Gremlin Server 4.0.0-beta.3
    /// behind `cargo xtask link` at 30 ms one way, 200 Mbit/s; `g.V()` at 64 requests in
    /// flight) the former default of 8 made ~127 requests/s against ~980 with a pool of 64,
    /// while the Java, Go and Python drivers all default to 128 connections; hence 128, the
    /// same as theirs. Connections are opened only when that many requests are in flight at
    /// once, so a client that sends one request at a time holds one, and the spare: a
    /// request may start before the connection of the one before it is back in the pool,
    /// and without a spare idle connection the pool opens a new one (with a pool of 1, one
    /// request after the other, 55 connections for 310 requests; with the spare, 2). Over
    /// WebSocket (TinkerPop 3) requests share connections, and 8 stay the default.
    pub fn pool_size(mut self, n: usize) -> Self {
        self.pool_size = Some(n.max(1));
        self
    }

    /// How long an idle pooled connection is kept; `None` keeps it until the server closes it.
    /// Default 90 s. Set it below the server's `idleConnectionTimeoutMillis` when that is
    /// enabled (Gremlin Server's default is 0, disabled), so that a request never races the
    /// server closing an idle connection.
    pub fn pool_idle_timeout(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.pool_idle_timeout = t.into();
        self
    }

    /// For `ws://` / `wss://` URLs (TinkerPop 3): readers of GraphBinary 1 custom types (type
    /// code 0x00) by name. By default JanusGraph's
    /// ([`CustomTypes::janusgraph`](crate::format::graphbinary1::CustomTypes::janusgraph): its
    /// edge ids, Geoshapes and predicates), as the Java driver reads them with JanusGraph's IO
    /// registry; `CustomTypes::new()` for none, or JanusGraph's `.with(...)` your own. A custom
    /// value of a type not registered fails its request, naming its type. Ignored over HTTP
    /// (GraphBinary 4 has no custom types).
    pub fn custom_types(mut self, types: crate::format::graphbinary1::CustomTypes) -> Self {
        self.custom_types = types;
        self
    }

    /// For `ws://` / `wss://` URLs (TinkerPop 3): the serialization of requests and responses,
    /// [`Serializer::GraphBinary1`](crate::protocol::ws3::graphson::Serializer::GraphBinary1) by default,
    /// or GraphSON 2 / 3, typed or untyped (e.g. GraphSON 2 for Azure Cosmos DB). A GraphSON
    /// serializer with an `http://` / `https://` URL is an [`Error::Config`] at
    /// [`build`](ClientBuilder::build): TinkerPop 4 speaks GraphBinary 4 here.
    ///
    /// ```
    /// use graphbinary_client::Serializer;
    ///
    /// let client = graphbinary_client::Client::builder("ws://127.0.0.1:8182/gremlin")
    ///     .serializer(Serializer::GraphSon3)
    ///     .build();
    /// assert!(client.is_ok());
    /// let http = graphbinary_client::Client::builder("http://127.0.0.1:8182/gremlin")
    ///     .serializer(Serializer::GraphSon2)
    ///     .build();
    /// assert!(http.unwrap_err().to_string().contains("GraphSON"));
    /// ```
    pub fn serializer(mut self, serializer: crate::protocol::ws3::graphson::Serializer) -> Self {
        self.serializer = serializer;
        self
    }

    /// The TinkerPop version of the server (or of the TinkerPop a provider runs: JanusGraph
    /// 1.1.0 runs 3.7.3, Amazon Neptune 1.4.7 runs 3.7.1), which the client cannot learn from
    /// a TinkerPop 3 server cheaply and reliably. With it, the traversal API checks each
    /// traversal before sending it: a step, predicate or token newer than the server (e.g.
    /// `discard()`, `asNumber()`, `P.typeOf`, `GType` need 3.8.0; `addLabel()` needs 4.0.0)
    /// is an [`Error::NeedsVersion`] and nothing is sent. Unset, a `ws://` client sends
    /// traversals unchecked (the server's error says what it lacks); an `http://` client is
    /// TinkerPop 4.0 ([`Client::server_version`](super::Client::server_version)), and a 3.x
    /// version with an `http://` URL is an [`Error::Config`] at [`build`](Self::build).
    ///
    /// ```
    /// use graphbinary_client::client::{Client, ServerVersion};
    /// use graphbinary_client::process::GraphTraversalSource;
    ///
    /// let client = Client::builder("ws://127.0.0.1:8182/gremlin")
    ///     .server_version(ServerVersion::new(3, 7, 3))
    ///     .build()?;
    /// let g = GraphTraversalSource::new(client);
    /// let err = g.inject(1).as_number(()).request().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "asNumber() needs TinkerPop 3.8.0 or later; the server is 3.7.3 (ClientBuilder::server_version): the request was not sent"
    /// );
    /// # Ok::<(), graphbinary_client::Error>(())
    /// ```
    pub fn server_version(mut self, version: super::ServerVersion) -> Self {
        self.server_version = Some(version);
        self
    }

    /// The Azure Cosmos DB profile: a client of the Gremlin API of a Cosmos DB account, at its
    /// `wss://<account>.gremlin.cosmos.azure.com:443/` URL, for graph `collection` of
    /// `database`, authenticated with the account's `key` (its primary or secondary key, or a
    /// resource token).
    ///
    /// It sets what Cosmos needs: GraphSON 2 ([`Serializer::GraphSon2`](crate::protocol::ws3::graphson::Serializer::GraphSon2);
    /// Cosmos refuses GraphSON 3 and GraphBinary, and sends untyped JSON back whatever it
    /// was asked: vertices and edges arrive as Maps), SASL PLAIN with the user
    /// `/dbs/<database>/colls/<collection>` and the key as the password (a
    /// [`Secret`](super::Secret): no `Debug`, `Display`, error or log shows it), scripts only
    /// (the traversal API writes text; no bytecode is ever sent). [`build`](Self::build)
    /// refuses an `http://` / `https://` URL, another serializer set after this call, and a
    /// database or collection name Cosmos cannot have (empty, or holding `/`, `\`, `?`, `#`).
    ///
    /// Before sending, the client refuses with [`Error::Unsupported`] what Cosmos is
    /// documented to refuse and can be seen in the request: a lambda in a script (a Groovy
    /// closure `{...}`, `->`, `Lambda`), and through the traversal API the `match()` step,
    /// `property(set, ...)` and a null, List, Set or Map as a property value; and
    /// [`Client::session`](super::Client::session) (Cosmos has no transactions).
    ///
    /// Every response message's status attributes reach the caller, Cosmos's request charges
    /// among them ([`ResultStream::status_attributes`](super::ResultStream::status_attributes),
    /// [`ServerError::attributes`](super::ServerError::attributes)), and throttling (status
    /// 500 with `x-ms-status-code` 429) is retried for idempotent requests after the
    /// `x-ms-retry-after-ms` Cosmos asks (see [`RetryPolicy`]).
    ///
    /// ```
    /// use graphbinary_client::Client;
    ///
    /// # fn demo() -> Result<(), graphbinary_client::Error> {
    /// let key = "bm90LWEtcmVhbC1rZXk="; // from the environment or a vault in real code
    /// let client = Client::builder("wss://myaccount.gremlin.cosmos.azure.com:443/")
    ///     .cosmos("graphdb", "people", key)
    ///     .build()?;
    /// assert!(client.is_cosmos());
    /// assert!(!format!("{client:?}").contains(key));
    /// // A lambda is refused before anything is sent.
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let e = client.submit("g.V().map{ it.get() }").await.unwrap_err();
    /// assert!(matches!(e, graphbinary_client::Error::Unsupported { .. }), "{e}");
    /// # });
    /// // Cosmos is WebSocket only.
    /// let http = Client::builder("https://myaccount.gremlin.cosmos.azure.com/")
    ///     .cosmos("graphdb", "people", key)
    ///     .build();
    /// assert!(http.unwrap_err().to_string().contains("wss://"));
    /// # Ok(()) }
    /// ```
    pub fn cosmos(
        self,
        database: impl AsRef<str>,
        collection: impl AsRef<str>,
        key: impl Into<String>,
    ) -> Self {
        let (mut b, checked) = match super::cosmos::user(database.as_ref(), collection.as_ref()) {
            Ok(user) => (self.basic_auth(user, key), Ok(())),
            Err(e) => (self, Err(e)),
        };
        b.serializer = crate::protocol::ws3::graphson::Serializer::GraphSon2;
        b.cosmos = Some(checked);
        b
    }

    /// Trusts a PEM-encoded root certificate (a private CA, or one the platform lacks) in
    /// addition to the platform's trust store, for `https://` and for `wss://` URLs alike
    /// (both transports share it).
    pub fn add_root_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.root_certificates.push(pem.into());
        self
    }

    /// Builds the client. Fails on an invalid URL or certificate, on hosts of both protocols
    /// (`http`/`https` and `ws`/`wss`), and on credentials given twice or differing between
    /// hosts (see
    /// [Credentials in the URL](ClientBuilder#credentials-in-the-url)).
    pub fn build(mut self) -> Result<Client, Error> {
        // Checked here for both transports, so that a bad PEM is named (the TLS library only says
        // "builder error").
        crate::transport::ws::parse_root_certificates(&self.root_certificates)
            .map_err(Error::Config)?;
        let tinkerpop3 = is_ws_url(&self.url.0);
        let pool_size = self.pool_size.unwrap_or(if tinkerpop3 {
            WS_DEFAULT_POOL_SIZE
        } else {
            DEFAULT_POOL_SIZE
        });
        let cosmos = self.cosmos.is_some();
        if let Some(checked) = self.cosmos.take() {
            self.check_cosmos(checked, tinkerpop3)?;
        }
        if !tinkerpop3 && self.serializer.is_graphson() {
            return Err(Error::Config(format!(
                "the GraphSON serializer {:?} needs a ws:// or wss:// URL (TinkerPop 3); over http/https \
                 the client speaks GraphBinary 4",
                self.serializer
            )));
        }
        if let Some(v) = self.server_version {
            if !tinkerpop3 && v.major() < 4 {
                return Err(Error::Config(format!(
                    "server_version {v} with an http/https URL: TinkerPop 3 servers speak ws:// or \
                     wss://, http/https is TinkerPop 4"
                )));
            }
        }
        let mut urls = vec![if tinkerpop3 {
            parse_ws_url(&self.url.0)?
        } else {
            parse_url(&self.url.0)?
        }];
        for (i, u) in self.extra_hosts.iter().enumerate() {
            if is_ws_url(&u.0) != tinkerpop3 {
                return Err(Error::Config(format!(
                    "host {} ({}) is {}, the first URL is {}: every host of a client speaks one \
                     protocol (http/https for TinkerPop 4, ws/wss for TinkerPop 3)",
                    i + 1,
                    redact_url(&u.0),
                    if tinkerpop3 { "not ws/wss" } else { "ws/wss" },
                    if tinkerpop3 { "ws/wss" } else { "http/https" },
                )));
            }
            urls.push(if tinkerpop3 {
                parse_ws_url(&u.0)?
            } else {
                parse_url(&u.0)?
            });
        }
        self.take_url_credentials(&mut urls)?;
        let url = urls[0].clone();
        let connections = crate::transport::ConnectionTally::default();
        let transport = if tinkerpop3 {
            let mut options = self.ws_options();
            options.connections = connections.clone();
            Transport::Ws(Box::new(super::ws3::Ws3::new(
                urls.iter().map(|u| u.as_str().to_owned()).collect(),
                options,
            )))
        } else {
            Transport::Http(std::sync::RwLock::new(Some(
                self.http_client(&connections)?,
            )))
        };
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(GRAPHBINARY_MIME));
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if self.compression {
            headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("deflate"));
        }
        let ua = self
            .user_agent
            .unwrap_or_else(|| default_user_agent(&self.application_name));
        headers.insert(
            USER_AGENT,
            HeaderValue::from_str(&ua)
                .map_err(|e| Error::Config(format!("invalid User-Agent {ua:?}: {e}")))?,
        );
        let mut interceptors = self.interceptors;
        interceptors.0.extend(self.auth);
        Ok(Client {
            inner: Arc::new(Inner {
                transport,
                url,
                slots: Arc::new(Semaphore::new(pool_size)),
                pool_size,
                retry: self.retry,
                observer: Arc::new(super::observe::Observer::new(
                    self.listener.clone(),
                    self.trace_query_text,
                    connections,
                )),
                closing: Default::default(),
                read_timeout: self.read_timeout,
                compression: self.compression,
                read_options: self.read_options,
                hosts: Hosts::new(urls, self.host_retry_backoff, self.host_retry_backoff_max),
                headers,
                interceptors,
                request_timeout: self.request_timeout,
                max_response_header_bytes: self.max_response_header_bytes,
                cosmos,
                server_version: self.server_version.or(if tinkerpop3 {
                    None
                } else {
                    Some(super::ServerVersion::V4_0_0)
                }),
            }),
        })
    }

    /// The checks of the Cosmos DB profile at [`build`](Self::build): its names were good, the
    /// URL is `ws://` / `wss://`, the serializer is still GraphSON 2, its key is still the
    /// credentials.
    fn check_cosmos(&self, checked: Result<(), Error>, tinkerpop3: bool) -> Result<(), Error> {
        checked?;
        if !tinkerpop3 {
            return Err(Error::Config(format!(
                "Azure Cosmos DB's Gremlin API is reached over wss:// (TinkerPop 3's WebSocket \
                 protocol), not {}",
                redact_url(&self.url.0)
            )));
        }
        if !matches!(
            self.serializer,
            crate::protocol::ws3::graphson::Serializer::GraphSon2
                | crate::protocol::ws3::graphson::Serializer::GraphSon2Untyped
        ) {
            return Err(Error::Config(format!(
                "Azure Cosmos DB speaks GraphSON 2 only, not {:?} (set by serializer after cosmos)",
                self.serializer
            )));
        }
        if self.credentials.is_none() {
            return Err(Error::Config(
                "the Azure Cosmos DB key was replaced by auth() after cosmos(); Cosmos \
                 authenticates with SASL PLAIN (the key as the password)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Takes the credentials out of the userinfo of `urls` (the server's, then each added
    /// host's) and makes them this builder's, as [`ClientBuilder::basic_auth`] would; refuses
    /// credentials given twice or differing between hosts. Error messages never hold them.
    fn take_url_credentials(&mut self, urls: &mut [url::Url]) -> Result<(), Error> {
        let mut found: Option<Credentials> = None;
        for (i, url) in urls.iter_mut().enumerate() {
            let Some(c) = take_userinfo(url).map_err(Error::Config)? else {
                continue;
            };
            match &found {
                None => found = Some(c),
                Some(f) if *f == c => {}
                Some(_) => {
                    return Err(Error::Config(format!(
                        "the URL of host {i} ({url}) has other credentials than an earlier one; \
                         a client sends one set of credentials to every host"
                    )))
                }
            }
        }
        let Some((user, password)) = found else {
            return Ok(());
        };
        if self.auth.is_some() {
            return Err(Error::Config(
                "credentials are given both in the URL's userinfo and with basic_auth or auth; \
                 give them once"
                    .into(),
            ));
        }
        self.auth = Some(Arc::new(BasicAuth::new(&user, password.expose())));
        self.credentials = Some((user, password));
        Ok(())
    }

    /// The HTTP client of an `http://` or `https://` URL (hyper-util's pool over our
    /// connector, rustls): HTTP/1.1, the pool, timeouts, proxy and root certificates of this
    /// builder; its connections opened and closed counted into `connections`.
    fn http_client(
        &self,
        connections: &crate::transport::ConnectionTally,
    ) -> Result<crate::transport::http::HttpClient, Error> {
        let settings = crate::transport::http::HttpSettings {
            connect_timeout: self.connect_timeout,
            read_timeout: self.read_timeout,
            // One spare: see `pool_size`.
            pool_max_idle: self.pool_size.unwrap_or(DEFAULT_POOL_SIZE) + 1,
            pool_idle_timeout: self.pool_idle_timeout,
            proxy: self.proxy.as_ref().map(|p| p.0.clone()),
            root_certificates: self.root_certificates.clone(),
        };
        crate::transport::http::HttpClient::new(settings, connections.clone())
            .map_err(Error::Config)
    }

    /// For a `ws://` or `wss://` URL: the TinkerPop 3 options from this builder's settings
    /// (pool size, connect timeout, User-Agent, limits, interceptors, root certificates;
    /// credentials for SASL).
    fn ws_options(&self) -> crate::transport::ws::Options3 {
        let mut interceptors = self.interceptors.0.clone();
        if self.credentials.is_none() {
            interceptors.extend(self.auth.clone());
        }
        crate::transport::ws::Options3 {
            credentials: self.credentials.clone(),
            limits: self.read_options.limits,
            user_agent: self
                .user_agent
                .clone()
                .unwrap_or_else(|| default_user_agent(&self.application_name)),
            pool_size: self.pool_size.unwrap_or(WS_DEFAULT_POOL_SIZE),
            connect_timeout: self.connect_timeout,
            interceptors,
            custom_types: self.custom_types.clone(),
            serializer: self.serializer,
            root_certificates: self.root_certificates.clone(),
            max_message_size: self.max_message_size,
            request_backlog: self.request_backlog,
            request_backlog_bytes: self.request_backlog_bytes,
            slow_consumer: self.slow_consumer,
            ping_interval: self.ping_interval,
            compression: self.compression,
            ..crate::transport::ws::Options3::default()
        }
    }
}

/// Whether `url` is `ws://` or `wss://` (any case): a TinkerPop 3 server.
fn is_ws_url(url: &str) -> bool {
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    matches!(scheme.as_deref(), Some("ws" | "wss"))
}

fn parse_ws_url(s: &str) -> Result<url::Url, Error> {
    url::Url::parse(s).map_err(|e| Error::Config(format!("invalid URL {:?}: {e}", redact_url(s))))
}

fn parse_url(s: &str) -> Result<url::Url, Error> {
    let url = parse_ws_url(s)?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(Error::Config(format!(
            "URL scheme must be http or https (TinkerPop 4) or ws or wss (TinkerPop 3), not {:?}",
            url.scheme()
        )));
    }
    Ok(url)
}

/// The TinkerPop user agent convention:
/// `<app> Gremlin-Rust.<version> <runtime version> <OS>.<OS version> <arch>`, spaces replaced
/// by `_`, unknown parts `NotAvailable`.
pub(crate) fn default_user_agent(application_name: &str) -> String {
    fn part(s: &str) -> String {
        let s = s.trim();
        if s.is_empty() {
            "NotAvailable".to_owned()
        } else {
            s.replace(' ', "_")
        }
    }
    let rustc = option_env!("GRAPHBINARY_RUSTC_VERSION").unwrap_or("");
    let os = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "Mac_OS_X",
        "windows" => "Windows",
        "freebsd" => "FreeBSD",
        other => other,
    };
    format!(
        "{} Gremlin-Rust.{} {} {}.{} {}",
        part(application_name),
        env!("CARGO_PKG_VERSION"),
        part(rustc),
        part(os),
        part(&os_version()),
        part(std::env::consts::ARCH)
    )
}

/// `major.minor` of the running kernel on Linux, empty elsewhere.
fn os_version() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|r| {
            r.trim()
                .split(['.', '-'])
                .take(2)
                .collect::<Vec<_>>()
                .join(".")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_3x_server_version_needs_a_ws_url() {
        let v = super::super::ServerVersion::new(3, 8, 1);
        let b = ClientBuilder::new("http://h1:8182/gremlin".into()).server_version(v);
        assert!(
            matches!(b.build(), Err(Error::Config(m)) if m.starts_with("server_version 3.8.1 with an http/https URL")),
        );
        let c = ClientBuilder::new("wss://h1:8182/gremlin".into())
            .server_version(v)
            .build()
            .unwrap();
        assert_eq!(c.server_version(), Some(v));
    }

    #[test]
    fn url_credentials_are_one_basic_auth_for_every_host() {
        let c = ClientBuilder::new("http://u:p%40ss@h1:8182/g".into())
            .add_host("http://u:p%40ss@h2:8182/g")
            .add_host("http://h3:8182/g")
            .build()
            .unwrap();
        let names: Vec<&str> = c.inner.interceptors.0.iter().map(|i| i.name()).collect();
        assert_eq!(names, ["basic-auth"]);
        let urls: Vec<String> = c.hosts().into_iter().map(|h| h.url).collect();
        assert_eq!(
            urls,
            ["http://h1:8182/g", "http://h2:8182/g", "http://h3:8182/g"]
        );
        let b = ClientBuilder::new("http://u:p@h1/g".into()).add_host("http://u:q@h2/g");
        assert!(matches!(b.build(), Err(Error::Config(m)) if m.contains("host 1")));
        let b = ClientBuilder::new("ws://u:p@h1/g".into()).auth(BasicAuth::new("u", "p"));
        assert!(matches!(b.build(), Err(Error::Config(m)) if m.contains("give them once")));
    }

    #[test]
    fn ws_hosts_are_several_hosts_and_protocols_do_not_mix() {
        let c = ClientBuilder::new("ws://u:p@h1:8182/gremlin".into())
            .add_host("ws://u:p@h2:8182/gremlin")
            .add_host("wss://h3:8182/gremlin")
            .build()
            .unwrap();
        assert!(c.is_tinkerpop3());
        let urls: Vec<String> = c.hosts().into_iter().map(|h| h.url).collect();
        assert_eq!(
            urls,
            [
                "ws://h1:8182/gremlin",
                "ws://h2:8182/gremlin",
                "wss://h3:8182/gremlin"
            ]
        );
        let b = ClientBuilder::new("ws://h1/g".into()).add_host("http://u:secret@h2/g");
        assert!(
            matches!(b.build(), Err(Error::Config(m)) if m.contains("host 1") && !m.contains("secret"))
        );
        let b = ClientBuilder::new("http://h1/g".into()).add_host("ws://h2/g");
        assert!(matches!(b.build(), Err(Error::Config(m)) if m.contains("one protocol")));
    }

    #[test]
    fn every_websocket_option_is_a_builder_method() {
        use crate::transport::ws::SlowConsumer;
        let b = ClientBuilder::new("ws://h1:8182/gremlin".into());
        let d = b.ws_options();
        assert_eq!(d.max_message_size, super::DEFAULT_MAX_MESSAGE_SIZE);
        assert_eq!(d.slow_consumer, SlowConsumer::Wait);
        assert_eq!(d.ping_interval, Some(Duration::from_secs(60)));
        let o = ClientBuilder::new("ws://h1:8182/gremlin".into())
            .max_message_size(1 << 20)
            .request_backlog(7)
            .request_backlog_bytes(4096)
            .slow_consumer(SlowConsumer::Fail)
            .ping_interval(None)
            .max_depth(9)
            .max_collection_len(99)
            .max_bytes_len(999)
            .max_response_size(12345)
            .ws_options();
        assert_eq!(o.max_message_size, 1 << 20);
        assert_eq!((o.request_backlog, o.request_backlog_bytes), (7, 4096));
        assert_eq!(o.slow_consumer, SlowConsumer::Fail);
        assert_eq!(o.ping_interval, None);
        assert_eq!(o.limits.max_depth, 9);
        assert_eq!(o.limits.max_collection_len, 99);
        assert_eq!(o.limits.max_bytes_len, 999);
        assert_eq!(o.limits.max_response_size, Some(12345));
        assert_eq!(o.effective_max_message_size(), 12345);
        // The decode limits are the HTTP client's too.
        let c = ClientBuilder::new("http://h1:8182/gremlin".into())
            .max_depth(9)
            .max_response_size(None)
            .build()
            .unwrap();
        assert_eq!(c.inner.read_options.limits.max_depth, 9);
        assert_eq!(c.inner.read_options.limits.max_response_size, None);
    }

    #[test]
    fn user_agent_follows_the_convention() {
        let ua = default_user_agent("my app");
        let parts: Vec<&str> = ua.split(' ').collect();
        assert_eq!(parts.len(), 5, "{ua}");
        assert_eq!(parts[0], "my_app");
        assert_eq!(
            parts[1],
            concat!("Gremlin-Rust.", env!("CARGO_PKG_VERSION"))
        );
        assert!(parts[3].contains('.'), "{ua}");
        assert_eq!(parts[4], std::env::consts::ARCH);
    }
}
