//! The GraphBinary 1 slow path: a value larger than the read buffer (or any value when the
//! fast path is off), read field by field from a [`ReadBuffer`]. Each field goes through
//! `buf.read::<V1<..>>()`, which tries the fast path on the buffered bytes first and comes back
//! here only for a field that is itself larger than the buffer; Strings and ByteBuffers stream
//! into their destination.
//!
//! Field by field: List, Set, Map, BulkSet, Traverser, the elements (Vertex, Edge,
//! VertexProperty, Property, Path: the derive's GraphBinary 1 slow readers), String, Class,
//! ByteBuffer, BigInteger, BigDecimal, Binding, P, TextP, and the custom type's name. The other
//! bodies (fixed-size ones, tokens, and Tree, TinkerGraph, Bytecode, Lambda,
//! TraversalStrategy, Metrics, TraversalMetrics, a custom type's value) are read whole: they
//! must fit in the buffer, else the error names the buffer's capacity.

use std::future::Future;
use std::pin::Pin;

use graphbinary_core::v1::V1;
use graphbinary_core::{DecodeError, ErrorKind, ReadBuffer};
use tokio::io::AsyncRead;

use crate::value::{
    BigDecimal, BigInteger, Edge, Path, PrimitivePdt, Property, Value, Vertex, VertexProperty,
};

use crate::value::graphbinary4::GrowStack;

use super::codes;
use super::custom;
use super::reader::{composite, decode_body_at, predicate_value};

type Boxed<'a, T = Value> = Pin<Box<dyn Future<Output = Result<T, DecodeError>> + Send + 'a>>;

/// `buf.read::<V1<T>>()` as its own boxed future, so that no arm's future type nests another's.
fn element<'a, T: graphbinary_core::v1::DecodeV1 + 'a, R: AsyncRead + Unpin + Send>(
    buf: &'a mut ReadBuffer<R>,
) -> Boxed<'a, Box<T>> {
    Box::pin(async move { Ok(Box::new(buf.read::<V1<T>>().await?.0)) })
}

/// Reads one fully-qualified GraphBinary 1 value field by field.
///
/// # Cancel safety
/// Not cancel safe: the fields already read are consumed.
pub(crate) fn read_value_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> GrowStack<Boxed<'_>> {
    GrowStack(Box::pin(async move {
        let at = buf.offset();
        let code = buf.read_u8().await?;
        if code == codes::CUSTOM {
            let name = buf.read_string().await?;
            let Some(t) = custom::lookup(&name) else {
                return Err(DecodeError::new(
                    at,
                    ErrorKind::Invalid {
                        what: "GraphBinary 1 custom type",
                        detail: format!(
                            "custom type {name:?} (type code 0x00) at offset {at} has no reader; \
                             its value is not self-delimiting"
                        ),
                    },
                ));
            };
            return buf
                .read_with(|cur| t.decode(cur), "GraphBinary 1 custom value")
                .await;
        }
        if codes::name(code).is_none() {
            return Err(DecodeError::new(at, ErrorKind::UnknownTypeCode { code }));
        }
        match buf.read_u8().await? {
            0x00 if code != codes::UNSPECIFIED_NULL => {}
            0x01 => return Ok(Value::Null(code)),
            flag => {
                return Err(DecodeError::new(
                    at + 1,
                    ErrorKind::InvalidValueFlag {
                        what: codes::name(code).unwrap_or("value"),
                        flag,
                    },
                ))
            }
        }
        buf.enter()?;
        let v = Box::pin(body(buf, code, at)).await;
        buf.leave();
        v
    }))
}

async fn value<R: AsyncRead + Unpin + Send>(buf: &mut ReadBuffer<R>) -> Result<Value, DecodeError> {
    Ok(buf.read::<V1<Value>>().await?.0)
}

async fn values<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
) -> Result<Vec<Value>, DecodeError> {
    let n = buf.read_count(what).await?;
    // Grow with what arrives, never to the claimed count up front.
    let mut items = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        items.push(value(buf).await?);
    }
    Ok(items)
}

async fn map<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<Vec<(Value, Value)>, DecodeError> {
    let n = buf.read_count("Map").await?;
    let mut entries = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        let k = value(buf).await?;
        let v = value(buf).await?;
        entries.push((k, v));
    }
    Ok(entries)
}

async fn body<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    code: u8,
    at: u64,
) -> Result<Value, DecodeError> {
    use codes::*;
    Ok(match code {
        STRING => Value::String(buf.read_string().await?),
        CLASS => Value::PrimitivePdt(Box::new(PrimitivePdt {
            type_name: "g:Class".into(),
            value: buf.read_string().await?,
        })),
        LIST => Value::List(values(buf, "List").await?),
        SET => Value::Set(values(buf, "Set").await?),
        MAP => Value::Map(map(buf).await?),
        VERTEX => Value::Vertex(element::<Vertex, R>(buf).await?),
        EDGE => Value::Edge(element::<Edge, R>(buf).await?),
        VERTEX_PROPERTY => Value::VertexProperty(element::<VertexProperty, R>(buf).await?),
        PROPERTY => Value::Property(element::<Property, R>(buf).await?),
        PATH => Value::Path(element::<Path, R>(buf).await?),
        BYTE_BUFFER => Value::Binary(buf.read_len_prefixed("ByteBuffer").await?),
        BIG_INTEGER => Value::BigInteger(buf.read::<BigInteger>().await?),
        BIG_DECIMAL => {
            let scale = buf.read_i32().await?;
            let unscaled = buf.read::<BigInteger>().await?;
            Value::BigDecimal(Box::new(BigDecimal { scale, unscaled }))
        }
        TRAVERSER => {
            let bulk = buf.read_i64().await?;
            super::reader::traverser(bulk, value(buf).await?)
        }
        BULK_SET => {
            let n = buf.read_count("BulkSet").await?;
            let mut items = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let item = value(buf).await?;
                let bulk = buf.read_i64().await?;
                items.push((item, bulk));
            }
            Value::BulkList(items)
        }
        BINDING => {
            let key = buf.read_string().await?;
            let v = value(buf).await?;
            composite("g:Binding", vec![("key", Value::String(key)), ("value", v)])
        }
        P | TEXT_P => {
            let predicate = buf.read_string().await?;
            predicate_value(code, predicate, values(buf, "P values").await?)
        }
        // Read whole: fixed-size bodies, tokens, and the rarer structured types.
        _ => {
            buf.read_with(
                |cur| decode_body_at(cur, code, at),
                "a GraphBinary 1 value body (these types are read whole: at most the buffer's capacity)",
            )
            .await?
        }
    })
}
