//! Shared helpers for the behavioural tests: every derived type is read on the fast path,
//! on the slow path with tiny buffers and a reader that hands out one byte at a time, with
//! the fast path switched off, and written back byte for byte.

#![allow(dead_code)]

pub mod value;

use std::fmt::Debug;
use std::pin::Pin;
use std::task::{Context, Poll};

use graphbinary_core::{Cursor, Decode, Encode, FastError, Limits, ReadBuffer};
use tokio::io::{AsyncRead, ReadBuf};

/// A reader that hands out at most one byte per read.
pub struct Trickle<'a>(pub &'a [u8]);

impl AsyncRead for Trickle<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if let Some((first, rest)) = self.0.split_first() {
            if buf.remaining() > 0 {
                buf.put_slice(&[*first]);
                self.0 = rest;
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// Runs a future to completion on a current-thread runtime.
#[allow(unused_imports)] // not every test binary uses it
pub use graphbinary_core::testing::block_on;

/// Decodes `bytes` on the fast path, requiring every byte to be consumed.
pub fn fast<T: Decode>(bytes: &[u8]) -> Result<T, FastError> {
    let limits = Limits::DEFAULT;
    let mut cur = Cursor::new(bytes, 0, &limits);
    let v = T::decode(&mut cur)?;
    assert_eq!(cur.position(), bytes.len(), "fast path left bytes unread");
    Ok(v)
}

/// Reads one `T` through a `ReadBuffer` of `capacity` over `reader`, requiring the stream to
/// end right after it.
async fn through<T: Decode, R: AsyncRead + Unpin + Send>(
    reader: R,
    capacity: usize,
    fast_path: bool,
) -> Result<T, graphbinary_core::DecodeError> {
    let mut buf = ReadBuffer::with_capacity(capacity, reader).with_fast_path(fast_path);
    let v = buf.read::<T>().await?;
    assert!(buf.is_at_end().await?, "bytes left after the value");
    Ok(v)
}

/// Every way of reading `bytes` as a `T`: each must give `expected`; and `expected` must
/// write back to exactly `bytes`.
pub fn check<T: Decode + Encode + PartialEq + Debug>(bytes: &[u8], expected: &T) {
    // Fast path, whole value buffered.
    assert_eq!(&fast::<T>(bytes).unwrap(), expected, "fast path");
    // Fast path, every proper prefix: "need more", never a value or an error.
    for k in 0..bytes.len() {
        match fast::<T>(&bytes[..k]) {
            Err(FastError::NeedMore(n)) => assert!(n > 0, "prefix {k}: need more 0"),
            other => panic!(
                "prefix {k} of {}: expected NeedMore, got {other:?}",
                bytes.len()
            ),
        }
    }
    block_on(async {
        for capacity in (1..=16).chain([bytes.len(), 64 * 1024]) {
            for fast_path in [true, false] {
                let v: T = through(bytes, capacity, fast_path)
                    .await
                    .unwrap_or_else(|e| panic!("capacity {capacity}, fast path {fast_path}: {e}"));
                assert_eq!(&v, expected, "capacity {capacity}, fast path {fast_path}");
                let v: T = through(Trickle(bytes), capacity, fast_path)
                    .await
                    .unwrap_or_else(|e| {
                        panic!("trickle, capacity {capacity}, fast path {fast_path}: {e}")
                    });
                assert_eq!(
                    &v, expected,
                    "trickle, capacity {capacity}, fast path {fast_path}"
                );
            }
        }
    });
    let mut out = Vec::new();
    expected.encode(&mut out).unwrap();
    assert_eq!(hex(&out), hex(bytes), "re-encoding");
}

/// Asserts that `e` is a wrong type code: `found` at `offset` where `expected` belongs.
pub fn assert_wrong_code(e: &graphbinary_core::DecodeError, offset: u64, expected: u8, found: u8) {
    assert_eq!(e.offset(), offset, "{e}");
    assert!(
        matches!(
            e.kind(),
            graphbinary_core::ErrorKind::UnexpectedTypeCode { expected: x, found: f, .. }
                if *x == expected && *f == found
        ),
        "{e:?}"
    );
}

/// The error every way of reading `bytes` as a `T` gives; they must agree on the offset.
pub fn check_err<T: Decode + Debug>(bytes: &[u8]) -> graphbinary_core::DecodeError {
    let fast_err = match fast::<T>(bytes) {
        Err(FastError::Invalid(e)) => e,
        other => panic!("fast path: expected an error, got {other:?}"),
    };
    block_on(async {
        for capacity in [1, 4, 16, 64 * 1024] {
            for fast_path in [true, false] {
                let e = through::<T, _>(Trickle(bytes), capacity, fast_path)
                    .await
                    .expect_err("slow path accepted bad input");
                assert_eq!(
                    e.offset(),
                    fast_err.offset(),
                    "capacity {capacity}, fast path {fast_path}: {e} vs {fast_err}"
                );
            }
        }
    });
    fast_err
}

/// Bytes from a hex string; whitespace is ignored.
pub fn unhex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// Lower-case hex, for readable assertion failures.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The shared GraphBinary 4 vectors directory: `$GRAPHBINARY_SHARED/vectors/graphbinary-v4`,
/// else `../shared/vectors/graphbinary-v4` next to the repository root. When it is absent the
/// caller skips (with a notice), except under CI where that is a failure.
pub fn vectors() -> Option<std::path::PathBuf> {
    let shared = match std::env::var_os("GRAPHBINARY_SHARED") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    let dir = shared.join("vectors/graphbinary-v4");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!("shared vectors not found at {}", dir.display());
    }
    eprintln!(
        "notice: shared vectors not found at {}; skipping (set GRAPHBINARY_SHARED)",
        dir.display()
    );
    None
}
