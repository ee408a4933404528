//! Which GraphSON reader to keep (issue 37): ours (`protocol/ws3/graphson.rs`'s hand-written recursive
//! descent over the message's bytes) or serde_json driving a `DeserializeSeed` straight into
//! `Value` (no `serde_json::Value` tree in between). The serde_json one here is a prototype that
//! reads what the corpus holds (typed GraphSON 3: `g:List`, `g:Map`, `g:Int32`, `g:Int64`,
//! `g:Double`, `g:Vertex`, `g:VertexProperty`, Strings) into the same `Value`s ours gives,
//! checked equal before timing; elements are built from their fields as ours builds them.
//!
//! Corpus: response messages of N modern-graph-like vertices, each with a `name` and an `age`
//! vertex property (64: the 3.7.3 server's batch size; 1000: a large message), as a 3.x server
//! writes them. Each round times one pass of each reader over the message, alternating, and
//! the medians over the rounds are printed. Run with
//! `cargo bench -p graphbinary-client --bench graphson_reader` (release build).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use graphbinary_client::fuzzing::graphson;
use graphbinary_client::value::{Labels, Value, Vertex, VertexProperty};
use graphbinary_core::Limits;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// A GraphSON 3 response message of `n` vertices.
fn message(n: usize) -> String {
    let name: Arc<str> = Arc::from("name");
    let age: Arc<str> = Arc::from("age");
    let vp = |id: i64, label: &Arc<str>, value: Value| VertexProperty {
        id: Value::Long(id),
        label: Labels::One(label.clone()),
        value,
        parent: Value::Null(0xfe),
        properties: Some(vec![]),
    };
    let vertices: Vec<Value> = (0..n)
        .map(|i| {
            Value::Vertex(Box::new(Vertex {
                id: Value::Int(i as i32),
                label: Labels::One(Arc::from(if i % 3 == 0 { "software" } else { "person" })),
                properties: Some(vec![
                    vp(2 * i as i64, &name, Value::String(format!("person-{i}"))),
                    vp(2 * i as i64 + 1, &age, Value::Int((i % 90) as i32)),
                ]),
            }))
        })
        .collect();
    let data = graphson::write(&Value::List(vertices), 3, true).unwrap();
    format!(
        r#"{{"requestId":"41d2e28a-20a4-4ab0-b379-d810dede3786","status":{{"message":"","code":206,"attributes":{{"@type":"g:Map","@value":["host","/127.0.0.1:54321"]}}}},"result":{{"data":{data},"meta":{{"@type":"g:Map","@value":[]}}}}}}"#
    )
}

// ---------------------------------------------------------------------------------------------
// The serde_json prototype: a seed per position, straight into `Value`.

/// serde_json's number under `arbitrary_precision` (on in this crate's dev-dependencies):
/// `deserialize_any` hands a number over as a map of this one key.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// A seed that is its own visitor: `deserialize` hands it to the named `Deserializer` method.
macro_rules! seed_is_its_visitor {
    ($seed:ty, $value:ty, $how:ident) => {
        impl<'de> DeserializeSeed<'de> for $seed {
            type Value = $value;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<$value, D::Error> {
                d.$how(self)
            }
        }
    };
}

/// Any GraphSON 3 value.
struct AnyValue;

seed_is_its_visitor!(AnyValue, Value, deserialize_any);

impl<'de> Visitor<'de> for AnyValue {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a GraphSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null(0xfe))
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Boolean(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(i32::try_from(n).map_or(Value::Long(n), Value::Int))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        i64::try_from(n)
            .map(|n| self.visit_i64::<E>(n).unwrap())
            .map_err(|_| E::custom("out of range"))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        Ok(Value::Double(x))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        items(seq).map(Value::List)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Value::Map(Vec::new()));
        };
        if first == "@type" {
            let ty: String = map.next_value()?;
            match map.next_key::<String>()?.as_deref() {
                Some("@value") => {}
                _ => return Err(de::Error::custom("expected \"@value\"")),
            }
            let v = map.next_value_seed(Typed(&ty))?;
            if map.next_key::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::custom("a key after @value"));
            }
            return Ok(v);
        }
        if first == NUMBER_TOKEN {
            let s: String = map.next_value()?;
            return number(&s).ok_or_else(|| de::Error::custom("bad number"));
        }
        let mut entries = vec![(Value::String(first), map.next_value_seed(AnyValue)?)];
        while let Some(k) = map.next_key::<String>()? {
            entries.push((Value::String(k), map.next_value_seed(AnyValue)?));
        }
        Ok(Value::Map(entries))
    }
}

fn number(s: &str) -> Option<Value> {
    if s.contains(['.', 'e', 'E']) {
        return s.parse().ok().map(Value::Double);
    }
    let n: i64 = s.parse().ok()?;
    Some(i32::try_from(n).map_or(Value::Long(n), Value::Int))
}

fn items<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<Value>, A::Error> {
    let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
    while let Some(v) = seq.next_element_seed(AnyValue)? {
        out.push(v);
    }
    Ok(out)
}

/// An array of values.
struct Items;

seed_is_its_visitor!(Items, Vec<Value>, deserialize_seq);

impl<'de> Visitor<'de> for Items {
    type Value = Vec<Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<Value>, A::Error> {
        items(seq)
    }
}

/// A Double: a number, or "NaN" / "Infinity" / "-Infinity".
struct Double;

seed_is_its_visitor!(Double, f64, deserialize_any);

impl<'de> Visitor<'de> for Double {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Double")
    }
    fn visit_f64<E>(self, x: f64) -> Result<f64, E> {
        Ok(x)
    }
    fn visit_i64<E>(self, n: i64) -> Result<f64, E> {
        Ok(n as f64)
    }
    fn visit_u64<E>(self, n: u64) -> Result<f64, E> {
        Ok(n as f64)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<f64, E> {
        match s {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err(E::custom("not a Double")),
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<f64, A::Error> {
        let _: Option<String> = map.next_key()?;
        let s: String = map.next_value()?;
        s.parse().map_err(de::Error::custom)
    }
}

/// The `@value` of a typed value of type `.0`.
struct Typed<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for Typed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let e = |m: &str| <D::Error as de::Error>::custom(m);
        Ok(match self.0 {
            "g:Int32" => Value::Int(i32::deserialize(d)?),
            "g:Int64" => Value::Long(i64::deserialize(d)?),
            "g:Double" => Value::Double(Double.deserialize(d)?),
            "g:List" => Value::List(Items.deserialize(d)?),
            "g:Set" => Value::Set(Items.deserialize(d)?),
            "g:Map" => {
                let items = Items.deserialize(d)?;
                if items.len() % 2 != 0 {
                    return Err(e("an odd number of items"));
                }
                let mut it = items.into_iter();
                let mut pairs = Vec::with_capacity(it.len() / 2);
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push((k, v));
                }
                Value::Map(pairs)
            }
            "g:Vertex" => {
                let mut f = Fields::of(AnyValue.deserialize(d)?);
                let properties = f.take("properties").map(|p| {
                    entries(p)
                        .into_iter()
                        .flat_map(|(_, v)| match v {
                            Value::List(items) => items,
                            other => vec![other],
                        })
                        .filter_map(|v| match v {
                            Value::VertexProperty(vp) => Some(*vp),
                            _ => None,
                        })
                        .collect()
                });
                Value::Vertex(Box::new(Vertex {
                    id: f.value("id"),
                    label: f.label("label"),
                    properties,
                }))
            }
            "g:VertexProperty" => {
                let mut f = Fields::of(AnyValue.deserialize(d)?);
                Value::VertexProperty(Box::new(VertexProperty {
                    id: f.value("id"),
                    label: f.label("label"),
                    value: f.value("value"),
                    parent: Value::Null(0xfe),
                    properties: Some(Vec::new()),
                }))
            }
            other => return Err(e(&format!("{other} is not in the prototype"))),
        })
    }
}

fn entries(v: Value) -> Vec<(Value, Value)> {
    match v {
        Value::Map(e) => e,
        _ => Vec::new(),
    }
}

struct Fields(Vec<(Value, Value)>);

impl Fields {
    fn of(v: Value) -> Fields {
        Fields(entries(v))
    }
    fn take(&mut self, name: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k.as_str() == Some(name))?;
        Some(std::mem::replace(&mut self.0[i].1, Value::Null(0xfe)))
    }
    fn value(&mut self, name: &str) -> Value {
        self.take(name).unwrap_or(Value::Null(0xfe))
    }
    fn label(&mut self, name: &str) -> Labels {
        match self.take(name) {
            Some(Value::String(s)) => Labels::One(Arc::from(s)),
            _ => Labels::One(Arc::from("")),
        }
    }
}

/// The result data of a message, read by serde_json through the seeds.
fn serde_data(bytes: &[u8]) -> Value {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let msg = AnyValue.deserialize(&mut de).expect("the message reads");
    de.end().expect("nothing after the message");
    let mut f = Fields::of(msg);
    let mut result = Fields::of(f.value("result"));
    result.value("data")
}

fn ours_data(bytes: &[u8], limits: &Limits) -> Value {
    graphson::decode_data(bytes, 3, true, limits).expect("the message reads")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(201);
    let limits = Limits::default();
    for n in [64, 1000] {
        let msg = message(n);
        let bytes = msg.as_bytes();
        // Both read the same values.
        let (a, b) = (ours_data(bytes, &limits), serde_data(bytes));
        assert_eq!(
            graphson::write(&a, 3, true).unwrap(),
            graphson::write(&b, 3, true).unwrap(),
            "the readers disagree"
        );
        // Each round: one pass of each, alternating which goes first.
        let (mut ours, mut serde) = (Vec::new(), Vec::new());
        let reps = if n < 100 { 20 } else { 2 };
        for r in 0..rounds + 10 {
            let time = |f: &dyn Fn() -> Value| {
                let start = Instant::now();
                for _ in 0..reps {
                    std::hint::black_box(f());
                }
                start.elapsed() / reps
            };
            let (o, s) = if r % 2 == 0 {
                let o = time(&|| ours_data(bytes, &limits));
                (o, time(&|| serde_data(bytes)))
            } else {
                let s = time(&|| serde_data(bytes));
                (time(&|| ours_data(bytes, &limits)), s)
            };
            if r >= 10 {
                ours.push(o);
                serde.push(s);
            }
        }
        let (o, s) = (median(ours), median(serde));
        let mbs = |d: Duration| bytes.len() as f64 / d.as_secs_f64() / 1e6;
        println!(
            "{n} vertices, {} bytes: ours {:.1} µs ({:.0} MB/s), serde_json seed {:.1} µs ({:.0} MB/s): serde_json/ours {:.2}x (medians of {rounds} rounds)",
            bytes.len(),
            o.as_secs_f64() * 1e6,
            mbs(o),
            s.as_secs_f64() * 1e6,
            mbs(s),
            s.as_secs_f64() / o.as_secs_f64(),
        );
    }
}
