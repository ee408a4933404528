//! Runtime helpers of the code `graphbinary-derive` generates, as serde's `__private::de`:
//! the generated readers call these instead of expanding the checks inline, so the fast and
//! slow paths share one implementation of each rule and its error message. Reached through
//! `graphbinary_core::__private`; not a public API.

use tokio::io::AsyncRead;

use crate::buffer::ReadBuffer;
use crate::codes;
use crate::cursor::Cursor;
use crate::error::{DecodeError, ErrorKind, FastResult};
use crate::layouts::Fq;

/// `ErrorKind::Invalid { what, detail }` at `at`.
#[cold]
fn invalid(at: u64, what: &'static str, detail: String) -> DecodeError {
    DecodeError::new(at, ErrorKind::Invalid { what, detail })
}

/// `"a", "b"`: names on the wire, quoted, for error messages.
fn name_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Fast path: a fully-qualified, non-null String (`03 00 {length}{text}`) naming `what`.
#[inline]
pub fn fq_str<'a>(cur: &mut Cursor<'a>, what: &'static str) -> FastResult<&'a str> {
    cur.expect_fq_non_null(codes::STRING, what)?;
    cur.read_str()
}

/// Slow path: a fully-qualified, non-null String.
pub async fn fq_string<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
) -> Result<String, DecodeError> {
    Ok(buf.read::<Fq<String>>().await?.0)
}

/// An `enum_string` value `found` (read at `at`) names none of the `expected` variants.
#[cold]
pub fn unknown_variant(at: u64, what: &'static str, found: &str, expected: &[&str]) -> DecodeError {
    invalid(
        at,
        what,
        format!(
            "unknown variant {found:?}; expected one of: {}",
            name_list(expected)
        ),
    )
}

/// The composite type name `found` (read at `at`) is not `name`.
#[cold]
fn wrong_pdt_name(at: u64, what: &'static str, found: &str, name: &str) -> DecodeError {
    invalid(
        at,
        what,
        format!("composite type name {found:?} where {name:?} was expected"),
    )
}

/// Fast path: the type name of a CompositePDT, which must be `name`.
#[inline]
pub fn pdt_name(cur: &mut Cursor<'_>, what: &'static str, name: &str) -> FastResult<()> {
    let at = cur.offset();
    let found = fq_str(cur, what)?;
    if found != name {
        return Err(wrong_pdt_name(at, what, found, name).into());
    }
    Ok(())
}

/// Slow path: the type name of a CompositePDT.
pub async fn pdt_name_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
    name: &str,
) -> Result<(), DecodeError> {
    let at = buf.offset();
    let found = fq_string(buf).await?;
    if found != name {
        return Err(wrong_pdt_name(at, what, &found, name));
    }
    Ok(())
}

/// `{0x0a}{flag}` of the fields Map: flag 0x00 (unordered) or 0x02 (ordered).
fn map_code_and_flag(cur: &mut Cursor<'_>) -> FastResult<()> {
    cur.expect_type_code(codes::MAP, "Map")?;
    let flag_at = cur.offset();
    match cur.read_u8()? {
        0x00 | 0x02 => Ok(()),
        0x01 => Err(cur.error_at(flag_at, ErrorKind::UnexpectedNull { what: "Map" })),
        flag => Err(cur.error_at(flag_at, ErrorKind::InvalidValueFlag { what: "Map", flag })),
    }
}

/// More entries than the struct has fields.
#[cold]
fn too_many_fields(at: u64, what: &'static str, n: usize, fields: usize) -> DecodeError {
    invalid(
        at,
        what,
        format!("{n} fields where at most {fields} were expected"),
    )
}

/// Fast path: the header of a CompositePDT's fields Map (code, flag, entry count at most
/// `fields`), then enters it (the caller calls `cur.leave()` after the entries). Returns the
/// entry count.
#[inline]
pub fn pdt_map_header(
    cur: &mut Cursor<'_>,
    what: &'static str,
    fields: usize,
) -> FastResult<usize> {
    map_code_and_flag(cur)?;
    let count_at = cur.offset();
    let n = cur.read_count("Map")?;
    if n > fields {
        return Err(too_many_fields(count_at, what, n, fields).into());
    }
    // Every entry takes at least 8 bytes: a fully-qualified String key (6) and a value (2).
    cur.require(n * 8)?;
    cur.enter()?;
    Ok(n)
}

/// Slow path: [`pdt_map_header`].
pub async fn pdt_map_header_slow<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    what: &'static str,
    fields: usize,
) -> Result<usize, DecodeError> {
    buf.read_with(map_code_and_flag, "Map").await?;
    let count_at = buf.offset();
    let n = buf.read_count("Map").await?;
    if n > fields {
        return Err(too_many_fields(count_at, what, n, fields));
    }
    buf.enter()?;
    Ok(n)
}

/// A field key `found` (read at `at`) names none of the `expected` fields.
#[cold]
pub fn unknown_field(at: u64, what: &'static str, found: &str, expected: &[&str]) -> DecodeError {
    invalid(
        at,
        what,
        format!(
            "unknown field {found:?}; expected one of: {}",
            name_list(expected)
        ),
    )
}

/// Fails when field `name` (whose key was read at `at`) was already read.
#[inline]
pub fn vacant<T>(
    slot: &Option<T>,
    at: u64,
    what: &'static str,
    name: &str,
) -> Result<(), DecodeError> {
    match slot {
        None => Ok(()),
        Some(_) => Err(duplicate_field(at, what, name)),
    }
}

/// Field `name` appears twice.
#[cold]
pub fn duplicate_field(at: u64, what: &'static str, name: &str) -> DecodeError {
    invalid(at, what, format!("field {name:?} appears twice"))
}

/// The value of field `name`, or the missing-field error at `at` (where the Map starts).
#[inline]
pub fn take_field<T>(
    slot: Option<T>,
    at: u64,
    what: &'static str,
    name: &str,
) -> Result<T, DecodeError> {
    slot.ok_or_else(|| missing_field(at, what, name))
}

/// Field `name` is missing.
#[cold]
pub fn missing_field(at: u64, what: &'static str, name: &str) -> DecodeError {
    invalid(at, what, format!("missing field {name:?}"))
}
