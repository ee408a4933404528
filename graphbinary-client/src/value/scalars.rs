//! BigInteger (hand-written: a newtype over two's complement bytes), and BigDecimal's Java
//! rendering (an addition to the generated struct).

#![allow(clippy::manual_async_fn)]

use std::future::Future;

use bytes::BufMut;
use graphbinary_core::{
    write, Cursor, Decode, DecodeError, Encode, EncodeError, FastResult, ReadBuffer, Typed,
};
use num_bigint::BigInt;
use tokio::io::AsyncRead;

use super::codes;
use super::BigDecimal;

/// An arbitrary-precision integer (BigInteger, 0x23): big-endian two's complement bytes,
/// `8 * len` bits wide.
///
/// The bytes are kept as read so the value re-encodes byte for byte; conversions to and from
/// [`num_bigint::BigInt`] write the minimal width.
///
/// ```
/// use graphbinary_client::value::BigInteger;
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

impl BigDecimal {
    /// A decimal text (`1.25`, `-2E+3`, Java's `BigDecimal.toString()` and JSON's number form)
    /// as a BigDecimal; `None` if it is no such text (or its scale overflows).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn parse_decimal(s: &str) -> Option<BigDecimal> {
        let (mantissa, exp) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
            None => (s, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if frac.starts_with(['-', '+']) {
            return None;
        }
        let unscaled: BigInt = format!("{int}{frac}").parse().ok()?;
        Some(BigDecimal {
            scale: i32::try_from(frac.len()).ok()?.checked_sub(exp)?,
            unscaled: BigInteger::from(unscaled),
        })
    }

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

graphbinary_core::impl_fq_via_typed!(BigInteger);
