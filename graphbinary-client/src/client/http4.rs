//! The TinkerPop 4 side of [`Client`](super::Client): a request's JSON body
//! ([`RequestBuilder::body_json`]), one try of it on one `http://` host (the request the
//! interceptors see, the pool slot it holds, the response headers checked), and turning a
//! response that is not GraphBinary into an [`Error`]. The send loop over the hosts is
//! `send.rs`.

use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderMap, HeaderValue, CONTENT_TYPE};

use super::params::{self, Param};
use super::send::Failed;
use super::transaction::{TxContext, TRANSACTION_ID_HEADER};
use super::{Error, Inner, RequestBuilder, ServerError, DEFAULT_BATCH_SIZE, GRAPHBINARY_MIME};
use crate::transport::http::{BodyReader, HttpClient};
use crate::transport::HttpRequest;

/// Largest error body (JSON or text) read from a non-GraphBinary error response.
const MAX_ERROR_BODY: usize = 1 << 20;

impl RequestBuilder {
    /// The JSON request body: its fields as set, and `batchSize` 8192 when none is set
    /// ([`batch_size`](Self::batch_size)).
    pub fn body_json(&self) -> String {
        let mut m = serde_json::Map::new();
        m.insert("gremlin".into(), self.gremlin.clone().into());
        if !self.params.is_empty() {
            let text = params::render_map(self.params.iter().map(|(k, p)| {
                let v = match p {
                    Param::Value {
                        literal: Some(t), ..
                    } => t.as_str(),
                    // Bound on a TinkerPop 3 client: no TinkerPop 4 body is sent.
                    Param::Value { literal: None, .. } => "null",
                    Param::Text(t) => t.as_str(),
                };
                (k.as_str(), v)
            }));
            m.insert("parameters".into(), text.into());
        }
        if let Some(l) = &self.language {
            m.insert("language".into(), l.clone().into());
        }
        if let Some(g) = &self.g {
            m.insert("g".into(), g.clone().into());
        }
        let n = self.batch_size.unwrap_or(DEFAULT_BATCH_SIZE);
        m.insert("batchSize".into(), n.into());
        if let Some(n) = self.timeout_millis {
            m.insert("timeoutMillis".into(), n.into());
        }
        if let Some(p) = self.materialize_properties {
            m.insert("materializeProperties".into(), p.as_str().into());
        }
        if let Some(b) = self.bulk_results {
            m.insert("bulkResults".into(), b.into());
        }
        if let Some(id) = self.transaction.as_ref().and_then(|t| t.id.as_ref()) {
            m.insert("transactionId".into(), id.clone().into());
        }
        serde_json::Value::Object(m).to_string()
    }
}

/// A request prepared once for every try over HTTP: the client, the body and the headers
/// every try starts with (the transaction's id among them).
pub(super) struct Prepared {
    pub(super) http: HttpClient,
    pub(super) body: Bytes,
    headers: HeaderMap,
}

impl Prepared {
    /// `request`'s body and headers (those of `tx` too), on `inner`'s HTTP client
    /// ([`Error::Closed`] once closed).
    pub(super) fn new(
        inner: &Inner,
        request: &RequestBuilder,
        tx: Option<&TxContext>,
    ) -> Result<Prepared, Error> {
        let http = inner.http()?;
        let mut headers = inner.headers.clone();
        if let Some(id) = tx.and_then(|t| t.id.as_deref()) {
            let v = HeaderValue::from_str(id).map_err(|_| {
                Error::Protocol(format!("transaction id {id:?} is not a header value"))
            })?;
            headers.insert(TRANSACTION_ID_HEADER, v);
        }
        Ok(Prepared {
            http,
            body: Bytes::from(request.body_json()),
            headers,
        })
    }
}

impl Inner {
    /// A pool slot: a request over HTTP holds one until the end of its body.
    pub(super) async fn slot(&self) -> tokio::sync::OwnedSemaphorePermit {
        if let Ok(p) = self.slots.clone().try_acquire_owned() {
            return p;
        }
        let waited = std::time::Instant::now();
        tracing::debug!(
            target: "graphbinary_client",
            pool_size = self.pool_size,
            "waiting for a free connection slot"
        );
        let p = self
            .slots
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        tracing::debug!(
            target: "graphbinary_client",
            waited_ms = waited.elapsed().as_millis() as u64,
            "got a connection slot"
        );
        p
    }

    /// One try of `req` on HTTP host `host`, bounded by `timeout` to the end of its body: the
    /// interceptors run, the request is sent, the response's headers are checked. On success
    /// the body holds `permit` (taken from it); a failure that sent nothing
    /// ([`Failed::unreachable`]) leaves it for the next host.
    pub(super) async fn send_http(
        &self,
        req: &Prepared,
        host: usize,
        timeout: Option<Duration>,
        permit: &mut Option<tokio::sync::OwnedSemaphorePermit>,
    ) -> Result<RawResponse, Failed> {
        let mut request = HttpRequest {
            method: http::Method::POST,
            url: self.hosts.url(host).clone(),
            headers: req.headers.clone(),
            body: req.body.clone(),
        };
        for i in &self.interceptors {
            i.intercept(&mut request).await.map_err(|source| {
                Failed::new(
                    Error::Interceptor {
                        name: i.name().to_owned(),
                        source,
                    },
                    None,
                )
            })?;
        }
        self.hosts.attempt(host);
        let sent = req
            .http
            .send(
                request.method,
                &request.url,
                request.headers,
                request.body,
                timeout,
            )
            .await;
        let resp = match sent {
            Ok(resp) => resp,
            Err(e) => {
                let nothing_sent = e.connect;
                if nothing_sent || !e.is_timeout() {
                    self.hosts.failed(host);
                }
                let mut f = Failed::new(Error::from_http(e), Some(host));
                f.unreachable = nothing_sent;
                return Err(f);
            }
        };
        self.hosts.succeeded(host);
        if let Some(max) = self.max_response_header_bytes {
            let size: usize = resp
                .headers
                .iter()
                .map(|(k, v)| k.as_str().len() + v.len() + 4)
                .sum();
            if size > max {
                return Err(Failed::new(
                    Error::Protocol(format!(
                        "response headers of {size} bytes exceed the limit of {max}"
                    )),
                    Some(host),
                ));
            }
        }
        let retry_after = super::retry::retry_after(&resp.headers);
        let permit = match permit.take() {
            Some(p) => p,
            None => self.slot().await,
        };
        into_raw(resp, permit, self.closing.clone())
            .await
            .map_err(|error| Failed {
                retry_after,
                ..Failed::new(error, Some(host))
            })
    }
}

async fn into_raw(
    resp: crate::transport::http::Response,
    permit: tokio::sync::OwnedSemaphorePermit,
    closing: std::sync::Arc<super::Closing>,
) -> Result<RawResponse, Error> {
    let status = resp.status;
    let headers = &resp.headers;
    let content_type = header_str(headers, CONTENT_TYPE.as_str());
    let request_id = header_str(headers, "gremlin-requestid");
    let is_graphbinary = content_type
        .as_deref()
        .is_some_and(|ct| ct.trim().eq_ignore_ascii_case(GRAPHBINARY_MIME));
    if !is_graphbinary {
        return Err(error_from_non_graphbinary(status, content_type, resp.body).await);
    }
    let zlib = match header_str(headers, "content-encoding").as_deref() {
        None => false,
        Some(e) if e.trim().eq_ignore_ascii_case("deflate") => true,
        Some(e) if e.trim().eq_ignore_ascii_case("identity") => false,
        Some(other) => {
            return Err(Error::Protocol(format!(
                "unsupported Content-Encoding {other:?}"
            )))
        }
    };
    Ok(RawResponse {
        status,
        request_id,
        body: BodyReader::new(resp.body, zlib, Some(permit)).closed_by(closing),
    })
}

fn header_str(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// Turns a response that is not GraphBinary into an error: a JSON `{"message"}` error body
/// (Gremlin Server's pre-decoding errors), or any other body as text.
async fn error_from_non_graphbinary(
    status: u16,
    content_type: Option<String>,
    mut resp: crate::transport::http::Body,
) -> Error {
    use futures::StreamExt;
    let mut body = Vec::new();
    loop {
        match resp.next().await.transpose() {
            Ok(Some(c)) => {
                let room = MAX_ERROR_BODY - body.len();
                body.extend_from_slice(&c[..c.len().min(room)]);
                if body.len() >= MAX_ERROR_BODY {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => return Error::from_http(e),
        }
    }
    if status == 200 {
        return Error::Protocol(format!(
            "HTTP 200 with Content-Type {:?} instead of {GRAPHBINARY_MIME}",
            content_type.unwrap_or_default()
        ));
    }
    let message = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .or_else(|| {
            let text = String::from_utf8_lossy(&body).trim().to_owned();
            (!text.is_empty()).then_some(text)
        });
    Error::Server(ServerError {
        http_status: Some(status),
        code: i32::from(status),
        message,
        exception: None,
        attributes: Default::default(),
    })
}

/// A response whose headers have arrived, with its body still to read.
#[derive(Debug)]
pub struct RawResponse {
    /// The HTTP status (200, or e.g. 400 for guard failures answered in GraphBinary).
    pub status: u16,
    /// The `Gremlin-RequestId` header.
    pub request_id: Option<String>,
    /// The (decompressed) GraphBinary body.
    pub body: BodyReader,
}

#[cfg(test)]
mod tests {
    use super::super::{Client, MaterializeProperties, DEFAULT_URL};

    #[test]
    fn body_json_has_the_protocol_field_names() {
        let c = Client::new(DEFAULT_URL).unwrap();
        let r = c
            .request("g.V().has('name',n)")
            .param("n", "ma'rko")
            .param("k", 3i64)
            .language("gremlin-lang")
            .g("g")
            .batch_size(10)
            .timeout_millis(500)
            .materialize_properties(MaterializeProperties::Tokens)
            .bulk_results(true);
        let v: serde_json::Value = serde_json::from_str(&r.body_json()).unwrap();
        assert_eq!(v["gremlin"], "g.V().has('name',n)");
        assert_eq!(v["parameters"], r#"[n:"ma'rko",k:3L]"#);
        assert_eq!(v["language"], "gremlin-lang");
        assert_eq!(v["g"], "g");
        assert_eq!(v["batchSize"], 10);
        assert_eq!(v["timeoutMillis"], 500);
        assert_eq!(v["materializeProperties"], "tokens");
        assert_eq!(v["bulkResults"], true);
        // No batch size set: DEFAULT_BATCH_SIZE, with compression (the default) and without.
        let plain = Client::builder(DEFAULT_URL)
            .compression(false)
            .build()
            .unwrap();
        for client in [&c, &plain] {
            let minimal: serde_json::Value =
                serde_json::from_str(&client.request("g.V()").body_json()).unwrap();
            assert_eq!(
                minimal,
                serde_json::json!({"gremlin": "g.V()", "batchSize": super::DEFAULT_BATCH_SIZE})
            );
        }
    }
}
