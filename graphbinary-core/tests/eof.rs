//! End of stream and reader failures: for every width and every truncation the error is
//! `UnexpectedEof` (or `Io`) at exactly the absolute offset where the stream ended, whatever the
//! capacity, chunking and read path; `is_at_end` tells a clean end from a pending one.

mod common;

use std::collections::VecDeque;
use std::error::Error as _;
use std::io;
use std::pin::pin;
use std::task::Poll;

use bytes::Bytes;
use common::*;
use graphbinary_core::{ErrorKind, Fq, ReadBuffer};
use tokio::io::AsyncRead;

const PRE: u8 = 0x5a;

#[test]
fn every_truncation_of_every_primitive_is_eof_at_the_exact_offset() {
    let mut runs = 0;
    for (p, how, value) in every_encoding() {
        // Long payloads: every truncation near the ends, a few in the middle.
        let cuts: Vec<usize> = (0..value.len())
            .filter(|&t| value.len() <= 40 || t < 20 || t + 20 > value.len() || t % 17 == 0)
            .collect();
        for t in cuts {
            let mut data = vec![PRE];
            data.extend_from_slice(&value[..t]);
            for cap in (1..=16).chain([64]) {
                for (sizes, mode) in [
                    (vec![], Mode::Plain),
                    (vec![1], Mode::Pending),
                    (vec![2, 1], Mode::Short),
                ] {
                    let ctx = format!("{p:?} {how:?} cut={t} cap={cap} {sizes:?} {mode:?}");
                    let r = reader(&data, &sizes, mode);
                    let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(how.fast_path());
                    block_on(async {
                        assert_eq!(buf.read_u8().await.unwrap(), PRE);
                        let e = p.read_how(how, &mut buf).await.expect_err(&ctx);
                        assert!(
                            matches!(e.kind(), ErrorKind::UnexpectedEof { expected } if !expected.is_empty()),
                            "{ctx}: {e:?}"
                        );
                        assert_eq!(e.offset(), 1 + t as u64, "{ctx}: {e}");
                        assert!(e.to_string().starts_with(&format!("at byte {}: ", 1 + t)));
                    });
                    runs += 1;
                }
            }
        }
    }
    assert!(runs > 50_000, "{runs}");
}

#[test]
fn empty_stream_is_at_end_and_every_read_is_eof_at_zero() {
    for p in samples() {
        let mut buf = ReadBuffer::new(&[0u8; 0][..]);
        assert!(block_on(buf.is_at_end()).unwrap());
        let e = block_on(p.read(&mut buf)).unwrap_err();
        assert_eof(&e, 0);
        let e = block_on(p.read_direct(&mut buf)).unwrap_err();
        assert_eof(&e, 0);
        // End of stream is sticky.
        assert_eq!(block_on(buf.fill()).unwrap(), 0);
        assert!(block_on(buf.is_at_end()).unwrap());
    }
}

#[test]
fn eof_inside_a_string_payload_names_where_the_stream_ended() {
    // Claimed 1000 bytes, 600 present: through the buffer (capacity above the payload) and
    // streamed past it (capacity below), with the fast path on and off.
    let mut data = vec![0, 0, 0x03, 0xe8];
    data.extend(std::iter::repeat_n(b'q', 600));
    for cap in [1, 4, 16, 64, 599, 600, 604, 1000, 1004, 4096] {
        for fast in [true, false] {
            for sizes in [vec![], vec![1], vec![100], vec![3, 250]] {
                let r = ScriptReader::split(&data, &sizes);
                let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
                let e = block_on(buf.read::<String>()).unwrap_err();
                assert_eof(&e, 604);
                let r = ScriptReader::split(&data, &sizes);
                let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
                let e = block_on(buf.read::<Fq<Bytes>>()).unwrap_err();
                // The Fq form reads a Binary code: wrong type code, not EOF, at offset 0.
                assert!(matches!(e.kind(), ErrorKind::UnexpectedTypeCode { .. }));
                assert_eq!(e.offset(), 0);
            }
        }
    }
}

#[test]
fn eof_inside_a_huge_binary_streamed_past_a_small_buffer() {
    let claimed = 1 << 20;
    let present = 700_001;
    let mut data = vec![0x25, 0x00];
    data.extend_from_slice(&len_bytes(claimed));
    data.extend((0..present).map(|i| i as u8));
    for sizes in [vec![], vec![4096], vec![1, 63, 65]] {
        let mut buf = ReadBuffer::with_capacity(64, ScriptReader::split(&data, &sizes));
        let e = block_on(buf.read::<Fq<Bytes>>()).unwrap_err();
        assert_eof(&e, 2 + 4 + present as u64);
        assert_eq!(buf.capacity(), 64);
    }
}

#[test]
fn reader_errors_carry_the_offset_where_the_stream_failed_and_the_io_source() {
    for p in one_per_type() {
        let value = p.expected_bytes();
        for t in 0..value.len() {
            for cap in [1, 3, 16, 64] {
                for fast in [true, false] {
                    let mut data = vec![PRE];
                    data.extend_from_slice(&value[..t]);
                    let r = ScriptReader::split(&data, &[1])
                        .end(End::Error(io::ErrorKind::ConnectionReset));
                    let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
                    let ctx = format!("{p:?} cut={t} cap={cap} fast={fast}");
                    block_on(async {
                        assert_eq!(buf.read_u8().await.unwrap(), PRE);
                        let e = p.read(&mut buf).await.expect_err(&ctx);
                        assert_eq!(e.offset(), 1 + t as u64, "{ctx}");
                        let ErrorKind::Io(io) = e.kind() else {
                            panic!("{ctx}: {e:?}")
                        };
                        assert_eq!(io.kind(), io::ErrorKind::ConnectionReset);
                        // The I/O error is the error's source (the kind is already in its
                        // message, so it is not repeated in the chain).
                        let src = e.source().expect("source");
                        assert!(
                            src.downcast_ref::<io::Error>().is_some(),
                            "{ctx}: source is not the io::Error"
                        );
                    });
                }
            }
        }
    }
}

#[test]
fn reader_error_inside_a_streamed_payload() {
    let mut data = len_bytes(100_000).to_vec();
    data.extend(std::iter::repeat_n(1u8, 5_000));
    let r = ScriptReader::new(vec![data]).end(End::Error(io::ErrorKind::TimedOut));
    let mut buf = ReadBuffer::with_capacity(64, r);
    let e = block_on(buf.read::<Bytes>()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Io(io) if io.kind() == io::ErrorKind::TimedOut));
    assert_eq!(e.offset(), 5_004);
}

#[test]
fn is_at_end_does_not_consume_and_waits_for_the_verdict() {
    let (g, feeder) = gate();
    let mut buf = ReadBuffer::with_capacity(8, g);
    // Nothing fed yet: the answer is not known, so is_at_end is pending.
    cancel_when_pending(buf.is_at_end());
    feeder.feed(&[0, 7]);
    {
        let mut f = pin!(buf.is_at_end());
        assert!(matches!(poll_once(f.as_mut()), Poll::Ready(Ok(false))));
    }
    // Nothing consumed: the bytes are still there to read.
    assert_eq!(buf.offset(), 0);
    assert_eq!(buf.buffered(), &[0, 7]);
    assert!(!block_on(buf.is_at_end()).unwrap());
    assert_eq!(block_on(buf.read::<i16>()).unwrap(), 7);
    cancel_when_pending(buf.is_at_end());
    feeder.close();
    assert!(block_on(buf.is_at_end()).unwrap());
    assert_eq!(buf.offset(), 2);
}

#[test]
fn is_at_end_after_a_value_with_and_without_trailing_bytes() {
    for trailing in [0usize, 1, 5] {
        let mut data = enc(&Fq(String::from("abc")));
        data.extend(std::iter::repeat_n(9u8, trailing));
        for cap in [1, 4, 64] {
            let mut buf = ReadBuffer::with_capacity(cap, ScriptReader::split(&data, &[2]));
            assert!(!block_on(buf.is_at_end()).unwrap());
            assert_eq!(block_on(buf.read::<Fq<String>>()).unwrap().0, "abc");
            assert_eq!(block_on(buf.is_at_end()).unwrap(), trailing == 0);
            let mut n = 0;
            while !block_on(buf.is_at_end()).unwrap() {
                assert_eq!(block_on(buf.read::<i8>()).unwrap(), 9);
                n += 1;
            }
            assert_eq!(n, trailing);
        }
    }
}

#[test]
fn eof_then_more_reads_stay_eof_at_the_same_offset() {
    let data = [0u8, 0, 0];
    let mut buf = ReadBuffer::with_capacity(4, &data[..]);
    assert_eof(&block_on(buf.read::<i32>()).unwrap_err(), 3);
    // The partial bytes stay buffered; narrower reads still succeed, then hit the end.
    assert_eq!(buf.offset(), 0);
    assert_eq!(block_on(buf.read::<i16>()).unwrap(), 0);
    assert_eof(&block_on(buf.read::<i16>()).unwrap_err(), 3);
    assert_eq!(block_on(buf.read::<i8>()).unwrap(), 0);
    assert_eof(&block_on(buf.read::<i8>()).unwrap_err(), 3);
    assert!(block_on(buf.is_at_end()).unwrap());
}

#[test]
fn a_reader_error_after_a_complete_value_is_reported_by_the_next_read_not_this_one() {
    // The value's bytes all arrived; the connection failed after them. The value is returned,
    // and the failure (with the offset where the stream failed) comes with the next read.
    let r = ScriptReader::new(vec![vec![0, 0, 0, 5, b'a', b'b'], b"cde".to_vec()])
        .end(End::Error(io::ErrorKind::ConnectionReset));
    let mut buf = ReadBuffer::with_capacity(64, r);
    assert_eq!(block_on(buf.read::<String>()).unwrap(), "abcde");
    let e = block_on(buf.is_at_end()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Io(io) if io.kind() == io::ErrorKind::ConnectionReset));
    assert_eq!(e.offset(), 9);

    let mut values: Vec<(String, Vec<u8>)> = Vec::new();
    for p in one_per_type() {
        let mut v = Vec::new();
        p.encode_fq(&mut v);
        values.push((format!("{p:?}"), v));
    }
    for (name, data) in &values {
        for cap in 1..=32 {
            for sizes in chunkings(data.len(), false) {
                for fast in [true, false] {
                    let ctx = format!("{name} cap={cap} {sizes:?} fast={fast}");
                    let r = ScriptReader::split(data, &sizes)
                        .end(End::Error(io::ErrorKind::ConnectionReset));
                    let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
                    let p = one_per_type()
                        .into_iter()
                        .find(|p| format!("{p:?}") == *name)
                        .unwrap();
                    let got =
                        block_on(p.read_fq(&mut buf)).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    assert_eq!(got, p, "{ctx}");
                    let e = block_on(buf.is_at_end()).expect_err(&ctx);
                    assert!(matches!(e.kind(), ErrorKind::Io(_)), "{ctx}: {e:?}");
                    assert_eq!(e.offset(), data.len() as u64, "{ctx}");
                }
            }
        }
    }
}

#[test]
fn a_deferred_reader_error_is_reported_before_a_streamed_payload_calls_the_reader_again() {
    // A reader that delivers its chunks, fails once, then would carry on with more bytes: the
    // failure must not be skipped by a payload streaming past the buffer.
    struct FailOnce(VecDeque<Option<Vec<u8>>>);
    impl AsyncRead for FailOnce {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            match self.0.pop_front() {
                Some(Some(chunk)) => buf.put_slice(&chunk),
                Some(None) => {
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::Interrupted, "once")))
                }
                None => {
                    let n = buf.remaining();
                    buf.put_slice(&vec![7; n]);
                }
            }
            Poll::Ready(Ok(()))
        }
    }
    // A fully-qualified Binary of 100 bytes: its header and length arrive in two pieces, the
    // read-ahead after the second meets the failure, and the payload (larger than the 16-byte
    // buffer) is streamed straight from the reader.
    let chunks = VecDeque::from([Some(vec![0x25, 0x00, 0, 0, 0]), Some(vec![100]), None]);
    let mut buf = ReadBuffer::with_capacity(16, FailOnce(chunks));
    let e = block_on(buf.read::<Fq<Bytes>>()).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Io(io) if io.kind() == io::ErrorKind::Interrupted),
        "{e:?}"
    );
    assert_eq!(e.offset(), 6);
}
