//! The examples of the GraphBinary 4 specification (`docs/src/dev/io/graphbinary.asciidoc`
//! at 4.0.0-beta.3), decoded on every path and re-encoded byte for byte.

mod common;

use common::value::Value;
use common::{check, unhex};
use graphbinary_core::Fq;
use graphbinary_derive::GraphBinary;

/// The element layouts of the shared contract, with the stand-in `Value`.
#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(type_code = 0x11)]
struct Vertex {
    id: Value,
    label: Vec<String>,
    #[graphbinary(fq, nullable)]
    properties: Option<Vec<VertexProperty>>,
}

#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(type_code = 0x12)]
struct VertexProperty {
    id: Value,
    label: Vec<String>,
    value: Value,
    parent: Value,
    #[graphbinary(fq, nullable)]
    properties: Option<Vec<Property>>,
}

#[derive(GraphBinary, Debug, PartialEq)]
#[graphbinary(type_code = 0x0f)]
struct Property {
    key: String,
    value: Value,
    parent: Value,
}

/// "Vertex", example values.
const SPEC_VERTEX: &str = "
    01 00  00 00 00 01
    00 00 00 01  03 00  00 00 00 06  70 65 72 73 6f 6e
    09 00  00 00 00 01  12 00  02 00  00 00 00 00 00 00 00 09
    00 00 00 01  03 00  00 00 00 08  6c 6f 63 61 74 69 6f 6e
    03 00  00 00 00 08  73 61 6e 74 61 20 66 65
    fe 01
    09 00  00 00 00 01
    0f 00  00 00 00 09 73 74 61 72 74 54 69 6d 65
    01 00  00 00 07 d5  fe 01
";

#[test]
fn spec_vertex_example() {
    let expected = Vertex {
        id: Value::Int(1),
        label: vec!["person".into()],
        properties: Some(vec![VertexProperty {
            id: Value::Long(9),
            label: vec!["location".into()],
            value: Value::String("santa fe".into()),
            parent: Value::Null,
            properties: Some(vec![Property {
                key: "startTime".into(),
                value: Value::Int(2005),
                parent: Value::Null,
            }]),
        }]),
    };
    check(&unhex(SPEC_VERTEX), &expected);
}

/// "VertexProperty", example values.
#[test]
fn spec_vertex_property_example() {
    let bytes = unhex(
        "
        02 00  00 00 00 00 00 00 00 00
        00 00 00 01  03 00  00 00 00 04  6e 61 6d 65
        03 00  00 00 00 05  6d 61 72 6b 6f
        fe 01
        09 00  00 00 00 00
        ",
    );
    let expected = VertexProperty {
        id: Value::Long(0),
        label: vec!["name".into()],
        value: Value::String("marko".into()),
        parent: Value::Null,
        properties: Some(vec![]),
    };
    check(&bytes, &expected);
    // Fully qualified, as a Vertex's property list holds it.
    let mut fq = vec![0x12, 0x00];
    fq.extend(&bytes);
    check(&fq, &Fq(expected));
}

/// A reference vertex: its properties are the unspecified null (`FE 01`), as TinkerPop
/// writes it; a typed null List (`09 01`) reads the same.
#[test]
fn null_property_list() {
    let bytes = unhex("01 00 00 00 00 01  00 00 00 00  fe 01");
    let expected = Vertex {
        id: Value::Int(1),
        label: vec![],
        properties: None,
    };
    check(&bytes, &expected);
    let typed: Vertex = common::fast(&unhex("01 00 00 00 00 01  00 00 00 00  09 01")).unwrap();
    assert_eq!(typed, expected);
}

/// The shared vectors of whole vertices (they are fully qualified: `11 00` first).
#[test]
fn shared_vertex_vectors() {
    let Some(dir) = common::vectors() else { return };
    for file in [
        "no-prop-vertex-v4.gbin",
        "traversal-vertex-v4.gbin",
        "empty-label-vertex-v4.gbin",
        "multi-label-vertex-v4.gbin",
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let v: Fq<Vertex> = common::fast(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        check(&bytes, &v);
    }
    let bytes = std::fs::read(dir.join("traversal-vertex-v4.gbin")).unwrap();
    let v: Fq<Vertex> = common::fast(&bytes).unwrap();
    let props = v.0.properties.unwrap();
    assert_eq!(props.len(), 5);
    assert_eq!(props[0].value, Value::String("marko".into()));
    assert_eq!(
        props[4].properties.as_ref().unwrap()[0].value,
        Value::Int(2005)
    );
}
