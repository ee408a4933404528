//! `ws::Client3` against a scripted in-process WebSocket server (no Java needed): batching,
//! error statuses, the SASL exchange, and broken or vanishing servers.

use std::time::Duration;

use futures::{SinkExt, StreamExt, TryStreamExt};
use graphbinary_client::model::Value;
use graphbinary_client::ws::{Client3, Error3, Options3};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

/// `{0x81}{00 id}{status}{message}{attributes}{meta}{data}`; data is a List of Ints, or `FE 01`.
fn response(id: &[u8], status: i32, message: &str, items: Option<&[i32]>) -> Vec<u8> {
    let mut out = vec![0x81, 0x00];
    out.extend_from_slice(id);
    out.extend_from_slice(&status.to_be_bytes());
    out.push(0x00);
    out.extend_from_slice(&(message.len() as i32).to_be_bytes());
    out.extend_from_slice(message.as_bytes());
    out.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
    match items {
        None => out.extend_from_slice(&[0xfe, 0x01]),
        Some(items) => {
            out.extend_from_slice(&[0x09, 0x00]);
            out.extend_from_slice(&(items.len() as i32).to_be_bytes());
            for i in items {
                out.extend_from_slice(&[0x01, 0x00]);
                out.extend_from_slice(&i.to_be_bytes());
            }
        }
    }
    out
}

/// The request id and op of a request message (after the 33-byte mime prefix).
fn parse_request(bytes: &[u8]) -> (Vec<u8>, String) {
    assert_eq!(&bytes[..33], b"\x20application/vnd.graphbinary-v1.0");
    assert_eq!(bytes[33], 0x81);
    let id = bytes[34..50].to_vec();
    let n = i32::from_be_bytes(bytes[50..54].try_into().unwrap()) as usize;
    (id, String::from_utf8(bytes[54..54 + n].to_vec()).unwrap())
}

type ServerWs = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// Serves one connection with `script`; returns the URL.
async fn serve<F, Fut>(script: F) -> String
where
    F: FnOnce(ServerWs) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        script(ws).await;
    });
    format!("ws://{addr}/gremlin")
}

async fn next_binary(ws: &mut ServerWs) -> Vec<u8> {
    loop {
        if let Message::Binary(b) = ws.next().await.expect("a message").expect("no error") {
            return b.to_vec();
        }
    }
}

async fn send(ws: &mut ServerWs, bytes: Vec<u8>) {
    ws.send(Message::Binary(bytes.into())).await.unwrap();
}

async fn collect(c: &Client3, g: &str) -> Result<Vec<(Value, i64)>, Error3> {
    tokio::time::timeout(Duration::from_secs(10), async {
        c.submit(g).await?.try_collect().await
    })
    .await
    .expect("the stream ends")
}

#[tokio::test]
async fn batches_206_then_200_stream_in_order() {
    let url = serve(|mut ws| async move {
        let (id, op) = parse_request(&next_binary(&mut ws).await);
        assert_eq!(op, "eval");
        for (status, items) in [(206, &[1, 2][..]), (206, &[3][..]), (200, &[4, 5][..])] {
            send(&mut ws, response(&id, status, "", Some(items))).await;
        }
        // Keep the connection open until the client is done.
        let _ = ws.next().await;
    })
    .await;
    let c = Client3::connect(&url).await.unwrap();
    let got = collect(&c, "g").await.unwrap();
    let want: Vec<_> = (1..=5).map(|i| (Value::Int(i), 1)).collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn an_error_status_after_a_batch_ends_the_stream_with_the_error() {
    let url = serve(|mut ws| async move {
        let (id, _) = parse_request(&next_binary(&mut ws).await);
        send(&mut ws, response(&id, 206, "", Some(&[1]))).await;
        send(&mut ws, response(&id, 597, "boom", None)).await;
        let _ = ws.next().await;
    })
    .await;
    let c = Client3::connect(&url).await.unwrap();
    let mut s = c.submit("g").await.unwrap();
    assert_eq!(s.next().await.unwrap().unwrap(), (Value::Int(1), 1));
    match s.next().await.unwrap() {
        Err(Error3::Server {
            code: 597, message, ..
        }) => assert_eq!(message, "boom"),
        other => panic!("{other:?}"),
    }
    assert!(s.next().await.is_none());
}

#[tokio::test]
async fn a_407_is_answered_with_sasl_plain_under_the_same_request_id() {
    let url = serve(|mut ws| async move {
        let (id, _) = parse_request(&next_binary(&mut ws).await);
        send(&mut ws, response(&id, 407, "", None)).await;
        let auth = next_binary(&mut ws).await;
        let (auth_id, op) = parse_request(&auth);
        assert_eq!(
            (auth_id.as_slice(), op.as_str()),
            (id.as_slice(), "authentication")
        );
        let token = b"AHN0ZXBoZW4AcGFzc3dvcmQ="; // base64("\0stephen\0password")
        assert!(auth.windows(token.len()).any(|w| w == token), "{auth:02x?}");
        send(&mut ws, response(&id, 200, "", Some(&[6]))).await;
        let _ = ws.next().await;
    })
    .await;
    let options = Options3 {
        credentials: Some(("stephen".into(), "password".into())),
        ..Options3::default()
    };
    let c = Client3::connect_with(&url, options).await.unwrap();
    assert_eq!(collect(&c, "g").await.unwrap(), vec![(Value::Int(6), 1)]);
}

#[tokio::test]
async fn an_undecodable_message_or_a_vanished_server_is_an_error_not_a_hang() {
    let url = serve(|mut ws| async move {
        let _ = next_binary(&mut ws).await;
        send(&mut ws, vec![0x84, 0x00, 0x01]).await;
        let _ = ws.next().await;
    })
    .await;
    let c = Client3::connect(&url).await.unwrap();
    match collect(&c, "g").await {
        Err(Error3::Closed(why)) => {
            assert!(why.contains("offset 0") && why.contains("0x84"), "{why}")
        }
        other => panic!("{other:?}"),
    }

    let url = serve(|mut ws| async move {
        let _ = next_binary(&mut ws).await;
        let _ = ws.close(None).await;
    })
    .await;
    let c = Client3::connect(&url).await.unwrap();
    assert!(matches!(collect(&c, "g").await, Err(Error3::Closed(_))));
}

#[tokio::test]
async fn a_response_with_a_readable_header_but_bad_data_fails_only_its_request() {
    let url = serve(|mut ws| async move {
        let (a, _) = parse_request(&next_binary(&mut ws).await);
        let (b, _) = parse_request(&next_binary(&mut ws).await);
        // a: a List of one item whose type code 0xf0 GraphBinary 1 does not define.
        let mut bad = response(&a, 200, "", Some(&[]));
        let n = bad.len();
        bad[n - 1] = 1;
        bad.extend_from_slice(&[0xf0, 0x00]);
        send(&mut ws, bad).await;
        send(&mut ws, response(&b, 200, "", Some(&[2]))).await;
        let _ = ws.next().await;
    })
    .await;
    let c = Client3::connect(&url).await.unwrap();
    let first = c.submit("a").await.unwrap();
    let second = c.submit("b").await.unwrap();
    let first: Result<Vec<_>, _> = first.try_collect().await;
    match first {
        // The header (35 bytes), `09 00` and the count: the item's code is at offset 41.
        Err(Error3::Decode(e)) => assert_eq!(e.offset(), 41, "{e:?}"),
        other => panic!("{other:?}"),
    }
    let second: Vec<_> = second.try_collect().await.unwrap();
    assert_eq!(second, vec![(Value::Int(2), 1)]);
}
