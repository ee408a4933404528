//! Java-compatible renderings that the text and GraphSON forms share: numbers as Java's
//! `Double.toString`/`Float.toString`, dates and durations as `java.time` writes them
//! (ISO-8601, the `Display` of [`DateTime`] and [`Duration`]), and standard base64.

use std::fmt::{self, Display, Formatter, Write};

use ::base64::engine::general_purpose::STANDARD;
use ::base64::Engine as _;

use crate::value::{DateTime, Duration};

// --- Java-compatible number rendering --------------------------------------------------------

/// Renders a finite, non-zero magnitude given as shortest decimal digits and exponent
/// (`d.ddd × 10^exp`) the way Java's `Double.toString` does.
fn java_decimal(neg: bool, digits: &str, exp: i32) -> String {
    let mut s = String::with_capacity(digits.len() + 8);
    if neg {
        s.push('-');
    }
    if (-3..7).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                s.push_str(digits);
                s.extend(std::iter::repeat_n('0', int_len - digits.len()));
                s.push_str(".0");
            } else {
                s.push_str(&digits[..int_len]);
                s.push('.');
                s.push_str(&digits[int_len..]);
            }
        } else {
            s.push_str("0.");
            s.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            s.push_str(digits);
        }
    } else {
        s.push_str(&digits[..1]);
        s.push('.');
        s.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        s.push('E');
        s.push_str(&exp.to_string());
    }
    s
}

/// Splits Rust's `{:e}` output ("1.25e-3") into digits ("125") and exponent (-3).
fn split_exp(s: &str) -> (String, i32) {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let trimmed = digits.trim_end_matches('0');
    let digits = if trimmed.is_empty() { "0" } else { trimmed };
    (digits.to_owned(), exp.parse().unwrap_or(0))
}

macro_rules! java_float_fn {
    ($name:ident, $t:ty) => {
        /// Renders like Java's `toString`: `1.0`, `0.001`, `1.0E7`, `4.9E-324`, `NaN`,
        /// `Infinity`.
        pub(crate) fn $name(x: $t) -> String {
            if x.is_nan() {
                return "NaN".into();
            }
            if x.is_infinite() {
                return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
            }
            if x == 0.0 {
                return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
            }
            let a = x.abs();
            let (mut digits, mut exp) = split_exp(&format!("{a:e}"));
            if digits.len() == 1 {
                // Java picks the closest of the 1- and 2-digit decimals that round to x.
                let two = format!("{a:.1e}");
                if two.parse::<$t>().ok() == Some(a) {
                    (digits, exp) = split_exp(&two);
                }
            }
            java_decimal(x < 0.0, &digits, exp)
        }
    };
}
java_float_fn!(java_double, f64);
java_float_fn!(java_float, f32);

// --- ISO-8601, as java.time writes it --------------------------------------------------------

fn push_padded(s: &mut String, v: i64, width: usize) {
    let _ = write!(s, "{v:0width$}");
}

fn push_fraction(s: &mut String, nanos: i64) {
    if nanos == 0 {
        return;
    }
    s.push('.');
    if nanos % 1_000_000 == 0 {
        push_padded(s, nanos / 1_000_000, 3);
    } else if nanos % 1000 == 0 {
        push_padded(s, nanos / 1000, 6);
    } else {
        push_padded(s, nanos, 9);
    }
}

/// A year as java.time writes it: at least four digits, `+` past 9999, `-` before year 0.
pub(crate) fn push_year(s: &mut String, year: i64) {
    if year.abs() < 1000 {
        if year < 0 {
            s.push('-');
        }
        push_padded(s, year.abs(), 4);
    } else {
        if year > 9999 {
            s.push('+');
        }
        let _ = write!(s, "{year}");
    }
}

/// `2007-12-03`, as Java's `LocalDate.toString()`.
pub(crate) fn push_date(s: &mut String, year: i64, month: i64, day: i64) {
    push_year(s, year);
    s.push('-');
    push_padded(s, month, 2);
    s.push('-');
    push_padded(s, day, 2);
}

/// `2007-12-03T10:15:30`, as Java's `LocalDateTime.toString()`: the date `[year, month, day]`
/// and the time of day `nanos` (with `seconds`, the seconds always written, as
/// `Instant.toString()` does).
pub(crate) fn push_local_date_time(s: &mut String, date: [i64; 3], nanos: i64, seconds: bool) {
    let [year, month, day] = date;
    push_date(s, year, month, day);
    s.push('T');
    push_time(s, nanos, seconds);
}

/// A time of day from its nanoseconds, as Java's `LocalTime.toString()`: `10:15`,
/// `10:15:30`, `10:15:30.001`; with `seconds` always `10:15:00` (as `Instant.toString()`).
pub(crate) fn push_time(s: &mut String, nanos: i64, seconds: bool) {
    let nanos = nanos.rem_euclid(86_400_000_000_000);
    let secs = nanos / 1_000_000_000;
    let frac = nanos % 1_000_000_000;
    push_padded(s, secs / 3600, 2);
    s.push(':');
    push_padded(s, secs / 60 % 60, 2);
    if seconds || secs % 60 != 0 || frac != 0 {
        s.push(':');
        push_padded(s, secs % 60, 2);
        push_fraction(s, frac);
    }
}

/// A zone offset as Java's `ZoneOffset.toString()`: `Z`, `+01:00`, `+03:06:09`.
pub(crate) fn push_offset(s: &mut String, offset_seconds: i64) {
    let off = offset_seconds;
    if off == 0 {
        s.push('Z');
    } else {
        s.push(if off < 0 { '-' } else { '+' });
        let a = off.abs();
        push_padded(s, a / 3600, 2);
        s.push(':');
        push_padded(s, a / 60 % 60, 2);
        if a % 60 != 0 {
            s.push(':');
            push_padded(s, a % 60, 2);
        }
    }
}

impl Display for DateTime {
    /// ISO-8601 as Java's `OffsetDateTime.toString()`: `2007-12-03T10:15:30+01:00`,
    /// `1970-01-01T00:24:41.295Z`, `+999999999-12-31T23:59:59.999999999-18:00`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(40);
        let date = [self.year, self.month.into(), self.day.into()].map(i64::from);
        push_local_date_time(&mut s, date, self.nanos, false);
        push_offset(&mut s, i64::from(self.offset_seconds));
        f.write_str(&s)
    }
}

impl Display for Duration {
    /// ISO-8601 as Java's `Duration.toString()`: `PT2M3S`, `PT-2M-3S`, `PT0S`,
    /// `PT2M3.000456789S`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // Normalize nanos into 0..1e9 as java.time does.
        let total = i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos);
        let seconds = total.div_euclid(1_000_000_000);
        let nanos = total.rem_euclid(1_000_000_000);
        if seconds == 0 && nanos == 0 {
            return f.write_str("PT0S");
        }
        let effective = if seconds < 0 && nanos > 0 {
            seconds + 1
        } else {
            seconds
        };
        let hours = effective / 3600;
        let minutes = (effective % 3600) / 60;
        let secs = effective % 60;
        let mut s = String::from("PT");
        if hours != 0 {
            let _ = write!(s, "{hours}H");
        }
        if minutes != 0 {
            let _ = write!(s, "{minutes}M");
        }
        if secs == 0 && nanos == 0 && s.len() > 2 {
            return f.write_str(&s);
        }
        if seconds < 0 && nanos > 0 {
            if secs == 0 {
                s.push_str("-0");
            } else {
                let _ = write!(s, "{secs}");
            }
        } else {
            let _ = write!(s, "{secs}");
        }
        if nanos > 0 {
            let frac = if seconds < 0 {
                2_000_000_000 - nanos
            } else {
                nanos + 1_000_000_000
            };
            let digits = frac.to_string();
            let digits = digits.trim_end_matches('0');
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('S');
        f.write_str(&s)
    }
}

// --- base64 ----------------------------------------------------------------------------------

/// Standard base64 with padding (GraphSON's Binary), by the `base64` crate's standard engine.
pub(crate) fn base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// RFC 4648 section 10's test vectors, `(plain, encoded)`: the tests of [`base64`] and
/// [`base64_decode`] here, of the SASL token (`ws`) and of the Gremlin-language literal
/// encoder (`process::lit`) check against this one list.
#[cfg(test)]
pub(crate) const RFC4648_VECTORS: [(&str, &str); 7] = [
    ("", ""),
    ("f", "Zg=="),
    ("fo", "Zm8="),
    ("foo", "Zm9v"),
    ("foob", "Zm9vYg=="),
    ("fooba", "Zm9vYmE="),
    ("foobar", "Zm9vYmFy"),
];

/// Why a text is not standard padded base64 ([`base64_decode`]): the byte offset in the text
/// and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Base64Error {
    /// Byte offset in the text.
    pub(crate) offset: usize,
    /// What the decoder expected at `offset`.
    pub(crate) expected: &'static str,
}

impl Display for Base64Error {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "base64 offset {}: expected {}",
            self.offset, self.expected
        )
    }
}

impl std::error::Error for Base64Error {}

/// Decodes standard base64 with padding, the inverse of [`base64`], strictly (RFC 4648
/// section 4): only the 64 digits of the standard alphabet, no whitespace or line breaks, the
/// length a multiple of 4 (padding required), `=` only as the last one or two characters, and
/// the unused bits before the padding zero (so that each byte string has exactly one
/// encoding). The `base64` crate's standard engine decodes, with its defaults: canonical
/// padding required, trailing bits refused. An error names the byte offset of the first
/// offending character.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn base64_decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let s = text.as_bytes();
    STANDARD.decode(s).map_err(|e| base64_fault(s, s.len(), e))
}

/// What the engine's error `e` on `s` (the text, of length `len`, or its complete groups
/// followed by `AAAA`) means: the first offending character of the text and what was expected
/// there, as [`base64_decode`] documents it.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
fn base64_fault(s: &[u8], len: usize, e: ::base64::DecodeError) -> Base64Error {
    use ::base64::DecodeError;
    const DIGIT: &str = "a base64 digit (A-Z, a-z, 0-9, +, /)";
    let err = |offset, expected| Base64Error { offset, expected };
    match e {
        // Padding in the last group followed by a digit: the engine names the padding, the
        // digit is what offends.
        DecodeError::InvalidByte(at, b'=') if at % 4 >= 2 && at / 4 == (len - 1) / 4 => {
            let digit = s[at..].iter().position(|&c| c != b'=').unwrap_or(0);
            err(at + digit, "'=' (nothing follows the padding)")
        }
        DecodeError::InvalidByte(at, b'=') => {
            err(at, "a base64 digit (padding '=' only ends the text)")
        }
        // The engine checks a lone last character before the groups in front of it; a fault
        // there comes first. (`AAAA` after them keeps each one a group that is not the last.)
        DecodeError::InvalidByte(at, _) if at + 1 == s.len() && s.len() % 4 == 1 => {
            let mut groups = s[..at].to_vec();
            groups.extend_from_slice(b"AAAA");
            match STANDARD.decode(&groups) {
                Err(e) => base64_fault(&groups, len, e),
                Ok(_) => err(at, DIGIT),
            }
        }
        DecodeError::InvalidByte(at, _) => err(at, DIGIT),
        DecodeError::InvalidLastSymbol { offset, .. } => {
            err(offset, "a digit whose unused low bits are zero")
        }
        // A last group of one digit, or of two or three without their padding.
        DecodeError::InvalidLength(_) | DecodeError::InvalidPadding => err(
            len,
            "more base64 digits or '=' (the length is a multiple of 4)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_render_like_java() {
        for (x, s) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (1234567.0, "1234567.0"),
            (1e7, "1.0E7"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::from_bits(1), "4.9E-324"),
            (-0.0, "-0.0"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(java_double(x), s, "{x:e}");
        }
        assert_eq!(java_float(f32::MAX), "3.4028235E38");
        assert_eq!(java_float(f32::from_bits(1)), "1.4E-45");
        assert_eq!(java_float(f32::from_bits(2)), "2.8E-45");
        assert_eq!(java_float(0.375), "0.375");
    }

    #[test]
    fn durations_render_like_java() {
        let d = |seconds, nanos| Duration { seconds, nanos }.to_string();
        assert_eq!(d(0, 0), "PT0S");
        assert_eq!(d(123, 0), "PT2M3S");
        assert_eq!(d(-123, 0), "PT-2M-3S");
        assert_eq!(d(123, 456789), "PT2M3.000456789S");
        assert_eq!(d(-1, 500_000_000), "PT-0.5S");
        assert_eq!(d(3600, 0), "PT1H");
        assert_eq!(
            d(i64::MAX, 999_999_999),
            "PT2562047788015215H30M7.999999999S"
        );
    }

    #[test]
    fn datetimes_render_like_java() {
        let dt = |year, month, day, nanos, offset_seconds| {
            DateTime::new(year, month, day, nanos, offset_seconds).to_string()
        };
        assert_eq!(
            dt(1970, 1, 1, 1_481_295_000_000, 0),
            "1970-01-01T00:24:41.295Z"
        );
        assert_eq!(
            dt(-999_999_999, 1, 1, 0, 64800),
            "-999999999-01-01T00:00+18:00"
        );
        assert_eq!(
            dt(999_999_999, 12, 31, 86_399_999_999_999, -64800),
            "+999999999-12-31T23:59:59.999999999-18:00"
        );
        assert_eq!(
            dt(7, 3, 4, 1_000, 3600 + 30),
            "0007-03-04T00:00:00.000001+01:00:30"
        );
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"some bytes for you"), "c29tZSBieXRlcyBmb3IgeW91");
    }

    #[test]
    fn base64_decodes_the_rfc_4648_vectors() {
        for (plain, encoded) in RFC4648_VECTORS {
            assert_eq!(base64(plain.as_bytes()), encoded);
            assert_eq!(
                base64_decode(encoded).as_deref(),
                Ok(plain.as_bytes()),
                "{encoded}"
            );
        }
    }

    #[test]
    fn base64_round_trips_every_length_and_byte() {
        // Every byte value in every position of a group, lengths 0 to 300.
        let bytes: Vec<u8> = (0..300u32).map(|i| (i * 7 + i / 256) as u8).collect();
        for len in 0..bytes.len() {
            let text = base64(&bytes[..len]);
            assert_eq!(base64_decode(&text).unwrap(), &bytes[..len], "{len}");
        }
        let all: Vec<u8> = (0..=255u8).collect();
        assert_eq!(base64_decode(&base64(&all)).unwrap(), all);
        // Both characters outside the URL-safe alphabet, and the whole alphabet.
        assert_eq!(base64_decode("+/+/").unwrap(), vec![0xfb, 0xff, 0xbf]);
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        assert_eq!(base64(&base64_decode(alphabet).unwrap()), alphabet);
    }

    #[test]
    fn base64_rejects_what_is_not_strict_standard_base64() {
        let e = |s: &str| base64_decode(s).unwrap_err();
        // Missing padding, or a length that is no multiple of 4.
        assert_eq!(e("Zg").offset, 2);
        assert!(e("Zg").expected.contains("multiple of 4"), "{}", e("Zg"));
        assert_eq!(e("Zm9vY").offset, 5);
        // Outside the alphabet: URL-safe digits, whitespace, line breaks, non-ASCII.
        assert_eq!(e("Zm9-").offset, 3);
        assert_eq!(e("Zm9_").offset, 3);
        assert_eq!(e("Zm 9v").offset, 2);
        assert_eq!(e("Zm9v\nZm9v").offset, 4);
        assert_eq!(e("Zm9v\u{e9}AAA").offset, 4);
        assert!(e("Zm9-").expected.contains("base64 digit"));
        // Padding in the middle, too much of it, or digits after it.
        assert_eq!(e("Zg==Zg==").offset, 2);
        assert_eq!(e("Z===").offset, 1);
        assert_eq!(e("====").offset, 0);
        assert_eq!(e("Zg=g").offset, 3);
        assert!(e("Zg=g").expected.contains("nothing follows"));
        // Unused bits set: "Zh==" and "Zm9=" are not how any bytes encode.
        assert_eq!(e("Zh==").offset, 1);
        assert_eq!(e("Zm9=").offset, 2);
        assert!(e("Zh==").to_string().contains("offset 1"), "{}", e("Zh=="));
    }
}
