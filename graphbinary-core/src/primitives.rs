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

/// The types read by one `Cursor`/`ReadBuffer` method and written without fail by `$put`
/// (`|out, value| ...`).
macro_rules! fixed {
    ($($t:ty, $code:expr, $name:literal, $read:ident, |$out:ident, $v:ident| $put:expr;)*) => {$(
        crate::impl_decode! {
            Decode for $t {
                $name;
                |cur| cur.$read();
                |buf| buf.$read()
            }
        }
        impl Encode for $t {
            #[inline]
            fn encode<B: BufMut>(&self, $out: &mut B) -> Result<(), EncodeError> {
                let $v = self;
                $put;
                Ok(())
            }
        }
        impl Typed for $t {
            const TYPE_CODE: u8 = $code;
        }
    )*};
}

fixed! {
    i8, codes::BYTE, "Byte", read_i8, |out, v| out.put_i8(*v);
    i16, codes::SHORT, "Short", read_i16, |out, v| out.put_i16(*v);
    i32, codes::INT, "Int", read_i32, |out, v| out.put_i32(*v);
    i64, codes::LONG, "Long", read_i64, |out, v| out.put_i64(*v);
    f32, codes::FLOAT, "Float", read_f32, |out, v| out.put_f32(*v);
    f64, codes::DOUBLE, "Double", read_f64, |out, v| out.put_f64(*v);
    bool, codes::BOOLEAN, "Boolean", read_bool, |out, v| out.put_u8(*v as u8);
    uuid::Uuid, codes::UUID, "UUID", read_uuid, |out, v| out.put_slice(v.as_bytes());
    char, codes::CHAR, "Char", read_char, |out, v| write::put_char(out, *v);
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
