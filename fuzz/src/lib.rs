//! Shared checks of the fuzz targets: decoding never panics, and whatever decodes re-encodes
//! and decodes to an equal value, on the fast path and on the slow path alike.

use graphbinary_client::value::Value;
use graphbinary_core::testing::ChunkedReader;
use graphbinary_core::{Decode, Encode, Limits, ReadBuffer};

/// Limits small enough that the fuzzer does not spend its time on huge allocations; the
/// checks do not depend on them.
pub const LIMITS: Limits = Limits {
    max_bytes_len: 1 << 16,
    max_collection_len: 1 << 12,
    max_depth: 64,
    max_response_size: Some(1 << 20),
};

/// A reader handing out its bytes in chunks whose sizes cycle through `sizes` (each at least
/// 1; none: everything at once), returning `Pending` (after waking itself) before every other
/// chunk, so that every await point of the slow path is exercised.
pub fn chunks(data: Vec<u8>, sizes: &[u8]) -> ChunkedReader<std::io::Cursor<Vec<u8>>> {
    let sizes: Vec<usize> = sizes.iter().map(|&s| usize::from(s)).collect();
    ChunkedReader::with_sizes(std::io::Cursor::new(data), &sizes).pending_between_reads()
}

/// Re-encodes `v`, decodes it again and asserts equality (compared by re-encoded bytes, so
/// NaNs compare equal).
pub fn assert_round_trip<T: Encode + Decode + std::fmt::Debug>(v: &T) {
    let mut bytes = Vec::new();
    v.encode(&mut bytes).expect("a decoded value re-encodes");
    let again = decode_all::<T>(&bytes).expect("a re-encoded value decodes");
    let mut bytes2 = Vec::new();
    again.encode(&mut bytes2).unwrap();
    assert_eq!(bytes, bytes2, "re-encoding is stable: {v:?} vs {again:?}");
}

/// Decodes exactly one `T` from `bytes` on the fast path.
pub fn decode_all<T: Decode>(bytes: &[u8]) -> Option<T> {
    let mut cur = graphbinary_core::Cursor::new(bytes, 0, &LIMITS);
    let v = T::decode(&mut cur).ok()?;
    (cur.position() == bytes.len()).then_some(v)
}

/// Decodes one `T` from `bytes` on the slow path (fast path off, tiny buffer, chunked and
/// pending reads), requiring the input to end after it.
pub fn decode_slow<T: Decode>(bytes: &[u8], capacity: usize, sizes: &[u8]) -> Option<T> {
    let mut buf = ReadBuffer::with_capacity(capacity, chunks(bytes.to_vec(), sizes))
        .with_limits(LIMITS)
        .with_fast_path(false);
    futures::executor::block_on(async {
        let v = buf.read::<T>().await.ok()?;
        buf.is_at_end().await.ok()?.then_some(v)
    })
}

/// Whether two values are equal by their encoded bytes.
pub fn same(a: &Value, b: &Value) -> bool {
    a.to_bytes().ok() == b.to_bytes().ok()
}
