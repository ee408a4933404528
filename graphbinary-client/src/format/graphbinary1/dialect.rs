//! The GraphBinary 1 dialect of the hand-written model types: `Value` (always fully
//! qualified), `BigInteger` (same bare layout as in GraphBinary 4) and `Labels` (one bare
//! String). The element structs get theirs from the derive (`#[graphbinary(v1)]` in
//! `generated/elements.rs`).

// The slow paths spell out `impl Future + Send`, as the traits do.
#![allow(clippy::manual_async_fn)]

use std::future::Future;

use bytes::BufMut;
use graphbinary_core::v1::{DecodeV1, EncodeV1, FqDecodeV1, FqEncodeV1, OneString};
use graphbinary_core::{Cursor, Decode, DecodeError, Encode, EncodeError, FastResult, ReadBuffer};
use tokio::io::AsyncRead;

use crate::value::{BigInteger, Labels, Value};

use super::reader::decode_value;
use super::slow::read_value_slow;
use super::writer::encode_value;

/// A `Value` field stands fully qualified, in GraphBinary 1 as in GraphBinary 4.
impl DecodeV1 for Value {
    const EXPECTED: &'static str = "fully-qualified GraphBinary 1 value";
    #[inline]
    fn decode_v1(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_value(cur)
    }
    fn decode_v1_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        read_value_slow(buf)
    }
}

impl FqDecodeV1 for Value {
    const EXPECTED: &'static str = "fully-qualified GraphBinary 1 value";
    #[inline]
    fn decode_fq_v1(cur: &mut Cursor<'_>) -> FastResult<Self> {
        decode_value(cur)
    }
    fn decode_fq_v1_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        read_value_slow(buf)
    }
}

impl EncodeV1 for Value {
    fn encode_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_value(self, out)
    }
}

impl FqEncodeV1 for Value {
    fn encode_fq_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_value(self, out)
    }
}

impl DecodeV1 for BigInteger {
    const EXPECTED: &'static str = "BigInteger";
    #[inline]
    fn decode_v1(cur: &mut Cursor<'_>) -> FastResult<Self> {
        <BigInteger as Decode>::decode(cur)
    }
    fn decode_v1_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        <BigInteger as Decode>::decode_slow(buf)
    }
}

impl EncodeV1 for BigInteger {
    fn encode_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        <BigInteger as Encode>::encode(self, out)
    }
}

/// Element labels: one bare String in GraphBinary 1.
impl OneString for Labels {
    fn one_string(&self) -> Result<&str, EncodeError> {
        match self.as_slice() {
            [one] => Ok(one),
            other => Err(EncodeError::Unrepresentable {
                what: "GraphBinary 1 label",
                detail: format!(
                    "{} labels; GraphBinary 1 writes exactly one (a bare String)",
                    other.len()
                ),
            }),
        }
    }
}
