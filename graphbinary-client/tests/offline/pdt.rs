//! Provider-defined types: generic decoding, and mapping onto a derived Rust type.

use graphbinary_client::value::{CompositePdt, PdtError, PdtRegistry, PrimitivePdt, Value};
use graphbinary_client::GraphBinary;
use graphbinary_core::{Decode, Encode, Fq, Limits};

#[derive(Debug, Clone, PartialEq, GraphBinary)]
#[graphbinary(composite_pdt = "Point")]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// The spec's CompositePDT example (and the canonical `point-composite-pdt-v4` vector).
const POINT: &[u8] = &[
    0xf0, 0x00, 0x03, 0x00, 0, 0, 0, 5, b'P', b'o', b'i', b'n', b't', 0x0a, 0x00, 0, 0, 0, 2, 0x03,
    0x00, 0, 0, 0, 1, b'x', 0x01, 0x00, 0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 1, b'y', 0x01, 0x00, 0, 0,
    0, 2,
];

fn generic() -> CompositePdt {
    match Value::from_bytes(POINT).unwrap() {
        Value::CompositePdt(p) => *p,
        other => panic!("{other:?}"),
    }
}

#[test]
fn composite_decodes_generically() {
    let p = generic();
    assert_eq!(p.type_name, "Point");
    assert_eq!(p.get("x"), Some(&Value::Int(1)));
    assert_eq!(p.get("y"), Some(&Value::Int(2)));
    assert_eq!(p.get("z"), None);
    assert!(!p.ordered);
}

#[test]
fn composite_maps_onto_the_derived_type_and_back() {
    let p = generic();
    let typed: Point = p.to_typed().unwrap();
    assert_eq!(typed, Point { x: 1, y: 2 });
    assert_eq!(CompositePdt::from_typed(&typed).unwrap(), p);
    // The derived type reads the fully-qualified bytes directly, too.
    let limits = Limits::DEFAULT;
    let mut cur = graphbinary_core::Cursor::new(POINT, 0, &limits);
    assert_eq!(Fq::<Point>::decode(&mut cur).unwrap().0, typed);
    let mut out = Vec::new();
    Fq(typed).encode(&mut out).unwrap();
    assert_eq!(out, POINT);
}

#[test]
fn a_different_type_name_does_not_map() {
    let mut p = generic();
    p.type_name = "Vector".into();
    let e = p.to_typed::<Point>().unwrap_err();
    assert!(matches!(e, PdtError::Decode(_)));
    // The cause names the expected type; the message does not repeat it.
    let cause = std::error::Error::source(&e)
        .expect("the decode error")
        .to_string();
    assert!(cause.contains("Point"), "{cause}");
    assert!(!e.to_string().contains(&cause), "{e}");
}

#[test]
fn registry_converts_by_type_name() {
    let mut r = PdtRegistry::new();
    r.register::<Point>(Point::TYPE_NAME);
    assert!(r.contains("Point"));
    let any = r.convert(&generic()).unwrap().unwrap();
    assert_eq!(any.downcast_ref::<Point>(), Some(&Point { x: 1, y: 2 }));
    let mut other = generic();
    other.type_name = "Unknown".into();
    assert!(r.convert(&other).is_none());
}

#[test]
fn primitive_pdt_round_trips() {
    let bytes = [
        0xf1, 0x00, 0x03, 0x00, 0, 0, 0, 5, b'U', b'i', b'n', b't', b'8', 0x03, 0x00, 0, 0, 0, 2,
        b'1', b'0',
    ];
    let v = Value::from_bytes(&bytes).unwrap();
    assert_eq!(
        v,
        Value::PrimitivePdt(Box::new(PrimitivePdt {
            type_name: "Uint8".into(),
            value: "10".into()
        }))
    );
    assert_eq!(v.to_bytes().unwrap(), bytes);
}
