//! The traversal API's GremlinLang text, per step family and literal type, compared with the
//! text the official GLVs write; parameters, literal-only mode, and build errors.

use graphbinary_testkit::strings;

use std::collections::{BTreeMap, BTreeSet};

use graphbinary_client::process::*;
use graphbinary_client::value::{BigDecimal, BigInteger, DateTime, Duration, Tree, Value, Vertex};
use proptest::prelude::{prop_assert_eq, proptest, ProptestConfig};
use strings::hostile_string;

fn g() -> GraphTraversalSource {
    GraphTraversalSource::detached()
}

fn text(t: &GraphTraversal) -> String {
    t.gremlin_lang().unwrap_or_else(|e| panic!("{e}")).gremlin
}

fn err(t: &GraphTraversal) -> String {
    match t.gremlin_lang() {
        Ok(l) => panic!("expected an error, got {}", l.gremlin),
        Err(e) => e.to_string(),
    }
}

fn lit(l: impl Into<Lit>) -> String {
    l.into().to_gremlin().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Literals

#[test]
fn numbers_carry_the_suffix_of_their_type() {
    assert_eq!(lit(1), "1");
    assert_eq!(lit(-2147483648i32), "-2147483648");
    assert_eq!(lit(1i64), "1L");
    assert_eq!(lit(i64::MIN), "-9223372036854775808L");
    assert_eq!(lit(1i16), "1S");
    assert_eq!(lit(-1i8), "-1B");
    assert_eq!(lit(BigInteger::from_bytes(vec![0x01, 0x00])), "256N");
    assert_eq!(lit(1.0f64), "1.0D");
    assert_eq!(lit(0.1f64), "0.1D");
    assert_eq!(lit(1e300f64), "1e300D");
    assert_eq!(lit(-2.5e-7f64), "-2.5e-7D");
    assert_eq!(lit(1.0f32), "1.0F");
    assert_eq!(lit(0.1f32), "0.1F");
    assert_eq!(lit(f64::NAN), "NaN");
    assert_eq!(lit(f64::INFINITY), "+Infinity");
    // A Float NaN or Infinity has none: gremlin-lang's are Doubles.
    for f in [f32::NEG_INFINITY, f32::INFINITY, f32::NAN] {
        let e = Lit::from(f).to_gremlin().unwrap_err();
        assert!(e.contains("has no gremlin-lang literal"), "{e}");
    }
    let d = BigDecimal {
        scale: 2,
        unscaled: BigInteger::from_bytes(vec![0x04, 0xd2]),
    };
    assert_eq!(lit(d), "12.34M");
}

#[test]
fn strings_are_double_quoted_and_escaped() {
    assert_eq!(lit("marko"), r#""marko""#);
    assert_eq!(lit(""), r#""""#);
    assert_eq!(lit(r#"a"b\c"#), r#""a\"b\\c""#);
    assert_eq!(lit("it's $x"), r#""it's $x""#);
    assert_eq!(lit("l1\nl2\r\t\u{8}\u{c}"), r#""l1\nl2\r\t\b\f""#);
    assert_eq!(
        lit("\u{0}\u{1f}\u{7f}\u{85}"),
        r#""\u0000\u001f\u007f\u0085""#
    );
    assert_eq!(lit("héllo ☃ 𝄞"), "\"héllo ☃ 𝄞\"");
    // A hostile value cannot end its literal.
    assert_eq!(lit(r#"").drop().V("#), r#""\").drop().V(""#);
    assert_eq!(string_literal("x\"y"), r#""x\"y""#);
}

#[test]
fn other_scalars() {
    assert_eq!(lit(true), "true");
    assert_eq!(lit(None::<i32>), "null");
    assert_eq!(lit('x'), r#""x"c"#);
    assert_eq!(lit('"'), r#""\""c"#);
    assert_eq!(
        lit(uuid::Uuid::from_u128(
            0x41d2e28a_20a4_4ab0_b379_d810dede3786
        )),
        r#"UUID("41d2e28a-20a4-4ab0-b379-d810dede3786")"#
    );
    let dt = DateTime {
        year: 2024,
        month: 1,
        day: 2,
        nanos: 3_600_000_000_000 + 5_000_000,
        offset_seconds: 0,
        kind: Default::default(),
    };
    assert_eq!(lit(dt), r#"datetime("2024-01-02T01:00:00.005Z")"#);
    assert_eq!(
        lit(Duration {
            seconds: 5,
            nanos: 3
        }),
        "Duration(5,3)"
    );
    assert_eq!(
        lit(Duration {
            seconds: -6,
            nanos: 999_999_997
        }),
        "Duration(5,3,false)"
    );
    assert_eq!(lit(Lit::binary(*b"foo")), r#"Binary("Zm9v")"#);
    assert_eq!(lit(bytes::Bytes::from_static(b"fo")), r#"Binary("Zm8=")"#);
}

#[test]
fn collections() {
    assert_eq!(lit(vec![1, 2]), "[1,2]");
    assert_eq!(lit(Vec::<i32>::new()), "[]");
    assert_eq!(lit(Lit::set(["a", "b"])), r#"{"a","b"}"#);
    assert_eq!(lit(BTreeSet::from([3i64, 1])), "{1L,3L}");
    assert_eq!(lit(Lit::map(Vec::<(Lit, Lit)>::new())), "[:]");
    assert_eq!(
        lit(BTreeMap::from([("age", 29), ("k", 1)])),
        r#"["age":29,"k":1]"#
    );
    assert_eq!(
        lit(Lit::map([
            (Lit::from(T::Label), Lit::from("person")),
            (Lit::from(Direction::Out), Lit::from(1)),
            (Lit::from(7i64), Lit::list([Lit::Null])),
            (Lit::list([1]), Lit::map([("x", true)])),
        ])),
        r#"[(T.label):"person",(Direction.OUT):1,(7L):[null],([1]):["x":true]]"#
    );
    assert_eq!(
        lit(Lit::cardinality(Cardinality::List, "x")),
        r#"Cardinality.list("x")"#
    );
}

#[test]
fn tokens_are_written_with_their_class() {
    let all: Vec<String> = [
        Lit::from(T::Id),
        Order::Desc.into(),
        Scope::Local.into(),
        Column::Keys.into(),
        Direction::Both.into(),
        Cardinality::Set.into(),
        Pop::Mixed.into(),
        Operator::SumLong.into(),
        Merge::OnCreate.into(),
        Pick::Unproductive.into(),
        DT::Minute.into(),
        GType::VProperty.into(),
        Barrier::NormSack.into(),
        WithOptions::Tokens.into(),
        IO::Graphson.into(),
        ConnectedComponent::PropertyName.into(),
        PageRank::Times.into(),
        PeerPressure::Edges.into(),
        ShortestPath::MaxDistance.into(),
    ]
    .into_iter()
    .map(|l| l.to_gremlin().unwrap())
    .collect();
    assert_eq!(
        all,
        [
            "T.id",
            "Order.desc",
            "Scope.local",
            "Column.keys",
            "Direction.BOTH",
            "Cardinality.set",
            "Pop.mixed",
            "Operator.sumLong",
            "Merge.onCreate",
            "Pick.unproductive",
            "DT.minute",
            "GType.VPROPERTY",
            "Barrier.normSack",
            "WithOptions.tokens",
            "IO.graphson",
            "ConnectedComponent.propertyName",
            "PageRank.times",
            "PeerPressure.edges",
            "ShortestPath.maxDistance",
        ]
    );
    assert_eq!(GType::ALL.len(), 27);
    assert_eq!(Operator::ALL.len(), 11);
}

#[test]
fn values_from_results_become_literals() {
    let v = Value::Vertex(Box::new(Vertex {
        id: Value::Int(1),
        label: Default::default(),
        properties: None,
    }));
    assert_eq!(text(&g().v(value_arg(v))), "g.V(1)");
    assert_eq!(
        Lit::try_from(Value::List(vec![Value::Long(2), Value::String("a".into())])).unwrap(),
        Lit::list([Lit::Long(2), Lit::from("a")])
    );
    let e = err(&g().v(value_arg(Value::Tree(Tree(Vec::new())))));
    assert!(e.contains("has no gremlin-lang literal"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Step families

#[test]
fn start_steps_and_navigation() {
    assert_eq!(text(&g().v(())), "g.V()");
    assert_eq!(text(&g().v([1, 2])), "g.V(1,2)");
    assert_eq!(text(&g().e(7i64)), "g.E(7L)");
    assert_eq!(
        text(&g().v(()).out("knows").in_(()).both(["a", "b"])),
        r#"g.V().out("knows").in().both("a","b")"#
    );
    assert_eq!(
        text(
            &g().v(())
                .out_e(())
                .in_v()
                .in_e("x")
                .out_v()
                .both_e(())
                .other_v()
                .both_v()
        ),
        r#"g.V().outE().inV().inE("x").outV().bothE().otherV().bothV()"#
    );
    assert_eq!(text(&g().v(()).out(None::<&str>)), "g.V().out(null)");
    assert_eq!(text(&g().inject((1, "a", 2.5))), r#"g.inject(1,"a",2.5D)"#);
    assert_eq!(text(&g().inject((vec![1, 2],))), "g.inject([1,2])");
    assert_eq!(
        text(&g().union((__::v(()), __::e(())))),
        "g.union(__.V(),__.E())"
    );
    assert_eq!(text(&g().call(())), "g.call()");
    assert_eq!(
        text(&g().io("data.json").read()),
        r#"g.io("data.json").read()"#
    );
}

#[test]
fn filters_and_predicates() {
    assert_eq!(
        text(&g().v(()).has(("person", "name", "marko"))),
        r#"g.V().has("person","name","marko")"#
    );
    assert_eq!(text(&g().v(()).has("name")), r#"g.V().has("name")"#);
    assert_eq!(text(&g().v(()).has((T::Id, 1))), "g.V().has(T.id,1)");
    assert_eq!(
        text(&g().v(()).has(("age", P::gt(30)))),
        r#"g.V().has("age",gt(30))"#
    );
    assert_eq!(
        text(&g().v(()).has_label(("person", "software"))),
        r#"g.V().hasLabel("person","software")"#
    );
    assert_eq!(
        text(
            &g().v(())
                .has_not("age")
                .has_key("name")
                .has_id((1, 2))
                .has_value("x")
        ),
        r#"g.V().hasNot("age").hasKey("name").hasId(1,2).hasValue("x")"#
    );
    let ps: Vec<String> = [
        P::eq(1),
        P::neq("a"),
        P::lt(1),
        P::lte(2i64),
        P::gt(1.5),
        P::gte(0),
        P::inside(1, 5),
        P::outside(1, 5),
        P::between(1, 5),
        P::type_of(GType::String),
        P::within(["a", "b"]),
        P::within(()),
        P::within("a"),
        P::within((Lit::list([1, 2]),)),
        P::without([1, 2]),
        P::not(P::eq(1)),
        P::gt(1).and(P::lt(3)),
        P::lt(1).or(P::gt(3).and(P::neq(5))),
        P::eq(1).negate(),
        TextP::containing("a"),
        TextP::not_containing("a"),
        TextP::starting_with("a"),
        TextP::not_starting_with("a"),
        TextP::ending_with("a"),
        TextP::not_ending_with("a"),
        TextP::regex("^a.*"),
        TextP::not_regex("b"),
        P::eq(__::values("x")),
    ]
    .into_iter()
    .map(|p| {
        let t = text(&g().v(()).is(p));
        t.strip_prefix("g.V().is(")
            .and_then(|t| t.strip_suffix(')'))
            .unwrap()
            .to_owned()
    })
    .collect();
    assert_eq!(
        ps,
        [
            "eq(1)",
            r#"neq("a")"#,
            "lt(1)",
            "lte(2L)",
            "gt(1.5D)",
            "gte(0)",
            "inside(1,5)",
            "outside(1,5)",
            "between(1,5)",
            "typeOf(GType.STRING)",
            r#"within(["a","b"])"#,
            "within([])",
            r#"within(["a"])"#,
            "within([1,2])",
            "without([1,2])",
            "not(eq(1))",
            "gt(1).and(lt(3))",
            "lt(1).or(gt(3).and(neq(5)))",
            "eq(1).negate()",
            r#"containing("a")"#,
            r#"notContaining("a")"#,
            r#"startingWith("a")"#,
            r#"notStartingWith("a")"#,
            r#"endingWith("a")"#,
            r#"notEndingWith("a")"#,
            r#"regex("^a.*")"#,
            r#"notRegex("b")"#,
            r#"eq(__.values("x"))"#,
        ]
    );
    assert_eq!(
        text(
            &g().v(())
                .where_(("a", P::eq("b")))
                .filter(__::out(()))
                .not(__::in_(()))
        ),
        r#"g.V().where("a",eq("b")).filter(__.out()).not(__.in())"#
    );
    assert_eq!(
        text(
            &g().v(())
                .dedup(())
                .simple_path()
                .cyclic_path()
                .coin(0.5)
                .limit(2)
                .range((1, 3))
        ),
        "g.V().dedup().simplePath().cyclicPath().coin(0.5D).limit(2).range(1,3)"
    );
    assert_eq!(
        text(
            &g().v(())
                .limit((Scope::Local, 2))
                .tail(())
                .skip(1i64)
                .sample(3)
        ),
        "g.V().limit(Scope.local,2).tail().skip(1L).sample(3)"
    );
}

#[test]
fn maps_projections_and_modulators() {
    assert_eq!(
        text(
            &g().v(())
                .value_map(true)
                .element_map(["name"])
                .property_map(())
                .values(["name", "age"])
        ),
        r#"g.V().valueMap(true).elementMap("name").propertyMap().values("name","age")"#
    );
    assert_eq!(
        text(
            &g().v(())
                .project(("a", "b"))
                .by(T::Label)
                .by(("age", Order::Desc))
                .by(())
                .by(__::out(()).count(()))
                .select(Column::Values)
        ),
        r#"g.V().project("a","b").by(T.label).by("age",Order.desc).by().by(__.out().count()).select(Column.values)"#
    );
    assert_eq!(
        text(
            &g().v(())
                .as_("a")
                .out(())
                .as_(("b", "c"))
                .select(("a", "b"))
                .select((Pop::Last, "a"))
        ),
        r#"g.V().as("a").out().as("b","c").select("a","b").select(Pop.last,"a")"#
    );
    assert_eq!(
        text(
            &g().v(())
                .group(())
                .by(T::Label)
                .by(__::count(()))
                .group_count("x")
                .cap("x")
        ),
        r#"g.V().group().by(T.label).by(__.count()).groupCount("x").cap("x")"#
    );
    assert_eq!(
        text(
            &g().v(())
                .order(Scope::Local)
                .by((T::Id, Order::Shuffle))
                .fold(())
                .unfold()
        ),
        "g.V().order(Scope.local).by(T.id,Order.shuffle).fold().unfold()"
    );
    assert_eq!(
        text(
            &g().inject(1)
                .fold((0, Operator::Sum))
                .sack(Operator::Mult)
                .sack(())
        ),
        "g.inject(1).fold(0,Operator.sum).sack(Operator.mult).sack()"
    );
    assert_eq!(
        text(
            &g().v(())
                .value_map(())
                .with(WithOptions::Tokens)
                .with((WithOptions::Tokens, WithOptions::Labels))
                .with(("x", 1))
        ),
        "g.V().valueMap().with(WithOptions.tokens).with(WithOptions.tokens,WithOptions.labels).with(\"x\",1)"
    );
    assert_eq!(
        text(
            &g().v(())
                .values("name")
                .to_upper(())
                .substring((1, 3))
                .replace(("a", "b"))
                .split((Scope::Local, ","))
                .length(())
        ),
        r#"g.V().values("name").toUpper().substring(1,3).replace("a","b").split(Scope.local,",").length()"#
    );
}

#[test]
fn strings_numbers_dates() {
    assert_eq!(
        text(
            &g().inject("a")
                .concat(("b", "c"))
                .format("%{x}")
                .as_string(())
                .trim(())
                .l_trim(())
                .r_trim(())
                .to_lower(())
                .reverse()
        ),
        r#"g.inject("a").concat("b","c").format("%{x}").asString().trim().lTrim().rTrim().toLower().reverse()"#
    );
    assert_eq!(
        text(
            &g().inject("1")
                .as_number(GType::Int)
                .math("_ + 1")
                .as_bool()
                .as_date()
        ),
        r#"g.inject("1").asNumber(GType.INT).math("_ + 1").asBool().asDate()"#
    );
    assert_eq!(
        text(
            &g().inject(1)
                .date_add(DT::Day, 3)
                .date_diff(__::constant(1))
        ),
        "g.inject(1).dateAdd(DT.day,3).dateDiff(__.constant(1))"
    );
    assert_eq!(
        text(
            &g().inject((vec![1],))
                .combine(vec![2])
                .merge(vec![3])
                .difference(vec![1])
                .disjunct(vec![1])
                .intersect(vec![1])
                .product(vec![1])
                .conjoin("-")
        ),
        r#"g.inject([1]).combine([2]).merge([3]).difference([1]).disjunct([1]).intersect([1]).product([1]).conjoin("-")"#
    );
    assert_eq!(
        text(
            &g().v(())
                .sum(())
                .max(Scope::Local)
                .min(())
                .mean(())
                .count(Scope::Global)
        ),
        "g.V().sum().max(Scope.local).min().mean().count(Scope.global)"
    );
}

#[test]
fn branching_and_looping() {
    assert_eq!(
        text(
            &g().v(1)
                .repeat(__::out(()))
                .times(2)
                .emit(())
                .until(__::has_label("x"))
                .path()
        ),
        r#"g.V(1).repeat(__.out()).times(2).emit().until(__.hasLabel("x")).path()"#
    );
    assert_eq!(
        text(&g().v(()).repeat(("a", __::out(()))).loops("a")),
        r#"g.V().repeat("a",__.out()).loops("a")"#
    );
    assert_eq!(
        text(&g().v(()).choose((
            __::has_label("person"),
            __::values("name"),
            __::constant("x")
        ))),
        r#"g.V().choose(__.hasLabel("person"),__.values("name"),__.constant("x"))"#
    );
    assert_eq!(
        text(
            &g().v(())
                .choose(__::label())
                .option(("person", __::values("name")))
                .option((Pick::None, __::constant(0)))
        ),
        r#"g.V().choose(__.label()).option("person",__.values("name")).option(Pick.none,__.constant(0))"#
    );
    assert_eq!(
        text(&g().v(()).coalesce((__::out(()), __::identity())).union(()).optional(__::out(())).local(__::count(())).branch(__::label()).flat_map(__::out(())).map(__::id()).side_effect(__::drop())),
        "g.V().coalesce(__.out(),__.identity()).union().optional(__.out()).local(__.count()).branch(__.label()).flatMap(__.out()).map(__.id()).sideEffect(__.drop())"
    );
    assert_eq!(
        text(&g().v(()).and((__::out(()), __::in_(()))).or(__::out(()))),
        "g.V().and(__.out(),__.in()).or(__.out())"
    );
    assert_eq!(
        text(
            &g().v(())
                .match_((__::as_("a").out(()).as_("b"),))
                .select("b")
        ),
        r#"g.V().match(__.as("a").out().as("b")).select("b")"#
    );
}

#[test]
fn mutations() {
    assert_eq!(
        text(&g().add_v("person").property(("name", "x")).property((
            Cardinality::List,
            "a",
            1,
            "meta",
            2
        ))),
        r#"g.addV("person").property("name","x").property(Cardinality.list,"a",1,"meta",2)"#
    );
    assert_eq!(
        text(
            &g().v(1)
                .add_e("knows")
                .to(__::v(2))
                .from("a")
                .property(("w", 0.5))
        ),
        r#"g.V(1).addE("knows").to(__.V(2)).from("a").property("w",0.5D)"#
    );
    assert_eq!(
        text(&g().add_e("x").from(__::v(1)).to((Direction::In,))),
        r#"g.addE("x").from(__.V(1)).to(Direction.IN)"#
    );
}

#[test]
fn merge_steps() {
    let m = Lit::map([
        (Lit::from(T::Label), Lit::from("person")),
        ("name".into(), "a".into()),
    ]);
    assert_eq!(
        text(
            &g().merge_v(m.clone())
                .option((Merge::OnCreate, m.clone()))
                .option((Merge::OnMatch, Lit::Null))
        ),
        r#"g.mergeV([(T.label):"person","name":"a"]).option(Merge.onCreate,[(T.label):"person","name":"a"]).option(Merge.onMatch,null)"#
    );
    assert_eq!(
        text(&g().merge_e(Lit::map([
            (Lit::from(Direction::Out), 1),
            (Lit::from(Direction::In), 2)
        ]))),
        "g.mergeE([(Direction.OUT):1,(Direction.IN):2])"
    );
    assert_eq!(
        text(&g().v(()).merge_v(()).merge_e(__::identity())),
        "g.V().mergeV().mergeE(__.identity())"
    );
}

#[test]
fn source_methods_and_strategies() {
    let s = g()
        .with_bulk(false)
        .with_path()
        .with_sack((1.0, Operator::Sum))
        .with_side_effect(("a", vec!["x"]))
        .with_strategies((
            Strategy::new("SubgraphStrategy")
                .config("vertices", __::has_label("person"))
                .config("checkAdjacentVertices", false),
            Strategy::new("ReadOnlyStrategy"),
        ))
        .without_strategies((
            Strategy::new("LazyBarrierStrategy"),
            Strategy::new("PathRetractionStrategy"),
        ));
    assert_eq!(
        text(&s.v(())),
        concat!(
            r#"g.withBulk(false).withPath().withSack(1.0D,Operator.sum).withSideEffect("a",["x"])"#,
            r#".withStrategies(new SubgraphStrategy(vertices:__.hasLabel("person"),checkAdjacentVertices:false),ReadOnlyStrategy)"#,
            ".withoutStrategies(LazyBarrierStrategy,PathRetractionStrategy).V()"
        )
    );
    // OptionsStrategy is not written: it becomes request options.
    let o = g().with_strategies((Strategy::new("OptionsStrategy").config("batchSize", 7),));
    assert_eq!(text(&o.v(())), "g.V()");
    assert_eq!(o.options(), &[("batchSize".to_owned(), Lit::Int(7))]);
    let w = g()
        .with("evaluationTimeout", 10i64)
        .with("evaluationTimeout", 20i64);
    assert_eq!(
        w.options(),
        &[("evaluationTimeout".to_owned(), Lit::Long(20))]
    );
    assert_eq!(text(&w.v(())), "g.V()");
    // Any other key is the grammar's source `with`, written so that it reaches the traversal.
    let m = g().with("singlelabel", true).with("batchSize", 2);
    assert_eq!(text(&m.v(())), r#"g.with("singlelabel",true).V()"#);
    assert_eq!(m.options().len(), 2);
}

#[test]
fn analytics_and_io() {
    assert_eq!(
        text(
            &g().v(())
                .page_rank(())
                .with((PageRank::PropertyName, "r"))
                .peer_pressure()
                .connected_component()
                .shortest_path()
                .with((ShortestPath::MaxDistance, 3))
        ),
        r#"g.V().pageRank().with(PageRank.propertyName,"r").peerPressure().connectedComponent().shortestPath().with(ShortestPath.maxDistance,3)"#
    );
    assert_eq!(
        text(&g().io("x.xml").with((IO::Reader, IO::Graphml)).read()),
        r#"g.io("x.xml").with(IO.reader,IO.graphml).read()"#
    );
    assert_eq!(
        text(
            &g().v(())
                .profile(())
                .barrier(())
                .barrier(Barrier::NormSack)
                .time_limit(10)
                .tree(())
                .subgraph("sg")
                .index()
                .element()
                .key()
                .value()
                .label()
                .id()
                .labels()
                .drop_labels()
                .add_label("a")
                .drop_label(("a", "b"))
                .discard()
                .fail("why")
        ),
        r#"g.V().profile().barrier().barrier(Barrier.normSack).timeLimit(10).tree().subgraph("sg").index().element().key().value().label().id().labels().dropLabels().addLabel("a").dropLabel("a","b").discard().fail("why")"#
    );
}

// ---------------------------------------------------------------------------------------------
// Parameters

#[test]
fn parameters_are_named_and_collected() {
    let t = g()
        .v(GValue::new("vid", 1))
        .has(("person", "name", GValue::new("n", "marko")))
        .has(("age", P::gt(GValue::new("a", 20))))
        .limit(GValue::new("lim", 2i64))
        .where_(__::has(("name", GValue::new("n", "marko"))));
    let l = t.gremlin_lang().unwrap();
    assert_eq!(
        l.gremlin,
        r#"g.V(vid).has("person","name",n).has("age",gt(a)).limit(lim).where(__.has("name",n))"#
    );
    assert_eq!(
        l.parameters_text().unwrap(),
        r#"[vid:1,n:"marko",a:20,lim:2L]"#
    );
}

#[test]
fn a_parameter_where_the_grammar_allows_no_variable_is_written_in_place() {
    // inject takes genericLiteral: gremlin-lang rejects a variable there.
    let l = g().inject(GValue::new("x", "a\"b")).gremlin_lang().unwrap();
    assert_eq!(l.gremlin, r#"g.inject("a\"b")"#);
    assert!(l.parameters.is_empty());
    // Inside a within() with a parameter, the values are written flat (a list literal cannot
    // hold variables).
    let l = g()
        .v(())
        .has(("name", P::within((GValue::new("x", "a"), "b"))))
        .gremlin_lang()
        .unwrap();
    assert_eq!(l.gremlin, r#"g.V().has("name",within(x,"b"))"#);
}

#[test]
fn literal_only_mode_writes_every_parameter_in_place() {
    let t = g()
        .literal_only(true)
        .v(GValue::new("vid", 1))
        .has(("name", GValue::new("n", "marko")))
        .has(("name", P::within((GValue::new("x", "a"), "b"))));
    let l = t.gremlin_lang().unwrap();
    assert_eq!(
        l.gremlin,
        r#"g.V(1).has("name","marko").has("name",within(["a","b"]))"#
    );
    assert!(l.parameters.is_empty());
    assert_eq!(l.parameters_text().unwrap(), "[:]");
}

#[test]
fn bad_parameters_are_errors() {
    for name in [
        "id",
        "label",
        "values",
        "g",
        "__",
        "_x",
        "1a",
        "a-b",
        "",
        "ñ",
        "with space",
    ] {
        let e = err(&g().v(GValue::new(name, 1)));
        assert!(e.contains("parameter name"), "{name}: {e}");
    }
    assert!(is_keyword("hasLabel") && is_keyword("T") && !is_keyword("who"));
    let e = err(&g().v(GValue::new("x", 1)).has(("a", GValue::new("x", 2))));
    assert!(
        e.contains(r#"parameter "x" is bound to two different values"#),
        "{e}"
    );
    // The same name with the same value is one parameter.
    let l = g()
        .v(GValue::new("x", 1))
        .has(("a", GValue::new("x", 1)))
        .gremlin_lang()
        .unwrap();
    assert_eq!(l.parameters.len(), 1);
    // A parameter of the wrong type for its position fits no form.
    let e = err(&g().v(()).limit(GValue::new("n", "ten")));
    assert!(e.contains("limit(parameter n) matches no form"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Build errors (never a panic, never a malformed script)

#[test]
fn arguments_that_fit_no_form_are_errors() {
    let cases: Vec<(GraphTraversal, &str)> = vec![
        (
            g().v(()).limit("ten"),
            "limit(String) matches no form of the grammar (limit(Scope, int$) | limit(int$))",
        ),
        (g().v(()).has(()), "has() matches no form"),
        (g().v(()).has((1, 2)), "has(Int, Int) matches no form"),
        (g().v(()).out(1), "out(Int) matches no form"),
        (
            g().v(()).by((Order::Asc, Order::Desc)),
            "by(Order.asc, Order.desc) matches no form",
        ),
        (g().v(()).times("x"), "times(String) matches no form"),
        (
            g().v(()).is(Scope::Local),
            "is(Scope.local) matches no form",
        ),
        (
            g().v(()).aggregate(None::<&str>),
            "aggregate(null) matches no form",
        ),
        (
            g().v(()).date_add(DT::Day, 1.5),
            "dateAdd(DT.day, Double) matches no form",
        ),
        (
            g().v(()).with(Order::Asc),
            "with(Order.asc) matches no form",
        ),
        (
            g().v(()).has(("a", P::between(1, Scope::Local))),
            "between(Int, Scope.local) matches no form",
        ),
    ];
    for (t, want) in cases {
        let e = err(&t);
        assert!(e.contains(want), "want {want:?} in {e}");
    }
}

#[test]
fn child_traversals_must_be_anonymous_and_non_empty() {
    let e = err(&g().v(()).where_(g().v(())));
    assert!(e.contains("child traversal must be anonymous"), "{e}");
    let e = err(&g().v(()).local(GraphTraversal::anonymous()));
    assert!(e.contains("needs at least one step"), "{e}");
    assert!(__::out(()).gremlin_lang().is_err());
    // An error in a child is reported by the parent.
    let e = err(&g().v(()).local(__::limit("x")));
    assert!(e.contains("limit(String)"), "{e}");
}

#[test]
fn unwritable_literals_are_errors() {
    let e = err(&g().inject('𝄞'));
    assert!(e.contains("outside the BMP"), "{e}");
    let e = err(&g().inject(Lit::map([(true, 1)])));
    assert!(e.contains("a map key must be"), "{e}");
    let e = err(&g().with_strategies((Strategy::new("Bad Name"),)).v(()));
    assert!(e.contains("strategy name"), "{e}");
    let e = err(&g()
        .with_strategies((Strategy::new("S").config("a b", 1),))
        .v(()));
    assert!(e.contains("configuration key"), "{e}");
    let e = err(&g().inject(DateTime {
        year: 2024,
        month: 13,
        day: 1,
        nanos: 0,
        offset_seconds: 0,
        kind: Default::default(),
    }));
    assert!(e.contains("invalid DateTime"), "{e}");
}

#[test]
fn the_step_table_maps_gremlin_names_one_to_one() {
    assert_eq!(STEPS.len(), 6 + 11 + 139 + 21);
    let mut seen = std::collections::HashSet::new();
    for s in STEPS.iter() {
        assert!(seen.insert((s.on, s.rust)), "duplicate {:?}", s);
        assert!(is_keyword(s.gremlin), "{}", s.gremlin);
    }
    let find = |g: &str| {
        STEPS
            .iter()
            .find(|s| s.gremlin == g && s.on == StepOn::Step)
            .unwrap()
            .rust
    };
    assert_eq!(find("hasLabel"), "has_label");
    assert_eq!(find("as"), "as_");
    assert_eq!(find("in"), "in_");
    assert_eq!(find("outE"), "out_e");
    assert_eq!(find("V"), "v");
}

// ---------------------------------------------------------------------------------------------
// Escaping, checked against an independent reading of the grammar's string rules.

/// Reads a gremlin-lang double-quoted string literal at the start of `s` as the grammar
/// defines it (the escapes of `EscapeSequence`); returns the value and the rest of the text.
fn read_string_literal(s: &str) -> Option<(String, &str)> {
    let mut chars = s.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    let mut out = String::new();
    let mut units: Vec<u16> = Vec::new();
    let flush = |units: &mut Vec<u16>, out: &mut String| {
        out.push_str(&String::from_utf16(units).ok()?);
        units.clear();
        Some(())
    };
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                flush(&mut units, &mut out)?;
                return Some((out, &s[i + 1..]));
            }
            '\\' => {
                let (_, e) = chars.next()?;
                let simple = match e {
                    'n' => Some('\n'),
                    'r' => Some('\r'),
                    't' => Some('\t'),
                    'b' => Some('\u{8}'),
                    'f' => Some('\u{c}'),
                    '"' => Some('"'),
                    '\'' => Some('\''),
                    '\\' => Some('\\'),
                    _ => None,
                };
                if let Some(c) = simple {
                    flush(&mut units, &mut out)?;
                    out.push(c);
                } else if e == 'u' {
                    let hex: String = (0..4)
                        .map(|_| chars.next().map(|x| x.1))
                        .collect::<Option<_>>()?;
                    units.push(u16::from_str_radix(&hex, 16).ok()?);
                } else {
                    return None;
                }
            }
            c => {
                flush(&mut units, &mut out)?;
                out.push(c);
            }
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn every_string_literal_reads_back_and_ends_at_its_quote(s in hostile_string(24)) {
        let script = text(&g().inject(s.as_str()).constant("end"));
        let body = script.strip_prefix("g.inject(").unwrap();
        let (read, rest) = read_string_literal(body).expect("a well-formed literal");
        prop_assert_eq!(&read, &s);
        prop_assert_eq!(rest, r#").constant("end")"#);
    }
}

#[test]
fn steps_by_gremlin_name_match_the_generated_methods() {
    let by_name = g()
        .source_step("withPath", ())
        .spawn_step("V", ())
        .step("has", ("person", "name", "marko"))
        .step("outE", "knows")
        .step(
            "where",
            __::in_v().step("has", ("age", P::by_name("gt", 30))),
        );
    let generated = g()
        .with_path()
        .v(())
        .has(("person", "name", "marko"))
        .out_e("knows")
        .where_(__::in_v().has(("age", P::gt(30))));
    assert_eq!(text(&by_name), text(&generated));
    let e = err(&g().v(()).step("nope", ()));
    assert!(e.contains(r#"no Step method named "nope""#), "{e}");
    let e = err(&g().spawn_step("has", ()));
    assert!(e.contains(r#"no Spawn method named "has""#), "{e}");
    let e = err(&g().v(()).is(P::by_name("nope", 1)));
    assert!(e.contains(r#"no Predicate method named "nope""#), "{e}");
    let e = err(&g().source_step("V", ()).v(()));
    assert!(e.contains(r#"no Source method named "V""#), "{e}");
    // Every step of the table is reachable by name.
    for s in STEPS.iter().filter(|s| s.on == StepOn::Step) {
        let t = g().v(()).step(s.gremlin, ());
        if let Err(e) = t.gremlin_lang() {
            assert!(
                e.to_string().contains("matches no form"),
                "{}: {e}",
                s.gremlin
            );
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let mut l = Lit::Int(1);
    for _ in 0..1_000 {
        l = Lit::List(vec![l]);
    }
    let e = err(&g().inject((l,)));
    assert!(e.contains("nested deeper than"), "{e}");
    let mut t = __::out(());
    for _ in 0..1_000 {
        t = __::local(t);
    }
    let e = err(&g().v(()).local(t));
    assert!(e.contains("nested deeper than"), "{e}");
    let mut p = P::eq(1);
    for _ in 0..1_000 {
        p = P::not(p);
    }
    let e = err(&g().v(()).is(p));
    assert!(e.contains("nested deeper than"), "{e}");
    // Well within the limit is fine.
    let mut l = Lit::Int(1);
    for _ in 0..100 {
        l = Lit::List(vec![l]);
    }
    assert!(g().inject((l,)).gremlin_lang().is_ok());
}

#[test]
fn results_are_arguments() {
    let v = Value::Vertex(Box::new(Vertex {
        id: Value::Long(4),
        label: Default::default(),
        properties: None,
    }));
    assert_eq!(text(&g().v(v.clone()).out(())), "g.V(4L).out()");
    assert_eq!(text(&g().v([v.clone(), v])), "g.V(4L,4L)");
}
