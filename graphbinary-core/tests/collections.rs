//! Set, interned `Arc<str>` strings, the `FqDecode`/`FqEncode` traits (including a dynamic
//! value type dispatching on the type code, the way a `Value` enum does), and the interner's
//! bounds.

mod common;

use std::future::Future;
use std::sync::Arc;

use bytes::BufMut;
use common::*;
use graphbinary_core::{
    codes, decode_fq_typed, Cursor, DecodeError, Encode, EncodeError, ErrorKind, FastResult, Fq,
    FqDecode, FqEncode, Interner, Limits, ReadBuffer, Set, MAX_INTERNED_ENTRIES, MAX_INTERNED_LEN,
};
use tokio::io::AsyncRead;

/// Encodes `v` and reads it back at every capacity 1..=24, every chunking and mode, fast path
/// on and off.
fn round_trip<T>(v: &T)
where
    T: Encode + graphbinary_core::Decode + PartialEq + std::fmt::Debug,
{
    for_each_way(&enc(v), 24, |ctx, mut buf| {
        let got = block_on(buf.read::<T>()).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(got, *v, "{ctx}");
        assert!(block_on(buf.is_at_end()).unwrap(), "{ctx}");
    });
}

#[test]
fn set_bytes_and_round_trips() {
    assert_eq!(
        enc(&Fq(Set(vec![1i8, 2]))),
        [0x0b, 0x00, 0, 0, 0, 2, 0x24, 0x00, 1, 0x24, 0x00, 2]
    );
    round_trip(&Set(vec![3i32, 1, 2]));
    round_trip(&Set(Vec::<String>::new()));
    round_trip(&Fq(Set(vec!["b".to_string(), "a".into()])));
    round_trip(&vec![Set(vec![1i64]), Set(vec![])]);
    round_trip(&Set(vec![vec![true], vec![]]));
}

#[test]
fn set_errors_name_the_set() {
    let limits = Limits {
        max_collection_len: 1,
        ..Limits::DEFAULT
    };
    let data = enc(&Set(vec![1i32, 2]));
    for fast in [true, false] {
        let mut buf = ReadBuffer::with_capacity(4, &data[..])
            .with_limits(limits)
            .with_fast_path(fast);
        let e = block_on(buf.read::<Set<i32>>()).unwrap_err();
        assert!(matches!(
            e.kind(),
            ErrorKind::LengthLimit { what: "Set", .. }
        ));
        assert_eq!(e.offset(), 0);
    }
    // A List where a Set is expected.
    let data = enc(&Fq(vec![1i32]));
    for fast in [true, false] {
        let mut buf = ReadBuffer::with_capacity(3, &data[..]).with_fast_path(fast);
        let e = block_on(buf.read::<Fq<Set<i32>>>()).unwrap_err();
        assert!(matches!(
            e.kind(),
            ErrorKind::UnexpectedTypeCode {
                what: "Set",
                expected: codes::SET,
                found: codes::LIST
            }
        ));
    }
}

#[test]
fn interned_strings_round_trip_and_share_allocations_on_both_paths() {
    let labels: Vec<Arc<str>> = ["person", "software", "person", "person", "software"]
        .into_iter()
        .map(Arc::from)
        .collect();
    round_trip(&labels);
    let mut data = enc(&labels);
    labels.encode(&mut data).unwrap();
    for cap in [1, 7, 16, 64, 4096] {
        for fast in [true, false] {
            let mut buf =
                ReadBuffer::with_capacity(cap, ScriptReader::drip(&data)).with_fast_path(fast);
            let a = block_on(buf.read::<Vec<Arc<str>>>()).unwrap();
            let b = block_on(buf.read::<Vec<Arc<str>>>()).unwrap();
            assert_eq!(a, labels);
            assert_eq!(b, labels);
            assert!(Arc::ptr_eq(&a[0], &a[2]), "cap={cap} fast={fast}");
            assert!(Arc::ptr_eq(&a[0], &b[3]), "cap={cap} fast={fast}");
            assert!(Arc::ptr_eq(&a[1], &b[4]), "cap={cap} fast={fast}");
        }
    }
}

#[test]
fn long_strings_are_not_interned_but_decode_exactly() {
    let long: Arc<str> = Arc::from("x".repeat(MAX_INTERNED_LEN + 1));
    let edge: Arc<str> = Arc::from("y".repeat(MAX_INTERNED_LEN));
    let v = vec![long.clone(), long.clone(), edge.clone(), edge.clone()];
    let data = enc(&v);
    let mut buf = ReadBuffer::new(&data[..]);
    let got = block_on(buf.read::<Vec<Arc<str>>>()).unwrap();
    assert_eq!(got, v);
    assert!(!Arc::ptr_eq(&got[0], &got[1]));
    assert!(Arc::ptr_eq(&got[2], &got[3]));
}

#[test]
fn the_interner_tells_apart_strings_of_every_length_that_differ_in_one_byte() {
    // Every length up to the interning limit, and for each a variant differing in each single
    // byte (first, middle, last: the bytes the short-string hash reads), all kept apart, and
    // each equal string shared.
    let mut i = Interner::new();
    let mut all: Vec<(String, Arc<str>)> = Vec::new();
    for n in 0..=MAX_INTERNED_LEN {
        let base: String = (0..n).map(|k| (b'a' + (k % 26) as u8) as char).collect();
        let mut variants = vec![base.clone()];
        for at in 0..n {
            let mut b = base.clone().into_bytes();
            b[at] = b'Z';
            variants.push(String::from_utf8(b).unwrap());
        }
        for v in variants {
            let a = i.intern(&v);
            assert_eq!(&*a, v);
            all.push((v, a));
        }
    }
    for (s, a) in &all {
        let again = i.intern(s);
        assert!(Arc::ptr_eq(a, &again), "{s:?} is shared");
        assert_eq!(&*i.intern_utf8(s.as_bytes()).unwrap(), s.as_str());
    }
}

#[test]
fn the_interner_is_bounded() {
    let mut i = Interner::new();
    assert!(i.is_empty());
    for n in 0..MAX_INTERNED_ENTRIES + 100 {
        let s = format!("s{n}");
        assert_eq!(&*i.intern(&s), s);
    }
    assert_eq!(i.len(), MAX_INTERNED_ENTRIES);
    // Past the bound strings are still returned, just not shared.
    let a = i.intern("brand new");
    let b = i.intern("brand new");
    assert_eq!(a, b);
    assert!(!Arc::ptr_eq(&a, &b));
    // Earlier ones still are.
    assert!(Arc::ptr_eq(&i.intern("s1"), &i.intern("s1")));
}

#[test]
fn interned_strings_reject_bad_utf8_at_the_length() {
    let mut data = len_bytes(2).to_vec();
    data.extend_from_slice(&[0xc3, 0x28]);
    for fast in [true, false] {
        for cap in [1, 64] {
            let mut buf = ReadBuffer::with_capacity(cap, &data[..]).with_fast_path(fast);
            let e = block_on(buf.read::<Arc<str>>()).unwrap_err();
            assert!(matches!(
                e.kind(),
                ErrorKind::InvalidUtf8 { what: "String" }
            ));
            assert_eq!(e.offset(), 0);
        }
    }
}

/// A dynamic value: an Int, a String, a List of values, or null, chosen by the type code read.
#[derive(Debug, Clone, PartialEq)]
enum Dyn {
    Int(i32),
    Str(String),
    List(Vec<Dyn>),
    Null,
}

fn dyn_header(cur: &mut Cursor<'_>) -> FastResult<(u8, bool)> {
    let at = cur.offset();
    let code = cur.read_u8()?;
    if !matches!(
        code,
        codes::INT | codes::STRING | codes::LIST | codes::UNSPECIFIED_NULL
    ) {
        return Err(cur.error_at(at, ErrorKind::UnknownTypeCode { code }));
    }
    let present = cur.read_nullable_flag("Dyn")?;
    Ok((code, present))
}

impl FqDecode for Dyn {
    const EXPECTED: &'static str = "Dyn";
    fn decode_fq(cur: &mut Cursor<'_>) -> FastResult<Self> {
        let (code, present) = dyn_header(cur)?;
        if !present {
            return Ok(Dyn::Null);
        }
        Ok(match code {
            codes::INT => Dyn::Int(cur.read_i32()?),
            codes::STRING => Dyn::Str(cur.read_str()?.to_owned()),
            _ => Dyn::List(<Vec<Dyn> as graphbinary_core::Decode>::decode(cur)?),
        })
    }
    #[allow(clippy::manual_async_fn)] // the trait's `impl Future + Send` form
    fn decode_fq_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            let (code, present) = buf.read_with(dyn_header, "Dyn").await?;
            if !present {
                return Ok(Dyn::Null);
            }
            Ok(match code {
                codes::INT => Dyn::Int(buf.read().await?),
                codes::STRING => Dyn::Str(buf.read().await?),
                // A recursive type: the nested read is boxed, as a `Value` enum's must be.
                _ => Dyn::List(Box::pin(buf.read::<Vec<Dyn>>()).await?),
            })
        }
    }
}

impl FqEncode for Dyn {
    fn encode_fq<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        match self {
            Dyn::Int(v) => Fq(*v).encode(out),
            Dyn::Str(v) => Fq(v.clone()).encode(out),
            Dyn::List(v) => Fq(v.clone()).encode(out),
            Dyn::Null => {
                out.put_slice(&[0xfe, 0x01]);
                Ok(())
            }
        }
    }
}

#[test]
fn a_dynamic_item_type_round_trips_through_lists_on_both_paths() {
    let v = vec![
        Dyn::Int(1),
        Dyn::Str("two".into()),
        Dyn::Null,
        Dyn::List(vec![Dyn::Int(-3), Dyn::List(vec![]), Dyn::Str("".into())]),
        Dyn::Str("héllo wörld, a string long enough to span a refill or two".into()),
    ];
    round_trip(&v);
    round_trip(&Fq(Dyn::List(v.clone())));
    round_trip(&Set(v));
}

#[test]
fn a_dynamic_item_type_reports_unknown_codes_with_offsets() {
    let mut data = len_bytes(2).to_vec();
    data.extend_from_slice(&enc(&Fq(5i32)));
    data.extend_from_slice(&[0x42, 0x00, 1, 2, 3]);
    let limits = Limits::DEFAULT;
    let mut cur = Cursor::new(&data, 0, &limits);
    let e = invalid(<Vec<Dyn> as graphbinary_core::Decode>::decode(&mut cur).unwrap_err());
    assert!(matches!(
        e.kind(),
        ErrorKind::UnknownTypeCode { code: 0x42 }
    ));
    assert_eq!(e.offset(), 10);
    for cap in [1, 2, 5, 64] {
        for fast in [true, false] {
            let mut buf =
                ReadBuffer::with_capacity(cap, ScriptReader::drip(&data)).with_fast_path(fast);
            let e2 = block_on(buf.read::<Vec<Dyn>>()).unwrap_err();
            assert!(same_error(&e, &e2), "cap={cap} fast={fast}: {e2:?}");
        }
    }
}

#[test]
fn decode_fq_typed_is_the_fq_layout() {
    let data = enc(&Fq(String::from("q")));
    let limits = Limits::DEFAULT;
    let mut cur = Cursor::new(&data, 0, &limits);
    assert_eq!(decode_fq_typed::<String>(&mut cur).unwrap(), "q");
    assert_eq!(cur.position(), data.len());
    let mut out = Vec::new();
    String::from("q").encode_fq(&mut out).unwrap();
    assert_eq!(out, data);
    let mut cur = Cursor::new(&data, 0, &limits);
    assert_eq!(<String as FqDecode>::decode_fq(&mut cur).unwrap(), "q");
}
