//! Buffer primitives for GraphBinary 4.
//!
//! This crate knows nothing of HTTP, of Gremlin, or of any GraphBinary type beyond the
//! primitives. It provides:
//!
//! * [`ReadBuffer`], a read buffer over any [`tokio::io::AsyncRead`] with a synchronous fast
//!   path (decode from bytes already buffered, no `.await`, no allocation of its own) and an
//!   async slow path (refill; end of stream and cancellation keep their meaning);
//! * [`Cursor`], the fast path's view of the buffered bytes;
//! * the traits [`Decode`], [`Encode`] and [`Typed`] that derived and hand-written types
//!   implement, with implementations for the primitives and the generic layouts
//!   ([`Fq`], [`FqOpt`], [`Nullable`], `Vec<T>` as a List);
//! * [`write`](mod@write), big-endian write primitives into a [`bytes::BufMut`];
//! * [`Limits`] against hostile input, and typed errors ([`DecodeError`], [`EncodeError`]).
//!
//! # Example
//!
//! ```
//! use graphbinary_core::{Decode, Encode, Fq, ReadBuffer};
//!
//! let mut bytes = Vec::new();
//! Fq(String::from("marko")).encode(&mut bytes).unwrap();
//! assert_eq!(bytes, [0x03, 0x00, 0, 0, 0, 5, b'm', b'a', b'r', b'k', b'o']);
//!
//! let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let name = rt.block_on(async {
//!     let mut buf = ReadBuffer::with_capacity(3, &bytes[..]); // smaller than the value
//!     buf.read::<Fq<String>>().await
//! });
//! assert_eq!(name.unwrap().0, "marko");
//! ```

#![warn(missing_docs)]

/// Calls the macro `$m` with the primitive types whose layout and type code are the same in
/// GraphBinary 4 and 1: one list for `primitives` (their fully-qualified impls) and `v1`
/// (the GraphBinary 1 impls that forward to the GraphBinary 4 ones).
macro_rules! with_primitives_of_both_versions {
    ($($m:tt)*) => {
        $($m)*!(
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
            std::sync::Arc<str>
        );
    };
}

mod buffer;
pub mod codes;
mod cursor;
mod error;
mod intern;
mod layouts;
mod limits;
mod primitives;
mod private;
#[cfg(feature = "test-util")]
pub mod testing;
mod traits;
pub mod v1;
pub mod write;

pub use buffer::{ReadBuffer, DEFAULT_CAPACITY, MAX_PRIMITIVE_WIDTH};
pub use cursor::Cursor;
pub use error::{DecodeError, EncodeError, ErrorKind, FastError, FastResult};
pub use intern::{Interner, MAX_INTERNED_ENTRIES, MAX_INTERNED_LEN};
pub use layouts::{Fq, FqOpt, Nullable, Set};
pub use limits::Limits;
pub use traits::{
    decode_fq_typed, decode_fq_typed_slow, encode_fq_typed, Decode, Encode, FqDecode, FqEncode,
    Typed,
};

#[doc(hidden)]
pub mod __private {
    //! What the code `graphbinary-derive` generates calls: re-exports, and the runtime
    //! helpers of `private.rs`. Not a public API.
    pub use crate::private::*;
    pub use bytes::BufMut;
    pub use std::future::Future;
    pub use tokio::io::AsyncRead;
}
