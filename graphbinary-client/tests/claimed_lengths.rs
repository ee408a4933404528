//! No allocation on the strength of a length field: lengths and counts just under the limits,
//! followed by far fewer bytes, end in an error with no allocation larger than the buffer.
//! (A test binary of its own: it installs a global allocator that records the largest
//! single allocation.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::StreamExt;
use graphbinary_client::response::{read_response, ReadOptions, ResponseError};
use graphbinary_core::testing::ChunkedReader;
use graphbinary_core::ErrorKind;

struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Largest = Largest;

#[test]
fn claimed_lengths_allocate_nothing_ahead_of_the_bytes() {
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
            assert!(
                matches!(e.kind(), ErrorKind::UnexpectedEof { .. }),
                "{header:02x?} {claim}: {e}"
            );
            assert_eq!(e.offset(), len, "{header:02x?} {claim}: {e}");
            // The read buffer (64 KiB) is the largest thing allocated; a claim of
            // hundreds of MiB or millions of items allocates nothing of its size.
            assert!(
                largest <= 256 * 1024,
                "{header:02x?} claiming {claim}: an allocation of {largest} bytes"
            );
        }
    }
}
