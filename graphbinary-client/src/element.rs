//! Your own types as vertices and edges: `#[derive(Vertex)]` and `#[derive(Edge)]`.
//!
//! A struct deriving [`Vertex`](macro@Vertex) or [`Edge`](macro@Edge) says how it is stored in the graph:
//! its label, which field is the element id, which fields identify it for an upsert (its keys),
//! and the property of each other field. The derive implements [`VertexType`] or
//! [`EdgeType`]: the data the writers need ([`ElementWrite`]: id, label, properties with their
//! exact types, keys, an edge's two ends) and a reader from what a server answers for an element
//! ([`ElementData`]: an `elementMap()`, a `valueMap(true)` or a vertex / edge value with its
//! properties). The typed operations of the traversal API take them
//! ([`GraphTraversalSource::add`](crate::process::GraphTraversalSource::add),
//! [`upsert`](crate::process::GraphTraversalSource::upsert),
//! [`upsert_edge`](crate::process::GraphTraversalSource::upsert_edge),
//! [`all`](crate::process::GraphTraversalSource::all)).
//!
//! ```
//! use graphbinary_client::element::{Edge, Element, Vertex};
//! use graphbinary_client::process::GraphTraversalSource;
//!
//! #[derive(Vertex, Debug, PartialEq)]
//! #[vertex(label = "person")]
//! struct Person {
//!     #[vertex(id)]
//!     id: Option<i64>,      // None: the server assigns it
//!     #[vertex(key)]
//!     name: String,         // identifies the person for an upsert
//!     age: Option<i32>,     // None: no property
//!     #[vertex(rename = "nick")]
//!     nicknames: Vec<String>, // list cardinality; a HashSet / BTreeSet is set cardinality
//!     #[vertex(skip)]
//!     cached: u32,          // not stored; read back as Default
//! }
//!
//! #[derive(Edge, Debug, PartialEq)]
//! #[edge(label = "knows")]
//! struct Knows {
//!     #[edge(out = Person)]
//!     from: String,         // the out vertex, found by Person's key (its name)
//!     #[edge(in = Person)]
//!     to: String,
//!     weight: f64,
//! }
//!
//! let g = GraphTraversalSource::detached();
//! let p = Person { id: None, name: "ada".into(), age: Some(36), nicknames: vec![], cached: 0 };
//! let t = g.upsert(&p).gremlin_lang().unwrap();
//! assert!(t.gremlin.starts_with(r#"g.mergeV([(T.label):"person","name":"ada"])"#), "{}", t.gremlin);
//! assert_eq!(Person::LABEL, "person");
//! assert_eq!(Knows::LABEL, "knows");
//! ```
//!
//! # Field types
//!
//! A property's type is any [`PropertyValue`]: `bool`, `i8` (Byte), `i16` (Short), `i32`
//! (Int), `i64` (Long), `f32` (Float), `f64` (Double), `String`, `char`, `uuid::Uuid`,
//! [`DateTime`], [`Duration`], [`BigInteger`], [`BigDecimal`], `bytes::Bytes` (Binary), or a
//! [`Value`] (anything, written as read). Each is written as the literal of its exact
//! GraphBinary type, so it reads back as the same type. Around it ([`PropertyField`]):
//! `Option<T>` is a property that may be absent (`None` writes nothing), `Vec<T>` list
//! cardinality, `HashSet<T>` / `BTreeSet<T>` set cardinality. The id field is any
//! `PropertyValue` too (a Long, a String, a UUID, or a `Value` for JanusGraph's
//! RelationIdentifier), `Option` when the server assigns it.
//!
//! # One way to read a struct
//!
//! These readers take the *element's* shape (id, label, properties by key, an edge's ends).
//! serde's [`typed::<T>()`](crate::client::ResultStream::typed) and
//! [`to_list_as`](crate::process::GraphTraversal::to_list_as) read any result into a
//! `#[derive(Deserialize)]` struct by field name (a `project(..)` or an `elementMap()` with
//! single values), and `#[derive(GraphBinary)]` is for a type that *is* a GraphBinary value (a
//! provider's PDT), read and written byte for byte. A struct that is a vertex needs only
//! `#[derive(Vertex)]` to be both written and read back
//! ([`GraphTraversal::elements`](crate::process::GraphTraversal::elements)); deriving
//! `Deserialize` as well is only needed to read it from other shapes.

use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::hash::Hash;

pub use graphbinary_derive::{Edge, Vertex};

use crate::client::Error;
use crate::lang::Lit;
use crate::value::{BigDecimal, BigInteger, DateTime, Duration, Value, T};

/// A property value type: written as the literal of its exact GraphBinary type, read back from
/// the [`Value`] a server answers.
pub trait PropertyValue: Sized {
    /// The literal written for the value.
    fn to_lit(&self) -> Result<Lit, String>;
    /// The value read back.
    fn from_value(v: Value) -> Result<Self, String>;
}

macro_rules! property_via_try_from {
    ($($t:ty),*) => {$(
        impl PropertyValue for $t {
            fn to_lit(&self) -> Result<Lit, String> {
                Ok(Lit::from(self.clone()))
            }
            fn from_value(v: Value) -> Result<Self, String> {
                <$t>::try_from(v).map_err(|e| e.to_string())
            }
        }
    )*};
}
property_via_try_from! { i8, i16, i32, i64, f32, f64, bool, String, uuid::Uuid, DateTime }

/// `{target}` from a value of another type.
fn mismatch(target: &str, v: &Value) -> String {
    format!("expected {target}, found a {}", v.type_name())
}

/// Types that only one `Value` variant holds: the literal is `Lit::from` the value, and the
/// value read back must be that variant (`$name` in the error otherwise).
macro_rules! property_of_variant {
    ($($t:ty: $variant:ident(|$x:ident| $read:expr), $name:literal;)*) => {$(
        impl PropertyValue for $t {
            fn to_lit(&self) -> Result<Lit, String> {
                Ok(Lit::from(self.clone()))
            }
            fn from_value(v: Value) -> Result<Self, String> {
                match v {
                    Value::$variant($x) => Ok($read),
                    other => Err(mismatch($name, &other)),
                }
            }
        }
    )*};
}
property_of_variant! {
    char: Char(|c| c), "char";
    Duration: Duration(|d| d), "Duration";
    BigInteger: BigInteger(|b| b), "BigInteger";
    BigDecimal: BigDecimal(|b| *b), "BigDecimal";
    bytes::Bytes: Binary(|b| bytes::Bytes::from(b)), "Binary";
}

impl PropertyValue for Value {
    /// The value's literal ([`Lit::try_from`]); an element stands for its id.
    fn to_lit(&self) -> Result<Lit, String> {
        Lit::try_from(self.clone())
    }
    fn from_value(v: Value) -> Result<Self, String> {
        Ok(v)
    }
}

/// What a field writes for its property.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    /// Nothing (`None`, an empty list or set).
    Absent,
    /// One value, single cardinality.
    Single(Lit),
    /// Values of list cardinality, in order.
    List(Vec<Lit>),
    /// Values of set cardinality.
    Set(Vec<Lit>),
}

/// A field holding a property: one value, an optional one, or several (list or set
/// cardinality). Implemented for every [`PropertyValue`] `T`, `Option<T>`, `Vec<T>`,
/// `HashSet<T>` and `BTreeSet<T>`.
pub trait PropertyField: Sized {
    /// The values written.
    fn write(&self) -> Result<Written, String>;
    /// The field read from every value of its key (empty when the element has none).
    fn read(values: Vec<Value>) -> Result<Self, String>;
    /// [`read`](Self::read) of one value, without its `Vec` (the fast reader's usual case).
    #[doc(hidden)]
    fn __read_one(value: Value) -> Result<Self, String> {
        Self::read(vec![value])
    }
}

impl<V: PropertyValue> PropertyField for V {
    fn write(&self) -> Result<Written, String> {
        Ok(Written::Single(self.to_lit()?))
    }
    fn read(values: Vec<Value>) -> Result<Self, String> {
        let mut it = values.into_iter();
        match (it.next(), it.next()) {
            (Some(v), None) => V::from_value(v),
            (None, _) => Err("missing".into()),
            (Some(_), Some(_)) => Err("several values for a single property".into()),
        }
    }
    fn __read_one(value: Value) -> Result<Self, String> {
        V::from_value(value)
    }
}

impl<V: PropertyValue> PropertyField for Option<V> {
    fn write(&self) -> Result<Written, String> {
        match self {
            Some(v) => Ok(Written::Single(v.to_lit()?)),
            None => Ok(Written::Absent),
        }
    }
    fn read(values: Vec<Value>) -> Result<Self, String> {
        if values.is_empty() {
            return Ok(None);
        }
        V::read(values).map(Some)
    }
    fn __read_one(value: Value) -> Result<Self, String> {
        V::from_value(value).map(Some)
    }
}

/// The literals of `items`, or [`Written::Absent`] when there are none.
fn many<'a, V: PropertyValue + 'a>(
    items: impl Iterator<Item = &'a V>,
    f: fn(Vec<Lit>) -> Written,
) -> Result<Written, String> {
    let lits = items.map(V::to_lit).collect::<Result<Vec<_>, _>>()?;
    Ok(if lits.is_empty() {
        Written::Absent
    } else {
        f(lits)
    })
}

impl<V: PropertyValue> PropertyField for Vec<V> {
    fn write(&self) -> Result<Written, String> {
        many(self.iter(), Written::List)
    }
    fn read(values: Vec<Value>) -> Result<Self, String> {
        values.into_iter().map(V::from_value).collect()
    }
}

impl<V: PropertyValue + Eq + Hash> PropertyField for HashSet<V> {
    fn write(&self) -> Result<Written, String> {
        let mut w = many(self.iter(), Written::Set)?;
        if let Written::Set(items) = &mut w {
            // A deterministic script (the set's own order is random).
            items.sort_by_cached_key(|l| l.to_gremlin().unwrap_or_default());
        }
        Ok(w)
    }
    fn read(values: Vec<Value>) -> Result<Self, String> {
        values.into_iter().map(V::from_value).collect()
    }
}

impl<V: PropertyValue + Ord> PropertyField for BTreeSet<V> {
    fn write(&self) -> Result<Written, String> {
        many(self.iter(), Written::Set)
    }
    fn read(values: Vec<Value>) -> Result<Self, String> {
        values.into_iter().map(V::from_value).collect()
    }
}

/// One property of an element as written: its name, whether it is a key, its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Prop {
    /// The property key in the graph.
    pub name: &'static str,
    /// Whether it identifies the element for an upsert.
    pub key: bool,
    /// The values.
    pub values: Written,
}

/// How an edge finds one of its ends.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The vertex with this id.
    Id(Lit),
    /// The vertex of this label whose property `key` has this value (the key of the end's
    /// [`VertexType`]).
    Key {
        /// The end's label.
        label: &'static str,
        /// The end's key property.
        key: &'static str,
        /// Its value.
        value: Lit,
    },
}

/// What the writers need of an element, made by the derive.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementWrite {
    /// The label.
    pub label: &'static str,
    /// The id to give it, when set.
    pub id: Option<Lit>,
    /// The properties, in field order (absent ones included as [`Written::Absent`]).
    pub props: Vec<Prop>,
    /// An edge's out (tail) end.
    pub out_v: Option<End>,
    /// An edge's in (head) end.
    pub in_v: Option<End>,
}

/// One write of a batch ([`crate::process::BatchWriter`]) or a typed operation: a typed element
/// added or upserted, or a raw `mergeV` / `mergeE` of maps.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteOp {
    /// `addV` / `addE` of an element; never sent again once it may have reached the server.
    Add(ElementWrite),
    /// `mergeV` / `mergeE` on the element's keys (see
    /// [`GraphTraversalSource::upsert`](crate::process::GraphTraversalSource::upsert)).
    Upsert(ElementWrite),
    /// `mergeV(search)` with its options.
    MergeV(RawMerge),
    /// `mergeE(search)` with its options.
    MergeE(RawMerge),
}

/// A raw merge: the search map (`[(T.label):"person","name":"ada"]`, with `Direction.OUT` /
/// `Direction.IN` for an edge) and the `Merge.onCreate` / `Merge.onMatch` maps.
#[derive(Debug, Clone, PartialEq)]
pub struct RawMerge {
    /// The search map.
    pub search: Lit,
    /// The `onCreate` map, if any.
    pub on_create: Option<Lit>,
    /// The `onMatch` map, if any.
    pub on_match: Option<Lit>,
}

/// A struct that is a graph element: what [`VertexType`] and [`EdgeType`] share (made by the
/// derives).
pub trait Element: Sized {
    /// The label.
    const LABEL: &'static str;
    /// The property keys that identify the element for an upsert, in field order (may be
    /// empty). For an edge, they tell apart two edges joining the same ends.
    const KEYS: &'static [&'static str];
    /// Whether it is an edge.
    const IS_EDGE: bool;
    /// How an edge finds each end, `[out, in]`: by id (`None`) or by the one key of its vertex
    /// type (`Some((label, key))`). `[None, None]` for a vertex.
    const ENDS_BY_KEY: [Option<(&'static str, &'static str)>; 2] = [None, None];
    /// The data the writers need.
    fn to_write(&self) -> Result<ElementWrite, Error>;
    /// The element read back from what a server answered for it ([`ElementData`]).
    fn from_data(data: ElementData) -> Result<Self, Error>;
    /// The element read back from an `elementMap()`, a `valueMap(true)`, a vertex or edge
    /// value, or the projection of
    /// [`GraphTraversal::elements`](crate::process::GraphTraversal::elements).
    fn from_value(v: Value) -> Result<Self, Error> {
        Self::from_data(ElementData::from_value(v).map_err(|detail| Error::Element {
            target: std::any::type_name::<Self>(),
            detail,
        })?)
    }
    /// Whether the derive made the fast reader (`__PROPS`, `__from_fast`).
    #[doc(hidden)]
    const __FAST: bool = false;
    /// The property keys the fast reader keeps, one slot each, in field order.
    #[doc(hidden)]
    const __PROPS: &'static [&'static str] = &[];
    /// The element from what the fast reader kept: as [`from_data`](Self::from_data) would
    /// read the same answer.
    #[doc(hidden)]
    fn __from_fast(fast: __private::Fast) -> Result<Self, Error> {
        Self::from_data(fast.data)
    }
}

/// A struct that is a vertex (`#[derive(Vertex)]`).
pub trait VertexType: Element {}

/// A struct that is an edge (`#[derive(Edge)]`).
pub trait EdgeType: Element {}

/// The projection keys of an edge read with its ends' properties.
pub(crate) const EDGE_KEY: &str = "~edge";
pub(crate) const OUT_KEY: &str = "~out";
pub(crate) const IN_KEY: &str = "~in";

/// An element as a server answered it, whatever the shape: id, label, every property's values
/// by key and an edge's ends (each an element of its own, with the properties the answer had).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ElementData {
    /// The id, when the answer had it.
    pub id: Option<Value>,
    /// The label, when the answer had it.
    pub label: Option<String>,
    /// Each property's values, by key, in the order read.
    pub props: Vec<(String, Vec<Value>)>,
    /// An edge's out end.
    pub out_v: Option<Box<ElementData>>,
    /// An edge's in end.
    pub in_v: Option<Box<ElementData>>,
}

impl ElementData {
    /// Reads an `elementMap()` (Map with `T.id`, `T.label`, each key's value and an edge's
    /// `Direction.OUT` / `Direction.IN` maps), a `valueMap(true)` (each key's values in a List),
    /// a Vertex or Edge value with its properties, or the `~edge`/`~out`/`~in` projection of
    /// [`GraphTraversal::elements`](crate::process::GraphTraversal::elements). A List value is
    /// the values of a multi-property (as `valueMap` writes them).
    pub fn from_value(v: Value) -> Result<ElementData, String> {
        match v {
            Value::Vertex(vx) => {
                let vx = *vx;
                let mut d = ElementData {
                    id: Some(vx.id),
                    label: Some(vx.label.join("::")),
                    ..ElementData::default()
                };
                for p in vx.properties.into_iter().flatten() {
                    d.push(p.label.join("::"), p.value);
                }
                Ok(d)
            }
            Value::Edge(e) => {
                let e = *e;
                let mut d = ElementData {
                    id: Some(e.id),
                    label: Some(e.label.join("::")),
                    out_v: Some(Box::new(ElementData {
                        id: Some(e.out_v_id),
                        label: Some(e.out_v_label.join("::")),
                        ..ElementData::default()
                    })),
                    in_v: Some(Box::new(ElementData {
                        id: Some(e.in_v_id),
                        label: Some(e.in_v_label.join("::")),
                        ..ElementData::default()
                    })),
                    ..ElementData::default()
                };
                for p in e.properties.into_iter().flatten() {
                    d.push(p.key.to_string(), p.value);
                }
                Ok(d)
            }
            Value::Map(entries) | Value::OrderedMap(entries) => Self::from_map(entries),
            other => Err(format!(
                "expected an element (a Map, Vertex or Edge), found a {}",
                other.type_name()
            )),
        }
    }

    fn from_map(entries: Vec<(Value, Value)>) -> Result<ElementData, String> {
        let projected = entries
            .iter()
            .any(|(k, _)| matches!(k, Value::String(s) if s == EDGE_KEY));
        if projected {
            let mut edge = None;
            let (mut out_v, mut in_v) = (None, None);
            for (k, v) in entries {
                match k {
                    Value::String(s) if s == EDGE_KEY => edge = Some(Self::from_value(v)?),
                    Value::String(s) if s == OUT_KEY => out_v = Some(Self::from_value(v)?),
                    Value::String(s) if s == IN_KEY => in_v = Some(Self::from_value(v)?),
                    _ => {}
                }
            }
            let mut edge = edge.unwrap_or_default();
            // The ends' own maps have their properties; the edge's maps had id and label.
            if let Some(o) = out_v {
                edge.out_v = Some(Box::new(o));
            }
            if let Some(i) = in_v {
                edge.in_v = Some(Box::new(i));
            }
            return Ok(edge);
        }
        let mut d = ElementData::default();
        for (k, v) in entries {
            match k {
                Value::T(T::Id) => d.id = Some(v),
                Value::T(T::Label) => d.label = Some(label_of(v)?),
                Value::Direction(crate::value::Direction::Out) => {
                    d.out_v = Some(Box::new(Self::from_value(v)?))
                }
                Value::Direction(crate::value::Direction::In) => {
                    d.in_v = Some(Box::new(Self::from_value(v)?))
                }
                Value::String(key) => match v {
                    Value::List(items) | Value::Set(items) => {
                        for item in items {
                            d.push(key.clone(), item);
                        }
                    }
                    v => d.push(key, v),
                },
                other => return Err(format!("unexpected key {} in an element map", other)),
            }
        }
        Ok(d)
    }

    fn push(&mut self, key: String, v: Value) {
        match self.props.iter_mut().find(|(k, _)| *k == key) {
            Some((_, values)) => values.push(v),
            None => self.props.push((key, vec![v])),
        }
    }

    /// Takes every value of property `key` (none when absent).
    pub fn take(&mut self, key: &str) -> Vec<Value> {
        match self.props.iter().position(|(k, _)| k == key) {
            Some(i) => self.props.remove(i).1,
            None => Vec::new(),
        }
    }
}

/// A label read from an element map: a String, or (4.0 multi-label graphs) a List of them.
fn label_of(v: Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s),
        Value::List(items) => items
            .into_iter()
            .map(|i| match i {
                Value::String(s) => Ok(s),
                other => Err(mismatch("a String label", &other)),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.join("::")),
        other => Err(mismatch("a String label", &other)),
    }
}

#[cfg(feature = "serde")]
mod fast;
#[cfg(feature = "serde")]
pub(crate) use fast::read_all;

/// The helpers the derive's generated code calls; not a stable API.
#[doc(hidden)]
pub mod __private {
    use super::*;

    pub use crate::lang::Lit;
    pub use crate::value::Value;

    /// The error of reading field `field` (`None`: the element as a whole) of `target`.
    pub fn err(target: &'static str, field: &str, detail: impl fmt::Display) -> Error {
        Error::Element {
            target,
            detail: if field.is_empty() {
                detail.to_string()
            } else {
                format!("{field}: {detail}")
            },
        }
    }

    /// Checks the label read (when the answer had one).
    pub fn check_label(target: &'static str, data: &ElementData, label: &str) -> Result<(), Error> {
        match &data.label {
            Some(l) if l != label => Err(err(
                target,
                "",
                format!("the label is {l:?}, expected {label:?}"),
            )),
            _ => Ok(()),
        }
    }

    /// Property `key` of `data` as field type `F`.
    pub fn property<F: PropertyField>(
        target: &'static str,
        data: &mut ElementData,
        key: &str,
    ) -> Result<F, Error> {
        F::read(data.take(key)).map_err(|e| err(target, key, format!("property {key:?}: {e}")))
    }

    /// The id of `data` as field type `F`.
    pub fn id<F: PropertyField>(target: &'static str, data: &ElementData) -> Result<F, Error> {
        F::read(data.id.iter().cloned().collect()).map_err(|e| err(target, "id", e))
    }

    /// The `out` (`true`) or `in` end of `data`: its id, or its property `key`.
    pub fn end<F: PropertyField>(
        target: &'static str,
        data: &mut ElementData,
        out: bool,
        key: Option<&str>,
    ) -> Result<F, Error> {
        let which = if out { "out" } else { "in" };
        let end = if out {
            data.out_v.as_deref_mut()
        } else {
            data.in_v.as_deref_mut()
        };
        let Some(end) = end else {
            return Err(err(target, which, "the answer has no such end"));
        };
        let values = match key {
            None => end.id.iter().cloned().collect(),
            Some(key) => {
                let v = end.take(key);
                if v.is_empty() {
                    return Err(err(
                        target,
                        which,
                        format!("the end's key {key:?} is not in the answer (read the edge with GraphTraversal::elements)"),
                    ));
                }
                v
            }
        };
        F::read(values).map_err(|e| err(target, which, e))
    }

    /// What the fast reader kept of an element map: id, label and ends in `data`, and each
    /// of [`Element::__PROPS`]'s values in its slot.
    #[derive(Debug, Default)]
    pub struct Fast {
        /// Id, label and ends (no properties).
        pub data: ElementData,
        /// The values of each property, by slot.
        pub slots: Vec<Slot>,
    }

    /// The values of one property read by the fast reader.
    #[derive(Debug, Default)]
    pub enum Slot {
        /// None.
        #[default]
        Empty,
        /// One.
        One(Value),
        /// Several, in order.
        Many(Vec<Value>),
    }

    impl Slot {
        pub(crate) fn push(&mut self, v: Value) {
            *self = match std::mem::take(self) {
                Slot::Empty => Slot::One(v),
                Slot::One(a) => Slot::Many(vec![a, v]),
                Slot::Many(mut items) => {
                    items.push(v);
                    Slot::Many(items)
                }
            };
        }
    }

    /// Property `key` in slot `i` of `fast` as field type `F`: [`property`] of the same
    /// values.
    pub fn fast_property<F: PropertyField>(
        target: &'static str,
        fast: &mut Fast,
        i: usize,
        key: &str,
    ) -> Result<F, Error> {
        let slot = fast
            .slots
            .get_mut(i)
            .map(std::mem::take)
            .unwrap_or_default();
        match slot {
            Slot::Empty => F::read(Vec::new()),
            Slot::One(v) => F::__read_one(v),
            Slot::Many(items) => F::read(items),
        }
        .map_err(|e| err(target, key, format!("property {key:?}: {e}")))
    }

    /// The id of `fast` as field type `F`: [`id`] of the same value.
    pub fn fast_id<F: PropertyField>(target: &'static str, fast: &mut Fast) -> Result<F, Error> {
        match fast.data.id.take() {
            Some(v) => F::__read_one(v),
            None => F::read(Vec::new()),
        }
        .map_err(|e| err(target, "id", e))
    }

    #[cfg(feature = "serde")]
    pub use super::fast::FastRead;

    /// The written values of field `name`.
    pub fn write<F: PropertyField>(
        target: &'static str,
        name: &'static str,
        key: bool,
        field: &F,
    ) -> Result<Prop, Error> {
        let values = field.write().map_err(|e| err(target, name, e))?;
        if key && values == Written::Absent {
            return Err(err(target, name, "a key property has no value"));
        }
        Ok(Prop { name, key, values })
    }

    /// The id to write, from the id field.
    pub fn write_id<F: PropertyField>(
        target: &'static str,
        field: &F,
    ) -> Result<Option<Lit>, Error> {
        match field.write().map_err(|e| err(target, "id", e))? {
            // A `Value` id field holding a null: no id, as `None`.
            Written::Absent | Written::Single(Lit::Null) => Ok(None),
            Written::Single(l) => Ok(Some(l)),
            Written::List(_) | Written::Set(_) => {
                Err(err(target, "id", "an id is one value, not a list or set"))
            }
        }
    }

    /// An end written by id, or by the key of its type (`Some((label, key))`).
    pub fn write_end<F: PropertyField>(
        target: &'static str,
        which: &str,
        by_key: Option<(&'static str, &'static str)>,
        field: &F,
    ) -> Result<End, Error> {
        let lit = match field.write().map_err(|e| err(target, which, e))? {
            Written::Single(l) => l,
            _ => return Err(err(target, which, "an end is one value")),
        };
        Ok(match by_key {
            None => End::Id(lit),
            Some((label, key)) => End::Key {
                label,
                key,
                value: lit,
            },
        })
    }

    /// The one key of vertex type `V` (an edge's end found by key), or an error at compile
    /// time when it has none or several (a `const` evaluated by the derive).
    pub const fn single_key<V: VertexType>() -> &'static str {
        match V::KEYS {
            [k] => k,
            _ => panic!("an edge end found by key needs a vertex type with exactly one #[vertex(key)] field"),
        }
    }
}
