//! Conformance over the canonical GraphBinary 4 vectors (`../shared/vectors/graphbinary-v4`):
//! each decodes, re-encodes byte for byte, and decodes identically however its bytes arrive
//! (one byte per read, split at every byte boundary, buffers smaller than the value, fast path
//! on and off).

use graphbinary_testkit::common;

use common::{assert_truncations_end_at_the_cut, block_on, gbin_vectors, shared_dir, Pieces};
use graphbinary_client::value::Value;
use graphbinary_core::{FqEncode, Limits, ReadBuffer};
use tokio::io::AsyncRead;

const EXPECTED_VECTORS: usize = 101;

async fn read_one<R: AsyncRead + Unpin + Send>(reader: R, capacity: usize, fast: bool) -> Value {
    let mut buf = ReadBuffer::with_capacity(capacity, reader).with_fast_path(fast);
    let v = buf.read::<Value>().await.expect("decode");
    assert!(buf.is_at_end().await.unwrap(), "bytes left after the value");
    v
}

#[test]
fn every_vector_round_trips_byte_for_byte() {
    let dir = graphbinary_testkit::or_skip!(shared_dir("conformance"));
    let vectors = gbin_vectors(&dir);
    assert_eq!(vectors.len(), EXPECTED_VECTORS, "vector count");
    let mut failures = Vec::new();
    for (name, bytes) in &vectors {
        match Value::from_bytes(bytes) {
            Ok(v) => {
                let mut out = Vec::new();
                v.encode_fq(&mut out).unwrap();
                if &out != bytes {
                    failures.push(format!(
                        "{name}: re-encoded {out:02x?}, expected {bytes:02x?}"
                    ));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_vector_decodes_identically_however_it_arrives() {
    let dir = graphbinary_testkit::or_skip!(shared_dir("conformance"));
    for (name, bytes) in gbin_vectors(&dir) {
        let expected = Value::from_bytes(&bytes).unwrap();
        block_on(async {
            for fast in [true, false] {
                for cap in [1, 3, 16, 64, 1 << 16] {
                    let v = read_one(Pieces::chunks(&bytes, 1), cap, fast).await;
                    assert_eq!(
                        v, expected,
                        "{name}: 1 byte per read, capacity {cap}, fast {fast}"
                    );
                }
            }
            for split in 1..bytes.len() {
                for (cap, fast) in [(1 << 16, true), (8, true), (1 << 16, false)] {
                    let v = read_one(Pieces::split(&bytes, &[split]), cap, fast).await;
                    assert_eq!(v, expected, "{name}: split at {split}, capacity {cap}");
                }
            }
        });
    }
}

#[test]
fn every_truncation_is_an_error_naming_the_end() {
    let dir = graphbinary_testkit::or_skip!(shared_dir("conformance"));
    // Both paths: `UnexpectedEof` at exactly the offset where the input ends.
    assert_truncations_end_at_the_cut(
        &gbin_vectors(&dir),
        |prefix, ctx| Value::from_bytes(prefix).expect_err(ctx),
        |prefix, ctx| {
            let mut buf = ReadBuffer::with_capacity(16, prefix);
            block_on(buf.read::<Value>()).expect_err(ctx)
        },
    );
}

/// Every result is moved several times between the decoder and the caller (out of the
/// decoder's `Result`, into a `Traverser`, into the stream's `Poll`). These sizes keep those
/// moves to whole words with the error cases folded into `Value`'s tag; see ARCHITECTURE.md.
#[test]
fn hot_path_types_stay_word_sized() {
    use graphbinary_client::response::{ResponseError, Traverser};
    use graphbinary_core::{DecodeError, FastResult};
    use std::mem::size_of;
    assert_eq!(size_of::<Value>(), 32);
    assert_eq!(size_of::<DecodeError>(), 8);
    assert_eq!(size_of::<FastResult<Value>>(), 32);
    assert_eq!(size_of::<Traverser>(), 40);
    assert_eq!(size_of::<Option<Result<Traverser, ResponseError>>>(), 40);
    // The payload starts at offset 8 (`#[repr(u64)]`): the 7 bytes after a one-byte tag
    // were copied as two overlapping 4-byte moves, which defeat store forwarding.
    let v = Value::Int(7);
    let base = &v as *const Value as usize;
    match &v {
        Value::Int(i) => assert_eq!(i as *const i32 as usize - base, 8),
        _ => unreachable!(),
    }
}

#[test]
fn depth_limit_is_enforced_on_both_paths() {
    // Unoptimized builds use far more stack per nesting level than release builds.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(depth_limit)
        .unwrap()
        .join()
        .unwrap();
}

fn depth_limit() {
    // 100 nested single-item Lists around an Int.
    let mut bytes = Vec::new();
    for _ in 0..100 {
        bytes.extend_from_slice(&[0x09, 0x00, 0, 0, 0, 1]);
    }
    bytes.extend_from_slice(&[0x01, 0x00, 0, 0, 0, 7]);
    let limits = Limits {
        max_depth: 50,
        ..Limits::DEFAULT
    };
    let e = Value::from_bytes_with(&bytes, &limits).unwrap_err();
    assert!(e.to_string().contains("depth"), "{e}");
    assert!(Value::from_bytes(&bytes).is_ok());
    block_on(async {
        let mut buf = ReadBuffer::with_capacity(16, &bytes[..]).with_limits(limits);
        let e = buf.read::<Value>().await.unwrap_err();
        assert!(e.to_string().contains("depth"), "{e}");
    });
}

#[test]
fn huge_claimed_counts_do_not_allocate() {
    // A List claiming 60 million items, with two bytes of data.
    let bytes = [0x09, 0x00, 0x03, 0x93, 0x87, 0x00, 0x01, 0x01];
    let e = Value::from_bytes(&bytes).unwrap_err();
    assert!(e.to_string().contains("end"), "{e}");
    block_on(async {
        let mut buf = ReadBuffer::with_capacity(64, &bytes[..]);
        let e = buf.read::<Value>().await.unwrap_err();
        assert!(e.to_string().contains("end of stream"), "{e}");
    });
}

#[test]
fn unknown_type_code_names_offset() {
    let bytes = [0x09, 0x00, 0, 0, 0, 2, 0x01, 0x00, 0, 0, 0, 1, 0x99, 0x00];
    let e = Value::from_bytes(&bytes).unwrap_err();
    assert_eq!(e.offset(), 12);
    assert!(e.to_string().contains("0x99"), "{e}");
}
