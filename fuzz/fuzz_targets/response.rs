//! The response deserializer over arbitrary bytes, read both ways: never panics; the fast
//! and slow paths yield the same results and end the same way; every result round-trips.
#![no_main]

use futures::StreamExt;
use graphbinary_client::response::{read_response, ReadOptions, ResponseError};
use graphbinary_fuzz::{chunks, LIMITS};
use libfuzzer_sys::fuzz_target;

/// The re-encoded results and whether (and where) the stream failed.
fn read(bytes: &[u8], opts: ReadOptions, sizes: &[u8]) -> (Vec<(Vec<u8>, i64)>, Option<String>) {
    let mut s = read_response(chunks(bytes.to_vec(), sizes), opts);
    futures::executor::block_on(async {
        let mut out = Vec::new();
        while let Some(r) = s.next().await {
            match r {
                Ok(t) => {
                    let b = t.value.to_bytes().expect("a decoded value re-encodes");
                    let again = graphbinary_client::value::Value::from_bytes_with(&b, &LIMITS)
                        .expect("a re-encoded value decodes");
                    assert_eq!(again.to_bytes().unwrap(), b);
                    out.push((b, t.bulk));
                }
                Err(ResponseError::Decode(e)) => {
                    assert!(s.next().await.is_none());
                    return (out, Some(format!("decode {}", e.offset())));
                }
                Err(ResponseError::Server(e)) => {
                    assert!(s.next().await.is_none());
                    return (out, Some(format!("server {}", e.code)));
                }
            }
        }
        (out, None)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&cap, bytes)) = data.split_first() else {
        return;
    };
    let fast = read(
        bytes,
        ReadOptions {
            limits: LIMITS,
            ..ReadOptions::default()
        },
        &[],
    );
    let slow = read(
        bytes,
        ReadOptions {
            limits: LIMITS,
            capacity: usize::from(cap).max(1),
            fast_path: cap & 1 == 0,
        },
        &[cap % 11 + 1, 2, 40],
    );
    // The results before an error agree; both fail or neither does.
    let n = fast.0.len().min(slow.0.len());
    assert_eq!(fast.0[..n], slow.0[..n]);
    assert_eq!(
        fast.1.is_some(),
        slow.1.is_some(),
        "fast {:?} slow {:?}",
        fast.1,
        slow.1
    );
    if fast.1.is_none() {
        assert_eq!(fast.0, slow.0);
    }
});
