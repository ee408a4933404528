//! The serde deserializer (`graphbinary_client::format::de`) and the non-building walker
//! (`model::skip_value`): agreement with the `Value` route on every vector, user types of every
//! shape, every split point on both paths, and bad input as errors with offsets.

use crate::generated::spec_vectors;
use graphbinary_testkit::common;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use common::{block_on, gbin_vectors, shared_dir};
use futures::StreamExt;
use graphbinary_client::format::de::{from_slice, from_value};
use graphbinary_client::format::graphbinary4::skip_value;
use graphbinary_client::graphbinary_core::testing::ChunkedReader;
use graphbinary_client::response::{read_response, ReadOptions};
use graphbinary_client::value::{
    Direction, Edge, Labels, Path, Property, Value, Vertex, VertexProperty, T,
};
use graphbinary_core::{Cursor, FastError, FqEncode, Limits, Set};
use serde::de::IgnoredAny;
use serde::Deserialize;
use spec_vectors::{SPEC_RESPONSES, SPEC_VECTORS};

/// Every value vector: ours and (when present) TinkerPop's canonical ones.
fn all_vectors() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = SPEC_VECTORS
        .iter()
        .map(|s| (s.name.to_owned(), s.bytes.to_vec()))
        .collect();
    if let Some(dir) = shared_dir("serde_de") {
        v.extend(gbin_vectors(&dir));
    }
    v
}

fn skip_all(bytes: &[u8]) -> Result<usize, String> {
    let limits = ReadOptions::default().limits;
    let mut cur = Cursor::new(bytes, 0, &limits);
    match skip_value(&mut cur) {
        Ok(()) => Ok(cur.position()),
        Err(FastError::NeedMore(n)) => Err(format!("need more ({n})")),
        Err(FastError::Invalid(e)) => Err(e.to_string()),
    }
}

#[test]
fn every_vector_agrees_with_the_value_route() {
    let vectors = all_vectors();
    assert!(vectors.len() >= 50, "{} vectors", vectors.len());
    let mut failures = Vec::new();
    let mut json_compared = 0;
    for (name, bytes) in &vectors {
        let expected = Value::from_bytes(bytes);
        let ours = from_slice::<Value>(bytes);
        match (&expected, &ours) {
            (Ok(a), Ok(b)) if a == b => {}
            (Err(_), Err(_)) => {}
            _ => failures.push(format!("{name}: Value {expected:?} vs serde {ours:?}")),
        }
        let ignored = from_slice::<IgnoredAny>(bytes);
        if ignored.is_ok() != expected.is_ok() {
            failures.push(format!("{name}: IgnoredAny {ignored:?} vs {expected:?}"));
        }
        match skip_all(bytes) {
            Ok(n) if expected.is_ok() && n == bytes.len() => {}
            Err(_) if expected.is_err() => {}
            other => failures.push(format!("{name}: skip_value {other:?} vs {expected:?}")),
        }
        // Serialize(Value) and the deserializer's shapes agree.
        if let Ok(v) = &expected {
            let via_ser = serde_json::to_value(v);
            let via_de = from_slice::<serde_json::Value>(bytes);
            if let (Ok(a), Ok(b)) = (&via_ser, &via_de) {
                json_compared += 1;
                if a != b && f32_rounded(a) != f32_rounded(b) {
                    failures.push(format!("{name}: Serialize {a} vs deserialize {b}"));
                }
            }
            // from_value takes the same route.
            match from_value::<serde_json::Value>(v) {
                Ok(j) if via_de.as_ref().ok() == Some(&j) => {}
                Err(_) if via_de.is_err() => {}
                other => failures.push(format!("{name}: from_value {other:?} vs {via_de:?}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(json_compared >= 40, "only {json_compared} compared as JSON");
}

/// Numbers rounded to f32 (a Float serializes as its shortest f32 text, but is visited as the
/// f64 of that f32).
fn f32_rounded(j: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match j {
        J::Number(n) => J::from(n.as_f64().map(|f| f as f32 as f64).unwrap_or(0.0)),
        J::Array(a) => J::Array(a.iter().map(f32_rounded).collect()),
        J::Object(o) => J::Object(o.iter().map(|(k, v)| (k.clone(), f32_rounded(v))).collect()),
        other => other.clone(),
    }
}

#[test]
fn every_truncation_is_an_error_naming_an_offset_within_the_input() {
    for (name, bytes) in all_vectors() {
        if Value::from_bytes(&bytes).is_err() {
            continue;
        }
        for cut in 0..bytes.len() {
            let part = &bytes[..cut];
            let e = from_slice::<serde_json::Value>(part)
                .err()
                .unwrap_or_else(|| panic!("{name} cut at {cut} decoded"));
            let at = e.offset().expect("an offset");
            assert!(at <= cut as u64, "{name} cut {cut}: offset {at}");
            assert!(from_slice::<Value>(part).is_err(), "{name} cut {cut}");
            assert!(from_slice::<IgnoredAny>(part).is_err(), "{name} cut {cut}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Builders

fn bytes_of(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    v.encode_fq(&mut out).unwrap();
    out
}

fn s(x: &str) -> Value {
    Value::String(x.into())
}

fn labels(x: &str) -> Labels {
    Labels::from(Arc::<str>::from(x))
}

fn element_map(id: i64, name: &str, age: i32) -> Value {
    Value::Map(vec![
        (Value::T(T::Id), Value::Long(id)),
        (Value::T(T::Label), s("person")),
        (s("name"), s(name)),
        (s("age"), Value::Int(age)),
    ])
}

fn vertex(id: i64) -> Value {
    let vp = |pid: i64, key: &str, value: Value| VertexProperty {
        id: Value::Long(pid),
        label: labels(key),
        value,
        parent: Value::Null(0xfe),
        properties: None,
    };
    Value::Vertex(Box::new(Vertex {
        id: Value::Long(id),
        label: labels("person"),
        properties: Some(vec![
            vp(id * 10, "name", s("marko")),
            vp(id * 10 + 1, "age", Value::Int(29)),
        ]),
    }))
}

// ---------------------------------------------------------------------------------------------
// User types

#[derive(Debug, PartialEq, Deserialize, Clone)]
struct Person {
    id: i64,
    label: String,
    name: String,
    age: i32,
}

#[test]
fn element_maps_into_structs_and_hash_maps() {
    let b = bytes_of(&element_map(1, "marko", 29));
    let p: Person = from_slice(&b).unwrap();
    assert_eq!(
        p,
        Person {
            id: 1,
            label: "person".into(),
            name: "marko".into(),
            age: 29
        }
    );
    let m: HashMap<String, serde_json::Value> = from_slice(&b).unwrap();
    assert_eq!(m["id"], 1);
    assert_eq!(m["name"], "marko");

    #[derive(Deserialize)]
    struct Borrowing<'a> {
        name: &'a str,
        #[serde(borrow)]
        label: Cow<'a, str>,
    }
    let p: Borrowing = from_slice(&b).unwrap();
    assert_eq!(p.name, "marko");
    assert!(matches!(p.label, Cow::Borrowed("person")));
    // The borrowed str points into the input.
    let range = b.as_ptr_range();
    assert!(range.contains(&p.name.as_ptr()));
}

#[test]
fn a_missing_field_or_a_wrong_type_names_offset_and_path() {
    #[derive(Debug, Deserialize)]
    struct Wants {
        #[allow(dead_code)]
        height: i32,
    }
    let b = bytes_of(&element_map(1, "marko", 29));
    let e = from_slice::<Wants>(&b).unwrap_err();
    assert_eq!(e.offset(), Some(0));
    assert!(e.to_string().contains("missing field `height`"), "{e}");

    #[derive(Debug, Deserialize)]
    struct WrongAge {
        #[allow(dead_code)]
        age: String,
    }
    let e = from_slice::<WrongAge>(&b).unwrap_err();
    let age_at = b.len() as u64 - 6;
    assert_eq!(e.offset(), Some(age_at));
    assert_eq!(e.path(), ".age");
    assert!(!e.is_malformed());
    assert!(e.to_string().contains("invalid type: integer `29`"), "{e}");
    // As a DecodeError (what the streams report).
    let d = e.into_decode_error();
    assert_eq!(d.offset(), age_at);
    assert!(d.to_string().contains("in .age"), "{d}");

    // Nested: a list index and a key.
    let v = Value::List(vec![element_map(1, "a", 1), element_map(2, "b", -1)]);
    #[derive(Debug, Deserialize)]
    struct Unsigned {
        #[allow(dead_code)]
        age: u8,
    }
    let e = from_slice::<Vec<Unsigned>>(&bytes_of(&v)).unwrap_err();
    assert_eq!(e.path(), "[1].age");
    assert!(
        e.to_string()
            .contains("invalid value: integer `-1`, expected u8"),
        "{e}"
    );
}

#[test]
fn numeric_widths_are_checked_never_truncated() {
    assert_eq!(
        from_slice::<i8>(&bytes_of(&Value::Long(-128))).unwrap(),
        -128
    );
    assert!(from_slice::<i8>(&bytes_of(&Value::Long(128))).is_err());
    assert!(from_slice::<u32>(&bytes_of(&Value::Int(-1))).is_err());
    assert!(from_slice::<i64>(&bytes_of(&Value::Double(1.5))).is_err());
    assert!(from_slice::<i32>(&bytes_of(&Value::Double(1.0))).is_err());
    assert_eq!(
        from_slice::<f32>(&bytes_of(&Value::Double(0.5))).unwrap(),
        0.5
    );
    let e = from_slice::<f32>(&bytes_of(&Value::Double(0.1))).unwrap_err();
    assert!(e.to_string().contains("does not fit an f32 exactly"), "{e}");
    assert_eq!(
        from_slice::<f64>(&bytes_of(&Value::Long(1 << 53))).unwrap(),
        9007199254740992.0
    );
    assert!(from_slice::<f64>(&bytes_of(&Value::Long((1 << 53) + 1))).is_err());
    assert!(from_slice::<f64>(&bytes_of(&Value::Long(i64::MAX))).is_err());
    assert_eq!(
        from_slice::<f64>(&bytes_of(&Value::Float(0.1))).unwrap(),
        f64::from(0.1f32)
    );
    assert_eq!(from_slice::<i64>(&bytes_of(&Value::Short(-3))).unwrap(), -3);
    let big = graphbinary_client::value::BigInteger::from(i64::MAX);
    assert_eq!(
        from_slice::<u64>(&bytes_of(&Value::BigInteger(big))).unwrap(),
        i64::MAX as u64
    );
    let huge =
        graphbinary_client::value::BigInteger::from_bytes(vec![0x01, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(
        from_slice::<u128>(&bytes_of(&Value::BigInteger(huge.clone()))).unwrap(),
        1 << 64
    );
    assert!(from_slice::<u64>(&bytes_of(&Value::BigInteger(huge))).is_err());
}

#[test]
fn typed_nulls_are_none_and_enums_go_by_name() {
    assert_eq!(from_slice::<Option<i32>>(&[0x01, 0x01]).unwrap(), None);
    assert_eq!(from_slice::<Option<String>>(&[0xfe, 0x01]).unwrap(), None);
    assert_eq!(
        from_slice::<Option<i32>>(&bytes_of(&Value::Int(3))).unwrap(),
        Some(3)
    );
    assert!(from_slice::<i32>(&[0x01, 0x01]).is_err());

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "UPPERCASE")]
    enum Dir {
        Out,
        In,
        Both,
    }
    let d = from_slice::<Dir>(&bytes_of(&Value::Direction(Direction::In))).unwrap();
    assert_eq!(d, Dir::In);
    assert_eq!(from_slice::<Dir>(&bytes_of(&s("BOTH"))).unwrap(), Dir::Both);
    assert!(from_slice::<Dir>(&bytes_of(&s("UP"))).is_err());

    #[derive(Debug, PartialEq, Deserialize)]
    enum Shape {
        Circle(f64),
        Rect { w: i32, h: i32 },
    }
    let circle = Value::Map(vec![(s("Circle"), Value::Double(2.0))]);
    assert_eq!(
        from_slice::<Shape>(&bytes_of(&circle)).unwrap(),
        Shape::Circle(2.0)
    );
    let rect = Value::Map(vec![(
        s("Rect"),
        Value::Map(vec![(s("w"), Value::Int(1)), (s("h"), Value::Int(2))]),
    )]);
    assert_eq!(
        from_slice::<Shape>(&bytes_of(&rect)).unwrap(),
        Shape::Rect { w: 1, h: 2 }
    );
    // T keys are their names.
    let m: BTreeMap<String, i64> = from_slice(&bytes_of(&Value::Map(vec![(
        Value::T(T::Id),
        Value::Long(4),
    )])))
    .unwrap();
    assert_eq!(m["id"], 4);
}

#[derive(Debug, PartialEq, Deserialize)]
struct Vp {
    id: i64,
    label: String,
    value: serde_json::Value,
}

#[derive(Debug, PartialEq, Deserialize)]
struct V {
    id: i64,
    label: String,
    properties: Option<Vec<Vp>>,
}

#[test]
fn elements_are_structs_with_their_fields() {
    let v: V = from_slice(&bytes_of(&vertex(1))).unwrap();
    assert_eq!(v.id, 1);
    assert_eq!(v.label, "person");
    let props = v.properties.unwrap();
    assert_eq!(props.len(), 2);
    assert_eq!(props[0].label, "name");
    assert_eq!(props[0].value, "marko");
    assert_eq!(props[1].value, 29);

    // A reference vertex (properties null) and labels as a list.
    let bare = Value::Vertex(Box::new(Vertex {
        id: Value::Int(7),
        label: Labels::from(vec![Arc::from("a"), Arc::from("b")]),
        properties: None,
    }));
    #[derive(Debug, Deserialize)]
    struct Multi {
        label: Vec<String>,
        properties: Option<Vec<Vp>>,
    }
    let m: Multi = from_slice(&bytes_of(&bare)).unwrap();
    assert_eq!(m.label, ["a", "b"]);
    assert!(m.properties.is_none());
    let e = from_slice::<V>(&bytes_of(&bare)).unwrap_err();
    assert!(
        e.to_string()
            .contains("2 labels where one String was expected"),
        "{e}"
    );
    assert_eq!(e.path(), ".label");

    let edge = Value::Edge(Box::new(Edge {
        id: Value::Long(9),
        label: labels("knows"),
        in_v_id: Value::Long(2),
        in_v_label: labels("person"),
        out_v_id: Value::Long(1),
        out_v_label: labels("person"),
        parent: Value::Null(0xfe),
        properties: Some(vec![Property {
            key: Arc::from("weight"),
            value: Value::Double(0.5),
            parent: Value::Null(0xfe),
        }]),
    }));
    #[derive(Debug, PartialEq, Deserialize)]
    struct P {
        key: String,
        value: f64,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct E {
        id: i64,
        label: String,
        in_v_id: i64,
        out_v_id: i64,
        out_v_label: String,
        properties: Vec<P>,
    }
    let e: E = from_slice(&bytes_of(&edge)).unwrap();
    assert_eq!(
        e,
        E {
            id: 9,
            label: "knows".into(),
            in_v_id: 2,
            out_v_id: 1,
            out_v_label: "person".into(),
            properties: vec![P {
                key: "weight".into(),
                value: 0.5
            }],
        }
    );

    let path = Value::Path(Box::new(Path {
        labels: vec![Set(vec![Arc::from("a")]), Set(vec![])],
        objects: vec![vertex(1), s("x")],
    }));
    #[derive(Debug, Deserialize)]
    struct Pth {
        labels: Vec<Vec<String>>,
        objects: (V, String),
    }
    let p: Pth = from_slice(&bytes_of(&path)).unwrap();
    assert_eq!(p.labels, vec![vec!["a".to_owned()], vec![]]);
    assert_eq!(p.objects.0.id, 1);
    assert_eq!(p.objects.1, "x");

    // Fields a struct does not name are stepped over (and still checked).
    #[derive(Debug, Deserialize)]
    struct JustId {
        id: i64,
    }
    assert_eq!(from_slice::<JustId>(&bytes_of(&edge)).unwrap().id, 9);
    assert_eq!(from_slice::<JustId>(&bytes_of(&vertex(3))).unwrap().id, 3);
}

#[test]
fn bulked_lists_repeat_items_and_sequences_are_not_truncated() {
    let v = Value::BulkList(vec![(s("a"), 2), (s("b"), 0), (s("c"), 1)]);
    let got: Vec<String> = from_slice(&bytes_of(&v)).unwrap();
    assert_eq!(got, ["a", "a", "c"]);
    let three = Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)]);
    let e = from_slice::<(i32, i32)>(&bytes_of(&three)).unwrap_err();
    assert!(e.to_string().contains("took 2 of the 3 items"), "{e}");
    assert!(from_slice::<[i32; 3]>(&bytes_of(&three)).is_ok());
}

#[test]
fn values_inside_user_types_keep_every_detail() {
    #[derive(Debug, Deserialize)]
    struct Holder {
        id: Value,
        name: Value,
    }
    let b = bytes_of(&element_map(5, "x", 1));
    let h: Holder = from_slice(&b).unwrap();
    assert_eq!(h.id, Value::Long(5));
    assert_eq!(h.name, s("x"));
    // Typed nulls keep their type code; Sets stay Sets.
    let v = Value::List(vec![Value::Null(0x03), Value::Set(vec![Value::Int(1)])]);
    assert_eq!(from_slice::<Value>(&bytes_of(&v)).unwrap(), v);
    // From another deserializer, a Value is built from serde's data model.
    let j: Value = serde_json::from_str(r#"{"a":[true,"x",null]}"#).unwrap();
    assert_eq!(
        j,
        Value::Map(vec![(
            s("a"),
            Value::List(vec![Value::Boolean(true), s("x"), Value::Null(0xfe)])
        )])
    );
}

#[test]
fn hostile_input_is_an_error_never_a_panic_or_an_allocation() {
    // A List claiming a million items in 6 bytes: "need more" on the fast path, EOF here.
    let huge = [0x09, 0x00, 0x00, 0x0f, 0x42, 0x40];
    let e = from_slice::<Vec<i32>>(&huge).unwrap_err();
    assert!(e.is_malformed());
    assert_eq!(e.offset(), Some(6));
    let e = from_slice::<IgnoredAny>(&[0x09, 0x00, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
    assert_eq!(e.offset(), Some(2));
    assert!(e.to_string().contains("negative length"), "{e}");
    // Bad UTF-8 is rejected by the walker too.
    let bad = [0x03, 0x00, 0, 0, 0, 1, 0xff];
    assert!(from_slice::<IgnoredAny>(&bad).is_err());
    assert!(from_slice::<&str>(&bad).is_err());
    // Deep nesting ends at the depth limit.
    let mut deep = Vec::new();
    for _ in 0..10_000 {
        deep.extend_from_slice(&[0x09, 0x00, 0, 0, 0, 1]);
    }
    deep.extend_from_slice(&[0x01, 0x00, 0, 0, 0, 1]);
    let e = from_slice::<serde_json::Value>(&deep).unwrap_err();
    assert!(e.to_string().contains("nesting depth"), "{e}");
    assert!(from_slice::<IgnoredAny>(&deep).is_err());
    // A bulk beyond the expansion limit.
    let mut bulk = vec![0x09, 0x02, 0, 0, 0, 1, 0x01, 0x00, 0, 0, 0, 1];
    bulk.extend_from_slice(&i64::MAX.to_be_bytes());
    let limits = Limits {
        max_collection_len: 1000,
        ..Limits::DEFAULT
    };
    let e = graphbinary_client::format::de::from_slice_with::<IgnoredAny>(&bulk, &limits);
    assert!(e.is_ok(), "IgnoredAny does not expand");
    #[derive(Debug)]
    struct Count;
    impl<'de> Deserialize<'de> for Count {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Vis;
            impl<'de> serde::de::Visitor<'de> for Vis {
                type Value = Count;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a seq")
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut a: A,
                ) -> Result<Count, A::Error> {
                    while a.next_element::<IgnoredAny>()?.is_some() {}
                    Ok(Count)
                }
            }
            d.deserialize_seq(Vis)
        }
    }
    let e = graphbinary_client::format::de::from_slice_with::<Count>(&bulk, &limits).unwrap_err();
    assert!(e.to_string().contains("exceeds the limit of 1000"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Streams: fast and slow path, every split point

fn response(items: &[Value], bulks: Option<&[i64]>) -> Vec<u8> {
    let mut out = vec![0x84, u8::from(bulks.is_some())];
    for (i, v) in items.iter().enumerate() {
        v.encode_fq(&mut out).unwrap();
        if let Some(b) = bulks {
            Value::Long(b[i]).encode_fq(&mut out).unwrap();
        }
    }
    out.extend_from_slice(&[0xfd, 0x00, 0x00, 0, 0, 0, 200, 0x01, 0x01]);
    out
}

async fn for_each_as_people<R>(r: R, opts: ReadOptions) -> Result<Vec<(Person, i64)>, String>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    let mut out = Vec::new();
    let mut s = read_response(r, opts);
    s.for_each_as(|p: Person, b| out.push((p, b)))
        .await
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[test]
fn for_each_as_agrees_at_every_split_and_capacity() {
    let people: Vec<Value> = (0..4)
        .map(|i| element_map(i, &format!("n{i}"), 20 + i as i32))
        .collect();
    let expected: Vec<(Person, i64)> = (0..4)
        .map(|i| {
            (
                Person {
                    id: i,
                    label: "person".into(),
                    name: format!("n{i}"),
                    age: 20 + i as i32,
                },
                i + 1,
            )
        })
        .collect();
    let bytes = response(&people, Some(&[1, 2, 3, 4]));
    block_on(async {
        // Each read size, and buffers smaller than one value (the slow path).
        for chunk in 1..=bytes.len().min(70) {
            let r = ChunkedReader::new(std::io::Cursor::new(bytes.clone()), chunk);
            assert_eq!(
                for_each_as_people(r, ReadOptions::default()).await.unwrap(),
                expected,
                "chunk {chunk}"
            );
        }
        for capacity in [1, 7, 16, 40, 64, 100, 1 << 16] {
            for fast_path in [true, false] {
                let opts = ReadOptions {
                    capacity,
                    fast_path,
                    ..ReadOptions::default()
                };
                let r = ChunkedReader::with_sizes(std::io::Cursor::new(bytes.clone()), &[3, 17, 1])
                    .pending_between_reads();
                assert_eq!(
                    for_each_as_people(r, opts).await.unwrap(),
                    expected,
                    "capacity {capacity} fast {fast_path}"
                );
            }
        }
        // Every single split point of the whole response.
        for split in 1..bytes.len() {
            let r = common::Pieces::split(&bytes, &[split]);
            assert_eq!(
                for_each_as_people(r, ReadOptions::default()).await.unwrap(),
                expected,
                "split {split}"
            );
        }
    });
}

#[test]
fn a_result_that_does_not_fit_names_its_absolute_offset_on_both_paths() {
    let items = vec![element_map(1, "a", 1), element_map(2, "b", 2), s("oops")];
    let bytes = response(&items, None);
    let oops_at = 2 + bytes_of(&items[0]).len() + bytes_of(&items[1]).len();
    block_on(async {
        for capacity in [8, 1 << 16] {
            let opts = ReadOptions {
                capacity,
                ..ReadOptions::default()
            };
            let mut got = 0;
            let mut st = read_response(std::io::Cursor::new(bytes.clone()), opts);
            let e = st.for_each_as(|_: Person, _| got += 1).await.unwrap_err();
            assert_eq!(got, 2);
            assert_eq!(e.offset(), Some(oops_at as u64), "capacity {capacity}: {e}");
            // The stream error says "malformed response"; the detail is its cause.
            let cause = std::error::Error::source(&e).map(|c| c.to_string());
            assert!(
                cause
                    .as_deref()
                    .is_some_and(|c| c.contains("invalid type: string \"oops\"")),
                "{e}: {cause:?}"
            );
        }
        // The first result (read by the stream with the header) and a bulked one.
        for bulks in [None, Some(&[5i64, 5][..])] {
            let bytes = response(&[s("oops"), s("x")], bulks);
            let mut st = read_response(std::io::Cursor::new(bytes), ReadOptions::default());
            let e = st.for_each_as(|_: Person, _| ()).await.unwrap_err();
            assert_eq!(e.offset(), Some(2), "{e}");
            let mut st = read_response(
                std::io::Cursor::new(response(&[element_map(1, "a", 1), s("oops")], bulks)),
                ReadOptions {
                    capacity: 8,
                    ..ReadOptions::default()
                },
            );
            let e = st.for_each_as(|_: Person, _| ()).await.unwrap_err();
            let at =
                2 + bytes_of(&element_map(1, "a", 1)).len() + if bulks.is_some() { 10 } else { 0 };
            assert_eq!(e.offset(), Some(at as u64), "{e}");
        }
    });
}

#[test]
fn count_steps_over_results_without_building_them() {
    block_on(async {
        for r in SPEC_RESPONSES {
            let expected = {
                let mut s = read_response(r.bytes, ReadOptions::default());
                let mut n = 0u64;
                let mut ok = true;
                while let Some(t) = s.next().await {
                    match t {
                        Ok(t) => n += t.bulk.max(0) as u64,
                        Err(_) => ok = false,
                    }
                }
                (n, ok)
            };
            for capacity in [4, 1 << 16] {
                let opts = ReadOptions {
                    capacity,
                    ..ReadOptions::default()
                };
                let got = read_response(r.bytes, opts).count_results().await;
                assert_eq!(
                    got.is_ok(),
                    expected.1,
                    "{} capacity {capacity}: {got:?}",
                    r.name
                );
                if let Ok(n) = got {
                    assert_eq!(n, expected.0, "{}", r.name);
                }
            }
        }
    });
}
