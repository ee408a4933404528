//! The GraphBinary 1 dialect (TinkerPop 3.x) of the traits: [`DecodeV1`], [`EncodeV1`],
//! [`TypedV1`], [`FqDecodeV1`], [`FqEncodeV1`], the same fast/slow shape as their GraphBinary 4
//! counterparts, and the layouts in that dialect ([`V1`], [`FqV1`], [`FqOptV1`], `Vec<T>`,
//! [`Set`]).
//!
//! `#[derive(GraphBinary)]` with `#[graphbinary(v1)]` writes these beside the GraphBinary 4
//! impls from the same annotated type; the GraphBinary 4 impls are not changed by it. Only what
//! differs between the versions needs an attribute (`#[graphbinary(v1 = "string")]`: a bare
//! String in GraphBinary 1 where GraphBinary 4 has a List, through [`OneString`]).
//!
//! The primitives (numbers, Boolean, UUID, Char, String, `Arc<str>`) have the same bare layout
//! and the same type code in both versions, so their v1 impls delegate to the GraphBinary 4
//! ones. The type codes that differ (0x04 is Date in GraphBinary 1, DateTime in GraphBinary 4)
//! belong to types whose v1 readers live with the GraphBinary 1 `Value` reader.
//!
//! The layouts' logic is not repeated here: `FqOptV1`, `NullableV1`, `Vec<T>` and `Set<T>` call
//! the readers and the writer in `layouts.rs` that the GraphBinary 4 layouts call, with the
//! version 1 item and value readers (`V1<T>`, `FqV1<T>`, `decode_fq_v1`, `encode_fq_v1`).

// The slow paths spell out `impl Future + Send`, as in `layouts.rs`.
#![allow(clippy::manual_async_fn)]

use std::future::Future;
use std::sync::Arc;

use bytes::BufMut;
use tokio::io::AsyncRead;

use crate::buffer::ReadBuffer;
use crate::codes;
use crate::cursor::Cursor;
use crate::error::{DecodeError, EncodeError, ErrorKind, FastResult};
use crate::layouts::{
    decode_fq_opt, decode_fq_opt_slow, decode_items, decode_items_slow, decode_nullable,
    decode_nullable_slow, encode_items, Set,
};
use crate::traits::{Decode, Encode, FqDecode, FqEncode, Typed};
use crate::write;

/// [`Decode`] in GraphBinary 1: the bare `{value}` form of a type in the version 1 dialect.
pub trait DecodeV1: Sized + Send {
    /// What a value of this type is called in error messages.
    const EXPECTED: &'static str;

    /// Fast path: decodes a whole value from the cursor's buffered bytes.
    fn decode_v1(cur: &mut Cursor<'_>) -> FastResult<Self>;

    /// Slow path: reads a value field by field, refilling as needed (each field through
    /// `buf.read::<V1<F>>()`, which re-enters the fast path).
    ///
    /// # Cancel safety
    /// Not cancel safe in general: a field already read is consumed.
    fn decode_v1_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send;
}

/// [`Encode`] in GraphBinary 1.
pub trait EncodeV1 {
    /// Writes the bare value.
    fn encode_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError>;
}

/// [`Typed`] in GraphBinary 1: the type's GraphBinary 1 code.
pub trait TypedV1 {
    /// The GraphBinary 1 type code.
    const TYPE_CODE_V1: u8;
}

/// [`FqDecode`] in GraphBinary 1: `{type_code}{value_flag}{value}`.
pub trait FqDecodeV1: Sized + Send {
    /// What a value of this type is called in error messages.
    const EXPECTED: &'static str;

    /// Fast path.
    fn decode_fq_v1(cur: &mut Cursor<'_>) -> FastResult<Self>;

    /// Slow path.
    ///
    /// # Cancel safety
    /// Not cancel safe in general.
    fn decode_fq_v1_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send;
}

/// [`FqEncode`] in GraphBinary 1.
pub trait FqEncodeV1 {
    /// Writes `{type_code}{value_flag}{value}`.
    fn encode_fq_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError>;
}

/// A field that is a List of Strings in GraphBinary 4 and one bare String in GraphBinary 1
/// (element labels): `#[graphbinary(v1 = "string")]` reads it with `From<Arc<str>>` and writes
/// [`OneString::one_string`].
pub trait OneString: From<Arc<str>> {
    /// The one String to write, or an error when the value does not hold exactly one.
    fn one_string(&self) -> Result<&str, EncodeError>;
}

/// [`FqDecodeV1::decode_fq_v1`] for a [`TypedV1`] type.
#[inline]
pub fn decode_fq_v1_typed<T: DecodeV1 + TypedV1>(cur: &mut Cursor<'_>) -> FastResult<T> {
    cur.expect_fq_non_null(T::TYPE_CODE_V1, T::EXPECTED)?;
    T::decode_v1(cur)
}

/// [`FqDecodeV1::decode_fq_v1_slow`] for a [`TypedV1`] type.
///
/// # Cancel safety
/// Cancel safe up to the value itself; then as `T`'s slow path.
pub async fn decode_fq_v1_typed_slow<T: DecodeV1 + TypedV1, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<T, DecodeError> {
    buf.read_with(
        |cur| cur.expect_fq_non_null(T::TYPE_CODE_V1, T::EXPECTED),
        T::EXPECTED,
    )
    .await?;
    Ok(buf.read::<V1<T>>().await?.0)
}

/// [`FqEncodeV1::encode_fq_v1`] for a [`TypedV1`] type.
#[inline]
pub fn encode_fq_v1_typed<T: EncodeV1 + TypedV1, B: BufMut>(
    v: &T,
    out: &mut B,
) -> Result<(), EncodeError> {
    write::put_header(out, T::TYPE_CODE_V1);
    v.encode_v1(out)
}

/// A value read and written in GraphBinary 1: its [`Decode`] is `T`'s [`DecodeV1`], so that
/// `ReadBuffer::read::<V1<T>>()` runs the version 1 fast path, refills, and falls back to the
/// version 1 slow path for a value larger than the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct V1<T>(pub T);

crate::impl_decode! {
    [T: DecodeV1] Decode for V1<T> {
        T::EXPECTED;
        |cur| T::decode_v1(cur).map(V1);
        |buf| async move { T::decode_v1_slow(buf).await.map(V1) }
    }
}
impl<T: EncodeV1> Encode for V1<T> {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.0.encode_v1(out)
    }
}

/// A fully-qualified, non-null value in GraphBinary 1 (an `fq` field of a `v1` type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FqV1<T>(pub T);

crate::impl_decode! {
    [T: FqDecodeV1] DecodeV1 for FqV1<T> {
        T::EXPECTED;
        |cur| T::decode_fq_v1(cur).map(FqV1);
        |buf| async move { T::decode_fq_v1_slow(buf).await.map(FqV1) }
    }
}

/// A fully-qualified, nullable value in GraphBinary 1 (an `fq, nullable` field of a `v1`
/// type): `{code}{0x00}{value}`, `{code}{0x01}` or `FE 01`; a null is written `FE 01`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FqOptV1<T>(pub Option<T>);

crate::impl_decode! {
    [T: DecodeV1 + TypedV1] DecodeV1 for FqOptV1<T> {
        T::EXPECTED;
        |cur| decode_fq_opt::<V1<T>, T>(cur, T::TYPE_CODE_V1, |v| v.0).map(FqOptV1);
        |buf| async move {
            decode_fq_opt_slow::<V1<T>, T, R>(buf, T::TYPE_CODE_V1, |v| v.0)
                .await
                .map(FqOptV1)
        }
    }
}

/// A bare nullable value in GraphBinary 1: `{value_flag}{value}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct NullableV1<T>(pub Option<T>);

crate::impl_decode! {
    [T: DecodeV1] DecodeV1 for NullableV1<T> {
        T::EXPECTED;
        |cur| decode_nullable::<V1<T>, T>(cur, |v| v.0).map(NullableV1);
        |buf| async move {
            decode_nullable_slow::<V1<T>, T, R>(buf, |v| v.0)
                .await
                .map(NullableV1)
        }
    }
}

/// The primitives: same bare layout and type code in both versions.
macro_rules! same_in_both {
    ($($t:ty),* $(,)?) => {$(
        crate::impl_decode! {
            DecodeV1 for $t {
                <$t as Decode>::EXPECTED;
                |cur| <$t as Decode>::decode(cur);
                |buf| <$t as Decode>::decode_slow(buf)
            }
        }
        impl EncodeV1 for $t {
            #[inline]
            fn encode_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
                <$t as Encode>::encode(self, out)
            }
        }
        impl TypedV1 for $t {
            const TYPE_CODE_V1: u8 = <$t as Typed>::TYPE_CODE;
        }
        crate::impl_decode! {
            FqDecodeV1 for $t {
                <$t as FqDecode>::EXPECTED;
                |cur| <$t as FqDecode>::decode_fq(cur);
                |buf| <$t as FqDecode>::decode_fq_slow(buf)
            }
        }
        impl FqEncodeV1 for $t {
            #[inline]
            fn encode_fq_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
                <$t as FqEncode>::encode_fq(self, out)
            }
        }
    )*};
}

with_primitives_of_both_versions!(same_in_both);

crate::impl_decode! {
    /// A bare List of fully-qualified GraphBinary 1 items.
    [T: FqDecodeV1] DecodeV1 for Vec<T> {
        "List";
        |cur| decode_items(cur, "List", T::decode_fq_v1);
        |buf| decode_items_slow::<V1<FqV1<T>>, T, R>(buf, "List", |v| v.0 .0)
    }
}
impl<T: FqEncodeV1> EncodeV1 for Vec<T> {
    fn encode_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_items(self, out, "List", T::encode_fq_v1)
    }
}

crate::impl_decode! {
    /// A bare Set of fully-qualified GraphBinary 1 items.
    [T: FqDecodeV1] DecodeV1 for Set<T> {
        "Set";
        |cur| decode_items(cur, "Set", T::decode_fq_v1).map(Set);
        |buf| async move {
            decode_items_slow::<V1<FqV1<T>>, T, R>(buf, "Set", |v| v.0 .0)
                .await
                .map(Set)
        }
    }
}
impl<T: FqEncodeV1> EncodeV1 for Set<T> {
    fn encode_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        encode_items(&self.0, out, "Set", T::encode_fq_v1)
    }
}

macro_rules! fq_collection {
    ($($ty:ident, $code:expr;)*) => {$(
        impl<T> TypedV1 for $ty<T> {
            const TYPE_CODE_V1: u8 = $code;
        }
        crate::impl_decode! {
            [T: FqDecodeV1] FqDecodeV1 for $ty<T> {
                <$ty<T> as DecodeV1>::EXPECTED;
                |cur| decode_fq_v1_typed(cur);
                |buf| decode_fq_v1_typed_slow::<Self, R>(buf)
            }
        }
        impl<T: FqEncodeV1> FqEncodeV1 for $ty<T> {
            fn encode_fq_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
                encode_fq_v1_typed(self, out)
            }
        }
    )*};
}

// List 0x09 and Set 0x0b: the same codes in both versions.
fq_collection! {
    Vec, codes::LIST;
    Set, codes::SET;
}

// ---------------------------------------------------------------------------------------------
// Custom types (type code 0x00) and sentinel fields.

/// The GraphBinary 1 type code of a custom type.
const CUSTOM: u8 = 0x00;

/// A GraphBinary 1 custom type (type code `0x00`) in the layout JanusGraph writes its types in:
/// `{0x00}{name String}{custom_type_info Int}{value_flag}{value}`, where `{value}` is the type's
/// bare [`DecodeV1`] / [`EncodeV1`] form (its fields in order).
///
/// Derived with `#[graphbinary(v1_custom = "janusgraph.RelationIdentifier", v1_custom_info =
/// 0x1001)]`, which also implements [`FqDecodeV1`] / [`FqEncodeV1`] as the whole form above
/// (non-null), so that a custom type can be an `fq` field of another GraphBinary 1 type. The
/// readers of what follows the name, for a registry of custom types keyed by name, are
/// [`decode_custom_v1_body`], [`decode_custom_v1_body_slow`] and [`encode_custom_v1_body`].
///
/// A custom value's length is nowhere on the wire: a reader that does not know the name
/// cannot step over it.
pub trait CustomV1: DecodeV1 + EncodeV1 {
    /// The type name on the wire, e.g. `janusgraph.RelationIdentifier`.
    const CUSTOM_NAME: &'static str;
    /// The custom type info written after the name (JanusGraph: an Int per type, `0x1001` for
    /// `RelationIdentifier`).
    const CUSTOM_INFO: i32;
}

/// `{custom_type_info Int}{value_flag}`: `true` for a value, `false` for a null.
fn custom_info_and_flag<T: CustomV1>(cur: &mut Cursor<'_>) -> FastResult<bool> {
    let at = cur.offset();
    let info = cur.read_i32()?;
    if info != T::CUSTOM_INFO {
        return Err(cur.error_at(at, custom_info_error::<T>(info)));
    }
    cur.read_nullable_flag(T::EXPECTED)
}

#[cold]
fn custom_info_error<T: CustomV1>(info: i32) -> ErrorKind {
    ErrorKind::Invalid {
        what: "GraphBinary 1 custom type info",
        detail: format!(
            "{}: custom type info 0x{info:x}, expected 0x{:x}",
            T::CUSTOM_NAME,
            T::CUSTOM_INFO
        ),
    }
}

/// Reads what follows a custom type's name, `{custom_type_info}{value_flag}{value}`, from
/// buffered bytes: `None` for a null (value flag `0x01`). A custom type info other than
/// [`CustomV1::CUSTOM_INFO`] is an error at its offset.
#[inline]
pub fn decode_custom_v1_body<T: CustomV1>(cur: &mut Cursor<'_>) -> FastResult<Option<T>> {
    if custom_info_and_flag::<T>(cur)? {
        T::decode_v1(cur).map(Some)
    } else {
        Ok(None)
    }
}

/// [`decode_custom_v1_body`] on the slow path: the header as it arrives, then the value
/// through `buf.read::<V1<T>>()` (its fast path, or its field-by-field slow path when it is
/// larger than the buffer).
///
/// # Cancel safety
/// Not cancel safe: the custom type info is consumed before the value flag is read.
pub async fn decode_custom_v1_body_slow<T: CustomV1, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<Option<T>, DecodeError> {
    let at = buf.offset();
    let info = buf.read_i32().await?;
    if info != T::CUSTOM_INFO {
        return Err(DecodeError::new(at, custom_info_error::<T>(info)));
    }
    if buf.read_nullable_flag(T::EXPECTED).await? {
        Ok(Some(buf.read::<V1<T>>().await?.0))
    } else {
        Ok(None)
    }
}

/// Writes what follows a custom type's name: `{custom_type_info}{0x00}{value}`, or
/// `{custom_type_info}{0x01}` for `None`.
#[inline]
pub fn encode_custom_v1_body<T: CustomV1, B: BufMut>(
    value: Option<&T>,
    out: &mut B,
) -> Result<(), EncodeError> {
    out.put_i32(T::CUSTOM_INFO);
    match value {
        Some(v) => {
            out.put_u8(0x00);
            v.encode_v1(out)
        }
        None => {
            out.put_u8(0x01);
            Ok(())
        }
    }
}

/// `{0x00}{name String}`: the name must be `T`'s.
fn custom_header<T: CustomV1>(cur: &mut Cursor<'_>) -> FastResult<()> {
    cur.expect_type_code(CUSTOM, T::EXPECTED)?;
    let at = cur.offset();
    let name = cur.read_str()?;
    if name != T::CUSTOM_NAME {
        return Err(cur.error_at(at, custom_name_error::<T>(name)));
    }
    Ok(())
}

#[cold]
fn custom_name_error<T: CustomV1>(name: &str) -> ErrorKind {
    ErrorKind::Invalid {
        what: "GraphBinary 1 custom type name",
        detail: format!("{name:?}, expected {:?}", T::CUSTOM_NAME),
    }
}

/// `{0x00}{name}{custom_type_info}{0x00}{value}`, the whole custom value, non-null (the
/// derived [`FqDecodeV1`] of a [`CustomV1`] type).
#[inline]
pub fn decode_fq_custom_v1<T: CustomV1>(cur: &mut Cursor<'_>) -> FastResult<T> {
    custom_header::<T>(cur)?;
    let at = cur.offset() + 4;
    match decode_custom_v1_body::<T>(cur)? {
        Some(v) => Ok(v),
        None => Err(cur.error_at(at, ErrorKind::UnexpectedNull { what: T::EXPECTED })),
    }
}

/// [`decode_fq_custom_v1`] on the slow path: each part as it arrives (the name streamed, as
/// any String), then the value through `buf.read::<V1<T>>()`.
///
/// # Cancel safety
/// Not cancel safe: the parts already read are consumed.
pub async fn decode_fq_custom_v1_slow<T: CustomV1, R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<T, DecodeError> {
    buf.expect_type_code(CUSTOM, T::EXPECTED).await?;
    let at = buf.offset();
    let name = buf.read_string().await?;
    if name != T::CUSTOM_NAME {
        return Err(DecodeError::new(at, custom_name_error::<T>(&name)));
    }
    let at = buf.offset() + 4;
    match decode_custom_v1_body_slow::<T, R>(buf).await? {
        Some(v) => Ok(v),
        None => Err(DecodeError::new(
            at,
            ErrorKind::UnexpectedNull { what: T::EXPECTED },
        )),
    }
}

/// `{0x00}{name}{custom_type_info}{0x00}{value}` (the derived [`FqEncodeV1`] of a
/// [`CustomV1`] type).
#[inline]
pub fn encode_fq_custom_v1<T: CustomV1, B: BufMut>(
    value: &T,
    out: &mut B,
) -> Result<(), EncodeError> {
    out.put_u8(CUSTOM);
    write::put_str(out, T::CUSTOM_NAME)?;
    encode_custom_v1_body(Some(value), out)
}

/// A field type one of whose values stands for "none" in a GraphBinary 1 layout: an
/// `Option<T>` field marked `#[graphbinary(v1 = "sentinel")]` reads that value as `None` and
/// writes `None` as it (JanusGraph writes the missing in-vertex id of a vertex property's
/// `RelationIdentifier` as Long 0). Writing `Some` of the sentinel is an error: it would read
/// back as `None`.
pub trait SentinelV1: DecodeV1 + EncodeV1 {
    /// The value written for `None`.
    fn sentinel() -> Self;
    /// Whether `self` is the value that stands for `None`.
    fn is_sentinel(&self) -> bool;
}

/// An `Option<T>` whose `None` is [`SentinelV1::sentinel`] on the wire (a
/// `v1 = "sentinel"` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SentinelOptV1<T>(pub Option<T>);

crate::impl_decode! {
    [T: SentinelV1] DecodeV1 for SentinelOptV1<T> {
        T::EXPECTED;
        |cur| {
            let v = T::decode_v1(cur)?;
            Ok(SentinelOptV1((!v.is_sentinel()).then_some(v)))
        };
        |buf| async move {
            let v = buf.read::<V1<T>>().await?.0;
            Ok(SentinelOptV1((!v.is_sentinel()).then_some(v)))
        }
    }
}

/// Writes a `v1 = "sentinel"` field: `Some(v)` as `v`, `None` as the sentinel.
#[inline]
pub fn encode_sentinel_opt_v1<T: SentinelV1, B: BufMut>(
    value: &Option<T>,
    out: &mut B,
) -> Result<(), EncodeError> {
    match value {
        Some(v) if v.is_sentinel() => Err(EncodeError::Unrepresentable {
            what: T::EXPECTED,
            detail: "`Some` of the value that stands for none (it would read back as `None`)"
                .into(),
        }),
        Some(v) => v.encode_v1(out),
        None => T::sentinel().encode_v1(out),
    }
}

/// Writes the fully-qualified form, as [`FqV1`]'s [`DecodeV1`] reads it.
impl<T: FqEncodeV1> EncodeV1 for FqV1<T> {
    #[inline]
    fn encode_v1<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.0.encode_fq_v1(out)
    }
}
