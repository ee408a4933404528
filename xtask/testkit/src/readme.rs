//! The guide's traversal example (docs/guide/src/traversals.md), run against each server generation (`e2e_process.rs` on
//! TinkerPop 4, `ws3.rs` on 3.x) on the Modern graph.

use graphbinary_client::process::{GValue, GraphTraversal, GraphTraversalSource, Order, __, P};

/// `g.V().has('person','name',who).out('knows').has('age',gt(26)).order().by('age',desc)
/// .values('name')`, `who` a parameter (`marko`): `josh`, `vadas`.
pub fn friends(g: &GraphTraversalSource) -> GraphTraversal {
    g.v(())
        .has(("person", "name", GValue::new("who", "marko")))
        .out("knows")
        .has(("age", P::gt(26)))
        .order(())
        .by(("age", Order::Desc))
        .values("name")
}

/// How many vertices created something (`g.V().where(out('created')).count()`): 3.
pub async fn creators(g: &GraphTraversalSource) -> Option<i64> {
    g.v(())
        .where_(__::out("created"))
        .count(())
        .next_as()
        .await
        .unwrap()
}
