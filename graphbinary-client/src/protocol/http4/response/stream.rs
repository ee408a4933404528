//! The response state machine: a [`ResponseStream`] reads the header, then results until the
//! end-of-results marker, then the footer, decoding buffered results on the fast path and
//! stepping through the rest on the slow path.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use graphbinary_core::{
    Cursor, Decode, DecodeError, ErrorKind, FastError, FastResult, Fq, Nullable, ReadBuffer,
};
use tokio::io::AsyncRead;

use super::{ResponseError, ServerError, Status, Traverser, STATUS_OK, VERSION};
use crate::value::codes;
use crate::value::Value;

type StepFuture<R> =
    Pin<Box<dyn Future<Output = (ReadBuffer<R>, Result<Step, DecodeError>)> + Send>>;

/// Who holds the read buffer.
///
/// | from   | event                                   | to     |
/// |--------|-----------------------------------------|--------|
/// | `Idle` | a fast-path read succeeds or needs more | `Idle` |
/// | `Idle` | a slow step starts (moves the buffer)   | `Busy` |
/// | `Busy` | the step returns a [`Step`]             | `Idle` |
/// | `Busy` | the step fails                          | `Done` |
/// | any    | a status is read, or an error is yielded | `Done` |
enum State<R> {
    Idle(ReadBuffer<R>),
    Busy(StepFuture<R>),
    Done,
}

/// Where the stream is in the response, independently of who holds the buffer.
///
/// | from                  | step read     | to                    |
/// |-----------------------|---------------|-----------------------|
/// | `Header`              | `Header(b)`   | `Results { bulked: b }` |
/// | `Results { bulked }`  | `Item(t)`     | `Results { bulked }` (yields `t`) |
/// | `Results { bulked }`  | `Marker`      | `Footer { bulked }`   |
/// | `Footer { .. }`       | `Status(s)`   | unchanged; the state becomes `Done` |
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Header,
    Results { bulked: bool },
    Footer { bulked: bool },
}

impl Phase {
    fn bulked(self) -> Option<bool> {
        match self {
            Phase::Header => None,
            Phase::Results { bulked } | Phase::Footer { bulked } => Some(bulked),
        }
    }
}

enum Step {
    Header(bool),
    Item(Traverser),
    /// A result stepped over (the skip route's slow step), with its bulk.
    Skipped(i64),
    Marker,
    Status(Status),
}

/// A stream of the results of one response; see [`read_response`](super::read_response).
pub struct ResponseStream<R> {
    state: State<R>,
    phase: Phase,
    status: Option<Status>,
    /// The offset where the result last yielded by [`ResponseStream::poll_step`] started.
    item_start: u64,
}

impl<R> fmt::Debug for ResponseStream<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseStream")
            .field("bulked", &self.phase.bulked())
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl<R> ResponseStream<R> {
    pub(super) fn new(buf: ReadBuffer<R>) -> Self {
        ResponseStream {
            state: State::Idle(buf),
            phase: Phase::Header,
            status: None,
            item_start: 0,
        }
    }

    /// Whether the results carry bulks; `None` until the header has been read.
    pub fn bulked(&self) -> Option<bool> {
        self.phase.bulked()
    }

    /// The final status; `None` until the stream has read it.
    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    /// For readers of other shapes (`crate::protocol::http4::results_as`): the buffer and whether results are
    /// bulked, when the next result can be read in place on the fast path.
    pub(crate) fn fast_parts(&mut self) -> Option<(&mut ReadBuffer<R>, bool)> {
        match (&mut self.state, self.phase) {
            (State::Idle(buf), Phase::Results { bulked }) if buf.fast_path() => Some((buf, bulked)),
            _ => None,
        }
    }

    /// Where the result the stream yielded last started (for readers of other shapes, which
    /// name it in their errors).
    pub(crate) fn item_start(&self) -> u64 {
        self.item_start
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
    crate::value::decode_marker_value(cur)
}

/// What a step of [`ResponseStream::poll_step`] yields: a result, or (when skipping) the bulk
/// of a result stepped over without building it.
pub(crate) enum Out {
    Item(Traverser),
    Skipped(i64),
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
    skip: bool,
) -> Result<Step, DecodeError> {
    match phase {
        Phase::Header => buf
            .read_with(read_header, "response version and bulked flag")
            .await
            .map(Step::Header),
        Phase::Results { bulked } => {
            buf.fill_to(1, "a result or the end-of-results marker")
                .await?;
            if buf.buffered()[0] == codes::MARKER {
                buf.read_with(read_marker, "Marker").await?;
                return Ok(Step::Marker);
            }
            if skip {
                crate::format::graphbinary4::skip_value_slow(buf).await?;
                let bulk = if bulked {
                    buf.read::<Fq<i64>>().await?.0
                } else {
                    1
                };
                return Ok(Step::Skipped(bulk));
            }
            let value = read_value(buf).await?;
            let bulk = if bulked {
                buf.read::<Fq<i64>>().await?.0
            } else {
                1
            };
            Ok(Step::Item(Traverser { value, bulk }))
        }
        Phase::Footer { .. } => {
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

/// Reads one fully-qualified [`Value`] from `buf`: the public way to decode a single value
/// (not a whole response) from any reader, as `graphbinary decode --value` does. When the
/// input ends inside the value, the error names the exact field that was cut short (e.g.
/// "expected 4-byte Int"), not just the value.
///
/// ```
/// use graphbinary_client::value::Value;
/// use graphbinary_client::response::read_value;
/// use graphbinary_core::ReadBuffer;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut buf = ReadBuffer::new(&[0x01, 0x00, 0x00, 0x00, 0x00, 0x2a][..]);
/// assert_eq!(read_value(&mut buf).await.unwrap(), Value::Int(42));
/// # });
/// ```
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
        let Phase::Results { bulked } = self.phase else {
            return Ok(None);
        };
        if !buf.fast_path() {
            return Ok(None);
        }
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
    fn apply(&mut self, step: Step) -> Option<Poll<Option<Result<Out, ResponseError>>>> {
        match step {
            Step::Header(bulked) => {
                self.phase = Phase::Results { bulked };
                None
            }
            Step::Item(t) => Some(Poll::Ready(Some(Ok(Out::Item(t))))),
            Step::Skipped(bulk) => Some(Poll::Ready(Some(Ok(Out::Skipped(bulk))))),
            Step::Marker => {
                if let Phase::Results { bulked } = self.phase {
                    self.phase = Phase::Footer { bulked };
                }
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
                        ServerError::from_status(s, None),
                    ))))))
                }
            }
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> ResponseStream<R> {
    /// The next result for the skip route (`crate::protocol::http4::results_as`): stepped over without building it
    /// on the fast path and, for a value larger than the buffer, by the skip slow path. A
    /// result whose slow step a plain read had started comes as [`Out::Item`].
    ///
    /// # Cancel safety
    /// As [`futures::StreamExt::next`]: the slow step lives in the stream.
    pub(crate) async fn next_skipped(&mut self) -> Option<Result<Out, ResponseError>> {
        std::future::poll_fn(|cx| self.poll_step(cx, true)).await
    }

    /// One step of the stream; `skip` steps over results instead of building them.
    #[inline]
    fn poll_step(
        &mut self,
        cx: &mut Context<'_>,
        skip: bool,
    ) -> Poll<Option<Result<Out, ResponseError>>> {
        let this = self;
        'step: loop {
            // Fast path: decode the next result from the buffered bytes in place, without
            // moving the buffer.
            'fast: {
                let State::Idle(buf) = &mut this.state else {
                    break 'fast;
                };
                let Phase::Results { bulked } = this.phase else {
                    break 'fast;
                };
                if !buf.fast_path() {
                    break 'fast;
                }
                let invalid = if buf.buffered().first() == Some(&codes::MARKER) {
                    match buf.try_read_with(read_marker) {
                        Ok(()) => {
                            // Results -> Footer
                            this.phase = Phase::Footer { bulked };
                            continue 'step;
                        }
                        Err(FastError::Invalid(e)) => e,
                        Err(FastError::NeedMore(_)) => break 'fast,
                    }
                } else if skip {
                    this.item_start = buf.offset();
                    let r = buf.try_read_with(|c| {
                        crate::format::graphbinary4::skip_value(c)?;
                        Ok(if bulked { Fq::<i64>::decode(c)?.0 } else { 1 })
                    });
                    match r {
                        Ok(bulk) => return Poll::Ready(Some(Ok(Out::Skipped(bulk)))),
                        Err(FastError::Invalid(e)) => e,
                        Err(FastError::NeedMore(_)) => break 'fast,
                    }
                } else {
                    this.item_start = buf.offset();
                    match buf.try_read_with(|c| read_traverser(c, bulked)) {
                        Ok(t) => return Poll::Ready(Some(Ok(Out::Item(t)))),
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
                    let phase = this.phase;
                    // A result's step starts at the result (a header's step is followed by
                    // a step of its own for the first result).
                    this.item_start = buf.offset();
                    // Idle -> Busy
                    this.state = State::Busy(Box::pin(async move {
                        let r = step_slow(&mut buf, phase, skip).await;
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

impl<R: AsyncRead + Unpin + Send + 'static> Stream for ResponseStream<R> {
    type Item = Result<Traverser, ResponseError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.poll_step(cx, false) {
            Poll::Ready(Some(Ok(Out::Item(t)))) => Poll::Ready(Some(Ok(t))),
            // A count cancelled while it stepped over a large result, then read on as a
            // stream: that result is gone, which must not pass for the next one.
            Poll::Ready(Some(Ok(Out::Skipped(_)))) => {
                let at = self.idle_offset().unwrap_or(0);
                self.state = State::Done;
                Poll::Ready(Some(Err(ResponseError::Decode(DecodeError::new(
                    at,
                    ErrorKind::Invalid {
                        what: "result",
                        detail:
                            "stepped over by a count that was cancelled; not readable as a value"
                                .into(),
                    },
                )))))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
