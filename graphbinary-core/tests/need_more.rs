//! The fast path's "need more" contract: for every truncation of a value, `Cursor` decoding
//! reports `NeedMore(n)` with `available < n <= full length` (exactly the full length where the
//! layout allows knowing it), and `ReadBuffer::try_decode` consumes nothing (same buffered
//! bytes, same offset).

mod common;

use bytes::Bytes;
use common::*;
use graphbinary_core::{
    Cursor, Decode, Encode, FastError, Fq, FqOpt, Limits, Nullable, ReadBuffer,
};

fn need_more(r: Result<impl std::fmt::Debug, FastError>, ctx: &str) -> usize {
    match r {
        Err(FastError::NeedMore(n)) => n,
        other => panic!("{ctx}: expected NeedMore, got {other:?}"),
    }
}

/// A buffer whose buffered bytes are exactly `prefix`, after one byte already consumed (so the
/// offset is 1, not 0).
fn loaded(prefix: &[u8]) -> ReadBuffer<ScriptReader> {
    let mut data = vec![0xee];
    data.extend_from_slice(prefix);
    let mut buf = ReadBuffer::with_capacity(4096, ScriptReader::new(vec![data]).end(End::Stall));
    let n = block_on(buf.fill()).unwrap();
    assert_eq!(n, prefix.len() + 1);
    assert_eq!(block_on(buf.read_u8()).unwrap(), 0xee);
    buf
}

/// Checks the contract for `T` on every proper prefix of `full`; `exact(t)` is the `n` the
/// cursor must report for a prefix of `t` bytes, or `None` when only the bounds are checked.
fn check<T: Decode + std::fmt::Debug>(full: &[u8], exact: impl Fn(usize) -> Option<usize>) {
    let limits = Limits::DEFAULT;
    assert!(decode_all::<T>(full).is_ok(), "the full value must decode");
    for t in 0..full.len() {
        let prefix = &full[..t];
        let ctx = format!("{} prefix {t}/{} {prefix:x?}", T::EXPECTED, full.len());
        let mut cur = Cursor::new(prefix, 77, &limits);
        let n = need_more(T::decode(&mut cur), &ctx);
        assert!(
            n > t,
            "{ctx}: NeedMore({n}) is not more than the {t} bytes available"
        );
        assert!(
            n <= full.len(),
            "{ctx}: NeedMore({n}) exceeds the value's {} bytes",
            full.len()
        );
        if let Some(e) = exact(t) {
            assert_eq!(n, e, "{ctx}");
        }

        let mut buf = loaded(prefix);
        let before = buf.buffered().to_vec();
        let n2 = need_more(buf.try_decode::<T>(), &ctx);
        assert_eq!(n2, n, "{ctx}: the buffer reports the cursor's figure");
        assert_eq!(buf.buffered(), &before[..], "{ctx}: consumed bytes");
        assert_eq!(buf.offset(), 1, "{ctx}: moved the offset");
        // And again: still nothing consumed.
        let n3 = need_more(buf.try_decode::<T>(), &ctx);
        assert_eq!(n3, n);
        assert_eq!(buf.offset(), 1);
    }
}

fn check_prim(p: &Prim) {
    let full = p.expected_bytes();
    let len = full.len();
    let exact = |t: usize| -> Option<usize> {
        match p {
            Prim::Str(_) | Prim::Bin(_) => Some(if t < 4 { 4 } else { len }),
            Prim::Char(_) => Some(if t == 0 { 1 } else { len }),
            _ => Some(len),
        }
    };
    macro_rules! go {
        ($t:ty) => {{
            check::<$t>(&full, exact);
            let mut fq = Vec::new();
            p.encode_fq(&mut fq);
            // Header: the type code needs 1 byte, the flag 2, then the value as above.
            check::<Fq<$t>>(&fq, |t| {
                if t < 2 {
                    Some(t + 1)
                } else {
                    exact(t - 2).map(|n| n + 2)
                }
            });
            check::<FqOpt<$t>>(&fq, |t| {
                if t < 2 {
                    Some(t + 1)
                } else {
                    exact(t - 2).map(|n| n + 2)
                }
            });
            let mut nb = vec![0u8];
            nb.extend_from_slice(&full);
            check::<Nullable<$t>>(&nb, |t| {
                if t < 1 {
                    Some(1)
                } else {
                    exact(t - 1).map(|n| n + 1)
                }
            });
        }};
    }
    match p {
        Prim::I8(_) => go!(i8),
        Prim::I16(_) => go!(i16),
        Prim::I32(_) => go!(i32),
        Prim::I64(_) => go!(i64),
        Prim::F32(_) => go!(f32),
        Prim::F64(_) => go!(f64),
        Prim::Bool(_) => go!(bool),
        Prim::Uuid(_) => go!(uuid::Uuid),
        Prim::Char(_) => go!(char),
        Prim::Str(_) => go!(String),
        Prim::Bin(_) => go!(Bytes),
    }
}

#[test]
fn every_truncation_of_every_primitive_needs_more_and_consumes_nothing() {
    for p in samples() {
        check_prim(&p);
    }
}

#[test]
fn fixed_width_need_more_is_the_full_width_whatever_is_buffered() {
    // Spelled out for an Int: with 0, 1, 2 or 3 bytes buffered the value needs 4.
    let limits = Limits::DEFAULT;
    for t in 0..4 {
        let data = [0u8; 3];
        let mut cur = Cursor::new(&data[..t], 0, &limits);
        assert!(
            matches!(cur.read_i32(), Err(FastError::NeedMore(4))),
            "t={t}"
        );
        assert_eq!(cur.position(), 0);
    }
    // After a successful read, need more counts from the cursor's start.
    let data = [0u8, 0, 0, 1, 0, 0];
    let mut cur = Cursor::new(&data, 0, &limits);
    assert_eq!(cur.read_i32().unwrap(), 1);
    assert!(matches!(cur.read_i64(), Err(FastError::NeedMore(12))));
    assert!(matches!(cur.read_bytes(5), Err(FastError::NeedMore(9))));
    assert!(matches!(cur.require(3), Err(FastError::NeedMore(7))));
    assert!(cur.require(2).is_ok());
    assert!(matches!(cur.read_uuid(), Err(FastError::NeedMore(20))));
}

#[test]
fn null_values_need_only_their_header() {
    check::<FqOpt<i64>>(&enc(&FqOpt::<i64>(None)), |t| Some(t + 1));
    check::<FqOpt<String>>(&[0xfe, 0x01], |t| Some(t + 1));
    check::<Nullable<String>>(&enc(&Nullable::<String>(None)), |_| Some(1));
}

#[test]
fn lists_need_more_within_bounds_for_every_truncation() {
    check::<Vec<i32>>(&enc(&vec![1i32, -2, 3]), |_| None);
    check::<Vec<i32>>(&enc(&Vec::<i32>::new()), |_| Some(4));
    check::<Vec<String>>(
        &enc(&vec!["a".to_string(), String::new(), "héllo".into()]),
        |_| None,
    );
    check::<Vec<Vec<i64>>>(&enc(&vec![vec![1i64, 2], vec![], vec![i64::MIN]]), |_| None);
    check::<Fq<Vec<bool>>>(&enc(&Fq(vec![true, false])), |_| None);
    check::<Vec<Bytes>>(
        &enc(&vec![Bytes::from_static(b"xyz"), Bytes::new()]),
        |_| None,
    );
    check::<Vec<char>>(&enc(&vec!['a', '€', '😀']), |_| None);
    check::<graphbinary_core::Set<i16>>(&enc(&graphbinary_core::Set(vec![1i16, 2])), |_| None);
    let labels: Vec<std::sync::Arc<str>> = vec!["person".into(), "person".into()];
    check::<Vec<std::sync::Arc<str>>>(&enc(&labels), |_| None);
    check::<Nullable<Vec<uuid::Uuid>>>(&enc(&Nullable(Some(vec![uuid::Uuid::max()]))), |_| None);
}

#[test]
fn a_claimed_list_count_is_a_lower_bound_never_more_than_what_could_be_there() {
    // A List claiming 1000 items with 3 buffered bytes of items: the fast path reports a lower
    // bound (2 bytes per item at least) without decoding or allocating.
    let mut data = len_bytes(1000).to_vec();
    data.extend_from_slice(&[0x01, 0x00, 0x00]);
    let limits = Limits::DEFAULT;
    let mut cur = Cursor::new(&data, 0, &limits);
    let n = need_more(Vec::<i32>::decode(&mut cur), "list");
    assert_eq!(n, 4 + 2000);
}

#[test]
fn try_read_with_consumes_nothing_on_need_more_even_after_partial_reads() {
    let mut buf = loaded(&[0, 0, 0, 5, 1, 2]);
    let r = buf.try_read_with(|cur| {
        let a = cur.read_i32()?;
        let b = cur.read_i16()?;
        let c = cur.read_u8()?;
        Ok((a, b, c))
    });
    assert!(matches!(r, Err(FastError::NeedMore(7))), "{r:?}");
    assert_eq!(buf.buffered(), &[0, 0, 0, 5, 1, 2]);
    assert_eq!(buf.offset(), 1);
    // The same function succeeds, consuming exactly what it read, once the byte is there.
    let r = buf.try_read_with(|cur| {
        let a = cur.read_i32()?;
        let b = cur.read_i16()?;
        Ok((a, b))
    });
    assert_eq!(r.unwrap(), (5, 0x0102));
    assert_eq!(buf.offset(), 7);
    assert!(buf.buffered().is_empty());
}

#[test]
fn errors_consume_nothing_either() {
    // Invalid bytes: the error is reported and the buffer is left where it was.
    let mut buf = loaded(&[0x02, 0x00, 0, 0, 0, 1]);
    let e = invalid(buf.try_decode::<Fq<i32>>().unwrap_err());
    assert_eq!(e.offset(), 1);
    assert_eq!(buf.offset(), 1);
    assert_eq!(buf.buffered().len(), 6);
}

#[test]
fn encode_then_every_prefix_for_nested_optional_layouts() {
    let v: Vec<Vec<String>> = vec![vec!["ab".into()], vec![], vec!["c".into(), "".into()]];
    let mut full = Vec::new();
    FqOpt(Some(v)).encode(&mut full).unwrap();
    check::<FqOpt<Vec<Vec<String>>>>(&full, |t| if t < 2 { Some(t + 1) } else { None });
}
