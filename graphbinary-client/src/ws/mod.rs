//! TinkerPop 3 transport (groundwork): GraphBinary 1 over WebSocket.
//!
//! [`Client3`] holds one WebSocket connection to a TinkerPop 3.x Gremlin Server
//! (`ws://host:port/gremlin`; `wss://` through rustls). Each request is one binary message
//! (`{mime length}{application/vnd.graphbinary-v1.0}{0x81}{request id}{op}{processor}{args}`);
//! each response message is one batch of results (status 206 while more follow, then 200, or
//! 204 when there are none; any other status ends the request with an error). A task owned by
//! the client reads the connection and routes messages by request id, so requests may be in
//! flight together and finish in any order. On 407 it answers the server's SASL challenge with
//! PLAIN (`\0user\0password`, base64) under the same request id, when credentials were given.
//!
//! Results are decoded by the GraphBinary 1 reader ([`crate::v1`]) from each message's bytes
//! (a message is whole in memory, bounded by [`Options3::max_message_size`]); a batch is handed
//! to the caller as decoded, so memory stays bounded by the batch size, never by the result
//! count.
//!
//! Limits of this groundwork: one connection (no pool, no reconnect), no sessions or bytecode
//! requests yet, no keep-alive pings of its own (tungstenite answers the server's), and a slow
//! consumer of one request holds back the messages of the others (each request buffers up to
//! [`REQUEST_BACKLOG`] messages).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::stream::{BoxStream, SplitSink};
use futures::{SinkExt, StreamExt};
use graphbinary_core::{DecodeError, EncodeError, Limits};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

use crate::model::Value;
use crate::v1::{decode_response_with, CustomTypes, RequestMessage, ResponseMessage};

/// How many response messages one request may have waiting before the connection's reader
/// waits for its consumer.
pub const REQUEST_BACKLOG: usize = 16;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
type Sink = Arc<tokio::sync::Mutex<SplitSink<Ws, Message>>>;
type Pending = Arc<Mutex<HashMap<Uuid, mpsc::Sender<Result<ResponseMessage, Error3>>>>>;

/// What went wrong talking to a TinkerPop 3 server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error3 {
    /// The WebSocket handshake or connection failed.
    #[error("WebSocket: {0}")]
    WebSocket(#[from] tokio_tungstenite::tungstenite::Error),
    /// A response message is not valid GraphBinary 1.
    #[error("GraphBinary 1 response: offset {}: {}", .0.offset(), .0.kind())]
    Decode(#[from] DecodeError),
    /// A request could not be written.
    #[error("GraphBinary 1 request: {0}")]
    Encode(#[from] EncodeError),
    /// The server answered with an error status.
    #[error("server error {code}: {message}")]
    Server {
        /// The status code, e.g. 497 (script evaluation error), 401 (wrong credentials).
        code: i32,
        /// The status message.
        message: String,
        /// The status attributes (`exceptions`, `stackTrace`, ...).
        attributes: Vec<(Value, Value)>,
    },
    /// The server asked for authentication (407) and the client has no credentials.
    #[error("the server requires authentication (407) and no credentials were given")]
    AuthenticationRequired,
    /// The connection closed before the request ended.
    #[error("connection closed before the response ended{0}")]
    Closed(String),
}

/// Connection options.
#[derive(Debug, Clone)]
pub struct Options3 {
    /// SASL PLAIN credentials, sent when the server answers 407.
    pub credentials: Option<(String, String)>,
    /// Limits for decoding responses.
    pub limits: Limits,
    /// The largest response message accepted (the Java driver's default: 10 MiB).
    pub max_message_size: usize,
    /// The `User-Agent` of the upgrade request.
    pub user_agent: String,
    /// Readers of GraphBinary 1 custom types (type code 0x00) by name, e.g.
    /// [`CustomTypes::janusgraph`] for JanusGraph's edge ids; none by default, so that a
    /// custom value fails its request naming the type.
    pub custom_types: CustomTypes,
}

impl Default for Options3 {
    fn default() -> Self {
        Options3 {
            credentials: None,
            limits: Limits::default(),
            max_message_size: 10 * 1024 * 1024,
            user_agent: format!("graphbinary-rs/{}", env!("CARGO_PKG_VERSION")),
            custom_types: CustomTypes::new(),
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
}

impl Eval {
    /// A script with no other arguments.
    pub fn new(gremlin: impl Into<String>) -> Self {
        Eval {
            gremlin: gremlin.into(),
            ..Eval::default()
        }
    }

    /// Adds a binding.
    pub fn binding(mut self, name: impl Into<String>, value: Value) -> Self {
        self.bindings.push((name.into(), value));
        self
    }

    /// Sets `batchSize`.
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
        req
    }
}

/// One result and its bulk (1 unless the server sent a Traverser).
pub type Result3 = Result<(Value, i64), Error3>;

/// A client of one TinkerPop 3 Gremlin Server over one WebSocket connection.
#[derive(Debug, Clone)]
pub struct Client3 {
    sink: Sink,
    pending: Pending,
    reader: Arc<ReaderHandle>,
}

#[derive(Debug)]
struct ReaderHandle(tokio::task::JoinHandle<()>);

impl Drop for ReaderHandle {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Client3 {
    /// Connects to `url` (`ws://127.0.0.1:8182/gremlin`) with default options.
    pub async fn connect(url: &str) -> Result<Self, Error3> {
        Self::connect_with(url, Options3::default()).await
    }

    /// Connects to `url` with `options`.
    pub async fn connect_with(url: &str, options: Options3) -> Result<Self, Error3> {
        let mut request = url.into_client_request()?;
        if let Ok(ua) = options.user_agent.parse() {
            request.headers_mut().insert("User-Agent", ua);
        }
        let mut config = WebSocketConfig::default();
        config.max_message_size = Some(options.max_message_size);
        config.max_frame_size = Some(options.max_message_size);
        let (ws, _) =
            tokio_tungstenite::connect_async_with_config(request, Some(config), false).await?;
        let (sink, stream) = ws.split();
        let sink: Sink = Arc::new(tokio::sync::Mutex::new(sink));
        let pending: Pending = Arc::default();
        let task = tokio::spawn(read_loop(stream, sink.clone(), pending.clone(), options));
        Ok(Client3 {
            sink,
            pending,
            reader: Arc::new(ReaderHandle(task)),
        })
    }

    /// Evaluates a script; see [`Client3::eval`].
    pub async fn submit(&self, gremlin: &str) -> Result<BoxStream<'static, Result3>, Error3> {
        self.eval(Eval::new(gremlin)).await
    }

    /// Sends an `eval` request and returns its results as they arrive, batch after batch.
    /// The stream ends after the 200/204 message; an error status is its last item.
    pub async fn eval(&self, eval: Eval) -> Result<BoxStream<'static, Result3>, Error3> {
        self.send(eval.to_request()).await
    }

    /// Sends any request message and streams the results of its responses.
    pub async fn send(
        &self,
        request: RequestMessage,
    ) -> Result<BoxStream<'static, Result3>, Error3> {
        let payload = request.encode_ws()?;
        let (tx, rx) = mpsc::channel(REQUEST_BACKLOG);
        lock(&self.pending).insert(request.request_id, tx);
        let sent = self
            .sink
            .lock()
            .await
            .send(Message::Binary(payload.into()))
            .await;
        if let Err(e) = sent {
            lock(&self.pending).remove(&request.request_id);
            return Err(e.into());
        }
        let state = (rx, std::collections::VecDeque::new(), false);
        Ok(
            futures::stream::unfold(state, |(mut rx, mut batch, done)| async move {
                loop {
                    if let Some(r) = batch.pop_front() {
                        return Some((Ok(r), (rx, batch, done)));
                    }
                    if done {
                        return None;
                    }
                    match rx.recv().await {
                        None => {
                            return Some((Err(Error3::Closed(String::new())), (rx, batch, true)))
                        }
                        Some(Err(e)) => return Some((Err(e), (rx, batch, true))),
                        Some(Ok(msg)) => {
                            let last = msg.status != 206;
                            batch.extend(msg.results());
                            if last {
                                rx.close();
                                return batch.pop_front().map(|r| (Ok(r), (rx, batch, true)));
                            }
                        }
                    }
                }
            })
            .boxed(),
        )
    }

    /// Whether the connection's reader is still running.
    pub fn is_open(&self) -> bool {
        !self.reader.0.is_finished()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

async fn read_loop(
    mut stream: futures::stream::SplitStream<Ws>,
    sink: Sink,
    pending: Pending,
    options: Options3,
) {
    let end = loop {
        let msg = match stream.next().await {
            None => break "the server closed the connection".to_string(),
            Some(Err(e)) => break format!(": {e}"),
            Some(Ok(m)) => m,
        };
        let bytes = match msg {
            Message::Binary(b) => b,
            Message::Close(frame) => break format!(": close frame {frame:?}"),
            // Pings are answered by tungstenite; text frames are GraphSON, never sent to us.
            _ => continue,
        };
        let response = match decode_response_with(&bytes, &options.limits, &options.custom_types) {
            Ok(r) => r,
            Err(e) => {
                // The header names the request (`81 00 {uuid}`) even when its data cannot be
                // read (e.g. a provider's custom type): that request fails, the others go on;
                // its later batches find no receiver and are dropped.
                match bytes.get(..18) {
                    Some([0x81, 0x00, id @ ..]) => {
                        let id = Uuid::from_slice(id).unwrap_or_default();
                        let tx = lock(&pending).remove(&id);
                        if let Some(tx) = tx {
                            let _ = tx.send(Err(e.into())).await;
                        }
                        continue;
                    }
                    _ => {
                        break format!(
                            ": undecodable response message: offset {}: {}",
                            e.offset(),
                            e.kind()
                        )
                    }
                }
            }
        };
        let Some(id) = response.request_id else {
            continue;
        };
        let status = response.status;
        let tx = lock(&pending).get(&id).cloned();
        let Some(tx) = tx else { continue };
        let item = match status {
            200 | 204 | 206 => Ok(response),
            407 => match &options.credentials {
                Some((user, password)) => {
                    let auth = sasl_plain(id, user, password);
                    let sent = match auth.encode_ws() {
                        Ok(p) => sink
                            .lock()
                            .await
                            .send(Message::Binary(p.into()))
                            .await
                            .map_err(Error3::from),
                        Err(e) => Err(e.into()),
                    };
                    match sent {
                        Ok(()) => continue,
                        Err(e) => Err(e),
                    }
                }
                None => Err(Error3::AuthenticationRequired),
            },
            code => Err(Error3::Server {
                code,
                message: response.message.unwrap_or_default(),
                attributes: response.attributes,
            }),
        };
        let last = !matches!(item, Ok(ref r) if r.status == 206);
        if last {
            lock(&pending).remove(&id);
        }
        // A dropped result stream is not an error of the connection.
        let _ = tx.send(item).await;
    };
    let waiting: Vec<_> = lock(&pending).drain().map(|(_, tx)| tx).collect();
    for tx in waiting {
        let _ = tx.send(Err(Error3::Closed(end.clone()))).await;
    }
}

/// The `authentication` request answering a 407 with SASL PLAIN.
fn sasl_plain(request_id: Uuid, user: &str, password: &str) -> RequestMessage {
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

/// Standard base64 with padding (RFC 4648 section 4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_examples() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
        assert_eq!(base64(b"\0stephen\0password"), "AHN0ZXBoZW4AcGFzc3dvcmQ=");
    }

    #[test]
    fn an_eval_request_is_framed_as_the_protocol_says() {
        let mut eval = Eval::new("g.V()").batch_size(8);
        eval.aliases.push(("g".into(), "g".into()));
        let mut req = eval.to_request();
        req.request_id = Uuid::from_bytes([7; 16]);
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
