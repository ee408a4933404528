//! End-to-end against a real JanusGraph Server 1.1.0 (TinkerPop 3.7.3 inside, in-memory backend,
//! modern graph) over WebSocket with GraphBinary 1. The server is named by env
//! `GREMLIN_WS_JANUSGRAPH_URL` (`cargo xtask ci` sets it); unset, each test returns early with
//! a `SKIPPED` notice:
//!
//! ```sh
//! cargo xtask server --janusgraph 1.1.0 --port 8253 --detach
//! GREMLIN_WS_JANUSGRAPH_URL=ws://127.0.0.1:8253/gremlin cargo test -p graphbinary-client --test ws3_janusgraph
//! ```
//!
//! Without a reader for JanusGraph's custom types its edge ids fail their request; with
//! `CustomTypes::janusgraph()` they read as `RelationIdentifier`s.
//!
//! Set but unreachable is a failure.

use graphbinary_testkit::servers3;

fn janusgraph(test: &str) -> Option<String> {
    servers3::one(test, servers3::JANUSGRAPH.1, "JanusGraph server")
}

use super::all;
use graphbinary_client::client::Error;
use graphbinary_client::format::graphbinary1::CustomTypes;
use graphbinary_client::value::Value;
use graphbinary_client::Client;

/// A client of `url` reading the custom types `custom` (it connects at its first request).
fn connect(url: &str, custom: CustomTypes) -> Client {
    super::build(url, Client::builder(url).custom_types(custom))
}

#[tokio::test]
async fn janusgraph_answers_and_its_custom_edge_ids_fail_only_their_request() {
    let Some(url) =
        janusgraph("janusgraph_answers_and_its_custom_edge_ids_fail_only_their_request")
    else {
        return;
    };
    // JanusGraph's types are read by default: an edge comes back with its id.
    let default = Client::new(url.as_str()).unwrap();
    let edges = all(default.request("g.E().limit(2)"))
        .await
        .unwrap_or_else(|e| panic!("no JanusGraph server at {url} ({e}); start it with `cargo xtask server --janusgraph 1.1.0 --detach`"));
    assert_eq!(edges.len(), 2, "{edges:?}");
    for (e, _) in &edges {
        let Value::Edge(e) = e else {
            panic!("not an edge: {e:?}")
        };
        assert!(
            matches!(&e.id, Value::CompositePdt(c) if c.type_name == "janusgraph.RelationIdentifier"),
            "{e:?}"
        );
    }
    // With no custom types registered, such a value fails its request naming its type.
    let c = connect(&url, CustomTypes::new());
    let all = |g: &'static str| all(c.request(g));
    // The modern graph's vertices (a_session_commits_and_rolls_back_its_writes adds `tagged`
    // ones beside this test).
    assert_eq!(
        all("g.V().hasLabel('person', 'software').count()")
            .await
            .unwrap(),
        vec![(Value::Long(6), 1)]
    );
    assert_eq!(
        all("g.E().count()").await.unwrap(),
        vec![(Value::Long(6), 1)]
    );
    let names: Vec<_> = all("g.V().values('name').order()").await.unwrap();
    assert_eq!(names.len(), 6);
    assert_eq!(names[0].0, Value::String("josh".into()));
    // Vertex ids are Longs.
    let id = all("g.V().has('name','marko').id()").await.unwrap();
    assert!(matches!(id[0].0, Value::Long(_)), "{id:?}");
    // Edge ids and vertex property ids are JanusGraph's RelationIdentifier, a GraphBinary 1
    // custom type (0x00): so are an edge and a vertex with its (materialized) properties.
    // Without its reader each such request fails naming the type and its offset, and the
    // connection carries on.
    for g in [
        "g.E().limit(1)",
        "g.V().has('name','marko')",
        "g.V(). properties('name').id()",
    ] {
        let err = all(g).await.unwrap_err();
        match &err {
            Error::Decode(e) => {
                let text = e.kind().to_string();
                assert!(
                    text.contains("\"janusgraph.RelationIdentifier\""),
                    "{g}: {text}"
                );
                assert!(
                    text.contains(&format!("offset {}", e.offset())),
                    "{g}: {text}"
                );
            }
            other => panic!("{g}: {other:?}"),
        }
    }
    assert_eq!(
        all("'still here'").await.unwrap(),
        vec![(Value::String("still here".into()), 1)]
    );
}

/// With JanusGraph's custom types registered, edge ids and vertex-property ids read as
/// `RelationIdentifier`s equal to what the server itself reports for them.
#[tokio::test]
async fn janusgraph_edge_ids_read_as_relation_identifiers() {
    use graphbinary_client::format::graphbinary1::{JanusVertexId, RelationIdentifier};

    let Some(url) = janusgraph("janusgraph_edge_ids_read_as_relation_identifiers") else {
        return;
    };
    let c = connect(&url, CustomTypes::janusgraph());
    let all = |g: String| all(c.request(g));
    // What the server says the parts of each id are, in the same order as the ids.
    let parts = "map{ def r = it.get(); [r.getOutVertexId(), r.getTypeId(), r.getRelationId(), r.getInVertexId()] }";
    for (ids, truth) in [
        ("g.E().order().by(id().map{it.get().toString()}).id()".to_string(),
         format!("g.E().order().by(id().map{{it.get().toString()}}).id().{parts}")),
        ("g.V().has('name','marko').properties().order().by(id().map{it.get().toString()}).id()".to_string(),
         format!("g.V().has('name','marko').properties().order().by(id().map{{it.get().toString()}}).id().{parts}")),
    ] {
        let got = all(ids.clone()).await.unwrap_or_else(|e| panic!("{ids}: {e:?}"));
        let truth = all(truth).await.unwrap();
        assert!(!got.is_empty());
        assert_eq!(got.len(), truth.len(), "{ids}");
        for ((id, _), (t, _)) in got.iter().zip(&truth) {
            let r = RelationIdentifier::from_value(id).unwrap_or_else(|| panic!("{id:?}"));
            let Value::List(t) = t else { panic!("{t:?}") };
            let long = |v: &Value| match v {
                Value::Long(n) => *n,
                other => panic!("{other:?}"),
            };
            assert_eq!(r.out_vertex_id, JanusVertexId::Long(long(&t[0])));
            assert_eq!(r.type_id, long(&t[1]));
            assert_eq!(r.relation_id, long(&t[2]));
            match &t[3] {
                Value::Null(_) => assert_eq!(r.in_vertex_id, None),
                v => assert_eq!(r.in_vertex_id, Some(JanusVertexId::Long(long(v)))),
            }
        }
    }
    // Whole edges (their ids inside) now read too, with their single-String labels.
    let edges = all("g.E()".into()).await.unwrap();
    assert_eq!(edges.len(), 6);
    for (e, _) in &edges {
        let Value::Edge(e) = e else { panic!("{e:?}") };
        assert!(
            RelationIdentifier::from_value(&e.id).is_some(),
            "{:?}",
            e.id
        );
        assert_eq!(e.label.len(), 1);
    }
    // And an id read back goes out again as a binding, written by the same registered type:
    // `g.E(id)` finds the edge it came from.
    for (e, _) in &edges {
        let Value::Edge(e) = e else { unreachable!() };
        let found =
            crate::ws3_janusgraph::all(c.request("g.E(eid).label()").param("eid", e.id.clone()))
                .await
                .unwrap_or_else(|err| panic!("g.E({:?}): {err:?}", e.id));
        assert_eq!(
            found,
            vec![(Value::String(e.label[0].as_ref().into()), 1)],
            "{:?}",
            e.id
        );
    }
}

#[tokio::test]
async fn a_session_commits_and_rolls_back_its_writes() {
    let Some(url) = janusgraph("a_session_commits_and_rolls_back_its_writes") else {
        return;
    };
    // Through the one client API: a session is a `Transaction`, which commit, rollback and
    // close each end.
    let c = graphbinary_client::Client::new(url.as_str()).unwrap();
    let count_of = |tag: &str| format!("g.V().has('tag','{tag}').count()");
    let outside = |q: String| {
        let c = c.clone();
        async move {
            let n: i64 = c.submit(q).await.unwrap().one().await.unwrap();
            n
        }
    };
    let in_session = |s: &graphbinary_client::client::Transaction, q: String| {
        let s = s.clone();
        async move {
            let n: i64 = s.submit(q).await.unwrap().one().await.unwrap();
            n
        }
    };
    let s = c.session().await.unwrap();
    assert!(s.is_session());
    let tag = format!("s{}", s.id().replace('-', ""));
    let count = count_of(&tag);
    // Adds a vertex with the session's tag, inside `s`.
    let add_tagged = |s: &graphbinary_client::client::Transaction, n: i32| {
        let q = format!("g.addV('tagged').property('tag','{tag}').property('n',{n}).id()");
        let s = s.clone();
        async move {
            s.submit(q).await.unwrap().all().await.unwrap();
        }
    };
    // Written in the session, not committed: invisible outside.
    add_tagged(&s, 1).await;
    assert_eq!(in_session(&s, count.clone()).await, 1, "seen inside");
    assert_eq!(outside(count.clone()).await, 0, "not outside yet");
    s.commit().await.unwrap();
    assert!(!s.is_open(), "commit ends the session");
    assert_eq!(outside(count.clone()).await, 1, "committed");
    // A second write rolled back: gone.
    let s = c.session().await.unwrap();
    add_tagged(&s, 2).await;
    assert_eq!(in_session(&s, count.clone()).await, 2);
    s.rollback().await.unwrap();
    assert!(!s.is_open());
    assert_eq!(outside(count.clone()).await, 1, "rolled back");
    // A third write left open when the session closes: rolled back by the server.
    let s = c.session().await.unwrap();
    add_tagged(&s, 3).await;
    assert_eq!(in_session(&s, count.clone()).await, 2);
    s.close().await.unwrap();
    assert_eq!(outside(count.clone()).await, 1, "close rolls back");
    outside(format!("g.V().has('tag','{tag}').drop().count()")).await;
}

/// `graphbinary query` prints JanusGraph's edges (RelationIdentifier ids) and Geoshapes with no
/// option set: JanusGraph's custom types are the CLI's default too.
#[test]
fn the_cli_prints_janusgraph_edges_and_geoshapes_with_no_option() {
    let Some(url) = janusgraph("the_cli_prints_janusgraph_edges_and_geoshapes_with_no_option")
    else {
        return;
    };
    let run = |g: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_graphbinary"))
            .args(["query", "--url", &url, g])
            .output()
            .expect("runs graphbinary");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        assert!(out.status.success(), "{g}: {stderr}");
        stdout
    };
    let edges = run("g.E().limit(2)");
    assert_eq!(
        edges.lines().filter(|l| l.starts_with("e[")).count(),
        2,
        "{edges}"
    );
    let shape = run("g.inject(Geoshape.point(37.97, 23.72))");
    assert!(
        shape.contains("37.97") && shape.contains("23.72"),
        "{shape}"
    );
}
