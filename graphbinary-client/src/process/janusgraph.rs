//! JanusGraph's text and geo predicates (`org.janusgraph.core.attribute.Text` and `Geo`), for
//! `has(...)` and the other steps that take a predicate; [`Geoshape`] values for properties.
//!
//! Each function returns a [`P`] that holds a [`JanusGraphP`]: sent to a TinkerPop 3 server
//! (a `ws://` client), the traversal's Groovy script names it as a generated binding
//! (`_gb3_N`) whose value is written as JanusGraph's GraphBinary 1 custom type `janusgraph.P`
//! (the argument inside it fully qualified: a String, or a `janusgraph.Geoshape`), so the
//! server's JanusGraph serializers rebuild the predicate itself, as they do for a Java
//! client's bytecode. The client needs JanusGraph's custom types
//! ([`CustomTypes::janusgraph`](crate::format::graphbinary1::CustomTypes::janusgraph), on the builder's
//! `custom_types`). A Geoshape property value is bound the same way.
//!
//! These predicates have no gremlin-lang form (TinkerPop 4 has no JanusGraph), so
//! [`GraphTraversal::gremlin_lang`](super::GraphTraversal::gremlin_lang) and a literal-only
//! source report an error naming the predicate instead of writing a script.
//!
//! ```
//! use graphbinary_client::process::janusgraph::{Geo, Text};
//! use graphbinary_client::process::GraphTraversalSource;
//! use graphbinary_client::format::graphbinary1::Geoshape;
//! use graphbinary_client::Client;
//!
//! # fn main() -> Result<(), graphbinary_client::client::Error> {
//! // A ws:// client connects at its first request; building one sends nothing.
//! let g = GraphTraversalSource::new(Client::new("ws://127.0.0.1:8182/gremlin")?);
//! let t = g
//!     .v(())
//!     .has(("name", Text::text_contains("marko")))
//!     .has(("place", Geo::geo_within(Geoshape::circle(37.97, 23.72, 50.0))));
//! // Over ws:// the script is `g.V().has('name',_gb3_0).has('place',_gb3_1)`, the predicates
//! // its GraphBinary 1 bindings; gremlin-lang (TinkerPop 4) cannot spell them.
//! let err = t.gremlin_lang().unwrap_err();
//! assert!(err.to_string().contains("textContains"), "{err}");
//! # Ok(()) }
//! ```

use super::predicate::{PNode, P};
use crate::format::graphbinary1::JanusGraphP;
use crate::lang::Lit;
use crate::value::Value;

pub use crate::format::graphbinary1::{GeoPoint, Geoshape};

/// The predicate `name` with `value` (a name of [`JanusGraphP::PREDICATES`]).
fn janus(name: &'static str, value: Value) -> P {
    let shown = match &value {
        Value::String(s) => format!("{name}({s:?})"),
        v => match Geoshape::from_value(v) {
            Some(g) => format!("{name}({g:?})"),
            None => format!("{name}({})", v.type_name()),
        },
    };
    let node = match JanusGraphP::new(name, value) {
        Ok(p) => match p.to_value() {
            Value::CompositePdt(pdt) => PNode::Provider {
                lit: Lit::CompositePdt(pdt),
                shown,
            },
            _ => unreachable!("a JanusGraphP's value is a CompositePdt"),
        },
        Err(e) => PNode::Invalid(e),
    };
    P { node }
}

impl From<Geoshape> for Lit {
    /// The `CompositePdt` of [`Geoshape::to_value`]: a property value or step argument, sent
    /// to a TinkerPop 3 server as a binding of the custom type.
    fn from(g: Geoshape) -> Lit {
        match g.to_value() {
            Value::CompositePdt(p) => Lit::CompositePdt(p),
            _ => unreachable!("a Geoshape's value is a CompositePdt"),
        }
    }
}

/// A class of JanusGraph predicates (`Text`, `Geo`): a unit struct with one constructor per
/// predicate, each also a free function, all taking one argument turned into the predicate's
/// value.
macro_rules! janus_predicates {
    (
        $(#[$class_m:meta])*
        $class:ident, |$arg:ident: $arg_ty:ty| $value:expr;
        $($(#[$m:meta])* $rust:ident => $java:literal;)*
    ) => {
        $(#[$class_m])*
        #[derive(Debug, Clone, Copy)]
        pub struct $class;

        impl $class {
            $(
                $(#[$m])*
                #[doc = concat!("\n\nJanusGraph's `", $java, "`.")]
                pub fn $rust($arg: $arg_ty) -> P {
                    janus($java, $value)
                }
            )*
        }

        $(
            #[doc = concat!(
                "[`", stringify!($class), "::", stringify!($rust), "`]: JanusGraph's `", $java, "`."
            )]
            pub fn $rust($arg: $arg_ty) -> P {
                $class::$rust($arg)
            }
        )*
    };
}

janus_predicates! {
    /// JanusGraph's text predicates (`Text.textContains(...)` ...): full-text ones
    /// (`text_contains*`) match the tokens of a TEXT-mapped property, string ones
    /// (`text_prefix`, `text_regex`, `text_fuzzy`) its whole value (STRING mapping).
    Text, |text: impl Into<String>| Value::String(text.into());
    /// A token of the value equals this word (case-insensitive).
    text_contains => "textContains";
    /// No token of the value equals this word.
    text_not_contains => "textNotContains";
    /// A token is within Levenshtein distance of this word.
    text_contains_fuzzy => "textContainsFuzzy";
    /// No token is within Levenshtein distance of this word.
    text_not_contains_fuzzy => "textNotContainsFuzzy";
    /// A token starts with this prefix.
    text_contains_prefix => "textContainsPrefix";
    /// No token starts with this prefix.
    text_not_contains_prefix => "textNotContainsPrefix";
    /// A token matches this regular expression.
    text_contains_regex => "textContainsRegex";
    /// No token matches this regular expression.
    text_not_contains_regex => "textNotContainsRegex";
    /// The value contains this phrase (its tokens in order).
    text_contains_phrase => "textContainsPhrase";
    /// The value does not contain this phrase.
    text_not_contains_phrase => "textNotContainsPhrase";
    /// The whole value is within Levenshtein distance of this string.
    text_fuzzy => "textFuzzy";
    /// The whole value is not within Levenshtein distance of this string.
    text_not_fuzzy => "textNotFuzzy";
    /// The whole value starts with this prefix.
    text_prefix => "textPrefix";
    /// The whole value does not start with this prefix.
    text_not_prefix => "textNotPrefix";
    /// The whole value matches this regular expression.
    text_regex => "textRegex";
    /// The whole value does not match this regular expression.
    text_not_regex => "textNotRegex";
}

janus_predicates! {
    /// JanusGraph's geo predicates (`Geo.geoWithin(...)` ...), on a Geoshape property.
    Geo, |shape: Geoshape| shape.to_value();
    /// The value lies within this shape.
    geo_within => "geoWithin";
    /// The value intersects this shape.
    geo_intersect => "geoIntersect";
    /// The value and this shape are disjoint.
    geo_disjoint => "geoDisjoint";
    /// The value contains this shape.
    geo_contains => "geoContains";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::GraphTraversalSource;

    #[test]
    fn every_predicate_has_its_janusgraph_name() {
        type TextFn = fn(String) -> P;
        type GeoFn = fn(Geoshape) -> P;
        let text: [(TextFn, &str); 16] = [
            (text_contains, "textContains"),
            (text_not_contains, "textNotContains"),
            (text_contains_fuzzy, "textContainsFuzzy"),
            (text_not_contains_fuzzy, "textNotContainsFuzzy"),
            (text_contains_prefix, "textContainsPrefix"),
            (text_not_contains_prefix, "textNotContainsPrefix"),
            (text_contains_regex, "textContainsRegex"),
            (text_not_contains_regex, "textNotContainsRegex"),
            (text_contains_phrase, "textContainsPhrase"),
            (text_not_contains_phrase, "textNotContainsPhrase"),
            (text_fuzzy, "textFuzzy"),
            (text_not_fuzzy, "textNotFuzzy"),
            (text_prefix, "textPrefix"),
            (text_not_prefix, "textNotPrefix"),
            (text_regex, "textRegex"),
            (text_not_regex, "textNotRegex"),
        ];
        let geo: [(GeoFn, &str); 4] = [
            (geo_within, "geoWithin"),
            (geo_intersect, "geoIntersect"),
            (geo_disjoint, "geoDisjoint"),
            (geo_contains, "geoContains"),
        ];
        let mut seen = Vec::new();
        let name = |p: &P| match &p.node {
            PNode::Provider { lit, .. } => {
                let v = Value::try_from(lit).unwrap();
                JanusGraphP::from_value(&v).unwrap()
            }
            other => panic!("{other:?}"),
        };
        for (f, want) in text {
            let p = name(&f("w".into()));
            assert_eq!(p.predicate, want);
            assert_eq!(p.value, Value::String("w".into()));
            seen.push(want);
        }
        for (f, want) in geo {
            let shape = Geoshape::point(1.0, 2.0);
            let p = name(&f(shape.clone()));
            assert_eq!(p.predicate, want);
            assert_eq!(Geoshape::from_value(&p.value), Some(shape));
            seen.push(want);
        }
        seen.sort_unstable();
        let mut all = JanusGraphP::PREDICATES.to_vec();
        all.sort_unstable();
        assert_eq!(seen, all);
    }

    #[test]
    fn without_groovy_bindings_a_janusgraph_predicate_is_an_error() {
        let g = GraphTraversalSource::detached();
        let e = g
            .v(())
            .has(("name", text_contains_regex("ma.*")))
            .gremlin_lang()
            .unwrap_err();
        assert!(
            e.to_string().contains(r#"textContainsRegex("ma.*")"#),
            "{e}"
        );
        let e = g
            .literal_only(true)
            .v(())
            .has(("place", geo_within(Geoshape::point(1.0, 2.0))))
            .gremlin_lang_for(true)
            .unwrap_err();
        assert!(e.to_string().contains("geoWithin(Point"), "{e}");
        assert!(e.to_string().contains("literal-only"), "{e}");
    }

    /// The module doc's example: the 3.x request message of a traversal with JanusGraph
    /// predicates carries them as bindings.
    #[tokio::test]
    async fn a_ws_request_binds_the_predicates() {
        let client = crate::Client::new("ws://127.0.0.1:8182/gremlin").unwrap();
        let g = GraphTraversalSource::new(client);
        let t = g.v(()).has(("name", Text::text_contains("marko"))).has((
            "place",
            Geo::geo_within(Geoshape::circle(37.97, 23.72, 50.0)),
        ));
        let eval = t.request().unwrap().eval_v1().unwrap();
        assert_eq!(eval.gremlin, "g.V().has('name',_gb3_0).has('place',_gb3_1)");
        let p = JanusGraphP::from_value(&eval.bindings[1].1).unwrap();
        assert_eq!(p.predicate, "geoWithin");
    }

    #[test]
    fn for_groovy_predicates_and_shapes_become_bindings() {
        let g = GraphTraversalSource::detached();
        let t = g
            .add_v("place")
            .property(("at", Geoshape::box_(1.0, 2.0, 3.0, 4.0)))
            .has(("name", text_prefix("ath").or(text_fuzzy("athens"))))
            .has(("at", geo_intersect(Geoshape::point(1.0, 2.0)).negate()));
        let lang = t.gremlin_lang_for(true).unwrap();
        assert_eq!(
            lang.gremlin,
            "g.addV('place').property('at',_gb3_0).has('name',_gb3_1.or(_gb3_2)).has('at',_gb3_3.negate())"
        );
        assert_eq!(lang.parameters.len(), 4);
        let v = Value::try_from(&lang.parameters[0].1).unwrap();
        assert_eq!(
            Geoshape::from_value(&v),
            Some(Geoshape::box_(1.0, 2.0, 3.0, 4.0))
        );
        let v = Value::try_from(&lang.parameters[2].1).unwrap();
        assert_eq!(JanusGraphP::from_value(&v).unwrap().predicate, "textFuzzy");
    }
}
