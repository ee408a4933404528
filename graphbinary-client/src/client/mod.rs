//! The asynchronous HTTP client for Gremlin Server 4.
//!
//! A [`Client`] sends a script as an HTTP/1.1 `POST` with a JSON body and
//! `Accept: application/vnd.graphbinary-v4.0`, and decodes the GraphBinary 4 response as its
//! bytes arrive. It is built with [`Client::builder`]:
//!
//! ```no_run
//! # async fn demo() -> Result<(), graphbinary_client::client::Error> {
//! use std::time::Duration;
//! use graphbinary_client::client::Client;
//!
//! let client = Client::builder("http://127.0.0.1:8182/gremlin")
//!     .connect_timeout(Duration::from_secs(5))
//!     .read_timeout(Duration::from_secs(60))
//!     .pool_size(4)
//!     .build()?;
//! let raw = client.request("g.V().has('name', who).count()").param("who", "marko").send_raw().await?;
//! # drop(raw); Ok(()) }
//! ```
//!
//! Results stream as they are decoded; the stream's last item is the server's error, if any:
//!
//! ```no_run
//! use futures::TryStreamExt;
//! use graphbinary_client::Client;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::builder("http://127.0.0.1:8182/gremlin").build()?;
//! let mut results = client.submit("g.V().has('name', 'marko').out('knows')").await?;
//! while let Some(v) = results.try_next().await? {
//!     println!("{v}");
//! }
//! # Ok(()) }
//! ```
//!
//! # Transport
//!
//! HTTP goes through `reqwest` (hyper underneath) with rustls for TLS and without any of
//! reqwest's own decompression features, so the only `Accept-Encoding` sent is ours:
//! `deflate` when compression is on (the default). Gremlin Server's "deflate" is zlib
//! (RFC 1950) and is decoded per response, from its `Content-Encoding` header, since error
//! responses are never compressed.
//!
//! Gremlin Server does not pipeline, so each request needs a connection of its own; the pool
//! size bounds both the idle connections kept and the requests in flight: a request waits for a
//! free slot, and holds it until its response is read to the end or dropped. Dropping a
//! response early closes its connection (it is never returned to the pool half-read).

mod body;
mod convert;
mod error;
mod params;
mod results;

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{
    HeaderMap, HeaderValue, ACCEPT, ACCEPT_ENCODING, AUTHORIZATION, CONTENT_TYPE,
};
use tokio::sync::Semaphore;

pub use body::{BodyReader, ByteCounters};
pub use convert::ConversionError;
pub use results::{ResultStream, TraverserStream};

use crate::response::ReadOptions;
pub use error::{BoxError, Error, ServerError, TransportKind};
pub use params::{is_valid_param_name, GremlinLiteral};

/// The GraphBinary 4 MIME type sent in `Accept`.
pub const GRAPHBINARY_MIME: &str = "application/vnd.graphbinary-v4.0";

/// The default URL of a local Gremlin Server.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8182/gremlin";

/// The default pool size.
pub const DEFAULT_POOL_SIZE: usize = 8;

/// Largest error body (JSON or text) read from a non-GraphBinary error response.
const MAX_ERROR_BODY: usize = 1 << 20;

/// A client for one Gremlin Server endpoint. Cheap to clone: clones share the connection pool.
#[derive(Clone, Debug)]
pub struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    url: reqwest::Url,
    slots: Arc<Semaphore>,
    compression: bool,
    read_options: ReadOptions,
}

/// Builds a [`Client`]. See [`Client::builder`].
#[derive(Debug)]
pub struct ClientBuilder {
    url: String,
    connect_timeout: Option<Duration>,
    read_timeout: Option<Duration>,
    basic_auth: Option<(String, String)>,
    compression: bool,
    user_agent: Option<String>,
    application_name: String,
    pool_size: usize,
    pool_idle_timeout: Option<Duration>,
    root_certificates: Vec<Vec<u8>>,
    read_options: ReadOptions,
}

impl ClientBuilder {
    fn new(url: impl Into<String>) -> Self {
        ClientBuilder {
            url: url.into(),
            connect_timeout: Some(Duration::from_secs(10)),
            read_timeout: None,
            basic_auth: None,
            compression: true,
            user_agent: None,
            application_name: "graphbinary-rs".to_owned(),
            pool_size: DEFAULT_POOL_SIZE,
            pool_idle_timeout: Some(Duration::from_secs(90)),
            root_certificates: Vec::new(),
            read_options: ReadOptions::default(),
        }
    }

    /// How responses are decoded: limits against hostile input, read buffer capacity, fast
    /// path on or off (default [`ReadOptions::default`]).
    pub fn read_options(mut self, opts: ReadOptions) -> Self {
        self.read_options = opts;
        self
    }

    /// The server URL, `http://` or `https://` (default [`DEFAULT_URL`]).
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.url = url.into();
        self
    }

    /// How long to wait for a TCP (and TLS) connection; `None` waits forever. Default 10 s.
    pub fn connect_timeout(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.connect_timeout = t.into();
        self
    }

    /// How long to wait for each read from the connection (response headers or the next body
    /// bytes); `None` waits forever. Default `None`: the server's own `timeoutMillis` bounds a
    /// request.
    pub fn read_timeout(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.read_timeout = t.into();
        self
    }

    /// HTTP Basic authentication.
    pub fn basic_auth(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.basic_auth = Some((user.into(), password.into()));
        self
    }

    /// Asks for compressed responses (`Accept-Encoding: deflate`). Default on.
    pub fn compression(mut self, on: bool) -> Self {
        self.compression = on;
        self
    }

    /// Replaces the whole `User-Agent` header.
    pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
        self.user_agent = Some(ua.into());
        self
    }

    /// The application name at the start of the default `User-Agent` (default
    /// `graphbinary-rs`).
    pub fn application_name(mut self, name: impl Into<String>) -> Self {
        self.application_name = name.into();
        self
    }

    /// The number of connections: requests in flight at once, and idle connections kept
    /// (at least 1; default [`DEFAULT_POOL_SIZE`]).
    pub fn pool_size(mut self, n: usize) -> Self {
        self.pool_size = n.max(1);
        self
    }

    /// How long an idle pooled connection is kept; `None` keeps it until the server closes it.
    /// Default 90 s. Set it below the server's `idleConnectionTimeoutMillis` when that is
    /// enabled (Gremlin Server's default is 0, disabled), so that a request never races the
    /// server closing an idle connection.
    pub fn pool_idle_timeout(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.pool_idle_timeout = t.into();
        self
    }

    /// Trusts a PEM-encoded root certificate in addition to the platform's trust store.
    pub fn add_root_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.root_certificates.push(pem.into());
        self
    }

    /// Builds the client. Fails on an invalid URL or certificate.
    pub fn build(self) -> Result<Client, Error> {
        let url = reqwest::Url::parse(&self.url)
            .map_err(|e| Error::Config(format!("invalid URL {:?}: {e}", self.url)))?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(Error::Config(format!(
                "URL scheme must be http or https, not {:?}",
                url.scheme()
            )));
        }
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(GRAPHBINARY_MIME));
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if self.compression {
            headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("deflate"));
        }
        if let Some((user, pass)) = &self.basic_auth {
            let mut v = HeaderValue::from_str(&basic_auth_header(user, pass))
                .map_err(|e| Error::Config(format!("invalid credentials: {e}")))?;
            v.set_sensitive(true);
            headers.insert(AUTHORIZATION, v);
        }
        let ua = self
            .user_agent
            .unwrap_or_else(|| default_user_agent(&self.application_name));
        let mut b = reqwest::Client::builder()
            .http1_only()
            .no_proxy()
            .tls_backend_rustls()
            .default_headers(headers)
            .user_agent(ua)
            .pool_max_idle_per_host(self.pool_size)
            .pool_idle_timeout(self.pool_idle_timeout)
            .tcp_nodelay(true)
            .redirect(reqwest::redirect::Policy::none());
        if let Some(t) = self.connect_timeout {
            b = b.connect_timeout(t);
        }
        if let Some(t) = self.read_timeout {
            b = b.read_timeout(t);
        }
        for pem in &self.root_certificates {
            let cert = reqwest::Certificate::from_pem(pem)
                .map_err(|e| Error::Config(format!("invalid PEM certificate: {e}")))?;
            b = b.tls_certs_merge([cert]);
        }
        let http = b
            .build()
            .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                url,
                slots: Arc::new(Semaphore::new(self.pool_size)),
                compression: self.compression,
                read_options: self.read_options,
            }),
        })
    }
}

/// `Basic base64(user:password)` with the standard alphabet, as the official drivers send it.
fn basic_auth_header(user: &str, pass: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let input = format!("{user}:{pass}");
    let bytes = input.as_bytes();
    let mut out = String::from("Basic ");
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The TinkerPop user agent convention:
/// `<app> Gremlin-Rust.<version> <runtime version> <OS>.<OS version> <arch>`, spaces replaced
/// by `_`, unknown parts `NotAvailable`.
pub fn default_user_agent(application_name: &str) -> String {
    fn part(s: &str) -> String {
        let s = s.trim();
        if s.is_empty() {
            "NotAvailable".to_owned()
        } else {
            s.replace(' ', "_")
        }
    }
    let rustc = option_env!("GRAPHBINARY_RUSTC_VERSION").unwrap_or("");
    let os = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "Mac_OS_X",
        "windows" => "Windows",
        "freebsd" => "FreeBSD",
        other => other,
    };
    format!(
        "{} Gremlin-Rust.{} {} {}.{} {}",
        part(application_name),
        env!("CARGO_PKG_VERSION"),
        part(rustc),
        part(os),
        part(&os_version()),
        part(std::env::consts::ARCH)
    )
}

/// `major.minor` of the running kernel on Linux, empty elsewhere.
fn os_version() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|r| {
            r.trim()
                .split(['.', '-'])
                .take(2)
                .collect::<Vec<_>>()
                .join(".")
        })
        .unwrap_or_default()
}

/// `materializeProperties`: whether elements come with their properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterializeProperties {
    /// Elements carry all their properties (the server default).
    All,
    /// Elements carry only id and label.
    Tokens,
}

impl MaterializeProperties {
    fn as_str(self) -> &'static str {
        match self {
            MaterializeProperties::All => "all",
            MaterializeProperties::Tokens => "tokens",
        }
    }
}

impl Client {
    /// A builder for a client of the server at `url`.
    pub fn builder(url: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(url)
    }

    /// A client with default settings for the server at `url`.
    pub fn new(url: impl Into<String>) -> Result<Client, Error> {
        ClientBuilder::new(url).build()
    }

    /// The server URL.
    pub fn url(&self) -> &str {
        self.inner.url.as_str()
    }

    /// Whether responses are requested compressed.
    pub fn compression(&self) -> bool {
        self.inner.compression
    }

    /// Sends `gremlin` with default options; the results stream as they arrive.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// let n: i64 = client.submit("g.V().count()").await?.one().await?;
    /// # Ok(()) }
    /// ```
    pub async fn submit(&self, gremlin: impl Into<String>) -> Result<ResultStream, Error> {
        self.request(gremlin).send().await
    }

    /// A request for `gremlin`, to add parameters and options to before sending. It can be
    /// `.await`ed directly (same as [`RequestBuilder::send`]).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// let names = client
    ///     .request("g.V().hasLabel(l).values('name')")
    ///     .param("l", "person")
    ///     .batch_size(256)
    ///     .await?
    ///     .all()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn request(&self, gremlin: impl Into<String>) -> RequestBuilder {
        RequestBuilder {
            client: self.clone(),
            gremlin: gremlin.into(),
            params: Vec::new(),
            language: None,
            g: None,
            batch_size: None,
            timeout_millis: None,
            materialize_properties: None,
            bulk_results: None,
            error: None,
        }
    }
}

/// A request being built: the script, its parameters and per-request options.
#[derive(Debug)]
#[must_use = "a request does nothing until sent"]
pub struct RequestBuilder {
    client: Client,
    gremlin: String,
    params: Vec<(String, String)>,
    language: Option<String>,
    g: Option<String>,
    batch_size: Option<u32>,
    timeout_millis: Option<u64>,
    materialize_properties: Option<MaterializeProperties>,
    bulk_results: Option<bool>,
    error: Option<Error>,
}

impl RequestBuilder {
    /// Binds parameter `name` (a Java identifier) to `value`, rendered as a gremlin-lang
    /// literal. An invalid name makes sending fail with [`Error::InvalidRequest`].
    pub fn param(mut self, name: impl Into<String>, value: impl GremlinLiteral) -> Self {
        let name = name.into();
        if !is_valid_param_name(&name) {
            self.error.get_or_insert(Error::InvalidRequest(format!(
                "parameter name {name:?} is not an identifier"
            )));
            return self;
        }
        let mut lit = String::new();
        value.write_literal(&mut lit);
        if let Some(slot) = self.params.iter_mut().find(|(k, _)| *k == name) {
            slot.1 = lit;
        } else {
            self.params.push((name, lit));
        }
        self
    }

    /// Binds parameter `name` to a gremlin-lang literal written by the caller, verbatim
    /// (e.g. `datetime('2024-01-01T00:00:00Z')`).
    pub fn param_literal(mut self, name: impl Into<String>, literal: impl Into<String>) -> Self {
        let name = name.into();
        if !is_valid_param_name(&name) {
            self.error.get_or_insert(Error::InvalidRequest(format!(
                "parameter name {name:?} is not an identifier"
            )));
            return self;
        }
        self.params.push((name, literal.into()));
        self
    }

    /// Binds parameter `name` to any [`serde::Serialize`] value, rendered as a gremlin-lang
    /// literal by [`de::to_literal`](crate::de::to_literal) (a struct or a map as a map
    /// literal, a sequence as a list literal). A value with no literal (bytes, a map key that is
    /// not a string, number or boolean) or an invalid name makes sending fail with
    /// [`Error::InvalidRequest`].
    ///
    /// ```no_run
    /// # async fn f(client: graphbinary_client::Client) -> Result<(), graphbinary_client::client::Error> {
    /// #[derive(serde::Serialize)]
    /// struct Person<'a> { name: &'a str, age: i32 }
    /// // Renders ['name':'marko','age':29i]
    /// let id = client
    ///     .request("g.mergeV(person).id()")
    ///     .param_serialized("person", &Person { name: "marko", age: 29 })
    ///     .send()
    ///     .await?
    ///     .one::<i64>()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "serde")]
    pub fn param_serialized<T: serde::Serialize + ?Sized>(
        mut self,
        name: impl Into<String>,
        value: &T,
    ) -> Self {
        let name = name.into();
        match crate::de::to_literal(value) {
            Ok(lit) => self.param_literal(name, lit),
            Err(e) => {
                self.error.get_or_insert(Error::InvalidRequest(format!(
                    "parameter {name:?} has no gremlin-lang literal: {e}"
                )));
                self
            }
        }
    }

    /// The script language (server default `gremlin-lang`).
    pub fn language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// The traversal source alias (server default `g`).
    pub fn g(mut self, alias: impl Into<String>) -> Self {
        self.g = Some(alias.into());
        self
    }

    /// Results per HTTP chunk (server default 64).
    pub fn batch_size(mut self, n: u32) -> Self {
        self.batch_size = Some(n);
        self
    }

    /// Server-side timeout of this request in milliseconds (0 disables; server default 30 s).
    pub fn timeout_millis(mut self, ms: u64) -> Self {
        self.timeout_millis = Some(ms);
        self
    }

    /// Whether elements carry their properties.
    pub fn materialize_properties(mut self, m: MaterializeProperties) -> Self {
        self.materialize_properties = Some(m);
        self
    }

    /// Asks for bulked results: equal results merged into (value, count) pairs.
    pub fn bulk_results(mut self, on: bool) -> Self {
        self.bulk_results = Some(on);
        self
    }

    /// The JSON request body.
    pub fn body_json(&self) -> String {
        let mut m = serde_json::Map::new();
        m.insert("gremlin".into(), self.gremlin.clone().into());
        if !self.params.is_empty() {
            m.insert("parameters".into(), params::render_map(&self.params).into());
        }
        if let Some(l) = &self.language {
            m.insert("language".into(), l.clone().into());
        }
        if let Some(g) = &self.g {
            m.insert("g".into(), g.clone().into());
        }
        if let Some(n) = self.batch_size {
            m.insert("batchSize".into(), n.into());
        }
        if let Some(n) = self.timeout_millis {
            m.insert("timeoutMillis".into(), n.into());
        }
        if let Some(p) = self.materialize_properties {
            m.insert("materializeProperties".into(), p.as_str().into());
        }
        if let Some(b) = self.bulk_results {
            m.insert("bulkResults".into(), b.into());
        }
        serde_json::Value::Object(m).to_string()
    }

    /// Sends the request; the results stream as they arrive. Returns once the response
    /// headers are in (errors answered as JSON fail here; errors in the GraphBinary footer
    /// come as the stream's last item).
    pub async fn send(self) -> Result<ResultStream, Error> {
        let opts = self.client.inner.read_options;
        let raw = self.send_raw().await?;
        Ok(ResultStream::new(raw, opts))
    }

    /// Sends the request and returns the response once its headers have arrived, with the
    /// body as an [`AsyncRead`](tokio::io::AsyncRead) of (decompressed) GraphBinary.
    ///
    /// An error answered with a JSON body (HTTP status other than 200, any content type but
    /// GraphBinary) is returned as [`Error::Server`]. A GraphBinary body is returned as is,
    /// whatever the HTTP status: its footer carries the real status.
    pub async fn send_raw(self) -> Result<RawResponse, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let body = self.body_json();
        let inner = &self.client.inner;
        let permit = inner
            .slots
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let resp = inner
            .http
            .post(inner.url.clone())
            .body(body)
            .send()
            .await
            .map_err(Error::from_reqwest)?;
        let status = resp.status().as_u16();
        let headers = resp.headers();
        let content_type = header_str(headers, CONTENT_TYPE.as_str());
        let request_id = header_str(headers, "gremlin-requestid");
        let is_graphbinary = content_type
            .as_deref()
            .is_some_and(|ct| ct.trim().eq_ignore_ascii_case(GRAPHBINARY_MIME));
        if !is_graphbinary {
            return Err(error_from_non_graphbinary(status, content_type, resp).await);
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
            body: BodyReader::new(resp, zlib, Some(permit)),
        })
    }
}

impl std::future::IntoFuture for RequestBuilder {
    type Output = Result<ResultStream, Error>;
    type IntoFuture =
        std::pin::Pin<Box<dyn std::future::Future<Output = Self::Output> + Send + 'static>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

fn header_str(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// Turns a response that is not GraphBinary into an error: a JSON `{"message"}` error body
/// (Gremlin Server's pre-decoding errors), or any other body as text.
async fn error_from_non_graphbinary(
    status: u16,
    content_type: Option<String>,
    mut resp: reqwest::Response,
) -> Error {
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(c)) => {
                let room = MAX_ERROR_BODY - body.len();
                body.extend_from_slice(&c[..c.len().min(room)]);
                if body.len() >= MAX_ERROR_BODY {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => return Error::from_reqwest(e),
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
        http_status: status,
        code: i32::from(status),
        message,
        exception: None,
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
    use super::*;

    #[test]
    fn basic_auth_is_standard_base64() {
        assert_eq!(basic_auth_header("user", "pass"), "Basic dXNlcjpwYXNz");
        assert_eq!(basic_auth_header("a", ""), "Basic YTo=");
        assert_eq!(basic_auth_header("ab", ""), "Basic YWI6");
        assert_eq!(basic_auth_header("?>", "?"), "Basic Pz46Pw==");
    }

    #[test]
    fn user_agent_follows_the_convention() {
        let ua = default_user_agent("my app");
        let parts: Vec<&str> = ua.split(' ').collect();
        assert_eq!(parts.len(), 5, "{ua}");
        assert_eq!(parts[0], "my_app");
        assert_eq!(
            parts[1],
            concat!("Gremlin-Rust.", env!("CARGO_PKG_VERSION"))
        );
        assert!(parts[3].contains('.'), "{ua}");
        assert_eq!(parts[4], std::env::consts::ARCH);
    }

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
        assert_eq!(v["parameters"], r"[n:'ma\'rko',k:3l]");
        assert_eq!(v["language"], "gremlin-lang");
        assert_eq!(v["g"], "g");
        assert_eq!(v["batchSize"], 10);
        assert_eq!(v["timeoutMillis"], 500);
        assert_eq!(v["materializeProperties"], "tokens");
        assert_eq!(v["bulkResults"], true);
        let minimal: serde_json::Value =
            serde_json::from_str(&c.request("g.V()").body_json()).unwrap();
        assert_eq!(minimal, serde_json::json!({"gremlin": "g.V()"}));
    }

    #[test]
    fn invalid_param_name_fails_at_send() {
        let c = Client::new(DEFAULT_URL).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let e = rt
            .block_on(c.request("g.V()").param("a b", 1i32).send_raw())
            .unwrap_err();
        assert!(matches!(e, Error::InvalidRequest(_)), "{e:?}");
    }

    #[test]
    fn bad_urls_are_config_errors() {
        assert!(matches!(Client::new("not a url"), Err(Error::Config(_))));
        assert!(matches!(
            Client::new("ftp://127.0.0.1/"),
            Err(Error::Config(_))
        ));
    }
}
