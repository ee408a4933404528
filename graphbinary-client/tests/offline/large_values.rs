//! Values larger than the read buffer, by every route: the `Value` route, the skip route
//! (`count_results`, `for_each_skipped`) and the serde route (`for_each_as`) read them by
//! their slow paths, split at many read sizes, and must agree with each other and with the
//! fast path over the whole bytes; truncation anywhere is a clean error at the offset where
//! the input ended; bad UTF-8 across a read boundary is caught at the String's offset.

use graphbinary_testkit::common;

use std::fmt;

use graphbinary_client::response::{read_response, ReadOptions, ResponseError};
use graphbinary_client::value::Value;
use graphbinary_core::testing::ChunkedReader;
use graphbinary_core::{ErrorKind, FqEncode};
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// The read buffer of these tests: every large value below is several times its size.
const CAPACITY: usize = 4096;

fn opts() -> ReadOptions {
    ReadOptions {
        capacity: CAPACITY,
        ..ReadOptions::default()
    }
}

/// Deterministic bytes.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// A String of `n` chars of 1, 2, 3 and 4 bytes, so that read boundaries fall inside chars.
fn text(n: usize) -> String {
    ['a', 'é', '€', '𝄞', 'z', 'ж']
        .iter()
        .cycle()
        .take(n)
        .collect()
}

/// The large values (and small ones between them), each larger than [`CAPACITY`] or holding
/// one that is.
fn values() -> Vec<Value> {
    vec![
        Value::Binary(noise(20_000, 1)),
        Value::Int(7),
        Value::String(text(9_000)),
        Value::List(vec![
            Value::Int(1),
            Value::Binary(noise(9_000, 2)),
            Value::String(text(3_000)),
            Value::Long(-2),
        ]),
        Value::Map(vec![
            (Value::String("k".into()), Value::Binary(noise(10_000, 3))),
            (Value::String("s".into()), Value::String(text(5_000))),
        ]),
        Value::BigInteger(graphbinary_client::value::BigInteger::from_bytes(noise(
            7_000, 4,
        ))),
        Value::String(String::new()),
        Value::Binary(Vec::new()),
    ]
}

/// A response holding `values`, bulked (bulk `i + 1`) or not.
fn response(values: &[Value], bulked: bool) -> Vec<u8> {
    let mut out = vec![0x84, u8::from(bulked)];
    for (i, v) in values.iter().enumerate() {
        v.encode_fq(&mut out).unwrap();
        if bulked {
            Value::Long(i as i64 + 1).encode_fq(&mut out).unwrap();
        }
    }
    out.extend_from_slice(&[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01]);
    out
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

fn reader(bytes: &[u8], chunk: usize) -> ChunkedReader<std::io::Cursor<Vec<u8>>> {
    ChunkedReader::new(std::io::Cursor::new(bytes.to_vec()), chunk)
}

/// What a visitor was handed: the content, and whether it came by value.
#[derive(Debug, Clone, PartialEq)]
enum Probe {
    Int(i64),
    Str(String, bool),
    Bytes(Vec<u8>, bool),
    List(Vec<Probe>),
    Map(Vec<(Probe, Probe)>),
    Unit,
}

impl Probe {
    /// The content alone.
    fn content(&self) -> Probe {
        match self {
            Probe::Str(s, _) => Probe::Str(s.clone(), false),
            Probe::Bytes(b, _) => Probe::Bytes(b.clone(), false),
            Probe::List(v) => Probe::List(v.iter().map(Probe::content).collect()),
            Probe::Map(v) => {
                Probe::Map(v.iter().map(|(k, v)| (k.content(), v.content())).collect())
            }
            other => other.clone(),
        }
    }
}

impl<'de> Deserialize<'de> for Probe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Probe;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_i32<E>(self, v: i32) -> Result<Probe, E> {
                Ok(Probe::Int(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Probe, E> {
                Ok(Probe::Int(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Probe, E> {
                Ok(Probe::Str(v.to_owned(), false))
            }
            fn visit_string<E>(self, v: String) -> Result<Probe, E> {
                Ok(Probe::Str(v, true))
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Probe, E> {
                Ok(Probe::Bytes(v.to_vec(), false))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Probe, E> {
                Ok(Probe::Bytes(v, true))
            }
            fn visit_unit<E>(self) -> Result<Probe, E> {
                Ok(Probe::Unit)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Probe, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Probe::List(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Probe, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_entry()? {
                    v.push(x);
                }
                Ok(Probe::Map(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// Bytes taken only through `visit_bytes` (as the benchmark's struct does).
#[derive(Debug, PartialEq)]
struct BytesOnly(Vec<u8>);

impl<'de> Deserialize<'de> for BytesOnly {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = BytesOnly;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<BytesOnly, E> {
                Ok(BytesOnly(v.to_vec()))
            }
        }
        d.deserialize_bytes(V)
    }
}

async fn by_value(bytes: &[u8], chunk: usize) -> Result<Vec<(Value, i64)>, ResponseError> {
    let mut s = read_response(reader(bytes, chunk), opts());
    let mut out = Vec::new();
    s.for_each_result(|t| out.push((t.value, t.bulk))).await?;
    Ok(out)
}

async fn by_skip(bytes: &[u8], chunk: usize) -> Result<Vec<i64>, ResponseError> {
    let mut s = read_response(reader(bytes, chunk), opts());
    let mut out = Vec::new();
    s.for_each_skipped(|bulk| out.push(bulk)).await?;
    Ok(out)
}

async fn by_serde<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    chunk: usize,
) -> Result<Vec<(T, i64)>, ResponseError> {
    let mut s = read_response(reader(bytes, chunk), opts());
    let mut out = Vec::new();
    s.for_each_as(|v: T, bulk| out.push((v, bulk))).await?;
    Ok(out)
}

const CHUNKS: [usize; 4] = [1, 7, 8192, 1 << 20];

#[test]
fn large_values_agree_across_routes_and_read_sizes() {
    let rt = rt();
    let values = values();
    for bulked in [false, true] {
        let bytes = response(&values, bulked);
        let bulks: Vec<i64> = (0..values.len())
            .map(|i| if bulked { i as i64 + 1 } else { 1 })
            .collect();
        // The fast path over each value's own bytes, whole: what every route must match.
        let whole: Vec<Probe> = values
            .iter()
            .map(|v| graphbinary_client::format::de::from_slice(&v.to_bytes().unwrap()).unwrap())
            .collect();
        for chunk in CHUNKS {
            let ctx = format!("bulked {bulked}, reads of {chunk}");
            rt.block_on(async {
                let got = by_value(&bytes, chunk).await.expect(&ctx);
                let expected: Vec<(Value, i64)> =
                    values.iter().cloned().zip(bulks.iter().copied()).collect();
                assert_eq!(got, expected, "{ctx}");

                assert_eq!(by_skip(&bytes, chunk).await.expect(&ctx), bulks, "{ctx}");
                let mut s = read_response(reader(&bytes, chunk), opts());
                let n = s.count_results().await.expect(&ctx);
                assert_eq!(n, bulks.iter().sum::<i64>() as u64, "{ctx}");

                let probes = by_serde::<Probe>(&bytes, chunk).await.expect(&ctx);
                let content: Vec<Probe> = probes.iter().map(|(p, _)| p.content()).collect();
                let want: Vec<Probe> = whole.iter().map(Probe::content).collect();
                assert_eq!(content, want, "{ctx}");
                assert_eq!(
                    probes.iter().map(|(_, b)| *b).collect::<Vec<_>>(),
                    bulks,
                    "{ctx}"
                );
                // The top-level large String and Binary come by value (no copy of their own).
                assert!(matches!(probes[0].0, Probe::Bytes(_, true)), "{ctx}");
                assert!(matches!(probes[2].0, Probe::Str(_, true)), "{ctx}");

                let values_back = by_serde::<Value>(&bytes, chunk).await.expect(&ctx);
                assert_eq!(
                    values_back.into_iter().map(|(v, _)| v).collect::<Vec<_>>(),
                    values,
                    "{ctx}"
                );
            });
        }
    }
}

#[test]
fn a_visitor_taking_only_visit_bytes_gets_the_large_binary() {
    let rt = rt();
    let data = noise(50_000, 9);
    let bytes = response(&[Value::Binary(data.clone())], false);
    for chunk in CHUNKS {
        let got = rt.block_on(by_serde::<BytesOnly>(&bytes, chunk)).unwrap();
        assert_eq!(got, [(BytesOnly(data.clone()), 1)], "reads of {chunk}");
        // A large String is not bytes: the same error as the fast path's, at the value.
        let text_bytes = response(&[Value::String(text(20_000))], false);
        let e = rt
            .block_on(by_serde::<BytesOnly>(&text_bytes, chunk))
            .unwrap_err();
        let fast = graphbinary_client::format::de::from_slice::<BytesOnly>(
            &Value::String(text(20_000)).to_bytes().unwrap(),
        )
        .unwrap_err();
        let ResponseError::Decode(e) = e else {
            panic!("{e:?}")
        };
        assert_eq!(e.offset(), 2, "reads of {chunk}: {e}");
        assert!(
            e.to_string().contains("invalid type: string"),
            "reads of {chunk}: {e} (fast path: {fast})"
        );
    }
}

/// The end of input at `cut`: every route ends with `UnexpectedEof` at `cut`.
fn assert_truncated_at(bytes: &[u8], cut: usize) {
    let rt = rt();
    let cut_bytes = &bytes[..cut];
    for chunk in [1, 7, 8192] {
        let ctx = format!("cut at {cut}, reads of {chunk}");
        let errors = rt.block_on(async {
            [
                by_value(cut_bytes, chunk).await.map(drop),
                by_skip(cut_bytes, chunk).await.map(drop),
                by_serde::<Probe>(cut_bytes, chunk).await.map(drop),
                by_serde::<BytesOnly>(cut_bytes, chunk).await.map(drop),
            ]
        });
        for (route, r) in ["value", "skip", "serde", "serde bytes"].iter().zip(errors) {
            let e = match r {
                Err(ResponseError::Decode(e)) => e,
                other => panic!("{ctx}, {route}: {other:?}"),
            };
            if *route == "serde bytes" && !matches!(e.kind(), ErrorKind::UnexpectedEof { .. }) {
                // A value before the cut that is not bytes fails that way first.
                continue;
            }
            common::assert_eof_at(&e, cut as u64, &format!("{ctx}, {route}"));
        }
    }
}

#[test]
fn truncation_inside_large_values_is_a_clean_error_at_the_cut() {
    let values = values();
    let bytes = response(&values, false);
    let first = 2 + 6 + 20_000; // the 20,000-byte Binary, after the response header
    let string_at = first + 6; // after Int 7
    let list_at = string_at + 6 + text(9_000).len();
    for cut in [
        2 + 1,                 // inside the Binary's header
        2 + 4,                 // inside its length
        2 + 6 + 1,             // its first payload byte
        2 + 6 + CAPACITY + 3,  // past one buffer
        first - 1,             // one byte short
        string_at + 6 + 1,     // after the String's first (1-byte) char
        string_at + 6 + 2,     // inside its first 2-byte char
        string_at + 6 + 5_001, // deep inside it
        list_at + 6 + 6 + 5,   // inside the length of the List's Binary
        list_at + 20 + 5_000,  // inside the List's Binary
        bytes.len() - 12,      // between the last values
        bytes.len() - 3,       // inside the status
    ] {
        assert_truncated_at(&bytes, cut);
    }
}

#[test]
fn bad_utf8_in_a_large_string_is_caught_across_read_boundaries() {
    let rt = rt();
    let good = text(6_000).into_bytes();
    // Bad sequences at several places (each on a char's first byte: `text` repeats 13 bytes,
    // whose chars start at 0, 1, 3, 6, 10 and 11): a lone continuation byte, a lead byte
    // followed by ASCII, and a string ending inside a 3-byte char.
    let mut cases = Vec::new();
    for at in [
        0,
        1,
        CAPACITY - 8,
        CAPACITY - 1,
        CAPACITY,
        9_006,
        good.len() - 3,
    ] {
        assert!([0, 1, 3, 6, 10, 11].contains(&(at % 13)), "{at}");
        let mut b = good.clone();
        b[at] = 0x80;
        cases.push(b);
        let mut b = good.clone();
        b[at] = 0xe2;
        if at + 1 < b.len() {
            b[at + 1] = b'A';
        }
        cases.push(b);
    }
    let mut b = good.clone();
    b.extend_from_slice(&[0xe2, 0x82]);
    cases.push(b);
    for payload in cases {
        // A String header, length and the payload; then an Int, so the error is the String's.
        let mut bytes = vec![0x84, 0x00, 0x03, 0x00];
        bytes.extend((payload.len() as i32).to_be_bytes());
        bytes.extend_from_slice(&payload);
        Value::Int(1).encode_fq(&mut bytes).unwrap();
        bytes.extend_from_slice(&[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01]);
        for chunk in [1, 7, 8192] {
            let errors = rt.block_on(async {
                [
                    by_value(&bytes, chunk).await.map(drop),
                    by_skip(&bytes, chunk).await.map(drop),
                    by_serde::<Probe>(&bytes, chunk).await.map(drop),
                ]
            });
            for (route, r) in ["value", "skip", "serde"].iter().zip(errors) {
                let e = match r {
                    Err(ResponseError::Decode(e)) => e,
                    other => panic!("reads of {chunk}, {route}: {other:?}"),
                };
                assert!(
                    matches!(e.kind(), ErrorKind::InvalidUtf8 { .. }),
                    "reads of {chunk}, {route}: {e}"
                );
                // The offset of the String's length, as on the fast path.
                assert_eq!(e.offset(), 4, "reads of {chunk}, {route}: {e}");
            }
        }
    }
}

/// The error each route (0: `Value`, 1: skip, 2: serde) ends `bytes` with under `o`.
fn route_errors(
    rt: &tokio::runtime::Runtime,
    bytes: &[u8],
    o: ReadOptions,
) -> Vec<graphbinary_core::DecodeError> {
    (0..3)
        .map(|route| {
            let e = rt.block_on(async {
                let mut s = read_response(reader(bytes, 8192), o);
                match route {
                    0 => s.for_each_result(drop).await,
                    1 => s.for_each_skipped(drop).await,
                    _ => s.for_each_as(|_: Probe, _| {}).await,
                }
                .unwrap_err()
            });
            let ResponseError::Decode(e) = e else {
                panic!("route {route}: {e:?}")
            };
            e
        })
        .collect()
}

#[test]
fn limits_still_hold_on_the_large_value_routes() {
    let rt = rt();
    let bytes = response(&[Value::Binary(noise(30_000, 5))], false);
    // A Binary over max_bytes_len: the length's offset, before any payload is read.
    let mut o = opts();
    o.limits.max_bytes_len = 10_000;
    for (route, e) in route_errors(&rt, &bytes, o).iter().enumerate() {
        assert!(
            matches!(e.kind(), ErrorKind::LengthLimit { .. }),
            "route {route}: {e}"
        );
        assert_eq!(e.offset(), 4, "route {route}: {e}");
    }
    // A response over max_response_size, in the middle of the Binary.
    let mut o = opts();
    o.limits.max_response_size = Some(20_000);
    for (route, e) in route_errors(&rt, &bytes, o).iter().enumerate() {
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LengthLimit { .. } | ErrorKind::ResponseLimit { .. }
            ),
            "route {route}: {e}"
        );
    }
}

/// A count cancelled while it steps over a value larger than the buffer leaves that step in
/// the stream: the next count finishes it (and counts the value once), while a plain read of
/// values refuses it rather than hand back the value after it as if it were this one.
#[test]
fn a_count_cancelled_inside_a_large_value_resumes_or_fails_cleanly() {
    use futures::StreamExt;
    use tokio::io::AsyncWriteExt;

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let bytes = response(
        &[
            Value::Int(1),
            Value::Binary(noise(20_000, 9)),
            Value::Int(2),
        ],
        false,
    );
    // Inside the Binary: past the Int and the Binary's header and length.
    let cut = bytes.len() / 2;
    for resume_by_count in [true, false] {
        rt.block_on(async {
            let (mut tx, rx) = tokio::io::duplex(1 << 16);
            tx.write_all(&bytes[..cut]).await.unwrap();
            let mut s = read_response(rx, opts());
            let mut seen = 0;
            let r = tokio::time::timeout(
                std::time::Duration::from_millis(50),
                s.for_each_skipped(|_| seen += 1),
            )
            .await;
            assert!(r.is_err(), "the count waits inside the Binary: {r:?}");
            assert_eq!(seen, 1, "the Int before the Binary is counted");
            tx.write_all(&bytes[cut..]).await.unwrap();
            drop(tx);
            if resume_by_count {
                assert_eq!(
                    s.count_results().await.unwrap(),
                    2,
                    "the Binary, once, and the Int after it"
                );
            } else {
                let e = s.next().await.expect("an item").unwrap_err();
                assert!(format!("{e:?}").contains("cancelled"), "{e:?}");
                assert!(s.next().await.is_none(), "the stream ends after the error");
            }
        });
    }
}
