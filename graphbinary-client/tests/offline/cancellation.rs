//! Cancellation of a response read at every await point of the slow path.
//!
//! The input is built to pass through every kind of suspension point the deserializer has:
//! the header, the check for the next result or the marker, a value refilled and retried on
//! the fast path, a value larger than the buffer read field by field (List, Map, Vertex), a
//! String streamed past the buffer, a bulk, the status code, the status message and
//! exception, and the end-of-stream check. The reader returns `Pending` before every chunk.
//!
//! * Dropping the whole stream after any number of polls neither panics nor keeps the reader
//!   alive (no task or future holds it), and a fresh stream on fresh input then reads
//!   everything.
//! * Dropping only the `next()` future (as `tokio::time::timeout` does when it elapses) loses
//!   nothing: the stream keeps its in-flight read and resumes it on the next call. The same
//!   holds for a dropped `for_each_result()` future.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::{Stream, StreamExt};
use graphbinary_client::response::{
    read_response, ReadOptions, ResponseError, ResponseStream, Traverser,
};
use graphbinary_client::value::{Value, Vertex};
use tokio::io::{AsyncRead, ReadBuf};

/// A reader that returns `Pending` before every chunk: woken at once, or (with `delay`) only
/// after a tokio timer, so that a `timeout` shorter than the delay elapses at that point.
/// It holds an `Arc` so a test can tell whether anything still owns it.
struct SlowReader {
    data: Vec<u8>,
    pos: usize,
    chunk: usize,
    ready: bool,
    delay: Option<Duration>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    _alive: Arc<()>,
}

impl SlowReader {
    fn new(data: Vec<u8>, chunk: usize, delay: Option<Duration>, alive: Arc<()>) -> Self {
        SlowReader {
            data,
            pos: 0,
            chunk,
            ready: false,
            delay,
            sleep: None,
            _alive: alive,
        }
    }
}

/// A response read from `bytes` through a [`SlowReader`] of `chunk`-byte pieces (each `delay`
/// after it is asked for), and the token the reader holds while it lives.
fn slow_response(
    bytes: &[u8],
    chunk: usize,
    delay: Option<Duration>,
    opts: ReadOptions,
) -> (ResponseStream<SlowReader>, Arc<()>) {
    let alive = Arc::new(());
    let reader = SlowReader::new(bytes.to_vec(), chunk, delay, alive.clone());
    (read_response(reader, opts), alive)
}

/// The response of [`input`] read every way of [`ways`] through 3-byte pieces, each arriving
/// `delay` after it is asked for: each way's options, its stream and its reader's token.
fn delayed_responses(delay: Duration) -> Vec<(ReadOptions, ResponseStream<SlowReader>, Arc<()>)> {
    let (bytes, _) = input();
    ways()
        .into_iter()
        .map(|opts| {
            let (s, alive) = slow_response(&bytes, 3, Some(delay), opts);
            (opts, s, alive)
        })
        .collect()
}

/// Drops the stream `s` and checks that nothing else holds its reader.
fn assert_released(s: ResponseStream<SlowReader>, alive: &Arc<()>, what: &str) {
    drop(s);
    assert_eq!(
        Arc::strong_count(alive),
        1,
        "{what}: nothing else holds the reader"
    );
}

impl AsyncRead for SlowReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        if !this.ready {
            match this.delay {
                None => {
                    this.ready = true;
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Some(d) => {
                    let sleep = this
                        .sleep
                        .get_or_insert_with(|| Box::pin(tokio::time::sleep(d)));
                    if sleep.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    this.sleep = None;
                    this.ready = true;
                }
            }
        }
        this.ready = false;
        let n = this
            .chunk
            .min(buf.remaining())
            .min(this.data.len() - this.pos);
        buf.put_slice(&this.data[this.pos..this.pos + n]);
        this.pos += n;
        Poll::Ready(Ok(()))
    }
}

fn fq_long(v: i64) -> Vec<u8> {
    Value::Long(v).to_bytes().unwrap()
}

/// A bulked response through every kind of suspension point, ending in a server error with a
/// message and an exception; and the values it carries.
fn input() -> (Vec<u8>, Vec<(Value, i64)>) {
    let values = vec![
        Value::Int(1),
        Value::String("x".repeat(100)), // streamed past a 16-byte buffer
        Value::List((0..20).map(Value::Int).collect()), // slow path, item by item
        Value::Map(vec![(Value::String("k".into()), Value::Double(f64::NAN))]),
        Value::Vertex(Box::new(Vertex {
            id: Value::Long(7),
            label: vec![std::sync::Arc::<str>::from("person")].into(),
            properties: None,
        })),
        Value::Null(0xfe),
    ];
    let mut out = vec![0x84, 0x01];
    let mut expected = Vec::new();
    for (i, v) in values.into_iter().enumerate() {
        out.extend(v.to_bytes().unwrap());
        out.extend(fq_long(i as i64 + 1));
        expected.push((v, i as i64 + 1));
    }
    out.extend([0xfd, 0x00, 0x00]);
    out.extend(500i32.to_be_bytes());
    for s in ["oops", "java.lang.Exception"] {
        out.push(0x00);
        out.extend((s.len() as i32).to_be_bytes());
        out.extend(s.as_bytes());
    }
    (out, expected)
}

fn ways() -> Vec<ReadOptions> {
    let mut v = Vec::new();
    for fast_path in [true, false] {
        for capacity in [16, 64 * 1024] {
            v.push(ReadOptions {
                capacity,
                fast_path,
                ..ReadOptions::default()
            });
        }
    }
    v
}

type Item = Result<Traverser, ResponseError>;

fn check_complete(items: &[Item], expected: &[(Value, i64)]) {
    assert_eq!(items.len(), expected.len() + 1, "{items:?}");
    for (item, (v, bulk)) in items.iter().zip(expected) {
        let t = item.as_ref().unwrap();
        assert_eq!(t.value.to_bytes().unwrap(), v.to_bytes().unwrap());
        assert_eq!(t.bulk, *bulk);
    }
    match items.last().unwrap() {
        Err(ResponseError::Server(e)) => {
            assert_eq!(e.code, 500);
            assert_eq!(e.message.as_deref(), Some("oops"));
            assert_eq!(e.exception.as_deref(), Some("java.lang.Exception"));
        }
        other => panic!("{other:?}"),
    }
}

/// Polls `s` to the end with a no-op waker; returns the items and how many polls were
/// `Pending`. Stops after `max_polls` polls if given.
fn poll_items<S: Stream<Item = Item> + Unpin>(
    s: &mut S,
    max_polls: Option<usize>,
) -> (Vec<Item>, usize, bool) {
    let waker = futures::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    let mut items = Vec::new();
    let mut pendings = 0;
    let mut polls = 0;
    loop {
        if max_polls.is_some_and(|m| polls >= m) {
            return (items, pendings, false);
        }
        polls += 1;
        match Pin::new(&mut *s).poll_next(&mut cx) {
            Poll::Pending => pendings += 1,
            Poll::Ready(Some(item)) => items.push(item),
            Poll::Ready(None) => return (items, pendings, true),
        }
    }
}

#[test]
fn dropping_the_stream_at_every_await_point_leaks_nothing_and_panics_nowhere() {
    let (bytes, expected) = input();
    for opts in ways() {
        for chunk in [1, 7] {
            // Uninterrupted, to know how many suspension points this way has.
            let (mut s, alive) = slow_response(&bytes, chunk, None, opts);
            let (items, pendings, done) = poll_items(&mut s, None);
            assert!(done);
            check_complete(&items, &expected);
            assert!(pendings > 10, "the reader suspends the stream ({pendings})");
            assert_released(s, &alive, &format!("{opts:?}"));

            // Drop after each number of polls, i.e. at every await point reached.
            for k in 0..=pendings + items.len() {
                let (mut s, alive) = slow_response(&bytes, chunk, None, opts);
                let (got, _, _) = poll_items(&mut s, Some(k));
                // What was yielded before the drop is a prefix of the results.
                for (item, (v, _)) in got.iter().zip(&expected) {
                    if let Ok(t) = item {
                        assert_eq!(t.value.to_bytes().unwrap(), v.to_bytes().unwrap());
                    }
                }
                assert_released(s, &alive, &format!("dropped after {k} polls"));
                // A fresh stream on fresh input reads everything.
                let mut fresh = slow_response(&bytes, 5, None, opts).0;
                let (items, _, done) = poll_items(&mut fresh, None);
                assert!(done);
                check_complete(&items, &expected);
            }
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_next_loses_nothing_and_the_stream_resumes() {
    let (_, expected) = input();
    // Each chunk arrives 10 ms after it is asked for; next() gives up after 3 ms, so it times
    // out at every await point that waits for bytes.
    for (opts, mut s, alive) in delayed_responses(Duration::from_millis(10)) {
        let mut items = Vec::new();
        let mut timeouts = 0;
        loop {
            match tokio::time::timeout(Duration::from_millis(3), s.next()).await {
                Err(_elapsed) => timeouts += 1,
                Ok(Some(item)) => items.push(item),
                Ok(None) => break,
            }
        }
        assert!(timeouts > 50, "timed out {timeouts} times");
        check_complete(&items, &expected);
        assert_released(s, &alive, &format!("{opts:?}"));
    }
}

#[tokio::test(start_paused = true)]
async fn a_stream_dropped_after_a_timeout_releases_its_reader() {
    for (opts, mut s, alive) in delayed_responses(Duration::from_secs(3600)) {
        assert!(tokio::time::timeout(Duration::from_millis(5), s.next())
            .await
            .is_err());
        assert_released(s, &alive, &format!("{opts:?}"));
    }
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_for_each_result_loses_nothing_and_resumes() {
    let (_, expected) = input();
    for (opts, mut s, alive) in delayed_responses(Duration::from_millis(10)) {
        let mut items: Vec<Item> = Vec::new();
        let mut timeouts = 0;
        loop {
            let run = s.for_each_result(|t| items.push(Ok(t)));
            match tokio::time::timeout(Duration::from_millis(3), run).await {
                Err(_elapsed) => timeouts += 1,
                Ok(Ok(())) => break,
                Ok(Err(e)) => {
                    items.push(Err(e));
                    break;
                }
            }
        }
        assert!(timeouts > 50, "timed out {timeouts} times");
        check_complete(&items, &expected);
        assert!(s.next().await.is_none());
        assert_released(s, &alive, &format!("{opts:?}"));
    }
}
