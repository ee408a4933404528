//! The streaming response deserializer.
//!
//! A GraphBinary 4 response is
//! `{version}{bulked}{result_data}{marker}{status_code}{status_message}{exception}`.
//! [`read_response`] turns any [`AsyncRead`] over such a body into a [`ResponseStream`], a
//! [`futures::Stream`] that yields each result as soon as it is decoded and never holds the
//! whole response. Results that are already buffered are decoded synchronously (the fast
//! path, no allocation beyond the value itself); the async slow path refills.
//!
//! # Example
//!
//! ```
//! use futures::StreamExt;
//! use graphbinary_client::model::Value;
//! use graphbinary_client::response::{read_response, ReadOptions};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let body: &'static [u8] = &[
//!     0x84, 0x00,                         // version, not bulked
//!     0x01, 0x00, 0x00, 0x00, 0x00, 0x2a, // Int 42
//!     0xfd, 0x00, 0x00,                   // marker
//!     0x00, 0x00, 0x00, 0xc8, 0x01, 0x01, // status 200, no message, no exception
//! ];
//! let mut results = read_response(body, ReadOptions::default());
//! let first = results.next().await.unwrap().unwrap();
//! assert_eq!(first.value, Value::Int(42));
//! assert!(results.next().await.is_none());
//! assert_eq!(results.status().unwrap().code, 200);
//! # });
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use graphbinary_core::{
    Cursor, Decode, DecodeError, ErrorKind, FastError, FastResult, Fq, Limits, Nullable,
    ReadBuffer, DEFAULT_CAPACITY,
};
use tokio::io::{AsyncRead, ReadBuf};

use crate::model::codes;
use crate::model::Value;

/// The response version this deserializer reads.
pub const VERSION: u8 = 0x84;

/// The status code of a successful response.
pub const STATUS_OK: i32 = 200;

/// How a response is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Limits checked while decoding.
    pub limits: Limits,
    /// The read buffer's capacity in bytes. Values larger than this are read by the slow path.
    pub capacity: usize,
    /// Whether buffered values are decoded on the synchronous fast path (the default).
    pub fast_path: bool,
}

/// The default nesting limit of [`ReadOptions`]: the slow path uses a few KiB of stack per
/// nesting level (optimized build), so 128 levels stay well inside a 2 MiB thread stack.
pub const DEFAULT_MAX_DEPTH: u32 = 128;

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            limits: Limits {
                max_depth: DEFAULT_MAX_DEPTH,
                ..Limits::DEFAULT
            },
            capacity: DEFAULT_CAPACITY,
            fast_path: true,
        }
    }
}

/// One result: a value and its bulk (how many times it stands in the result; 1 when the
/// response is not bulked). In a bulked response each value is followed by its bulk as a
/// fully-qualified Long, as Gremlin Server writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traverser {
    /// The value.
    pub value: Value,
    /// The bulk.
    pub bulk: i64,
}

/// The status that ends a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The status code (200 for success).
    pub code: i32,
    /// The status message.
    pub message: Option<String>,
    /// The exception, when the server failed.
    pub exception: Option<String>,
}

/// The server reported a status other than 200.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ServerError {
    /// The status code.
    pub code: i32,
    /// The status message.
    pub message: Option<String>,
    /// The exception.
    pub exception: Option<String>,
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "server returned status {}", self.code)?;
        if let Some(m) = &self.message {
            write!(f, ": {m}")?;
        }
        if let Some(e) = &self.exception {
            write!(f, " (exception: {e})")?;
        }
        Ok(())
    }
}

/// Why a response stream failed.
#[derive(Debug, thiserror::Error)]
pub enum ResponseError {
    /// The bytes are not a valid GraphBinary 4 response (or the reader failed).
    #[error("malformed response: {0}")]
    Decode(#[from] DecodeError),
    /// The server's status was not 200. Results before it were yielded.
    #[error(transparent)]
    Server(Box<ServerError>),
}

impl ResponseError {
    /// The byte offset of a format error.
    pub fn offset(&self) -> Option<u64> {
        match self {
            ResponseError::Decode(e) => Some(e.offset()),
            ResponseError::Server(_) => None,
        }
    }
}

/// Reads a GraphBinary 4 response from `reader` as a stream of results.
///
/// The stream yields each [`Traverser`] as soon as it is decoded. After the last result it
/// reads the status: on 200 the stream ends; otherwise it yields one
/// [`ResponseError::Server`] and ends. A malformed or truncated response yields one
/// [`ResponseError::Decode`] naming the byte offset and ends.
pub fn read_response<R: AsyncRead + Unpin + Send + 'static>(
    reader: R,
    opts: ReadOptions,
) -> ResponseStream<R> {
    let buf = ReadBuffer::with_capacity(opts.capacity, reader)
        .with_limits(opts.limits)
        .with_fast_path(opts.fast_path);
    ResponseStream {
        state: State::Idle(buf),
        phase: Phase::Header,
        bulked: None,
        status: None,
    }
}

type StepFuture<R> =
    Pin<Box<dyn Future<Output = (ReadBuffer<R>, Result<Step, DecodeError>)> + Send>>;

enum State<R> {
    Idle(ReadBuffer<R>),
    Busy(StepFuture<R>),
    Done,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Header,
    Results,
    Footer,
}

enum Step {
    Header(bool),
    Item(Traverser),
    Marker,
    Status(Status),
}

/// A stream of the results of one response; see [`read_response`].
pub struct ResponseStream<R> {
    state: State<R>,
    phase: Phase,
    bulked: Option<bool>,
    status: Option<Status>,
}

impl<R> fmt::Debug for ResponseStream<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseStream")
            .field("bulked", &self.bulked)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl<R> ResponseStream<R> {
    /// Whether the results carry bulks; `None` until the header has been read.
    pub fn bulked(&self) -> Option<bool> {
        self.bulked
    }

    /// The final status; `None` until the stream has read it.
    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    /// For readers of other shapes (`crate::drive`): the buffer and whether results are
    /// bulked, when the next result can be read in place on the fast path.
    pub(crate) fn fast_parts(&mut self) -> Option<(&mut ReadBuffer<R>, bool)> {
        match &mut self.state {
            State::Idle(buf) if self.phase == Phase::Results && buf.fast_path() => {
                Some((buf, self.bulked.unwrap_or(false)))
            }
            _ => None,
        }
    }

    /// The offset of the next unread byte, unless a slow step is under way.
    pub(crate) fn idle_offset(&self) -> Option<u64> {
        match &self.state {
            State::Idle(buf) => Some(buf.offset()),
            _ => None,
        }
    }

    /// Ends the stream after an error met by such a reader.
    pub(crate) fn fail(&mut self) {
        self.state = State::Done;
    }
}

fn read_header(cur: &mut Cursor<'_>) -> FastResult<bool> {
    let version = cur.read_u8()?;
    if version != VERSION {
        return Err(cur.error_at(
            0,
            ErrorKind::Invalid {
                what: "response version",
                detail: format!("expected 0x84 (GraphBinary 4), found 0x{version:02x}"),
            },
        ));
    }
    let at = cur.offset();
    match cur.read_u8()? {
        0 => Ok(false),
        1 => Ok(true),
        b => Err(cur.error_at(
            at,
            ErrorKind::Invalid {
                what: "bulked flag",
                detail: format!("expected 0x00 or 0x01, found 0x{b:02x}"),
            },
        )),
    }
}

fn read_marker(cur: &mut Cursor<'_>) -> FastResult<()> {
    cur.expect_type_code(codes::MARKER, "Marker")?;
    let at = cur.offset();
    let flag = cur.read_u8()?;
    if flag != 0 {
        return Err(cur.error_at(
            at,
            ErrorKind::InvalidValueFlag {
                what: "Marker",
                flag,
            },
        ));
    }
    crate::model::decode_marker_value(cur)
}

/// Fast path: one result (value and bulk).
#[inline]
fn read_traverser(cur: &mut Cursor<'_>, bulked: bool) -> FastResult<Traverser> {
    let value = Value::decode(cur)?;
    // Gremlin Server 4.0.0-beta.3 writes each bulk fully qualified: `02 00 {8 bytes}`.
    let bulk = if bulked { Fq::<i64>::decode(cur)?.0 } else { 1 };
    Ok(Traverser { value, bulk })
}

async fn step_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    phase: Phase,
    bulked: bool,
) -> Result<Step, DecodeError> {
    match phase {
        Phase::Header => buf
            .read_with(read_header, "response version and bulked flag")
            .await
            .map(Step::Header),
        Phase::Results => {
            buf.fill_to(1, "a result or the end-of-results marker")
                .await?;
            if buf.buffered()[0] == codes::MARKER {
                buf.read_with(read_marker, "Marker").await?;
                return Ok(Step::Marker);
            }
            let value = read_value(buf).await?;
            let bulk = if bulked {
                buf.read::<Fq<i64>>().await?.0
            } else {
                1
            };
            Ok(Step::Item(Traverser { value, bulk }))
        }
        Phase::Footer => {
            let code = buf.read::<i32>().await?;
            let message = buf.read::<Nullable<String>>().await?.0;
            let exception = buf.read::<Nullable<String>>().await?.0;
            if !buf.is_at_end().await? {
                return Err(buf.error(ErrorKind::Invalid {
                    what: "response",
                    detail: "trailing bytes after the status".into(),
                }));
            }
            Ok(Step::Status(Status {
                code,
                message,
                exception,
            }))
        }
    }
}

/// Reads one fully-qualified value; when the input ends inside it, the error names the exact
/// field that was cut short (e.g. "expected 4-byte Int"), not just the value.
///
/// # Cancel safety
/// As [`ReadBuffer::read`].
pub async fn read_value<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<Value, DecodeError> {
    let start = buf.offset();
    match buf.read::<Value>().await {
        Err(e) if matches!(e.kind(), ErrorKind::UnexpectedEof { .. }) && buf.offset() == start => {
            // Nothing was consumed: the value's bytes are all still buffered. Reading them
            // piece by piece stops at the precise field where the input ends.
            Value::decode_slow(buf).await.and(Err(e))
        }
        r => r,
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> ResponseStream<R> {
    /// Calls `f` with each remaining result, in order, until the response ends: the results
    /// the stream would yield, for less work per result. All results already buffered are
    /// decoded in one synchronous loop; it awaits only to refill.
    ///
    /// Returns `Ok(())` when the status is 200, otherwise the error the stream would yield
    /// (the results before it were passed to `f`). Afterwards [`ResponseStream::status`]
    /// holds the status, as when the stream has ended.
    ///
    /// # Example
    ///
    /// ```
    /// use graphbinary_client::response::{read_response, ReadOptions};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let body: &'static [u8] = &[
    ///     0x84, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x07,
    ///     0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01,
    /// ];
    /// let mut sum = 0;
    /// let mut results = read_response(body, ReadOptions::default());
    /// results
    ///     .for_each_result(|t| sum += t.value.as_i64().unwrap() * t.bulk)
    ///     .await
    ///     .unwrap();
    /// assert_eq!(sum, 49);
    /// # });
    /// ```
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future between results loses none; the stream can go on
    /// where `f` was last called (as [`futures::StreamExt::next`]).
    pub async fn for_each_result(
        &mut self,
        mut f: impl FnMut(Traverser),
    ) -> Result<(), ResponseError> {
        loop {
            if let Some(need) = self.drain_buffered(&mut f)? {
                // Refill in place and go on; the stream's own step (below) handles the rest:
                // a value larger than the buffer, the end of the input, the footer.
                if let State::Idle(buf) = &mut self.state {
                    // At least one byte more than is buffered, so that each turn waits for
                    // progress even if `need` undercounts.
                    let need = need.max(buf.buffered().len() + 1);
                    if need <= buf.capacity() {
                        match buf.fill_ahead(need, "a result").await {
                            Ok(()) => continue,
                            Err(e) if !matches!(e.kind(), ErrorKind::UnexpectedEof { .. }) => {
                                self.state = State::Done;
                                return Err(e.into());
                            }
                            // The stream's step names the field that was cut short.
                            Err(_) => {}
                        }
                    }
                }
            }
            match futures::StreamExt::next(self).await {
                Some(Ok(t)) => f(t),
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            }
        }
    }

    /// Passes every result that is wholly buffered to `f`, stopping before the marker, an
    /// incomplete result (returning how many bytes it needs at least) or an invalid one
    /// (returning the error).
    fn drain_buffered(
        &mut self,
        f: &mut impl FnMut(Traverser),
    ) -> Result<Option<usize>, ResponseError> {
        let State::Idle(buf) = &mut self.state else {
            return Ok(None);
        };
        if self.phase != Phase::Results || !buf.fast_path() {
            return Ok(None);
        }
        let bulked = self.bulked.unwrap_or(false);
        let run = buf.try_read_each(|cur| {
            if cur.peek_u8()? == codes::MARKER {
                return Ok(false);
            }
            f(read_traverser(cur, bulked)?);
            Ok(true)
        });
        match run {
            Ok(()) => Ok(None),
            Err(FastError::NeedMore(n)) => Ok(Some(n)),
            Err(FastError::Invalid(e)) => {
                self.state = State::Done;
                Err(e.into())
            }
        }
    }

    /// Applies one step; returns what to yield, if anything.
    fn apply(&mut self, step: Step) -> Option<Poll<Option<Result<Traverser, ResponseError>>>> {
        match step {
            Step::Header(b) => {
                self.bulked = Some(b);
                self.phase = Phase::Results;
                None
            }
            Step::Item(t) => Some(Poll::Ready(Some(Ok(t)))),
            Step::Marker => {
                self.phase = Phase::Footer;
                None
            }
            Step::Status(s) => {
                let code = s.code;
                self.status = Some(s.clone());
                self.state = State::Done;
                if code == STATUS_OK {
                    Some(Poll::Ready(None))
                } else {
                    Some(Poll::Ready(Some(Err(ResponseError::Server(Box::new(
                        ServerError {
                            code,
                            message: s.message,
                            exception: s.exception,
                        },
                    ))))))
                }
            }
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Stream for ResponseStream<R> {
    type Item = Result<Traverser, ResponseError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        'step: loop {
            // Fast path: decode the next result from the buffered bytes in place, without
            // moving the buffer.
            'fast: {
                let State::Idle(buf) = &mut this.state else {
                    break 'fast;
                };
                if this.phase != Phase::Results || !buf.fast_path() {
                    break 'fast;
                }
                let bulked = this.bulked.unwrap_or(false);
                let invalid = if buf.buffered().first() == Some(&codes::MARKER) {
                    match buf.try_read_with(read_marker) {
                        Ok(()) => {
                            this.phase = Phase::Footer;
                            continue 'step;
                        }
                        Err(FastError::Invalid(e)) => e,
                        Err(FastError::NeedMore(_)) => break 'fast,
                    }
                } else {
                    match buf.try_read_with(|c| read_traverser(c, bulked)) {
                        Ok(t) => return Poll::Ready(Some(Ok(t))),
                        Err(FastError::Invalid(e)) => e,
                        Err(FastError::NeedMore(_)) => break 'fast,
                    }
                };
                this.state = State::Done;
                return Poll::Ready(Some(Err(invalid.into())));
            }
            match std::mem::replace(&mut this.state, State::Done) {
                State::Done => return Poll::Ready(None),
                State::Idle(mut buf) => {
                    let bulked = this.bulked.unwrap_or(false);
                    let phase = this.phase;
                    this.state = State::Busy(Box::pin(async move {
                        let r = step_slow(&mut buf, phase, bulked).await;
                        (buf, r)
                    }));
                }
                State::Busy(mut fut) => match fut.as_mut().poll(cx) {
                    Poll::Pending => {
                        this.state = State::Busy(fut);
                        return Poll::Pending;
                    }
                    Poll::Ready((buf, Ok(step))) => {
                        this.state = State::Idle(buf);
                        if let Some(out) = this.apply(step) {
                            return out;
                        }
                    }
                    Poll::Ready((_, Err(e))) => return Poll::Ready(Some(Err(e.into()))),
                },
            }
        }
    }
}

/// An [`AsyncRead`] adaptor that hands out at most `chunk` bytes per read: for tests, fuzzing
/// and the CLI's `--chunk-size`, to show that decoding does not depend on how bytes arrive.
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
