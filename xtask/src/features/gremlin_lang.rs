//! A recursive-descent parser of gremlin-lang traversal texts (the subset of
//! `/work/shared/grammar/Gremlin.g4` that a client writes: traversals, anonymous traversals,
//! literals of every type, tokens, predicates, strategies and variables).
//!
//! The parse tree keeps what the grammar cannot decide without the step's forms (a bare
//! identifier is a variable, a token without its class, or a strategy class); the
//! interpreter in `via_api` resolves them against the traversal API.

use anyhow::{bail, Context, Result};
use graphbinary_client::model::{BigDecimal, BigInteger, DateTime, Duration};
use graphbinary_client::process::Lit;
use num_bigint::BigInt;

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
            Some(b'"' | b'\'') => {
                let s = self.string()?;
                if self.s.get(self.i) == Some(&b'c') {
                    self.i += 1;
                    let mut cs = s.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) => return Ok(Expr::Lit(Lit::Char(c))),
                        _ => bail!("a char literal holds one character: {s:?}"),
                    }
                }
                Ok(Expr::Lit(Lit::String(s)))
            }
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
                if self.src[self.i..].starts_with("-Infinity") {
                    self.i += "-Infinity".len();
                    return Ok(Expr::Lit(Lit::Double(f64::NEG_INFINITY)));
                }
                if self.src[self.i..].starts_with("+Infinity") {
                    self.i += "+Infinity".len();
                    return Ok(Expr::Lit(Lit::Double(f64::INFINITY)));
                }
                self.number().map(Expr::Lit)
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

    fn string(&mut self) -> Result<String> {
        let q = self.s[self.i];
        self.i += 1;
        let mut out = String::new();
        let rest = &self.src[self.i..];
        let mut chars = rest.char_indices();
        while let Some((at, c)) = chars.next() {
            if c == q as char {
                self.i += at + 1;
                return Ok(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some((_, e)) = chars.next() else { break };
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                '0' => out.push('\0'),
                'u' => {
                    let hex: String = (0..4).filter_map(|_| chars.next().map(|x| x.1)).collect();
                    let mut code = u32::from_str_radix(&hex, 16).context("bad \\u escape")?;
                    // A surrogate pair, as Java writes characters outside the BMP.
                    if (0xD800..0xDC00).contains(&code) {
                        let tail = chars.as_str();
                        if let Some(low) = tail.strip_prefix("\\u").and_then(|t| t.get(..4)) {
                            let low = u32::from_str_radix(low, 16).context("bad \\u escape")?;
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                            for _ in 0..6 {
                                chars.next();
                            }
                        }
                    }
                    out.push(char::from_u32(code).context("bad \\u escape")?);
                }
                other => out.push(other),
            }
        }
        bail!("unterminated string")
    }

    fn number(&mut self) -> Result<Lit> {
        let start = self.i;
        if matches!(self.s[self.i], b'-' | b'+') {
            self.i += 1;
        }
        let neg = self.s[start] == b'-';
        let digits_at = self.i;
        let is_hex = self.src[self.i..].starts_with("0x") || self.src[self.i..].starts_with("0X");
        if is_hex {
            self.i += 2;
            while self.i < self.s.len()
                && (self.s[self.i].is_ascii_hexdigit() || self.s[self.i] == b'_')
            {
                self.i += 1;
            }
        } else {
            while self.i < self.s.len()
                && (self.s[self.i].is_ascii_digit() || self.s[self.i] == b'_')
            {
                self.i += 1;
            }
        }
        let mut float = false;
        if !is_hex
            && self.s.get(self.i) == Some(&b'.')
            && self.s.get(self.i + 1).is_some_and(u8::is_ascii_digit)
        {
            float = true;
            self.i += 1;
            while self.i < self.s.len()
                && (self.s[self.i].is_ascii_digit() || self.s[self.i] == b'_')
            {
                self.i += 1;
            }
        }
        if !is_hex && matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            let mut j = self.i + 1;
            if matches!(self.s.get(j), Some(b'-' | b'+')) {
                j += 1;
            }
            if self.s.get(j).is_some_and(u8::is_ascii_digit) {
                float = true;
                self.i = j;
                while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                    self.i += 1;
                }
            }
        }
        let body: String = self.src[digits_at..self.i].replace('_', "");
        if body.is_empty() {
            bail!("bad number {}", self.context());
        }
        let suffix = self
            .s
            .get(self.i)
            .filter(|c| c.is_ascii_alphabetic())
            .map(|c| c.to_ascii_lowercase());
        if suffix.is_some() {
            self.i += 1;
        }
        let signed = if neg {
            format!("-{body}")
        } else {
            body.clone()
        };
        let float_kind = matches!(suffix, Some(b'f' | b'd' | b'm'));
        if float || float_kind {
            if is_hex {
                bail!("a hex literal cannot be a float");
            }
            return match suffix {
                Some(b'f') => Ok(Lit::Float(signed.parse()?)),
                Some(b'd') => Ok(Lit::Double(signed.parse()?)),
                // No suffix: a Double (the server answers `g.inject(1.50).asString()` with "1.5").
                None => Ok(Lit::Double(signed.parse()?)),
                Some(b'm') => Ok(Lit::BigDecimal(Box::new(big_decimal(&signed)?))),
                Some(c) => bail!("bad float suffix {:?}", c as char),
            };
        }
        let value: BigInt = if is_hex {
            let v = BigInt::parse_bytes(&body.as_bytes()[2..], 16).context("bad hex literal")?;
            if neg {
                -v
            } else {
                v
            }
        } else if body.len() > 1 && body.starts_with('0') {
            let v = BigInt::parse_bytes(&body.as_bytes()[1..], 8).context("bad octal literal")?;
            if neg {
                -v
            } else {
                v
            }
        } else {
            signed.parse().context("bad integer")?
        };
        Ok(match suffix {
            Some(b'b') => Lit::Byte(i8::try_from(value).context("byte out of range")?),
            Some(b's') => Lit::Short(i16::try_from(value).context("short out of range")?),
            Some(b'i') => Lit::Int(i32::try_from(value).context("int out of range")?),
            Some(b'l') => Lit::Long(i64::try_from(value).context("long out of range")?),
            Some(b'n') => Lit::BigInt(BigInteger::from(value)),
            None => {
                if let Ok(n) = i32::try_from(&value) {
                    Lit::Int(n)
                } else if let Ok(n) = i64::try_from(&value) {
                    Lit::Long(n)
                } else {
                    Lit::BigInt(BigInteger::from(value))
                }
            }
            Some(c) => bail!("bad integer suffix {:?}", c as char),
        })
    }

    /// A word: keyword literal, traversal, predicate, token, strategy, or identifier.
    fn word(&mut self) -> Result<Expr> {
        let Some(w) = self.ident() else {
            bail!("unexpected character {}", self.context());
        };
        match w.as_str() {
            "true" => return Ok(Expr::Lit(Lit::Bool(true))),
            "false" => return Ok(Expr::Lit(Lit::Bool(false))),
            "null" => return Ok(Expr::Lit(Lit::Null)),
            "NaN" => return Ok(Expr::Lit(Lit::Double(f64::NAN))),
            "Infinity" => return Ok(Expr::Lit(Lit::Double(f64::INFINITY))),
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
                    Some(b'"' | b'\'') => self.string()?,
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
        match (class.as_deref(), name.as_str()) {
            (None, "datetime" | "DateTime") => return date_lit(&args).map(Expr::Lit),
            (None, "UUID") => match args.as_slice() {
                [Expr::Lit(Lit::String(s))] => {
                    return Ok(Expr::Lit(Lit::Uuid(s.parse().context("bad UUID")?)))
                }
                // A random UUID: made here, as the server would.
                [] => return Ok(Expr::Lit(Lit::Uuid(random_uuid().parse()?))),
                _ => bail!("UUID(...) needs one string"),
            },
            (None, "Duration") => {
                let n = |e: &Expr| match e {
                    Expr::Lit(Lit::Int(n)) => Ok(i64::from(*n)),
                    Expr::Lit(Lit::Long(n)) => Ok(*n),
                    _ => bail!("Duration(...) takes integers"),
                };
                let (secs, nanos, positive) = match args.as_slice() {
                    [a, b] => (n(a)?, n(b)?, true),
                    [a, b, Expr::Lit(Lit::Bool(p))] => (n(a)?, n(b)?, *p),
                    _ => bail!("Duration(seconds, nanos[, positive])"),
                };
                let total = i128::from(secs) * 1_000_000_000 + i128::from(nanos);
                let total = if positive { total } else { -total };
                let seconds = i64::try_from(total.div_euclid(1_000_000_000))?;
                let nanos = i32::try_from(total.rem_euclid(1_000_000_000))?;
                return Ok(Expr::Lit(Lit::Duration(Duration { seconds, nanos })));
            }
            (None, "Binary") => match args.as_slice() {
                [Expr::Lit(Lit::String(s))] => return Ok(Expr::Lit(Lit::Binary(base64(s)?))),
                _ => bail!("Binary(...) needs one string"),
            },
            _ => {}
        }
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

fn date_lit(args: &[Expr]) -> Result<Lit> {
    match args {
        [Expr::Lit(Lit::String(s))] => Ok(Lit::DateTime(parse_datetime(s)?)),
        _ => bail!("datetime(...) needs one string"),
    }
}

/// An ISO 8601 date-time: `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM]`.
pub fn parse_datetime(s: &str) -> Result<DateTime> {
    let bad = || anyhow::anyhow!("bad datetime {s:?}");
    let (date, rest) = match s.find('T') {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    let mut d = date.splitn(3, '-');
    let year: i32 = d.next().ok_or_else(bad)?.parse()?;
    let month: i8 = d.next().ok_or_else(bad)?.parse()?;
    let day: i8 = d.next().ok_or_else(bad)?.parse()?;
    let (time, zone) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let mut nanos = 0i64;
    if !time.is_empty() {
        let mut parts = time.split(':');
        let h: i64 = parts.next().ok_or_else(bad)?.parse()?;
        let m: i64 = parts.next().ok_or_else(bad)?.parse()?;
        let (sec, frac) = match parts.next() {
            Some(x) => match x.split_once('.') {
                Some((a, b)) => (a.parse::<i64>()?, b),
                None => (x.parse::<i64>()?, ""),
            },
            None => (0, ""),
        };
        let mut f = frac.to_string();
        f.truncate(9);
        while f.len() < 9 {
            f.push('0');
        }
        nanos = ((h * 60 + m) * 60 + sec) * 1_000_000_000 + f.parse::<i64>()?;
    }
    let offset_seconds = match zone {
        "" | "Z" | "z" => 0,
        z => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let (h, m) = z[1..].split_once(':').unwrap_or((&z[1..], "0"));
            sign * (h.parse::<i32>()? * 3600 + m.parse::<i32>()? * 60)
        }
    };
    Ok(DateTime {
        year,
        month,
        day,
        nanos,
        offset_seconds,
        kind: Default::default(),
    })
}

fn big_decimal(s: &str) -> Result<BigDecimal> {
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>()?),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let unscaled: BigInt = format!("{int}{frac}").parse()?;
    Ok(BigDecimal {
        scale: i32::try_from(frac.len())? - exp,
        unscaled: BigInteger::from(unscaled),
    })
}

fn base64(s: &str) -> Result<Vec<u8>> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes().filter(|c| *c != b'=') {
        let v = A.iter().position(|a| *a == c).context("bad base64")? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// A version-4 UUID from the clock and a counter (no randomness crate needed).
fn random_uuid() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut bytes = [0u8; 16];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_usize(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        chunk.copy_from_slice(&h.finish().to_be_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
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
    fn numbers_take_their_suffix_type() {
        assert_eq!(lit("1"), Lit::Int(1));
        assert_eq!(lit("-7i"), Lit::Int(-7));
        assert_eq!(lit("1l"), Lit::Long(1));
        assert_eq!(lit("1L"), Lit::Long(1));
        assert_eq!(lit("2147483648"), Lit::Long(2_147_483_648));
        assert_eq!(lit("3b"), Lit::Byte(3));
        assert_eq!(lit("-3S"), Lit::Short(-3));
        assert_eq!(lit("0x1F"), Lit::Int(31));
        assert_eq!(lit("017"), Lit::Int(15));
        assert_eq!(lit("1_000"), Lit::Int(1000));
        assert_eq!(lit("1.5"), Lit::Double(1.5));
        assert_eq!(lit("1.5f"), Lit::Float(1.5));
        assert_eq!(lit("2d"), Lit::Double(2.0));
        assert_eq!(lit("1e3"), Lit::Double(1000.0));
        assert_eq!(lit("-Infinity"), Lit::Double(f64::NEG_INFINITY));
        assert!(matches!(lit("NaN"), Lit::Double(d) if d.is_nan()));
        assert_eq!(
            lit("123456789012345678901234567890").to_gremlin().unwrap(),
            "123456789012345678901234567890N"
        );
        assert_eq!(lit("1.25m").to_gremlin().unwrap(), "1.25M");
        assert_eq!(lit("-12e-3m").to_gremlin().unwrap(), "-0.012M");
        assert!(parse_literal("300b").is_err());
    }

    #[test]
    fn strings_chars_and_typed_literals() {
        assert_eq!(lit(r#""a\"b\n""#), Lit::String("a\"b\n".into()));
        assert_eq!(lit(r"'it\'s'"), Lit::String("it's".into()));
        assert_eq!(lit(r#""\u00e9\ud83d\ude00""#), Lit::String("é😀".into()));
        assert_eq!(lit(r#""x"c"#), Lit::Char('x'));
        assert_eq!(
            lit("datetime('2023-08-08T00:00:30Z')")
                .to_gremlin()
                .unwrap(),
            lit(r#"DateTime("2023-08-08T00:00:30Z")"#)
                .to_gremlin()
                .unwrap()
        );
        let dt = parse_datetime("2020-01-02T03:04:05.5+01:30").unwrap();
        assert_eq!((dt.year, dt.month, dt.day), (2020, 1, 2));
        assert_eq!(
            dt.nanos,
            (3 * 3600 + 4 * 60 + 5) * 1_000_000_000 + 500_000_000
        );
        assert_eq!(dt.offset_seconds, 5400);
        assert_eq!(
            lit(r#"UUID("f47af10b-58cc-4372-a567-0f02b2f3d479")"#)
                .to_gremlin()
                .unwrap(),
            r#"UUID("f47af10b-58cc-4372-a567-0f02b2f3d479")"#
        );
        assert_eq!(
            lit("Duration(1, 500000000, false)").to_gremlin().unwrap(),
            "Duration(1,500000000,false)"
        );
        assert_eq!(lit(r#"Binary("AQID")"#), Lit::Binary(vec![1, 2, 3]));
        assert_ne!(lit("UUID()"), lit("UUID()"));
        assert!(parse_literal(r#""open"#).is_err());
        assert!(parse_literal(r#""ab"c"#).is_err());
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
