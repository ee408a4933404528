//! Write primitives: big-endian GraphBinary encodings into any [`BufMut`].
//!
//! Fixed-width numbers need nothing beyond `BufMut`'s own `put_i32` and friends (which are
//! big-endian); this module adds the length-prefixed and header forms.

use bytes::BufMut;

use crate::error::EncodeError;

/// Writes a 4-byte length, failing when it does not fit a GraphBinary Int.
#[inline]
pub fn put_len<B: BufMut>(out: &mut B, len: usize, what: &'static str) -> Result<(), EncodeError> {
    let n = i32::try_from(len).map_err(|_| EncodeError::TooLong { what, length: len })?;
    out.put_i32(n);
    Ok(())
}

/// Writes a length-prefixed byte payload.
#[inline]
pub fn put_bytes<B: BufMut>(
    out: &mut B,
    bytes: &[u8],
    what: &'static str,
) -> Result<(), EncodeError> {
    put_len(out, bytes.len(), what)?;
    out.put_slice(bytes);
    Ok(())
}

/// Writes a length-prefixed UTF-8 String.
#[inline]
pub fn put_str<B: BufMut>(out: &mut B, s: &str) -> Result<(), EncodeError> {
    put_bytes(out, s.as_bytes(), "String")
}

/// Writes a Char: the character's 1 to 4 UTF-8 bytes.
#[inline]
pub fn put_char<B: BufMut>(out: &mut B, c: char) {
    let mut tmp = [0u8; 4];
    out.put_slice(c.encode_utf8(&mut tmp).as_bytes());
}

/// Writes a fully-qualified header for a present value: `{type_code}{0x00}`.
#[inline]
pub fn put_header<B: BufMut>(out: &mut B, type_code: u8) {
    out.put_u8(type_code);
    out.put_u8(0x00);
}

/// Writes a fully-qualified null: `{type_code}{0x01}`.
#[inline]
pub fn put_null<B: BufMut>(out: &mut B, type_code: u8) {
    out.put_u8(type_code);
    out.put_u8(0x01);
}
