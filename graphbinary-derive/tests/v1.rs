//! The GraphBinary 1 dialect (`#[graphbinary(v1)]`) on every path: each type read on the fast
//! path, on the slow path with tiny buffers and one byte per read, with the fast path off, and
//! written back byte for byte, in both versions from one definition.

mod common;

use std::sync::Arc;

use common::{assert_wrong_code, check, check_err, unhex};
use graphbinary_core::v1::{FqEncodeV1, OneString, V1};
use graphbinary_core::{Encode, EncodeError, ErrorKind, FqEncode};
use graphbinary_derive::GraphBinary;

/// A stand-in for element labels: a List of Strings in GraphBinary 4, one String in 1.
#[derive(GraphBinary, Debug, Clone, PartialEq)]
struct Tags {
    tags: Vec<Arc<str>>,
}

impl From<Arc<str>> for Tags {
    fn from(s: Arc<str>) -> Self {
        Tags { tags: vec![s] }
    }
}

impl OneString for Tags {
    fn one_string(&self) -> Result<&str, EncodeError> {
        match self.tags.as_slice() {
            [one] => Ok(one),
            _ => Err(EncodeError::Unrepresentable {
                what: "Tags",
                detail: format!("{} tags", self.tags.len()),
            }),
        }
    }
}

#[derive(GraphBinary, Debug, Clone, PartialEq)]
#[graphbinary(type_code = 0x11, v1)]
struct Elem {
    id: i64,
    #[graphbinary(v1 = "string")]
    label: Tags,
    #[graphbinary(fq, nullable)]
    props: Option<Vec<i32>>,
    #[graphbinary(nullable)]
    note: Option<String>,
    #[graphbinary(fq)]
    names: Vec<String>,
}

#[derive(GraphBinary, Debug, Clone, Copy, PartialEq)]
#[graphbinary(type_code = 0x18, v1_type_code = 0x19, enum_string)]
enum Dir {
    #[graphbinary(rename = "OUT")]
    Out,
    In,
}

fn elem() -> Elem {
    Elem {
        id: 7,
        label: Tags {
            tags: vec!["person".into()],
        },
        props: Some(vec![1, 2]),
        note: None,
        names: vec!["a".into()],
    }
}

#[test]
fn one_definition_two_dialects_on_every_path() {
    // GraphBinary 1: the label is a bare String.
    let v1 = unhex(
        "00 00 00 00 00 00 00 07  00 00 00 06 70 65 72 73 6f 6e
         09 00 00 00 00 02 01 00 00 00 00 01 01 00 00 00 00 02  01
         09 00 00 00 00 01 03 00 00 00 00 01 61",
    );
    check::<V1<Elem>>(&v1, &V1(elem()));
    // GraphBinary 4: the same fields, the label a List of Strings.
    let v4 = unhex(
        "00 00 00 00 00 00 00 07  00 00 00 01 03 00 00 00 00 06 70 65 72 73 6f 6e
         09 00 00 00 00 02 01 00 00 00 00 01 01 00 00 00 00 02  01
         09 00 00 00 00 01 03 00 00 00 00 01 61",
    );
    check::<Elem>(&v4, &elem());
    // A null fq field: `FE 01` in both.
    let none = Elem {
        props: None,
        ..elem()
    };
    let mut out = Vec::new();
    V1(none.clone()).encode(&mut out).unwrap();
    check::<V1<Elem>>(&out, &V1(none));
}

#[test]
fn the_v1_type_code_is_its_own() {
    let mut v4 = Vec::new();
    Dir::In.encode_fq(&mut v4).unwrap();
    let mut v1 = Vec::new();
    Dir::In.encode_fq_v1(&mut v1).unwrap();
    assert_eq!(v4[0], 0x18);
    assert_eq!(v1[0], 0x19);
    assert_eq!(v4[1..], v1[1..]);
    check::<V1<Dir>>(&v1[2..], &V1(Dir::In));
    // The v1 reader of an element with a wrong code for its fq field fails at that byte.
    let mut bad =
        unhex("00 00 00 00 00 00 00 07 00 00 00 01 61 0b 00 00 00 00 00 01 00 0b 00 00 00 00 00");
    let e = check_err::<V1<Elem>>(&bad);
    assert_wrong_code(&e, 13, 0x09, 0x0b);
    // Cut short: end of input at the offset where it ended, refilling.
    bad.truncate(13);
    let e = common::block_on(graphbinary_core::ReadBuffer::new(&bad[..]).read::<V1<Elem>>())
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnexpectedEof { .. }), "{e:?}");
    assert_eq!(e.offset(), 13);
}

#[test]
fn a_label_that_is_not_one_string_cannot_be_written_in_v1() {
    let two = Elem {
        label: Tags {
            tags: vec!["a".into(), "b".into()],
        },
        ..elem()
    };
    let e = V1(two.clone()).encode(&mut Vec::new()).unwrap_err();
    assert!(e.to_string().contains("2 tags"), "{e}");
    // GraphBinary 4 writes it.
    two.encode(&mut Vec::new()).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Custom types: `v1_custom`, a hand-written leaf field and a sentinel field.

/// A leaf whose layout is no GraphBinary type: `{len u8}{bytes}` (a stand-in for JanusGraph's
/// marker-tagged vertex ids), with 0 as its "none".
#[derive(Debug, Clone, PartialEq)]
struct Tiny(Vec<u8>);

impl graphbinary_core::v1::DecodeV1 for Tiny {
    const EXPECTED: &'static str = "Tiny";
    fn decode_v1(cur: &mut graphbinary_core::Cursor<'_>) -> graphbinary_core::FastResult<Self> {
        let n = cur.read_u8()?;
        Ok(Tiny(cur.read_bytes(n as usize)?.to_vec()))
    }
    async fn decode_v1_slow<R: tokio::io::AsyncRead + Unpin + Send>(
        buf: &mut graphbinary_core::ReadBuffer<R>,
    ) -> Result<Self, graphbinary_core::DecodeError> {
        let n = buf.read_u8().await?;
        let mut v = Vec::new();
        for _ in 0..n {
            v.push(buf.read_u8().await?);
        }
        Ok(Tiny(v))
    }
}

impl graphbinary_core::v1::EncodeV1 for Tiny {
    fn encode_v1<B: bytes::BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        out.put_u8(self.0.len() as u8);
        out.put_slice(&self.0);
        Ok(())
    }
}

impl graphbinary_core::v1::SentinelV1 for Tiny {
    fn sentinel() -> Self {
        Tiny(Vec::new())
    }
    fn is_sentinel(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(GraphBinary, Debug, Clone, PartialEq)]
#[graphbinary(v1_custom = "test.Pair", v1_custom_info = 0x0102_0304)]
struct Pair {
    left: Tiny,
    n: i32,
    #[graphbinary(v1 = "sentinel")]
    right: Option<Tiny>,
}

#[test]
fn a_custom_type_reads_and_writes_its_fields_and_its_whole_form_on_every_path() {
    use graphbinary_core::v1::{CustomV1, FqV1};
    assert_eq!(<Pair as CustomV1>::CUSTOM_NAME, "test.Pair");
    assert_eq!(<Pair as CustomV1>::CUSTOM_INFO, 0x0102_0304);
    let some = Pair {
        left: Tiny(b"ab".to_vec()),
        n: -2,
        right: Some(Tiny(b"c".to_vec())),
    };
    let bare = unhex("02 61 62  ff ff ff fe  01 63");
    check::<V1<Pair>>(&bare, &V1(some.clone()));
    // `None` is the sentinel on the wire.
    let none = Pair {
        right: None,
        ..some.clone()
    };
    check::<V1<Pair>>(&unhex("02 61 62  ff ff ff fe  00"), &V1(none));
    // The whole form: {0x00}{name}{info}{0x00}{value}.
    let whole = unhex(
        "00  00 00 00 09 74 65 73 74 2e 50 61 69 72  01 02 03 04  00
         02 61 62  ff ff ff fe  01 63",
    );
    check::<V1<FqV1<Pair>>>(&whole, &V1(FqV1(some.clone())));
    let mut out = Vec::new();
    some.encode_fq_v1(&mut out).unwrap();
    assert_eq!(out, whole);
    // Another name, another info, a null: errors at their offsets on both paths.
    let mut bad = whole.clone();
    bad[5] = b'T';
    assert_eq!(check_err::<V1<FqV1<Pair>>>(&bad).offset(), 1);
    let mut bad = whole.clone();
    bad[16] = 0x05;
    let e = check_err::<V1<FqV1<Pair>>>(&bad);
    assert_eq!(e.offset(), 14);
    assert!(
        e.to_string()
            .contains("test.Pair: custom type info 0x1020504, expected 0x1020304"),
        "{e}"
    );
    let mut bad = whole.clone();
    bad[18] = 0x01;
    bad.truncate(19);
    assert!(matches!(
        check_err::<V1<FqV1<Pair>>>(&bad).kind(),
        ErrorKind::UnexpectedNull { .. }
    ));
    // `Some` of the sentinel cannot be written: it would read back as `None`.
    let e = V1(Pair {
        right: Some(Tiny(Vec::new())),
        ..some
    })
    .encode(&mut Vec::new())
    .unwrap_err();
    assert!(e.to_string().contains("stands for none"), "{e}");
}
