//! Inputs that could trip the generated code: generic structs, names that collide with the
//! generated code's own (`cur`, `buf`, `out`, raw identifiers, a type called `R`), interned
//! labels, unit and empty structs.

mod common;

use std::sync::Arc;

use common::{check, unhex};
use graphbinary_core::{Fq, Set};
use graphbinary_derive::GraphBinary;

/// A generic struct: bounds come from each field's layout.
#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(type_code = 0x2a)]
struct Pair<A, B> {
    first: A,
    #[graphbinary(fq)]
    second: B,
    #[graphbinary(fq, nullable)]
    third: Option<A>,
    #[graphbinary(nullable)]
    fourth: Option<B>,
}

#[derive(GraphBinary, Debug, PartialEq)]
struct R {
    cur: i32,
    buf: i32,
    out: i32,
    r#type: Arc<str>,
}

#[derive(GraphBinary, Debug, PartialEq)]
struct Uses {
    r: R,
    #[graphbinary(fq)]
    labels: Set<Arc<str>>,
}

#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(type_code = 0x7f)]
struct Unit;

#[derive(GraphBinary, Debug, PartialEq)]
struct Empty {}

/// A composite PDT with a generic field and a raw identifier as key.
#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(composite_pdt = "Box")]
struct Boxed<T> {
    r#type: T,
}

#[test]
fn generic_struct() {
    let bytes = unhex(
        "
        00 00 00 01
        03 00 00 00 00 01 62
        fe 01
        00 00 00 00 01 63
        ",
    );
    check(
        &bytes,
        &Pair {
            first: 1i32,
            second: String::from("b"),
            third: None,
            fourth: Some(String::from("c")),
        },
    );
    let mut fq = vec![0x2a, 0x00];
    fq.extend(&bytes);
    check(
        &fq,
        &Fq(Pair {
            first: 1i32,
            second: String::from("b"),
            third: None,
            fourth: Some(String::from("c")),
        }),
    );
}

#[test]
fn colliding_names() {
    let bytes = unhex(
        "
        00 00 00 01  00 00 00 02  00 00 00 03  00 00 00 01 74
        0b 00 00 00 00 02  03 00 00 00 00 01 61  03 00 00 00 00 01 62
        ",
    );
    check(
        &bytes,
        &Uses {
            r: R {
                cur: 1,
                buf: 2,
                out: 3,
                r#type: "t".into(),
            },
            labels: Set(vec!["a".into(), "b".into()]),
        },
    );
}

#[test]
fn unit_and_empty_structs() {
    check(&[], &Unit);
    check(&[0x7f, 0x00], &Fq(Unit));
    check(&[], &Empty {});
}

#[test]
fn generic_pdt_with_raw_identifier() {
    let bytes = unhex(
        "
        03 00 00 00 00 03 42 6f 78
        0a 00 00 00 00 01
        03 00 00 00 00 04 74 79 70 65  02 00 00 00 00 00 00 00 00 05
        ",
    );
    check(&bytes, &Boxed { r#type: 5i64 });
    assert_eq!(Boxed::<i64>::TYPE_NAME, "Box");
}
