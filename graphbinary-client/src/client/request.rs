//! [`RequestBuilder`]: one request's script, parameters and options, its JSON body, sending
//! it, and turning a response that is not GraphBinary into an [`Error`].

use std::time::Duration;

use http::header::{HeaderMap, HeaderValue, CONTENT_TYPE};

use super::params::{self, is_valid_param_name, Param};
use super::retry;
use super::transaction::{TxContext, TRANSACTION_ID_HEADER};
use super::{Client, Error, ResultStream, ServerError, Transport, GRAPHBINARY_MIME};
use crate::transport::http::BodyReader;
use crate::transport::HttpRequest;
use crate::value::Value;

/// Largest error body (JSON or text) read from a non-GraphBinary error response.
const MAX_ERROR_BODY: usize = 1 << 20;

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

/// A request being built: the script, its parameters and per-request options.
#[derive(Debug)]
#[must_use = "a request does nothing until sent"]
pub struct RequestBuilder {
    client: Client,
    gremlin: String,
    params: Vec<(String, Param)>,
    language: Option<String>,
    g: Option<String>,
    batch_size: Option<u32>,
    timeout_millis: Option<u64>,
    materialize_properties: Option<MaterializeProperties>,
    bulk_results: Option<bool>,
    error: Option<Error>,
    transaction: Option<TxContext>,
    timeout: Option<Duration>,
    idempotent: bool,
}

impl RequestBuilder {
    pub(super) fn new(client: Client, gremlin: String) -> Self {
        RequestBuilder {
            client,
            gremlin,
            params: Vec::new(),
            language: None,
            g: None,
            batch_size: None,
            timeout_millis: None,
            materialize_properties: None,
            bulk_results: None,
            error: None,
            transaction: None,
            timeout: None,
            idempotent: false,
        }
    }

    /// Makes this a request of a transaction: its id in the body and header, its host pinned.
    pub(super) fn in_transaction(mut self, ctx: TxContext) -> Self {
        self.transaction = Some(ctx);
        self
    }

    /// Makes sending fail with `e` (unless it already fails with another error).
    pub(super) fn fail_with(mut self, e: Error) -> Self {
        self.error.get_or_insert(e);
        self
    }

    /// Binds parameter `name` (a Java identifier) to `value`: any [`Value`] (one just read,
    /// sent back unchanged) or what converts into one (`"marko"`, `29`, `29i64`, `1.5f32`,
    /// a [`DateTime`](crate::value::DateTime), [`uuid::Uuid`], `vec![..]`, maps and sets of
    /// them, `None`, a vertex or edge (which stands for its id), ...).
    ///
    /// It is written as its exact type: for TinkerPop 4 as the gremlin-lang literal of that
    /// type in the request's `parameters` (a value with none, such as a Float NaN or a Map
    /// key that is a Boolean, makes sending fail with [`Error::InvalidRequest`] before
    /// anything is sent), for a TinkerPop 3 (`ws://`) server as a GraphBinary 1 binding of
    /// that type (a `java.util.Date` read is bound as a Date again). An invalid name makes
    /// sending fail with [`Error::InvalidRequest`]. Binding a name again replaces its value.
    ///
    /// ```
    /// # fn f(client: graphbinary_client::Client) {
    /// use graphbinary_client::value::{DateTime, Value};
    ///
    /// let born = Value::DateTime(DateTime::from_epoch_millis(0));
    /// let req = client
    ///     .request("g.V().has('born', b).has('age', gt(a))")
    ///     .param("b", born)
    ///     .param("a", 27i64);
    /// # let _ = req; }
    /// ```
    pub fn param(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        let name = name.into();
        if !is_valid_param_name(&name) {
            self.error.get_or_insert(Error::InvalidRequest(format!(
                "parameter name {name:?} is not an identifier"
            )));
            return self;
        }
        let value = value.into();
        let literal = if self.client.is_tinkerpop3() {
            None
        } else {
            match params::literal_text(&value) {
                Ok(text) => Some(text),
                Err(e) => {
                    self.error.get_or_insert(Error::InvalidRequest(format!(
                        "parameter {name:?} has no TinkerPop 4 (gremlin-lang) form: {e}"
                    )));
                    return self;
                }
            }
        };
        self.bind(name, Param::Value { value, literal });
        self
    }

    fn bind(&mut self, name: String, p: Param) {
        if let Some(slot) = self.params.iter_mut().find(|(k, _)| *k == name) {
            slot.1 = p;
        } else {
            self.params.push((name, p));
        }
    }

    /// Binds parameter `name` to a gremlin-lang literal written by the caller, verbatim
    /// (e.g. `datetime('2024-01-01T00:00:00Z')`). TinkerPop 4 only: a TinkerPop 3 server takes
    /// bindings as values, so over `ws://` sending fails with [`Error::InvalidRequest`] (use
    /// [`param`](Self::param)).
    pub fn param_literal(mut self, name: impl Into<String>, literal: impl Into<String>) -> Self {
        let name = name.into();
        if !is_valid_param_name(&name) {
            self.error.get_or_insert(Error::InvalidRequest(format!(
                "parameter name {name:?} is not an identifier"
            )));
            return self;
        }
        self.bind(name, Param::Text(literal.into()));
        self
    }

    /// Binds parameter `name` to any [`serde::Serialize`] value, made a [`Value`] by
    /// [`de::to_value`](crate::format::de::to_value) (a struct or a map is a Map, a sequence a List, a
    /// `Value` or a model type inside it itself; `to_value` lists every serde shape) and
    /// then bound as [`param`](Self::param) binds it: `param_serialized(n, &value)` sends what
    /// `param(n, value)` sends.
    ///
    /// ```no_run
    /// # async fn f(client: graphbinary_client::Client) -> Result<(), graphbinary_client::client::Error> {
    /// #[derive(serde::Serialize)]
    /// struct Person<'a> { name: &'a str, age: i32 }
    /// // Sent as ["name":"marko","age":29]
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
        match crate::format::de::to_value(value) {
            Ok(v) => self.param(name, v),
            Err(e) => {
                self.error.get_or_insert(Error::InvalidRequest(format!(
                    "parameter {name:?} does not serialize: {e}"
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

    /// A client-side deadline for this request, from sending it until its last body byte,
    /// instead of the client's [`request_timeout`](super::ClientBuilder::request_timeout).
    /// When it passes, sending or reading fails with a transport timeout
    /// ([`Error::is_timeout`]). Unlike [`RequestBuilder::timeout_millis`], the server is not
    /// told.
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = Some(t);
        self
    }

    /// Marks the request idempotent: running it twice does what running it once does (a read
    /// such as `g.V().count()`; never a mutation). An idempotent request is retried, by the
    /// client's [`RetryPolicy`](super::RetryPolicy), when it could not connect, when its
    /// connection failed before its first result, and when the server answered 429, 503 or
    /// 596 (`SERVER_ERROR_TEMPORARY`), or throttled it as Azure Cosmos DB does (500 with
    /// `x-ms-status-code` 429), before its first result; over HTTP with several hosts
    /// the retry goes to another host. See [what is retried](super::RetryPolicy#what-is-retried).
    /// Default `false`: a request that was sent is never sent again (only one that could not
    /// connect moves to another host). Ignored inside a [`Transaction`](super::Transaction)
    /// and by [`send_raw`](Self::send_raw), which hands over the body unread and so sends
    /// once.
    ///
    /// An idempotent request's [`send`](Self::send) returns once its first result (or its end)
    /// has arrived rather than at the response headers, so that a failure before it can still
    /// be retried; an error before the first result is returned by `send` rather than as the
    /// stream's item.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::Client::builder("http://gremlin-1.internal:8182/gremlin")
    ///     .add_host("http://gremlin-2.internal:8182/gremlin")
    ///     .build()?;
    /// let n: i64 = client.request("g.V().count()").idempotent(true).send().await?.one().await?;
    /// # Ok(()) }
    /// ```
    pub fn idempotent(mut self, on: bool) -> Self {
        self.idempotent = on;
        self
    }

    /// Whether the request is marked [`idempotent`](Self::idempotent).
    pub fn is_idempotent(&self) -> bool {
        self.idempotent
    }

    /// The JSON request body.
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
        if let Some(id) = self.transaction.as_ref().and_then(|t| t.id.as_ref()) {
            m.insert("transactionId".into(), id.clone().into());
        }
        serde_json::Value::Object(m).to_string()
    }

    /// Sends the request; the results stream as they arrive. Returns once the response
    /// headers are in (errors answered as JSON fail here; errors in the GraphBinary footer
    /// come as the stream's last item).
    ///
    /// # Cancel safety
    /// Dropping the future abandons the request: a connection it opened or took from the pool
    /// is closed and its pool slot freed. The request may or may not have reached the server
    /// (a mutation may have run); nothing is retried.
    pub async fn send(self) -> Result<ResultStream, Error> {
        let inner = self.client.inner.clone();
        let protocol = match inner.transport {
            Transport::Http(_) => "http",
            Transport::Ws(_) => "ws",
        };
        let obs = inner
            .observer
            .start(protocol, self.g.as_deref(), &self.gremlin, || {
                self.parameters_for_trace()
            });
        obs.span
            .record("host", super::redact_url(inner.url.as_str()).as_ref());
        let span = obs.span.clone();
        match tracing::Instrument::instrument(self.send_unobserved(), span).await {
            Ok(mut stream) => {
                obs.first_byte(stream.request_id());
                stream.observe(obs);
                Ok(stream)
            }
            Err(e) => {
                obs.end(e.kind().as_str(), e.server_error().map(|s| s.code), 0, 0);
                Err(e)
            }
        }
    }

    /// The parameters as `name=value` text, for a span that records them.
    fn parameters_for_trace(&self) -> String {
        let mut out = String::new();
        for (name, p) in &self.params {
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push_str(name);
            out.push('=');
            match p {
                Param::Value { value, .. } => out.push_str(&value.to_string()),
                Param::Text(t) => out.push_str(t),
            }
        }
        out
    }

    async fn send_unobserved(self) -> Result<ResultStream, Error> {
        self.client.inner.check_open()?;
        if self.client.inner.cosmos {
            super::cosmos::check_script(&self.gremlin)?;
        }
        if let Some(session) = self.transaction.as_ref().and_then(|t| t.session.clone()) {
            return self.send_session(&session).await;
        }
        if self.idempotent && self.transaction.is_none() {
            return self.send_retrying().await;
        }
        if matches!(self.client.inner.transport, Transport::Ws(_)) {
            return self.send_ws().await;
        }
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
    ///
    /// # Cancel safety
    /// Dropping the future abandons the request: a connection it opened or took from the pool
    /// is closed and its pool slot freed. The request may or may not have reached the server
    /// (a mutation may have run); a request is moved to another host only while no host could
    /// be connected to (nothing was sent), never after it was sent.
    pub async fn send_raw(self) -> Result<RawResponse, Error> {
        self.client.inner.http()?;
        self.send_raw_on().await.map(|(raw, _)| raw)
    }

    /// The TinkerPop 3 `eval` request message of this request (for a `ws://` client):
    /// `gremlin`, `language`, parameters as `bindings`, `g` as the alias of `g`, `batchSize`,
    /// `timeout_millis` as `evaluationTimeout`, `materializeProperties`. Not part of the
    /// stable API (what a request sends, for tests and examples); hidden with the transport.
    #[doc(hidden)]
    pub fn eval_v1(&self) -> Result<crate::transport::ws::Eval, Error> {
        if self
            .transaction
            .as_ref()
            .is_some_and(|t| t.session.is_none())
        {
            return Err(Error::InvalidRequest(
                "HTTP transactions are TinkerPop 4; over ws:// (TinkerPop 3) use Client::session"
                    .into(),
            ));
        }
        let mut eval = crate::transport::ws::Eval::new(self.gremlin.clone());
        for (name, p) in &self.params {
            match p {
                Param::Value { value, .. } => {
                    eval.bindings.push((name.clone(), bound_value(value)));
                }
                Param::Text(_) => {
                    return Err(Error::InvalidRequest(format!(
                        "parameter {name:?} is gremlin-lang text (param_literal), which TinkerPop 3 bindings cannot carry; bind a value with param"
                    )))
                }
            }
        }
        eval.language.clone_from(&self.language);
        if let Some(g) = &self.g {
            eval.aliases.push(("g".into(), g.clone()));
        }
        eval.batch_size = self
            .batch_size
            .map(|n| i32::try_from(n).unwrap_or(i32::MAX));
        eval.evaluation_timeout = self
            .timeout_millis
            .map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        eval.materialize_properties = self.materialize_properties.map(|m| m.as_str().to_owned());
        Ok(eval)
    }

    /// Sends the request in a TinkerPop 3 session, on its connection; the request's deadline
    /// (or the client's) bounds it to the end of its results.
    async fn send_session(
        mut self,
        session: &crate::transport::ws::Session3,
    ) -> Result<ResultStream, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let eval = self.eval_v1()?;
        let t = self.timeout.or(self.client.inner.request_timeout);
        let results = session.eval(eval).await.map_err(super::ws3::from_error3)?;
        Ok(ResultStream::from_ws(
            results,
            t,
            self.client.inner.read_timeout,
        ))
    }

    async fn send_ws(mut self) -> Result<ResultStream, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let t = self.timeout.or(self.client.inner.request_timeout);
        let (stream, host) = self.send_ws_once(None, t).await.map_err(|f| f.error)?;
        self.client.inner.hosts.succeeded(host);
        Ok(stream)
    }

    /// Sends an idempotent request, again while it fails before its first result in a way
    /// [`retry::retryable`] allows, as the client's policy says; every attempt within the
    /// request's deadline.
    async fn send_retrying(mut self) -> Result<ResultStream, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let inner = self.client.inner.clone();
        let deadline = self
            .timeout
            .or(inner.request_timeout)
            .map(|t| (t, tokio::time::Instant::now() + t));
        let mut avoid = None;
        let mut attempt = 1u32;
        loop {
            let left =
                deadline.map(|(_, d)| d.saturating_duration_since(tokio::time::Instant::now()));
            let (error, host, asked) = match self.attempt(avoid, left).await {
                Ok(stream) => return Ok(stream),
                Err(f) => {
                    let asked = f.retry_after.or_else(|| retry::asked_in(&f.error));
                    (f.error, f.host, asked)
                }
            };
            if let Some(h) = host {
                if matches!(error, Error::Server(_)) && retry::host_is_down(&error) {
                    inner.hosts.failed(h);
                }
            }
            if attempt >= inner.retry.attempts() || !retry::retryable(&error) {
                return Err(error);
            }
            inner.check_open()?;
            let delay = inner.retry.delay(attempt, asked);
            if let Some((t, d)) = deadline {
                if tokio::time::Instant::now() + delay >= d {
                    return Err(Error::Transport {
                        kind: super::TransportKind::Timeout,
                        source: format!(
                            "the request took over {t:?} ({attempt} attempts; the last failed: {error})"
                        )
                        .into(),
                    });
                }
            }
            let url = host.map_or(inner.url.as_str(), |h| inner.hosts.url(h).as_str());
            inner.observer.retry(attempt, url, &error, delay);
            tokio::time::sleep(delay).await;
            avoid = host;
            attempt += 1;
        }
    }

    /// One attempt of an idempotent request, up to its first result: on a host other than
    /// `avoid` when there is one, within `left`.
    async fn attempt(
        &self,
        avoid: Option<usize>,
        left: Option<Duration>,
    ) -> Result<ResultStream, Failed> {
        let inner = &self.client.inner;
        if matches!(inner.transport, Transport::Ws(_)) {
            let (stream, host) = self.send_ws_once(avoid, left).await?;
            let stream = self.first_result(stream, host).await?;
            inner.hosts.succeeded(host);
            return Ok(stream);
        }
        let (raw, host) = self.send_attempts(None, avoid, left).await?;
        self.first_result(ResultStream::new(raw, inner.read_options), host)
            .await
    }

    /// `stream`, sent to `host`, once its first result (or its end) has come; an error that
    /// says the host is down (not a server's answer) marks it so.
    async fn first_result(
        &self,
        mut stream: ResultStream,
        host: usize,
    ) -> Result<ResultStream, Failed> {
        match stream.peek_first().await {
            Ok(()) => Ok(stream),
            Err(error) => {
                if retry::host_is_down(&error) && !matches!(error, Error::Server(_)) {
                    self.client.inner.hosts.failed(host);
                }
                Err(Failed {
                    error,
                    host: Some(host),
                    retry_after: None,
                })
            }
        }
    }

    /// Sends the request to a `ws://` host (another than `avoid` when there is one), moving to
    /// the next host while one cannot be reached (nothing was sent: no connection could be
    /// opened, or the one picked closed before the request was queued on it); `t` bounds it
    /// to the end of its results. Returns the results and the host they come from.
    async fn send_ws_once(
        &self,
        avoid: Option<usize>,
        t: Option<Duration>,
    ) -> Result<(ResultStream, usize), Failed> {
        let inner = &self.client.inner;
        let failed = |error: Error, host: Option<usize>| Failed {
            error,
            host,
            retry_after: None,
        };
        let Transport::Ws(ws) = &inner.transport else {
            return Err(failed(
                Error::InvalidRequest("not a ws:// client".into()),
                None,
            ));
        };
        let request = self.eval_v1().map_err(|e| failed(e, None))?.to_request();
        let started = tokio::time::Instant::now();
        let mut tried: Vec<usize> = Vec::new();
        loop {
            let pick = match avoid {
                Some(a) if tried.is_empty() && inner.hosts.len() > 1 => inner.hosts.pick(&[a]),
                _ => inner.hosts.pick(&tried),
            };
            let Some(host) = pick else {
                return Err(failed(
                    Error::Config("the client has no host".to_owned()),
                    None,
                ));
            };
            tried.push(host);
            tracing::Span::current().record(
                "host",
                super::redact_url(inner.hosts.url(host).as_str()).as_ref(),
            );
            inner.hosts.attempt(host);
            let send = async { ws.client(host).await?.send_message(&request).await };
            let left = t.map(|t| t.saturating_sub(started.elapsed()));
            let res = match (t, left) {
                (Some(t), Some(left)) => match tokio::time::timeout(left, send).await {
                    Ok(res) => res,
                    Err(_) => return Err(failed(timeout_error(t), Some(host))),
                },
                _ => send.await,
            };
            match res {
                Ok(results) => {
                    let stream = ResultStream::from_ws(results, left, inner.read_timeout);
                    return Ok((stream, host));
                }
                Err(e) if super::ws3::unreachable(&e) => {
                    inner.hosts.failed(host);
                    let error = super::ws3::unreachable_error(e);
                    if tried.len() < inner.hosts.len() {
                        tracing::debug!(
                            target: "graphbinary_client",
                            host = %super::redact_url(inner.hosts.url(host).as_str()),
                            error = %error,
                            "host unreachable, nothing sent: trying the next one"
                        );
                        continue;
                    }
                    return Err(failed(error, Some(host)));
                }
                Err(e) => return Err(failed(super::ws3::from_error3(e), Some(host))),
            }
        }
    }

    /// [`send_raw`](Self::send_raw), also returning the index of the host that answered.
    pub(super) async fn send_raw_on(mut self) -> Result<(RawResponse, usize), Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.client.inner.check_open()?;
        let tx = self.transaction.clone();
        let t = self.timeout.or(self.client.inner.request_timeout);
        let res = self
            .send_attempts(tx.as_ref(), None, t)
            .await
            .map_err(|f| f.error);
        match (&tx, res) {
            (Some(ctx), Err(e)) => Err(ctx.map_error(e)),
            (Some(ctx), Ok((raw, host))) if raw.status == 404 || raw.status == 503 => {
                // A transaction guard failure: a complete GraphBinary error message.
                let opts = self.client.inner.read_options;
                let status = raw.status;
                let err = match ResultStream::new(raw, opts).count().await {
                    Err(e) => e,
                    Ok(_) => {
                        return Err(Error::Protocol(format!(
                            "HTTP {status} without an error status in the body (host {})",
                            self.client.inner.hosts.url(host)
                        )))
                    }
                };
                Err(ctx.map_error(err))
            }
            (_, res) => res,
        }
    }

    /// Sends the request to a host (another than `avoid` when there is one), moving to the
    /// next one while a host cannot be connected to (nothing was sent), unless the request is
    /// pinned to its transaction's host; `timeout` bounds it to the end of its body.
    async fn send_attempts(
        &self,
        tx: Option<&TxContext>,
        avoid: Option<usize>,
        timeout: Option<Duration>,
    ) -> Result<(RawResponse, usize), Failed> {
        let inner = &self.client.inner;
        let failed = |error: Error, host: Option<usize>| Failed {
            error,
            host,
            retry_after: None,
        };
        let body = bytes::Bytes::from(self.body_json());
        inner.observer.sent(body.len());
        let permit = match inner.slots.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                let waited = std::time::Instant::now();
                tracing::debug!(
                    target: "graphbinary_client",
                    pool_size = inner.pool_size,
                    "waiting for a free connection slot"
                );
                let p = inner
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
        };
        let pinned = tx.and_then(|t| t.host);
        let mut tried: Vec<usize> = Vec::new();
        let http = inner.http().map_err(|e| failed(e, None))?;
        loop {
            let pick = match avoid {
                Some(a) if tried.is_empty() && inner.hosts.len() > 1 => inner.hosts.pick(&[a]),
                _ => inner.hosts.pick(&tried),
            };
            let host = match pinned {
                Some(h) => h,
                None => match pick {
                    Some(h) => h,
                    None => {
                        return Err(failed(
                            Error::Config("the client has no host".to_owned()),
                            None,
                        ))
                    }
                },
            };
            tried.push(host);
            let mut req = HttpRequest {
                method: http::Method::POST,
                url: inner.hosts.url(host).clone(),
                headers: inner.headers.clone(),
                body: body.clone(),
            };
            if let Some(id) = tx.and_then(|t| t.id.as_deref()) {
                let v = HeaderValue::from_str(id).map_err(|_| {
                    failed(
                        Error::Protocol(format!("transaction id {id:?} is not a header value")),
                        None,
                    )
                })?;
                req.headers.insert(TRANSACTION_ID_HEADER, v);
            }
            for i in &inner.interceptors {
                i.intercept(&mut req).await.map_err(|source| {
                    failed(
                        Error::Interceptor {
                            name: i.name().to_owned(),
                            source,
                        },
                        None,
                    )
                })?;
            }
            tracing::Span::current().record(
                "host",
                super::redact_url(inner.hosts.url(host).as_str()).as_ref(),
            );
            inner.hosts.attempt(host);
            let sent = http
                .send(req.method, &req.url, req.headers, req.body, timeout)
                .await;
            let resp = match sent {
                Ok(resp) => resp,
                Err(e) => {
                    let nothing_sent = e.connect;
                    if nothing_sent || !e.is_timeout() {
                        inner.hosts.failed(host);
                    }
                    if nothing_sent && pinned.is_none() && tried.len() < inner.hosts.len() {
                        continue;
                    }
                    return Err(failed(Error::from_http(e), Some(host)));
                }
            };
            inner.hosts.succeeded(host);
            if let Some(max) = inner.max_response_header_bytes {
                let size: usize = resp
                    .headers
                    .iter()
                    .map(|(k, v)| k.as_str().len() + v.len() + 4)
                    .sum();
                if size > max {
                    return Err(failed(
                        Error::Protocol(format!(
                            "response headers of {size} bytes exceed the limit of {max}"
                        )),
                        Some(host),
                    ));
                }
            }
            let retry_after = retry::retry_after(&resp.headers);
            let closing = inner.closing.clone();
            return Self::into_raw(resp, permit, closing)
                .await
                .map(|raw| (raw, host))
                .map_err(|error| Failed {
                    error,
                    host: Some(host),
                    retry_after,
                });
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
}

/// A failed attempt: the error, the host it went to (if it got that far), and the wait a
/// `Retry-After` header asked for.
struct Failed {
    error: Error,
    host: Option<usize>,
    retry_after: Option<Duration>,
}

fn timeout_error(t: Duration) -> Error {
    Error::Transport {
        kind: super::TransportKind::Timeout,
        source: format!("the request took over {t:?}").into(),
    }
}

/// A value as a TinkerPop 3 binding: itself, an element as its id (as on TinkerPop 4).
fn bound_value(v: &Value) -> Value {
    match v {
        Value::Vertex(x) => bound_value(&x.id),
        Value::Edge(x) => bound_value(&x.id),
        Value::VertexProperty(x) => bound_value(&x.id),
        other => other.clone(),
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
    use super::*;
    use crate::client::DEFAULT_URL;

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
}
