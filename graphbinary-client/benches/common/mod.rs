//! Shared by the decode benchmarks: the corpora (realistic responses, generated in-process by
//! encoding [`Value`]s with the model's writer, deterministic), the ways of feeding them to the
//! deserializer, and a drain that consumes and drops every result.

#![allow(dead_code)]

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::StreamExt;
use graphbinary_client::response::{read_response, ReadOptions};
use graphbinary_client::value::{Edge, Labels, Path, Value, Vertex, VertexProperty, T};
use graphbinary_core::{Cursor, Decode, Fq, FqEncode, Interner, Set};
use tokio::io::{AsyncRead, ReadBuf};

/// One benchmark corpus: a whole GraphBinary 4 response body.
pub struct Corpus {
    /// Short name, used in benchmark ids.
    pub name: &'static str,
    /// What it holds.
    pub description: &'static str,
    /// The number of results.
    pub results: u64,
    /// The response bytes (leaked: the readers need `'static`).
    pub bytes: &'static [u8],
}

/// The ways a corpus is fed to the deserializer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// (a) one contiguous slice, decoded with the fast path over a cursor.
    Slice,
    /// (b) streamed through the read buffer from a reader returning 8 KiB per read.
    Stream8k,
    /// (b) consumed with `ResponseStream::for_each_result` instead of `StreamExt::next`.
    Visit8k,
    /// (c) as (b) with 1 KiB per read.
    Stream1k,
    /// (d) as (b) with the fast path off: every read takes the async slow path.
    Slow8k,
}

impl Mode {
    /// Every mode, in report order.
    pub const ALL: [Mode; 5] = [
        Mode::Slice,
        Mode::Stream8k,
        Mode::Visit8k,
        Mode::Stream1k,
        Mode::Slow8k,
    ];

    /// The benchmark id of the mode.
    pub fn id(self) -> &'static str {
        match self {
            Mode::Slice => "a_slice",
            Mode::Stream8k => "b_stream_8k",
            Mode::Visit8k => "b_visit_8k",
            Mode::Stream1k => "c_stream_1k",
            Mode::Slow8k => "d_slow_8k",
        }
    }
}

fn header(out: &mut Vec<u8>, bulked: bool) {
    out.push(0x84);
    out.push(u8::from(bulked));
}

fn footer(out: &mut Vec<u8>) {
    // Marker, then status 200, no message, no exception.
    out.extend_from_slice(&[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01]);
}

fn leak(v: Vec<u8>) -> &'static [u8] {
    Box::leak(v.into_boxed_slice())
}

/// A tiny deterministic generator (xorshift), so corpora are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const NAMES: [&str; 16] = [
    "marko",
    "vadas",
    "lop",
    "josh",
    "ripple",
    "peter",
    "stephen",
    "daniel",
    "matthias",
    "okram",
    "spmallette",
    "jorgebay",
    "kenhuuu",
    "xiazcy",
    "cole",
    "valentyn",
];

fn name(rng: &mut Rng) -> String {
    let n = NAMES[rng.below(NAMES.len() as u64) as usize];
    format!("{n}-{}", rng.below(100_000))
}

fn labels(s: &str) -> Labels {
    Labels::from(Arc::<str>::from(s))
}

fn vertex_property(id: i64, key: &str, value: Value) -> VertexProperty {
    VertexProperty {
        id: Value::Long(id),
        label: labels(key),
        value,
        parent: Value::Null(0xfe),
        properties: None,
    }
}

/// A vertex as Gremlin Server 4 returns it from `g.V()`: id, label, and its properties.
fn vertex(rng: &mut Rng, i: i64) -> Vertex {
    let person = i % 4 != 0;
    let props = if person {
        vec![
            vertex_property(i * 10 + 1, "name", Value::String(name(rng))),
            vertex_property(i * 10 + 2, "age", Value::Int(18 + rng.below(60) as i32)),
        ]
    } else {
        vec![
            vertex_property(i * 10 + 1, "name", Value::String(name(rng))),
            vertex_property(i * 10 + 2, "lang", Value::String("java".into())),
        ]
    };
    Vertex {
        id: Value::Long(i),
        label: labels(if person { "person" } else { "software" }),
        properties: Some(props),
    }
}

fn response(bulked: bool, items: impl Iterator<Item = (Value, Option<i64>)>) -> Vec<u8> {
    let mut out = Vec::new();
    header(&mut out, bulked);
    for (v, bulk) in items {
        v.encode_fq(&mut out).expect("encode corpus value");
        if let Some(b) = bulk {
            // Gremlin Server 4.0.0-beta.3 writes each bulk as a fully-qualified Long.
            Value::Long(b).encode_fq(&mut out).expect("encode bulk");
        }
    }
    footer(&mut out);
    out
}

/// 200,000 vertices, each with two vertex properties.
pub fn vertices() -> Corpus {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let n = 200_000;
    let bytes = response(
        false,
        (0..n).map(|i| (Value::Vertex(Box::new(vertex(&mut rng, i))), None)),
    );
    Corpus {
        name: "vertices_200k",
        description: "200,000 vertices (Long id, one label, 2 vertex properties: name String + age Int or lang String)",
        results: n as u64,
        bytes: leak(bytes),
    }
}

/// 100,000 `elementMap()`-style maps: `{T.id: Long, T.label: String, name: String, age: Int}`.
pub fn element_maps() -> Corpus {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let n = 100_000;
    let bytes = response(
        false,
        (0..n).map(|i| {
            let m = vec![
                (Value::T(T::Id), Value::Long(i)),
                (Value::T(T::Label), Value::String("person".into())),
                (Value::String("name".into()), Value::String(name(&mut rng))),
                (
                    Value::String("age".into()),
                    Value::Int(18 + rng.below(60) as i32),
                ),
            ];
            (Value::Map(m), None)
        }),
    );
    Corpus {
        name: "element_maps_100k",
        description:
            "100,000 elementMap()-style Maps {T.id: Long, T.label, name: String, age: Int}",
        results: n as u64,
        bytes: leak(bytes),
    }
}

/// 50,000 paths `v -e-> v -e-> v` with vertices carrying properties and one step label.
pub fn paths() -> Corpus {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let n = 50_000;
    let bytes = response(
        false,
        (0..n).map(|i| {
            let a = vertex(&mut rng, i * 3);
            let b = vertex(&mut rng, i * 3 + 1);
            let c = vertex(&mut rng, i * 3 + 2);
            let edge = |id: i64, from: &Vertex, to: &Vertex| {
                Value::Edge(Box::new(Edge {
                    id: Value::Long(id),
                    label: labels("knows"),
                    in_v_id: to.id.clone(),
                    in_v_label: to.label.clone(),
                    out_v_id: from.id.clone(),
                    out_v_label: from.label.clone(),
                    parent: Value::Null(0xfe),
                    properties: None,
                }))
            };
            let e1 = edge(i * 2, &a, &b);
            let e2 = edge(i * 2 + 1, &b, &c);
            let path = Path {
                labels: vec![
                    Set(vec![Arc::from("a")]),
                    Set(vec![]),
                    Set(vec![Arc::from("b")]),
                    Set(vec![]),
                    Set(vec![]),
                ],
                objects: vec![
                    Value::Vertex(Box::new(a)),
                    e1,
                    Value::Vertex(Box::new(b)),
                    e2,
                    Value::Vertex(Box::new(c)),
                ],
            };
            (Value::Path(Box::new(path)), None)
        }),
    );
    Corpus {
        name: "paths_50k",
        description:
            "50,000 Paths of 5 objects (3 vertices with 2 properties each, 2 edges), step labels",
        results: n as u64,
        bytes: leak(bytes),
    }
}

/// 1,000,000 short strings (8 to 14 bytes).
pub fn strings() -> Corpus {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let n = 1_000_000;
    let bytes = response(false, (0..n).map(|_| (Value::String(name(&mut rng)), None)));
    Corpus {
        name: "strings_1m",
        description: "1,000,000 short Strings (names like `marko-12345`)",
        results: n as u64,
        bytes: leak(bytes),
    }
}

/// A bulked response of 500,000 mixed values with bulks.
pub fn bulked_mixed() -> Corpus {
    let mut rng = Rng(0x0bad_cafe_1234_5678);
    let n = 500_000u64;
    let bytes = response(
        true,
        (0..n).map(|i| {
            let v = match i % 8 {
                0 => Value::Int(rng.next() as i32),
                1 => Value::Long(rng.next() as i64),
                2 => Value::String(name(&mut rng)),
                3 => Value::Double(rng.next() as f64 / 3.0),
                4 => Value::Boolean(rng.next() & 1 == 1),
                5 => Value::Uuid(uuid::Uuid::from_u64_pair(rng.next(), rng.next())),
                6 => Value::List(vec![Value::Int(i as i32), Value::String(name(&mut rng))]),
                _ => Value::Map(vec![(
                    Value::String("count".into()),
                    Value::Long(rng.below(1000) as i64),
                )]),
            };
            (v, Some(1 + rng.below(5) as i64))
        }),
    );
    Corpus {
        name: "bulked_mixed_500k",
        description: "bulked response: 500,000 mixed values (Int, Long, String, Double, Boolean, UUID, 2-item List, 1-entry Map) each with a bulk",
        results: n,
        bytes: leak(bytes),
    }
}

/// One 64 MiB Binary.
pub fn binary() -> Corpus {
    let len = 64 << 20;
    let mut rng = Rng(0x5555_aaaa_3333_cccc);
    let mut data = Vec::with_capacity(len);
    while data.len() < len {
        data.extend_from_slice(&rng.next().to_le_bytes());
    }
    let bytes = response(false, std::iter::once((Value::Binary(data), None)));
    Corpus {
        name: "binary_64mib",
        description: "one 64 MiB Binary",
        results: 1,
        bytes: leak(bytes),
    }
}

/// Every corpus, in report order.
pub fn all() -> Vec<Corpus> {
    vec![
        vertices(),
        element_maps(),
        paths(),
        strings(),
        bulked_mixed(),
        binary(),
    ]
}

/// The corpora named in `BENCH_CORPORA` (comma-separated; all when unset).
pub fn selected() -> Vec<Corpus> {
    let only = std::env::var("BENCH_CORPORA").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|w| !w.is_empty() && name.starts_with(w)))
    };
    type Maker = (&'static str, fn() -> Corpus);
    let makers: [Maker; 6] = [
        ("vertices_200k", vertices),
        ("element_maps_100k", element_maps),
        ("paths_50k", paths),
        ("strings_1m", strings),
        ("bulked_mixed_500k", bulked_mixed),
        ("binary_64mib", binary),
    ];
    makers
        .iter()
        .filter(|(n, _)| wanted(n))
        .map(|(_, f)| f())
        .collect()
}

/// An [`AsyncRead`] over a slice that hands out at most `chunk` bytes per read, copying once
/// (as a socket read copies once from the kernel).
pub struct ChunkReader {
    data: &'static [u8],
    chunk: usize,
}

impl ChunkReader {
    /// Reads `data` at most `chunk` bytes at a time.
    pub fn new(data: &'static [u8], chunk: usize) -> Self {
        ChunkReader { data, chunk }
    }
}

impl AsyncRead for ChunkReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let n = self.chunk.min(buf.remaining()).min(self.data.len());
        let (head, tail) = self.data.split_at(n);
        buf.put_slice(head);
        self.data = tail;
        Poll::Ready(Ok(()))
    }
}

/// (a): decodes every result of a response held in one slice with the fast path, dropping each
/// as it is decoded. Returns the number of results.
pub fn drain_slice(bytes: &[u8]) -> u64 {
    let limits = ReadOptions::default().limits;
    let mut interner = Interner::new();
    let mut cur = Cursor::new(bytes, 0, &limits).with_interner(&mut interner);
    assert_eq!(cur.read_u8().unwrap(), 0x84, "version");
    let bulked = cur.read_u8().unwrap() == 1;
    let mut n = 0;
    while cur.peek_u8().unwrap() != 0xfd {
        let v = Value::decode(&mut cur).expect("corpus decodes");
        let bulk = if bulked {
            Fq::<i64>::decode(&mut cur).expect("bulk").0
        } else {
            1
        };
        std::hint::black_box((v, bulk));
        n += 1;
    }
    n
}

/// (b), (c), (d): streams a response through [`read_response`], dropping each result as it
/// is yielded. Returns the number of results.
pub async fn drain_stream(bytes: &'static [u8], chunk: usize, fast_path: bool) -> u64 {
    let opts = ReadOptions {
        fast_path,
        ..ReadOptions::default()
    };
    let mut results = read_response(ChunkReader::new(bytes, chunk), opts);
    let mut n = 0;
    while let Some(r) = results.next().await {
        std::hint::black_box(r.expect("corpus decodes"));
        n += 1;
    }
    assert_eq!(results.status().map(|s| s.code), Some(200));
    n
}

/// (b) with [`ResponseStream::for_each_result`]: every result is passed to a closure that
/// drops it. Returns the number of results.
pub async fn drain_visit(bytes: &'static [u8], chunk: usize) -> u64 {
    let mut results = read_response(ChunkReader::new(bytes, chunk), ReadOptions::default());
    let mut n = 0;
    results
        .for_each_result(|t| {
            std::hint::black_box(t);
            n += 1;
        })
        .await
        .expect("corpus decodes");
    assert_eq!(results.status().map(|s| s.code), Some(200));
    n
}

/// Runs one drain of `corpus` in `mode`, on `rt` for the streamed modes.
pub fn run(rt: &tokio::runtime::Runtime, corpus: &Corpus, mode: Mode) -> u64 {
    match mode {
        Mode::Slice => drain_slice(corpus.bytes),
        Mode::Stream8k => rt.block_on(drain_stream(corpus.bytes, 8 << 10, true)),
        Mode::Visit8k => rt.block_on(drain_visit(corpus.bytes, 8 << 10)),
        Mode::Stream1k => rt.block_on(drain_stream(corpus.bytes, 1 << 10, true)),
        Mode::Slow8k => rt.block_on(drain_stream(corpus.bytes, 8 << 10, false)),
    }
}

/// A single-threaded runtime, like a client task's.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("tokio runtime")
}
