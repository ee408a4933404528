//! The generic layouts: [`Fq`] (fully-qualified, non-null), [`FqOpt`] (fully-qualified,
//! nullable), [`Nullable`] (bare, nullable), `Vec<T>` as a List and [`Set`].

// The slow paths (written by `impl_decode!` or by hand) spell out `impl Future + Send` so that
// the Send bound the trait promises is visible at each implementation.
#![allow(clippy::manual_async_fn)]

use bytes::BufMut;
use tokio::io::AsyncRead;

use crate::buffer::ReadBuffer;
use crate::codes;
use crate::cursor::Cursor;
use crate::error::{DecodeError, EncodeError, FastResult};
use crate::traits::{
    decode_fq_typed, decode_fq_typed_slow, encode_fq_typed, Decode, Encode, FqDecode, FqEncode,
    Typed,
};
use crate::write;

/// A fully-qualified, non-null value: `{type_code}{0x00}{value}` (what a `#[graphbinary(fq)]`
/// field holds). Its bare form is the fully-qualified form of `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Fq<T>(pub T);

crate::impl_decode! {
    [T: FqDecode] Decode for Fq<T> {
        T::EXPECTED;
        |cur| T::decode_fq(cur).map(Fq);
        |buf| async move { T::decode_fq_slow(buf).await.map(Fq) }
    }
}
impl<T: FqEncode> Encode for Fq<T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.0.encode_fq(out)
    }
}

/// A fully-qualified, nullable value: `{type_code}{0x00}{value}` or a null.
///
/// On input both null forms are accepted: the typed null `{type_code}{0x01}` and the
/// unspecified null `FE 01`. A null is written as `FE 01`, as TinkerPop's serializers write a
/// null in a slot that holds an object (e.g. the `properties` of a reference element).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FqOpt<T>(pub Option<T>);

/// [`FqOpt`]'s fast path in either dialect: the header of `code`, then `W` (`T` itself, or
/// `V1<T>`) unwrapped by `unwrap`.
#[inline]
pub(crate) fn decode_fq_opt<W: Decode, T>(
    cur: &mut Cursor<'_>,
    code: u8,
    unwrap: impl FnOnce(W) -> T,
) -> FastResult<Option<T>> {
    if cur.read_fq_opt_header(code, W::EXPECTED)? {
        W::decode(cur).map(|v| Some(unwrap(v)))
    } else {
        Ok(None)
    }
}

/// [`FqOpt`]'s slow path in either dialect (as [`decode_fq_opt`]).
///
/// # Cancel safety
/// Cancel safe up to the value itself; then as `W`'s slow path.
pub(crate) async fn decode_fq_opt_slow<W: Decode, T, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    code: u8,
    unwrap: impl FnOnce(W) -> T + Send,
) -> Result<Option<T>, DecodeError> {
    let present = buf
        .read_with(|cur| cur.read_fq_opt_header(code, W::EXPECTED), W::EXPECTED)
        .await?;
    if present {
        buf.read::<W>().await.map(|v| Some(unwrap(v)))
    } else {
        Ok(None)
    }
}

crate::impl_decode! {
    [T: Decode + Typed] Decode for FqOpt<T> {
        T::EXPECTED;
        |cur| decode_fq_opt::<T, T>(cur, T::TYPE_CODE, |v| v).map(FqOpt);
        |buf| async move {
            decode_fq_opt_slow::<T, T, R>(buf, T::TYPE_CODE, |v| v)
                .await
                .map(FqOpt)
        }
    }
}
impl<T: Encode + Typed> Encode for FqOpt<T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        match &self.0 {
            Some(v) => {
                write::put_header(out, T::TYPE_CODE);
                v.encode(out)
            }
            None => {
                write::put_null(out, codes::UNSPECIFIED_NULL);
                Ok(())
            }
        }
    }
}

/// A bare nullable value: `{value_flag}{value}` (the footer's message and exception).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Nullable<T>(pub Option<T>);

/// [`Nullable`]'s fast path in either dialect: the value flag, then `W` (`T` itself, or
/// `V1<T>`) unwrapped by `unwrap`.
#[inline]
pub(crate) fn decode_nullable<W: Decode, T>(
    cur: &mut Cursor<'_>,
    unwrap: impl FnOnce(W) -> T,
) -> FastResult<Option<T>> {
    if cur.read_nullable_flag(W::EXPECTED)? {
        W::decode(cur).map(|v| Some(unwrap(v)))
    } else {
        Ok(None)
    }
}

/// [`Nullable`]'s slow path in either dialect (as [`decode_nullable`]).
///
/// # Cancel safety
/// Cancel safe up to the value itself; then as `W`'s slow path.
pub(crate) async fn decode_nullable_slow<W: Decode, T, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    unwrap: impl FnOnce(W) -> T + Send,
) -> Result<Option<T>, DecodeError> {
    if buf.read_nullable_flag(W::EXPECTED).await? {
        buf.read::<W>().await.map(|v| Some(unwrap(v)))
    } else {
        Ok(None)
    }
}

crate::impl_decode! {
    [T: Decode] Decode for Nullable<T> {
        T::EXPECTED;
        |cur| decode_nullable::<T, T>(cur, |v| v).map(Nullable);
        |buf| async move {
            decode_nullable_slow::<T, T, R>(buf, |v| v)
                .await
                .map(Nullable)
        }
    }
}
impl<T: Encode> Encode for Nullable<T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        match &self.0 {
            Some(v) => {
                out.put_u8(0x00);
                v.encode(out)
            }
            None => {
                out.put_u8(0x01);
                Ok(())
            }
        }
    }
}

/// A List's or Set's items in either dialect, fast path: `{count}{item}...`, each item read by
/// `item` (`T::decode_fq`, or `T::decode_fq_v1`). Not `#[inline]`: inlined into every caller
/// it makes the element readers slower (`decode_vertices_200k` in `benches/decode.rs`).
pub(crate) fn decode_items<T>(
    cur: &mut Cursor<'_>,
    what: &'static str,
    item: impl Fn(&mut Cursor<'_>) -> FastResult<T>,
) -> FastResult<Vec<T>> {
    cur.enter()?;
    // Every fully-qualified item takes at least 2 bytes: a claimed count that cannot fit in
    // what is buffered is reported at once, without decoding or allocating.
    let v = cur.read_counted(what, 2, item)?;
    cur.leave();
    Ok(v)
}

/// [`decode_items`]' slow path: each item read as `W` (`Fq<T>`, or `V1<FqV1<T>>`) and
/// unwrapped by `unwrap`.
///
/// # Cancel safety
/// Not cancel safe: the items already read are consumed.
pub(crate) async fn decode_items_slow<W: Decode, T: Send, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
    unwrap: impl Fn(W) -> T + Send,
) -> Result<Vec<T>, DecodeError> {
    buf.enter()?;
    let v = buf.read_counted(what, unwrap).await?;
    buf.leave();
    Ok(v)
}

/// A List's or Set's items in either dialect, written: `{count}`, then each item by `item`
/// (`T::encode_fq`, or `T::encode_fq_v1`).
pub(crate) fn encode_items<T, B: BufMut>(
    items: &[T],
    out: &mut B,
    what: &'static str,
    item: impl Fn(&T, &mut B) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    write::put_len(out, items.len(), what)?;
    for i in items {
        item(i, out)?;
    }
    Ok(())
}

crate::impl_decode! {
    /// A bare List (`{length}{item_0}...{item_n}`) whose items are fully-qualified `T`s.
    [T: FqDecode] Decode for Vec<T> {
        "List";
        |cur| decode_items(cur, "List", T::decode_fq);
        |buf| decode_items_slow::<Fq<T>, T, R>(buf, "List", |v| v.0)
    }
}
impl<T: FqEncode> Encode for Vec<T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_items(self, out, "List", T::encode_fq)
    }
}

/// A Set (`{length}{item_0}...{item_n}`, type code 0x0b): the List layout under another code.
/// Items keep their order as read, so a Set re-encodes byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Set<T>(pub Vec<T>);

crate::impl_decode! {
    [T: FqDecode] Decode for Set<T> {
        "Set";
        |cur| decode_items(cur, "Set", T::decode_fq).map(Set);
        |buf| async move {
            decode_items_slow::<Fq<T>, T, R>(buf, "Set", |v| v.0)
                .await
                .map(Set)
        }
    }
}
impl<T: FqEncode> Encode for Set<T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_items(&self.0, out, "Set", T::encode_fq)
    }
}

/// `Typed`, `FqDecode` and `FqEncode` of a generic collection through its type code (what
/// `impl_fq_via_typed!` writes for a non-generic type).
macro_rules! fq_collection {
    ($($ty:ident, $name:literal, $code:expr;)*) => {$(
        impl<T> Typed for $ty<T> {
            const TYPE_CODE: u8 = $code;
        }
        crate::impl_decode! {
            [T: FqDecode] FqDecode for $ty<T> {
                $name;
                |cur| decode_fq_typed(cur);
                |buf| decode_fq_typed_slow::<Self, R>(buf)
            }
        }
        impl<T: FqEncode> FqEncode for $ty<T> {
            fn encode_fq<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
                encode_fq_typed(self, out)
            }
        }
    )*};
}

fq_collection! {
    Vec, "List", codes::LIST;
    Set, "Set", codes::SET;
}
