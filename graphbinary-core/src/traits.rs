//! The reader and writer traits, and their implementations for the primitives and the
//! generic layouts (fully-qualified, nullable, List).

// The slow paths spell out `impl Future + Send` so that the Send bound the trait promises is
// visible at each implementation.
#![allow(clippy::manual_async_fn)]

use std::future::Future;

use bytes::{BufMut, Bytes};
use tokio::io::AsyncRead;

use crate::buffer::ReadBuffer;
use crate::cursor::Cursor;
use crate::error::{DecodeError, EncodeError, ErrorKind, FastResult};
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

/// Type codes of the primitive types implemented in this crate.
pub mod codes {
    /// Int.
    pub const INT: u8 = 0x01;
    /// Long.
    pub const LONG: u8 = 0x02;
    /// String.
    pub const STRING: u8 = 0x03;
    /// Double.
    pub const DOUBLE: u8 = 0x07;
    /// Float.
    pub const FLOAT: u8 = 0x08;
    /// List.
    pub const LIST: u8 = 0x09;
    /// Set.
    pub const SET: u8 = 0x0b;
    /// UUID.
    pub const UUID: u8 = 0x0c;
    /// Byte.
    pub const BYTE: u8 = 0x24;
    /// Binary.
    pub const BINARY: u8 = 0x25;
    /// Short.
    pub const SHORT: u8 = 0x26;
    /// Boolean.
    pub const BOOLEAN: u8 = 0x27;
    /// Char.
    pub const CHAR: u8 = 0x80;
    /// Unspecified null object.
    pub const UNSPECIFIED_NULL: u8 = 0xfe;
}

macro_rules! fixed {
    ($($t:ty, $code:expr, $name:literal, $read:ident, $put:ident;)*) => {$(
        impl Decode for $t {
            const EXPECTED: &'static str = $name;
            #[inline]
            fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
                cur.$read()
            }
            fn decode_slow<R: AsyncRead + Unpin + Send>(
                buf: &mut ReadBuffer<R>,
            ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
                buf.$read()
            }
        }
        impl Encode for $t {
            #[inline]
            fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
                out.$put(*self);
                Ok(())
            }
        }
        impl Typed for $t {
            const TYPE_CODE: u8 = $code;
        }
    )*};
}

fixed! {
    i8, codes::BYTE, "Byte", read_i8, put_i8;
    i16, codes::SHORT, "Short", read_i16, put_i16;
    i32, codes::INT, "Int", read_i32, put_i32;
    i64, codes::LONG, "Long", read_i64, put_i64;
    f32, codes::FLOAT, "Float", read_f32, put_f32;
    f64, codes::DOUBLE, "Double", read_f64, put_f64;
}

impl Decode for bool {
    const EXPECTED: &'static str = "Boolean";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        cur.read_bool()
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        buf.read_bool()
    }
}
impl Encode for bool {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        out.put_u8(*self as u8);
        Ok(())
    }
}
impl Typed for bool {
    const TYPE_CODE: u8 = codes::BOOLEAN;
}

impl Decode for uuid::Uuid {
    const EXPECTED: &'static str = "UUID";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        cur.read_uuid()
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        buf.read_uuid()
    }
}
impl Encode for uuid::Uuid {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        out.put_slice(self.as_bytes());
        Ok(())
    }
}
impl Typed for uuid::Uuid {
    const TYPE_CODE: u8 = codes::UUID;
}

impl Decode for char {
    const EXPECTED: &'static str = "Char";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        cur.read_char()
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        buf.read_char()
    }
}
impl Encode for char {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        write::put_char(out, *self);
        Ok(())
    }
}
impl Typed for char {
    const TYPE_CODE: u8 = codes::CHAR;
}

impl Decode for String {
    const EXPECTED: &'static str = "String";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        cur.read_str().map(str::to_owned)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        buf.read_string()
    }
}
impl Encode for String {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        write::put_str(out, self)
    }
}
impl Typed for String {
    const TYPE_CODE: u8 = codes::STRING;
}

/// A String shared through the buffer's [`Interner`](crate::Interner): labels and property
/// keys decode to one allocation per distinct value per stream.
impl Decode for std::sync::Arc<str> {
    const EXPECTED: &'static str = "String";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        cur.read_interned_str()
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        buf.read_interned_string()
    }
}
impl Encode for std::sync::Arc<str> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        write::put_str(out, self)
    }
}
impl Typed for std::sync::Arc<str> {
    const TYPE_CODE: u8 = codes::STRING;
}

/// Binary (`{length}{bytes}`).
impl Decode for Bytes {
    const EXPECTED: &'static str = "Binary";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        cur.read_len_prefixed("Binary").map(Bytes::copy_from_slice)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move { buf.read_len_prefixed("Binary").await.map(Bytes::from) }
    }
}
impl Encode for Bytes {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        write::put_bytes(out, self, "Binary")
    }
}
impl Typed for Bytes {
    const TYPE_CODE: u8 = codes::BINARY;
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
    cur.expect_type_code(T::TYPE_CODE, T::EXPECTED)?;
    let at = cur.offset();
    if !cur.read_nullable_flag(T::EXPECTED)? {
        return Err(cur.error_at(at, ErrorKind::UnexpectedNull { what: T::EXPECTED }));
    }
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
        |cur| {
            cur.expect_type_code(T::TYPE_CODE, T::EXPECTED)?;
            let at = cur.offset();
            if !cur.read_nullable_flag(T::EXPECTED)? {
                return Err(cur.error_at(at, ErrorKind::UnexpectedNull { what: T::EXPECTED }));
            }
            Ok(())
        },
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

/// Implements [`FqDecode`] and [`FqEncode`] for types that implement [`Decode`], [`Encode`]
/// and [`Typed`].
#[macro_export]
macro_rules! impl_fq_via_typed {
    ($($t:ty),* $(,)?) => {$(
        #[automatically_derived]
        impl $crate::FqDecode for $t {
            const EXPECTED: &'static str = <$t as $crate::Decode>::EXPECTED;
            #[inline]
            fn decode_fq(cur: &mut $crate::Cursor<'_>) -> $crate::FastResult<Self> {
                $crate::decode_fq_typed::<$t>(cur)
            }
            fn decode_fq_slow<R: $crate::__private::AsyncRead + Unpin + Send>(
                buf: &mut $crate::ReadBuffer<R>,
            ) -> impl $crate::__private::Future<Output = Result<Self, $crate::DecodeError>> + Send {
                $crate::decode_fq_typed_slow::<$t, R>(buf)
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

crate::impl_fq_via_typed!(
    i8,
    i16,
    i32,
    i64,
    f32,
    f64,
    bool,
    uuid::Uuid,
    char,
    String,
    Bytes,
    std::sync::Arc<str>
);

/// A fully-qualified, non-null value: `{type_code}{0x00}{value}` (what a `#[graphbinary(fq)]`
/// field holds). Its bare form is the fully-qualified form of `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Fq<T>(pub T);

impl<T: FqDecode> Decode for Fq<T> {
    const EXPECTED: &'static str = T::EXPECTED;
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        T::decode_fq(cur).map(Fq)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move { T::decode_fq_slow(buf).await.map(Fq) }
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

fn fq_opt_header(cur: &mut Cursor<'_>, code: u8, what: &'static str) -> FastResult<bool> {
    let at = cur.offset();
    let found = cur.read_u8()?;
    if found != code && found != codes::UNSPECIFIED_NULL {
        return Err(cur.error_at(
            at,
            ErrorKind::UnexpectedTypeCode {
                what,
                expected: code,
                found,
            },
        ));
    }
    let present = cur.read_nullable_flag(what)?;
    if present && found == codes::UNSPECIFIED_NULL {
        return Err(cur.error_at(
            at + 1,
            ErrorKind::InvalidValueFlag {
                what: "unspecified null",
                flag: 0x00,
            },
        ));
    }
    Ok(present)
}

impl<T: Decode + Typed> Decode for FqOpt<T> {
    const EXPECTED: &'static str = T::EXPECTED;
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        if fq_opt_header(cur, T::TYPE_CODE, T::EXPECTED)? {
            T::decode(cur).map(|v| FqOpt(Some(v)))
        } else {
            Ok(FqOpt(None))
        }
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            let present = buf
                .read_with(
                    |cur| fq_opt_header(cur, T::TYPE_CODE, T::EXPECTED),
                    T::EXPECTED,
                )
                .await?;
            if present {
                buf.read::<T>().await.map(|v| FqOpt(Some(v)))
            } else {
                Ok(FqOpt(None))
            }
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

impl<T: Decode> Decode for Nullable<T> {
    const EXPECTED: &'static str = T::EXPECTED;
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        if cur.read_nullable_flag(T::EXPECTED)? {
            T::decode(cur).map(|v| Nullable(Some(v)))
        } else {
            Ok(Nullable(None))
        }
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            if buf.read_nullable_flag(T::EXPECTED).await? {
                buf.read::<T>().await.map(|v| Nullable(Some(v)))
            } else {
                Ok(Nullable(None))
            }
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

fn decode_items<T: FqDecode>(cur: &mut Cursor<'_>, what: &'static str) -> FastResult<Vec<T>> {
    cur.enter()?;
    let n = cur.read_count(what)?;
    // Every fully-qualified item takes at least 2 bytes: a claimed count that cannot fit in
    // what is buffered is reported at once, without decoding or allocating.
    cur.require(n.saturating_mul(2))?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(T::decode_fq(cur)?);
    }
    cur.leave();
    Ok(v)
}

async fn decode_items_slow<T: FqDecode, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
) -> Result<Vec<T>, DecodeError> {
    buf.enter()?;
    let n = buf.read_count(what).await?;
    // Grow with what arrives, never to the claimed count up front.
    let mut v = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        v.push(buf.read::<Fq<T>>().await?.0);
    }
    buf.leave();
    Ok(v)
}

fn encode_items<T: FqEncode, B: BufMut>(
    items: &[T],
    out: &mut B,
    what: &'static str,
) -> Result<(), EncodeError> {
    write::put_len(out, items.len(), what)?;
    for item in items {
        item.encode_fq(out)?;
    }
    Ok(())
}

/// A bare List (`{length}{item_0}...{item_n}`) whose items are fully-qualified `T`s.
impl<T: FqDecode> Decode for Vec<T> {
    const EXPECTED: &'static str = "List";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_items(cur, "List")
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        decode_items_slow(buf, "List")
    }
}
impl<T: FqEncode> Encode for Vec<T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_items(self, out, "List")
    }
}
impl<T> Typed for Vec<T> {
    const TYPE_CODE: u8 = codes::LIST;
}
impl<T: FqDecode> FqDecode for Vec<T> {
    const EXPECTED: &'static str = "List";
    #[inline]
    fn decode_fq(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_fq_typed(cur)
    }
    fn decode_fq_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        decode_fq_typed_slow::<Self, R>(buf)
    }
}
impl<T: FqEncode> FqEncode for Vec<T> {
    fn encode_fq<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_fq_typed(self, out)
    }
}

/// A Set (`{length}{item_0}...{item_n}`, type code 0x0b): the List layout under another code.
/// Items keep their order as read, so a Set re-encodes byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Set<T>(pub Vec<T>);

impl<T: FqDecode> Decode for Set<T> {
    const EXPECTED: &'static str = "Set";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_items(cur, "Set").map(Set)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move { decode_items_slow(buf, "Set").await.map(Set) }
    }
}
impl<T: FqEncode> Encode for Set<T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_items(&self.0, out, "Set")
    }
}
impl<T> Typed for Set<T> {
    const TYPE_CODE: u8 = codes::SET;
}
impl<T: FqDecode> FqDecode for Set<T> {
    const EXPECTED: &'static str = "Set";
    #[inline]
    fn decode_fq(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_fq_typed(cur)
    }
    fn decode_fq_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        decode_fq_typed_slow::<Self, R>(buf)
    }
}
impl<T: FqEncode> FqEncode for Set<T> {
    fn encode_fq<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_fq_typed(self, out)
    }
}
