//! A self-contained probe of a TinkerPop 3 server, independent of graphbinary-client: one
//! WebSocket request over `std::net::TcpStream`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use anyhow::{ensure, Result};

/// A WebSocket upgrade of `GET /gremlin`, one masked binary frame holding a GraphBinary 1 `eval` of `g.V().count()`,
/// and the status code of the first response frame (200 with count `expected`, or 407 with
/// `--auth`). `expected`: 6 for the modern graph; `None` takes any count (a JanusGraph Server
/// on Cassandra, whose shared graph holds what the cluster wrote).
pub fn status(addr: SocketAddr, timeout: Duration, expected: Option<i64>) -> Result<i32> {
    let mut s = TcpStream::connect_timeout(&addr, timeout)?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    write!(
        s,
        "GET /gremlin HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte)?;
        head.push(byte[0]);
        ensure!(head.len() < 8192, "upgrade response headers too long");
    }
    let head = String::from_utf8_lossy(&head);
    ensure!(
        head.starts_with("HTTP/1.1 101"),
        "no WebSocket upgrade: {}",
        head.lines().next().unwrap_or_default()
    );
    let payload = eval_request("g.V().count()");
    let mut frame = vec![0x82, 0x80 | 126];
    frame.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    let mask = [0x11, 0x22, 0x33, 0x44];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    s.write_all(&frame)?;
    let mut h = [0u8; 2];
    s.read_exact(&mut h)?;
    ensure!(
        h[0] & 0x0f == 2,
        "expected a binary frame, got opcode {}",
        h[0] & 0x0f
    );
    let len = match h[1] & 0x7f {
        126 => {
            let mut l = [0u8; 2];
            s.read_exact(&mut l)?;
            u16::from_be_bytes(l) as usize
        }
        127 => {
            let mut l = [0u8; 8];
            s.read_exact(&mut l)?;
            usize::try_from(u64::from_be_bytes(l))?
        }
        n => n as usize,
    };
    ensure!(
        (22..1 << 20).contains(&len),
        "response frame of {len} bytes"
    );
    let mut body = vec![0u8; len];
    s.read_exact(&mut body)?;
    ensure!(
        body[0] == 0x81,
        "response version 0x{:02x}, expected 0x81",
        body[0]
    );
    let status = i32::from_be_bytes(body[18..22].try_into()?);
    if status == 200 {
        // ... {result_data: 09 00 00000001 02 00 <Long 6>} at the end.
        let tail = &body[body.len() - 10..];
        ensure!(
            tail[..2] == [0x02, 0x00],
            "g.V().count() did not end in a Long"
        );
        let count = i64::from_be_bytes(tail[2..].try_into()?);
        if let Some(expected) = expected {
            ensure!(
                count == expected,
                "g.V().count() = {count}, expected the modern graph's {expected}"
            );
        }
    }
    Ok(status)
}

/// `{mime}{0x81}{request id}{op "eval"}{processor ""}{args {gremlin, language}}`.
fn eval_request(gremlin: &str) -> Vec<u8> {
    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as i32).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn fq_string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&[0x03, 0x00]);
        string(out, s);
    }
    let mime = "application/vnd.graphbinary-v1.0";
    let mut out = vec![mime.len() as u8];
    out.extend_from_slice(mime.as_bytes());
    out.push(0x81);
    out.extend_from_slice(&[0x5a; 16]);
    string(&mut out, "eval");
    string(&mut out, "");
    out.extend_from_slice(&2i32.to_be_bytes());
    fq_string(&mut out, "gremlin");
    fq_string(&mut out, gremlin);
    fq_string(&mut out, "language");
    fq_string(&mut out, "gremlin-groovy");
    out
}
