//! Reading a response's results in shapes other than [`Value`]: the caller's own fast-path
//! reader (serde into a user type, or stepping over values to count them) runs in place on
//! the buffered bytes; a result the stream had to read by its slow path (a value larger than
//! the read buffer, or one straddling a refill in the poll-based form) arrives as a [`Value`]
//! with its offset, for the caller to convert.

#[cfg(feature = "serde")]
#[cfg(all(feature = "serde", feature = "http"))]
use std::task::{Context, Poll};

use futures::StreamExt;
use graphbinary_core::{Cursor, Decode, DecodeError, ErrorKind, FastError, FastResult, Fq};
use tokio::io::AsyncRead;

#[cfg(all(feature = "serde", feature = "http"))]
use crate::protocol::http4::response::Traverser;
use crate::protocol::http4::response::{Out, ResponseError, ResponseStream};
use crate::value::{codes, Value};

/// Calls `f` with each remaining result, read by `fast` (or by the stream and `slow`), and its
/// bulk, until the response ends: [`ResponseStream::for_each_result`] with another reader.
/// With `skipped`, a result larger than the buffer is stepped over by the skip slow path
/// (nothing built, payloads consumed as they arrive) and `skipped()` stands for it.
pub(crate) async fn drive<R, T>(
    s: &mut ResponseStream<R>,
    mut fast: impl FnMut(&mut Cursor<'_>, bool) -> FastResult<T>,
    mut slow: impl FnMut(Value, u64) -> Result<T, DecodeError>,
    skipped: Option<fn() -> T>,
    mut f: impl FnMut(T, i64),
) -> Result<(), ResponseError>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    loop {
        if let Some((buf, bulked)) = s.fast_parts() {
            let run = buf.try_read_each(|cur| {
                if cur.peek_u8()? == codes::MARKER {
                    return Ok(false);
                }
                let v = fast(cur, bulked)?;
                let bulk = if bulked { Fq::<i64>::decode(cur)?.0 } else { 1 };
                f(v, bulk);
                Ok(true)
            });
            match run {
                // The marker: the stream reads it and the footer.
                Ok(()) => {}
                Err(FastError::NeedMore(need)) => {
                    // At least one byte more than is buffered, so each turn makes progress.
                    let need = need.max(buf.buffered().len() + 1);
                    if need <= buf.capacity() {
                        match buf.fill_ahead(need, "a result").await {
                            Ok(()) => continue,
                            Err(e) if !matches!(e.kind(), ErrorKind::UnexpectedEof { .. }) => {
                                s.fail();
                                return Err(e.into());
                            }
                            // The stream's step names the field that was cut short.
                            Err(_) => {}
                        }
                    }
                }
                Err(FastError::Invalid(e)) => {
                    s.fail();
                    return Err(e.into());
                }
            }
        }
        let next = match skipped {
            Some(_) => s.next_skipped().await,
            None => s.next().await.map(|r| r.map(Out::Item)),
        };
        match next {
            Some(Ok(Out::Item(t))) => match slow(t.value, s.item_start()) {
                Ok(v) => f(v, t.bulk),
                Err(e) => {
                    s.fail();
                    return Err(e.into());
                }
            },
            Some(Ok(Out::Skipped(bulk))) => match skipped {
                Some(make) => f(make(), bulk),
                // Only a skipping step steps over a result; never reached.
                None => {
                    s.fail();
                    return Err(DecodeError::new(
                        s.item_start(),
                        ErrorKind::Invalid {
                            what: "result",
                            detail: "stepped over where it was to be read".into(),
                        },
                    )
                    .into());
                }
            },
            Some(Err(e)) => return Err(e),
            None => return Ok(()),
        }
    }
}

/// One result for a poll-based stream: read by `fast` in place (given whether results are
/// bulked; it reads the bulk too), else by the stream and converted by `slow` with the offset
/// where that result started.
#[cfg(all(feature = "serde", feature = "http"))]
pub(crate) fn poll_one<R, T>(
    s: &mut ResponseStream<R>,
    cx: &mut Context<'_>,
    fast: impl FnOnce(&mut Cursor<'_>, bool) -> FastResult<T>,
    slow: impl FnOnce(Traverser, u64) -> Result<T, DecodeError>,
) -> Poll<Option<Result<T, ResponseError>>>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    if let Some((buf, bulked)) = s.fast_parts() {
        if buf.buffered().first().is_some_and(|&b| b != codes::MARKER) {
            match buf.try_read_with(|cur| fast(cur, bulked)) {
                Ok(v) => return Poll::Ready(Some(Ok(v))),
                Err(FastError::Invalid(e)) => {
                    s.fail();
                    return Poll::Ready(Some(Err(e.into())));
                }
                Err(FastError::NeedMore(_)) => {}
            }
        }
    }
    match s.poll_next_unpin(cx) {
        Poll::Ready(Some(Ok(t))) => match slow(t, s.item_start()) {
            Ok(v) => Poll::Ready(Some(Ok(v))),
            Err(e) => {
                s.fail();
                Poll::Ready(Some(Err(e.into())))
            }
        },
        Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e))),
        Poll::Ready(None) => Poll::Ready(None),
        Poll::Pending => Poll::Pending,
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> ResponseStream<R> {
    /// The number of remaining results (bulks summed), stepping over each value without
    /// building it ([`skip_value`](crate::format::graphbinary4::skip_value): UTF-8, layouts and limits are
    /// still checked). A value larger than the read buffer is stepped over piece by piece, its
    /// Strings and Binaries consumed as they arrive (the buffer does not grow, nothing of
    /// their size is allocated).
    ///
    /// ```
    /// use graphbinary_client::response::{read_response, ReadOptions};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let body: &'static [u8] = &[
    ///     0x84, 0x01, // bulked
    ///     0x03, 0x00, 0, 0, 0, 1, b'x', 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 3, // "x", bulk 3
    ///     0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01,
    /// ];
    /// let mut results = read_response(body, ReadOptions::default());
    /// assert_eq!(results.count_results().await.unwrap(), 3);
    /// # });
    /// ```
    ///
    /// # Cancel safety
    /// As [`ResponseStream::for_each_result`].
    pub async fn count_results(&mut self) -> Result<u64, ResponseError> {
        let mut n: u64 = 0;
        self.for_each_skipped(|bulk| n = n.saturating_add(bulk.max(0) as u64))
            .await?;
        Ok(n)
    }

    /// Steps over each remaining result without building it (as
    /// [`ResponseStream::count_results`]), calling `f` with its bulk (1 when not bulked).
    /// Returns the error the stream would end with; `f` has seen every result before it.
    ///
    /// # Cancel safety
    /// As [`ResponseStream::for_each_result`]: the step over a value larger than the buffer
    /// lives in the stream, and the next call of this method (or of `count_results`) finishes
    /// it. Read on as a stream of values instead, that result is an error, not a value.
    pub async fn for_each_skipped(&mut self, mut f: impl FnMut(i64)) -> Result<(), ResponseError> {
        drive(
            self,
            |cur, _| crate::format::graphbinary4::skip_value(cur),
            |_, _| Ok(()),
            Some(|| ()),
            |(), bulk| f(bulk),
        )
        .await
    }
}
