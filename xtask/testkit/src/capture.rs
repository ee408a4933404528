//! A loopback HTTP responder that captures the requests it receives and answers each with a
//! fixed GraphBinary response (`g.V().count()` = 6), for tests of what the client sends.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The 21-byte GraphBinary answer: one Long 6, status 200.
pub const COUNT_6: &[u8] = &[
    0x84, 0x00, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 6, 0xfd, 0x00, 0x00, 0, 0, 0, 200, 0x01, 0x01,
];

/// One captured request.
#[derive(Debug, Clone)]
pub struct Captured {
    /// `POST /gremlin HTTP/1.1`.
    pub request_line: String,
    /// Header (lower-cased name, value) pairs in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Captured {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A responder on 127.0.0.1 (an ephemeral port); it stops when dropped.
pub struct Responder {
    pub url: String,
    pub port: u16,
    captured: Arc<Mutex<Vec<Captured>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Responder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Responder {
    pub async fn start() -> Responder {
        Self::start_on(0).await
    }

    /// A responder on 127.0.0.1:`port` (0: an ephemeral one).
    pub async fn start_on(port: u16) -> Responder {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let captured = Arc::new(Mutex::new(Vec::new()));
        let c = captured.clone();
        let task = tokio::spawn(async move {
            // Bounded: at most 1000 connections over the test's life.
            for _ in 0..1000 {
                let Ok((mut sock, _)) = listener.accept().await else {
                    return;
                };
                let c = c.clone();
                tokio::spawn(async move {
                    // Bounded: at most 100 requests on one keep-alive connection.
                    for _ in 0..100 {
                        match tokio::time::timeout(Duration::from_secs(10), read_request(&mut sock))
                            .await
                        {
                            Ok(Some(req)) => {
                                c.lock().unwrap().push(req);
                                let head = format!(
                                    "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.graphbinary-v4.0\r\nGremlin-RequestId: 00000000-0000-0000-0000-000000000001\r\nContent-Length: {}\r\n\r\n",
                                    COUNT_6.len()
                                );
                                if sock.write_all(head.as_bytes()).await.is_err()
                                    || sock.write_all(COUNT_6).await.is_err()
                                {
                                    return;
                                }
                            }
                            _ => return,
                        }
                    }
                });
            }
        });
        Responder {
            url: format!("http://127.0.0.1:{port}/gremlin"),
            port,
            captured,
            task,
        }
    }

    pub fn captured(&self) -> Vec<Captured> {
        self.captured.lock().unwrap().clone()
    }
}

async fn read_request(sock: &mut tokio::net::TcpStream) -> Option<Captured> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        if buf.len() > 1 << 20 {
            return None;
        }
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let request_line = lines.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(len);
    Some(Captured {
        request_line,
        headers,
        body,
    })
}
