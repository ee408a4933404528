//! What a client tells its operator: a `tracing` span per request and events for what happens
//! around requests, a [`Client::stats`](super::Client::stats) snapshot, the `metrics` facade
//! (feature `metrics`) and a [`RequestListener`] called at each step of a request.
//!
//! # Tracing
//!
//! Each request runs in a span named `gremlin.request` (target `graphbinary_client`), at
//! `INFO` level, with the fields `protocol` (`http` or `ws`), `host` (the URL, credentials
//! redacted), `source` (the traversal source alias, when set), `request_id`, `status` (the
//! server's final status code), `results` (traversers read), `bytes` (bytes received),
//! `duration_ms`, `retries` and `outcome` (`ok`, `cancelled` or the error's kind, see
//! [`Error::kind`](super::Error::kind)). The span ends when the response is read to its end or
//! dropped. The script and its parameters carry data, so they are recorded (fields `gremlin`
//! and `parameters`) only with [`ClientBuilder::trace_query_text`](super::ClientBuilder::trace_query_text).
//!
//! Events: a retry (`WARN`, with the attempt, host, delay and error), a host marked down
//! (`WARN`) or up again (`INFO`), a request waiting for a pool slot (`DEBUG`), and for
//! a connection opened and closed (`DEBUG`: `HTTP connection opened` and `HTTP connection
//! closed`, field `host`, the close also `lived_ms` and `requests`, the responses it carried;
//! `WebSocket connection opened` and `WebSocket connection closed`). No field ever holds a
//! password, key or token: URLs go through
//! [`redact_url`](super::redact_url) and errors' messages hold no credentials.
//!
//! # Metrics
//!
//! With feature `metrics`, through whichever recorder the application installed:
//!
//! | name | kind | labels |
//! |---|---|---|
//! | `gremlin_client_requests_total` | counter | `protocol` |
//! | `gremlin_client_requests_in_flight` | gauge | |
//! | `gremlin_client_request_duration_seconds` | histogram | `protocol` |
//! | `gremlin_client_errors_total` | counter | `kind` ([`Error::kind`](super::Error::kind)) |
//! | `gremlin_client_retries_total` | counter | |
//! | `gremlin_client_bytes_received_total`, `gremlin_client_bytes_sent_total` | counter | |
//! | `gremlin_client_connections_opened_total` | counter | `host` (`scheme://host:port`) |
//! | `gremlin_client_connections_closed_total` | counter | `host` |
//! | `gremlin_client_connections_open` | gauge | `host` |
//!
//! `tracing` is a dependency, not a feature: with no subscriber installed each span and event
//! costs one check of a static flag.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Error;

/// What a [`RequestListener`] learns of a request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RequestInfo {
    /// `http` or `ws`.
    pub protocol: &'static str,
    /// The traversal source alias, when the request sets one.
    pub source: Option<String>,
    /// When the request started.
    pub started: Instant,
}

/// How a request ended, for [`RequestListener::on_end`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RequestEnd {
    /// `ok`, `cancelled` (dropped before its end) or the error's kind ([`Error::kind`]).
    pub outcome: &'static str,
    /// Traversers read.
    pub results: u64,
    /// Bytes received.
    pub bytes: u64,
    /// From the start to the end.
    pub duration: Duration,
}

/// A retry, for [`RequestListener::on_retry`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RetryInfo {
    /// The attempt that failed (1 for the first).
    pub attempt: u32,
    /// The host it went to (credentials redacted).
    pub host: String,
    /// The kind of its error ([`Error::kind`]).
    pub error: &'static str,
    /// The wait before the next attempt.
    pub delay: Duration,
}

/// Hooks called at the start, the first byte, the end and each retry of every request
/// ([`ClientBuilder::listener`](super::ClientBuilder::listener)), on the task that runs the
/// request: keep them short. Each has an empty default.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use graphbinary_client::client::{RequestEnd, RequestInfo, RequestListener};
///
/// #[derive(Default)]
/// struct Slow(AtomicU64);
///
/// impl RequestListener for Slow {
///     fn on_end(&self, _: &RequestInfo, end: &RequestEnd) {
///         if end.duration.as_millis() > 500 {
///             self.0.fetch_add(1, Ordering::Relaxed);
///         }
///     }
/// }
/// let client = graphbinary_client::Client::builder("http://127.0.0.1:8182/gremlin")
///     .listener(std::sync::Arc::new(Slow::default()))
///     .build()
///     .unwrap();
/// # drop(client);
/// ```
pub trait RequestListener: Send + Sync + 'static {
    /// The request is about to be sent.
    fn on_start(&self, _request: &RequestInfo) {}
    /// The response's first bytes arrived (its headers, or its first message), `after` the
    /// start.
    fn on_first_byte(&self, _request: &RequestInfo, _after: Duration) {}
    /// The request ended: read to its end, failed, or dropped.
    fn on_end(&self, _request: &RequestInfo, _end: &RequestEnd) {}
    /// An idempotent request is retried.
    fn on_retry(&self, _retry: &RetryInfo) {}
}

impl std::fmt::Debug for dyn RequestListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequestListener")
    }
}

/// A latency summary of [`ClientStats`], from a log-linear histogram (16 buckets per power
/// of two of microseconds: a percentile is within 1/16 of the true value, 6.25 %).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Latency {
    /// Requests measured.
    pub count: u64,
    /// Median.
    pub p50: Duration,
    /// 90th percentile.
    pub p90: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// The longest.
    pub max: Duration,
}

/// A snapshot of what a client (and its clones) did since it was built:
/// [`Client::stats`](super::Client::stats).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientStats {
    /// Requests started.
    pub requests: u64,
    /// Requests read to their end with the status 200.
    pub succeeded: u64,
    /// Requests that ended with an error, by [`Error::kind`].
    pub errors: BTreeMap<&'static str, u64>,
    /// Requests dropped before their end.
    pub cancelled: u64,
    /// Retries of idempotent requests.
    pub retries: u64,
    /// Requests in flight now.
    pub in_flight: u64,
    /// Bytes received (HTTP bodies as sent, compressed when compressed; WebSocket messages).
    pub bytes_in: u64,
    /// Request bytes sent (HTTP bodies; WebSocket request messages are not counted).
    pub bytes_out: u64,
    /// Time from the start of each request to its end.
    pub latency: Latency,
    /// Connections opened, closed and open now per host, keyed by `scheme://host:port`
    /// (both transports).
    pub connections: BTreeMap<String, crate::transport::ConnectionCounts>,
}

const SUB: usize = 16;
const BUCKETS: usize = 40 * SUB;

/// A log-linear histogram of microseconds.
struct Histogram {
    counts: Vec<AtomicU64>,
    max: AtomicU64,
}

impl Histogram {
    fn new() -> Self {
        Histogram {
            counts: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            max: AtomicU64::new(0),
        }
    }

    fn bucket(us: u64) -> usize {
        if us < SUB as u64 {
            return us as usize;
        }
        let exp = 63 - us.leading_zeros() as usize; // us >= 16: exp >= 4
        let sub = ((us >> (exp - 4)) & (SUB as u64 - 1)) as usize;
        ((exp - 3) * SUB + sub).min(BUCKETS - 1)
    }

    /// The upper bound of a bucket, in microseconds.
    fn upper(b: usize) -> u64 {
        if b < SUB {
            return b as u64;
        }
        let exp = b / SUB + 3;
        let sub = (b % SUB) as u64;
        ((SUB as u64 + sub + 1) << (exp - 4)) - 1
    }

    fn record(&self, d: Duration) {
        let us = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.counts[Self::bucket(us)].fetch_add(1, Ordering::Relaxed);
        self.max.fetch_max(us, Ordering::Relaxed);
    }

    fn summary(&self) -> Latency {
        let counts: Vec<u64> = self
            .counts
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        let count: u64 = counts.iter().sum();
        let max = self.max.load(Ordering::Relaxed);
        let at = |q: f64| {
            if count == 0 {
                return Duration::ZERO;
            }
            let rank = ((q * count as f64).ceil() as u64).max(1);
            let mut seen = 0;
            for (b, n) in counts.iter().enumerate() {
                seen += n;
                if seen >= rank {
                    return Duration::from_micros(Self::upper(b).min(max));
                }
            }
            Duration::from_micros(max)
        };
        Latency {
            count,
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max: Duration::from_micros(max),
        }
    }
}

/// The client's counters, shared by its clones and its requests.
pub(crate) struct Observer {
    requests: AtomicU64,
    succeeded: AtomicU64,
    cancelled: AtomicU64,
    retries: AtomicU64,
    in_flight: AtomicI64,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    errors: Mutex<BTreeMap<&'static str, u64>>,
    latency: Histogram,
    pub(crate) listener: Option<Arc<dyn RequestListener>>,
    /// Whether spans carry the script and its parameters.
    pub(crate) query_text: bool,
    connections: crate::transport::ConnectionTally,
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("listener", &self.listener.is_some())
            .field("query_text", &self.query_text)
            .finish_non_exhaustive()
    }
}

impl Observer {
    pub(crate) fn new(
        listener: Option<Arc<dyn RequestListener>>,
        query_text: bool,
        connections: crate::transport::ConnectionTally,
    ) -> Self {
        Observer {
            requests: AtomicU64::new(0),
            succeeded: AtomicU64::new(0),
            cancelled: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            in_flight: AtomicI64::new(0),
            bytes_in: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            errors: Mutex::new(BTreeMap::new()),
            latency: Histogram::new(),
            listener,
            query_text,
            connections,
        }
    }

    /// Retries so far ([`Client::retries`](super::Client::retries)).
    pub(crate) fn retries(&self) -> u64 {
        self.retries.load(Ordering::Relaxed)
    }

    pub(crate) fn stats(&self) -> ClientStats {
        ClientStats {
            requests: self.requests.load(Ordering::Relaxed),
            succeeded: self.succeeded.load(Ordering::Relaxed),
            errors: self
                .errors
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            cancelled: self.cancelled.load(Ordering::Relaxed),
            retries: self.retries(),
            in_flight: self.in_flight.load(Ordering::Relaxed).max(0) as u64,
            bytes_in: self.bytes_in.load(Ordering::Relaxed),
            bytes_out: self.bytes_out.load(Ordering::Relaxed),
            latency: self.latency.summary(),
            connections: self.connections.snapshot(),
        }
    }

    /// The tally of the client's connections (every host, both transports).
    pub(crate) fn connections(&self) -> &crate::transport::ConnectionTally {
        &self.connections
    }

    /// Counts request bytes sent.
    pub(crate) fn sent(&self, n: usize) {
        self.bytes_out.fetch_add(n as u64, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("gremlin_client_bytes_sent_total").increment(n as u64);
    }

    /// A request starts: its span, counters and listener.
    pub(crate) fn start(
        self: &Arc<Self>,
        protocol: &'static str,
        source: Option<&str>,
        gremlin: &str,
        parameters: impl FnOnce() -> String,
    ) -> Request {
        let span = tracing::info_span!(
            target: "graphbinary_client",
            "gremlin.request",
            protocol,
            source,
            host = tracing::field::Empty,
            request_id = tracing::field::Empty,
            status = tracing::field::Empty,
            results = tracing::field::Empty,
            bytes = tracing::field::Empty,
            duration_ms = tracing::field::Empty,
            retries = tracing::field::Empty,
            outcome = tracing::field::Empty,
            gremlin = tracing::field::Empty,
            parameters = tracing::field::Empty,
        );
        if self.query_text && !span.is_disabled() {
            span.record("gremlin", gremlin);
            span.record("parameters", parameters().as_str());
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        {
            metrics::counter!("gremlin_client_requests_total", "protocol" => protocol).increment(1);
            metrics::gauge!("gremlin_client_requests_in_flight").increment(1.0);
        }
        let info = RequestInfo {
            protocol,
            source: source.map(str::to_owned),
            started: Instant::now(),
        };
        if let Some(l) = &self.listener {
            l.on_start(&info);
        }
        Request {
            observer: self.clone(),
            span,
            info,
            ended: false,
        }
    }

    /// A retry, just before its wait: the one place where retries are seen (its event,
    /// counters and listener call).
    pub(crate) fn retry(&self, attempt: u32, host: &str, error: &Error, delay: Duration) {
        self.retries.fetch_add(1, Ordering::Relaxed);
        let host = super::redact_url(host);
        tracing::warn!(
            target: "graphbinary_client",
            attempt,
            host = %host,
            delay_ms = delay.as_millis() as u64,
            error = %error,
            "retrying an idempotent request"
        );
        tracing::Span::current().record("retries", attempt);
        #[cfg(feature = "metrics")]
        metrics::counter!("gremlin_client_retries_total").increment(1);
        if let Some(l) = &self.listener {
            l.on_retry(&RetryInfo {
                attempt,
                host: host.into_owned(),
                error: error.kind().as_str(),
                delay,
            });
        }
    }
}

/// One request's observation: ended once, by [`Request::end`] or when dropped (a request
/// whose future was dropped before it had a response is `cancelled`).
pub(crate) struct Request {
    observer: Arc<Observer>,
    pub(crate) span: tracing::Span,
    info: RequestInfo,
    ended: bool,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("protocol", &self.info.protocol)
            .finish_non_exhaustive()
    }
}

impl Request {
    /// The response's first bytes are in.
    pub(crate) fn first_byte(&self, request_id: Option<&str>) {
        if let Some(id) = request_id {
            self.span.record("request_id", id);
        }
        if let Some(l) = &self.observer.listener {
            l.on_first_byte(&self.info, self.info.started.elapsed());
        }
    }

    /// The request ended: `outcome` is `ok`, `cancelled` or an error kind.
    pub(crate) fn end(
        mut self,
        outcome: &'static str,
        status: Option<i32>,
        results: u64,
        bytes: u64,
    ) {
        self.finish(outcome, status, results, bytes);
    }

    fn finish(&mut self, outcome: &'static str, status: Option<i32>, results: u64, bytes: u64) {
        if self.ended {
            return;
        }
        self.ended = true;
        let o = &*self.observer;
        let duration = self.info.started.elapsed();
        o.in_flight.fetch_sub(1, Ordering::Relaxed);
        o.bytes_in.fetch_add(bytes, Ordering::Relaxed);
        o.latency.record(duration);
        match outcome {
            "ok" => {
                o.succeeded.fetch_add(1, Ordering::Relaxed);
            }
            "cancelled" => {
                o.cancelled.fetch_add(1, Ordering::Relaxed);
            }
            kind => {
                *o.errors
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .entry(kind)
                    .or_default() += 1;
            }
        }
        #[cfg(feature = "metrics")]
        {
            metrics::gauge!("gremlin_client_requests_in_flight").decrement(1.0);
            metrics::histogram!("gremlin_client_request_duration_seconds", "protocol" => self.info.protocol)
                .record(duration.as_secs_f64());
            metrics::counter!("gremlin_client_bytes_received_total").increment(bytes);
            if outcome != "ok" {
                metrics::counter!("gremlin_client_errors_total", "kind" => outcome).increment(1);
            }
        }
        if let Some(s) = status {
            self.span.record("status", s);
        }
        self.span.record("results", results);
        self.span.record("bytes", bytes);
        self.span.record("duration_ms", duration.as_millis() as u64);
        self.span.record("outcome", outcome);
        if let Some(l) = &o.listener {
            l.on_end(
                &self.info,
                &RequestEnd {
                    outcome,
                    results,
                    bytes,
                    duration,
                },
            );
        }
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        self.finish("cancelled", None, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_bound_their_values_within_a_sixteenth() {
        for us in [
            0u64,
            1,
            15,
            16,
            17,
            31,
            32,
            100,
            999,
            1_000,
            65_535,
            1 << 30,
            3_600_000_000,
        ] {
            let b = Histogram::bucket(us);
            let upper = Histogram::upper(b);
            assert!(upper >= us, "{us} in bucket {b} up to {upper}");
            assert!(
                upper - us <= us / 16,
                "{us}: bucket up to {upper} is too wide"
            );
            if b > 0 {
                assert!(
                    Histogram::upper(b - 1) < us,
                    "{us} belongs to an earlier bucket"
                );
            }
        }
    }

    #[test]
    fn percentiles_come_from_the_recorded_durations() {
        let h = Histogram::new();
        for ms in 1..=100u64 {
            h.record(Duration::from_millis(ms));
        }
        let s = h.summary();
        assert_eq!(s.count, 100);
        assert_eq!(s.max, Duration::from_millis(100));
        let near = |d: Duration, ms: u64| {
            let us = d.as_micros() as u64;
            us >= ms * 1000 && us <= ms * 1000 + ms * 1000 / 16
        };
        assert!(near(s.p50, 50), "{:?}", s.p50);
        assert!(near(s.p90, 90), "{:?}", s.p90);
        assert!(near(s.p99, 99), "{:?}", s.p99);
        assert_eq!(Histogram::new().summary(), Latency::default());
    }
}
