//! Test helpers, as tokio's `test-util`: for this workspace's tests, fuzz targets and
//! benchmarks. Only with the `test-util` feature; not part of the stable API.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// The UTF-8 helpers behind `Char`, for their tests.
pub use crate::cursor::{decode_char, utf8_width};

/// Runs a future to completion on a new current-thread tokio runtime (no I/O or time driver).
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
        .block_on(f)
}

/// An [`AsyncRead`] adaptor that hands out at most `chunk` bytes per read: for tests and fuzzing,
/// to show that decoding does not depend on how bytes arrive.
/// [`ChunkedReader::with_sizes`] cycles through several read sizes, and
/// [`ChunkedReader::pending_between_reads`] makes every other poll return `Pending` (waking the
/// task at once), so every await point of a reader is exercised.
#[derive(Debug)]
pub struct ChunkedReader<R> {
    inner: R,
    scratch: Vec<u8>,
    sizes: Vec<usize>,
    next: usize,
    pending: bool,
    pend: bool,
}

/// The largest read size a [`ChunkedReader`] takes.
const MAX_CHUNK: usize = 1 << 20;

impl<R> ChunkedReader<R> {
    /// Wraps `inner`, reading at most `chunk` (at least 1) bytes at a time.
    pub fn new(inner: R, chunk: usize) -> Self {
        Self::with_sizes(inner, &[chunk])
    }

    /// Wraps `inner`, the read sizes cycling through `sizes` (each at least 1, at most 1 MiB;
    /// no sizes means 1 MiB reads).
    pub fn with_sizes(inner: R, sizes: &[usize]) -> Self {
        let mut sizes: Vec<usize> = sizes.iter().map(|&s| s.clamp(1, MAX_CHUNK)).collect();
        if sizes.is_empty() {
            sizes.push(MAX_CHUNK);
        }
        ChunkedReader {
            inner,
            scratch: vec![0; sizes.iter().copied().max().unwrap_or(1)],
            sizes,
            next: 0,
            pending: false,
            pend: false,
        }
    }

    /// Returns `Pending` (after waking the task) before every read.
    pub fn pending_between_reads(mut self) -> Self {
        self.pending = true;
        self
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for ChunkedReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.pending {
            this.pend = !this.pend;
            if this.pend {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
        }
        let size = this.sizes[this.next % this.sizes.len()];
        this.next += 1;
        let n = size.min(buf.remaining());
        let mut tmp = ReadBuf::new(&mut this.scratch[..n]);
        let r = Pin::new(&mut this.inner).poll_read(cx, &mut tmp);
        buf.put_slice(tmp.filled());
        r
    }
}

/// A reader that delivers its bytes in the given pieces, one piece per read: a
/// [`ChunkedReader`] whose read sizes are the pieces' lengths (a read with less room takes
/// less, and the next read goes on from there).
pub type Pieces = ChunkedReader<std::io::Cursor<Vec<u8>>>;

impl Pieces {
    /// Delivers `bytes` split at each offset in `splits` (ascending).
    pub fn split(bytes: &[u8], splits: &[usize]) -> Self {
        let mut sizes = Vec::new();
        let mut last = 0;
        for &s in splits {
            sizes.push(s - last);
            last = s;
        }
        sizes.push(bytes.len() - last);
        sizes.retain(|&n| n > 0);
        ChunkedReader::with_sizes(std::io::Cursor::new(bytes.to_vec()), &sizes)
    }

    /// Delivers `bytes` `n` at a time.
    pub fn chunks(bytes: &[u8], n: usize) -> Self {
        let splits: Vec<usize> = (n..bytes.len()).step_by(n).collect();
        Self::split(bytes, &splits)
    }
}
