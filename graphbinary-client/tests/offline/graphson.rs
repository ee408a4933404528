//! GraphSON 4 conformance: for every canonical GraphBinary vector that has a GraphSON 4
//! counterpart of the same name, our GraphSON equals it as JSON (key order and whitespace
//! aside; numbers compared by exact decimal value).

use graphbinary_testkit::common;

use common::{decimal, gbin_vectors, same, shared_dir};
use graphbinary_client::format::graphson::to_graphson;
use graphbinary_client::value::Value;
use serde_json::Value as Json;

const EXPECTED_GRAPHSON: usize = 90;

#[test]
fn graphson_matches_every_canonical_document() {
    let dir = graphbinary_testkit::or_skip!(shared_dir("graphson conformance"));
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
