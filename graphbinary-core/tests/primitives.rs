//! Every primitive (Byte, Short, Int, Long, Float, Double, Boolean, UUID, Char of 1 to 4 bytes,
//! String, Binary) on the hit path (bytes already buffered) and split at every byte boundary,
//! through every read entry point: `Cursor`, `ReadBuffer::try_decode`, `ReadBuffer::read`, the
//! dedicated async methods, the fully-qualified form, and with the fast path off.

mod common;

use common::*;
use graphbinary_core::{Cursor, FastError, Limits, ReadBuffer, MAX_PRIMITIVE_WIDTH};

const TRAILER: i32 = 0x7ead_beef;

#[test]
fn encode_matches_hand_written_big_endian_bytes() {
    for p in samples() {
        let mut out = Vec::new();
        p.encode(&mut out);
        assert_eq!(out, p.expected_bytes(), "{p:?}");
    }
    // A few spelled out, independent of any helper.
    assert_eq!(enc(&0x0102_0304i32), [1, 2, 3, 4]);
    assert_eq!(enc(&-2i16), [0xff, 0xfe]);
    assert_eq!(enc(&i64::MIN), [0x80, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(enc(&1.0f32), [0x3f, 0x80, 0, 0]);
    assert_eq!(enc(&-0.0f64), [0x80, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(enc(&true), [1]);
    assert_eq!(enc(&String::from("ab")), [0, 0, 0, 2, b'a', b'b']);
    assert_eq!(enc(&'€'), [0xe2, 0x82, 0xac]);
}

#[test]
fn fixed_values_decode_from_spelled_out_bytes() {
    assert_eq!(decode_all::<i8>(&[0x80]).unwrap(), i8::MIN);
    assert_eq!(decode_all::<i16>(&[0x80, 0x00]).unwrap(), i16::MIN);
    assert_eq!(decode_all::<i32>(&[0xff, 0xff, 0xff, 0xff]).unwrap(), -1);
    assert_eq!(
        decode_all::<i32>(&[0x7f, 0xff, 0xff, 0xff]).unwrap(),
        i32::MAX
    );
    assert_eq!(decode_all::<i64>(&[0xff; 8]).unwrap(), -1);
    assert_eq!(decode_all::<f32>(&[0xbf, 0xc0, 0, 0]).unwrap(), -1.5);
    assert!(decode_all::<f64>(&[0x7f, 0xf8, 0, 0, 0, 0, 0, 0])
        .unwrap()
        .is_nan());
    assert_eq!(
        decode_all::<f64>(&[0x80, 0, 0, 0, 0, 0, 0, 0])
            .unwrap()
            .to_bits(),
        (-0.0f64).to_bits()
    );
    assert!(!decode_all::<bool>(&[0]).unwrap());
    assert!(decode_all::<bool>(&[1]).unwrap());
    assert_eq!(decode_all::<char>(&[0xf0, 0x9f, 0x98, 0x80]).unwrap(), '😀');
    assert_eq!(
        decode_all::<String>(&[0, 0, 0, 3, b'a', 0xc3, 0xa9]).unwrap(),
        "aé"
    );
    assert_eq!(
        decode_all::<bytes::Bytes>(&[0, 0, 0, 2, 0, 0xff]).unwrap(),
        bytes::Bytes::from_static(&[0, 0xff])
    );
    let u = decode_all::<uuid::Uuid>(&(0u8..16).collect::<Vec<_>>()).unwrap();
    assert_eq!(u.as_u128(), 0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f);
}

#[test]
fn hit_path_cursor_decodes_every_sample_and_stops_at_its_end() {
    let limits = Limits::DEFAULT;
    for p in samples() {
        let mut data = p.expected_bytes();
        let len = data.len();
        data.extend_from_slice(&[0xaa, 0xbb]); // must not be touched
        let mut cur = Cursor::new(&data, 1000, &limits);
        let got = p.decode(&mut cur).unwrap();
        assert_eq!(got, p);
        assert_eq!(cur.position(), len, "{p:?}");
        assert_eq!(cur.offset(), 1000 + len as u64, "{p:?}");
        assert_eq!(cur.remaining(), &[0xaa, 0xbb]);

        // Fully qualified.
        let mut fq = Vec::new();
        p.encode_fq(&mut fq);
        let mut cur = Cursor::new(&fq, 0, &limits);
        assert_eq!(p.decode_fq(&mut cur).unwrap(), p);
        assert_eq!(cur.position(), fq.len());
    }
}

#[test]
fn hit_path_read_buffer_try_decode_and_read() {
    for p in samples() {
        let mut data = p.expected_bytes();
        let len = data.len() as u64;
        data.extend_from_slice(&TRAILER.to_be_bytes());

        // try_decode after an explicit fill: a genuine hit, no await involved in the decode.
        let mut buf = ReadBuffer::new(&data[..]);
        let n = block_on(buf.fill()).unwrap();
        assert_eq!(n, data.len());
        let got = p.try_decode(&mut buf).unwrap();
        assert_eq!(got, p);
        assert_eq!(buf.offset(), len);
        assert_eq!(buf.buffered(), TRAILER.to_be_bytes());

        // read, read_direct and read with the fast path off, on a buffered stream.
        for how in 0..3 {
            let mut buf = ReadBuffer::new(&data[..]).with_fast_path(how != 2);
            block_on(buf.fill()).unwrap();
            let got = block_on(async {
                if how == 1 {
                    p.read_direct(&mut buf).await
                } else {
                    p.read(&mut buf).await
                }
            })
            .unwrap();
            assert_eq!(got, p, "how={how}");
            assert_eq!(buf.offset(), len, "how={how} {p:?}");
            assert_eq!(block_on(buf.read::<i32>()).unwrap(), TRAILER);
            assert!(block_on(buf.is_at_end()).unwrap());
        }
    }
}

#[test]
fn all_samples_back_to_back_in_one_stream() {
    let ps = samples();
    let mut data = Vec::new();
    let mut ends = Vec::new();
    for p in &ps {
        p.encode(&mut data);
        ends.push(data.len() as u64);
    }
    for cap in [1, 2, 3, 7, 16, 17, 64, 1024, 64 * 1024] {
        for fast in [true, false] {
            for mode in MODES {
                for direct in [false, true] {
                    let r = reader(&data, &[5, 1, 9, 2], mode);
                    let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
                    block_on(async {
                        for (p, end) in ps.iter().zip(&ends) {
                            let got = if direct {
                                p.read_direct(&mut buf).await
                            } else {
                                p.read(&mut buf).await
                            }
                            .unwrap();
                            assert_eq!(&got, p);
                            assert_eq!(buf.offset(), *end);
                        }
                        assert!(buf.is_at_end().await.unwrap());
                    });
                }
            }
        }
    }
}

fn split_matrix(ps: &[Prim], caps: std::ops::RangeInclusive<usize>, triples_up_to: usize) -> usize {
    let mut runs = 0;
    for p in ps {
        for how in How::ALL {
            let mut data = p.encoded_for(how);
            let value_len = data.len() as u64;
            data.extend_from_slice(&TRAILER.to_be_bytes());
            for cap in caps.clone() {
                for sizes in chunkings(data.len(), data.len() <= triples_up_to) {
                    for mode in MODES {
                        let r = reader(&data, &sizes, mode);
                        let mut buf =
                            ReadBuffer::with_capacity(cap, r).with_fast_path(how.fast_path());
                        let ctx = format!("{p:?} {how:?} cap={cap} sizes={sizes:?} {mode:?}");
                        block_on(async {
                            p.read_back(how, &mut buf, &ctx).await;
                            assert_eq!(buf.offset(), value_len, "{ctx}");
                            assert_eq!(buf.read::<i32>().await.unwrap(), TRAILER, "{ctx}");
                            assert!(buf.is_at_end().await.unwrap(), "{ctx}");
                            assert_eq!(buf.depth(), 0);
                            // The buffer grows only to the widest primitive.
                            assert!(buf.capacity() <= cap.max(MAX_PRIMITIVE_WIDTH), "{ctx}");
                        });
                        runs += 1;
                    }
                }
            }
        }
    }
    runs
}

#[test]
fn every_sample_split_at_every_boundary_every_capacity_1_to_16() {
    let runs = split_matrix(&samples(), 1..=16, 0);
    assert!(runs > 10_000, "{runs}");
}

#[test]
fn one_per_type_split_into_every_three_pieces_every_capacity_1_to_16() {
    let runs = split_matrix(&one_per_type(), 1..=16, 32);
    assert!(runs > 10_000, "{runs}");
}

#[test]
fn drip_reader_one_byte_per_read_for_every_sample() {
    for p in samples() {
        let data = p.expected_bytes();
        for cap in [1, 2, 4, 16, 64] {
            for fast in [true, false] {
                let mut r = ScriptReader::drip(&data).pending_each();
                let mut buf = ReadBuffer::with_capacity(cap, &mut r).with_fast_path(fast);
                let got = block_on(p.read(&mut buf)).unwrap();
                assert_eq!(got, p);
                assert!(block_on(buf.is_at_end()).unwrap());
                drop(buf);
                // One read per byte: nothing was read twice or skipped.
                assert_eq!(r.reads, data.len(), "{p:?} cap={cap}");
            }
        }
    }
}

#[test]
fn bool_rejects_other_bytes_with_offset_on_every_path() {
    for b in [2u8, 0x7f, 0x80, 0xff] {
        let data = [0u8, b];
        let e = invalid({
            let limits = Limits::DEFAULT;
            let mut cur = Cursor::new(&data, 0, &limits);
            cur.read_bool().unwrap();
            cur.read_bool().unwrap_err()
        });
        assert_eq!(e.offset(), 1);
        assert!(e.to_string().contains(&format!("0x{b:02x}")), "{e}");
        for fast in [true, false] {
            for cap in [1, 16] {
                let mut buf =
                    ReadBuffer::with_capacity(cap, ScriptReader::drip(&data)).with_fast_path(fast);
                assert!(!block_on(buf.read::<bool>()).unwrap());
                let e2 = block_on(buf.read::<bool>()).unwrap_err();
                assert!(same_error(&e, &e2), "{e:?} vs {e2:?}");
            }
        }
    }
}

#[test]
fn char_rejects_invalid_utf8_with_offset() {
    let bad: [&[u8]; 9] = [
        &[0x80],                   // continuation byte first
        &[0xbf],                   // continuation byte first
        &[0xc0, 0x80],             // overlong NUL
        &[0xc1, 0xbf],             // overlong
        &[0xe0, 0x80, 0x80],       // overlong 3-byte
        &[0xed, 0xa0, 0x80],       // surrogate D800
        &[0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
        &[0xf5, 0x80, 0x80, 0x80], // invalid lead
        &[0xe2, 0x41, 0x41],       // bad continuation
    ];
    for bytes in bad {
        let mut data = vec![b'z'];
        data.extend_from_slice(bytes);
        data.extend_from_slice(&[0, 0, 0, 0]); // enough bytes after it for any width
        for fast in [true, false] {
            for cap in [1, 2, 3, 4, 16] {
                let mut buf =
                    ReadBuffer::with_capacity(cap, ScriptReader::drip(&data)).with_fast_path(fast);
                assert_eq!(block_on(buf.read::<char>()).unwrap(), 'z');
                let e = block_on(buf.read::<char>()).unwrap_err();
                assert!(
                    matches!(
                        e.kind(),
                        graphbinary_core::ErrorKind::InvalidUtf8 { what: "Char" }
                    ),
                    "{bytes:x?}: {e:?}"
                );
                assert_eq!(e.offset(), 1, "{bytes:x?}");
            }
        }
    }
}

#[test]
fn string_rejects_invalid_utf8_at_its_length_field() {
    let mut data = vec![9u8];
    data.extend_from_slice(&len_bytes(3));
    data.extend_from_slice(&[b'a', 0xff, b'b']);
    let limits = Limits::DEFAULT;
    let mut cur = Cursor::new(&data, 0, &limits);
    cur.read_u8().unwrap();
    let e = invalid(cur.read_str().unwrap_err());
    assert_eq!(e.offset(), 1);
    assert!(matches!(
        e.kind(),
        graphbinary_core::ErrorKind::InvalidUtf8 { what: "String" }
    ));
    for fast in [true, false] {
        for cap in 1..=10 {
            let mut buf =
                ReadBuffer::with_capacity(cap, ScriptReader::drip(&data)).with_fast_path(fast);
            assert_eq!(block_on(buf.read::<i8>()).unwrap(), 9);
            let e2 = block_on(buf.read::<String>()).unwrap_err();
            assert!(same_error(&e, &e2), "cap={cap} {e2:?}");
        }
    }
    // Binary takes any bytes.
    let mut buf = ReadBuffer::new(&data[1..]);
    assert_eq!(
        &block_on(buf.read::<bytes::Bytes>()).unwrap()[..],
        &[b'a', 0xff, b'b']
    );
}

#[test]
fn try_decode_on_empty_buffer_needs_more_and_touches_nothing() {
    for p in samples() {
        let mut buf = ReadBuffer::new(&[0u8; 0][..]);
        match p.try_decode(&mut buf) {
            Err(FastError::NeedMore(n)) => assert!(n >= 1, "{p:?}"),
            other => panic!("{p:?}: {other:?}"),
        }
        assert_eq!(buf.offset(), 0);
        assert!(buf.buffered().is_empty());
    }
}
