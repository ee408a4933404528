//! A recursive-descent parser of gremlin-lang traversal texts (the subset of
//! `/work/shared/grammar/Gremlin.g4` that a client writes: traversals, anonymous traversals,
//! literals of every type, tokens, predicates, strategies and variables).
//!
//! The parse tree keeps what the grammar cannot decide without the step's forms (a bare
//! identifier is a variable, a token without its class, or a strategy class); the
//! interpreter in `via_api` resolves them against the traversal API.

use anyhow::{bail, Context, Result};
use graphbinary_client::process::Lit;

/// One call: `name(args)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Vec<Expr>,
}

/// An expression of the grammar.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A scalar literal (number, string, boolean, null, date, UUID, duration, binary, char).
    Lit(Lit),
    /// `[a,b]`
    List(Vec<Expr>),
    /// `{a,b}`
    Set(Vec<Expr>),
    /// `[k:v]`; a naked key is a string.
    Map(Vec<(Expr, Expr)>),
    /// A bare identifier: a variable, a token without its class, or a strategy class.
    Ident(String),
    /// `Class.name`, e.g. `T.id`.
    Token(String, String),
    /// `g.…` (`anonymous == false`) or `__.…` / a bare step call (`anonymous == true`).
    Traversal { anonymous: bool, steps: Vec<Call> },
    /// A predicate: its first call (with an optional class, `P` / `TextP`) and the
    /// `.and(…)` / `.or(…)` / `.negate()` calls after it.
    Pred {
        class: Option<String>,
        first: Call,
        rest: Vec<Call>,
    },
    /// `Cardinality.single(v)` (or `single(v)`).
    CardValue(String, Box<Expr>),
    /// `new Name(k:v, …)`
    Strategy {
        name: String,
        config: Vec<(String, Expr)>,
    },
}

/// What a bare call's name is in the grammar: a predicate (P or TextP), a step, or both
/// (`not`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    Predicate,
    Step,
    Both,
}

/// Says what a name is.
pub type IsPredicate = fn(&str) -> Name;

/// Parses one traversal text (`g.V()…`).
pub fn parse(text: &str, is_predicate: IsPredicate) -> Result<Expr> {
    let mut p = Parser {
        s: text.as_bytes(),
        src: text,
        i: 0,
        is_predicate,
    };
    let e = p.expr().with_context(|| p.context())?;
    p.ws();
    if p.i != p.s.len() {
        bail!("unexpected text after the traversal: {}", p.context());
    }
    Ok(e)
}

/// Parses one literal (as written by the runner for a scenario parameter).
pub fn parse_literal(text: &str) -> Result<Expr> {
    parse(text, |_| Name::Step)
}

struct Parser<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
    is_predicate: IsPredicate,
}

impl Parser<'_> {
    fn context(&self) -> String {
        let start = self.i.min(self.src.len());
        let end = (start + 40).min(self.src.len());
        let near = self.src.get(start..end).unwrap_or("");
        format!("at byte {start}: {near:?}")
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        if !self.eat(c) {
            bail!("expected {:?} {}", c as char, self.context());
        }
        Ok(())
    }

    fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len() {
            let c = self.s[self.i];
            let ok = c.is_ascii_alphabetic()
                || c == b'_'
                || c == b'$'
                || (self.i > start && c.is_ascii_digit());
            if !ok {
                break;
            }
            self.i += 1;
        }
        (self.i > start).then(|| self.src[start..self.i].to_string())
    }

    /// `.name(args)` calls after a head.
    fn calls(&mut self, out: &mut Vec<Call>) -> Result<()> {
        loop {
            let save = self.i;
            if !self.eat(b'.') {
                return Ok(());
            }
            let Some(name) = self.ident() else {
                self.i = save;
                return Ok(());
            };
            let args = self.args()?;
            out.push(Call { name, args });
        }
    }

    fn args(&mut self) -> Result<Vec<Expr>> {
        self.expect(b'(')?;
        let mut args = Vec::new();
        if self.eat(b')') {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat(b')') {
                return Ok(args);
            }
            self.expect(b',')?;
        }
    }

    fn expr(&mut self) -> Result<Expr> {
        match self.peek() {
            None => bail!("unexpected end of text"),
            Some(b'"' | b'\'') => self.lit().map(Expr::Lit),
            Some(b'[') => self.list_or_map(),
            Some(b'{') => {
                self.i += 1;
                let items = self.items(b'}')?;
                Ok(Expr::Set(items))
            }
            Some(b'(') => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(b')')?;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' || c == b'.' => {
                self.lit().map(Expr::Lit)
            }
            Some(_) => self.word(),
        }
    }

    fn items(&mut self, close: u8) -> Result<Vec<Expr>> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            if self.eat(close) {
                return Ok(items);
            }
            self.expect(b',')?;
        }
    }

    fn list_or_map(&mut self) -> Result<Expr> {
        self.expect(b'[')?;
        if self.eat(b']') {
            return Ok(Expr::List(Vec::new()));
        }
        let save = self.i;
        if self.eat(b':') {
            if self.eat(b']') {
                return Ok(Expr::Map(Vec::new()));
            }
            self.i = save;
        }
        let first = self.map_key_or_item()?;
        if self.eat(b':') {
            let mut entries = vec![(first, self.expr()?)];
            loop {
                if self.eat(b']') {
                    return Ok(Expr::Map(entries));
                }
                self.expect(b',')?;
                let k = self.map_key_or_item()?;
                self.expect(b':')?;
                entries.push((k, self.expr()?));
            }
        }
        let mut items = vec![first];
        loop {
            if self.eat(b']') {
                return Ok(Expr::List(items));
            }
            self.expect(b',')?;
            items.push(self.expr()?);
        }
    }

    /// A map key: a naked identifier (a keyword or not) is a string; anything else an
    /// expression.
    fn map_key_or_item(&mut self) -> Result<Expr> {
        self.ws();
        let save = self.i;
        if let Some(id) = self.ident() {
            if self.peek() == Some(b':') {
                return Ok(Expr::Lit(Lit::String(id)));
            }
            self.i = save;
        }
        self.expr()
    }

    /// A literal at the current position, read by the library's gremlin-lang literal reader.
    fn lit(&mut self) -> Result<Lit> {
        self.ws();
        let (lit, used) = Lit::parse_prefix(&self.src[self.i..]).map_err(|e| match e {
            graphbinary_client::Error::Literal { at, message, .. } => {
                anyhow::anyhow!("at byte {}: {message}", self.i + at)
            }
            other => anyhow::anyhow!("at byte {}: {other}", self.i),
        })?;
        self.i += used;
        Ok(lit)
    }

    /// A word: keyword literal, traversal, predicate, token, strategy, or identifier.
    fn word(&mut self) -> Result<Expr> {
        self.ws();
        let start = self.i;
        let Some(w) = self.ident() else {
            bail!("unexpected character {}", self.context());
        };
        match w.as_str() {
            "true" | "false" | "null" | "NaN" | "Infinity" => {
                self.i = start;
                return self.lit().map(Expr::Lit);
            }
            "datetime" | "DateTime" | "UUID" | "Duration" | "Binary"
                if self.peek() == Some(b'(') =>
            {
                self.i = start;
                return self.lit().map(Expr::Lit);
            }
            "g" | "__" => {
                let mut steps = Vec::new();
                self.calls(&mut steps)?;
                return Ok(Expr::Traversal {
                    anonymous: w == "__",
                    steps,
                });
            }
            "new" => {
                let name = self.ident().context("`new` without a class")?;
                return self.strategy(name);
            }
            _ => {}
        }
        if self.peek() == Some(b'(') {
            // `Name(key: value, ...)`: a strategy written without `new`.
            let save = self.i;
            self.i += 1;
            let config_follows = self.ident().is_some() && self.peek() == Some(b':');
            self.i = save;
            if config_follows && w.starts_with(|c: char| c.is_ascii_uppercase()) {
                return self.strategy(w);
            }
            return self.call_head(None, w);
        }
        // `Class.name` or `Class.name(...)`.
        let save = self.i;
        if w.starts_with(|c: char| c.is_ascii_uppercase()) && self.eat(b'.') {
            if let Some(name) = self.ident() {
                if self.peek() == Some(b'(') {
                    return self.call_head(Some(w), name);
                }
                return Ok(Expr::Token(w, name));
            }
            self.i = save;
        }
        Ok(Expr::Ident(w))
    }

    /// `(key: value, ...)` of a strategy.
    fn strategy(&mut self, name: String) -> Result<Expr> {
        let mut config = Vec::new();
        self.expect(b'(')?;
        if !self.eat(b')') {
            loop {
                let k = match self.peek() {
                    Some(b'"' | b'\'') => match self.lit()? {
                        Lit::String(s) => s,
                        other => bail!("a strategy key is a string, not {other:?}"),
                    },
                    _ => self.ident().context("strategy configuration key")?,
                };
                self.expect(b':')?;
                config.push((k, self.expr()?));
                if self.eat(b')') {
                    break;
                }
                self.expect(b',')?;
            }
        }
        Ok(Expr::Strategy { name, config })
    }

    /// `name(args)` with an optional class, then any chained calls.
    fn call_head(&mut self, class: Option<String>, name: String) -> Result<Expr> {
        let args = self.args()?;
        let first = Call { name, args };
        let mut rest = Vec::new();
        self.calls(&mut rest)?;
        match class.as_deref() {
            Some("P" | "TextP") => Ok(Expr::Pred { class, first, rest }),
            Some("Cardinality") if rest.is_empty() && first.args.len() == 1 => Ok(Expr::CardValue(
                first.name,
                Box::new(first.args.into_iter().next().unwrap()),
            )),
            Some(c) => bail!("unknown call {c}.{}(...)", first.name),
            // `not(...)` is the step with a traversal, else the predicate.
            None if (self.is_predicate)(&first.name) == Name::Predicate
                || ((self.is_predicate)(&first.name) == Name::Both
                    && !first
                        .args
                        .iter()
                        .any(|a| matches!(a, Expr::Traversal { .. }))) =>
            {
                Ok(Expr::Pred {
                    class: None,
                    first,
                    rest,
                })
            }
            None if matches!(first.name.as_str(), "single" | "list" | "set")
                && rest.is_empty()
                && first.args.len() == 1 =>
            {
                Ok(Expr::CardValue(
                    first.name,
                    Box::new(first.args.into_iter().next().unwrap()),
                ))
            }
            None => {
                let mut steps = vec![first];
                steps.extend(rest);
                Ok(Expr::Traversal {
                    anonymous: true,
                    steps,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::via_api::{parse, Interp};
    use super::*;
    use graphbinary_client::process::{GValue, GraphTraversalSource};

    fn lit(text: &str) -> Lit {
        match parse_literal(text).unwrap() {
            Expr::Lit(l) => l,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn literals_are_read_by_the_library_reader() {
        // The rules themselves are tested with `Lit::parse` (graphbinary-client's
        // `lang::lit_parse::tests`); here, that every kind of literal reaches it.
        for text in [
            "-7i",
            "1.25m",
            "-Infinity",
            r#""a\"b""#,
            r#""x"c"#,
            "true",
            "null",
            "DateTime('2023-08-08T00:00:30Z')",
            "Duration(1, 5)",
            r#"Binary("AQID")"#,
        ] {
            assert_eq!(lit(text), Lit::parse(text).unwrap(), "{text}");
        }
        assert!(matches!(lit("NaN"), Lit::Double(d) if d.is_nan()));
        assert!(parse_literal("300b").is_err());
        assert!(parse_literal(r#""open"#).is_err());
    }

    #[test]
    fn collections_maps_and_keys() {
        let e = parse_literal(r#"[name: "a", (T.id): 1, "k": [1, {2}], 3: [:]]"#).unwrap();
        let Expr::Map(entries) = e else {
            panic!("{e:?}")
        };
        assert_eq!(entries[0].0, Expr::Lit(Lit::String("name".into())));
        assert_eq!(entries[1].0, Expr::Token("T".into(), "id".into()));
        assert_eq!(
            entries[2].1,
            Expr::List(vec![
                Expr::Lit(Lit::Int(1)),
                Expr::Set(vec![Expr::Lit(Lit::Int(2))])
            ])
        );
        assert_eq!(entries[3].1, Expr::Map(vec![]));
        assert_eq!(parse_literal("[]").unwrap(), Expr::List(vec![]));
        assert!(parse_literal("[1, 2").is_err());
    }

    #[test]
    fn traversals_predicates_and_strategies() {
        let e = parse(r#"g.withStrategies(new SeedStrategy(seed: 1), ReadOnlyStrategy).V().has("age", P.gt(1).and(lt(3))).where(not(__.out())).not(within("a"))"#).unwrap();
        let Expr::Traversal {
            anonymous: false,
            steps,
        } = e
        else {
            panic!("{e:?}")
        };
        let names: Vec<_> = steps.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["withStrategies", "V", "has", "where", "not"]);
        assert!(
            matches!(&steps[0].args[0], Expr::Strategy { name, config } if name == "SeedStrategy" && config.len() == 1)
        );
        assert_eq!(steps[0].args[1], Expr::Ident("ReadOnlyStrategy".into()));
        assert!(
            matches!(&steps[2].args[1], Expr::Pred { class: Some(c), first, rest } if c == "P" && first.name == "gt" && rest[0].name == "and")
        );
        // `not` with a traversal is the step, with a predicate argument the predicate.
        assert!(matches!(
            &steps[3].args[0],
            Expr::Traversal {
                anonymous: true,
                ..
            }
        ));
        assert!(matches!(&steps[4].args[0], Expr::Pred { .. }));
        // A strategy written without `new`.
        let e = parse("g.withStrategies(SeedStrategy(seed: 99)).V()").unwrap();
        let Expr::Traversal { steps, .. } = e else {
            panic!()
        };
        assert!(matches!(&steps[0].args[0], Expr::Strategy { name, .. } if name == "SeedStrategy"));
        assert!(parse("g.V().out(").is_err());
        assert!(parse("g.V() extra").is_err());
    }

    /// Texts parsed, rebuilt with the API, written, parsed and rebuilt again: the same text
    /// and parameters, and the first writing as expected.
    #[test]
    fn round_trips_through_the_api() {
        let cases = [
            (
                r#"g.V().hasLabel("person").has("age", P.gt(30)).order().by("age", desc).values('name')"#,
                r#"g.V().hasLabel("person").has("age",gt(30)).order().by("age",Order.desc).values("name")"#,
            ),
            (
                "g.V(vid1).repeat(__.out()).times(2).emit().path().by(T.label)",
                "g.V(vid1).repeat(__.out()).times(2).emit().path().by(T.label)",
            ),
            (
                r#"g.withSideEffect("a", [1, 2L, 1.5f]).V().local(__.outE().count()).is(P.within(1, 2))"#,
                r#"g.withSideEffect("a",[1,2L,1.5F]).V().local(__.outE().count()).is(within([1,2]))"#,
            ),
            (
                r#"g.mergeV([(T.label): "person", name: "x"]).option(Merge.onCreate, [age: 1]).property(single, "k", xx1)"#,
                r#"g.mergeV([(T.label):"person","name":"x"]).option(Merge.onCreate,["age":1]).property(Cardinality.single,"k",xx1)"#,
            ),
            (
                r#"g.withStrategies(new SubgraphStrategy(vertices: __.hasLabel("person"), checkAdjacentVertices: false)).V().has("name", TextP.containing("a").negate())"#,
                r#"g.withStrategies(new SubgraphStrategy(vertices:__.hasLabel("person"),checkAdjacentVertices:false)).V().has("name",containing("a").negate())"#,
            ),
            (
                r#"g.with("singlelabel").inject(datetime("2023-08-08T00:00:00Z")).dateAdd(hour, 2)"#,
                r#"g.with("singlelabel",true).inject(datetime("2023-08-08T00:00Z")).dateAdd(DT.hour,2)"#,
            ),
            (
                r#"g.V().has("name", P.without(__.constant("a"), __.constant("b"))).sack(sum).by("w").mergeE(xx2).option(Merge.outV, [(T.id): Direction.from])"#,
                r#"g.V().has("name",without([__.constant("a"),__.constant("b")])).sack(Operator.sum).by("w").mergeE(xx2).option(Merge.outV,[(T.id):Direction.OUT])"#,
            ),
        ];
        let params = [
            ("vid1".to_owned(), Lit::Long(1)),
            ("xx1".to_owned(), Lit::String("v".into())),
            (
                "xx2".to_owned(),
                Lit::Map(vec![(Lit::String("weight".into()), Lit::Double(0.5))]),
            ),
        ];
        let interp = Interp { params: &params };
        for literal_only in [false, true] {
            let g = GraphTraversalSource::detached().literal_only(literal_only);
            for (src, want) in cases {
                let first = interp.traversal(&g, src).unwrap().gremlin_lang().unwrap();
                if !literal_only {
                    assert_eq!(first.gremlin, want, "{src}");
                }
                let again = interp
                    .traversal(&g, &first.gremlin)
                    .unwrap()
                    .gremlin_lang()
                    .unwrap();
                assert_eq!(again.gremlin, first.gremlin, "{src}");
                assert_eq!(
                    again.parameters_text().unwrap(),
                    first.parameters_text().unwrap()
                );
                assert_eq!(
                    parse(&again.gremlin).unwrap(),
                    parse(&first.gremlin).unwrap()
                );
            }
        }
        // Parameters are GValues: named in the text, their values in `parameters`.
        let g = GraphTraversalSource::detached();
        let t = interp
            .traversal(&g, r#"g.V(vid1).has("name", xx1).values(xx1)"#)
            .unwrap();
        assert_eq!(
            t.gremlin_lang().unwrap().parameters,
            vec![
                ("vid1".to_owned(), Lit::Long(1)),
                ("xx1".to_owned(), Lit::String("v".into()))
            ]
        );
        // `values` takes no variable: the value is written in place.
        assert!(t
            .gremlin_lang()
            .unwrap()
            .gremlin
            .ends_with(r#".values("v")"#));
        let direct = g
            .v(GValue::new("vid1", 1i64))
            .has(("name", GValue::new("xx1", "v")))
            .values(GValue::new("xx1", "v"))
            .gremlin_lang()
            .unwrap();
        assert_eq!(t.gremlin_lang().unwrap(), direct);
        // An identifier that is neither a parameter nor a token is an error, not a guess.
        assert!(interp.traversal(&g, "g.V(nobody)").is_err());
        assert!(interp
            .traversal(&g, "g.V().limit(\"ten\")")
            .unwrap()
            .gremlin_lang()
            .is_err());
    }
}
