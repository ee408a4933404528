//! The dynamic value reader over arbitrary bytes: never panics; a decoded value round-trips;
//! the fast and slow paths agree.
#![no_main]

use graphbinary_client::value::Value;
use graphbinary_fuzz::{assert_round_trip, decode_slow, same, LIMITS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // First byte: buffer capacity for the slow path; the rest is the value.
    let Some((&cap, bytes)) = data.split_first() else {
        return;
    };
    let fast = Value::from_bytes_with(bytes, &LIMITS).ok();
    if let Some(v) = &fast {
        assert_round_trip(v);
    }
    let slow = decode_slow::<Value>(bytes, usize::from(cap).max(1), &[cap % 7 + 1, 3, 64]);
    match (&fast, &slow) {
        (Some(a), Some(b)) => assert!(same(a, b), "paths disagree: {a:?} vs {b:?}"),
        (None, None) => {}
        _ => panic!("paths disagree on validity: fast {fast:?}, slow {slow:?}"),
    }
});
