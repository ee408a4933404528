//! The response body as a [`tokio::io::AsyncRead`]: HTTP body chunks, decompressed when the
//! response says `Content-Encoding: deflate` (which in HTTP means zlib, RFC 1950), with byte
//! counters for progress and statistics.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use async_compression::tokio::bufread::ZlibDecoder;
use bytes::Bytes;
use futures::{Stream, TryStreamExt};
use tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::io::StreamReader;

use super::error::DecompressError;

type ByteStream = Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>>;

/// Byte counters of one response, shared between the body reader and whoever watches it.
#[derive(Debug, Default)]
pub struct ByteCounters {
    wire: AtomicU64,
    body: AtomicU64,
}

impl ByteCounters {
    /// Bytes of the HTTP body received so far, as sent (compressed when compressed).
    pub fn wire_bytes(&self) -> u64 {
        self.wire.load(Ordering::Relaxed)
    }

    /// Bytes of the (decompressed) GraphBinary body handed to the reader so far.
    pub fn body_bytes(&self) -> u64 {
        self.body.load(Ordering::Relaxed)
    }

    /// Counts `n` bytes received both on the wire and as GraphBinary (a TinkerPop 3 WebSocket
    /// message: uncompressed, each message whole).
    pub(crate) fn add_message(&self, n: u64) {
        self.wire.fetch_add(n, Ordering::Relaxed);
        self.body.fetch_add(n, Ordering::Relaxed);
    }
}

enum Inner {
    Plain(StreamReader<ByteStream, Bytes>),
    /// `drained`: the zlib stream has ended and the HTTP body after it was read to its end.
    Zlib {
        decoder: ZlibDecoder<StreamReader<ByteStream, Bytes>>,
        drained: bool,
    },
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
    pub(crate) fn new(
        response: reqwest::Response,
        zlib: bool,
        permit: Option<OwnedSemaphorePermit>,
    ) -> Self {
        let counters = Arc::new(ByteCounters::default());
        let c = counters.clone();
        let stream: ByteStream = Box::pin(
            response
                .bytes_stream()
                .map_err(io::Error::other)
                .inspect_ok(move |b| {
                    c.wire.fetch_add(b.len() as u64, Ordering::Relaxed);
                }),
        );
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
        }
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
        let before = buf.filled().len();
        let res = match &mut this.inner {
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

/// Errors out of the decoder that did not come from the network are zlib format errors.
fn mark_decompress(e: io::Error) -> io::Error {
    if e.get_ref().is_some_and(|i| i.is::<reqwest::Error>()) {
        e
    } else {
        io::Error::new(io::ErrorKind::InvalidData, DecompressError(e))
    }
}
