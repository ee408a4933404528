//! GraphBinary 1 custom types (0x00) over responses captured from a real JanusGraph Server
//! 1.1.0 (`spec/vectors-v1/janusgraph-1.1.0.toml`, our own captures): without a reader the
//! response fails naming the type and offset; with `CustomTypes::janusgraph()` the edge and
//! vertex-property ids read as the server reported them, re-encode byte for byte, and read the
//! same on both paths however the bytes arrive. JanusGraph's Geoshape (every shape) and
//! JanusGraphP, written by our writer, read the same on both paths too, and fail cleanly at
//! every truncation and corruption.

use graphbinary_testkit::common;

use common::{block_on, Pieces};
use graphbinary_client::format::graphbinary1::{
    self as v1, CustomTypes, JanusVertexId, RelationIdentifier,
};
use graphbinary_client::value::Value;
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

/// The result data of a whole response message as a `ws://` client reads it (through the
/// public `decode_graphbinary1_response`): the List of its results, each of bulk 1.
fn decode(bytes: &[u8], custom: &CustomTypes) -> Result<Value, graphbinary_client::Error> {
    let results = graphbinary_client::client::decode_graphbinary1_response(
        bytes,
        &Limits::default(),
        custom,
    )?;
    Ok(Value::List(
        results
            .into_iter()
            .map(|(v, bulk)| {
                assert_eq!(bulk, 1, "an eval result");
                v
            })
            .collect(),
    ))
}

/// Where the result data starts: after the header, the two bare maps.
fn data_offset(bytes: &[u8]) -> usize {
    let data = decode(bytes, &CustomTypes::janusgraph()).unwrap();
    let mut out = Vec::new();
    v1::encode_value_with(&data, &mut out, &CustomTypes::janusgraph()).unwrap();
    bytes.len() - out.len()
}

#[test]
fn without_a_reader_a_custom_type_fails_naming_it_and_its_offset() {
    for (c, bytes) in captured() {
        // With JanusGraph's readers the ids read; with an empty registry the id is an error.
        decode(&bytes, &CustomTypes::janusgraph()).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let e = match decode(&bytes, &CustomTypes::new()) {
            Err(graphbinary_client::Error::Decode(e)) => e,
            other => panic!("{}: {other:?}", c.name),
        };
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
    assert_eq!(
        custom.names(),
        [
            "janusgraph.Geoshape",
            "janusgraph.P",
            "janusgraph.RelationIdentifier"
        ]
    );
    for (c, bytes) in captured() {
        let data =
            decode(&bytes, &custom).unwrap_or_else(|e| panic!("{} ({}): {e}", c.name, c.request));
        let mut found = Vec::new();
        ids(&data, &mut found);
        let want: Vec<_> = c.ids.iter().map(expected).collect();
        assert_eq!(found, want, "{}", c.name);
        // The result data re-encodes to the same bytes.
        let start = data_offset(&bytes);
        let mut out = Vec::new();
        v1::encode_value_with(&data, &mut out, &custom).unwrap();
        assert_eq!(out, bytes[start..], "{}: re-encoded data", c.name);
        // The edge's label and its vertices' labels are bare Strings in GraphBinary 1.
        if c.name == "edge" {
            let Value::List(items) = &data else { panic!() };
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
        let e = block_on(v1::read_value_with(&mut buf, &CustomTypes::new())).unwrap_err();
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

// ---------------------------------------------------------------------------------------------
// The derived RelationIdentifier on its own: `#[graphbinary(v1_custom = ..)]` with the leaf
// `JanusVertexId` and its sentinel.

use graphbinary_client::format::graphbinary1::{
    CustomValue, DerivedCustom, RelationIdentifierType,
};
use graphbinary_core::v1::{
    decode_custom_v1_body, encode_custom_v1_body, CustomV1, DecodeV1, EncodeV1, FqDecodeV1,
    FqEncodeV1, FqV1, V1,
};
use graphbinary_core::{Cursor, DecodeError, FastError};

fn rel(out: JanusVertexId, inv: Option<JanusVertexId>) -> RelationIdentifier {
    RelationIdentifier {
        out_vertex_id: out,
        type_id: 0x0c2d,
        relation_id: -7,
        in_vertex_id: inv,
    }
}

/// Every shape of id: Long and String vertex ids, with and without an in-vertex.
/// `r` written bare and fully qualified (as a custom value).
fn encoded(r: &RelationIdentifier) -> (Vec<u8>, Vec<u8>) {
    let mut bare = Vec::new();
    r.encode_v1(&mut bare).unwrap();
    let mut fq = Vec::new();
    r.encode_fq_v1(&mut fq).unwrap();
    (bare, fq)
}

fn shapes() -> Vec<RelationIdentifier> {
    use JanusVertexId::{Long, String as Str};
    vec![
        rel(Long(4104), Some(Long(8208))),
        rel(Long(4104), None),
        rel(Str("v-1".into()), Some(Str("w".into()))),
        rel(Long(-1), Some(Str("x".repeat(300)))),
        rel(Str("0123456789".into()), None),
    ]
}

fn fast_v1<T: DecodeV1>(bytes: &[u8], limits: &Limits) -> Result<T, FastError> {
    let mut cur = Cursor::new(bytes, 0, limits);
    let v = T::decode_v1(&mut cur)?;
    assert_eq!(cur.position(), bytes.len(), "fast path left bytes unread");
    Ok(v)
}

/// Reads a `T` (a `Decode`) through a buffer of `capacity` fed by `pieces`, both paths.
fn through<T: graphbinary_core::Decode>(
    pieces: Pieces,
    capacity: usize,
    fast: bool,
    limits: Limits,
) -> Result<T, DecodeError> {
    let mut buf = ReadBuffer::with_capacity(capacity, pieces)
        .with_fast_path(fast)
        .with_limits(limits);
    block_on(buf.read::<T>())
}

#[test]
fn derived_relation_identifiers_read_alike_on_both_paths_and_write_back() {
    let limits = Limits::default();
    for r in shapes() {
        let (bare, fq) = encoded(&r);
        // The whole custom value is `{0x00}{name}{info}{0x00}` then the bare one.
        let name = RelationIdentifier::NAME.as_bytes();
        assert_eq!(fq[0], 0x00);
        assert_eq!(&fq[1..5], &(name.len() as i32).to_be_bytes());
        assert_eq!(&fq[5..5 + name.len()], name);
        assert_eq!(&fq[5 + name.len()..9 + name.len()], &[0, 0, 0x10, 0x01]);
        assert_eq!(fq[9 + name.len()], 0x00);
        assert_eq!(&fq[10 + name.len()..], &bare[..]);
        // Fast path, whole; every proper prefix is "need more", never a value or an error.
        assert_eq!(fast_v1::<RelationIdentifier>(&bare, &limits).unwrap(), r);
        assert_eq!(
            <FqV1<RelationIdentifier> as DecodeV1>::decode_v1(&mut Cursor::new(&fq, 0, &limits))
                .unwrap()
                .0,
            r
        );
        for k in 0..bare.len() {
            assert!(
                matches!(
                    fast_v1::<RelationIdentifier>(&bare[..k], &limits),
                    Err(FastError::NeedMore(n)) if n > k
                ),
                "{r:?}: prefix {k}"
            );
        }
        // Slow and fast paths through tiny buffers, one byte per read and split at every byte.
        for fast in [true, false] {
            for capacity in [1, 2, 7, 16, 1 << 12] {
                let got: V1<RelationIdentifier> =
                    through(Pieces::chunks(&bare, 1), capacity, fast, limits).unwrap();
                assert_eq!(got.0, r, "capacity {capacity}, fast {fast}");
                let got: V1<FqV1<RelationIdentifier>> =
                    through(Pieces::chunks(&fq, 1), capacity, fast, limits).unwrap();
                assert_eq!(got.0 .0, r, "fq, capacity {capacity}, fast {fast}");
            }
            for split in 1..fq.len() {
                let got: V1<FqV1<RelationIdentifier>> =
                    through(Pieces::split(&fq, &[split]), 64, fast, limits).unwrap();
                assert_eq!(got.0 .0, r, "split {split}, fast {fast}");
            }
        }
        // Through the registry, derived and named alike, as the `Value` of today.
        let custom = CustomTypes::new().with_derived::<RelationIdentifier>();
        let value = v1::decode_slice_with(&fq, &limits, &custom).unwrap();
        assert_eq!(value, r.to_value());
        assert_eq!(
            <RelationIdentifier as CustomValue>::from_value(&value),
            Some(r.clone())
        );
        let mut out = Vec::new();
        v1::encode_value_with(&value, &mut out, &CustomTypes::janusgraph()).unwrap();
        assert_eq!(out, fq);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        RelationIdentifierType.encode(&value, &mut a).unwrap();
        DerivedCustom::<RelationIdentifier>::new()
            .encode(&value, &mut b)
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(&a[..], &fq[5 + name.len()..]);
    }
}

use graphbinary_client::format::graphbinary1::CustomType as _;

#[test]
fn derived_relation_identifiers_fail_cleanly_at_every_byte() {
    let limits = Limits::default();
    for r in shapes() {
        let (_, fq) = encoded(&r);
        // Every truncation: "need more" on the fast path, an end-of-stream error at the end
        // on the slow path, never a panic.
        for end in 0..fq.len() {
            for fast in [true, false] {
                let e = through::<V1<FqV1<RelationIdentifier>>>(
                    Pieces::chunks(&fq[..end], 1),
                    8,
                    fast,
                    limits,
                )
                .unwrap_err();
                assert_eq!(e.offset(), end as u64, "{r:?}: end {end}, fast {fast}: {e}");
            }
        }
    }
    // A bad marker is an error at the marker, on both paths.
    let r = rel(JanusVertexId::Long(1), Some(JanusVertexId::Long(2)));
    let mut bare = Vec::new();
    r.encode_v1(&mut bare).unwrap();
    for (at, what) in [(0, "out"), (25, "in")] {
        let mut bad = bare.clone();
        bad[at] = 7;
        let Err(FastError::Invalid(e)) = fast_v1::<RelationIdentifier>(&bad, &limits) else {
            panic!("{what}: accepted marker 7")
        };
        assert_eq!(e.offset(), at as u64, "{e}");
        assert!(
            e.to_string()
                .contains("marker 7, expected 0 (Long) or 1 (String)"),
            "{e}"
        );
        for fast in [true, false] {
            let e = through::<V1<RelationIdentifier>>(Pieces::chunks(&bad, 1), 4, fast, limits)
                .unwrap_err();
            assert_eq!(e.offset(), at as u64, "{what}, fast {fast}: {e}");
        }
    }
    // A string id never terminated: at most `max_bytes_len` bytes are looked at or kept, and
    // the error names the marker's offset, on both paths (whatever the buffer holds).
    let small = Limits {
        max_bytes_len: 16,
        ..Limits::default()
    };
    let mut hostile = vec![0x01];
    hostile.extend(std::iter::repeat_n(b'a', 10_000));
    for fast in [true, false] {
        for capacity in [4, 64, 1 << 14] {
            let e =
                through::<V1<JanusVertexId>>(Pieces::chunks(&hostile, 3), capacity, fast, small)
                    .unwrap_err();
            assert_eq!(e.offset(), 0, "capacity {capacity}, fast {fast}: {e}");
            assert!(e.to_string().contains("max_bytes_len (16)"), "{e}");
        }
    }
    let Err(FastError::Invalid(e)) = fast_v1::<JanusVertexId>(&hostile, &small) else {
        panic!("fast path accepted an unterminated string id")
    };
    assert_eq!(e.offset(), 0);
    // Sixteen bytes, the last one terminating, are still an id.
    let mut ok = vec![0x01];
    ok.extend([b'a'; 15]);
    ok.push(b'b' | 0x80);
    assert_eq!(
        fast_v1::<JanusVertexId>(&ok, &small).unwrap(),
        JanusVertexId::String(format!("{}b", "a".repeat(15)))
    );
    // The custom type info is checked, at its offset; a null reads as a null custom value.
    let mut body = Vec::new();
    encode_custom_v1_body(Some(&r), &mut body).unwrap();
    body[3] = 0x02;
    let Err(FastError::Invalid(e)) =
        decode_custom_v1_body::<RelationIdentifier>(&mut Cursor::new(&body, 0, &limits))
    else {
        panic!("accepted custom type info 0x1002")
    };
    assert_eq!(e.offset(), 0);
    assert!(e.to_string().contains("0x1002, expected 0x1001"), "{e}");
    let mut null = Vec::new();
    encode_custom_v1_body::<RelationIdentifier, _>(None, &mut null).unwrap();
    assert_eq!(null, [0, 0, 0x10, 0x01, 0x01]);
    assert_eq!(
        RelationIdentifierType
            .decode(&mut Cursor::new(&null, 0, &limits))
            .unwrap(),
        Value::Null(0x00)
    );
    // The whole form is non-null and names its type.
    let mut fq_null = vec![0x00];
    fq_null.extend((RelationIdentifier::NAME.len() as i32).to_be_bytes());
    fq_null.extend(RelationIdentifier::NAME.as_bytes());
    fq_null.extend(&null);
    let Err(FastError::Invalid(e)) =
        <RelationIdentifier as FqDecodeV1>::decode_fq_v1(&mut Cursor::new(&fq_null, 0, &limits))
    else {
        panic!("a null in a non-null slot")
    };
    assert_eq!(e.offset(), fq_null.len() as u64 - 1);
    let mut other = fq_null.clone();
    other[5] = b'J';
    let Err(FastError::Invalid(e)) =
        <RelationIdentifier as FqDecodeV1>::decode_fq_v1(&mut Cursor::new(&other, 0, &limits))
    else {
        panic!("accepted another type's name")
    };
    assert_eq!(e.offset(), 1);
    assert!(
        e.to_string().contains("\"Janusgraph.RelationIdentifier\""),
        "{e}"
    );
    assert_eq!(<RelationIdentifier as CustomV1>::CUSTOM_INFO, 0x1001);
}

#[test]
fn what_would_not_read_back_is_not_written() {
    // `Some` of the sentinel would read back as `None`.
    let r = rel(JanusVertexId::Long(3), Some(JanusVertexId::Long(0)));
    assert!(r.encode_v1(&mut Vec::new()).is_err());
    // A string id is non-empty ASCII.
    for s in ["", "é"] {
        let r = rel(JanusVertexId::String(s.into()), None);
        assert!(r.encode_v1(&mut Vec::new()).is_err(), "{s:?}");
    }
    // A value of another type is no RelationIdentifier.
    assert!(DerivedCustom::<RelationIdentifier>::new()
        .encode(&Value::Long(1), &mut Vec::new())
        .is_err());
}

/// A List of every Geoshape kind and two JanusGraphPs, written by our writer.
fn geo_data() -> (Value, Vec<u8>) {
    use graphbinary_client::format::graphbinary1::{Geoshape, JanusGraphP};
    let ring = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0)];
    let shapes = vec![
        Geoshape::point(37.97, 23.72),
        Geoshape::circle(37.97, 23.72, 50.0),
        Geoshape::box_(37.0, 23.0, 38.5, 24.5),
        Geoshape::line([(1.0, 2.0), (3.0, 4.0)]),
        Geoshape::polygon(ring),
        Geoshape::multi_point([(1.0, 2.0)]),
        Geoshape::multi_line([vec![(1.0, 2.0), (3.0, 4.0)]]),
        Geoshape::multi_polygon([ring.to_vec(), ring.to_vec()]),
        Geoshape::collection([Geoshape::point(1.0, 2.0), Geoshape::polygon(ring)]),
    ];
    let mut items: Vec<Value> = shapes.iter().map(Geoshape::to_value).collect();
    items.push(
        JanusGraphP::new("textContainsFuzzy", "athens")
            .unwrap()
            .to_value(),
    );
    items.push(
        JanusGraphP::new("geoWithin", Geoshape::circle(1.0, 2.0, 3.0))
            .unwrap()
            .to_value(),
    );
    let value = Value::List(items);
    let mut bytes = Vec::new();
    v1::encode_value_with(&value, &mut bytes, &CustomTypes::janusgraph()).unwrap();
    (value, bytes)
}

#[test]
fn geoshapes_and_janusgraph_predicates_read_the_same_on_both_paths_however_they_arrive() {
    let custom = CustomTypes::janusgraph();
    let (value, data) = geo_data();
    assert_eq!(
        v1::decode_slice_with(&data, &Limits::default(), &custom).unwrap(),
        value
    );
    for fast in [true, false] {
        for split in 0..data.len() {
            let pieces = if split == 0 {
                Pieces::chunks(&data, 1)
            } else {
                Pieces::split(&data, &[split])
            };
            let mut buf = ReadBuffer::with_capacity(1 << 12, pieces).with_fast_path(fast);
            let v = block_on(v1::read_value_with(&mut buf, &custom))
                .unwrap_or_else(|e| panic!("split {split}, fast {fast}: {e}"));
            assert_eq!(v, value, "split {split}, fast {fast}");
        }
    }
    // Without the registry both paths fail naming the first one.
    let mut buf = ReadBuffer::new(&data[..]).with_fast_path(false);
    let e = block_on(v1::read_value_with(&mut buf, &CustomTypes::new())).unwrap_err();
    assert!(e.kind().to_string().contains("janusgraph.Geoshape"), "{e}");
}

#[test]
fn hostile_geoshapes_fail_cleanly() {
    let custom = CustomTypes::janusgraph();
    let (_, data) = geo_data();
    for end in 0..data.len() {
        let e = v1::decode_slice_with(&data[..end], &Limits::default(), &custom).unwrap_err();
        assert_eq!(e.offset(), end as u64);
    }
    // No corruption of any byte panics or hangs; a read that succeeds re-encodes.
    for at in 0..data.len() {
        for b in [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff] {
            let mut bad = data.clone();
            bad[at] = b;
            if let Ok(v) = v1::decode_slice_with(&bad, &Limits::default(), &custom) {
                let _ = v1::encode_value_with(&v, &mut Vec::new(), &custom);
            }
        }
    }
}
