//! The response body as a [`tokio::io::AsyncRead`]: HTTP body chunks, decompressed when the
//! response says `Content-Encoding: deflate` (which in HTTP means zlib, RFC 1950), with byte
//! counters for progress and statistics.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use async_compression::tokio::bufread::ZlibDecoder;
use bytes::Bytes;
use futures::{Stream, TryStreamExt};
use tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::io::StreamReader;

use crate::transport::ByteCounters;
use std::sync::atomic::Ordering;

type ByteStream = Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>>;

enum Inner {
    Plain(StreamReader<ByteStream, Bytes>),
    /// `drained`: the zlib stream has ended and the HTTP body after it was read to its end.
    Zlib {
        decoder: ZlibDecoder<StreamReader<ByteStream, Bytes>>,
        drained: bool,
    },
    /// Cut by [`Client::close`](super::Client::close): the HTTP body is dropped (its
    /// connection closed).
    Cut,
}

/// The (decompressed) body of a response, as an [`AsyncRead`].
///
/// Network failures surface as [`io::Error`]s wrapping the HTTP library's error; invalid zlib
/// data as [`io::ErrorKind::InvalidData`] errors; the client's error conversion tells them
/// apart. Dropping the reader before the end abandons the response: the HTTP connection is
/// closed rather than returned to the pool, and the client's connection slot is released.
pub struct BodyReader {
    inner: Inner,
    counters: Arc<ByteCounters>,
    /// The client's connection slot, freed at the end of the body (see `poll_read`) or when
    /// the reader is dropped.
    permit: Option<OwnedSemaphorePermit>,
    /// How many times the task yielded at the end of the body.
    yielded_at_end: u8,
    /// The client's close state, checked at each read.
    closing: Option<Arc<crate::transport::Closing>>,
}

impl std::fmt::Debug for BodyReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BodyReader")
            .field("compressed", &self.is_compressed())
            .field("counters", &self.counters)
            .finish()
    }
}

impl BodyReader {
    pub(crate) fn new(body: super::Body, zlib: bool, permit: Option<OwnedSemaphorePermit>) -> Self {
        let counters = Arc::new(ByteCounters::default());
        let c = counters.clone();
        let stream: ByteStream = Box::pin(body.map_err(io::Error::other).inspect_ok(move |b| {
            c.wire.fetch_add(b.len() as u64, Ordering::Relaxed);
        }));
        let stream: ByteStream = Box::pin(Prefetch::new(stream));
        let reader = StreamReader::new(stream);
        let inner = if zlib {
            let mut d = ZlibDecoder::new(reader);
            // A response is one zlib stream; trailing bytes would be a server bug worth seeing.
            d.multiple_members(false);
            Inner::Zlib {
                decoder: d,
                drained: false,
            }
        } else {
            Inner::Plain(reader)
        };
        BodyReader {
            inner,
            counters,
            permit,
            yielded_at_end: 0,
            closing: None,
        }
    }

    /// Makes the reader fail with [`Error::Closed`](super::Error::Closed) (dropping the body
    /// and its connection) at its first read after `closing` is cut.
    pub(crate) fn closed_by(mut self, closing: Arc<crate::transport::Closing>) -> Self {
        self.closing = Some(closing);
        self
    }

    /// Whether the body is being decompressed.
    pub fn is_compressed(&self) -> bool {
        matches!(self.inner, Inner::Zlib { .. })
    }

    /// The byte counters of this body.
    pub fn counters(&self) -> Arc<ByteCounters> {
        self.counters.clone()
    }
}

impl AsyncRead for BodyReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.closing.as_ref().is_some_and(|c| c.is_cut()) {
            this.inner = Inner::Cut;
            this.permit = None;
        }
        let before = buf.filled().len();
        let res = match &mut this.inner {
            Inner::Cut => return Poll::Ready(Err(io::Error::other(ClientClosed))),
            Inner::Plain(r) => Pin::new(r).poll_read(cx, buf),
            Inner::Zlib { drained: true, .. } => Poll::Ready(Ok(())),
            Inner::Zlib { decoder, drained } => {
                match Pin::new(&mut *decoder).poll_read(cx, buf) {
                    Poll::Ready(Err(e)) => Poll::Ready(Err(mark_decompress(e))),
                    Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => {
                        // The zlib stream has ended. Read the HTTP body to its end too, so
                        // that the connection goes back to the pool instead of being closed
                        // with an unfinished body.
                        match Pin::new(decoder.get_mut()).poll_fill_buf(cx) {
                            Poll::Pending => Poll::Pending,
                            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                            Poll::Ready(Ok([])) => {
                                *drained = true;
                                Poll::Ready(Ok(()))
                            }
                            Poll::Ready(Ok(rest)) => Poll::Ready(Err(io::Error::new(
                                io::ErrorKind::InvalidData,
                                DecompressError(io::Error::other(format!(
                                    "{} bytes after the end of the zlib stream",
                                    rest.len()
                                ))),
                            ))),
                        }
                    }
                    other => other,
                }
            }
        };
        let n = buf.filled().len() - before;
        if n > 0 {
            this.counters.body.fetch_add(n as u64, Ordering::Relaxed);
        }
        if n == 0
            && buf.remaining() > 0
            && this.permit.is_some()
            && matches!(res, Poll::Ready(Ok(())))
        {
            // The end of the body. The HTTP library puts the connection back into its pool
            // from a task of its own, woken by the same read; a request that took our slot
            // before that task ran would find no idle connection and open a new one (at
            // concurrency 1000, 2,300 connections for 3,000 requests; issue 13). So yield
            // twice, letting that task run first, and free the slot on the poll after (once:
            // 1,040-1,100 connections; twice: 980-1,000, as many as the pool).
            if this.yielded_at_end < 2 {
                this.yielded_at_end += 1;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            this.permit = None;
        }
        res
    }
}

/// The I/O error of a body cut by [`Client::close`](super::Client::close).
#[derive(Debug, thiserror::Error)]
#[error("the client is closed")]
pub(crate) struct ClientClosed;

/// Errors out of the decoder that did not come from the network are zlib format errors.
/// Marks an I/O error that came from the zlib decoder rather than from the network.
#[derive(Debug, thiserror::Error)]
#[error("invalid zlib stream")]
pub(crate) struct DecompressError(#[source] pub(crate) io::Error);

fn mark_decompress(e: io::Error) -> io::Error {
    if e.get_ref().is_some_and(|i| i.is::<super::HttpError>()) {
        e
    } else {
        io::Error::new(io::ErrorKind::InvalidData, DecompressError(e))
    }
}

/// Body bytes read directly, on the reader's own task, before a [`Prefetch`] hands the rest of
/// the body to a fetcher task: a small response (one chunk, as `g.V()`) never spawns one.
const PREFETCH_AFTER: usize = 64 * 1024;
/// The fetcher stops pulling frames while this many bytes wait in its queue...
const PREFETCH_HIGH: usize = 1024 * 1024;
/// ...and the reader wakes it again only once the queue has fallen below this.
const PREFETCH_LOW: usize = 256 * 1024;

/// The HTTP body frames, read ahead by a task of their own once the body is large.
///
/// The HTTP library hands the body over from its connection task one frame (one HTTP chunk,
/// about 8 KB from Gremlin Server) at a time, through a one-frame channel: every frame wakes
/// the reader, and every read wakes the connection task again. When the reader runs outside
/// the runtime's worker threads (a `block_on` future, as `#[tokio::main]`'s), each of these
/// wakes is a thread switch: 2 per frame, 6,000 for a 24 MB response, about half of the
/// client's time apart from decoding (issue 13). After [`PREFETCH_AFTER`] bytes the frames
/// are pulled by a fetcher task on the runtime (which runs next to the connection task) into a
/// queue of at most [`PREFETCH_HIGH`] bytes; the reader takes frames from the queue, waiting
/// (and being woken) only when it is empty, and wakes the fetcher only when the queue has
/// drained below [`PREFETCH_LOW`]. Socket reads then overlap decoding. Errors keep their
/// place after the frames before them. Dropping the reader aborts the fetcher, which drops
/// the HTTP body: the connection is closed unless it was already read to its end.
enum Prefetch {
    /// Reading on the reader's task; `seen` bytes so far.
    Direct {
        stream: Option<ByteStream>,
        seen: usize,
    },
    /// The fetcher task owns the stream.
    Fetching {
        shared: Arc<Shared>,
        task: tokio::task::AbortHandle,
        done: bool,
    },
}

#[derive(Default)]
struct Queue {
    frames: std::collections::VecDeque<Bytes>,
    bytes: usize,
    /// How the body ended, once the fetcher has seen it (`None` inside: the end, no error).
    end: Option<Option<io::Error>>,
    reader: Option<std::task::Waker>,
    fetcher: Option<std::task::Waker>,
}

#[derive(Default)]
struct Shared {
    queue: std::sync::Mutex<Queue>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        // A panic while holding the lock cannot leave the queue inconsistent (each critical
        // section is a push or a pop), so a poisoned lock is taken as is.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Ends the body (once) and wakes the reader.
    fn finish(&self, end: Option<io::Error>) {
        let waker = {
            let mut q = self.lock();
            if q.end.is_some() {
                return;
            }
            q.end = Some(end);
            q.reader.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// Ends the body with an error if the fetcher is dropped before it has (the runtime shutting
/// down), so that the reader does not wait forever.
struct FinishOnDrop(Arc<Shared>);

impl Drop for FinishOnDrop {
    fn drop(&mut self) {
        self.0.finish(Some(io::Error::other(
            "the task reading the response body was stopped (runtime shut down)",
        )));
    }
}

/// The fetcher task. `guard` is an argument, not made inside, so that it is dropped (ending
/// the body) even when the task is dropped before its first poll.
async fn fetch(mut stream: ByteStream, guard: FinishOnDrop) {
    use futures::StreamExt;
    let shared = guard.0.clone();
    loop {
        futures::future::poll_fn(|cx| {
            let mut q = shared.lock();
            if q.bytes < PREFETCH_HIGH {
                Poll::Ready(())
            } else {
                q.fetcher = Some(cx.waker().clone());
                Poll::Pending
            }
        })
        .await;
        match stream.next().await {
            Some(Ok(b)) => {
                if b.is_empty() {
                    continue;
                }
                let waker = {
                    let mut q = shared.lock();
                    q.bytes += b.len();
                    q.frames.push_back(b);
                    q.reader.take()
                };
                if let Some(w) = waker {
                    w.wake();
                }
            }
            Some(Err(e)) => return guard.0.finish(Some(e)),
            None => return guard.0.finish(None),
        }
    }
}

impl Prefetch {
    fn new(stream: ByteStream) -> Self {
        Prefetch::Direct {
            stream: Some(stream),
            seen: 0,
        }
    }
}

impl Stream for Prefetch {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        match this {
            Prefetch::Direct { stream, seen } => {
                let Some(s) = stream.as_mut() else {
                    return Poll::Ready(None);
                };
                let item = std::task::ready!(s.as_mut().poll_next(cx));
                match &item {
                    Some(Ok(b)) => {
                        *seen += b.len();
                        if *seen >= PREFETCH_AFTER {
                            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                                let shared = Arc::new(Shared::default());
                                let s = stream.take().expect("checked above");
                                let task = rt
                                    .spawn(fetch(s, FinishOnDrop(shared.clone())))
                                    .abort_handle();
                                *this = Prefetch::Fetching {
                                    shared,
                                    task,
                                    done: false,
                                };
                            }
                        }
                    }
                    _ => *stream = None,
                }
                Poll::Ready(item)
            }
            Prefetch::Fetching { done: true, .. } => Poll::Ready(None),
            Prefetch::Fetching { shared, done, .. } => {
                let (item, fetcher) = {
                    let mut q = shared.lock();
                    if let Some(b) = q.frames.pop_front() {
                        let before = q.bytes;
                        q.bytes -= b.len();
                        let wake = before >= PREFETCH_LOW && q.bytes < PREFETCH_LOW;
                        let fetcher = if wake || q.bytes < PREFETCH_LOW {
                            q.fetcher.take()
                        } else {
                            None
                        };
                        (Poll::Ready(Some(Ok(b))), fetcher)
                    } else if let Some(end) = q.end.take() {
                        *done = true;
                        (Poll::Ready(end.map(Err)), None)
                    } else {
                        q.reader = Some(cx.waker().clone());
                        (Poll::Pending, None)
                    }
                };
                if let Some(w) = fetcher {
                    w.wake();
                }
                item
            }
        }
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        if let Prefetch::Fetching { task, .. } = self {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    fn frames(n: usize, size: usize) -> ByteStream {
        Box::pin(futures::stream::iter(
            (0..n).map(move |i| Ok(Bytes::from(vec![(i % 251) as u8; size]))),
        ))
    }

    // Small bodies are read directly; past PREFETCH_AFTER a fetcher task reads ahead, never
    // more than PREFETCH_HIGH (plus one frame) queued, and the frames come out whole, in order.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn prefetch_starts_after_the_threshold_bounds_its_queue_and_keeps_the_order() {
        let (n, size) = (1000, 8 * 1024);
        let mut p = Prefetch::new(frames(n, size));
        let mut i = 0;
        while i * size < PREFETCH_AFTER {
            assert!(matches!(p, Prefetch::Direct { .. }), "frame {i}");
            let b = p.next().await.unwrap().unwrap();
            assert_eq!(b[..], vec![(i % 251) as u8; size][..]);
            i += 1;
        }
        let Prefetch::Fetching { shared, .. } = &p else {
            panic!("no fetcher after {i} frames");
        };
        let shared = shared.clone();
        // Let the fetcher run ahead until it stops.
        for _ in 0..200 {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            if shared.lock().bytes >= PREFETCH_HIGH {
                break;
            }
        }
        let queued = shared.lock().bytes;
        assert!(
            queued >= PREFETCH_HIGH,
            "the fetcher reads ahead ({queued})"
        );
        assert!(
            queued < PREFETCH_HIGH + size,
            "and stops at the bound ({queued})"
        );
        while let Some(b) = p.next().await {
            assert_eq!(b.unwrap()[..], vec![(i % 251) as u8; size][..], "frame {i}");
            i += 1;
        }
        assert_eq!(i, n);
        assert!(p.next().await.is_none());
    }

    #[tokio::test]
    async fn prefetch_passes_an_error_after_the_frames_before_it() {
        let s: ByteStream = Box::pin(
            frames(20, 8 * 1024).chain(futures::stream::iter([Err(io::Error::other("cut"))])),
        );
        let mut p = Prefetch::new(s);
        let mut got = 0;
        let e = loop {
            match p.next().await.unwrap() {
                Ok(b) => {
                    assert_eq!(b.len(), 8 * 1024);
                    got += 1;
                }
                Err(e) => break e,
            }
        };
        assert_eq!(got, 20);
        assert_eq!(e.to_string(), "cut");
        assert!(matches!(p, Prefetch::Fetching { .. }));
        assert!(p.next().await.is_none());
    }

    #[test]
    fn a_fetcher_stopped_by_the_runtime_ends_the_body_with_an_error() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // A stream that stalls after 80 KiB: the fetcher starts and waits on it forever.
        let s: ByteStream = Box::pin(frames(10, 8 * 1024).chain(futures::stream::pending()));
        let mut p = Prefetch::new(s);
        rt.block_on(async {
            for _ in 0..8 {
                p.next().await.unwrap().unwrap();
            }
        });
        assert!(matches!(p, Prefetch::Fetching { .. }));
        drop(rt);
        let r = futures::executor::block_on(async {
            let mut frames = 0;
            loop {
                match p.next().await {
                    Some(Ok(_)) => frames += 1,
                    Some(Err(e)) => return (frames, e.to_string()),
                    None => panic!("ended without an error"),
                }
            }
        });
        assert!(r.0 <= 2, "at most the frames left: {}", r.0);
        assert!(r.1.contains("runtime shut down"), "{}", r.1);
    }
}
