//! Corrupted input never panics or hangs: every canonical vector with each byte replaced by
//! a few other values decodes to an error or to a value that re-encodes and decodes back to
//! itself, on the fast path and on the slow path alike, and renders as text and GraphSON.

use graphbinary_testkit::common;

use common::{gbin_vectors, shared_dir};
use graphbinary_client::format::graphson::to_graphson;
use graphbinary_client::value::Value;
use graphbinary_core::ReadBuffer;

#[test]
fn every_single_byte_corruption_is_handled() {
    let dir = graphbinary_testkit::or_skip!(shared_dir("mutations"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut decoded = 0usize;
    let mut rejected = 0usize;
    for (name, bytes) in gbin_vectors(&dir) {
        // Keep the run short: the large vectors are covered by their first 200 bytes.
        for i in 0..bytes.len().min(200) {
            for b in [0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff, bytes[i] ^ 0x10] {
                if b == bytes[i] {
                    continue;
                }
                let mut m = bytes.clone();
                m[i] = b;
                let fast = Value::from_bytes(&m);
                let slow = rt.block_on(async {
                    let mut buf = ReadBuffer::with_capacity(8, &m[..]).with_fast_path(false);
                    let v = buf.read::<Value>().await?;
                    if buf.is_at_end().await? {
                        Ok(v)
                    } else {
                        Err(buf.error(graphbinary_core::ErrorKind::Invalid {
                            what: "value",
                            detail: "trailing bytes".into(),
                        }))
                    }
                });
                match (fast, slow) {
                    (Ok(v), Ok(w)) => {
                        assert_eq!(v, w, "{name} byte {i} = {b:02x}: paths disagree");
                        let again = Value::from_bytes(&v.to_bytes().unwrap()).unwrap();
                        assert_eq!(again, v, "{name} byte {i} = {b:02x}");
                        let _ = v.to_string();
                        let _ = to_graphson(&v);
                        decoded += 1;
                    }
                    (Err(e), Err(f)) => {
                        assert!(e.offset() <= m.len() as u64, "{name}: {e}");
                        assert!(f.offset() <= m.len() as u64, "{name}: {f}");
                        rejected += 1;
                    }
                    (a, b) => panic!("{name} byte {i} = {b:02x?}: fast {a:?} vs slow {b:?}"),
                }
            }
        }
    }
    assert!(
        decoded > 100 && rejected > 100,
        "decoded {decoded}, rejected {rejected}"
    );
}
