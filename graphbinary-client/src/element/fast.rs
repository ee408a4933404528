//! The fast reader of derived elements (feature `serde`): an `elementMap()` or
//! `valueMap(true)` read straight from the buffered bytes by the [`de`](crate::format::de)
//! deserializer into [`Fast`]'s slots, without the `Value` Map and [`ElementData`] between.
//!
//! It reads exactly what [`ElementData::from_value`] reads, to the same values, or fails: an
//! answer it does not take (a Vertex value, a projection, a key of another type...) fails the
//! read and the caller reads the same bytes by the `Value` route, whose result or error is
//! then the one given. Each property value is decoded as a [`Value`] and read by the field's
//! own `PropertyField`, as `from_data` does.

use std::marker::PhantomData;

use graphbinary_core::{Cursor, Decode, FastError, FastResult};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::__private::{Fast, Slot};
use super::{label_of, Element, ElementData, EDGE_KEY};
use crate::client::{Error, ResultStream};
use crate::format::de::{
    read_fq, ElementKey, ValueVisitor, ELEMENT_KEY_TOKEN, ELEMENT_SCALAR_TOKEN, ELEMENT_TOKEN,
    ELEMENT_VALUE_TOKEN,
};
use crate::value::Value;

/// What the fast reader kept of one answer for `E`, or the failure that sends it to the
/// `Value` route.
pub struct FastRead<E> {
    fast: Fast,
    _type: PhantomData<fn() -> E>,
}

impl<E: Element> FastRead<E> {
    /// The element, as [`Element::from_value`] reads the same answer.
    pub fn into_element(self) -> Result<E, Error> {
        E::__from_fast(self.fast)
    }
}

impl<'de, E: Element> Deserialize<'de> for FastRead<E> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let fast = d.deserialize_newtype_struct(ELEMENT_TOKEN, MapVisitor { props: E::__PROPS })?;
        Ok(FastRead {
            fast,
            _type: PhantomData,
        })
    }
}

struct MapVisitor {
    props: &'static [&'static str],
}

/// A key as [`ELEMENT_KEY_TOKEN`] hands it over.
enum Key {
    Token(u64),
    /// A property's slot, or `None` for a property not read.
    Prop(Option<usize>),
}

struct KeySeed {
    props: &'static [&'static str],
}

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_newtype_struct(ELEMENT_KEY_TOKEN, self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an element map's key")
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Key, E> {
        Ok(Key::Token(n))
    }
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Key, E> {
        if b == EDGE_KEY.as_bytes() {
            // A projection (`GraphTraversal::elements` of an edge): the `Value` route's.
            return Err(E::custom("a projection"));
        }
        Ok(Key::Prop(self.props.iter().position(|p| p.as_bytes() == b)))
    }
}

/// A value exactly as the `Value` reader decodes it, a scalar without the `Value` stash.
struct Scalar;

impl<'de> DeserializeSeed<'de> for Scalar {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_newtype_struct(ELEMENT_SCALAR_TOKEN, ValueVisitor)
    }
}

/// A property's value: one value, or the items of a List or Set (which `from_value` reads as
/// the property's values).
enum Prop {
    One(Value),
    Many(Vec<Value>),
}

struct PropSeed;

impl<'de> DeserializeSeed<'de> for PropSeed {
    type Value = Prop;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Prop, D::Error> {
        d.deserialize_newtype_struct(ELEMENT_VALUE_TOKEN, PropSeed)
    }
}

/// `Value`'s own visits, as `Prop::One`.
macro_rules! one {
    ($($visit:ident($t:ty)),*) => {$(
        fn $visit<E: de::Error>(self, v: $t) -> Result<Prop, E> {
            ValueVisitor.$visit(v).map(Prop::One)
        }
    )*};
}

impl<'de> Visitor<'de> for PropSeed {
    type Value = Prop;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a property value")
    }
    one!(
        visit_bool(bool),
        visit_i8(i8),
        visit_i16(i16),
        visit_i32(i32),
        visit_i64(i64),
        visit_f32(f32),
        visit_f64(f64),
        visit_char(char),
        visit_str(&str),
        visit_string(String)
    );
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<Prop, A::Error> {
        let mut items = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = a.next_element_seed(Scalar)? {
            items.push(item);
        }
        Ok(Prop::Many(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Prop, A::Error> {
        ValueVisitor.visit_map(a).map(Prop::One)
    }
}

impl<'de> Visitor<'de> for MapVisitor {
    type Value = Fast;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an element map")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Fast, A::Error> {
        let mut fast = Fast {
            data: ElementData::default(),
            slots: std::iter::repeat_with(Slot::default)
                .take(self.props.len())
                .collect(),
        };
        while let Some(key) = m.next_key_seed(KeySeed { props: self.props })? {
            let key = match key {
                Key::Prop(Some(i)) => {
                    let slot = &mut fast.slots[i];
                    match m.next_value_seed(PropSeed)? {
                        Prop::One(Value::List(items) | Value::Set(items)) | Prop::Many(items) => {
                            for item in items {
                                slot.push(item);
                            }
                        }
                        Prop::One(v) => slot.push(v),
                    }
                    continue;
                }
                key => key,
            };
            let v: Value = match key {
                Key::Token(n) if n == ElementKey::Out as u64 || n == ElementKey::In as u64 => {
                    m.next_value()?
                }
                _ => m.next_value_seed(Scalar)?,
            };
            let d = &mut fast.data;
            match key {
                Key::Token(n) if n == ElementKey::Id as u64 => d.id = Some(v),
                Key::Token(n) if n == ElementKey::Label as u64 => {
                    d.label = Some(label_of(v).map_err(de::Error::custom)?)
                }
                Key::Token(n) if n == ElementKey::Out as u64 || n == ElementKey::In as u64 => {
                    let end = Box::new(ElementData::from_value(v).map_err(de::Error::custom)?);
                    if n == ElementKey::Out as u64 {
                        d.out_v = Some(end);
                    } else {
                        d.in_v = Some(end);
                    }
                }
                Key::Token(_) => return Err(de::Error::custom("not an element map's key")),
                // A property not read (`Some` was read above).
                Key::Prop(_) => {}
            }
        }
        Ok(fast)
    }
}

/// One answer for `E` read at `cur`: by the fast reader, or, when it does not take the
/// answer, by the `Value` route from the same bytes.
fn read_one<E: Element>(cur: &mut Cursor<'_>) -> FastResult<Result<E, Error>> {
    // On a cursor of its own, so that a read given up leaves `cur` where the value starts.
    let p0 = cur.position();
    let mut sub = Cursor::with_depth(cur.remaining(), cur.offset(), cur.limits(), cur.depth());
    match read_fq::<FastRead<E>>(&mut sub) {
        Ok(f) => {
            cur.read_bytes(sub.position())?;
            Ok(f.into_element())
        }
        Err(FastError::NeedMore(n)) => Err(FastError::NeedMore(p0 + n)),
        Err(FastError::Invalid(_)) => Ok(E::from_value(<Value as Decode>::decode(cur)?)),
    }
}

/// A result read for `E`: the element, or a `Value` for the `Value` route (bulked responses,
/// the slow path, `ws://`).
enum Got<E> {
    Read(Result<E, Error>),
    Value(Value),
}

/// Every result of `stream` read as `E`, bulks expanded, as reading them all as values and
/// then each with [`Element::from_value`] does (the response's own error first).
pub(crate) async fn read_all<E: Element>(stream: ResultStream) -> Result<Vec<E>, Error> {
    let mut out: Vec<E> = Vec::new();
    // A bulk too large to expand is the error before the response's own, a result not read
    // as `E` after it (as `ResultStream::all`, then each read).
    let mut too_big: Option<Error> = None;
    let mut failed: Option<Error> = None;
    let mut t = stream.traversers();
    let r = t
        .drive(
            |cur, bulked| {
                if bulked {
                    <Value as Decode>::decode(cur).map(Got::Value)
                } else {
                    read_one::<E>(cur).map(Got::Read)
                }
            },
            |v, _| Ok(Got::Value(v)),
            |got, bulk| {
                if failed.is_some() || too_big.is_some() || bulk <= 0 {
                    return;
                }
                let r = match got {
                    Got::Read(r) => r.map(|e| out.push(e)),
                    Got::Value(v) => match expand(&mut out, bulk) {
                        Ok(n) => (0..n).try_for_each(|_| {
                            out.push(E::from_value(v.clone())?);
                            Ok(())
                        }),
                        Err(e) => {
                            too_big = Some(e);
                            return;
                        }
                    },
                };
                if let Err(e) = r {
                    failed = Some(e);
                }
            },
        )
        .await;
    if let Some(e) = too_big {
        return Err(e);
    }
    r?;
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// `bulk` as a count of items, room made for them in `out` (as `ResultStream::all` expands
/// it).
fn expand<E>(out: &mut Vec<E>, bulk: i64) -> Result<usize, Error> {
    let too_big = || Error::Protocol(format!("bulk {bulk} cannot be expanded in memory"));
    let n = usize::try_from(bulk).map_err(|_| too_big())?;
    out.try_reserve(n).map_err(|_| too_big())?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::Vertex;
    use crate::value::T;

    #[derive(Vertex, Debug, PartialEq)]
    #[vertex(crate = "crate", label = "person")]
    struct Person {
        #[vertex(id)]
        id: i64,
        name: String,
        langs: Vec<String>,
    }

    /// At every split of three answers (read fast, left to the `Value` route, an error), the
    /// reader asks for more bytes beyond the split, or reads what `from_value` reads.
    #[test]
    fn every_split_asks_for_more_or_reads_as_from_value() {
        let s = |x: &str| Value::String(x.into());
        let answers = [
            Value::Map(vec![
                (Value::T(T::Id), Value::Long(1)),
                (Value::T(T::Label), s("person")),
                (s("name"), Value::List(vec![s("ada")])),
                (s("langs"), Value::List(vec![s("en"), s("fr")])),
            ]),
            Value::Map(vec![(Value::T(T::Key), s("x"))]),
            Value::Map(vec![
                (Value::T(T::Id), Value::Long(2)),
                (s("name"), Value::Int(3)),
            ]),
        ];
        let want: Vec<String> = answers
            .iter()
            .map(|v| format!("{:?}", Person::from_value(v.clone())))
            .collect();
        let bytes: Vec<u8> = answers.iter().flat_map(|v| v.to_bytes().unwrap()).collect();
        let limits = crate::ReadOptions::default().limits;
        for split in 0..=bytes.len() {
            let mut cur = Cursor::new(&bytes[..split], 0, &limits);
            let mut got = Vec::new();
            loop {
                if cur.remaining().is_empty() {
                    break;
                }
                match read_one::<Person>(&mut cur) {
                    Ok(r) => got.push(format!("{r:?}")),
                    Err(FastError::NeedMore(n)) => {
                        assert!(n > split && n <= bytes.len(), "split {split}: need {n}");
                        break;
                    }
                    Err(FastError::Invalid(e)) => panic!("split {split}: {e}"),
                }
            }
            assert_eq!(got[..], want[..got.len()], "split {split}");
            if split == bytes.len() {
                assert_eq!(got, want);
            }
        }
    }
}
