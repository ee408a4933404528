//! The TinkerPop 3 mode of `bench_client` (a `ws://` or `wss://` URL): the same command line
//! and JSON line, through `graphbinary_client::ws::Client3` (GraphBinary 1 over WebSocket,
//! `eval` scripts in gremlin-groovy against the traversal source `g`).
//!
//! Latency uses one connection. Throughput runs `--concurrency` tasks, each sending its
//! requests one after the other, over `--connections` connections (default: one per task, as
//! the 3.x drivers' pools lend a connection to one request at a time; fewer connections
//! multiplex the tasks' requests, which `Client3` routes by request id). `--serializer` picks
//! GraphBinary 1 (the default) or GraphSON 3 / 2 (`Options3::serializer`).
//!
//! `--compression deflate` offers permessage-deflate (`Options3::compression`; off by default
//! here, unlike the client's default, so that each row says what it measures).
//!
//! `--consume raw` is the floor, not a client: its own WebSocket handshake on a plain socket,
//! each request one GraphBinary 1 `eval` frame, and the answer's frames read into one reused
//! buffer (inflated into another with `--compression deflate`) with nothing decoded but each
//! message's status code (at its fixed offset): what a client cannot go below on this server
//! and machine. Its JSON line gives the payload bytes (inflated) instead of a result count.

use std::sync::Arc;

use futures::StreamExt;
use graphbinary_client::ws::{Client3, Eval, Options3};
use graphbinary_client::{Serializer, Value};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::{fail, peak_rss_kib, Args, Consume};

/// One request, every result consumed; returns the result count (bulks included) and, with
/// `--consume all`, the results.
async fn one(client: &Client3, a: &Args) -> Result<(u64, Vec<(Value, i64)>), String> {
    let mut stream = client
        .eval(Eval::new(a.plan.query.clone()))
        .await
        .map_err(|e| e.to_string())?;
    if a.consume == Consume::Drain {
        let mut n = 0u64;
        while let Some(r) = stream.next().await {
            let (_, bulk) = r.map_err(|e| e.to_string())?;
            n += bulk.max(0) as u64;
        }
        Ok((n, Vec::new()))
    } else {
        let mut all = Vec::new();
        while let Some(r) = stream.next().await {
            all.push(r.map_err(|e| e.to_string())?);
        }
        Ok((all.iter().map(|(_, b)| b.max(&0)).sum::<i64>() as u64, all))
    }
}

async fn connect(url: &str, serializer: Serializer, compression: bool) -> Client3 {
    let options = Options3 {
        serializer,
        compression,
        ..Options3::default()
    };
    Client3::connect_with(url, options)
        .await
        .unwrap_or_else(|e| fail(format!("connecting to {url}: {e}")))
}

async fn latency(a: Args) -> serde_json::Value {
    let client = connect(&a.url, a.serializer, a.compression).await;
    let m = a
        .plan
        .latency(|n: &u64| *n, || one(&client, &a))
        .await
        .unwrap_or_else(|e| fail(e));
    json!({
        "peer": "rust", "mode": "latency", "query": a.plan.query, "compression": compression(&a),
        "consume": a.consume.name(), "protocol": protocol(a.serializer),
        "runs": m.runs, "results": m.first.unwrap_or(0), "bytes": null, "cpu_secs": m.cpu_secs,
        "peak_rss_kib": peak_rss_kib(),
    })
}

async fn throughput(a: Args) -> serde_json::Value {
    let a = Arc::new(a);
    // All at once, as the 3.x drivers open their pools: one after the other, a thousand
    // connections across a 60 ms round trip took two minutes (outside the timed part).
    let n = a.connections.unwrap_or(a.plan.concurrency).max(1);
    let clients =
        futures::future::join_all((0..n).map(|_| connect(&a.url, a.serializer, a.compression)))
            .await;
    let clients = Arc::new(clients);
    let request = {
        let (clients, a) = (clients.clone(), a.clone());
        move |i: usize| {
            let (clients, a) = (clients.clone(), a.clone());
            async move { one(&clients[i % clients.len()], &a).await.map(|(n, _)| n) }
        }
    };
    let m = a.plan.throughput(request).await.unwrap_or_else(|e| fail(e));
    json!({
        "peer": "rust", "mode": "throughput", "query": a.plan.query, "compression": compression(&a),
        "protocol": protocol(a.serializer), "connections": clients.len(),
        "concurrency": a.plan.concurrency, "requests": a.plan.requests, "wall_secs": m.wall_secs,
        "req_per_sec": a.plan.requests as f64 / m.wall_secs, "results": m.results, "bytes": null,
        "cpu_secs": m.cpu_secs, "peak_rss_kib": peak_rss_kib(),
    })
}

/// One connection of the raw floor: the socket after the upgrade, the buffer every frame's
/// payload is read into and, where the server agreed to permessage-deflate, the inflater and
/// the buffer a compressed message is inflated into.
struct Raw {
    sock: BufReader<TcpStream>,
    payload: Vec<u8>,
    inflate: Option<flate2::Decompress>,
    plain: Vec<u8>,
}

/// The `compression` field of the JSON line.
fn compression(a: &Args) -> &'static str {
    if a.compression {
        "deflate"
    } else {
        "none"
    }
}

impl Raw {
    /// Connects to `url` (`ws://host:port/path`) and takes the upgrade's `101` head.
    async fn connect(url: &str, compression: bool) -> Result<Raw, String> {
        let rest = url
            .strip_prefix("ws://")
            .ok_or("--consume raw takes a ws:// URL")?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let path = if path.is_empty() { "/" } else { path };
        let tcp = TcpStream::connect(authority)
            .await
            .map_err(|e| format!("connecting to {authority}: {e}"))?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut sock = BufReader::with_capacity(1 << 16, tcp);
        let head = format!(
            "GET {path} HTTP/1.1\r\nHost: {authority}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n{}\r\n",
            if compression {
                "Sec-WebSocket-Extensions: permessage-deflate\r\n"
            } else {
                ""
            }
        );
        let io = |e: std::io::Error| e.to_string();
        sock.get_mut()
            .write_all(head.as_bytes())
            .await
            .map_err(io)?;
        let mut line = String::new();
        sock.read_line(&mut line).await.map_err(io)?;
        if !line.starts_with("HTTP/1.1 101") {
            return Err(format!("the upgrade was refused: {line:?}"));
        }
        let mut inflate = None;
        while line != "\r\n" {
            line.clear();
            if sock.read_line(&mut line).await.map_err(io)? == 0 {
                return Err("the connection ended in the upgrade's head".into());
            }
            let lower = line.to_ascii_lowercase();
            if lower.starts_with("sec-websocket-extensions:") {
                if !compression || !lower.contains("permessage-deflate") {
                    return Err(format!("an extension not offered: {line:?}"));
                }
                if lower.contains("server_no_context_takeover") {
                    return Err("the raw floor keeps the server's window".into());
                }
                inflate = Some(flate2::Decompress::new(false));
            }
        }
        Ok(Raw {
            sock,
            payload: Vec::new(),
            inflate,
            plain: Vec::new(),
        })
    }

    /// Sends `query` as a GraphBinary 1 `eval` (`language` gremlin-groovy, as a driver's
    /// `submit` sends it) and reads the answer's frames up to the message whose status is
    /// not 206; returns the payload bytes.
    async fn eval(&mut self, query: &str) -> Result<u64, String> {
        use graphbinary_client::ws::{new_request_id, RequestMessage};
        use graphbinary_client::Value;
        let mut req = RequestMessage::eval(query);
        req.request_id = new_request_id();
        req.args
            .push(("language".into(), Value::String("gremlin-groovy".into())));
        let body = req.encode_ws().map_err(|e| e.to_string())?;
        // A client frame: FIN + binary, masked (RFC 6455 5.3) with a fixed key.
        let mask = [0x12u8, 0x34, 0x56, 0x78];
        let mut frame = vec![0x82];
        match body.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n <= 0xffff => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        frame.extend_from_slice(&mask);
        frame.extend(body.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.sock
            .get_mut()
            .write_all(&frame)
            .await
            .map_err(|e| e.to_string())?;
        // Each message opens with {0x81}{0x00 request id (16 bytes)}{status code Int}.
        let (mut bytes, mut first_of_message, mut code) = (0u64, true, 0);
        let mut compressed = false;
        loop {
            let (fin, opcode, rsv1) = self.frame().await?;
            match opcode {
                8 => return Err("the server closed the connection".into()),
                9 | 10 => continue,
                _ => {}
            }
            if first_of_message {
                compressed = rsv1;
                self.plain.clear();
            }
            if compressed {
                // Inflated whole; the status read at the message's end, its bytes counted
                // inflated (the same in every run, unlike the compressed ones: the window
                // carries over from one message to the next).
                self.inflate_payload(fin)?;
                if fin {
                    bytes += self.plain.len() as u64;
                    code = self
                        .plain
                        .get(18..22)
                        .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                        .ok_or("a response message shorter than its header")?;
                }
            } else {
                bytes += self.payload.len() as u64;
            }
            if !compressed && first_of_message {
                code = self
                    .payload
                    .get(18..22)
                    .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                    .ok_or("a response message shorter than its header")?;
            }
            if fin && code != 206 {
                return match code {
                    200 | 204 => Ok(bytes),
                    _ => Err(format!("status {code}")),
                };
            }
            first_of_message = fin;
        }
    }

    /// Inflates `payload` onto `plain` (and, at the message's end, the tail the sender
    /// stripped).
    fn inflate_payload(&mut self, end: bool) -> Result<(), String> {
        const TAIL: [u8; 4] = [0, 0, 0xff, 0xff];
        let Raw {
            inflate,
            payload,
            plain,
            ..
        } = self;
        let z = inflate
            .as_mut()
            .ok_or("a compressed frame on a connection without permessage-deflate")?;
        let tail: &[u8] = if end { &TAIL } else { &[] };
        for mut input in [&payload[..], tail] {
            loop {
                plain.reserve(64 * 1024);
                let before = z.total_in();
                z.decompress_vec(input, plain, flate2::FlushDecompress::Sync)
                    .map_err(|e| format!("a message does not inflate: {e}"))?;
                input = &input[(z.total_in() - before) as usize..];
                if input.is_empty() && plain.len() < plain.capacity() {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Reads one server frame into `payload`; its FIN bit, opcode and RSV1 bit.
    async fn frame(&mut self) -> Result<(bool, u8, bool), String> {
        let io = |e: std::io::Error| e.to_string();
        let mut h = [0u8; 2];
        self.sock.read_exact(&mut h).await.map_err(io)?;
        let len = match h[1] & 0x7f {
            126 => u64::from(self.sock.read_u16().await.map_err(io)?),
            127 => self.sock.read_u64().await.map_err(io)?,
            n => u64::from(n),
        };
        if h[1] & 0x80 != 0 || len > 1 << 30 {
            return Err(format!("a server frame masked or of {len} bytes"));
        }
        self.payload.resize(len as usize, 0);
        self.sock.read_exact(&mut self.payload).await.map_err(io)?;
        Ok((h[0] & 0x80 != 0, h[0] & 0x0f, h[0] & 0x40 != 0))
    }
}

/// The raw floor's latency (one connection) or throughput (one connection per task).
async fn raw(a: Args) -> serde_json::Value {
    if a.plan.mode == "latency" {
        let mut conn = Raw::connect(&a.url, a.compression)
            .await
            .unwrap_or_else(|e| fail(e));
        let conn = tokio::sync::Mutex::new(&mut conn);
        let m = a
            .plan
            .latency(
                |n: &u64| *n,
                || async { conn.lock().await.eval(&a.plan.query).await.map(|n| (n, ())) },
            )
            .await
            .unwrap_or_else(|e| fail(e));
        return json!({
            "peer": "rust", "mode": "latency", "query": a.plan.query, "compression": compression(&a),
            "consume": "raw", "protocol": "raw websocket frames", "runs": m.runs,
            "results": null, "bytes": m.first.unwrap_or(0), "cpu_secs": m.cpu_secs,
            "peak_rss_kib": peak_rss_kib(),
        });
    }
    let mut conns = Vec::new();
    for _ in 0..a.connections.unwrap_or(a.plan.concurrency).max(1) {
        let c = Raw::connect(&a.url, a.compression)
            .await
            .unwrap_or_else(|e| fail(e));
        conns.push(tokio::sync::Mutex::new(c));
    }
    let (conns, query) = (Arc::new(conns), Arc::new(a.plan.query.clone()));
    let request = {
        let (conns, query) = (conns.clone(), query.clone());
        move |i: usize| {
            let (conns, query) = (conns.clone(), query.clone());
            async move { conns[i % conns.len()].lock().await.eval(&query).await }
        }
    };
    let m = a.plan.throughput(request).await.unwrap_or_else(|e| fail(e));
    json!({
        "peer": "rust", "mode": "throughput", "query": a.plan.query, "compression": compression(&a),
        "protocol": "raw websocket frames", "connections": conns.len(),
        "concurrency": a.plan.concurrency, "requests": a.plan.requests, "wall_secs": m.wall_secs,
        "req_per_sec": a.plan.requests as f64 / m.wall_secs, "results": null, "bytes": null,
        "cpu_secs": m.cpu_secs, "peak_rss_kib": peak_rss_kib(),
    })
}

/// The `protocol` field of the JSON line: the serializer's mime type over WebSocket.
fn protocol(s: Serializer) -> String {
    format!("{} websocket", s.mime_type())
}

/// Runs the measurement of `a` against a TinkerPop 3 server and prints its JSON line.
pub fn main(a: Args) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let line = rt.block_on(super::in_task(async move {
        if a.consume == Consume::Raw {
            raw(a).await
        } else if a.plan.mode == "latency" {
            latency(a).await
        } else {
            throughput(a).await
        }
    }));
    println!("{line}");
}
