//! The GraphBinary 1 dialect of the hand-written model types: `Value` (always fully
//! qualified), `BigInteger` (same bare layout as in GraphBinary 4) and `Labels` (one bare
//! String). The element structs get theirs from the derive (`#[graphbinary(v1)]` in
//! `generated/elements.rs`).

use bytes::BufMut;
use graphbinary_core::v1::{EncodeV1, FqEncodeV1, OneString};
use graphbinary_core::{Decode, Encode, EncodeError};

use crate::value::{BigInteger, Labels, Value};

use super::reader::decode_value;
use super::slow::read_value_slow;
use super::writer::encode_value;

graphbinary_core::impl_decode! {
    /// A `Value` field stands fully qualified, in GraphBinary 1 as in GraphBinary 4.
    DecodeV1 for Value {
        "fully-qualified GraphBinary 1 value";
        |cur| decode_value(cur);
        |buf| read_value_slow(buf)
    }
}

graphbinary_core::impl_decode! {
    FqDecodeV1 for Value {
        "fully-qualified GraphBinary 1 value";
        |cur| decode_value(cur);
        |buf| read_value_slow(buf)
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

graphbinary_core::impl_decode! {
    DecodeV1 for BigInteger {
        "BigInteger";
        |cur| <BigInteger as Decode>::decode(cur);
        |buf| <BigInteger as Decode>::decode_slow(buf)
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
