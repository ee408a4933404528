//! The serde deserializer over arbitrary bytes: never panics; deserializing into `Value`
//! agrees with the `Value` reader (same value, same validity); `IgnoredAny` and `skip_value`
//! accept exactly what the `Value` reader accepts; deserializing into a dynamic JSON value
//! and, in a response, into `Value` on the fast and slow paths never panics and agrees.
#![no_main]

use futures::executor::block_on;
use graphbinary_client::format::de::from_slice_with;
use graphbinary_client::format::graphbinary4::skip_value;
use graphbinary_client::value::Value;
use graphbinary_client::response::{read_response, ReadOptions};
use graphbinary_core::{Cursor, FastError};
use graphbinary_fuzz::{chunks, same, LIMITS};
use libfuzzer_sys::fuzz_target;
use serde::de::IgnoredAny;

fuzz_target!(|data: &[u8]| {
    // First byte: buffer capacity for the response check; the rest is the value.
    let Some((&cap, bytes)) = data.split_first() else {
        return;
    };
    let expected = Value::from_bytes_with(bytes, &LIMITS).ok();
    let ours = from_slice_with::<Value>(bytes, &LIMITS).ok();
    match (&expected, &ours) {
        (Some(a), Some(b)) => assert!(same(a, b), "serde into Value differs: {a:?} vs {b:?}"),
        (None, None) => {}
        _ => panic!("validity differs: Value route {expected:?}, serde {ours:?}"),
    }
    let ignored = from_slice_with::<IgnoredAny>(bytes, &LIMITS).is_ok();
    assert_eq!(ignored, expected.is_some(), "IgnoredAny validity");
    let mut cur = Cursor::new(bytes, 0, &LIMITS);
    let skipped = match skip_value(&mut cur) {
        Ok(()) => cur.position() == bytes.len(),
        Err(FastError::NeedMore(n)) => {
            assert!(n > bytes.len(), "need more {n} of {} bytes", bytes.len());
            false
        }
        Err(FastError::Invalid(_)) => false,
    };
    assert_eq!(skipped, expected.is_some(), "skip_value validity");
    // Any shape at all: must not panic.
    let _ = from_slice_with::<serde_json::Value>(bytes, &LIMITS);

    // In a response, through the stream (fast path in place, slow path for values larger than
    // the buffer): agrees with the Value route.
    let mut body = vec![0x84, 0x00];
    body.extend_from_slice(bytes);
    body.extend_from_slice(&[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01]);
    let opts = ReadOptions {
        limits: graphbinary_core::Limits {
            max_response_size: None,
            ..LIMITS
        },
        capacity: usize::from(cap).max(1),
        fast_path: true,
    };
    let mut got = Vec::new();
    let r = block_on(
        read_response(chunks(body, &[cap % 7 + 1, 3, 64]), opts)
            .for_each_as(|v: Value, _| got.push(v)),
    );
    // A result starting with the Marker's type code (e.g. a typed null `FD 01`) is the end
    // of the results to any response reader; the check does not apply to it.
    if let Some(v) = expected.as_ref().filter(|_| bytes.first() != Some(&0xfd)) {
        assert!(r.is_ok(), "the stream failed on a valid value: {r:?}");
        assert_eq!(got.len(), 1);
        assert!(same(v, &got[0]), "stream {got:?} vs {v:?}");
    }
});
