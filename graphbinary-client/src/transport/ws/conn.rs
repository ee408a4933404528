//! One WebSocket connection: a task that owns the socket, writes the requests handed to it,
//! routes each response message by request id to that request's bounded queue, answers SASL
//! challenges, and sends keep-alive pings.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use bytes::Bytes;
use futures::{SinkExt, Stream, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

use super::close::CloseReason;
use super::deflate::{self, Inflate};
use super::{sasl_plain, Error3, Options3, Result3, SlowConsumer};
use crate::protocol::ws3::{
    decode_response_interned, decode_response_with, RequestMessage, ResponseMessage,
};
use crate::transport::{redact_url, HeaderMap, HttpRequest, Method, Url};
use crate::value::Value;

type Ws = WebSocketStream<Inflate<MaybeTlsStream<TcpStream>>>;

/// Bytes tungstenite reads at most per call. It zeroes that much of its buffer before every
/// read, the one that finds nothing too (its default, 128 KiB, was 80% of the instructions
/// of a `g.V()` request under callgrind: 256 KiB zeroed for a 685-byte answer); 32 KiB still
/// takes a 64-result batch of vertices (about 7 KB) in one read.
const READ_BUFFER_SIZE: usize = 32 * 1024;

/// What a request's connection task and its results stream share: one allocation per request
/// (it was a channel, its block of slots and three `Arc`s).
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Notified when the stream takes a message (room in the budget, for
    /// [`SlowConsumer::Wait`]).
    taken: tokio::sync::Notify,
}

/// The whole response messages of one request, routed and not yet taken by its stream.
#[derive(Default)]
struct Queue {
    messages: VecDeque<Bytes>,
    /// The bytes each of `messages` took on the wire (less than its length when it crossed
    /// compressed).
    wire: VecDeque<u64>,
    /// Bytes of `messages`.
    bytes: usize,
    /// Nothing more will be queued: the last message was, or the request failed (`end` then
    /// says why, reported after the queued messages).
    ended: bool,
    end: Option<Error3>,
    /// The stream was dropped: what comes is discarded.
    dropped: bool,
    waker: Option<Waker>,
    /// The connection's reader waits for room ([`SlowConsumer::Wait`]): the stream wakes it
    /// once the queue is down to half the backlog, not at each message it takes, so that a
    /// reader and a slower consumer do not trade a wake-up per message.
    reader_waits: bool,
}

impl Queue {
    /// Queues a message (or ends the request) and returns the stream's waker to wake once
    /// the lock is released.
    fn push(&mut self, bytes: Bytes, wire: u64, last: bool) -> Option<Waker> {
        self.bytes += bytes.len();
        self.messages.push_back(bytes);
        self.wire.push_back(wire);
        self.ended |= last;
        self.waker.take()
    }

    fn end(&mut self, error: Error3) -> Option<Waker> {
        if !self.ended {
            self.ended = true;
            self.end = Some(error);
        }
        self.waker.take()
    }
}

/// A request in flight on a connection.
struct Entry {
    shared: Arc<Shared>,
    /// Bytes of every message of this request so far (for `Limits::max_response_size`).
    total: u64,
}

type Pending = Arc<Mutex<HashMap<Uuid, Entry>>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A handle on one connection; dropping the last one stops its task and closes the socket.
#[derive(Debug)]
pub(crate) struct Conn {
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    alive: Arc<AtomicBool>,
    task: tokio::task::AbortHandle,
    options: Arc<Options3>,
    /// Notified by [`Conn::shut_down`]: the task fails the requests in flight and closes.
    stop: Arc<Stop>,
}

/// [`Conn::shut_down`]'s signal to the connection's task, with the reason.
#[derive(Debug, Default)]
struct Stop {
    notify: tokio::sync::Notify,
    requested: AtomicBool,
    why: Mutex<Option<CloseReason>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = lock(&self.queue);
        f.debug_struct("Shared")
            .field("messages", &q.messages.len())
            .field("bytes", &q.bytes)
            .field("ended", &q.ended)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("total", &self.total).finish()
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // A connection told to shut down ends itself (failing its requests, sending a close
        // frame, within a second): aborting it here would cut that short.
        if !self.stop.requested.load(Ordering::Acquire) {
            self.task.abort();
        }
    }
}

/// The upgrade request after the interceptors ran over its HTTP view.
async fn upgrade_request(
    url: &str,
    options: &Options3,
) -> Result<tokio_tungstenite::tungstenite::handshake::client::Request, Error3> {
    let mut request = url.into_client_request()?;
    if let Ok(ua) = options.user_agent.parse() {
        request.headers_mut().insert("User-Agent", ua);
    }
    if options.compression {
        request.headers_mut().insert(
            "Sec-WebSocket-Extensions",
            http::HeaderValue::from_static(deflate::OFFER),
        );
    }
    if options.interceptors.is_empty() {
        return Ok(request);
    }
    // Interceptors see the upgrade as the HTTP GET it is: `http(s)://` (the scheme a signer
    // such as SigV4 signs), every header tungstenite will send, an empty body.
    let mut http_url =
        Url::parse(url).map_err(|e| Error3::Config(format!("{:?}: {e}", redact_url(url))))?;
    let scheme = if http_url.scheme() == "wss" {
        "https"
    } else {
        "http"
    };
    http_url.set_scheme(scheme).map_err(|()| {
        Error3::Config(format!("{:?}: cannot be seen as {scheme}", redact_url(url)))
    })?;
    let headers: HeaderMap = request.headers().clone();
    let mut http = HttpRequest::new(Method::GET, http_url, headers, Bytes::new());
    for i in &options.interceptors {
        i.intercept(&mut http)
            .await
            .map_err(|source| Error3::Interceptor {
                name: i.name().to_owned(),
                source,
            })?;
    }
    *request.headers_mut() = http.headers;
    Ok(request)
}

/// The rustls configuration of a `wss://` pool: [`crate::transport::tls_client_config`] (the
/// platform's trust store plus [`Options3::root_certificates`], the verifier the HTTP client
/// uses), so that both transports trust the same servers. Built once per pool (the verifier
/// loads the platform's roots once, and connections share TLS sessions).
pub(crate) fn tls_config(options: &Options3) -> Result<Arc<rustls::ClientConfig>, Error3> {
    crate::transport::tls_client_config(&options.root_certificates).map_err(Error3::Config)
}

/// Connects TCP with `TCP_NODELAY` (requests are small messages that must not wait for
/// Nagle's algorithm, as the HTTP client's connections), then TLS with `tls` for `wss://`,
/// then the WebSocket handshake; compressed messages are inflated when the request offered
/// permessage-deflate ([`deflate::OFFER`]) and the server agreed.
pub(crate) async fn connect_ws(
    request: tokio_tungstenite::tungstenite::handshake::client::Request,
    config: WebSocketConfig,
    tls: Option<Arc<rustls::ClientConfig>>,
) -> Result<Ws, Error3> {
    use tokio_tungstenite::tungstenite::error::UrlError;
    use tokio_tungstenite::tungstenite::Error as W;
    let uri = request.uri();
    let wss = match uri.scheme_str() {
        Some(s) if s.eq_ignore_ascii_case("wss") => true,
        Some(s) if s.eq_ignore_ascii_case("ws") => false,
        _ => return Err(W::Url(UrlError::UnsupportedUrlScheme).into()),
    };
    let host = uri
        .host()
        .ok_or(W::Url(UrlError::NoHostName))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = uri.port_u16().unwrap_or(if wss { 443 } else { 80 });
    let socket = TcpStream::connect((host.as_str(), port))
        .await
        .map_err(W::Io)?;
    socket.set_nodelay(true).map_err(W::Io)?;
    let stream = if wss {
        let tls = match tls {
            Some(tls) => tls,
            None => tls_config(&Options3::default())?,
        };
        let name = rustls::pki_types::ServerName::try_from(host)
            .map_err(|_| W::Tls(tokio_tungstenite::tungstenite::error::TlsError::InvalidDnsName))?;
        let tls = tokio_rustls::TlsConnector::from(tls)
            .connect(name, socket)
            .await
            .map_err(W::Io)?;
        MaybeTlsStream::Rustls(tls)
    } else {
        MaybeTlsStream::Plain(socket)
    };
    let offered = request.headers().contains_key("Sec-WebSocket-Extensions");
    let (mut ws, response) =
        tokio_tungstenite::client_async_with_config(request, Inflate::new(stream), Some(config))
            .await?;
    let answer = response
        .headers()
        .get_all("Sec-WebSocket-Extensions")
        .iter()
        .map(|v| v.to_str().unwrap_or("?"));
    match deflate::agreed(answer, offered) {
        Ok(Some(agreed)) => {
            tracing::debug!(target: "graphbinary_client", ?agreed, "permessage-deflate agreed");
            ws.get_mut().enable(agreed);
        }
        Ok(None) => {}
        // RFC 6455 section 4.1: the client fails the connection.
        Err(e) => return Err(Error3::WebSocket(e.into())),
    }
    Ok(ws)
}

impl Conn {
    /// Opens a connection to `url` and starts its task; `tls` is the pool's [`tls_config`] for
    /// a `wss://` URL.
    pub(crate) async fn open(
        url: &str,
        options: Arc<Options3>,
        tls: Option<Arc<rustls::ClientConfig>>,
    ) -> Result<Arc<Conn>, Error3> {
        let request = upgrade_request(url, &options).await?;
        let max = options.effective_max_message_size();
        let mut config = WebSocketConfig::default();
        config.max_message_size = Some(max);
        config.max_frame_size = Some(max);
        config.read_buffer_size = READ_BUFFER_SIZE;
        let connect = connect_ws(request, config, tls);
        let ws = match options.connect_timeout {
            Some(t) => tokio::time::timeout(t, connect).await.map_err(|_| {
                Error3::Timeout(format!("connecting to {} took over {t:?}", redact_url(url)))
            })??,
            None => connect.await?,
        };
        tracing::debug!(
            target: "graphbinary_client",
            url = %redact_url(url),
            "WebSocket connection opened"
        );
        let (out, out_rx) = mpsc::unbounded_channel();
        let pending: Pending = Arc::default();
        let alive = Arc::new(AtomicBool::new(true));
        let stop = Arc::new(Stop::default());
        // Counted closed when the task ends (or is aborted): the guard lives in it.
        let opened = options.connections.open_guard(url);
        let running = run(
            ws,
            out_rx,
            pending.clone(),
            alive.clone(),
            options.clone(),
            stop.clone(),
        );
        let task = tokio::spawn(async move {
            let _opened = opened;
            running.await
        });
        Ok(Arc::new(Conn {
            out,
            pending,
            alive,
            task: task.abort_handle(),
            options,
            stop,
        }))
    }

    /// Whether the connection's task still runs.
    pub(crate) fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }

    /// Ends the connection for `why`: its requests in flight fail with the error of that
    /// reason ([`CloseReason::error`]), a close frame is sent and the socket closed (by the
    /// connection's task, at once).
    pub(crate) fn shut_down(&self, why: CloseReason) {
        // No request picks it from now on.
        self.alive.store(false, Ordering::Release);
        *lock(&self.stop.why) = Some(why);
        self.stop.requested.store(true, Ordering::Release);
        self.stop.notify.notify_one();
    }

    /// Requests in flight on this connection.
    pub(crate) fn in_flight(&self) -> usize {
        lock(&self.pending).len()
    }

    /// Sends `request` and returns its results stream.
    pub(crate) fn send(self: &Arc<Self>, request: &RequestMessage) -> Result<Results3, Error3> {
        let payload = crate::protocol::ws3::graphson::encode_request_with(
            request,
            self.options.serializer,
            &self.options.custom_types,
        )?;
        let shared = Arc::new(Shared::default());
        let id = request.request_id;
        lock(&self.pending).insert(
            id,
            Entry {
                shared: shared.clone(),
                total: 0,
            },
        );
        if self.out.send(Message::Binary(payload.into())).is_err() {
            lock(&self.pending).remove(&id);
            return Err(Error3::Closed(": the connection is closed".into()));
        }
        Ok(Results3 {
            shared,
            counters: None,
            batch: VecDeque::new(),
            interner: graphbinary_core::Interner::new(),
            attributes: None,
            done: false,
            id,
            pending: Arc::downgrade(&self.pending),
            conn: self.clone(),
        })
    }
}

/// The results of one TinkerPop 3 request, batch after batch as the messages arrive: a
/// [`Stream`] of (value, bulk) pairs.
///
/// It ends after the message with status 200 or 204; any other status is its last item, as
/// [`Error3::Server`]. When the connection drops first, the last item is [`Error3::Closed`];
/// when this stream fell more than its backlog ([`Options3::request_backlog`] messages or
/// [`Options3::request_backlog_bytes`]) behind under [`SlowConsumer::Fail`], it is
/// [`Error3::SlowConsumer`] (after the messages already queued).
///
/// Each message is decoded here, in the consumer's task, not by the connection's reader, so a
/// large batch costs the other requests of the connection nothing. Dropping the stream stops
/// routing the request's later messages (they are discarded as they arrive; TinkerPop 3 has no
/// way to cancel a request).
#[derive(Debug)]
pub struct Results3 {
    shared: Arc<Shared>,
    counters: Option<Arc<crate::transport::ByteCounters>>,
    batch: VecDeque<(Value, i64)>,
    /// Labels and property keys of this request's results, shared across its messages.
    interner: graphbinary_core::Interner,
    /// The status attributes of the last message read (none before the first).
    attributes: Option<crate::protocol::http4::response::StatusAttributes>,
    done: bool,
    id: Uuid,
    pending: Weak<Mutex<HashMap<Uuid, Entry>>>,
    /// Keeps the connection open while results are read, even if the client is dropped.
    conn: Arc<Conn>,
}

impl Results3 {
    /// The request id.
    pub fn request_id(&self) -> Uuid {
        self.id
    }

    /// Bytes of response messages received for this request and not yet decoded by this
    /// stream: what a slow consumer costs in memory (at most
    /// [`Options3::request_backlog_bytes`] plus one message, and at most
    /// [`Options3::request_backlog`] messages).
    #[cfg(feature = "test-util")]
    pub fn buffered_bytes(&self) -> usize {
        lock(&self.shared.queue).bytes
    }

    /// Counts each message's bytes into `counters` as it is taken.
    pub(crate) fn count_into(&mut self, counters: Arc<crate::transport::ByteCounters>) {
        self.counters = Some(counters);
    }

    /// Gives up on this request's connection after a client-side timeout: TinkerPop 3 has no
    /// way to cancel a request, so the server would go on sending its results (a connection
    /// that stalled would stay stalled). When no other request is in flight on it, the
    /// connection is closed (the pool opens another at the next request); otherwise it is left
    /// to the others (each has its own deadline).
    pub(crate) fn abandon_connection(&self) {
        if self.conn.in_flight() <= 1 {
            self.conn.shut_down(CloseReason::Abandoned);
        }
    }

    /// The status attributes of the last response message read so far (`None` before the
    /// first): every key the server sent, e.g. Azure Cosmos DB's `x-ms-request-charge` and
    /// `x-ms-total-request-charge`. An error message's attributes are its
    /// [`Error3::Server`]'s instead.
    pub fn status_attributes(&self) -> Option<&crate::protocol::http4::response::StatusAttributes> {
        self.attributes.as_ref()
    }

    /// Results decoded and not yet yielded (the rest of the current batch).
    #[cfg(feature = "test-util")]
    pub fn decoded_len(&self) -> usize {
        self.batch.len()
    }

    /// The next whole response message of this request, decoded; `None` after the last.
    /// Status 200/204/206 only; an error status is returned as [`Error3::Server`], and ends the
    /// stream like any error.
    #[cfg(feature = "test-util")]
    pub fn poll_message(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<ResponseMessage, Error3>>> {
        self.poll_decoded(cx, false)
    }

    /// [`Results3::poll_message`]; with `into_batch`, a List batch's results go straight onto
    /// `self.batch` (the message's `data` is then an empty List).
    fn poll_decoded(
        &mut self,
        cx: &mut Context<'_>,
        into_batch: bool,
    ) -> Poll<Option<Result<ResponseMessage, Error3>>> {
        if self.done {
            return Poll::Ready(None);
        }
        let mut wake_reader = false;
        let item = {
            let mut q = lock(&self.shared.queue);
            match q.messages.pop_front() {
                Some(bytes) => {
                    q.bytes -= bytes.len();
                    let wire = q.wire.pop_front().unwrap_or(bytes.len() as u64);
                    if q.reader_waits {
                        let o = &self.conn.options;
                        // Half the backlog (a queue of 1 message: empty).
                        if q.messages.len() <= o.request_backlog.max(1) / 2
                            && (q.messages.is_empty() || q.bytes <= o.request_backlog_bytes / 2)
                        {
                            q.reader_waits = false;
                            wake_reader = true;
                        }
                    }
                    Ok((bytes, wire))
                }
                None if q.ended => Err(q
                    .end
                    .take()
                    .unwrap_or_else(|| Error3::Closed(String::new()))),
                None => {
                    if !q.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                        q.waker = Some(cx.waker().clone());
                    }
                    return Poll::Pending;
                }
            }
        };
        let out = match item {
            Err(e) => Err(e),
            Ok((bytes, wire)) => {
                if wake_reader {
                    self.shared.taken.notify_one();
                }
                if let Some(c) = &self.counters {
                    c.add_message(wire, bytes.len() as u64);
                }
                let before = self.batch.len();
                let options = &self.conn.options;
                let decoded = if options.serializer.is_graphson() {
                    crate::protocol::ws3::graphson::decode_response(
                        &bytes,
                        options.serializer,
                        &options.limits,
                    )
                } else {
                    decode_response_interned(
                        &bytes,
                        &options.limits,
                        &options.custom_types,
                        &mut self.interner,
                        into_batch.then_some(&mut self.batch),
                    )
                };
                match decoded {
                    Err(e) => Err(match crate::transport::Limit::of(&e, &options.limits) {
                        Some((limit, seen, max)) => Error3::Limit { limit, seen, max },
                        None => Error3::Decode(e),
                    }),
                    Ok(mut msg) => match msg.status {
                        200 | 204 | 206 => {
                            // The stream keeps only the results of a message: its
                            // attributes move; `poll_message` hands over a copy.
                            let attributes = if into_batch {
                                std::mem::take(&mut msg.attributes)
                            } else {
                                msg.attributes.clone()
                            };
                            self.attributes = Some(attributes.into());
                            Ok(msg)
                        }
                        code => Err({
                            // An error message's results (if any) are not yielded.
                            self.batch.truncate(before);
                            Error3::Server {
                                code,
                                message: msg.message.unwrap_or_default(),
                                attributes: msg.attributes,
                            }
                        }),
                    },
                }
            }
        };
        let last = !matches!(&out, Ok(m) if m.status == 206);
        if last {
            self.finish();
        }
        Poll::Ready(Some(out))
    }

    fn finish(&mut self) {
        self.done = true;
        {
            let mut q = lock(&self.shared.queue);
            q.dropped = true;
            q.messages.clear();
            q.wire.clear();
            q.bytes = 0;
        }
        self.shared.taken.notify_one();
        if let Some(p) = self.pending.upgrade() {
            lock(&p).remove(&self.id);
        }
    }
}

impl Drop for Results3 {
    fn drop(&mut self) {
        if !self.done {
            self.finish();
        }
    }
}

impl Stream for Results3 {
    type Item = Result3;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result3>> {
        let this = &mut *self;
        loop {
            if let Some(r) = this.batch.pop_front() {
                return Poll::Ready(Some(Ok(r)));
            }
            match this.poll_decoded(cx, true) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                // A List batch is on `batch` already; other data (one value) is added here.
                Poll::Ready(Some(Ok(msg))) => this.batch.extend(msg.results()),
            }
        }
    }
}

/// The request id and status of a response message, read from its fixed-size header
/// (`{0x81}{00}{uuid}{status}`); `Ok(None)` for a null request id.
fn header(bytes: &[u8]) -> Option<Option<(Uuid, i32)>> {
    match bytes {
        [0x81, 0x00, rest @ ..] if rest.len() >= 20 => {
            let id = Uuid::from_slice(&rest[..16]).ok()?;
            let status = i32::from_be_bytes(rest[16..20].try_into().ok()?);
            Some(Some((id, status)))
        }
        [0x81, 0x01, rest @ ..] if rest.len() >= 4 => Some(None),
        _ => None,
    }
}

async fn run(
    mut ws: Ws,
    mut out_rx: mpsc::UnboundedReceiver<Message>,
    pending: Pending,
    alive: Arc<AtomicBool>,
    options: Arc<Options3>,
    stop: Arc<Stop>,
) {
    let mut ping = options.ping_interval.map(|d| {
        let mut i = tokio::time::interval_at(tokio::time::Instant::now() + d, d);
        i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        i
    });
    let mut last_in = Instant::now();
    let mut ping_sent = false;
    let end = loop {
        tokio::select! {
            msg = ws.next() => {
                let msg = match msg {
                    None => break CloseReason::ServerClosed,
                    Some(Err(e)) => break CloseReason::read(e),
                    Some(Ok(m)) => m,
                };
                last_in = Instant::now();
                ping_sent = false;
                match msg {
                    Message::Binary(bytes) => {
                        let wire = ws.get_mut().wire_size().unwrap_or(bytes.len() as u64);
                        if let Err(why) = route(bytes, wire, &mut ws, &pending, &options).await {
                            break why;
                        }
                    }
                    // Its size on the wire, taken to keep the sizes in step with the messages.
                    Message::Text(_) => {
                        ws.get_mut().wire_size();
                    }
                    Message::Close(frame) => break CloseReason::CloseFrame(frame),
                    // Pings are answered by tungstenite; pongs only prove the peer is there;
                    // text frames are GraphSON, never sent to a GraphBinary client.
                    _ => {}
                }
            }
            out = out_rx.recv() => {
                let Some(out) = out else { break CloseReason::Dropped };
                if let Err(e) = send_queued(&mut ws, out, &mut out_rx).await {
                    break CloseReason::Send(e);
                }
            }
            () = stop.notify.notified() => {
                break lock(&stop.why).take().unwrap_or(CloseReason::ClientClosed)
            }
            () = tick(&mut ping) => {
                let interval = options.ping_interval.unwrap_or_default();
                if ping_sent {
                    break CloseReason::PingUnanswered(interval);
                }
                if last_in.elapsed() >= interval {
                    if let Err(e) = ws.send(Message::Ping(Bytes::from_static(b"graphbinary-rs"))).await {
                        break CloseReason::Ping(e);
                    }
                    ping_sent = true;
                }
            }
        }
    };
    alive.store(false, Ordering::Release);
    tracing::debug!(target: "graphbinary_client", reason = %end, "WebSocket connection closed");
    // Refuse new requests first, then fail those in flight: a request registered after the
    // drain finds the queue closed (`Conn::send` fails it), one registered before is drained.
    out_rx.close();
    let waiting: Vec<Entry> = lock(&pending).drain().map(|(_, e)| e).collect();
    // Each request is told why (a message over the size limit too: the connection cannot
    // skip a message, so every request on it ends).
    for e in waiting {
        fail(e, end.error());
    }
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), ws.close(None)).await;
}

/// Writes `first` and every request queued behind it, then flushes once: requests that
/// arrived together share a write (one system call where there was one per request).
async fn send_queued(
    ws: &mut Ws,
    first: Message,
    out_rx: &mut mpsc::UnboundedReceiver<Message>,
) -> Result<(), tokio_tungstenite::tungstenite::Error> {
    ws.feed(first).await?;
    while let Ok(more) = out_rx.try_recv() {
        ws.feed(more).await?;
    }
    ws.flush().await
}

async fn tick(ping: &mut Option<tokio::time::Interval>) {
    match ping {
        Some(i) => {
            i.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// Ends a request with `error`, reported after the messages it has queued.
fn fail(e: Entry, error: Error3) {
    let waker = lock(&e.shared.queue).end(error);
    if let Some(w) = waker {
        w.wake();
    }
}

/// Routes one response message; `Err` ends the connection for that reason.
async fn route(
    bytes: Bytes,
    wire: u64,
    ws: &mut Ws,
    pending: &Pending,
    options: &Options3,
) -> Result<(), CloseReason> {
    let routed = if options.serializer.is_graphson() {
        match crate::protocol::ws3::graphson::header(&bytes, options.serializer, &options.limits) {
            Ok(h) => Some(h),
            Err(e) => {
                return Err(CloseReason::Undecodable {
                    graphson: true,
                    detail: format!("offset {}: {}", e.offset(), e.kind()),
                })
            }
        }
    } else {
        header(&bytes)
    };
    let (id, status) = match routed {
        Some(Some(h)) => h,
        // A message for no request (the server could not read the request's id).
        Some(None) => return Ok(()),
        None => {
            let detail = match decode_response_with(&bytes, &options.limits, &options.custom_types)
            {
                Err(e) => format!("offset {}: {}", e.offset(), e.kind()),
                Ok(_) => "a header too short to route".into(),
            };
            return Err(CloseReason::Undecodable {
                graphson: false,
                detail,
            });
        }
    };
    if status == 407 {
        if !lock(pending).contains_key(&id) {
            return Ok(());
        }
        let Some((user, password)) = &options.credentials else {
            if let Some(e) = lock(pending).remove(&id) {
                fail(e, Error3::AuthenticationRequired);
            }
            return Ok(());
        };
        let payload = crate::protocol::ws3::graphson::encode_request(
            &sasl_plain(id, user, password.expose()),
            options.serializer,
        )
        .map_err(|e| CloseReason::Sasl(format!("writing the SASL answer: {e}")))?;
        return ws
            .send(Message::Binary(payload.into()))
            .await
            .map_err(|e| CloseReason::Sasl(format!("sending the SASL answer: {e}")));
    }
    let last = status != 206;
    let len = bytes.len();
    let shared = {
        let mut map = lock(pending);
        let Some(entry) = map.get_mut(&id) else {
            // Its stream was dropped: discard.
            return Ok(());
        };
        entry.total += len as u64;
        if let Some(max) = options.limits.max_response_size {
            if entry.total > max {
                let e = map.remove(&id).expect("just found");
                let total = e.total;
                fail(
                    e,
                    Error3::Limit {
                        limit: crate::transport::Limit::ResponseSize,
                        seen: total,
                        max,
                    },
                );
                return Ok(());
            }
        }
        let shared = entry.shared.clone();
        if last {
            map.remove(&id);
        }
        shared
    };
    let (budget, backlog) = (
        options.request_backlog_bytes,
        options.request_backlog.max(1),
    );
    // Whether the queue has no room for this message (one message always fits an empty queue).
    let full = |q: &Queue| q.messages.len() >= backlog || (q.bytes > 0 && q.bytes + len > budget);
    let waker = loop {
        let notified = shared.taken.notified();
        {
            let mut q = lock(&shared.queue);
            if q.dropped {
                drop(q);
                lock(pending).remove(&id);
                return Ok(());
            }
            if !full(&q) {
                break q.push(bytes, wire, last);
            }
            if options.slow_consumer == SlowConsumer::Wait {
                q.reader_waits = true;
            } else {
                // Not held back: this request ends (after what it has queued), the others go
                // on.
                let w = q.end(Error3::SlowConsumer {
                    backlog: options.request_backlog,
                    backlog_bytes: budget,
                });
                drop(q);
                lock(pending).remove(&id);
                break w;
            }
        }
        // SlowConsumer::Wait: room once the stream has taken the queue down to half the
        // backlog (or is dropped).
        notified.await;
    };
    if let Some(w) = waker {
        w.wake();
    }
    Ok(())
}

/// The loopback TLS server of the tests, shared with the integration tests (graphbinary-testkit).
#[cfg(test)]
use graphbinary_testkit::tls;

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// A `localhost` WebSocket server over TLS with a fresh self-signed certificate (its PEM
    /// returned), accepting connections until the test ends.
    async fn tls_server() -> (String, String) {
        let server = tls::serve_tls(|tls| async move {
            let Ok(tls) = tls else {
                return; // the client rejected the certificate
            };
            if let Ok(mut ws) = tokio_tungstenite::accept_async(tls).await {
                while let Some(Ok(_)) = ws.next().await {}
            }
        })
        .await;
        (server.url("wss"), server.pem)
    }

    async fn connect(url: &str, options: &Options3) -> Result<Ws, Error3> {
        let request = upgrade_request(url, options).await?;
        let tls = tls_config(options)?;
        connect_ws(request, WebSocketConfig::default(), Some(tls)).await
    }

    #[tokio::test]
    async fn wss_trusts_the_root_certificates_of_the_options_and_sets_tcp_nodelay() {
        let (url, pem) = tls_server().await;
        let options = Options3 {
            root_certificates: vec![pem.clone().into_bytes()],
            ..Options3::default()
        };
        let ws = connect(&url, &options).await.unwrap();
        match ws.get_ref().get_ref() {
            MaybeTlsStream::Rustls(tls) => {
                assert!(tls.get_ref().0.nodelay().unwrap(), "TCP_NODELAY under TLS")
            }
            other => panic!("wss:// is not TLS: {other:?}"),
        }
        // The same PEM bundled after another certificate (one PEM text, several roots).
        let bundle = format!("{}{pem}", tls::unrelated_localhost_pem());
        let options = Options3 {
            root_certificates: vec![bundle.into_bytes()],
            ..Options3::default()
        };
        connect(&url, &options).await.unwrap();
    }

    #[tokio::test]
    async fn wss_without_the_root_or_with_another_one_is_refused() {
        let (url, _pem) = tls_server().await;
        for roots in [vec![], vec![tls::unrelated_localhost_pem().into_bytes()]] {
            let options = Options3 {
                root_certificates: roots,
                ..Options3::default()
            };
            match connect(&url, &options).await {
                // UnknownIssuer, or BadSignature for a root of the same name.
                Err(Error3::WebSocket(w)) => {
                    let Some(tokio_tungstenite::tungstenite::Error::Io(e)) = w.downcast_ref()
                    else {
                        panic!("{w:?}")
                    };
                    assert!(e.to_string().contains("invalid peer certificate"), "{e}");
                    assert!(
                        e.get_ref().is_some_and(|i| i.is::<rustls::Error>()),
                        "{e:?}"
                    );
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_root_certificate_that_is_no_pem_certificate_is_a_config_error() {
        for (pem, want) in [
            (
                &b"not a certificate"[..],
                "root certificate 1: no PEM CERTIFICATE section",
            ),
            (
                b"-----BEGIN CERTIFICATE-----\nAAAA\n",
                "root certificate 1: invalid PEM",
            ),
        ] {
            let options = Options3 {
                root_certificates: vec![tls::unrelated_localhost_pem().into_bytes(), pem.to_vec()],
                ..Options3::default()
            };
            match tls_config(&options) {
                Err(Error3::Config(m)) => assert!(m.contains(want), "{m}"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn ws_connections_set_tcp_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            while let Some(Ok(_)) = ws.next().await {}
        });
        let options = Options3::default();
        let request = upgrade_request(&format!("ws://{addr}/gremlin"), &options)
            .await
            .unwrap();
        let ws = connect_ws(request, WebSocketConfig::default(), None)
            .await
            .unwrap();
        match ws.get_ref().get_ref() {
            MaybeTlsStream::Plain(tcp) => assert!(tcp.nodelay().unwrap(), "TCP_NODELAY"),
            other => panic!("ws:// is plain TCP: {other:?}"),
        }
    }
}
