//! [`Decode`](crate::Decode), [`Encode`], [`Typed`] and the fully-qualified traits for the
//! primitives: the fixed-width numbers, Boolean, UUID, Char, String (owned and interned) and Binary.

// The slow paths (written by `impl_decode!` or by hand) spell out `impl Future + Send` so that
// the Send bound the trait promises is visible at each implementation.
#![allow(clippy::manual_async_fn)]

use bytes::{BufMut, Bytes};

use crate::codes;
use crate::error::EncodeError;
use crate::traits::{Encode, Typed};
use crate::write;

macro_rules! fixed {
    ($($t:ty, $code:expr, $name:literal, $read:ident, $put:ident;)*) => {$(
        crate::impl_decode! {
            Decode for $t {
                $name;
                |cur| cur.$read();
                |buf| buf.$read()
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

crate::impl_decode! {
    Decode for bool {
        "Boolean";
        |cur| cur.read_bool();
        |buf| buf.read_bool()
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

crate::impl_decode! {
    Decode for uuid::Uuid {
        "UUID";
        |cur| cur.read_uuid();
        |buf| buf.read_uuid()
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

crate::impl_decode! {
    Decode for char {
        "Char";
        |cur| cur.read_char();
        |buf| buf.read_char()
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

crate::impl_decode! {
    Decode for String {
        "String";
        |cur| cur.read_str().map(str::to_owned);
        |buf| buf.read_string()
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

crate::impl_decode! {
    /// A String shared through the buffer's [`Interner`](crate::Interner): labels and property
    /// keys decode to one allocation per distinct value per stream.
    Decode for std::sync::Arc<str> {
        "String";
        |cur| cur.read_interned_str();
        |buf| buf.read_interned_string()
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

crate::impl_decode! {
    /// Binary (`{length}{bytes}`).
    Decode for Bytes {
        "Binary";
        |cur| cur.read_len_prefixed("Binary").map(Bytes::copy_from_slice);
        |buf| async move { buf.read_len_prefixed("Binary").await.map(Bytes::from) }
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
