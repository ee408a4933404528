//! No allocation on the strength of a length field: lengths and counts just under the limits,
//! followed by far fewer bytes, end in an error with no allocation larger than the buffer.
//! (A test binary of its own: it installs a global allocator that records the largest
//! single allocation.)

use graphbinary_testkit::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::StreamExt;
use graphbinary_client::response::{read_response, ReadOptions, ResponseError};
use graphbinary_core::testing::ChunkedReader;
use graphbinary_core::DecodeError;

struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);
/// Allocations (and reallocations) of at least [`BIG_AT`] bytes.
static BIG: AtomicUsize = AtomicUsize::new(0);
static BIG_AT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// The tests of this file one at a time (they share the counters).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn record(size: usize) {
    LARGEST.fetch_max(size, Ordering::Relaxed);
    if size >= BIG_AT.load(Ordering::Relaxed) {
        BIG.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Largest = Largest;

#[test]
fn claimed_lengths_allocate_nothing_ahead_of_the_bytes() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let opts = ReadOptions::default();
    let max_bytes = opts.limits.max_bytes_len as i32;
    let max_items = opts.limits.max_collection_len as i32;
    // (value header, claimed length) pairs, each followed by 1000 bytes then the end.
    let cases: [(&[u8], i32); 5] = [
        (&[0x03, 0x00], max_bytes),     // String
        (&[0x25, 0x00], max_bytes - 1), // Binary
        (&[0x09, 0x00], max_items),     // List
        (&[0x0a, 0x00], max_items),     // Map
        (&[0x0b, 0x00], max_items / 2), // Set
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for (header, claim) in cases {
        for (fast_path, chunk) in [(true, usize::MAX), (false, 100), (true, 7)] {
            let mut bytes = vec![0x84, 0x00];
            bytes.extend_from_slice(header);
            bytes.extend(claim.to_be_bytes());
            // Nulls: a valid start for every case (String/Binary bytes, or fq items).
            bytes.extend(std::iter::repeat_n([0xfe, 0x01], 500).flatten());
            let len = bytes.len() as u64;
            let e = rt.block_on(async {
                let reader = ChunkedReader::new(std::io::Cursor::new(bytes), chunk);
                // (The test reader's own scratch buffer is not counted.)
                LARGEST.store(0, Ordering::Relaxed);
                let mut s = read_response(reader, ReadOptions { fast_path, ..opts });
                match s.next().await {
                    Some(Err(ResponseError::Decode(e))) => e,
                    other => panic!("{other:?}"),
                }
            });
            let largest = LARGEST.load(Ordering::Relaxed);
            assert_truncated_small(&e, len, largest, &format!("{header:02x?} claiming {claim}"));
        }
    }
}

/// `e` is the end of the input at `len`, and the largest allocation while reading was
/// `largest`: the read buffer (64 KiB) is the largest thing allocated, so a claim of hundreds
/// of MiB or millions of items allocates nothing of its size.
fn assert_truncated_small(e: &DecodeError, len: u64, largest: usize, ctx: &str) {
    common::assert_eof_at(e, len, ctx);
    assert!(
        largest <= 256 * 1024,
        "{ctx}: an allocation of {largest} bytes"
    );
}

/// A Binary or String claiming `i32::MAX` bytes (within the limits) followed by a few: the
/// skip route (`count_results`) and the serde route (`for_each_as`) report it truncated at the
/// end of the input, without allocating anything near the claim.
#[test]
fn hostile_lengths_on_the_skip_and_serde_routes() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut opts = ReadOptions::default();
    opts.limits.max_bytes_len = i32::MAX as usize;
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for header in [[0x25u8, 0x00], [0x03, 0x00]] {
        for chunk in [7, 8192, usize::MAX] {
            let mut bytes = vec![0x84, 0x00];
            bytes.extend_from_slice(&header);
            bytes.extend(i32::MAX.to_be_bytes());
            bytes.extend_from_slice(b"only a few bytes");
            let len = bytes.len() as u64;
            for route in ["count", "serde"] {
                let ctx = format!("{header:02x?}, reads of {chunk}, {route}");
                let reader = ChunkedReader::new(std::io::Cursor::new(bytes.clone()), chunk);
                LARGEST.store(0, Ordering::Relaxed);
                let e = rt.block_on(async {
                    let mut s = read_response(reader, opts);
                    match route {
                        "count" => s.count_results().await.map(drop),
                        _ => s.for_each_as(|_: serde_json::Value, _| {}).await,
                    }
                });
                let largest = LARGEST.load(Ordering::Relaxed);
                let e = match e {
                    Err(ResponseError::Decode(e)) => e,
                    other => panic!("{ctx}: {other:?}"),
                };
                assert_truncated_small(&e, len, largest, &ctx);
            }
        }
    }
}

/// Bytes that take the buffer by value (`visit_byte_buf`), as `serde_bytes::ByteBuf` does.
struct Owned(Vec<u8>);

impl<'de> serde::Deserialize<'de> for Owned {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Owned;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Owned, E> {
                Ok(Owned(v.to_vec()))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Owned, E> {
                Ok(Owned(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Owned, E> {
                Ok(Owned(v.as_bytes().to_vec()))
            }
            fn visit_string<E>(self, v: String) -> Result<Owned, E> {
                Ok(Owned(v.into_bytes()))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// A 4 MiB Binary or String, 64 times the read buffer: stepping over it allocates nothing of
/// its size (the buffer does not grow), and deserializing it into a type that takes the
/// bytes by value fills one buffer that grows to exactly its length, with nothing else of its
/// size (no re-encoding, no copy).
#[test]
fn large_payloads_are_stepped_over_in_place_and_deserialized_into_one_buffer() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 4 << 20;
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for code in [0x25u8, 0x03] {
        let mut bytes = vec![0x84, 0x00, code, 0x00];
        bytes.extend((n as i32).to_be_bytes());
        bytes.extend(std::iter::repeat_n(b'x', n));
        bytes.extend_from_slice(&[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01]);
        for chunk in [8192, 1 << 20] {
            let ctx = format!("type 0x{code:02x}, reads of {chunk}");
            let reader = || ChunkedReader::new(std::io::Cursor::new(bytes.clone()), chunk);
            // Half the payload: the buffer growing towards it counts too.
            let (r1, r2) = (reader(), reader());
            BIG_AT.store(n / 2, Ordering::Relaxed);
            BIG.store(0, Ordering::Relaxed);
            LARGEST.store(0, Ordering::Relaxed);
            let counted = rt.block_on(read_response(r1, ReadOptions::default()).count_results());
            assert_eq!(counted.unwrap(), 1, "{ctx}");
            let largest = LARGEST.load(Ordering::Relaxed);
            assert!(
                largest <= 256 * 1024,
                "{ctx}: count allocated {largest} bytes"
            );

            BIG_AT.store(n, Ordering::Relaxed);
            BIG.store(0, Ordering::Relaxed);
            let mut got = Vec::new();
            rt.block_on(
                read_response(r2, ReadOptions::default())
                    .for_each_as(|v: Owned, _| got.push(v.0.len())),
            )
            .unwrap();
            let big = BIG.load(Ordering::Relaxed);
            BIG_AT.store(usize::MAX, Ordering::Relaxed);
            assert_eq!(got, [n], "{ctx}");
            // One allocation of the payload's size: the last growth of its one buffer.
            assert_eq!(big, 1, "{ctx}: {big} allocations of at least {n} bytes");
        }
    }
}
