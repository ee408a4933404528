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
//! With scans disabled a query is answered only through an index (equality on the TEXT key
//! and a query on an unindexed key are refused, naming the missing index). Each of the 20
//! JanusGraph predicates (and `eq` / `neq`) is asked beside an index condition, and alone:
//! Lucene answers 12 alone (textContains, its prefix and fuzzy forms, textPrefix, textRegex,
//! textFuzzy, eq, neq, geoWithin of a circle and of a box, geoIntersect, geoContains); the
//! other 11 (the regex and phrase of TEXT, every `not` form, geoDisjoint) are refused alone,
//! and beside an index condition JanusGraph filters them in memory.

use graphbinary_testkit::skip;

use graphbinary_client::format::graphbinary1::{CustomTypes, Geoshape};
use graphbinary_client::process::janusgraph::{Geo, Text};
use graphbinary_client::process::{GraphTraversalSource, P};
use graphbinary_client::value::Value;
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
    /// The names (sorted) of this run's vertices that `p` on `key` selects beside the run's
    /// word (`textContains`, an index condition).
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

    /// `p` on `key` as the query's only condition: `Ok` with the names of this run's vertices
    /// it selects (sorted) when the index answers it by itself, `Err` with the server's
    /// message when force-index refuses it.
    async fn names_alone(&self, key: &str, p: P) -> Result<Vec<String>, String> {
        let alone: Vec<String> = self
            .g
            .v(())
            .has((key, p))
            .values("name")
            .to_list_as()
            .await
            .map_err(|e| e.to_string())?;
        let suffix = format!(" {}", self.run);
        let mut mine: Vec<String> = alone.into_iter().filter(|n| n.ends_with(&suffix)).collect();
        mine.sort();
        Ok(mine)
    }

    fn place(&self, i: usize) -> String {
        format!("{} {}", PLACES[i].0, self.run)
    }

    fn places(&self, is: &[usize]) -> Vec<String> {
        let mut v: Vec<String> = is.iter().map(|&i| self.place(i)).collect();
        v.sort();
        v
    }

    /// The index answers the text and geo predicates, and refuses what it cannot answer.
    async fn check_the_index_answers(&self) {
        let (athens, berlin, not_athens, not_berlin) = (
            self.places(&[0]),
            self.places(&[1]),
            self.places(&[1, 2]),
            self.places(&[0, 2]),
        );
        let berlin_10km = || Geoshape::circle(52.52, 13.40, 10.0);
        // (what, key, predicate, this run's places it selects, whether Lucene answers it as
        // the query's only condition). `name` is TEXT-mapped (tokens), `tag` STRING-mapped
        // (the whole value), `place` a point, `area` a box around each place (PREFIX_TREE).
        // Each is asked beside the run's word (an index condition; what the index does not
        // support is then filtered by JanusGraph in memory) and alone: JanusGraph 1.1's Lucene
        // answers 12 of them alone; the regex and phrase of TEXT, every `not` form and
        // geoDisjoint it does not, and force-index refuses those alone, never scanning.
        let cases: Vec<(&str, &str, P, &Vec<String>, bool)> = vec![
            (
                "textContains",
                "name",
                Text::text_contains("athens"),
                &athens,
                true,
            ),
            (
                "textContainsPrefix",
                "name",
                Text::text_contains_prefix("ath"),
                &athens,
                true,
            ),
            (
                "textContainsFuzzy",
                "name",
                Text::text_contains_fuzzy("athenz"),
                &athens,
                true,
            ),
            (
                "textContainsRegex",
                "name",
                Text::text_contains_regex("at.e.s"),
                &athens,
                false,
            ),
            (
                "textContainsPhrase",
                "name",
                Text::text_contains_phrase("loves athens"),
                &athens,
                false,
            ),
            (
                "textNotContains",
                "name",
                Text::text_not_contains("athens"),
                &not_athens,
                false,
            ),
            (
                "textNotContainsPrefix",
                "name",
                Text::text_not_contains_prefix("ath"),
                &not_athens,
                false,
            ),
            (
                "textNotContainsFuzzy",
                "name",
                Text::text_not_contains_fuzzy("athenz"),
                &not_athens,
                false,
            ),
            (
                "textNotContainsRegex",
                "name",
                Text::text_not_contains_regex("at.e.s"),
                &not_athens,
                false,
            ),
            (
                "textNotContainsPhrase",
                "name",
                Text::text_not_contains_phrase("loves athens"),
                &not_athens,
                false,
            ),
            (
                "textPrefix",
                "tag",
                Text::text_prefix("greek-"),
                &athens,
                true,
            ),
            (
                "textRegex",
                "tag",
                Text::text_regex("gr.*-city"),
                &athens,
                true,
            ),
            (
                "textFuzzy",
                "tag",
                Text::text_fuzzy("greek-citz"),
                &athens,
                true,
            ),
            ("eq", "tag", P::eq("greek-city"), &athens, true),
            (
                "textNotPrefix",
                "tag",
                Text::text_not_prefix("greek-"),
                &not_athens,
                false,
            ),
            (
                "textNotRegex",
                "tag",
                Text::text_not_regex("gr.*-city"),
                &not_athens,
                false,
            ),
            (
                "textNotFuzzy",
                "tag",
                Text::text_not_fuzzy("greek-citz"),
                &not_athens,
                false,
            ),
            ("neq", "tag", P::neq("greek-city"), &not_athens, true),
            (
                "geoWithin a circle",
                "place",
                Geo::geo_within(Geoshape::circle(37.97, 23.72, 50.0)),
                &athens,
                true,
            ),
            (
                "geoWithin a box",
                "place",
                Geo::geo_within(Geoshape::box_(35.0, -10.0, 45.0, 25.0)),
                &not_berlin,
                true,
            ),
            (
                "geoIntersect",
                "place",
                Geo::geo_intersect(berlin_10km()),
                &berlin,
                true,
            ),
            (
                "geoDisjoint",
                "place",
                Geo::geo_disjoint(berlin_10km()),
                &not_berlin,
                false,
            ),
            (
                "geoContains",
                "area",
                Geo::geo_contains(Geoshape::point(37.97, 23.72)),
                &athens,
                true,
            ),
        ];
        // The run's word alone finds the three places.
        assert_eq!(
            self.names_alone("name", Text::text_contains(self.run.clone()))
                .await,
            Ok(self.places(&[0, 1, 2]))
        );
        let mut answered_alone = 0;
        for (what, key, p, want, alone) in cases {
            assert_eq!(&self.names(key, p.clone()).await, want, "{what}");
            match (self.names_alone(key, p).await, alone) {
                (Ok(got), true) => {
                    assert_eq!(&got, want, "{what} alone");
                    answered_alone += 1;
                }
                (Err(e), false) => assert!(
                    e.contains("Could not find a suitable index")
                        && e.contains("graph scans are disabled"),
                    "{what} alone: {e}"
                ),
                (got, _) => {
                    panic!("{what} alone: {got:?}, expected the index to answer it: {alone}")
                }
            }
        }
        assert_eq!(answered_alone, 12);
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
    // Each added vertex comes back whole (its `place` a Geoshape read by our reader).
    for (i, (_, tag, lat, lon)) in PLACES.iter().enumerate() {
        c.g.add_v("place")
            .property(("name", c.place(i)))
            .property(("tag", *tag))
            .property(("place", Geoshape::point(*lat, *lon)))
            .property((
                "area",
                Geoshape::box_(lat - 0.5, lon - 0.5, lat + 0.5, lon + 0.5),
            ))
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
