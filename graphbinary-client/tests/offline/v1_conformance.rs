//! Conformance of the GraphBinary 1 reader (`graphbinary_client::format::graphbinary1`) over TinkerPop's 60
//! canonical GraphBinary 1 vectors (`../shared/vectors/graphbinary-v1`, TinkerPop 3.8.1), each
//! checked against its GraphSON 3 twin (`../shared/vectors/graphson-v3`) both as a value and as
//! `graphbinary_client::format::graphson::to_graphson3`'s rendering, re-encoded byte for byte, and fed one byte at a time and split at every byte through the refilling reader with
//! the fast path on and off (the field-by-field slow path).

use graphbinary_testkit::common;

use std::path::Path;

use common::{
    assert_truncations_end_at_the_cut, block_on, shared_dir, v1_gbin_vectors as v1_vectors, Pieces,
};
use graphbinary_client::format::graphbinary1 as v1;
use graphbinary_client::value::{DateTime, DateTimeKind, Value};
use graphbinary_core::{ErrorKind, Limits, ReadBuffer};
use serde_json::{json, Value as Json};

const EXPECTED_VECTORS: usize = 60;

fn twin(dir: &Path, name: &str) -> Json {
    let stem = name.strip_suffix("-v1").unwrap();
    let path = dir.join(format!("vectors/graphson-v3/{stem}-v3.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn decode(bytes: &[u8]) -> Result<Value, graphbinary_core::DecodeError> {
    v1::decode_slice(bytes, &Limits::default())
}

/// Which `Value` a GraphSON 3 type decodes to.
fn kind_matches(graphson_type: &str, v: &Value) -> bool {
    match (graphson_type, v) {
        ("g:Int32", Value::Int(_))
        | ("g:Int64", Value::Long(_))
        | ("gx:Int16", Value::Short(_))
        | ("gx:Byte", Value::Byte(_))
        | ("g:Double", Value::Double(_))
        | ("g:Float", Value::Float(_))
        | ("g:UUID", Value::Uuid(_))
        | ("g:List", Value::List(_))
        | ("g:Set", Value::Set(_))
        | ("g:Map", Value::Map(_))
        | ("g:Vertex", Value::Vertex(_))
        | ("g:VertexProperty", Value::VertexProperty(_))
        | ("g:Edge", Value::Edge(_))
        | ("g:Property", Value::Property(_))
        | ("g:Path", Value::Path(_))
        | ("g:Direction", Value::Direction(_))
        | ("g:T", Value::T(_))
        | ("gx:BigDecimal", Value::BigDecimal(_))
        | ("gx:BigInteger", Value::BigInteger(_))
        | ("gx:ByteBuffer", Value::Binary(_))
        | ("gx:Char", Value::Char(_))
        | ("gx:Duration", Value::Duration(_))
        | ("tinker:graph", Value::Graph(_))
        | ("g:BulkSet", Value::BulkList(_))
        | (
            "g:Date" | "g:Timestamp" | "gx:Instant" | "gx:OffsetDateTime" | "gx:ZonedDateTime",
            Value::DateTime(_),
        ) => true,
        (t, Value::PrimitivePdt(p)) => p.type_name == t,
        (t, Value::CompositePdt(p)) => p.type_name == t,
        _ => false,
    }
}

/// GraphSON 3 without its type wrappers: `{"@type":..,"@value":v}` becomes `v`.
fn untype(j: &Json) -> Json {
    match j {
        Json::Object(o) if o.contains_key("@type") => {
            untype(o.get("@value").unwrap_or(&Json::Null))
        }
        Json::Object(o) => Json::Object(o.iter().map(|(k, v)| (k.clone(), untype(v))).collect()),
        Json::Array(a) => Json::Array(a.iter().map(untype).collect()),
        other => other.clone(),
    }
}

fn millis(d: &DateTime) -> i64 {
    // Days from civil (H. Hinnant), the inverse of the reader's conversion.
    let (y, m, day) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    days * 86_400_000 + d.nanos / 1_000_000 - i64::from(d.offset_seconds) * 1000
}

fn num(s: impl ToString) -> Json {
    // The dev-dependency serde_json has arbitrary_precision: numbers compare by their text.
    serde_json::from_str(&s.to_string()).unwrap()
}

/// The value in GraphSON 3's untyped shape, for the types whose twin holds the same value.
fn plain(v: &Value) -> Json {
    match v {
        Value::Null(_) => Json::Null,
        Value::Int(i) => json!(i),
        Value::Long(i) => json!(i),
        Value::Short(i) => json!(i),
        Value::Byte(i) => json!(i),
        Value::Double(f) => num(format!("{f:?}")),
        Value::Float(f) => num(format!("{f:?}")),
        Value::Boolean(b) => json!(b),
        Value::String(s) => json!(s),
        Value::Char(c) => json!(c.to_string()),
        Value::Uuid(u) => json!(u.to_string()),
        Value::BigInteger(b) => num(b),
        Value::List(items) | Value::Set(items) => Json::Array(items.iter().map(plain).collect()),
        Value::Map(entries) => Json::Array(
            entries
                .iter()
                .flat_map(|(k, v)| [plain(k), plain(v)])
                .collect(),
        ),
        Value::DateTime(d) => json!(millis(d)),
        Value::Vertex(vx) => {
            let mut o = json!({"id": plain(&vx.id), "label": vx.label[0].as_ref()});
            if let Some(props) = &vx.properties {
                let mut by_key = serde_json::Map::new();
                for p in props {
                    by_key
                        .entry(p.label[0].to_string())
                        .or_insert_with(|| json!([]))
                        .as_array_mut()
                        .unwrap()
                        .push(plain(&Value::VertexProperty(Box::new(p.clone()))));
                }
                o["properties"] = Json::Object(by_key);
            }
            o
        }
        Value::VertexProperty(p) => {
            let mut o =
                json!({"id": plain(&p.id), "value": plain(&p.value), "label": p.label[0].as_ref()});
            if let Some(props) = p.properties.as_ref().filter(|p| !p.is_empty()) {
                o["properties"] = Json::Object(
                    props
                        .iter()
                        .map(|q| (q.key.to_string(), plain(&q.value)))
                        .collect(),
                );
            }
            o
        }
        Value::Property(p) => json!({"key": p.key.as_ref(), "value": plain(&p.value)}),
        Value::Edge(e) => {
            let mut o = json!({
                "id": plain(&e.id), "label": e.label[0].as_ref(),
                "inVLabel": e.in_v_label[0].as_ref(), "outVLabel": e.out_v_label[0].as_ref(),
                "inV": plain(&e.in_v_id), "outV": plain(&e.out_v_id),
            });
            if let Some(props) = &e.properties {
                o["properties"] = Json::Object(
                    props
                        .iter()
                        .map(|p| {
                            (
                                p.key.to_string(),
                                plain(&Value::Property(Box::new(p.clone()))),
                            )
                        })
                        .collect(),
                );
            }
            o
        }
        Value::Path(p) => json!({
            "labels": p.labels.iter().map(|s| s.0.iter().map(|l| l.as_ref()).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "objects": p.objects.iter().map(plain).collect::<Vec<_>>(),
        }),
        Value::BulkList(items) => Json::Array(
            items
                .iter()
                .flat_map(|(v, b)| [plain(v), json!(b)])
                .collect(),
        ),
        Value::Direction(d) => json!(d.as_str()),
        Value::T(t) => json!(t.as_str()),
        Value::Merge(m) => json!(m.as_str()),
        Value::PrimitivePdt(p) => json!(p.value),
        Value::CompositePdt(p) => Json::Object(
            p.fields
                .iter()
                .map(|(k, v)| (k.as_str().unwrap().to_owned(), plain(v)))
                .collect(),
        ),
        other => json!(format!("{other:?}")),
    }
}

/// Vectors whose GraphSON 3 twin holds a different value or a shape `plain` does not model; each
/// is checked by hand in `hand_checked_values_of_the_vectors_plain_cannot_compare`.
const NOT_COMPARED_PLAINLY: &[&str] = &[
    "bytebuffer-v1",  // GraphSON: base64 text
    "bytecode-v1",    // GraphSON: `step` only, no empty `source`
    "bigdecimal-v1",  // GraphSON: a decimal number; here scale + unscaled
    "duration-v1",    // GraphSON: ISO-8601 text
    "inetaddress-v1", // twin: "localhost"; binary: 127.0.0.1
    "instant-v1",     // GraphSON: ISO-8601 text
    "lambda-v1",      // twin's script "{it.get()}" vs binary "{ it.get() }"
    "localdate-v1",   // GraphSON: ISO-8601 text for all java.time values
    "localdatetime-v1",
    "localtime-v1",
    "monthday-v1",
    "offsetdatetime-v1",
    "offsettime-v1",
    "period-v1",
    "year-v1",
    "yearmonth-v1",
    "zoneddatetime-v1",
    "zoneoffset-v1",
    "metrics-v1",          // GraphSON: dur in ms as Double; binary: ns as Long
    "traversalmetrics-v1", // same
    "p-v1",                // GraphSON: a single "value", not a List
    "pand-v1",
    "por-v1",
    "pwithin-v1",
    "pwithout-v1",
    "textp-v1",
    "tinkergraph-v1", // GraphSON: vertex/edge lists as objects; checked by hand
    "traverser-v1",   // GraphSON: {bulk, value}
    "vertex-v1",      // twin's VertexProperty has no nested properties key when empty
];

#[test]
fn every_v1_vector_decodes_to_the_type_of_its_graphson_3_twin() {
    let Some(dir) = shared_dir("v1 conformance") else {
        return;
    };
    let vectors = v1_vectors(&dir);
    assert_eq!(
        vectors.len(),
        EXPECTED_VECTORS,
        "GraphBinary 1 vector count"
    );
    let mut failures = Vec::new();
    let mut compared = 0;
    for (name, bytes) in &vectors {
        let value = match decode(bytes) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: offset {}: {}", e.offset(), e.kind()));
                continue;
            }
        };
        let twin = twin(&dir, name);
        let ty = twin["@type"].as_str().unwrap_or("(untyped)");
        if !kind_matches(ty, &value) {
            failures.push(format!("{name}: GraphSON type {ty}, decoded {value:?}"));
            continue;
        }
        if !NOT_COMPARED_PLAINLY.contains(&name.as_str()) {
            compared += 1;
            let (got, want) = (plain(&value), untype(&twin));
            if got != want {
                failures.push(format!("{name}:\n  decoded  {got}\n  GraphSON {want}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(compared + NOT_COMPARED_PLAINLY.len(), EXPECTED_VECTORS);
}

fn field<'a>(v: &'a Value, name: &str) -> &'a Value {
    match v {
        Value::CompositePdt(p) => p
            .get(name)
            .unwrap_or_else(|| panic!("no field {name} in {v:?}")),
        other => panic!("not a CompositePdt: {other:?}"),
    }
}

#[test]
fn hand_checked_values_of_the_vectors_plain_cannot_compare() {
    let Some(dir) = shared_dir("v1 conformance") else {
        return;
    };
    let all: std::collections::HashMap<_, _> = v1_vectors(&dir)
        .into_iter()
        .map(|(n, b)| (n, decode(&b).unwrap()))
        .collect();
    let get = |n: &str| &all[&format!("{n}-v1")];
    assert_eq!(
        get("bytebuffer"),
        &Value::Binary(b"some bytes for you".to_vec())
    );
    let Value::BigDecimal(d) = get("bigdecimal") else {
        panic!()
    };
    assert_eq!(
        (d.scale, d.unscaled.to_string().as_str()),
        (0, "123456789987654321123456789987654321")
    );
    assert_eq!(
        get("duration"),
        &Value::Duration(graphbinary_client::value::Duration {
            seconds: 432_000,
            nanos: 0
        })
    ); // PT120H
    assert_eq!(
        get("inetaddress"),
        &Value::PrimitivePdt(Box::new(graphbinary_client::value::PrimitivePdt {
            type_name: "gx:InetAddress".into(),
            value: "127.0.0.1".into()
        }))
    );
    // 2016-12-14T16:39:19.349Z
    let Value::DateTime(i) = get("instant") else {
        panic!()
    };
    assert_eq!(
        (i.year, i.month, i.day, i.nanos, i.offset_seconds),
        (
            2016,
            12,
            14,
            (16 * 3600 + 39 * 60 + 19) * 1_000_000_000 + 349_000_000,
            0
        )
    );
    // 2007-12-03T10:15:30+01:00
    let Value::DateTime(o) = get("offsetdatetime") else {
        panic!()
    };
    assert_eq!(
        (o.year, o.month, o.day, o.nanos, o.offset_seconds),
        (
            2007,
            12,
            3,
            (10 * 3600 + 15 * 60 + 30) * 1_000_000_000,
            3600
        )
    );
    // 2016-12-23T12:12:24.000000036+02:00
    let Value::DateTime(z) = get("zoneddatetime") else {
        panic!()
    };
    assert_eq!(
        (z.year, z.month, z.day, z.nanos, z.offset_seconds),
        (
            2016,
            12,
            23,
            (12 * 3600 + 12 * 60 + 24) * 1_000_000_000 + 36,
            7200
        )
    );
    assert_eq!(field(get("localdate"), "year"), &Value::Int(2016));
    assert_eq!(field(get("localdate"), "month"), &Value::Byte(1));
    assert_eq!(
        field(get("localdatetime"), "nanos"),
        &Value::Long((12 * 3600 + 30 * 60) * 1_000_000_000)
    );
    assert_eq!(
        field(get("localtime"), "nanos"),
        &Value::Long((12 * 3600 + 30 * 60 + 45) * 1_000_000_000)
    );
    assert_eq!(
        (
            field(get("monthday"), "month"),
            field(get("monthday"), "day")
        ),
        (&Value::Byte(1), &Value::Byte(1))
    );
    assert_eq!(field(get("offsettime"), "offset"), &Value::Int(3600));
    assert_eq!(
        field(get("offsettime"), "nanos"),
        &Value::Long((10 * 3600 + 15 * 60 + 30) * 1_000_000_000)
    );
    assert_eq!(
        [
            field(get("period"), "years"),
            field(get("period"), "months"),
            field(get("period"), "days")
        ],
        [&Value::Int(1), &Value::Int(6), &Value::Int(15)]
    );
    assert_eq!(field(get("year"), "year"), &Value::Int(2016));
    assert_eq!(field(get("yearmonth"), "month"), &Value::Byte(6));
    assert_eq!(
        field(get("zoneoffset"), "seconds"),
        &Value::Int(3 * 3600 + 6 * 60 + 9)
    ); // +03:06:09
    assert_eq!(
        field(get("lambda"), "script"),
        &Value::String("{ it.get() }".into())
    );
    assert_eq!(field(get("lambda"), "arguments"), &Value::Int(1));
    assert_eq!(field(get("p"), "predicate"), &Value::String("gt".into()));
    assert_eq!(field(get("p"), "value"), &Value::List(vec![Value::Int(0)]));
    assert_eq!(
        field(get("pwithout"), "value"),
        &Value::List(vec![Value::Int(1), Value::Int(2)])
    );
    assert_eq!(
        field(get("textp"), "value"),
        &Value::List(vec![Value::String("ark".into())])
    );
    let Value::List(and) = field(get("pand"), "value") else {
        panic!()
    };
    assert_eq!(field(&and[1], "predicate"), &Value::String("lt".into()));
    assert_eq!(field(&and[1], "value"), &Value::List(vec![Value::Int(10)]));
    let Value::List(or) = field(get("por"), "value") else {
        panic!()
    };
    assert_eq!(
        field(&or[1], "value"),
        &Value::List(vec![Value::Int(-1), Value::Int(-10), Value::Int(-100)])
    );
    // GraphSON 3's step list equals ours; the binary also carries an empty `source`.
    let twin_steps = untype(&twin(&dir, "bytecode-v1"))["step"].clone();
    assert_eq!(plain(field(get("bytecode"), "step")), twin_steps);
    assert_eq!(field(get("bytecode"), "source"), &Value::List(vec![]));
    // Metrics: names, ids, counts and nesting equal the twin; durations are ns here, ms there.
    let m = get("metrics");
    assert_eq!(field(m, "id"), &Value::String("7.0.0()".into()));
    assert_eq!(field(m, "dur"), &Value::Long(100_000_000)); // the twin's 100.0 ms
    let twin_m = untype(&twin(&dir, "metrics-v1"));
    let twin_m: std::collections::HashMap<_, _> = twin_m
        .as_array()
        .unwrap()
        .chunks(2)
        .map(|kv| (kv[0].as_str().unwrap().to_owned(), kv[1].clone()))
        .collect();
    assert_eq!(plain(field(m, "counts")), twin_m["counts"]);
    assert_eq!(plain(field(m, "name")), twin_m["name"]);
    let Value::List(nested) = field(get("traversalmetrics"), "metrics") else {
        panic!()
    };
    let twin_tm = untype(&twin(&dir, "traversalmetrics-v1"));
    assert_eq!(nested.len(), twin_tm[3].as_array().unwrap().len());
    assert_eq!(field(get("traversalmetrics"), "dur"), &Value::Long(4_000)); // the twin's 0.004 ms
                                                                            // Traverser: bulk 1 and the vertex of vertex-v1.
    assert_eq!(get("traverser"), &v1::traverser(1, get("vertex").clone()));
    // Vertex: as GraphSON 3, once the twin's absent nested "properties" of a VertexProperty are
    // taken as empty.
    let mut want = untype(&twin(&dir, "vertex-v1"));
    assert_eq!(plain(get("vertex"))["id"], want["id"]);
    for (key, vps) in want["properties"].as_object_mut().unwrap() {
        let got = &plain(get("vertex"))["properties"][key];
        for (i, vp) in vps.as_array().unwrap().iter().enumerate() {
            for k in ["id", "value", "label"] {
                assert_eq!(got[i][k], vp[k], "vertex property {key}[{i}].{k}");
            }
        }
    }
    // TinkerGraph: the modern graph's crew variant, 6 vertices and 14 edges, as in the twin.
    let Value::Graph(g) = get("tinkergraph") else {
        panic!()
    };
    let twin_g = untype(&twin(&dir, "tinkergraph-v1"));
    assert_eq!(
        g.vertices.len(),
        twin_g["vertices"].as_array().unwrap().len()
    );
    assert_eq!(g.edges.len(), twin_g["edges"].as_array().unwrap().len());
    for (e, te) in g.edges.iter().zip(twin_g["edges"].as_array().unwrap()) {
        assert_eq!(plain(&e.id), te["id"]);
        assert_eq!(e.label[0].as_ref(), te["label"]);
        assert_eq!(plain(&e.in_v_id), te["inV"]);
        assert_eq!(
            e.in_v_label[0].as_ref(),
            te["inVLabel"],
            "in-vertex label from the vertex list"
        );
    }
}

#[test]
fn every_truncation_is_an_error_naming_the_end_and_no_corruption_panics() {
    let Some(dir) = shared_dir("v1 conformance") else {
        return;
    };
    let vectors = v1_vectors(&dir);
    assert_truncations_end_at_the_cut(
        &vectors,
        |prefix, ctx| decode(prefix).expect_err(ctx),
        |prefix, ctx| block_on(v1::read_value(&mut ReadBuffer::new(prefix))).expect_err(ctx),
    );
    for (_, bytes) in &vectors {
        for at in 0..bytes.len() {
            for b in [0x00, 0x7f, 0xff] {
                let mut bad = bytes.clone();
                bad[at] = b;
                let _ = decode(&bad); // must return, not panic or hang
            }
        }
    }
}

#[test]
fn a_custom_type_fails_naming_its_type_name_and_offset() {
    // A custom type nobody registered (JanusGraph's are read by default) inside a List:
    // `09 00 {1}` then `00 {name}{Int 0x1001}{00}{32 bytes}`.
    let mut bytes = vec![0x09, 0x00, 0, 0, 0, 1, 0x00];
    let name = b"acme.Widget";
    bytes.extend_from_slice(&(name.len() as i32).to_be_bytes());
    bytes.extend_from_slice(name);
    bytes.extend_from_slice(&[0, 0, 0x10, 0x01, 0x00]);
    bytes.extend_from_slice(&[0; 32]);
    let e = decode(&bytes).unwrap_err();
    assert_eq!(e.offset(), 6);
    let text = e.kind().to_string();
    assert!(text.contains("\"acme.Widget\""), "{text}");
    assert!(text.contains("offset 6"), "{text}");
}

#[test]
fn hostile_lengths_and_codes_fail_cleanly() {
    // A List claiming i32::MAX items in 10 bytes: no allocation of the claim, an error at once.
    let e = decode(&[0x09, 0x00, 0x7f, 0xff, 0xff, 0xff, 0x01, 0x00, 0, 0]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthLimit { .. }
        ),
        "{e:?}"
    );
    let e = decode(&[0x09, 0x00, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::NegativeLength { .. }),
        "{e:?}"
    );
    // 0xf0 (GraphBinary 4's CompositePDT) is no GraphBinary 1 type.
    let e = decode(&[0xf0, 0x00]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnknownTypeCode { code: 0xf0 }),
        "{e:?}"
    );
    // 0x04 is a Date in version 1: 8 bytes of milliseconds, not GraphBinary 4's DateTime.
    assert_eq!(
        decode(&[0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap(),
        Value::DateTime(v1::date_time_from_millis(0).with_kind(DateTimeKind::Date))
    );
    // Deep nesting ends in DepthLimit, not a stack overflow.
    let mut deep = Vec::new();
    for _ in 0..100_000 {
        deep.extend_from_slice(&[0x09, 0x00, 0, 0, 0, 1]);
    }
    deep.extend_from_slice(&[0xfe, 0x01]);
    let e = decode(&deep).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DepthLimit { .. }), "{e:?}");
    // A String claiming more than the limits allow, on the slow path: an error, no allocation.
    let huge = [0x03, 0x00, 0x7f, 0xff, 0xff, 0xff, b'a'];
    let e = block_on(v1::read_value(&mut ReadBuffer::with_capacity(
        64,
        &huge[..],
    )))
    .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LengthLimit { .. } | ErrorKind::UnexpectedEof { .. }
        ),
        "{e:?}"
    );
}

#[test]
fn a_traversal_strategy_has_a_bare_class_and_a_bare_map() {
    // No canonical vector has one; the layout of TraversalStrategySerializer (3.7.3): both
    // fields written with `writeValue(.., false)`.
    let class =
        b"org.apache.tinkerpop.gremlin.process.traversal.strategy.verification.ReadOnlyStrategy";
    let mut bytes = vec![0x29, 0x00];
    bytes.extend_from_slice(&(class.len() as i32).to_be_bytes());
    bytes.extend_from_slice(class);
    bytes.extend_from_slice(&[
        0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 1, b'k', 0x01, 0x00, 0, 0, 0, 2,
    ]);
    let v = decode(&bytes).unwrap();
    let Value::PrimitivePdt(c) = field(&v, "class") else {
        panic!("{v:?}")
    };
    assert_eq!(
        (c.type_name.as_str(), c.value.as_bytes()),
        ("g:Class", &class[..])
    );
    assert_eq!(
        field(&v, "configuration"),
        &Value::Map(vec![(Value::String("k".into()), Value::Int(2))])
    );
}

#[test]
fn the_code_table_agrees_with_spec_graphbinary_v1_toml() {
    let spec = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/graphbinary-v1.toml"
    ))
    .unwrap();
    let mut from_spec = Vec::new();
    for block in spec.split("\n[[type]]\n").skip(1) {
        let get = |key: &str| {
            block
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{key} = ")))
                .unwrap_or_else(|| panic!("no {key} in {block}"))
                .trim_matches('"')
                .to_owned()
        };
        let code = u8::from_str_radix(get("code").trim_start_matches("0x"), 16).unwrap();
        from_spec.push((code, get("name")));
    }
    let from_code: Vec<_> = v1::codes::ALL
        .iter()
        .map(|(c, n)| (*c, n.to_string()))
        .collect();
    assert_eq!(from_code, from_spec);
    assert_eq!(v1::codes::name(0x04), Some("Date"));
    // `name` (a table indexed by code) agrees with the spec for all 256 codes.
    for code in 0..=u8::MAX {
        let spec = from_spec
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, n)| n.as_str());
        assert_eq!(v1::codes::name(code), spec, "code {code:#04x}");
    }
}

#[test]
fn a_response_message_with_traversers_gives_results_with_bulks() {
    // A whole 3.x response message as a `ws://` client reads it.
    let decode = |bytes: &[u8]| {
        graphbinary_client::client::decode_graphbinary1_response(
            bytes,
            &Limits::default(),
            &v1::CustomTypes::janusgraph(),
        )
    };
    // A bytecode batch of two Traversers (bulk 7 "marko", bulk 1 "josh"); a plain message
    // (status, message, attributes, one result) is protocol::ws3::response's unit test.
    let mut trav = vec![0x81, 0x00];
    trav.extend_from_slice(&[0xcd; 16]);
    trav.extend_from_slice(&[
        0, 0, 0, 206, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x00, 0, 0, 0, 2,
    ]);
    trav.extend_from_slice(&[0x21, 0x00, 0, 0, 0, 0, 0, 0, 0, 7, 0x03, 0x00, 0, 0, 0, 5]);
    trav.extend_from_slice(b"marko");
    trav.extend_from_slice(&[0x21, 0x00, 0, 0, 0, 0, 0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 4]);
    trav.extend_from_slice(b"josh");
    assert_eq!(
        decode(&trav).unwrap(),
        vec![
            (Value::String("marko".into()), 7),
            (Value::String("josh".into()), 1)
        ]
    );
    // Every truncation of it is an error at its end, never a panic.
    for end in 0..trav.len() {
        match decode(&trav[..end]) {
            Err(graphbinary_client::Error::Decode(e)) => assert_eq!(e.offset(), end as u64),
            other => panic!("{end}: {other:?}"),
        }
    }
}

#[test]
fn every_v1_vector_re_encodes_byte_for_byte() {
    let Some(dir) = shared_dir("v1 conformance") else {
        return;
    };
    let vectors = v1_vectors(&dir);
    assert_eq!(vectors.len(), EXPECTED_VECTORS);
    let mut failures = Vec::new();
    for (name, bytes) in &vectors {
        let value = decode(bytes).unwrap();
        let mut out = Vec::new();
        match v1::encode_value(&value, &mut out) {
            Ok(()) if &out == bytes => {}
            Ok(()) => failures.push(format!(
                "{name}: re-encoded differently\n  want {bytes:02x?}\n  got  {out:02x?}"
            )),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        // And what was written reads back as the same value.
        if let Ok(back) = decode(&out) {
            assert_eq!(back, value, "{name}: reads back the same");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn each_date_time_type_keeps_its_kind_and_a_traverser_is_a_pdt() {
    let Some(dir) = shared_dir("v1 conformance") else {
        return;
    };
    let get =
        |n: &str| std::fs::read(dir.join(format!("vectors/graphbinary-v1/{n}-v1.gbin"))).unwrap();
    for (n, kind) in [
        ("date", DateTimeKind::Date),
        ("timestamp", DateTimeKind::Timestamp),
        ("instant", DateTimeKind::Instant),
        ("offsetdatetime", DateTimeKind::OffsetDateTime),
        ("zoneddatetime", DateTimeKind::ZonedDateTime),
    ] {
        let Value::DateTime(d) = decode(&get(n)).unwrap() else {
            panic!("{n}: not a DateTime")
        };
        assert_eq!(d.kind, kind, "{n}");
        // The same instant as another kind is another value, written as that type.
        let mut out = Vec::new();
        v1::encode_value(
            &Value::DateTime(d.with_kind(DateTimeKind::OffsetDateTime)),
            &mut out,
        )
        .unwrap();
        assert_eq!(out[0], 0x88, "{n}");
        assert_ne!(
            Value::DateTime(d.with_kind(DateTimeKind::OffsetDateTime)),
            Value::DateTime(d.with_kind(DateTimeKind::Instant)),
        );
    }
    let Value::CompositePdt(t) = decode(&get("traverser")).unwrap() else {
        panic!("traverser: not a PDT")
    };
    assert_eq!(t.type_name, "g:Traverser");
    assert!(matches!(t.get("bulk"), Some(Value::Long(_))), "{t:?}");
    assert!(matches!(
        decode(&get("bulkset")).unwrap(),
        Value::BulkList(_)
    ));
    // A DateTime finer than milliseconds cannot be a Date: an error, not a silent rounding.
    let Value::DateTime(fine) = decode(&get("zoneddatetime")).unwrap() else {
        panic!()
    };
    assert_ne!(fine.nanos % 1_000_000, 0);
    for kind in [DateTimeKind::Date, DateTimeKind::Timestamp] {
        let e =
            v1::encode_value(&Value::DateTime(fine.with_kind(kind)), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("finer than its milliseconds"), "{e}");
    }
    // An Instant with an offset is written as the same instant, read back at UTC.
    let at_plus_one = DateTime::from_epoch_millis(3_600_000).with_kind(DateTimeKind::Instant);
    let moved = DateTime {
        nanos: at_plus_one.nanos + 3_600_000_000_000,
        offset_seconds: 3600,
        ..at_plus_one
    };
    let mut out = Vec::new();
    v1::encode_value(&Value::DateTime(moved), &mut out).unwrap();
    assert_eq!(decode(&out).unwrap(), Value::DateTime(at_plus_one));
    // Several labels cannot be written in GraphBinary 1.
    let Value::Vertex(mut vx) = decode(&get("vertex")).unwrap() else {
        panic!()
    };
    vx.label = vec!["a".into(), "b".into()].into();
    let e = v1::encode_value(&Value::Vertex(vx), &mut Vec::new()).unwrap_err();
    assert!(e.to_string().contains("2 labels"), "{e}");
}

/// Every vector through the refilling reader: fast path on (refills, then decodes whole) and
/// off (the slow path from the first byte, field by field), one byte per read and split at
/// every byte.
#[test]
fn every_v1_vector_decodes_identically_on_both_paths() {
    let Some(dir) = shared_dir("v1 conformance") else {
        return;
    };
    for (name, bytes) in v1_vectors(&dir) {
        let expected = decode(&bytes).unwrap();
        for fast in [true, false] {
            block_on(async {
                let mut buf = ReadBuffer::with_capacity(1 << 12, Pieces::chunks(&bytes, 1))
                    .with_fast_path(fast);
                let v = v1::read_value(&mut buf).await.unwrap();
                assert_eq!(v, expected, "{name}: one byte per read, fast path {fast}");
                assert!(buf.is_at_end().await.unwrap(), "{name}: bytes left");
                for split in 1..bytes.len() {
                    let mut buf =
                        ReadBuffer::with_capacity(1 << 12, Pieces::split(&bytes, &[split]))
                            .with_fast_path(fast);
                    let v = v1::read_value(&mut buf).await.unwrap_or_else(|e| {
                        panic!("{name}: split at {split}, fast path {fast}: {e}")
                    });
                    assert_eq!(v, expected, "{name}: split at {split}, fast path {fast}");
                }
            });
        }
    }
}

/// Values larger than the buffer take the slow path: a 4 KiB String, a List of Vertices with
/// their properties, a BulkSet of Strings, through a 64-byte buffer, one byte per read.
#[test]
fn values_larger_than_the_buffer_are_read_field_by_field() {
    let mut big = vec![0x03, 0x00, 0, 0, 0x10, 0];
    big.extend(std::iter::repeat_n(b'a', 4096));
    let v = block_on(v1::read_value(&mut ReadBuffer::with_capacity(
        64,
        Pieces::chunks(&big, 1),
    )))
    .unwrap();
    assert_eq!(v, Value::String("a".repeat(4096)));

    // A List of 50 vertices (vertex-v1 has properties) and a BulkSet of long strings.
    let Some(dir) = shared_dir("v1 conformance") else {
        return;
    };
    let vertex = std::fs::read(dir.join("vectors/graphbinary-v1/vertex-v1.gbin")).unwrap();
    let mut list = vec![0x09, 0x00, 0, 0, 0, 50];
    for _ in 0..50 {
        list.extend_from_slice(&vertex);
    }
    let mut bulk = vec![0x2a, 0x00, 0, 0, 0, 3];
    for i in 0..3u8 {
        bulk.extend_from_slice(&[0x03, 0x00, 0, 0, 0, 200]);
        bulk.extend(std::iter::repeat_n(b'x' + i, 200));
        bulk.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, i + 1]);
    }
    for bytes in [list, bulk, vertex] {
        let expected = decode(&bytes).unwrap();
        for cap in [64, 100, 257] {
            let got = block_on(v1::read_value(&mut ReadBuffer::with_capacity(
                cap,
                Pieces::chunks(&bytes, 1),
            )))
            .unwrap_or_else(|e| panic!("capacity {cap}: {e}"));
            assert_eq!(got, expected, "capacity {cap}");
        }
    }
    // A body read whole (here a Bytecode) that exceeds the buffer is an error naming it.
    let bytecode = std::fs::read(dir.join("vectors/graphbinary-v1/bytecode-v1.gbin")).unwrap();
    assert!(bytecode.len() > 32);
    let e = block_on(v1::read_value(&mut ReadBuffer::with_capacity(
        16,
        &bytecode[..],
    )))
    .unwrap_err();
    assert!(e.to_string().contains("read whole"), "{e}");
}

#[test]
fn extreme_date_times_are_errors_when_they_do_not_fit_their_type() {
    use graphbinary_client::value::DateTime;
    let far = DateTime {
        year: i32::MAX,
        month: 12,
        day: 31,
        nanos: 0,
        offset_seconds: 0,
        kind: Default::default(),
    };
    for kind in [DateTimeKind::Date, DateTimeKind::Timestamp] {
        let e =
            v1::encode_value(&Value::DateTime(far.with_kind(kind)), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("overflow"), "{e}");
    }
    // As OffsetDateTime (the default) it is written and reads back.
    let mut out = Vec::new();
    v1::encode_value(&Value::DateTime(far), &mut out).unwrap();
    assert_eq!(decode(&out).unwrap(), Value::DateTime(far));
}

/// The twins no rendering of the decoded value can equal, each with the narrow rule the test
/// applies to the twin (and only to that twin) before comparing; every other vector must render
/// exactly its twin.
const GRAPHSON3_NORMALISED: &[(&str, &str)] = &[
    (
        "inetaddress-v1",
        "the twin's host name \"localhost\" becomes \"127.0.0.1\": GraphBinary 1 carries only the \
         address bytes (127.0.0.1), GraphSON 3 the name the InetAddress was made from",
    ),
    (
        "zoneddatetime-v1",
        "the twin's trailing zone id \"[GMT+02:00]\" is cut: GraphBinary 1 carries the offset \
         (+02:00), not the zone id",
    ),
];

fn normalise_twin(name: &str, twin: &mut Json) {
    let before = twin.clone();
    match name {
        "inetaddress-v1" if twin["@value"] == "localhost" => twin["@value"] = json!("127.0.0.1"),
        "zoneddatetime-v1" => {
            if let Some((at, _zone)) = twin["@value"]
                .as_str()
                .and_then(|s| s.strip_suffix(']'))
                .and_then(|s| s.split_once('['))
            {
                twin["@value"] = json!(at);
            }
        }
        _ => {}
    }
    assert!(
        !GRAPHSON3_NORMALISED.iter().any(|(n, _)| *n == name) || *twin != before,
        "{name}: its normalisation rule no longer applies to the twin {before}"
    );
}

/// Every vector, decoded and rendered by `to_graphson3`, is its GraphSON
/// 3 twin as JSON (`serde_json::Value` equality, numbers compared by their text); the vectors in
/// `GRAPHSON3_NORMALISED` after their one rule.
#[test]
fn every_v1_vector_renders_its_graphson_3_twin() {
    let Some(dir) = shared_dir("v1 conformance") else {
        return;
    };
    let vectors = v1_vectors(&dir);
    assert_eq!(vectors.len(), EXPECTED_VECTORS);
    let mut failures = Vec::new();
    let mut exact = 0;
    for (name, bytes) in &vectors {
        let text = graphbinary_client::format::graphson::to_graphson3(&decode(bytes).unwrap());
        let got: Json = serde_json::from_str(&text)
            .unwrap_or_else(|err| panic!("{name}: not JSON ({err}): {text}"));
        let mut want = twin(&dir, name);
        if got == want {
            exact += 1;
            assert!(
                !GRAPHSON3_NORMALISED.iter().any(|(n, _)| n == name),
                "{name} renders exactly: remove it from GRAPHSON3_NORMALISED"
            );
            continue;
        }
        normalise_twin(name, &mut want);
        if got != want {
            failures.push(format!("{name}:\n  rendered {got}\n  twin     {want}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        exact + GRAPHSON3_NORMALISED.len(),
        EXPECTED_VECTORS,
        "{exact} exact"
    );
}

#[test]
fn graphson_3_takes_each_date_time_type_from_its_kind() {
    // List [BulkSet {Date 0 ms: bulk 2}, Timestamp 1000 ms, Instant 60 s].
    let mut bytes = vec![0x09, 0x00, 0, 0, 0, 3, 0x2a, 0x00, 0, 0, 0, 1];
    bytes.extend_from_slice(&[0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
    bytes.extend_from_slice(&2i64.to_be_bytes());
    bytes.extend_from_slice(&[0x05, 0x00]);
    bytes.extend_from_slice(&1000i64.to_be_bytes());
    bytes.extend_from_slice(&[0x83, 0x00]);
    bytes.extend_from_slice(&60i64.to_be_bytes());
    bytes.extend_from_slice(&0i32.to_be_bytes());
    let v = decode(&bytes).unwrap();
    assert_eq!(
        graphbinary_client::format::graphson::to_graphson3(&v),
        concat!(
            r#"{"@type":"g:List","@value":[{"@type":"g:BulkSet","@value":["#,
            r#"{"@type":"g:Date","@value":0},{"@type":"g:Int64","@value":2}]},"#,
            r#"{"@type":"g:Timestamp","@value":1000},"#,
            r#"{"@type":"gx:Instant","@value":"1970-01-01T00:01:00Z"}]}"#
        )
    );
    let mut out = Vec::new();
    v1::encode_value(&v, &mut out).unwrap();
    assert_eq!(out, bytes);
    // As OffsetDateTimes (GraphBinary 4's only kind) the same instants are gx:OffsetDateTime.
    let Value::List(items) = v else { panic!() };
    let odt = |v: &Value| match v {
        Value::DateTime(d) => Value::DateTime(d.with_kind(DateTimeKind::OffsetDateTime)),
        other => other.clone(),
    };
    assert_eq!(
        graphbinary_client::format::graphson::to_graphson3(&Value::List(
            items[1..].iter().map(odt).collect()
        )),
        concat!(
            r#"{"@type":"g:List","@value":["#,
            r#"{"@type":"gx:OffsetDateTime","@value":"1970-01-01T00:00:01Z"},"#,
            r#"{"@type":"gx:OffsetDateTime","@value":"1970-01-01T00:01Z"}]}"#
        )
    );
}

#[test]
fn graphson_3_of_java_time_values_follows_java_to_string() {
    use graphbinary_client::value::CompositePdt;
    let pdt = |ty: &str, fields: &[(&str, Value)]| {
        Value::CompositePdt(Box::new(CompositePdt {
            type_name: ty.into(),
            fields: fields
                .iter()
                .map(|(k, v)| (Value::String((*k).into()), v.clone()))
                .collect(),
            ordered: false,
        }))
    };
    let cases = [
        (
            pdt(
                "gx:Period",
                &[
                    ("years", Value::Int(0)),
                    ("months", Value::Int(0)),
                    ("days", Value::Int(0)),
                ],
            ),
            r#"{"@type":"gx:Period","@value":"P0D"}"#,
        ),
        (
            pdt("gx:ZoneOffset", &[("seconds", Value::Int(0))]),
            r#"{"@type":"gx:ZoneOffset","@value":"Z"}"#,
        ),
        (
            pdt("gx:LocalTime", &[("nanos", Value::Long(1_500_000))]),
            r#"{"@type":"gx:LocalTime","@value":"00:00:00.001500"}"#,
        ),
        (
            pdt(
                "gx:YearMonth",
                &[("year", Value::Int(12_345)), ("month", Value::Byte(1))],
            ),
            r#"{"@type":"gx:YearMonth","@value":"+12345-01"}"#,
        ),
        (
            pdt(
                "g:P",
                &[
                    ("predicate", Value::String("between".into())),
                    ("value", Value::List(vec![Value::Int(1), Value::Int(2)])),
                ],
            ),
            r#"{"@type":"g:P","@value":{"predicate":"between","value":{"@type":"g:List","@value":[{"@type":"g:Int32","@value":1},{"@type":"g:Int32","@value":2}]}}}"#,
        ),
    ];
    for (v, want) in cases {
        assert_eq!(graphbinary_client::format::graphson::to_graphson3(&v), want);
    }
}

#[test]
fn nesting_2000_deep_decodes_on_a_2_mib_stack_when_the_limit_allows_it() {
    // Each level a List of a null and the next level, the innermost a Long: the Lists grow the
    // stack as they need (an unoptimized build takes several KiB a level), the nulls and the
    // Long skip the check.
    const DEPTH: usize = 2000;
    let mut bytes = Vec::new();
    for _ in 0..DEPTH {
        bytes.extend_from_slice(&[0x09, 0x00, 0, 0, 0, 2, 0xfe, 0x01]);
    }
    bytes.extend_from_slice(&[0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 42]);
    let run = move || {
        // Every value counts one level, the Long too.
        let at = |max_depth| {
            let limits = Limits {
                max_depth,
                ..Limits::DEFAULT
            };
            v1::decode_slice(&bytes, &limits)
        };
        let e = at(DEPTH as u32).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::DepthLimit { .. }), "{e}");
        let mut v = at(DEPTH as u32 + 1).unwrap();
        let mut levels = 0;
        while let Value::List(items) = v {
            let [null, next]: [Value; 2] = items.try_into().expect("two items a level");
            assert!(matches!(null, Value::Null(0xfe)));
            levels += 1;
            v = next;
        }
        (levels, v)
    };
    let (levels, innermost) = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(levels, DEPTH);
    assert_eq!(innermost, Value::Long(42));
}
