//! [`DateTimeKind`]: which Java date-time type a [`DateTime`] is, so that a value read from a
//! TinkerPop 3 server is written back as the type it was read as.

// The parsers of text forms serve GraphSON and gremlin-lang (feature `http`).
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use super::DateTime;

/// The Java type of a [`DateTime`].
///
/// GraphBinary 4 (TinkerPop 4) has one date-time type, an `OffsetDateTime`: every `DateTime`
/// read from it is [`DateTimeKind::OffsetDateTime`], and the kind is not on its wire.
/// GraphBinary 1 (TinkerPop 3.x) has five, and a server compares them by class: a
/// `java.util.Date` property is not found by an `OffsetDateTime` of the same instant. The
/// GraphBinary 1 reader records the type here and the GraphBinary 1 writer writes it back:
///
/// | kind | GraphBinary 1 | Java | what the wire holds |
/// |---|---|---|---|
/// | `OffsetDateTime` | 0x88 | `java.time.OffsetDateTime` | date, time to the nanosecond, offset |
/// | `ZonedDateTime` | 0x8d | `java.time.ZonedDateTime` | the same (the zone id is not on the wire, its offset is) |
/// | `Date` | 0x04 | `java.util.Date` | milliseconds since the epoch |
/// | `Timestamp` | 0x05 | `java.sql.Timestamp` | milliseconds since the epoch |
/// | `Instant` | 0x83 | `java.time.Instant` | seconds and nanoseconds since the epoch |
///
/// A `Date`, `Timestamp` or `Instant` is an instant: it is read at UTC (offset 0), and one
/// with another offset is written as the same instant. A `Date` or `Timestamp` holds whole
/// milliseconds: one with a finer time of day cannot be written (an error, never a silent
/// cut).
///
/// ```
/// use graphbinary_client::value::{DateTime, DateTimeKind};
///
/// let d = DateTime::from_epoch_millis(1_000).with_kind(DateTimeKind::Date);
/// assert_eq!(d.to_string(), "1970-01-01T00:00:01Z");
/// assert_eq!(d.kind, DateTimeKind::Date);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum DateTimeKind {
    /// `java.time.OffsetDateTime` (GraphBinary 4's DateTime 0x04; GraphBinary 1's 0x88).
    #[default]
    OffsetDateTime,
    /// `java.time.ZonedDateTime` (GraphBinary 1's 0x8d).
    ZonedDateTime,
    /// `java.util.Date` (GraphBinary 1's 0x04).
    Date,
    /// `java.sql.Timestamp` (GraphBinary 1's 0x05).
    Timestamp,
    /// `java.time.Instant` (GraphBinary 1's 0x83).
    Instant,
}

impl DateTimeKind {
    /// The Java class name, e.g. `"java.util.Date"`.
    pub fn java_class(self) -> &'static str {
        match self {
            DateTimeKind::OffsetDateTime => "java.time.OffsetDateTime",
            DateTimeKind::ZonedDateTime => "java.time.ZonedDateTime",
            DateTimeKind::Date => "java.util.Date",
            DateTimeKind::Timestamp => "java.sql.Timestamp",
            DateTimeKind::Instant => "java.time.Instant",
        }
    }
}

impl DateTime {
    /// An ISO 8601 date-time: `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM]` (gremlin-lang's
    /// `datetime(...)`, GraphSON's `gx:OffsetDateTime` and `gx:Instant`).
    pub(crate) fn parse_iso(s: &str) -> Option<DateTime> {
        let (date, rest) = match s.find('T') {
            Some(i) => (&s[..i], &s[i + 1..]),
            None => (s, ""),
        };
        let (year, month, day) = parse_local_date(date)?;
        let (time, zone) = match rest.find(['Z', 'z', '+', '-']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let nanos = if time.is_empty() {
            0
        } else {
            parse_local_time(time)?
        };
        let offset_seconds = if zone.is_empty() {
            0
        } else {
            parse_zone_offset(zone)?
        };
        Some(DateTime::new(year, month, day, nanos, offset_seconds))
    }

    /// An `OffsetDateTime`: the date, `nanos` since its midnight, at `offset_seconds` east of
    /// UTC. Nothing is checked here; writing a value out of range is an error.
    ///
    /// ```
    /// use graphbinary_client::value::DateTime;
    /// let dt = DateTime::new(2024, 2, 29, 3_600_000_000_000, 7200);
    /// assert_eq!(dt.to_string(), "2024-02-29T01:00+02:00");
    /// ```
    pub fn new(year: i32, month: i8, day: i8, nanos: i64, offset_seconds: i32) -> DateTime {
        DateTime {
            year,
            month,
            day,
            nanos,
            offset_seconds,
            kind: DateTimeKind::OffsetDateTime,
        }
    }

    /// The same date-time as another Java type.
    pub fn with_kind(mut self, kind: DateTimeKind) -> DateTime {
        self.kind = kind;
        self
    }

    /// The instant `ms` milliseconds after 1970-01-01T00:00Z, at UTC, an `OffsetDateTime`.
    pub fn from_epoch_millis(ms: i64) -> DateTime {
        let days = ms.div_euclid(86_400_000);
        let ms_of_day = ms.rem_euclid(86_400_000);
        let (y, m, d) = civil_from_days(days);
        DateTime {
            // |ms| < 2^63 keeps the year within ±292 million: it fits an i32.
            year: y as i32,
            month: m as i8,
            day: d as i8,
            nanos: ms_of_day * 1_000_000,
            offset_seconds: 0,
            kind: DateTimeKind::OffsetDateTime,
        }
    }

    /// The instant `secs` seconds and `nanos` (0..1e9) nanoseconds after
    /// 1970-01-01T00:00Z, at UTC, an `OffsetDateTime`; `None` outside Java's `Instant` range
    /// (years -1e9 to 1e9), which holds what an i64 of milliseconds cannot.
    pub(crate) fn from_epoch_seconds(secs: i64, nanos: i64) -> Option<DateTime> {
        const MIN: i64 = -31_557_014_167_219_200; // Instant.MIN, -1000000000-01-01T00:00Z
        const MAX: i64 = 31_556_889_864_403_199; // Instant.MAX, 1000000000-12-31T23:59:59Z
        if !(MIN..=MAX).contains(&secs) || !(0..1_000_000_000).contains(&nanos) {
            return None;
        }
        let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
        Some(DateTime {
            year: i32::try_from(y).ok()?,
            month: m as i8,
            day: d as i8,
            nanos: secs.rem_euclid(86_400) * 1_000_000_000 + nanos,
            offset_seconds: 0,
            kind: DateTimeKind::OffsetDateTime,
        })
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Seconds since the epoch and the nanosecond of that second: the instant `dt` names,
/// whatever its offset. (An i32 year keeps the days within ±8e11, so neither product
/// overflows.)
pub(crate) fn epoch(dt: &DateTime) -> (i64, i64) {
    let days = days_from_civil(i64::from(dt.year), i64::from(dt.month), i64::from(dt.day));
    let secs = days * 86_400 + dt.nanos.div_euclid(1_000_000_000) - i64::from(dt.offset_seconds);
    (secs, dt.nanos.rem_euclid(1_000_000_000))
}

/// An ISO 8601 date `YYYY-MM-DD` (Java's `LocalDate.toString()`), as (year, month, day).
pub(crate) fn parse_local_date(s: &str) -> Option<(i32, i8, i8)> {
    let mut d = s.splitn(3, '-');
    let year: i32 = d.next()?.parse().ok()?;
    let month: i8 = digits(d.next()?, 2)?;
    let day: i8 = digits(d.next()?, 2)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    Some((year, month, day))
}

/// A field of 1 to `max` ASCII digits (no sign: `str::parse` takes `+5` and `-5`, and a
/// negative hour once overflowed an offset's seconds).
fn digits<N: std::str::FromStr>(s: &str, max: usize) -> Option<N> {
    if s.is_empty() || s.len() > max || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A time of day `HH:MM[:SS[.fffffffff]]` (Java's `LocalTime.toString()`, which leaves out
/// zero seconds), as nanoseconds since midnight.
pub(crate) fn parse_local_time(time: &str) -> Option<i64> {
    let mut parts = time.split(':');
    let h: i64 = digits(parts.next()?, 2)?;
    let m: i64 = digits(parts.next()?, 2)?;
    let (sec, frac) = match parts.next() {
        Some(x) => match x.split_once('.') {
            Some((a, b)) => (digits(a, 2)?, b),
            None => (digits(x, 2)?, ""),
        },
        None => (0, ""),
    };
    if parts.next().is_some()
        || h > 23
        || m > 59
        || sec > 60
        || !frac.bytes().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    // Digits past the nanosecond are dropped.
    let mut f = frac.to_string();
    f.truncate(9);
    while f.len() < 9 {
        f.push('0');
    }
    Some(((h * 60 + m) * 60 + sec) * 1_000_000_000 + f.parse::<i64>().ok()?)
}

/// A zone offset `Z` or `±HH[:MM[:SS]]` (Java's `ZoneOffset.toString()`), as seconds east
/// of UTC; at most 18 hours either way, as Java allows.
pub(crate) fn parse_zone_offset(z: &str) -> Option<i32> {
    if z == "Z" || z == "z" {
        return Some(0);
    }
    let sign = match z.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = &z[1..];
    // `+HHMM` as well as `+HH:MM`.
    let (h, rest) = match rest.len() {
        4 if rest.bytes().all(|b| b.is_ascii_digit()) => (&rest[..2], &rest[2..]),
        _ => rest.split_once(':').unwrap_or((rest, "")),
    };
    let h: i32 = digits(h, 2)?;
    let mut parts = (!rest.is_empty())
        .then(|| rest.split(':'))
        .into_iter()
        .flatten();
    let m: i32 = parts.next().map_or(Some(0), |m| digits(m, 2))?;
    let sec: i32 = parts.next().map_or(Some(0), |x| digits(x, 2))?;
    if parts.next().is_some() || h > 18 || m > 59 || sec > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60 + sec))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `lit` fuzz target: `datetime('1011-09-06T00:30:1+-0001000100:')` took the
    /// zone's hour `-0001000100` (`str::parse` reads a sign) and overflowed its seconds (a
    /// panic with overflow checks, a wrong offset without). A field is unsigned digits.
    #[test]
    fn signed_or_long_fields_are_not_dates_times_or_offsets() {
        for bad in [
            "1011-09-06T00:30:1+-0001000100:",
            "2020-01-01T00:00+-5",
            "2020-01-01T00:00++5",
            "2020-01-01T00:00+05:-3",
            "2020-+1-01",
            "2020-01-+1",
            "2020-01-01T001:00Z",
        ] {
            assert_eq!(DateTime::parse_iso(bad), None, "{bad}");
        }
        assert_eq!(parse_local_time("-9223372036854775808:00"), None);
        assert_eq!(parse_zone_offset("-9223372036854775808"), None);
        // What Java writes still reads.
        let dt = DateTime::parse_iso("2020-01-02T03:04:05.5+01:30").unwrap();
        assert_eq!(
            (dt.year, dt.month, dt.day, dt.offset_seconds),
            (2020, 1, 2, 5400)
        );
        assert_eq!(parse_zone_offset("-0530"), Some(-(5 * 3600 + 30 * 60)));
        assert_eq!(parse_zone_offset("+18"), Some(18 * 3600));
        assert_eq!(parse_zone_offset("-01:02:03"), Some(-3723));
        assert_eq!(
            parse_local_time("23:59:60.123"),
            Some(((23 * 60 + 59) * 60 + 60) * 1_000_000_000 + 123_000_000)
        );
        assert_eq!(parse_local_date("2024-2-9"), Some((2024, 2, 9)));
    }
}
