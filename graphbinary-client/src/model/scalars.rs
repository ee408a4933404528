//! The scalar types beyond core's primitives: DateTime, Duration, BigInteger, BigDecimal,
//! and the enums Direction, T and Merge.

#![allow(clippy::manual_async_fn)]

use std::future::Future;

use bytes::BufMut;
use graphbinary_core::{
    write, Cursor, Decode, DecodeError, Encode, EncodeError, ErrorKind, FastResult, ReadBuffer,
    Typed,
};
use num_bigint::BigInt;
use tokio::io::AsyncRead;

use super::codes;
use super::value::{put_fq_str, read_fq_str, read_fq_string};

/// A date-time with an offset from UTC (DateTime, 0x04), as in ISO-8601
/// `2007-12-03T10:15:30+01:00`.
///
/// Fields are kept as read (no validation), so any input re-encodes byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateTime {
    /// Year, -999,999,999 to 999,999,999.
    pub year: i32,
    /// Month, 1 (January) to 12.
    pub month: i8,
    /// Day of month, 1 to 31.
    pub day: i8,
    /// Nanoseconds since midnight, 0 to 86,399,999,999,999.
    pub nanos: i64,
    /// Zone offset in seconds, -64,800 (-18:00) to 64,800 (+18:00).
    pub offset_seconds: i32,
}

impl Decode for DateTime {
    const EXPECTED: &'static str = "DateTime";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(DateTime {
            year: cur.read_i32()?,
            month: cur.read_i8()?,
            day: cur.read_i8()?,
            nanos: cur.read_i64()?,
            offset_seconds: cur.read_i32()?,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(DateTime {
                year: buf.read_i32().await?,
                month: buf.read_i8().await?,
                day: buf.read_i8().await?,
                nanos: buf.read_i64().await?,
                offset_seconds: buf.read_i32().await?,
            })
        }
    }
}
impl Encode for DateTime {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        out.put_i32(self.year);
        out.put_i8(self.month);
        out.put_i8(self.day);
        out.put_i64(self.nanos);
        out.put_i32(self.offset_seconds);
        Ok(())
    }
}
impl Typed for DateTime {
    const TYPE_CODE: u8 = codes::DATETIME;
}

/// An amount of time (Duration, 0x81): seconds and a nanosecond adjustment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Duration {
    /// Seconds.
    pub seconds: i64,
    /// Nanoseconds, normally 0 to 999,999,999.
    pub nanos: i32,
}

impl Decode for Duration {
    const EXPECTED: &'static str = "Duration";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(Duration {
            seconds: cur.read_i64()?,
            nanos: cur.read_i32()?,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(Duration {
                seconds: buf.read_i64().await?,
                nanos: buf.read_i32().await?,
            })
        }
    }
}
impl Encode for Duration {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        out.put_i64(self.seconds);
        out.put_i32(self.nanos);
        Ok(())
    }
}
impl Typed for Duration {
    const TYPE_CODE: u8 = codes::DURATION;
}

/// An arbitrary-precision integer (BigInteger, 0x23): big-endian two's complement bytes,
/// `8 * len` bits wide.
///
/// The bytes are kept as read so the value re-encodes byte for byte; conversions to and from
/// [`num_bigint::BigInt`] write the minimal width.
///
/// ```
/// use graphbinary_client::model::BigInteger;
///
/// assert_eq!(BigInteger::from(128i64).as_bytes(), &[0x00, 0x80]);
/// assert_eq!(BigInteger::from_bytes(vec![0xff, 0x7f]).to_bigint().to_string(), "-129");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct BigInteger(Vec<u8>);

impl BigInteger {
    /// From two's complement big-endian bytes (empty means 0).
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        BigInteger(bytes)
    }
    /// The two's complement big-endian bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
    /// The value as a [`BigInt`].
    pub fn to_bigint(&self) -> BigInt {
        BigInt::from_signed_bytes_be(&self.0)
    }
    /// The value as an `i64`, if it fits.
    pub fn to_i64(&self) -> Option<i64> {
        i64::try_from(self.to_bigint()).ok()
    }
}
impl From<&BigInt> for BigInteger {
    fn from(v: &BigInt) -> Self {
        BigInteger(v.to_signed_bytes_be())
    }
}
impl From<BigInt> for BigInteger {
    fn from(v: BigInt) -> Self {
        BigInteger::from(&v)
    }
}
impl From<i64> for BigInteger {
    fn from(v: i64) -> Self {
        BigInteger::from(BigInt::from(v))
    }
}
impl std::fmt::Display for BigInteger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.to_bigint().fmt(f)
    }
}

impl Decode for BigInteger {
    const EXPECTED: &'static str = "BigInteger";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(BigInteger(cur.read_len_prefixed("BigInteger")?.to_vec()))
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move { Ok(BigInteger(buf.read_len_prefixed("BigInteger").await?)) }
    }
}
impl Encode for BigInteger {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        write::put_bytes(out, &self.0, "BigInteger")
    }
}
impl Typed for BigInteger {
    const TYPE_CODE: u8 = codes::BIG_INTEGER;
}

/// An arbitrary-precision decimal (BigDecimal, 0x22): `unscaled * 10^-scale`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct BigDecimal {
    /// The scale: digits right of the decimal point (negative: zeros appended).
    pub scale: i32,
    /// The unscaled value.
    pub unscaled: BigInteger,
}

impl BigDecimal {
    /// The value as Java's `BigDecimal.toString()` writes it, e.g. `12.34` or `1.234E+5`.
    pub fn to_java_string(&self) -> String {
        let unscaled = self.unscaled.to_bigint();
        let neg = unscaled.sign() == num_bigint::Sign::Minus;
        let digits = unscaled.magnitude().to_string();
        let scale = i64::from(self.scale);
        let adjusted = -scale + (digits.len() as i64 - 1);
        let mut s = String::with_capacity(digits.len() + 8);
        if neg {
            s.push('-');
        }
        if scale >= 0 && adjusted >= -6 {
            let scale = scale as usize;
            if scale == 0 {
                s.push_str(&digits);
            } else if digits.len() > scale {
                let (int, frac) = digits.split_at(digits.len() - scale);
                s.push_str(int);
                s.push('.');
                s.push_str(frac);
            } else {
                s.push_str("0.");
                s.extend(std::iter::repeat_n('0', scale - digits.len()));
                s.push_str(&digits);
            }
        } else {
            s.push_str(&digits[..1]);
            if digits.len() > 1 {
                s.push('.');
                s.push_str(&digits[1..]);
            }
            s.push('E');
            if adjusted >= 0 {
                s.push('+');
            }
            s.push_str(&adjusted.to_string());
        }
        s
    }
}

impl Decode for BigDecimal {
    const EXPECTED: &'static str = "BigDecimal";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(BigDecimal {
            scale: cur.read_i32()?,
            unscaled: BigInteger::decode(cur)?,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(BigDecimal {
                scale: buf.read_i32().await?,
                unscaled: buf.read().await?,
            })
        }
    }
}
impl Encode for BigDecimal {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        out.put_i32(self.scale);
        self.unscaled.encode(out)
    }
}
impl Typed for BigDecimal {
    const TYPE_CODE: u8 = codes::BIG_DECIMAL;
}

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident = $code:expr, $what:literal { $($(#[$vm:meta])* $v:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $v,)*
        }
        impl $name {
            /// The name as written on the wire.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s,)* }
            }
            /// The variant named `s` (as written on the wire).
            pub fn from_name(s: &str) -> Option<Self> {
                match s { $($s => Some($name::$v),)* _ => None }
            }
            fn unknown(s: &str) -> ErrorKind {
                ErrorKind::Invalid {
                    what: $what,
                    detail: format!("unknown name {s:?}"),
                }
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl Decode for $name {
            const EXPECTED: &'static str = $what;
            #[inline]
            fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
                let at = cur.offset();
                let s = read_fq_str(cur, $what)?;
                Self::from_name(s).ok_or_else(|| cur.error_at(at, Self::unknown(s)))
            }
            fn decode_slow<R: AsyncRead + Unpin + Send>(
                buf: &mut ReadBuffer<R>,
            ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
                async move {
                    let at = buf.offset();
                    let s = read_fq_string(buf, $what).await?;
                    Self::from_name(&s).ok_or_else(|| DecodeError::new(at, Self::unknown(&s)))
                }
            }
        }
        impl Encode for $name {
            fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
                put_fq_str(out, self.as_str())
            }
        }
        impl Typed for $name {
            const TYPE_CODE: u8 = $code;
        }
        graphbinary_core::impl_fq_via_typed!($name);
    };
}

string_enum! {
    /// The direction of an edge relative to a vertex (Direction, 0x18).
    Direction = codes::DIRECTION, "Direction" {
        /// Outgoing.
        Out = "OUT",
        /// Incoming.
        In = "IN",
        /// Both.
        Both = "BOTH",
    }
}

string_enum! {
    /// The element tokens (T, 0x20).
    T = codes::T, "T" {
        /// The element's id.
        Id = "id",
        /// The element's label.
        Label = "label",
        /// A property's key.
        Key = "key",
        /// A property's value.
        Value = "value",
    }
}

string_enum! {
    /// The `mergeV`/`mergeE` option tokens (Merge, 0x2e).
    Merge = codes::MERGE, "Merge" {
        /// Applied when the element is created.
        OnCreate = "onCreate",
        /// Applied when the element matched.
        OnMatch = "onMatch",
        /// The outgoing vertex.
        OutV = "outV",
        /// The incoming vertex.
        InV = "inV",
    }
}

graphbinary_core::impl_fq_via_typed!(DateTime, Duration, BigInteger, BigDecimal);
