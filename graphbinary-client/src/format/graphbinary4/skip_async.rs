//! The skip route's slow path: stepping over a value larger than the read buffer without
//! building it.
//!
//! It accepts exactly what the [`Value`](crate::value::Value) slow path accepts (the same reads, in
//! the same order, so the same errors at the same offsets), but a String, Binary, BigInteger
//! or BigDecimal payload is consumed from the read buffer as it arrives, never kept: UTF-8 is
//! checked across read boundaries, the buffer does not grow, and nothing is allocated for
//! what a length field claims. Lists, Sets and Maps are walked item by item, each item on the
//! fast path when it fits the buffer. The other structured values (elements, paths, trees,
//! graphs, PDTs) are read by the `Value` slow path and dropped: they are rarely larger than
//! the buffer, and then only through what they hold.

use std::future::Future;
use std::pin::Pin;

use graphbinary_core::{DecodeError, ErrorKind, FastError, ReadBuffer};
use tokio::io::AsyncRead;

use super::skip::skip_value;
use crate::value::codes;
use crate::value::graphbinary4::{read_body_slow, read_header, GrowStack, Header};

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Steps over one fully-qualified value from `buf`, refilling as needed: on the fast path
/// ([`skip_value`]) while the value fits the buffer, piece by piece otherwise.
///
/// # Cancel safety
/// As [`ReadBuffer::read`]: cancel safe while the value fits in the buffer; once a larger
/// one has started to be consumed, dropping the future leaves the buffer mid-value.
pub(crate) async fn skip_value_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<(), DecodeError> {
    if buf.fast_path() {
        loop {
            match buf.try_read_with(skip_value) {
                Ok(()) => return Ok(()),
                Err(FastError::Invalid(e)) => return Err(e),
                Err(FastError::NeedMore(n)) => {
                    let n = n.max(buf.buffered().len() + 1);
                    if n > buf.capacity() {
                        break;
                    }
                    match buf.fill_ahead(n, "fully-qualified value").await {
                        Ok(()) => {}
                        // Nothing is consumed: the walk below names the field cut short.
                        Err(e) if matches!(e.kind(), ErrorKind::UnexpectedEof { .. }) => break,
                        Err(e) => return Err(e),
                    }
                }
            }
        }
    }
    skip_walk(buf).await
}

/// A value piece by piece: its header, then its body. One boxed future per nesting level,
/// polled on a fresh stack segment when the stack runs low (as the `Value` slow path).
fn skip_walk<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> GrowStack<BoxFuture<'_, Result<(), DecodeError>>> {
    GrowStack(Box::pin(async move {
        match buf
            .read_with(read_header, "type code and value flag")
            .await?
        {
            Header::Null(_) => Ok(()),
            Header::Value(code, flag) => skip_body(buf, code, flag).await,
        }
    }))
}

/// The value after its header.
fn skip_body<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    code: u8,
    flag: u8,
) -> BoxFuture<'_, Result<(), DecodeError>> {
    match code {
        codes::STRING => Box::pin(buf.skip_string()),
        codes::BINARY => Box::pin(buf.skip_len_prefixed("Binary")),
        codes::BIG_INTEGER => Box::pin(buf.skip_len_prefixed("BigInteger")),
        codes::BIG_DECIMAL => Box::pin(async move {
            buf.read_i32().await?;
            buf.skip_len_prefixed("BigInteger").await
        }),
        codes::LIST if flag == 0x02 => Box::pin(async move {
            buf.enter()?;
            let n = buf.read_count("List").await?;
            for _ in 0..n {
                skip_value_slow(buf).await?;
                buf.read::<i64>().await?;
            }
            buf.leave();
            Ok(())
        }),
        codes::LIST => Box::pin(skip_items(buf, "List", 1)),
        codes::SET => Box::pin(skip_items(buf, "Set", 1)),
        codes::MAP => Box::pin(skip_items(buf, "Map", 2)),
        _ => Box::pin(async move { read_body_slow(buf, code, flag).await.map(drop) }),
    }
}

/// A counted run of `per_item` values each (a Map's entries are two).
async fn skip_items<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
    per_item: usize,
) -> Result<(), DecodeError> {
    buf.enter()?;
    let n = buf.read_count(what).await?;
    for _ in 0..n {
        for _ in 0..per_item {
            skip_value_slow(buf).await?;
        }
    }
    buf.leave();
    Ok(())
}
