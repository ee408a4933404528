//! Predicates: [`P`] and [`TextP`] (the constructors are generated from `spec/steps.toml`).

use super::arg::{describe, match_forms, Arg, IntoArgs};
use super::traversal::StepOn;
use super::traversal::{find_def, StepDef};
use crate::lang::Lit;

/// A predicate, for `has`, `is`, `where`, ...: `P::gt(30)`, `P::within(["a", "b"])`,
/// `TextP::starting_with("ma")`, combined with [`P::and`], [`P::or`], [`P::negate`].
///
/// Written as the GLVs write it, without its class: `gt(30)`, `within(["a","b"])`,
/// `gt(1).and(lt(3))`.
///
/// ```
/// use graphbinary_client::process::{GraphTraversalSource, TextP, P};
///
/// let g = GraphTraversalSource::detached();
/// let t = g.v(()).has(("age", P::between(20, 30).or(P::gt(40)))).has(("name", TextP::containing("a")));
/// assert_eq!(
///     t.gremlin_lang().unwrap().gremlin,
///     r#"g.V().has("age",between(20,30).or(gt(40))).has("name",containing("a"))"#
/// );
/// ```
#[derive(Debug, Clone)]
pub struct P {
    pub(crate) node: PNode,
}

#[derive(Debug, Clone)]
pub(crate) enum PNode {
    /// `name(args)`; each argument with whether it is written as a parameter name.
    Op {
        name: &'static str,
        args: Vec<(Arg, bool)>,
        /// The first TinkerPop version that has it (`since` in `spec/steps.toml`).
        since: Option<crate::lang::ServerVersion>,
    },
    And(Box<P>, Box<P>),
    Or(Box<P>, Box<P>),
    Negate(Box<P>),
    /// A provider's predicate held as a value (JanusGraph's `janusgraph.P`), sent only as a
    /// TinkerPop 3 binding; `shown` names it in errors.
    Provider {
        lit: Lit,
        shown: String,
    },
    /// Arguments that fit no form of the predicate.
    Invalid(String),
}

/// The text predicates (`containing`, `startingWith`, `regex`, ...); each returns a [`P`].
#[derive(Debug, Clone, Copy)]
pub struct TextP;

impl P {
    pub(crate) fn op(def: &'static StepDef, args: Vec<Arg>) -> P {
        let node = match match_forms(def.forms, &args) {
            Some(flags) => PNode::Op {
                name: def.gremlin,
                args: args.into_iter().zip(flags).collect(),
                since: def.since,
            },
            None => PNode::Invalid(format!(
                "{}({}) matches no form of the grammar ({})",
                def.gremlin,
                args.iter().map(describe).collect::<Vec<_>>().join(", "),
                def.signature
            )),
        };
        P { node }
    }

    /// The predicate named `gremlin` (`eq`, `within`, `containing`, ...) with `args`, for
    /// code that has Gremlin names at run time; the same as the generated function. An
    /// unknown name makes the traversal that uses it fail to build.
    ///
    /// ```
    /// use graphbinary_client::process::{GraphTraversalSource, P};
    ///
    /// let g = GraphTraversalSource::detached();
    /// let t = g.v(()).has(("age", P::by_name("between", (20, 30))));
    /// assert_eq!(t.gremlin_lang().unwrap().gremlin, r#"g.V().has("age",between(20,30))"#);
    /// ```
    pub fn by_name(gremlin: &str, args: impl IntoArgs) -> P {
        match find_def(StepOn::Predicate, gremlin) {
            Ok(def) => P::op(def, args.into_args()),
            Err(e) => P {
                node: PNode::Invalid(e),
            },
        }
    }

    /// Both predicates: `p.and(q)`.
    pub fn and(self, other: P) -> P {
        P {
            node: PNode::And(Box::new(self), Box::new(other)),
        }
    }

    /// Either predicate: `p.or(q)`.
    pub fn or(self, other: P) -> P {
        P {
            node: PNode::Or(Box::new(self), Box::new(other)),
        }
    }

    /// The opposite predicate: `p.negate()`.
    pub fn negate(self) -> P {
        P {
            node: PNode::Negate(Box::new(self)),
        }
    }
}
