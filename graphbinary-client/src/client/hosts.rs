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
//!
//! Every send loop walks a [`HostPlan`]: the hosts one request goes to, in order, attempt by
//! attempt (the model is scylla-rust-driver's load-balancing plan).

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

/// One step of a [`HostPlan`]: the host to send to, and the attempt it belongs to (1 for the
/// first; each retry of an idempotent request is the next attempt).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Target {
    pub(super) host: usize,
    pub(super) attempt: u32,
}

/// The hosts one request is sent to, in order: the iterator of [`Target`]s every send loop
/// walks (HTTP and `ws://` requests, retries included, and the opening of a TinkerPop 3
/// session). Within an attempt each host comes at most once, in the rotation's order
/// ([`Hosts::pick`]: available hosts first, then the one due soonest); the loop takes the next
/// target only when nothing was sent (the host could not be reached), and calls
/// [`HostPlan::retry`] to begin the next attempt, whose first host is another than the one
/// that failed when there is one. A plan pinned to a host (a transaction's) yields that host
/// only, once per attempt.
pub(super) struct HostPlan<'a> {
    hosts: &'a Hosts,
    pinned: Option<usize>,
    /// The host that failed the attempt before, avoided by this one's first pick.
    avoid: Option<usize>,
    /// The hosts of this attempt so far.
    tried: Vec<usize>,
    attempt: u32,
}

impl<'a> HostPlan<'a> {
    pub(super) fn new(hosts: &'a Hosts, pinned: Option<usize>) -> Self {
        HostPlan {
            hosts,
            pinned,
            avoid: None,
            tried: Vec::new(),
            attempt: 1,
        }
    }

    /// Whether this attempt has a host left to move on to.
    pub(super) fn has_more(&self) -> bool {
        self.pinned.is_none() && self.tried.len() < self.hosts.len()
    }

    /// Begins the next attempt, after one that failed on `failed` (if it got to a host).
    pub(super) fn retry(&mut self, failed: Option<usize>) {
        self.attempt += 1;
        self.tried.clear();
        self.avoid = failed;
    }
}

impl Iterator for HostPlan<'_> {
    type Item = Target;

    /// The next host of this attempt; `None` once each was tried (until [`HostPlan::retry`]).
    fn next(&mut self) -> Option<Target> {
        let host = match (self.pinned, self.avoid) {
            (Some(h), _) => (self.tried.is_empty()).then_some(h)?,
            (None, Some(a)) if self.tried.is_empty() && self.hosts.len() > 1 => {
                self.hosts.pick(&[a])?
            }
            (None, _) => self.hosts.pick(&self.tried)?,
        };
        self.tried.push(host);
        Some(Target {
            host,
            attempt: self.attempt,
        })
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

    fn walk(plan: &mut HostPlan<'_>) -> Vec<(usize, u32)> {
        plan.by_ref().map(|t| (t.host, t.attempt)).collect()
    }

    #[test]
    fn a_plan_tries_each_host_once_per_attempt_and_a_retry_avoids_the_failed_one() {
        let h = hosts(3);
        let mut plan = HostPlan::new(&h, None);
        let first = walk(&mut plan);
        let mut each: Vec<usize> = first.iter().map(|&(i, _)| i).collect();
        each.sort_unstable();
        assert_eq!(each, [0, 1, 2], "{first:?}");
        assert!(first.iter().all(|&(_, a)| a == 1), "{first:?}");
        assert!(!plan.has_more());
        plan.retry(Some(2));
        let second = walk(&mut plan);
        assert_eq!(second.len(), 3, "{second:?}");
        assert_ne!(
            second[0].0, 2,
            "the retry's first host is another: {second:?}"
        );
        assert!(second.iter().all(|&(_, a)| a == 2), "{second:?}");
        // A down host comes last in its attempt.
        h.failed(0);
        let mut plan = HostPlan::new(&h, None);
        let hosts: Vec<usize> = walk(&mut plan).into_iter().map(|(i, _)| i).collect();
        assert_eq!(hosts.last(), Some(&0), "{hosts:?}");
        // One host: a retry goes to it again.
        let one = super::tests::hosts(1);
        let mut plan = HostPlan::new(&one, None);
        assert_eq!(walk(&mut plan), [(0, 1)]);
        plan.retry(Some(0));
        assert_eq!(walk(&mut plan), [(0, 2)]);
    }

    #[test]
    fn a_pinned_plan_yields_its_host_only() {
        let h = hosts(3);
        let mut plan = HostPlan::new(&h, Some(2));
        assert_eq!(walk(&mut plan), [(2, 1)]);
        assert!(!plan.has_more());
        plan.retry(Some(2));
        assert_eq!(walk(&mut plan), [(2, 2)]);
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
