//! Throughput of the response deserializer: 200,000 vertices with properties, decoded from an
//! in-memory body, fast path on and off. Run with
//! `cargo bench -p graphbinary-client --bench model_decode`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use graphbinary_client::response::{read_response, ReadOptions};
use graphbinary_client::value::{Value, Vertex, VertexProperty};

fn body(n: usize) -> Vec<u8> {
    let name: Arc<str> = Arc::from("name");
    let age: Arc<str> = Arc::from("age");
    let person: Arc<str> = Arc::from("person");
    let mut b = vec![0x84, 0x00];
    for i in 0..n {
        let vp = |id: i64, label: &Arc<str>, value: Value| VertexProperty {
            id: Value::Long(id),
            label: vec![label.clone()].into(),
            value,
            parent: Value::Null(0xfe),
            properties: Some(vec![]),
        };
        let v = Vertex {
            id: Value::Long(i as i64),
            label: vec![person.clone()].into(),
            properties: Some(vec![
                vp(2 * i as i64, &name, Value::String(format!("person-{i}"))),
                vp(2 * i as i64 + 1, &age, Value::Int((i % 90) as i32)),
            ]),
        };
        b.extend(Value::Vertex(Box::new(v)).to_bytes().unwrap());
    }
    b.extend([0xfd, 0x00, 0x00, 0, 0, 0, 200, 1, 1]);
    b
}

fn decode(body: &[u8], opts: ReadOptions, rt: &tokio::runtime::Runtime) -> (usize, Duration) {
    let data = body.to_vec();
    let start = Instant::now();
    let n = rt.block_on(async move {
        let mut s = read_response(std::io::Cursor::new(data), opts);
        let mut n = 0;
        while let Some(r) = s.next().await {
            std::hint::black_box(r.unwrap());
            n += 1;
        }
        n
    });
    (n, start.elapsed())
}

fn main() {
    let n = std::env::var("VERTICES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let body = body(n);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    println!("body: {} vertices, {} bytes", n, body.len());
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    if only.as_deref().is_none_or(|o| o == "slice") {
        // The decoder alone: every Value straight from the in-memory body, no stream.
        let limits = graphbinary_core::Limits::DEFAULT;
        let mut best = Duration::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            let mut interner = graphbinary_core::Interner::new();
            let mut cur = graphbinary_core::Cursor::new(&body[2..body.len() - 9], 2, &limits)
                .with_interner(&mut interner);
            let mut got = 0;
            while !cur.remaining().is_empty() {
                let v = <Value as graphbinary_core::Decode>::decode(&mut cur).unwrap();
                std::hint::black_box(v);
                got += 1;
            }
            assert_eq!(got, n);
            best = best.min(start.elapsed());
        }
        let mbs = body.len() as f64 / best.as_secs_f64() / 1e6;
        println!(
            "{:15} best of 5: {best:?}  {mbs:.0} MB/s  {:.0} ns/vertex",
            "slice (no stream)",
            best.as_nanos() as f64 / n as f64
        );
    }
    for (name, opts) in [
        ("fast path", ReadOptions::default()),
        (
            "slow path only",
            ReadOptions {
                fast_path: false,
                ..ReadOptions::default()
            },
        ),
    ] {
        if only.as_deref().is_some_and(|o| !name.starts_with(o)) {
            continue;
        }
        let mut best = Duration::MAX;
        for _ in 0..5 {
            let (got, t) = decode(&body, opts, &rt);
            assert_eq!(got, n);
            best = best.min(t);
        }
        let mbs = body.len() as f64 / best.as_secs_f64() / 1e6;
        println!(
            "{name:15} best of 5: {best:?}  {mbs:.0} MB/s  {:.0} ns/vertex",
            best.as_nanos() as f64 / n as f64
        );
    }
}
