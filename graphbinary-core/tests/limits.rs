//! Hostile lengths and sizes: negative lengths, lengths and counts above the limits (reported
//! before anything is allocated or awaited), nesting depth, and the response size limit; the
//! same error, at the same offset, on the fast path, the slow path, and every capacity.

mod common;

use bytes::Bytes;
use common::*;
use graphbinary_core::{Cursor, Decode, DecodeError, ErrorKind, Fq, Limits, ReadBuffer};

/// Reads one `T` from `data` (after a one-byte prefix, so offsets start at 1) at every
/// capacity and chunking, fast path on and off, and checks every attempt fails the same way as
/// the cursor does; returns the cursor's error.
fn fails_everywhere<T: Decode + std::fmt::Debug>(value: &[u8], limits: Limits) -> DecodeError {
    let mut data = vec![0x11];
    data.extend_from_slice(value);
    let mut cur = Cursor::new(&data, 0, &limits);
    cur.read_u8().unwrap();
    let reference = invalid(T::decode(&mut cur).expect_err("cursor accepted hostile input"));
    for cap in (1..=20).chain([64, 4096]) {
        for fast in [true, false] {
            for sizes in [vec![], vec![1], vec![3, 1]] {
                let r = ScriptReader::split(&data, &sizes);
                let mut buf = ReadBuffer::with_capacity(cap, r)
                    .with_limits(limits)
                    .with_fast_path(fast);
                block_on(async {
                    assert_eq!(buf.read_u8().await.unwrap(), 0x11);
                    let e = buf
                        .read::<T>()
                        .await
                        .expect_err("buffer accepted hostile input");
                    assert!(
                        same_error(&reference, &e),
                        "cap={cap} fast={fast} {sizes:?}: {e:?} vs cursor {reference:?}"
                    );
                });
            }
        }
    }
    reference
}

#[test]
fn negative_lengths_are_rejected_at_the_length_field() {
    for n in [-1, -2, i32::MIN] {
        let mut v = len_bytes(n).to_vec();
        v.extend_from_slice(b"abc");
        let e = fails_everywhere::<String>(&v, Limits::DEFAULT);
        assert!(
            matches!(e.kind(), ErrorKind::NegativeLength { what: "String", length } if *length == n)
        );
        assert_eq!(e.offset(), 1);
        let e = fails_everywhere::<Bytes>(&v, Limits::DEFAULT);
        assert!(matches!(
            e.kind(),
            ErrorKind::NegativeLength { what: "Binary", .. }
        ));
        assert_eq!(e.offset(), 1);
        let e = fails_everywhere::<Vec<i32>>(&v, Limits::DEFAULT);
        assert!(matches!(
            e.kind(),
            ErrorKind::NegativeLength { what: "List", .. }
        ));
        assert_eq!(e.offset(), 1);
        // Inside a fully-qualified value: the offset moves past the header.
        let mut fq = vec![0x03, 0x00];
        fq.extend_from_slice(&v);
        let e = fails_everywhere::<Fq<String>>(&fq, Limits::DEFAULT);
        assert!(matches!(e.kind(), ErrorKind::NegativeLength { .. }));
        assert_eq!(e.offset(), 3);
    }
}

#[test]
fn a_claimed_length_of_i32_max_is_a_length_limit_error_not_an_allocation_or_eof() {
    // Tiny input, huge claim: the default limit (256 MiB) rejects it at once.
    let mut v = len_bytes(i32::MAX).to_vec();
    v.extend_from_slice(b"xy");
    for e in [
        fails_everywhere::<String>(&v, Limits::DEFAULT),
        fails_everywhere::<Bytes>(&v, Limits::DEFAULT),
    ] {
        assert!(
            matches!(e.kind(), ErrorKind::LengthLimit { length, limit, .. }
                if *length == i32::MAX as u64 && *limit == 256 << 20),
            "{e:?}"
        );
        assert_eq!(e.offset(), 1);
    }
    let e = fails_everywhere::<Vec<String>>(&v, Limits::DEFAULT);
    assert!(
        matches!(e.kind(), ErrorKind::LengthLimit { what: "List", limit, .. } if *limit == 64 << 20),
        "{e:?}"
    );
}

#[test]
fn byte_length_limit_is_inclusive() {
    let limits = Limits {
        max_bytes_len: 5,
        ..Limits::DEFAULT
    };
    for cap in [1, 4, 16, 64] {
        for fast in [true, false] {
            let data = enc(&String::from("12345"));
            let mut buf = ReadBuffer::with_capacity(cap, &data[..])
                .with_limits(limits)
                .with_fast_path(fast);
            assert_eq!(block_on(buf.read::<String>()).unwrap(), "12345");
        }
    }
    let e = fails_everywhere::<String>(&enc(&String::from("123456")), limits);
    assert!(matches!(
        e.kind(),
        ErrorKind::LengthLimit {
            what: "String",
            length: 6,
            limit: 5
        }
    ));
    let e = fails_everywhere::<Bytes>(&enc(&Bytes::from_static(b"123456")), limits);
    assert_error_at(&e, 1, |k| {
        matches!(
            k,
            ErrorKind::LengthLimit {
                length: 6,
                limit: 5,
                ..
            }
        )
    });
}

#[test]
fn with_a_raised_limit_a_huge_claim_on_a_short_stream_is_eof_without_a_huge_allocation() {
    // The limit lets the claim through; the reader must stream and hit the end, not reserve
    // 2 GiB up front (an up-front reservation would abort the test process).
    let limits = Limits {
        max_bytes_len: usize::MAX,
        ..Limits::DEFAULT
    };
    let mut data = len_bytes(i32::MAX).to_vec();
    data.extend(std::iter::repeat_n(b'z', 10_000));
    for cap in [1, 64, 4096] {
        for fast in [true, false] {
            let mut buf = ReadBuffer::with_capacity(cap, &data[..])
                .with_limits(limits)
                .with_fast_path(fast);
            let e = block_on(buf.read::<Bytes>()).unwrap_err();
            assert_eof(&e, 4 + 10_000);
        }
    }
}

#[test]
fn collection_count_limit() {
    let limits = Limits {
        max_collection_len: 3,
        ..Limits::DEFAULT
    };
    let ok = enc(&vec![1i32, 2, 3]);
    for cap in [1, 8, 64] {
        let mut buf = ReadBuffer::with_capacity(cap, &ok[..]).with_limits(limits);
        assert_eq!(block_on(buf.read::<Vec<i32>>()).unwrap(), vec![1, 2, 3]);
    }
    let e = fails_everywhere::<Vec<i32>>(&enc(&vec![1i32, 2, 3, 4]), limits);
    assert!(matches!(
        e.kind(),
        ErrorKind::LengthLimit {
            what: "List",
            length: 4,
            limit: 3
        }
    ));
    assert_eq!(e.offset(), 1);
    // A nested list over the limit: the offset is the inner count's.
    let nested = enc(&vec![vec![1i32], vec![1, 2, 3, 4]]);
    let e = fails_everywhere::<Vec<Vec<i32>>>(&nested, limits);
    assert!(matches!(e.kind(), ErrorKind::LengthLimit { length: 4, .. }));
    // 1 prefix + 4 outer count + (2 + 4 + 6) first item + 2 header of the second.
    assert_eq!(e.offset(), 1 + 4 + 12 + 2);
}

type D1 = Vec<i32>;
type D2 = Vec<D1>;
type D3 = Vec<D2>;
type D4 = Vec<D3>;
type D5 = Vec<D4>;

#[test]
fn depth_limit_on_nested_lists() {
    let value: D5 = vec![vec![vec![vec![vec![7]]]]];
    let bytes = enc(&value);
    // Depth 5 is needed: limits 5 and up read it, at every capacity and on both paths, and the
    // depth is back to 0 afterwards.
    for max_depth in [5, 6, 512] {
        let limits = Limits {
            max_depth,
            ..Limits::DEFAULT
        };
        for cap in [1, 7, 16, 4096] {
            for fast in [true, false] {
                let mut buf = ReadBuffer::with_capacity(cap, &bytes[..])
                    .with_limits(limits)
                    .with_fast_path(fast);
                assert_eq!(block_on(buf.read::<D5>()).unwrap(), value);
                assert_eq!(buf.depth(), 0);
            }
        }
    }
    // Below that, a DepthLimit error right after the header of the list one level too deep
    // (checked before its count is read, the same on both paths).
    for max_depth in 0..5u32 {
        let limits = Limits {
            max_depth,
            ..Limits::DEFAULT
        };
        let e = fails_everywhere::<D5>(&bytes, limits);
        assert!(
            matches!(e.kind(), ErrorKind::DepthLimit { limit } if *limit == max_depth),
            "{e:?}"
        );
        // Level k (0-based) starts at 1 + 6k (4-byte count + 2-byte header per level above),
        // and the error is reported at its 4-byte count.
        assert_eq!(
            e.offset(),
            1 + 6 * max_depth as u64,
            "max_depth={max_depth}"
        );
    }
}

#[test]
fn depth_counts_from_a_slow_read_into_a_nested_fast_read() {
    // A list too large for the buffer is read on the slow path (depth 1 in the buffer), its
    // small items on the fast path (cursor starting at depth 1).
    let inner: Vec<Vec<i32>> = (0..20).map(|i| vec![i; 3]).collect();
    let bytes = enc(&inner);
    let limits = Limits {
        max_depth: 1,
        ..Limits::DEFAULT
    };
    let mut buf = ReadBuffer::with_capacity(32, &bytes[..]).with_limits(limits);
    let e = block_on(buf.read::<Vec<Vec<i32>>>()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DepthLimit { limit: 1 }));
    assert_eq!(e.offset(), 4 + 2);
    let limits = Limits {
        max_depth: 2,
        ..Limits::DEFAULT
    };
    let mut buf = ReadBuffer::with_capacity(32, &bytes[..]).with_limits(limits);
    assert_eq!(block_on(buf.read::<Vec<Vec<i32>>>()).unwrap(), inner);
    assert_eq!(buf.depth(), 0);
}

#[test]
fn enter_and_leave_on_the_buffer_and_the_cursor() {
    let limits = Limits {
        max_depth: 2,
        ..Limits::DEFAULT
    };
    let mut buf = ReadBuffer::new(&[0u8; 0][..]).with_limits(limits);
    buf.enter().unwrap();
    buf.enter().unwrap();
    let e = buf.enter().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DepthLimit { limit: 2 }));
    assert_eq!(buf.depth(), 2);
    buf.leave();
    buf.leave();
    buf.leave(); // saturates
    assert_eq!(buf.depth(), 0);

    let data = [0u8; 4];
    let mut cur = Cursor::with_depth(&data, 10, &limits, 1);
    cur.read_u8().unwrap();
    cur.enter().unwrap();
    let e = invalid(cur.enter().unwrap_err());
    assert_eq!(e.offset(), 11);
    cur.leave();
    assert_eq!(cur.depth(), 1);
    cur.leave();
    cur.leave(); // saturates instead of underflowing (a debug-build panic before)
    assert_eq!(cur.depth(), 0);
    cur.enter().unwrap();
    assert_eq!(cur.depth(), 1);
}

#[test]
fn response_size_limit() {
    let data: Vec<u8> = (0..100).collect();
    for cap in [1, 7, 16, 64, 4096] {
        // Exactly the limit: fine.
        let limits = Limits {
            max_response_size: Some(100),
            ..Limits::DEFAULT
        };
        let mut buf =
            ReadBuffer::with_capacity(cap, ScriptReader::split(&data, &[9])).with_limits(limits);
        block_on(async {
            for i in 0..100u8 {
                assert_eq!(buf.read_u8().await.unwrap(), i);
            }
            assert!(buf.is_at_end().await.unwrap());
        });
        // One byte over: an error naming the limit, as soon as the extra byte is read.
        let limits = Limits {
            max_response_size: Some(99),
            ..Limits::DEFAULT
        };
        let mut buf =
            ReadBuffer::with_capacity(cap, ScriptReader::split(&data, &[9])).with_limits(limits);
        let e = block_on(async {
            loop {
                if let Err(e) = buf.read_u8().await {
                    return e;
                }
            }
        });
        assert!(
            matches!(e.kind(), ErrorKind::ResponseLimit { limit: 99 }),
            "{e:?}"
        );
        assert_eq!(e.offset(), 99);
        assert!(buf.offset() <= 99, "read past the limit: {}", buf.offset());
    }
}

#[test]
fn response_size_limit_applies_to_streamed_payloads() {
    let data = enc(&Bytes::from(vec![1u8; 100_000]));
    let limits = Limits {
        max_response_size: Some(50_000),
        ..Limits::DEFAULT
    };
    for fast in [true, false] {
        let mut buf = ReadBuffer::with_capacity(64, &data[..])
            .with_limits(limits)
            .with_fast_path(fast);
        // A length the response cannot hold is refused at the length, before streaming.
        let e = block_on(buf.read::<Bytes>()).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LengthLimit {
                    length: 100_000,
                    limit: 49_996,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(e.offset(), 0);
        assert!(
            buf.offset() <= 4,
            "streamed past the length: {}",
            buf.offset()
        );
    }
}

#[test]
fn limits_default_values() {
    let l = Limits::default();
    assert_eq!(l, Limits::DEFAULT);
    assert_eq!(l.max_bytes_len, 256 << 20);
    assert_eq!(l.max_collection_len, 64 << 20);
    assert_eq!(l.max_depth, 512);
    assert_eq!(l.max_response_size, None);
    let buf = ReadBuffer::new(&[0u8; 0][..]);
    assert_eq!(*buf.limits(), Limits::DEFAULT);
    assert!(buf.fast_path());
    assert_eq!(buf.capacity(), graphbinary_core::DEFAULT_CAPACITY);
}
