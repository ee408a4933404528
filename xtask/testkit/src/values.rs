//! Proptest strategies of the values a server keeps as they were sent, for the tests that send
//! generated values to a real server and read them back (live3's `roundtrip`, live4_writes'
//! `e2e_elements`): text an escaper gets wrong, every float edge (NaN, -0.0, the infinities),
//! dates of each Java class a server generation takes.

use graphbinary_client::value::{BigDecimal, BigInteger, DateTime, DateTimeKind, Duration};
use proptest::prelude::*;

/// Which server a value goes to: what it can spell and keep.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Gen {
    /// TinkerPop 4 (gremlin-lang).
    Tp4,
    /// TinkerPop 3 (Groovy and GraphBinary 1 bindings).
    Tp3,
}

pub fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,10}",
        Just(String::new()),
        Just("it's \"quoted\" \\ $x ${1+1} #{x}".to_owned()),
        Just("\u{0}\u{1}\n\r\t\u{8}\u{c}\u{7f}".to_owned()),
        Just("non-BMP 𝄞😀 and BMP ü∂".to_owned()),
        Just("'] , x:g.V().drop() //".to_owned()),
    ]
}

/// Any double, NaN, the infinities and both zeros among them.
pub fn double() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |d| d.is_finite()),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
        Just(0.0),
        Just(f64::MIN_POSITIVE),
        Just(f64::MAX),
    ]
}

pub fn float(g: Gen) -> BoxedStrategy<f32> {
    let finite = prop_oneof![
        any::<f32>().prop_filter("finite", |d| d.is_finite()),
        Just(-0.0f32),
        Just(f32::MAX),
    ];
    match g {
        // gremlin-lang has no Float NaN or Infinity (they are Doubles there).
        Gen::Tp4 => finite.boxed(),
        Gen::Tp3 => prop_oneof![finite, Just(f32::NAN), Just(f32::NEG_INFINITY)].boxed(),
    }
}

/// An `OffsetDateTime` (or, on TinkerPop 3, each Java class of a date).
pub fn date_time(g: Gen) -> BoxedStrategy<DateTime> {
    let offset_dt = (
        1i32..=9999,
        1i8..=12,
        1i8..=28,
        0i64..86_400_000_000_000,
        -1080i32..=1080,
    )
        .prop_map(|(year, month, day, nanos, offset_minutes)| DateTime {
            year,
            month,
            day,
            nanos,
            offset_seconds: offset_minutes * 60,
            kind: DateTimeKind::OffsetDateTime,
        });
    match g {
        Gen::Tp4 => offset_dt.boxed(),
        Gen::Tp3 => prop_oneof![
            offset_dt.clone(),
            offset_dt.prop_map(|d| d.with_kind(DateTimeKind::ZonedDateTime)),
            epoch(DateTimeKind::Date),
            epoch(DateTimeKind::Timestamp),
            epoch(DateTimeKind::Instant),
        ]
        .boxed(),
    }
}

/// A date of `kind` counted from the epoch: milliseconds (`Date`, `Timestamp`), an `Instant`
/// with nanoseconds too.
pub fn epoch(kind: DateTimeKind) -> BoxedStrategy<DateTime> {
    let millis = -10_000_000_000_000i64..10_000_000_000_000;
    let sub = if kind == DateTimeKind::Instant {
        0i64..1_000_000
    } else {
        0..1
    };
    (millis, sub)
        .prop_map(move |(ms, sub)| {
            let mut d = DateTime::from_epoch_millis(ms);
            d.nanos += sub;
            d.with_kind(kind)
        })
        .boxed()
}

/// Beyond a Long both ways.
pub fn big_integer() -> impl Strategy<Value = BigInteger> {
    any::<i128>().prop_map(|n| BigInteger::from(num_bigint::BigInt::from(n)))
}

pub fn big_decimal() -> impl Strategy<Value = BigDecimal> {
    (-6i32..12, any::<i64>()).prop_map(|(scale, unscaled)| BigDecimal {
        scale,
        unscaled: BigInteger::from(unscaled),
    })
}

pub fn duration() -> impl Strategy<Value = Duration> {
    (
        -1_000_000_000_000i64..1_000_000_000_000,
        0i32..1_000_000_000,
    )
        .prop_map(|(seconds, nanos)| Duration { seconds, nanos })
}

/// A Java `char` (a UTF-16 unit: the BMP).
pub fn java_char() -> impl Strategy<Value = char> {
    prop::char::range('\0', '\u{FFFF}')
}

pub fn binary() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..12)
}
