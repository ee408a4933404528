//! The typed-value notation of TinkerPop's feature files: `v[marko]`, `d[1].i`, `l[a,b]`,
//! `m[{"a":"b"}]`, `p[...]`, `t[id]`, `e[marko-knows->josh]`, ... (TinkerPop's
//! `for-committers.asciidoc`, "Gremlin Language Test Cases").
//!
//! [`parse`] turns a cell of a result table, or a `using the parameter` value, into a [`Typed`]
//! tree. Element references stay names here; they are looked up per graph when compared or
//! rendered.

use anyhow::{bail, Context, Result};

/// A parsed typed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Typed {
    Null,
    Bool(bool),
    Str(String),
    /// `d[<text>].<kind>`: kind is one of `b s i l f d m n`.
    Num {
        text: String,
        kind: char,
    },
    /// A JSON number inside `m[...]`: any numeric type of that value matches.
    Loose(f64),
    NaN,
    /// `d[Infinity]` (true) or `d[-Infinity]` (false).
    Inf(bool),
    List(Vec<Typed>),
    Set(Vec<Typed>),
    Map(Vec<(Typed, Typed)>),
    Path(Vec<Typed>),
    Vertex(String),
    VertexId(String),
    VertexSid(String),
    Edge(String),
    EdgeId(String),
    EdgeSid(String),
    /// `vp[marko-name->marko]`: the vertex's name (when given), the key and the value.
    VertexProp {
        vertex: Option<String>,
        key: String,
        value: Box<Typed>,
    },
    /// `prop[key,value]`.
    Prop {
        key: String,
        value: Box<Typed>,
    },
    T(String),
    Direction(String),
    Merge(String),
    DateTime(String),
    Uuid(String),
    Duration {
        seconds: i64,
        nanos: i64,
        positive: bool,
    },
    Char(char),
    Binary(Vec<u8>),
}

fn inner<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    s.strip_prefix(prefix)?.strip_suffix(']')
}

/// Parses one typed value.
pub fn parse(s: &str) -> Result<Typed> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("d[") {
        return parse_number(rest).with_context(|| format!("bad number {s:?}"));
    }
    // `v[name].id`, `v[name].sid`, `e[name].id`, `e[name].sid`.
    type Named = fn(String) -> Typed;
    let ids: [(&str, &str, Named); 4] = [
        ("v[", ".id", Typed::VertexId),
        ("v[", ".sid", Typed::VertexSid),
        ("e[", ".id", Typed::EdgeId),
        ("e[", ".sid", Typed::EdgeSid),
    ];
    for (prefix, suffix, typed) in ids {
        if let Some(name) = s.strip_suffix(suffix).and_then(|b| inner(b, prefix)) {
            return Ok(typed(name.to_string()));
        }
    }
    if let Some(x) = inner(s, "l[") {
        return Ok(Typed::List(split_items(x)?));
    }
    if let Some(x) = inner(s, "s[") {
        return Ok(Typed::Set(split_items(x)?));
    }
    if let Some(x) = inner(s, "p[") {
        return Ok(Typed::Path(split_items(x)?));
    }
    if let Some(x) = inner(s, "str[") {
        return Ok(Typed::Str(x.to_string()));
    }
    if let Some(x) = inner(s, "m[") {
        let json: serde_json::Value =
            serde_json::from_str(x).with_context(|| format!("bad JSON in {s:?}"))?;
        return from_json(&json);
    }
    if let Some(x) = inner(s, "v[") {
        return Ok(Typed::Vertex(x.to_string()));
    }
    if let Some(x) = inner(s, "e[") {
        return Ok(Typed::Edge(x.to_string()));
    }
    if let Some(x) = inner(s, "vp[") {
        let (left, value) = x
            .split_once("->")
            .with_context(|| format!("bad vertex property {s:?}"))?;
        let (vertex, key) = match left.rsplit_once('-') {
            Some((v, k)) => (Some(v.to_string()), k.to_string()),
            None => (None, left.to_string()),
        };
        return Ok(Typed::VertexProp {
            vertex,
            key,
            value: Box::new(parse(value)?),
        });
    }
    if let Some(x) = inner(s, "prop[") {
        let (key, value) = x
            .split_once(',')
            .with_context(|| format!("bad property {s:?}"))?;
        return Ok(Typed::Prop {
            key: key.trim().to_string(),
            value: Box::new(parse(value)?),
        });
    }
    if let Some(x) = inner(s, "t[") {
        return Ok(Typed::T(x.to_string()));
    }
    if let Some(x) = inner(s, "D[") {
        return Ok(Typed::Direction(x.to_string()));
    }
    if let Some(x) = inner(s, "M[") {
        return Ok(Typed::Merge(x.to_string()));
    }
    if let Some(x) = inner(s, "dt[") {
        return Ok(Typed::DateTime(x.to_string()));
    }
    if let Some(x) = inner(s, "uuid[") {
        return Ok(Typed::Uuid(x.to_ascii_lowercase()));
    }
    if let Some(x) = inner(s, "char[") {
        let mut chars = x.chars();
        return match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(Typed::Char(c)),
            _ => bail!("bad char {s:?}"),
        };
    }
    if let Some(x) = inner(s, "dur[") {
        let parts: Vec<&str> = x.split(',').map(str::trim).collect();
        if parts.len() < 2 || parts.len() > 3 {
            bail!("bad duration {s:?}");
        }
        return Ok(Typed::Duration {
            seconds: parts[0].parse()?,
            nanos: parts[1].parse()?,
            positive: parts.get(2).is_none_or(|p| *p == "true"),
        });
    }
    if let Some(x) = inner(s, "bin[") {
        return Ok(Typed::Binary(base64_decode(x)?));
    }
    Ok(match s {
        "null" => Typed::Null,
        "true" => Typed::Bool(true),
        "false" => Typed::Bool(false),
        _ => Typed::Str(s.to_string()),
    })
}

fn parse_number(rest: &str) -> Result<Typed> {
    match rest {
        "NaN]" => return Ok(Typed::NaN),
        "Infinity]" => return Ok(Typed::Inf(true)),
        "-Infinity]" => return Ok(Typed::Inf(false)),
        _ => {}
    }
    let (text, kind) = rest.rsplit_once("].").context("missing type suffix")?;
    let mut k = kind.chars();
    let kind = match (k.next(), k.next()) {
        (Some(c), None) if "bsilfdmn".contains(c) => c,
        _ => bail!("unknown number type {kind:?}"),
    };
    if text.parse::<f64>().is_err() {
        bail!("not a number: {text:?}");
    }
    Ok(Typed::Num {
        text: text.to_string(),
        kind,
    })
}

/// Splits a list body on commas outside brackets, and parses each item.
fn split_items(body: &str) -> Result<Vec<Typed>> {
    let mut items = Vec::new();
    if body.trim().is_empty() {
        return Ok(items);
    }
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in body.char_indices() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(parse(&body[start..i])?);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(parse(&body[start..])?);
    Ok(items)
}

fn from_json(v: &serde_json::Value) -> Result<Typed> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => Typed::Null,
        J::Bool(b) => Typed::Bool(*b),
        J::Number(n) => Typed::Loose(n.as_f64().context("JSON number")?),
        J::String(s) => parse(s)?,
        J::Array(a) => Typed::List(a.iter().map(from_json).collect::<Result<_>>()?),
        J::Object(o) => Typed::Map(
            o.iter()
                .map(|(k, v)| Ok((parse(k)?, from_json(v)?)))
                .collect::<Result<_>>()?,
        ),
    })
}

/// Standard base64 (with or without padding).
pub fn base64_decode(s: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => bail!("bad base64 {s:?}"),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(out)
}

/// Standard base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Nanoseconds since the epoch of an ISO-8601 date-time such as `2023-08-08T00:00:00Z`,
/// `2023-08-08T00:00:00.5+01:00` or `2023-08-08` (midnight UTC).
pub fn iso_instant_nanos(s: &str) -> Result<i128> {
    let bad = || anyhow::anyhow!("bad date-time {s:?}");
    let (date, time) = s.split_once('T').unwrap_or((s, "00:00:00Z"));
    let mut d = date.splitn(3, '-');
    let year: i64 = d.next().ok_or_else(bad)?.parse()?;
    let month: i64 = d.next().ok_or_else(bad)?.parse()?;
    let day: i64 = d.next().ok_or_else(bad)?.parse()?;
    let (clock, offset) = if let Some(c) = time.strip_suffix('Z') {
        (c, 0)
    } else if let Some(i) = time.rfind(['+', '-']) {
        let (c, o) = time.split_at(i);
        let sign = if o.starts_with('-') { -1 } else { 1 };
        let mut hm = o[1..].split(':');
        let h: i64 = hm.next().ok_or_else(bad)?.parse()?;
        let m: i64 = hm.next().unwrap_or("0").parse()?;
        (c, sign * (h * 3600 + m * 60))
    } else {
        (time, 0)
    };
    let mut t = clock.splitn(3, ':');
    let h: i64 = t.next().ok_or_else(bad)?.parse()?;
    let m: i64 = t.next().unwrap_or("0").parse()?;
    let sec = t.next().unwrap_or("0");
    let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
    let whole: i64 = whole.parse()?;
    let mut frac_nanos: i128 = 0;
    for (i, c) in frac.chars().take(9).enumerate() {
        let digit = c.to_digit(10).ok_or_else(bad)?;
        frac_nanos += i128::from(digit) * 10i128.pow(8 - i as u32);
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + h * 3600 + m * 60 + whole - offset;
    Ok(i128::from(secs) * 1_000_000_000 + frac_nanos)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str, kind: char) -> Typed {
        Typed::Num {
            text: text.into(),
            kind,
        }
    }

    #[test]
    fn numbers_keep_their_type_suffix() {
        assert_eq!(parse("d[1].i").unwrap(), num("1", 'i'));
        assert_eq!(parse("d[-0.5].d").unwrap(), num("-0.5", 'd'));
        assert_eq!(
            parse("d[123456789012].l").unwrap(),
            num("123456789012", 'l')
        );
        assert_eq!(parse("d[NaN]").unwrap(), Typed::NaN);
        assert_eq!(parse("d[-Infinity]").unwrap(), Typed::Inf(false));
        assert!(parse("d[1].x").is_err());
        assert!(parse("d[abc].i").is_err());
    }

    #[test]
    fn collections_split_by_bracket_depth() {
        assert_eq!(
            parse("l[a,l[b,d[1].i],s[]]").unwrap(),
            Typed::List(vec![
                Typed::Str("a".into()),
                Typed::List(vec![Typed::Str("b".into()), num("1", 'i')]),
                Typed::Set(vec![]),
            ])
        );
        assert_eq!(parse("l[]").unwrap(), Typed::List(vec![]));
        assert_eq!(
            parse("p[v[marko],v[lop],lop]").unwrap(),
            Typed::Path(vec![
                Typed::Vertex("marko".into()),
                Typed::Vertex("lop".into()),
                Typed::Str("lop".into())
            ])
        );
    }

    #[test]
    fn maps_parse_keys_and_values_as_notation() {
        let m = parse(r#"m[{"t[id]":"v[josh].id","D[OUT]":"m[{\"t[label]\":\"person\"}]","age":[29],"ok":true}]"#)
            .unwrap();
        assert_eq!(
            m,
            // serde_json's map sorts its keys: the order does not matter to maps.
            Typed::Map(vec![
                (
                    Typed::Direction("OUT".into()),
                    Typed::Map(vec![(
                        Typed::T("label".into()),
                        Typed::Str("person".into())
                    )])
                ),
                (
                    Typed::Str("age".into()),
                    Typed::List(vec![Typed::Loose(29.0)])
                ),
                (Typed::Str("ok".into()), Typed::Bool(true)),
                (Typed::T("id".into()), Typed::VertexId("josh".into())),
            ])
        );
    }

    #[test]
    fn elements_and_their_ids() {
        assert_eq!(
            parse("v[marko].id").unwrap(),
            Typed::VertexId("marko".into())
        );
        assert_eq!(
            parse("v[marko].sid").unwrap(),
            Typed::VertexSid("marko".into())
        );
        assert_eq!(
            parse("e[marko-knows->josh].id").unwrap(),
            Typed::EdgeId("marko-knows->josh".into())
        );
        assert_eq!(
            parse("vp[marko-age->d[29].i]").unwrap(),
            Typed::VertexProp {
                vertex: Some("marko".into()),
                key: "age".into(),
                value: Box::new(num("29", 'i'))
            }
        );
        assert_eq!(
            parse("prop[weight,d[0.4].d]").unwrap(),
            Typed::Prop {
                key: "weight".into(),
                value: Box::new(num("0.4", 'd'))
            }
        );
    }

    #[test]
    fn scalars_and_plain_strings() {
        assert_eq!(parse("null").unwrap(), Typed::Null);
        assert_eq!(parse("str[]").unwrap(), Typed::Str(String::new()));
        assert_eq!(parse("str[null]").unwrap(), Typed::Str("null".into()));
        assert_eq!(parse("char[a]").unwrap(), Typed::Char('a'));
        assert_eq!(parse("bin[AQID]").unwrap(), Typed::Binary(vec![1, 2, 3]));
        assert_eq!(
            parse("dur[9000,5,false]").unwrap(),
            Typed::Duration {
                seconds: 9000,
                nanos: 5,
                positive: false
            }
        );
        assert_eq!(
            parse("tinkergraph[vertices:3 edges:2]").unwrap(),
            Typed::Str("tinkergraph[vertices:3 edges:2]".into())
        );
    }

    #[test]
    fn base64_round_trips() {
        for bytes in [&b""[..], b"a", b"ab", b"abc", b"\x00\xff\x10\x20"] {
            assert_eq!(base64_decode(&base64_encode(bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn instants_honour_offsets_and_fractions() {
        let z = iso_instant_nanos("2023-08-08T00:00:00Z").unwrap();
        assert_eq!(z, 1_691_452_800 * 1_000_000_000);
        assert_eq!(iso_instant_nanos("2023-08-08T01:00:00+01:00").unwrap(), z);
        assert_eq!(
            iso_instant_nanos("2023-08-08T00:00:00.25Z").unwrap(),
            z + 250_000_000
        );
        assert_eq!(iso_instant_nanos("1970-01-01T00:00:00Z").unwrap(), 0);
    }
}
