//! End-to-end against a real JanusGraph Server 1.1.0 on BerkeleyJE with a Lucene mixed index
//! and `query.force-index=true` (`cargo xtask server --janusgraph 1.1.0 --backend berkeleyje`),
//! over WebSocket with GraphBinary 1 and JanusGraph's custom types: the text and geo
//! predicates of the traversal API sent as `janusgraph.P`, Geoshape values of every shape
//! written and read back, and what was written kept across a restart of the server.
//!
//! `cargo xtask ci` runs it in two phases on one data directory: env
//! `GREMLIN_WS_JANUSGRAPH_BDB_URL` names the server, `JANUSGRAPH_BDB_RUN` a word unique to the
//! run (every vertex written carries it in its `name`, so earlier runs' data never counts), and
//! `JANUSGRAPH_BDB_PHASE` is `write` (the first start: `write_phase_*` run) or `reopened` (after
//! stopping and starting the server again: `reopened_phase_*` run). A test of the other phase,
//! or with the URL unset, returns early with a `SKIPPED` notice. By hand:
//!
//! ```sh
//! cargo xtask server --janusgraph 1.1.0 --backend berkeleyje --fresh --port 8320 --detach
//! export GREMLIN_WS_JANUSGRAPH_BDB_URL=ws://127.0.0.1:8320/gremlin JANUSGRAPH_BDB_RUN=r1
//! JANUSGRAPH_BDB_PHASE=write cargo test -p graphbinary-client --test ws3_janusgraph_index
//! cargo xtask server --stop --port 8320
//! cargo xtask server --janusgraph 1.1.0 --backend berkeleyje --port 8320 --detach
//! JANUSGRAPH_BDB_PHASE=reopened cargo test -p graphbinary-client --test ws3_janusgraph_index
//! ```
//!
//! With scans disabled a query is answered only through an index: the refused query proves
//! they are, so every predicate query that answers was answered by the Lucene index.

#[path = "common/skip.rs"]
mod skip;

use graphbinary_client::model::Value;
use graphbinary_client::process::janusgraph::{Geo, Text};
use graphbinary_client::process::{GraphTraversalSource, P};
use graphbinary_client::v1::{CustomTypes, Geoshape};
use graphbinary_client::Client;

struct Ctx {
    g: GraphTraversalSource,
    run: String,
}

fn ctx(test: &str, phase: &str) -> Option<Ctx> {
    let Ok(url) = std::env::var("GREMLIN_WS_JANUSGRAPH_BDB_URL") else {
        skip::skipped(
            test,
            "GREMLIN_WS_JANUSGRAPH_BDB_URL unset (JanusGraph on BerkeleyJE + Lucene)",
        );
        return None;
    };
    let now = std::env::var("JANUSGRAPH_BDB_PHASE").unwrap_or_default();
    if now != phase {
        skip::skipped(
            test,
            &format!("JANUSGRAPH_BDB_PHASE is {now:?}, this test is of phase {phase:?}"),
        );
        return None;
    }
    let run = std::env::var("JANUSGRAPH_BDB_RUN").expect("JANUSGRAPH_BDB_RUN names the run");
    assert!(
        !run.is_empty() && run.chars().all(|c| c.is_ascii_alphanumeric()),
        "JANUSGRAPH_BDB_RUN={run:?}: one word"
    );
    let client = Client::builder(url)
        .custom_types(CustomTypes::janusgraph())
        .build()
        .expect("a ws:// client");
    Some(Ctx {
        g: GraphTraversalSource::new(client),
        run: run.to_lowercase(),
    })
}

/// The places, each `(first words of its name, tag prefix, lat, lon)`.
const PLACES: [(&str, &str, f64, f64); 3] = [
    ("marko loves athens", "greek-city", 37.97, 23.72),
    ("josh works in berlin", "german-city", 52.52, 13.40),
    ("peter sails from lisbon", "portuguese-city", 38.72, -9.14),
];

/// One shape of each of the nine kinds, as JanusGraph keeps them (rings closed, counter-
/// clockwise).
fn shapes() -> Vec<Geoshape> {
    let ring = |lat: f64, lon: f64| {
        vec![
            (lat, lon),
            (lat, lon + 1.0),
            (lat + 1.0, lon + 1.0),
            (lat + 1.0, lon),
            (lat, lon),
        ]
    };
    vec![
        Geoshape::point(37.97, 23.72),
        Geoshape::circle(37.97, 23.72, 50.0),
        Geoshape::box_(37.0, 23.0, 38.5, 24.5),
        Geoshape::line([(37.0, 23.0), (38.0, 24.0), (38.5, 23.5)]),
        Geoshape::polygon(ring(10.0, 20.0)),
        Geoshape::multi_point([(1.0, 2.0), (3.0, 4.0)]),
        Geoshape::multi_line([vec![(1.0, 2.0), (3.0, 4.0)], vec![(5.0, 6.0), (7.0, 8.0)]]),
        Geoshape::multi_polygon([ring(10.0, 20.0), ring(30.0, 40.0)]),
        Geoshape::collection([
            Geoshape::point(1.0, 2.0),
            Geoshape::line([(3.0, 4.0), (5.0, 6.0)]),
        ]),
    ]
}

impl Ctx {
    /// The names (sorted) of this run's vertices that `p` on `key` selects.
    async fn names(&self, key: &str, p: P) -> Vec<String> {
        let mut names: Vec<String> = self
            .g
            .v(())
            .has(("name", Text::text_contains(self.run.clone())))
            .has((key, p))
            .values("name")
            .to_list_as()
            .await
            .unwrap_or_else(|e| panic!("has({key:?}, ...): {e}"));
        names.sort();
        names
    }

    fn place(&self, i: usize) -> String {
        format!("{} {}", PLACES[i].0, self.run)
    }

    /// The index answers the text and geo predicates, and refuses what it cannot answer.
    async fn check_the_index_answers(&self) {
        let all: Vec<String> = {
            let mut v: Vec<String> = (0..3).map(|i| self.place(i)).collect();
            v.sort();
            v
        };
        // textContains alone (the run's word) finds the three places: so far an index query
        // by the TEXT-mapped name.
        assert_eq!(
            self.names("name", Text::text_contains(self.run.clone()))
                .await,
            all
        );
        let athens = vec![self.place(0)];
        for (what, p) in [
            ("textContains", Text::text_contains("athens")),
            ("textContainsPrefix", Text::text_contains_prefix("ath")),
            ("textContainsFuzzy", Text::text_contains_fuzzy("athenz")),
            ("textContainsRegex", Text::text_contains_regex("at.e.s")),
            (
                "textContainsPhrase",
                Text::text_contains_phrase("loves athens"),
            ),
        ] {
            assert_eq!(self.names("name", p).await, athens, "{what}");
        }
        let not_athens = vec![self.place(1), self.place(2)];
        assert_eq!(
            self.names("name", Text::text_not_contains("athens")).await,
            not_athens,
            "textNotContains"
        );
        // The STRING-mapped tag: the whole value.
        for (what, p) in [
            ("textPrefix", Text::text_prefix("greek-")),
            ("textRegex", Text::text_regex("gr.*-city")),
            ("textFuzzy", Text::text_fuzzy("greek-citz")),
            ("eq", P::eq("greek-city")),
        ] {
            assert_eq!(self.names("tag", p).await, athens, "{what}");
        }
        assert_eq!(
            self.names("tag", Text::text_not_prefix("greek-")).await,
            not_athens,
            "textNotPrefix"
        );
        // The geo predicates on the place (a point).
        assert_eq!(
            self.names(
                "place",
                Geo::geo_within(Geoshape::circle(37.97, 23.72, 50.0))
            )
            .await,
            athens,
            "geoWithin a circle"
        );
        let south = vec![self.place(0), self.place(2)];
        assert_eq!(
            self.names(
                "place",
                Geo::geo_within(Geoshape::box_(35.0, -10.0, 45.0, 25.0))
            )
            .await,
            {
                let mut s = south.clone();
                s.sort();
                s
            },
            "geoWithin a box"
        );
        assert_eq!(
            self.names(
                "place",
                Geo::geo_intersect(Geoshape::circle(52.52, 13.40, 10.0))
            )
            .await,
            vec![self.place(1)],
            "geoIntersect"
        );
        assert_eq!(
            self.names(
                "place",
                Geo::geo_disjoint(Geoshape::circle(52.52, 13.40, 10.0))
            )
            .await,
            {
                let mut s = south.clone();
                s.sort();
                s
            },
            "geoDisjoint"
        );
        // A TEXT mapping has no equality, and `shape` is in no index: with scans disabled both
        // are refused, naming the missing index.
        for (what, t) in [
            (
                "equality on a TEXT key",
                self.g.v(()).has(("name", self.place(0))).count(()),
            ),
            (
                "an unindexed key",
                self.g
                    .v(())
                    .has(("shape", Geoshape::point(37.97, 23.72)))
                    .count(()),
            ),
        ] {
            let e = t.to_list().await.expect_err(what).to_string();
            assert!(
                e.contains("Could not find a suitable index")
                    && e.contains("graph scans are disabled"),
                "{what}: {e}"
            );
        }
    }

    /// Each of the nine shapes, read back from its vertex (found by its tag, an index query of
    /// the STRING mapping), equals what was written.
    async fn check_the_shapes(&self) {
        for (i, shape) in shapes().into_iter().enumerate() {
            let tag = format!("shape-{i}-{}", self.run);
            let got: Vec<Value> = self
                .g
                .v(())
                .has(("tag", tag.clone()))
                .values("shape")
                .to_list()
                .await
                .unwrap_or_else(|e| panic!("{tag}: {e}"));
            assert_eq!(got.len(), 1, "{tag}: {got:?}");
            let back = Geoshape::from_value(&got[0])
                .unwrap_or_else(|| panic!("{tag} read back as {:?}", got[0]));
            assert!(
                same(&back, &shape),
                "{tag} read back as {back:?}, written as {shape:?}"
            );
        }
    }
}

/// `a == b`, but for a circle's radius: JanusGraph keeps it in degrees and gives it back in
/// kilometres, 50 km as 49.99999999999999; within a millionth of a millimetre it is the same.
fn same(a: &Geoshape, b: &Geoshape) -> bool {
    match (a, b) {
        (
            Geoshape::Circle {
                center: ca,
                radius_km: ra,
            },
            Geoshape::Circle {
                center: cb,
                radius_km: rb,
            },
        ) => ca == cb && (ra - rb).abs() < 1e-12,
        _ => a == b,
    }
}

#[tokio::test]
async fn write_phase_predicates_are_answered_by_the_index_and_shapes_read_back_equal() {
    let Some(c) = ctx(
        "write_phase_predicates_are_answered_by_the_index_and_shapes_read_back_equal",
        "write",
    ) else {
        return;
    };
    // Each added vertex comes back whole (its `place` a Geoshape read by our reader);
    // `iterate()` would append `discard()`, which JanusGraph's TinkerPop 3.7.3 lacks.
    for (i, (_, tag, lat, lon)) in PLACES.iter().enumerate() {
        c.g.add_v("place")
            .property(("name", c.place(i)))
            .property(("tag", *tag))
            .property(("place", Geoshape::point(*lat, *lon)))
            .to_list()
            .await
            .unwrap_or_else(|e| panic!("adding {}: {e}", c.place(i)));
    }
    for (i, shape) in shapes().into_iter().enumerate() {
        c.g.add_v("shape")
            .property(("name", format!("shape number {i}")))
            .property(("tag", format!("shape-{i}-{}", c.run)))
            .property(("shape", shape.clone()))
            .to_list()
            .await
            .unwrap_or_else(|e| panic!("adding {shape:?}: {e}"));
    }
    c.check_the_index_answers().await;
    c.check_the_shapes().await;
}

#[tokio::test]
async fn reopened_phase_what_was_written_before_the_restart_is_read_after_it() {
    let Some(c) = ctx(
        "reopened_phase_what_was_written_before_the_restart_is_read_after_it",
        "reopened",
    ) else {
        return;
    };
    let n: Vec<Value> =
        c.g.v(())
            .has(("name", Text::text_contains(c.run.clone())))
            .count(())
            .to_list()
            .await
            .unwrap();
    assert_eq!(n, vec![Value::Long(3)], "this run's places");
    c.check_the_index_answers().await;
    c.check_the_shapes().await;
}
