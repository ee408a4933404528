//! [`StatusAttributes`]: the `status.attributes` map of a TinkerPop 3 response message, with
//! typed accessors for the attributes Azure Cosmos DB adds (`x-ms-request-charge`,
//! `x-ms-status-code`, `x-ms-retry-after-ms`, ...), and the parser of the .NET `TimeSpan`
//! strings Cosmos writes its retry-after as.

use std::time::Duration;

use crate::value::Value;

/// The status attributes of a response message: every key and value the server sent, in its
/// order (unknown keys kept), as TinkerPop 3 writes them after the status code and message.
///
/// Gremlin Server puts `host` there, and on an error `exceptions` and `stackTrace`; Azure
/// Cosmos DB adds its `x-ms-*` attributes, read by the typed accessors below. The accessors
/// are lenient about the number type (an `Int`, `Long`, `Float`, `Double` or a numeric string
/// all read) and strict about meaning: a value they cannot read is `None`, never a panic.
///
/// ```
/// use std::time::Duration;
/// use graphbinary_client::response::StatusAttributes;
/// use graphbinary_client::Value;
///
/// let attrs = StatusAttributes::from(vec![
///     (Value::from("x-ms-status-code"), Value::Long(429)),
///     (Value::from("x-ms-substatus-code"), Value::Long(3200)),
///     (Value::from("x-ms-retry-after-ms"), Value::from("00:00:03.9500000")),
///     (Value::from("x-ms-request-charge"), Value::Double(2.29)),
///     (Value::from("x-ms-activity-id"), Value::from("a3f1b0c2-0000-0000-0000-000000000000")),
/// ]);
/// assert_eq!(attrs.status_code(), Some(429));
/// assert_eq!(attrs.substatus_code(), Some(3200));
/// assert_eq!(attrs.retry_after(), Some(Duration::from_millis(3950)));
/// assert_eq!(attrs.request_charge(), Some(2.29));
/// assert_eq!(attrs.activity_id().as_deref(), Some("a3f1b0c2-0000-0000-0000-000000000000"));
/// assert_eq!(attrs.total_request_charge(), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusAttributes {
    entries: Vec<(Value, Value)>,
}

/// `x-ms-request-charge`: request units this response message cost.
const REQUEST_CHARGE: &str = "x-ms-request-charge";
/// `x-ms-total-request-charge`: request units of the request so far.
const TOTAL_REQUEST_CHARGE: &str = "x-ms-total-request-charge";
/// `x-ms-server-time-ms`: server time of this message.
const SERVER_TIME_MS: &str = "x-ms-server-time-ms";
/// `x-ms-total-server-time-ms`: server time of the request so far.
const TOTAL_SERVER_TIME_MS: &str = "x-ms-total-server-time-ms";
/// `x-ms-status-code`: the Cosmos status (429 when throttled, inside a Gremlin 500).
const STATUS_CODE: &str = "x-ms-status-code";
/// `x-ms-substatus-code`.
const SUBSTATUS_CODE: &str = "x-ms-substatus-code";
/// `x-ms-retry-after-ms`: a .NET `TimeSpan` string.
const RETRY_AFTER_MS: &str = "x-ms-retry-after-ms";
/// `x-ms-activity-id`: the id Microsoft support asks for.
const ACTIVITY_ID: &str = "x-ms-activity-id";

impl From<Vec<(Value, Value)>> for StatusAttributes {
    fn from(entries: Vec<(Value, Value)>) -> Self {
        StatusAttributes { entries }
    }
}

impl StatusAttributes {
    /// The value of attribute `key` (a String key), if the server sent it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        crate::value::get_by_str(&self.entries, key)
    }

    /// Every attribute, in the order the server sent them.
    pub fn iter(&self) -> impl Iterator<Item = &(Value, Value)> {
        self.entries.iter()
    }

    /// How many attributes there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The attributes as (key, value) pairs.
    pub fn into_vec(self) -> Vec<(Value, Value)> {
        self.entries
    }

    /// `x-ms-request-charge`: the request units (RU) this response message cost.
    pub fn request_charge(&self) -> Option<f64> {
        self.get(REQUEST_CHARGE).and_then(number)
    }

    /// `x-ms-total-request-charge`: the request units of the whole request up to this
    /// message (Cosmos keeps the running total; the last message's is the request's).
    pub fn total_request_charge(&self) -> Option<f64> {
        self.get(TOTAL_REQUEST_CHARGE).and_then(number)
    }

    /// `x-ms-server-time-ms`: the server's time for this message, in milliseconds.
    pub fn server_time_ms(&self) -> Option<f64> {
        self.get(SERVER_TIME_MS).and_then(number)
    }

    /// `x-ms-total-server-time-ms`: the server's time for the request so far, in milliseconds.
    pub fn total_server_time_ms(&self) -> Option<f64> {
        self.get(TOTAL_SERVER_TIME_MS).and_then(number)
    }

    /// `x-ms-status-code`: Cosmos DB's own status (e.g. 429 when the request was throttled,
    /// which Cosmos reports inside a Gremlin status 500), not the Gremlin status code.
    pub fn status_code(&self) -> Option<i64> {
        self.get(STATUS_CODE).and_then(integer)
    }

    /// `x-ms-substatus-code`: the detail of [`status_code`](Self::status_code).
    pub fn substatus_code(&self) -> Option<i64> {
        self.get(SUBSTATUS_CODE).and_then(integer)
    }

    /// `x-ms-retry-after-ms`: how long Cosmos asks the client to wait before retrying. Cosmos
    /// writes a .NET `TimeSpan` string, `"00:00:03.9500000"` (`[d.]hh:mm:ss[.fffffff]`, also
    /// `d:hh:mm:ss` and `hh:mm`); a plain number (or a numeric string) is read as
    /// milliseconds, as the name says. A negative, malformed or out-of-range value is `None`.
    pub fn retry_after(&self) -> Option<Duration> {
        match self.get(RETRY_AFTER_MS)? {
            Value::String(s) => parse_retry_after(s),
            v => millis(number(v)?),
        }
    }

    /// `x-ms-activity-id`: the request's id at Cosmos DB (a UUID as text), for support cases.
    pub fn activity_id(&self) -> Option<String> {
        match self.get(ACTIVITY_ID)? {
            Value::String(s) => Some(s.clone()),
            Value::Uuid(u) => Some(u.to_string()),
            _ => None,
        }
    }
}

/// A number of any width, or a numeric string.
fn number(v: &Value) -> Option<f64> {
    let x = match v {
        Value::Double(x) => *x,
        Value::Float(x) => f64::from(*x),
        Value::String(s) => s.trim().parse().ok()?,
        other => other.as_i64()? as f64,
    };
    x.is_finite().then_some(x)
}

/// An integer of any width, an integral floating-point value, or an integer string.
fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => s.trim().parse().ok(),
        Value::Double(_) | Value::Float(_) => {
            let x = number(v)?;
            (x.fract() == 0.0 && x.abs() < 9.0e15).then_some(x as i64)
        }
        other => other.as_i64(),
    }
}

/// `ms` milliseconds, when that is a duration (finite, not negative, not past `u64` seconds).
fn millis(ms: f64) -> Option<Duration> {
    if ms < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(ms / 1000.0).ok()
}

/// Reads a retry-after value: a .NET `TimeSpan` (`[d.]hh:mm:ss[.fffffff]`, `d:hh:mm:ss[.f]`,
/// `hh:mm`) or a plain number of milliseconds; `None` for anything else, a negative span or
/// one out of range.
pub(super) fn parse_retry_after(s: &str) -> Option<Duration> {
    let s = s.trim();
    if s.contains(':') {
        return parse_timespan(s);
    }
    // Plain milliseconds ("3950", "3950.5", up to nanoseconds); not "-1", "NaN", "1e3".
    let (whole, fraction) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let nanos = match fraction {
        None => 0,
        Some(f) => digits(f, 6)? * 10u64.pow(6 - f.len() as u32),
    };
    Duration::from_millis(digits(whole, 19)?).checked_add(Duration::from_nanos(nanos))
}

/// A non-negative .NET `TimeSpan` in its constant (`c`) form `[d.]hh:mm:ss[.fffffff]` or its
/// general form `[d:]h:mm:ss[.fffffff]`, or `hh:mm`.
fn parse_timespan(s: &str) -> Option<Duration> {
    let parts: Vec<&str> = s.split(':').collect();
    let (days, hours, minutes, seconds) = match parts[..] {
        [h, m] => ("0", h, m, "0"),
        [h, m, sec] => match h.split_once('.') {
            Some((d, h)) => (d, h, m, sec),
            None => ("0", h, m, sec),
        },
        [d, h, m, sec] => (d, h, m, sec),
        _ => return None,
    };
    let (seconds, fraction) = match seconds.split_once('.') {
        Some((sec, f)) => (sec, Some(f)),
        None => (seconds, None),
    };
    let days = digits(days, 8)?;
    let hours = digits(hours, 2).filter(|&h| h < 24)?;
    let minutes = digits(minutes, 2).filter(|&m| m < 60)?;
    let seconds = digits(seconds, 2).filter(|&s| s < 60)?;
    // Up to 7 digits: .NET's ticks of 100 ns.
    let nanos = match fraction {
        None => 0,
        Some(f) => {
            let n = digits(f, 7)?;
            let scale = 10u64.pow(9 - f.len() as u32);
            u32::try_from(n * scale).ok()?
        }
    };
    let secs = days
        .checked_mul(86_400)?
        .checked_add(hours * 3600 + minutes * 60 + seconds)?;
    Some(Duration::new(secs, nanos))
}

/// `s` as a number of 1 to `max` ASCII digits.
fn digits(s: &str, max: usize) -> Option<u64> {
    if s.is_empty() || s.len() > max || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn timespans_parse_as_dotnet_writes_them() {
        for (text, want) in [
            ("00:00:03.9500000", ms(3950)),
            ("00:00:00.1", ms(100)),
            ("00:00:00", ms(0)),
            ("00:00:01", ms(1000)),
            ("00:01:00", ms(60_000)),
            ("01:00:00", ms(3_600_000)),
            ("23:59:59.9999999", Some(Duration::new(86_399, 999_999_900))),
            ("1.02:03:04.5", ms(93_784_500)),
            ("1:02:03:04.5", ms(93_784_500)),
            (
                "10675199.02:48:05.4775807",
                Some(Duration::new(922_337_203_685, 477_580_700)),
            ),
            ("0:0:3", ms(3000)),
            ("00:05", ms(300_000)),
            (" 00:00:03.95 ", ms(3950)),
            ("00:00:00.0000001", Some(Duration::from_nanos(100))),
            ("3950", ms(3950)),
            ("0", ms(0)),
            ("2.5", Some(Duration::from_micros(2500))),
        ] {
            assert_eq!(parse_retry_after(text), want, "{text:?}");
        }
    }

    #[test]
    fn bad_timespans_are_none_never_a_panic() {
        for text in [
            "",
            " ",
            ":",
            "::",
            "-00:00:01",
            "-5",
            "NaN",
            "inf",
            "1e3",
            "00:00:60",
            "00:60:00",
            "24:00:00",
            "00:00:03.95000001",
            "00:00:03.",
            "00:00:.5",
            "00::03",
            "1.2.03:04:05",
            "a.00:00:01",
            "00:00:0x",
            "1:2:3:4:5",
            "123456789.00:00:00",
            "+00:00:01",
            "00:00:01,5",
            "٣:00:00",
            "99999999999999999999999",
            "3950.",
            ".5",
            "1.0000001",
        ] {
            assert_eq!(parse_retry_after(text), None, "{text:?}");
        }
        // Every prefix and every single-byte change of a good value: a value or None.
        let good = "1.02:03:04.5000000";
        for i in 0..=good.len() {
            let _ = parse_retry_after(&good[..i]);
        }
        for i in 0..good.len() {
            for b in [b'0', b'9', b'.', b':', b'-', b' ', b'x'] {
                let mut s = good.as_bytes().to_vec();
                s[i] = b;
                let _ = parse_retry_after(std::str::from_utf8(&s).unwrap());
            }
        }
    }

    fn attrs(pairs: &[(&str, Value)]) -> StatusAttributes {
        pairs
            .iter()
            .map(|(k, v)| (Value::from(*k), v.clone()))
            .collect::<Vec<_>>()
            .into()
    }

    #[test]
    fn accessors_read_every_number_type_and_refuse_the_rest() {
        let a = attrs(&[
            ("x-ms-request-charge", Value::Int(3)),
            ("x-ms-total-request-charge", Value::from("10.5")),
            ("x-ms-server-time-ms", Value::Float(1.5)),
            ("x-ms-total-server-time-ms", Value::Long(7)),
            ("x-ms-status-code", Value::Double(429.0)),
            ("x-ms-substatus-code", Value::from("3200")),
            ("x-ms-retry-after-ms", Value::Long(250)),
            ("x-ms-activity-id", Value::Uuid(uuid::Uuid::nil())),
        ]);
        assert_eq!(a.request_charge(), Some(3.0));
        assert_eq!(a.total_request_charge(), Some(10.5));
        assert_eq!(a.server_time_ms(), Some(1.5));
        assert_eq!(a.total_server_time_ms(), Some(7.0));
        assert_eq!(a.status_code(), Some(429));
        assert_eq!(a.substatus_code(), Some(3200));
        assert_eq!(a.retry_after(), ms(250));
        assert_eq!(
            a.activity_id().as_deref(),
            Some("00000000-0000-0000-0000-000000000000")
        );
        assert_eq!(a.len(), 8);

        let bad = attrs(&[
            ("x-ms-request-charge", Value::Double(f64::NAN)),
            ("x-ms-total-request-charge", Value::Boolean(true)),
            ("x-ms-status-code", Value::Double(429.5)),
            ("x-ms-substatus-code", Value::from("many")),
            ("x-ms-retry-after-ms", Value::Long(-1)),
            ("x-ms-activity-id", Value::Int(1)),
        ]);
        assert_eq!(bad.request_charge(), None);
        assert_eq!(bad.total_request_charge(), None);
        assert_eq!(bad.status_code(), None);
        assert_eq!(bad.substatus_code(), None);
        assert_eq!(bad.retry_after(), None);
        assert_eq!(bad.activity_id(), None);
        assert_eq!(bad.server_time_ms(), None);
        for v in [Value::Double(f64::INFINITY), Value::Double(1e300)] {
            let a = attrs(&[("x-ms-retry-after-ms", v)]);
            assert_eq!(a.retry_after(), None);
        }
        assert!(StatusAttributes::default().is_empty());
    }
}
