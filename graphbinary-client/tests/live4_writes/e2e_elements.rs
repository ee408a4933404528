//! End-to-end: `#[derive(Vertex)]` / `#[derive(Edge)]` structs written through the typed
//! operations (`g.add`, `g.upsert`, `g.upsert_edge`) and read back (`g.all::<T>()`) equal, against
//! the real Gremlin Server 4.0.0-beta.3 (env `GREMLIN_URL`, http://) and TinkerPop 3.7.3 (env
//! `GREMLIN_WS_URL_373`, ws://) through the one `Client`: every property type, list and set
//! cardinality, absent properties; upserting twice changes nothing.
//!
//! Each test writes under a run tag of its own (property `run`) and drops what it wrote, so
//! the modern graph other tests read is left as it was.

use std::collections::BTreeSet;

use bytes::Bytes;
use graphbinary_client::element::{Edge, Element, Vertex};
use graphbinary_client::process::GraphTraversalSource;
use graphbinary_client::value::{BigDecimal, BigInteger, DateTime, Duration, Value};
use graphbinary_client::Client;

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::run;
use graphbinary_testkit::servers3;
use run::{cleaned_up, cleanup, of_run, run_tag};

#[derive(Vertex, Debug, Clone, PartialEq)]
#[vertex(label = "gbw_person")]
struct Person {
    #[vertex(id)]
    id: Option<Value>,
    #[vertex(key)]
    name: String,
    run: String,
    byte: i8,
    short: i16,
    int: i32,
    long: i64,
    float: f32,
    double: f64,
    flag: bool,
    letter: char,
    uuid: uuid::Uuid,
    born: DateTime,
    dur: Duration,
    big: BigInteger,
    dec: BigDecimal,
    bin: Bytes,
    age: Option<i32>,
    nick: Option<String>,
    #[vertex(rename = "lang")]
    langs: Vec<String>,
    tags: BTreeSet<i64>,
    #[vertex(skip)]
    cache: u8,
}

#[derive(Edge, Debug, Clone, PartialEq)]
#[edge(label = "gbw_knows")]
struct Knows {
    #[edge(out = Person)]
    from: String,
    #[edge(in = Person)]
    to: String,
    run: String,
    weight: f64,
    note: Option<String>,
}

#[derive(Edge, Debug, Clone, PartialEq)]
#[edge(label = "gbw_met")]
struct Met {
    #[edge(id)]
    id: Option<Value>,
    #[edge(out)]
    from: Value,
    #[edge(in)]
    to: Value,
    #[edge(key)]
    place: String,
    run: String,
}

/// The server of a test: `http_*` tests the 4.0 server (`GREMLIN_URL`), `ws_*` tests 3.7.3
/// (`GREMLIN_WS_URL_373`, set by `cargo xtask ci`'s TinkerPop 3 step, which runs `-- ws_`).
async fn servers(test: &str) -> Vec<(&'static str, Client)> {
    let mut out = Vec::new();
    if test.starts_with("http_") {
        if gremlin_server::MODERN.available(test).await {
            out.push(("4.0", gremlin_server::MODERN.builder().build().unwrap()));
        }
    } else if let Some(url) = servers3::one(test, "GREMLIN_WS_URL_373", "TinkerPop 3.7.3") {
        out.push(("3.7.3", Client::builder(url).build().unwrap()));
    }
    out
}

/// Runs `body` on each server of `test` with the graph and a fresh run tag (`tag` then a unique
/// suffix), then drops what the run wrote, even when `body` panicked.
async fn on_each_server(
    test: &str,
    tag: &str,
    body: impl AsyncFn(&'static str, &GraphTraversalSource, &str),
) {
    for (server, client) in servers(test).await {
        let g = GraphTraversalSource::new(client);
        let run = run_tag(tag);
        cleaned_up(body(server, &g, &run), cleanup(&g, &run)).await;
    }
}

/// `http_<name>` and `ws_<name>` tests running `body` against their server.
macro_rules! both {
    ($name:ident) => {
        mod $name {
            #[tokio::test]
            async fn http_40() {
                // One test of this binary at a time (they share the Modern graph).
                let _alone = graphbinary_testkit::exclusive::alone().await;
                super::$name(concat!("http_", stringify!($name))).await;
            }
            #[tokio::test]
            async fn ws_373() {
                // One test of this binary at a time (they share the Modern graph).
                let _alone = graphbinary_testkit::exclusive::alone().await;
                super::$name(concat!("ws_", stringify!($name))).await;
            }
        }
    };
}

both!(typed_vertices_read_back_equal);
both!(upserting_twice_changes_nothing);
both!(typed_edges_by_key_and_by_id);
both!(mistakes_are_errors);

fn person(run: &str, name: &str) -> Person {
    Person {
        id: None,
        name: format!("{run}_{name}"),
        run: run.to_owned(),
        byte: -7,
        short: 300,
        int: -70_000,
        long: 1 << 40,
        float: 1.5,
        double: -2.25e100,
        flag: true,
        letter: 'é',
        uuid: uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef),
        born: DateTime::from_epoch_millis(1_700_000_000_123),
        dur: Duration {
            seconds: 90,
            nanos: 5,
        },
        big: BigInteger::from_bytes(vec![0x01, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        dec: BigDecimal {
            scale: 3,
            unscaled: BigInteger::from_bytes(vec![0x30, 0x39]),
        },
        bin: Bytes::from_static(&[0, 1, 2, 0xff]),
        age: Some(36),
        nick: None,
        langs: vec!["en".into(), "fr".into(), "en".into()],
        tags: [3, 1, 2].into_iter().collect(),
        cache: 9,
    }
}

/// `p` as read back: no skipped field, the id the server gave.
fn as_read(p: &Person, id: Option<Value>) -> Person {
    Person {
        id,
        cache: 0,
        ..p.clone()
    }
}

async fn people(g: &GraphTraversalSource, run: &str) -> Vec<Person> {
    let mut v = of_run::<Person>(g, run).await;
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

async fn typed_vertices_read_back_equal(test: &str) {
    on_each_server(test, "read_back", async |server, g, run| {
        let ada = person(run, "ada");
        let mut bob = person(run, "bob");
        bob.age = None;
        bob.nick = Some("b".into());
        bob.langs = vec![];
        bob.tags = BTreeSet::new();
        for p in [&ada, &bob] {
            let added = g.add(p).to_list().await.unwrap();
            assert_eq!(added.len(), 1, "{server}: {added:?}");
        }
        let read = people(g, run).await;
        assert_eq!(read.len(), 2, "{server}: {read:?}");
        assert!(read.iter().all(|p| p.id.is_some()), "{server}: ids read");
        let expected = [
            as_read(&ada, read[0].id.clone()),
            as_read(&bob, read[1].id.clone()),
        ];
        assert_eq!(read, expected, "{server}");
    })
    .await;
}

async fn upserting_twice_changes_nothing(test: &str) {
    on_each_server(test, "upsert", async |server, g, run| {
        let mut ada = person(run, "ada");
        g.upsert(&ada).iterate().await.unwrap();
        g.upsert(&ada).iterate().await.unwrap();
        let read = people(g, run).await;
        assert_eq!(read.len(), 1, "{server}: one vertex after two upserts");
        let id = read[0].id.clone();
        assert_eq!(read, [as_read(&ada, id.clone())], "{server}");
        // A changed struct updates the same vertex to exactly its properties.
        ada.age = None;
        ada.nick = Some("a".into());
        ada.langs = vec!["de".into()];
        ada.tags = [9].into_iter().collect();
        ada.int = 5;
        g.upsert(&ada).iterate().await.unwrap();
        g.upsert(&ada).iterate().await.unwrap();
        let read = people(g, run).await;
        assert_eq!(read, [as_read(&ada, id)], "{server}: updated in place");
    })
    .await;
}

async fn typed_edges_by_key_and_by_id(test: &str) {
    on_each_server(test, "edges", async |server, g, run| {
        let (ada, bob) = (person(run, "ada"), person(run, "bob"));
        g.upsert(&ada).iterate().await.unwrap();
        g.upsert(&bob).iterate().await.unwrap();
        // Ends by key: found by Person's key, the name.
        let knows = Knows {
            from: ada.name.clone(),
            to: bob.name.clone(),
            run: run.to_owned(),
            weight: 0.5,
            note: None,
        };
        g.upsert_edge(&knows).iterate().await.unwrap();
        g.upsert_edge(&knows).iterate().await.unwrap();
        let read = of_run::<Knows>(g, run).await;
        assert_eq!(
            read,
            std::slice::from_ref(&knows),
            "{server}: one edge after two upserts"
        );
        let changed = Knows {
            weight: 2.0,
            note: Some("n".into()),
            ..knows.clone()
        };
        g.upsert_edge(&changed).iterate().await.unwrap();
        let read = of_run::<Knows>(g, run).await;
        assert_eq!(read, [changed], "{server}: updated in place");
        // Ends by id; the key `place` tells apart two edges between the same ends.
        let people = people(g, run).await;
        let (a, b) = (people[0].id.clone().unwrap(), people[1].id.clone().unwrap());
        let met = |place: &str| Met {
            id: None,
            from: a.clone(),
            to: b.clone(),
            place: place.into(),
            run: run.to_owned(),
        };
        for place in ["paris", "rome", "paris"] {
            g.upsert_edge(&met(place)).iterate().await.unwrap();
        }
        g.add(&met("oslo")).iterate().await.unwrap();
        let mut read = of_run::<Met>(g, run).await;
        read.sort_by(|x, y| x.place.cmp(&y.place));
        let places: Vec<_> = read.iter().map(|m| m.place.as_str()).collect();
        assert_eq!(places, ["oslo", "paris", "rome"], "{server}");
        for m in &read {
            assert!(m.id.is_some(), "{server}: edge id read");
            assert_eq!(
                (&m.from, &m.to),
                (&a, &b),
                "{server}: ends read back as ids"
            );
        }
    })
    .await;
}

async fn mistakes_are_errors(test: &str) {
    #[derive(Vertex, Debug)]
    #[vertex(label = "gbw_keyless")]
    struct Keyless {
        run: String,
    }
    for (server, client) in servers(test).await {
        let g = GraphTraversalSource::new(client);
        let err = g
            .upsert(&Keyless { run: "x".into() })
            .iterate()
            .await
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("needs a #[vertex(key)] field or an id"),
            "{server}: {err}"
        );
        // A modern-graph person is no gbw_person: its label and missing fields are named.
        let err = g
            .v(())
            .has(("person", "name", "marko"))
            .elements::<Person>()
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("gbw_person"), "{server}: {text}");
        assert_eq!(Person::LABEL, "gbw_person");
    }
}
