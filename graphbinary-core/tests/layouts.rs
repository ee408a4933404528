//! The generic layouts `Fq<T>`, `FqOpt<T>`, `Nullable<T>` and `Vec<T>` (a List of
//! fully-qualified items): exact bytes, round trips through `Encode` and `ReadBuffer` at every
//! capacity and chunking with the fast path on and off, and every header error with its offset.

mod common;

use bytes::Bytes;
use common::*;
use graphbinary_core::{
    codes, Cursor, Decode, Encode, ErrorKind, Fq, FqOpt, Limits, Nullable, ReadBuffer, Typed,
};

#[test]
fn exact_bytes_of_each_layout() {
    assert_eq!(enc(&Fq(1i32)), [0x01, 0x00, 0, 0, 0, 1]);
    assert_eq!(enc(&FqOpt(Some(-1i16))), [0x26, 0x00, 0xff, 0xff]);
    assert_eq!(enc(&FqOpt::<i64>(None)), [0xfe, 0x01]);
    assert_eq!(enc(&Nullable(Some(true))), [0x00, 0x01]);
    assert_eq!(enc(&Nullable::<String>(None)), [0x01]);
    assert_eq!(
        enc(&vec![String::from("a"), String::new()]),
        [0, 0, 0, 2, 0x03, 0x00, 0, 0, 0, 1, b'a', 0x03, 0x00, 0, 0, 0, 0]
    );
    assert_eq!(enc(&Vec::<i8>::new()), [0, 0, 0, 0]);
    assert_eq!(
        enc(&Fq(vec![vec![5i8]])),
        [0x09, 0x00, 0, 0, 0, 1, 0x09, 0x00, 0, 0, 0, 1, 0x24, 0x00, 5]
    );
    assert_eq!(enc(&Fq('€')), [0x80, 0x00, 0xe2, 0x82, 0xac]);
    assert_eq!(
        enc(&Fq(Bytes::from_static(&[9]))),
        [0x25, 0x00, 0, 0, 0, 1, 9]
    );
    assert_eq!(enc(&Fq(uuid::Uuid::nil()))[..2], [0x0c, 0x00]);
    assert_eq!(enc(&Fq(1.0f32))[..2], [0x08, 0x00]);
    assert_eq!(enc(&Fq(1.0f64))[..2], [0x07, 0x00]);
    assert_eq!(enc(&Fq(false)), [0x27, 0x00, 0x00]);
}

#[test]
fn type_codes() {
    assert_eq!(<i8 as Typed>::TYPE_CODE, codes::BYTE);
    assert_eq!(<i16 as Typed>::TYPE_CODE, codes::SHORT);
    assert_eq!(<i32 as Typed>::TYPE_CODE, codes::INT);
    assert_eq!(<i64 as Typed>::TYPE_CODE, codes::LONG);
    assert_eq!(<f32 as Typed>::TYPE_CODE, codes::FLOAT);
    assert_eq!(<f64 as Typed>::TYPE_CODE, codes::DOUBLE);
    assert_eq!(<bool as Typed>::TYPE_CODE, codes::BOOLEAN);
    assert_eq!(<uuid::Uuid as Typed>::TYPE_CODE, codes::UUID);
    assert_eq!(<char as Typed>::TYPE_CODE, codes::CHAR);
    assert_eq!(<String as Typed>::TYPE_CODE, codes::STRING);
    assert_eq!(<Bytes as Typed>::TYPE_CODE, codes::BINARY);
    assert_eq!(<Vec<String> as Typed>::TYPE_CODE, codes::LIST);
    // The spec's numbers.
    assert_eq!(
        [
            codes::INT,
            codes::LONG,
            codes::STRING,
            codes::DOUBLE,
            codes::FLOAT,
            codes::LIST
        ],
        [0x01, 0x02, 0x03, 0x07, 0x08, 0x09]
    );
    assert_eq!(
        [
            codes::UUID,
            codes::BYTE,
            codes::BINARY,
            codes::SHORT,
            codes::BOOLEAN,
            codes::CHAR
        ],
        [0x0c, 0x24, 0x25, 0x26, 0x27, 0x80]
    );
    assert_eq!(codes::UNSPECIFIED_NULL, 0xfe);
}

/// Encodes `v`, then reads it back at every capacity 1..=`max_cap`, every chunking and mode,
/// fast path on and off; also as two values back to back.
fn round_trip<T>(v: &T, max_cap: usize)
where
    T: Encode + Decode + PartialEq + std::fmt::Debug,
{
    let one = enc(v);
    let mut data = one.clone();
    v.encode(&mut data).unwrap();
    assert_eq!(decode_all::<T>(&one).unwrap(), *v);
    for_each_way(&data, max_cap, |ctx, mut buf| {
        let ctx = format!("{v:?} {ctx}");
        block_on(async {
            assert_eq!(
                buf.read::<T>()
                    .await
                    .unwrap_or_else(|e| panic!("{ctx}: {e}")),
                *v,
                "{ctx}"
            );
            assert_eq!(buf.offset(), one.len() as u64, "{ctx}");
            assert_eq!(buf.read::<T>().await.unwrap(), *v, "{ctx}");
            assert!(buf.is_at_end().await.unwrap(), "{ctx}");
            assert_eq!(buf.depth(), 0);
        });
    });
}

#[test]
fn fq_round_trips() {
    round_trip(&Fq(0x0102_0304i32), 32);
    round_trip(&Fq(String::from("héllo")), 32);
    round_trip(&Fq(Bytes::from_static(&[0, 1, 2])), 32);
    round_trip(&Fq('😀'), 32);
    round_trip(&Fq(uuid::Uuid::max()), 32);
    round_trip(&Fq(vec![1i64, -1]), 32);
}

#[test]
fn fq_opt_round_trips() {
    round_trip(&FqOpt(Some(7i8)), 32);
    round_trip(&FqOpt::<i8>(None), 32);
    round_trip(&FqOpt(Some(String::from("abc"))), 32);
    round_trip(&FqOpt::<String>(None), 32);
    round_trip(&FqOpt(Some(vec![true, false])), 32);
    round_trip(&FqOpt::<Vec<bool>>(None), 32);
}

#[test]
fn nullable_round_trips() {
    round_trip(&Nullable(Some(String::from("message"))), 32);
    round_trip(&Nullable::<String>(None), 32);
    round_trip(&Nullable(Some(i16::MIN)), 32);
    round_trip(&Nullable(Some(Fq(1i32))), 32);
    round_trip(&Nullable(Some(FqOpt::<i32>(None))), 32);
}

#[test]
fn list_round_trips() {
    round_trip(&Vec::<i32>::new(), 32);
    round_trip(&vec![i32::MIN, 0, i32::MAX], 32);
    round_trip(&vec![String::from("a"), String::new(), "€😀".into()], 32);
    round_trip(
        &vec![
            vec![String::from("x")],
            vec![],
            vec!["yz".into(), "".into()],
        ],
        32,
    );
    round_trip(&vec![Bytes::from_static(b"\x00\xff"), Bytes::new()], 32);
    round_trip(&vec!['a', 'é', '€', '😀'], 32);
    round_trip(&vec![uuid::Uuid::nil(), uuid::Uuid::max()], 32);
    round_trip(&vec![true, false, true], 32);
}

#[test]
fn a_list_much_larger_than_the_buffer_streams_item_by_item() {
    let v: Vec<String> = (0..2000).map(|i| format!("item-{i}")).collect();
    let data = enc(&Fq(v.clone()));
    for cap in [1, 16, 64, 1000] {
        for fast in [true, false] {
            let r = ScriptReader::split(&data, &[100, 7]);
            let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
            assert_eq!(block_on(buf.read::<Fq<Vec<String>>>()).unwrap().0, v);
            assert!(buf.capacity() <= cap.max(16));
        }
    }
}

/// Reads a `T` from `data` everywhere (cursor, buffer at many capacities, fast path on and
/// off), expecting the same error everywhere; returns it.
fn error_everywhere<T: Decode + std::fmt::Debug>(data: &[u8]) -> graphbinary_core::DecodeError {
    let limits = Limits::DEFAULT;
    let mut cur = Cursor::new(data, 0, &limits);
    let reference = invalid(T::decode(&mut cur).expect_err("accepted"));
    for cap in [1, 2, 3, 5, 16, 64] {
        for fast in [true, false] {
            for sizes in [vec![], vec![1]] {
                let r = ScriptReader::split(data, &sizes);
                let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
                let e = block_on(buf.read::<T>()).expect_err("accepted");
                assert!(
                    same_error(&reference, &e),
                    "cap={cap} fast={fast}: {e:?} vs {reference:?}"
                );
            }
        }
    }
    reference
}

#[test]
fn wrong_type_code_names_both_codes_and_the_offset() {
    let e = error_everywhere::<Fq<i32>>(&[0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert!(matches!(
        e.kind(),
        ErrorKind::UnexpectedTypeCode {
            what: "Int",
            expected: 0x01,
            found: 0x02
        }
    ));
    assert_eq!(e.offset(), 0);
    assert!(
        e.to_string().contains("0x01") && e.to_string().contains("0x02"),
        "{e}"
    );

    let e = error_everywhere::<FqOpt<String>>(&[0x01, 0x00, 0, 0, 0, 1]);
    assert_error_at(&e, 0, |k| {
        matches!(
            k,
            ErrorKind::UnexpectedTypeCode {
                expected: 0x03,
                found: 0x01,
                ..
            }
        )
    });

    // The third item of a List of Ints is a Long.
    let mut data = len_bytes(3).to_vec();
    data.extend_from_slice(&enc(&Fq(1i32)));
    data.extend_from_slice(&enc(&Fq(2i32)));
    data.extend_from_slice(&enc(&Fq(3i64)));
    let e = error_everywhere::<Vec<i32>>(&data);
    assert!(matches!(
        e.kind(),
        ErrorKind::UnexpectedTypeCode {
            expected: 0x01,
            found: 0x02,
            ..
        }
    ));
    assert_eq!(e.offset(), 4 + 6 + 6);
}

#[test]
fn null_where_not_allowed_is_unexpected_null_at_the_flag() {
    let e = error_everywhere::<Fq<i32>>(&[0x01, 0x01]);
    assert!(matches!(
        e.kind(),
        ErrorKind::UnexpectedNull { what: "Int" }
    ));
    assert_eq!(e.offset(), 1);
    // A null item in a List.
    let mut data = len_bytes(2).to_vec();
    data.extend_from_slice(&enc(&Fq(String::from("a"))));
    data.extend_from_slice(&[0x03, 0x01]);
    let e = error_everywhere::<Vec<String>>(&data);
    assert!(matches!(
        e.kind(),
        ErrorKind::UnexpectedNull { what: "String" }
    ));
    assert_eq!(e.offset(), 4 + 7 + 1);
    // The unspecified null is not a String.
    let e = error_everywhere::<Fq<String>>(&[0xfe, 0x01]);
    assert!(matches!(
        e.kind(),
        ErrorKind::UnexpectedTypeCode { found: 0xfe, .. }
    ));
}

#[test]
fn fq_opt_accepts_the_unspecified_null() {
    for data in [&[0xfe, 0x01][..], &[0x01, 0x01][..]] {
        let v = decode_all::<FqOpt<i32>>(data).unwrap();
        assert_eq!(v, FqOpt(None));
        for cap in [1, 2, 64] {
            for fast in [true, false] {
                let mut stream = data.to_vec();
                stream.extend_from_slice(&enc(&Fq(5i32)));
                let mut buf = ReadBuffer::with_capacity(cap, ScriptReader::drip(&stream))
                    .with_fast_path(fast);
                assert_eq!(block_on(buf.read::<FqOpt<i32>>()).unwrap(), FqOpt(None));
                assert_eq!(buf.offset(), 2);
                assert_eq!(block_on(buf.read::<Fq<i32>>()).unwrap(), Fq(5));
            }
        }
    }
    // FE 00 (an unspecified null claiming a value) is an invalid flag, at the flag.
    let e = error_everywhere::<FqOpt<i32>>(&[0xfe, 0x00, 0, 0, 0, 1]);
    assert!(matches!(
        e.kind(),
        ErrorKind::InvalidValueFlag { flag: 0x00, .. }
    ));
    assert_eq!(e.offset(), 1);
}

#[test]
fn bad_value_flags() {
    for flag in [0x02u8, 0x03, 0x80, 0xff] {
        let e = error_everywhere::<Fq<i32>>(&[0x01, flag, 0, 0, 0, 1]);
        assert!(
            matches!(e.kind(), ErrorKind::InvalidValueFlag { what: "Int", flag: f } if *f == flag)
        );
        assert_eq!(e.offset(), 1);
        let e = error_everywhere::<FqOpt<i32>>(&[0x01, flag, 0, 0, 0, 1]);
        assert!(matches!(e.kind(), ErrorKind::InvalidValueFlag { .. }));
        assert_eq!(e.offset(), 1);
        let e = error_everywhere::<FqOpt<i32>>(&[0xfe, flag]);
        assert!(matches!(e.kind(), ErrorKind::InvalidValueFlag { .. }));
        assert_eq!(e.offset(), 1);
        let e = error_everywhere::<Nullable<String>>(&[flag, 0, 0, 0, 0]);
        assert!(
            matches!(e.kind(), ErrorKind::InvalidValueFlag { what: "String", flag: f } if *f == flag)
        );
        assert_eq!(e.offset(), 0);
        assert!(e.to_string().contains(&format!("0x{flag:02x}")));
    }
}

#[test]
fn fast_path_off_gives_identical_results_on_a_long_mixed_stream() {
    // Every sample, fully qualified, then lists and optionals, read with the fast path on and
    // off at several capacities: the same values and the same offsets after each.
    let (ps, mut data) = samples_fq();
    FqOpt::<String>(None).encode(&mut data).unwrap();
    vec![vec![1i32], vec![]].encode(&mut data).unwrap();
    Nullable(Some(Bytes::from_static(b"zz")))
        .encode(&mut data)
        .unwrap();
    for cap in [1, 3, 16, 33, 256, 1 << 16] {
        let mut trace = Vec::new();
        for fast in [true, false] {
            let mut buf = ReadBuffer::with_capacity(cap, ScriptReader::split(&data, &[7, 3]))
                .with_fast_path(fast);
            let mut t = Vec::new();
            block_on(async {
                for p in &ps {
                    t.push((
                        format!("{:?}", p.read_fq(&mut buf).await.unwrap()),
                        buf.offset(),
                    ));
                }
                t.push((
                    format!("{:?}", buf.read::<FqOpt<String>>().await.unwrap()),
                    buf.offset(),
                ));
                t.push((
                    format!("{:?}", buf.read::<Vec<Vec<i32>>>().await.unwrap()),
                    buf.offset(),
                ));
                t.push((
                    format!("{:?}", buf.read::<Nullable<Bytes>>().await.unwrap()),
                    buf.offset(),
                ));
                assert!(buf.is_at_end().await.unwrap());
            });
            trace.push(t);
        }
        assert_eq!(trace[0], trace[1], "cap={cap}");
        assert_eq!(trace[0].last().unwrap().1, data.len() as u64);
    }
}
