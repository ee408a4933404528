//! End-to-end: traversals built with the traversal API, written as GremlinLang and run on the
//! real Gremlin Server with the Modern graph (see `gremlin_server` for the URL and the skip
//! rule), with parameters and in literal-only mode.

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::readme;
use graphbinary_testkit::strings;
use gremlin_server as common;

use std::collections::BTreeSet;

use futures::TryStreamExt;
use graphbinary_client::client::Error;
use graphbinary_client::process::{
    Column, GValue, GraphTraversalSource, Lit, Order, Scope, Strategy, TextP, __, P, T,
};
use graphbinary_client::value::{BigDecimal, BigInteger, DateTime, Duration, Value, Vertex};
use proptest::prelude::prop_assert_eq;
use proptest::test_runner::{Config, TestRunner};
use strings::hostile_string;

async fn sources(test: &str) -> Option<(GraphTraversalSource, GraphTraversalSource)> {
    if !common::server_available(test).await {
        return None;
    }
    let client = common::builder().build().unwrap();
    let g = GraphTraversalSource::new(client.clone());
    let lit = GraphTraversalSource::new(client).literal_only(true);
    Some((g, lit))
}

fn names(v: Vec<String>) -> BTreeSet<String> {
    v.into_iter().collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Held for writing by a test that adds vertices, for reading by one that counts them (the
/// tests of this file run in parallel on one graph).
static GRAPH: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

#[tokio::test]
async fn marko_knows_vadas_and_josh_with_and_without_parameters() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let (g, lit) = graphbinary_testkit::or_skip!(
        sources("marko_knows_vadas_and_josh_with_and_without_parameters").await
    );
    let plain = g
        .v(())
        .has(("person", "name", "marko"))
        .out("knows")
        .values("name");
    assert_eq!(
        plain.gremlin_lang().unwrap().gremlin,
        r#"g.V().has("person","name","marko").out("knows").values("name")"#
    );
    assert_eq!(
        names(plain.to_list_as().await.unwrap()),
        set(&["vadas", "josh"])
    );
    for (source, want, params) in [
        (
            &g,
            r#"g.V().has("person","name",who).out(rel).values("name")"#,
            2,
        ),
        (
            &lit,
            r#"g.V().has("person","name","marko").out("knows").values("name")"#,
            0,
        ),
    ] {
        let t = source
            .v(())
            .has(("person", "name", GValue::new("who", "marko")))
            .out(GValue::new("rel", "knows"))
            .values("name");
        let lang = t.gremlin_lang().unwrap();
        assert_eq!(lang.gremlin, want);
        assert_eq!(lang.parameters.len(), params);
        assert_eq!(
            names(t.to_list_as().await.unwrap()),
            set(&["vadas", "josh"])
        );
    }
}

#[tokio::test]
async fn terminal_steps() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    // It adds (and drops) a vertex: the tests that count the graph's vertices wait.
    let _w = GRAPH.write().await;
    let (g, _) = graphbinary_testkit::or_skip!(sources("terminal_steps").await);
    assert_eq!(g.v(()).count(()).next_as::<i64>().await.unwrap(), Some(6));
    assert_eq!(g.v(()).count(()).to_list().await.unwrap(), [Value::Long(6)]);
    assert!(g.v(()).has(("name", "marko")).has_next().await.unwrap());
    assert!(!g.v(()).has(("name", "nobody")).has_next().await.unwrap());
    assert_eq!(g.v(()).has(("name", "nobody")).next().await.unwrap(), None);
    let v = g.v(1).next().await.unwrap();
    assert!(
        matches!(&v, Some(Value::Vertex(v)) if v.id == Value::Long(1)),
        "{v:?}"
    );
    let first_two = g.v(()).values("name").order(()).next_n(2).await.unwrap();
    assert_eq!(
        first_two,
        [Value::String("josh".into()), Value::String("lop".into())]
    );
    assert_eq!(g.v(()).next_n(100).await.unwrap().len(), 6);
    assert!(g.v(()).next_n(0).await.unwrap().is_empty());
    // The stream is the client's result stream.
    let mut s = g.v(()).values("name").stream().await.unwrap();
    let mut n = 0;
    while let Some(v) = s.try_next().await.unwrap() {
        assert!(matches!(v, Value::String(_)));
        n += 1;
    }
    assert_eq!(n, 6);
    // A typed conversion that does not fit is an error, not a panic.
    let e = g
        .v(())
        .values("name")
        .to_list_as::<i64>()
        .await
        .unwrap_err();
    // (deserialized as results are: the error names the offset of the result)
    assert!(matches!(e, Error::Decode(_)), "{e:?}");
    // iterate runs for side effects: add, check, remove.
    let issue15 = async || {
        g.v(())
            .has_label("issue15")
            .count(())
            .next_as::<i64>()
            .await
            .unwrap()
    };
    g.add_v("issue15")
        .property(("k", 1))
        .iterate()
        .await
        .unwrap();
    assert_eq!(issue15().await, Some(1));
    g.v(()).has_label("issue15").drop().iterate().await.unwrap();
    assert_eq!(issue15().await, Some(0));
}

#[tokio::test]
async fn representative_traversals() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let (g, lit) = graphbinary_testkit::or_skip!(sources("representative_traversals").await);
    for g in [&g, &lit] {
        let older: Vec<String> = g
            .v(())
            .has_label("person")
            .has(("age", P::gt(GValue::new("age", 30))))
            .order(())
            .by(("age", Order::Desc))
            .values("name")
            .to_list_as()
            .await
            .unwrap();
        assert_eq!(older, ["peter", "josh"]);
        // The names of the vertices whose `key` matches the predicate, in order.
        for (key, p, names) in [
            (
                "age",
                P::between(27, 30).or(P::gte(35)),
                &["marko", "peter", "vadas"][..],
            ),
            (
                "name",
                TextP::containing(GValue::new("part", "o")),
                &["josh", "lop", "marko"],
            ),
            (
                "name",
                P::within((GValue::new("a", "vadas"), "lop")),
                &["lop", "vadas"],
            ),
        ] {
            let got: Vec<String> = g
                .v(())
                .has((key, p.clone()))
                .values("name")
                .order(())
                .to_list_as()
                .await
                .unwrap();
            assert_eq!(got, names, "{key} {p:?}");
        }
        let two_hops: Vec<String> = g
            .v(1)
            .repeat(__::out(()))
            .times(2)
            .values("name")
            .order(())
            .to_list_as()
            .await
            .unwrap();
        assert_eq!(two_hops, ["lop", "ripple"]);
        let labels = graphbinary_testkit::results::server_label_counts(g, false).await;
        assert_eq!(labels.get("person"), Some(&4), "{labels:?}");
        let projected = g
            .v(1)
            .project(("name", "friends"))
            .by("name")
            .by(__::out("knows").count(()))
            .select(Column::Values)
            .next()
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            projected,
            Value::List(vec![Value::String("marko".into()), Value::Long(2)])
        );
        let local: Vec<i64> = g
            .v(())
            .has_label("person")
            .local(__::out_e(()).count(()))
            .fold(())
            .unfold()
            .order(())
            .to_list_as()
            .await
            .unwrap();
        assert_eq!(local, [0, 1, 2, 3]);
        let limited: Vec<Value> = g
            .v(())
            .values("name")
            .fold(())
            .limit((Scope::Local, GValue::new("n", 2i64)))
            .to_list()
            .await
            .unwrap();
        assert_eq!(limited.len(), 1);
        assert!(matches!(&limited[0], Value::List(l) if l.len() == 2));
        let chosen: Vec<String> = g
            .v(())
            .has_label("person")
            .choose((
                __::values("age").is(P::gt(30)),
                __::constant("old"),
                __::constant("young"),
            ))
            .to_list_as()
            .await
            .unwrap();
        assert_eq!(chosen.iter().filter(|s| *s == "old").count(), 2);
    }
}

/// Every literal type round trips through `g.inject(..)`.
#[tokio::test]
async fn typed_literals_round_trip() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let (g, _) = graphbinary_testkit::or_skip!(sources("typed_literals_round_trip").await);
    let dt = DateTime {
        year: 2024,
        month: 2,
        day: 29,
        nanos: 45_296_789_000_000,
        offset_seconds: 3600,
        kind: Default::default(),
    };
    let bd = BigDecimal {
        scale: 3,
        unscaled: BigInteger::from_bytes(vec![0xfb, 0x2e]),
    };
    let u = uuid::Uuid::from_u128(0x41d2e28a_20a4_4ab0_b379_d810dede3786);
    let cases: Vec<(Lit, Value)> = vec![
        (Lit::Int(-2147483648), Value::Int(-2147483648)),
        (Lit::Long(i64::MIN), Value::Long(i64::MIN)),
        (Lit::Short(-3), Value::Short(-3)),
        (Lit::Byte(-4), Value::Byte(-4)),
        (
            Lit::from(u64::MAX),
            Value::BigInteger(BigInteger::from_bytes(vec![
                0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ])),
        ),
        (Lit::Double(0.1), Value::Double(0.1)),
        (Lit::Double(-1e-300), Value::Double(-1e-300)),
        (Lit::Double(f64::INFINITY), Value::Double(f64::INFINITY)),
        (Lit::Float(0.1), Value::Float(0.1)),
        (Lit::Float(3.4e38), Value::Float(3.4e38)),
        (Lit::from(bd.clone()), Value::BigDecimal(Box::new(bd))),
        (Lit::String("s".into()), Value::String("s".into())),
        (Lit::Char('é'), Value::Char('é')),
        (Lit::Bool(true), Value::Boolean(true)),
        (Lit::Uuid(u), Value::Uuid(u)),
        (Lit::DateTime(dt), Value::DateTime(dt)),
        (
            Lit::Duration(Duration {
                seconds: 5,
                nanos: 3,
            }),
            Value::Duration(Duration {
                seconds: 5,
                nanos: 3,
            }),
        ),
        (
            Lit::Duration(Duration {
                seconds: -6,
                nanos: 999_999_997,
            }),
            Value::Duration(Duration {
                seconds: -6,
                nanos: 999_999_997,
            }),
        ),
        (
            Lit::binary(vec![0u8, 1, 254, 255]),
            Value::Binary(vec![0, 1, 254, 255]),
        ),
        (
            Lit::list([Lit::Int(1), Lit::Null, Lit::from("a")]),
            Value::List(vec![
                Value::Int(1),
                Value::Null(0xfe),
                Value::String("a".into()),
            ]),
        ),
        (
            Lit::set([1i64, 2]),
            Value::Set(vec![Value::Long(1), Value::Long(2)]),
        ),
    ];
    for (l, want) in cases {
        let t = g.inject((l.clone(),));
        let got = t
            .next()
            .await
            .unwrap_or_else(|e| panic!("{l:?}: {e}"))
            .unwrap();
        assert_eq!(got, want, "{}", t_text(&l));
    }
    // NaN is not equal to itself: check its kind.
    let nan = g.inject(f64::NAN).next().await.unwrap().unwrap();
    assert!(matches!(nan, Value::Double(d) if d.is_nan()));
    // A map with token and number keys.
    let m = g
        .inject((Lit::map([
            (Lit::from(T::Id), Lit::from("x")),
            (Lit::from(2), Lit::from(3)),
        ]),))
        .next()
        .await
        .unwrap()
        .unwrap();
    match m {
        Value::Map(e) | Value::OrderedMap(e) => {
            assert_eq!(e.len(), 2);
            assert!(e.contains(&(Value::Int(2), Value::Int(3))), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
}

fn vertices(vs: Vec<Value>) -> Vec<Vertex> {
    vs.into_iter()
        .map(|v| match v {
            Value::Vertex(v) => *v,
            other => panic!("not a vertex: {other:?}"),
        })
        .collect()
}

fn t_text(l: &Lit) -> String {
    l.to_gremlin().unwrap()
}

#[tokio::test]
async fn source_methods_strategies_and_options() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let _r = GRAPH.read().await;
    let (g, _) =
        graphbinary_testkit::or_skip!(sources("source_methods_strategies_and_options").await);
    let sub = g.with_strategies((
        Strategy::new("SubgraphStrategy").config("vertices", __::has_label("person")),
    ));
    assert_eq!(sub.v(()).count(()).next_as::<i64>().await.unwrap(), Some(4));
    let ro = g.with_strategies((Strategy::new("ReadOnlyStrategy"),));
    let e = ro.add_v("x").iterate().await.unwrap_err();
    assert!(matches!(e, Error::Server(_)), "{e:?}");
    let x: Vec<i32> = g
        .with_side_effect(("x", 100))
        .inject(1)
        .select("x")
        .to_list_as()
        .await
        .unwrap();
    assert_eq!(x, [100]);
    let sack: Vec<f64> = g.with_sack(1.0).v(1).sack(()).to_list_as().await.unwrap();
    assert_eq!(sack, [1.0]);
    // Request options: tokens-only elements, small batches, bulked results expanded.
    let tokens = g
        .with("materializeProperties", "tokens")
        .with("batchSize", 2);
    let vs = vertices(tokens.v(()).to_list().await.unwrap());
    assert_eq!(vs.len(), 6);
    assert!(vs
        .iter()
        .all(|v| v.properties.as_ref().is_none_or(|p| p.is_empty())));
    let all = vertices(g.v(()).to_list().await.unwrap());
    assert!(all
        .iter()
        .all(|v| v.properties.as_ref().is_some_and(|p| !p.is_empty())));
    let bulked: Vec<String> = g.v(()).out(()).label().to_list_as().await.unwrap();
    assert_eq!(bulked.len(), 6);
    // A known option with a wrong value fails before sending.
    let e = g
        .with("batchSize", "ten")
        .v(())
        .to_list()
        .await
        .unwrap_err();
    assert!(matches!(e, Error::InvalidRequest(_)), "{e:?}");
    // The options travel as request fields (the server's own timing makes a timeout test
    // flaky, so the body is checked).
    let req = g
        .with("evaluationTimeout", 1i64)
        .with("batchSize", 3)
        .with("materializeProperties", "tokens")
        .with("bulkResults", false)
        .with("unknownOption", 1)
        .alias("g")
        .v(GValue::new("x", 1))
        .request()
        .unwrap();
    let body: serde_json::Value = serde_json::from_str(&req.body_json()).unwrap();
    assert_eq!(
        body,
        serde_json::json!({
            "gremlin": "g.with(\"unknownOption\",1).V(x)",
            "parameters": "[x:1]",
            "g": "g",
            "timeoutMillis": 1,
            "batchSize": 3,
            "materializeProperties": "tokens",
            "bulkResults": false,
        })
    );
}

#[tokio::test]
async fn build_errors_are_reported_before_sending() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let (g, _) =
        graphbinary_testkit::or_skip!(sources("build_errors_are_reported_before_sending").await);
    let e = g.v(()).limit("ten").to_list().await.unwrap_err();
    assert!(
        matches!(&e, Error::Build(m) if m.contains("limit(String)")),
        "{e:?}"
    );
    let e = __::out(()).to_list().await.unwrap_err();
    assert!(matches!(e, Error::InvalidRequest(_)), "{e:?}");
    let e = GraphTraversalSource::detached()
        .v(())
        .to_list()
        .await
        .unwrap_err();
    assert!(matches!(e, Error::InvalidRequest(_)), "{e:?}");
}

/// Random Unicode strings (quotes, backslashes, `$`, control characters, non-BMP) come back
/// unchanged through `g.inject(s)`, and as a parameter compared on the server with that
/// literal: `g.inject(s).is(eq(p))` returns `s` only when the parameter decoded equal too.
#[test]
fn random_strings_round_trip_through_the_server() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (g, lit) = graphbinary_testkit::or_skip!(
        rt.block_on(sources("random_strings_round_trip_through_the_server"))
    );
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&hostile_string(32), |s| {
            let (literal, param, inlined) = rt.block_on(async {
                let a = g.inject(s.as_str()).to_list().await;
                let b = g
                    .inject(s.as_str())
                    .is(P::eq(GValue::new("p", s.as_str())))
                    .to_list()
                    .await;
                let c = lit
                    .inject(s.as_str())
                    .is(P::eq(GValue::new("p", s.as_str())))
                    .to_list()
                    .await;
                (a, b, c)
            });
            let want = vec![Value::String(s.clone())];
            prop_assert_eq!(literal.map_err(|e| e.to_string()), Ok(want.clone()));
            prop_assert_eq!(param.map_err(|e| e.to_string()), Ok(want.clone()));
            prop_assert_eq!(inlined.map_err(|e| e.to_string()), Ok(want));
            Ok(())
        })
        .unwrap();
}

/// The README's example, run.
#[tokio::test]
async fn readme_example() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let (g, _) = graphbinary_testkit::or_skip!(sources("readme_example").await);
    let t = readme::friends(&g);
    let lang = t.gremlin_lang().unwrap();
    assert_eq!(
        lang.gremlin,
        r#"g.V().has("person","name",who).out("knows").has("age",gt(26)).order().by("age",Order.desc).values("name")"#
    );
    assert_eq!(lang.parameters_text().unwrap(), r#"[who:"marko"]"#);
    let friends: Vec<String> = t.to_list_as().await.unwrap();
    assert_eq!(friends, ["josh", "vadas"]);
    assert_eq!(readme::creators(&g).await, Some(3));
}
