//! The routes of `benches/serde.rs` and `benches/alloc.rs`: each corpus of `common/mod.rs`,
//! streamed from a reader returning 8 KiB per read (as mode (b) of `decode.rs`), four ways:
//!
//! * `value`: the `Value` route (`for_each_result`), each result dropped;
//! * `value_convert`: the `Value` route, then each `Value` converted by hand into a struct
//!   matching the corpus (what a user writes without serde);
//! * `serde_struct`: `for_each_as` into the same struct, straight from the bytes;
//! * `count`: `for_each_skipped`, stepping over every value without building it.
//!
//! and, for some corpora only ([`EXTRA_ROUTES`], [`applies`]):
//!
//! * `value_from_value` (element maps and vertices): the `Value` route, then
//!   `de::from_value::<T>(&value)`, the conversion a serde user holding a `Value` writes;
//! * `value_derive` (element maps): the `Value` route, then `Element::from_value` into a
//!   `#[derive(Vertex)]` struct, the reader of the typed operations (`g.all::<T>()`);
//! * `derive_fast` (element maps): the same struct by the derive's fast reader, straight from
//!   the bytes (`GraphTraversal::elements`' reader);
//! * `slice_struct` and `slice_borrowed` (element maps): the whole response in one slice (as
//!   `decode.rs`'s mode (a)), each result read with `de::read_fq` into the owned struct, or
//!   into one that borrows its strings from the bytes (`Cow<'de, str>` with
//!   `#[serde(borrow)]`, see the `de` module: borrowing needs the bytes to outlive the
//!   struct, so it is a slice API, not a stream one).

#![allow(dead_code)]

use std::borrow::Cow;
use std::fmt;

use graphbinary_client::response::{read_response, ReadOptions};
use graphbinary_client::value::{Value, T};
use graphbinary_core::Cursor;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::common;

/// Every route, in report order.
pub const ROUTES: [&str; 4] = ["value", "value_convert", "serde_struct", "count"];

/// The routes measured for some corpora only (see [`applies`]).
pub const EXTRA_ROUTES: [&str; 5] = [
    "value_from_value",
    "value_derive",
    "derive_fast",
    "slice_struct",
    "slice_borrowed",
];

/// Whether `mode` is measured for `corpus`.
pub fn applies(corpus: &str, mode: &str) -> bool {
    match mode {
        "value_from_value" => matches!(corpus, "vertices_200k" | "element_maps_100k"),
        "value_derive" | "derive_fast" | "slice_struct" | "slice_borrowed" => {
            corpus == "element_maps_100k"
        }
        _ => true,
    }
}

const CHUNK: usize = 8 << 10;

// ---------------------------------------------------------------------------------------------
// The structs

/// A property value of the corpora: a String or an integer.
#[derive(Debug)]
#[allow(dead_code)]
enum Scalar {
    Str(String),
    Int(i64),
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Str(v.to_owned()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Int(v))
            }
        }
        d.deserialize_any(V)
    }
}

fn scalar(v: Value) -> Scalar {
    match v {
        Value::String(s) => Scalar::Str(s),
        other => Scalar::Int(other.as_i64().expect("an integer")),
    }
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Prop {
    id: i64,
    label: String,
    value: Scalar,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Vertex {
    id: i64,
    label: String,
    properties: Vec<Prop>,
}

fn one_label(l: &graphbinary_client::value::Labels) -> String {
    l.first().map(|s| s.to_string()).expect("a label")
}

fn vertex_by_hand(v: Value) -> Vertex {
    let Value::Vertex(v) = v else {
        panic!("a vertex")
    };
    let v = *v;
    Vertex {
        id: v.id.as_i64().expect("id"),
        label: one_label(&v.label),
        properties: v
            .properties
            .unwrap_or_default()
            .into_iter()
            .map(|p| Prop {
                id: p.id.as_i64().expect("id"),
                label: one_label(&p.label),
                value: scalar(p.value),
            })
            .collect(),
    }
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Person {
    id: i64,
    label: String,
    name: String,
    age: i32,
}

/// [`Person`] as a `#[derive(Vertex)]` struct (its label is the element's).
#[derive(Debug, graphbinary_client::element::Vertex)]
#[vertex(label = "person")]
#[allow(dead_code)]
struct PersonVertex {
    #[vertex(id)]
    id: i64,
    name: String,
    age: i32,
}

/// [`Person`] borrowing its strings from the response bytes.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct PersonRef<'a> {
    id: i64,
    #[serde(borrow)]
    label: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    age: i32,
}

fn person_by_hand(v: Value) -> Person {
    let Value::Map(entries) = v else {
        panic!("a map")
    };
    let (mut id, mut label, mut name, mut age) = (None, None, None, None);
    for (k, v) in entries {
        match (k, v) {
            (Value::T(T::Id), v) => id = v.as_i64(),
            (Value::T(T::Label), Value::String(s)) => label = Some(s),
            (Value::String(k), Value::String(s)) if k == "name" => name = Some(s),
            (Value::String(k), Value::Int(n)) if k == "age" => age = Some(n),
            _ => {}
        }
    }
    Person {
        id: id.expect("id"),
        label: label.expect("label"),
        name: name.expect("name"),
        age: age.expect("age"),
    }
}

/// A path object: both vertices and edges have an id and a label.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Element {
    id: i64,
    label: String,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct PathOf {
    labels: Vec<Vec<String>>,
    objects: Vec<Element>,
}

fn path_by_hand(v: Value) -> PathOf {
    let Value::Path(p) = v else { panic!("a path") };
    let p = *p;
    PathOf {
        labels: p
            .labels
            .into_iter()
            .map(|s| s.0.into_iter().map(|l| l.to_string()).collect())
            .collect(),
        objects: p
            .objects
            .into_iter()
            .map(|o| match o {
                Value::Vertex(v) => Element {
                    id: v.id.as_i64().expect("id"),
                    label: one_label(&v.label),
                },
                Value::Edge(e) => Element {
                    id: e.id.as_i64().expect("id"),
                    label: one_label(&e.label),
                },
                other => panic!("{other:?}"),
            })
            .collect(),
    }
}

/// Any value of the mixed corpus.
#[derive(Debug)]
#[allow(dead_code)]
enum Mixed {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    List(Vec<Mixed>),
    Map(Vec<(String, Mixed)>),
}

impl<'de> Deserialize<'de> for Mixed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Mixed;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a value")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Mixed, E> {
                Ok(Mixed::Bool(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Mixed, E> {
                Ok(Mixed::Int(v))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Mixed, E> {
                Ok(Mixed::Float(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Mixed, E> {
                Ok(Mixed::Str(v.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Mixed, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Mixed::List(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Mixed, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_entry()? {
                    v.push(x);
                }
                Ok(Mixed::Map(v))
            }
        }
        d.deserialize_any(V)
    }
}

fn mixed_by_hand(v: Value) -> Mixed {
    match v {
        Value::Int(n) => Mixed::Int(n.into()),
        Value::Long(n) => Mixed::Int(n),
        Value::Double(f) => Mixed::Float(f),
        Value::Boolean(b) => Mixed::Bool(b),
        Value::String(s) => Mixed::Str(s),
        Value::Uuid(u) => Mixed::Str(u.to_string()),
        Value::List(items) => Mixed::List(items.into_iter().map(mixed_by_hand).collect()),
        Value::Map(entries) => Mixed::Map(
            entries
                .into_iter()
                .map(|(k, v)| match k {
                    Value::String(k) => (k, mixed_by_hand(v)),
                    other => panic!("{other:?}"),
                })
                .collect(),
        ),
        other => panic!("{other:?}"),
    }
}

/// Bytes (serde's `Vec<u8>` is a sequence; this takes a byte array).
#[derive(Debug)]
#[allow(dead_code)]
struct Bytes(Vec<u8>);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
        }
        d.deserialize_bytes(V)
    }
}

fn bytes_by_hand(v: Value) -> Bytes {
    match v {
        Value::Binary(b) => Bytes(b),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The drains

fn reader(bytes: &'static [u8]) -> common::ChunkReader {
    common::ChunkReader::new(bytes, CHUNK)
}

async fn value_route(bytes: &'static [u8], mut convert: impl FnMut(Value)) -> u64 {
    let mut results = read_response(reader(bytes), ReadOptions::default());
    let mut n = 0;
    results
        .for_each_result(|t| {
            convert(t.value);
            n += 1;
        })
        .await
        .expect("corpus decodes");
    n
}

async fn serde_route<T: serde::de::DeserializeOwned>(bytes: &'static [u8]) -> u64 {
    let mut results = read_response(reader(bytes), ReadOptions::default());
    let mut n = 0;
    results
        .for_each_as(|v: T, _bulk| {
            std::hint::black_box(v);
            n += 1;
        })
        .await
        .expect("corpus deserializes");
    n
}

/// [`serde_route`] into a `T`, then `f` of it.
async fn serde_route_by<T: serde::de::DeserializeOwned, U>(
    bytes: &'static [u8],
    f: impl Fn(T) -> U,
) -> u64 {
    let mut results = read_response(reader(bytes), ReadOptions::default());
    let mut n = 0;
    results
        .for_each_as(|v: T, _bulk| {
            std::hint::black_box(f(v));
            n += 1;
        })
        .await
        .expect("corpus deserializes");
    n
}

async fn count_route(bytes: &'static [u8]) -> u64 {
    let mut results = read_response(reader(bytes), ReadOptions::default());
    let mut n = 0;
    results
        .for_each_skipped(|_bulk| n += 1)
        .await
        .expect("corpus steps");
    n
}

/// Every result of a response held in one slice, each read with `de::read_fq` into a `T`.
fn slice_route<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> u64 {
    // The cursor's limits live as long as the borrowed strings.
    static LIMITS: std::sync::OnceLock<graphbinary_core::Limits> = std::sync::OnceLock::new();
    let limits = LIMITS.get_or_init(|| ReadOptions::default().limits);
    let mut cur = Cursor::new(bytes, 0, limits);
    assert_eq!(cur.read_u8().unwrap(), 0x84, "version");
    assert_eq!(cur.read_u8().unwrap(), 0, "not bulked");
    let mut n = 0;
    while cur.peek_u8().unwrap() != 0xfd {
        let v: T = graphbinary_client::format::de::read_fq(&mut cur).expect("corpus deserializes");
        std::hint::black_box(v);
        n += 1;
    }
    n
}

/// Drains corpus `c` by `mode`: a mode of `decode.rs` (`common::Mode`, e.g. `a_slice`) or a
/// route of this file; returns the number of results.
pub fn drain(rt: &tokio::runtime::Runtime, c: &common::Corpus, mode: &str) -> u64 {
    match common::Mode::ALL.into_iter().find(|m| m.id() == mode) {
        Some(m) => common::run(rt, c, m),
        None => run(rt, c.name, c.bytes, mode),
    }
}

/// Drains `bytes` (the corpus named `corpus`) by `mode`, one of [`ROUTES`]; returns the number
/// of results.
pub fn run(rt: &tokio::runtime::Runtime, corpus: &str, bytes: &'static [u8], mode: &str) -> u64 {
    fn by<T>(f: fn(Value) -> T) -> impl FnMut(Value) {
        move |v| {
            std::hint::black_box(f(v));
        }
    }
    rt.block_on(async {
        match mode {
            "value" => value_route(bytes, |v| drop(std::hint::black_box(v))).await,
            "count" => count_route(bytes).await,
            "value_from_value" => match corpus {
                "vertices_200k" => {
                    value_route(bytes, |v| {
                        let t: Vertex =
                            graphbinary_client::format::de::from_value(&v).expect("converts");
                        std::hint::black_box(t);
                    })
                    .await
                }
                _ => {
                    value_route(bytes, |v| {
                        let t: Person =
                            graphbinary_client::format::de::from_value(&v).expect("converts");
                        std::hint::black_box(t);
                    })
                    .await
                }
            },
            "value_derive" => {
                use graphbinary_client::element::Element;
                value_route(bytes, by(|v| PersonVertex::from_value(v).expect("reads"))).await
            }
            "derive_fast" => {
                use graphbinary_client::element::__private::FastRead;
                serde_route_by(bytes, |r: FastRead<PersonVertex>| {
                    r.into_element().expect("reads")
                })
                .await
            }
            "slice_struct" => slice_route::<Person>(bytes),
            "slice_borrowed" => slice_route::<PersonRef>(bytes),
            "value_convert" => match corpus {
                "vertices_200k" => value_route(bytes, by(vertex_by_hand)).await,
                "element_maps_100k" => value_route(bytes, by(person_by_hand)).await,
                "paths_50k" => value_route(bytes, by(path_by_hand)).await,
                "strings_1m" => {
                    value_route(
                        bytes,
                        by(|v| match v {
                            Value::String(s) => s,
                            other => panic!("{other:?}"),
                        }),
                    )
                    .await
                }
                "bulked_mixed_500k" => value_route(bytes, by(mixed_by_hand)).await,
                _ => value_route(bytes, by(bytes_by_hand)).await,
            },
            _ => match corpus {
                "vertices_200k" => serde_route::<Vertex>(bytes).await,
                "element_maps_100k" => serde_route::<Person>(bytes).await,
                "paths_50k" => serde_route::<PathOf>(bytes).await,
                "strings_1m" => serde_route::<String>(bytes).await,
                "bulked_mixed_500k" => serde_route::<Mixed>(bytes).await,
                _ => serde_route::<Bytes>(bytes).await,
            },
        }
    })
}
