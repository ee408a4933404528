//! The fast path: a cursor over bytes that are already buffered.
//!
//! A [`Cursor`] never does I/O. Each read either succeeds, reports
//! [`FastError::NeedMore`] (the bytes are not all there yet), or reports an error. A caller
//! that sees `NeedMore` throws the cursor away: nothing has been committed, so the same value
//! can be decoded again once more bytes are buffered.

use crate::codes;
use crate::error::{DecodeError, ErrorKind, FastError, FastResult};
use crate::intern::Interner;
use crate::limits::Limits;
use std::sync::Arc;

/// A read-only cursor over buffered bytes, used by every fast-path reader.
///
/// INVARIANT: `pos <= data.len()`.
#[derive(Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute stream offset of `data[0]`.
    base: u64,
    limits: &'a Limits,
    depth: u32,
    interner: Option<&'a mut Interner>,
}

macro_rules! fixed_reads {
    ($($(#[$m:meta])* $name:ident -> $t:ty;)*) => {$(
        $(#[$m])*
        #[inline]
        pub fn $name(&mut self) -> FastResult<$t> {
            Ok(<$t>::from_be_bytes(self.read_array()?))
        }
    )*};
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, whose first byte sits at absolute stream offset `base`.
    pub fn new(data: &'a [u8], base: u64, limits: &'a Limits) -> Self {
        Self::with_depth(data, base, limits, 0)
    }

    /// Like [`Cursor::new`], starting at nesting depth `depth` (for a fast read nested inside a
    /// slow read).
    pub fn with_depth(data: &'a [u8], base: u64, limits: &'a Limits, depth: u32) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            limits,
            depth,
            interner: None,
        }
    }

    /// Attaches a string interner, used by [`Cursor::read_interned_str`].
    pub fn with_interner(mut self, interner: &'a mut Interner) -> Self {
        self.interner = Some(interner);
        self
    }

    /// Bytes read so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Absolute stream offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The bytes not read yet.
    #[inline]
    pub fn remaining(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// The limits in force.
    #[inline]
    pub fn limits(&self) -> &'a Limits {
        self.limits
    }

    /// Current nesting depth.
    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// An error of `kind` at the current offset.
    #[inline]
    pub fn error(&self, kind: ErrorKind) -> FastError {
        FastError::Invalid(DecodeError::new(self.offset(), kind))
    }

    /// An error of `kind` at absolute `offset`.
    #[inline]
    pub fn error_at(&self, offset: u64, kind: ErrorKind) -> FastError {
        FastError::Invalid(DecodeError::new(offset, kind))
    }

    /// "Need more": `missing` bytes beyond the end of the data are needed. The reported figure
    /// counts from the start of the cursor, so it always exceeds the bytes available.
    #[cold]
    fn need(&self, missing: usize) -> FastError {
        FastError::NeedMore(self.data.len().saturating_add(missing))
    }

    /// Enters a nested container, failing when the depth limit would be exceeded.
    #[inline]
    pub fn enter(&mut self) -> FastResult<()> {
        if self.depth >= self.limits.max_depth {
            return Err(self.error(ErrorKind::DepthLimit {
                limit: self.limits.max_depth,
            }));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves a nested container entered with [`Cursor::enter`] (saturating at 0, like
    /// [`ReadBuffer::leave`](crate::ReadBuffer::leave)).
    #[inline]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Succeeds when at least `n` bytes remain; otherwise "need more" (a lower bound that lets
    /// a reader reject a value that cannot be complete before decoding or allocating).
    #[inline]
    pub fn require(&self, n: usize) -> FastResult<()> {
        let avail = self.data.len() - self.pos;
        if n > avail {
            return Err(self.need(n - avail));
        }
        Ok(())
    }

    /// Reads exactly `N` bytes.
    #[inline]
    pub fn read_array<const N: usize>(&mut self) -> FastResult<[u8; N]> {
        match self.data.get(self.pos..self.pos + N) {
            Some(s) => {
                self.pos += N;
                let mut a = [0u8; N];
                a.copy_from_slice(s);
                Ok(a)
            }
            None => Err(self.need(N - (self.data.len() - self.pos))),
        }
    }

    /// Reads exactly `n` bytes, borrowed from the buffer.
    #[inline]
    pub fn read_bytes(&mut self, n: usize) -> FastResult<&'a [u8]> {
        let avail = self.data.len() - self.pos;
        if n > avail {
            return Err(self.need(n - avail));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Looks at the next byte without consuming it.
    #[inline]
    pub fn peek_u8(&self) -> FastResult<u8> {
        match self.data.get(self.pos) {
            Some(&b) => Ok(b),
            None => Err(self.need(1)),
        }
    }

    /// Reads one unsigned byte.
    #[inline]
    pub fn read_u8(&mut self) -> FastResult<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.need(1)),
        }
    }

    fixed_reads! {
        /// Reads a signed byte.
        read_i8 -> i8;
        /// Reads a big-endian 2-byte signed integer.
        read_i16 -> i16;
        /// Reads a big-endian 4-byte signed integer.
        read_i32 -> i32;
        /// Reads a big-endian 8-byte signed integer.
        read_i64 -> i64;
        /// Reads a big-endian IEEE 754 single.
        read_f32 -> f32;
        /// Reads a big-endian IEEE 754 double.
        read_f64 -> f64;
    }

    /// Reads a Boolean byte: `0x00` is false, `0x01` true, anything else an error.
    #[inline]
    pub fn read_bool(&mut self) -> FastResult<bool> {
        let at = self.offset();
        match self.read_u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(self.error_at(at, invalid_bool(b))),
        }
    }

    /// Reads a 16-byte UUID.
    #[inline]
    pub fn read_uuid(&mut self) -> FastResult<uuid::Uuid> {
        Ok(uuid::Uuid::from_bytes(self.read_array()?))
    }

    /// Reads a 4-byte length field for `what`, rejecting negative lengths and lengths above
    /// `limit`.
    #[inline]
    pub fn read_len(&mut self, what: &'static str, limit: usize) -> FastResult<usize> {
        let at = self.offset();
        let n = self.read_i32()?;
        check_len(what, n, limit)
            .and_then(|n| check_room(what, n, self.offset(), self.limits))
            .map_err(|k| self.error_at(at, k))
    }

    /// Reads a collection count (List, Set, Map, ...) checked against
    /// [`Limits::max_collection_len`].
    #[inline]
    pub fn read_count(&mut self, what: &'static str) -> FastResult<usize> {
        self.read_len(what, self.limits.max_collection_len)
    }

    /// Reads a collection count ([`Cursor::read_count`]), then that many items by `item`.
    /// Each item takes at least `min_item` bytes: a count whose items cannot all be buffered
    /// is "need more" at once, before anything is decoded or allocated.
    ///
    /// ```
    /// use graphbinary_core::{Cursor, Limits};
    ///
    /// let limits = Limits::default();
    /// let bytes = [0, 0, 0, 2, 0, 7, 0, 9];
    /// let mut cur = Cursor::new(&bytes, 0, &limits);
    /// let shorts = cur.read_counted("List", 2, |c| c.read_i16()).unwrap();
    /// assert_eq!(shorts, [7, 9]);
    /// // Claims 1000 items where 4 bytes are left: need more, nothing read.
    /// let mut cur = Cursor::new(&[0, 0, 0x03, 0xe8, 0, 7, 0, 9], 0, &limits);
    /// assert!(cur.read_counted("List", 2, |c| c.read_i16()).is_err());
    /// ```
    #[inline]
    pub fn read_counted<T>(
        &mut self,
        what: &'static str,
        min_item: usize,
        mut item: impl FnMut(&mut Self) -> FastResult<T>,
    ) -> FastResult<Vec<T>> {
        let n = self.read_count(what)?;
        self.require(n.saturating_mul(min_item))?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(item(self)?);
        }
        Ok(v)
    }

    /// Reads a length-prefixed byte payload (String, Binary, BigInteger).
    #[inline]
    pub fn read_len_prefixed(&mut self, what: &'static str) -> FastResult<&'a [u8]> {
        // One bounds check when the length and the bytes are buffered and within the limits;
        // anything else goes the step-by-step way, which reports what is wrong or missing.
        if let [a, b, c, d, rest @ ..] = &self.data[self.pos..] {
            let n = i32::from_be_bytes([*a, *b, *c, *d]);
            if n >= 0 {
                let n = n as usize;
                let at = self.offset() + 4;
                if n <= rest.len()
                    && n <= self.limits.max_bytes_len
                    && self
                        .limits
                        .max_response_size
                        .is_none_or(|max| n as u64 <= max.saturating_sub(at))
                {
                    self.pos += 4 + n;
                    return Ok(&rest[..n]);
                }
            }
        }
        self.read_len_prefixed_checked(what)
    }

    /// [`Cursor::read_len_prefixed`] step by step.
    #[cold]
    fn read_len_prefixed_checked(&mut self, what: &'static str) -> FastResult<&'a [u8]> {
        let n = self.read_len(what, self.limits.max_bytes_len)?;
        self.read_bytes(n)
    }

    /// Reads a length-prefixed UTF-8 string, borrowed from the buffer.
    // Always inlined: a call's frame was a quarter of the cost of reading a short string.
    #[inline(always)]
    pub fn read_str(&mut self) -> FastResult<&'a str> {
        let start = self.offset();
        let bytes = self.read_len_prefixed("String")?;
        from_utf8(bytes)
            .map_err(|_| self.error_at(start, ErrorKind::InvalidUtf8 { what: "String" }))
    }

    /// Reads a length-prefixed UTF-8 string as a shared `Arc<str>`, through the interner when
    /// one is attached (labels and property keys repeat across results).
    #[inline]
    pub fn read_interned_str(&mut self) -> FastResult<Arc<str>> {
        let start = self.offset();
        let bytes = self.read_len_prefixed("String")?;
        let s = match self.interner.as_deref_mut() {
            Some(i) => i.intern_utf8(bytes),
            None => from_utf8(bytes).map(Arc::from),
        };
        s.map_err(|_| self.error_at(start, ErrorKind::InvalidUtf8 { what: "String" }))
    }

    /// Reads a single UTF-8 encoded character (GraphBinary Char, 1 to 4 bytes).
    #[inline]
    pub fn read_char(&mut self) -> FastResult<char> {
        let start = self.offset();
        let first = self.peek_u8()?;
        let width = utf8_width(first)
            .ok_or_else(|| self.error_at(start, ErrorKind::InvalidUtf8 { what: "Char" }))?;
        let bytes = self.read_bytes(width)?;
        decode_char(bytes)
            .ok_or_else(|| self.error_at(start, ErrorKind::InvalidUtf8 { what: "Char" }))
    }

    /// Reads a value flag, returning `true` for a value (0x00) and `false` for null (0x01).
    #[inline]
    pub fn read_nullable_flag(&mut self, what: &'static str) -> FastResult<bool> {
        let at = self.offset();
        match self.read_u8()? {
            0x00 => Ok(true),
            0x01 => Ok(false),
            flag => Err(self.error_at(at, ErrorKind::InvalidValueFlag { what, flag })),
        }
    }

    /// Reads the header of a fully-qualified, non-null value: the type code must be `code`
    /// ([`ErrorKind::UnexpectedTypeCode`] otherwise) and the value flag 0x00
    /// ([`ErrorKind::UnexpectedNull`] at the flag for 0x01, [`ErrorKind::InvalidValueFlag`] for
    /// any other).
    #[inline]
    pub fn expect_fq_non_null(&mut self, code: u8, what: &'static str) -> FastResult<()> {
        self.expect_type_code(code, what)?;
        let at = self.offset();
        if !self.read_nullable_flag(what)? {
            return Err(self.error_at(at, ErrorKind::UnexpectedNull { what }));
        }
        Ok(())
    }

    /// Reads the header of a fully-qualified nullable value of type `code`, in either dialect:
    /// `{code}{0x00}` (`true`: a value follows), or a null, `{code}{0x01}` or `FE 01`
    /// (`false`). What [`FqOpt`](crate::FqOpt) reads before its value.
    pub fn read_fq_opt_header(&mut self, code: u8, what: &'static str) -> FastResult<bool> {
        let at = self.offset();
        let found = self.read_u8()?;
        if found != code && found != codes::UNSPECIFIED_NULL {
            return Err(self.error_at(
                at,
                ErrorKind::UnexpectedTypeCode {
                    what,
                    expected: code,
                    found,
                },
            ));
        }
        let present = self.read_nullable_flag(what)?;
        if present && found == codes::UNSPECIFIED_NULL {
            return Err(self.error_at(
                at + 1,
                ErrorKind::InvalidValueFlag {
                    what: "unspecified null",
                    flag: 0x00,
                },
            ));
        }
        Ok(present)
    }

    /// Reads a type code and requires it to equal `expected`.
    #[inline]
    pub fn expect_type_code(&mut self, expected: u8, what: &'static str) -> FastResult<()> {
        let at = self.offset();
        let found = self.read_u8()?;
        check_type_code(at, found, expected, what).map_err(FastError::Invalid)
    }
}

/// `Ok` when `found`, the type code read at `at`, is `expected`; else the error that says so
/// (both paths' `expect_type_code`).
#[inline]
pub(crate) fn check_type_code(
    at: u64,
    found: u8,
    expected: u8,
    what: &'static str,
) -> Result<(), DecodeError> {
    if found == expected {
        return Ok(());
    }
    Err(DecodeError::new(
        at,
        ErrorKind::UnexpectedTypeCode {
            what,
            expected,
            found,
        },
    ))
}

/// Checks a 4-byte length field: not negative, not above `limit`.
#[inline]
pub(crate) fn check_len(what: &'static str, n: i32, limit: usize) -> Result<usize, ErrorKind> {
    if n < 0 {
        return Err(ErrorKind::NegativeLength { what, length: n });
    }
    let n = n as usize;
    if n > limit {
        return Err(ErrorKind::LengthLimit {
            what,
            length: n as u64,
            limit: limit as u64,
        });
    }
    Ok(n)
}

/// Checks that `n` bytes (or items, each at least one byte) can still follow at absolute
/// `offset` within [`Limits::max_response_size`], when one is set.
#[inline]
pub(crate) fn check_room(
    what: &'static str,
    n: usize,
    offset: u64,
    limits: &Limits,
) -> Result<usize, ErrorKind> {
    if let Some(max) = limits.max_response_size {
        let room = max.saturating_sub(offset);
        if n as u64 > room {
            return Err(ErrorKind::LengthLimit {
                what,
                length: n as u64,
                limit: room,
            });
        }
    }
    Ok(n)
}

pub(crate) fn invalid_bool(b: u8) -> ErrorKind {
    ErrorKind::Invalid {
        what: "Boolean",
        detail: format!("byte 0x{b:02x} is neither 0x00 nor 0x01"),
    }
}

/// [`std::str::from_utf8`], with a shortcut for the short ASCII strings that make up most of
/// a response (names, labels, keys): up to 16 bytes are checked with two overlapping word
/// loads, inline, instead of the general validator's byte loop (the test
/// `from_utf8_agrees_with_std_on_every_short_string` holds it to `std`'s answers).
#[inline]
pub(crate) fn from_utf8(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = bytes.len();
    let ascii = if (8..=16).contains(&n) {
        let a = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        let b = u64::from_le_bytes(bytes[n - 8..].try_into().expect("8 bytes"));
        (a | b) & HIGH == 0
    } else if (4..8).contains(&n) {
        let a = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
        let b = u32::from_le_bytes(bytes[n - 4..].try_into().expect("4 bytes"));
        (a | b) & (HIGH as u32) == 0
    } else if n < 4 {
        bytes.iter().all(|&b| b < 0x80)
    } else {
        false
    };
    if ascii {
        // SAFETY: every byte was just checked to be below 0x80, and a run of ASCII bytes is
        // valid UTF-8 (the overlapping loads above cover every byte of `bytes`).
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes)
    }
}

/// The width of a UTF-8 sequence from its first byte, or `None` if it cannot start one.
#[inline]
pub fn utf8_width(first: u8) -> Option<usize> {
    match first {
        0x00..=0x7f => Some(1),
        0xc2..=0xdf => Some(2),
        0xe0..=0xef => Some(3),
        0xf0..=0xf4 => Some(4),
        _ => None,
    }
}

/// Decodes exactly one UTF-8 character from `bytes`.
#[inline]
pub fn decode_char(bytes: &[u8]) -> Option<char> {
    let s = std::str::from_utf8(bytes).ok()?;
    let mut it = s.chars();
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_utf8_agrees_with_std_on_every_short_string() {
        // Every length up to 20, with one byte of each interesting class at each position.
        let fill = b"abcdefghijklmnopqrst";
        for n in 0..=20 {
            for at in 0..n.max(1) {
                for b in [0x00u8, 0x41, 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff] {
                    let mut v = fill[..n].to_vec();
                    if n > 0 {
                        v[at] = b;
                    }
                    assert_eq!(from_utf8(&v), std::str::from_utf8(&v), "{v:?}");
                }
            }
        }
        let two = "aé".as_bytes();
        assert_eq!(from_utf8(two), Ok("aé"));
        assert_eq!(
            from_utf8("0123456789abcdé".as_bytes()),
            Ok("0123456789abcdé")
        );
    }

    #[test]
    fn check_len_directly() {
        assert_eq!(check_len("X", 0, 0).unwrap(), 0);
        assert_eq!(check_len("X", 10, 10).unwrap(), 10);
        assert!(matches!(
            check_len("X", 11, 10),
            Err(ErrorKind::LengthLimit {
                what: "X",
                length: 11,
                limit: 10
            })
        ));
        assert!(matches!(
            check_len("X", -1, 10),
            Err(ErrorKind::NegativeLength {
                what: "X",
                length: -1
            })
        ));
        assert_eq!(
            check_len("X", i32::MAX, usize::MAX).unwrap(),
            i32::MAX as usize
        );
    }
}
