//! `cargo xtask features --tinkerpop 3.7.3`: TinkerPop 3's own Gherkin suite through
//! a `ws://` [`graphbinary_client::Client`] (GraphBinary 1 over WebSocket).
//!
//! The feature files come from `org.apache.tinkerpop:gremlin-test:<version>`, fetched by Maven
//! (maven-dependency-plugin `copy`, from Maven Central or the local repository) into
//! `target/tinkerpop-features/jars/` and unpacked into `target/tinkerpop-features/<version>/`.
//! The server is `cargo xtask server3 --dataset integration` (port 8186 unless `--url` says
//! otherwise). Each scenario's text is Gremlin as gremlin-groovy reads it; it is sent as an
//! `eval` script with `aliases` `{g: <the graph's source>}`. Its parameters are `bindings` when
//! GraphBinary 1's request writer has them (scalars, ids, UUIDs, lists, sets and maps of those),
//! else Groovy definitions put before the script (`def v1 = g.V(1).next()` for an element,
//! closures for `c[...]` lambdas, `P.within(...)` for predicate parameters, BigDecimal,
//! dates, ...). Results are compared with the same notation and semantics as the 4.0 suite
//! ([`super::compare`]); the skips are in `xtask/features-skip-tp3.toml`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use futures::StreamExt;
use graphbinary_client::client::RequestBuilder;
use graphbinary_client::{Client, Error, Value};

use super::compare::{self, Lookup};
use super::literal::{literal, Lang};
use super::notation::{self, Typed};
use super::{Answer, Param, CLIENT_ERROR};
use crate::server::resolve::DEPENDENCY_PLUGIN;
use crate::util::{project_root, run as run_cmd};

/// The port of the TinkerPop 3.7.3 integration server this command starts when none answers.
pub const DEFAULT_PORT: u16 = 8186;

/// The port of the integration server of TinkerPop `version` that this command starts when
/// none answers (and no `--url` is given): one per version of the matrix, so that a server of
/// one version left running is never taken for another's; [`DEFAULT_PORT`] for the others.
/// [`connect`] checks the version that answers all the same.
pub fn default_port(version: &str) -> u16 {
    match version {
        "3.6.8" => 8176,
        "3.7.5" => 8177,
        "3.8.0" => 8178,
        "3.8.1" => 8179,
        _ => DEFAULT_PORT,
    }
}

/// The script that asks a Gremlin Server its TinkerPop version.
pub const VERSION_SCRIPT: &str = "org.apache.tinkerpop.gremlin.util.Gremlin.version()";

/// Refuses a server whose `Gremlin.version()` answer `got` is not `want`.
pub fn check_version(url: &str, want: &str, got: &Answer) -> Result<()> {
    match got.as_deref() {
        Ok([Value::String(v)]) if v == want => Ok(()),
        Ok([Value::String(v)]) => bail!(
            "the server at {url} runs TinkerPop {v}, not {want}: the {want} suite is run against \
             a {want} server only; stop that one, or start a {want} server elsewhere (`cargo \
             xtask server --tinkerpop {want} --dataset integration --port N --detach`) and pass \
             `--port N`"
        ),
        other => bail!(
            "the server at {url} did not tell its TinkerPop version ({VERSION_SCRIPT} gave \
             {other:?}); the {want} suite needs a Gremlin Server {want}"
        ),
    }
}
/// The skip list of the TinkerPop 3 suite.
pub const SKIP_FILE: &str = "xtask/features-skip-tp3.toml";

/// The feature files of gremlin-test `version`, fetched and unpacked at first use.
pub fn features_dir(version: &str) -> Result<PathBuf> {
    let base = project_root().join("target/tinkerpop-features");
    let out = base.join(version);
    let dir = out.join("org/apache/tinkerpop/gremlin/test/features");
    if dir.is_dir() {
        return Ok(dir);
    }
    let jars = base.join("jars");
    let jar = jars.join(format!("gremlin-test-{version}.jar"));
    if !jar.is_file() {
        anyhow::ensure!(
            crate::util::on_path("mvn"),
            "`mvn` (Apache Maven 3) is not on PATH; fetching gremlin-test {version} needs it"
        );
        std::fs::create_dir_all(&jars)?;
        eprintln!("xtask: fetching org.apache.tinkerpop:gremlin-test:{version} with Maven ...");
        let mut cmd = std::process::Command::new("mvn");
        cmd.args(["-B", "-q"])
            .arg(format!("{DEPENDENCY_PLUGIN}:copy"))
            .arg(format!(
                "-Dartifact=org.apache.tinkerpop:gremlin-test:{version}"
            ))
            .arg(format!("-DoutputDirectory={}", jars.display()))
            .current_dir(project_root().join("target"))
            .stdin(std::process::Stdio::null());
        run_cmd(&mut cmd).with_context(|| format!("is gremlin-test {version} a release?"))?;
        anyhow::ensure!(jar.is_file(), "Maven did not write {}", jar.display());
    }
    super::unpack_features(&jar, &out)?;
    Ok(dir)
}

/// The files sideEffect/Read.feature reads (`g.io("data/tinkerpop-modern.kryo").read()` and its
/// GraphSON and GraphML twins), relative to the working directory of the servers `server3`
/// starts (`target/gremlin-server3/`): copied from the gremlin-test jar, which holds the same
/// bytes as TinkerPop's `data/` (Gryo 3, GraphSON 3, GraphML).
pub fn write_read_feature_data(version: &str) -> Result<()> {
    let jar = project_root().join(format!(
        "target/tinkerpop-features/jars/gremlin-test-{version}.jar"
    ));
    let data = project_root().join("target/gremlin-server3/data");
    let files = [
        ("gryo/tinkerpop-modern-v3.kryo", "tinkerpop-modern.kryo"),
        ("graphson/tinkerpop-modern-v3.json", "tinkerpop-modern.json"),
        ("graphml/tinkerpop-modern.xml", "tinkerpop-modern.xml"),
    ];
    if files.iter().all(|(_, f)| data.join(f).is_file()) {
        return Ok(());
    }
    let tmp = project_root().join("target/gremlin-server3/data.partial");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    let members: Vec<String> = files
        .iter()
        .map(|(m, _)| format!("org/apache/tinkerpop/gremlin/structure/io/{m}"))
        .collect();
    let mut cmd = if crate::util::on_path("unzip") {
        let mut c = std::process::Command::new("unzip");
        c.args(["-q", "-o"])
            .arg(&jar)
            .args(&members)
            .arg("-d")
            .arg(&tmp);
        c
    } else {
        let mut c = std::process::Command::new("jar");
        c.arg("xf").arg(&jar).args(&members).current_dir(&tmp);
        c
    };
    run_cmd(&mut cmd).context("unpacking the Read.feature data (needs `unzip` or `jar`)")?;
    std::fs::create_dir_all(&data)?;
    for ((_, name), member) in files.iter().zip(&members) {
        std::fs::rename(tmp.join(member), data.join(name))?;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}

/// A `using the parameter NAME of P.fn("notation")` step: the Groovy predicate.
pub fn predicate_param(rest: &str, lk: &Lookup) -> Result<(String, String)> {
    let (name, pred) = rest
        .split_once(" of ")
        .context("bad `using the parameter ... of` step")?;
    let (func, arg) = pred
        .trim()
        .strip_suffix(')')
        .and_then(|p| p.split_once('('))
        .with_context(|| format!("bad predicate {pred:?}"))?;
    anyhow::ensure!(
        func.starts_with("P.") || func.starts_with("TextP."),
        "unknown predicate {func:?}"
    );
    let arg = notation::parse(super::unquote(arg))?;
    Ok((
        name.trim().to_string(),
        format!("{func}({})", literal(&arg, lk, Lang::Groovy)?),
    ))
}

/// A parameter as the eval request carries it: a binding when the GraphBinary 1 writer has the
/// value, else a Groovy expression defined before the script.
pub fn param(name: &str, t: &Typed, lk: &Lookup) -> Result<Param> {
    Ok(Param {
        name: name.to_string(),
        text: literal(t, lk, Lang::Groovy)?,
        binding: binding(t, lk),
    })
}

/// The value of `t` as a request binding, when GraphBinary 1's writer has every part of it.
fn binding(t: &Typed, lk: &Lookup) -> Option<Value> {
    Some(match t {
        Typed::Bool(b) => Value::Boolean(*b),
        Typed::Str(s) => Value::String(s.clone()),
        Typed::Num { text, kind } => match kind {
            'i' => Value::Int(text.parse().ok()?),
            'l' => Value::Long(text.parse().ok()?),
            's' => Value::Short(text.parse().ok()?),
            'b' => Value::Byte(text.parse().ok()?),
            'd' => Value::Double(text.parse().ok()?),
            'f' => Value::Float(text.parse().ok()?),
            _ => return None,
        },
        Typed::Loose(x) => {
            if x.fract() == 0.0 && x.abs() < 2147483648.0 {
                Value::Int(*x as i32)
            } else {
                Value::Double(*x)
            }
        }
        Typed::NaN => Value::Double(f64::NAN),
        Typed::Inf(p) => Value::Double(if *p { f64::INFINITY } else { f64::NEG_INFINITY }),
        Typed::List(items) => Value::List(
            items
                .iter()
                .map(|i| binding(i, lk))
                .collect::<Option<_>>()?,
        ),
        Typed::Set(items) => Value::Set(
            items
                .iter()
                .map(|i| binding(i, lk))
                .collect::<Option<_>>()?,
        ),
        Typed::Map(entries) => Value::Map(
            entries
                .iter()
                .map(|(k, v)| Some((binding(k, lk)?, binding(v, lk)?)))
                .collect::<Option<_>>()?,
        ),
        Typed::VertexId(name) => lk.vertex_id(name),
        Typed::EdgeId(name) => lk.edge_id(name),
        Typed::VertexSid(name) => Value::String(compare::id_string(&lk.vertex_id(name))),
        Typed::EdgeSid(name) => Value::String(compare::id_string(&lk.edge_id(name))),
        Typed::Uuid(u) => Value::Uuid(u.parse().ok()?),
        _ => return None,
    })
}

/// A scenario's traversal text as gremlin-groovy reads it, as the 3.x drivers translate the
/// canonical text into their language: `Lambda.function("...")` becomes a Groovy closure (the
/// string lambda is for bytecode; evaluated in a script it answers null), `Infinity` becomes
/// `Double.POSITIVE_INFINITY`, and an untyped `null` gets the cast that picks the overload
/// Groovy cannot choose by itself (`mergeV((Map) null)`, `option(Merge.onMatch, (Map) null)`;
/// `inject(null, null)`, which Groovy takes for its own `inject(Object, Closure)`, becomes an
/// `Object[]`). Strings are left alone.
pub fn groovy_text(text: &str) -> String {
    // Lambda.function("body") -> {body}
    let mut t = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("Lambda.function(\"") {
        t.push_str(&rest[..i]);
        let after = &rest[i + "Lambda.function(\"".len()..];
        match after.find("\")") {
            Some(j) => {
                t.push('{');
                t.push_str(&after[..j]);
                t.push('}');
                rest = &after[j + 2..];
            }
            None => {
                t.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    t.push_str(rest);
    // The rest outside string literals only.
    let mut out = String::new();
    let mut code = String::new();
    let mut chars = t.chars().peekable();
    let flush = |code: &mut String, out: &mut String| {
        out.push_str(&rewrite_code(code));
        code.clear();
    };
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            flush(&mut code, &mut out);
            out.push(c);
            while let Some(d) = chars.next() {
                out.push(d);
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        out.push(e);
                    }
                } else if d == c {
                    break;
                }
            }
        } else {
            code.push(c);
        }
    }
    flush(&mut code, &mut out);
    out
}

fn rewrite_code(code: &str) -> String {
    let mut s = code.to_string();
    for step in ["mergeV(null)", "mergeE(null)"] {
        s = s.replace(step, &step.replace("(null)", "((Map) null)"));
    }
    for opt in ["onCreate", "onMatch"] {
        for sep in [", ", ","] {
            s = s.replace(
                &format!("option(Merge.{opt}{sep}null)"),
                &format!("option(Merge.{opt}, (Map) null)"),
            );
        }
    }
    s = s.replace("inject(null, null)", "inject([null, null] as Object[])");
    // Infinity as a word of its own.
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find("Infinity") {
        let before = rest[..i].chars().last();
        let after = rest[i + 8..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        out.push_str(&rest[..i]);
        out.push_str(if word(before) || word(after) {
            "Infinity"
        } else {
            "Double.POSITIVE_INFINITY"
        });
        rest = &rest[i + 8..];
    }
    out.push_str(rest);
    out
}

/// Whether the scenario texts of TinkerPop `version`'s suite are canonical gremlin-lang, to be
/// made Groovy by [`lang_to_groovy`]: from 3.8 on (numbers as `1b`, `1s`, `1n`, `1m`, `5.0`
/// for a Double, `{...}` Sets, `UUID(...)`, `DateTime(...)`, strategies without `new`,
/// `T.label:` map keys), which gremlin-groovy does not read as is. (gremlin-core 3.8's own
/// `GremlinTranslator` to Groovy was tried: it leaves most of these as they are, and drops
/// the strategies of `withStrategies(RepeatUnrollStrategy)`.)
pub fn translates(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (3, 8)
}

/// Strategies that gremlin-groovy 3.8 does not import, by their full names.
const UNIMPORTED: &[(&str, &str)] = &[
    (
        "RepeatUnrollStrategy",
        "org.apache.tinkerpop.gremlin.process.traversal.strategy.optimization.RepeatUnrollStrategy",
    ),
    (
        "PathRetractionStrategy",
        "org.apache.tinkerpop.gremlin.process.traversal.strategy.optimization.PathRetractionStrategy",
    ),
];

/// A 3.8+ scenario text (canonical gremlin-lang) as gremlin-groovy reads it, outside string
/// literals: `1b` `((byte) 1)`, `1s` `((short) 1)`, `1n` `(new BigInteger('1'))`, `1m`
/// `(new BigDecimal('1'))`, an unsuffixed `5.0` the Double `5.0d`; `{a, b}` `([a, b] as Set)`;
/// `UUID("...")` / `UUID()` as `java.util.UUID`'s (a bare `UUID` is `GType.UUID` in Groovy);
/// `DateTime(` `datetime(`; a strategy with a configuration, `SeedStrategy(seed: 1)`, as
/// `SeedStrategy.create(new MapConfiguration([seed: 1]))` (what gremlin-lang's own engine
/// does), `withStrategies(OptionsStrategy)` as a built instance, and the strategies Groovy does
/// not import by their full names; `T.label:` map keys in parentheses; `mergeV(xx1)` /
/// `mergeE(xx1)` with a `(Map)` cast (the parameter may be null) and `hasLabel(null, null)`
/// with `(String)` casts, the overloads Groovy cannot pick.
pub fn lang_to_groovy(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let n = c.len();
    // Which characters are code (outside string literals).
    let mut code = vec![true; n];
    let mut i = 0;
    while i < n {
        if c[i] == '"' || c[i] == '\'' {
            let q = c[i];
            code[i] = false;
            i += 1;
            while i < n {
                code[i] = false;
                if c[i] == '\\' {
                    if i + 1 < n {
                        code[i + 1] = false;
                    }
                    i += 2;
                    continue;
                }
                i += 1;
                if c[i - 1] == q {
                    break;
                }
            }
        } else {
            i += 1;
        }
    }
    let word = |ch: char| ch.is_alphanumeric() || ch == '_';
    let rest_is = |i: usize, s: &str| c[i..].iter().copied().take(s.chars().count()).eq(s.chars());
    let mut out = String::new();
    // What each open parenthesis closes with.
    let mut parens: Vec<&'static str> = Vec::new();
    i = 0;
    while i < n {
        let ch = c[i];
        if !code[i] {
            // `$` in a Groovy string starts an interpolation (`"...MatchStep$CountMatchAlgorithm"`).
            if ch == '$' {
                out.push('\\');
            }
            out.push(ch);
            i += 1;
            continue;
        }
        let starts = i == 0 || !(word(c[i - 1]) || c[i - 1] == '.' || c[i - 1] == '$');
        match ch {
            '{' => out.push_str("(["),
            '}' => out.push_str("] as Set)"),
            '(' => {
                parens.push(")");
                out.push('(');
            }
            ')' => out.push_str(parens.pop().unwrap_or(")")),
            d if d.is_ascii_digit() && starts => {
                let mut j = i;
                while j < n && c[j].is_ascii_digit() {
                    j += 1;
                }
                if j + 1 < n && c[j] == '.' && c[j + 1].is_ascii_digit() {
                    j += 1;
                    while j < n && c[j].is_ascii_digit() {
                        j += 1;
                    }
                }
                if j < n && (c[j] == 'e' || c[j] == 'E') {
                    let mut k = j + 1;
                    if k < n && (c[k] == '+' || c[k] == '-') {
                        k += 1;
                    }
                    if k < n && c[k].is_ascii_digit() {
                        j = k;
                        while j < n && c[j].is_ascii_digit() {
                            j += 1;
                        }
                    }
                }
                let mut num: String = c[i..j].iter().collect();
                let suffix = match c.get(j) {
                    Some(s)
                        if "bBsSnNmMiIlLfFdD".contains(*s)
                            && !c.get(j + 1).is_some_and(|x| word(*x)) =>
                    {
                        j += 1;
                        Some(s.to_ascii_lowercase())
                    }
                    _ => None,
                };
                // A unary minus goes inside the cast.
                if out.ends_with('-') {
                    let before = out[..out.len() - 1].trim_end();
                    if before.is_empty() || before.ends_with(['(', ',', '[', ':']) {
                        out.pop();
                        num.insert(0, '-');
                    }
                }
                let decimal = num.contains(['.', 'e', 'E']);
                match suffix {
                    Some('b') => out.push_str(&format!("((byte) {num})")),
                    Some('s') => out.push_str(&format!("((short) {num})")),
                    Some('n') => out.push_str(&format!("(new BigInteger('{num}'))")),
                    Some('m') => out.push_str(&format!("(new BigDecimal('{num}'))")),
                    Some(s) => {
                        out.push_str(&num);
                        out.push(s);
                    }
                    None if decimal => {
                        out.push_str(&num);
                        out.push('d');
                    }
                    None => out.push_str(&num),
                }
                i = j;
                continue;
            }
            w if word(w) && (i == 0 || !(word(c[i - 1]) || c[i - 1] == '$')) => {
                let mut j = i;
                while j < n && word(c[j]) {
                    j += 1;
                }
                let name: String = c[i..j].iter().collect();
                // A dotted map key: `T.label:`.
                let mut k = j;
                while k < n && (word(c[k]) || c[k] == '.') {
                    k += 1;
                }
                let before = out.trim_end();
                if k > j && k < n && c[k] == ':' && (before.ends_with('[') || before.ends_with(','))
                {
                    let key: String = c[i..k].iter().collect();
                    out.push_str(&format!("({key})"));
                    i = k;
                    continue;
                }
                let after_dot = i > 0 && c[i - 1] == '.';
                let next = c.get(j).copied();
                if name == "UUID" && next == Some('(') && !after_dot {
                    if rest_is(j, "()") {
                        out.push_str("java.util.UUID.randomUUID()");
                        i = j + 2;
                    } else {
                        out.push_str("java.util.UUID.fromString");
                        i = j;
                    }
                    continue;
                }
                if name == "DateTime" && next == Some('(') && !after_dot {
                    out.push_str("datetime");
                    i = j;
                    continue;
                }
                if (name == "mergeV" || name == "mergeE") && rest_is(j, "(xx") {
                    let mut k = j + 3;
                    while k < n && c[k].is_ascii_digit() {
                        k += 1;
                    }
                    if c.get(k) == Some(&')') {
                        let var: String = c[j + 1..k].iter().collect();
                        out.push_str(&format!("{name}((Map) {var})"));
                        i = k + 1;
                        continue;
                    }
                }
                if name == "hasLabel" && rest_is(j, "(null, null)") {
                    out.push_str("hasLabel((String) null, (String) null)");
                    i = j + "(null, null)".len();
                    continue;
                }
                if name.ends_with("Strategy") && !after_dot {
                    let full = UNIMPORTED
                        .iter()
                        .find(|(s, _)| *s == name)
                        .map_or(name.as_str(), |(_, f)| f);
                    if next == Some('(') && !out.ends_with("new ") {
                        out.push_str(&format!(
                            "{full}.create(new org.apache.commons.configuration2.MapConfiguration(["
                        ));
                        parens.push("]))");
                        i = j + 1;
                        continue;
                    }
                    if name == "OptionsStrategy" && out.ends_with("withStrategies(") {
                        out.push_str("OptionsStrategy.build().create()");
                    } else {
                        out.push_str(full);
                    }
                    i = j;
                    continue;
                }
                out.push_str(&name);
                i = j;
                continue;
            }
            other => out.push(other),
        }
        i += 1;
    }
    out
}

/// Parameters sent so far as bindings, and as Groovy definitions.
pub static SENT: [std::sync::atomic::AtomicUsize; 2] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];

/// The script of one traversal and its bindings: the parameters that have one as bindings,
/// Groovy definitions of the others before `text`.
pub fn script(text: &str, params: &[Param]) -> (String, Vec<(String, Value)>) {
    let mut script = String::new();
    let mut bindings = Vec::new();
    for p in params {
        let i = usize::from(p.binding.is_none());
        SENT[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match &p.binding {
            Some(v) => bindings.push((p.name.clone(), v.clone())),
            None => {
                let _ = writeln!(script, "def {} = {}", p.name, p.text);
            }
        }
    }
    script.push_str(text);
    (script, bindings)
}

/// The eval request of one traversal ([`script`]): `g` the alias of `source`, a 60 s
/// evaluation timeout.
pub fn request(client: &Client, source: &str, text: &str, params: &[Param]) -> RequestBuilder {
    let (script, bindings) = script(text, params);
    let mut req = client.request(script).g(source).timeout_millis(60_000);
    for (name, value) in bindings {
        req = req.param(name, value);
    }
    req
}

/// Sends one eval and reads every result (a [`graphbinary_client::ResultStream`] expands
/// bulks).
pub async fn submit(client: &Client, source: &str, text: &str, params: &[Param]) -> Answer {
    let mut stream = match request(client, source, text, params).send().await {
        Ok(s) => s,
        Err(e) => return Err(error_text(e)),
    };
    let mut out = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(v) => out.push(v),
            Err(e) => return Err(error_text(e)),
        }
    }
    Ok(out)
}

fn error_text(e: Error) -> String {
    match e {
        Error::Server(s) => s.message.unwrap_or_default(),
        other => {
            // The whole chain: `invalid response message` alone does not say what was wrong.
            let mut text = format!("{CLIENT_ERROR}{other}");
            let mut source = std::error::Error::source(&other);
            while let Some(e) = source {
                let _ = write!(text, ": {e}");
                source = e.source();
            }
            text
        }
    }
}

pub use graphbinary_client::Serializer;

/// The serializer `--serializer NAME` names.
pub fn serializer(name: &str) -> Result<Serializer> {
    Ok(match name {
        "graphbinary1" => Serializer::GraphBinary1,
        "graphson2" => Serializer::GraphSon2,
        "graphson2-untyped" => Serializer::GraphSon2Untyped,
        "graphson3" => Serializer::GraphSon3,
        "graphson3-untyped" => Serializer::GraphSon3Untyped,
        other => bail!(
            "--serializer {other:?}: graphbinary1, graphson2, graphson2-untyped, graphson3 or \
             graphson3-untyped"
        ),
    })
}

/// The skip list of a run of TinkerPop `version`'s suite through `serializer`: [`SKIP_FILE`]
/// for 3.7.3's through GraphBinary 1, `xtask/features-skip-tp3-<version>.toml` for another
/// version's (what that server itself gets wrong, with the reason), and one of its own (what
/// the format cannot carry) for each GraphSON: `xtask/features-skip-tp3-<version>-<format>.toml`
/// where one exists (a later suite renames and adds scenarios), else 3.7.3's
/// `xtask/features-skip-tp3-<format>.toml`.
pub fn skip_file(version: &str, serializer: Serializer) -> String {
    let format = match serializer {
        Serializer::GraphSon2 => "graphson2",
        Serializer::GraphSon2Untyped => "graphson2-untyped",
        Serializer::GraphSon3 => "graphson3",
        Serializer::GraphSon3Untyped => "graphson3-untyped",
        _ if version == "3.7.3" => return SKIP_FILE.into(),
        _ => return format!("xtask/features-skip-tp3-{version}.toml"),
    };
    let own = format!("xtask/features-skip-tp3-{version}-{format}.toml");
    if project_root().join(&own).exists() {
        own
    } else {
        format!("xtask/features-skip-tp3-{format}.toml")
    }
}

/// Connects to the server at `url` through `serializer` and checks that it runs TinkerPop
/// `version` and has the integration layout.
pub async fn connect(url: &str, version: &str, serializer: Serializer) -> Result<Client> {
    let client = Client::builder(url)
        .serializer(serializer)
        .connect_timeout(Duration::from_secs(20))
        .build()
        .with_context(|| format!("connecting to {url}"))?;
    check_version(
        url,
        version,
        &submit(&client, "g", VERSION_SCRIPT, &[]).await,
    )?;
    for (source, count) in [
        ("gmodern", 6),
        ("gcrew", 6),
        ("ggrateful", 808),
        ("gsink", 3),
        ("gnullable", -1),
    ] {
        let got = submit(&client, source, "g.V().count()", &[]).await;
        let ok = match got.as_deref() {
            // An Int through untyped GraphSON.
            Ok([n]) if n.as_i64().is_some() => count < 0 || n.as_i64() == Some(count),
            _ => false,
        };
        if !ok {
            bail!(
                "the server at {url} does not have the integration layout ({source}: \
                 g.V().count() gave {got:?}); start one with `cargo xtask server3 --dataset \
                 integration --tinkerpop {version} --port N`"
            );
        }
    }
    Ok(client)
}

/// The matrix section of docs/CONFORMANCE.md: one row per version, each written by that
/// version's run.
pub const MATRIX_START: &str =
    "<!-- tinkerpop3-matrix: rows written by `cargo xtask features --tinkerpop V` / `--matrix` -->";
/// The end of that section.
pub const MATRIX_END: &str = "<!-- /tinkerpop3-matrix -->";
const MATRIX_HEAD: &str =
    "| server | serializer | scenarios | passed | failed | expected failures | \
skipped | passed share | time |\n|---|---|---:|---:|---:|---:|---:|---:|---:|";

/// The rows of servers the README names whose suite does not run here, each with its reason
/// (kept in the section by every write).
const NOT_RUN: &[&str] = &[
    "| JanusGraph 1.1.0 | GraphBinary 1 | not run | | | | | | |",
    "| Amazon Neptune | GraphBinary 1 | not run | | | | | | |",
    "| Azure Cosmos DB | GraphSON 2 | not run | | | | | | |",
];

/// The matrix's name of the serialization `serializer` (over WebSocket).
pub fn serializer_label(serializer: Serializer) -> &'static str {
    match serializer {
        Serializer::GraphSon2 => "GraphSON 2",
        Serializer::GraphSon2Untyped => "GraphSON 2 untyped",
        Serializer::GraphSon3 => "GraphSON 3",
        Serializer::GraphSon3Untyped => "GraphSON 3 untyped",
        _ => "GraphBinary 1",
    }
}

/// The serializer of TinkerPop 4's row.
pub const GRAPHBINARY4: &str = "GraphBinary 4 (HTTP)";

/// One run's row of the matrix: `server` (a version) through `serializer` (a
/// [`serializer_label`] or [`GRAPHBINARY4`]), its counts.
pub fn matrix_row(
    server: &str,
    serializer: &str,
    scenarios: &[super::Scenario],
    run: &super::ModeRun,
    skips: &super::skips::Skips,
) -> String {
    use super::Outcome;
    let count = |o: Outcome| run.outcomes.iter().filter(|(_, x)| *x == o).count();
    let expected = scenarios
        .iter()
        .filter(|sc| {
            skips
                .get(&sc.file, &sc.name)
                .is_some_and(|e| e.expect == super::skips::Expect::Fail)
        })
        .count();
    let (passed, failed, skipped) = (
        count(Outcome::Passed),
        count(Outcome::Failed),
        count(Outcome::Skipped),
    );
    let share = if scenarios.is_empty() {
        0.0
    } else {
        100.0 * passed as f64 / scenarios.len() as f64
    };
    format!(
        "| {server} | {serializer} | {} | {passed} | {failed} | {expected} | {skipped} | \
         {share:.2}% | {} |",
        scenarios.len(),
        crate::util::secs(run.took)
    )
}

/// A row's (server, serializer) cells; a row of the older 8-column table (no serializer) is
/// GraphBinary 1's.
fn row_key(row: &str) -> (String, String) {
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let ser = if cells.len() >= 11 {
        cells[2]
    } else {
        "GraphBinary 1"
    };
    (cells.get(1).copied().unwrap_or_default().into(), ser.into())
}

/// A row in the current columns (an older 8-column row gets its serializer cell).
fn upgraded(row: &str) -> String {
    if row.split('|').count() >= 11 {
        return row.to_string();
    }
    let (server, _) = row_key(row);
    let rest = row.trim_start_matches('|').trim_start();
    let rest = rest
        .strip_prefix(server.as_str())
        .unwrap_or(rest)
        .trim_start();
    format!("| {server} | GraphBinary 1 {rest}")
}

/// Rows in order: TinkerPop versions ascending, then the others as [`NOT_RUN`] lists them;
/// within a server GraphBinary first, then GraphSON 3, then GraphSON 2.
fn row_order(row: &str) -> (Vec<u32>, usize) {
    let (server, ser) = row_key(row);
    let version = if server.starts_with(|c: char| c.is_ascii_digit()) {
        server
            .split(['.', '-'])
            .map(|p| p.parse().unwrap_or(0))
            .collect()
    } else {
        let i = NOT_RUN
            .iter()
            .position(|r| row_key(r).0 == server)
            .unwrap_or(NOT_RUN.len());
        vec![u32::MAX, i as u32]
    };
    let ser = ["GraphBinary", "GraphSON 3", "GraphSON 2"]
        .iter()
        .position(|p| ser.starts_with(p))
        .unwrap_or(3)
        * 2
        + usize::from(ser.contains("untyped"));
    (version, ser)
}

/// The matrix section with `row` put in (replacing that server's and serializer's), rows in
/// [`row_order`].
pub fn matrix_with(text: &str, row: &str) -> String {
    let mut rows: Vec<String> = match (text.find(MATRIX_START), text.find(MATRIX_END)) {
        (Some(a), Some(b)) if a < b => text[a..b]
            .lines()
            .filter(|l| {
                l.starts_with("| ")
                    && !l.starts_with("| server")
                    && !l.starts_with("| Gremlin Server")
            })
            .map(upgraded)
            .collect(),
        _ => Vec::new(),
    };
    for r in NOT_RUN {
        if !rows.iter().any(|x| row_key(x).0 == row_key(r).0) {
            rows.push(r.to_string());
        }
    }
    rows.retain(|r| row_key(r) != row_key(row));
    rows.push(row.to_string());
    rows.sort_by_key(|r| row_order(r));
    format!(
        "{MATRIX_START}\n\n## Compatibility matrix (every server the README names)\n\n\
         Each TinkerPop 3 row: that version's own Gherkin suite (its gremlin-test jar) through \
         a `ws://` `graphbinary_client::Client` with that serializer, against a Gremlin \
         Server of that version with the suite's graphs, checked to answer `Gremlin.version()` \
         with it; written by `cargo xtask features --tinkerpop V [--serializer S]` (or \
         `cargo xtask matrix`, each version's GraphBinary 1 and GraphSON 3 rows). The 4.0.0-beta.3 row is the plain run of the \
         section at the top (`cargo xtask features` against `cargo xtask server --dataset \
         integration`; its suite is 4.0.0-beta.3's own). Expected failures are the \
         `expect = \"fail\"` entries of the run's skip list (GraphBinary 1: \
         `xtask/features-skip-tp3-V.toml`, a missing file lists none, 3.7.3: `{SKIP_FILE}`; \
         GraphSON: `xtask/features-skip-tp3-graphson2.toml` / `-graphson3.toml`, or \
         `xtask/features-skip-tp3-V-graphson2.toml` where a version has its own, what the format \
         cannot carry; 4.0: `xtask/features-skip.toml`), each with its reason; the skipped \
         column counts them with the `expect = \"skip\"` ones (not run). Times are of a shared \
         2-core machine. No row for 3.6.8: its server starts here (`cargo xtask server \
         --tinkerpop 3.6.8`, Java 17), but its suite, gremlin-test 3.6.8, is not served by the \
         Maven registry these machines reach.\n\n{MATRIX_HEAD}\n{}\n\n{NOT_RUN_WHY}\n\n{MATRIX_END}",
        rows.join("\n")
    )
}

/// Why the [`NOT_RUN`] rows have no counts.
const NOT_RUN_WHY: &str = "Not run: **JanusGraph 1.1.0** (`cargo xtask server --janusgraph \
1.1.0`) binds only the modern graph to `g`, while the suite needs the integration layout \
(`gmodern`, `gcrew`, `ggrateful`, `gsink`, `gnullable`, an empty `ggraph` per write scenario), \
which the launcher makes for TinkerGraph only, and which JanusGraph cannot hold as the suite \
writes it: TinkerFactory's generators take a TinkerGraph (they give their own integer ids, which \
JanusGraph assigns itself; `load-modern.groovy` rebuilds the modern graph with JanusGraph's ids \
instead), the crew graph's multi-properties need a LIST cardinality schema, and the nullable \
graph's null property values are refused by JanusGraph. JanusGraph is instead covered by the end-to-end \
tests against it (`ws3_janusgraph`, `ws3_janusgraph_index`, `roundtrip`, with \
`GREMLIN_WS_JANUSGRAPH_URL`, run by `cargo xtask ci`). **Amazon Neptune** and **Azure Cosmos \
DB** are services with no local server: SigV4 signing is checked against AWS's own signer \
(test `sigv4`), Cosmos DB's profile (GraphSON 2, its key as SASL password) against Gremlin \
Server 3.7.3 with `--auth` and a proxy forging what only Cosmos DB sends (test `cosmos`).";

/// Writes `row` into the matrix section of docs/CONFORMANCE.md (appended if missing).
pub fn write_matrix_row(row: &str) -> Result<()> {
    let path = project_root().join("docs/CONFORMANCE.md");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let section = matrix_with(&text, row);
    let new = match (text.find(MATRIX_START), text.find(MATRIX_END)) {
        (Some(a), Some(b)) if a < b => {
            format!("{}{section}{}", &text[..a], &text[b + MATRIX_END.len()..])
        }
        _ => format!("{}\n\n{section}\n", text.trim_end()),
    };
    std::fs::write(&path, new)?;
    eprintln!("xtask: wrote the row of docs/CONFORMANCE.md's TinkerPop 3 matrix");
    Ok(())
}

/// The section of docs/CONFORMANCE.md that the TinkerPop 3 run writes and `--compare-go` keeps.
pub const SECTION_START: &str =
    "<!-- tinkerpop3: written by `cargo xtask features --tinkerpop` -->";
/// The end of that section.
pub const SECTION_END: &str = "<!-- /tinkerpop3 -->";

/// The TinkerPop 3 section of an existing docs/CONFORMANCE.md text (markers included), if any.
pub fn section_of(text: &str) -> Option<&str> {
    let start = text.find(SECTION_START)?;
    let end = text[start..].find(SECTION_END)? + start + SECTION_END.len();
    Some(&text[start..end])
}

/// The compatibility matrix section of an existing docs/CONFORMANCE.md text (markers
/// included), if any.
pub fn matrix_of(text: &str) -> Option<&str> {
    let start = text.find(MATRIX_START)?;
    let end = text[start..].find(MATRIX_END)? + start + MATRIX_END.len();
    Some(&text[start..end])
}

/// Replaces (or appends) the TinkerPop 3 section of docs/CONFORMANCE.md.
pub fn write_section(section: &str) -> Result<()> {
    let path = project_root().join("docs/CONFORMANCE.md");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let new = match section_of(&text) {
        Some(old) => text.replacen(old, section.trim_end(), 1),
        None => format!("{}\n\n{}\n", text.trim_end(), section.trim_end()),
    };
    std::fs::write(&path, new)?;
    eprintln!("xtask: wrote the TinkerPop 3 section of docs/CONFORMANCE.md");
    Ok(())
}

/// The section for one run: totals, per directory, and the skips grouped by reason.
pub fn section(
    version: &str,
    scenarios: &[super::Scenario],
    run: &super::ModeRun,
    skips: &super::skips::Skips,
) -> String {
    use super::Outcome;
    use std::collections::BTreeMap;
    let mut dirs: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut all = [0usize; 4];
    for (sc, (_, o)) in scenarios.iter().zip(&run.outcomes) {
        let dir = sc.file.split('/').next().unwrap_or_default().to_string();
        let e = dirs.entry(dir).or_default();
        let i = match o {
            Outcome::Passed => 1,
            Outcome::Failed => 2,
            Outcome::Skipped => 3,
        };
        e[0] += 1;
        e[i] += 1;
        all[0] += 1;
        all[i] += 1;
    }
    let mut md = String::new();
    let _ = writeln!(md, "{SECTION_START}\n");
    let _ = writeln!(
        md,
        "## TinkerPop {version} (GraphBinary 1 over WebSocket)\n"
    );
    let _ = writeln!(
        md,
        "Written by `cargo xtask features --tinkerpop {version}` (do not edit; `--compare-go` \
         keeps it). TinkerPop {version}'s {} scenarios (the gremlin-test {version} jar from \
         Maven Central), run through a `ws://` `graphbinary_client::Client` against a Gremlin Server \
         {version} with the suite's graphs (`cargo xtask server3 --tinkerpop {version} \
         --dataset integration`): each traversal an `eval` script (gremlin-groovy) with its \
         parameters as bindings. Skipped: `{}`, each with its reason.\n",
        scenarios.len(),
        skip_file(version, Serializer::GraphBinary1)
    );
    let share = |p: usize, n: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * p as f64 / n as f64
        }
    };
    let _ = writeln!(
        md,
        "| runner | passed | failed | skipped | passed share | time |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|");
    let _ = writeln!(
        md,
        "| ours, Client over ws:// (GraphBinary 1, WebSocket) | {} | {} | {} | {:.2}% | {} |\n",
        all[1],
        all[2],
        all[3],
        share(all[1], all[0]),
        crate::util::secs(run.took)
    );
    let unsupported = scenarios
        .iter()
        .zip(&run.outcomes)
        .filter(|(sc, (_, o))| {
            *o == Outcome::Passed
                && sc
                    .steps
                    .iter()
                    .any(|s| s.value.trim() == "an unsupported test")
        })
        .count();
    let _ = writeln!(
        md,
        "Of the passed, {unsupported} are `Given an unsupported test` scenarios, whose only \
         check is that nothing runs (counted as passed, as in the 4.0 suite above). Parameters \
         that GraphBinary 1's request writer cannot carry (elements, lambdas `c[...]`, \
         predicates, BigDecimal, ...) are Groovy definitions put before the script; the texts \
         get the few rewrites gremlin-groovy needs (`Lambda.function` as a closure, `Infinity`, \
         casts of untyped `null` arguments; `tp3::groovy_text`). In this run {} parameter \
         values went as bindings and {} as Groovy definitions (the parameters of a scenario \
         go again with each of its `the graph should return` checks).\n",
        SENT[0].load(std::sync::atomic::Ordering::Relaxed),
        SENT[1].load(std::sync::atomic::Ordering::Relaxed)
    );
    let _ = writeln!(md, "| directory | scenarios | passed / failed / skipped |");
    let _ = writeln!(md, "|---|---:|---:|");
    for (d, c) in &dirs {
        let _ = writeln!(md, "| {d} | {} | {} / {} / {} |", c[0], c[1], c[2], c[3]);
    }
    let _ = writeln!(
        md,
        "| **all** | {} | {} / {} / {} |\n",
        all[0], all[1], all[2], all[3]
    );
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for e in skips.entries() {
        *reasons.entry(e.reason.as_str()).or_default() += 1;
    }
    if !reasons.is_empty() {
        let _ = writeln!(md, "Skips by reason:\n");
        for (r, n) in reasons {
            let _ = writeln!(md, "- {n} × {r}");
        }
        md.push('\n');
    }
    let _ = writeln!(md, "{SECTION_END}");
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_bindings_or_groovy() {
        let lk = Lookup::default();
        let p = param("xx1", &notation::parse("d[1].i").unwrap(), &lk).unwrap();
        assert_eq!(p.binding, Some(Value::Int(1)));
        let p = param("xx1", &notation::parse("d[1.5].m").unwrap(), &lk).unwrap();
        assert_eq!(p.binding, None);
        assert_eq!(p.text, "new BigDecimal('1.5')");
        let p = param("xx1", &notation::parse("s[a,b]").unwrap(), &lk).unwrap();
        assert_eq!(p.text, "(['a', 'b'] as LinkedHashSet)");
        let m = notation::parse(r#"m[{"t[label]":"person","name":"it's"}]"#).unwrap();
        assert_eq!(
            literal(&m, &lk, Lang::Groovy).unwrap(),
            r"[('name'): 'it\'s', (T.label): 'person']"
        );
        let (gremlin, bindings) = script("g.V(xx1)", &[param("xx1", &Typed::Null, &lk).unwrap()]);
        assert_eq!(gremlin, "def xx1 = null\ng.V(xx1)");
        assert!(bindings.is_empty(), "{bindings:?}");
        let (name, pred) = predicate_param(r#"xx1 of P.within("l[]")"#, &lk).unwrap();
        assert_eq!((name.as_str(), pred.as_str()), ("xx1", "P.within([])"));
    }

    #[test]
    fn texts_are_translated_for_groovy_outside_strings() {
        assert_eq!(
            groovy_text(r#"g.V().map(Lambda.function("it.get().value('name')"))"#),
            "g.V().map({it.get().value('name')})"
        );
        assert_eq!(
            groovy_text(r#"g.inject(Infinity).is(P.eq(-Infinity)).constant("Infinity")"#),
            r#"g.inject(Double.POSITIVE_INFINITY).is(P.eq(-Double.POSITIVE_INFINITY)).constant("Infinity")"#
        );
        assert_eq!(
            groovy_text("g.mergeV(null).option(Merge.onMatch,null).inject(null, null)"),
            "g.mergeV((Map) null).option(Merge.onMatch, (Map) null).inject([null, null] as Object[])"
        );
        assert_eq!(
            groovy_text(r#"g.inject("mergeV(null)")"#),
            r#"g.inject("mergeV(null)")"#
        );
    }

    #[test]
    fn a_server_of_another_version_is_refused() {
        let url = "ws://127.0.0.1:8186/gremlin";
        let answer = |v: &str| Ok(vec![Value::String(v.into())]);
        assert!(check_version(url, "3.8.1", &answer("3.8.1")).is_ok());
        let e = check_version(url, "3.8.1", &answer("3.7.3")).unwrap_err();
        assert!(
            e.to_string().contains("runs TinkerPop 3.7.3, not 3.8.1"),
            "{e}"
        );
        let e = check_version(url, "3.8.1", &Err("no such class".into())).unwrap_err();
        assert!(
            e.to_string().contains("did not tell its TinkerPop version"),
            "{e}"
        );
        assert_eq!(default_port("3.7.3"), DEFAULT_PORT);
        assert_ne!(default_port("3.8.1"), default_port("3.8.0"));
    }

    #[test]
    fn gremlin_lang_of_3_8_becomes_groovy() {
        assert_eq!(
            lang_to_groovy("g.inject(1b,-128b, 2s,3n,4.5m,5.0,1i,2l,-1.5d,{1,\"a{b}\"},{})"),
            "g.inject(((byte) 1),((byte) -128), ((short) 2),(new BigInteger('3')),\
             (new BigDecimal('4.5')),5.0d,1i,2l,-1.5d,([1,\"a{b}\"] as Set),([] as Set))"
        );
        assert_eq!(
            lang_to_groovy("g.V(xx1).sum().math(\"_ - 1\")"),
            "g.V(xx1).sum().math(\"_ - 1\")"
        );
        assert_eq!(
            lang_to_groovy(
                "g.inject(UUID('f47a'), UUID(), DateTime('2023')).is(typeOf(GType.UUID))"
            ),
            "g.inject(java.util.UUID.fromString('f47a'), java.util.UUID.randomUUID(), \
             datetime('2023')).is(typeOf(GType.UUID))"
        );
        assert_eq!(
            lang_to_groovy("g.withStrategies(SeedStrategy(seed: 99), RepeatUnrollStrategy).withStrategies(OptionsStrategy).withoutStrategies(OptionsStrategy)"),
            "g.withStrategies(SeedStrategy.create(new org.apache.commons.configuration2.\
             MapConfiguration([seed: 99])), org.apache.tinkerpop.gremlin.process.traversal.\
             strategy.optimization.RepeatUnrollStrategy).withStrategies(OptionsStrategy.build().\
             create()).withoutStrategies(OptionsStrategy)"
        );
        assert_eq!(
            lang_to_groovy("g.withStrategies(new SubgraphStrategy(vertices: __.has(\"x\")))"),
            "g.withStrategies(new SubgraphStrategy(vertices: __.has(\"x\")))"
        );
        assert_eq!(
            lang_to_groovy("g.mergeE([T.label:\"a\", (OUT):1, name:\"b\"]).mergeV(xx1).V().hasLabel(null, null)"),
            "g.mergeE([(T.label):\"a\", (OUT):1, name:\"b\"]).mergeV((Map) xx1).V().\
             hasLabel((String) null, (String) null)"
        );
        assert_eq!(lang_to_groovy("g.V(\"a$b\")"), "g.V(\"a\\$b\")");
        assert!(translates("3.8.1") && translates("3.9.0") && !translates("3.7.5"));
    }

    #[test]
    fn matrix_rows_are_replaced_by_server_and_serializer_and_sorted() {
        // An old 8-column row is upgraded to GraphBinary 1's.
        let old = format!(
            "# x\n{MATRIX_START}\n| 3.8.1 | 2061 | 2061 | 0 | 0 | 0 | 100.00% | 17s |\n{MATRIX_END}\n"
        );
        let one = matrix_with(
            &old,
            "| 3.8.1 | GraphSON 3 | 2061 | 2057 | 4 | 0 | 0 | 99.81% | 20s |",
        );
        let two = matrix_with(
            &one,
            "| 3.7.5 | GraphBinary 1 | 1515 | 1500 | 15 | 0 | 0 | 99.01% | 12s |",
        );
        let three = matrix_with(
            &two,
            "| 3.8.1 | GraphSON 3 | 2061 | 2061 | 0 | 0 | 0 | 100.00% | 21s |",
        );
        let four = matrix_with(
            &three,
            "| 4.0.0-beta.3 | GraphBinary 4 (HTTP) | 2353 | 2347 | 0 | 0 | 6 | 99.75% | 38s |",
        );
        let rows: Vec<&str> = four
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| server"))
            .collect();
        assert_eq!(
            rows,
            [
                "| 3.7.5 | GraphBinary 1 | 1515 | 1500 | 15 | 0 | 0 | 99.01% | 12s |",
                "| 3.8.1 | GraphBinary 1 | 2061 | 2061 | 0 | 0 | 0 | 100.00% | 17s |",
                "| 3.8.1 | GraphSON 3 | 2061 | 2061 | 0 | 0 | 0 | 100.00% | 21s |",
                "| 4.0.0-beta.3 | GraphBinary 4 (HTTP) | 2353 | 2347 | 0 | 0 | 6 | 99.75% | 38s |",
                NOT_RUN[0],
                NOT_RUN[1],
                NOT_RUN[2],
            ]
        );
        assert!(four.starts_with(MATRIX_START) && four.ends_with(MATRIX_END));
        assert_eq!(
            matrix_with(&four, rows[0]),
            four,
            "rewriting a row changes nothing else"
        );
    }

    #[test]
    fn the_section_is_found_between_its_markers() {
        let text = format!("# x\n\n{SECTION_START}\nold\n{SECTION_END}\n");
        assert_eq!(
            section_of(&text),
            Some(format!("{SECTION_START}\nold\n{SECTION_END}").as_str())
        );
        assert_eq!(section_of("# x\n"), None);
        let m = matrix_with("# x\n", NOT_RUN[0]);
        let text = format!("# x\n\n{text}\n{m}\n");
        assert_eq!(matrix_of(&text), Some(m.as_str()));
        assert_eq!(matrix_of("# x\n"), None);
    }
}
