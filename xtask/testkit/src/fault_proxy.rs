//! A fault-injecting TCP proxy for the tests, in front of a real server (in the style of
//! scylla-proxy): it forwards every byte both ways, and a fault armed with
//! [`FaultProxy::arm`] is taken by the next request that passes through it (an HTTP request,
//! or a binary WebSocket frame from the client; [`Fault::StallBeforeHeaders`] on a WebSocket
//! connection is taken by the upgrade request), and applied to that request's response.
//!
//! The proxy reads both streams as what they are, so that faults land where they mean to:
//! an HTTP response as its head and then its chunked (or `Content-Length`) body, a WebSocket
//! connection as its upgrade and then its frames. "Payload" bytes are those of the body's
//! chunks or of the frames, counted from the request that took the fault; a "boundary" is the
//! start of a chunk's size line or of a frame header.
//!
//! It counts the requests it saw ([`FaultProxy::requests`]) and forwarded
//! ([`FaultProxy::forwarded`]), the bytes the server sent ([`FaultProxy::bytes_from_server`]),
//! and the client connections open now
//! ([`FaultProxy::open_connections`]); [`FaultProxy::close_connections`] closes them all (as a
//! server closing its idle connections).

#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::upstream;

/// What the proxied connections speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// HTTP/1.1 (TinkerPop 4).
    Http,
    /// WebSocket (TinkerPop 3).
    Ws,
}

/// Builds what a forged answer sends from the request it answers (HTTP: the whole request;
/// WebSocket: the unmasked payload of the request frame). HTTP: raw response bytes; WebSocket:
/// the payload of one binary frame.
pub type Forger = Arc<dyn Fn(&[u8]) -> Vec<u8> + Send + Sync>;

/// A fault, applied to the response of the request that takes it.
#[derive(Clone)]
pub enum Fault {
    /// The request is forwarded, and not one byte of the answer (for a WebSocket upgrade:
    /// of the `101`, nor anything after it).
    StallBeforeHeaders,
    /// The head and `n` payload bytes are forwarded, then nothing more, not even a pong; the
    /// connection stays open.
    StallAfter(usize),
    /// After `n` payload bytes the client's connection is reset (RST).
    ResetAfter(usize),
    /// After `n` payload bytes the client's connection is closed cleanly (FIN).
    CloseAfter(usize),
    /// At the first boundary after `n` payload bytes these bytes are written, then nothing
    /// more is forwarded (a bad chunk size, a close frame, an oversized frame header, ...).
    InjectAt(usize, Vec<u8>),
    /// HTTP: a header of about `n` bytes is added to the response head.
    HugeHead(usize),
    /// Every payload byte is replaced (the framing is kept).
    Garbage,
    /// The answer is forwarded `n` bytes at a time, one piece every `every`.
    Drip(usize, Duration),
    /// The request is not forwarded: the client gets what the forger writes.
    Forge(Forger),
    /// The request is not forwarded: the client's connection is reset.
    ResetBeforeResponse,
    /// WebSocket: the request is forwarded, and the payload of each binary frame of the
    /// answer (until the client's next request) is replaced by what the function makes of it,
    /// in a frame of its own length (e.g. attributes added to a status).
    Rewrite(Forger),
}

impl std::fmt::Debug for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::StallBeforeHeaders => f.write_str("StallBeforeHeaders"),
            Fault::StallAfter(n) => write!(f, "StallAfter({n})"),
            Fault::ResetAfter(n) => write!(f, "ResetAfter({n})"),
            Fault::CloseAfter(n) => write!(f, "CloseAfter({n})"),
            Fault::InjectAt(n, b) => write!(f, "InjectAt({n}, {b:02x?})"),
            Fault::HugeHead(n) => write!(f, "HugeHead({n})"),
            Fault::Garbage => f.write_str("Garbage"),
            Fault::Drip(n, t) => write!(f, "Drip({n}, {t:?})"),
            Fault::Forge(_) => f.write_str("Forge(..)"),
            Fault::ResetBeforeResponse => f.write_str("ResetBeforeResponse"),
            Fault::Rewrite(_) => f.write_str("Rewrite(..)"),
        }
    }
}

struct Shared {
    upstream: SocketAddr,
    protocol: Protocol,
    faults: Mutex<VecDeque<Fault>>,
    requests: AtomicUsize,
    forwarded: AtomicUsize,
    /// Bytes read from the server, on every connection.
    from_server: AtomicU64,
    open: AtomicUsize,
    /// Bumped by [`FaultProxy::close_connections`]: each connection open then closes.
    close: tokio::sync::watch::Sender<u64>,
}

impl Shared {
    fn take(&self, upgrade: bool) -> Option<Fault> {
        let mut q = self.faults.lock().unwrap();
        match q.front() {
            Some(Fault::StallBeforeHeaders) if upgrade => q.pop_front(),
            Some(Fault::StallBeforeHeaders) if self.protocol == Protocol::Ws => None,
            Some(_) if upgrade => None,
            _ => q.pop_front(),
        }
    }
}

/// The proxy: a listener on 127.0.0.1 forwarding to one upstream server.
pub struct FaultProxy {
    addr: SocketAddr,
    path: String,
    shared: Arc<Shared>,
    listener: tokio::task::JoinHandle<()>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

impl FaultProxy {
    /// A proxy in front of the server of `url` (`http://host:port/path` or `ws://...`).
    pub async fn start(url: &str) -> FaultProxy {
        let protocol = if url.starts_with("ws") {
            Protocol::Ws
        } else {
            Protocol::Http
        };
        let (upstream, path) = upstream::upstream(url).await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            upstream,
            protocol,
            faults: Mutex::new(VecDeque::new()),
            requests: AtomicUsize::new(0),
            forwarded: AtomicUsize::new(0),
            from_server: AtomicU64::new(0),
            open: AtomicUsize::new(0),
            close: tokio::sync::watch::Sender::new(0),
        });
        let s = shared.clone();
        let listener = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let s = s.clone();
                s.open.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let _ = serve(client, &s).await;
                    s.open.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        FaultProxy {
            addr,
            path,
            shared,
            listener,
        }
    }

    /// The proxy's URL (the upstream URL with the proxy's address).
    pub fn url(&self) -> String {
        let scheme = match self.shared.protocol {
            Protocol::Http => "http",
            Protocol::Ws => "ws",
        };
        format!("{scheme}://{}{}", self.addr, self.path)
    }

    /// A client of the proxy for the fault tests of a writer that retries by itself (the
    /// batch writer, the loader): it connects within 5 s, gives up on an answer after 3 s (a
    /// stalled answer ends soon) and retries nothing of its own.
    pub fn writer_client(&self) -> graphbinary_client::Client {
        graphbinary_client::Client::builder(self.url())
            .connect_timeout(Duration::from_secs(5))
            .read_timeout(Duration::from_secs(3))
            .retry_policy(graphbinary_client::client::RetryPolicy::none())
            .build()
            .expect("a client of the fault proxy")
    }

    /// Arms `fault` for the next request (faults are taken in the order armed).
    pub fn arm(&self, fault: Fault) {
        self.shared.faults.lock().unwrap().push_back(fault);
    }

    /// Faults armed and not yet taken.
    pub fn armed(&self) -> usize {
        self.shared.faults.lock().unwrap().len()
    }

    /// Removes the faults not yet taken.
    pub fn disarm(&self) {
        self.shared.faults.lock().unwrap().clear();
    }

    /// Requests seen (HTTP requests; WebSocket: binary frames from the client).
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// Requests forwarded to the server.
    pub fn forwarded(&self) -> usize {
        self.shared.forwarded.load(Ordering::SeqCst)
    }

    /// The bytes the server sent through the proxy so far (as they crossed the wire:
    /// compressed where the server compressed them).
    pub fn bytes_from_server(&self) -> u64 {
        self.shared.from_server.load(Ordering::SeqCst)
    }

    /// Client connections open now.
    pub fn open_connections(&self) -> usize {
        self.shared.open.load(Ordering::SeqCst)
    }

    /// Closes (FIN) every client connection open now, and its upstream one, whatever it is
    /// doing: as a server closing its idle connections. Later connections are served.
    pub fn close_connections(&self) {
        self.shared.close.send_modify(|n| *n += 1);
    }
}

/// A complete unit of the client's stream.
enum Unit {
    /// The WebSocket upgrade request.
    Upgrade(Vec<u8>),
    /// An HTTP request, or a binary WebSocket frame (with its unmasked payload).
    Request { bytes: Vec<u8>, payload: Vec<u8> },
    /// Anything else (a WebSocket control frame).
    Other(Vec<u8>),
}

/// Splits the client's stream into units.
struct ClientParser {
    protocol: Protocol,
    buf: Vec<u8>,
    upgraded: bool,
}

impl ClientParser {
    fn feed(&mut self, data: &[u8]) -> Vec<Unit> {
        self.buf.extend_from_slice(data);
        let mut units = Vec::new();
        loop {
            let unit = if self.protocol == Protocol::Http || !self.upgraded {
                let Some(end) = find(&self.buf, b"\r\n\r\n") else {
                    break;
                };
                let head = String::from_utf8_lossy(&self.buf[..end]).to_ascii_lowercase();
                let len = header(&head, "content-length")
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(0);
                let total = end + 4 + len;
                if self.buf.len() < total {
                    break;
                }
                let bytes: Vec<u8> = self.buf.drain(..total).collect();
                if self.protocol == Protocol::Ws {
                    self.upgraded = true;
                    Unit::Upgrade(bytes)
                } else {
                    Unit::Request {
                        payload: bytes.clone(),
                        bytes,
                    }
                }
            } else {
                let Some((header_len, len, mask)) = frame_header(&self.buf) else {
                    break;
                };
                let total = header_len + len;
                if self.buf.len() < total {
                    break;
                }
                let bytes: Vec<u8> = self.buf.drain(..total).collect();
                if bytes[0] & 0x0f == 0x2 {
                    let mut payload = bytes[header_len..].to_vec();
                    if let Some(m) = mask {
                        for (i, b) in payload.iter_mut().enumerate() {
                            *b ^= m[i % 4];
                        }
                    }
                    Unit::Request { bytes, payload }
                } else {
                    Unit::Other(bytes)
                }
            };
            units.push(unit);
        }
        units
    }
}

/// A WebSocket frame header at the start of `b`: its length, the payload length and the mask.
fn frame_header(b: &[u8]) -> Option<(usize, usize, Option<[u8; 4]>)> {
    if b.len() < 2 {
        return None;
    }
    let masked = b[1] & 0x80 != 0;
    let (mut at, len) = match b[1] & 0x7f {
        126 => (
            4,
            u16::from_be_bytes(b.get(2..4)?.try_into().ok()?) as usize,
        ),
        127 => (
            10,
            usize::try_from(u64::from_be_bytes(b.get(2..10)?.try_into().ok()?)).ok()?,
        ),
        n => (2, n as usize),
    };
    let mask = if masked {
        let m: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
        at += 4;
        Some(m)
    } else {
        None
    };
    Some((at, len, mask))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A header's value in a lower-cased head.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == name).then(|| v.trim())
    })
}

/// What a byte of the server's stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Part of a head (the `\n` ending its status line: `FirstLineEnd`).
    Head,
    FirstLineEnd,
    /// The first byte of a chunk-size line or of a frame header.
    Boundary,
    /// Framing after the boundary's first byte.
    Framing,
    /// A byte of a chunk's data or of a frame's payload.
    Payload,
}

#[derive(Debug)]
enum S {
    Head,
    /// A chunk-size line (`first`: no byte of it seen yet).
    Size {
        first: bool,
        line: Vec<u8>,
    },
    Data(usize),
    DataEnd(usize),
    /// Trailer lines after the last chunk; `empty`: the current line has no byte yet.
    Trailer {
        empty: bool,
    },
    Fixed(usize),
    /// WebSocket frames: the header bytes seen so far.
    FrameHead(Vec<u8>),
    FramePayload(usize),
}

/// Classifies each byte of the server's stream.
struct ServerParser {
    protocol: Protocol,
    state: S,
    head: Vec<u8>,
}

impl ServerParser {
    fn classify(&mut self, b: u8) -> Kind {
        match &mut self.state {
            S::Head => {
                self.head.push(b);
                let first_line_end =
                    b == b'\n' && !self.head[..self.head.len() - 1].contains(&b'\n');
                if self.head.ends_with(b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&self.head).to_ascii_lowercase();
                    self.head.clear();
                    self.state = if self.protocol == Protocol::Ws {
                        S::FrameHead(Vec::new())
                    } else if header(&head, "transfer-encoding")
                        .is_some_and(|v| v.contains("chunked"))
                    {
                        S::Size {
                            first: true,
                            line: Vec::new(),
                        }
                    } else {
                        match header(&head, "content-length").and_then(|v| v.parse().ok()) {
                            Some(0) | None => S::Head,
                            Some(n) => S::Fixed(n),
                        }
                    };
                }
                if first_line_end {
                    Kind::FirstLineEnd
                } else {
                    Kind::Head
                }
            }
            S::Size { first, line } => {
                let kind = if *first {
                    Kind::Boundary
                } else {
                    Kind::Framing
                };
                *first = false;
                line.push(b);
                if b == b'\n' {
                    let text = String::from_utf8_lossy(line);
                    let hex = text.trim().split(';').next().unwrap_or("").trim();
                    let n = usize::from_str_radix(hex, 16).unwrap_or(0);
                    self.state = if n == 0 {
                        S::Trailer { empty: true }
                    } else {
                        S::Data(n)
                    };
                }
                kind
            }
            S::Data(n) => {
                *n -= 1;
                if *n == 0 {
                    self.state = S::DataEnd(2);
                }
                Kind::Payload
            }
            S::DataEnd(n) => {
                *n -= 1;
                if *n == 0 {
                    self.state = S::Size {
                        first: true,
                        line: Vec::new(),
                    };
                }
                Kind::Framing
            }
            S::Trailer { empty } => {
                if b == b'\n' {
                    if *empty {
                        self.state = S::Head;
                    } else {
                        *empty = true;
                    }
                } else if b != b'\r' {
                    *empty = false;
                }
                Kind::Framing
            }
            S::Fixed(n) => {
                *n -= 1;
                if *n == 0 {
                    self.state = S::Head;
                }
                Kind::Payload
            }
            S::FrameHead(h) => {
                let kind = if h.is_empty() {
                    Kind::Boundary
                } else {
                    Kind::Framing
                };
                h.push(b);
                if let Some((header_len, len, _)) = frame_header(h) {
                    if h.len() == header_len {
                        self.state = if len == 0 {
                            S::FrameHead(Vec::new())
                        } else {
                            S::FramePayload(len)
                        };
                    }
                }
                kind
            }
            S::FramePayload(n) => {
                *n -= 1;
                if *n == 0 {
                    self.state = S::FrameHead(Vec::new());
                }
                Kind::Payload
            }
        }
    }
}

/// A final WebSocket frame of `opcode` (unmasked, as a server sends it) of `payload`.
pub fn ws_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    ws_frame_with(0x80 | opcode, payload)
}

/// A WebSocket frame (unmasked, as a server sends it) whose first byte is `first` (FIN, the
/// RSV bits, the opcode) of `payload`.
pub fn ws_frame_with(first: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![first];
    match payload.len() {
        n if n < 126 => f.push(n as u8),
        n if n <= 0xffff => {
            f.push(126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    f.extend_from_slice(payload);
    f
}

enum End {
    Reset,
    Close,
}

async fn serve(mut client: TcpStream, shared: &Shared) -> std::io::Result<()> {
    let mut up = TcpStream::connect(shared.upstream).await?;
    client.set_nodelay(true)?;
    up.set_nodelay(true)?;
    let mut cp = ClientParser {
        protocol: shared.protocol,
        buf: Vec::new(),
        upgraded: false,
    };
    let mut sp = ServerParser {
        protocol: shared.protocol,
        state: S::Head,
        head: Vec::new(),
    };
    let mut active: Option<Fault> = None;
    let mut seen = 0usize;
    let mut stalled = false;
    let mut drip: VecDeque<u8> = VecDeque::new();
    let mut drip_every: Option<(usize, tokio::time::Interval)> = None;
    // The frame being rewritten (Fault::Rewrite): its header and payload bytes so far.
    let mut rewriting: Vec<u8> = Vec::new();
    let mut cbuf = vec![0u8; 16 * 1024];
    let mut ubuf = vec![0u8; 16 * 1024];
    let mut close = shared.close.subscribe();
    loop {
        let tick = async {
            match &mut drip_every {
                Some((_, i)) if !drip.is_empty() => {
                    i.tick().await;
                }
                _ => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = close.changed() => return Ok(()),
            r = client.read(&mut cbuf) => {
                let n = r?;
                if n == 0 {
                    return Ok(());
                }
                for unit in cp.feed(&cbuf[..n]) {
                    match unit {
                        Unit::Other(bytes) => up.write_all(&bytes).await?,
                        Unit::Upgrade(bytes) => {
                            if let Some(f) = shared.take(true) {
                                active = Some(f);
                                stalled = true;
                            }
                            up.write_all(&bytes).await?;
                        }
                        Unit::Request { bytes, payload } => {
                            shared.requests.fetch_add(1, Ordering::SeqCst);
                            seen = 0;
                            match shared.take(false) {
                                Some(Fault::Forge(forger)) => {
                                    let answer = forger(&payload);
                                    let out = match shared.protocol {
                                        Protocol::Http => answer,
                                        Protocol::Ws => ws_frame(0x2, &answer),
                                    };
                                    client.write_all(&out).await?;
                                    continue;
                                }
                                Some(Fault::ResetBeforeResponse) => {
                                    client.set_zero_linger()?;
                                    return Ok(());
                                }
                                Some(Fault::Drip(n, every)) => {
                                    let mut i = tokio::time::interval(every);
                                    i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                                    drip_every = Some((n.max(1), i));
                                    active = None;
                                }
                                Some(Fault::StallBeforeHeaders) => {
                                    active = None;
                                    stalled = true;
                                }
                                other => active = other,
                            }
                            shared.forwarded.fetch_add(1, Ordering::SeqCst);
                            up.write_all(&bytes).await?;
                        }
                    }
                }
            }
            r = up.read(&mut ubuf) => {
                let n = r?;
                shared.from_server.fetch_add(n as u64, Ordering::SeqCst);
                if n == 0 {
                    // The server closed: so does the proxy, after what is queued.
                    if let Some((k, i)) = drip_every.as_mut() {
                        while !drip.is_empty() {
                            i.tick().await;
                            let piece: Vec<u8> = drip.drain(..(*k).min(drip.len())).collect();
                            client.write_all(&piece).await?;
                        }
                    }
                    client.shutdown().await?;
                    return Ok(());
                }
                if stalled {
                    continue;
                }
                let mut out = Vec::with_capacity(n);
                let mut end = None;
                for &b in &ubuf[..n] {
                    let kind = sp.classify(b);
                    match &active {
                        None => out.push(b),
                        Some(Fault::StallAfter(k)) if kind == Kind::Payload && seen >= *k => {
                            stalled = true;
                            break;
                        }
                        Some(Fault::ResetAfter(k)) if kind == Kind::Payload && seen >= *k => {
                            end = Some(End::Reset);
                            break;
                        }
                        Some(Fault::CloseAfter(k)) if kind == Kind::Payload && seen >= *k => {
                            end = Some(End::Close);
                            break;
                        }
                        Some(Fault::InjectAt(k, bytes)) if kind == Kind::Boundary && seen >= *k => {
                            out.extend_from_slice(bytes);
                            stalled = true;
                            break;
                        }
                        Some(Fault::HugeHead(size)) if kind == Kind::FirstLineEnd => {
                            out.push(b);
                            out.extend_from_slice(b"X-Padding: ");
                            out.extend(std::iter::repeat_n(b'a', *size));
                            out.extend_from_slice(b"\r\n");
                            active = None;
                        }
                        Some(Fault::Garbage) if kind == Kind::Payload => out.push(0xee),
                        Some(Fault::Rewrite(rewrite)) => {
                            rewriting.push(b);
                            if matches!(&sp.state, S::FrameHead(h) if h.is_empty()) {
                                let (header_len, _, _) =
                                    frame_header(&rewriting).expect("a whole frame");
                                if rewriting[0] & 0x0f == 0x2 {
                                    let payload = rewrite(&rewriting[header_len..]);
                                    out.extend_from_slice(&ws_frame(0x2, &payload));
                                } else {
                                    out.extend_from_slice(&rewriting);
                                }
                                rewriting.clear();
                            }
                        }
                        Some(_) => out.push(b),
                    }
                    if kind == Kind::Payload {
                        seen += 1;
                    }
                }
                if drip_every.is_some() {
                    drip.extend(out);
                } else {
                    client.write_all(&out).await?;
                }
                match end {
                    Some(End::Reset) => {
                        client.set_zero_linger()?;
                        return Ok(());
                    }
                    Some(End::Close) => {
                        client.shutdown().await?;
                        return Ok(());
                    }
                    None => {}
                }
            }
            () = tick => {
                if let Some((k, _)) = &drip_every {
                    let piece: Vec<u8> = drip.drain(..(*k).min(drip.len())).collect();
                    client.write_all(&piece).await?;
                }
            }
        }
    }
}
