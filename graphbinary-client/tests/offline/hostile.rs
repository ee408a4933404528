//! Hostile and broken input: each case asserts the exact error kind and byte offset, on the
//! fast path (`Value::from_bytes`) and through the response stream on both paths (fast path
//! with the default buffer, and the slow path over a tiny buffer fed one byte at a time).

use futures::StreamExt;
use graphbinary_client::response::{read_response, ReadOptions, ResponseError};
use graphbinary_client::value::Value;
use graphbinary_core::testing::ChunkedReader;
use graphbinary_core::{DecodeError, ErrorKind, Limits};

const FOOTER: [u8; 9] = [0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01];

/// A response around one value: header, the value, marker, status 200.
fn response(value: &[u8]) -> Vec<u8> {
    let mut v = vec![0x84, 0x00];
    v.extend_from_slice(value);
    v.extend_from_slice(&FOOTER);
    v
}

/// The ways a response is read: default options, and the slow path over a 16-byte buffer,
/// one byte per read.
fn ways() -> [(&'static str, ReadOptions, usize); 2] {
    [
        ("fast", ReadOptions::default(), usize::MAX),
        (
            "slow",
            ReadOptions {
                fast_path: false,
                capacity: 16,
                ..ReadOptions::default()
            },
            1,
        ),
    ]
}

/// Reads the whole response; returns the values yielded and the error that ended it.
fn read_all(bytes: Vec<u8>, opts: ReadOptions, chunk: usize) -> (Vec<Value>, Option<DecodeError>) {
    on_test_stack(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async move {
            let reader = ChunkedReader::new(std::io::Cursor::new(bytes), chunk);
            let mut s = read_response(reader, opts);
            let mut values = Vec::new();
            while let Some(r) = s.next().await {
                match r {
                    Ok(t) => values.push(t.value),
                    Err(ResponseError::Decode(e)) => {
                        assert!(s.next().await.is_none(), "the stream ends after an error");
                        return (values, Some(e));
                    }
                    Err(e) => panic!("unexpected {e}"),
                }
            }
            (values, None)
        })
    })
}

/// Runs `f` on a thread with the default 2 MiB test stack.
fn on_test_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// Reads a response of `items` both ways with `max_response_size` = `limit`, asserting that
/// it ends in an error at `offset` that passes `check`; returns each way's values.
fn within_response_size(
    limit: u64,
    items: &[u8],
    offset: u64,
    check: impl Fn(&ErrorKind) -> bool,
) -> Vec<(&'static str, Vec<Value>)> {
    let mut out = Vec::new();
    for (way, mut opts, chunk) in ways() {
        opts.limits.max_response_size = Some(limit);
        let (values, e) = read_all(response(items), opts, chunk);
        let e = e.unwrap_or_else(|| panic!("{way}: no error"));
        assert_eq!(e.offset(), offset, "{way}: {e}");
        assert!(check(e.kind()), "{way}: {e}");
        out.push((way, values));
    }
    out
}

/// Asserts that `value` fails with `check` at `offset` as a lone value (fast path) and at
/// `offset + 2` inside a response read both ways.
fn assert_value_error(value: &[u8], offset: u64, check: impl Fn(&ErrorKind) -> bool) {
    let e = Value::from_bytes(value).unwrap_err();
    assert_eq!(e.offset(), offset, "from_bytes: {e}");
    assert!(check(e.kind()), "from_bytes: {e}");
    for (way, opts, chunk) in ways() {
        let (values, e) = read_all(response(value), opts, chunk);
        assert!(values.is_empty(), "{way}");
        let e = e.unwrap_or_else(|| panic!("{way}: no error"));
        assert_eq!(e.offset(), offset + 2, "{way}: {e}");
        assert!(check(e.kind()), "{way}: {e}");
    }
}

#[test]
fn string_length_2_pow_31_minus_1_is_a_length_limit_at_the_length() {
    let v = [0x03, 0x00, 0x7f, 0xff, 0xff, 0xff, b'a', b'b'];
    assert_bytes_limit_at_the_length(&v, "String");
}

#[test]
fn binary_length_2_pow_31_minus_1_is_a_length_limit_at_the_length() {
    let v = [0x25, 0x00, 0x7f, 0xff, 0xff, 0xff, 0x00];
    assert_bytes_limit_at_the_length(&v, "Binary");
}

/// `value`, a `what` claiming 2^31 - 1 bytes, is the default byte-length limit at its length.
fn assert_bytes_limit_at_the_length(value: &[u8], what: &str) {
    assert_value_error(value, 2, |k| {
        matches!(
            k,
            ErrorKind::LengthLimit { what: w, length: 0x7fff_ffff, limit }
                if *w == what && *limit == Limits::DEFAULT.max_bytes_len as u64
        )
    });
}

#[test]
fn list_and_map_counts_of_2_pow_31_minus_1_are_length_limits_at_the_count() {
    for (code, what) in [(0x09u8, "List"), (0x0b, "Set"), (0x0a, "Map")] {
        let v = [code, 0x00, 0x7f, 0xff, 0xff, 0xff, 0x01, 0x00, 0, 0, 0, 1];
        assert_value_error(&v, 2, |k| {
            matches!(
                k,
                ErrorKind::LengthLimit { what: w, length: 0x7fff_ffff, limit }
                    if *w == what && *limit == Limits::DEFAULT.max_collection_len as u64
            )
        });
    }
}

#[test]
fn negative_lengths_are_errors_at_the_length() {
    let cases: [(&[u8], &str, i32); 4] = [
        (&[0x03, 0x00, 0xff, 0xff, 0xff, 0xff], "String", -1),
        (&[0x25, 0x00, 0x80, 0x00, 0x00, 0x00], "Binary", i32::MIN),
        (&[0x09, 0x00, 0xff, 0xff, 0xff, 0xfb], "List", -5),
        (&[0x0a, 0x00, 0xff, 0xff, 0xff, 0xff], "Map", -1),
    ];
    for (v, what, len) in cases {
        assert_value_error(
            v,
            2,
            |k| matches!(k, ErrorKind::NegativeLength { what: w, length } if *w == what && *length == len),
        );
    }
}

#[test]
fn unknown_type_code_0x99_is_named_at_its_offset() {
    assert_value_error(&[0x99, 0x00, 0x00], 0, |k| {
        matches!(k, ErrorKind::UnknownTypeCode { code: 0x99 })
    });
    // Nested: a List whose second item has an unknown code.
    let v = [
        0x09, 0x00, 0, 0, 0, 2, 0x01, 0x00, 0, 0, 0, 1, 0x99, 0x00, 0x00,
    ];
    assert_value_error(&v, 12, |k| {
        matches!(k, ErrorKind::UnknownTypeCode { code: 0x99 })
    });
}

#[test]
fn invalid_utf8_is_an_error_at_the_string() {
    // 0xc3 0x28: a 2-byte sequence whose second byte is not a continuation byte.
    assert_value_error(&[0x03, 0x00, 0, 0, 0, 2, 0xc3, 0x28], 2, |k| {
        matches!(k, ErrorKind::InvalidUtf8 { what: "String" })
    });
    // A lone continuation byte as a Char.
    assert_value_error(&[0x80, 0x00, 0x80], 2, |k| {
        matches!(k, ErrorKind::InvalidUtf8 { what: "Char" })
    });
}

#[test]
fn wrong_version_byte_0x81_is_the_version_error_at_0() {
    let mut bytes = response(&[0x01, 0x00, 0, 0, 0, 1]);
    bytes[0] = 0x81;
    for (way, opts, chunk) in ways() {
        let (values, e) = read_all(bytes.clone(), opts, chunk);
        assert!(values.is_empty());
        let e = e.unwrap();
        assert_eq!(e.offset(), 0, "{way}");
        match e.kind() {
            ErrorKind::Invalid { what, detail } => {
                assert_eq!(*what, "response version");
                assert_eq!(detail, "expected 0x84 (GraphBinary 4), found 0x81");
            }
            k => panic!("{way}: {k}"),
        }
    }
}

#[test]
fn missing_marker_is_unexpected_eof_at_the_end_after_the_items() {
    let mut bytes = vec![0x84, 0x00];
    bytes.extend_from_slice(&[0x01, 0x00, 0, 0, 0, 1, 0x01, 0x00, 0, 0, 0, 2]);
    let end = bytes.len() as u64;
    for (way, opts, chunk) in ways() {
        let (values, e) = read_all(bytes.clone(), opts, chunk);
        assert_eq!(values, [Value::Int(1), Value::Int(2)], "{way}");
        let e = e.unwrap();
        assert_eq!(e.offset(), end, "{way}: {e}");
        assert!(
            matches!(
                e.kind(),
                ErrorKind::UnexpectedEof {
                    expected: "a result or the end-of-results marker"
                }
            ),
            "{way}: {e}"
        );
    }
}

/// `depth` Lists of one item each around an Int.
fn nested_lists(depth: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(depth * 6 + 6);
    for _ in 0..depth {
        v.extend_from_slice(&[0x09, 0x00, 0, 0, 0, 1]);
    }
    v.extend_from_slice(&[0x01, 0x00, 0, 0, 0, 7]);
    v
}

/// `depth` Vertices, each the id of the one around it.
fn nested_vertices(depth: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(depth * 8 + 6);
    for _ in 0..depth {
        v.extend_from_slice(&[0x11, 0x00]);
    }
    v.extend_from_slice(&[0x01, 0x00, 0, 0, 0, 7]);
    for _ in 0..depth {
        // empty label list, no properties
        v.extend_from_slice(&[0, 0, 0, 0, 0xfe, 0x01]);
    }
    v
}

/// `depth` Properties, each the value of the one around it.
fn nested_properties(depth: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for _ in 0..depth {
        v.extend_from_slice(&[0x0f, 0x00, 0, 0, 0, 1, b'k']);
    }
    v.extend_from_slice(&[0x01, 0x00, 0, 0, 0, 7]);
    for _ in 0..depth {
        v.extend_from_slice(&[0xfe, 0x01]); // parent
    }
    v
}

/// A Tree `depth` levels deep: each level one entry whose child is the next level.
fn nested_trees(depth: usize) -> Vec<u8> {
    let mut v = vec![0x2b, 0x00];
    for _ in 0..depth {
        v.extend_from_slice(&[0, 0, 0, 1, 0x01, 0x00, 0, 0, 0, 1]);
    }
    v.extend_from_slice(&[0, 0, 0, 0]);
    v
}

#[test]
fn nesting_100_000_deep_is_a_depth_limit_not_a_stack_overflow() {
    // (generator, bytes per level before the nested value, offset of the nesting check
    // within a level)
    type Gen = fn(usize) -> Vec<u8>;
    let kinds: [(&str, Gen, u64, u64); 4] = [
        ("lists", nested_lists, 6, 2),
        ("vertices", nested_vertices, 2, 2),
        ("properties", nested_properties, 7, 2),
        // A Tree's levels are bare Trees (no header): each level is its count and one key.
        ("trees", nested_trees, 10, 2),
    ];
    for (kind, gen, per_level, check_at) in kinds {
        let bytes = gen(100_000);
        // Fast path on a 2 MiB stack, with the default limits (128) and with core's larger
        // Limits::DEFAULT (512): the level past the limit fails.
        for limits in [ReadOptions::default().limits, Limits::DEFAULT] {
            let limit = limits.max_depth as u64;
            let b = bytes.clone();
            let e = on_test_stack(move || Value::from_bytes_with(&b, &limits).unwrap_err());
            assert_eq!(e.offset(), limit * per_level + check_at, "{kind}: {e}");
            assert!(
                matches!(e.kind(), ErrorKind::DepthLimit { limit: l } if *l as u64 == limit),
                "{kind}: {e}"
            );
        }
        // Responses, default options (128) both ways.
        let limit = ReadOptions::default().limits.max_depth as u64;
        for (way, opts, chunk) in ways() {
            let chunk = chunk.max(4096); // 1-byte reads of 600 KB would only be slow
            let (values, e) = read_all(response(&bytes), opts, chunk);
            assert!(values.is_empty());
            let e = e.unwrap();
            assert_eq!(
                e.offset(),
                2 + limit * per_level + check_at,
                "{kind} {way}: {e}"
            );
            assert!(
                matches!(e.kind(), ErrorKind::DepthLimit { limit: l } if *l as u64 == limit),
                "{kind} {way}: {e}"
            );
        }
    }
}

#[test]
fn nesting_up_to_the_limit_decodes_on_a_2_mib_stack_both_paths() {
    // At the limit exactly: every level counts one, the innermost Int none.
    let limit = ReadOptions::default().limits.max_depth as usize;
    for (way, opts, chunk) in ways() {
        let (values, e) = read_all(response(&nested_lists(limit)), opts, chunk.max(64));
        assert!(e.is_none(), "{way}: {e:?}");
        assert_eq!(values.len(), 1);
        assert_eq!(values[0].to_bytes().unwrap(), nested_lists(limit));
    }
    let limit = Limits::DEFAULT.max_depth as usize;
    let v = on_test_stack(move || {
        Value::from_bytes_with(&nested_lists(limit), &Limits::DEFAULT).map(|v| v.to_bytes())
    });
    assert_eq!(v.unwrap().unwrap(), nested_lists(limit));
}

#[test]
fn a_length_beyond_what_the_response_can_still_hold_is_an_error_before_allocation() {
    // 100-byte response limit; a String claiming 1000 bytes at offset 4 (room: 100 - 8 = 92).
    let v = [0x03, 0x00, 0x00, 0x00, 0x03, 0xe8, b'a'];
    within_response_size(100, &v, 4, |k| {
        matches!(
            k,
            ErrorKind::LengthLimit {
                what: "String",
                length: 1000,
                limit: 92
            }
        )
    });
    // The same through Value::from_bytes_with.
    let limits = Limits {
        max_response_size: Some(100),
        ..Limits::DEFAULT
    };
    let e = Value::from_bytes_with(&[0x09, 0x00, 0x00, 0x01, 0x00, 0x00], &limits).unwrap_err();
    assert_eq!(e.offset(), 2);
    assert!(matches!(
        e.kind(),
        ErrorKind::LengthLimit {
            what: "List",
            length: 65536,
            limit: 94
        }
    ));
}

#[test]
fn a_response_larger_than_max_response_size_is_a_response_limit() {
    let items: Vec<u8> = (0..100u8).flat_map(|i| [0x01, 0x00, 0, 0, 0, i]).collect();
    for (way, values) in within_response_size(64, &items, 64, |k| {
        matches!(k, ErrorKind::ResponseLimit { limit: 64 })
    }) {
        assert!(values.len() <= 10, "{way}");
    }
}

#[test]
fn configured_limits_apply() {
    let limits = Limits {
        max_bytes_len: 3,
        max_collection_len: 2,
        max_depth: 1,
        max_response_size: None,
    };
    let e = Value::from_bytes_with(&[0x03, 0x00, 0, 0, 0, 4, b'a', b'b', b'c', b'd'], &limits)
        .unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::LengthLimit {
            what: "String",
            length: 4,
            limit: 3
        }
    ));
    let e = Value::from_bytes_with(&[0x09, 0x00, 0, 0, 0, 3], &limits).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::LengthLimit {
            what: "List",
            length: 3,
            limit: 2
        }
    ));
    let e = Value::from_bytes_with(&nested_lists(2), &limits).unwrap_err();
    assert_eq!(e.offset(), 8);
    assert!(matches!(e.kind(), ErrorKind::DepthLimit { limit: 1 }));
    assert!(Value::from_bytes_with(&nested_lists(1), &limits).is_ok());
}

#[test]
fn errors_chain_their_sources_and_print_on_one_line() {
    let (_, e) = read_all(response(&[0x99, 0x00]), ReadOptions::default(), usize::MAX);
    let e = ResponseError::Decode(e.unwrap());
    let mut chain = vec![e.to_string()];
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        chain.push(s.to_string());
        src = s.source();
    }
    assert_eq!(
        chain,
        ["malformed response", "at byte 2: unknown type code 0x99"]
    );
    assert!(chain.iter().all(|l| !l.contains('\n')));
}

#[test]
fn an_io_error_keeps_its_cause_and_offset_on_one_line() {
    struct Failing(usize);
    impl tokio::io::AsyncRead for Failing {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            if self.0 == 0 {
                return std::task::Poll::Ready(Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "connection reset by peer",
                )));
            }
            self.0 -= 1;
            buf.put_slice(&[0x84, 0x00, 0x01][..buf.remaining().min(3)]);
            std::task::Poll::Ready(Ok(()))
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let e = rt.block_on(async {
        let mut s = read_response(Failing(1), ReadOptions::default());
        s.next().await.unwrap().unwrap_err()
    });
    assert_eq!(e.offset(), Some(3));
    let ResponseError::Decode(d) = &e else {
        panic!("{e}")
    };
    let ErrorKind::Io(io) = d.kind() else {
        panic!("{d}")
    };
    assert_eq!(io.kind(), std::io::ErrorKind::ConnectionReset);
    // Each cause once, along the chain of sources.
    assert_eq!(
        graphbinary_client::format::text::one_line(&e),
        "malformed response: at byte 3: I/O error: connection reset by peer"
    );
}
