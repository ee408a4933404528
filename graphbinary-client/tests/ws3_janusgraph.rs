//! End-to-end against a real JanusGraph Server 1.1.0 (TinkerPop 3.7.3 inside, in-memory backend,
//! modern graph) over WebSocket with GraphBinary 1. `#[ignore]`d like `ws3.rs`; run with
//!
//! ```sh
//! cargo xtask server3 --janusgraph 1.1.0 --detach        # ws://127.0.0.1:8199/gremlin
//! cargo test -p graphbinary-client --test ws3_janusgraph -- --ignored
//! ```
//!
//! (`GREMLIN3_JANUSGRAPH_URL` overrides the URL.) Run that way, an unreachable server fails.

use std::time::Duration;

use futures::TryStreamExt;
use graphbinary_client::model::Value;
use graphbinary_client::ws::{Client3, Error3};

#[tokio::test]
#[ignore = "needs a JanusGraph server: see the module docs"]
async fn janusgraph_answers_and_its_custom_edge_ids_fail_only_their_request() {
    let url = std::env::var("GREMLIN3_JANUSGRAPH_URL")
        .unwrap_or_else(|_| "ws://127.0.0.1:8199/gremlin".into());
    let c = tokio::time::timeout(Duration::from_secs(10), Client3::connect(&url))
        .await
        .expect("connect timed out")
        .unwrap_or_else(|e| panic!("no JanusGraph server at {url} ({e}); start it with `cargo xtask server3 --janusgraph 1.1.0 --detach`"));
    let all = |g: &'static str| {
        let c = c.clone();
        async move {
            let r: Result<Vec<_>, _> = c.submit(g).await?.try_collect().await;
            r
        }
    };
    assert_eq!(
        all("g.V().count()").await.unwrap(),
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
    // custom type (0x00): so are an edge and a vertex with its (materialized) properties. Each
    // such request fails naming the type and its offset, and the connection carries on.
    for g in [
        "g.E().limit(1)",
        "g.V().has('name','marko')",
        "g.V(). properties('name').id()",
    ] {
        let err = all(g).await.unwrap_err();
        match &err {
            Error3::Decode(e) => {
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
