//! [`Decode`], [`Encode`], [`Typed`] and the fully-qualified traits for the primitives:
//! the fixed-width numbers, Boolean, UUID, Char, String (owned and interned) and Binary.

// The slow paths spell out `impl Future + Send` so that the Send bound the trait promises is
// visible at each implementation.
#![allow(clippy::manual_async_fn)]

use std::future::Future;

use bytes::{BufMut, Bytes};
use tokio::io::AsyncRead;

use crate::buffer::ReadBuffer;
use crate::codes;
use crate::cursor::Cursor;
use crate::error::{DecodeError, EncodeError, FastResult};
use crate::traits::{Decode, Encode, Typed};
use crate::write;

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

with_primitives_of_both_versions!(crate::impl_fq_via_typed);
// GraphBinary 1's Binary is another type (a ByteBuffer).
crate::impl_fq_via_typed!(Bytes);
