//! Plain structs: bare, `fq`, `fq, nullable` and `nullable` fields, and `type_code`.

mod common;

use common::{assert_wrong_code, check, check_err, unhex};
use graphbinary_core::{Decode, Fq, Typed};
use graphbinary_derive::GraphBinary;

/// One field of every kind.
#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(type_code = 0x81)]
struct AllKinds {
    bare: i32,
    list: Vec<String>,
    #[graphbinary(fq)]
    fq: i64,
    #[graphbinary(fq, nullable)]
    fq_nullable: Option<i32>,
    #[graphbinary(nullable)]
    nullable: Option<String>,
}

/// No attributes at all, no type code.
#[derive(GraphBinary, Debug, PartialEq)]
struct Plain {
    a: i16,
    b: bool,
    c: String,
}

const ALL_KINDS: &str = "
    00 00 00 07
    00 00 00 02  03 00 00 00 00 01 61  03 00 00 00 00 02 62 63
    02 00 00 00 00 00 00 00 00 2a
    01 00 ff ff ff ff
    00 00 00 00 03 78 79 7a
";

fn all_kinds() -> AllKinds {
    AllKinds {
        bare: 7,
        list: vec!["a".into(), "bc".into()],
        fq: 42,
        fq_nullable: Some(-1),
        nullable: Some("xyz".into()),
    }
}

#[test]
fn every_field_kind_round_trips() {
    check(&unhex(ALL_KINDS), &all_kinds());
}

#[test]
fn nulls_round_trip() {
    let bytes = unhex(
        "
        00 00 00 00
        00 00 00 00
        02 00 80 00 00 00 00 00 00 00
        fe 01
        01
        ",
    );
    let v = AllKinds {
        bare: 0,
        list: vec![],
        fq: i64::MIN,
        fq_nullable: None,
        nullable: None,
    };
    check(&bytes, &v);
}

#[test]
fn fq_nullable_accepts_the_typed_null() {
    let bytes = unhex("00 00 00 00  00 00 00 00  02 00 00 00 00 00 00 00 00 00  01 01  01");
    let v: AllKinds = common::fast(&bytes).unwrap();
    assert_eq!(v.fq_nullable, None);
    // ...and writes the unspecified null, as TinkerPop does.
    let mut out = Vec::new();
    graphbinary_core::Encode::encode(&v, &mut out).unwrap();
    assert_eq!(&out[18..20], &[0xfe, 0x01]);
}

#[test]
fn type_code_gives_the_fully_qualified_form() {
    assert_eq!(<AllKinds as Typed>::TYPE_CODE, 0x81);
    assert_eq!(<AllKinds as Decode>::EXPECTED, "AllKinds");
    let mut bytes = vec![0x81, 0x00];
    bytes.extend(unhex(ALL_KINDS));
    check(&bytes, &Fq(all_kinds()));
    // A List of them uses the fully-qualified form for each item.
    let mut list = unhex("00 00 00 02");
    list.extend(&bytes);
    list.extend(&bytes);
    check(&list, &vec![all_kinds(), all_kinds()]);
}

#[test]
fn plain_struct_round_trips() {
    let bytes = unhex("ff fe 01 00 00 00 05 68 65 6c 6c 6f");
    check(
        &bytes,
        &Plain {
            a: -2,
            b: true,
            c: "hello".into(),
        },
    );
}

#[test]
fn errors_name_the_offset() {
    // The Boolean byte (offset 2) is invalid.
    let e = check_err::<Plain>(&unhex("ff fe 07 00 00 00 00"));
    assert_eq!(e.offset(), 2);
    // The fq field has the wrong type code (offset 23).
    let mut bytes = unhex(ALL_KINDS);
    bytes[23] = 0x01;
    let e = check_err::<AllKinds>(&bytes);
    assert_wrong_code(&e, 23, 0x02, 0x01);
    // The wrong type code in front of the fully-qualified form.
    let e = check_err::<Fq<AllKinds>>(&[0x80, 0x00]);
    assert_eq!(e.offset(), 0);
}

/// What the model keeps beside the wire form.
#[derive(Debug, Default, PartialEq, Clone, Copy)]
enum Origin {
    #[default]
    Wire,
    Elsewhere,
}

/// A `skip` field: not on the wire, defaulted when read, not written.
#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(type_code = 0x82, v1)]
struct WithSkip {
    a: i32,
    #[graphbinary(skip)]
    origin: Origin,
    b: i16,
}

#[test]
fn a_skipped_field_is_not_on_the_wire() {
    let bytes = unhex("00 00 00 07 00 02");
    check(
        &bytes,
        &WithSkip {
            a: 7,
            origin: Origin::Wire,
            b: 2,
        },
    );
    // Whatever the field holds, the same bytes are written, in both dialects.
    let v = WithSkip {
        a: 7,
        origin: Origin::Elsewhere,
        b: 2,
    };
    let mut out = Vec::new();
    graphbinary_core::Encode::encode(&v, &mut out).unwrap();
    assert_eq!(out, bytes);
    let mut out = Vec::new();
    graphbinary_core::v1::EncodeV1::encode_v1(&v, &mut out).unwrap();
    assert_eq!(out, bytes);
    let mut cur_bytes = bytes.clone();
    cur_bytes.extend_from_slice(&[0xaa]);
    let limits = graphbinary_core::Limits::DEFAULT;
    let mut cur = graphbinary_core::Cursor::new(&cur_bytes, 0, &limits);
    let read = <WithSkip as graphbinary_core::v1::DecodeV1>::decode_v1(&mut cur).unwrap();
    assert_eq!(read.origin, Origin::Wire);
    assert_eq!(cur.remaining(), [0xaa]);
}
