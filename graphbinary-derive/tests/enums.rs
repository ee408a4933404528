//! `enum_string` enums: the value is a fully-qualified String naming the variant.

mod common;

use common::{assert_wrong_code, check, check_err, unhex};
use graphbinary_core::{Decode, ErrorKind, Fq, Typed};
use graphbinary_derive::GraphBinary;

#[derive(GraphBinary, Debug, PartialEq, Clone, Copy)]
#[graphbinary(type_code = 0x18, enum_string)]
enum Direction {
    #[graphbinary(rename = "OUT")]
    Out,
    #[graphbinary(rename = "IN")]
    In,
    #[graphbinary(rename = "BOTH")]
    Both,
}

/// Variant names as written, no type code.
#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(enum_string)]
enum Merge {
    #[allow(non_camel_case_types)]
    onCreate,
    #[allow(non_camel_case_types)]
    onMatch,
    #[graphbinary(rename = "outV")]
    OutV,
}

/// T, with its type code.
#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(type_code = 0x20, enum_string)]
enum T {
    #[graphbinary(rename = "id")]
    Id,
    #[graphbinary(rename = "label")]
    Label,
}

#[test]
fn spec_t_examples() {
    check(&unhex("03 00 00 00 00 05 6C 61 62 65 6C"), &T::Label);
    check(&unhex("03 00 00 00 00 02 69 64"), &T::Id);
}

#[test]
fn spec_direction_examples() {
    check(&unhex("03 00 00 00 00 03 4F 55 54"), &Direction::Out);
    check(&unhex("03 00 00 00 00 02 49 4E"), &Direction::In);
    check(&unhex("03 00 00 00 00 04 42 4f 54 48"), &Direction::Both);
    assert_eq!(<Direction as Typed>::TYPE_CODE, 0x18);
    // Fully qualified: `18 00` then the String.
    check(
        &unhex("18 00 03 00 00 00 00 03 4F 55 54"),
        &Fq(Direction::Out),
    );
}

#[test]
fn spec_merge_examples() {
    check(
        &unhex("03 00 00 00 00 08 6F 6E 43 72 65 61 74 65"),
        &Merge::onCreate,
    );
    check(
        &unhex("03 00 00 00 00 07 6F 6E 4D 61 74 63 68"),
        &Merge::onMatch,
    );
    check(&unhex("03 00 00 00 00 04 6F 75 74 56"), &Merge::OutV);
}

#[test]
fn unknown_variant_is_an_error_naming_value_and_offset() {
    let e = check_err::<Direction>(&unhex("03 00 00 00 00 04 44 4f 57 4e"));
    assert_eq!(e.offset(), 0);
    match e.kind() {
        ErrorKind::Invalid { what, detail } => {
            assert_eq!(*what, "Direction");
            assert_eq!(
                detail,
                r#"unknown variant "DOWN"; expected one of: "OUT", "IN", "BOTH""#
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    // Inside a list: the offset is the item's.
    let e = check_err::<Vec<Direction>>(&unhex(
        "00 00 00 02  18 00 03 00 00 00 00 02 49 4E  18 00 03 00 00 00 00 02 49 4F",
    ));
    assert_eq!(e.offset(), 16);
    // Case matters.
    check_err::<Direction>(&unhex("03 00 00 00 00 03 6f 75 74"));
}

#[test]
fn not_a_string_is_an_error() {
    let e = check_err::<Direction>(&unhex("01 00 00 00 00 01"));
    assert_wrong_code(&e, 0, 0x03, 0x01);
    let e = check_err::<Direction>(&unhex("03 01"));
    assert_eq!(e.offset(), 1);
    assert!(matches!(e.kind(), ErrorKind::UnexpectedNull { .. }));
    assert_eq!(<Direction as Decode>::EXPECTED, "Direction");
}

#[test]
fn shared_vectors() {
    let Some(dir) = common::vectors() else { return };
    let bytes = std::fs::read(dir.join("out-direction-v4.gbin")).unwrap();
    check(&bytes, &Fq(Direction::Out));
    let bytes = std::fs::read(dir.join("id-t-v4.gbin")).unwrap();
    check(&bytes, &Fq(T::Id));
    for (file, expected) in [
        ("merge-on-create-v4.gbin", Merge::onCreate),
        ("merge-on-match-v4.gbin", Merge::onMatch),
        ("merge-out-v-v4.gbin", Merge::OutV),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        // The vectors are fully qualified: Merge is 0x2e.
        assert_eq!(&bytes[..2], &[0x2e, 0x00], "{file}");
        check(&bytes[2..], &expected);
    }
}
