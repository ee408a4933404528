//! Shared test helpers: locating the canonical vectors, and (from core's `testing`) the
//! reader that delivers bytes in chosen pieces.

#![allow(dead_code)]

pub use crate::skip;

use std::path::PathBuf;

use serde_json::Value as Json;

/// Asserts that `e` is the end of the input (`UnexpectedEof`) at byte `at`; `ctx` says what
/// was read, for the message.
pub fn assert_eof_at(e: &graphbinary_core::DecodeError, at: u64, ctx: &str) {
    assert!(
        matches!(e.kind(), graphbinary_core::ErrorKind::UnexpectedEof { .. }),
        "{ctx}: expected UnexpectedEof at {at}, got {e}"
    );
    assert_eq!(e.offset(), at, "{ctx}: {e}");
}

/// Asserts that every proper prefix of every vector fails with the end of the input at the
/// cut, read by `whole` (the prefix at once) and by `refilling` (through a reader); both get
/// the prefix and a text naming it.
pub fn assert_truncations_end_at_the_cut(
    vectors: &[(String, Vec<u8>)],
    whole: impl Fn(&[u8], &str) -> graphbinary_core::DecodeError,
    refilling: impl Fn(&[u8], &str) -> graphbinary_core::DecodeError,
) {
    for (name, bytes) in vectors {
        for cut in 0..bytes.len() {
            let ctx = format!("{name} cut at {cut}");
            let prefix = &bytes[..cut];
            assert_eof_at(&whole(prefix, &ctx), cut as u64, &ctx);
            let ctx = format!("{ctx}, refilling");
            assert_eof_at(&refilling(prefix, &ctx), cut as u64, &ctx);
        }
    }
}

/// The shared directory: `GRAPHBINARY_SHARED`, else `../shared` next to the repository root
/// (or next to one of its ancestors, for a worktree nested deeper).
/// `None` (with a printed notice) when absent outside CI; a panic when absent in CI.
pub fn shared_dir(what: &str) -> Option<PathBuf> {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = match std::env::var_os("GRAPHBINARY_SHARED") {
        Some(d) => PathBuf::from(d),
        None => repo
            .canonicalize()
            .ok()
            .and_then(|r| {
                r.ancestors()
                    .skip(1)
                    .map(|a| a.join("shared"))
                    .find(|d| d.join("vectors").is_dir())
            })
            .unwrap_or_else(|| repo.join("../shared")),
    };
    if dir.join("vectors").is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "{what}: shared vectors not found at {} (set GRAPHBINARY_SHARED); required in CI",
            dir.display()
        );
    }
    skip::skipped(
        what,
        &format!(
            "shared vectors not found at {} (set GRAPHBINARY_SHARED)",
            dir.display()
        ),
    );
    None
}

/// Every `(name, bytes)` in `vectors/graphbinary-v4`, sorted by name.
pub fn gbin_vectors(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    gbin_files(dir, "graphbinary-v4")
}

/// Every `(name, bytes)` in `vectors/graphbinary-v1` (TinkerPop 3's), sorted by name.
pub fn v1_gbin_vectors(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    gbin_files(dir, "graphbinary-v1")
}

/// Every `(file stem, bytes)` of the `.gbin` files in `vectors/{sub}`, sorted by name.
fn gbin_files(dir: &std::path::Path, sub: &str) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join("vectors").join(sub))
        .unwrap_or_else(|e| panic!("read vectors/{sub}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gbin"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// A reader that delivers its bytes in the given pieces, one piece per read.
#[allow(unused_imports)] // not every test binary uses it
pub use graphbinary_core::testing::Pieces;

/// Runs a future to completion on a current-thread runtime.
#[allow(unused_imports)] // not every test binary uses it
pub use graphbinary_core::testing::block_on;

/// The footer of a GraphBinary 4 response that ends in a server error: status 500, message
/// `boom`, exception `NPE`.
pub fn boom_footer() -> Vec<u8> {
    let mut footer = vec![0, 0, 1, 0xf4, 0x00, 0, 0, 0, 4];
    footer.extend(b"boom");
    footer.extend([0x00, 0, 0, 0, 3]);
    footer.extend(b"NPE");
    footer
}

/// A decimal number as (negative, significant digits, exponent of the last digit).
pub fn decimal(s: &str) -> (bool, String, i64) {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (mant, exp) = match s.find(['e', 'E']) {
        Some(i) => (
            &s[..i],
            s[i + 1..].trim_start_matches('+').parse::<i64>().unwrap(),
        ),
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let mut digits = format!("{int}{frac}");
    let mut exp = exp - frac.len() as i64;
    let trimmed = digits.trim_start_matches('0').to_owned();
    digits = trimmed;
    while digits.ends_with('0') {
        digits.pop();
        exp += 1;
    }
    if digits.is_empty() {
        exp = 0;
    }
    (neg, digits, exp)
}

pub fn same(a: &Json, b: &Json, path: &str) -> Result<(), String> {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            if decimal(&x.to_string()) == decimal(&y.to_string()) {
                Ok(())
            } else {
                Err(format!("{path}: {x} != {y}"))
            }
        }
        (Json::Array(x), Json::Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{path}: array length {} != {}", x.len(), y.len()));
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same(p, q, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Json::Object(x), Json::Object(y)) => {
            let mut kx: Vec<_> = x.keys().collect();
            let mut ky: Vec<_> = y.keys().collect();
            kx.sort();
            ky.sort();
            if kx != ky {
                return Err(format!("{path}: keys {kx:?} != {ky:?}"));
            }
            for k in kx {
                same(&x[k], &y[k], &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} != {b}")),
    }
}

/// Parses both documents and compares them with [`same`].
pub fn same_json(ours: &str, expected: &str) -> Result<(), String> {
    let o: Json = serde_json::from_str(ours).map_err(|e| format!("invalid JSON {e}: {ours}"))?;
    let x: Json = serde_json::from_str(expected).map_err(|e| format!("bad expected {e}"))?;
    same(&o, &x, "$")
}
