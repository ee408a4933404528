//! The read buffer: a synchronous fast path over buffered bytes and an async slow path that
//! refills from the underlying reader.

use std::future::Future;
use std::task::Poll;

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::cursor::{check_len, check_room, decode_char, invalid_bool, utf8_width, Cursor};
use crate::error::{DecodeError, ErrorKind, FastError, FastResult};
use crate::intern::Interner;
use crate::limits::Limits;
use crate::traits::Decode;
use std::sync::Arc;

/// Default buffer capacity: 64 KiB.
pub const DEFAULT_CAPACITY: usize = 64 * 1024;

/// The widest primitive (a UUID). The buffer always grows to hold at least this many bytes,
/// so that every primitive read can complete without consuming a partial value.
pub const MAX_PRIMITIVE_WIDTH: usize = 16;

/// A read buffer over any [`AsyncRead`].
///
/// Reads come in two flavours:
///
/// * **Fast path** ([`ReadBuffer::try_decode`], [`ReadBuffer::try_read_with`]): decode from
///   the bytes already buffered, synchronously and without allocation of its own. The result is
///   a value (the bytes are consumed), [`FastError::NeedMore`] (nothing is consumed) or an
///   error.
/// * **Slow path** (the `async fn`s): refill from the reader as needed.
///
/// [`ReadBuffer::read`] combines them: it decodes a whole value on the fast path, refills and
/// retries when the value is incomplete, and hands values larger than the buffer to the
/// type's field-by-field slow path ([`Decode::decode_slow`]).
///
/// # Example
///
/// ```
/// use graphbinary_core::ReadBuffer;
///
/// # tokio_test_block_on(async {
/// let bytes: &[u8] = &[0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x03, b'a', b'b', b'c'];
/// let mut buf = ReadBuffer::with_capacity(4, bytes);
/// assert_eq!(buf.read::<i32>().await?, 42);
/// assert_eq!(buf.read::<String>().await?, "abc");
/// assert!(buf.is_at_end().await?);
/// # Ok::<(), graphbinary_core::DecodeError>(())
/// # }).unwrap();
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Debug)]
pub struct ReadBuffer<R> {
    inner: R,
    /// Storage. INVARIANT: `start <= end <= buf.len()`; `buf[start..end]` are the buffered,
    /// unconsumed bytes.
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Absolute stream offset of `buf[start]`.
    offset: u64,
    eof: bool,
    limits: Limits,
    fast_path: bool,
    depth: u32,
    interner: Interner,
    /// A reader failure met while reading ahead of a value that was already complete; the
    /// next [`ReadBuffer::fill`] reports it.
    deferred: Option<DecodeError>,
}

impl<R> ReadBuffer<R> {
    /// A buffer of [`DEFAULT_CAPACITY`] over `inner`.
    pub fn new(inner: R) -> Self {
        Self::with_capacity(DEFAULT_CAPACITY, inner)
    }

    /// A buffer of `capacity` bytes (at least 1) over `inner`.
    ///
    /// A capacity below [`MAX_PRIMITIVE_WIDTH`] grows to that width on the first primitive
    /// read that needs it; nothing else grows the buffer.
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        ReadBuffer {
            inner,
            buf: vec![0u8; capacity.max(1)].into_boxed_slice(),
            start: 0,
            end: 0,
            offset: 0,
            eof: false,
            limits: Limits::DEFAULT,
            fast_path: true,
            depth: 0,
            interner: Interner::new(),
            deferred: None,
        }
    }

    /// Sets the limits checked while decoding.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Turns the fast path on (the default) or off. With it off, [`ReadBuffer::read`] always
    /// takes the type's async slow path, field by field: for tests of the slow path and the
    /// "before" of the benchmarks. Only with the `test-util` feature.
    #[cfg(feature = "test-util")]
    pub fn with_fast_path(mut self, enabled: bool) -> Self {
        self.fast_path = enabled;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether the fast path is on.
    pub fn fast_path(&self) -> bool {
        self.fast_path
    }

    /// The buffer's current capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The buffered, unconsumed bytes.
    #[inline]
    pub fn buffered(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Absolute stream offset of the next unconsumed byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Current nesting depth of slow-path container reads.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The underlying reader, mutably. Reading from it directly loses buffered bytes' order.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Consumes the buffer, returning the reader and the bytes buffered but not consumed.
    pub fn into_parts(self) -> (R, Vec<u8>) {
        let rest = self.buf[self.start..self.end].to_vec();
        (self.inner, rest)
    }

    /// Marks `n` buffered bytes as consumed.
    ///
    /// # Panics
    /// If fewer than `n` bytes are buffered.
    #[inline]
    pub fn consume(&mut self, n: usize) {
        assert!(
            n <= self.end - self.start,
            "consume past the buffered bytes"
        );
        self.start += n;
        self.offset += n as u64;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// An error of `kind` at the current offset.
    pub fn error(&self, kind: ErrorKind) -> DecodeError {
        DecodeError::new(self.offset, kind)
    }

    /// Enters a nested container on the slow path, failing when the depth limit would be
    /// exceeded.
    pub fn enter(&mut self) -> Result<(), DecodeError> {
        if self.depth >= self.limits.max_depth {
            return Err(self.error(ErrorKind::DepthLimit {
                limit: self.limits.max_depth,
            }));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves a container entered with [`ReadBuffer::enter`].
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Fast path: decodes a `T` from the buffered bytes, consuming them only on success.
    #[inline]
    pub fn try_decode<T: Decode>(&mut self) -> FastResult<T> {
        self.try_read_with(T::decode)
    }

    /// A cursor over the buffered bytes, at the buffer's offset, limits, depth and interner.
    #[inline]
    fn cursor(&mut self) -> Cursor<'_> {
        Cursor::with_depth(
            &self.buf[self.start..self.end],
            self.offset,
            &self.limits,
            self.depth,
        )
        .with_interner(&mut self.interner)
    }

    /// Fast path over a run of values: calls `f` again and again on one [`Cursor`] over the
    /// buffered bytes. The bytes of each call that returns `Ok(true)` are consumed; `Ok(false)`
    /// consumes what that call read and stops. [`FastError::NeedMore`] and errors stop too,
    /// consuming nothing of the failed call (the bytes of the calls before it stay consumed),
    /// with `NeedMore` counted from the first unconsumed byte.
    ///
    /// One cursor for the whole run: a sink such as a response reader pays the per-call setup
    /// of [`ReadBuffer::try_read_with`] once per refill instead of once per value.
    pub fn try_read_each(
        &mut self,
        mut f: impl FnMut(&mut Cursor<'_>) -> FastResult<bool>,
    ) -> FastResult<()> {
        let mut cur = self.cursor();
        let mut done = 0;
        let r = loop {
            match f(&mut cur) {
                Ok(true) => done = cur.position(),
                Ok(false) => {
                    done = cur.position();
                    break Ok(());
                }
                Err(FastError::NeedMore(n)) => {
                    break Err(FastError::NeedMore(n.saturating_sub(done)))
                }
                Err(e) => break Err(e),
            }
        };
        self.consume(done);
        r
    }

    /// Fast path: runs `f` over a [`Cursor`] on the buffered bytes, consuming what it read only
    /// on success. On [`FastError::NeedMore`] or an error nothing is consumed.
    #[inline]
    pub fn try_read_with<T>(
        &mut self,
        f: impl FnOnce(&mut Cursor<'_>) -> FastResult<T>,
    ) -> FastResult<T> {
        let mut cur = self.cursor();
        let v = f(&mut cur)?;
        let n = cur.position();
        self.consume(n);
        Ok(v)
    }
}

/// The cancel-safe readers of a big-endian fixed-width number: name, type, and what an error
/// calls the value.
macro_rules! big_endian_readers {
    ($($(#[$doc:meta])* $name:ident -> $t:ty, $what:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// # Cancel safety
        /// Cancel safe.
        pub async fn $name(&mut self) -> Result<$t, DecodeError> {
            Ok(<$t>::from_be_bytes(self.read_array($what).await?))
        }
    )*};
}

impl<R: AsyncRead + Unpin> ReadBuffer<R> {
    /// Reads once from the underlying reader into free space, returning how many bytes
    /// arrived: 0 at end of stream, and also when the buffer is already full (check
    /// [`ReadBuffer::buffered`] or use [`ReadBuffer::is_at_end`] to tell them apart). A reader
    /// failure met earlier while reading ahead of a complete value is reported here first.
    ///
    /// # Cancel safety
    /// Cancel safe: bytes are appended to the buffer only when the read completes, and
    /// moving buffered bytes to the front of the storage loses none.
    pub async fn fill(&mut self) -> Result<usize, DecodeError> {
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
        if self.eof {
            return Ok(0);
        }
        if self.start > 0 && (self.end == self.buf.len() || self.start >= self.buf.len() / 2) {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            return Ok(0);
        }
        let n = self
            .inner
            .read(&mut self.buf[self.end..])
            .await
            .map_err(|e| {
                DecodeError::new(
                    self.offset + (self.end - self.start) as u64,
                    ErrorKind::Io(e),
                )
            })?;
        if n == 0 {
            self.eof = true;
        }
        self.end += n;
        self.check_response_limit()?;
        Ok(n)
    }

    fn check_response_limit(&self) -> Result<(), DecodeError> {
        if let Some(limit) = self.limits.max_response_size {
            let seen = self.offset + (self.end - self.start) as u64;
            if seen > limit {
                return Err(DecodeError::new(limit, ErrorKind::ResponseLimit { limit }));
            }
        }
        Ok(())
    }

    /// Refills until at least `n` bytes are buffered. `expected` names what is being read for
    /// the end-of-stream error.
    ///
    /// A request above the capacity grows the buffer only up to [`MAX_PRIMITIVE_WIDTH`];
    /// larger requests are clamped to the capacity and fail with an `Invalid` error, since only
    /// slow paths that stream (see [`ReadBuffer::read_bytes_into`]) may read past the capacity.
    ///
    /// # Cancel safety
    /// Cancel safe: no byte is consumed; what arrived stays buffered.
    pub async fn fill_to(&mut self, n: usize, expected: &'static str) -> Result<(), DecodeError> {
        self.fill_between(n, n, expected).await
    }

    /// Refills until at least `min` bytes are buffered, then keeps reading towards `want` only
    /// while the reader has bytes ready: it never waits for bytes beyond `min`, which the value
    /// may not need (on a live stream they may not come until the peer has more to send). End
    /// of stream with fewer than `min` is [`ErrorKind::UnexpectedEof`]. A reader failure while
    /// reading ahead is kept for the next [`ReadBuffer::fill`], so a complete value is not lost.
    ///
    /// # Cancel safety
    /// Cancel safe, as [`ReadBuffer::fill_to`].
    async fn fill_between(
        &mut self,
        min: usize,
        want: usize,
        expected: &'static str,
    ) -> Result<(), DecodeError> {
        if min > self.buf.len() {
            if min <= MAX_PRIMITIVE_WIDTH {
                let mut bigger = vec![0u8; MAX_PRIMITIVE_WIDTH].into_boxed_slice();
                let len = self.end - self.start;
                bigger[..len].copy_from_slice(&self.buf[self.start..self.end]);
                self.buf = bigger;
                self.start = 0;
                self.end = len;
            } else {
                return Err(self.error(ErrorKind::Invalid {
                    what: expected,
                    detail: format!(
                        "needs {min} contiguous bytes but the buffer holds {}",
                        self.buf.len()
                    ),
                }));
            }
        }
        let want = want.clamp(min, self.buf.len());
        while self.end - self.start < min {
            if self.fill().await? == 0 {
                return Err(DecodeError::new(
                    self.offset + (self.end - self.start) as u64,
                    ErrorKind::UnexpectedEof { expected },
                ));
            }
        }
        while self.end - self.start < want {
            match self.fill_ready().await {
                Ok(Some(n)) if n > 0 => {}
                Ok(_) => break,
                // The bytes needed are here: the failure belongs to a later read.
                Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => {
                    self.deferred = Some(e);
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Refills until at least `min` bytes are buffered, then goes on reading while the reader
    /// has bytes ready, up to the capacity: it never waits for more than `min`. For refilling
    /// after [`FastError::NeedMore`]`(min)`, so that the values after the incomplete one are
    /// buffered too. `min` above the capacity is an error as for [`ReadBuffer::fill_to`].
    ///
    /// # Cancel safety
    /// Cancel safe, as [`ReadBuffer::fill_to`].
    pub async fn fill_ahead(
        &mut self,
        min: usize,
        expected: &'static str,
    ) -> Result<(), DecodeError> {
        self.fill_between(min, self.buf.len(), expected).await
    }

    /// One [`ReadBuffer::fill`] if the reader has bytes ready now; `None` if it would wait.
    ///
    /// # Cancel safety
    /// Cancel safe, as [`ReadBuffer::fill`].
    async fn fill_ready(&mut self) -> Result<Option<usize>, DecodeError> {
        std::future::poll_fn(|cx| {
            let fill = std::pin::pin!(self.fill());
            match fill.poll(cx) {
                Poll::Ready(r) => Poll::Ready(r.map(Some)),
                // Dropping a pending `fill` is cancel safe; a wakeup it registered is harmless.
                Poll::Pending => Poll::Ready(Ok(None)),
            }
        })
        .await
    }

    /// Whether the stream has ended with no byte left unconsumed (refilling if needed).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn is_at_end(&mut self) -> Result<bool, DecodeError> {
        if self.end > self.start {
            return Ok(false);
        }
        Ok(self.fill().await? == 0)
    }

    /// Reads one whole `T`: on the fast path from the buffered bytes, refilling and retrying
    /// while it is incomplete; a value that needs more bytes than the buffer can hold is read
    /// by `T`'s field-by-field slow path instead.
    ///
    /// Each refill waits for what the failed attempt needed and reads ahead, without waiting,
    /// whatever the reader has ready ([`ReadBuffer::fill_ahead`]), so a value is returned as
    /// soon as its last byte has arrived and the values after it are likely buffered.
    ///
    /// # Cancel safety
    /// Cancel safe while the value fits in the buffer (nothing is consumed until it is
    /// decoded). Once the slow path has started on a value larger than the buffer, dropping the
    /// future loses the part of that value already consumed; the buffer is then positioned
    /// mid-value and the stream should be abandoned.
    pub async fn read<T: Decode>(&mut self) -> Result<T, DecodeError>
    where
        R: Send,
    {
        if !self.fast_path {
            return T::decode_slow(self).await;
        }
        loop {
            match self.try_decode::<T>() {
                Ok(v) => return Ok(v),
                Err(FastError::Invalid(e)) => return Err(e),
                Err(FastError::NeedMore(n)) => {
                    let avail = self.end - self.start;
                    let n = n.max(avail + 1);
                    if n > self.buf.len() {
                        return T::decode_slow(self).await;
                    }
                    self.fill_ahead(n, T::EXPECTED).await?;
                }
            }
        }
    }

    /// Reads a small value with the fast-path function `f`, refilling until it is complete.
    /// For headers and other values of at most [`MAX_PRIMITIVE_WIDTH`] bytes or the capacity,
    /// whichever is larger; a longer value is an `Invalid` error naming `expected`.
    ///
    /// # Cancel safety
    /// Cancel safe: nothing is consumed until `f` succeeds.
    pub async fn read_with<T>(
        &mut self,
        f: impl Fn(&mut Cursor<'_>) -> FastResult<T>,
        expected: &'static str,
    ) -> Result<T, DecodeError> {
        loop {
            match self.try_read_with(&f) {
                Ok(v) => return Ok(v),
                Err(FastError::Invalid(e)) => return Err(e),
                Err(FastError::NeedMore(n)) => {
                    let n = n.max(self.end - self.start + 1);
                    self.fill_to(n, expected).await?;
                }
            }
        }
    }

    /// Reads exactly `N` bytes.
    ///
    /// # Cancel safety
    /// Cancel safe for `N <= MAX_PRIMITIVE_WIDTH` (every primitive): nothing is consumed until
    /// all `N` bytes are buffered.
    #[inline]
    pub async fn read_array<const N: usize>(
        &mut self,
        expected: &'static str,
    ) -> Result<[u8; N], DecodeError> {
        if self.end - self.start < N {
            self.fill_to(N, expected).await?;
        }
        let mut a = [0u8; N];
        a.copy_from_slice(&self.buf[self.start..self.start + N]);
        self.consume(N);
        Ok(a)
    }

    /// Reads an unsigned byte.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn read_u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.read_array::<1>("1-byte value").await?[0])
    }

    big_endian_readers! {
        /// Reads a signed byte.
        read_i8 -> i8, "Byte";
        /// Reads a big-endian Short.
        read_i16 -> i16, "2-byte Short";
        /// Reads a big-endian Int.
        read_i32 -> i32, "4-byte Int";
        /// Reads a big-endian Long.
        read_i64 -> i64, "8-byte Long";
        /// Reads a big-endian Float.
        read_f32 -> f32, "4-byte Float";
        /// Reads a big-endian Double.
        read_f64 -> f64, "8-byte Double";
    }

    /// Reads a Boolean byte (0x00 or 0x01).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn read_bool(&mut self) -> Result<bool, DecodeError> {
        let at = self.offset;
        match self.read_array::<1>("1-byte Boolean").await?[0] {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(DecodeError::new(at, invalid_bool(b))),
        }
    }

    /// Reads a 16-byte UUID.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn read_uuid(&mut self) -> Result<uuid::Uuid, DecodeError> {
        Ok(uuid::Uuid::from_bytes(
            self.read_array("16-byte UUID").await?,
        ))
    }

    /// Reads a UTF-8 Char (1 to 4 bytes).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn read_char(&mut self) -> Result<char, DecodeError> {
        let at = self.offset;
        self.fill_to(1, "Char").await?;
        let width = utf8_width(self.buf[self.start])
            .ok_or_else(|| DecodeError::new(at, ErrorKind::InvalidUtf8 { what: "Char" }))?;
        self.fill_to(width, "Char").await?;
        let c = decode_char(&self.buf[self.start..self.start + width])
            .ok_or_else(|| DecodeError::new(at, ErrorKind::InvalidUtf8 { what: "Char" }))?;
        self.consume(width);
        Ok(c)
    }

    /// Reads a 4-byte length for `what`, rejecting negative lengths and lengths above `limit`
    /// before anything is allocated.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn read_len(
        &mut self,
        what: &'static str,
        limit: usize,
    ) -> Result<usize, DecodeError> {
        let at = self.offset;
        let n = self.read_i32().await?;
        check_len(what, n, limit)
            .and_then(|n| check_room(what, n, self.offset, &self.limits))
            .map_err(|k| DecodeError::new(at, k))
    }

    /// Reads a collection count checked against [`Limits::max_collection_len`].
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn read_count(&mut self, what: &'static str) -> Result<usize, DecodeError> {
        self.read_len(what, self.limits.max_collection_len).await
    }

    /// The slow path of [`Cursor::read_counted`](crate::Cursor::read_counted): a collection
    /// count, then that many items, each read as `W` ([`ReadBuffer::read`]) and turned into
    /// a `T` by `unwrap`. The vector grows with what arrives, never to the claimed count up
    /// front.
    ///
    /// # Cancel safety
    /// Not cancel safe: the items already read are consumed.
    pub async fn read_counted<W: Decode, T: Send>(
        &mut self,
        what: &'static str,
        unwrap: impl Fn(W) -> T + Send,
    ) -> Result<Vec<T>, DecodeError>
    where
        R: Send,
    {
        let n = self.read_count(what).await?;
        let mut v = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            v.push(unwrap(self.read::<W>().await?));
        }
        Ok(v)
    }

    /// Reads exactly `n` bytes, appending them to `dst`, streaming: bytes already buffered are
    /// copied, then the rest is read from the underlying reader straight into `dst` (never
    /// through the buffer), tolerating short reads. `dst` grows as bytes arrive, never to a
    /// claimed length ahead of them.
    ///
    /// # Cancel safety
    /// Not cancel safe: bytes moved into `dst` before the future is dropped are consumed.
    pub async fn read_bytes_into(
        &mut self,
        n: usize,
        dst: &mut Vec<u8>,
        expected: &'static str,
    ) -> Result<(), DecodeError> {
        let mut left = n;
        let take = left.min(self.end - self.start);
        dst.extend_from_slice(&self.buf[self.start..self.start + take]);
        self.consume(take);
        left -= take;
        // Small remainders go through the buffer (one large read), large ones bypass it.
        while left > 0 {
            if left < self.buf.len() {
                self.fill_between(1, left, expected).await?;
                let take = left.min(self.end - self.start);
                dst.extend_from_slice(&self.buf[self.start..self.start + take]);
                self.consume(take);
                left -= take;
                continue;
            }
            // A failure deferred by a read-ahead comes first (it is where the stream broke).
            if let Some(e) = self.deferred.take() {
                return Err(e);
            }
            // When full, grow geometrically with what has arrived, bounded by what is still
            // owed: the last step ends exactly at `n` (no slack, no doubling past the value).
            if dst.capacity() == dst.len() {
                let step = left.min(dst.len().max(self.buf.len()));
                dst.reserve_exact(step);
            }
            let spare = (dst.capacity() - dst.len()).min(left);
            let got = {
                let mut limited = (&mut self.inner).take(spare as u64);
                limited
                    .read_buf(dst)
                    .await
                    .map_err(|e| DecodeError::new(self.offset, ErrorKind::Io(e)))?
            };
            if got == 0 {
                self.eof = true;
                return Err(DecodeError::new(
                    self.offset,
                    ErrorKind::UnexpectedEof { expected },
                ));
            }
            self.offset += got as u64;
            left -= got;
            self.check_response_limit()?;
        }
        Ok(())
    }

    /// Steps over exactly `n` bytes without keeping them: what is buffered is consumed, then
    /// the rest is read through the buffer and consumed as it arrives. The buffer never
    /// grows and nothing is allocated, whatever `n` is; end of stream first is
    /// [`ErrorKind::UnexpectedEof`] naming `expected` at the offset where the input ended.
    ///
    /// ```
    /// use graphbinary_core::ReadBuffer;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let bytes = vec![7u8; 100];
    /// let mut buf = ReadBuffer::with_capacity(16, &bytes[..]);
    /// buf.skip_bytes(99, "Binary").await.unwrap();
    /// assert_eq!(buf.offset(), 99);
    /// let e = buf.skip_bytes(2, "Binary").await.unwrap_err();
    /// assert_eq!(e.offset(), 100);
    /// assert_eq!(buf.capacity(), 16);
    /// # });
    /// ```
    ///
    /// # Cancel safety
    /// Not cancel safe: the bytes stepped over before the future is dropped are consumed.
    pub async fn skip_bytes(
        &mut self,
        n: usize,
        expected: &'static str,
    ) -> Result<(), DecodeError> {
        let mut left = n;
        loop {
            let take = left.min(self.end - self.start);
            self.consume(take);
            left -= take;
            if left == 0 {
                return Ok(());
            }
            self.fill_between(1, left, expected).await?;
        }
    }

    /// Steps over a length-prefixed payload (Binary, BigInteger) as [`ReadBuffer::skip_bytes`]
    /// does, its length checked as [`ReadBuffer::read_len_prefixed`] checks it.
    ///
    /// # Cancel safety
    /// Not cancel safe once the payload has started to be consumed.
    pub async fn skip_len_prefixed(&mut self, what: &'static str) -> Result<(), DecodeError> {
        let n = self.read_len(what, self.limits.max_bytes_len).await?;
        self.skip_bytes(n, what).await
    }

    /// Steps over a length-prefixed UTF-8 String without keeping it, checking its UTF-8 as
    /// the bytes arrive (a char split across reads is checked whole): the same errors at the
    /// same offsets as [`ReadBuffer::read_string`] (invalid UTF-8 at the length's offset),
    /// with no allocation and no growth of the buffer.
    ///
    /// ```
    /// use graphbinary_core::{ErrorKind, ReadBuffer};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let mut bytes = vec![0, 0, 0, 6];
    /// bytes.extend_from_slice("a€é".as_bytes());
    /// bytes.extend_from_slice(&[0, 0, 0, 2, 0xc3, 0x28]);
    /// let mut buf = ReadBuffer::with_capacity(4, &bytes[..]);
    /// buf.skip_string().await.unwrap();
    /// assert_eq!(buf.offset(), 10);
    /// let e = buf.skip_string().await.unwrap_err();
    /// assert!(matches!(e.kind(), ErrorKind::InvalidUtf8 { .. }));
    /// assert_eq!(e.offset(), 10);
    /// # });
    /// ```
    ///
    /// # Cancel safety
    /// Not cancel safe once the payload has started to be consumed.
    pub async fn skip_string(&mut self) -> Result<(), DecodeError> {
        let at = self.offset;
        let n = self.read_len("String", self.limits.max_bytes_len).await?;
        let mut left = n;
        loop {
            let avail = left.min(self.end - self.start);
            let checked = match std::str::from_utf8(&self.buf[self.start..self.start + avail]) {
                Ok(_) => avail,
                // A char cut by the end of what is buffered: checked once its rest arrives.
                Err(e) if e.error_len().is_none() && avail < left => e.valid_up_to(),
                Err(_) => {
                    // As `read_string`, which checks once the whole payload is read: a
                    // payload cut short is reported as such, not as bad UTF-8.
                    self.skip_bytes(left, "String").await?;
                    return Err(DecodeError::new(
                        at,
                        ErrorKind::InvalidUtf8 { what: "String" },
                    ));
                }
            };
            self.consume(checked);
            left -= checked;
            if left == 0 {
                return Ok(());
            }
            // At most 3 bytes of a char are kept; wait for at least one more.
            let kept = avail - checked;
            self.fill_between(kept + 1, left, "String").await?;
        }
    }

    /// Reads a length-prefixed byte payload (String, Binary, BigInteger), checked against
    /// [`Limits::max_bytes_len`] before anything is allocated.
    ///
    /// # Cancel safety
    /// Not cancel safe once the payload has started to arrive (see
    /// [`ReadBuffer::read_bytes_into`]).
    pub async fn read_len_prefixed(&mut self, what: &'static str) -> Result<Vec<u8>, DecodeError> {
        let n = self.read_len(what, self.limits.max_bytes_len).await?;
        let mut v = Vec::with_capacity(n.min(self.buf.len()));
        self.read_bytes_into(n, &mut v, what).await?;
        Ok(v)
    }

    /// Reads a length-prefixed UTF-8 String.
    ///
    /// # Cancel safety
    /// Not cancel safe once the payload has started to arrive.
    pub async fn read_string(&mut self) -> Result<String, DecodeError> {
        let start = self.offset;
        let v = self.read_len_prefixed("String").await?;
        String::from_utf8(v)
            .map_err(|_| DecodeError::new(start, ErrorKind::InvalidUtf8 { what: "String" }))
    }

    /// Reads a length-prefixed UTF-8 String as a shared `Arc<str>` through this buffer's
    /// interner.
    ///
    /// # Cancel safety
    /// Not cancel safe once the payload has started to arrive.
    pub async fn read_interned_string(&mut self) -> Result<Arc<str>, DecodeError> {
        let start = self.offset;
        let v = self.read_len_prefixed("String").await?;
        let s = std::str::from_utf8(&v)
            .map_err(|_| DecodeError::new(start, ErrorKind::InvalidUtf8 { what: "String" }))?;
        Ok(self.interner.intern(s))
    }

    /// Reads a value flag: `true` for a value (0x00), `false` for null (0x01).
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn read_nullable_flag(&mut self, what: &'static str) -> Result<bool, DecodeError> {
        let at = self.offset;
        match self.read_u8().await? {
            0x00 => Ok(true),
            0x01 => Ok(false),
            flag => Err(DecodeError::new(
                at,
                ErrorKind::InvalidValueFlag { what, flag },
            )),
        }
    }

    /// Reads a type code and requires it to equal `expected`.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn expect_type_code(
        &mut self,
        expected: u8,
        what: &'static str,
    ) -> Result<(), DecodeError> {
        let at = self.offset;
        let found = self.read_u8().await?;
        crate::cursor::check_type_code(at, found, expected, what)
    }
}
