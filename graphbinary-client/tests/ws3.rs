//! End-to-end over WebSocket against real TinkerPop 3 Gremlin Servers (GraphBinary 1):
//! `graphbinary_client::ws::Client3` against 3.7.3 and 3.8.1 with the modern graph.
//!
//! These tests are `#[ignore]`d, so a plain `cargo test` reports them as ignored, never as
//! passed. Run them with the servers up:
//!
//! ```sh
//! cargo xtask server3 --tinkerpop 3.7.3 --detach          # ws://127.0.0.1:8196/gremlin
//! cargo xtask server3 --tinkerpop 3.8.1 --detach          # 8197
//! cargo xtask server3 --tinkerpop 3.7.3 --auth --detach   # 8198
//! cargo xtask server3 --tinkerpop 3.8.1 --auth --detach   # 8199
//! cargo test -p graphbinary-client --test ws3 -- --ignored
//! ```
//!
//! Run that way, an unreachable server is a failure. `GREMLIN3_URL_373`, `GREMLIN3_URL_381`,
//! `GREMLIN3_AUTH_URL_373` and `GREMLIN3_AUTH_URL_381` override the URLs.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use graphbinary_client::model::Value;
use graphbinary_client::ws::{Client3, Error3, Eval, Options3};

fn url(var: &str, port: u16) -> String {
    std::env::var(var).unwrap_or_else(|_| format!("ws://127.0.0.1:{port}/gremlin"))
}

/// (version, plain URL, auth URL)
fn servers() -> [(&'static str, String, String); 2] {
    [
        (
            "3.7.3",
            url("GREMLIN3_URL_373", 8196),
            url("GREMLIN3_AUTH_URL_373", 8198),
        ),
        (
            "3.8.1",
            url("GREMLIN3_URL_381", 8197),
            url("GREMLIN3_AUTH_URL_381", 8199),
        ),
    ]
}

async fn connect(version: &str, url: &str) -> Client3 {
    connect_with(version, url, Options3::default()).await
}

async fn connect_with(version: &str, url: &str, options: Options3) -> Client3 {
    tokio::time::timeout(Duration::from_secs(10), Client3::connect_with(url, options))
        .await
        .unwrap_or_else(|_| panic!("{version}: connecting to {url} timed out"))
        .unwrap_or_else(|e| {
            panic!("{version}: no TinkerPop {version} server at {url} ({e}); start it with `cargo xtask server3 --tinkerpop {version} --detach`")
        })
}

async fn all(c: &Client3, eval: Eval) -> Result<Vec<(Value, i64)>, Error3> {
    let what = eval.gremlin.clone();
    tokio::time::timeout(Duration::from_secs(120), async {
        c.eval(eval).await?.try_collect().await
    })
    .await
    .unwrap_or_else(|_| panic!("{what}: no end within 120 s"))
}

async fn values(c: &Client3, gremlin: &str) -> Vec<Value> {
    all(c, Eval::new(gremlin))
        .await
        .unwrap_or_else(|e| panic!("{gremlin}: {e}"))
        .into_iter()
        .map(|(v, bulk)| {
            assert_eq!(bulk, 1, "{gremlin}: an eval result has bulk 1");
            v
        })
        .collect()
}

fn s(v: &str) -> Value {
    Value::String(v.into())
}

#[tokio::test]
#[ignore = "needs TinkerPop 3 servers: see the module docs"]
async fn modern_vertices_decode_with_their_properties() {
    for (version, url, _) in servers() {
        let c = connect(version, &url).await;
        assert_eq!(
            values(&c, "g.V().count()").await,
            vec![Value::Long(6)],
            "{version}"
        );
        let vs = values(&c, "g.V().order().by(id)").await;
        assert_eq!(vs.len(), 6, "{version}");
        let Value::Vertex(marko) = &vs[0] else {
            panic!("{version}: {:?}", vs[0])
        };
        assert_eq!(marko.id, Value::Long(1), "{version}");
        assert_eq!(&*marko.label[0], "person", "{version}");
        let props = marko
            .properties
            .as_ref()
            .expect("3.7+ materializes properties");
        let name = props.iter().find(|p| &*p.label[0] == "name").unwrap();
        assert_eq!(name.value, s("marko"), "{version}");
        let labels: Vec<String> = vs
            .iter()
            .map(|v| match v {
                Value::Vertex(v) => v.label[0].to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            labels,
            ["person", "person", "software", "person", "software", "person"]
        );
    }
}

#[tokio::test]
#[ignore = "needs TinkerPop 3 servers: see the module docs"]
async fn a_value_of_each_kind() {
    let script = "[[1, 2L, 'x', 1.5d, 2.5f, true, (short) 3, (byte) -1, \
        UUID.fromString('41d2e28a-20a4-4ab0-b379-d810dede3786'), [1, 2], [a: 1], [7] as Set, \
        new Date(1481750076295L), 123456789987654321123456789G, 1.25G, \
        java.time.Duration.ofSeconds(5, 7), 'c' as char, null, \
        java.nio.ByteBuffer.wrap('bytes'.getBytes()), T.label, Direction.OUT]]";
    for (version, url, _) in servers() {
        let c = connect(version, &url).await;
        let got = values(&c, script).await;
        assert_eq!(got.len(), 1, "{version}: one List result");
        let Value::List(items) = &got[0] else {
            panic!("{version}: {got:?}")
        };
        let kinds: Vec<&str> = items.iter().map(|v| v.type_name()).collect();
        assert_eq!(
            items[..8],
            [
                Value::Int(1),
                Value::Long(2),
                s("x"),
                Value::Double(1.5),
                Value::Float(2.5),
                Value::Boolean(true),
                Value::Short(3),
                Value::Byte(-1)
            ],
            "{version}: {kinds:?}"
        );
        assert_eq!(
            items[8],
            Value::Uuid("41d2e28a-20a4-4ab0-b379-d810dede3786".parse().unwrap())
        );
        assert_eq!(items[9], Value::List(vec![Value::Int(1), Value::Int(2)]));
        assert_eq!(items[10], Value::Map(vec![(s("a"), Value::Int(1))]));
        assert_eq!(items[11], Value::Set(vec![Value::Int(7)]));
        assert_eq!(
            items[12],
            Value::DateTime(graphbinary_client::v1::date_time_from_millis(
                1_481_750_076_295
            )),
            "{version}: a java.util.Date is a DateTime at UTC"
        );
        let Value::BigInteger(b) = &items[13] else {
            panic!("{:?}", items[13])
        };
        assert_eq!(b.to_string(), "123456789987654321123456789");
        let Value::BigDecimal(d) = &items[14] else {
            panic!("{:?}", items[14])
        };
        assert_eq!((d.scale, d.unscaled.to_string().as_str()), (2, "125"));
        assert_eq!(
            items[15],
            Value::Duration(graphbinary_client::model::Duration {
                seconds: 5,
                nanos: 7
            })
        );
        assert_eq!(items[16], Value::Char('c'));
        assert!(items[17].is_null());
        assert_eq!(items[18], Value::Binary(b"bytes".to_vec()));
        assert_eq!(items[19], Value::T(graphbinary_client::model::T::Label));
        assert_eq!(
            items[20],
            Value::Direction(graphbinary_client::model::Direction::Out)
        );

        // Elements and paths of the modern graph.
        let e = values(&c, "g.E(7)").await;
        let Value::Edge(e) = &e[0] else {
            panic!("{e:?}")
        };
        assert_eq!(
            (&*e.label[0], &e.out_v_id, &e.in_v_id),
            ("knows", &Value::Long(1), &Value::Long(2))
        );
        assert_eq!(
            (&*e.out_v_label[0], &*e.in_v_label[0]),
            ("person", "person")
        );
        let p = values(&c, "g.V(1).out('created').path()").await;
        let Value::Path(p) = &p[0] else {
            panic!("{p:?}")
        };
        assert_eq!(p.objects.len(), 2);
        let vp = values(&c, "g.V(1).properties('name')").await;
        let Value::VertexProperty(vp) = &vp[0] else {
            panic!("{vp:?}")
        };
        assert_eq!(vp.value, s("marko"));
        let w = values(&c, "g.E(7).properties('weight')").await;
        let Value::Property(w) = &w[0] else {
            panic!("{w:?}")
        };
        assert_eq!((&*w.key, &w.value), ("weight", &Value::Double(0.5)));
        // A BulkSet (aggregate) arrives as a BulkList.
        let b = values(&c, "g.V().out().aggregate('x').cap('x')").await;
        let Value::BulkList(items) = &b[0] else {
            panic!("{b:?}")
        };
        assert_eq!(items.iter().map(|(_, n)| n).sum::<i64>(), 6, "{version}");
        // Bindings.
        let r = all(&c, Eval::new("x + 1").binding("x", Value::Int(41)))
            .await
            .unwrap();
        assert_eq!(r, vec![(Value::Int(42), 1)]);
        // A date step: Date (0x04) on 3.7, OffsetDateTime (0x88) on 3.8; both a DateTime here.
        let d = values(&c, "g.inject(0).asDate()").await;
        assert_eq!(
            d,
            vec![Value::DateTime(
                graphbinary_client::v1::date_time_from_millis(0)
            )],
            "{version}"
        );
    }
}

#[tokio::test]
#[ignore = "needs TinkerPop 3 servers: see the module docs"]
async fn a_hundred_thousand_results_stream_across_many_206_batches() {
    for (version, url, _) in servers() {
        let c = connect(version, &url).await;
        // g.V().repeat(both()).times(n) on the modern graph grows with n; take the first n
        // whose result count reaches 100,000.
        let mut n = 1;
        let expected = loop {
            let count = values(&c, &format!("g.V().repeat(both()).times({n}).count()")).await;
            let Value::Long(count) = count[0] else {
                panic!("{count:?}")
            };
            if count >= 100_000 {
                break count;
            }
            n += 1;
        };
        let started = std::time::Instant::now();
        let mut stream = c
            .eval(Eval::new(format!("g.V().repeat(both()).times({n}).id()")).batch_size(64))
            .await
            .unwrap();
        let (mut got, mut sum) = (0i64, 0i64);
        while let Some(r) = stream.next().await {
            let (v, bulk) = r.unwrap_or_else(|e| panic!("{version}: result {got}: {e}"));
            let Value::Long(id) = v else {
                panic!("{version}: result {got}: {v:?}")
            };
            assert!((1..=6).contains(&id));
            got += bulk;
            sum += id;
        }
        assert_eq!(
            got,
            expected,
            "{version}: every result of {} batches of 64",
            (expected + 63) / 64
        );
        assert!(sum > got, "{version}: ids are not all 1");
        eprintln!(
            "{version}: {got} results (times({n})) in {:?}",
            started.elapsed()
        );
        // The connection is still good afterwards.
        assert_eq!(values(&c, "1 + 1").await, vec![Value::Int(2)]);
    }
}

#[tokio::test]
#[ignore = "needs TinkerPop 3 servers: see the module docs"]
async fn a_server_error_ends_the_request_and_the_connection_goes_on() {
    for (version, url, _) in servers() {
        let c = connect(version, &url).await;
        let err = all(&c, Eval::new("1/0")).await.unwrap_err();
        match &err {
            Error3::Server {
                code,
                message,
                attributes,
            } => {
                assert_eq!(*code, 597, "{version}: script evaluation error: {message}");
                assert!(message.contains("Division by zero"), "{version}: {message}");
                assert!(
                    attributes
                        .iter()
                        .any(|(k, _)| k.as_str() == Some("exceptions")),
                    "{version}: {attributes:?}"
                );
            }
            other => panic!("{version}: {other:?}"),
        }
        let err = all(&c, Eval::new("g.V().fail('boom')")).await.unwrap_err();
        assert!(
            matches!(
                err,
                Error3::Server {
                    code: 500..=599,
                    ..
                }
            ),
            "{version}: {err:?}"
        );
        assert_eq!(values(&c, "'still here'").await, vec![s("still here")]);
    }
}

#[tokio::test]
#[ignore = "needs TinkerPop 3 servers: see the module docs"]
async fn requests_in_flight_together_finish_in_any_order() {
    for (version, url, _) in servers() {
        let c = connect(version, &url).await;
        let slow = c.submit("Thread.sleep(700); 'slow'").await.unwrap();
        let fast = c.submit("'fast'").await.unwrap();
        let started = std::time::Instant::now();
        let slow = tokio::spawn(async move {
            let r: Vec<_> = slow.try_collect().await.unwrap();
            (r, started.elapsed())
        });
        let fast: Vec<_> = fast.try_collect().await.unwrap();
        let fast_done = started.elapsed();
        let (slow, slow_done) = slow.await.unwrap();
        assert_eq!(fast, vec![(s("fast"), 1)]);
        assert_eq!(slow, vec![(s("slow"), 1)]);
        assert!(
            fast_done < slow_done,
            "{version}: the later request finished first ({fast_done:?} vs {slow_done:?})"
        );
    }
}

#[tokio::test]
#[ignore = "needs TinkerPop 3 servers: see the module docs"]
async fn sasl_plain_answers_the_407() {
    for (version, _, url) in servers() {
        let good = Options3 {
            credentials: Some(("stephen".into(), "password".into())),
            ..Options3::default()
        };
        let c = connect_with(version, &url, good).await;
        assert_eq!(
            values(&c, "g.V().count()").await,
            vec![Value::Long(6)],
            "{version}"
        );
        // Authenticated once per connection: the next request needs no new challenge.
        assert_eq!(
            values(&c, "g.E().count()").await,
            vec![Value::Long(6)],
            "{version}"
        );

        let c = connect(version, &url).await;
        let err = all(&c, Eval::new("1")).await.unwrap_err();
        assert!(
            matches!(err, Error3::AuthenticationRequired),
            "{version}: {err:?}"
        );

        let bad = Options3 {
            credentials: Some(("stephen".into(), "wrong".into())),
            ..Options3::default()
        };
        let c = connect_with(version, &url, bad).await;
        let err = all(&c, Eval::new("1")).await.unwrap_err();
        assert!(
            matches!(err, Error3::Server { code: 401, .. }),
            "{version}: {err:?}"
        );
    }
}
