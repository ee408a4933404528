//! End-to-end: values TinkerGraph returns on the Modern graph, decoded through the client,
//! against the real Gremlin Server (see `common` for the URL and the skip rule).

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::results;
use gremlin_server as common;
use results::{bulked, Sent};

use graphbinary_client::client::{Client, Error, MaterializeProperties, ResultStream, ServerError};
use graphbinary_client::value::Value;

use common::client;

async fn all(c: &Client, gremlin: &str) -> Vec<Value> {
    c.submit(gremlin)
        .await
        .unwrap_or_else(|e| panic!("{gremlin}: {e:?}"))
        .all()
        .await
        .unwrap_or_else(|e| panic!("{gremlin}: {e:?}"))
}

/// The server error `e` is (any other error fails the test).
fn server_error(e: &Error) -> &ServerError {
    e.server_error().unwrap_or_else(|| panic!("{e:?}"))
}

/// The server error that ends `results`, a response whose head was a success.
async fn ends_in_server_error(results: ResultStream) -> ServerError {
    let e = results.all().await.unwrap_err();
    server_error(&e).clone()
}

fn s(v: &str) -> Value {
    Value::String(v.to_owned())
}

/// The entries of a Map value (either form).
fn entries(v: &Value) -> &[(Value, Value)] {
    match v {
        Value::Map(e) | Value::OrderedMap(e) => e,
        other => panic!("expected a Map, got {other:?}"),
    }
}

fn get<'a>(map: &'a Value, key: &Value) -> &'a Value {
    entries(map)
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no key {key:?} in {map:?}"))
}

/// The values of vertex property `key`.
fn vprops<'a>(v: &'a graphbinary_client::value::Vertex, key: &str) -> Vec<&'a Value> {
    v.properties
        .iter()
        .flatten()
        .filter(|p| p.label.first().map(|l| &**l) == Some(key))
        .map(|p| &p.value)
        .collect()
}

#[tokio::test]
async fn vertex_with_properties() {
    let c = graphbinary_testkit::or_skip!(client("vertex_with_properties").await);
    let r = all(&c, "g.V(1)").await;
    assert_eq!(r.len(), 1);
    let Value::Vertex(v) = &r[0] else {
        panic!("{r:?}")
    };
    assert_eq!(v.id, Value::Long(1));
    assert_eq!(v.label.iter().map(|l| &**l).collect::<Vec<_>>(), ["person"]);
    assert_eq!(vprops(v, "name"), [&s("marko")]);
    assert_eq!(vprops(v, "age"), [&Value::Int(29)]);

    let people = all(
        &c,
        "g.V().hasLabel('person').order().by('age').values('name')",
    )
    .await;
    assert_eq!(people, [s("vadas"), s("marko"), s("josh"), s("peter")]);
}

#[tokio::test]
async fn materialize_tokens_drops_properties() {
    let c = graphbinary_testkit::or_skip!(client("materialize_tokens_drops_properties").await);
    let r = c
        .request("g.V(1)")
        .materialize_properties(MaterializeProperties::Tokens)
        .send()
        .expect_all()
        .await;
    let Value::Vertex(v) = &r[0] else {
        panic!("{r:?}")
    };
    assert_eq!(v.id, Value::Long(1));
    assert!(v.properties.as_ref().is_none_or(|p| p.is_empty()), "{v:?}");
}

#[tokio::test]
async fn edge_with_weight() {
    let c = graphbinary_testkit::or_skip!(client("edge_with_weight").await);
    let r = all(&c, "g.E(7)").await;
    let Value::Edge(e) = &r[0] else {
        panic!("{r:?}")
    };
    // On this server's Modern graph vertex ids are Longs and edge ids Ints.
    assert_eq!(e.id, Value::Int(7));
    assert_eq!(&*e.label[0], "knows");
    assert_eq!(e.out_v_id, Value::Long(1));
    assert_eq!(e.in_v_id, Value::Long(2));
    assert_eq!(&*e.out_v_label[0], "person");
    assert_eq!(&*e.in_v_label[0], "person");
    let props = e.properties.as_ref().expect("edge properties");
    assert_eq!(props.len(), 1);
    assert_eq!(&*props[0].key, "weight");
    assert_eq!(props[0].value, Value::Double(0.5));
}

#[tokio::test]
async fn path_with_labels() {
    let c = graphbinary_testkit::or_skip!(client("path_with_labels").await);
    let r = all(
        &c,
        "g.V(1).as('a').out('created').as('b').values('name').as('c').path()",
    )
    .await;
    assert_eq!(r.len(), 1);
    let Value::Path(p) = &r[0] else {
        panic!("{r:?}")
    };
    let labels: Vec<Vec<&str>> = p
        .labels
        .iter()
        .map(|set| set.0.iter().map(|l| &**l).collect())
        .collect();
    assert_eq!(labels, [vec!["a"], vec!["b"], vec!["c"]]);
    assert_eq!(p.objects.len(), 3);
    assert!(matches!(&p.objects[0], Value::Vertex(v) if v.id == Value::Long(1)));
    assert!(matches!(&p.objects[1], Value::Vertex(v) if v.id == Value::Long(3)));
    assert_eq!(p.objects[2], s("lop"));
}

#[tokio::test]
async fn tree_of_names() {
    let c = graphbinary_testkit::or_skip!(client("tree_of_names").await);
    let r = all(&c, "g.V(1).out().values('name').tree()").await;
    assert_eq!(r.len(), 1);
    // {v[1]: {v[2]: {vadas: {}}, v[3]: {lop: {}}, v[4]: {josh: {}}}}
    let Value::Tree(t) = &r[0] else {
        panic!("{r:?}")
    };
    assert_eq!(t.0.len(), 1, "{t:?}");
    let (root, children) = &t.0[0];
    assert!(
        matches!(root, Value::Vertex(v) if v.id == Value::Long(1)),
        "{root:?}"
    );
    let mut pairs: Vec<(i64, String)> = children
        .0
        .iter()
        .map(|(k, sub)| {
            let Value::Vertex(v) = k else { panic!("{k:?}") };
            assert_eq!(sub.0.len(), 1, "{sub:?}");
            let (name, leaf) = &sub.0[0];
            assert!(leaf.0.is_empty(), "leaf expected: {leaf:?}");
            (v.id.as_i64().unwrap(), name.as_str().unwrap().to_owned())
        })
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            (2, "vadas".to_owned()),
            (3, "lop".to_owned()),
            (4, "josh".to_owned())
        ]
    );
}

#[tokio::test]
async fn value_map_and_element_map() {
    let c = graphbinary_testkit::or_skip!(client("value_map_and_element_map").await);
    let r = all(&c, "g.V(1).valueMap('name','age')").await;
    assert_eq!(get(&r[0], &s("name")), &Value::List(vec![s("marko")]));
    assert_eq!(get(&r[0], &s("age")), &Value::List(vec![Value::Int(29)]));

    let r = all(&c, "g.V(1).elementMap()").await;
    let m = &r[0];
    assert_eq!(entries(m).len(), 4, "{m:?}");
    let by_token = |name: &str| {
        entries(m)
            .iter()
            .find(|(k, _)| matches!(k, Value::T(t) if t.as_str() == name))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no T.{name} in {m:?}"))
    };
    assert_eq!(by_token("id"), Value::Long(1));
    assert_eq!(by_token("label"), s("person"));
    assert_eq!(get(m, &s("name")), &s("marko"));
    assert_eq!(get(m, &s("age")), &Value::Int(29));

    let r = all(&c, "g.E(7).elementMap()").await;
    let m = &r[0];
    assert_eq!(get(m, &s("weight")), &Value::Double(0.5));
    let out = entries(m)
        .iter()
        .find(|(k, _)| matches!(k, Value::Direction(d) if d.as_str() == "OUT"))
        .map(|(_, v)| v)
        .expect("Direction.OUT key");
    assert_eq!(get(out, &entries(out)[0].0), &Value::Long(1), "{out:?}");
}

#[tokio::test]
async fn group_and_group_count() {
    let c = graphbinary_testkit::or_skip!(client("group_and_group_count").await);
    let r = all(&c, "g.V().groupCount().by(label)").await;
    assert_eq!(get(&r[0], &s("person")), &Value::Long(4));
    assert_eq!(get(&r[0], &s("software")), &Value::Long(2));

    let r = all(
        &c,
        "g.V().group().by(label).by(values('name').order().fold())",
    )
    .await;
    assert_eq!(
        get(&r[0], &s("software")),
        &Value::List(vec![s("lop"), s("ripple")])
    );
    assert_eq!(
        get(&r[0], &s("person")),
        &Value::List(vec![s("josh"), s("marko"), s("peter"), s("vadas")])
    );
}

#[tokio::test]
async fn every_numeric_width() {
    let c = graphbinary_testkit::or_skip!(client("every_numeric_width").await);
    let r = all(
        &c,
        "g.inject(1b, 2s, 3, 4l, 5.0f, 6.0d, 7n, 8.5m, -500n, -500.25m)",
    )
    .await;
    assert_eq!(r.len(), 10, "{r:?}");
    assert_eq!(r[0], Value::Byte(1));
    assert_eq!(r[1], Value::Short(2));
    assert_eq!(r[2], Value::Int(3));
    assert_eq!(r[3], Value::Long(4));
    assert_eq!(r[4], Value::Float(5.0));
    assert_eq!(r[5], Value::Double(6.0));
    let Value::BigInteger(b) = &r[6] else {
        panic!("{:?}", r[6])
    };
    assert_eq!(b.to_i64(), Some(7));
    let Value::BigDecimal(d) = &r[7] else {
        panic!("{:?}", r[7])
    };
    assert_eq!((d.scale, d.unscaled.to_i64()), (1, Some(85)));
    assert_eq!(d.to_java_string(), "8.5");
    let Value::BigInteger(b) = &r[8] else {
        panic!("{:?}", r[8])
    };
    assert_eq!(b.to_i64(), Some(-500));
    let Value::BigDecimal(d) = &r[9] else {
        panic!("{:?}", r[9])
    };
    assert_eq!(d.to_java_string(), "-500.25");
}

#[tokio::test]
async fn big_decimal_extremes() {
    let c = graphbinary_testkit::or_skip!(client("big_decimal_extremes").await);
    let r = all(
        &c,
        "g.inject(123456789012345678901234567890.123456789m, 0.000001m, -1m, 99999999999999999999999999999n)",
    )
    .await;
    let txt: Vec<String> = r
        .iter()
        .map(|v| match v {
            Value::BigDecimal(d) => d.to_java_string(),
            Value::BigInteger(b) => b.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        txt,
        [
            "123456789012345678901234567890.123456789",
            "0.000001",
            "-1",
            "99999999999999999999999999999"
        ]
    );
}

#[tokio::test]
async fn datetime_and_uuid() {
    let c = graphbinary_testkit::or_skip!(client("datetime_and_uuid").await);
    let r = all(
        &c,
        "g.inject(datetime('2023-08-02T10:11:12.5Z'), datetime('1999-12-31T23:59:59+05:30'), UUID('41d2e28a-20a4-4ab0-b379-d810dede3786'))",
    )
    .await;
    let Value::DateTime(d) = &r[0] else {
        panic!("{r:?}")
    };
    assert_eq!((d.year, d.month, d.day), (2023, 8, 2));
    assert_eq!(
        d.nanos,
        ((10 * 60 + 11) * 60 + 12) * 1_000_000_000 + 500_000_000
    );
    assert_eq!(d.offset_seconds, 0);
    let Value::DateTime(d) = &r[1] else {
        panic!("{r:?}")
    };
    assert_eq!((d.year, d.month, d.day), (1999, 12, 31));
    assert_eq!(d.offset_seconds, 5 * 3600 + 30 * 60);
    assert_eq!(
        r[2],
        Value::Uuid(uuid::Uuid::parse_str("41d2e28a-20a4-4ab0-b379-d810dede3786").unwrap())
    );
}

#[tokio::test]
async fn parameters_bind_where_the_grammar_takes_variables() {
    let c = graphbinary_testkit::or_skip!(client("parameters").await);
    let age: i32 = c
        .request("g.V().has('person','name',who).values('age')")
        .param("who", "marko")
        .send()
        .expect_one()
        .await;
    assert_eq!(age, 29);
    let names = c
        .request("g.V().has('age', gt(a)).values('name').order()")
        .param("a", 30i32)
        .expect_all()
        .await;
    assert_eq!(names, [s("josh"), s("peter")]);
    // A hostile string stays one string literal: nothing matches, nothing is dropped.
    let none = c
        .request("g.V().has('name', n)")
        .param("n", "x') , g.V().drop() //'")
        .expect_all()
        .await;
    assert!(none.is_empty());
    let n: i64 = c.submit("g.V().count()").expect_one().await;
    assert!(n >= 6);
}

#[tokio::test]
async fn bulked_results() {
    let c = graphbinary_testkit::or_skip!(client("bulked_results").await);
    let stream = bulked(&c, "g.inject(1,1,1,2,1)").send().await.unwrap();
    let ts = stream.all_traversers().await.unwrap();
    let total: i64 = ts.iter().map(|t| t.bulk).sum();
    assert_eq!(total, 5);
    assert!(ts.len() < 5, "expected merged traversers, got {ts:?}");
    let mut expanded = bulked(&c, "g.inject(1,1,1,2,1)").send().expect_all().await;
    expanded.sort_by_key(|v| v.as_i64());
    assert_eq!(expanded, [1, 1, 1, 1, 2].map(Value::Int));

    // 200,766 results unbulked arrive as a handful of traversers.
    let s = bulked(&c, "g.V().repeat(both()).times(12)")
        .send()
        .await
        .unwrap();
    let ts = s.all_traversers().await.unwrap();
    assert_eq!(ts.iter().map(|t| t.bulk).sum::<i64>(), 200_766);
    assert!(ts.len() <= 6 * 12, "{} traversers", ts.len());
    // count() sums the bulks.
    let counted = bulked(&c, "g.V().repeat(both()).times(12)")
        .send()
        .expect_count()
        .await;
    assert_eq!(counted, 200_766);
}

#[tokio::test]
async fn empty_result() {
    let c = graphbinary_testkit::or_skip!(client("empty_result").await);
    assert!(all(&c, "g.V().has('name','nobody')").await.is_empty());
    assert!(all(&c, "g.V().iterate()").await.is_empty());
    let e = c
        .submit("g.V().has('name','nobody')")
        .await
        .unwrap()
        .one::<i64>()
        .await;
    assert!(matches!(e, Err(Error::NoResult)), "{e:?}");
}

#[tokio::test]
async fn syntax_error_is_a_typed_server_error_inside_http_200() {
    let c = graphbinary_testkit::or_skip!(client("syntax_error").await);
    let s = ends_in_server_error(c.submit("g.V(.count()").await.unwrap()).await;
    assert_eq!(s.http_status, Some(200));
    assert_eq!(s.code, 400);
    assert_eq!(s.exception.as_deref(), Some("MalformedQueryException"));
    assert!(s.message.as_deref().unwrap().contains("g.V(."), "{s:?}");
}

#[tokio::test]
async fn server_timeout_is_a_typed_server_error() {
    let c = graphbinary_testkit::or_skip!(client("server_timeout").await);
    let s = ends_in_server_error(
        c.request("g.V().repeat(both()).times(30).path().count()")
            .timeout_millis(200)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s.code, 500, "{s:?}");
    assert_eq!(
        s.exception.as_deref(),
        Some("ServerTimeoutExceededException")
    );
}

#[tokio::test]
async fn guard_failures_and_json_errors() {
    let c = graphbinary_testkit::or_skip!(client("guard_failures_and_json_errors").await);
    // Unknown language: rejected before evaluation with a real HTTP 400.
    let e = match c.request("g.V()").language("no-such-language").send().await {
        Ok(s) => s.all().await.unwrap_err(),
        Err(e) => e,
    };
    let s = server_error(&e);
    assert_eq!((s.http_status, s.code), (Some(400), 400), "{s:?}");

    // Unknown traversal source alias: footer 400 inside HTTP 200.
    let s = ends_in_server_error(c.request("g.V()").g("nope").send().await.unwrap()).await;
    assert_eq!(s.code, 400, "{s:?}");

    // A JSON error body: the server answers /favicon.ico with 404 before any decoding.
    let url = common::url();
    let base = &url[..url.rfind('/').unwrap()];
    let fav = Client::new(format!("{base}/favicon.ico")).unwrap();
    let e = fav.submit("g.V()").await.unwrap_err();
    let s = server_error(&e);
    assert_eq!(
        (s.http_status, s.code, s.exception.as_deref()),
        (Some(404), 404, None),
        "{s:?}"
    );
}

#[tokio::test]
async fn compression_on_and_off_give_identical_results() {
    let _ = graphbinary_testkit::or_skip!(client("compression_on_and_off").await);
    let on = common::builder().compression(true).build().unwrap();
    let off = common::builder().compression(false).build().unwrap();
    for q in [
        "g.V().elementMap()",
        "g.V().repeat(both()).times(6).path()",
        "g.E()",
    ] {
        let a = on.submit(q).await.unwrap();
        let ca = a.counters();
        let a = a.all().await.unwrap();
        let b = off.submit(q).await.unwrap();
        let cb = b.counters();
        let b = b.all().await.unwrap();
        assert_eq!(a, b, "{q}");
        assert!(!a.is_empty());
        assert_eq!(ca.body_bytes(), cb.body_bytes(), "{q}");
        assert_eq!(cb.wire_bytes(), cb.body_bytes(), "{q}");
        assert!(ca.wire_bytes() < ca.body_bytes(), "{q}: not compressed");
    }
}

#[tokio::test]
async fn result_stream_expands_bulks_and_ends_with_the_error() {
    use futures::StreamExt;
    let c = graphbinary_testkit::or_skip!(client("values_stream").await);
    let vals: Vec<Value> = bulked(&c, "g.inject(7,7,7)")
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(vals, [Value::Int(7), Value::Int(7), Value::Int(7)]);
    // Read partly as values, then as traversers: the bulk still owed comes first.
    let mut s = bulked(&c, "g.inject(7,7,7)").await.unwrap();
    assert_eq!(s.next().await.unwrap().unwrap(), Value::Int(7));
    let rest = s.traversers().all().await.unwrap();
    assert_eq!(rest.iter().map(|t| t.bulk).sum::<i64>(), 2, "{rest:?}");
    let items: Vec<_> = c.submit("g.V(.count()").await.unwrap().collect().await;
    assert_eq!(items.len(), 1);
    assert!(items[0].as_ref().unwrap_err().server_error().is_some());
}
