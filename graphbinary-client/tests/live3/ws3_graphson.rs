//! GraphSON 2 and 3, typed and untyped, over WebSocket against a real TinkerPop 3.7.3 Gremlin
//! Server (`cargo xtask server3` lists all four GraphSON serializers beside GraphBinary 1):
//! the modern graph's elements, paths, maps and inject()'s scalars read through each
//! serializer and compared with what GraphBinary 1 reads; bindings written and read back; a
//! bad script's typed server error; a result of several 206 batches; SASL PLAIN (env
//! `GREMLIN_WS_AUTH_URL_373`).
//!
//! ```sh
//! cargo xtask server3 --tinkerpop 3.7.3 --port 8401 --detach
//! cargo xtask server3 --tinkerpop 3.7.3 --auth --port 8402 --detach
//! GREMLIN_WS_URL_373=ws://127.0.0.1:8401/gremlin GREMLIN_WS_AUTH_URL_373=ws://127.0.0.1:8402/gremlin \
//!   cargo test -p graphbinary-client --test ws3_graphson
//! ```
//!
//! Where the formats differ (asserted below): untyped GraphSON loses types (integers come back
//! as Int or Long by value, elements as Maps); GraphSON 3 writes a Path's elements without
//! their properties, GraphBinary 1 with them.

use graphbinary_testkit::servers3;

use super::all;
use graphbinary_client::client::Error;
use graphbinary_client::value::{DateTime, DateTimeKind, Value};
use graphbinary_client::{Client, Serializer};

const TYPED: [Serializer; 2] = [Serializer::GraphSon2, Serializer::GraphSon3];
const ALL: [Serializer; 4] = [
    Serializer::GraphSon2,
    Serializer::GraphSon2Untyped,
    Serializer::GraphSon3,
    Serializer::GraphSon3Untyped,
];

fn server(test: &str) -> Option<String> {
    servers3::one(test, "GREMLIN_WS_URL_373", "TinkerPop 3.7.3 server")
}

/// A client of `url` reading `serializer` (it connects at its first request).
async fn connect(url: &str, serializer: Serializer) -> Client {
    let builder = Client::builder(url).serializer(serializer).pool_size(1);
    super::build(url, builder)
}

async fn values(c: &Client, gremlin: &str) -> Vec<Value> {
    all(c.request(gremlin))
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{gremlin}: {e} (is a TinkerPop 3.7.3 server at {}?)",
                c.url()
            )
        })
        .into_iter()
        .map(|(v, _)| v)
        .collect()
}

/// The queries whose results carry the same information in GraphBinary 1 and typed GraphSON.
const SAME: &[&str] = &[
    "g.V().order().by(id)",
    "g.E().order().by(id)",
    "g.V().hasLabel('person').order().by('name').valueMap('name', 'age')",
    "g.V().order().by(id).properties('name')",
    "g.E().order().by(id).properties('weight')",
    "g.V().group().by(label).by(count())",
    "g.V().values('age').fold()",
    "g.V().label().dedup().order().fold()",
    "g.inject(1, 2L, 3.5d, 1.5f, (short) 3, (byte) -4, 123456789012345678901234G, 1.25G, \
     'h\\u00e9llo \\ud83d\\ude00 \"q\" \\\\', null, true, \
     UUID.fromString('41d2e28a-20a4-4ab0-b379-d810dede3786'), new Date(1000), \
     ['a', 1, ['b']], [k: [1, 2]], ((char) 120), java.time.Duration.ofMillis(1500), \
     java.nio.ByteBuffer.wrap([1, 2, 3] as byte[]), Integer.MAX_VALUE, Long.MIN_VALUE, \
     Double.NaN, -0.0d, 1e300d, T.id, Direction.OUT)",
];

#[tokio::test]
async fn typed_graphson_reads_what_graphbinary_1_reads() {
    let Some(url) = server("ws3_graphson typed_graphson_reads_what_graphbinary_1_reads") else {
        return;
    };
    let gb1 = connect(&url, Serializer::GraphBinary1).await;
    for ser in TYPED {
        let c = connect(&url, ser).await;
        for q in SAME {
            let want = values(&gb1, q).await;
            let got = values(&c, q).await;
            // NaN != NaN: compare the Debug texts, which also show each type.
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{ser:?}: {q}");
            assert!(!got.is_empty(), "{q}");
        }
        // A BulkSet and a Set: GraphSON 3 has GraphBinary 1's g:BulkSet and g:Set; GraphSON 2
        // has neither and writes them as plain arrays (Lists, a BulkSet's bulks expanded).
        for q in [
            "g.V().out().out().values('name').order().aggregate('x').cap('x')",
            "g.inject(['lop', 'ripple'] as Set)",
        ] {
            let want = values(&gb1, q).await;
            let got = values(&c, q).await;
            if ser == Serializer::GraphSon3 {
                assert_eq!(got, want, "{q}");
            } else {
                let list = Value::List(vec![Value::from("lop"), Value::from("ripple")]);
                assert_eq!(got, vec![list], "{q}");
                assert!(
                    matches!(&want[0], Value::BulkList(_) | Value::Set(_)),
                    "{want:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn trees_classes_java_time_predicates_and_profiles_read_as_through_graphbinary_1() {
    let Some(url) =
        server("ws3_graphson trees_classes_java_time_predicates_and_profiles_read_as_through_graphbinary_1")
    else {
        return;
    };
    let gb1 = connect(&url, Serializer::GraphBinary1).await;
    for ser in TYPED {
        let c = connect(&url, ser).await;
        for q in [
            "g.V(1).out().out().tree().by('name')",
            "g.inject(Integer.class, java.time.Instant.ofEpochMilli(1500), \
             java.time.OffsetDateTime.parse('2016-01-01T12:30:00.123+01:00'), \
             java.time.ZonedDateTime.parse('2016-01-01T12:30:00Z'))",
            "g.inject(java.time.LocalDate.of(2016, 1, 31), java.time.LocalDateTime.of(2016, 1, 1, 12, 30), \
             java.time.LocalTime.of(12, 30, 45, 123), java.time.MonthDay.of(2, 29), \
             java.time.OffsetTime.parse('10:15:30-08:00'), java.time.Period.of(1, -2, 3), \
             java.time.Year.of(2016), java.time.YearMonth.of(2016, 6), \
             java.time.ZoneOffset.ofHoursMinutesSeconds(3, 6, 9), \
             java.net.InetAddress.getByName('127.0.0.1'), java.net.InetAddress.getByName('::1'))",
            "[P.gt(1), P.within(1, 2), P.between(1, 5), TextP.containing('ar'), \
             org.apache.tinkerpop.gremlin.util.function.Lambda.function('it.get()'), \
             g.V().out('knows').asAdmin().getBytecode()]",
        ] {
            let want = values(&gb1, q).await;
            let got = values(&c, q).await;
            assert_eq!(got, want, "{ser:?}: {q}");
        }
        // The values compared above are the types named, not something both read alike.
        let q = "g.inject(java.time.LocalDate.of(2016, 1, 31), java.time.Period.of(1, -2, 3), \
                 java.net.InetAddress.getByName('::1'), P.within(1, 2), \
                 org.apache.tinkerpop.gremlin.util.function.Lambda.function('it.get()'))";
        let names: Vec<String> = values(&c, q)
            .await
            .iter()
            .map(|v| match v {
                Value::CompositePdt(p) => p.type_name.clone(),
                Value::PrimitivePdt(p) => format!("{}={}", p.type_name, p.value),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            names,
            [
                "gx:LocalDate",
                "gx:Period",
                "gx:InetAddress=::1",
                "g:P",
                "g:Lambda"
            ],
            "{ser:?}"
        );
        // A profile: the same structure (the durations differ from run to run).
        let p = values(&c, "g.V().out().profile()").await;
        let Value::CompositePdt(m) = &p[0] else {
            panic!("{ser:?}: {p:?}")
        };
        assert_eq!(m.type_name, "g:TraversalMetrics");
        let Some(Value::List(steps)) = m.get("metrics") else {
            panic!("{ser:?}: {m:?}")
        };
        assert!(!steps.is_empty());
        assert!(steps
            .iter()
            .all(|s| matches!(s, Value::CompositePdt(s) if s.type_name == "g:Metrics")));
        assert!(
            matches!(m.get("dur"), Some(Value::Long(n)) if *n > 0),
            "{m:?}"
        );
    }
}

#[tokio::test]
async fn paths_through_graphson_3_lack_the_element_properties() {
    let Some(url) = server("ws3_graphson paths_through_graphson_3_lack_the_element_properties")
    else {
        return;
    };
    let q = "g.V(1).outE('knows').inV().order().by(id).path()";
    let gb1 = values(&connect(&url, Serializer::GraphBinary1).await, q).await;
    for ser in TYPED {
        let got = values(&connect(&url, ser).await, q).await;
        assert_eq!(got.len(), 2, "{ser:?}");
        for (g, w) in got.iter().zip(&gb1) {
            let (Value::Path(g), Value::Path(w)) = (g, w) else {
                panic!("{ser:?}: not paths: {g:?} / {w:?}");
            };
            assert_eq!(g.labels, w.labels);
            assert_eq!(g.objects.len(), 3);
            for (go, wo) in g.objects.iter().zip(&w.objects) {
                match (go, wo) {
                    (Value::Vertex(a), Value::Vertex(b)) => {
                        assert_eq!((&a.id, &a.label), (&b.id, &b.label));
                        assert!(b.properties.as_ref().is_some_and(|p| !p.is_empty()));
                        if ser == Serializer::GraphSon3 {
                            assert!(a.properties.as_ref().is_none_or(|p| p.is_empty()), "{a:?}");
                        }
                    }
                    (Value::Edge(a), Value::Edge(b)) => {
                        assert_eq!((&a.id, &a.label, &a.in_v_id), (&b.id, &b.label, &b.in_v_id));
                    }
                    other => panic!("{ser:?}: {other:?}"),
                }
            }
        }
    }
}

#[tokio::test]
async fn untyped_graphson_gives_json_values() {
    let Some(url) = server("ws3_graphson untyped_graphson_gives_json_values") else {
        return;
    };
    for ser in [Serializer::GraphSon2Untyped, Serializer::GraphSon3Untyped] {
        let c = connect(&url, ser).await;
        let got = values(
            &c,
            "g.inject(1, 2L, 3000000000L, 3.5d, (short) 3, 'h\\u00e9 \\ud83d\\ude00', null, true, [1, 'a'], [k: 'v'])",
        )
        .await;
        assert_eq!(
            got,
            vec![
                Value::Int(1),
                Value::Int(2), // untyped: the Long 2 is an Int by its value
                Value::Long(3_000_000_000),
                Value::Double(3.5),
                Value::Int(3),
                Value::String("hé 😀".into()),
                Value::Null(0xfe),
                Value::Boolean(true),
                Value::List(vec![Value::Int(1), Value::from("a")]),
                Value::Map(vec![(Value::from("k"), Value::from("v"))]),
            ],
            "{ser:?}"
        );
        // A vertex is a Map of its fields.
        let v = values(&c, "g.V(1)").await;
        let Value::Map(fields) = &v[0] else {
            panic!("{ser:?}: {v:?}")
        };
        let get = |k: &str| {
            fields
                .iter()
                .find(|(f, _)| f.as_str() == Some(k))
                .map(|(_, v)| v.clone())
        };
        assert_eq!(get("id"), Some(Value::Int(1)), "{ser:?}: {fields:?}");
        assert_eq!(get("label"), Some(Value::from("person")), "{ser:?}");
    }
}

#[tokio::test]
async fn bindings_are_written_and_read_back() {
    let Some(url) = server("ws3_graphson bindings_are_written_and_read_back") else {
        return;
    };
    let date =
        Value::DateTime(DateTime::from_epoch_millis(86_400_123).with_kind(DateTimeKind::Date));
    let common = vec![
        Value::Int(-7),
        Value::Long(1 << 40),
        Value::Double(2.25),
        Value::String("h\u{e9} \u{1f600} \"q\" \\ \n".into()),
        Value::Boolean(false),
        Value::Null(0xfe),
        Value::List(vec![Value::Int(1), Value::from("a")]),
        Value::Map(vec![(Value::from("k"), Value::List(vec![Value::Int(2)]))]),
    ];
    let typed_only = vec![
        Value::Float(1.5),
        Value::Short(-3),
        Value::Byte(5),
        Value::Uuid(uuid::Uuid::parse_str("41d2e28a-20a4-4ab0-b379-d810dede3786").unwrap()),
        date,
        Value::BigInteger(graphbinary_client::value::BigInteger::from(-(1i64 << 62))),
        Value::Char('z'),
        Value::Binary(vec![0, 1, 255]),
        Value::Duration(graphbinary_client::value::Duration {
            seconds: 90,
            nanos: 5_000_000,
        }),
    ];
    for ser in ALL {
        let c = connect(&url, ser).await;
        let mut vals = common.clone();
        if ser.is_typed() {
            vals.extend(typed_only.iter().cloned());
        }
        if ser == Serializer::GraphSon3 {
            vals.push(Value::Set(vec![Value::Int(1), Value::Int(2)]));
            vals.push(Value::Map(vec![(Value::Int(1), Value::from("int key"))]));
        }
        for v in vals {
            let r = all(c.request("[x]").param("x", v.clone()))
                .await
                .unwrap_or_else(|e| panic!("{ser:?} {v:?}: {e}"));
            let back = &r[0].0;
            let want = match (&v, ser.is_typed()) {
                (Value::Long(n), false) => Value::Long(*n),
                _ => v.clone(),
            };
            assert_eq!(back, &want, "{ser:?}");
        }
    }
}

#[tokio::test]
async fn a_bad_script_is_the_typed_server_error_with_its_attributes() {
    let Some(url) =
        server("ws3_graphson a_bad_script_is_the_typed_server_error_with_its_attributes")
    else {
        return;
    };
    for ser in ALL {
        let c = connect(&url, ser).await;
        let e = all(c.request("g.V().nope()")).await.unwrap_err();
        let Error::Server(server) = &e else {
            panic!("{ser:?}: {e}")
        };
        assert_eq!(server.code, 597, "{ser:?}: {e}");
        let message = server.message.as_deref().unwrap_or_default();
        assert!(message.contains("nope"), "{ser:?}: {message}");
        let keys: Vec<_> = server
            .attributes
            .iter()
            .filter_map(|(k, _)| k.as_str())
            .collect();
        assert!(keys.contains(&"exceptions"), "{ser:?}: {keys:?}");
        assert!(keys.contains(&"stackTrace"), "{ser:?}: {keys:?}");
        // The connection goes on.
        assert_eq!(values(&c, "1 + 1").await, vec![Value::Int(2)], "{ser:?}");
    }
}

#[tokio::test]
async fn a_large_result_streams_in_several_206_batches() {
    let Some(url) = server("ws3_graphson a_large_result_streams_in_several_206_batches") else {
        return;
    };
    // Kept on the hidden 3.x transport: each response message's status is below what the one
    // API shows (the results through it follow).
    use graphbinary_client::ws::{Client3, Eval, Options3};
    for ser in ALL {
        let options = Options3 {
            serializer: ser,
            pool_size: 1,
            ..Options3::default()
        };
        let c3 = Client3::connect_with(&url, options).await.unwrap();
        let mut r = c3
            .send_message(&Eval::new("(1..300).collect { 'n' + it }").to_request())
            .await
            .unwrap();
        let mut statuses = Vec::new();
        let mut got = Vec::new();
        while let Some(m) = futures::future::poll_fn(|cx| r.poll_message(cx)).await {
            let m = m.unwrap();
            statuses.push(m.status);
            got.extend(m.results().into_iter().map(|(v, _)| v));
        }
        assert_eq!(statuses.len(), 5, "{ser:?}: {statuses:?}");
        assert!(statuses[..4].iter().all(|s| *s == 206), "{statuses:?}");
        assert_eq!(statuses[4], 200);
        let want: Vec<Value> = (1..=300).map(|i| Value::String(format!("n{i}"))).collect();
        assert_eq!(got, want, "{ser:?}");
        // And through the one API.
        let c = connect(&url, ser).await;
        let n = all(c.request("(1..300)")).await.unwrap().len();
        assert_eq!(n, 300);
    }
}

#[tokio::test]
async fn sasl_plain_authenticates_with_each_serializer() {
    let Some(url) =
        servers3::auth_server("ws3_graphson sasl_plain_authenticates_with_each_serializer")
    else {
        return;
    };
    for ser in ALL {
        for (password, ok) in [("password", true), ("nope", false)] {
            let c = Client::builder(url.as_str())
                .serializer(ser)
                .basic_auth("stephen", password)
                .pool_size(1)
                .build()
                .unwrap();
            let r = all(c.request("g.V().count()")).await;
            if ok {
                let n = r.unwrap_or_else(|e| panic!("{ser:?}: {e}"));
                assert_eq!(n[0].0.as_i64(), Some(6), "{ser:?}: {n:?}");
            } else {
                let e = r.unwrap_err();
                assert_eq!(e.server_error().map(|s| s.code), Some(401), "{ser:?}: {e}");
                assert!(!e.to_string().contains("nope"), "{e}");
            }
        }
    }
}

#[tokio::test]
async fn the_client_builder_takes_the_serializer() {
    let Some(url) = server("ws3_graphson the_client_builder_takes_the_serializer") else {
        return;
    };
    for ser in ALL {
        let client = graphbinary_client::Client::builder(url.as_str())
            .serializer(ser)
            .build()
            .unwrap();
        let names = client
            .submit("g.V().hasLabel('software').values('name').order()")
            .await
            .unwrap()
            .all()
            .await
            .unwrap();
        assert_eq!(
            names,
            vec![Value::from("lop"), Value::from("ripple")],
            "{ser:?}"
        );
    }
}

#[tokio::test]
async fn a_session_keeps_its_variables_through_each_serializer() {
    let Some(url) = server("ws3_graphson a_session_keeps_its_variables_through_each_serializer")
    else {
        return;
    };
    for ser in ALL {
        // Through the one client API: the builder's serializer, a session as a Transaction.
        let c = graphbinary_client::Client::builder(url.as_str())
            .serializer(ser)
            .pool_size(1)
            .build()
            .unwrap();
        let s = c.session().await.unwrap();
        s.submit("x = 20")
            .await
            .unwrap_or_else(|e| panic!("{ser:?}: {e}"))
            .all()
            .await
            .unwrap_or_else(|e| panic!("{ser:?}: {e}"));
        let r = s
            .submit("x + 1")
            .await
            .unwrap_or_else(|e| panic!("{ser:?}: {e}"))
            .all()
            .await
            .unwrap_or_else(|e| panic!("{ser:?}: {e}"));
        assert_eq!(r, vec![Value::Int(21)], "{ser:?}");
        s.close().await.unwrap_or_else(|e| panic!("{ser:?}: {e}"));
    }
}

/// A `subgraph` step's TinkerGraph (`tinker:graph`) read through typed GraphSON 3 and 2 is the
/// Graph GraphBinary 1 reads: the same vertices with their properties, the same edges with
/// their vertex labels (filled in from the graph's vertices) and properties. Against every
/// TinkerPop 3 server set (`GREMLIN_WS_URL_373`, `GREMLIN_WS_URL_381`); the graph is made by
/// the script itself, so any dataset does.
#[tokio::test]
async fn a_subgraph_reads_through_graphson_as_through_graphbinary_1() {
    let test = "ws3_graphson a_subgraph_reads_through_graphson_as_through_graphbinary_1";
    // Sorted by id: the order of a TinkerGraph's vertices and edges is the server's HashMap's.
    fn sorted(vs: Vec<Value>) -> Vec<Value> {
        vs.into_iter()
            .map(|v| match v {
                Value::Graph(mut g) => {
                    g.vertices.sort_by_key(|v| format!("{:?}", v.id));
                    g.edges.sort_by_key(|e| format!("{:?}", e.id));
                    Value::Graph(g)
                }
                other => panic!("not a Graph: {other:?}"),
            })
            .collect()
    }
    let q = "TinkerFactory.createModern().traversal().E().hasLabel('knows')\
             .subgraph('sg').cap('sg')";
    for (label, url) in servers3::set(test, servers3::TINKERPOP3) {
        let want = sorted(values(&connect(&url, Serializer::GraphBinary1).await, q).await);
        let Value::Graph(g) = &want[0] else {
            unreachable!()
        };
        assert_eq!((g.vertices.len(), g.edges.len()), (3, 2), "{label}: {g:?}");
        assert!(g
            .edges
            .iter()
            .all(|e| &*e.in_v_label.as_slice()[0] == "person"));
        for ser in TYPED {
            let got = sorted(values(&connect(&url, ser).await, q).await);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{label} {ser:?}");
        }
    }
}
