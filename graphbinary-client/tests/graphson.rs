//! GraphSON 4 conformance: for every canonical GraphBinary vector that has a GraphSON 4
//! counterpart of the same name, our GraphSON equals it as JSON (key order and whitespace
//! aside; numbers compared by exact decimal value).

mod common;

use common::{gbin_vectors, shared_dir};
use graphbinary_client::graphson::to_graphson;
use graphbinary_client::model::Value;
use serde_json::Value as Json;

const EXPECTED_GRAPHSON: usize = 90;

/// A decimal number as (negative, significant digits, exponent of the last digit).
fn decimal(s: &str) -> (bool, String, i64) {
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

fn same(a: &Json, b: &Json, path: &str) -> Result<(), String> {
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

#[test]
fn graphson_matches_every_canonical_document() {
    let Some(dir) = shared_dir("graphson conformance") else {
        return;
    };
    let mut compared = 0;
    let mut failures = Vec::new();
    for (name, bytes) in gbin_vectors(&dir) {
        let path = dir.join("vectors/graphson-v4").join(format!("{name}.json"));
        let Ok(expected) = std::fs::read_to_string(&path) else {
            continue;
        };
        compared += 1;
        let expected: Json = serde_json::from_str(&expected).unwrap();
        let value = Value::from_bytes(&bytes).unwrap();
        let ours = to_graphson(&value);
        let ours: Json = match serde_json::from_str(&ours) {
            Ok(j) => j,
            Err(e) => {
                failures.push(format!("{name}: invalid JSON {e}: {ours}"));
                continue;
            }
        };
        if let Err(e) = same(&ours, &expected, "$") {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(compared, EXPECTED_GRAPHSON, "GraphSON documents compared");
}

#[test]
fn decimal_comparison_is_exact() {
    assert_eq!(decimal("1.234E+5"), decimal("123400"));
    assert_eq!(decimal("4.9E-324"), decimal("0.00049e-320"));
    assert_ne!(decimal("4.9E-324"), decimal("5E-324"));
    assert_ne!(decimal("-1"), decimal("1"));
}
