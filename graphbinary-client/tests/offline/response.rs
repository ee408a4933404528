//! The response deserializer's edges: version check, trailing bytes, values larger than the
//! buffer, and that results are yielded before the response has fully arrived.

use graphbinary_testkit::common;

use common::{block_on, Pieces};
use futures::StreamExt;
use graphbinary_client::response::{read_response, ReadOptions, ResponseError, ResponseStream};
use graphbinary_client::value::Value;

fn body(items: &[Value], footer: &[u8]) -> Vec<u8> {
    let mut b = vec![0x84, 0x00];
    for v in items {
        b.extend(v.to_bytes().unwrap());
    }
    b.extend([0xfd, 0x00, 0x00]);
    b.extend(footer);
    b
}

const OK: &[u8] = &[0, 0, 0, 200, 1, 1];

async fn all(bytes: Vec<u8>, opts: ReadOptions) -> (Vec<Value>, Option<ResponseError>) {
    let mut s = read_response(std::io::Cursor::new(bytes), opts);
    let mut out = Vec::new();
    while let Some(r) = s.next().await {
        match r {
            Ok(t) => out.push(t.value),
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}

#[test]
fn wrong_version_is_a_clear_error_at_offset_0() {
    let mut b = body(&[Value::Int(1)], OK);
    b[0] = 0x81;
    let (items, err) = block_on(all(b, ReadOptions::default()));
    assert!(items.is_empty());
    let e = err.unwrap();
    assert_eq!(e.offset(), Some(0));
    // The cause (the decode error) carries the detail; the message does not repeat it.
    let msg = std::error::Error::source(&e).unwrap().to_string();
    assert!(msg.contains("0x84") && msg.contains("0x81"), "{msg}");
}

#[test]
fn bad_bulked_flag_names_offset_1() {
    let mut b = body(&[], OK);
    b[1] = 0x07;
    let (_, err) = block_on(all(b, ReadOptions::default()));
    assert_eq!(err.unwrap().offset(), Some(1));
}

#[test]
fn trailing_bytes_after_the_status_are_an_error() {
    let mut b = body(&[Value::Int(1)], OK);
    b.push(0x00);
    let (items, err) = block_on(all(b.clone(), ReadOptions::default()));
    assert_eq!(items, [Value::Int(1)]);
    let e = err.unwrap();
    assert_eq!(e.offset(), Some(b.len() as u64 - 1), "{e}");
}

#[test]
fn server_error_comes_after_the_results_with_code_message_and_exception() {
    let footer = common::boom_footer();
    let b = body(&[Value::from("a"), Value::from("b")], &footer);
    let (items, err) = block_on(all(b, ReadOptions::default()));
    assert_eq!(items, [Value::from("a"), Value::from("b")]);
    match err.unwrap() {
        ResponseError::Server(se) => {
            assert_eq!(se.code, 500);
            assert_eq!(se.message.as_deref(), Some("boom"));
            assert_eq!(se.exception.as_deref(), Some("NPE"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn values_larger_than_the_buffer_take_the_slow_path() {
    let big = Value::List(
        (0..2000)
            .map(|i| Value::String(format!("item-{i}")))
            .collect(),
    );
    let long = Value::String("x".repeat(100_000));
    let items = vec![big.clone(), Value::Int(7), long.clone()];
    for opts in [
        ReadOptions {
            capacity: 64,
            ..ReadOptions::default()
        },
        ReadOptions {
            capacity: 1024,
            fast_path: false,
            ..ReadOptions::default()
        },
        ReadOptions::default(),
    ] {
        let (got, err) = block_on(all(body(&items, OK), opts));
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got, items);
    }
}

#[test]
fn results_are_yielded_before_the_rest_arrives() {
    // A reader that delivers the header and the first result, then stalls forever: a pipe
    // whose writer stays open.
    let mut first = vec![0x84, 0x00];
    first.extend(Value::Int(5).to_bytes().unwrap());
    let (mut writer, reader) = tokio::io::duplex(1024);
    block_on(tokio::io::AsyncWriteExt::write_all(&mut writer, &first)).unwrap();
    let mut s = read_response(reader, ReadOptions::default());
    let v = block_on(s.next()).unwrap().unwrap();
    assert_eq!(v.value, Value::Int(5));
    assert_eq!(s.bulked(), Some(false));
    let waker = futures::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(s.poll_next_unpin(&mut cx).is_pending());
}

#[test]
fn chunked_reader_changes_nothing() {
    let items: Vec<Value> = (0..50).map(Value::Int).collect();
    let b = body(&items, OK);
    let (got, err) = block_on(async {
        let mut s = read_response(
            graphbinary_core::testing::ChunkedReader::new(Pieces::split(&b, &[]), 3),
            ReadOptions::default(),
        );
        let mut out = Vec::new();
        while let Some(r) = s.next().await {
            out.push(r.unwrap().value);
        }
        (out, s.status().cloned())
    });
    assert_eq!(got, items);
    assert_eq!(err.unwrap().code, 200);
}

#[test]
fn the_stream_is_send_and_unpin() {
    fn check<T: Send + Unpin>() {}
    check::<ResponseStream<tokio::net::TcpStream>>();
}

#[test]
fn chunked_reader_cycles_its_sizes_and_pends_between_reads() {
    use std::task::{Context, Poll};
    use tokio::io::{AsyncRead, ReadBuf};
    let mut r = graphbinary_core::testing::ChunkedReader::with_sizes(
        std::io::Cursor::new((0u8..10).collect::<Vec<_>>()),
        &[1, 3],
    )
    .pending_between_reads();
    let waker = futures::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    let mut got = Vec::new();
    let mut pendings = 0;
    loop {
        let mut space = [0u8; 16];
        let mut buf = ReadBuf::new(&mut space);
        match std::pin::Pin::new(&mut r).poll_read(&mut cx, &mut buf) {
            Poll::Pending => pendings += 1,
            Poll::Ready(res) => {
                res.unwrap();
                if buf.filled().is_empty() {
                    break;
                }
                got.push(buf.filled().to_vec());
            }
        }
    }
    assert_eq!(
        got,
        [
            vec![0],
            vec![1, 2, 3],
            vec![4],
            vec![5, 6, 7],
            vec![8],
            vec![9]
        ]
    );
    assert_eq!(pendings, got.len() + 1, "one Pending before every read");
}
