//! `composite_pdt` structs: CompositePDT (0xF0), `{type: fq String}{fields: fq Map}`.

mod common;

use common::{assert_wrong_code, check, check_err, unhex};
use graphbinary_core::{Decode, ErrorKind, Fq, Typed};
use graphbinary_derive::GraphBinary;

#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(composite_pdt = "Point")]
struct Point {
    x: i32,
    y: i32,
}

/// Renamed keys, and field types of several kinds (each needs FqDecode/FqEncode).
#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(composite_pdt = "acme.Person")]
struct Person {
    #[graphbinary(rename = "firstName")]
    first_name: String,
    age: i64,
    tags: Vec<String>,
    home: Point,
}

/// The specification's example (CompositePDT, example values).
const SPEC_POINT: &str = "
    03 00 00 00 00 05 50 6F 69 6E 74
    0A 00 00 00 00 02
    03 00 00 00 00 01 78 01 00 00 00 00 01
    03 00 00 00 00 01 79 01 00 00 00 00 02
";

/// Map entries of a `Point`: `"x"` or `"y"`, and `"z"`, each an Int 1 or 2.
const X1: &str = "03 00 00 00 00 01 78 01 00 00 00 00 01";
const X2: &str = "03 00 00 00 00 01 78 01 00 00 00 00 02";
const Y2: &str = "03 00 00 00 00 01 79 01 00 00 00 00 02";
const Z2: &str = "03 00 00 00 00 01 7a 01 00 00 00 00 02";

/// A `Point` CompositePDT (name `"Point"`) whose fields Map holds `entries`, in that order.
fn point(entries: &[&str]) -> Vec<u8> {
    unhex(&format!(
        "03 00 00 00 00 05 50 6F 69 6E 74  0A 00 00 00 00 {:02x}  {}",
        entries.len(),
        entries.join(" ")
    ))
}

#[test]
fn spec_point_example() {
    check(&unhex(SPEC_POINT), &Point { x: 1, y: 2 });
    assert_eq!(<Point as Typed>::TYPE_CODE, 0xf0);
    assert_eq!(Point::TYPE_NAME, "Point");
    assert_eq!(<Point as Decode>::EXPECTED, "Point");
    let mut fq = vec![0xf0, 0x00];
    fq.extend(unhex(SPEC_POINT));
    check(&fq, &Fq(Point { x: 1, y: 2 }));
}

#[test]
fn keys_in_any_order() {
    let bytes = point(&[Y2, X1]);
    let p: Point = common::fast(&bytes).unwrap();
    assert_eq!(p, Point { x: 1, y: 2 });
    // Every path agrees; the writer puts the fields back in declaration order.
    common::block_on(async {
        let mut buf = graphbinary_core::ReadBuffer::with_capacity(1, common::Trickle(&bytes))
            .with_fast_path(false);
        assert_eq!(buf.read::<Point>().await.unwrap(), p);
    });
    let mut out = Vec::new();
    graphbinary_core::Encode::encode(&p, &mut out).unwrap();
    assert_eq!(out, unhex(SPEC_POINT));
    // An ordered Map (value flag 0x02) is accepted too.
    let mut ordered = unhex(SPEC_POINT);
    ordered[12] = 0x02;
    assert_eq!(common::fast::<Point>(&ordered).unwrap(), p);
}

#[test]
fn nested_and_renamed() {
    let person = Person {
        first_name: "Ada".into(),
        age: 36,
        tags: vec!["math".into()],
        home: Point { x: -1, y: 7 },
    };
    let bytes = unhex(
        "
        03 00 00 00 00 0b 61 63 6d 65 2e 50 65 72 73 6f 6e
        0a 00 00 00 00 04
        03 00 00 00 00 09 66 69 72 73 74 4e 61 6d 65  03 00 00 00 00 03 41 64 61
        03 00 00 00 00 03 61 67 65  02 00 00 00 00 00 00 00 00 24
        03 00 00 00 00 04 74 61 67 73  09 00 00 00 00 01 03 00 00 00 00 04 6d 61 74 68
        03 00 00 00 00 04 68 6f 6d 65  f0 00
            03 00 00 00 00 05 50 6F 69 6E 74
            0A 00 00 00 00 02
            03 00 00 00 00 01 78 01 00 ff ff ff ff
            03 00 00 00 00 01 79 01 00 00 00 00 07
        ",
    );
    check(&bytes, &person);
}

fn detail(e: &graphbinary_core::DecodeError) -> &str {
    match e.kind() {
        ErrorKind::Invalid { detail, .. } => detail,
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn wrong_type_name() {
    let mut bytes = unhex(SPEC_POINT);
    bytes[6] = b'J';
    let e = check_err::<Point>(&bytes);
    assert_eq!(e.offset(), 0);
    assert_eq!(
        detail(&e),
        r#"composite type name "Joint" where "Point" was expected"#
    );
}

#[test]
fn missing_field() {
    let e = check_err::<Point>(&point(&[Y2]));
    assert_eq!(e.offset(), 11, "the Map's offset");
    assert_eq!(detail(&e), r#"missing field "x""#);
}

#[test]
fn unknown_key_is_an_error() {
    let e = check_err::<Point>(&point(&[X1, Z2]));
    assert_eq!(e.offset(), 30, "the key's offset");
    assert_eq!(
        detail(&e),
        r#"unknown field "z"; expected one of: "x", "y""#
    );
}

#[test]
fn duplicate_key_is_an_error() {
    let e = check_err::<Point>(&point(&[X1, X2]));
    assert_eq!(e.offset(), 30);
    assert_eq!(detail(&e), r#"field "x" appears twice"#);
}

#[test]
fn too_many_entries_is_an_error_before_reading_them() {
    // Claims 1000 entries and has none: rejected at the count, not after waiting for bytes.
    let bytes = unhex("03 00 00 00 00 05 50 6F 69 6E 74  0A 00 00 00 03 e8");
    let e = check_err::<Point>(&bytes);
    assert_eq!(e.offset(), 13);
    assert_eq!(detail(&e), "1000 fields where at most 2 were expected");
}

#[test]
fn wrong_value_type_and_null_map() {
    let mut bytes = unhex(SPEC_POINT);
    bytes[24] = 0x02; // x: a Long header where an Int is expected
    let e = check_err::<Point>(&bytes);
    assert_wrong_code(&e, 24, 0x01, 0x02);
    let e = check_err::<Point>(&unhex("03 00 00 00 00 05 50 6F 69 6E 74  0A 01"));
    assert_eq!(e.offset(), 12);
    assert!(matches!(
        e.kind(),
        ErrorKind::UnexpectedNull { what: "Map" }
    ));
}

#[test]
fn shared_vector() {
    let Some(dir) = common::vectors() else { return };
    let bytes = std::fs::read(dir.join("point-composite-pdt-v4.gbin")).unwrap();
    check(&bytes, &Fq(Point { x: 1, y: 2 }));
}
