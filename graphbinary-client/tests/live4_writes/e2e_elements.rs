//! End-to-end: `#[derive(Vertex)]` / `#[derive(Edge)]` structs written through the typed
//! operations (`g.add`, `g.upsert`, `g.upsert_edge`) and read back (`g.all::<T>()`) equal, against
//! each real server through the one `Client`: Gremlin Server 4.0.0-beta.3 (`http_40`, env
//! `GREMLIN_URL`, http://), TinkerPop 3.7.3 and 3.8.1 (`ws_373`, `ws_381`, env
//! `GREMLIN_WS_URL_373` / `GREMLIN_WS_URL_381`, ws://) and JanusGraph 1.1.0 (`ws_janusgraph`, env
//! `GREMLIN_WS_JANUSGRAPH_URL`): every property type, list and set cardinality, absent
//! properties, with fixed and with generated (proptest) values; upserting twice changes nothing.
//!
//! Each test writes under a run tag of its own (property `run`) and drops what it wrote, so
//! the modern graph other tests read is left as it was.

use std::collections::BTreeSet;
use std::fmt::Debug;

use bytes::Bytes;
use graphbinary_client::element::{Edge, EdgeType, Vertex, VertexType};
use graphbinary_client::process::GraphTraversalSource;
use graphbinary_client::value::{BigDecimal, BigInteger, DateTime, DateTimeKind, Duration, Value};
use graphbinary_client::Client;

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::run;
use graphbinary_testkit::servers3;
use graphbinary_testkit::values::{
    big_decimal, big_integer, binary, date_time, double, duration, epoch, float, java_char, string,
    Gen,
};
use proptest::prelude::{any, prop, BoxedStrategy, Strategy};
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
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

// JanusGraph 1.1.0 refuses BigInteger, BigDecimal, OffsetDateTime and ByteBuffer properties (a
// byte[] it stores but cannot answer): Person's fields of those types are left out, a Date and
// an Instant stand for the date; its ids are its own (upserts go by the key).
#[derive(Vertex, Debug, Clone, PartialEq)]
#[vertex(label = "gbw_person")]
struct JanusPerson {
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
    at: DateTime,
    dur: Duration,
    age: Option<i32>,
    nick: Option<String>,
    // The modern graph's `lang` is a key of single cardinality there (JanusGraph keeps one
    // schema per graph): a list key of its own.
    #[vertex(rename = "gbw_lang")]
    langs: Vec<String>,
    tags: BTreeSet<i64>,
    #[vertex(skip)]
    cache: u8,
}

#[derive(Edge, Debug, Clone, PartialEq)]
#[edge(label = "gbw_knows")]
struct JanusKnows {
    #[edge(out = JanusPerson)]
    from: String,
    #[edge(in = JanusPerson)]
    to: String,
    run: String,
    weight: f64,
    note: Option<String>,
}

/// A vertex type of the tests (`Person`, or `JanusPerson` on JanusGraph) and its `knows` edge:
/// the fields the tests change are the same in both.
trait Sample: VertexType + Clone + PartialEq + Debug {
    type Knows: EdgeType + Clone + PartialEq + Debug;
    /// A vertex with every field set (`age` too, `nick` absent), keyed `{run}_{name}`.
    fn new(run: &str, name: &str) -> Self;
    fn name(&self) -> &str;
    fn id(&self) -> Option<Value>;
    /// As read back: no skipped field, the id the server gave.
    fn as_read(&self, id: Option<Value>) -> Self;
    /// No `age`, a `nick`, empty list and set.
    fn sparse(self) -> Self;
    /// Another value of each field an upsert changes.
    fn changed(self) -> Self;
    fn knows(from: &Self, to: &Self, run: &str, weight: f64, note: Option<String>) -> Self::Knows;
    /// Generated property values (`name` and `run` empty) for a server of `gen`.
    fn generated(gen: Gen) -> BoxedStrategy<Self>;
    /// With `name` `{run}_{name}` and the `run` tag.
    fn keyed(self, run: &str, name: &str) -> Self;
    /// The value with its floats as bits, to compare (`PartialEq` has NaN != NaN, 0.0 == -0.0).
    fn bits(&self) -> (Self, u32, u64);
}

macro_rules! sample {
    ($t:ident, $knows:ident, $new:ident, $generated:ident) => {
        impl Sample for $t {
            type Knows = $knows;
            fn generated(gen: Gen) -> BoxedStrategy<Self> {
                $generated(gen)
            }
            fn keyed(self, run: &str, name: &str) -> Self {
                $t {
                    name: format!("{run}_{name}"),
                    run: run.to_owned(),
                    ..self
                }
            }
            fn bits(&self) -> (Self, u32, u64) {
                let zeroed = $t {
                    float: 0.0,
                    double: 0.0,
                    ..self.clone()
                };
                (zeroed, self.float.to_bits(), self.double.to_bits())
            }
            fn new(run: &str, name: &str) -> Self {
                $new(run, name)
            }
            fn name(&self) -> &str {
                &self.name
            }
            fn id(&self) -> Option<Value> {
                self.id.clone()
            }
            fn as_read(&self, id: Option<Value>) -> Self {
                $t {
                    id,
                    cache: 0,
                    ..self.clone()
                }
            }
            fn sparse(self) -> Self {
                $t {
                    age: None,
                    nick: Some("b".into()),
                    langs: vec![],
                    tags: BTreeSet::new(),
                    ..self
                }
            }
            fn changed(self) -> Self {
                $t {
                    age: None,
                    nick: Some("a".into()),
                    langs: vec!["de".into()],
                    tags: [9].into_iter().collect(),
                    int: 5,
                    ..self
                }
            }
            fn knows(
                from: &Self,
                to: &Self,
                run: &str,
                weight: f64,
                note: Option<String>,
            ) -> $knows {
                $knows {
                    from: from.name.clone(),
                    to: to.name.clone(),
                    run: run.to_owned(),
                    weight,
                    note,
                }
            }
        }
    };
}
sample!(Person, Knows, person, generated_person);
sample!(
    JanusPerson,
    JanusKnows,
    janus_person,
    generated_janus_person
);

/// The server of `test` (`<name>::<server>`, the server one of `http_40`, `ws_373`, `ws_381`,
/// `ws_janusgraph`), or `None` (a SKIPPED notice) when its env var is unset. `cargo xtask ci`'s
/// TinkerPop 3 step sets the ws:// ones and runs `-- ::ws_`.
async fn server(test: &str) -> Option<(&'static str, Client)> {
    let ws = |var: &str, what: &'static str| {
        servers3::one(test, var, what).map(|url| (what, Client::builder(url).build().unwrap()))
    };
    match test.rsplit("::").next().unwrap_or_default() {
        "http_40" => gremlin_server::MODERN
            .available(test)
            .await
            .then(|| ("4.0", gremlin_server::MODERN.builder().build().unwrap())),
        "ws_373" => ws("GREMLIN_WS_URL_373", "TinkerPop 3.7.3"),
        "ws_381" => ws("GREMLIN_WS_URL_381", "TinkerPop 3.8.1"),
        "ws_janusgraph" => ws(servers3::JANUSGRAPH.1, servers3::JANUSGRAPH.0),
        other => panic!("{test}: no server named {other:?}"),
    }
}

/// Runs `body` on the server of `test` with the graph and a fresh run tag (`tag` then a unique
/// suffix), then drops what the run wrote, even when `body` panicked.
async fn on_server(
    test: &str,
    tag: &str,
    body: impl AsyncFn(&'static str, &GraphTraversalSource, &str),
) {
    if let Some((server, client)) = server(test).await {
        let g = GraphTraversalSource::new(client);
        let run = run_tag(tag);
        cleaned_up(body(server, &g, &run), cleanup(&g, &run)).await;
    }
}

/// A module `$name` with a test for each server (`http_40`, `ws_373`, `ws_381` with `Person`,
/// `ws_janusgraph` with `JanusPerson`) running `$name`.
macro_rules! on_every_server {
    ($name:ident) => {
        mod $name {
            on_every_server!(@one $name, http_40, Person);
            on_every_server!(@one $name, ws_373, Person);
            on_every_server!(@one $name, ws_381, Person);
            on_every_server!(@one $name, ws_janusgraph, JanusPerson);
        }
    };
    (@one $name:ident, $server:ident, $sample:ident) => {
        #[tokio::test]
        async fn $server() {
            // One test of this binary at a time (they share the Modern graph).
            let _alone = graphbinary_testkit::exclusive::alone().await;
            super::$name::<super::$sample>(concat!(
                stringify!($name),
                "::",
                stringify!($server)
            ))
            .await;
        }
    };
}

on_every_server!(typed_vertices_read_back_equal);
on_every_server!(upserting_twice_changes_nothing);
on_every_server!(typed_edges_by_key_and_by_id);
on_every_server!(mistakes_are_errors);
on_every_server!(generated_values_read_back_equal);

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

fn janus_person(run: &str, name: &str) -> JanusPerson {
    let p = person(run, name);
    JanusPerson {
        id: None,
        name: p.name,
        run: p.run,
        byte: p.byte,
        short: p.short,
        int: p.int,
        long: p.long,
        float: p.float,
        double: p.double,
        flag: p.flag,
        letter: p.letter,
        uuid: p.uuid,
        born: p.born.with_kind(DateTimeKind::Date),
        at: DateTime {
            nanos: p.born.nanos + 456,
            ..p.born.with_kind(DateTimeKind::Instant)
        },
        dur: p.dur,
        age: p.age,
        nick: p.nick,
        langs: p.langs,
        tags: p.tags,
        cache: p.cache,
    }
}

/// Numbers, a bool and a char: the scalar fields both person types have.
type Scalars = (i8, i16, i32, i64, f32, f64, bool, char);

fn scalars(gen: Gen) -> impl Strategy<Value = Scalars> {
    (
        any::<i8>(),
        any::<i16>(),
        any::<i32>(),
        any::<i64>(),
        float(gen),
        double(),
        any::<bool>(),
        java_char(),
    )
}

/// `age`, `nick` (each absent half the time), `langs` (a list, duplicates kept) and `tags` (a
/// set), 0-3 items each.
type Optional = (Option<i32>, Option<String>, Vec<String>, BTreeSet<i64>);

fn optional() -> impl Strategy<Value = Optional> {
    (
        prop::option::of(any::<i32>()),
        prop::option::of(string()),
        prop::collection::vec(string(), 0..4),
        prop::collection::btree_set(any::<i64>(), 0..4),
    )
}

fn generated_person(gen: Gen) -> BoxedStrategy<Person> {
    let objects = (
        any::<u128>(),
        date_time(gen),
        duration(),
        big_integer(),
        big_decimal(),
        binary(),
        any::<u8>(),
    );
    (scalars(gen), objects, optional())
        .prop_map(|(scalars, objects, (age, nick, langs, tags))| {
            let (byte, short, int, long, float, double, flag, letter) = scalars;
            let (uuid, born, dur, big, dec, bin, cache) = objects;
            Person {
                id: None,
                name: String::new(),
                run: String::new(),
                byte,
                short,
                int,
                long,
                float,
                double,
                flag,
                letter,
                uuid: uuid::Uuid::from_u128(uuid),
                born,
                dur,
                big,
                dec,
                bin: Bytes::from(bin),
                age,
                nick,
                langs,
                tags,
                cache,
            }
        })
        .boxed()
}

/// A JanusPerson's values, as on TinkerPop 3 but for its own dates (`gen` is TinkerPop 3).
fn generated_janus_person(gen: Gen) -> BoxedStrategy<JanusPerson> {
    let objects = (
        any::<u128>(),
        epoch(DateTimeKind::Date),
        epoch(DateTimeKind::Instant),
        duration(),
        any::<u8>(),
    );
    (scalars(gen), objects, optional())
        .prop_map(|(scalars, objects, (age, nick, langs, tags))| {
            let (byte, short, int, long, float, double, flag, letter) = scalars;
            let (uuid, born, at, dur, cache) = objects;
            JanusPerson {
                id: None,
                name: String::new(),
                run: String::new(),
                byte,
                short,
                int,
                long,
                float,
                double,
                flag,
                letter,
                uuid: uuid::Uuid::from_u128(uuid),
                born,
                at,
                dur,
                age,
                nick,
                langs,
                tags,
                cache,
            }
        })
        .boxed()
}

async fn people<S: Sample>(g: &GraphTraversalSource, run: &str) -> Vec<S> {
    let mut v = of_run::<S>(g, run).await;
    v.sort_by(|a, b| a.name().cmp(b.name()));
    v
}

async fn typed_vertices_read_back_equal<S: Sample>(test: &str) {
    on_server(test, "read_back", async |server, g, run| {
        let ada = S::new(run, "ada");
        let bob = S::new(run, "bob").sparse();
        for p in [&ada, &bob] {
            let added = g.add(p).to_list().await.unwrap();
            assert_eq!(added.len(), 1, "{server}: {added:?}");
        }
        let read = people::<S>(g, run).await;
        assert_eq!(read.len(), 2, "{server}: {read:?}");
        assert!(read.iter().all(|p| p.id().is_some()), "{server}: ids read");
        let expected = [ada.as_read(read[0].id()), bob.as_read(read[1].id())];
        assert_eq!(read, expected, "{server}");
    })
    .await;
}

async fn upserting_twice_changes_nothing<S: Sample>(test: &str) {
    on_server(test, "upsert", async |server, g, run| {
        let ada = S::new(run, "ada");
        g.upsert(&ada).iterate().await.unwrap();
        g.upsert(&ada).iterate().await.unwrap();
        let read = people::<S>(g, run).await;
        assert_eq!(read.len(), 1, "{server}: one vertex after two upserts");
        let id = read[0].id();
        assert_eq!(read, [ada.as_read(id.clone())], "{server}");
        // A changed struct updates the same vertex to exactly its properties.
        let ada = ada.changed();
        g.upsert(&ada).iterate().await.unwrap();
        g.upsert(&ada).iterate().await.unwrap();
        let read = people::<S>(g, run).await;
        assert_eq!(read, [ada.as_read(id)], "{server}: updated in place");
    })
    .await;
}

async fn typed_edges_by_key_and_by_id<S: Sample>(test: &str) {
    on_server(test, "edges", async |server, g, run| {
        let (ada, bob) = (S::new(run, "ada"), S::new(run, "bob"));
        g.upsert(&ada).iterate().await.unwrap();
        g.upsert(&bob).iterate().await.unwrap();
        // Ends by key: found by the person's key, the name.
        let knows = S::knows(&ada, &bob, run, 0.5, None);
        g.upsert_edge(&knows).iterate().await.unwrap();
        g.upsert_edge(&knows).iterate().await.unwrap();
        let read = of_run::<S::Knows>(g, run).await;
        assert_eq!(
            read,
            std::slice::from_ref(&knows),
            "{server}: one edge after two upserts"
        );
        let changed = S::knows(&ada, &bob, run, 2.0, Some("n".into()));
        g.upsert_edge(&changed).iterate().await.unwrap();
        let read = of_run::<S::Knows>(g, run).await;
        assert_eq!(read, [changed], "{server}: updated in place");
        // Ends by id; the key `place` tells apart two edges between the same ends.
        let people = people::<S>(g, run).await;
        let (a, b) = (people[0].id().unwrap(), people[1].id().unwrap());
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

async fn mistakes_are_errors<S: Sample>(test: &str) {
    #[derive(Vertex, Debug)]
    #[vertex(label = "gbw_keyless")]
    struct Keyless {
        run: String,
    }
    let Some((server, client)) = server(test).await else {
        return;
    };
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
        .elements::<S>()
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("gbw_person"), "{server}: {text}");
    assert_eq!(S::LABEL, "gbw_person");
}

/// Vertices with generated values per server: a modest number, each one request.
const CASES: usize = 16;

/// `CASES` generated vertices, half added (`addV`) and half upserted (`mergeV`'s `onCreate`
/// map), read back equal: floats compared by their bits, so a NaN must come back a NaN and
/// -0.0 a -0.0 (as the round-trip tests compare them).
async fn generated_values_read_back_equal<S: Sample>(test: &str) {
    on_server(test, "generated", async |server, g, run| {
        let gen = if server == "4.0" { Gen::Tp4 } else { Gen::Tp3 };
        let mut runner = TestRunner::new(Config {
            failure_persistence: None,
            ..Config::default()
        });
        let strategy = S::generated(gen);
        let sent: Vec<S> = (0..CASES)
            .map(|i| {
                let tree = strategy.new_tree(&mut runner).unwrap();
                tree.current().keyed(run, &format!("{i:02}"))
            })
            .collect();
        for (i, p) in sent.iter().enumerate() {
            let t = if i % 2 == 0 { g.add(p) } else { g.upsert(p) };
            if let Err(e) = t.iterate().await {
                panic!("{server}: {p:?}: {e}");
            }
        }
        let read = people::<S>(g, run).await;
        assert_eq!(read.len(), CASES, "{server}: {read:?}");
        for (got, sent) in read.iter().zip(&sent) {
            assert_eq!(got.bits(), sent.as_read(got.id()).bits(), "{server}");
        }
    })
    .await;
}
