//! The GraphBinary 1 dialect (`#[graphbinary(v1)]`) on every path: each type read on the fast
//! path, on the slow path with tiny buffers and one byte per read, with the fast path off, and
//! written back byte for byte, in both versions from one definition.

mod common;

use std::sync::Arc;

use common::{check, check_err, unhex};
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
    assert!(
        matches!(
            e.kind(),
            ErrorKind::UnexpectedTypeCode {
                expected: 0x09,
                found: 0x0b,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.offset(), 13);
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
