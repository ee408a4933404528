//! The traversal API per server version (`ClientBuilder::server_version`): what TinkerPop 3.8
//! added (`asNumber`, `asBool`, `discard()`, `none(P)`, `P.typeOf`, `GType`,
//! `Pick.unproductive`) written and read back on 3.8.1; on 3.7.3 each is an
//! `Error::NeedsVersion` before sending (the client sends nothing, the graph is unchanged);
//! `Set`, `UUID`, signed `Byte` and `OffsetDateTime` literals and a path's vertex properties
//! read back on both. Servers: `GREMLIN_WS_URL_381`
//! and `GREMLIN_WS_URL_373` (modern graph), as `cargo xtask ci` sets them:
//!
//! ```sh
//! cargo xtask server --tinkerpop 3.7.3 --port 8250 --detach
//! cargo xtask server --tinkerpop 3.8.1 --port 8251 --detach
//! GREMLIN_WS_URL_373=ws://127.0.0.1:8250/gremlin GREMLIN_WS_URL_381=ws://127.0.0.1:8251/gremlin \
//!   cargo test -p graphbinary-client --test live3 ws3_versions
//! ```

use std::collections::BTreeSet;

use graphbinary_client::client::{Client, Error, ErrorKind, ServerVersion};
use graphbinary_client::process::{GType, GraphTraversal, GraphTraversalSource, Pick, __, P};
use graphbinary_client::value::{DateTime, DateTimeKind, PrimitivePdt, Value};
use graphbinary_testkit::servers3;

const V373: ServerVersion = ServerVersion::new(3, 7, 3);
const V381: ServerVersion = ServerVersion::new(3, 8, 1);
const V380: ServerVersion = ServerVersion::new(3, 8, 0);

fn source(url: &str, version: Option<ServerVersion>) -> GraphTraversalSource {
    let mut b = Client::builder(url);
    if let Some(v) = version {
        b = b.server_version(v);
    }
    GraphTraversalSource::new(b.build().unwrap())
}

async fn list(what: &str, t: GraphTraversal) -> Vec<Value> {
    tokio::time::timeout(std::time::Duration::from_secs(60), t.to_list())
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within 60 s"))
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// What 3.8.0 added, each traversal with the step, predicate or token it needs and the
/// results 3.8.1 gives.
fn since_3_8(g: &GraphTraversalSource) -> Vec<(&'static str, GraphTraversal, Vec<Value>)> {
    let gtype = |name: &str| {
        Value::PrimitivePdt(Box::new(PrimitivePdt {
            type_name: "g:GType".into(),
            value: name.into(),
        }))
    };
    vec![
        (
            "asNumber()",
            g.inject(5i64).as_number(GType::Int),
            vec![Value::Int(5)],
        ),
        (
            "asNumber()",
            g.inject("7").as_number(()),
            vec![Value::Int(7)],
        ),
        (
            "asBool()",
            g.inject("true").as_bool(),
            vec![Value::Boolean(true)],
        ),
        (
            "P.typeOf()",
            g.inject((1i32, "a", 2i64)).is(P::type_of(GType::Int)),
            vec![Value::Int(1)],
        ),
        (
            "discard()",
            g.v(()).discard().count(()),
            vec![Value::Long(0)],
        ),
        (
            "none()",
            g.inject((1i32, 2i32, 3i32)).fold(()).none(P::gt(5i32)),
            vec![Value::List(vec![
                Value::Int(1),
                Value::Int(2),
                Value::Int(3),
            ])],
        ),
        ("GType.INT", g.inject(GType::Int), vec![gtype("INT")]),
        (
            "Pick.unproductive",
            g.v(1i32)
                .choose(__::values("nothing"))
                .option((Pick::Unproductive, __::constant("none"))),
            vec![Value::String("none".into())],
        ),
    ]
}

#[tokio::test]
async fn what_3_8_added_is_written_and_read_back_on_3_8_1() {
    let test = "what_3_8_added_is_written_and_read_back_on_3_8_1";
    let Some(url) = servers3::one(test, "GREMLIN_WS_URL_381", "TinkerPop 3.8.1") else {
        return;
    };
    let g = source(&url, Some(V381));
    for (what, t, want) in since_3_8(&g) {
        assert_eq!(list(what, t).await, want, "{what}");
    }
    // The same traversals with the version unset: sent as they are, the same answers.
    let unset = source(&url, None);
    for (what, t, want) in since_3_8(&unset) {
        assert_eq!(list(what, t).await, want, "{what}, version unset");
    }
    // What only TinkerPop 4 has is refused before sending to 3.8.1 too.
    let e = g.v(()).labels().to_list().await.unwrap_err();
    assert!(
        matches!(&e, Error::NeedsVersion { what, needs, server }
            if what == "labels()" && *needs == ServerVersion::V4_0_0 && *server == V381),
        "{e:?}"
    );
}

#[tokio::test]
async fn on_3_7_3_what_3_8_added_is_an_error_before_sending() {
    let test = "on_3_7_3_what_3_8_added_is_an_error_before_sending";
    let Some(url) = servers3::one(test, "GREMLIN_WS_URL_373", "TinkerPop 3.7.3") else {
        return;
    };
    let g = source(&url, Some(V373));
    let client = g.client().unwrap().clone();
    for (what, t, _) in since_3_8(&g) {
        let e = t.to_list().await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{what}: {e:?}");
        assert!(
            matches!(&e, Error::NeedsVersion { what: w, needs, server }
                if w == what && *needs == V380 && *server == V373),
            "{what}: {e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "{what} needs TinkerPop 3.8.0 or later; the server is 3.7.3 \
                 (ClientBuilder::server_version): the request was not sent"
            )
        );
    }
    // In a child traversal, a predicate and a mutation alike.
    let nested = [
        (
            "asNumber()",
            g.v(()).where_(__::values("age").as_number(())),
        ),
        (
            "P.typeOf()",
            g.v(()).has(("age", P::type_of(GType::Int).negate())),
        ),
        (
            "GType.INT",
            g.add_v("h_ver_probe").property(("kind", GType::Int)),
        ),
    ];
    for (what, t) in nested {
        let e = t.iterate().await.unwrap_err();
        assert!(
            matches!(&e, Error::NeedsVersion { what: w, .. } if w == what),
            "{what}: {e:?}"
        );
    }
    // Nothing reached the server: this client sent no request, and the vertex was not added.
    assert_eq!(client.stats().requests, 0, "{:?}", client.stats());
    let probes = list(
        "h_ver_probe count",
        source(&url, None).v(()).has_label("h_ver_probe").count(()),
    )
    .await;
    assert_eq!(probes, vec![Value::Long(0)]);
    // A last discard() is Groovy's iterate() on every 3.x: still sent, and it runs.
    g.inject(1i32).iterate().await.unwrap();
    assert_eq!(client.stats().requests, 1);
    // With the version unset the traversal is sent as before, and the server's error says
    // what it lacks.
    let e = source(&url, None)
        .inject(5i64)
        .as_number(GType::Int)
        .to_list()
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Server, "{e:?}");
    assert!(e.to_string().contains("GType"), "{e}");
}

#[tokio::test]
async fn literals_and_path_properties_read_back_on_3_7_3_and_3_8_1() {
    let test = "literals_and_path_properties_read_back_on_3_7_3_and_3_8_1";
    let servers = servers3::set(test, servers3::TINKERPOP3);
    let u: uuid::Uuid = "41d2e28a-20a4-4ab0-b379-d810dede3786".parse().unwrap();
    let set: BTreeSet<&str> = ["a", "b"].into();
    // An OffsetDateTime keeps its offset on both (3.8 made it the default date type).
    let date = DateTime {
        year: 2023,
        month: 8,
        day: 2,
        nanos: 10 * 3_600_000_000_000,
        offset_seconds: 2 * 3600,
        kind: DateTimeKind::OffsetDateTime,
    };
    for (label, url) in servers {
        let version: ServerVersion = label.parse().unwrap();
        for literal_only in [false, true] {
            let g = source(&url, Some(version)).literal_only(literal_only);
            let what = format!("{label}, literal_only {literal_only}");
            let got = list(&what, g.inject((set.clone(), u, -1i8, i8::MIN, date))).await;
            assert_eq!(
                got,
                vec![
                    Value::Set(vec![Value::String("a".into()), Value::String("b".into())]),
                    Value::Uuid(u),
                    Value::Byte(-1),
                    Value::Byte(i8::MIN),
                    Value::DateTime(date),
                ],
                "{what}"
            );
        }
        // A path's vertices carry their properties on both (GraphBinary 1).
        let g = source(&url, Some(version));
        let paths = list(
            &format!("{label}: path"),
            g.v(1i32).out_e("created").in_v().path(),
        )
        .await;
        let [Value::Path(p)] = &paths[..] else {
            panic!("{label}: {paths:?}");
        };
        let names: Vec<usize> = p
            .objects
            .iter()
            .filter_map(|o| match o {
                Value::Vertex(v) => Some(v.properties.as_ref().map_or(0, Vec::len)),
                _ => None,
            })
            .collect();
        assert_eq!(names, [2, 2], "{label}: properties of marko and lop");
    }
}
