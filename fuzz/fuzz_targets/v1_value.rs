//! The GraphBinary 1 value reader (TinkerPop 3.x) over arbitrary bytes: never panics; a
//! decoded value re-encodes and decodes to equal bytes; the fast path and the slow path (fast
//! path off, small buffer, chunked and pending reads) agree.
#![no_main]

use graphbinary_client::fuzzing::graphbinary1 as gb1;
use graphbinary_core::ReadBuffer;
use graphbinary_fuzz::{chunks, LIMITS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // First byte: JanusGraph's custom types on (high bit); a buffer big enough for any input
    // (bit 6) or one of 1..=64 bytes (low 6 bits).
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let janus = sel & 0x80 != 0;
    let roomy = sel & 0x40 != 0;
    let cap = if roomy {
        1 << 17
    } else {
        usize::from(sel & 0x3f) + 1
    };
    let fast = gb1::decode(bytes, &LIMITS, janus);
    let fast_bytes = fast.as_ref().ok().map(|v| {
        let b = gb1::encode(v, janus).expect("a decoded value re-encodes");
        let again = gb1::decode(&b, &LIMITS, janus)
            .unwrap_or_else(|e| panic!("a re-encoded value decodes: {e}\n{v:?}"));
        let b2 = gb1::encode(&again, janus).unwrap();
        assert_eq!(b, b2, "re-encoding is stable: {v:?} vs {again:?}");
        b
    });
    let slow = futures::executor::block_on(async {
        let mut buf = ReadBuffer::with_capacity(cap, chunks(bytes.to_vec(), &[sel % 7 + 1, 3, 64]))
            .with_limits(LIMITS)
            .with_fast_path(false);
        let v = gb1::read(&mut buf, janus).await?;
        match buf.is_at_end().await? {
            true => Ok(v),
            false => Err(graphbinary_core::DecodeError::new(
                0,
                graphbinary_core::ErrorKind::Invalid {
                    what: "test",
                    detail: "bytes after the value".into(),
                },
            )),
        }
    });
    match (&fast_bytes, &slow) {
        (Some(a), Ok(b)) => {
            let b = gb1::encode(b, janus).expect("a decoded value re-encodes");
            assert_eq!(a, &b, "paths disagree");
        }
        (None, Err(_)) => {}
        // A value the slow path reads whole (a Tree, a Metrics, a custom value...) must fit in
        // the buffer: a small one fails where the fast path, over all bytes, succeeds.
        (Some(_), Err(e)) if !roomy && e.to_string().contains("contiguous bytes") => {}
        _ => panic!(
            "paths disagree on validity: fast {:?}, slow {:?}",
            fast.as_ref().map(|_| ()),
            slow.as_ref().map(|_| ())
        ),
    }
});
