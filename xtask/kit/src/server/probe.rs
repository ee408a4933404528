//! A minimal HTTP/1.1 client over `std::net::TcpStream`, just enough to ask a Gremlin Server
//! `g.V().count()` and check the answer. It is not the project's HTTP client: one request per
//! connection (`Connection: close`), whole response read into memory, chunked bodies decoded,
//! trailers skipped.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// The GraphBinary 4 MIME type.
pub const GRAPHBINARY: &str = "application/vnd.graphbinary-v4.0";

/// A whole HTTP response.
#[derive(Debug)]
pub struct Response {
    /// Status code of the status line.
    pub status: u16,
    /// Header names (lower-cased) and values, in order.
    pub headers: Vec<(String, String)>,
    /// Body, de-chunked.
    pub body: Vec<u8>,
}

impl Response {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// POSTs the JSON `body` to `http://{addr}/gremlin` with the given `Accept`.
pub fn post(addr: SocketAddr, body: &str, accept: &str, timeout: Duration) -> Result<Response> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let request = format!(
        "POST /gremlin HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: {accept}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes())?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .context("reading the response")?;
    parse(&raw)
}

fn parse(raw: &[u8]) -> Result<Response> {
    let head_end = find(raw, b"\r\n\r\n").context("response ends inside its header")?;
    let head = std::str::from_utf8(&raw[..head_end]).context("response header is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("bad status line {status_line:?}"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[head_end + 4..];
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked {
        dechunk(rest)?
    } else {
        rest.to_vec()
    };
    Ok(Response {
        status,
        headers,
        body,
    })
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = find(data, b"\r\n").context("chunk size line not terminated")?;
        let size_text = std::str::from_utf8(&data[..line_end])?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .with_context(|| format!("bad chunk size {size_text:?}"))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(body); // trailers follow; not needed here
        }
        if data.len() < size + 2 {
            bail!(
                "truncated chunk: {size} bytes announced, {} left",
                data.len()
            );
        }
        body.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Asks `g.V().count()` in GraphBinary 4 and returns the count.
///
/// Only this one response shape is understood: `84 00 | 02 00 <i64> | fd 00 00 | <i32 200>
/// | 01 | 01` (version, not bulked, a Long, end marker, status, null message, null exception).
pub fn vertex_count(addr: SocketAddr, timeout: Duration) -> Result<i64> {
    let resp = post(addr, r#"{"gremlin":"g.V().count()"}"#, GRAPHBINARY, timeout)?;
    if resp.status != 200 {
        bail!(
            "HTTP {} {}",
            resp.status,
            String::from_utf8_lossy(&resp.body)
        );
    }
    if resp.header("content-type") != Some(GRAPHBINARY) {
        bail!(
            "content-type {:?}, not {GRAPHBINARY}",
            resp.header("content-type")
        );
    }
    let b = &resp.body;
    let expected_tail = [0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01];
    if b.len() != 21 || b[..4] != [0x84, 0x00, 0x02, 0x00] || b[12..] != expected_tail {
        bail!("unexpected GraphBinary body {b:02x?}");
    }
    let mut long = [0u8; 8];
    long.copy_from_slice(&b[4..12]);
    Ok(i64::from_be_bytes(long))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_chunked_response_with_trailers() {
        let raw = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: x\r\n\r\n\
                    3\r\nabc\r\n2\r\nde\r\n0\r\ncode: 200\r\n\r\n";
        let r = parse(raw).unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.header("Content-Type"), Some("x"));
        assert_eq!(r.body, b"abcde");
    }

    #[test]
    fn rejects_a_truncated_chunk() {
        let raw = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n9\r\nabc";
        assert!(parse(raw).is_err());
    }

    /// End-to-end against the server that `cargo xtask ci` starts (modern dataset).
    #[test]
    fn real_server_counts_the_modern_vertices() {
        let Ok(url) = std::env::var("GREMLIN_URL") else {
            eprintln!("GREMLIN_URL not set: skipping the check against a real Gremlin Server");
            return;
        };
        let authority = url.trim_start_matches("http://").split('/').next().unwrap();
        let addr: SocketAddr = authority.parse().expect("GREMLIN_URL host:port");
        assert_eq!(vertex_count(addr, Duration::from_secs(10)).unwrap(), 6);
        let resp = post(
            addr,
            r#"{"gremlin":"g.V("}"#,
            GRAPHBINARY,
            Duration::from_secs(10),
        )
        .unwrap();
        // Evaluation errors come with HTTP 200 and the error in the GraphBinary footer.
        assert_eq!(resp.status, 200);
        assert_eq!(&resp.body[..7], &[0x84, 0x00, 0xfd, 0x00, 0x00, 0x00, 0x00]);
        assert_eq!(&resp.body[7..9], &[0x01, 0x90]); // footer code 400
    }

    #[test]
    fn reads_a_plain_body() {
        let raw = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}";
        let r = parse(raw).unwrap();
        assert_eq!((r.status, r.body.as_slice()), (400, &b"{}"[..]));
    }
}
