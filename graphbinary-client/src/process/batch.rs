//! The batch writer ([`BatchWriter`]): typed elements and raw merges written in batches.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use super::bound::{bound, Bound, ROWS};
use super::rows::listed;
use super::typed::{append, match_probe, On};
use super::{GraphTraversal, GraphTraversalSource, __};
use crate::client::{Client, Error, RetryPolicy, TransportKind};
use crate::element::{Element, End, Prop, RawMerge, WriteOp, Written};
use crate::lang::tokens::{Direction, Token, T};
use crate::lang::Lit;
use crate::value::Value;

/// The least wait before sending again a request whose connection was lost after it was sent.
const RUNNING_GRACE: Duration = Duration::from_millis(500);

/// The side-effect key of the created/matched counts.
const PROBE_KEY: &str = "gbw_matched";

/// How a [`BatchWriter`] sends.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    batch_size: usize,
    in_flight: usize,
    queue: usize,
    retry: RetryPolicy,
    count_matches: bool,
    pub(super) source: Option<String>,
}

impl Default for BatchOptions {
    /// 100 items per request (Amazon Neptune's guidance is 50 to 100), 4 requests in flight,
    /// a queue of 1,000 items, 6 attempts with a backoff from 50 ms to 5 s.
    fn default() -> Self {
        BatchOptions {
            batch_size: 100,
            in_flight: 4,
            queue: 1000,
            retry: RetryPolicy::default()
                .max_attempts(6)
                .initial_backoff(Duration::from_millis(50))
                .max_backoff(Duration::from_secs(5)),
            count_matches: true,
            source: None,
        }
    }
}

impl BatchOptions {
    /// Items per request (at least 1; default 100).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// Requests in flight at once (at least 1; default 4).
    pub fn in_flight(mut self, n: usize) -> Self {
        self.in_flight = n.max(1);
        self
    }

    /// Items queued before a push waits (at least 1; default 1,000).
    pub fn queue(mut self, n: usize) -> Self {
        self.queue = n.max(1);
        self
    }

    /// Whether the report tells created from matched (default on; how: [`BatchWriter`]'s
    /// *Created and matched*). In the chained form it is one more lookup per upsert: on a
    /// graph without an index on the key (TinkerGraph), a full scan as the merge's own.
    pub fn count_matches(mut self, on: bool) -> Self {
        self.count_matches = on;
        self
    }

    /// The traversal source the writes go to (default `g`), as
    /// [`GraphTraversalSource::alias`].
    pub fn source(mut self, alias: impl Into<String>) -> Self {
        self.source = Some(alias.into());
        self
    }

    /// Attempts and backoff of a request's retries (its `max_retry_after` is not used).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }
}

/// An item the writer could not write, handed back.
#[derive(Debug, Clone)]
pub struct Failed {
    /// Its index: the value its push returned.
    pub index: u64,
    /// The item.
    pub op: WriteOp,
    /// Why (the last attempt's error, shared by the items of its request).
    pub error: Arc<Error>,
    /// Whether it may have been written nonetheless (the request may have reached the
    /// server: a plain add whose answer was lost).
    pub maybe_written: bool,
}

/// What a [`BatchWriter`] did.
#[derive(Debug, Default, Clone)]
pub struct Report {
    /// Items written.
    pub written: u64,
    /// Of those, elements created (adds, and upserts whose search matched nothing).
    pub created: u64,
    /// Of those, upserts whose search matched an element (counted unless
    /// [`BatchOptions::count_matches`] is off).
    pub matched: u64,
    /// Requests sent again.
    pub retried: u64,
    /// Requests sent, retries included.
    pub requests: u64,
    /// Items not written, each handed back.
    pub failed: Vec<Failed>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "written {} (created {}, matched {}), failed {}, {} requests ({} retried)",
            self.written,
            self.created,
            self.matched,
            self.failed.len(),
            self.requests,
            self.retried
        )?;
        if let Some(first) = self.failed.first() {
            write!(f, "; first failure: {}", first.error)?;
        }
        Ok(())
    }
}

// Items are the common message and are moved on at once: no box.
#[allow(clippy::large_enum_variant)]
enum Msg {
    Item(u64, WriteOp),
    Flush(oneshot::Sender<()>),
}

/// A batch writer ([`Client::batch_writer`]): typed elements and raw `mergeV` / `mergeE` maps written N per request,
/// C requests in flight, with backpressure, retries of what may be retried, and a final report
/// that hands back every item it could not write.
///
/// ```no_run
/// # async fn demo(client: graphbinary_client::Client) -> Result<(), graphbinary_client::Error> {
/// use graphbinary_client::process::BatchOptions;
/// use graphbinary_client::element::Vertex;
///
/// #[derive(Vertex)]
/// #[vertex(label = "airport")]
/// struct Airport { #[vertex(key)] code: String, runways: i32 }
///
/// let mut w = client.batch_writer(BatchOptions::default());
/// for i in 0..10_000 {
///     // Waits while the queue is full (backpressure).
///     w.upsert(&Airport { code: format!("A{i}"), runways: 2 }).await?;
/// }
/// let report = w.finish().await;
/// assert!(report.failed.is_empty(), "{report}");
/// # Ok(()) }
/// ```
///
/// # Requests
///
/// Adds and upserts go in separate requests. A request of merges that share a shape (raw
/// merges, or typed upserts whose properties are single values; all vertices or all edges,
/// edges finding their ends alike) is one merge step over the batch's rows,
/// `inject(rows).unfold().as("m").mergeV(__.select("m").select("s")).option(..)...`, where the
/// chained form has one step per item:
///
/// * over `http://` (gremlin-lang), the rows are one list literal, each value the literal of
///   its exact type (gremlin-lang 4.0.0-beta.3 takes no parameter in `inject`);
/// * over `ws://` (TinkerPop 3), the script is constant and the rows are one binding: Groovy
///   compiles each distinct script, so the chained form is compiled for every batch and this
///   one once (air-routes into 3.7.3: 22.6 s this way; the chained form had not finished after
///   2 minutes).
///
/// Anything else (adds, a request mixing vertices and edges, a typed upsert that drops or
/// replaces a multi-valued property, a merge whose search, `onCreate` or `onMatch` is not a
/// map literal) is one chained traversal, `g.inject(0).mergeV(..).option(..).mergeV(..)...`,
/// each value the literal of its exact type (gremlin-lang over `http://`; Groovy over `ws://`,
/// with a binding for each literal Groovy has no form for).
///
/// Items run in order within a request, and requests run concurrently, but **no two requests
/// in flight write at one vertex**: an item waits while a request in flight writes at one of
/// its vertices (an edge's two ends, a vertex by its id, else its search map or key), and
/// later items that touch none of them are sent before it, from a window of up to 4 batches
/// per request in flight. So two writes of one element keep their order, TinkerGraph's
/// adjacency lists (not thread-safe) are never written by two requests at once, and a graph
/// that locks (Neptune, JanusGraph) sees fewer conflicts. Vertices and ends are compared as
/// written: an id given as `1` in one item and `"1"` in another is two vertices. An edge
/// whose ends are written by the same writer should still be pushed after
/// [`BatchWriter::flush`] has returned for its vertices (a vertex found by key and the same
/// vertex by id are two).
///
/// # Created and matched
///
/// In the one-step forms, the rows created are counted by the `onCreate` child, which runs
/// only for them (edges too). In the chained form, an upsert of a typed element or a raw
/// `mergeV` is preceded, in the same request, by a count of what its search matches
/// (`sideEffect(V()...limit(1).count().aggregate(..))`), and a raw `mergeE` is counted as
/// written only. After a retry an item created by the failed attempt counts as matched.
///
/// # Observing
///
/// Each request is a span `gremlin.batch` (items, adds) around the client's own request span;
/// a retry is a `debug` event in it, a request given up a `warn`. With feature `metrics`:
/// counters `gremlin_client_batch_items_total{outcome="written"|"failed"}` and
/// `gremlin_client_batch_retries_total`, beside the client's request metrics.
///
/// # Retries
///
/// A request of upserts (idempotent: sending it again changes nothing more) is retried, with
/// exponential backoff and jitter, on the errors real servers answer for a temporary condition:
/// status 596 (TinkerPop's temporary failure), 429 and 503, an answer naming Neptune's
/// `ConcurrentModificationException` or JanusGraph's `TemporaryLockingException` (in its
/// message, exception or `exceptions` attribute), and a connection lost or timed out before the
/// answer. A request of plain adds is sent again only when it could not connect (it never left);
/// once it may have reached the server it is not, and its items are handed back as failed.
pub struct BatchWriter {
    tx: mpsc::Sender<Msg>,
    driver: tokio::task::JoinHandle<Report>,
    next: u64,
}

impl fmt::Debug for BatchWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchWriter")
            .field("pushed", &self.next)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A batch writer sending through this client (a task of its own on the current tokio
    /// runtime).
    pub fn batch_writer(&self, options: BatchOptions) -> BatchWriter {
        let (tx, rx) = mpsc::channel(options.queue);
        let driver = tokio::spawn(drive(self.clone(), options, rx));
        BatchWriter {
            tx,
            driver,
            next: 0,
        }
    }
}

impl BatchWriter {
    /// Queues `op`, waiting while the queue is full; its index (for [`Failed::index`]).
    pub async fn push(&mut self, op: WriteOp) -> Result<u64, Error> {
        let index = self.next;
        self.tx
            .send(Msg::Item(index, op))
            .await
            .map_err(|_| Error::Closed)?;
        self.next += 1;
        Ok(index)
    }

    /// Queues an upsert of `item` (see
    /// [`GraphTraversalSource::upsert`](crate::process::GraphTraversalSource::upsert)); an item
    /// that cannot be written (a key without a value, ...) is an error here, not queued.
    pub async fn upsert<E: Element>(&mut self, item: &E) -> Result<u64, Error> {
        let w = item.to_write()?;
        self.push(WriteOp::Upsert(w)).await
    }

    /// Queues an add of `item`.
    pub async fn add<E: Element>(&mut self, item: &E) -> Result<u64, Error> {
        let w = item.to_write()?;
        self.push(WriteOp::Add(w)).await
    }

    /// Queues a raw `mergeV(search)` with its `onCreate` / `onMatch` maps.
    pub async fn merge_v(
        &mut self,
        search: Lit,
        on_create: Option<Lit>,
        on_match: Option<Lit>,
    ) -> Result<u64, Error> {
        self.push(WriteOp::MergeV(RawMerge {
            search,
            on_create,
            on_match,
        }))
        .await
    }

    /// Queues a raw `mergeE(search)` (its ends as `Direction.OUT` / `Direction.IN` ids in the
    /// search map) with its `onCreate` / `onMatch` maps.
    pub async fn merge_e(
        &mut self,
        search: Lit,
        on_create: Option<Lit>,
        on_match: Option<Lit>,
    ) -> Result<u64, Error> {
        self.push(WriteOp::MergeE(RawMerge {
            search,
            on_create,
            on_match,
        }))
        .await
    }

    /// Sends what is queued and waits until every item pushed so far is written or failed.
    pub async fn flush(&mut self) -> Result<(), Error> {
        let (tx, rx) = oneshot::channel();
        self.tx
            .send(Msg::Flush(tx))
            .await
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)
    }

    /// Sends what is queued, waits for every request, and reports.
    pub async fn finish(self) -> Report {
        drop(self.tx);
        match self.driver.await {
            Ok(report) => report,
            // The driver task panicked or was cancelled: nothing to hand back but the fact.
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
}

/// What one request (with its retries) did.
struct Outcome {
    items: Vec<(u64, WriteOp)>,
    result: Result<(u64, u64), Arc<Error>>,
    maybe_written: bool,
    attempts: u32,
}

async fn drive(client: Client, options: BatchOptions, mut rx: mpsc::Receiver<Msg>) -> Report {
    let tp3 = client.is_tinkerpop3();
    let mut g = GraphTraversalSource::new(client);
    if let Some(alias) = &options.source {
        g = g.alias(alias.clone());
    }
    let mut flight = Flight::default();
    // Adds and upserts wait apart (they go in separate requests).
    let mut adds = Pending::default();
    let mut upserts = Pending::default();
    let n = options.batch_size;
    let window = n.saturating_mul(options.in_flight).saturating_mul(WINDOW);
    let options = Arc::new(options);
    loop {
        // Collect finished requests without waiting.
        while let Some(done) = flight.running.try_join_next() {
            flight.settle(done);
        }
        let msg = rx.recv().await;
        let flush = match msg {
            Some(Msg::Item(i, op)) => {
                let buf = if matches!(op, WriteOp::Add(_)) {
                    &mut adds
                } else {
                    &mut upserts
                };
                buf.push(i, op);
                // A full batch of items free to go, or a full window: send what can go. Looked
                // for again once a batch more has come or a request has ended, not at each item.
                while buf.items.len() >= n
                    && (buf.fresh >= n || flight.changed || buf.items.len() >= window)
                {
                    buf.fresh = 0;
                    flight.changed = false;
                    let ready = buf.ready(&flight.busy, n);
                    if ready.len() < n && buf.items.len() < window {
                        break;
                    }
                    flight.send_or_wait(buf, ready, (&g, &options, tp3)).await;
                }
                None
            }
            Some(Msg::Flush(ack)) => Some(Some(ack)),
            None => Some(None),
        };
        if let Some(ack) = flush {
            for buf in [&mut upserts, &mut adds] {
                while !buf.items.is_empty() {
                    let ready = buf.ready(&flight.busy, n);
                    flight.send_or_wait(buf, ready, (&g, &options, tp3)).await;
                }
            }
            while let Some(done) = flight.running.join_next().await {
                flight.settle(done);
            }
            match ack {
                Some(ack) => {
                    let _ = ack.send(());
                }
                None => return flight.report,
            }
        }
    }
}

/// How many batches (times the requests in flight) of items may wait to be sent while the
/// first ones wait for the vertices that requests in flight hold.
const WINDOW: usize = 4;

/// Items waiting to be sent, with the vertices each one writes at ([`touches`]).
#[derive(Default)]
struct Pending {
    items: std::collections::VecDeque<(u64, WriteOp, Vec<String>)>,
    /// Items pushed since the last look for a batch.
    fresh: usize,
}

impl Pending {
    fn push(&mut self, index: u64, op: WriteOp) {
        let keys = touches(&op);
        self.items.push_back((index, op, keys));
        self.fresh += 1;
    }

    /// The positions of the first `n` items that may be sent now: none of their vertices is
    /// held by a request in flight. Two writes of one element touch the same vertices, so they
    /// keep their order; writes of two edges at one vertex may pass each other.
    fn ready(&self, busy: &HashMap<String, usize>, n: usize) -> Vec<usize> {
        self.items
            .iter()
            .enumerate()
            .filter(|(_, (_, _, keys))| !keys.iter().any(|k| busy.contains_key(k)))
            .map(|(at, _)| at)
            .take(n)
            .collect()
    }

    /// Removes the items at `positions` (ascending), in order.
    fn take(&mut self, positions: Vec<usize>) -> Vec<(u64, WriteOp, Vec<String>)> {
        let mut out = Vec::with_capacity(positions.len());
        let mut rest = std::collections::VecDeque::with_capacity(self.items.len());
        let mut next = positions.into_iter().peekable();
        for (at, item) in std::mem::take(&mut self.items).into_iter().enumerate() {
            if next.peek() == Some(&at) {
                next.next();
                out.push(item);
            } else {
                rest.push_back(item);
            }
        }
        self.items = rest;
        out
    }
}

/// The vertices `op` writes at, as keys no two requests in flight share: an edge's two ends
/// (by id, or by the key its end is found by), a vertex's id (else its search or key
/// properties). Two requests writing at one vertex at once can fail on a graph that locks
/// (Neptune's `ConcurrentModificationException`, JanusGraph's locking errors), and corrupt
/// TinkerGraph, whose adjacency lists are not thread-safe. Values are compared as written
/// (`1` and `"1"` are two keys).
fn touches(op: &WriteOp) -> Vec<String> {
    let vertex = |id: &Lit| format!("v{id:?}");
    let end = |e: &End| match e {
        End::Id(id) => vertex(id),
        End::Key { label, key, value } => format!("k{label}/{key}={value:?}"),
    };
    match op {
        WriteOp::Add(w) | WriteOp::Upsert(w) => match (&w.out_v, &w.in_v) {
            (Some(o), Some(i)) => vec![end(o), end(i)],
            _ => match &w.id {
                Some(id) => vec![vertex(id)],
                None => {
                    let keys: Vec<_> = w.props.iter().filter(|p| p.key).collect();
                    match &keys[..] {
                        // Two adds of one label are two vertices.
                        [] => Vec::new(),
                        // As an edge's end found by this key names it.
                        [Prop {
                            name,
                            values: Written::Single(value),
                            ..
                        }] => vec![format!("k{}/{name}={value:?}", w.label)],
                        _ => vec![format!("k{}/{keys:?}", w.label)],
                    }
                }
            },
        },
        WriteOp::MergeV(m) => {
            let id = match &m.search {
                Lit::Map(entries) => entries
                    .iter()
                    .find(|(k, _)| *k == Lit::from(T::Id))
                    .map(|(_, v)| v),
                _ => None,
            };
            vec![match id {
                Some(id) => vertex(id),
                None => format!("s{:?}", m.search),
            }]
        }
        WriteOp::MergeE(m) => match &m.search {
            Lit::Map(entries) => entries
                .iter()
                .filter(|(k, _)| *k == Lit::from(Direction::Out) || *k == Lit::from(Direction::In))
                .map(|(_, v)| vertex(v))
                .collect(),
            _ => Vec::new(),
        },
    }
}

/// The requests in flight, the vertices they hold, and the report so far.
#[derive(Default)]
struct Flight {
    running: JoinSet<(Vec<Outcome>, Vec<String>)>,
    busy: HashMap<String, usize>,
    report: Report,
    /// A request ended since the last look for a batch.
    changed: bool,
}

impl Flight {
    /// Sends the items of `buf` at `ready` as one batch when a request may start; else (no
    /// slot free, which is the backpressure, or nothing free of the vertices held) waits for a
    /// request in flight to end.
    async fn send_or_wait(
        &mut self,
        buf: &mut Pending,
        ready: Vec<usize>,
        (g, options, tp3): (&GraphTraversalSource, &Arc<BatchOptions>, bool),
    ) {
        if ready.is_empty() || self.running.len() >= options.in_flight {
            let done = self.running.join_next().await;
            self.settle(done.expect("an item waits only on a request in flight"));
        } else {
            let batch = buf.take(ready);
            self.dispatch(g, options, batch, tp3);
        }
    }

    /// Starts the requests of `batch`, its vertices held until they end.
    fn dispatch(
        &mut self,
        g: &GraphTraversalSource,
        options: &Arc<BatchOptions>,
        batch: Vec<(u64, WriteOp, Vec<String>)>,
        tp3: bool,
    ) {
        let mut keys = Vec::new();
        let items: Vec<(u64, WriteOp)> = batch
            .into_iter()
            .map(|(i, op, k)| {
                keys.extend(k);
                (i, op)
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        for k in &keys {
            *self.busy.entry(k.clone()).or_default() += 1;
        }
        let g = g.clone();
        let options = options.clone();
        // A TinkerPop 3 batch in the chained form may be several requests: one after another.
        self.running.spawn(async move {
            let mut outcomes = Vec::new();
            for items in requests(items, tp3) {
                outcomes.push(send(&g, &options, items).await);
            }
            (outcomes, keys)
        });
    }

    /// Records a finished request and frees its vertices.
    fn settle(&mut self, done: Result<(Vec<Outcome>, Vec<String>), tokio::task::JoinError>) {
        let (outcomes, keys) = match done {
            Ok(done) => done,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        };
        self.changed = true;
        for k in keys {
            if let Some(n) = self.busy.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    self.busy.remove(&k);
                }
            }
        }
        for out in outcomes {
            record(&mut self.report, out);
        }
    }
}

/// The most steps in one request to a TinkerPop 3 server: Groovy compiles the script, and a
/// chain of about 600 steps (100 upserts with their options and list properties) overflows its
/// stack (`java.lang.StackOverflowError`, status 597, seen on 3.7.3); 50 such upserts pass.
const TP3_MAX_STEPS: usize = 200;

/// About how many steps `op` writes in a request's chain.
fn steps(op: &WriteOp) -> usize {
    match op {
        WriteOp::Add(w) | WriteOp::Upsert(w) => {
            4 + w
                .props
                .iter()
                .map(|p| match &p.values {
                    Written::Absent | Written::Single(_) => 1,
                    Written::List(v) | Written::Set(v) => 1 + v.len(),
                })
                .sum::<usize>()
        }
        WriteOp::MergeV(_) | WriteOp::MergeE(_) => 4,
    }
}

/// A batch as requests: one, or for TinkerPop 3 as many as keep each under
/// [`TP3_MAX_STEPS`].
fn requests(items: Vec<(u64, WriteOp)>, tp3: bool) -> Vec<Vec<(u64, WriteOp)>> {
    // The one-binding form is one request whatever its size.
    if !tp3 || bound(&items, false).is_some() {
        return vec![items];
    }
    let mut out = Vec::new();
    let mut cur = Vec::new();
    let mut n = 0;
    for (i, op) in items {
        let w = steps(&op);
        if !cur.is_empty() && n + w > TP3_MAX_STEPS {
            out.push(std::mem::take(&mut cur));
            n = 0;
        }
        n += w;
        cur.push((i, op));
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn record(report: &mut Report, out: Outcome) {
    report.requests += u64::from(out.attempts);
    report.retried += u64::from(out.attempts.saturating_sub(1));
    #[cfg(feature = "metrics")]
    {
        let items = out.items.len() as u64;
        let outcome = if out.result.is_ok() {
            "written"
        } else {
            "failed"
        };
        metrics::counter!("gremlin_client_batch_items_total", "outcome" => outcome)
            .increment(items);
        metrics::counter!("gremlin_client_batch_retries_total")
            .increment(u64::from(out.attempts.saturating_sub(1)));
    }
    match out.result {
        Ok((created, matched)) => {
            report.written += out.items.len() as u64;
            report.created += created;
            report.matched += matched;
        }
        Err(error) => report
            .failed
            .extend(out.items.into_iter().map(|(index, op)| Failed {
                index,
                op,
                error: error.clone(),
                maybe_written: out.maybe_written,
            })),
    }
}

/// How a request tells created from matched.
#[derive(Clone, Copy, PartialEq)]
enum Probe {
    /// It does not (plain adds, raw `mergeE`, counting off).
    None,
    /// One lookup per item, each answering 0 (created) or 1 (matched).
    Each,
    /// One lookup of every item's id (`V(id, ...).count()`), answering how many matched: for a
    /// batch of vertex merges searched by distinct ids alone, as `graphbinary load` sends. Each
    /// per-item lookup is a step of its own for the server: on Gremlin Server 4.0.0-beta.3 this
    /// one halved the server's time for air-routes' vertices (0.7 s of CPU against 1.3 s).
    Ids,
    /// The row form's count of the rows it created ([`super::rows`]).
    Created,
}

impl Probe {
    /// The row form's probe: its count of the rows created, when counting.
    fn created(count_matches: bool) -> Probe {
        if count_matches {
            Probe::Created
        } else {
            Probe::None
        }
    }
}

/// The ids of a batch of vertex merges searched by id alone, when they are distinct.
fn merge_ids(items: &[(u64, WriteOp)]) -> Option<Vec<Lit>> {
    let mut ids: Vec<Lit> = Vec::with_capacity(items.len());
    for (_, op) in items {
        let WriteOp::MergeV(RawMerge {
            search: Lit::Map(search),
            ..
        }) = op
        else {
            return None;
        };
        let [(Lit::Token(Token::T(T::Id)), id)] = search.as_slice() else {
            return None;
        };
        if ids.contains(id) {
            return None;
        }
        ids.push(id.clone());
    }
    (!ids.is_empty()).then_some(ids)
}

/// The traversal of one request, and how it counts matches: over gremlin-lang (`lang`), a
/// request of merges sharing a shape in the list form ([`listed`]), else the chained form.
fn batch_traversal(
    g: &GraphTraversalSource,
    items: &[(u64, WriteOp)],
    count_matches: bool,
    lang: bool,
) -> (GraphTraversal, Probe) {
    if let Some(t) = lang.then(|| listed(g, items, count_matches)).flatten() {
        return (t, Probe::created(count_matches));
    }
    let mut t = g.inject(0);
    let mut probe = Probe::None;
    if let Some(ids) = merge_ids(items).filter(|_| count_matches) {
        t = t.side_effect(__::v(ids).count(()).aggregate(PROBE_KEY));
        probe = Probe::Ids;
    }
    for (_, op) in items {
        if probe == Probe::None || probe == Probe::Each {
            if let Some(p) = match_probe(op).filter(|_| count_matches) {
                t = t.side_effect(p.aggregate(PROBE_KEY));
                probe = Probe::Each;
            }
        }
        t = append(On::Mid(t), op);
    }
    let t = if probe == Probe::None {
        t.count(())
    } else {
        t.cap(PROBE_KEY)
    };
    (t, probe)
}

/// How one request is sent.
enum Form<'a> {
    /// The one-binding form, to a TinkerPop 3 client ([`super::bound`]).
    Bound(&'a Client, Bound),
    /// A traversal: the list form or the chained form ([`batch_traversal`]).
    Traversal(GraphTraversal),
}

/// Sends a request of `items` with its retries.
async fn send(
    g: &GraphTraversalSource,
    options: &BatchOptions,
    items: Vec<(u64, WriteOp)>,
) -> Outcome {
    let adds = items.iter().any(|(_, op)| matches!(op, WriteOp::Add(_)));
    let (client, alias) = g.client_and_alias();
    // The one-binding form on TinkerPop 3 when the batch takes it, else a traversal.
    let tp3 = client.filter(|c| c.is_tinkerpop3());
    let (form, probe) = match tp3.and_then(|c| Some((c, bound(&items, options.count_matches)?))) {
        Some((c, b)) => (Form::Bound(c, b), Probe::created(options.count_matches)),
        None => {
            let (t, probe) = batch_traversal(g, &items, options.count_matches, tp3.is_none());
            (Form::Traversal(t), probe)
        }
    };
    let span = tracing::debug_span!("gremlin.batch", items = items.len(), adds);
    let _ = &span;
    let mut attempts = 0;
    loop {
        attempts += 1;
        let started = tokio::time::Instant::now();
        let result = match &form {
            Form::Bound(client, Bound { script, rows }) => {
                let req = client
                    .request(script.clone())
                    .g(alias)
                    .param(ROWS, rows.clone())
                    .idempotent(false);
                let all = async { req.send().await?.all().await };
                tracing::Instrument::instrument(all, span.clone()).await
            }
            Form::Traversal(t) => {
                tracing::Instrument::instrument(t.clone().to_list(), span.clone()).await
            }
        };
        match result {
            Ok(values) => {
                let counts = if probe == Probe::Each {
                    counts(&values)
                } else if probe == Probe::Created {
                    let created = numbers(&values).min(items.len() as u64);
                    (created, items.len() as u64 - created)
                } else if probe == Probe::Ids {
                    let matched = numbers(&values).min(items.len() as u64);
                    (items.len() as u64 - matched, matched)
                } else if adds {
                    (items.len() as u64, 0)
                } else {
                    (0, 0)
                };
                return Outcome {
                    items,
                    result: Ok(counts),
                    maybe_written: false,
                    attempts,
                };
            }
            Err(e) => {
                let retry = if adds { never_sent(&e) } else { retriable(&e) };
                if retry && attempts < options.retry.attempts() {
                    let mut wait = options.retry.delay(attempts, None);
                    if e.transport_kind().is_some() && !never_sent(&e) {
                        // The server may still be running the request whose connection was
                        // lost (over ws:// a reset fails every request of the connection): a
                        // retry running beside it could create what it creates, on a graph
                        // without transactions. Give it at least as long again as it ran,
                        // and RUNNING_GRACE more.
                        wait = wait.max(started.elapsed() + RUNNING_GRACE);
                    }
                    tracing::debug!(parent: &span, error = %e, attempt = attempts, ?wait, "batch request failed; retrying");
                    tokio::time::sleep(wait).await;
                    continue;
                }
                tracing::warn!(parent: &span, error = %e, attempts, "batch request failed");
                return Outcome {
                    items,
                    maybe_written: !never_sent(&e),
                    result: Err(Arc::new(e)),
                    attempts,
                };
            }
        }
    }
}

/// `(created, matched)` from the probe counts (0: created, 1: matched), in whatever
/// collection the server answered the side effect as.
fn counts(values: &[Value]) -> (u64, u64) {
    let mut c = (0, 0);
    let mut add = |v: &Value, n: u64| match v.as_i64() {
        Some(0) => c.0 += n,
        Some(_) => c.1 += n,
        None => {}
    };
    for v in values {
        match v {
            Value::List(items) | Value::Set(items) => items.iter().for_each(|i| add(i, 1)),
            Value::BulkList(items) => items
                .iter()
                .for_each(|(i, b)| add(i, u64::try_from(*b).unwrap_or(0))),
            other => add(other, 1),
        }
    }
    c
}

/// The sum of the numbers in `values`, in whatever collection the server answered them as.
fn numbers(values: &[Value]) -> u64 {
    let n = |v: &Value| v.as_i64().and_then(|n| u64::try_from(n).ok()).unwrap_or(0);
    values
        .iter()
        .map(|v| match v {
            Value::List(items) | Value::Set(items) => items.iter().map(n).sum(),
            Value::BulkList(items) => items
                .iter()
                .map(|(i, b)| n(i) * u64::try_from(*b).unwrap_or(0))
                .sum(),
            other => n(other),
        })
        .sum()
}

/// The request never left: it could not connect.
fn never_sent(e: &Error) -> bool {
    e.transport_kind() == Some(TransportKind::Connect)
}

/// The markers of temporary failures in real servers' answers.
const TEMPORARY: &[&str] = &[
    "ConcurrentModificationException",
    "TemporaryLockingException",
    "Temporary locking failure",
    "TemporaryException",
];

/// Whether an idempotent request may be sent again after `e`.
pub(crate) fn retriable(e: &Error) -> bool {
    match e {
        Error::Transport { kind, .. } => matches!(
            kind,
            TransportKind::Connect
                | TransportKind::Io
                | TransportKind::Timeout
                | TransportKind::Http
        ),
        Error::Server(s) => {
            let status = |c: i64| i64::from(s.code) == c || s.http_status.map(i64::from) == Some(c);
            if status(596) || status(429) || status(503) {
                return true;
            }
            if s.attributes.status_code() == Some(429) {
                return true;
            }
            let named = |text: &str| TEMPORARY.iter().any(|m| text.contains(m));
            s.message.as_deref().is_some_and(named)
                || s.exception.as_deref().is_some_and(named)
                || s.attributes.iter().any(|(_, v)| match v {
                    Value::String(t) => named(t),
                    Value::List(items) => items
                        .iter()
                        .any(|i| matches!(i, Value::String(t) if named(t))),
                    _ => false,
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::ElementWrite;
    use crate::response::ServerError;

    fn server(code: i32, message: &str) -> Error {
        Error::Server(ServerError {
            http_status: Some(200),
            code,
            message: Some(message.into()),
            exception: None,
            attributes: Default::default(),
        })
    }

    #[test]
    fn temporary_failures_are_retried() {
        assert!(retriable(&server(596, "x")));
        assert!(retriable(&server(429, "x")));
        assert!(retriable(&server(503, "x")));
        assert!(retriable(&server(
            500,
            r#"{"code":"ConcurrentModificationException","detailedMessage":"..."}"#
        )));
        assert!(retriable(&server(500, "Temporary locking failure")));
        assert!(!retriable(&server(500, "Vertex with id already exists: 1")));
        assert!(!retriable(&server(400, "bad")));
        assert!(!retriable(&Error::InvalidRequest("x".into())));
    }

    #[test]
    fn vertex_merges_by_distinct_ids_share_one_probe() {
        let g = GraphTraversalSource::detached();
        let merge = |id: &str| {
            (
                0,
                WriteOp::MergeV(RawMerge {
                    search: Lit::Map(vec![(Lit::from(T::Id), Lit::from(id))]),
                    on_create: None,
                    on_match: None,
                }),
            )
        };
        let (t, probe) = batch_traversal(&g, &[merge("1"), merge("2")], true, false);
        let text = t.gremlin_lang().unwrap().gremlin;
        assert!(probe == Probe::Ids, "{text}");
        assert!(
            text.starts_with(
                r#"g.inject(0).sideEffect(__.V("1","2").count().aggregate("gbw_matched")).mergeV("#
            ),
            "{text}"
        );
        assert_eq!(text.matches("sideEffect").count(), 1, "{text}");
        // A repeated id: one lookup per item (the second is matched by the first).
        let (t, probe) = batch_traversal(&g, &[merge("1"), merge("1")], true, false);
        assert!(probe == Probe::Each);
        assert_eq!(
            t.gremlin_lang()
                .unwrap()
                .gremlin
                .matches("sideEffect")
                .count(),
            2
        );
        assert!(batch_traversal(&g, &[merge("1")], false, false).1 == Probe::None);
        let b = Value::BulkList(vec![(Value::Long(2), 1)]);
        assert_eq!(numbers(&[Value::List(vec![Value::Long(3)])]), 3);
        assert_eq!(numbers(&[b]), 2);
    }

    fn raw(edge: bool, id: i32, on_match: Option<Lit>) -> (u64, WriteOp) {
        let search = Lit::Map(vec![(Lit::from(T::Id), Lit::Int(id))]);
        let m = RawMerge {
            search,
            on_create: Some(Lit::Map(vec![(
                Lit::from("code"),
                Lit::CardinalityValue(
                    crate::lang::tokens::Cardinality::Set,
                    Box::new(Lit::from("AUS")),
                ),
            )])),
            on_match,
        };
        let op = if edge {
            WriteOp::MergeE(m)
        } else {
            WriteOp::MergeV(m)
        };
        (0, op)
    }

    fn edge(out: i32, into: i32) -> WriteOp {
        WriteOp::MergeE(RawMerge {
            search: Lit::Map(vec![
                (Lit::from(T::Label), Lit::from("route")),
                (Lit::from(Direction::Out), Lit::Int(out)),
                (Lit::from(Direction::In), Lit::Int(into)),
            ]),
            on_create: None,
            on_match: None,
        })
    }

    #[test]
    fn a_write_touches_its_vertices_alike_by_id_or_by_key() {
        assert_eq!(touches(&edge(1, 2)), ["vInt(1)", "vInt(2)"]);
        assert_eq!(touches(&raw(false, 1, None).1), ["vInt(1)"]);
        // A vertex upserted by its key and an edge's end found by that key are one vertex.
        let key = |name: &'static str, value: &str| Prop {
            name,
            key: true,
            values: Written::Single(Lit::from(value)),
        };
        let vertex = ElementWrite {
            label: "airport",
            id: None,
            props: vec![key("code", "AUS")],
            out_v: None,
            in_v: None,
        };
        let route = ElementWrite {
            label: "route",
            id: None,
            props: Vec::new(),
            out_v: Some(End::Key {
                label: "airport",
                key: "code",
                value: Lit::from("AUS"),
            }),
            in_v: Some(End::Id(Lit::Int(7))),
        };
        let v = touches(&WriteOp::Upsert(vertex.clone()));
        assert_eq!(v.len(), 1);
        assert_eq!(touches(&WriteOp::Upsert(route))[0], v[0]);
        // Adds without id or key are new vertices: nothing to wait for.
        let plain = ElementWrite {
            props: Vec::new(),
            ..vertex
        };
        assert!(touches(&WriteOp::Add(plain)).is_empty());
    }

    #[test]
    fn no_two_requests_in_flight_write_at_one_vertex() {
        let mut p = Pending::default();
        for (i, (o, t)) in [(1, 2), (1, 3), (4, 5), (2, 1), (1, 2), (6, 7)]
            .into_iter()
            .enumerate()
        {
            p.push(i as u64, edge(o, t));
        }
        // Nothing in flight: the first n, in order.
        assert_eq!(p.ready(&HashMap::new(), 3), [0, 1, 2]);
        // Vertex 2 held by a request in flight: (1,2), (2,1) and the second (1,2) wait,
        // (1,3) passes them (another edge), the rest go in order.
        let busy = HashMap::from([("vInt(2)".to_string(), 1)]);
        assert_eq!(p.ready(&busy, 10), [1, 2, 5]);
        let taken = p.take(vec![1, 2, 5]);
        assert_eq!(
            taken.iter().map(|t| t.0).collect::<Vec<_>>(),
            [1, 2, 5],
            "taken in order"
        );
        assert_eq!(
            p.items.iter().map(|t| t.0).collect::<Vec<_>>(),
            [0, 3, 4],
            "the rest keep theirs"
        );
        // Vertex 2 free again: the first (1,2) goes first, the second (1,2) (the same
        // element) never before it.
        assert_eq!(p.ready(&HashMap::new(), 1), [0]);
        let busy = HashMap::from([("vInt(1)".to_string(), 1)]);
        assert!(p.ready(&busy, 10).is_empty(), "each touches vertex 1");
    }

    #[test]
    fn raw_merges_over_gremlin_lang_are_one_step_over_a_list_literal() {
        let g = GraphTraversalSource::detached();
        let dist = Some(Lit::Map(vec![(Lit::from("dist"), Lit::Long(7))]));
        let items = [raw(false, 1, dist), raw(false, 2, None)];
        let (t, probe) = batch_traversal(&g, &items, true, true);
        assert!(probe == Probe::Created);
        let lang = t.gremlin_lang().unwrap();
        assert!(lang.parameters.is_empty(), "{:?}", lang.parameters);
        assert_eq!(
            lang.gremlin,
            concat!(
                r#"g.withSideEffect("gbw_created",[]).inject([["s":[(T.id):1],"#,
                r#""c":["code":Cardinality.set("AUS")],"u":["dist":7L]],"#,
                r#"["s":[(T.id):2],"c":["code":Cardinality.set("AUS")],"u":[:]]])"#,
                r#".unfold().as("m").mergeV(__.select("m").select("s"))"#,
                r#".option(Merge.onCreate,__.select("m").sideEffect(__.constant(1)"#,
                r#".aggregate("gbw_created")).select("c"))"#,
                r#".option(Merge.onMatch,__.select("m").select("u"))"#,
                r#".cap("gbw_created").count(Scope.local)"#,
            )
        );
        // Edges alike; without counting, no side effect.
        let (t, probe) = batch_traversal(&g, &[raw(true, 3, None)], false, true);
        assert!(probe == Probe::None);
        let text = t.gremlin_lang().unwrap().gremlin;
        assert!(text.starts_with(r#"g.inject([["s":[(T.id):3],"#), "{text}");
        assert!(
            text.ends_with(
                r#".mergeE(__.select("m").select("s")).option(Merge.onCreate,__.select("m").select("c")).option(Merge.onMatch,__.select("m").select("u")).count()"#
            ),
            "{text}"
        );
    }

    #[test]
    fn what_the_list_form_cannot_express_stays_chained() {
        let g = GraphTraversalSource::detached();
        let chained = |items: &[(u64, WriteOp)]| {
            let (t, probe) = batch_traversal(&g, items, true, true);
            assert!(probe != Probe::Created);
            let text = t.gremlin_lang().unwrap().gremlin;
            assert!(text.starts_with("g.inject(0)."), "{text}");
        };
        // Vertices and edges in one request.
        chained(&[raw(false, 1, None), raw(true, 2, None)]);
        // An onMatch that is not a map literal.
        chained(&[raw(false, 1, Some(Lit::Null))]);
        // Over Groovy (a TinkerPop 3 server), the one-binding form's business.
        let (t, _) = batch_traversal(&g, &[raw(false, 1, None)], true, false);
        assert!(t
            .gremlin_lang()
            .unwrap()
            .gremlin
            .starts_with("g.inject(0)."));
    }

    #[test]
    fn probe_counts_from_any_collection() {
        let l = Value::List(vec![Value::Long(0), Value::Long(1), Value::Long(0)]);
        assert_eq!(counts(&[l]), (2, 1));
        let b = Value::BulkList(vec![(Value::Long(0), 3), (Value::Long(1), 4)]);
        assert_eq!(counts(&[b]), (3, 4));
    }
}
