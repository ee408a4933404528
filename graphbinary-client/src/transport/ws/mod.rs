//! TinkerPop 3 transport: GraphBinary 1 (or GraphSON 2/3, [`Options3::serializer`]) over WebSocket.
//!
//! [`Client3`] keeps a pool of WebSocket connections to a TinkerPop 3.x Gremlin Server
//! (`ws://host:port/gremlin`; `wss://` through rustls). Each request is one binary message
//! (`{mime length}{application/vnd.graphbinary-v1.0}{0x81}{request id}{op}{processor}{args}`);
//! each response message is one batch of results (status 206 while more follow, then 200, or
//! 204 when there are none; any other status ends the request with an error).
//!
//! # Connections
//!
//! * **Pool**: [`Options3::pool_size`] connections (default 4), opened as needed: the first at
//!   [`Client3::connect_with`], another (in the background) when every open one has requests
//!   in flight. A request goes to an idle connection if there is one, else to the open
//!   connection with the fewest requests in flight; it never waits for a new connection while
//!   one is open.
//! * **Multiplexing**: many requests share a connection; a task per connection writes them and
//!   routes every response message by request id, so they finish in any order.
//! * **Backpressure**: each request has a queue of at most [`Options3::request_backlog_bytes`]
//!   (8 MiB) and [`Options3::request_backlog`] messages (1024), see
//!   [`Results3::buffered_bytes`]; decoding happens in the consumer, not in the connection's
//!   reader. What happens when a consumer falls that far behind is
//!   [`Options3::slow_consumer`]: by default ([`SlowConsumer::Wait`]) the connection stops
//!   reading until the consumer catches up (nothing is lost; TCP pushes back on the server),
//!   and the other requests multiplexed on that connection wait with it: a consumer that
//!   stops reading for good holds up its connection's other requests (new ones go to the
//!   connections with fewer requests in flight). [`SlowConsumer::Fail`] ends that request alone
//!   with [`Error3::SlowConsumer`] instead and reads on, so one stalled consumer never holds
//!   back the others' messages. TinkerPop 3 has no per-request flow control, so these are the
//!   only two bounded choices. `Wait` is the default because a server on a fast link outruns
//!   a consumer that merely collects: the 20 MB, 3137-message answer of a 200k-result query,
//!   served at loopback speed (`cargo xtask bench`'s replay), overflowed the 8 MiB under `Fail`
//!   while `all()` was collecting it. The budget is in bytes because a fast server outruns any
//!   consumer by many small messages (a 16-message queue overflowed against a local 3.7.3 with
//!   a consumer doing nothing but count).
//! * **Keep-alive**: with [`Options3::ping_interval`] (default 60 s) a connection idle that long
//!   sends a WebSocket ping; no frame within the next interval closes it.
//! * **Reconnection**: when a connection drops (the server closed it, a ping went unanswered,
//!   a read failed), its requests in flight end with [`Error3::Closed`] naming the reason, and
//!   the pool replaces it at the next request. A request already sent is never retried by
//!   `Client3`; through [`Client`](crate::Client) a request marked
//!   [idempotent](crate::client::RequestBuilder::idempotent) is, after a connection failure
//!   before its first result or a 596 (see [`RetryPolicy`](crate::client::RetryPolicy)).
//! * **Timeouts** (through [`Client`](crate::Client)): `request_timeout` bounds a request
//!   from sending it to its last message, `read_timeout` each wait for its next message; a
//!   request that times out closes its connection when no other request is in flight on it
//!   (the protocol cannot cancel a request, and a stalled connection would stay stalled).
//! * **Closing**: [`Client3::close`] gives the requests in flight a grace, then ends them
//!   with [`Error3::ClientClosed`] and closes every connection.
//! * **Limits**: [`Options3::limits`] bound each decoded value; `Limits::max_response_size`
//!   also bounds the bytes of all messages of one request ([`Error3::Limit`]), and (when
//!   smaller than [`Options3::max_message_size`]) each message.
//! * **SASL PLAIN**: on 407 the connection answers with [`Options3::credentials`] (`\0user\0password`,
//!   base64) under the same request id; a connection authenticates once. A `user:password@`
//!   in the URL given to [`Client3::connect_with`] (percent-encoded) is taken out of the URL
//!   and used as those credentials; giving both is an [`Error3::Config`]. The password is a
//!   [`Secret`]: no `Debug`, `Display` or error shows it.
//! * **Upgrade hook**: [`Options3::interceptors`] see the upgrade `GET` as an
//!   [`HttpRequest`](crate::client::HttpRequest) (scheme `http`/`https`, every header sent,
//!   empty body) and may change its headers: the `SigV4` signer (feature `sigv4`) signs it for
//!   Amazon Neptune IAM authentication.
//! * **Sessions**: [`Client3::session`] opens a [`Session3`] (the `session` op processor) on a
//!   connection of its own.
//!
//! Results are decoded by the GraphBinary 1 reader ([`crate::format::graphbinary1`]) from each message's bytes, or
//! by the GraphSON reader when [`Options3::serializer`] names GraphSON.
//!
//! ```no_run
//! use futures::TryStreamExt;
//! use graphbinary_client::ws::{Client3, Options3};
//!
//! # async fn demo() -> Result<(), graphbinary_client::ws::Error3> {
//! let client = Client3::connect_with(
//!     "ws://127.0.0.1:8182/gremlin",
//!     Options3 { pool_size: 2, ..Options3::default() },
//! )
//! .await?;
//! let names: Vec<_> = client.submit("g.V().values('name')").await?.try_collect().await?;
//! # drop(names); Ok(()) }
//! ```

// Not part of the API: the client layer uses this module, and its `pub` items are reachable
// only through the hidden `test-util` path `graphbinary_client::ws` (the repository's tests,
// benchmarks and xtask); without `test-util` they are crate-private in effect.
#![cfg_attr(not(feature = "test-util"), allow(unreachable_pub))]

mod close;
mod conn;
mod deflate;
mod session;

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "test-util")]
use futures::{stream::BoxStream, StreamExt};
use graphbinary_core::{DecodeError, EncodeError, Limits};

use crate::format::graphbinary1::CustomTypes;
use crate::format::java::base64;
use crate::transport::{redact_url, BoxError, Interceptor, Secret};
use crate::value::Value;

// The 3.x messages, for the hidden `test-util` path `graphbinary_client::ws` only (raw
// frames in tests and benchmarks).
#[cfg(feature = "test-util")]
pub use crate::protocol::ws3::graphson::decode_response as decode_graphson_response;
pub use crate::protocol::ws3::RequestMessage;
#[cfg(feature = "test-util")]
pub use crate::protocol::ws3::{
    decode_response, decode_response_with, new_request_id, ResponseMessage, MIME_TYPE,
};
pub(crate) use crate::transport::parse_root_certificates;
use conn::Conn;
pub use conn::Results3;
pub use session::Session3;

/// The default of [`Options3::max_message_size`]: 10 MiB, the Java driver's.
pub const MAX_MESSAGE_SIZE: usize = 10 << 20;

/// The default of [`Options3::request_backlog`] (messages).
pub const REQUEST_BACKLOG: usize = 1024;

/// The default of [`Options3::request_backlog_bytes`]: 8 MiB.
pub const REQUEST_BACKLOG_BYTES: usize = 8 << 20;

/// What went wrong talking to a TinkerPop 3 server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error3 {
    /// The WebSocket handshake or connection failed; the WebSocket library's error is the
    /// source.
    #[error("WebSocket handshake or connection failed")]
    WebSocket(#[source] BoxError),
    /// A response message is not valid GraphBinary 1 (or GraphSON, as the serializer says).
    #[error("invalid response message")]
    Decode(#[from] DecodeError),
    /// A request could not be written.
    #[error("the request could not be written")]
    Encode(#[from] EncodeError),
    /// The server answered with an error status.
    #[error("server error {code}: {message}")]
    Server {
        /// The status code, e.g. 597 (script evaluation error), 401 (wrong credentials).
        code: i32,
        /// The status message.
        message: String,
        /// The status attributes (`exceptions`, `stackTrace`, ...).
        attributes: Vec<(Value, Value)>,
    },
    /// The server asked for authentication (407) and the client has no credentials.
    #[error("the server requires authentication (407) and no credentials were given")]
    AuthenticationRequired,
    /// The connection closed before the request ended (the request is not retried).
    #[error("connection closed before the response ended{0}")]
    Closed(String),
    /// The client was closed ([`Client3::close`]): the request was not sent, or it was still
    /// in flight when the close's grace ended.
    #[error("the client is closed")]
    ClientClosed,
    /// The consumer of this request fell more than `backlog` messages or `backlog_bytes`
    /// behind under [`SlowConsumer::Fail`]; the request was dropped, the connection goes on.
    #[error(
        "the consumer fell more than {backlog} response messages or {backlog_bytes} bytes behind (SlowConsumer::Fail)"
    )]
    SlowConsumer {
        /// [`Options3::request_backlog`].
        backlog: usize,
        /// [`Options3::request_backlog_bytes`].
        backlog_bytes: usize,
    },
    /// A response went over a limit of the client's own ([`Options3::max_message_size`], or
    /// one of [`Options3::limits`]).
    #[error("{} {seen} {} over the client's limit of {max} (raise it with {} or {})", .limit.what(), .limit.unit(), .limit.builder_method(), .limit.cli_flag())]
    Limit {
        /// Which limit.
        limit: crate::transport::Limit,
        /// The size seen (for a nesting depth, one level over the limit).
        seen: u64,
        /// The limit.
        max: u64,
    },
    /// Connecting took longer than [`Options3::connect_timeout`].
    #[error("timeout: {0}")]
    Timeout(String),
    /// An upgrade-request interceptor failed; nothing was sent.
    #[error("request interceptor {name:?} failed")]
    Interceptor {
        /// The interceptor's name.
        name: String,
        /// Its error.
        #[source]
        source: BoxError,
    },
    /// The URL or an option is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The session was closed.
    #[error("the session is closed")]
    SessionClosed,
}

impl From<tokio_tungstenite::tungstenite::Error> for Error3 {
    /// The WebSocket library's error, boxed as the source of [`Error3::WebSocket`] (its type
    /// is not part of this crate's API).
    fn from(e: tokio_tungstenite::tungstenite::Error) -> Self {
        Error3::WebSocket(Box::new(e))
    }
}

/// What a `ws://` connection does when a request's consumer is
/// [`ClientBuilder::request_backlog`](crate::ClientBuilder::request_backlog) messages (or
/// [`request_backlog_bytes`](crate::ClientBuilder::request_backlog_bytes)) behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SlowConsumer {
    /// End that request with an error (after the messages it has queued); the connection's
    /// other requests go on unaffected.
    Fail,
    /// Stop reading the connection until the consumer catches up: nothing is lost, but the
    /// other requests of that connection wait too (the default).
    #[default]
    Wait,
}

/// Connection options of the WebSocket transport. Users set every one of them through
/// [`ClientBuilder`](crate::client::ClientBuilder) (a `ws://` URL); this struct is the
/// transport's own. Construct with `Options3 { field: ..., ..Options3::default() }`.
#[derive(Debug, Clone)]
pub struct Options3 {
    /// SASL PLAIN credentials (user, password), sent when the server answers 407; `Debug`
    /// shows the password as `REDACTED`. Build them as `Some(("stephen".into(), "password".into()))`.
    pub credentials: Option<(String, Secret)>,
    /// Limits for decoding responses (see the module docs for `max_response_size`).
    pub limits: Limits,
    /// The largest response message accepted (the Java driver's default: 10 MiB).
    pub max_message_size: usize,
    /// The `User-Agent` of the upgrade request.
    pub user_agent: String,
    /// Readers of GraphBinary 1 custom types (type code 0x00) by name, e.g.
    /// JanusGraph's ([`CustomTypes::janusgraph`]) by default; any other custom value fails its
    /// request naming the type.
    pub custom_types: CustomTypes,
    /// The serialization of requests and responses: GraphBinary 1 by default, or GraphSON 2
    /// or 3, typed or untyped ([`Serializer`](crate::Serializer)); `custom_types` apply to GraphBinary 1
    /// only.
    pub serializer: crate::protocol::ws3::graphson::Serializer,
    /// Connections in the pool (at least 1; default 4).
    pub pool_size: usize,
    /// Response messages one request may have queued (default [`REQUEST_BACKLOG`]).
    pub request_backlog: usize,
    /// Bytes of response messages one request may have queued (default
    /// [`REQUEST_BACKLOG_BYTES`]); a message is always queued when nothing else is, so one
    /// message larger than this still gets through.
    pub request_backlog_bytes: usize,
    /// What a connection does when a request's queue is full.
    pub slow_consumer: SlowConsumer,
    /// Idle time after which a connection sends a ping, and the time it then waits for any
    /// frame before closing; `None` for no pings (default 60 s).
    pub ping_interval: Option<Duration>,
    /// Limit on TCP connect plus the WebSocket handshake (default 10 s).
    pub connect_timeout: Option<Duration>,
    /// Hooks run over the upgrade request, in order (e.g. `SigV4` for Neptune).
    pub interceptors: Vec<Arc<dyn Interceptor>>,
    /// PEM-encoded root certificates (each entry one PEM text, which may hold several
    /// certificates) trusted for `wss://` in addition to the platform's trust store, as
    /// [`ClientBuilder::add_root_certificate_pem`](crate::client::ClientBuilder::add_root_certificate_pem)
    /// adds them for HTTP (the builder passes its roots here for a `wss://` URL). Both transports
    /// verify with the same verifier (`rustls-platform-verifier`). Empty by default.
    pub root_certificates: Vec<Vec<u8>>,
    /// Offers permessage-deflate (RFC 7692) in the upgrade request: a server that agrees
    /// sends its messages compressed, and they are inflated as they arrive (the client
    /// compresses nothing it sends). Default on, as
    /// [`ClientBuilder::compression`](crate::client::ClientBuilder::compression) says why.
    pub compression: bool,
    /// Where the pool counts the connections it opens and closes (per host); a fresh tally by
    /// default. [`Client3::connections`] reads it; the
    /// [`Client`](crate::client::Client) passes its own, which
    /// [`Client::stats`](crate::client::Client::stats) reads.
    pub connections: crate::transport::ConnectionTally,
}

impl Default for Options3 {
    fn default() -> Self {
        Options3 {
            credentials: None,
            limits: Limits::default(),
            max_message_size: MAX_MESSAGE_SIZE,
            user_agent: format!("graphbinary-rs/{}", env!("CARGO_PKG_VERSION")),
            custom_types: CustomTypes::janusgraph(),
            serializer: crate::protocol::ws3::graphson::Serializer::GraphBinary1,
            pool_size: 4,
            request_backlog: REQUEST_BACKLOG,
            request_backlog_bytes: REQUEST_BACKLOG_BYTES,
            slow_consumer: SlowConsumer::default(),
            ping_interval: Some(Duration::from_secs(60)),
            connect_timeout: Some(Duration::from_secs(10)),
            interceptors: Vec::new(),
            root_certificates: Vec::new(),
            compression: true,
            connections: Default::default(),
        }
    }
}

impl Options3 {
    /// The message size limit: the smaller of `max_message_size` and
    /// `limits.max_response_size`.
    pub fn effective_max_message_size(&self) -> usize {
        match self.limits.max_response_size {
            Some(n) => self
                .max_message_size
                .min(usize::try_from(n).unwrap_or(usize::MAX)),
            None => self.max_message_size,
        }
    }
}

/// An `eval` request: a Gremlin script with its arguments.
#[derive(Debug, Clone, Default)]
pub struct Eval {
    /// The script.
    pub gremlin: String,
    /// `bindings`: script variables.
    pub bindings: Vec<(String, Value)>,
    /// `aliases`: e.g. `g` to the name of a traversal source.
    pub aliases: Vec<(String, String)>,
    /// `batchSize`: results per response message (server default 64).
    pub batch_size: Option<i32>,
    /// `evaluationTimeout` in ms.
    pub evaluation_timeout: Option<i64>,
    /// `language` (default `gremlin-groovy`).
    pub language: Option<String>,
    /// `materializeProperties` (`"all"` or `"tokens"`, 3.7.3+).
    pub materialize_properties: Option<String>,
}

impl Eval {
    /// A script with no other arguments.
    pub fn new(gremlin: impl Into<String>) -> Self {
        Eval {
            gremlin: gremlin.into(),
            ..Eval::default()
        }
    }

    /// Adds a binding (for tests and tools: `Client` fills the fields itself).
    #[cfg(any(test, feature = "test-util"))]
    pub fn binding(mut self, name: impl Into<String>, value: Value) -> Self {
        self.bindings.push((name.into(), value));
        self
    }

    /// Sets `batchSize` (for tests and tools, as [`Eval::binding`]).
    #[cfg(any(test, feature = "test-util"))]
    pub fn batch_size(mut self, n: i32) -> Self {
        self.batch_size = Some(n);
        self
    }

    /// The request message.
    pub fn to_request(&self) -> RequestMessage {
        let mut req = RequestMessage::eval(&self.gremlin);
        let language = self.language.as_deref().unwrap_or("gremlin-groovy");
        req.args
            .push(("language".into(), Value::String(language.into())));
        if !self.bindings.is_empty() {
            let map = self
                .bindings
                .iter()
                .map(|(k, v)| (Value::String(k.clone()), v.clone()))
                .collect();
            req.args.push(("bindings".into(), Value::Map(map)));
        }
        if !self.aliases.is_empty() {
            let map = self
                .aliases
                .iter()
                .map(|(k, v)| (Value::String(k.clone()), Value::String(v.clone())))
                .collect();
            req.args.push(("aliases".into(), Value::Map(map)));
        }
        if let Some(n) = self.batch_size {
            req.args.push(("batchSize".into(), Value::Int(n)));
        }
        if let Some(ms) = self.evaluation_timeout {
            req.args.push(("evaluationTimeout".into(), Value::Long(ms)));
        }
        if let Some(m) = &self.materialize_properties {
            req.args
                .push(("materializeProperties".into(), Value::String(m.clone())));
        }
        req
    }
}

/// One result and its bulk (1 unless the server sent a Traverser).
pub type Result3 = Result<(Value, i64), Error3>;

/// A client of one TinkerPop 3 Gremlin Server over a pool of WebSocket connections (see the
/// module docs). Cheap to clone: clones share the pool.
#[derive(Debug, Clone)]
pub struct Client3 {
    inner: Arc<Pool>,
}

#[derive(Debug)]
struct Pool {
    url: String,
    options: Arc<Options3>,
    /// The TLS configuration of a `wss://` pool, shared by its connections.
    tls: Option<Arc<rustls::ClientConfig>>,
    slots: Vec<tokio::sync::Mutex<Option<Arc<Conn>>>>,
    /// When a background connect last failed.
    last_failure: std::sync::Mutex<Option<std::time::Instant>>,
    /// Set by [`Client3::close`].
    closed: std::sync::atomic::AtomicBool,
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Client3 {
    /// Connects to `url` (`ws://127.0.0.1:8182/gremlin`) with default options.
    #[cfg(feature = "test-util")]
    pub async fn connect(url: &str) -> Result<Self, Error3> {
        Self::connect_with(url, Options3::default()).await
    }

    /// Connects to `url` with `options`: opens the pool's first connection (so that a wrong
    /// URL or a server that is not there fails here), the others as needed. A
    /// `user:password@` in `url` becomes [`Options3::credentials`] (an [`Error3::Config`] if
    /// those are set too) and is removed from the URL used and from [`Client3::url`].
    pub async fn connect_with(url: &str, options: Options3) -> Result<Self, Error3> {
        let (url, options) = url_credentials(url, options)?;
        let url = url.as_str();
        let options = Arc::new(options);
        let wss = url
            .get(..6)
            .is_some_and(|s| s.eq_ignore_ascii_case("wss://"));
        let tls = if wss {
            Some(conn::tls_config(&options)?)
        } else {
            None
        };
        let first = Conn::open(url, options.clone(), tls.clone()).await?;
        let mut slots: Vec<_> = (0..options.pool_size.max(1))
            .map(|_| tokio::sync::Mutex::new(None))
            .collect();
        *slots[0].get_mut() = Some(first);
        Ok(Client3 {
            inner: Arc::new(Pool {
                url: url.to_owned(),
                options,
                tls,
                slots,
                last_failure: std::sync::Mutex::new(None),
                closed: std::sync::atomic::AtomicBool::new(false),
            }),
        })
    }

    /// The server URL.
    #[cfg(feature = "test-util")]
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The options the client was built with.
    #[cfg(feature = "test-util")]
    pub fn options(&self) -> &Options3 {
        &self.inner.options
    }

    /// The connections this pool opened and closed, per host (`ws://host:port`): see
    /// [`ConnectionTally`](crate::transport::ConnectionTally).
    #[cfg(feature = "test-util")]
    pub fn connections(
        &self,
    ) -> std::collections::BTreeMap<String, crate::transport::ConnectionCounts> {
        self.inner.options.connections.snapshot()
    }

    /// Evaluates a script; see [`Client3::eval`].
    #[cfg(feature = "test-util")]
    pub async fn submit(&self, gremlin: &str) -> Result<BoxStream<'static, Result3>, Error3> {
        self.eval(Eval::new(gremlin)).await
    }

    /// Sends an `eval` request and returns its results as they arrive, batch after batch.
    /// The stream ends after the 200/204 message; an error status is its last item.
    #[cfg(feature = "test-util")]
    pub async fn eval(&self, eval: Eval) -> Result<BoxStream<'static, Result3>, Error3> {
        self.send(eval.to_request()).await
    }

    /// Sends any request message and streams the results of its responses.
    #[cfg(feature = "test-util")]
    pub async fn send(
        &self,
        request: RequestMessage,
    ) -> Result<BoxStream<'static, Result3>, Error3> {
        Ok(self.send_message(&request).await?.boxed())
    }

    /// Sends any request message on a connection of the pool; its results as a [`Results3`].
    pub async fn send_message(&self, request: &RequestMessage) -> Result<Results3, Error3> {
        self.connection().await?.send(request)
    }

    /// An open connection: the one with the fewest requests in flight if it has none, else a
    /// new one in a free slot (replacing a closed one), else the least busy.
    async fn connection(&self) -> Result<Arc<Conn>, Error3> {
        let pool = &*self.inner;
        if pool.closed.load(std::sync::atomic::Ordering::Acquire) {
            return Err(Error3::ClientClosed);
        }
        let mut best: Option<(usize, Arc<Conn>)> = None;
        let mut free = None;
        for (i, slot) in pool.slots.iter().enumerate() {
            let Ok(guard) = slot.try_lock() else { continue };
            match &*guard {
                Some(c) if c.is_alive() => {
                    let n = c.in_flight();
                    if best.as_ref().is_none_or(|(m, _)| n < *m) {
                        best = Some((n, c.clone()));
                    }
                }
                _ => {
                    free.get_or_insert(i);
                }
            }
        }
        if let Some((0, c)) = &best {
            return Ok(c.clone());
        }
        if let Some(i) = free {
            if let Some((_, c)) = best {
                // Grow in the background; this request does not wait for a new connection.
                self.grow(i);
                return Ok(c);
            }
            let mut guard = pool.slots[i].lock().await;
            if let Some(c) = &*guard {
                if c.is_alive() {
                    return Ok(c.clone());
                }
            }
            let c = Conn::open(&pool.url, pool.options.clone(), pool.tls.clone()).await?;
            *guard = Some(c.clone());
            return Ok(c);
        }
        if let Some((_, c)) = best {
            return Ok(c);
        }
        // Every slot is being connected by other requests: wait for the first.
        let mut guard = pool.slots[0].lock().await;
        match &*guard {
            Some(c) if c.is_alive() => Ok(c.clone()),
            _ => {
                let c = Conn::open(&pool.url, pool.options.clone(), pool.tls.clone()).await?;
                *guard = Some(c.clone());
                Ok(c)
            }
        }
    }

    /// Opens a connection in slot `i` in the background, unless one failed within the last
    /// second (so a server that refuses is not asked again at every request).
    fn grow(&self, i: usize) {
        {
            let mut failed = lock(&self.inner.last_failure);
            if failed.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
                return;
            }
            *failed = None;
        }
        let pool = self.inner.clone();
        tokio::spawn(async move {
            let mut guard = pool.slots[i].lock().await;
            if guard.as_ref().is_some_and(|c| c.is_alive()) {
                return;
            }
            match Conn::open(&pool.url, pool.options.clone(), pool.tls.clone()).await {
                Ok(c) => *guard = Some(c),
                Err(_) => *lock(&pool.last_failure) = Some(std::time::Instant::now()),
            }
        });
    }

    /// Opens a session (the `session` op processor) on a connection of its own; see
    /// [`Session3`].
    pub async fn session(&self) -> Result<Session3, Error3> {
        self.open_session(false).await
    }

    /// Like [`Client3::session`], with `manageTransaction`: the server commits after each
    /// successful request of the session (and rolls back after a failed one).
    #[cfg(feature = "test-util")]
    pub async fn managed_session(&self) -> Result<Session3, Error3> {
        self.open_session(true).await
    }

    /// A session on a connection of its own, `manageTransaction` or not.
    async fn open_session(&self, managed: bool) -> Result<Session3, Error3> {
        let conn = Conn::open(
            &self.inner.url,
            self.inner.options.clone(),
            self.inner.tls.clone(),
        )
        .await?;
        Ok(Session3::new(
            conn,
            crate::protocol::ws3::new_request_id(),
            managed,
        ))
    }

    /// Whether at least one connection of the pool is open (a closed one is replaced at the
    /// next request).
    #[cfg(feature = "test-util")]
    pub fn is_open(&self) -> bool {
        self.inner.slots.iter().any(|s| {
            s.try_lock()
                .map(|g| g.as_ref().is_some_and(|c| c.is_alive()))
                .unwrap_or(true)
        })
    }

    /// Closes the pool: new requests fail with [`Error3::Closed`]; the requests in flight get
    /// up to `grace` to end, then those still going end with [`Error3::Closed`]; every
    /// connection sends a close frame and closes its socket. Returns the number of requests
    /// still in flight when the grace ended.
    ///
    /// # Cancel safety
    /// Dropping the future leaves the pool closed to new requests and its connections open
    /// until their requests end and the last clone is dropped.
    pub async fn close(&self, grace: Duration) -> usize {
        let pool = &*self.inner;
        pool.closed
            .store(true, std::sync::atomic::Ordering::Release);
        let conns = || -> Vec<Arc<Conn>> {
            pool.slots
                .iter()
                .filter_map(|s| s.try_lock().ok().and_then(|g| g.clone()))
                .collect()
        };
        let end = tokio::time::Instant::now() + grace;
        let mut left;
        loop {
            left = conns().iter().map(|c| c.in_flight()).sum::<usize>();
            if left == 0 || tokio::time::Instant::now() >= end {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        for slot in &pool.slots {
            if let Some(c) = slot.lock().await.take() {
                c.shut_down(close::CloseReason::ClientClosed);
            }
        }
        if left == 0 {
            // Each connection's task sends its close frame and ends: counted closed (with
            // its event) by the time this returns.
            pool.options
                .connections
                .settle(Some(&pool.url), crate::transport::CLOSE_SETTLE)
                .await;
        }
        left
    }

    /// Open connections of the pool.
    #[cfg(feature = "test-util")]
    pub fn open_connections(&self) -> usize {
        self.inner
            .slots
            .iter()
            .filter(|s| {
                s.try_lock()
                    .map(|g| g.as_ref().is_some_and(|c| c.is_alive()))
                    .unwrap_or(false)
            })
            .count()
    }
}

/// `url` without its userinfo, and `options` with the userinfo's credentials (refused when
/// `options` has credentials too). A URL without an `@` is not parsed here (tungstenite
/// parses it when connecting).
fn url_credentials(url: &str, mut options: Options3) -> Result<(String, Options3), Error3> {
    if !url.contains('@') {
        return Ok((url.to_owned(), options));
    }
    let mut parsed = crate::transport::Url::parse(url)
        .map_err(|e| Error3::Config(format!("invalid URL {:?}: {e}", redact_url(url))))?;
    match crate::transport::secret::take_userinfo(&mut parsed).map_err(Error3::Config)? {
        None => Ok((url.to_owned(), options)),
        Some(_) if options.credentials.is_some() => Err(Error3::Config(
            "credentials are given both in the URL's userinfo and in Options3::credentials; \
             give them once"
                .into(),
        )),
        Some(c) => {
            options.credentials = Some(c);
            Ok((parsed.into(), options))
        }
    }
}

/// The `authentication` request answering a 407 with SASL PLAIN.
fn sasl_plain(request_id: uuid::Uuid, user: &str, password: &str) -> RequestMessage {
    let mut token = vec![0u8];
    token.extend_from_slice(user.as_bytes());
    token.push(0);
    token.extend_from_slice(password.as_bytes());
    RequestMessage {
        request_id,
        op: "authentication".into(),
        processor: String::new(),
        args: vec![
            ("saslMechanism".into(), Value::String("PLAIN".into())),
            ("sasl".into(), Value::String(base64(&token))),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_examples() {
        for (input, expected) in crate::format::java::RFC4648_VECTORS {
            assert_eq!(base64(input.as_bytes()), expected);
        }
        assert_eq!(base64(b"\0stephen\0password"), "AHN0ZXBoZW4AcGFzc3dvcmQ=");
    }

    #[test]
    fn an_eval_request_is_framed_as_the_protocol_says() {
        let mut eval = Eval::new("g.V()").batch_size(8);
        eval.aliases.push(("g".into(), "g".into()));
        let mut req = eval.to_request();
        req.request_id = uuid::Uuid::from_bytes([7; 16]);
        let bytes = req.encode_ws().unwrap();
        assert_eq!(bytes[0], 32);
        assert_eq!(&bytes[1..33], b"application/vnd.graphbinary-v1.0");
        assert_eq!(bytes[33], 0x81);
        assert_eq!(&bytes[34..50], &[7; 16]);
        assert_eq!(&bytes[50..58], b"\0\0\0\x04eval");
        assert_eq!(&bytes[58..62], b"\0\0\0\0"); // processor ""
        assert_eq!(&bytes[62..66], &4i32.to_be_bytes()); // gremlin, language, aliases, batchSize
        assert!(bytes.ends_with(&[0x01, 0x00, 0, 0, 0, 8]), "{bytes:02x?}");
    }
}
