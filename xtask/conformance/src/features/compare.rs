//! Comparing a result [`Value`] with an expected [`Typed`] value (rendering one as a literal
//! is [`super::literal()`]).
//!
//! Semantics, as TinkerPop's reference runner checks them with Java equality: numbers match by
//! type and value (`d[1].i` is an Int 1, not a Long 1; a bare JSON number inside `m[...]`
//! matches any numeric type of that value), sets and maps ignore order, lists and paths keep
//! it (path labels are ignored), elements match by id, properties by key and value.

use std::collections::HashMap;

use graphbinary_client::value::{Direction, Edge, Merge, Vertex, VertexProperty, T};
use graphbinary_client::Value;
use num_bigint::BigInt;

use super::notation::{days_from_civil, iso_instant_nanos, Typed};

/// The elements of one graph, by the names the notation uses.
#[derive(Default, Debug)]
pub struct Lookup {
    /// By their `name` property; the last one wins, as `group().by('name').by(tail())`.
    pub vertices: HashMap<String, Vertex>,
    /// By `outName-label->inName`.
    pub edges: HashMap<String, Edge>,
}

impl Lookup {
    /// Builds the lookup from every vertex (with properties) and every edge of a graph.
    pub fn new(vertices: Vec<Value>, edges: Vec<Value>) -> Lookup {
        let mut lk = Lookup::default();
        let mut names: HashMap<Vec<u8>, String> = HashMap::new();
        for v in vertices {
            let Value::Vertex(v) = v else { continue };
            let name = v.properties.iter().flatten().find_map(|p| {
                (p.label.as_slice().first().map(|l| &**l) == Some("name"))
                    .then(|| p.value.as_str().map(str::to_string))
                    .flatten()
            });
            if let Some(name) = name {
                if let Ok(id) = v.id.to_bytes() {
                    names.insert(id, name.clone());
                }
                lk.vertices.insert(name, *v);
            }
        }
        for e in edges {
            let Value::Edge(e) = e else { continue };
            let name = |id: &Value| id.to_bytes().ok().and_then(|b| names.get(&b).cloned());
            if let (Some(o), Some(i)) = (name(&e.out_v_id), name(&e.in_v_id)) {
                let label = e.label.as_slice().first().map(|l| l.to_string());
                let key = format!("{o}-{}->{i}", label.unwrap_or_default());
                lk.edges.insert(key, *e);
            }
        }
        lk
    }

    pub fn vertex_id(&self, name: &str) -> Value {
        match self.vertices.get(name) {
            Some(v) => v.id.clone(),
            // Not in the graph: a reference vertex whose id is the name, as the GLVs do.
            None => Value::String(name.to_string()),
        }
    }

    pub fn edge_id(&self, name: &str) -> Value {
        match self.edges.get(name) {
            Some(e) => e.id.clone(),
            None => Value::String(name.to_string()),
        }
    }

    fn vertex_property(&self, vertex: &str, key: &str, value: &Typed) -> Option<&VertexProperty> {
        self.vertices
            .get(vertex)?
            .properties
            .iter()
            .flatten()
            .find(|p| {
                p.label.as_slice().first().map(|l| &**l) == Some(key)
                    && matches(&p.value, value, self)
            })
    }
}

/// Whether `actual` is the `expected` value.
pub fn matches(actual: &Value, expected: &Typed, lk: &Lookup) -> bool {
    match expected {
        Typed::Null => actual.is_null(),
        Typed::Bool(b) => matches!(actual, Value::Boolean(a) if a == b),
        Typed::Str(s) => matches!(actual, Value::String(a) if a == s),
        Typed::Num { text, kind } => number_matches(actual, text, *kind),
        Typed::Loose(x) => as_f64(actual).is_some_and(|a| a == *x),
        Typed::NaN => match actual {
            Value::Double(d) => d.is_nan(),
            Value::Float(f) => f.is_nan(),
            _ => false,
        },
        Typed::Inf(positive) => {
            let want = if *positive {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            match actual {
                Value::Double(d) => *d == want,
                Value::Float(f) => f64::from(*f) == want,
                _ => false,
            }
        }
        Typed::List(items) => match actual {
            Value::List(a) => ordered(a.iter(), items, lk),
            Value::BulkList(a) => ordered(expand(a).iter(), items, lk),
            _ => false,
        },
        Typed::Set(items) => match actual {
            Value::Set(a) => unordered(a, items, lk),
            _ => false,
        },
        Typed::Map(entries) => match actual {
            Value::Map(a) | Value::OrderedMap(a) => map_matches(a, entries, lk),
            _ => false,
        },
        Typed::Path(items) => match actual {
            Value::Path(p) => ordered(p.objects.iter(), items, lk),
            _ => false,
        },
        Typed::Vertex(name) => match actual {
            Value::Vertex(v) => ids_equal(&v.id, &lk.vertex_id(name)),
            _ => false,
        },
        Typed::Edge(name) => match actual {
            Value::Edge(e) => ids_equal(&e.id, &lk.edge_id(name)),
            _ => false,
        },
        Typed::VertexId(name) => ids_equal(actual, &lk.vertex_id(name)),
        Typed::EdgeId(name) => ids_equal(actual, &lk.edge_id(name)),
        Typed::VertexSid(name) => {
            matches!(actual, Value::String(s) if *s == id_string(&lk.vertex_id(name)))
        }
        Typed::EdgeSid(name) => {
            matches!(actual, Value::String(s) if *s == id_string(&lk.edge_id(name)))
        }
        Typed::VertexProp { vertex, key, value } => {
            let Value::VertexProperty(p) = actual else {
                return false;
            };
            match vertex
                .as_deref()
                .and_then(|v| lk.vertex_property(v, key, value))
            {
                Some(known) => ids_equal(&p.id, &known.id),
                None => {
                    p.label.as_slice().first().map(|l| &**l) == Some(key.as_str())
                        && matches(&p.value, value, lk)
                }
            }
        }
        Typed::Prop { key, value } => match actual {
            Value::Property(p) => &*p.key == key && matches(&p.value, value, lk),
            _ => false,
        },
        Typed::T(t) => matches!(actual, Value::T(a) if t_name(*a) == t),
        Typed::Direction(d) => {
            let want = match d.as_str() {
                "OUT" | "from" => Direction::Out,
                "IN" | "to" => Direction::In,
                _ => Direction::Both,
            };
            matches!(actual, Value::Direction(a) if *a == want)
        }
        Typed::Merge(m) => matches!(actual, Value::Merge(a) if merge_name(*a) == m),
        Typed::DateTime(s) => match (actual, iso_instant_nanos(s)) {
            (Value::DateTime(dt), Ok(want)) => {
                let days =
                    days_from_civil(i64::from(dt.year), i64::from(dt.month), i64::from(dt.day));
                let got = i128::from(days * 86_400 - i64::from(dt.offset_seconds)) * 1_000_000_000
                    + i128::from(dt.nanos);
                got == want
            }
            _ => false,
        },
        Typed::Uuid(u) => matches!(actual, Value::Uuid(a) if a.to_string() == *u),
        Typed::Duration {
            seconds,
            nanos,
            positive,
        } => {
            let Value::Duration(d) = actual else {
                return false;
            };
            let mut want = i128::from(*seconds) * 1_000_000_000 + i128::from(*nanos);
            if !positive {
                want = -want;
            }
            i128::from(d.seconds) * 1_000_000_000 + i128::from(d.nanos) == want
        }
        Typed::Char(c) => matches!(actual, Value::Char(a) if a == c),
        Typed::Binary(b) => matches!(actual, Value::Binary(a) if a == b),
    }
}

/// For subgraphs: the element is the expected one by id (as [`matches`](fn@matches)) and, where the
/// graph's own element is known, has its label, ends and properties (keys and values).
pub fn same_element(actual: &Value, expected: &Typed, lk: &Lookup) -> bool {
    if !matches(actual, expected, lk) {
        return false;
    }
    fn props<'a>(it: impl Iterator<Item = (&'a str, &'a Value)>) -> Vec<(String, Value)> {
        let mut v: Vec<(String, Value)> = it.map(|(k, v)| (k.to_string(), v.clone())).collect();
        v.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| a.1.to_string().cmp(&b.1.to_string()))
        });
        v
    }
    match (actual, expected) {
        (Value::Vertex(a), Typed::Vertex(name)) => {
            match lk.vertices.get(name) {
                Some(w) => {
                    a.label == w.label
                        && props(
                            a.properties.iter().flatten().map(|p| {
                                (p.label.as_slice().first().map_or("", |l| &**l), &p.value)
                            }),
                        ) == props(
                            w.properties.iter().flatten().map(|p| {
                                (p.label.as_slice().first().map_or("", |l| &**l), &p.value)
                            }),
                        )
                }
                None => true,
            }
        }
        (Value::Edge(a), Typed::Edge(name)) => match lk.edges.get(name) {
            Some(w) => {
                a.label == w.label
                    && a.out_v_id == w.out_v_id
                    && a.in_v_id == w.in_v_id
                    && props(a.properties.iter().flatten().map(|p| (&*p.key, &p.value)))
                        == props(w.properties.iter().flatten().map(|p| (&*p.key, &p.value)))
            }
            None => true,
        },
        _ => true,
    }
}

/// A bulked list with each item repeated by its bulk.
pub fn expand(items: &[(Value, i64)]) -> Vec<Value> {
    let mut out = Vec::new();
    for (v, n) in items {
        for _ in 0..*n {
            out.push(v.clone());
        }
    }
    out
}

fn ordered<'a>(
    actual: impl ExactSizeIterator<Item = &'a Value>,
    want: &[Typed],
    lk: &Lookup,
) -> bool {
    actual.len() == want.len() && actual.zip(want).all(|(a, w)| matches(a, w, lk))
}

/// Multiset equality. Matching is equality, so the first unused match is as good as any.
pub fn unordered(actual: &[Value], want: &[Typed], lk: &Lookup) -> bool {
    unordered_by(actual, want, lk, matches)
}

/// [`unordered`] with another element test.
pub fn unordered_by(
    actual: &[Value],
    want: &[Typed],
    lk: &Lookup,
    test: fn(&Value, &Typed, &Lookup) -> bool,
) -> bool {
    if actual.len() != want.len() {
        return false;
    }
    let mut used = vec![false; actual.len()];
    want.iter().all(|w| {
        let hit = (0..actual.len()).find(|&i| !used[i] && test(&actual[i], w, lk));
        hit.map(|i| used[i] = true).is_some()
    })
}

fn map_matches(actual: &[(Value, Value)], want: &[(Typed, Typed)], lk: &Lookup) -> bool {
    if actual.len() != want.len() {
        return false;
    }
    let mut used = vec![false; actual.len()];
    want.iter().all(|(wk, wv)| {
        let hit = (0..actual.len())
            .find(|&i| !used[i] && matches(&actual[i].0, wk, lk) && matches(&actual[i].1, wv, lk));
        hit.map(|i| used[i] = true).is_some()
    })
}

fn ids_equal(a: &Value, b: &Value) -> bool {
    a == b || (matches!(b, Value::String(_)) && id_string(a) == id_string(b))
}

/// An id as text, as `.sid` and Java's `toString()` write it.
pub fn id_string(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Long(i) => i.to_string(),
        Value::Uuid(u) => u.to_string(),
        other => other.to_string(),
    }
}

fn t_name(t: T) -> &'static str {
    match t {
        T::Id => "id",
        T::Key => "key",
        T::Label => "label",
        T::Value => "value",
    }
}

fn merge_name(m: Merge) -> &'static str {
    match m {
        Merge::OnCreate => "onCreate",
        Merge::OnMatch => "onMatch",
        Merge::OutV => "outV",
        Merge::InV => "inV",
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    Some(match v {
        Value::Byte(x) => f64::from(*x),
        Value::Short(x) => f64::from(*x),
        Value::Int(x) => f64::from(*x),
        Value::Long(x) => *x as f64,
        Value::Float(x) => f64::from(*x),
        Value::Double(x) => *x,
        Value::BigInteger(b) => b.to_bigint().to_string().parse().ok()?,
        Value::BigDecimal(d) => decimal_string(&d.unscaled.to_bigint(), d.scale)
            .parse()
            .ok()?,
        _ => return None,
    })
}

fn decimal_string(unscaled: &BigInt, scale: i32) -> String {
    format!("{unscaled}e{}", -i64::from(scale))
}

/// A decimal text as (unscaled, scale): `1.50` is (150, 2), `1e3` is (1, -3).
fn parse_decimal(text: &str) -> Option<(BigInt, i64)> {
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let unscaled: BigInt = digits.parse().ok()?;
    Some((unscaled, frac.len() as i64 - exp))
}

fn decimal_eq(a: (BigInt, i64), b: (BigInt, i64)) -> bool {
    let ten = BigInt::from(10);
    let scale = a.1.max(b.1);
    let up = |(u, s): (BigInt, i64)| u * num_traits_pow(&ten, (scale - s) as u32);
    up(a) == up(b)
}

fn num_traits_pow(base: &BigInt, exp: u32) -> BigInt {
    let mut r = BigInt::from(1);
    for _ in 0..exp {
        r *= base;
    }
    r
}

fn number_matches(actual: &Value, text: &str, kind: char) -> bool {
    match (kind, actual) {
        ('b', Value::Byte(a)) => text.parse::<i8>().is_ok_and(|w| w == *a),
        ('s', Value::Short(a)) => text.parse::<i16>().is_ok_and(|w| w == *a),
        ('i', Value::Int(a)) => text.parse::<i32>().is_ok_and(|w| w == *a),
        ('l', Value::Long(a)) => text.parse::<i64>().is_ok_and(|w| w == *a),
        ('f', Value::Float(a)) => text.parse::<f32>().is_ok_and(|w| w == *a),
        ('d', Value::Double(a)) => text.parse::<f64>().is_ok_and(|w| w == *a),
        ('n', Value::BigInteger(a)) => {
            parse_decimal(text).is_some_and(|w| decimal_eq(w, (a.to_bigint(), 0)))
        }
        ('m', Value::BigDecimal(a)) => parse_decimal(text)
            .is_some_and(|w| decimal_eq(w, (a.unscaled.to_bigint(), i64::from(a.scale)))),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::notation::parse;

    fn m(actual: &Value, expected: &str) -> bool {
        matches(actual, &parse(expected).unwrap(), &Lookup::default())
    }

    #[test]
    fn numbers_match_by_type_and_value() {
        assert!(m(&Value::Int(1), "d[1].i"));
        assert!(!m(&Value::Long(1), "d[1].i"));
        assert!(m(&Value::Long(1), "d[1].l"));
        assert!(m(&Value::Double(0.5), "d[0.5].d"));
        assert!(!m(&Value::Float(0.5), "d[0.5].d"));
        assert!(m(&Value::Float(0.5), "d[0.5].f"));
        assert!(m(&Value::Double(f64::NAN), "d[NaN]"));
        assert!(m(&Value::Double(f64::NEG_INFINITY), "d[-Infinity]"));
        assert!(!m(&Value::String("1".into()), "d[1].i"));
    }

    #[test]
    fn unordered_is_a_multiset() {
        let lk = Lookup::default();
        let want: Vec<Typed> = ["a", "a", "b"].iter().map(|s| parse(s).unwrap()).collect();
        let s = |x: &str| Value::String(x.into());
        assert!(unordered(&[s("b"), s("a"), s("a")], &want, &lk));
        assert!(!unordered(&[s("b"), s("b"), s("a")], &want, &lk));
        assert!(!unordered(&[s("a"), s("b")], &want, &lk));
    }

    #[test]
    fn maps_ignore_order_lists_keep_it() {
        let map = Value::Map(vec![
            (Value::String("b".into()), Value::Int(2)),
            (
                Value::String("a".into()),
                Value::List(vec![Value::Int(1), Value::Int(3)]),
            ),
        ]);
        assert!(m(&map, r#"m[{"a":"l[d[1].i,d[3].i]","b":"d[2].i"}]"#));
        assert!(m(&map, r#"m[{"a":[1,3],"b":2}]"#));
        assert!(!m(&map, r#"m[{"a":[3,1],"b":2}]"#));
        assert!(!m(&map, r#"m[{"a":[1,3]}]"#));
    }
}
