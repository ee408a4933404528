//! Sending a [`RequestBuilder`]: the request observed (its span, counts and listener), and the
//! one send loop every request goes through, over HTTP and `ws://` alike: it walks the
//! request's [`HostPlan`], moving to the next host while one cannot be reached (nothing was
//! sent), and retries an idempotent request as the client's [`RetryPolicy`](super::RetryPolicy)
//! says. One try on one host is `http4.rs` or `ws3.rs`.

use std::time::Duration;

use super::hosts::{HostPlan, Target};
use super::retry;
use super::transaction::TxContext;
use super::{Error, RawResponse, RequestBuilder, ResultStream, Transport};

impl RequestBuilder {
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

    async fn send_unobserved(mut self) -> Result<ResultStream, Error> {
        let inner = self.client.inner.clone();
        inner.check_open()?;
        if inner.cosmos {
            super::cosmos::check_script(&self.gremlin)?;
        }
        if let Some(session) = self.transaction.as_ref().and_then(|t| t.session.clone()) {
            return self.send_session(&session).await;
        }
        let retrying = self.idempotent && self.transaction.is_none();
        if matches!(inner.transport, Transport::Http(_)) && !retrying {
            let raw = self.send_raw().await?;
            return Ok(ResultStream::new(raw, inner.read_options));
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let t = self.timeout.or(inner.request_timeout);
        let (answer, _) = self
            .send_planned(self.transaction.as_ref(), retrying, t)
            .await?;
        Ok(answer.into_stream(inner.read_options))
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

    /// [`send_raw`](Self::send_raw), also returning the index of the host that answered.
    pub(super) async fn send_raw_on(mut self) -> Result<(RawResponse, usize), Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.client.inner.check_open()?;
        let tx = self.transaction.clone();
        let t = self.timeout.or(self.client.inner.request_timeout);
        let res = match self.send_planned(tx.as_ref(), false, t).await {
            Ok((Answer::Raw(raw), host)) => Ok((raw, host)),
            // A ws:// client: refused by `Inner::http` before.
            Ok((Answer::Stream(_), _)) => Err(Error::InvalidRequest(
                "this is for HTTP (TinkerPop 4); a ws:// client sends no HTTP request".into(),
            )),
            Err(e) => Err(e),
        };
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

    /// The one send loop: walks the request's [`HostPlan`] (pinned to the host of `tx`'s
    /// transaction if it has one), trying each target over the client's transport, bounded by
    /// `timeout` from now to the end of the response. It moves to the next host of the plan
    /// while one cannot be reached (nothing was sent); when `retrying` (an idempotent request),
    /// a try counts only once its first result (or its end) has come, and one that failed
    /// before in a way [`retry::retryable`] allows begins the plan's next attempt after the
    /// policy's delay, while attempts and the deadline allow. Returns the answer and its host.
    async fn send_planned(
        &self,
        tx: Option<&TxContext>,
        retrying: bool,
        timeout: Option<Duration>,
    ) -> Result<(Answer, usize), Error> {
        let inner = &*self.client.inner;
        let route = match &inner.transport {
            Transport::Http(_) => Route::Http(super::http4::Prepared::new(inner, self, tx)?),
            Transport::Ws(ws) => Route::Ws(ws, self.eval_v1()?.to_request()),
        };
        let deadline = timeout.map(|t| (t, tokio::time::Instant::now() + t));
        let mut plan = HostPlan::new(&inner.hosts, tx.and_then(|t| t.host));
        // An HTTP attempt's pool slot, kept while it moves from host to host.
        let mut permit = None;
        let mut counted = 0;
        while let Some(Target { host, attempt }) = plan.next() {
            tracing::Span::current().record(
                "host",
                super::redact_url(inner.hosts.url(host).as_str()).as_ref(),
            );
            let left =
                deadline.map(|(_, d)| d.saturating_duration_since(tokio::time::Instant::now()));
            let tried = match &route {
                Route::Http(req) => {
                    if attempt > counted {
                        inner.observer.sent(req.body.len());
                        counted = attempt;
                    }
                    if permit.is_none() {
                        permit = Some(inner.slot().await);
                    }
                    inner
                        .send_http(req, host, left, &mut permit)
                        .await
                        .map(Answer::Raw)
                }
                Route::Ws(ws, request) => inner
                    .send_ws(ws, request, host, timeout, left)
                    .await
                    .map(Answer::Stream),
            };
            let failed = match tried {
                Ok(answer) if !retrying => {
                    inner.hosts.succeeded(host);
                    return Ok((answer, host));
                }
                Ok(answer) => {
                    let stream = answer.into_stream(inner.read_options);
                    match self.first_result(stream, host).await {
                        Ok(stream) => {
                            inner.hosts.succeeded(host);
                            return Ok((Answer::Stream(stream), host));
                        }
                        Err(f) => f,
                    }
                }
                Err(f) => f,
            };
            if failed.unreachable && plan.has_more() {
                tracing::debug!(
                    target: "graphbinary_client",
                    host = %super::redact_url(inner.hosts.url(host).as_str()),
                    error = %failed.error,
                    "host unreachable, nothing sent: trying the next one"
                );
                continue;
            }
            if !retrying {
                return Err(failed.error);
            }
            permit = None;
            let failed_on = failed.host;
            let delay = self.retry_delay(failed, attempt, deadline)?;
            tokio::time::sleep(delay).await;
            plan.retry(failed_on);
        }
        Err(Error::Config("the client has no host".to_owned()))
    }

    /// Whether an idempotent request whose attempt `attempt` `failed` is sent again: the
    /// delay before the next attempt, or the error to return. A server's answer that says its
    /// host is down marks it so.
    fn retry_delay(
        &self,
        failed: Failed,
        attempt: u32,
        deadline: Option<(Duration, tokio::time::Instant)>,
    ) -> Result<Duration, Error> {
        let inner = &*self.client.inner;
        let asked = failed
            .retry_after
            .or_else(|| retry::asked_in(&failed.error));
        let (error, host) = (failed.error, failed.host);
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
        Ok(delay)
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
                Err(Failed::new(error, Some(host)))
            }
        }
    }
}

/// How a request goes over the client's transport, prepared once for all its tries.
enum Route<'a> {
    Http(super::http4::Prepared),
    Ws(&'a super::ws3::Ws3, crate::protocol::ws3::RequestMessage),
}

/// What a try brought: an HTTP response whose headers have arrived, or results.
// Moved once per request and never stored: a box would cost an allocation for nothing.
#[allow(clippy::large_enum_variant)]
enum Answer {
    Raw(RawResponse),
    Stream(ResultStream),
}

impl Answer {
    fn into_stream(self, opts: crate::protocol::http4::response::ReadOptions) -> ResultStream {
        match self {
            Answer::Raw(raw) => ResultStream::new(raw, opts),
            Answer::Stream(s) => s,
        }
    }
}

/// A failed try: the error, the host it went to (if it got that far), the wait a
/// `Retry-After` header asked for, and whether the host could not be reached (nothing was
/// sent: the request may move to the next host).
pub(super) struct Failed {
    pub(super) error: Error,
    pub(super) host: Option<usize>,
    pub(super) retry_after: Option<Duration>,
    pub(super) unreachable: bool,
}

impl Failed {
    pub(super) fn new(error: Error, host: Option<usize>) -> Self {
        Failed {
            error,
            host,
            retry_after: None,
            unreachable: false,
        }
    }
}

pub(super) fn timeout_error(t: Duration) -> Error {
    Error::Transport {
        kind: super::TransportKind::Timeout,
        source: format!("the request took over {t:?}").into(),
    }
}
