//! The `graphbinary` binary: output formats, `--chunk-size`, and exit codes 0/1/2.

use crate::bin;
use graphbinary_testkit::common;

use std::process::Output;

use bin::run;
use common::{gbin_vectors, same_json, shared_dir};

fn response(items: &[&[u8]], footer: &[u8]) -> Vec<u8> {
    let mut b = vec![0x84, 0x00];
    for i in items {
        b.extend_from_slice(i);
    }
    b.extend([0xfd, 0x00, 0x00]);
    b.extend_from_slice(footer);
    b
}

const OK: &[u8] = &[0, 0, 0, 200, 1, 1];
const INT_1: &[u8] = &[0x01, 0x00, 0, 0, 0, 1];
const STR_A: &[u8] = &[0x03, 0x00, 0, 0, 0, 1, b'a'];

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn every_vector_re_encodes_byte_for_byte_and_prints_its_graphson() {
    let dir = graphbinary_testkit::or_skip!(shared_dir("cli"));
    for (name, bytes) in gbin_vectors(&dir) {
        for chunk in [None, Some("1")] {
            let mut args = vec!["decode", "--value", "--format", "graphbinary"];
            if let Some(c) = chunk {
                args.extend(["--chunk-size", c]);
            }
            let o = run(&args, &bytes);
            assert!(o.status.success(), "{name}: {}", stderr(&o));
            assert_eq!(o.stdout, bytes, "{name} chunk {chunk:?}");
        }
        let path = dir.join("vectors/graphson-v4").join(format!("{name}.json"));
        if let Ok(expected) = std::fs::read_to_string(path) {
            let o = run(&["decode", "--value", "--format", "graphson", "-"], &bytes);
            assert!(o.status.success(), "{name}: {}", stderr(&o));
            let out = stdout(&o);
            assert_eq!(out.lines().count(), 1, "{name}");
            same_json(out.trim_end(), &expected).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let o = run(&["decode", "--value", "--format", "text"], &bytes);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(!o.stdout.is_empty(), "{name}");
    }
}

#[test]
fn a_response_prints_one_line_per_result() {
    let body = response(&[INT_1, STR_A, INT_1], OK);
    for extra in [&[][..], &["--chunk-size", "1"][..]] {
        let mut args = vec!["decode"];
        args.extend(extra);
        let o = run(&args, &body);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), "1\na\n1\n");
        let mut args = vec!["decode", "--format", "count"];
        args.extend(extra);
        assert_eq!(stdout(&run(&args, &body)), "3\n");
        let mut args = vec!["decode", "--format", "graphson"];
        args.extend(extra);
        assert_eq!(
            stdout(&run(&args, &body)),
            "{\"@type\":\"g:Int32\",\"@value\":1}\n\"a\"\n{\"@type\":\"g:Int32\",\"@value\":1}\n"
        );
        let mut args = vec!["decode", "--format", "graphbinary"];
        args.extend(extra);
        assert_eq!(run(&args, &body).stdout, [INT_1, STR_A, INT_1].concat());
    }
}

/// A file argument is read by blocking reads on the decoding thread (not through tokio's
/// blocking pool); `count`, `count-values` and `text` agree on it, and with `--chunk-size`, on
/// a response larger than the read buffer (many refills, results straddling them).
#[test]
fn a_file_decodes_alike_by_every_route_and_read_size() {
    let n = 40_000;
    let items: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let s = format!("name-{i}");
            let mut v = vec![0x03, 0x00];
            v.extend((s.len() as u32).to_be_bytes());
            v.extend(s.as_bytes());
            v
        })
        .collect();
    let refs: Vec<&[u8]> = items.iter().map(|v| &v[..]).collect();
    let body = response(&refs, OK);
    assert!(body.len() > 3 * 65536, "larger than the read buffer");
    let path = std::env::temp_dir().join(format!("graphbinary-cli-{}.gb", std::process::id()));
    std::fs::write(&path, &body).unwrap();
    let file = path.to_str().unwrap();
    for extra in [
        &[][..],
        &["--chunk-size", "1024"][..],
        &["--chunk-size", "7"][..],
    ] {
        for format in ["count", "count-values"] {
            let mut args = vec!["decode", "--format", format];
            args.extend(extra);
            args.push(file);
            let o = run(&args, &[]);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
            assert_eq!(stdout(&o), format!("{n}\n"), "{args:?}");
        }
        let mut args = vec!["decode"];
        args.extend(extra);
        args.push(file);
        let o = run(&args, &[]);
        let out = stdout(&o);
        assert_eq!(out.lines().count(), n, "{args:?}");
        assert_eq!(out.lines().nth(12_345), Some("name-12345"), "{args:?}");
    }
    // Cut short inside the last result: every route names the same offset.
    std::fs::write(&path, &body[..body.len() - 12]).unwrap();
    let mut errors = Vec::new();
    for format in ["count", "count-values", "text"] {
        let o = run(&["decode", "--format", format, file], &[]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{}", body.len() - 12)),
            "{format}: {err}"
        );
        errors.push(err);
    }
    assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
    let _ = std::fs::remove_file(&path);
    let missing = run(
        &["decode", "--format", "count", "/nonexistent/graphbinary.gb"],
        &[],
    );
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("cannot open /nonexistent/graphbinary.gb"));
}

/// A bulked response of one result, the String "a" with `bulk`, and an OK status.
fn bulked_a(bulk: i64) -> Vec<u8> {
    let mut body = vec![0x84, 0x01];
    body.extend(STR_A);
    body.extend([0x02, 0x00]);
    body.extend(bulk.to_be_bytes());
    body.extend([0xfd, 0x00, 0x00]);
    body.extend(OK);
    body
}

#[test]
fn bulked_results_print_once_per_bulk() {
    let body = bulked_a(3);
    let o = run(&["decode"], &body);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a\na\na\n");
    assert_eq!(stdout(&run(&["decode", "--format", "count"], &body)), "3\n");
}

#[test]
fn a_huge_bulk_prints_once_with_its_bulk() {
    let body = bulked_a(i64::MAX);
    let o = run(&["decode"], &body);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("a (bulk {})\n", i64::MAX));
    let o = run(&["decode", "--format", "graphson"], &body);
    assert_eq!(
        stdout(&o),
        format!(
            "{{\"@type\":\"g:Traverser\",\"@value\":{{\"bulk\":{{\"@type\":\"g:Int64\",\"@value\":{}}},\"value\":\"a\"}}}}\n",
            i64::MAX
        )
    );
    assert_eq!(
        stdout(&run(&["decode", "--format", "count"], &body)),
        format!("{}\n", i64::MAX)
    );
    let o = run(&["decode", "--format", "graphbinary"], &body);
    assert_eq!(o.stdout, body[2..body.len() - 9]);
}

#[test]
fn a_server_error_prints_results_then_the_status_and_exits_2() {
    let footer = common::boom_footer();
    let body = response(&[INT_1, STR_A], &footer);
    let o = run(&["decode", "--chunk-size", "1"], &body);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "1\na\n");
    let err = stderr(&o);
    assert!(
        err.contains("500") && err.contains("boom") && err.contains("NPE"),
        "{err}"
    );
}

#[test]
fn malformed_input_is_one_line_naming_the_offset_and_exits_1() {
    let body = response(&[INT_1, STR_A], OK);
    // Truncated inside the String.
    let o = run(&["decode"], &body[..12]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "1\n", "results before the error are printed");
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("at byte 12"), "{err}");
    // An unknown type code.
    let mut bad = body.clone();
    bad[2] = 0x99;
    let o = run(&["decode"], &bad);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("at byte 2") && err.contains("0x99"), "{err}");
    // Wrong version.
    let o = run(&["decode"], &[0x81, 0x00]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("0x84"));
    // A value followed by garbage.
    let o = run(&["decode", "--value"], &[INT_1, &[0xff]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("at byte 6"), "{}", stderr(&o));
    // Empty input.
    let o = run(&["decode", "--value"], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("at byte 0"), "{}", stderr(&o));
}

#[test]
fn garbage_never_panics() {
    // A pseudo-random walk over byte strings: the binary must exit 0, 1 or 2, never crash.
    let mut x: u32 = 12345;
    for _ in 0..40 {
        let mut b = vec![0x84, 0x00];
        for _ in 0..(x % 64) {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            b.push((x >> 16) as u8);
        }
        let o = run(&["decode"], &b);
        assert!(
            matches!(o.status.code(), Some(0..=2)),
            "{b:02x?}: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{b:02x?}");
    }
}

#[test]
fn usage_errors_exit_64_and_help_exits_0() {
    assert_eq!(
        run(&["decode", "--format", "xml"], &[]).status.code(),
        Some(64)
    );
    assert_eq!(
        run(&["decode", "--chunk-size", "0"], &[]).status.code(),
        Some(64)
    );
    assert_eq!(run(&["--help"], &[]).status.code(), Some(0));
}
