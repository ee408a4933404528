//! [`RequestBuilder`]: one request's script, parameters and per-request options, as the user
//! builds it. Its wire forms are `http4.rs` ([`RequestBuilder::body_json`]) and `ws3.rs`
//! (the TinkerPop 3 `eval` message); sending it is `send.rs`.

use std::time::Duration;

use super::params::{self, is_valid_param_name, Param};
use super::transaction::TxContext;
use super::{Client, Error, ResultStream};
use crate::value::Value;

/// `materializeProperties`: whether elements come with their properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterializeProperties {
    /// Elements carry all their properties (the server default).
    All,
    /// Elements carry only id and label.
    Tokens,
}

impl MaterializeProperties {
    pub(super) fn as_str(self) -> &'static str {
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
    pub(super) client: Client,
    pub(super) gremlin: String,
    pub(super) params: Vec<(String, Param)>,
    pub(super) language: Option<String>,
    pub(super) g: Option<String>,
    pub(super) batch_size: Option<u32>,
    pub(super) timeout_millis: Option<u64>,
    pub(super) materialize_properties: Option<MaterializeProperties>,
    pub(super) bulk_results: Option<bool>,
    pub(super) error: Option<Error>,
    pub(super) transaction: Option<TxContext>,
    pub(super) timeout: Option<Duration>,
    pub(super) idempotent: bool,
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

    /// Results per HTTP chunk or WebSocket message. Unset, a TinkerPop 3 server sends its
    /// default (64) per WebSocket message, and over `http://` the request asks for 8192.
    ///
    /// Gremlin Server 4.0.0-beta.3 writes a response batch by batch and pauses 10 ms before the
    /// next one while its socket buffer is above the high-water mark, which a client that
    /// decodes as it reads keeps it at. With the server's 64 a ~200k-result answer (24 MB in
    /// 3,137 batches) met that pause hundreds of times. Measured on loopback (`graphbinary query
    /// --stats`, 2026-12-06, six runs each): uncompressed 0.37-0.42 s with batches of 8192
    /// against 1.53-1.98 s with 64; deflated 0.42-0.47 s against 2.0-3.2 s. The cost: a streamed
    /// answer's first result waits for its first batch (8192 of these results took the server
    /// about 15 ms); set a small batch size where the first result matters more than the last.
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

    /// The parameters as `name=value` text, for a span that records them.
    pub(super) fn parameters_for_trace(&self) -> String {
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
}

impl std::future::IntoFuture for RequestBuilder {
    type Output = Result<ResultStream, Error>;
    type IntoFuture =
        std::pin::Pin<Box<dyn std::future::Future<Output = Self::Output> + Send + 'static>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::DEFAULT_URL;

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
