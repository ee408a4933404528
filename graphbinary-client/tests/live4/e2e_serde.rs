//! End-to-end: results as user types (serde), straight from a real Gremlin Server's bytes, and
//! `Serialize` values as request parameters (see `gremlin_server` for the URL and skip rule).

use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::results;
use gremlin_server as common;

use std::collections::HashMap;

use futures::TryStreamExt;
use graphbinary_client::client::Error;
use serde::{Deserialize, Serialize};

use common::client;
use results::{bulked, collect_as, Sent};

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Person {
    id: i64,
    name: String,
    age: i32,
}

fn modern_people() -> Vec<Person> {
    let p = |id, name: &str, age| Person {
        id,
        name: name.into(),
        age,
    };
    vec![
        p(1, "marko", 29),
        p(2, "vadas", 27),
        p(4, "josh", 32),
        p(6, "peter", 35),
    ]
}

#[tokio::test]
async fn element_maps_into_structs() {
    let c = graphbinary_testkit::or_skip!(client("element_maps_into_structs").await);
    let q = "g.V().hasLabel('person').order().by(id).elementMap()";
    let people: Vec<Person> = collect_as(c.submit(q)).await;
    assert_eq!(people, modern_people());

    let mut seen = Vec::new();
    c.submit(q)
        .await
        .unwrap()
        .for_each_as(|p: Person| seen.push(p))
        .await
        .unwrap();
    assert_eq!(seen, modern_people());
}

#[tokio::test]
async fn vertices_edges_and_paths_into_structs() {
    let c = graphbinary_testkit::or_skip!(client("vertices_edges_and_paths_into_structs").await);
    #[derive(Debug, Deserialize)]
    struct Prop {
        label: String,
        value: serde_json::Value,
    }
    #[derive(Debug, Deserialize)]
    struct V {
        id: i64,
        label: String,
        properties: Option<Vec<Prop>>,
    }
    let v: Vec<V> = collect_as(
        c.request("g.V(1)")
            .materialize_properties(graphbinary_client::client::MaterializeProperties::All)
            .send(),
    )
    .await;
    assert_eq!(v.len(), 1);
    assert_eq!((v[0].id, v[0].label.as_str()), (1, "person"));
    let props = v[0].properties.as_ref().expect("properties");
    let name = props.iter().find(|p| p.label == "name").expect("name");
    assert_eq!(name.value, "marko");

    #[derive(Debug, Deserialize)]
    struct E {
        label: String,
        in_v_id: i64,
        out_v_id: i64,
    }
    let e: Vec<E> = collect_as(c.submit("g.E(7)")).await;
    assert_eq!(
        (e[0].label.as_str(), e[0].out_v_id, e[0].in_v_id),
        ("knows", 1, 2)
    );

    #[derive(Debug, Deserialize)]
    struct P {
        objects: Vec<String>,
    }
    let paths: Vec<P> =
        collect_as(c.submit("g.V(1).out('knows').order().by(id).path().by('name')")).await;
    assert_eq!(paths[0].objects, ["marko", "vadas"]);
}

#[tokio::test]
async fn groups_and_projections_into_maps() {
    let c = graphbinary_testkit::or_skip!(client("groups_and_projections_into_maps").await);
    let g: Vec<HashMap<String, i64>> = collect_as(c.submit("g.V().groupCount().by(label)")).await;
    assert_eq!(g[0]["person"], 4);
    assert_eq!(g[0]["software"], 2);

    #[derive(Debug, Deserialize)]
    struct Proj {
        name: String,
        out: i64,
    }
    let p: Vec<Proj> =
        collect_as(c.submit("g.V(1).project('name','out').by('name').by(outE().count())")).await;
    assert_eq!((p[0].name.as_str(), p[0].out), ("marko", 3));

    // valueMap: each value is a list.
    #[derive(Debug, Deserialize)]
    struct Vm {
        name: Vec<String>,
        age: Option<Vec<u8>>,
    }
    let vm: Vec<Vm> = collect_as(c.submit("g.V(1,3).order().by(id).valueMap()")).await;
    assert_eq!(vm[0].name, ["marko"]);
    assert_eq!(vm[0].age.as_deref(), Some(&[29u8][..]));
    assert!(vm[1].age.is_none());
}

#[tokio::test]
async fn a_result_that_does_not_fit_is_an_error_naming_the_field() {
    let c = graphbinary_testkit::or_skip!(
        client("a_result_that_does_not_fit_is_an_error_naming_the_field").await
    );
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Wrong {
        age: String,
    }
    let e = c
        .submit("g.V(1).elementMap()")
        .await
        .unwrap()
        .typed::<Wrong>()
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    let Error::Decode(d) = &e else {
        panic!("{e:?}")
    };
    assert!(d.offset() > 2, "{d}");
    assert!(d.to_string().contains("in .age"), "{d}");
    assert!(d.to_string().contains("expected a string"), "{d}");
}

#[tokio::test]
async fn counting_and_bulks() {
    let c = graphbinary_testkit::or_skip!(client("counting_and_bulks").await);
    let n = c
        .submit("g.V().repeat(both()).times(3)")
        .expect_count()
        .await;
    let all = c.submit("g.V().repeat(both()).times(3)").expect_all().await;
    assert_eq!(n, all.len() as u64);
    assert!(n > 10, "{n}");
    let counted = bulked(&c, "g.V().repeat(both()).times(3)")
        .send()
        .expect_count()
        .await;
    assert_eq!(counted, n);
    // Bulked: each result repeated by its bulk, as ResultStream expands them.
    let names: Vec<String> = collect_as(bulked(&c, "g.V().both().values('name')").send()).await;
    assert_eq!(names.len(), 12);
    assert_eq!(names.iter().filter(|n| *n == "marko").count(), 3);
    let mut names2 = Vec::new();
    bulked(&c, "g.V().both().values('name')")
        .send()
        .await
        .unwrap()
        .for_each_as(|n: String| names2.push(n))
        .await
        .unwrap();
    assert_eq!(names2.len(), 12);
}

#[tokio::test]
async fn serialize_types_as_parameters() {
    let c = graphbinary_testkit::or_skip!(client("serialize_types_as_parameters").await);
    // gremlin-lang 4.0.0-beta.3 takes variables in some steps only: mergeV takes a Map. This
    // map matches marko, so nothing is created.
    #[derive(Serialize)]
    struct Match<'a> {
        name: &'a str,
        age: i32,
    }
    let ids: Vec<i64> = c
        .request("g.mergeV(m).id()")
        .param_serialized(
            "m",
            &Match {
                name: "marko",
                age: 29,
            },
        )
        .send()
        .expect_typed::<i64>()
        .await;
    assert_eq!(ids, [1]);
    let n: Vec<u64> = collect_as(
        c.request("g.V().has('name', within(names)).count()")
            .param_serialized("names", &["marko", "josh", "it's \"quoted\""])
            .send(),
    )
    .await;
    assert_eq!(n, [2]);
    // Bytes are a Binary (it matches no name); a Map with a Boolean key has no gremlin-lang
    // form: an error before anything is sent.
    let n: Vec<u64> = collect_as(
        c.request("g.V().has('name', x).count()")
            .param_serialized("x", &serde_bytes_value())
            .send(),
    )
    .await;
    assert_eq!(n, [0]);
    let mut bool_key = std::collections::BTreeMap::new();
    bool_key.insert(true, 1);
    let e = c
        .request("g.V().has('name', x)")
        .param_serialized("x", &bool_key)
        .send()
        .await
        .unwrap_err();
    assert!(matches!(e, Error::InvalidRequest(_)), "{e:?}");
}

fn serde_bytes_value() -> impl Serialize {
    struct B;
    impl Serialize for B {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(b"x")
        }
    }
    B
}
