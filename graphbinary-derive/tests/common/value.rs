//! A stand-in for the client's dynamic `Value`: Int, Long, String and the unspecified null,
//! with `FqDecode`/`FqEncode` written by hand (dispatch on the type code) and `Decode`/`Encode`
//! as its fully-qualified form, the way the real model does it.

// The slow path spells out `impl Future + Send`, as the trait declares it.
#![allow(clippy::manual_async_fn)]

use std::future::Future;

use bytes::BufMut;
use graphbinary_core::{
    codes, Cursor, Decode, DecodeError, Encode, EncodeError, ErrorKind, FastResult, FqDecode,
    FqEncode, ReadBuffer,
};
use tokio::io::AsyncRead;

/// A few of the GraphBinary types, as a dynamic value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Int.
    Int(i32),
    /// Long.
    Long(i64),
    /// String.
    String(String),
    /// The unspecified null `FE 01`.
    Null,
}

fn header(cur: &mut Cursor<'_>) -> FastResult<u8> {
    let at = cur.offset();
    let code = cur.read_u8()?;
    let present = cur.read_nullable_flag("Value")?;
    match (code, present) {
        (codes::UNSPECIFIED_NULL, false) => Ok(code),
        (codes::INT | codes::LONG | codes::STRING, true) => Ok(code),
        (codes::INT | codes::LONG | codes::STRING, false) => {
            Err(cur.error_at(at + 1, ErrorKind::UnexpectedNull { what: "Value" }))
        }
        _ => Err(cur.error_at(at, ErrorKind::UnknownTypeCode { code })),
    }
}

impl FqDecode for Value {
    const EXPECTED: &'static str = "Value";

    fn decode_fq(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(match header(cur)? {
            codes::INT => Value::Int(cur.read_i32()?),
            codes::LONG => Value::Long(cur.read_i64()?),
            codes::STRING => Value::String(cur.read_str()?.to_owned()),
            _ => Value::Null,
        })
    }

    fn decode_fq_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(match buf.read_with(header, "Value").await? {
                codes::INT => Value::Int(buf.read::<i32>().await?),
                codes::LONG => Value::Long(buf.read::<i64>().await?),
                codes::STRING => Value::String(buf.read::<String>().await?),
                _ => Value::Null,
            })
        }
    }
}

impl FqEncode for Value {
    fn encode_fq<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        match self {
            Value::Int(v) => graphbinary_core::encode_fq_typed(v, out),
            Value::Long(v) => graphbinary_core::encode_fq_typed(v, out),
            Value::String(v) => graphbinary_core::encode_fq_typed(v, out),
            Value::Null => {
                graphbinary_core::write::put_null(out, codes::UNSPECIFIED_NULL);
                Ok(())
            }
        }
    }
}

impl Decode for Value {
    const EXPECTED: &'static str = "Value";

    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Self::decode_fq(cur)
    }

    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        Self::decode_fq_slow(buf)
    }
}

impl Encode for Value {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.encode_fq(out)
    }
}
