//! Every form of every entry of `spec/steps.toml`, built with example arguments and parsed by
//! the real Gremlin Server: none may be a syntax error. This ties the step table to the
//! server's own grammar (a wrong kind or a missing `$` in the spec would fail here).
//!
//! Needs `GREMLIN_URL`; without it the test prints a notice and passes (with `CI` set it
//! fails). Scripts run under `ReadOnlyStrategy` after `limit(0)`, so nothing is changed and
//! nothing loops; only parse errors count, not what the server thinks of the arguments.

use super::arg::{Arg, GValue, Kind, Slot};
use super::generated::STEPS;
use super::predicate::P;
use super::strategy::Strategy;
use super::traversal::StepOn;
use super::traversal::{GraphTraversal, GraphTraversalSource, StepDef};
use super::__;
use crate::client::{Client, Error};
use crate::lang::tokens::T;
use crate::lang::Lit;
use crate::value::DateTime;

fn example(step: &str, slot: &Slot, i: usize, params: bool) -> Arg {
    let lit = |l: Lit| {
        if params && slot.var {
            Arg::Param(GValue::new(format!("p{i}"), l))
        } else {
            Arg::Lit(l)
        }
    };
    match slot.kind {
        // match()'s string is a declarative query with a grammar of its own.
        Kind::Str if step == "match" => lit(Lit::from("MATCH (n:person)")),
        Kind::Str | Kind::WithKey => lit(Lit::from("a")),
        Kind::Int => lit(Lit::Int(1)),
        Kind::Num => lit(Lit::Double(0.5)),
        Kind::Bool => lit(Lit::Bool(true)),
        Kind::Date => lit(Lit::DateTime(DateTime {
            year: 2024,
            month: 1,
            day: 1,
            nanos: 0,
            offset_seconds: 0,
            kind: Default::default(),
        })),
        Kind::Gen | Kind::WithValue => lit(Lit::Int(1)),
        Kind::Map => lit(Lit::map([("a", 1)])),
        Kind::P => Arg::P(P::eq(1)),
        Kind::Trav => Arg::Traversal(__::identity()),
        Kind::Strategy | Kind::Class => Arg::Strategy(Strategy::new("ReadOnlyStrategy")),
        Kind::Function => lit(Lit::from(T::Id)),
        Kind::Token(c) => lit(Lit::Token(c.example())),
    }
}

/// One traversal per form of `def`, with its text for messages.
fn traversals(on: StepOn, def: &'static StepDef, params: bool) -> Vec<GraphTraversal> {
    let g = GraphTraversalSource::detached().with_strategies((Strategy::new("ReadOnlyStrategy"),));
    def.forms
        .iter()
        .map(|form| {
            let args: Vec<Arg> = form
                .iter()
                .enumerate()
                .map(|(i, s)| example(def.gremlin, s, i, params))
                .collect();
            match on {
                StepOn::Step => g.v(()).limit(0).add_step(def, args),
                StepOn::Spawn => g.spawn(def, args).limit(0),
                StepOn::Source => g.add_source(def, args).v(()).limit(0),
                StepOn::Predicate => g.v(()).limit(0).is(P::op(def, args)),
            }
        })
        .collect()
}

#[test]
fn every_form_of_every_step_parses_on_the_server() {
    let Ok(url) = std::env::var("GREMLIN_URL") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "GREMLIN_URL is required in CI"
        );
        eprintln!("NOTICE: every_form_of_every_step_parses_on_the_server SKIPPED: set GREMLIN_URL");
        return;
    };
    let client = Client::builder(url)
        .read_timeout(std::time::Duration::from_secs(60))
        .build()
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for info in STEPS.iter() {
        for params in [false, true] {
            for t in traversals(info.on, info.def, params) {
                let lang = match t.gremlin_lang() {
                    Ok(l) => l,
                    Err(e) => {
                        failures.push(format!("{}: does not build: {e}", info.gremlin));
                        continue;
                    }
                };
                let mut req = client.request(lang.gremlin.clone());
                for (name, value) in &lang.parameters {
                    req = req.param_literal(name.clone(), value.to_gremlin().unwrap());
                }
                checked += 1;
                let outcome = rt.block_on(async {
                    match req.send().await {
                        Ok(s) => s.count().await.map(|_| ()),
                        Err(e) => Err(e),
                    }
                });
                if let Err(Error::Server(s)) = &outcome {
                    let text = format!("{:?} {:?}", s.message, s.exception);
                    if text.contains("MalformedQueryException") || text.contains("parsing failed") {
                        failures.push(format!("{} => {text}", lang.gremlin));
                    }
                } else if let Err(e) = outcome {
                    if !matches!(e, Error::Server(_)) {
                        failures.push(format!("{} => {e}", lang.gremlin));
                    }
                }
            }
        }
    }
    assert!(checked > 600, "only {checked} scripts checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} scripts were rejected by the parser:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
