//! `cargo xtask features --via api|api-params`: each scenario's traversal text is parsed
//! ([`super::gremlin_lang`]) and rebuilt through `graphbinary_client::process` by the API's
//! by-name dispatch (`source_step`, `spawn_step`, `step`, `P::by_name`), so that the request
//! the runner sends is the one the traversal API writes, not the scenario's text.

use anyhow::{bail, Context, Result};
use graphbinary_client::process::{
    Arg, Cardinality, GValue, GraphTraversal, GraphTraversalSource, Lit, StepOn, Strategy, Token,
    P, STEPS,
};

use super::gremlin_lang::{self, Call, Expr};

/// Whether the grammar has a method `name` of kind `on`.
pub fn has(on: StepOn, name: &str) -> bool {
    STEPS.iter().any(|s| s.on == on && s.gremlin == name)
}

fn is_predicate(name: &str) -> gremlin_lang::Name {
    match (has(StepOn::Predicate, name), has(StepOn::Step, name)) {
        (true, true) => gremlin_lang::Name::Both,
        (true, false) => gremlin_lang::Name::Predicate,
        _ => gremlin_lang::Name::Step,
    }
}

/// Parses a traversal text with the grammar's predicate names.
pub fn parse(text: &str) -> Result<Expr> {
    gremlin_lang::parse(text, is_predicate)
}

/// The tokens named `Class.name`, or `name` with any class (`Direction.from` / `to` are
/// the grammar's aliases of `OUT` / `IN`).
pub fn tokens(class: Option<&str>, name: &str) -> Vec<Token> {
    let name = match (class, name) {
        (Some("Direction") | None, "from") => "OUT",
        (Some("Direction") | None, "to") => "IN",
        _ => name,
    };
    Token::all()
        .filter(|t| {
            let s = t.to_string();
            match class {
                Some(c) => s == format!("{c}.{name}"),
                None => s.rsplit_once('.').is_some_and(|(_, n)| n == name),
            }
        })
        .collect()
}

/// A call on the traversal source before the spawn step.
pub enum SourceCall<'a> {
    /// The grammar's source `with(key[, value])`: the API's `with`.
    With(&'a str, Option<&'a Expr>),
    /// A source step (`withSack`, `withStrategies`, ...).
    Step(&'a Call),
}

/// The calls of a traversal from `g`, as the grammar reads them.
pub struct Rooted<'a> {
    /// The source calls, in order.
    pub source: Vec<SourceCall<'a>>,
    /// The spawn step (`V`, `E`, `inject`, ...).
    pub spawn: &'a Call,
    /// The steps after it.
    pub steps: &'a [Call],
}

impl<'a> Rooted<'a> {
    /// Splits `steps` (a traversal from `g`) at its spawn step.
    pub fn split(steps: &'a [Call]) -> Result<Self> {
        let mut source = Vec::new();
        for (i, c) in steps.iter().enumerate() {
            if c.name == "with" {
                let key = match c.args.first() {
                    Some(Expr::Lit(Lit::String(k))) => k.as_str(),
                    _ => bail!("with(...) needs a string key"),
                };
                source.push(SourceCall::With(key, c.args.get(1)));
            } else if has(StepOn::Source, &c.name) && !has(StepOn::Spawn, &c.name) {
                source.push(SourceCall::Step(c));
            } else {
                return Ok(Rooted {
                    source,
                    spawn: c,
                    steps: &steps[i + 1..],
                });
            }
        }
        bail!("a traversal without a spawn step")
    }
}

/// What the interpreter needs: the scenario's parameters (name, value).
pub struct Interp<'a> {
    pub params: &'a [(String, Lit)],
}

impl Interp<'_> {
    fn param(&self, name: &str) -> Option<&Lit> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The traversal `text` on `g`.
    pub fn traversal(&self, g: &GraphTraversalSource, text: &str) -> Result<GraphTraversal> {
        self.traversal_of(g, parse(text)?)
    }

    /// The parsed traversal `e` on `g`.
    pub fn traversal_of(&self, g: &GraphTraversalSource, e: Expr) -> Result<GraphTraversal> {
        match e {
            Expr::Traversal {
                anonymous: false,
                steps,
            } => self.rooted(g, &steps),
            other => bail!("not a traversal from g: {other:?}"),
        }
    }

    fn rooted(&self, g: &GraphTraversalSource, steps: &[Call]) -> Result<GraphTraversal> {
        let rooted = Rooted::split(steps)?;
        let mut g = g.clone();
        for c in &rooted.source {
            g = match c {
                SourceCall::With(key, value) => {
                    let value = match value {
                        Some(v) => self.lit(v)?,
                        None => Lit::Bool(true),
                    };
                    g.with(key.to_string(), value)
                }
                SourceCall::Step(c) => g.source_step(&c.name, self.first_args(&c.args)?),
            };
        }
        let c = rooted.spawn;
        let alts = self.arg_alts(&c.args)?;
        let mut t = pick(alts, |a| g.spawn_step(&c.name, a));
        for c in rooted.steps {
            t = self.step(t, c)?;
        }
        Ok(t)
    }

    fn step(&self, t: GraphTraversal, c: &Call) -> Result<GraphTraversal> {
        let alts = self.arg_alts(&c.args)?;
        Ok(pick(alts, |a| t.clone().step(&c.name, a)))
    }

    fn anonymous(&self, steps: &[Call]) -> Result<GraphTraversal> {
        let mut t = GraphTraversal::anonymous();
        for c in steps {
            t = self.step(t, c)?;
        }
        Ok(t)
    }

    /// The first reading of each argument.
    fn first_args(&self, args: &[Expr]) -> Result<Vec<Arg>> {
        args.iter()
            .map(|e| {
                self.arg(e)?
                    .into_iter()
                    .next()
                    .context("an argument without a reading")
            })
            .collect()
    }

    /// Every combination of the readings of the arguments (a bare token may be of several
    /// classes), the first readings first.
    fn arg_alts(&self, args: &[Expr]) -> Result<Vec<Vec<Arg>>> {
        let mut combos: Vec<Vec<Arg>> = vec![Vec::new()];
        for e in args {
            let readings = self.arg(e)?;
            let mut next = Vec::new();
            for c in &combos {
                for r in &readings {
                    let mut c = c.clone();
                    c.push(r.clone());
                    next.push(c);
                }
                if next.len() > 64 {
                    break;
                }
            }
            combos = next;
        }
        Ok(combos)
    }

    /// The readings of one argument.
    fn arg(&self, e: &Expr) -> Result<Vec<Arg>> {
        Ok(match e {
            Expr::Ident(name) => {
                if let Some(v) = self.param(name) {
                    return Ok(vec![Arg::Param(GValue::new(name.clone(), v.clone()))]);
                }
                let mut out: Vec<Arg> = tokens(None, name)
                    .into_iter()
                    .map(|t| Arg::Lit(Lit::Token(t)))
                    .collect();
                if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                    out.push(Arg::Strategy(Strategy::new(name.clone())));
                }
                if out.is_empty() {
                    bail!("{name:?} is neither a scenario parameter nor a token");
                }
                out
            }
            Expr::Traversal {
                anonymous: true,
                steps,
            } => vec![Arg::Traversal(self.anonymous(steps)?)],
            Expr::Traversal { .. } => bail!("a traversal from g as an argument"),
            Expr::Pred { class, first, rest } => {
                vec![Arg::P(self.pred(class.as_deref(), first, rest)?)]
            }
            Expr::Strategy { name, config } => {
                let mut s = Strategy::new(name.clone());
                for (k, v) in config {
                    let a = self.arg(v)?.into_iter().next().context("strategy value")?;
                    s = s.config(k.clone(), a);
                }
                vec![Arg::Strategy(s)]
            }
            other => vec![Arg::Lit(self.lit(other)?)],
        })
    }

    fn pred(&self, class: Option<&str>, first: &Call, rest: &[Call]) -> Result<P> {
        let _ = class;
        // `within([__.a(), __.b()])`, as the API writes traversal varargs of `within` /
        // `without`: a list literal cannot hold traversals, so its items are the arguments.
        let spread = match first.args.as_slice() {
            [Expr::List(items)]
                if matches!(first.name.as_str(), "within" | "without")
                    && items.iter().any(|e| self.lit(e).is_err()) =>
            {
                Some(items)
            }
            _ => None,
        };
        let args = self.first_args(spread.map_or(&first.args, |v| v))?;
        let mut p = P::by_name(&first.name, args);
        for c in rest {
            p = match (c.name.as_str(), c.args.as_slice()) {
                ("negate", []) => p.negate(),
                ("and" | "or", [other]) => {
                    let q = match self.arg(other)?.into_iter().next() {
                        Some(Arg::P(q)) => q,
                        _ => bail!("{}(...) of a predicate needs a predicate", c.name),
                    };
                    if c.name == "and" {
                        p.and(q)
                    } else {
                        p.or(q)
                    }
                }
                _ => bail!("unknown predicate method {}", c.name),
            };
        }
        Ok(p)
    }

    /// A literal (in collections every element must be one).
    pub fn lit(&self, e: &Expr) -> Result<Lit> {
        Ok(match e {
            Expr::Lit(l) => l.clone(),
            Expr::List(items) => Lit::List(self.lits(items)?),
            Expr::Set(items) => Lit::Set(self.lits(items)?),
            Expr::Map(entries) => Lit::Map(
                entries
                    .iter()
                    .map(|(k, v)| Ok((self.lit(k)?, self.lit(v)?)))
                    .collect::<Result<_>>()?,
            ),
            Expr::Token(class, name) => {
                let t = tokens(Some(class), name);
                Lit::Token(
                    *t.first()
                        .with_context(|| format!("no token {class}.{name}"))?,
                )
            }
            Expr::Ident(name) => match self.param(name) {
                Some(v) => v.clone(),
                None => Lit::Token(
                    *tokens(None, name)
                        .first()
                        .with_context(|| format!("{name:?} is no parameter or token"))?,
                ),
            },
            Expr::CardValue(c, v) => {
                let card = match c.as_str() {
                    "single" => Cardinality::Single,
                    "list" => Cardinality::List,
                    "set" => Cardinality::Set,
                    other => bail!("no cardinality {other}"),
                };
                Lit::cardinality(card, self.lit(v)?)
            }
            other => bail!("not a literal: {other:?}"),
        })
    }

    fn lits(&self, items: &[Expr]) -> Result<Vec<Lit>> {
        items.iter().map(|e| self.lit(e)).collect()
    }
}

/// The first of `alts` whose traversal builds, else the first.
fn pick(alts: Vec<Vec<Arg>>, build: impl Fn(Vec<Arg>) -> GraphTraversal) -> GraphTraversal {
    if alts.len() == 1 {
        return build(alts.into_iter().next().unwrap());
    }
    let mut first = None;
    for a in alts {
        let t = build(a);
        if t.gremlin_lang().is_ok() {
            return t;
        }
        first.get_or_insert(t);
    }
    first.expect("at least one reading")
}

/// A scenario value written as a gremlin-lang literal (by the runner) as a [`Lit`].
pub fn literal(text: &str) -> Result<Lit> {
    let e = gremlin_lang::parse_literal(text)?;
    Interp { params: &[] }.lit(&e)
}
