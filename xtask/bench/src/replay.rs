//! `cargo xtask replay` and the replayed rows of `cargo xtask bench`: a small loopback HTTP/1.1
//! server that answers each benchmark request with the bytes a real Gremlin Server sent for it
//! once, at full speed, so that wall time and CPU of an end-to-end measurement are the
//! client's own rather than the server's noise (issue 13).
//!
//! **Recording** ([`record`]): one `POST /gremlin` per workload to the real server with the
//! request every contender sends in substance (`{"gremlin": q, "bulkResults": false}`,
//! `Accept: application/vnd.graphbinary-v4.0`), over a plain socket so that nothing is lost: the
//! status line, every header, each chunk of the chunked body (its size kept, so the replay
//! chunks like the server did) and the trailers. With `deflate` the same again with
//! `Accept-Encoding: deflate`, as the server compressed it.
//!
//! **Serving** ([`serve`]): requests are matched by the `gremlin` text of their JSON body (every
//! contender sends a JSON body, each with other fields in another order, so bytes never match).
//! The other fields must leave the response as recorded (`language` gremlin-lang, `g` g,
//! `bulkResults` false, `batchSize` the server's 64, `materializeProperties` all, no
//! `parameters`): anything else is answered 400 with a JSON message naming the field, never with
//! bytes that would be wrong for it. The response is the recording's status line and headers,
//! except `Gremlin-RequestId`, a fresh id per response as the server does (no contender checks
//! it against anything: the request carries none), then the recorded chunks and trailers, from
//! one pre-rendered buffer. `Accept-Encoding` containing `deflate` (the server's substring test)
//! gets the deflated recording when there is one. Keep-alive as HTTP/1.1 (closed after
//! `Connection: close`), any number of connections, one tokio task each.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value as Json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub mod ws;
pub use ws::WsRecording;

/// Largest request head accepted, and largest request body.
const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 10 << 20;
/// Largest recorded response body (the benchmark's biggest is about 24 MB).
const MAX_RECORDED: u64 = 1 << 30;
/// The server's default `batchSize`, which the peers' requests leave as it is.
const SERVER_BATCH_SIZE: u64 = 64;
/// The `batchSize` our client asks for: each query is recorded with both (they flush the
/// answer in other chunks).
const CLIENT_BATCH_SIZE: u64 = graphbinary_client::client::DEFAULT_BATCH_SIZE as u64;

/// One recorded response.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The `gremlin` text of the request.
    pub query: String,
    /// Whether the request asked for `Accept-Encoding: deflate`.
    pub deflate: bool,
    /// The request's `batchSize`.
    pub batch_size: u64,
    /// E.g. `HTTP/1.1 200 OK`.
    pub status_line: String,
    /// Every response header, in order, as sent.
    pub headers: Vec<(String, String)>,
    /// The size of each chunk of the body, in order (without the terminating empty chunk).
    pub chunk_sizes: Vec<usize>,
    /// The body, the chunks concatenated.
    pub body: Vec<u8>,
    /// The trailer fields of the last chunk.
    pub trailers: Vec<(String, String)>,
}

impl Recording {
    /// The HTTP status code.
    pub fn status(&self) -> u16 {
        self.status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    /// A header's value (name matched case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The chunked body as sent on the wire: each chunk with its size line, the last
    /// (empty) chunk, the trailers and the final CRLF.
    fn wire_body(&self) -> Vec<u8> {
        let mut w = Vec::with_capacity(self.body.len() + self.chunk_sizes.len() * 12 + 64);
        let mut at = 0;
        for &n in &self.chunk_sizes {
            write!(w, "{n:x}\r\n").expect("write to a Vec");
            w.extend_from_slice(&self.body[at..at + n]);
            w.extend_from_slice(b"\r\n");
            at += n;
        }
        w.extend_from_slice(b"0\r\n");
        for (k, v) in &self.trailers {
            write!(w, "{k}: {v}\r\n").expect("write to a Vec");
        }
        w.extend_from_slice(b"\r\n");
        w
    }
}

/// Splits `{scheme}host:port/path` (`scheme` `http://` or `ws://`) into the socket address and
/// the path.
fn split_url(url: &str, scheme: &str) -> Result<(String, String)> {
    let rest = url
        .strip_prefix(scheme)
        .with_context(|| format!("only {scheme} URLs can be recorded from, not {url:?}"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let authority = if authority.contains(':') {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    Ok((authority, path.to_string()))
}

/// Records the real server's response at `url` to `query`, uncompressed or deflated, asking
/// for `batch_size` results per flush.
pub fn record(url: &str, query: &str, deflate: bool, batch_size: u64) -> Result<Recording> {
    let (authority, path) = split_url(url, "http://")?;
    let mut sock = TcpStream::connect(&authority)
        .with_context(|| format!("connecting to {authority} to record"))?;
    sock.set_read_timeout(Some(Duration::from_secs(600)))?;
    let body =
        serde_json::json!({ "gremlin": query, "bulkResults": false, "batchSize": batch_size })
            .to_string();
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/vnd.graphbinary-v4.0\r\nContent-Length: {}\r\n",
        body.len()
    );
    if deflate {
        req.push_str("Accept-Encoding: deflate\r\n");
    }
    // Keep-alive, as the contenders ask: the response then carries no `Connection` header.
    req.push_str("\r\n");
    req.push_str(&body);
    sock.write_all(req.as_bytes())?;
    let r = read_response(&mut BufReader::with_capacity(1 << 16, sock))
        .with_context(|| format!("recording {query:?} from {url}"))?;
    Ok(Recording {
        query: query.to_string(),
        deflate,
        batch_size,
        ..r
    })
}

/// A reader that counts the bytes consumed, for errors naming the offset.
struct Counted<'a, R> {
    r: &'a mut R,
    at: u64,
}

impl<R: BufRead> Counted<'_, R> {
    fn line(&mut self, what: &str) -> Result<String> {
        let mut l = Vec::new();
        let n = self
            .r
            .by_ref()
            .take(MAX_HEAD as u64)
            .read_until(b'\n', &mut l)?;
        ensure!(
            l.ends_with(b"\r\n"),
            "byte {}: expected {what} ending in CRLF, got {:?}",
            self.at,
            String::from_utf8_lossy(&l)
        );
        let at = self.at;
        self.at += n as u64;
        l.truncate(l.len() - 2);
        String::from_utf8(l).map_err(|_| anyhow::anyhow!("byte {at}: {what} is not UTF-8"))
    }

    fn fields(&mut self) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        loop {
            let at = self.at;
            let l = self.line("a header line")?;
            if l.is_empty() {
                return Ok(out);
            }
            let (k, v) = l
                .split_once(':')
                .with_context(|| format!("byte {at}: expected `name: value`, got {l:?}"))?;
            out.push((k.to_string(), v.trim().to_string()));
        }
    }

    /// Appends exactly `n` bytes to `out`, never allocating what `n` merely claims.
    fn bytes(&mut self, n: u64, out: &mut Vec<u8>) -> Result<()> {
        let got = self.r.by_ref().take(n).read_to_end(out)? as u64;
        ensure!(
            got == n,
            "byte {}: the body ended {got} bytes into a chunk of {n}",
            self.at + got
        );
        self.at += n;
        Ok(())
    }
}

/// Reads one HTTP/1.1 response (chunked or with a `Content-Length`). Errors name the byte
/// offset in the response where the bytes were not as expected.
fn read_response(r: &mut impl BufRead) -> Result<Recording> {
    let mut c = Counted { r, at: 0 };
    let status_line = c.line("the status line")?;
    ensure!(
        status_line.starts_with("HTTP/1.1 "),
        "byte 0: expected `HTTP/1.1 <status>`, got {status_line:?}"
    );
    let headers = c.fields()?;
    let get = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    let mut chunk_sizes = Vec::new();
    let mut trailers = Vec::new();
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let at = c.at;
            let l = c.line("a chunk size line")?;
            let hex = l.split(';').next().unwrap_or("").trim();
            let n = u64::from_str_radix(hex, 16)
                .with_context(|| format!("byte {at}: expected a hex chunk size, got {l:?}"))?;
            if n == 0 {
                trailers = c.fields()?;
                break;
            }
            ensure!(
                body.len() as u64 + n <= MAX_RECORDED,
                "byte {at}: a chunk of {n} bytes takes the body past {MAX_RECORDED} bytes"
            );
            c.bytes(n, &mut body)?;
            let at = c.at;
            ensure!(
                c.line("the CRLF after a chunk")?.is_empty(),
                "byte {at}: expected CRLF after a chunk of {n} bytes"
            );
            chunk_sizes.push(n as usize);
        }
    } else if let Some(len) = get("content-length") {
        let n: u64 = len.parse().context("Content-Length")?;
        ensure!(n <= MAX_RECORDED, "Content-Length {n} is too large");
        c.bytes(n, &mut body)?;
    } else {
        bail!("the response is neither chunked nor has a Content-Length");
    }
    Ok(Recording {
        query: String::new(),
        deflate: false,
        batch_size: SERVER_BATCH_SIZE,
        status_line,
        headers,
        chunk_sizes,
        body,
        trailers,
    })
}

/// What the replay server counts.
#[derive(Debug, Default)]
pub struct Stats {
    /// Requests answered from a recording.
    pub served: AtomicU64,
    /// Requests answered 400/404/411 (nothing recorded for them, or options that would change
    /// the response).
    pub refused: AtomicU64,
    /// Connections accepted.
    pub connections: AtomicU64,
}

impl Stats {
    /// `N responses served, N requests refused, N connections`.
    pub fn summary(&self) -> String {
        format!(
            "{} responses served, {} requests refused, {} connections",
            self.served.load(Ordering::Relaxed),
            self.refused.load(Ordering::Relaxed),
            self.connections.load(Ordering::Relaxed)
        )
    }
}

/// A running replay server; dropping it stops it.
pub struct Server {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its counters.
    pub stats: Arc<Stats>,
    rt: Option<tokio::runtime::Runtime>,
}

impl Server {
    /// The URL for HTTP clients (TinkerPop 4).
    pub fn url(&self) -> String {
        format!("http://{}/gremlin", self.addr)
    }

    /// The URL for WebSocket clients (TinkerPop 3).
    pub fn ws_url(&self) -> String {
        format!("ws://{}/gremlin", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// One response ready to send: the head without `Gremlin-RequestId`, and the chunked body.
struct Prepared {
    head: Vec<u8>,
    /// Whether the recording had a `Gremlin-RequestId` header (regenerated per response).
    request_id: bool,
    wire: Arc<[u8]>,
}

#[derive(Default)]
struct Table {
    /// (query, deflate, batchSize) -> response.
    responses: HashMap<(String, bool, u64), Prepared>,
    /// (query, mime) -> WebSocket answer.
    ws: HashMap<(String, String), ws::Prepared>,
}

impl Table {
    fn new(recs: &[Recording], ws_recs: &[WsRecording]) -> Self {
        let mut t = Table {
            ws: ws::prepare(ws_recs).into_iter().collect(),
            ..Table::default()
        };
        for r in recs {
            let mut head = format!("{}\r\n", r.status_line).into_bytes();
            let mut request_id = false;
            for (k, v) in &r.headers {
                if k.eq_ignore_ascii_case("gremlin-requestid") {
                    request_id = true;
                } else if k.eq_ignore_ascii_case("connection") {
                    // Keep-alive is decided per request (below), not by the recording.
                } else {
                    write!(head, "{k}: {v}\r\n").expect("write to a Vec");
                }
            }
            t.responses.insert(
                (r.query.clone(), r.deflate, r.batch_size),
                Prepared {
                    head,
                    request_id,
                    wire: r.wire_body().into(),
                },
            );
        }
        t
    }
}

/// Starts the replay server on 127.0.0.1:`port` (0: any free port) with `threads` tokio
/// worker threads: the HTTP `recordings` and, on the same port (upgraded `GET`s), the
/// WebSocket ones.
pub fn serve(
    port: u16,
    recordings: &[Recording],
    ws_recordings: &[WsRecording],
    threads: usize,
) -> Result<Server> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .thread_name("replay")
        .enable_io()
        .build()?;
    let listener = rt
        .block_on(tokio::net::TcpListener::bind(("127.0.0.1", port)))
        .with_context(|| format!("binding the replay server to 127.0.0.1:{port}"))?;
    let addr = listener.local_addr()?;
    let stats = Arc::new(Stats::default());
    let table = Arc::new(Table::new(recordings, ws_recordings));
    let st = stats.clone();
    rt.spawn(async move {
        let ids = Arc::new(AtomicU64::new(1));
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                continue;
            };
            let _ = sock.set_nodelay(true);
            st.connections.fetch_add(1, Ordering::Relaxed);
            let (table, st, ids) = (table.clone(), st.clone(), ids.clone());
            tokio::spawn(async move {
                let _ = connection(sock, &table, &st, &ids).await;
            });
        }
    });
    Ok(Server {
        addr,
        stats,
        rt: Some(rt),
    })
}

/// A parsed request head.
#[derive(Debug, Default, PartialEq)]
struct Head {
    method: String,
    content_length: Option<usize>,
    chunked: bool,
    deflate: bool,
    close: bool,
    /// `Upgrade: websocket`'s `Sec-WebSocket-Key`.
    websocket_key: Option<String>,
}

/// Parses a request head (request line and header lines, without the blank line).
fn parse_head(head: &[u8]) -> Result<Head, String> {
    let text = std::str::from_utf8(head)
        .map_err(|e| format!("byte {}: the request head is not UTF-8", e.valid_up_to()))?;
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap_or("").to_string();
    let version = parts.nth(1).unwrap_or("");
    if version != "HTTP/1.1" {
        return Err(format!(
            "byte 0: expected `<method> <path> HTTP/1.1`, got {request_line:?}"
        ));
    }
    let mut h = Head {
        method,
        ..Head::default()
    };
    let mut at = request_line.len() + 2;
    for l in lines {
        let (k, v) = l
            .split_once(':')
            .ok_or_else(|| format!("byte {at}: expected `name: value`, got {l:?}"))?;
        let v = v.trim();
        match k.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                h.content_length = Some(
                    v.parse()
                        .map_err(|_| format!("byte {at}: Content-Length {v:?} is not a number"))?,
                )
            }
            "transfer-encoding" => h.chunked = v.to_ascii_lowercase().contains("chunked"),
            "accept-encoding" => h.deflate = v.to_ascii_lowercase().contains("deflate"),
            "connection" => h.close = v.eq_ignore_ascii_case("close"),
            "sec-websocket-key" => h.websocket_key = Some(v.to_string()),
            _ => {}
        }
        at += l.len() + 2;
    }
    Ok(h)
}

/// The recorded query a JSON request body asks for and its `batchSize`, or why no recording
/// would be its answer.
fn requested_query(body: &[u8]) -> Result<(String, u64), String> {
    let j: Json = serde_json::from_slice(body).map_err(|e| {
        format!(
            "the body is not JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        )
    })?;
    let obj = j
        .as_object()
        .ok_or("the body is not a JSON object".to_string())?;
    let gremlin = obj
        .get("gremlin")
        .and_then(Json::as_str)
        .ok_or("no gremlin script supplied".to_string())?;
    let mut batch = SERVER_BATCH_SIZE;
    for (k, v) in obj {
        let as_recorded = match k.as_str() {
            "gremlin" | "timeoutMillis" => true,
            "language" => v == "gremlin-lang",
            "g" => v == "g",
            "bulkResults" => v == false,
            "batchSize" => v.as_u64().map(|b| batch = b).is_some(),
            "materializeProperties" => v == "all",
            _ => false,
        };
        if !as_recorded {
            return Err(format!(
                "the field {k:?} = {v} would change the response; the recording is for \
                 {{\"gremlin\": {gremlin:?}, \"bulkResults\": false}} with the server's defaults"
            ));
        }
    }
    Ok((gremlin.to_string(), batch))
}

fn json_error(status: &str, msg: &str, close: bool) -> Vec<u8> {
    let body = serde_json::json!({ "message": msg }).to_string();
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}\r\n{body}",
        body.len(),
        if close { "Connection: close\r\n" } else { "" }
    )
    .into_bytes()
}

async fn connection(
    mut sock: tokio::net::TcpStream,
    table: &Table,
    st: &Stats,
    ids: &AtomicU64,
) -> std::io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let mut scanned = 0;
    loop {
        // The head: up to the blank line.
        let end = loop {
            if let Some(i) = buf[scanned..].windows(4).position(|w| w == b"\r\n\r\n") {
                break scanned + i;
            }
            scanned = buf.len().saturating_sub(3);
            if buf.len() > MAX_HEAD {
                let e = json_error(
                    "431 Request Header Fields Too Large",
                    "head too large",
                    true,
                );
                return sock.write_all(&e).await;
            }
            if read_more(&mut sock, &mut buf).await? == 0 {
                return Ok(());
            }
        };
        let head = match parse_head(&buf[..end]) {
            Ok(h) => h,
            Err(msg) => {
                st.refused.fetch_add(1, Ordering::Relaxed);
                return sock
                    .write_all(&json_error("400 Bad Request", &msg, true))
                    .await;
            }
        };
        let body_start = end + 4;
        if let (Some(key), "GET") = (&head.websocket_key, head.method.as_str()) {
            // A TinkerPop 3 client: the connection is a WebSocket from here on.
            sock.write_all(&ws::upgrade_answer(key)).await?;
            buf.drain(..body_start);
            return ws::connection(sock, buf, table, st).await;
        }
        let Some(len) = head.content_length.filter(|_| !head.chunked) else {
            st.refused.fetch_add(1, Ordering::Relaxed);
            let msg = "the replay server needs a Content-Length request body";
            return sock
                .write_all(&json_error("411 Length Required", msg, true))
                .await;
        };
        if len > MAX_BODY {
            st.refused.fetch_add(1, Ordering::Relaxed);
            let e = json_error("413 Payload Too Large", "request body too large", true);
            return sock.write_all(&e).await;
        }
        while buf.len() < body_start + len {
            if read_more(&mut sock, &mut buf).await? == 0 {
                return Ok(());
            }
        }
        let answer = if head.method != "POST" {
            Err((
                "405 Method Not Allowed",
                "the replay server answers POST only".to_string(),
            ))
        } else {
            requested_query(&buf[body_start..body_start + len])
                .map_err(|m| ("400 Bad Request", m))
                .and_then(|(q, batch)| {
                    let key = (q, head.deflate, batch);
                    table
                        .responses
                        .get(&key)
                        .or_else(|| table.responses.get(&(key.0.clone(), false, batch)))
                        .ok_or_else(|| {
                            (
                                "404 Not Found",
                                format!(
                                    "nothing was recorded for {:?} with batchSize {batch}",
                                    key.0
                                ),
                            )
                        })
                })
        };
        buf.drain(..body_start + len);
        scanned = 0;
        match answer {
            Ok(p) => {
                st.served.fetch_add(1, Ordering::Relaxed);
                let mut out = Vec::with_capacity(p.head.len() + 64 + p.wire.len().min(1 << 16));
                out.extend_from_slice(&p.head);
                if head.close {
                    out.extend_from_slice(b"connection: close\r\n");
                }
                if p.request_id {
                    let n = ids.fetch_add(1, Ordering::Relaxed);
                    write!(
                        out,
                        "Gremlin-RequestId: 00000000-0000-4000-8000-{n:012x}\r\n"
                    )?;
                }
                out.extend_from_slice(b"\r\n");
                if p.wire.len() <= 1 << 16 {
                    out.extend_from_slice(&p.wire);
                    sock.write_all(&out).await?;
                } else {
                    sock.write_all(&out).await?;
                    sock.write_all(&p.wire).await?;
                }
            }
            Err((status, msg)) => {
                st.refused.fetch_add(1, Ordering::Relaxed);
                sock.write_all(&json_error(status, &msg, head.close))
                    .await?;
            }
        }
        if head.close {
            return sock.shutdown().await;
        }
    }
}

async fn read_more(sock: &mut tokio::net::TcpStream, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    buf.reserve(8192);
    sock.read_buf(buf).await
}

const HELP: &str = "usage: cargo xtask replay [--from URL] [--port N] [--deflate] QUERY...

Records the response of the Gremlin Server at --from (default http://127.0.0.1:8182/gremlin)
to each QUERY (a `{\"gremlin\": QUERY, \"bulkResults\": false}` request asking for GraphBinary 4;
with --deflate also a deflated one), then serves the recordings on 127.0.0.1:--port (default
8183) until Ctrl-C: each POST whose JSON body's `gremlin` is a recorded QUERY gets the recorded
status, headers, chunks and trailers. A ws:// --from (a TinkerPop 3 server) records each QUERY's
WebSocket answer instead, in GraphBinary 1 and in GraphSON 3, served to WebSocket clients at
ws://127.0.0.1:--port/gremlin (see replay/ws.rs). Used by `cargo xtask bench` for its replayed
rows.";

/// `cargo xtask replay ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut from = crate::server::url(8182);
    let mut port = 8183u16;
    let mut deflate = false;
    let mut queries = Vec::new();
    let mut a = graphbinary_kit::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--from" => from = a.value(arg)?.to_string(),
            "--port" => port = a.parse(arg)?,
            "--deflate" => deflate = true,
            q if q.starts_with("--") => return Err(a.unknown(q)),
            q => queries.push(q.to_string()),
        }
    }
    if a.helped() {
        return Ok(());
    }
    ensure!(!queries.is_empty(), "no QUERY given\n\n{HELP}");
    let (recs, ws_recs) = if from.starts_with("ws://") {
        (Vec::new(), ws::record_all(&from, &queries)?)
    } else {
        (record_all(&from, &queries, deflate)?, Vec::new())
    };
    let server = serve(port, &recs, &ws_recs, 2)?;
    let url = if ws_recs.is_empty() {
        server.url()
    } else {
        server.ws_url()
    };
    eprintln!("xtask replay: serving on {url} (Ctrl-C stops)");
    let (tx, rx) = std::sync::mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })?;
    let totals = || {
        (
            server.stats.served.load(Ordering::Relaxed),
            server.stats.refused.load(Ordering::Relaxed),
            server.stats.connections.load(Ordering::Relaxed),
        )
    };
    let mut shown = (0, 0, 0);
    // The totals, whenever they changed in the last 2 s, and at the end.
    while rx.recv_timeout(Duration::from_secs(2)).is_err() {
        if totals() != shown {
            shown = totals();
            eprintln!(
                "xtask replay: {} served, {} refused, {} connections",
                shown.0, shown.1, shown.2
            );
        }
    }
    let (served, refused, conns) = totals();
    eprintln!("xtask replay: {served} served, {refused} refused, {conns} connections");
    Ok(())
}

/// Records every query (and its deflated response with `deflate`), checking that each is a
/// chunked 200.
pub fn record_all(from: &str, queries: &[String], deflate: bool) -> Result<Vec<Recording>> {
    let mut recs = Vec::new();
    for q in queries {
        for d in [false, true] {
            if d && !deflate {
                continue;
            }
            for batch in [SERVER_BATCH_SIZE, CLIENT_BATCH_SIZE] {
                let r = record(from, q, d, batch)?;
                ensure!(
                    r.status() == 200,
                    "the server answered {q:?} with {}",
                    r.status_line
                );
                ensure!(
                    r.header("content-type") == Some("application/vnd.graphbinary-v4.0"),
                    "the server answered {q:?} with Content-Type {:?}, not GraphBinary 4",
                    r.header("content-type")
                );
                eprintln!(
                    "xtask replay: recorded {q:?}{}, batchSize {batch}: {} body bytes in {} \
                 chunks, headers {:?}, trailers {:?}",
                    if d { " (deflate)" } else { "" },
                    r.body.len(),
                    r.chunk_sizes.len(),
                    r.headers,
                    r.trailers
                );
                recs.push(r);
            }
        }
    }
    Ok(recs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Recording {
        let wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\
            Content-Type: application/vnd.graphbinary-v4.0\r\nGremlin-RequestId: x\r\n\r\n\
            3\r\nabc\r\n2\r\nde\r\n0\r\ncode: 200\r\n\r\n";
        let r = read_response(&mut &wire[..]).unwrap();
        Recording {
            query: "g.V()".into(),
            ..r
        }
    }

    #[test]
    fn a_chunked_response_is_recorded_chunk_by_chunk_and_rendered_back() {
        let r = sample();
        assert_eq!(r.status(), 200);
        assert_eq!(r.chunk_sizes, [3, 2]);
        assert_eq!(r.body, b"abcde");
        assert_eq!(r.trailers, [("code".to_string(), "200".to_string())]);
        assert_eq!(
            r.header("content-type"),
            Some("application/vnd.graphbinary-v4.0")
        );
        assert_eq!(
            r.wire_body(),
            b"3\r\nabc\r\n2\r\nde\r\n0\r\ncode: 200\r\n\r\n"
        );
    }

    #[test]
    fn a_bad_response_names_the_offset() {
        let e =
            read_response(&mut &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"[..])
                .unwrap_err()
                .to_string();
        assert!(e.contains("hex chunk size"), "{e}");
        let e = read_response(&mut &b"HTTP/1.1 200 OK\nX: y\r\n"[..])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("byte 0:"), "{e}");
        // A chunk that claims more than is there fails without allocating the claim.
        let e = read_response(
            &mut &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3fffffff\r\nab"[..],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("ended 2 bytes into a chunk"), "{e}");
    }

    #[test]
    fn requests_match_by_gremlin_text_and_batch_size_and_refuse_options_that_change_the_response() {
        for body in [
            r#"{"gremlin":"g.V()","language":"gremlin-lang","batchSize":64}"#,
            r#"{"batchSize":64,"g":"g","gremlin":"g.V()","language":"gremlin-lang"}"#,
            r#"{"gremlin": "g.V()", "g": "g", "batchSize": 64}"#,
            r#"{"bulkResults":false,"g":"g","gremlin":"g.V()"}"#,
            r#"{"gremlin":"g.V()","timeoutMillis":600000,"bulkResults":false}"#,
        ] {
            assert_eq!(
                requested_query(body.as_bytes()),
                Ok(("g.V()".to_string(), SERVER_BATCH_SIZE)),
                "{body}"
            );
        }
        // Our client's batchSize: its own recording.
        assert_eq!(
            requested_query(br#"{"gremlin":"g.V()","batchSize":8192}"#),
            Ok(("g.V()".to_string(), 8192))
        );
        for (body, field) in [
            (r#"{"gremlin":"g.V()","bulkResults":true}"#, "bulkResults"),
            (r#"{"gremlin":"g.V()","batchSize":"10"}"#, "batchSize"),
            (r#"{"gremlin":"g.V()","parameters":"[x:1]"}"#, "parameters"),
            (
                r#"{"gremlin":"g.V()","materializeProperties":"tokens"}"#,
                "materializeProperties",
            ),
        ] {
            let e = requested_query(body.as_bytes()).unwrap_err();
            assert!(e.contains(field), "{e}");
        }
        let e = requested_query(b"{\"gremlin\": 1").unwrap_err();
        assert!(e.contains("column"), "{e}");
    }

    #[test]
    fn request_heads_are_parsed() {
        let h = parse_head(
            b"POST /gremlin HTTP/1.1\r\ncontent-length: 60\r\nAccept-Encoding: gzip, deflate\r\nConnection: close",
        )
        .unwrap();
        assert_eq!(
            h,
            Head {
                method: "POST".into(),
                content_length: Some(60),
                chunked: false,
                deflate: true,
                close: true,
                websocket_key: None,
            }
        );
        let e = parse_head(b"POST / HTTP/1.0").unwrap_err();
        assert!(e.starts_with("byte 0"), "{e}");
        let e = parse_head(b"POST / HTTP/1.1\r\nbad header").unwrap_err();
        assert!(e.starts_with("byte 17"), "{e}");
    }

    #[test]
    fn the_server_replays_over_keep_alive_connections() {
        let server = serve(0, &[sample()], &[], 1).unwrap();
        let mut sock = TcpStream::connect(server.addr).unwrap();
        let body = r#"{"gremlin":"g.V()"}"#;
        let req = format!(
            "POST /gremlin HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut r = BufReader::new(sock.try_clone().unwrap());
        let mut ids = Vec::new();
        for _ in 0..2 {
            sock.write_all(req.as_bytes()).unwrap();
            let got = read_response(&mut r).unwrap();
            assert_eq!(got.chunk_sizes, [3, 2]);
            assert_eq!(got.body, b"abcde");
            assert_eq!(got.trailers.len(), 1);
            ids.push(got.header("gremlin-requestid").unwrap().to_string());
        }
        assert_ne!(ids[0], ids[1], "a fresh request id per response");
        let other = r#"{"gremlin":"g.E()"}"#;
        write!(
            sock,
            "POST /gremlin HTTP/1.1\r\nContent-Length: {}\r\n\r\n{other}",
            other.len()
        )
        .unwrap();
        let got = read_response(&mut r).unwrap();
        assert_eq!(got.status(), 404);
        assert!(String::from_utf8_lossy(&got.body).contains("g.E()"));
        assert_eq!(server.stats.served.load(Ordering::Relaxed), 2);
        assert_eq!(server.stats.refused.load(Ordering::Relaxed), 1);
    }
}
