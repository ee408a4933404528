//! The results of one request, decoded as the response bytes arrive.
//!
//! [`ResultStream`] yields [`Value`]s (a bulked result is yielded once per bulk);
//! [`ResultStream::traversers`] turns it into a [`TraverserStream`] of (value, bulk) pairs, for
//! bulked responses that should stay compact.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::{Stream, StreamExt};

use super::error::{Error, ServerError};
use crate::protocol::http4::response::{
    read_response, ReadOptions, ResponseError, ResponseStream, Status, StatusAttributes, Traverser,
};
use crate::transport::http::BodyReader;
use crate::transport::ByteCounters;
use crate::value::Value;

/// The results of one request as a [`Stream`] of [`Value`]s, decoded as bytes arrive. A
/// result with bulk n (see [`RequestBuilder::bulk_results`](super::RequestBuilder::bulk_results))
/// is yielded n times; use [`ResultStream::traversers`] to keep (value, bulk) pairs instead.
///
/// The stream ends after the last result when the server's final status is 200; otherwise
/// its last item is an [`Error::Server`] (possibly after some results). Dropping it early
/// cancels the request: the connection is closed and its pool slot freed.
///
/// Conveniences consume the stream: [`ResultStream::all`], [`ResultStream::one`],
/// [`ResultStream::count`].
#[derive(Debug)]
pub struct ResultStream {
    inner: TraverserStream,
    /// A bulked value still to be yielded `.1` more times.
    pending: Option<(Value, u64)>,
}

/// The results of one request as a [`Stream`] of [`Traverser`]s: each value with its bulk
/// (1 unless bulked results were requested). Made by [`ResultStream::traversers`].
pub struct TraverserStream {
    inner: Source,
    /// A traverser to yield before reading on (left over from a [`ResultStream`]).
    first: Option<Traverser>,
    http_status: u16,
    request_id: Option<String>,
    counters: Arc<ByteCounters>,
    results: u64,
    done: bool,
    /// The error the stream ended with: its kind ([`Error::kind`]) and, for a server's
    /// error, its status code.
    failed: Option<Failure>,
    /// The request's span and statistics, ended when the stream is dropped.
    obs: Option<super::observe::Request>,
    /// The limits the response is read with, to name the one a decoding error went over.
    limits: graphbinary_core::Limits,
}

/// Where the results come from: a GraphBinary 4 HTTP body, or TinkerPop 3 WebSocket messages.
// The HTTP stream stays inline, as it was before TinkerPop 3 (no indirection on its hot path);
// the WebSocket one is boxed.
#[allow(clippy::large_enum_variant)]
enum Source {
    Http(ResponseStream<BodyReader>),
    Ws(Box<WsSource>),
}

/// A TinkerPop 3 request's results with the client's deadlines: the request's (from
/// [`RequestBuilder::timeout`](super::RequestBuilder::timeout) or
/// [`ClientBuilder::request_timeout`](super::ClientBuilder::request_timeout)) over all its
/// messages, and the read timeout over each wait for the next one.
struct WsSource {
    results: crate::transport::ws::Results3,
    deadline: Option<(std::time::Duration, Pin<Box<tokio::time::Sleep>>)>,
    read_timeout: Option<std::time::Duration>,
    /// Armed when a poll found no message ready, disarmed when one came.
    idle: Option<Pin<Box<tokio::time::Sleep>>>,
}

fn timeout(what: &str, t: std::time::Duration) -> Error {
    Error::Transport {
        kind: super::TransportKind::Timeout,
        source: format!("{what} took over {t:?}").into(),
    }
}

impl Source {
    fn bulked(&self) -> Option<bool> {
        match self {
            Source::Http(s) => s.bulked(),
            Source::Ws(_) => None,
        }
    }

    fn status(&self) -> Option<&Status> {
        match self {
            Source::Http(s) => s.status(),
            Source::Ws(_) => None,
        }
    }

    fn status_attributes(&self) -> Option<&StatusAttributes> {
        match self {
            Source::Http(_) => None,
            Source::Ws(w) => w.results.status_attributes(),
        }
    }
}

/// What a stream remembers of the error it ended with: [`Error::kind`] and the server's
/// status code, if it was a server error (the span's `status`).
#[derive(Debug, Clone, Copy)]
struct Failure(&'static str, Option<i32>);

impl Failure {
    fn of(e: &Error) -> Failure {
        Failure(e.kind().as_str(), e.server_error().map(|s| s.code))
    }
}

/// Every remaining result of a TinkerPop 3 request to `f`, each counted in `results`; an error
/// ends the read and is remembered in `failed`.
async fn each_ws(
    ws: &mut WsSource,
    results: &mut u64,
    failed: &mut Option<Failure>,
    mut f: impl FnMut(Traverser) -> Result<(), Error>,
) -> Result<(), Error> {
    while let Some(t) = futures::future::poll_fn(|cx| poll_ws(ws, cx)).await {
        let t = t.inspect_err(|e| *failed = Some(Failure::of(e)))?;
        *results += 1;
        f(t)?;
    }
    Ok(())
}

/// One TinkerPop 3 result as a traverser, or a timeout when a deadline passed first.
fn poll_ws(s: &mut WsSource, cx: &mut Context<'_>) -> Poll<Option<Result<Traverser, Error>>> {
    match s.results.poll_next_unpin(cx) {
        Poll::Ready(r) => {
            s.idle = None;
            Poll::Ready(r.map(|r| match r {
                Ok((value, bulk)) => Ok(Traverser { value, bulk }),
                Err(e) => Err(super::ws3::from_error3(e)),
            }))
        }
        Poll::Pending => {
            if let Some((t, d)) = &mut s.deadline {
                if d.as_mut().poll(cx).is_ready() {
                    s.results.abandon_connection();
                    return Poll::Ready(Some(Err(timeout("the request", *t))));
                }
            }
            if let Some(t) = s.read_timeout {
                let idle = s
                    .idle
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(t)));
                if idle.as_mut().poll(cx).is_ready() {
                    s.results.abandon_connection();
                    return Poll::Ready(Some(Err(timeout("waiting for the next message", t))));
                }
            }
            Poll::Pending
        }
    }
}

impl std::fmt::Debug for TraverserStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraverserStream")
            .field("http_status", &self.http_status)
            .field("request_id", &self.request_id)
            .field("results", &self.results)
            .field("wire_bytes", &self.counters.wire_bytes())
            .field("body_bytes", &self.counters.body_bytes())
            .finish_non_exhaustive()
    }
}

impl TraverserStream {
    /// The HTTP status of the response.
    pub fn http_status(&self) -> u16 {
        self.http_status
    }

    /// The `Gremlin-RequestId` of the response.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// Whether the results are bulked; `None` until the first bytes have been read.
    pub fn bulked(&self) -> Option<bool> {
        self.inner.bulked()
    }

    /// The final status, once the stream has ended.
    pub fn status(&self) -> Option<&Status> {
        self.inner.status()
    }

    /// The status attributes of the last response message read so far, over `ws://` /
    /// `wss://` (see [`ResultStream::status_attributes`]); `None` over HTTP.
    pub fn status_attributes(&self) -> Option<&StatusAttributes> {
        self.inner.status_attributes()
    }

    /// Traversers decoded so far.
    pub fn results(&self) -> u64 {
        self.results
    }

    /// The byte counters of the response body (shared; they keep counting while the stream
    /// is read elsewhere).
    pub fn counters(&self) -> Arc<ByteCounters> {
        self.counters.clone()
    }

    /// All traversers.
    ///
    /// # Cancel safety
    /// Not cancel safe: it takes the stream, so dropping the future drops the response and the
    /// results read so far with it. The connection is then closed, never returned to the pool
    /// half-read; nothing else is affected.
    pub async fn all(mut self) -> Result<Vec<Traverser>, Error> {
        let mut out = Vec::new();
        self.for_each_result(|t| out.push(t)).await?;
        Ok(out)
    }

    /// The number of results (bulks summed), stepping over each without building it (see
    /// [`skip_value`](crate::format::graphbinary4::skip_value)).
    ///
    /// # Cancel safety
    /// Not cancel safe: it takes the stream, so dropping the future drops the response and the
    /// results read so far with it. The connection is then closed, never returned to the pool
    /// half-read; nothing else is affected.
    pub async fn count(mut self) -> Result<u64, Error> {
        let mut n: u64 = 0;
        self.drive_with(
            |cur, _| crate::format::graphbinary4::skip_value(cur),
            |_, _| Ok(()),
            Some(|| ()),
            |(), bulk| n = n.saturating_add(bulk.max(0) as u64),
        )
        .await?;
        Ok(n)
    }

    /// Runs a reader of another shape over the remaining results (see [`crate::protocol::http4::results_as`]):
    /// `fast` on the fast path, `slow` for a value the stream read by its slow path (with the
    /// value's offset), `f` with each result and its bulk.
    pub(crate) async fn drive<T>(
        &mut self,
        fast: impl FnMut(&mut graphbinary_core::Cursor<'_>, bool) -> graphbinary_core::FastResult<T>,
        slow: impl FnMut(Value, u64) -> Result<T, graphbinary_core::DecodeError>,
        f: impl FnMut(T, i64),
    ) -> Result<(), Error> {
        self.drive_with(fast, slow, None, f).await
    }

    /// [`TraverserStream::drive`]; with `skipped`, a value larger than the buffer is stepped
    /// over by the skip slow path and `skipped()` stands for it (see
    /// `crate::protocol::http4::results_as::drive`).
    pub(crate) async fn drive_with<T>(
        &mut self,
        fast: impl FnMut(&mut graphbinary_core::Cursor<'_>, bool) -> graphbinary_core::FastResult<T>,
        mut slow: impl FnMut(Value, u64) -> Result<T, graphbinary_core::DecodeError>,
        skipped: Option<fn() -> T>,
        mut f: impl FnMut(T, i64),
    ) -> Result<(), Error> {
        if let Some(t) = self.first.take() {
            f(slow(t.value, 0)?, t.bulk);
        }
        if self.done {
            return Ok(());
        }
        let results = &mut self.results;
        let failed = &mut self.failed;
        let inner = match &mut self.inner {
            Source::Http(inner) => inner,
            Source::Ws(ws) => {
                // GraphBinary 1 bytes do not fit the GraphBinary 4 fast readers: each result
                // is decoded to a `Value` and converted by `slow`.
                let _ = fast;
                self.done = true;
                return each_ws(ws, results, failed, |t| {
                    f(slow(t.value, 0)?, t.bulk);
                    Ok(())
                })
                .await;
            }
        };
        let r = crate::protocol::http4::results_as::drive(inner, fast, slow, skipped, |v, bulk| {
            *results += 1;
            f(v, bulk)
        })
        .await;
        self.http_finished(r)
    }

    /// One result read by `fast` in place, or by the stream's slow path and `slow` (see
    /// [`TraverserStream::drive`]).
    #[cfg(feature = "serde")]
    pub(crate) fn poll_with<T>(
        &mut self,
        cx: &mut Context<'_>,
        fast: impl FnOnce(&mut graphbinary_core::Cursor<'_>, bool) -> graphbinary_core::FastResult<T>,
        slow: impl FnOnce(Traverser, u64) -> Result<T, graphbinary_core::DecodeError>,
    ) -> Poll<Option<Result<T, Error>>> {
        if let Some(t) = self.first.take() {
            return Poll::Ready(Some(slow(t, 0).map_err(Error::from)));
        }
        if self.done {
            return Poll::Ready(None);
        }
        let inner = match &mut self.inner {
            Source::Http(inner) => inner,
            Source::Ws(ws) => {
                return match poll_ws(ws, cx) {
                    Poll::Ready(Some(Ok(t))) => {
                        self.results += 1;
                        Poll::Ready(Some(slow(t, 0).map_err(Error::from)))
                    }
                    Poll::Ready(Some(Err(e))) => {
                        self.done = true;
                        self.failed = Some(Failure::of(&e));
                        Poll::Ready(Some(Err(e)))
                    }
                    Poll::Ready(None) => {
                        self.done = true;
                        Poll::Ready(None)
                    }
                    Poll::Pending => Poll::Pending,
                };
            }
        };
        let r = crate::protocol::http4::results_as::poll_one(inner, cx, fast, slow);
        self.http_polled(r)
    }

    /// One poll of the HTTP response, accounted: a result counted, an error remembered as
    /// how the stream ended, the end checked against the HTTP status and the request's
    /// observation settled.
    fn http_polled<T>(
        &mut self,
        r: Poll<Option<Result<T, ResponseError>>>,
    ) -> Poll<Option<Result<T, Error>>> {
        match r {
            Poll::Ready(Some(Ok(v))) => {
                self.results += 1;
                Poll::Ready(Some(Ok(v)))
            }
            Poll::Ready(Some(Err(e))) => {
                self.done = true;
                Poll::Ready(Some(Err(self.fail(e))))
            }
            Poll::Ready(None) => {
                self.done = true;
                let end = self.end().err();
                self.settle();
                Poll::Ready(end.map(Err))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// Calls `f` with each remaining traverser, in order, until the response ends: what the
    /// stream would yield, for less work per result (the buffered results are decoded in one
    /// synchronous loop; see [`ResponseStream::for_each_result`]). Returns the error the
    /// stream would end with.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future between results loses none, and the stream goes on
    /// after the last traverser passed to `f`.
    pub async fn for_each_result(&mut self, mut f: impl FnMut(Traverser)) -> Result<(), Error> {
        if let Some(t) = self.first.take() {
            f(t);
        }
        if self.done {
            return Ok(());
        }
        let results = &mut self.results;
        let failed = &mut self.failed;
        let inner = match &mut self.inner {
            Source::Http(inner) => inner,
            Source::Ws(ws) => {
                self.done = true;
                return each_ws(ws, results, failed, |t| {
                    f(t);
                    Ok(())
                })
                .await;
            }
        };
        let r = inner
            .for_each_result(|t| {
                *results += 1;
                f(t)
            })
            .await;
        self.http_finished(r)
    }

    /// The end of a whole-response read over HTTP: the stream done, its error remembered, or
    /// the end checked against the HTTP status.
    fn http_finished(&mut self, r: Result<(), ResponseError>) -> Result<(), Error> {
        self.done = true;
        match r {
            Ok(()) => self.end(),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// The client error for the response stream's error.
    /// [`error`](Self::error), remembered as how the stream ended.
    fn fail(&mut self, e: ResponseError) -> Error {
        let err = self.error(e);
        self.failed = Some(Failure::of(&err));
        err
    }

    fn error(&self, e: ResponseError) -> Error {
        match e {
            ResponseError::Server(s) => Error::Server(ServerError {
                http_status: Some(self.http_status),
                ..*s
            }),
            ResponseError::Decode(d) => Error::from_decode(d, &self.limits),
        }
    }

    /// The outcome of a response that ended with status 200: a GraphBinary body with status
    /// 200 under a non-200 HTTP status keeps the HTTP status as the error rather than claim
    /// success.
    fn end(&self) -> Result<(), Error> {
        if self.http_status == 200 {
            return Ok(());
        }
        Err(Error::Server(ServerError {
            http_status: Some(self.http_status),
            code: i32::from(self.http_status),
            message: None,
            exception: None,
            attributes: Default::default(),
        }))
    }
}

impl Stream for TraverserStream {
    type Item = Result<Traverser, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(t) = this.first.take() {
            return Poll::Ready(Some(Ok(t)));
        }
        if this.done {
            return Poll::Ready(None);
        }
        let inner = match &mut this.inner {
            Source::Http(inner) => inner,
            Source::Ws(ws) => {
                let r = poll_ws(ws, cx);
                match &r {
                    Poll::Ready(Some(Ok(_))) => this.results += 1,
                    Poll::Ready(Some(Err(e))) => {
                        this.done = true;
                        this.failed = Some(Failure::of(e));
                    }
                    Poll::Ready(None) => {
                        this.done = true;
                        this.settle();
                    }
                    Poll::Pending => {}
                }
                return r;
            }
        };
        let r = inner.poll_next_unpin(cx);
        this.http_polled(r)
    }
}

impl TraverserStream {
    /// Ends the request's observation (its span, statistics and listener call), with how
    /// the stream ended: `ok`, the error's kind, or `cancelled` when it had not ended.
    fn settle(&mut self) {
        let Some(obs) = self.obs.take() else {
            return;
        };
        let status = match (self.inner.status(), self.failed) {
            (Some(s), _) => Some(s.code),
            (None, Some(Failure(_, code))) => code,
            (None, None) if self.done => Some(200),
            (None, None) => None,
        };
        let outcome = match self.failed {
            Some(Failure(kind, _)) => kind,
            None if !self.done => "cancelled",
            None if self.http_status != 200 && matches!(self.inner, Source::Http(_)) => "server",
            None => "ok",
        };
        obs.end(outcome, status, self.results, self.counters.wire_bytes());
    }
}

impl Drop for TraverserStream {
    fn drop(&mut self) {
        self.settle();
    }
}

/// `ResultStream`'s accessors that read the [`TraverserStream`] it wraps, as they are.
macro_rules! read_from_traversers {
    ($($(#[$doc:meta])* $name:ident -> $ret:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self) -> $ret {
            self.inner.$name()
        }
    )*};
}

impl ResultStream {
    pub(crate) fn new(raw: super::RawResponse, opts: ReadOptions) -> Self {
        let counters = raw.body.counters();
        ResultStream {
            inner: TraverserStream {
                inner: Source::Http(read_response(raw.body, opts)),
                first: None,
                http_status: raw.status,
                request_id: raw.request_id,
                counters,
                results: 0,
                done: false,
                failed: None,
                obs: None,
                limits: opts.limits,
            },
            pending: None,
        }
    }

    /// The results of a TinkerPop 3 request (a client of a `ws://` URL). Its
    /// [`http_status`](Self::http_status) is 0 and [`request_id`](Self::request_id) the
    /// WebSocket request id.
    pub(crate) fn from_ws(
        mut results: crate::transport::ws::Results3,
        deadline: Option<std::time::Duration>,
        read_timeout: Option<std::time::Duration>,
    ) -> Self {
        let request_id = Some(results.request_id().to_string());
        let counters = Arc::new(ByteCounters::default());
        results.count_into(counters.clone());
        ResultStream {
            inner: TraverserStream {
                inner: Source::Ws(Box::new(WsSource {
                    results,
                    deadline: deadline.map(|t| (t, Box::pin(tokio::time::sleep(t)))),
                    read_timeout,
                    idle: None,
                })),
                first: None,
                http_status: 0,
                request_id,
                counters,
                results: 0,
                done: false,
                failed: None,
                obs: None,
                // The transport named its limits already (`Error3::Limit`).
                limits: crate::value::dynamic::DEFAULT_LIMITS,
            },
            pending: None,
        }
    }

    /// Waits for the first result (kept, to be yielded first) or the end; the error if the
    /// response fails before its first result (for the retries of idempotent requests).
    pub(crate) async fn peek_first(&mut self) -> Result<(), Error> {
        let inner = &mut self.inner;
        if inner.first.is_some() || inner.done {
            return Ok(());
        }
        match futures::future::poll_fn(|cx| Pin::new(&mut *inner).poll_next(cx)).await {
            Some(Ok(t)) => {
                inner.first = Some(t);
                Ok(())
            }
            Some(Err(e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Hands the request's observation to the stream, which ends it.
    pub(crate) fn observe(&mut self, obs: super::observe::Request) {
        self.inner.obs = Some(obs);
    }

    /// The (value, bulk) pairs instead of expanded values. Nothing is lost: a value partly
    /// yielded comes first with the bulk still owed.
    pub fn traversers(self) -> TraverserStream {
        let mut inner = self.inner;
        if let Some((value, left)) = self.pending {
            inner.first = Some(Traverser {
                value,
                bulk: i64::try_from(left).unwrap_or(i64::MAX),
            });
        }
        inner
    }

    read_from_traversers! {
        /// The HTTP status of the response.
        http_status -> u16;
        /// The `Gremlin-RequestId` of the response.
        request_id -> Option<&str>;
        /// Whether the results are bulked; `None` until the first bytes have been read.
        bulked -> Option<bool>;
        /// The final status, once the stream has ended.
        status -> Option<&Status>;
    }

    /// The status attributes of the last response message read so far, for a TinkerPop 3
    /// (`ws://` / `wss://`) request: `None` before its first message has been read, and always
    /// over HTTP (GraphBinary 4 has none). Each message of a TinkerPop 3 response carries
    /// them; Azure Cosmos DB puts its request charges there, `x-ms-request-charge` for the
    /// message and `x-ms-total-request-charge` for the request so far, so once the stream has
    /// ended they are the whole request's
    /// ([`StatusAttributes::total_request_charge`]). An error ends the stream with its own
    /// attributes, in its [`ServerError::attributes`].
    ///
    /// ```no_run
    /// # async fn demo(client: graphbinary_client::Client) -> Result<(), graphbinary_client::Error> {
    /// use futures::TryStreamExt;
    ///
    /// let mut results = client.request("g.V().count()").send().await?;
    /// while let Some(v) = results.try_next().await? {
    ///     println!("{v}");
    /// }
    /// let charge = results.status_attributes().and_then(|a| a.total_request_charge());
    /// println!("request units: {charge:?}");
    /// # Ok(()) }
    /// ```
    pub fn status_attributes(&self) -> Option<&StatusAttributes> {
        self.inner.status_attributes()
    }

    /// Traversers decoded so far (for an unbulked response: results).
    pub fn results(&self) -> u64 {
        self.inner.results()
    }

    /// The byte counters of the response body (shared; they keep counting while the stream
    /// is read elsewhere).
    pub fn counters(&self) -> Arc<ByteCounters> {
        self.inner.counters()
    }

    /// All results, bulks expanded (a value with bulk 3 appears three times).
    ///
    /// # Cancel safety
    /// Not cancel safe: it takes the stream, so dropping the future drops the response and the
    /// results read so far with it. The connection is then closed, never returned to the pool
    /// half-read; nothing else is affected.
    pub async fn all(self) -> Result<Vec<Value>, Error> {
        let mut out = Vec::new();
        // The buffered results are decoded in one synchronous loop (`for_each_result`), not
        // one poll of the stream each. A bulk too large to expand is the error, before
        // whatever the rest of the response says.
        let mut too_big = None;
        let mut t = self.traversers();
        let r = t
            .for_each_result(|tr| {
                if too_big.is_none() {
                    if let Err(e) = push_expanded(&mut out, tr) {
                        too_big = Some(e);
                    }
                }
            })
            .await;
        if let Some(e) = too_big {
            return Err(e);
        }
        r?;
        Ok(out)
    }

    /// All results as (value, bulk) traversers, bulks not expanded.
    ///
    /// # Cancel safety
    /// Not cancel safe: it takes the stream, so dropping the future drops the response and the
    /// results read so far with it. The connection is then closed, never returned to the pool
    /// half-read; nothing else is affected.
    pub async fn all_traversers(self) -> Result<Vec<Traverser>, Error> {
        self.traversers().all().await
    }

    /// The single result, converted to `T`. Fails with [`Error::NoResult`] when there is
    /// none, [`Error::TooManyResults`] when there is more than one (bulks counted), and with
    /// the server's error if the response ends with one.
    ///
    /// # Cancel safety
    /// Not cancel safe: it takes the stream, so dropping the future drops the response and the
    /// results read so far with it. The connection is then closed, never returned to the pool
    /// half-read; nothing else is affected.
    pub async fn one<T>(self) -> Result<T, Error>
    where
        T: TryFrom<Value>,
        T::Error: std::fmt::Display + 'static,
    {
        let mut first: Option<Value> = None;
        let mut count: u64 = 0;
        let mut t = self.traversers();
        while let Some(item) = t.next().await {
            let item = item?;
            count = count.saturating_add(item.bulk.max(0) as u64);
            if first.is_none() && item.bulk > 0 {
                first = Some(item.value);
            }
        }
        match (first, count) {
            (None, _) => Err(Error::NoResult),
            (Some(v), 1) => T::try_from(v).map_err(Error::conversion::<T, _>),
            (Some(_), n) => Err(Error::TooManyResults(n)),
        }
    }

    /// The number of results (bulks summed), reading without keeping them.
    ///
    /// # Cancel safety
    /// Not cancel safe: it takes the stream, so dropping the future drops the response and the
    /// results read so far with it. The connection is then closed, never returned to the pool
    /// half-read; nothing else is affected.
    pub async fn count(self) -> Result<u64, Error> {
        self.traversers().count().await
    }
}

impl Stream for ResultStream {
    type Item = Result<Value, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some((value, left)) = &mut this.pending {
                if *left > 1 {
                    *left -= 1;
                    return Poll::Ready(Some(Ok(value.clone())));
                }
                let (value, _) = this.pending.take().expect("checked above");
                return Poll::Ready(Some(Ok(value)));
            }
            match this.inner.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(t))) => match t.bulk {
                    1 => return Poll::Ready(Some(Ok(t.value))),
                    n if n <= 0 => continue,
                    n => this.pending = Some((t.value, n as u64)),
                },
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

fn push_expanded(out: &mut Vec<Value>, t: Traverser) -> Result<(), Error> {
    match t.bulk {
        1 => out.push(t.value),
        n if n <= 0 => {}
        n => {
            let too_big = || Error::Protocol(format!("bulk {n} cannot be expanded in memory"));
            let n = usize::try_from(n).map_err(|_| too_big())?;
            out.try_reserve(n).map_err(|_| too_big())?;
            for _ in 1..n {
                out.push(t.value.clone());
            }
            out.push(t.value);
        }
    }
    Ok(())
}
