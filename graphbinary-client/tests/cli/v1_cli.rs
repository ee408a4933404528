//! `graphbinary decode --graphbinary-version 1`: the 60 canonical GraphBinary 1 vectors as
//! values, our JanusGraph captures as responses, the exit codes.

use crate::bin;
use graphbinary_testkit::common;

use bin::run;
use common::{shared_dir, v1_gbin_vectors};
use graphbinary_client::format::graphbinary1 as v1;
use graphbinary_core::Limits;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_v1_vector_decodes_as_a_value_and_re_encodes() {
    let dir = graphbinary_testkit::or_skip!(shared_dir("v1 cli"));
    let mut n = 0;
    let mut differ = Vec::new();
    for (name, bytes) in v1_gbin_vectors(&dir) {
        n += 1;
        let expected = v1::decode_slice(&bytes, &Limits::default()).unwrap();
        for chunk in [None, Some("1")] {
            let mut more = vec!["--value", "--format", "graphbinary"];
            if let Some(c) = chunk {
                more.extend(["--chunk-size", c]);
            }
            let o = decode_v1(&more, &bytes);
            assert!(o.status.success(), "{name:?}: {}", text(&o.stderr));
            // GraphBinary 1 out, byte for byte what was read (each date-time as its own
            // type, a Traverser as a Traverser), however the input arrives.
            assert_eq!(
                v1::decode_slice(&o.stdout, &Limits::default()).unwrap(),
                expected,
                "{name:?}"
            );
            if o.stdout != bytes {
                differ.push(format!("{name} (chunk {chunk:?})"));
            }
        }
        let o = decode_v1(&["--value"], &bytes);
        assert!(o.status.success(), "{name:?}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout).lines().count(), 1, "{name:?}");
    }
    assert_eq!(n, 60);
    assert!(differ.is_empty(), "re-encoded differently: {differ:?}");
}

/// `graphbinary decode --graphbinary-version 1 {more}`.
fn decode_v1(more: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut args = vec!["decode", "--graphbinary-version", "1"];
    args.extend(more);
    run(&args, stdin)
}

fn captured_edge_response() -> Vec<u8> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/vectors-v1/janusgraph-1.1.0.toml"
    ))
    .unwrap();
    let hex = text.split("hex = \"\"\"").nth(1).unwrap();
    let hex = hex.split("\"\"\"").next().unwrap();
    hex.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

#[test]
fn a_janusgraph_response_prints_its_edge() {
    let resp = captured_edge_response();
    let o = decode_v1(&[], &resp);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.starts_with("e["), "{out}");
    assert!(out.contains("created"), "{out}");
    let o = decode_v1(&["--format", "count"], &resp);
    assert_eq!(text(&o.stdout), "1\n");
    // Version 4 (the default) rejects it, naming the byte.
    let o = run(&["decode"], &resp);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("byte 0") || text(&o.stderr).contains("offset 0"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn exit_codes_of_version_1() {
    // An error status: results (none) first, then status and message, exit 2.
    let mut err = vec![0x81, 0x00];
    err.extend_from_slice(&[0x11; 16]);
    err.extend_from_slice(&[0, 0, 0x01, 0xf1, 0x00, 0, 0, 0, 4]); // 497
    err.extend_from_slice(b"boom");
    err.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0x01]);
    let o = decode_v1(&[], &err);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "status: 497\nmessage: boom\n");
    // Malformed: one line naming the byte offset, exit 1.
    let o = decode_v1(&["--value"], &[0x09, 0x00, 0, 0, 0, 2, 0x01, 0x00]);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(
        e.starts_with("graphbinary: malformed GraphBinary 1 value:") && e.contains('8'),
        "{e}"
    );
    // Only 1 and 4 are versions (a usage error).
    let o = run(&["decode", "--graphbinary-version", "2"], &[]);
    assert_eq!(o.status.code(), Some(64));
    assert!(
        text(&o.stderr).contains("expected 1 or 4"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn format_graphson_renders_graphson_3() {
    let dir = graphbinary_testkit::or_skip!(shared_dir("v1 cli"));
    let custom = v1::CustomTypes::janusgraph();
    let mut n = 0;
    for (name, bytes) in v1_gbin_vectors(&dir) {
        n += 1;
        let o = decode_v1(&["--value", "--format", "graphson"], &bytes);
        assert!(o.status.success(), "{name:?}: {}", text(&o.stderr));
        let value = v1::decode_slice_with(&bytes, &Limits::default(), &custom).unwrap();
        assert_eq!(
            text(&o.stdout),
            format!(
                "{}\n",
                graphbinary_client::format::graphson::to_graphson3(&value)
            ),
            "{name:?}"
        );
    }
    assert_eq!(n, 60);
    // A Date is a g:Date, as its GraphSON 3 twin (v1_conformance compares all 60 twins).
    let date = std::fs::read(dir.join("vectors/graphbinary-v1/date-v1.gbin")).unwrap();
    let o = decode_v1(&["--value", "--format", "graphson"], &date);
    let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let twin: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("vectors/graphson-v3/date-v3.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(got, twin);
    // GraphSON 4 (version 4's default) is another format: a Short is g:Int16 there.
    let short = std::fs::read(dir.join("vectors/graphbinary-v1/short-v1.gbin")).unwrap();
    let o = run(&["decode", "--value", "--format", "graphson"], &short);
    assert_eq!(text(&o.stdout), "{\"@type\":\"g:Int16\",\"@value\":100}\n");
    let o = decode_v1(&["--value", "--format", "graphson"], &short);
    assert_eq!(text(&o.stdout), "{\"@type\":\"gx:Int16\",\"@value\":100}\n");
}

#[test]
fn format_graphson_renders_a_responses_results_in_graphson_3() {
    // JanusGraph's edge: a g:Edge of GraphSON 3's shape (labels as Strings).
    let o = decode_v1(&["--format", "graphson"], &captured_edge_response());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert_eq!(out.lines().count(), 1, "{out}");
    let edge: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(edge["@type"], "g:Edge", "{out}");
    assert_eq!(edge["@value"]["label"], "created", "{out}");
    // Traversers: bulk 2 printed twice; a bulk past the expansion limit once, as g:Traverser.
    let mut trav = vec![0x81, 0x00];
    trav.extend_from_slice(&[0xcd; 16]);
    trav.extend_from_slice(&[
        0, 0, 0, 200, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x00, 0, 0, 0, 2,
    ]);
    trav.extend_from_slice(&[0x21, 0x00, 0, 0, 0, 0, 0, 0, 0, 2, 0x01, 0x00, 0, 0, 0, 5]);
    trav.extend_from_slice(&[
        0x21, 0x00, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x03, 0x00, 0, 0, 0, 1,
    ]);
    trav.push(b'x');
    let o = decode_v1(&["--format", "graphson"], &trav);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let big = 0x7f_i64 << 56;
    assert_eq!(
        text(&o.stdout),
        format!(
            "{{\"@type\":\"g:Int32\",\"@value\":5}}\n{{\"@type\":\"g:Int32\",\"@value\":5}}\n\
             {{\"@type\":\"g:Traverser\",\"@value\":{{\"bulk\":{{\"@type\":\"g:Int64\",\"@value\":{big}}},\"value\":\"x\"}}}}\n"
        )
    );
}
