//! Write primitives: lengths (and their i32 bound), payloads, Char widths, headers; and
//! encoding errors surfacing from nested layouts.

mod common;

use bytes::{BufMut, Bytes, BytesMut};
use common::*;
use graphbinary_core::write::{put_bytes, put_char, put_header, put_len, put_null, put_str};
use graphbinary_core::{EncodeError, ReadBuffer};

#[test]
fn put_len_writes_big_endian_and_accepts_up_to_i32_max() {
    let mut out = Vec::new();
    put_len(&mut out, 0, "X").unwrap();
    put_len(&mut out, 0x0102_0304, "X").unwrap();
    put_len(&mut out, i32::MAX as usize, "X").unwrap();
    assert_eq!(out, [0, 0, 0, 0, 1, 2, 3, 4, 0x7f, 0xff, 0xff, 0xff]);
}

#[test]
fn put_len_rejects_lengths_above_i32_max_and_writes_nothing() {
    for len in [i32::MAX as usize + 1, u32::MAX as usize, usize::MAX] {
        let mut out = Vec::new();
        let e = put_len(&mut out, len, "Binary").unwrap_err();
        assert!(
            matches!(e, EncodeError::TooLong { what: "Binary", length } if length == len),
            "{e:?}"
        );
        assert!(out.is_empty(), "wrote {out:?} before failing");
        assert!(e.to_string().contains(&len.to_string()), "{e}");
        assert!(e.to_string().contains("Binary"), "{e}");
    }
}

#[test]
fn put_bytes_and_put_str() {
    let mut out = BytesMut::new();
    put_bytes(&mut out, &[], "Binary").unwrap();
    put_bytes(&mut out, &[9, 8], "Binary").unwrap();
    put_str(&mut out, "é").unwrap();
    assert_eq!(
        &out[..],
        &[0, 0, 0, 0, 0, 0, 0, 2, 9, 8, 0, 0, 0, 2, 0xc3, 0xa9]
    );
}

#[test]
fn char_encoding_widths() {
    for (c, width) in [
        ('\0', 1),
        ('a', 1),
        ('\u{7f}', 1),
        ('\u{80}', 2),
        ('é', 2),
        ('\u{7ff}', 2),
        ('\u{800}', 3),
        ('€', 3),
        ('\u{ffff}', 3),
        ('\u{10000}', 4),
        ('😀', 4),
        ('\u{10ffff}', 4),
    ] {
        let mut out = Vec::new();
        put_char(&mut out, c);
        assert_eq!(out.len(), width, "{c:?}");
        assert_eq!(
            std::str::from_utf8(&out)
                .unwrap()
                .chars()
                .collect::<Vec<_>>(),
            [c]
        );
        assert_eq!(graphbinary_core::testing::utf8_width(out[0]), Some(width));
        assert_eq!(graphbinary_core::testing::decode_char(&out), Some(c));
        assert_eq!(enc(&c), out);
        assert_eq!(decode_all::<char>(&out).unwrap(), c);
    }
    assert_eq!(graphbinary_core::testing::decode_char(b"ab"), None);
    assert_eq!(graphbinary_core::testing::decode_char(b""), None);
    assert_eq!(graphbinary_core::testing::utf8_width(0x80), None);
    assert_eq!(graphbinary_core::testing::utf8_width(0xc1), None);
    assert_eq!(graphbinary_core::testing::utf8_width(0xf5), None);
}

#[test]
fn headers_and_nulls() {
    let mut out = Vec::new();
    put_header(&mut out, 0x03);
    put_null(&mut out, 0x01);
    put_null(&mut out, 0xfe);
    assert_eq!(out, [0x03, 0x00, 0x01, 0x01, 0xfe, 0x01]);
}

#[test]
fn encoding_into_bytes_mut_and_reading_back() {
    let mut out = BytesMut::new();
    for p in samples() {
        let mut v = Vec::new();
        p.encode_fq(&mut v);
        out.put_slice(&v);
    }
    let data = out.freeze();
    let mut buf = ReadBuffer::with_capacity(10, &data[..]);
    for p in samples() {
        assert_eq!(block_on(p.read_fq(&mut buf)).unwrap(), p);
    }
    assert!(block_on(buf.is_at_end()).unwrap());
    let _: Bytes = data;
}
