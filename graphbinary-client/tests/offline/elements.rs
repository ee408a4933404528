//! `#[derive(Vertex)]` / `#[derive(Edge)]` without a server: reading every answer shape
//! (a vertex or edge value with its properties, an `elementMap()`, a `valueMap(true)`), the
//! errors of a wrong answer, and what the writers get.

use std::sync::Arc;

use graphbinary_client::element::{Edge, Element, End, Vertex, Written};
use graphbinary_client::process::Lit;
use graphbinary_client::value::{
    Direction, Edge as EdgeValue, Property, Value, Vertex as VertexValue, VertexProperty, T,
};

#[derive(Vertex, Debug, PartialEq)]
#[vertex(label = "person")]
struct Person {
    #[vertex(id)]
    id: i64,
    #[vertex(key)]
    name: String,
    age: Option<i32>,
    #[vertex(rename = "lang")]
    langs: Vec<String>,
    #[vertex(skip)]
    cache: u8,
}

#[derive(Edge, Debug, PartialEq)]
#[edge(label = "knows")]
struct Knows {
    #[edge(id)]
    id: Value,
    #[edge(out)]
    from: i64,
    #[edge(in)]
    to: i64,
    weight: f64,
}

fn s(x: &str) -> Value {
    Value::String(x.into())
}

fn vp(key: &str, v: Value) -> VertexProperty {
    VertexProperty {
        id: Value::Long(0),
        label: vec![Arc::<str>::from(key)].into(),
        value: v,
        parent: Value::Null(0xfe),
        properties: None,
    }
}

fn marko() -> Person {
    Person {
        id: 1,
        name: "marko".into(),
        age: Some(29),
        langs: vec!["en".into(), "it".into()],
        cache: 0,
    }
}

#[test]
fn a_vertex_value_with_its_properties() {
    let v = Value::Vertex(Box::new(VertexValue {
        id: Value::Long(1),
        label: vec![Arc::<str>::from("person")].into(),
        properties: Some(vec![
            vp("name", s("marko")),
            vp("age", Value::Int(29)),
            vp("lang", s("en")),
            vp("lang", s("it")),
        ]),
    }));
    assert_eq!(Person::from_value(v).unwrap(), marko());
}

#[test]
fn a_value_map_with_tokens() {
    let v = Value::Map(vec![
        (Value::T(T::Id), Value::Long(1)),
        (Value::T(T::Label), s("person")),
        (s("name"), Value::List(vec![s("marko")])),
        (s("age"), Value::List(vec![Value::Int(29)])),
        (s("lang"), Value::List(vec![s("en"), s("it")])),
    ]);
    assert_eq!(Person::from_value(v).unwrap(), marko());
}

#[test]
fn an_absent_property_is_none_and_an_empty_list() {
    let v = Value::Map(vec![
        (Value::T(T::Id), Value::Long(2)),
        (s("name"), Value::List(vec![s("vadas")])),
    ]);
    let p = Person::from_value(v).unwrap();
    assert_eq!((p.age, p.langs.len()), (None, 0));
}

#[test]
fn edges_from_an_edge_value_and_an_element_map() {
    let e = Value::Edge(Box::new(EdgeValue {
        id: Value::Int(7),
        label: vec![Arc::<str>::from("knows")].into(),
        in_v_id: Value::Long(2),
        in_v_label: vec![Arc::<str>::from("person")].into(),
        out_v_id: Value::Long(1),
        out_v_label: vec![Arc::<str>::from("person")].into(),
        parent: Value::Null(0xfe),
        properties: Some(vec![Property {
            key: "weight".into(),
            value: Value::Double(0.5),
            parent: Value::Null(0xfe),
        }]),
    }));
    let want = Knows {
        id: Value::Int(7),
        from: 1,
        to: 2,
        weight: 0.5,
    };
    assert_eq!(Knows::from_value(e).unwrap(), want);
    let end = |id: i64| {
        Value::Map(vec![
            (Value::T(T::Id), Value::Long(id)),
            (Value::T(T::Label), s("person")),
        ])
    };
    let m = Value::Map(vec![
        (Value::T(T::Id), Value::Int(7)),
        (Value::T(T::Label), s("knows")),
        (Value::Direction(Direction::In), end(2)),
        (Value::Direction(Direction::Out), end(1)),
        (s("weight"), Value::Double(0.5)),
    ]);
    assert_eq!(Knows::from_value(m).unwrap(), want);
}

#[test]
fn wrong_answers_are_errors_naming_what() {
    let wrong_label = Value::Map(vec![(Value::T(T::Label), s("software"))]);
    let e = Person::from_value(wrong_label).unwrap_err();
    assert!(
        e.to_string()
            .contains(r#"the label is "software", expected "person""#),
        "{e}"
    );
    let wrong_type = Value::Map(vec![
        (Value::T(T::Id), Value::Long(1)),
        (s("name"), Value::Int(3)),
    ]);
    let e = Person::from_value(wrong_type).unwrap_err();
    assert!(e.to_string().contains("name"), "{e}");
    assert!(e.to_string().contains("to String: found a Int"), "{e}");
    let missing = Value::Map(vec![(Value::T(T::Id), Value::Long(1))]);
    let e = Person::from_value(missing).unwrap_err();
    assert!(e.to_string().contains(r#"property "name": missing"#), "{e}");
    let e = Person::from_value(Value::Long(1)).unwrap_err();
    assert!(e.to_string().contains("expected an element"), "{e}");
    let two = Value::Map(vec![
        (Value::T(T::Id), Value::Long(1)),
        (s("name"), Value::List(vec![s("a"), s("b")])),
    ]);
    let e = Person::from_value(two).unwrap_err();
    assert!(e.to_string().contains("several values"), "{e}");
}

#[test]
fn what_the_writers_get() {
    let w = marko().to_write().unwrap();
    assert_eq!(w.label, "person");
    assert_eq!(w.id, Some(Lit::Long(1)));
    let props: Vec<_> = w
        .props
        .iter()
        .map(|p| (p.name, p.key, p.values.clone()))
        .collect();
    assert_eq!(
        props,
        [
            ("name", true, Written::Single(Lit::from("marko"))),
            ("age", false, Written::Single(Lit::Int(29))),
            (
                "lang",
                false,
                Written::List(vec![Lit::from("en"), Lit::from("it")])
            ),
        ]
    );
    assert_eq!(Person::KEYS, ["name"]);
    let k = Knows {
        id: Value::Null(0xfe),
        from: 1,
        to: 2,
        weight: 0.5,
    }
    .to_write()
    .unwrap();
    assert_eq!(k.id, None, "a null id is no id");
    assert_eq!(
        (k.out_v, k.in_v),
        (Some(End::Id(Lit::Long(1))), Some(End::Id(Lit::Long(2))))
    );
}

/// The fast reader of `GraphTraversal::elements` over `v`'s bytes: `None` when it leaves the
/// answer to the `Value` route, else what it read.
fn fast<E: Element>(v: &Value) -> Option<Result<E, String>> {
    use graphbinary_client::element::__private::FastRead;
    let bytes = v.to_bytes().unwrap();
    let r: FastRead<E> = graphbinary_client::format::de::from_slice(&bytes).ok()?;
    Some(r.into_element().map_err(|e| e.to_string()))
}

#[test]
fn the_fast_reader_reads_as_from_value_or_leaves_it() {
    let end = |id: i64| {
        Value::Map(vec![
            (Value::T(T::Id), Value::Long(id)),
            (Value::T(T::Label), s("person")),
        ])
    };
    let map = |entries: Vec<(Value, Value)>| Value::Map(entries);
    let people = [
        // valueMap(true) and elementMap() shapes: read fast.
        map(vec![
            (Value::T(T::Id), Value::Long(1)),
            (Value::T(T::Label), s("person")),
            (s("name"), Value::List(vec![s("marko")])),
            (s("age"), Value::List(vec![Value::Int(29)])),
            (s("lang"), Value::List(vec![s("en"), s("it")])),
        ]),
        map(vec![
            (Value::T(T::Id), Value::Long(1)),
            (Value::T(T::Label), s("person")),
            (s("name"), s("marko")),
            (s("lang"), s("en")),
            (s("other"), Value::Double(1.5)),
        ]),
        Value::OrderedMap(vec![(s("name"), s("a")), (Value::T(T::Id), Value::Long(3))]),
        // A key twice, a Set, a property named "id" (not the id), a label as a List.
        map(vec![
            (s("id"), Value::Long(9)),
            (Value::T(T::Id), Value::Long(1)),
            (s("lang"), Value::Set(vec![s("en")])),
            (s("lang"), s("fr")),
            (s("name"), s("x")),
            (Value::T(T::Label), Value::List(vec![s("person")])),
        ]),
        // Errors, the same as from_value's.
        map(vec![(Value::T(T::Label), s("software"))]),
        map(vec![
            (Value::T(T::Id), Value::Long(1)),
            (s("name"), Value::Int(3)),
        ]),
        map(vec![(Value::T(T::Id), Value::Long(1))]),
        map(vec![
            (Value::T(T::Id), Value::Long(1)),
            (s("name"), Value::List(vec![s("a"), s("b")])),
        ]),
        map(vec![
            (Value::T(T::Id), Value::Null(0x02)),
            (s("name"), s("a")),
        ]),
        // Left to the Value route.
        Value::Long(1),
        Value::Null(0x0a),
        map(vec![(Value::T(T::Key), s("x")), (s("name"), s("a"))]),
        map(vec![(Value::Int(1), s("x"))]),
        map(vec![(s("~edge"), end(1))]),
        map(vec![(Value::T(T::Label), Value::Int(1))]),
    ];
    let mut taken = 0;
    for v in &people {
        let want = Person::from_value(v.clone()).map_err(|e| e.to_string());
        if let Some(got) = fast::<Person>(v) {
            assert_eq!(got, want, "{v:?}");
            taken += 1;
        }
    }
    assert_eq!(taken, 9, "the maps of people[..9] are read fast");
    for left in &people[9..] {
        assert!(fast::<Person>(left).is_none(), "{left:?}");
    }
    let vertex = Value::Vertex(Box::new(VertexValue {
        id: Value::Long(1),
        label: vec![Arc::<str>::from("person")].into(),
        properties: Some(vec![vp("name", s("marko"))]),
    }));
    assert!(fast::<Person>(&vertex).is_none(), "a Vertex value");
    // An edge's elementMap(), its ends by Direction; Direction.BOTH is not an end.
    let knows = map(vec![
        (Value::T(T::Id), Value::Int(7)),
        (Value::T(T::Label), s("knows")),
        (Value::Direction(Direction::In), end(2)),
        (Value::Direction(Direction::Out), end(1)),
        (s("weight"), Value::Double(0.5)),
    ]);
    let want = Knows::from_value(knows.clone()).map_err(|e| e.to_string());
    assert_eq!(fast::<Knows>(&knows), Some(want));
    let no_in = map(vec![
        (Value::Direction(Direction::Out), end(1)),
        (s("weight"), Value::Double(0.5)),
    ]);
    let want = Knows::from_value(no_in.clone()).map_err(|e| e.to_string());
    assert_eq!(fast::<Knows>(&no_in), Some(want));
    let both = map(vec![(Value::Direction(Direction::Both), end(1))]);
    assert!(fast::<Knows>(&both).is_none());
}
