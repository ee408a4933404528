//! `cargo xtask features --via rust [--only S]`: the selected scenarios' traversals translated
//! to Rust calling the typed methods of `graphbinary_client::process` (one function a scenario),
//! the way TinkerPop generates each GLV's translations; written at run time into
//! `target/features-api/` (never committed), compiled, and run. Each function's GremlinLang
//! must equal the one the by-name interpreter (`--via api-params`) sends, so the typed API is
//! shown to compile for the real traversals and to write the same requests.

use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use graphbinary_client::process::{Lit, Token};

use super::gremlin_lang::{Call, Expr};
use super::notation::Typed;
use super::via_api::{self, Interp};
use super::Scenario;
use crate::util::project_root;
use graphbinary_regen::steps::{self as spec, On, Params, StepsSpec};

struct Emitter<'a> {
    spec: &'a StepsSpec,
    params: &'a [(String, Lit)],
}

impl Emitter<'_> {
    fn step_of(&self, on: On, gremlin: &str) -> Result<&spec::Step> {
        self.spec
            .steps
            .iter()
            .find(|s| s.on == on && s.gremlin == gremlin)
            .with_context(|| format!("no {on:?} method {gremlin}"))
    }

    fn call(&self, on: On, c: &Call, out: &mut String) -> Result<()> {
        let s = self.step_of(on, &c.name)?;
        out.push_str(&s.rust);
        let args: Vec<String> = match (on, c.name.as_str(), c.args.as_slice()) {
            // within([__.a(), __.b()]) is the API's writing of traversal varargs.
            (On::Predicate, "within" | "without", [Expr::List(items)])
                if items.iter().any(|e| self.lit(e).is_err()) =>
            {
                items.iter().map(|e| self.arg(e)).collect::<Result<_>>()?
            }
            _ => c.args.iter().map(|e| self.arg(e)).collect::<Result<_>>()?,
        };
        match spec::params_of(s) {
            Params::None => out.push_str("()"),
            Params::Fixed(_) => {
                let _ = write!(out, "({})", args.join(", "));
            }
            Params::Args => match args.len() {
                0 => out.push_str("(())"),
                1..=8 => {
                    let _ = write!(out, "(({},))", args.join(", "));
                }
                _ => {
                    let wrapped: Vec<String> =
                        args.iter().map(|a| format!("Arg::from({a})")).collect();
                    let _ = write!(out, "(vec![{}])", wrapped.join(", "));
                }
            },
        }
        Ok(())
    }

    fn traversal(&self, steps: &[Call], out: &mut String) -> Result<()> {
        out.push_str("g.clone()");
        let rooted = via_api::Rooted::split(steps)?;
        for c in &rooted.source {
            match c {
                via_api::SourceCall::With(key, value) => {
                    let value = match value {
                        Some(v) => self.lit_rust(&self.lit(v)?)?,
                        None => "true".into(),
                    };
                    let _ = write!(out, ".with({key:?}, {value})");
                }
                via_api::SourceCall::Step(c) => {
                    out.push('.');
                    self.call(On::Source, c, out)?;
                }
            }
        }
        out.push('.');
        self.call(On::Spawn, rooted.spawn, out)?;
        for c in rooted.steps {
            out.push_str("\n        .");
            self.call(On::Step, c, out)?;
        }
        Ok(())
    }

    fn arg(&self, e: &Expr) -> Result<String> {
        Ok(match e {
            Expr::Ident(name) => {
                if let Some((_, v)) = self.params.iter().find(|(k, _)| k == name) {
                    format!("GValue::new({name:?}, {})", self.lit_rust(v)?)
                } else if let Some(t) = via_api::tokens(None, name).first() {
                    self.token(t)?
                } else if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                    format!("Strategy::new({name:?})")
                } else {
                    bail!("unknown identifier {name}")
                }
            }
            Expr::Traversal {
                anonymous: true,
                steps,
            } => {
                let mut s = String::from("__::");
                let (first, rest) = steps
                    .split_first()
                    .context("an empty anonymous traversal")?;
                self.call(On::Step, first, &mut s)?;
                for c in rest {
                    s.push('.');
                    self.call(On::Step, c, &mut s)?;
                }
                s
            }
            Expr::Traversal { .. } => bail!("a traversal from g as an argument"),
            Expr::Pred { first, rest, .. } => {
                let st = self.step_of(On::Predicate, &first.name)?;
                let class = st.class.clone().unwrap_or_else(|| "P".into());
                let mut s = format!("{class}::");
                self.call(On::Predicate, first, &mut s)?;
                for c in rest {
                    match (c.name.as_str(), c.args.as_slice()) {
                        ("negate", []) => s.push_str(".negate()"),
                        ("and" | "or", [other]) => {
                            let _ = write!(s, ".{}({})", c.name, self.arg(other)?);
                        }
                        _ => bail!("predicate method {}", c.name),
                    }
                }
                s
            }
            Expr::Strategy { name, config } => {
                let mut s = format!("Strategy::new({name:?})");
                for (k, v) in config {
                    let _ = write!(s, ".config({k:?}, {})", self.arg(v)?);
                }
                s
            }
            other => self.lit_rust(&self.lit(other)?)?,
        })
    }

    fn lit(&self, e: &Expr) -> Result<Lit> {
        Interp {
            params: self.params,
        }
        .lit(e)
    }

    fn token(&self, t: &Token) -> Result<String> {
        let text = t.to_string();
        let (class, name) = text.split_once('.').context("token")?;
        let def = self
            .spec
            .tokens
            .iter()
            .find(|d| d.class == class)
            .with_context(|| format!("no token class {class}"))?;
        let (_, rust, _, _) = def
            .values
            .iter()
            .find(|v| v.0 == name)
            .with_context(|| format!("no token {text}"))?;
        Ok(format!("{class}::{rust}"))
    }

    /// A Rust expression of a type that is `Into<Lit>`.
    fn lit_rust(&self, l: &Lit) -> Result<String> {
        let float = |x: f64, ty: &str| {
            if x.is_nan() {
                format!("{ty}::NAN")
            } else if x.is_infinite() {
                format!("{}{ty}::INFINITY", if x < 0.0 { "-" } else { "" })
            } else {
                format!("{x:?}{ty}")
            }
        };
        let bytes = |b: &[u8]| {
            let items: Vec<String> = b.iter().map(|x| format!("{x}u8")).collect();
            format!("vec![{}]", items.join(", "))
        };
        let lits = |items: &[Lit]| -> Result<String> {
            let v: Vec<String> = items
                .iter()
                .map(|i| Ok(format!("Lit::from({})", self.lit_rust(i)?)))
                .collect::<Result<_>>()?;
            Ok(format!("vec![{}]", v.join(", ")))
        };
        Ok(match l {
            Lit::Null => "Lit::Null".into(),
            Lit::Bool(b) => b.to_string(),
            Lit::Byte(n) => format!("{n}i8"),
            Lit::Short(n) => format!("{n}i16"),
            Lit::Int(n) => format!("{n}i32"),
            Lit::Long(n) => format!("{n}i64"),
            Lit::BigInt(n) => format!("BigInteger::from_bytes({})", bytes(n.as_bytes())),
            Lit::Float(f) => float(f64::from(*f), "f32"),
            Lit::Double(d) => float(*d, "f64"),
            Lit::BigDecimal(d) => format!(
                "Lit::BigDecimal(Box::new(BigDecimal {{ scale: {}, unscaled: BigInteger::from_bytes({}) }}))",
                d.scale,
                bytes(d.unscaled.as_bytes())
            ),
            Lit::String(s) => format!("{s:?}"),
            Lit::Char(c) => format!("{c:?}"),
            Lit::DateTime(d) => format!(
                "DateTime {{ year: {}, month: {}, day: {}, nanos: {}, offset_seconds: {}, kind: Default::default() }}",
                d.year, d.month, d.day, d.nanos, d.offset_seconds
            ),
            Lit::Uuid(u) => format!(
                "Lit::try_from(Value::Uuid(Uuid::from_u128({}u128))).unwrap()",
                u.as_u128()
            ),
            Lit::Duration(d) => format!(
                "Duration {{ seconds: {}, nanos: {} }}",
                d.seconds, d.nanos
            ),
            Lit::Binary(b) => format!("Lit::binary({})", bytes(b)),
            Lit::PrimitivePdt(_) | Lit::CompositePdt(_) => {
                anyhow::bail!("a PDT literal has no Rust form here")
            }
            Lit::List(items) => format!("Lit::List({})", lits(items)?),
            Lit::Set(items) => format!("Lit::Set({})", lits(items)?),
            Lit::Map(entries) => {
                let v: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| {
                        Ok(format!(
                            "(Lit::from({}), Lit::from({}))",
                            self.lit_rust(k)?,
                            self.lit_rust(v)?
                        ))
                    })
                    .collect::<Result<_>>()?;
                format!("Lit::Map(vec![{}])", v.join(", "))
            }
            Lit::Token(t) => self.token(t)?,
            Lit::CardinalityValue(c, v) => format!(
                "Lit::cardinality({}, {})",
                self.token(&Token::from(*c))?,
                self.lit_rust(v)?
            ),
        })
    }
}

/// A scenario parameter's value without a server: elements stand for id 1.
fn offline_value(t: &Typed) -> Lit {
    super::literal::literal(t, &Default::default(), super::literal::Lang::GremlinLang)
        .ok()
        .and_then(|text| via_api::literal(&text).ok())
        .unwrap_or(Lit::Long(1))
}

/// Translates, compiles and runs the scenarios; returns (identical, differing or untranslatable).
pub fn run(scenarios: &[Scenario]) -> Result<(usize, usize)> {
    let root = project_root();
    let spec_text = std::fs::read_to_string(root.join("spec/steps.toml"))?;
    let spec = spec::parse("spec/steps.toml", &spec_text)
        .map_err(|e| anyhow::anyhow!("spec/steps.toml: {e}"))?;
    let mut funcs = String::new();
    let mut table = String::new();
    let mut wanted = Vec::new();
    let mut failed = 0;
    for sc in scenarios {
        let mut params = Vec::new();
        let mut text = None;
        for step in &sc.steps {
            let v = step.value.trim();
            if let Some(rest) = v.strip_prefix("using the parameter ") {
                let (name, value) = super::defined_as(rest)?;
                params.push((name, offline_value(&super::notation::parse(&value)?)));
            } else if v == "the traversal of" {
                text = step.docstring.as_deref().map(|d| d.trim().to_string());
            }
        }
        let Some(text) = text else { continue };
        let interp = Interp { params: &params };
        let g = graphbinary_client::process::GraphTraversalSource::detached();
        // Parsed once: `UUID()` is a random value, the same for both.
        let parsed = via_api::parse(&text)?;
        let want = match interp
            .traversal_of(&g, parsed.clone())
            .and_then(|t| Ok(t.gremlin_lang()?))
        {
            Ok(l) => (l.gremlin.clone(), l.parameters_text()?),
            Err(e) => {
                // Not buildable offline (the server's route checks it with real values).
                println!("skip [rust] {}: {e:#}", sc.id());
                continue;
            }
        };
        let em = Emitter {
            spec: &spec,
            params: &params,
        };
        let mut body = String::new();
        let res = match &parsed {
            Expr::Traversal {
                anonymous: false,
                steps,
            } => em.traversal(steps, &mut body),
            _ => Err(anyhow::anyhow!("not a traversal from g")),
        };
        if let Err(e) = res {
            failed += 1;
            println!("FAIL [rust] {}: not translated: {e:#}", sc.id());
            continue;
        }
        let n = wanted.len();
        let _ = writeln!(
            funcs,
            "/// {}\nfn s{n}(g: &GraphTraversalSource) -> GraphTraversal {{\n    {body}\n}}\n",
            sc.id().replace('\n', " ")
        );
        let _ = writeln!(table, "        s{n},");
        wanted.push((sc.id(), want));
    }
    let dir = root.join("target/features-api");
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "# Generated by `cargo xtask features --via rust`; not part of the repository.\n\
             [package]\nname = \"features-api\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [workspace]\n\n[dependencies]\ngraphbinary-client = {{ path = {:?} }}\nuuid = \"1\"\n",
            root.join("graphbinary-client").display().to_string()
        ),
    )?;
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))?;
    std::fs::write(
        dir.join("src/main.rs"),
        format!(
            "//! Generated by `cargo xtask features --via rust` from TinkerPop's feature files.\n\
             #![allow(unused_imports, clippy::all)]\n\
             use graphbinary_client::value::{{BigDecimal, BigInteger, DateTime, Duration}};\n\
             use graphbinary_client::process::*;\nuse graphbinary_client::Value;\nuse uuid::Uuid;\n\n\
             {funcs}\nfn main() {{\n    let g = GraphTraversalSource::detached();\n    \
             let all: &[fn(&GraphTraversalSource) -> GraphTraversal] = &[\n{table}    ];\n    \
             for f in all {{\n        match f(&g).gremlin_lang() {{\n            \
             Ok(l) => println!(\"{{}}\\t{{}}\", l.gremlin, l.parameters_text().unwrap_or_default()),\n            \
             Err(e) => println!(\"ERROR {{e}}\\t\"),\n        }}\n    }}\n}}\n"
        ),
    )?;
    eprintln!(
        "xtask: {} scenarios translated to Rust in {}; compiling",
        wanted.len(),
        dir.join("src/main.rs").display()
    );
    let started = std::time::Instant::now();
    let out = std::process::Command::new("cargo")
        .args(["run", "--quiet", "--offline", "--target-dir"])
        .arg(root.join("target"))
        .current_dir(&dir)
        .output()?;
    if !out.status.success() {
        bail!(
            "the generated crate did not build or run:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    eprintln!(
        "xtask: compiled and ran in {}",
        crate::util::secs(started.elapsed())
    );
    let stdout = String::from_utf8(out.stdout)?;
    let lines: Vec<&str> = stdout.lines().collect();
    anyhow::ensure!(
        lines.len() == wanted.len(),
        "the generated crate printed {} lines for {} scenarios",
        lines.len(),
        wanted.len()
    );
    let mut same = 0;
    for (line, (id, (gremlin, params))) in lines.iter().zip(&wanted) {
        let (g, p) = line.split_once('\t').unwrap_or((line, ""));
        if g == gremlin && p == params {
            same += 1;
        } else {
            failed += 1;
            println!(
                "FAIL [rust] {id}: the typed API wrote {g} {p}; the interpreter {gremlin} {params}"
            );
        }
    }
    Ok((same, failed))
}
