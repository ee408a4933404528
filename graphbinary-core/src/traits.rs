//! The reader and writer traits: bare ([`Decode`], [`Encode`]), typed ([`Typed`]) and
//! fully-qualified ([`FqDecode`], [`FqEncode`]), with the helpers that derive the
//! fully-qualified form from the bare one.

use std::future::Future;

use bytes::BufMut;
use tokio::io::AsyncRead;

use crate::buffer::ReadBuffer;
use crate::cursor::Cursor;
use crate::error::{DecodeError, EncodeError, FastResult};
use crate::write;

/// A type that reads itself from GraphBinary in its bare (`{value}`) form.
///
/// Implementations come in pairs that must agree byte for byte:
///
/// * [`Decode::decode`], the fast path: decodes a whole value from buffered bytes. It does no
///   I/O, and on [`FastError::NeedMore`](crate::FastError::NeedMore) it has consumed nothing
///   that matters (the caller discards the cursor).
/// * [`Decode::decode_slow`], the slow path: reads field by field from a [`ReadBuffer`],
///   re-entering the fast path (through [`ReadBuffer::read`]) for every field, and streaming
///   payloads larger than the buffer. It is used for values larger than the buffer and when
///   the fast path is switched off.
///
/// `#[derive(GraphBinary)]` from `graphbinary-derive` writes both, and [`Encode`], from one
/// annotated definition.
pub trait Decode: Sized + Send {
    /// What a value of this type is called in error messages, e.g. `"Int"`.
    const EXPECTED: &'static str;

    /// Fast path: decodes a whole value from the cursor's buffered bytes.
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self>;

    /// Slow path: reads a value field by field, refilling as needed.
    ///
    /// # Cancel safety
    /// Not cancel safe in general: a field already read is consumed.
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send;
}

/// A type that writes itself as GraphBinary in its bare (`{value}`) form.
pub trait Encode {
    /// Writes the bare value.
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError>;
}

/// A type with a fully-qualified form: `{type_code}{value_flag}{value}`.
pub trait Typed {
    /// The GraphBinary type code.
    const TYPE_CODE: u8;
}

/// A type that can stand as a fully-qualified item (`{type_code}{value_flag}{value}`): what a
/// List, Set or Map holds, and what a `#[graphbinary(fq)]` field reads.
///
/// Types with one type code implement it through [`Typed`] (see [`decode_fq_typed`]); a
/// dynamic value type implements it by dispatching on the type code it reads.
pub trait FqDecode: Sized + Send {
    /// What a value of this type is called in error messages.
    const EXPECTED: &'static str;

    /// Fast path: decodes a whole fully-qualified value from the cursor.
    fn decode_fq(cur: &mut Cursor<'_>) -> FastResult<Self>;

    /// Slow path: reads a fully-qualified value piece by piece.
    ///
    /// # Cancel safety
    /// Not cancel safe in general.
    fn decode_fq_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send;
}

/// A type that writes itself as a fully-qualified item.
pub trait FqEncode {
    /// Writes `{type_code}{value_flag}{value}`.
    fn encode_fq<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError>;
}

/// [`FqDecode::decode_fq`] for a [`Typed`] type: the type code must be `T::TYPE_CODE` and the
/// value non-null.
#[inline]
pub fn decode_fq_typed<T: Decode + Typed>(cur: &mut Cursor<'_>) -> FastResult<T> {
    cur.expect_fq_non_null(T::TYPE_CODE, T::EXPECTED)?;
    T::decode(cur)
}

/// [`FqDecode::decode_fq_slow`] for a [`Typed`] type.
///
/// # Cancel safety
/// Cancel safe up to the value itself; then as `T`'s slow path.
pub async fn decode_fq_typed_slow<T: Decode + Typed, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<T, DecodeError> {
    buf.read_with(
        |cur| cur.expect_fq_non_null(T::TYPE_CODE, T::EXPECTED),
        T::EXPECTED,
    )
    .await?;
    buf.read::<T>().await
}

/// [`FqEncode::encode_fq`] for a [`Typed`] type.
#[inline]
pub fn encode_fq_typed<T: Encode + Typed, B: BufMut>(
    v: &T,
    out: &mut B,
) -> Result<(), EncodeError> {
    write::put_header(out, T::TYPE_CODE);
    v.encode(out)
}

/// Implements one of the four decode traits ([`Decode`], [`FqDecode`],
/// [`DecodeV1`](crate::v1::DecodeV1), [`FqDecodeV1`](crate::v1::FqDecodeV1)) from its three
/// parts: what the value is called, the fast path as `|cur| expression` and the slow path as
/// `|buf| expression` (a future); generics and bounds go in brackets first (the crate's own
/// uses are its compiled examples):
///
/// ```text
/// impl_decode! {
///     [T: FqDecode] Decode for Fq<T> {
///         T::EXPECTED;
///         |cur| T::decode_fq(cur).map(Fq);
///         |buf| async move { T::decode_fq_slow(buf).await.map(Fq) }
///     }
/// }
/// ```
///
/// What the crate's layouts and `graphbinary-client`'s values use; not a public API.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_decode {
    (@ {$($attr:tt)*} [$($g:tt)*] $tr:path, $fast:ident, $slow:ident, $t:ty {
        $expected:expr;
        |$cur:ident| $fast_body:expr;
        |$buf:ident| $slow_body:expr $(;)?
    }) => {
        $($attr)*
        impl<$($g)*> $tr for $t {
            const EXPECTED: &'static str = $expected;
            #[inline]
            fn $fast($cur: &mut $crate::Cursor<'_>) -> $crate::FastResult<Self> {
                $fast_body
            }
            fn $slow<R: $crate::__private::AsyncRead + Unpin + Send>(
                $buf: &mut $crate::ReadBuffer<R>,
            ) -> impl $crate::__private::Future<Output = Result<Self, $crate::DecodeError>> + Send
            {
                $slow_body
            }
        }
    };
    ($(#[$m:meta])* $([$($g:tt)*])? Decode for $($rest:tt)*) => {
        $crate::impl_decode!(@ {$(#[$m])*} [$($($g)*)?] $crate::Decode, decode, decode_slow, $($rest)*);
    };
    ($(#[$m:meta])* $([$($g:tt)*])? FqDecode for $($rest:tt)*) => {
        $crate::impl_decode!(@ {$(#[$m])*} [$($($g)*)?] $crate::FqDecode, decode_fq, decode_fq_slow, $($rest)*);
    };
    ($(#[$m:meta])* $([$($g:tt)*])? DecodeV1 for $($rest:tt)*) => {
        $crate::impl_decode!(@ {$(#[$m])*} [$($($g)*)?] $crate::v1::DecodeV1, decode_v1, decode_v1_slow, $($rest)*);
    };
    ($(#[$m:meta])* $([$($g:tt)*])? FqDecodeV1 for $($rest:tt)*) => {
        $crate::impl_decode!(
            @ {$(#[$m])*} [$($($g)*)?] $crate::v1::FqDecodeV1, decode_fq_v1, decode_fq_v1_slow, $($rest)*
        );
    };
}

/// Implements [`FqDecode`] and [`FqEncode`] for types that implement [`Decode`], [`Encode`]
/// and [`Typed`].
#[macro_export]
macro_rules! impl_fq_via_typed {
    ($($t:ty),* $(,)?) => {$(
        $crate::impl_decode! {
            #[automatically_derived]
            FqDecode for $t {
                <$t as $crate::Decode>::EXPECTED;
                |cur| $crate::decode_fq_typed::<$t>(cur);
                |buf| $crate::decode_fq_typed_slow::<$t, R>(buf)
            }
        }
        #[automatically_derived]
        impl $crate::FqEncode for $t {
            #[inline]
            fn encode_fq<B: $crate::__private::BufMut>(&self, out: &mut B) -> Result<(), $crate::EncodeError> {
                $crate::encode_fq_typed(self, out)
            }
        }
    )*};
}
