//! The WebSocket side of the replay server (TinkerPop 3, issue 24): the response frames a real
//! Gremlin Server 3.x sent for each workload, recorded once, served at full speed on the same
//! port as the HTTP replay (a `GET` with `Upgrade: websocket` is taken over here).
//!
//! **Recording** ([`record`]): a WebSocket handshake with the real server over a plain socket,
//! one `eval` request (`{gremlin, language: gremlin-groovy}`, as a driver's `submit` sends it:
//! GraphBinary 1, GraphSON 3 or GraphSON 2, each a binary message with its mime prefix), and every frame
//! of the answer kept as sent (FIN bit, opcode, payload), up to the message whose status is not
//! 206. The server's batches (64 results a message), status and attributes are thus the
//! server's own.
//!
//! **Serving** ([`connection`]): the handshake answered (`101`, `Sec-WebSocket-Accept`), each
//! request message unmasked, its mime prefix naming the serializer, matched by its `gremlin`
//! argument; the other arguments must leave the response as recorded (`language`
//! gremlin-groovy, `batchSize` the server's 64, `aliases` only `g: g`, no `bindings`,
//! `materializeProperties` all; timeouts and the user agent change nothing): anything else is
//! answered with a status 599 message naming the argument, never with results that would be
//! wrong for it. The answer is the recorded frames with the request id of each response
//! message replaced by the request's (its 16 bytes after `{0x81}{0x00}` in GraphBinary 1, the
//! 36-character text of `requestId` in GraphSON), so that a driver routing by request id gets
//! every message. Pings are answered with pongs, a close frame with a close frame.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use graphbinary_client::format::graphbinary1 as v1;
use graphbinary_client::graphbinary_core::{Cursor, Limits};
use graphbinary_client::value::Value;
use graphbinary_client::ws::RequestMessage;
use serde_json::Value as Json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Counted, Stats, Table, MAX_BODY, MAX_RECORDED, SERVER_BATCH_SIZE};

/// The GraphBinary 1 mime type, as the drivers prefix their requests with it.
pub const GRAPHBINARY_V1: &str = graphbinary_client::ws::MIME_TYPE;
/// The GraphSON 3 mime type (gremlin-client's only format).
pub const GRAPHSON_V3: &str = "application/vnd.gremlin-v3.0+json";
/// The GraphSON 2 mime type (typed: what ours sends with `Serializer::GraphSon2`).
pub const GRAPHSON_V2: &str = "application/vnd.gremlin-v2.0+json";
/// WebSocket opcodes (RFC 6455).
const OPCODE_TEXT: u8 = 1;
const OPCODE_BINARY: u8 = 2;
const OPCODE_CLOSE: u8 = 8;
const OPCODE_PING: u8 = 9;
const OPCODE_PONG: u8 = 10;
/// Bytes written per `write_all` when replaying a large answer.
const WRITE_WINDOW: usize = 256 * 1024;

/// One recorded frame of the server.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The FIN bit.
    pub fin: bool,
    /// The opcode (0 continuation, 1 text, 2 binary).
    pub opcode: u8,
    /// The payload (the server's frames are not masked).
    pub payload: Vec<u8>,
}

/// One recorded WebSocket answer.
#[derive(Debug, Clone)]
pub struct WsRecording {
    /// The `gremlin` script of the request.
    pub query: String,
    /// The serializer's mime type ([`GRAPHBINARY_V1`], [`GRAPHSON_V3`] or [`GRAPHSON_V2`]).
    pub mime: String,
    /// The frames of the answer, in order.
    pub frames: Vec<Frame>,
    /// The request id of the recording request (replaced in every response message).
    pub request_id: uuid::Uuid,
    /// The status of each response message, in order (206 ... then 200).
    pub statuses: Vec<i32>,
    /// The status attributes of the last message, as text (e.g. `{host=/127.0.0.1:5000}`).
    pub last_attributes: String,
}

impl WsRecording {
    /// Payload bytes of all frames.
    pub fn bytes(&self) -> usize {
        self.frames.iter().map(|f| f.payload.len()).sum()
    }

    /// The answer as sent on the wire, and where each response message's request id sits
    /// in it (to be replaced per request).
    fn wire(&self) -> (Vec<u8>, Vec<usize>) {
        let mut w = Vec::with_capacity(self.bytes() + self.frames.len() * 10);
        let mut patches = Vec::new();
        let text_id = self.request_id.hyphenated().to_string();
        let mut first_of_message = true;
        for f in &self.frames {
            put_frame_header(&mut w, f.fin, f.opcode, f.payload.len(), None);
            let at = w.len();
            w.extend_from_slice(&f.payload);
            if first_of_message {
                if self.mime == GRAPHBINARY_V1 {
                    if f.payload.starts_with(&[0x81, 0x00]) && f.payload.len() >= 18 {
                        patches.push(at + 2);
                    }
                } else if let Some(i) = find(&f.payload, text_id.as_bytes()) {
                    patches.push(at + i);
                }
            }
            first_of_message = f.fin;
        }
        (w, patches)
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Writes a frame header; `mask` masks a client frame (the payload is masked by the caller).
fn put_frame_header(w: &mut Vec<u8>, fin: bool, opcode: u8, len: usize, mask: Option<[u8; 4]>) {
    w.push(if fin { 0x80 } else { 0 } | opcode);
    let m = if mask.is_some() { 0x80 } else { 0 };
    if len < 126 {
        w.push(m | len as u8);
    } else if len <= 0xffff {
        w.push(m | 126);
        w.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        w.push(m | 127);
        w.extend_from_slice(&(len as u64).to_be_bytes());
    }
    if let Some(k) = mask {
        w.extend_from_slice(&k);
    }
}

/// A frame parsed from the start of `buf`: (frame, bytes it took), `None` when incomplete.
fn parse_frame(buf: &[u8], max: usize) -> Result<Option<(Frame, usize)>, String> {
    let [b0, b1, ..] = *buf else { return Ok(None) };
    if b0 & 0x70 != 0 {
        return Err("a frame with RSV bits set (no extension was negotiated)".into());
    }
    let masked = b1 & 0x80 != 0;
    let (len, mut at) = match b1 & 0x7f {
        126 => match buf.get(2..4) {
            Some(b) => (u16::from_be_bytes([b[0], b[1]]) as u64, 4),
            None => return Ok(None),
        },
        127 => match buf.get(2..10) {
            Some(b) => (u64::from_be_bytes(b.try_into().expect("8 bytes")), 10),
            None => return Ok(None),
        },
        n => (n as u64, 2),
    };
    if len > max as u64 {
        return Err(format!("a frame of {len} bytes, over {max}"));
    }
    let mask = if masked {
        let Some(k) = buf.get(at..at + 4) else {
            return Ok(None);
        };
        at += 4;
        Some([k[0], k[1], k[2], k[3]])
    } else {
        None
    };
    let len = len as usize;
    let Some(p) = buf.get(at..at + len) else {
        return Ok(None);
    };
    let mut payload = p.to_vec();
    if let Some(k) = mask {
        for (i, b) in payload.iter_mut().enumerate() {
            *b ^= k[i & 3];
        }
    }
    Ok(Some((
        Frame {
            fin: b0 & 0x80 != 0,
            opcode: b0 & 0x0f,
            payload,
        },
        at + len,
    )))
}

/// A masked client frame carrying `payload`.
fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let key = [0x37, 0xfa, 0x21, 0x3d];
    let mut w = Vec::with_capacity(payload.len() + 14);
    put_frame_header(&mut w, true, opcode, payload.len(), Some(key));
    w.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i & 3]));
    w
}

/// The request a driver's `submit(query)` sends, in `mime`'s serializer, with its mime prefix.
fn eval_request(query: &str, mime: &str, id: uuid::Uuid) -> Result<Vec<u8>> {
    let mut req = RequestMessage::eval(query);
    req.request_id = id;
    req.args
        .push(("language".into(), Value::String("gremlin-groovy".into())));
    if mime == GRAPHBINARY_V1 {
        return Ok(req.encode_ws()?);
    }
    let body = serde_json::json!({
        "requestId": { "@type": "g:UUID", "@value": id.hyphenated().to_string() },
        "op": "eval", "processor": "",
        "args": { "gremlin": query, "language": "gremlin-groovy" },
    })
    .to_string();
    let mut w = vec![mime.len() as u8];
    w.extend_from_slice(mime.as_bytes());
    w.extend_from_slice(body.as_bytes());
    Ok(w)
}

/// The status code and attributes of one whole response message.
fn status_of(mime: &str, msg: &[u8]) -> Result<(i32, String)> {
    if mime == GRAPHBINARY_V1 {
        let m = graphbinary_client::ws::decode_response(msg, &Limits::default()).map_err(|e| {
            anyhow::anyhow!("a response message: offset {}: {}", e.offset(), e.kind())
        })?;
        let attrs = m
            .attributes
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    k.as_str().unwrap_or("?"),
                    v.as_str().unwrap_or("…")
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        return Ok((m.status, format!("{{{attrs}}}")));
    }
    let j: Json = serde_json::from_slice(msg).context("a GraphSON response message")?;
    let status = &j["status"];
    let code = status["code"]
        .as_i64()
        .or_else(|| status["code"]["@value"].as_i64())
        .context("a GraphSON response without status.code")?;
    Ok((code as i32, status["attributes"].to_string()))
}

/// Records the real server's answer at `url` (`ws://host:port/path`) to `query` in `mime`.
pub fn record(url: &str, query: &str, mime: &str) -> Result<WsRecording> {
    let (authority, path) = super::split_url(url, "ws://")?;
    let mut sock = TcpStream::connect(&authority)
        .with_context(|| format!("connecting to {authority} to record"))?;
    sock.set_read_timeout(Some(Duration::from_secs(600)))?;
    sock.set_nodelay(true)?;
    write!(
        sock,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )?;
    let mut r = BufReader::with_capacity(1 << 16, sock.try_clone()?);
    let mut c = Counted { r: &mut r, at: 0 };
    let status_line = c.line("the status line")?;
    ensure!(
        status_line.starts_with("HTTP/1.1 101"),
        "the server refused the WebSocket upgrade: {status_line:?}"
    );
    c.fields()?;
    let id = graphbinary_client::ws::new_request_id();
    sock.write_all(&client_frame(
        OPCODE_BINARY,
        &eval_request(query, mime, id)?,
    ))?;
    let mut frames = Vec::new();
    let mut statuses = Vec::new();
    let mut message = Vec::new();
    let mut total = 0u64;
    let last_attributes = loop {
        let f = read_frame(&mut r)?;
        match f.opcode {
            OPCODE_PING | OPCODE_PONG => continue,
            OPCODE_CLOSE => bail!("the server closed the connection while recording {query:?}"),
            _ => {}
        }
        total += f.payload.len() as u64;
        ensure!(
            total <= MAX_RECORDED,
            "the answer to {query:?} is over {MAX_RECORDED} bytes"
        );
        message.extend_from_slice(&f.payload);
        let fin = f.fin;
        frames.push(f);
        if fin {
            let (status, attrs) = status_of(mime, &message)
                .with_context(|| format!("recording {query:?} from {url}"))?;
            statuses.push(status);
            message.clear();
            if status != 206 {
                break attrs;
            }
        }
    };
    let _ = sock.write_all(&client_frame(OPCODE_CLOSE, &1000u16.to_be_bytes()));
    Ok(WsRecording {
        query: query.to_string(),
        mime: mime.to_string(),
        frames,
        request_id: id,
        statuses,
        last_attributes,
    })
}

/// Reads one whole frame from a blocking reader.
fn read_frame(r: &mut impl BufRead) -> Result<Frame> {
    let mut buf = Vec::new();
    loop {
        if let Some((f, n)) =
            parse_frame(&buf, MAX_RECORDED as usize).map_err(anyhow::Error::msg)?
        {
            ensure!(n == buf.len(), "read past a frame");
            return Ok(f);
        }
        // Exactly what the frame still needs: its header first, then its payload.
        let need = frame_len(&buf).map_or(1, |n| n - buf.len());
        let got = r.by_ref().take(need as u64).read_to_end(&mut buf)?;
        ensure!(got > 0, "the connection ended inside a frame");
    }
}

/// The whole length of the frame starting `buf`, once its header is there.
fn frame_len(buf: &[u8]) -> Option<usize> {
    let [_, b1, ..] = *buf else { return None };
    let mask = if b1 & 0x80 != 0 { 4 } else { 0 };
    let (len, head) = match b1 & 0x7f {
        126 => (
            u16::from_be_bytes(buf.get(2..4)?.try_into().ok()?) as usize,
            4,
        ),
        127 => (
            u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize,
            10,
        ),
        n => (n as usize, 2),
    };
    Some(head + mask + len)
}

/// Records every query in each serializer (GraphBinary 1, GraphSON 3 and 2), checking that
/// each ends with status 200.
pub fn record_all(from: &str, queries: &[String]) -> Result<Vec<WsRecording>> {
    let mut recs = Vec::new();
    for q in queries {
        for mime in [GRAPHBINARY_V1, GRAPHSON_V3, GRAPHSON_V2] {
            let r = record(from, q, mime)?;
            ensure!(
                r.statuses.last() == Some(&200),
                "the server answered {q:?} ({mime}) with statuses {:?}",
                r.statuses
            );
            eprintln!(
                "xtask replay: recorded {q:?} over WebSocket ({mime}): {} frames, {} payload \
                 bytes, statuses {}x206 then {}, last attributes {}",
                r.frames.len(),
                r.bytes(),
                r.statuses.len() - 1,
                r.statuses.last().unwrap_or(&0),
                r.last_attributes
            );
            recs.push(r);
        }
    }
    Ok(recs)
}

/// A WebSocket answer ready to send.
pub(super) struct Prepared {
    mime: String,
    wire: Vec<u8>,
    /// Offsets in `wire` of each response message's request id.
    patches: Vec<usize>,
}

/// The WebSocket answers of a recording set, by (query, mime).
pub(super) fn prepare(recs: &[WsRecording]) -> Vec<((String, String), Prepared)> {
    recs.iter()
        .map(|r| {
            let (wire, patches) = r.wire();
            (
                (r.query.clone(), r.mime.clone()),
                Prepared {
                    mime: r.mime.clone(),
                    wire,
                    patches,
                },
            )
        })
        .collect()
}

/// A parsed request: its id, and the recorded query it asks for (or why no recording is its
/// answer).
struct Request {
    id: uuid::Uuid,
    mime: String,
    query: Result<String, String>,
}

/// Whether a request argument leaves the recorded response as it is.
fn as_recorded(k: &str, v: &Value) -> bool {
    let empty_map = |v: &Value| matches!(v, Value::Map(m) if m.is_empty());
    match k {
        "gremlin" | "evaluationTimeout" | "scriptEvaluationTimeout" | "userAgent" => true,
        "language" => v.as_str() == Some("gremlin-groovy"),
        "batchSize" => {
            matches!(v, Value::Int(n) if *n as u64 == SERVER_BATCH_SIZE)
                || matches!(v, Value::Long(n) if *n as u64 == SERVER_BATCH_SIZE)
        }
        "bindings" => empty_map(v) || matches!(v, Value::Null(_)),
        "aliases" => match v {
            Value::Map(m) => m
                .iter()
                .all(|(a, b)| a.as_str() == Some("g") && b.as_str() == Some("g")),
            _ => false,
        },
        "materializeProperties" => v.as_str() == Some("all"),
        _ => false,
    }
}

/// The JSON of a GraphSON argument as the `Value` [`as_recorded`] judges.
fn json_value(j: &Json) -> Value {
    match j {
        Json::String(s) => Value::String(s.clone()),
        Json::Number(n) => Value::Long(n.as_i64().unwrap_or(-1)),
        Json::Object(o) if o.contains_key("@type") => match (&o["@type"], o.get("@value")) {
            (Json::String(t), Some(v)) if t == "g:Map" => match v {
                Json::Array(kv) => Value::Map(
                    kv.chunks(2)
                        .map(|p| {
                            (
                                json_value(&p[0]),
                                p.get(1).map_or(Value::Null(0xfe), json_value),
                            )
                        })
                        .collect(),
                ),
                _ => Value::Map(Vec::new()),
            },
            (_, Some(v)) => json_value(v),
            _ => Value::Null(0xfe),
        },
        Json::Object(o) => Value::Map(
            o.iter()
                .map(|(k, v)| (Value::String(k.clone()), json_value(v)))
                .collect(),
        ),
        Json::Null => Value::Null(0xfe),
        other => Value::String(other.to_string()),
    }
}

fn judge(op: &str, args: &[(String, Value)]) -> Result<String, String> {
    if op != "eval" {
        return Err(format!(
            "the replay answers `eval` requests only, not {op:?}"
        ));
    }
    let gremlin = args
        .iter()
        .find(|(k, _)| k == "gremlin")
        .and_then(|(_, v)| v.as_str())
        .ok_or("no gremlin script supplied")?;
    for (k, v) in args {
        if !as_recorded(k, v) {
            return Err(format!(
                "the argument {k:?} = {v:?} would change the response; the recording is for \
                 {{gremlin: {gremlin:?}, language: gremlin-groovy}} with the server's defaults"
            ));
        }
    }
    Ok(gremlin.to_string())
}

/// Parses a request message (its mime prefix included); `Err` when not even its id can be read.
fn parse_request(msg: &[u8]) -> Result<Request, String> {
    let (&n, rest) = msg.split_first().ok_or("an empty request message")?;
    let mime = rest
        .get(..n as usize)
        .and_then(|m| std::str::from_utf8(m).ok())
        .ok_or("a request message without its mime prefix")?;
    let body = &rest[n as usize..];
    let mime_key = if mime == GRAPHBINARY_V1 {
        GRAPHBINARY_V1
    } else if let Some(m) = [GRAPHSON_V3, GRAPHSON_V2].into_iter().find(|m| *m == mime) {
        // Untyped GraphSON (`;types=false`) answers otherwise: it is not recorded.
        m
    } else {
        return Err(format!("the serializer {mime:?} was not recorded"));
    };
    if mime_key != GRAPHBINARY_V1 {
        let j: Json =
            serde_json::from_slice(body).map_err(|e| format!("a request that is not JSON: {e}"))?;
        let id = match &j["requestId"] {
            Json::String(s) => s.as_str(),
            o => o["@value"].as_str().unwrap_or(""),
        };
        let id = uuid::Uuid::parse_str(id).map_err(|e| format!("requestId {id:?}: {e}"))?;
        // A plain object, or (gremlin-client) a typed `g:Map`.
        let args: Vec<(String, Value)> = match json_value(&j["args"]) {
            Value::Map(m) => m
                .into_iter()
                .map(|(k, v)| (k.as_str().unwrap_or("").to_string(), v))
                .collect(),
            _ => Vec::new(),
        };
        let op = j["op"].as_str().unwrap_or("");
        return Ok(Request {
            id,
            mime: mime_key.into(),
            query: judge(op, &args),
        });
    }
    let limits = Limits::default();
    let mut cur = Cursor::new(body, 0, &limits);
    let bad = |what: &str| format!("a GraphBinary 1 request: cannot read its {what}");
    if cur.read_u8().map_err(|_| bad("version"))? != 0x81 {
        return Err(bad("version 0x81"));
    }
    let id = cur.read_uuid().map_err(|_| bad("request id"))?;
    let mut args = || -> Result<(String, Vec<(String, Value)>), String> {
        let op = cur.read_str().map_err(|_| bad("op"))?.to_string();
        cur.read_str().map_err(|_| bad("processor"))?;
        let n = cur.read_count("request args").map_err(|_| bad("args"))?;
        let mut out = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            let k = v1::decode_value(&mut cur).map_err(|_| bad("args"))?;
            let v = v1::decode_value(&mut cur).map_err(|_| bad("args"))?;
            out.push((k.as_str().unwrap_or("").to_string(), v));
        }
        Ok((op, out))
    };
    let query = args().and_then(|(op, a)| judge(&op, &a));
    Ok(Request {
        id,
        mime: mime_key.into(),
        query,
    })
}

/// A status 599 message for `id` saying why the request was refused.
fn refusal(mime: &str, id: uuid::Uuid, why: &str) -> Vec<u8> {
    if mime == GRAPHBINARY_V1 {
        let mut m = vec![0x81, 0x00];
        m.extend_from_slice(id.as_bytes());
        m.extend_from_slice(&599i32.to_be_bytes());
        m.push(0x00);
        m.extend_from_slice(&(why.len() as i32).to_be_bytes());
        m.extend_from_slice(why.as_bytes());
        m.extend_from_slice(&0i32.to_be_bytes()); // attributes
        m.extend_from_slice(&0i32.to_be_bytes()); // meta
        m.extend_from_slice(&[0xfe, 0x01]); // null data
        return m;
    }
    serde_json::json!({
        "requestId": id.hyphenated().to_string(),
        "status": { "message": why, "code": 599, "attributes": {} },
        "result": { "data": null, "meta": {} },
    })
    .to_string()
    .into_bytes()
}

/// The `101 Switching Protocols` answer to an upgrade request with `key`.
pub(super) fn upgrade_answer(key: &str) -> Vec<u8> {
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
    format!(
        "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\
         sec-websocket-accept: {accept}\r\n\r\n"
    )
    .into_bytes()
}

/// Serves one WebSocket connection after its upgrade was answered; `buf` holds the bytes read
/// past the upgrade request.
pub(super) async fn connection(
    mut sock: tokio::net::TcpStream,
    mut buf: Vec<u8>,
    table: &Table,
    st: &Stats,
) -> std::io::Result<()> {
    let mut message: Vec<u8> = Vec::new();
    let mut out: Vec<u8> = Vec::with_capacity(WRITE_WINDOW);
    loop {
        let (frame, used) = loop {
            match parse_frame(&buf, MAX_BODY) {
                Ok(Some(f)) => break f,
                Ok(None) => {
                    buf.reserve(8192);
                    if sock.read_buf(&mut buf).await? == 0 {
                        return Ok(());
                    }
                }
                Err(why) => {
                    let mut w = Vec::new();
                    let mut p = 1002u16.to_be_bytes().to_vec();
                    p.extend_from_slice(why.as_bytes());
                    put_frame_header(&mut w, true, OPCODE_CLOSE, p.len(), None);
                    w.extend_from_slice(&p);
                    return sock.write_all(&w).await;
                }
            }
        };
        buf.drain(..used);
        match frame.opcode {
            OPCODE_PING => {
                out.clear();
                put_frame_header(&mut out, true, OPCODE_PONG, frame.payload.len(), None);
                out.extend_from_slice(&frame.payload);
                sock.write_all(&out).await?;
                continue;
            }
            OPCODE_PONG => continue,
            OPCODE_CLOSE => {
                out.clear();
                put_frame_header(&mut out, true, OPCODE_CLOSE, 2, None);
                out.extend_from_slice(&1000u16.to_be_bytes());
                sock.write_all(&out).await?;
                return sock.shutdown().await;
            }
            _ => {}
        }
        message.extend_from_slice(&frame.payload);
        if !frame.fin {
            continue;
        }
        let req = parse_request(&message);
        message.clear();
        let req = match req {
            Ok(r) => r,
            Err(why) => {
                // Not even an id to answer under: as the server, close.
                eprintln!("xtask replay: closing a WebSocket connection: {why}");
                st.refused.fetch_add(1, Ordering::Relaxed);
                return sock.shutdown().await;
            }
        };
        let answer = req.query.and_then(|q| {
            table
                .ws
                .get(&(q.clone(), req.mime.clone()))
                .ok_or_else(|| format!("nothing was recorded for {q:?} in {}", req.mime))
        });
        match answer {
            Ok(p) => {
                st.served.fetch_add(1, Ordering::Relaxed);
                send_patched(&mut sock, &mut out, p, req.id).await?;
            }
            Err(why) => {
                eprintln!("xtask replay: refused a WebSocket request: {why}");
                st.refused.fetch_add(1, Ordering::Relaxed);
                let m = refusal(&req.mime, req.id, &why);
                out.clear();
                let op = if req.mime == GRAPHBINARY_V1 {
                    OPCODE_BINARY
                } else {
                    OPCODE_TEXT
                };
                put_frame_header(&mut out, true, op, m.len(), None);
                out.extend_from_slice(&m);
                sock.write_all(&out).await?;
            }
        }
    }
}

/// Writes `p`'s frames with `id` in place of each recorded request id, a window at a time.
async fn send_patched(
    sock: &mut tokio::net::TcpStream,
    out: &mut Vec<u8>,
    p: &Prepared,
    id: uuid::Uuid,
) -> std::io::Result<()> {
    let text = id.hyphenated().to_string();
    let id: &[u8] = if p.mime == GRAPHBINARY_V1 {
        id.as_bytes()
    } else {
        text.as_bytes()
    };
    let (wire, mut patches) = (&p.wire, p.patches.iter().peekable());
    let mut at = 0;
    while at < wire.len() {
        let mut end = (at + WRITE_WINDOW).min(wire.len());
        out.clear();
        while let Some(&&off) = patches.peek() {
            if off >= end {
                break;
            }
            // A patch straddling the window's end moves the end past it.
            end = end.max(off + id.len());
            patches.next();
            out.extend_from_slice(&wire[at + out.len()..off]);
            out.extend_from_slice(id);
        }
        out.extend_from_slice(&wire[at + out.len()..end]);
        sock.write_all(out).await?;
        at = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gb1_message(id: uuid::Uuid, status: i32) -> Vec<u8> {
        let mut m = vec![0x81, 0x00];
        m.extend_from_slice(id.as_bytes());
        m.extend_from_slice(&status.to_be_bytes());
        m.extend_from_slice(&[0x00, 0, 0, 0, 0]); // message ""
        m.extend_from_slice(&0i32.to_be_bytes());
        m.extend_from_slice(&0i32.to_be_bytes());
        // A List of one Int 7.
        m.extend_from_slice(&[0x09, 0x00, 0, 0, 0, 1, 0x01, 0x00, 0, 0, 0, 7]);
        m
    }

    pub(crate) fn sample(query: &str) -> WsRecording {
        let id = uuid::Uuid::from_bytes([9; 16]);
        let a = gb1_message(id, 206);
        let b = gb1_message(id, 200);
        WsRecording {
            query: query.into(),
            mime: GRAPHBINARY_V1.into(),
            frames: vec![
                Frame {
                    fin: true,
                    opcode: OPCODE_BINARY,
                    payload: a,
                },
                // The last message in two frames, to see continuation frames replayed.
                Frame {
                    fin: false,
                    opcode: OPCODE_BINARY,
                    payload: b[..24].to_vec(),
                },
                Frame {
                    fin: true,
                    opcode: 0,
                    payload: b[24..].to_vec(),
                },
            ],
            request_id: id,
            statuses: vec![206, 200],
            last_attributes: "{}".into(),
        }
    }

    #[test]
    fn frames_round_trip_masked_and_not() {
        let payload: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        let f = client_frame(OPCODE_BINARY, &payload);
        let (got, n) = parse_frame(&f, 1 << 20).unwrap().unwrap();
        assert_eq!(n, f.len());
        assert_eq!(got.payload, payload);
        assert!(got.fin);
        assert_eq!(parse_frame(&f[..f.len() - 1], 1 << 20), Ok(None));
        assert_eq!(frame_len(&f), Some(f.len()));
        assert!(parse_frame(&f, 100).unwrap_err().contains("over 100"));
    }

    #[test]
    fn the_wire_form_patches_the_first_frame_of_each_message() {
        let r = sample("g.V()");
        let (wire, patches) = r.wire();
        assert_eq!(patches.len(), 2, "one id per message, not per frame");
        for p in &patches {
            assert_eq!(&wire[*p..*p + 16], &[9; 16]);
        }
    }

    #[test]
    fn requests_are_judged_by_their_arguments() {
        let id = uuid::Uuid::from_bytes([3; 16]);
        let ok = eval_request("g.V()", GRAPHBINARY_V1, id).unwrap();
        let r = parse_request(&ok).unwrap();
        assert_eq!((r.id, r.query.as_deref()), (id, Ok("g.V()")));
        for mime in [GRAPHSON_V3, GRAPHSON_V2] {
            let json = eval_request("g.V()", mime, id).unwrap();
            let r = parse_request(&json).unwrap();
            assert_eq!(
                (r.id, r.query.as_deref(), &*r.mime),
                (id, Ok("g.V()"), mime)
            );
        }
        // Untyped GraphSON is answered otherwise than the typed recording: refused.
        let untyped = eval_request("g.V()", "application/vnd.gremlin-v2.0+json;types=false", id);
        let e = parse_request(&untyped.unwrap()).err().unwrap();
        assert!(e.contains("was not recorded"), "{e}");
        let mut req = RequestMessage::eval("g.V()");
        req.args.push(("batchSize".into(), Value::Int(10)));
        let r = parse_request(&req.encode_ws().unwrap()).unwrap();
        assert!(r.query.unwrap_err().contains("batchSize"));
        let mut req = RequestMessage::eval("g.V()");
        req.op = "bytecode".into();
        assert!(parse_request(&req.encode_ws().unwrap())
            .unwrap()
            .query
            .unwrap_err()
            .contains("bytecode"));
    }

    #[test]
    fn the_server_replays_with_the_request_id_of_each_request() {
        use graphbinary_client::ws::Client3;
        let server = super::super::serve(0, &[], &[sample("g.V()")], 1).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let c = Client3::connect(&server.ws_url()).await.unwrap();
            for _ in 0..2 {
                let got: Vec<_> =
                    futures::TryStreamExt::try_collect::<Vec<_>>(c.submit("g.V()").await.unwrap())
                        .await
                        .unwrap();
                assert_eq!(got.len(), 2, "both messages routed to the request");
            }
            let e = futures::TryStreamExt::try_collect::<Vec<_>>(c.submit("g.E()").await.unwrap())
                .await
                .unwrap_err()
                .to_string();
            assert!(e.contains("599") && e.contains("g.E()"), "{e}");
        });
        assert_eq!(server.stats.served.load(Ordering::Relaxed), 2);
        assert_eq!(server.stats.refused.load(Ordering::Relaxed), 1);
    }
}
