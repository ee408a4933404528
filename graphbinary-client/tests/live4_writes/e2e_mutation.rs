//! End-to-end tests that write to the graph: meta-properties and typed parameters read back.
//! Each test adds vertices under a label of its own (`t_<pid>_<time>_<n>`) and drops them at the end, so
//! the Modern data other tests rely on is unchanged (a concurrent `g.V().count()` may briefly
//! see the extra vertex; no test asserts an exact vertex count while these run, and these run
//! in the test binary `live4_writes`, beside other writers under labels of their own).

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::results;
use gremlin_server as common;
use results::Sent;

use graphbinary_client::client::{Client, RequestBuilder};
use graphbinary_client::value::Value;

/// A client and a label of the test's own, or `None` (printed why) without a server.
async fn scratch(test: &str) -> Option<(Client, String)> {
    if !common::server_available(test).await {
        return None;
    }
    Some((common::builder().build().unwrap(), unique_label()))
}

fn unique_label() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "t_{}_{nanos}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A request of `script` with the test's label bound as `l`.
fn labelled(c: &Client, script: &str, label: &str) -> RequestBuilder {
    c.request(script).param("l", label)
}

async fn drop_label(c: &Client, label: &str) {
    labelled(c, "g.V().hasLabel(l).drop()", label)
        .expect_all()
        .await;
}

#[tokio::test]
async fn meta_properties_read_back() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let (c, label) = graphbinary_testkit::or_skip!(scratch("meta_properties_read_back").await);
    let added = labelled(
        &c,
        "g.addV(l).property('name','x','since',2010i,'by','me')",
        &label,
    )
    .await
    .unwrap()
    .all()
    .await;
    let r = async {
        let added = added.unwrap();
        assert_eq!(added.len(), 1);
        let r = labelled(&c, "g.V().hasLabel(l).properties('name')", &label)
            .expect_all()
            .await;
        assert_eq!(r.len(), 1);
        let Value::VertexProperty(vp) = &r[0] else {
            panic!("{r:?}")
        };
        assert_eq!(&*vp.label[0], "name");
        assert_eq!(vp.value, Value::String("x".into()));
        let mut meta: Vec<(String, Value)> = vp
            .properties
            .iter()
            .flatten()
            .map(|p| (p.key.to_string(), p.value.clone()))
            .collect();
        meta.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            meta,
            [
                ("by".to_owned(), Value::String("me".into())),
                ("since".to_owned(), Value::Int(2010)),
            ]
        );
        // The same meta-properties inside the vertex itself.
        let r = labelled(&c, "g.V().hasLabel(l)", &label).expect_all().await;
        let Value::Vertex(v) = &r[0] else {
            panic!("{r:?}")
        };
        let props = v.properties.as_ref().unwrap();
        assert_eq!(props.len(), 1);
        assert_eq!(props[0].properties.as_ref().map(Vec::len), Some(2));
    };
    r.await;
    drop_label(&c, &label).await;
}

#[tokio::test]
async fn typed_parameters_round_trip_through_properties() {
    // One test of this binary at a time: each writes to or counts the shared Modern graph.
    let _alone = graphbinary_testkit::exclusive::alone().await;
    let (c, label) = graphbinary_testkit::or_skip!(scratch("typed_parameters_round_trip").await);
    let u = uuid::Uuid::from_u128(0x41d2e28a_20a4_4ab0_b379_d810dede3786);
    let hostile = "o'brien \\ \"q\" ']) , g.V().drop() // ☃ 𝄞\n\t\r\u{1}";
    labelled(
        &c,
        "g.addV(l).property('a', a).property('b', b).property('i', i).property('lg', lg)\
         .property('f', f).property('d', d).property('t', t).property('st', st)\
         .property('u', u).property('lst', lst).property('ch', ch)",
        &label,
    )
    .param("a", -1i8)
    .param("b", -2i16)
    .param("i", 3i32)
    .param("lg", i64::MAX)
    .param("f", 1.5f32)
    .param("d", -0.1f64)
    .param("t", true)
    .param("st", hostile)
    .param("u", u)
    .param("lst", vec![1i64, 2])
    .param("ch", 'é')
    .expect_all()
    .await;
    let got = labelled(
        &c,
        "g.V().hasLabel(l).valueMap('a','b','i','lg','f','d','t','st','u','lst','ch')",
        &label,
    )
    .await
    .unwrap()
    .all()
    .await;
    drop_label(&c, &label).await;
    let got = got.unwrap();
    let (Value::Map(entries) | Value::OrderedMap(entries)) = &got[0] else {
        panic!("{got:?}")
    };
    let get = |k: &str| -> Value {
        let v = entries
            .iter()
            .find(|(key, _)| key.as_str() == Some(k))
            .unwrap_or_else(|| panic!("no {k} in {entries:?}"))
            .1
            .clone();
        // valueMap wraps each value in a list
        match v {
            Value::List(mut items) if items.len() == 1 => items.remove(0),
            other => other,
        }
    };
    assert_eq!(get("a"), Value::Byte(-1));
    assert_eq!(get("b"), Value::Short(-2));
    assert_eq!(get("i"), Value::Int(3));
    assert_eq!(get("lg"), Value::Long(i64::MAX));
    assert_eq!(get("f"), Value::Float(1.5));
    assert_eq!(get("d"), Value::Double(-0.1));
    assert_eq!(get("t"), Value::Boolean(true));
    assert_eq!(get("st"), Value::String(hostile.into()));
    assert_eq!(get("u"), Value::Uuid(u));
    assert_eq!(
        get("lst"),
        Value::List(vec![Value::Long(1), Value::Long(2)])
    );
    assert_eq!(get("ch"), Value::Char('é'));
}
