//! GraphBinary 1 custom types (0x00) over responses captured from a real JanusGraph Server
//! 1.1.0 (`spec/vectors-v1/janusgraph-1.1.0.toml`, our own captures): without a reader the
//! response fails naming the type and offset; with `CustomTypes::janusgraph()` the edge and
//! vertex-property ids read as the server reported them, re-encode byte for byte, and read the
//! same on both paths however the bytes arrive.

mod common;

use common::{block_on, Pieces};
use graphbinary_client::model::Value;
use graphbinary_client::v1::{self, CustomTypes, JanusVertexId, RelationIdentifier};
use graphbinary_core::{Limits, ReadBuffer};
use serde::Deserialize;

#[derive(Deserialize)]
struct File {
    response: Vec<Captured>,
}

#[derive(Deserialize)]
struct Captured {
    name: String,
    request: String,
    ids: Vec<[i64; 4]>,
    hex: String,
}

fn captured() -> Vec<(Captured, Vec<u8>)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/vectors-v1/janusgraph-1.1.0.toml"
    ))
    .unwrap();
    let file: File = toml::from_str(&text).unwrap();
    assert_eq!(file.response.len(), 3);
    file.response
        .into_iter()
        .map(|c| {
            let bytes = c
                .hex
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).unwrap())
                .collect();
            (c, bytes)
        })
        .collect()
}

/// Every RelationIdentifier inside `v`, depth first.
fn ids(v: &Value, out: &mut Vec<RelationIdentifier>) {
    if let Some(r) = RelationIdentifier::from_value(v) {
        out.push(r);
        return;
    }
    match v {
        Value::List(items) | Value::Set(items) => items.iter().for_each(|i| ids(i, out)),
        Value::Map(entries) => entries.iter().for_each(|(k, v)| {
            ids(k, out);
            ids(v, out)
        }),
        Value::Edge(e) => ids(&e.id, out),
        _ => {}
    }
}

fn expected(id: &[i64; 4]) -> RelationIdentifier {
    RelationIdentifier {
        out_vertex_id: JanusVertexId::Long(id[0]),
        type_id: id[1],
        relation_id: id[2],
        in_vertex_id: (id[3] != 0).then_some(JanusVertexId::Long(id[3])),
    }
}

/// Where the result data starts: after the header, the two bare maps.
fn data_offset(bytes: &[u8]) -> usize {
    let msg =
        v1::decode_response_with(bytes, &Limits::default(), &CustomTypes::janusgraph()).unwrap();
    let mut data = Vec::new();
    v1::encode_value_with(&msg.data, &mut data, &CustomTypes::janusgraph()).unwrap();
    bytes.len() - data.len()
}

#[test]
fn without_a_reader_a_custom_type_fails_naming_it_and_its_offset() {
    for (c, bytes) in captured() {
        let e = v1::decode_response(&bytes, &Limits::default()).unwrap_err();
        let text = e.kind().to_string();
        assert!(
            text.contains("\"janusgraph.RelationIdentifier\""),
            "{}: {text}",
            c.name
        );
        assert_eq!(
            bytes[e.offset() as usize],
            0x00,
            "{}: offset of the 0x00",
            c.name
        );
        assert!(text.contains(&format!("offset {}", e.offset())), "{text}");
    }
}

#[test]
fn janusgraph_ids_read_as_the_server_reported_them_and_re_encode_byte_for_byte() {
    let custom = CustomTypes::janusgraph();
    assert_eq!(custom.names(), ["janusgraph.RelationIdentifier"]);
    for (c, bytes) in captured() {
        let msg = v1::decode_response_with(&bytes, &Limits::default(), &custom)
            .unwrap_or_else(|e| panic!("{} ({}): {e}", c.name, c.request));
        assert_eq!(msg.status, 200);
        let mut found = Vec::new();
        ids(&msg.data, &mut found);
        let want: Vec<_> = c.ids.iter().map(expected).collect();
        assert_eq!(found, want, "{}", c.name);
        // The result data re-encodes to the same bytes.
        let start = data_offset(&bytes);
        let mut out = Vec::new();
        v1::encode_value_with(&msg.data, &mut out, &custom).unwrap();
        assert_eq!(out, bytes[start..], "{}: re-encoded data", c.name);
        // The edge's label and its vertices' labels are bare Strings in GraphBinary 1.
        if c.name == "edge" {
            let Value::List(items) = &msg.data else {
                panic!()
            };
            let Value::Edge(e) = &items[0] else { panic!() };
            assert_eq!(
                (&*e.label[0], &*e.in_v_label[0], &*e.out_v_label[0]),
                ("created", "software", "person")
            );
        }
    }
}

#[test]
fn janusgraph_data_reads_the_same_on_both_paths_however_it_arrives() {
    let custom = CustomTypes::janusgraph();
    for (c, bytes) in captured() {
        let data = &bytes[data_offset(&bytes)..];
        let expected = v1::decode_slice_with(data, &Limits::default(), &custom).unwrap();
        for fast in [true, false] {
            for split in 0..data.len() {
                let pieces = if split == 0 {
                    Pieces::chunks(data, 1)
                } else {
                    Pieces::split(data, &[split])
                };
                let mut buf = ReadBuffer::with_capacity(1 << 12, pieces).with_fast_path(fast);
                let v = block_on(v1::read_value_with(&mut buf, &custom))
                    .unwrap_or_else(|e| panic!("{}: split {split}, fast {fast}: {e}", c.name));
                assert_eq!(v, expected, "{}: split {split}, fast {fast}", c.name);
            }
        }
        // Without the registry the slow path fails the same way as the fast one.
        let mut buf = ReadBuffer::new(data).with_fast_path(false);
        let e = block_on(v1::read_value(&mut buf)).unwrap_err();
        assert!(
            e.kind()
                .to_string()
                .contains("janusgraph.RelationIdentifier"),
            "{e}"
        );
    }
}

#[test]
fn hostile_relation_identifiers_fail_cleanly() {
    let custom = CustomTypes::janusgraph();
    let (_, bytes) = captured().remove(1);
    let data = &bytes[data_offset(&bytes)..];
    // Every truncation: an error at the end, never a panic.
    for end in 0..data.len() {
        let e = v1::decode_slice_with(&data[..end], &Limits::default(), &custom).unwrap_err();
        assert_eq!(e.offset(), end as u64);
    }
    // No corruption of any byte panics or hangs, with or without the registry.
    for at in 0..data.len() {
        for b in [0x00, 0x01, 0x7f, 0x80, 0xff] {
            let mut bad = data.to_vec();
            bad[at] = b;
            let _ = v1::decode_slice_with(&bad, &Limits::default(), &custom);
            let _ = v1::decode_slice(&bad, &Limits::default());
        }
    }
    // The custom type info and the markers are checked.
    let info_at = data
        .windows(4)
        .position(|w| w == [0, 0, 0x10, 0x01])
        .unwrap();
    let mut bad = data.to_vec();
    bad[info_at + 3] = 0x02;
    let e = v1::decode_slice_with(&bad, &Limits::default(), &custom).unwrap_err();
    assert!(e.to_string().contains("expected 0x1001"), "{e}");
    assert_eq!(e.offset(), info_at as u64);
    let mut bad = data.to_vec();
    bad[info_at + 5] = 7; // the out-vertex id's marker
    let e = v1::decode_slice_with(&bad, &Limits::default(), &custom).unwrap_err();
    assert!(e.to_string().contains("marker 7"), "{e}");
    // A string vertex id (JanusGraph's custom string ids) reads and writes back.
    let r = RelationIdentifier {
        out_vertex_id: JanusVertexId::String("v-1".into()),
        type_id: 5,
        relation_id: 6,
        in_vertex_id: Some(JanusVertexId::String("w".into())),
    };
    let mut out = Vec::new();
    v1::encode_value_with(&r.to_value(), &mut out, &custom).unwrap();
    let back = v1::decode_slice_with(&out, &Limits::default(), &custom).unwrap();
    assert_eq!(RelationIdentifier::from_value(&back), Some(r));
    // Without the registry a RelationIdentifier value has no GraphBinary 1 writer.
    assert!(v1::encode_value(&back, &mut Vec::new()).is_err());
}
