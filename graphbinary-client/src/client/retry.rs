//! Retries of idempotent requests: [`RetryPolicy`] (how many attempts, how long between them)
//! and the rule of what may be retried (`retryable`).
//!
//! The rules are [`RetryPolicy`]'s documentation ("What is retried").

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::error::{Error, TransportKind};

/// How an idempotent request is retried (see [`ClientBuilder::retry_policy`](super::ClientBuilder::retry_policy)).
///
/// The default: 3 attempts in all, a first backoff of 50 ms doubling up to 2 s, each delay
/// drawn between half and all of its backoff, a server's `Retry-After` honoured up to 10 s.
///
/// ```
/// use std::time::Duration;
/// use graphbinary_client::client::RetryPolicy;
///
/// let p = RetryPolicy::default()
///     .max_attempts(5)
///     .initial_backoff(Duration::from_millis(20))
///     .max_backoff(Duration::from_secs(1));
/// assert_eq!(p.attempts(), 5);
/// // The third attempt waits between 20 and 40 ms (half to all of 20 ms doubled once).
/// let d = p.delay(2, None);
/// assert!(d >= Duration::from_millis(20) && d <= Duration::from_millis(40), "{d:?}");
/// // A server asking for 3 s gets 3 s.
/// assert_eq!(p.delay(1, Some(Duration::from_secs(3))), Duration::from_secs(3));
/// assert_eq!(RetryPolicy::none().attempts(), 1);
/// ```
///
/// # What is retried
///
/// A request is retried only when it is marked idempotent
/// ([`RequestBuilder::idempotent`](super::RequestBuilder::idempotent)), is not part of a
/// transaction, and failed in one of these ways before its first result reached the caller:
///
/// * it could not connect ([`TransportKind::Connect`](super::TransportKind::Connect);
///   nothing was sent: such a request is moved to the next host whether it is idempotent or
///   not);
/// * the connection failed ([`TransportKind::Io`](super::TransportKind::Io): reset, closed)
///   before the response headers or before the first result;
/// * the server answered 429 (Too Many Requests), 503 (Service Unavailable) or 596
///   (`SERVER_ERROR_TEMPORARY`, TinkerPop's "try again"), as an HTTP status or as the status
///   of a response with no result (a GraphBinary footer, a TinkerPop 3 status message);
/// * the server throttled it the way Azure Cosmos DB does: a TinkerPop 3 status (500) whose
///   `x-ms-status-code` attribute is 429 ([`ServerError::is_throttled`](super::ServerError::is_throttled)).
///   A 500 without that attribute is not retried. A throttled host stays in the rotation
///   (429 is aimed at this client, not a sign the host is down).
///
/// A timeout is not retried (the deadline is the caller's), nor is any error after a result
/// was yielded. A retry goes to another host when the client has several, over HTTP and over
/// `ws://` alike; with one `ws://` host it goes to the same server on a connection of the pool
/// (a connection that dropped is replaced). Between attempts the client waits an exponential backoff with
/// jitter, or what the server asks when that is longer (HTTP's `Retry-After` in seconds, or
/// Cosmos DB's `x-ms-retry-after-ms` status attribute, a .NET `TimeSpan` such as
/// `"00:00:03.9500000"`: [`StatusAttributes::retry_after`](super::StatusAttributes::retry_after);
/// either capped by [`RetryPolicy::max_retry_after`]), never past
/// the request's deadline ([`RequestBuilder::timeout`](super::RequestBuilder::timeout) /
/// [`ClientBuilder::request_timeout`](super::ClientBuilder::request_timeout), which bounds
/// all attempts together).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    max_attempts: u32,
    initial_backoff: Duration,
    max_backoff: Duration,
    max_retry_after: Option<Duration>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
            max_retry_after: Some(Duration::from_secs(10)),
        }
    }
}

impl RetryPolicy {
    /// No retry: one attempt (a request that cannot connect still moves to the next host).
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// Attempts in all, the first included (at least 1; default 3).
    pub fn max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n.max(1);
        self
    }

    /// The backoff before the first retry (default 50 ms); it doubles at each further retry.
    pub fn initial_backoff(mut self, t: Duration) -> Self {
        self.initial_backoff = t;
        self
    }

    /// The longest backoff (default 2 s).
    pub fn max_backoff(mut self, t: Duration) -> Self {
        self.max_backoff = t;
        self
    }

    /// The longest `Retry-After` honoured (default 10 s); a server asking for more gets this.
    /// `None` ignores `Retry-After`.
    pub fn max_retry_after(mut self, t: impl Into<Option<Duration>>) -> Self {
        self.max_retry_after = t.into();
        self
    }

    /// Attempts in all, the first included.
    pub fn attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The wait before attempt `retry + 1` (`retry` = 1 for the first retry): the backoff
    /// `initial * 2^(retry-1)` capped at the maximum, a random point between half of it and
    /// all of it (so that clients that failed together do not come back together), or the
    /// server's `retry_after` (capped) when that is longer.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let shift = retry.saturating_sub(1).min(20);
        let backoff = self
            .initial_backoff
            .saturating_mul(1u32 << shift)
            .min(self.max_backoff.max(self.initial_backoff));
        let half = backoff / 2;
        let nanos = u64::try_from((backoff - half).as_nanos()).unwrap_or(u64::MAX);
        let jittered = half + Duration::from_nanos(if nanos == 0 { 0 } else { random() % nanos });
        match (retry_after, self.max_retry_after) {
            (Some(asked), Some(max)) => jittered.max(asked.min(max)),
            _ => jittered,
        }
    }
}

/// A pseudo-random number for the jitter (splitmix64 over a shared counter seeded from the
/// clock: nothing here needs to be unpredictable, only spread).
fn random() -> u64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let mut s = STATE.load(Ordering::Relaxed);
    if s == 0 {
        s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1;
        STATE.store(s, Ordering::Relaxed);
    }
    let mut z = STATE
        .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The statuses that mean "try again later": 429, 503 and TinkerPop's 596
/// (`SERVER_ERROR_TEMPORARY`). Also retried: a status whose `x-ms-status-code` attribute is
/// 429 (Azure Cosmos DB's throttling, [`ServerError::is_throttled`](super::ServerError::is_throttled)).
pub(crate) const RETRYABLE_STATUSES: [i32; 3] = [429, 503, 596];

/// Whether an idempotent request that failed with `e` before its first result may be sent
/// again (see the module docs): a connect or I/O failure, or a 429, 503 or 596.
pub(crate) fn retryable(e: &Error) -> bool {
    match e {
        Error::Transport { kind, .. } => matches!(kind, TransportKind::Connect | TransportKind::Io),
        Error::Server(s) => {
            RETRYABLE_STATUSES.contains(&s.code)
                || s.http_status
                    .is_some_and(|h| RETRYABLE_STATUSES.contains(&i32::from(h)))
                || s.is_throttled()
        }
        _ => false,
    }
}

/// The wait the server asked for in the error `e` itself: Azure Cosmos DB's
/// `x-ms-retry-after-ms` status attribute (a TinkerPop 3 status message; over HTTP the
/// `Retry-After` header is read where the response is, [`retry_after`]).
pub(crate) fn asked_in(e: &Error) -> Option<Duration> {
    e.server_error()?.attributes.retry_after()
}

/// Whether the failure `e` of a host should take it out of the rotation (a connection that
/// failed, or a server saying it is unavailable), as opposed to a rate limit (429) aimed at
/// this client.
pub(crate) fn host_is_down(e: &Error) -> bool {
    match e {
        Error::Transport { kind, .. } => matches!(kind, TransportKind::Connect | TransportKind::Io),
        Error::Server(s) => {
            matches!(s.code, 503 | 596) || s.http_status.is_some_and(|h| matches!(h, 503 | 596))
        }
        _ => false,
    }
}

/// The wait a response's `Retry-After` header asks for, in seconds (an HTTP date is not
/// honoured: it needs a clock shared with the server).
pub(crate) fn retry_after(headers: &http::header::HeaderMap) -> Option<Duration> {
    let v = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?;
    v.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::ServerError;
    use crate::value::Value;

    fn server(code: i32, http: Option<u16>) -> Error {
        Error::Server(ServerError {
            http_status: http,
            code,
            message: None,
            exception: None,
            attributes: Default::default(),
        })
    }

    #[test]
    fn only_connection_failures_and_try_again_statuses_are_retryable() {
        for (e, yes) in [
            (server(429, Some(429)), true),
            (server(503, Some(503)), true),
            (server(596, None), true),
            (server(596, Some(200)), true),
            (server(500, Some(500)), false),
            (server(597, None), false),
            (server(401, Some(401)), false),
            (
                Error::Transport {
                    kind: TransportKind::Io,
                    source: "reset".into(),
                },
                true,
            ),
            (
                Error::Transport {
                    kind: TransportKind::Connect,
                    source: "refused".into(),
                },
                true,
            ),
            (
                Error::Transport {
                    kind: TransportKind::Timeout,
                    source: "slow".into(),
                },
                false,
            ),
            (Error::Protocol("bad".into()), false),
        ] {
            assert_eq!(retryable(&e), yes, "{e:?}");
        }
        assert!(!host_is_down(&server(429, Some(429))));
        assert!(host_is_down(&server(503, Some(503))));
    }

    fn cosmos(code: i32, attributes: &[(&str, Value)]) -> Error {
        Error::Server(ServerError {
            http_status: None,
            code,
            message: Some("Request rate is large".into()),
            exception: None,
            attributes: attributes
                .iter()
                .map(|(k, v)| (Value::from(*k), v.clone()))
                .collect::<Vec<_>>()
                .into(),
        })
    }

    #[test]
    fn cosmos_throttling_is_retryable_after_its_retry_after_and_no_host_down() {
        let throttled = cosmos(
            500,
            &[
                ("x-ms-status-code", Value::Long(429)),
                ("x-ms-retry-after-ms", Value::from("00:00:01.2500000")),
            ],
        );
        assert!(retryable(&throttled));
        assert!(!host_is_down(&throttled));
        assert_eq!(asked_in(&throttled), Some(Duration::from_millis(1250)));
        let p = RetryPolicy::default();
        assert_eq!(
            p.delay(1, asked_in(&throttled)),
            Duration::from_millis(1250)
        );
        // Capped by max_retry_after; ignored with None.
        let long = cosmos(
            500,
            &[
                ("x-ms-status-code", Value::Int(429)),
                ("x-ms-retry-after-ms", Value::from("00:05:00")),
            ],
        );
        assert_eq!(p.delay(1, asked_in(&long)), Duration::from_secs(10));
        let short = p.clone().max_retry_after(None);
        assert!(short.delay(1, asked_in(&long)) <= Duration::from_millis(50));
        // A 500 without the attribute (or with another Cosmos status) is not retried.
        assert!(!retryable(&cosmos(500, &[])));
        assert!(!retryable(&cosmos(
            500,
            &[("x-ms-status-code", Value::Long(409))]
        )));
        assert!(!retryable(&cosmos(
            500,
            &[("x-ms-retry-after-ms", Value::from("00:00:01"))]
        )));
        // A bad retry-after: retried all the same, after the policy's own backoff.
        let bad = cosmos(
            500,
            &[
                ("x-ms-status-code", Value::Long(429)),
                ("x-ms-retry-after-ms", Value::from("soon")),
            ],
        );
        assert!(retryable(&bad));
        assert_eq!(asked_in(&bad), None);
        assert_eq!(asked_in(&Error::NoResult), None);
    }

    #[test]
    fn delays_grow_with_jitter_are_capped_and_honour_retry_after() {
        let p = RetryPolicy::default()
            .initial_backoff(Duration::from_millis(100))
            .max_backoff(Duration::from_millis(400));
        for _ in 0..200 {
            let d1 = p.delay(1, None);
            assert!((50..=100).contains(&d1.as_millis()), "{d1:?}");
            let d3 = p.delay(3, None);
            assert!((200..=400).contains(&d3.as_millis()), "{d3:?}");
            let d9 = p.delay(9, None);
            assert!((200..=400).contains(&d9.as_millis()), "capped: {d9:?}");
        }
        let spread: std::collections::HashSet<_> = (0..50).map(|_| p.delay(2, None)).collect();
        assert!(spread.len() > 10, "jitter spreads the delays: {spread:?}");
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(60))),
            Duration::from_secs(10)
        );
        let ignore = p.clone().max_retry_after(None);
        assert!(ignore.delay(1, Some(Duration::from_secs(60))) <= Duration::from_millis(100));
        let mut h = http::header::HeaderMap::new();
        h.insert("retry-after", "7".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        h.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), None);
    }
}
