//! A [`Typed`] value as a literal of the language a scenario's traversal is sent in, for its
//! parameters and side effects: gremlin-lang (TinkerPop 4, elements written as their ids, as
//! gremlin-go does) or Groovy (TinkerPop 3's `eval` scripts, elements fetched with
//! `g.V(id).next()`). One writer; the two languages differ only in the spelling of a few values.

use std::fmt::Write as _;

use anyhow::{bail, Result};
use graphbinary_client::Value;

use super::compare::{id_string, Lookup};
use super::notation::{base64_encode, Typed};

/// The language of a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// gremlin-lang, as TinkerPop 4's servers parse a request's text and parameters.
    GremlinLang,
    /// Groovy, as gremlin-groovy evaluates TinkerPop 3's `eval` scripts.
    Groovy,
}

impl Lang {
    fn name(self) -> &'static str {
        match self {
            Lang::GremlinLang => "gremlin-lang",
            Lang::Groovy => "Groovy",
        }
    }

    /// `gremlin_lang` or `groovy`, whichever is this language's.
    fn pick<'a>(self, gremlin_lang: &'a str, groovy: &'a str) -> &'a str {
        match self {
            Lang::GremlinLang => gremlin_lang,
            Lang::Groovy => groovy,
        }
    }
}

/// `t` as a literal of `lang` (in Groovy, an expression in a script whose `g` is the graph's
/// traversal source).
pub fn literal(t: &Typed, lk: &Lookup, lang: Lang) -> Result<String> {
    let mut out = String::new();
    write(t, lk, lang, &mut out)?;
    Ok(out)
}

fn write(t: &Typed, lk: &Lookup, lang: Lang, out: &mut String) -> Result<()> {
    let groovy = lang == Lang::Groovy;
    // Strings: gremlin-lang's quoting is Groovy's too (single quotes, `\'`, `\\`, `\n`,
    // `\uXXXX`, ...).
    match t {
        Typed::Null => out.push_str("null"),
        Typed::Bool(b) => b.write_literal(out),
        Typed::Str(s) => s.write_literal(out),
        Typed::Num { text, kind } => number(text, *kind, lang, out)?,
        Typed::Loose(x) => {
            if x.fract() == 0.0 && x.abs() < 2147483648.0 {
                let _ = write!(out, "{}{}", *x as i64, lang.pick("", "i"));
            } else {
                let _ = write!(out, "{x:?}d");
            }
        }
        Typed::NaN => out.push_str(lang.pick("NaN", "Double.NaN")),
        Typed::Inf(true) => out.push_str(lang.pick("Infinity", "Double.POSITIVE_INFINITY")),
        Typed::Inf(false) => out.push_str(lang.pick("-Infinity", "Double.NEGATIVE_INFINITY")),
        Typed::List(items) => {
            out.push('[');
            write_items(items, lk, lang, out)?;
            out.push(']');
        }
        Typed::Set(items) => {
            out.push_str(lang.pick("{", "(["));
            write_items(items, lk, lang, out)?;
            out.push_str(lang.pick("}", "] as LinkedHashSet)"));
        }
        Typed::Map(entries) if entries.is_empty() => out.push_str("[:]"),
        Typed::Map(entries) => {
            out.push('[');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(lang.pick(",", ", "));
                }
                out.push('(');
                write(k, lk, lang, out)?;
                out.push_str(lang.pick("):", "): "));
                write(v, lk, lang, out)?;
            }
            out.push(']');
        }
        Typed::Vertex(name) if groovy => {
            out.push_str("g.V(");
            id(&lk.vertex_id(name), lang, out)?;
            out.push_str(").next()");
        }
        Typed::Edge(name) if groovy => {
            out.push_str("g.E(");
            id(&lk.edge_id(name), lang, out)?;
            out.push_str(").next()");
        }
        Typed::Vertex(name) | Typed::VertexId(name) => id(&lk.vertex_id(name), lang, out)?,
        Typed::Edge(name) | Typed::EdgeId(name) => id(&lk.edge_id(name), lang, out)?,
        Typed::VertexSid(name) => id_string(&lk.vertex_id(name)).write_literal(out),
        Typed::EdgeSid(name) => id_string(&lk.edge_id(name)).write_literal(out),
        Typed::T(name) => {
            let _ = write!(out, "T.{name}");
        }
        Typed::Direction(d) => {
            let _ = write!(out, "Direction.{d}");
        }
        Typed::Merge(m) => {
            let _ = write!(out, "Merge.{m}");
        }
        Typed::DateTime(s) => {
            // TinkerPop 3.7's date type is java.util.Date.
            out.push_str(lang.pick("datetime(", "Date.from(java.time.OffsetDateTime.parse("));
            s.write_literal(out);
            out.push_str(lang.pick(")", ").toInstant())"));
        }
        Typed::Uuid(u) => {
            out.push_str(lang.pick("UUID(", "UUID.fromString("));
            u.write_literal(out);
            out.push(')');
        }
        Typed::Duration {
            seconds,
            nanos,
            positive,
        } => {
            let _ = match (lang, positive) {
                (Lang::GremlinLang, true) => write!(out, "Duration({seconds},{nanos})"),
                (Lang::GremlinLang, false) => write!(out, "Duration({seconds},{nanos},false)"),
                (Lang::Groovy, _) => write!(
                    out,
                    "java.time.Duration.ofSeconds({seconds}L, {nanos}L){}",
                    if *positive { "" } else { ".negated()" }
                ),
            };
        }
        Typed::Char(c) => {
            c.to_string().write_literal(out);
            out.push_str(lang.pick("c", " as char"));
        }
        Typed::Binary(b) if !groovy => {
            out.push_str("Binary(");
            base64_encode(b).write_literal(out);
            out.push(')');
        }
        Typed::Binary(_) | Typed::Path(_) | Typed::VertexProp { .. } | Typed::Prop { .. } => {
            bail!("{t:?} has no {} literal", lang.name())
        }
    }
    Ok(())
}

/// A number of the notation's `kind` (`d[text].kind`).
fn number(text: &str, kind: char, lang: Lang, out: &mut String) -> Result<()> {
    let _ = match (lang, kind) {
        (Lang::GremlinLang, _) => write!(out, "{text}{kind}"),
        (Lang::Groovy, 'b') => write!(out, "((byte) {text})"),
        (Lang::Groovy, 's') => write!(out, "((short) {text})"),
        (Lang::Groovy, 'i' | 'f' | 'd') => write!(out, "{text}{kind}"),
        (Lang::Groovy, 'l') => write!(out, "{text}L"),
        (Lang::Groovy, 'm') => write!(out, "new BigDecimal('{text}')"),
        (Lang::Groovy, 'n') => write!(out, "new BigInteger('{text}')"),
        (Lang::Groovy, other) => bail!("unknown number kind {other:?}"),
    };
    Ok(())
}

fn write_items(items: &[Typed], lk: &Lookup, lang: Lang, out: &mut String) -> Result<()> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(lang.pick(",", ", "));
        }
        write(item, lk, lang, out)?;
    }
    Ok(())
}

/// An element id.
fn id(id: &Value, lang: Lang, out: &mut String) -> Result<()> {
    match id {
        Value::Int(i) => {
            let _ = write!(out, "{i}i");
        }
        Value::Long(i) => {
            let _ = write!(out, "{i}{}", lang.pick("l", "L"));
        }
        Value::String(s) => s.write_literal(out),
        Value::Uuid(u) => {
            let _ = write!(out, "{}'{u}')", lang.pick("UUID(", "UUID.fromString("));
        }
        other => bail!("element id {other} has no {} literal", lang.name()),
    }
    Ok(())
}

/// The feature files' strings as literals, single-quoted (gremlin-lang's quoting, and Groovy's
/// plain strings: no `$` interpolation): `'it\'s'`; booleans as `true` / `false`.
pub(crate) trait GremlinLiteral {
    fn write_literal(&self, out: &mut String);
}

impl GremlinLiteral for str {
    fn write_literal(&self, out: &mut String) {
        out.push_str(&graphbinary_client::process::single_quoted_literal(self));
    }
}

impl GremlinLiteral for String {
    fn write_literal(&self, out: &mut String) {
        self.as_str().write_literal(out)
    }
}

impl GremlinLiteral for bool {
    fn write_literal(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::notation::parse;

    #[test]
    fn literals_keep_types_in_both_languages() {
        // (notation, gremlin-lang, Groovy)
        let cases = [
            ("d[1].i", "1i", "1i"),
            ("d[2].l", "2l", "2L"),
            ("d[3].b", "3b", "((byte) 3)"),
            ("d[0.5].d", "0.5d", "0.5d"),
            ("d[1.5].m", "1.5m", "new BigDecimal('1.5')"),
            ("d[NaN]", "NaN", "Double.NaN"),
            ("l[a,d[2].l]", "['a',2l]", "['a', 2L]"),
            ("s[]", "{}", "([] as LinkedHashSet)"),
            ("s[a,b]", "{'a','b'}", "(['a', 'b'] as LinkedHashSet)"),
            (
                r#"m[{"t[label]":"person","name":"it's"}]"#,
                r"[('name'):'it\'s',(T.label):'person']",
                r"[('name'): 'it\'s', (T.label): 'person']",
            ),
            ("v[nobody]", "'nobody'", "g.V('nobody').next()"),
            (
                "dt[2023-08-08T00:00:00Z]",
                "datetime('2023-08-08T00:00:00Z')",
                "Date.from(java.time.OffsetDateTime.parse('2023-08-08T00:00:00Z').toInstant())",
            ),
        ];
        let lk = Lookup::default();
        for (notation, gremlin_lang, groovy) in cases {
            let t = parse(notation).unwrap();
            assert_eq!(literal(&t, &lk, Lang::GremlinLang).unwrap(), gremlin_lang);
            assert_eq!(literal(&t, &lk, Lang::Groovy).unwrap(), groovy);
        }
        // Binary has no Groovy form here, a path no literal at all.
        let binary = parse("bin[AQID]").unwrap();
        assert_eq!(
            literal(&binary, &lk, Lang::GremlinLang).unwrap(),
            "Binary('AQID')"
        );
        assert!(literal(&binary, &lk, Lang::Groovy).is_err());
        assert!(literal(&parse("p[a]").unwrap(), &lk, Lang::GremlinLang).is_err());
    }
}
