//! Per-type unit tests beyond the canonical vectors: nulls, flags, map keys, BigInteger
//! widths, BigDecimal rendering, Graph and Tree forms, and rejection of malformed headers.

use std::sync::Arc;

use graphbinary_client::format::graphson::to_graphson;
use graphbinary_client::value::{
    BigDecimal, BigInteger, Edge, Graph, Property, Tree, Value, Vertex, VertexProperty,
};
use num_bigint::BigInt;

fn round_trip(v: &Value) -> Vec<u8> {
    let bytes = v.to_bytes().unwrap();
    assert_eq!(&Value::from_bytes(&bytes).unwrap(), v, "{bytes:02x?}");
    bytes
}

#[test]
fn typed_nulls_keep_their_type_code() {
    assert_eq!(Value::from_bytes(&[0x01, 0x01]).unwrap(), Value::Null(0x01));
    assert_eq!(Value::from_bytes(&[0xfe, 0x01]).unwrap(), Value::Null(0xfe));
    assert_ne!(Value::Null(0x01), Value::Null(0xfe));
    for code in [0x01, 0x03, 0x09, 0x0a, 0x11, 0x2b, 0xf0, 0xfe] {
        assert_eq!(round_trip(&Value::Null(code)), [code, 0x01]);
    }
    assert_eq!(to_graphson(&Value::Null(0x01)), "null");
}

#[test]
fn header_rules_are_enforced_with_offsets() {
    // The unspecified null with a value flag.
    let e = Value::from_bytes(&[0xfe, 0x00]).unwrap_err();
    assert_eq!(e.offset(), 1);
    // The bulk flag on an Int.
    let e = Value::from_bytes(&[0x01, 0x02, 0, 0, 0, 1]).unwrap_err();
    assert_eq!(e.offset(), 1);
    assert!(e.to_string().contains("0x02"), "{e}");
    // The ordered flag on a Set.
    assert!(Value::from_bytes(&[0x0b, 0x02, 0, 0, 0, 0]).is_err());
    // A removed v1 type code.
    let e = Value::from_bytes(&[0x2a, 0x00]).unwrap_err();
    assert!(e.to_string().contains("0x2a"), "{e}");
    // Negative length.
    let e = Value::from_bytes(&[0x03, 0x00, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
    assert_eq!(e.offset(), 2);
    // A Boolean byte other than 0 or 1.
    let e = Value::from_bytes(&[0x27, 0x00, 0x02]).unwrap_err();
    assert_eq!(e.offset(), 2);
    // Invalid UTF-8.
    assert!(Value::from_bytes(&[0x03, 0x00, 0, 0, 0, 1, 0xff]).is_err());
    // Trailing bytes.
    let e = Value::from_bytes(&[0x27, 0x00, 0x01, 0x00]).unwrap_err();
    assert_eq!(e.offset(), 3);
    // Marker value other than 0.
    assert!(Value::from_bytes(&[0xfd, 0x00, 0x01]).is_err());
    assert_eq!(
        Value::from_bytes(&[0xfd, 0x00, 0x00]).unwrap(),
        Value::Marker
    );
}

#[test]
fn maps_keep_keys_of_any_type_in_order() {
    let entries = vec![
        (Value::List(vec![Value::Int(1)]), Value::from("list key")),
        (Value::Null(0xfe), Value::Null(0xfe)),
        (Value::from("z"), Value::Int(1)),
        (Value::from("a"), Value::Int(2)),
        (Value::Double(f64::NAN), Value::Boolean(true)),
    ];
    let m = Value::Map(entries.clone());
    round_trip(&m);
    let o = Value::OrderedMap(entries);
    let bytes = round_trip(&o);
    assert_eq!(&bytes[..2], [0x0a, 0x02]);
    assert_ne!(m, o);
    assert_eq!(
        m.to_string(),
        "[[1]:list key, null:null, z:1, a:2, NaN:true]"
    );
}

#[test]
fn bulked_lists_keep_their_bulks() {
    let v = Value::BulkList(vec![(Value::from("a"), 3), (Value::Int(1), 1)]);
    let bytes = round_trip(&v);
    assert_eq!(&bytes[..6], [0x09, 0x02, 0, 0, 0, 2]);
    assert_eq!(v.to_string(), "[a, a, a, 1]");
    assert_ne!(v, Value::List(vec![Value::from("a"), Value::Int(1)]));
}

#[test]
fn floats_compare_by_bits() {
    assert_eq!(Value::Double(f64::NAN), Value::Double(f64::NAN));
    assert_ne!(Value::Double(0.0), Value::Double(-0.0));
    assert_ne!(Value::Float(1.0), Value::Double(1.0));
}

#[test]
fn big_integers_use_exactly_their_width() {
    for (n, bytes) in [
        (0i64, &[0x00][..]),
        (1, &[0x01]),
        (127, &[0x7f]),
        (128, &[0x00, 0x80]),
        (-1, &[0xff]),
        (-128, &[0x80]),
        (-129, &[0xff, 0x7f]),
        (-500, &[0xfe, 0x0c]),
        (500, &[0x01, 0xf4]),
    ] {
        let b = BigInteger::from(n);
        assert_eq!(b.as_bytes(), bytes, "{n}");
        assert_eq!(b.to_i64(), Some(n));
        assert_eq!(
            BigInteger::from_bytes(bytes.to_vec()).to_string(),
            n.to_string()
        );
    }
    // Non-minimal widths keep their bytes (and value).
    let wide = BigInteger::from_bytes(vec![0xff, 0xff, 0xfe, 0x0c]);
    assert_eq!(wide.to_i64(), Some(-500));
    let v = Value::BigInteger(wide);
    assert_eq!(
        round_trip(&v),
        [0x23, 0x00, 0, 0, 0, 4, 0xff, 0xff, 0xfe, 0x0c]
    );
    let huge: BigInt = "-123456789987654321123456789987654321".parse().unwrap();
    assert_eq!(BigInteger::from(&huge).to_bigint(), huge);
}

#[test]
fn big_decimals_render_like_java() {
    let d = |unscaled: i64, scale: i32| {
        BigDecimal {
            scale,
            unscaled: BigInteger::from(unscaled),
        }
        .to_java_string()
    };
    assert_eq!(d(1234, 2), "12.34");
    assert_eq!(d(1234, 0), "1234");
    assert_eq!(d(1234, -2), "1.234E+5");
    assert_eq!(d(-15, 1), "-1.5");
    assert_eq!(d(5, 3), "0.005");
    assert_eq!(d(5, 10), "5E-10");
    assert_eq!(d(0, 0), "0");
    assert_eq!(d(0, 2), "0.00");
    assert_eq!(d(123, 9), "1.23E-7");
}

fn vp(id: i64, key: &str, value: Value) -> VertexProperty {
    VertexProperty {
        id: Value::Long(id),
        label: vec![Arc::from(key)].into(),
        value,
        parent: Value::Null(0xfe),
        properties: Some(vec![Property {
            key: Arc::from("since"),
            value: Value::Int(2000),
            parent: Value::Null(0xfe),
        }]),
    }
}

#[test]
fn graphs_link_edge_vertex_labels_and_write_them_as_null() {
    let person: Arc<str> = Arc::from("person");
    let v = |id| Vertex {
        id: Value::Int(id),
        label: vec![person.clone()].into(),
        properties: Some(vec![vp(id as i64 * 10, "name", Value::from("x"))]),
    };
    let e = Edge {
        id: Value::Int(7),
        label: vec![Arc::from("knows")].into(),
        in_v_id: Value::Int(2),
        in_v_label: vec![person.clone()].into(),
        out_v_id: Value::Int(1),
        out_v_label: vec![person.clone()].into(),
        parent: Value::Null(0xfe),
        properties: Some(vec![]),
    };
    let g = Value::Graph(Box::new(Graph {
        vertices: vec![v(1), v(2)],
        edges: vec![e.clone()],
    }));
    let bytes = round_trip(&g);
    // The edge's vertex labels are written as FE 01, twice.
    let tail = &bytes[bytes.len() - 40..];
    assert!(
        tail.windows(2).filter(|w| w == &[0xfe, 0x01]).count() >= 3,
        "{tail:02x?}"
    );
    assert_eq!(g.to_string(), "graph[vertices:2 edges:1]");
    assert_eq!(Value::Edge(Box::new(e)).to_string(), "e[7][1-knows->2]");
}

#[test]
fn trees_nest_bare_subtrees_with_any_keys() {
    let t = Tree(vec![
        (
            Value::Null(0xfe),
            Tree(vec![(Value::Int(1), Tree::default())]),
        ),
        (Value::from("k"), Tree::default()),
    ]);
    let bytes = round_trip(&Value::Tree(t.clone()));
    assert_eq!(
        bytes,
        [
            0x2b, 0x00, 0, 0, 0, 2, 0xfe, 0x01, 0, 0, 0, 1, 0x01, 0x00, 0, 0, 0, 1, 0, 0, 0, 0,
            0x03, 0x00, 0, 0, 0, 1, b'k', 0, 0, 0, 0
        ]
    );
    assert_eq!(Value::Tree(t).to_string(), "[null:[1:[]], k:[]]");
}

#[test]
fn element_text_forms() {
    let v = Value::VertexProperty(Box::new(vp(1, "name", Value::from("marko"))));
    assert_eq!(v.to_string(), "vp[name->marko]");
    let p = Value::Property(Box::new(Property {
        key: Arc::from("weight"),
        value: Value::Double(0.5),
        parent: Value::Null(0xfe),
    }));
    assert_eq!(p.to_string(), "p[weight->0.5]");
    let vx = Value::Vertex(Box::new(Vertex {
        id: Value::Long(1),
        label: vec![].into(),
        properties: None,
    }));
    assert_eq!(vx.to_string(), "v[1]");
    assert_eq!(
        Value::List(vec![Value::Int(1), Value::from("b")]).to_string(),
        "[1, b]"
    );
}

#[test]
fn huge_bulks_are_not_expanded() {
    let v = Value::BulkList(vec![(Value::from("a"), i64::MAX), (Value::Int(1), 2)]);
    assert_eq!(v.to_string(), format!("[a×{}, 1×2]", i64::MAX));
    assert_eq!(
        to_graphson(&v),
        format!(
            r#"{{"@type":"g:BulkSet","@value":["a",{{"@type":"g:Int64","@value":{}}},{{"@type":"g:Int32","@value":1}},{{"@type":"g:Int64","@value":2}}]}}"#,
            i64::MAX
        )
    );
    // Small bulks still expand, and negative ones count as none.
    let v = Value::BulkList(vec![(Value::from("a"), 2), (Value::Int(1), -5)]);
    assert_eq!(v.to_string(), "[a, a]");
}

#[test]
fn a_graph_of_minimal_edges_decodes_exactly() {
    // No vertices; two edges whose every value is FE 01 and whose lists are empty (20 bytes
    // each): the smallest Graph edges there are.
    let mut bytes = vec![0x10, 0x00, 0, 0, 0, 0, 0, 0, 0, 2];
    for _ in 0..2 {
        bytes.extend([0xfe, 0x01, 0, 0, 0, 0]); // id, label
        bytes.extend([0xfe, 0x01, 0xfe, 0x01]); // inVId, inVLabel
        bytes.extend([0xfe, 0x01, 0xfe, 0x01]); // outVId, outVLabel
        bytes.extend([0xfe, 0x01, 0, 0, 0, 0]); // parent, properties
    }
    let v = Value::from_bytes(&bytes).unwrap();
    let Value::Graph(g) = &v else { panic!("{v:?}") };
    assert_eq!(g.edges.len(), 2);
    assert_eq!(v.to_bytes().unwrap(), bytes);
}
