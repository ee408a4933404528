//! Property tests: random value trees (every variant, bounded depth and size) read back through
//! the buffer at random capacities and random chunkings give the same value (compared by
//! re-encoded bytes, so NaNs compare); a response truncated at every byte position gives its
//! results before the cut and then an error naming that offset, never a panic.

use std::sync::Arc;

use futures::StreamExt;
use graphbinary_client::response::{read_response, ReadOptions, ResponseError};
use graphbinary_client::value::{
    BigDecimal, BigInteger, CompositePdt, DateTime, Direction, Duration, Edge, Graph, Labels,
    Merge, Path, PrimitivePdt, Property, Tree, Value, Vertex, VertexProperty, T,
};
use graphbinary_core::testing::{block_on, ChunkedReader};
use graphbinary_core::{ErrorKind, ReadBuffer, Set};
use proptest::prelude::*;

/// A reader returning chunks whose sizes cycle through `sizes`, and `Pending` (after waking
/// itself) before every other chunk.
fn chunks(data: Vec<u8>, sizes: Vec<usize>) -> ChunkedReader<std::io::Cursor<Vec<u8>>> {
    ChunkedReader::with_sizes(std::io::Cursor::new(data), &sizes).pending_between_reads()
}

fn label() -> impl Strategy<Value = Arc<str>> {
    prop_oneof![Just("person"), Just("knows"), Just("name"), Just("ü∂")].prop_map(Arc::from)
}

fn label_list() -> impl Strategy<Value = Vec<Arc<str>>> {
    prop::collection::vec(label(), 0..3)
}

/// An element's labels (held inline when there is one).
fn labels() -> impl Strategy<Value = Labels> {
    label_list().prop_map(Labels::from)
}

fn leaf() -> impl Strategy<Value = Value> {
    const NULL_CODES: [u8; 8] = [0x01, 0x02, 0x03, 0x09, 0x0a, 0x11, 0x27, 0xfe];
    prop_oneof![
        prop::sample::select(&NULL_CODES[..]).prop_map(Value::Null),
        any::<i32>().prop_map(Value::Int),
        any::<i64>().prop_map(Value::Long),
        ".{0,12}".prop_map(Value::String),
        (
            any::<i32>(),
            any::<i8>(),
            any::<i8>(),
            any::<i64>(),
            any::<i32>()
        )
            .prop_map(|(year, month, day, nanos, offset_seconds)| Value::DateTime(
                DateTime::new(year, month, day, nanos, offset_seconds)
            )),
        any::<u64>().prop_map(|b| Value::Double(f64::from_bits(b))),
        any::<u32>().prop_map(|b| Value::Float(f32::from_bits(b))),
        any::<u128>().prop_map(|u| Value::Uuid(uuid::Uuid::from_u128(u))),
        prop::sample::select(&[Direction::Out, Direction::In, Direction::Both][..])
            .prop_map(Value::Direction),
        prop::sample::select(&[T::Id, T::Key, T::Label, T::Value][..]).prop_map(Value::T),
        prop::collection::vec(any::<u8>(), 1..6)
            .prop_map(|b| Value::BigInteger(BigInteger::from_bytes(b))),
        (any::<i32>(), prop::collection::vec(any::<u8>(), 1..6)).prop_map(|(scale, b)| {
            Value::BigDecimal(Box::new(BigDecimal {
                scale,
                unscaled: BigInteger::from_bytes(b),
            }))
        }),
        any::<i8>().prop_map(Value::Byte),
        prop::collection::vec(any::<u8>(), 0..12).prop_map(Value::Binary),
        any::<i16>().prop_map(Value::Short),
        any::<bool>().prop_map(Value::Boolean),
        prop::sample::select(&[Merge::OnCreate, Merge::OnMatch, Merge::OutV, Merge::InV][..])
            .prop_map(Value::Merge),
        ("[a-z]{1,6}", "[0-9]{0,4}").prop_map(|(type_name, value)| Value::PrimitivePdt(Box::new(
            PrimitivePdt { type_name, value }
        ))),
        Just(Value::Marker),
        any::<char>().prop_map(Value::Char),
        (any::<i64>(), any::<i32>())
            .prop_map(|(seconds, nanos)| Value::Duration(Duration { seconds, nanos })),
    ]
}

fn property(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Property> {
    (label(), inner.clone(), inner).prop_map(|(key, value, parent)| Property { key, value, parent })
}

fn vertex(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Vertex> {
    let vp = (
        inner.clone(),
        labels(),
        inner.clone(),
        inner.clone(),
        prop::option::of(prop::collection::vec(property(inner.clone()), 0..2)),
    )
        .prop_map(|(id, label, value, parent, properties)| VertexProperty {
            id,
            label,
            value,
            parent,
            properties,
        });
    (
        inner,
        labels(),
        prop::option::of(prop::collection::vec(vp, 0..2)),
    )
        .prop_map(|(id, label, properties)| Vertex {
            id,
            label,
            properties,
        })
}

fn edge(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Edge> {
    (
        (inner.clone(), labels(), inner.clone(), labels()),
        (inner.clone(), labels(), inner.clone()),
        prop::option::of(prop::collection::vec(property(inner), 0..2)),
    )
        .prop_map(
            |((id, label, in_v_id, in_v_label), (out_v_id, out_v_label, parent), properties)| {
                Edge {
                    id,
                    label,
                    in_v_id,
                    in_v_label,
                    out_v_id,
                    out_v_label,
                    parent,
                    properties,
                }
            },
        )
}

/// Random value trees: every variant, at most 4 levels, a few items per container.
fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 4, |inner| {
        let items = prop::collection::vec(inner.clone(), 0..4);
        let pairs = prop::collection::vec((inner.clone(), inner.clone()), 0..3);
        let tree = prop::collection::vec(
            (
                inner.clone(),
                prop::collection::vec((inner.clone(), Just(Tree(vec![]))), 0..2).prop_map(Tree),
            ),
            0..3,
        )
        .prop_map(Tree);
        prop_oneof![
            items.clone().prop_map(Value::List),
            prop::collection::vec((inner.clone(), any::<i64>()), 0..3).prop_map(Value::BulkList),
            pairs.clone().prop_map(Value::Map),
            pairs.prop_map(Value::OrderedMap),
            items.clone().prop_map(Value::Set),
            edge(inner.clone()).prop_map(|e| Value::Edge(Box::new(e))),
            (
                prop::collection::vec(label_list().prop_map(Set), 0..3),
                items
            )
                .prop_map(|(labels, objects)| Value::Path(Box::new(Path { labels, objects }))),
            property(inner.clone()).prop_map(|p| Value::Property(Box::new(p))),
            (
                prop::collection::vec(vertex(inner.clone()), 0..2),
                prop::collection::vec(edge(inner.clone()), 0..2)
            )
                .prop_map(|(vertices, edges)| Value::Graph(Box::new(Graph { vertices, edges }))),
            vertex(inner.clone()).prop_map(|v| Value::Vertex(Box::new(v))),
            (
                inner.clone(),
                labels(),
                inner.clone(),
                inner.clone(),
                prop::option::of(prop::collection::vec(property(inner.clone()), 0..2)),
            )
                .prop_map(|(id, label, value, parent, properties)| {
                    Value::VertexProperty(Box::new(VertexProperty {
                        id,
                        label,
                        value,
                        parent,
                        properties,
                    }))
                }),
            tree.prop_map(Value::Tree),
            (
                "[A-Z][a-z]{0,5}",
                prop::collection::vec(("[a-z]{1,4}", inner), 0..3),
                any::<bool>()
            )
                .prop_map(|(type_name, fields, ordered)| {
                    Value::CompositePdt(Box::new(CompositePdt {
                        type_name,
                        fields: fields
                            .into_iter()
                            .map(|(k, v)| (Value::String(k), v))
                            .collect(),
                        ordered,
                    }))
                }),
        ]
    })
}

/// Fewer than `max` values for a response, none a top-level Marker (a Marker ends the results).
fn results(max: usize) -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec(
        value().prop_filter("a top-level Marker ends the results", |v| {
            *v != Value::Marker
        }),
        0..max,
    )
}

fn capacity() -> impl Strategy<Value = usize> {
    prop_oneof![3 => 1usize..=64, 1 => Just(64 * 1024)]
}

fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..=40, 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Encode, read back through a ReadBuffer of random capacity over random chunks (fast path
    /// on and off): the same bytes again.
    #[test]
    fn values_read_back_at_any_capacity_and_chunking(
        v in value(),
        cap in capacity(),
        sizes in chunk_sizes(),
        fast in any::<bool>(),
    ) {
        let bytes = v.to_bytes();
        prop_assume!(bytes.is_ok());
        let bytes = bytes.unwrap();
        let read = block_on(async {
            let mut buf = ReadBuffer::with_capacity(cap, chunks(bytes.clone(), sizes))
                .with_fast_path(fast);
            let v = buf.read::<Value>().await?;
            assert!(buf.is_at_end().await?);
            Ok::<_, graphbinary_core::DecodeError>(v)
        });
        let read = read.map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(read.to_bytes().unwrap(), bytes.clone());
        // And the fast path over the whole slice agrees.
        prop_assert_eq!(Value::from_bytes(&bytes).unwrap().to_bytes().unwrap(), bytes);
    }
}

/// A response of `values` (not bulked).
fn response(values: &[Value]) -> Vec<u8> {
    let mut out = vec![0x84, 0x00];
    for v in values {
        out.extend(v.to_bytes().unwrap());
    }
    out.extend_from_slice(&[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01]);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Cut a response at every byte: the results wholly before the cut, then UnexpectedEof at
    /// the cut's offset, on both paths.
    #[test]
    fn a_response_truncated_anywhere_is_an_error_at_the_cut(
        values in results(3),
        cap in capacity(),
        sizes in chunk_sizes(),
    ) {
        prop_assume!(values.iter().all(|v| v.to_bytes().is_ok()));
        let full = response(&values);
        // Where each result ends.
        let mut ends = Vec::new();
        let mut at = 2;
        for v in &values {
            at += v.to_bytes().unwrap().len();
            ends.push(at);
        }
        block_on(async {
            for cut in 0..full.len() {
                for fast in [true, false] {
                    let opts = ReadOptions { capacity: cap, fast_path: fast, ..ReadOptions::default() };
                    let mut s = read_response(
                        chunks(full[..cut].to_vec(), sizes.clone()),
                        opts,
                    );
                    let mut got = Vec::new();
                    let err = loop {
                        match s.next().await {
                            Some(Ok(t)) => got.push(t.value),
                            Some(Err(ResponseError::Decode(e))) => break e,
                            other => panic!("cut {cut}: expected an error, got {other:?}"),
                        }
                    };
                    assert!(s.next().await.is_none());
                    assert_eq!(err.offset(), cut as u64, "cut {cut} fast {fast}: {err}");
                    assert!(matches!(err.kind(), ErrorKind::UnexpectedEof { .. }), "cut {cut}: {err}");
                    let complete = ends.iter().filter(|&&e| e <= cut).count();
                    // Every result wholly before the cut may be yielded, in order; none after.
                    assert!(got.len() <= complete, "cut {cut}");
                    // Compared by bytes: a Graph's vertex property without properties reads
                    // back as an empty list, which is written the same.
                    let enc = |vs: &[Value]| vs.iter().map(|v| v.to_bytes().unwrap()).collect::<Vec<_>>();
                    assert_eq!(enc(&got), enc(&values[..got.len()]), "cut {cut}");
                }
            }
        });
    }
}

/// What a response reader produced: each result's bytes and bulk, then the error, if any.
type Outcome = (Vec<(Vec<u8>, i64)>, Option<String>);

fn error_text(e: ResponseError) -> String {
    format!("{:?} {e}", e.offset())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// `for_each_result` passes exactly the results the stream yields, then ends with the
    /// same error (offset and message) or status: whole, cut anywhere, bulked or not, at
    /// any capacity and chunking.
    #[test]
    fn for_each_result_agrees_with_the_stream(
        values in results(4),
        bulked in any::<bool>(),
        cut in any::<prop::sample::Index>(),
        whole in any::<bool>(),
        cap in capacity(),
        sizes in chunk_sizes(),
    ) {
        prop_assume!(values.iter().all(|v| v.to_bytes().is_ok()));
        let mut full = vec![0x84, u8::from(bulked)];
        for (i, v) in values.iter().enumerate() {
            full.extend(v.to_bytes().unwrap());
            if bulked {
                full.extend(Value::Long(i as i64 + 2).to_bytes().unwrap());
            }
        }
        full.extend_from_slice(&[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01]);
        let body = if whole { full.clone() } else { full[..cut.index(full.len())].to_vec() };
        let opts = ReadOptions { capacity: cap, ..ReadOptions::default() };
        let (streamed, visited): (Outcome, Outcome) = block_on(async {
            let mut s = read_response(chunks(body.clone(), sizes.clone()), opts);
            let mut got = Vec::new();
            let mut err = None;
            while let Some(r) = s.next().await {
                match r {
                    Ok(t) => got.push((t.value.to_bytes().unwrap(), t.bulk)),
                    Err(e) => err = Some(error_text(e)),
                }
            }
            let streamed = (got, err);
            let mut s = read_response(chunks(body.clone(), sizes.clone()), opts);
            let mut got = Vec::new();
            let err = s
                .for_each_result(|t| got.push((t.value.to_bytes().unwrap(), t.bulk)))
                .await
                .err()
                .map(error_text);
            assert!(s.next().await.is_none(), "the stream has ended");
            ((streamed), (got, err))
        });
        prop_assert_eq!(&visited, &streamed);
        if whole {
            prop_assert_eq!(visited.0.len(), values.len());
            prop_assert!(visited.1.is_none());
        }
    }
}
