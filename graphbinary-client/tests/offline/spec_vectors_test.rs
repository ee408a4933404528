//! Our own vectors (`spec/vectors/*.toml`, compiled into `tests/generated/spec_vectors.rs`):
//! every value decodes, re-encodes byte for byte, matches its GraphSON, and decodes the same
//! fed one byte per read and split at every boundary; every response streams to the expected
//! items, bulks and footer.

use crate::generated::spec_vectors;
use graphbinary_testkit::common;

use common::{block_on, same_json, Pieces};
use futures::StreamExt;
use graphbinary_client::format::graphson::to_graphson;
use graphbinary_client::response::{read_response, ReadOptions, ResponseError};
use graphbinary_client::value::Value;
use graphbinary_core::ReadBuffer;
use spec_vectors::{SPEC_RESPONSES, SPEC_VECTORS};

#[test]
fn every_spec_vector_round_trips_and_matches_its_graphson() {
    assert!(SPEC_VECTORS.len() >= 100, "{}", SPEC_VECTORS.len());
    let mut failures = Vec::new();
    for sv in SPEC_VECTORS {
        let v = match Value::from_bytes(sv.bytes) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{} ({}): {e}", sv.name, sv.file));
                continue;
            }
        };
        assert_eq!(v.type_code(), sv.type_code, "{}", sv.name);
        let out = v.to_bytes().unwrap();
        if out != sv.bytes {
            failures.push(format!("{}: re-encoded {out:02x?}", sv.name));
        }
        if let Some(expected) = sv.graphson {
            if let Err(e) = same_json(&to_graphson(&v), expected) {
                failures.push(format!("{} GraphSON: {e}", sv.name));
            }
        }
        block_on(async {
            for cap in [1, 16, 1 << 16] {
                let mut buf = ReadBuffer::with_capacity(cap, Pieces::chunks(sv.bytes, 1));
                let w = buf.read::<Value>().await.unwrap();
                assert_eq!(w, v, "{} capacity {cap}", sv.name);
            }
            for split in 1..sv.bytes.len() {
                let mut buf = ReadBuffer::new(Pieces::split(sv.bytes, &[split]));
                assert_eq!(
                    buf.read::<Value>().await.unwrap(),
                    v,
                    "{} split {split}",
                    sv.name
                );
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

async fn collect(
    bytes: &'static [u8],
    pieces: Pieces,
    opts: ReadOptions,
) -> (Vec<(Value, i64)>, Option<ResponseError>, Option<i32>) {
    let _ = bytes;
    let mut s = read_response(pieces, opts);
    let mut items = Vec::new();
    let mut err = None;
    while let Some(r) = s.next().await {
        match r {
            Ok(t) => items.push((t.value, t.bulk)),
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    assert!(
        s.next().await.is_none(),
        "stream must end after an error or the status"
    );
    (items, err, s.status().map(|st| st.code))
}

#[test]
fn every_spec_response_streams_to_its_items_and_footer() {
    assert!(SPEC_RESPONSES.len() >= 5);
    for r in SPEC_RESPONSES {
        block_on(async {
            let (items, err, code) =
                collect(r.bytes, Pieces::split(r.bytes, &[]), ReadOptions::default()).await;
            assert_eq!(items.len(), r.items, "{}", r.name);
            assert_eq!(code, Some(r.status_code), "{}", r.name);
            if r.bulked {
                let bulks: Vec<i64> = items.iter().map(|(_, b)| *b).collect();
                assert_eq!(bulks, r.bulks, "{}", r.name);
            } else {
                assert!(items.iter().all(|(_, b)| *b == 1), "{}", r.name);
            }
            if let Some(gs) = r.items_graphson {
                for ((v, _), expected) in items.iter().zip(gs.iter()) {
                    same_json(&to_graphson(v), expected)
                        .unwrap_or_else(|e| panic!("{}: {e}", r.name));
                }
            }
            match (r.status_code, &err) {
                (200, None) => {}
                (code, Some(ResponseError::Server(se))) if code != 200 => {
                    assert_eq!(se.code, code);
                    assert_eq!(se.message.as_deref(), r.status_message, "{}", r.name);
                    assert_eq!(se.exception.as_deref(), r.exception, "{}", r.name);
                }
                other => panic!("{}: unexpected outcome {other:?}", r.name),
            }
            // The same, however the bytes arrive and whichever path decodes.
            let expected = (items, format!("{err:?}"), code);
            for opts in [
                ReadOptions::default(),
                ReadOptions {
                    capacity: 8,
                    ..ReadOptions::default()
                },
                ReadOptions {
                    fast_path: false,
                    ..ReadOptions::default()
                },
            ] {
                let got = collect(r.bytes, Pieces::chunks(r.bytes, 1), opts).await;
                assert_eq!(
                    (got.0, format!("{:?}", got.1), got.2),
                    expected,
                    "{} 1 byte/read",
                    r.name
                );
                for split in 1..r.bytes.len() {
                    let got = collect(r.bytes, Pieces::split(r.bytes, &[split]), opts).await;
                    assert_eq!(
                        (got.0, format!("{:?}", got.1), got.2),
                        expected,
                        "{} split {split}",
                        r.name
                    );
                }
            }
        });
    }
}

#[test]
fn every_truncated_spec_response_fails_naming_the_offset_after_its_complete_results() {
    for r in SPEC_RESPONSES {
        let full = block_on(collect(
            r.bytes,
            Pieces::split(r.bytes, &[]),
            ReadOptions::default(),
        ))
        .0;
        for cut in 0..r.bytes.len() {
            let cut_bytes: &'static [u8] = &r.bytes[..cut];
            let (items, err, code) = block_on(collect(
                cut_bytes,
                Pieces::split(cut_bytes, &[]),
                ReadOptions::default(),
            ));
            let Some(ResponseError::Decode(e)) = err else {
                panic!(
                    "{} cut at {cut}: expected a decode error, got {err:?}",
                    r.name
                );
            };
            assert!(e.offset() <= cut as u64, "{} cut at {cut}: {e}", r.name);
            assert!(
                e.to_string().contains("end of stream"),
                "{} cut at {cut}: {e}",
                r.name
            );
            assert_eq!(code, None);
            assert!(items.len() <= full.len());
            assert_eq!(items[..], full[..items.len()], "{} cut at {cut}", r.name);
        }
    }
}
