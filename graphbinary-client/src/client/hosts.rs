//! Several hosts: round-robin over the available ones, a failed host taken out of the rotation
//! and tried again after a backoff.
//!
//! A host is marked unavailable when a request to it cannot connect (refused, unreachable,
//! connect timeout) or fails on the connection while it is sent or read. It is skipped until
//! its backoff has passed (the first backoff is
//! [`ClientBuilder::host_retry_backoff`](super::ClientBuilder::host_retry_backoff), doubling on
//! each further failure up to [`ClientBuilder::host_retry_backoff_max`](super::ClientBuilder::host_retry_backoff_max));
//! then the next request picked for it is its probe: success puts it back in the rotation,
//! failure doubles the backoff.
//!
//! A request that could not connect has sent nothing, so it is moved to the next available
//! host (each host tried at most once per request). A request that failed after it was sent is
//! not sent again: it fails with [`Error::Transport`](super::Error::Transport), since the server
//! may have run it, unless it is marked
//! [idempotent](super::RequestBuilder::idempotent) (see [`RetryPolicy`](super::RetryPolicy):
//! its retry goes to another host than the one that failed it). Requests of a
//! [`Transaction`](super::Transaction) always go to the host that began it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use url::Url;

/// The state of one host, as [`Client::hosts`](super::Client::hosts) reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostStatus {
    /// The host's URL.
    pub url: String,
    /// Whether the host is in the rotation (false while it waits for its backoff to pass).
    pub available: bool,
    /// Failures since the host last answered.
    pub consecutive_failures: u32,
    /// Requests sent to the host (every attempt, also failed ones).
    pub requests: u64,
}

#[derive(Debug)]
pub(super) struct Hosts {
    hosts: Vec<Host>,
    next: AtomicUsize,
    backoff: Duration,
    backoff_max: Duration,
}

struct Host {
    url: Url,
    state: Mutex<State>,
    requests: AtomicU64,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("url", &super::redact_url(self.url.as_str()))
            .field("state", &self.state)
            .field("requests", &self.requests)
            .finish()
    }
}

#[derive(Debug, Default)]
struct State {
    failures: u32,
    /// While `Some`, the host is out of the rotation until this instant.
    retry_at: Option<Instant>,
}

impl Hosts {
    pub(super) fn new(urls: Vec<Url>, backoff: Duration, backoff_max: Duration) -> Self {
        Hosts {
            hosts: urls
                .into_iter()
                .map(|url| Host {
                    url,
                    state: Mutex::new(State::default()),
                    requests: AtomicU64::new(0),
                })
                .collect(),
            next: AtomicUsize::new(0),
            backoff,
            backoff_max: backoff_max.max(backoff),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.hosts.len()
    }

    pub(super) fn url(&self, i: usize) -> &Url {
        &self.hosts[i].url
    }

    /// The next host in the rotation that is available (or whose backoff has passed) and not
    /// in `tried`; when none is, the unavailable one due soonest (a request is never refused
    /// for want of a healthy host: it tries one). `None` once every host was tried.
    pub(super) fn pick(&self, tried: &[usize]) -> Option<usize> {
        let n = self.hosts.len();
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        if n == 1 {
            return tried.is_empty().then_some(0);
        }
        let now = Instant::now();
        let mut eligible: Vec<usize> = Vec::with_capacity(n);
        let mut soonest: Option<(Instant, usize)> = None;
        for i in (0..n).filter(|i| !tried.contains(i)) {
            match self.lock(i).retry_at {
                Some(t) if t > now => {
                    if soonest.is_none_or(|(s, _)| t < s) {
                        soonest = Some((t, i));
                    }
                }
                _ => eligible.push(i),
            }
        }
        // Turns are dealt over the eligible hosts only, so that the load of a host out of the
        // rotation spreads evenly over the others.
        if eligible.is_empty() {
            soonest.map(|(_, i)| i)
        } else {
            Some(eligible[turn % eligible.len()])
        }
    }

    pub(super) fn attempt(&self, i: usize) {
        self.hosts[i].requests.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn succeeded(&self, i: usize) {
        let mut s = self.lock(i);
        if s.failures > 0 {
            tracing::info!(
                target: "graphbinary_client",
                host = %super::redact_url(self.hosts[i].url.as_str()),
                after_failures = s.failures,
                "host marked up"
            );
        }
        s.failures = 0;
        s.retry_at = None;
    }

    pub(super) fn failed(&self, i: usize) {
        let mut s = self.lock(i);
        s.failures = s.failures.saturating_add(1);
        let shift = (s.failures - 1).min(16);
        let wait = self
            .backoff
            .saturating_mul(1u32 << shift)
            .min(self.backoff_max);
        s.retry_at = Some(Instant::now() + wait);
        tracing::warn!(
            target: "graphbinary_client",
            host = %super::redact_url(self.hosts[i].url.as_str()),
            failures = s.failures,
            backoff_ms = wait.as_millis() as u64,
            "host marked down"
        );
    }

    pub(super) fn status(&self) -> Vec<HostStatus> {
        let now = Instant::now();
        (0..self.hosts.len())
            .map(|i| {
                let s = self.lock(i);
                HostStatus {
                    url: self.hosts[i].url.to_string(),
                    available: s.retry_at.is_none_or(|t| t <= now),
                    consecutive_failures: s.failures,
                    requests: self.hosts[i].requests.load(Ordering::Relaxed),
                }
            })
            .collect()
    }

    fn lock(&self, i: usize) -> std::sync::MutexGuard<'_, State> {
        // The state is two plain fields, valid after any panic: recover from poisoning.
        self.hosts[i]
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl super::Client {
    /// The state of every host, in the order given to the builder.
    ///
    /// ```
    /// # fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::Client::builder("http://127.0.0.1:8182/gremlin")
    ///     .add_host("http://127.0.0.1:8183/gremlin")
    ///     .build()?;
    /// let hosts = client.hosts();
    /// assert_eq!(hosts.len(), 2);
    /// assert!(hosts.iter().all(|h| h.available));
    /// # Ok(()) }
    /// ```
    pub fn hosts(&self) -> Vec<HostStatus> {
        self.inner.hosts.status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(n: usize) -> Hosts {
        let urls = (0..n)
            .map(|i| Url::parse(&format!("http://127.0.0.1:{}/gremlin", 9000 + i)).unwrap())
            .collect();
        Hosts::new(urls, Duration::from_secs(60), Duration::from_secs(600))
    }

    #[test]
    fn round_robin_skips_failed_hosts_and_tried_ones() {
        let h = hosts(3);
        let picks: Vec<_> = (0..6).map(|_| h.pick(&[]).unwrap()).collect();
        assert_eq!(picks, [0, 1, 2, 0, 1, 2]);
        h.failed(1);
        let picks: Vec<_> = (0..4).map(|_| h.pick(&[]).unwrap()).collect();
        assert!(!picks.contains(&1), "{picks:?}");
        assert_eq!(h.pick(&[0, 2]), Some(1), "a down host is still tried last");
        assert_eq!(h.pick(&[0, 1, 2]), None);
        h.succeeded(1);
        let picks: Vec<_> = (0..3).map(|_| h.pick(&[]).unwrap()).collect();
        assert!(picks.contains(&1), "{picks:?}");
    }

    #[test]
    fn backoff_doubles_up_to_the_max_and_expires() {
        let urls = vec![Url::parse("http://127.0.0.1:1/").unwrap()];
        let h = Hosts::new(urls, Duration::from_millis(1), Duration::from_millis(4));
        h.failed(0);
        h.failed(0);
        h.failed(0);
        h.failed(0);
        let st = h.status();
        assert_eq!(st[0].consecutive_failures, 4);
        std::thread::sleep(Duration::from_millis(10));
        assert!(h.status()[0].available, "backoff capped at 4 ms");
        let h2 = hosts(1);
        h2.failed(0);
        assert!(!h2.status()[0].available);
    }
}
