//! The GraphBinary 4 reader and writer of the dynamic [`Value`]: the header check, the fast path
//! over buffered bytes (dispatch on the type code), the async slow path that refills (growing
//! the stack for deep nesting) and the writer. The element types' readers and writers are
//! derived onto them (`generated/`); the other hand-written types' are beside them (`pdt.rs`,
//! `labels.rs`, `scalars.rs`, `structure.rs`).

// The slow paths spell out `impl Future + Send` so the Send bound is visible.
#![allow(clippy::manual_async_fn)]

use std::future::Future;
use std::pin::Pin;

use bytes::BufMut;
use graphbinary_core::{
    write, Cursor, Decode, DecodeError, Encode, EncodeError, ErrorKind, FastResult, FqEncode,
    Limits, ReadBuffer,
};
use tokio::io::AsyncRead;

use super::codes;
use super::dynamic::DEFAULT_LIMITS;
use super::{
    BigInteger, CompositePdt, DateTime, Direction, Duration, Graph, Merge, PrimitivePdt, Tree,
    Value, T,
};

impl Value {
    /// Decodes one whole fully-qualified value from `bytes`, which must hold exactly one.
    ///
    /// Errors name the byte offset from the start of `bytes`. The limits are those of
    /// [`ReadOptions::default`](crate::protocol::http4::response::ReadOptions).
    pub fn from_bytes(bytes: &[u8]) -> Result<Value, DecodeError> {
        Self::from_bytes_with(bytes, &DEFAULT_LIMITS)
    }

    /// [`Value::from_bytes`] with explicit limits.
    pub fn from_bytes_with(bytes: &[u8], limits: &Limits) -> Result<Value, DecodeError> {
        let mut interner = graphbinary_core::Interner::new();
        let mut cur = Cursor::new(bytes, 0, limits).with_interner(&mut interner);
        let v = complete(decode_value(&mut cur), bytes.len(), "the rest of the value")?;
        expect_end(&cur, bytes.len(), "value", "trailing bytes after the value")?;
        Ok(v)
    }

    /// Encodes this value fully-qualified.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        self.encode_fq(&mut out)?;
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------------
// Headers

/// What a header announced: a present value (with its flag) or a null.
#[derive(Clone, Copy)]
pub(crate) enum Header {
    Null(u8),
    Value(u8, u8),
}

/// Reads and checks `{type_code}{value_flag}`.
#[inline]
pub(crate) fn read_header(cur: &mut Cursor<'_>) -> FastResult<Header> {
    // Both bytes at once, checked with one table look-up; anything else (fewer than two
    // bytes buffered, a bad code or flag) goes the byte-by-byte way, which names the error.
    match cur.remaining() {
        &[code, flag, ..] if codes::allows_flag(code, flag) => {
            cur.read_array::<2>()?;
            Ok(if flag == 0x01 {
                Header::Null(code)
            } else {
                Header::Value(code, flag)
            })
        }
        _ => read_header_checked(cur),
    }
}

/// [`read_header`] a byte at a time: "need more" after the code, or the error at the byte
/// that is wrong.
#[cold]
fn read_header_checked(cur: &mut Cursor<'_>) -> FastResult<Header> {
    let at = cur.offset();
    let code = cur.read_u8()?;
    let Some(what) = codes::name(code) else {
        return Err(cur.error_at(at, ErrorKind::UnknownTypeCode { code }));
    };
    let flag = cur.read_u8()?;
    // The flags each type allows come from `spec/types.toml`.
    if !codes::allows_flag(code, flag) {
        let what = if code == codes::UNSPECIFIED_NULL {
            "unspecified null (only 0x01 is allowed)"
        } else {
            what
        };
        return Err(cur.error_at(at + 1, ErrorKind::InvalidValueFlag { what, flag }));
    }
    Ok(if flag == 0x01 {
        Header::Null(code)
    } else {
        Header::Value(code, flag)
    })
}

/// Reads a fully-qualified, non-null String (the layout of enums and PDT type names).
#[inline]
pub(crate) fn read_fq_str<'a>(cur: &mut Cursor<'a>, what: &'static str) -> FastResult<&'a str> {
    cur.expect_fq_non_null(codes::STRING, what)?;
    cur.read_str()
}

/// Slow-path [`read_fq_str`] (streams long strings).
pub(crate) async fn read_fq_string<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
) -> Result<String, DecodeError> {
    buf.read_with(|cur| cur.expect_fq_non_null(codes::STRING, what), what)
        .await?;
    buf.read::<String>().await
}

pub(crate) fn put_fq_str<B: BufMut>(out: &mut B, s: &str) -> Result<(), EncodeError> {
    write::put_header(out, codes::STRING);
    write::put_str(out, s)
}

// ---------------------------------------------------------------------------------------------
// Fast path

/// Reads `{count}` and the count's fully-qualified values; `min_item` is the smallest number of
/// bytes one item can take, so that a count that cannot be buffered bails out at once.
#[inline]
fn decode_values(cur: &mut Cursor<'_>, what: &'static str) -> FastResult<Vec<Value>> {
    cur.enter()?;
    let v = cur.read_counted(what, 2, decode_value)?;
    cur.leave();
    Ok(v)
}

#[inline]
fn decode_bulk_items(cur: &mut Cursor<'_>) -> FastResult<Vec<(Value, i64)>> {
    cur.enter()?;
    let v = cur.read_counted("List", 10, |cur| Ok((decode_value(cur)?, cur.read_i64()?)))?;
    cur.leave();
    Ok(v)
}

#[inline]
pub(crate) fn decode_entries(cur: &mut Cursor<'_>) -> FastResult<Vec<(Value, Value)>> {
    cur.enter()?;
    let v = cur.read_counted("Map", 4, |cur| Ok((decode_value(cur)?, decode_value(cur)?)))?;
    cur.leave();
    Ok(v)
}

/// Fast path: one whole fully-qualified value.
///
/// The arms that build larger values call out to small functions, so that this frame (one
/// per nesting level) stays small.
pub(crate) fn decode_value(cur: &mut Cursor<'_>) -> FastResult<Value> {
    let (code, flag) = match read_header(cur)? {
        Header::Null(code) => return Ok(Value::Null(code)),
        Header::Value(code, flag) => (code, flag),
    };
    match code {
        codes::INT => Ok(Value::Int(cur.read_i32()?)),
        codes::LONG => Ok(Value::Long(cur.read_i64()?)),
        codes::STRING => Ok(Value::String(cur.read_str()?.to_owned())),
        codes::DOUBLE => Ok(Value::Double(cur.read_f64()?)),
        codes::FLOAT => Ok(Value::Float(cur.read_f32()?)),
        codes::UUID => Ok(Value::Uuid(cur.read_uuid()?)),
        codes::BYTE => Ok(Value::Byte(cur.read_i8()?)),
        codes::SHORT => Ok(Value::Short(cur.read_i16()?)),
        codes::BOOLEAN => Ok(Value::Boolean(cur.read_bool()?)),
        codes::CHAR => Ok(Value::Char(cur.read_char()?)),
        _ => decode_structured(cur, code, flag),
    }
}

/// Stack kept free below each structured value: when less remains, the next levels run on a
/// fresh heap-allocated stack segment of [`STACK_SEGMENT`] bytes (see [`stacker`]). Together
/// with the depth limit this makes the readers safe on any thread stack, also in unoptimized
/// builds, where one nesting level can take tens of KiB of stack.
const RED_ZONE: usize = 128 * 1024;
/// Size of each extra stack segment.
const STACK_SEGMENT: usize = 2 * 1024 * 1024;

#[inline(never)]
fn decode_structured(cur: &mut Cursor<'_>, code: u8, flag: u8) -> FastResult<Value> {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
        decode_structured_here(cur, code, flag)
    })
}

fn decode_structured_here(cur: &mut Cursor<'_>, code: u8, flag: u8) -> FastResult<Value> {
    match code {
        codes::DATE_TIME => Ok(Value::DateTime(DateTime::decode(cur)?)),
        codes::LIST if flag == 0x02 => decode_bulk_items(cur).map(Value::BulkList),
        codes::LIST => decode_values(cur, "List").map(Value::List),
        codes::MAP if flag == 0x02 => decode_entries(cur).map(Value::OrderedMap),
        codes::MAP => decode_entries(cur).map(Value::Map),
        codes::SET => decode_values(cur, "Set").map(Value::Set),
        codes::EDGE => nested(cur, Value::Edge),
        codes::PATH => nested(cur, Value::Path),
        codes::PROPERTY => nested(cur, Value::Property),
        codes::GRAPH => boxed(cur, Value::Graph),
        codes::VERTEX => nested(cur, Value::Vertex),
        codes::VERTEX_PROPERTY => nested(cur, Value::VertexProperty),
        codes::DIRECTION => Direction::decode(cur).map(Value::Direction),
        codes::T => T::decode(cur).map(Value::T),
        codes::BIG_DECIMAL => boxed(cur, Value::BigDecimal),
        codes::BIG_INTEGER => BigInteger::decode(cur).map(Value::BigInteger),
        codes::BINARY => Ok(Value::Binary(cur.read_len_prefixed("Binary")?.to_vec())),
        codes::TREE => Tree::decode(cur).map(Value::Tree),
        codes::MERGE => Merge::decode(cur).map(Value::Merge),
        codes::COMPOSITE_PDT => boxed(cur, Value::CompositePdt),
        codes::PRIMITIVE_PDT => boxed(cur, Value::PrimitivePdt),
        codes::MARKER => decode_marker_value(cur).map(|()| Value::Marker),
        codes::DURATION => Duration::decode(cur).map(Value::Duration),
        // read_header admits only the codes handled here and in decode_value.
        other => Err(cur.error(ErrorKind::UnknownTypeCode { code: other })),
    }
}

/// Decodes a `T` straight into its box.
#[inline]
fn boxed<T: Decode>(cur: &mut Cursor<'_>, wrap: fn(Box<T>) -> Value) -> FastResult<Value> {
    T::decode(cur).map(|v| wrap(Box::new(v)))
}

/// Decodes a structured element (one that holds further values) into its box, counting it as
/// one nesting level: the depth is checked before recursing, so no input can overflow the
/// stack.
#[inline]
fn nested<T: Decode>(cur: &mut Cursor<'_>, wrap: fn(Box<T>) -> Value) -> FastResult<Value> {
    cur.enter()?;
    let v = T::decode(cur)?;
    cur.leave();
    Ok(wrap(Box::new(v)))
}

/// The Marker's 1-byte value, which must be 0x00.
pub(crate) fn decode_marker_value(cur: &mut Cursor<'_>) -> FastResult<()> {
    let at = cur.offset();
    match cur.read_u8()? {
        0 => Ok(()),
        b => Err(cur.error_at(
            at,
            ErrorKind::Invalid {
                what: "Marker",
                detail: format!("value byte 0x{b:02x}, expected 0x00"),
            },
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Slow path

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

async fn read_values_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
) -> Result<Vec<Value>, DecodeError> {
    buf.enter()?;
    let n = buf.read_count(what).await?;
    let mut v = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        v.push(buf.read::<Value>().await?);
    }
    buf.leave();
    Ok(v)
}

pub(crate) async fn read_entries_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<Vec<(Value, Value)>, DecodeError> {
    read_pairs_slow(buf, "Map").await
}

/// Slow path of `{length}` then `length` pairs `{a}{b}`, each part read through the fast path:
/// a Map's keys and values, a BulkList's items and bulks, a Tree's keys and children.
pub(crate) async fn read_pairs_slow<A: Decode, B: Decode, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
) -> Result<Vec<(A, B)>, DecodeError> {
    buf.enter()?;
    let n = buf.read_count(what).await?;
    let mut v = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        let a = buf.read::<A>().await?;
        let b = buf.read::<B>().await?;
        v.push((a, b));
    }
    buf.leave();
    Ok(v)
}

/// Slow path: a fully-qualified value read piece by piece; every piece re-enters the fast path.
///
/// Each nesting level costs one boxed future here and one in [`read_body_slow`], so that the
/// stack used while polling a deeply nested value stays small per level (the frame of this
/// future's `poll` holds only the header read and a pointer); the depth limit bounds the
/// number of levels.
pub(crate) fn read_value_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> GrowStack<BoxFuture<'_, Result<Value, DecodeError>>> {
    GrowStack(Box::pin(async move {
        match buf
            .read_with(read_header, "type code and value flag")
            .await?
        {
            Header::Null(code) => Ok(Value::Null(code)),
            Header::Value(code, flag) => read_body_slow(buf, code, flag).await,
        }
    }))
}

/// A future polled on a fresh stack segment when the current stack runs low (the slow-path
/// counterpart of [`decode_structured`]'s [`stacker::maybe_grow`]): polling a value nested
/// `n` deep polls `n` futures inside one another.
pub(crate) struct GrowStack<F>(pub(crate) F);

impl<F: Future + Unpin> Future for GrowStack<F> {
    type Output = F::Output;
    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let inner = &mut self.0;
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || Pin::new(inner).poll(cx))
    }
}

/// Reads a structured element (one that holds further values) on the slow path, counting it
/// as one nesting level.
async fn nested_slow<R: AsyncRead + Unpin + Send, T: Decode>(
    buf: &mut ReadBuffer<R>,
) -> Result<Box<T>, DecodeError> {
    buf.enter()?;
    let v = T::decode_slow(buf).await?;
    buf.leave();
    Ok(Box::new(v))
}

/// Slow path: the value after its header. Every arm is its own boxed future, so no arm's
/// state or temporaries weigh on the stack of another (which matters for deep nesting in
/// unoptimized builds).
pub(crate) fn read_body_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    code: u8,
    flag: u8,
) -> BoxFuture<'_, Result<Value, DecodeError>> {
    macro_rules! arm {
        ($e:expr) => {
            Box::pin(async move { Ok($e) })
        };
    }
    match code {
        codes::INT => arm!(Value::Int(buf.read().await?)),
        codes::LONG => arm!(Value::Long(buf.read().await?)),
        codes::STRING => arm!(Value::String(buf.read().await?)),
        codes::DATE_TIME => arm!(Value::DateTime(buf.read().await?)),
        codes::DOUBLE => arm!(Value::Double(buf.read().await?)),
        codes::FLOAT => arm!(Value::Float(buf.read().await?)),
        codes::LIST if flag == 0x02 => arm!(Value::BulkList(read_pairs_slow(buf, "List").await?)),
        codes::LIST => arm!(Value::List(read_values_slow(buf, "List").await?)),
        codes::MAP if flag == 0x02 => arm!(Value::OrderedMap(read_entries_slow(buf).await?)),
        codes::MAP => arm!(Value::Map(read_entries_slow(buf).await?)),
        codes::SET => arm!(Value::Set(read_values_slow(buf, "Set").await?)),
        codes::UUID => arm!(Value::Uuid(buf.read().await?)),
        codes::EDGE => arm!(Value::Edge(nested_slow(buf).await?)),
        codes::PATH => arm!(Value::Path(nested_slow(buf).await?)),
        codes::PROPERTY => arm!(Value::Property(nested_slow(buf).await?)),
        codes::GRAPH => arm!(Value::Graph(Box::new(Graph::decode_slow(buf).await?))),
        codes::VERTEX => arm!(Value::Vertex(nested_slow(buf).await?)),
        codes::VERTEX_PROPERTY => arm!(Value::VertexProperty(nested_slow(buf).await?)),
        codes::DIRECTION => arm!(Value::Direction(buf.read().await?)),
        codes::T => arm!(Value::T(buf.read().await?)),
        codes::BIG_DECIMAL => arm!(Value::BigDecimal(Box::new(buf.read().await?))),
        codes::BIG_INTEGER => arm!(Value::BigInteger(buf.read().await?)),
        codes::BYTE => arm!(Value::Byte(buf.read().await?)),
        codes::BINARY => arm!(Value::Binary(buf.read_len_prefixed("Binary").await?)),
        codes::SHORT => arm!(Value::Short(buf.read().await?)),
        codes::BOOLEAN => arm!(Value::Boolean(buf.read().await?)),
        codes::TREE => arm!(Value::Tree(Tree::decode_slow(buf).await?)),
        codes::MERGE => arm!(Value::Merge(buf.read().await?)),
        codes::COMPOSITE_PDT => {
            arm!(Value::CompositePdt(Box::new(
                CompositePdt::decode_slow(buf).await?
            )))
        }
        codes::PRIMITIVE_PDT => {
            arm!(Value::PrimitivePdt(Box::new(
                PrimitivePdt::decode_slow(buf).await?
            )))
        }
        codes::MARKER => arm!({
            buf.read_with(decode_marker_value, "Marker").await?;
            Value::Marker
        }),
        codes::CHAR => arm!(Value::Char(buf.read().await?)),
        codes::DURATION => arm!(Value::Duration(buf.read().await?)),
        other => {
            let e = buf.error(ErrorKind::UnknownTypeCode { code: other });
            Box::pin(async move { Err(e) })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Writer

fn encode_values<B: BufMut>(
    out: &mut B,
    items: &[Value],
    what: &'static str,
) -> Result<(), EncodeError> {
    write::put_len(out, items.len(), what)?;
    for v in items {
        v.encode_fq(out)?;
    }
    Ok(())
}

pub(crate) fn encode_entries<B: BufMut>(
    out: &mut B,
    entries: &[(Value, Value)],
) -> Result<(), EncodeError> {
    write::put_len(out, entries.len(), "Map")?;
    for (k, v) in entries {
        k.encode_fq(out)?;
        v.encode_fq(out)?;
    }
    Ok(())
}

impl FqEncode for Value {
    fn encode_fq<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        let code = self.type_code();
        match self {
            Value::Null(c) => {
                write::put_null(out, *c);
                return Ok(());
            }
            Value::BulkList(_) | Value::OrderedMap(_) => {
                out.put_u8(code);
                out.put_u8(0x02);
            }
            _ => write::put_header(out, code),
        }
        match self {
            Value::Null(_) => Ok(()),
            Value::Int(v) => v.encode(out),
            Value::Long(v) => v.encode(out),
            Value::String(v) => write::put_str(out, v),
            Value::DateTime(v) => v.encode(out),
            Value::Double(v) => v.encode(out),
            Value::Float(v) => v.encode(out),
            Value::List(v) => encode_values(out, v, "List"),
            Value::BulkList(v) => {
                write::put_len(out, v.len(), "List")?;
                for (item, bulk) in v {
                    item.encode_fq(out)?;
                    out.put_i64(*bulk);
                }
                Ok(())
            }
            Value::Map(v) | Value::OrderedMap(v) => encode_entries(out, v),
            Value::Set(v) => encode_values(out, v, "Set"),
            Value::Uuid(v) => v.encode(out),
            Value::Edge(v) => v.encode(out),
            Value::Path(v) => v.encode(out),
            Value::Property(v) => v.encode(out),
            Value::Graph(v) => v.encode(out),
            Value::Vertex(v) => v.encode(out),
            Value::VertexProperty(v) => v.encode(out),
            Value::Direction(v) => v.encode(out),
            Value::T(v) => v.encode(out),
            Value::BigDecimal(v) => v.encode(out),
            Value::BigInteger(v) => v.encode(out),
            Value::Byte(v) => v.encode(out),
            Value::Binary(v) => write::put_bytes(out, v, "Binary"),
            Value::Short(v) => v.encode(out),
            Value::Boolean(v) => v.encode(out),
            Value::Tree(v) => v.encode(out),
            Value::Merge(v) => v.encode(out),
            Value::CompositePdt(v) => v.encode(out),
            Value::PrimitivePdt(v) => v.encode(out),
            Value::Marker => {
                out.put_u8(0);
                Ok(())
            }
            Value::Char(v) => v.encode(out),
            Value::Duration(v) => v.encode(out),
        }
    }
}

graphbinary_core::impl_decode! {
    FqDecode for Value {
        "fully-qualified value";
        |cur| decode_value(cur);
        |buf| read_value_slow(buf)
    }
}

graphbinary_core::impl_decode! {
    /// A `Value` field stands fully-qualified: its bare form is its fully-qualified form.
    Decode for Value {
        "fully-qualified value";
        |cur| decode_value(cur);
        |buf| read_value_slow(buf)
    }
}

impl Encode for Value {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.encode_fq(out)
    }
}

/// Turns a fast-path result over bytes that are all there is into a plain result: "need more"
/// is the end of the input at `end`.
pub(crate) fn complete<T>(
    r: FastResult<T>,
    end: usize,
    expected: &'static str,
) -> Result<T, DecodeError> {
    match r {
        Ok(v) => Ok(v),
        Err(graphbinary_core::FastError::Invalid(e)) => Err(e),
        Err(graphbinary_core::FastError::NeedMore(_)) => Err(DecodeError::new(
            end as u64,
            ErrorKind::UnexpectedEof { expected },
        )),
    }
}

/// Ok when `cur` has read all `len` bytes of its slice (one whole `what`); otherwise an error
/// at the first byte left over, "`{n} {left}`" (e.g. `3 trailing bytes after the value`).
pub(crate) fn expect_end(
    cur: &Cursor<'_>,
    len: usize,
    what: &'static str,
    left: &str,
) -> Result<(), DecodeError> {
    if cur.position() == len {
        return Ok(());
    }
    Err(DecodeError::new(
        cur.offset(),
        ErrorKind::Invalid {
            what,
            detail: format!("{} {left}", len - cur.position()),
        },
    ))
}
