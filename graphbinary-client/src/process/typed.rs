//! Typed operations: your `#[derive(Vertex)]` / `#[derive(Edge)]` structs added, upserted and
//! read back through the traversal API ([`crate::element`]).
//!
//! Each operation is a [`GraphTraversal`] that can be extended before it is sent, and runs the
//! same way over `http://` (TinkerPop 4, gremlin-lang) and `ws://` (TinkerPop 3, Groovy with a
//! binding for each literal Groovy cannot write). Property values are written as the literals of
//! their exact types, so they read back as the same types.

use std::marker::PhantomData;

use super::generated::__;
use super::traversal::{GraphTraversal, GraphTraversalSource};
use crate::client::Error;
use crate::element::{
    EdgeType, Element, ElementWrite, End, RawMerge, VertexType, WriteOp, Written,
};
use crate::lang::tokens::{Cardinality, Direction, Merge, T};
use crate::lang::Lit;
use crate::value::Value;

impl GraphTraversalSource {
    /// Adds `item`, a vertex (`addV`) or an edge (`addE` between its two ends, found by id or
    /// by key), with its id when set and every property it has. The traversal yields the
    /// element added.
    ///
    /// ```
    /// use graphbinary_client::element::Vertex;
    /// use graphbinary_client::process::GraphTraversalSource;
    ///
    /// #[derive(Vertex)]
    /// #[vertex(label = "person")]
    /// struct Person { name: String, langs: Vec<String> }
    ///
    /// let g = GraphTraversalSource::detached();
    /// let p = Person { name: "ada".into(), langs: vec!["en".into(), "fr".into()] };
    /// assert_eq!(
    ///     g.add(&p).gremlin_lang().unwrap().gremlin,
    ///     concat!(
    ///         r#"g.addV("person").property(Cardinality.single,"name","ada")"#,
    ///         r#".property(Cardinality.list,"langs","en").property(Cardinality.list,"langs","fr")"#,
    ///     )
    /// );
    /// ```
    pub fn add<E: Element>(&self, item: &E) -> GraphTraversal {
        let w = match item.to_write() {
            Ok(w) => w,
            Err(e) => return self.inject(()).with_error(e.to_string()),
        };
        append(On::Source(self), &WriteOp::Add(w))
    }

    /// Upserts the vertex `item`: `mergeV` on its label and key fields (on its id when it has no
    /// key field), created with all its properties (`onCreate`), else updated (`onMatch`) so that
    /// the stored vertex then has exactly the struct's properties: single values set with
    /// `Cardinality.single`, a list or set property replaced by the struct's values, an absent
    /// (`None`) property dropped. Upserting the same struct twice changes nothing. The
    /// traversal yields the vertex.
    ///
    /// ```
    /// use graphbinary_client::element::Vertex;
    /// use graphbinary_client::process::GraphTraversalSource;
    ///
    /// #[derive(Vertex)]
    /// #[vertex(label = "person")]
    /// struct Person { #[vertex(key)] name: String, age: i32 }
    ///
    /// let g = GraphTraversalSource::detached();
    /// let t = g.upsert(&Person { name: "ada".into(), age: 36 });
    /// assert_eq!(
    ///     t.gremlin_lang().unwrap().gremlin,
    ///     concat!(
    ///         r#"g.mergeV([(T.label):"person","name":"ada"])"#,
    ///         r#".option(Merge.onCreate,["age":36],Cardinality.single)"#,
    ///         r#".option(Merge.onMatch,["age":36],Cardinality.single)"#,
    ///     )
    /// );
    /// ```
    pub fn upsert<V: VertexType>(&self, item: &V) -> GraphTraversal {
        match item.to_write() {
            Ok(w) => append(On::Source(self), &WriteOp::Upsert(w)),
            Err(e) => self.inject(()).with_error(e.to_string()),
        }
    }

    /// Upserts the edge `item`: `mergeE` on its label, its two ends (by id, or with
    /// `Merge.outV` / `Merge.inV` looking up the end by its type's key) and its own key fields,
    /// created with all its properties, else updated to exactly them (an absent property
    /// dropped). The ends must exist (`mergeE` creates no vertex). The traversal yields the
    /// edge.
    pub fn upsert_edge<E: EdgeType>(&self, item: &E) -> GraphTraversal {
        match item.to_write() {
            Ok(w) => append(On::Source(self), &WriteOp::Upsert(w)),
            Err(e) => self.inject(()).with_error(e.to_string()),
        }
    }

    /// Every element of type `E` (`g.V().hasLabel(label)` or `g.E().hasLabel(label)`), read
    /// back as `E` when sent: extend it with [`Elements::filter`] first.
    ///
    /// ```
    /// use graphbinary_client::element::Vertex;
    /// use graphbinary_client::process::GraphTraversalSource;
    ///
    /// #[derive(Vertex)]
    /// #[vertex(label = "person")]
    /// struct Person { name: String, age: Option<i32> }
    ///
    /// let g = GraphTraversalSource::detached();
    /// let t = g.all::<Person>().filter(|t| t.has(("age", 30)).limit(2));
    /// assert_eq!(
    ///     t.traversal().gremlin_lang().unwrap().gremlin,
    ///     r#"g.V().hasLabel("person").has("age",30).limit(2).valueMap(true)"#
    /// );
    /// ```
    pub fn all<E: Element>(&self) -> Elements<E> {
        let t = if E::IS_EDGE { self.e(()) } else { self.v(()) };
        Elements {
            traversal: t.has_label(E::LABEL),
            _type: PhantomData,
        }
    }
}

/// The elements of a traversal read back as `E` ([`GraphTraversalSource::all`]): the traversal
/// to extend, then the projection that reads `E` appended when it is sent.
#[derive(Debug, Clone)]
pub struct Elements<E> {
    traversal: GraphTraversal,
    _type: PhantomData<fn() -> E>,
}

impl<E: Element> Elements<E> {
    /// The traversal extended by `f` (filters, ordering, a limit...): it must still yield the
    /// elements.
    pub fn filter(self, f: impl FnOnce(GraphTraversal) -> GraphTraversal) -> Elements<E> {
        Elements {
            traversal: f(self.traversal),
            _type: PhantomData,
        }
    }

    /// The traversal as it is sent, with the projection that reads `E`.
    pub fn traversal(&self) -> GraphTraversal {
        read_projection::<E>(self.traversal.clone())
    }

    /// Every element, read as `E`.
    pub async fn to_list(self) -> Result<Vec<E>, Error> {
        self.traversal.elements::<E>().await
    }

    /// The first element, or `None`.
    pub async fn next(self) -> Result<Option<E>, Error> {
        let v = read_projection::<E>(self.traversal).next().await?;
        v.map(read::<E>).transpose()
    }
}

impl GraphTraversal {
    /// Sends the traversal, whose results must be elements of type `E` (vertices or edges),
    /// with the projection that reads them appended (`valueMap(true)` for a vertex,
    /// `elementMap()` for an edge, with its ends' keys when an end is found by key), and reads
    /// each as `E`. A derived type's maps are read straight from the response's bytes (feature
    /// `serde`, GraphBinary 4), to what [`Element::from_value`] reads, which reads the rest.
    pub async fn elements<E: Element>(self) -> Result<Vec<E>, Error> {
        let stream = read_projection::<E>(self).stream().await?;
        // A derived element's map read straight from the bytes, to the same result.
        #[cfg(feature = "serde")]
        if E::__FAST && E::ENDS_BY_KEY.iter().all(Option::is_none) {
            return crate::element::read_all::<E>(stream).await;
        }
        stream.all().await?.into_iter().map(read::<E>).collect()
    }
}

fn read<E: Element>(v: Value) -> Result<E, Error> {
    E::from_value(v)
}

/// `t` followed by what reads `E`.
fn read_projection<E: Element>(t: GraphTraversal) -> GraphTraversal {
    if !E::IS_EDGE {
        return t.value_map(true);
    }
    // An end found by key: its properties are read too.
    if E::ENDS_BY_KEY.iter().any(Option::is_some) {
        t.project((
            crate::element::EDGE_KEY,
            crate::element::OUT_KEY,
            crate::element::IN_KEY,
        ))
        .by(__::element_map(()))
        .by(__::out_v().value_map(true))
        .by(__::in_v().value_map(true))
    } else {
        t.element_map(())
    }
}

fn prop_lit(values: &Written) -> Option<Lit> {
    match values {
        Written::Absent => None,
        Written::Single(l) => Some(l.clone()),
        Written::List(items) => Some(Lit::List(items.clone())),
        Written::Set(items) => Some(Lit::Set(items.clone())),
    }
}

/// Where a write starts: a source (`g.addV(..)`) or the end of a traversal (a batch's chain,
/// `...addV(..)`).
pub(crate) enum On<'a> {
    Source(&'a GraphTraversalSource),
    Mid(GraphTraversal),
}

impl On<'_> {
    fn add_v(self, label: &str) -> GraphTraversal {
        match self {
            On::Source(g) => g.add_v(label),
            On::Mid(t) => t.add_v(label),
        }
    }
    fn add_e(self, label: &str) -> GraphTraversal {
        match self {
            On::Source(g) => g.add_e(label),
            On::Mid(t) => t.add_e(label),
        }
    }
    fn merge_v(self, m: Lit) -> GraphTraversal {
        match self {
            On::Source(g) => g.merge_v(m),
            On::Mid(t) => t.merge_v(m),
        }
    }
    fn merge_e(self, m: Lit) -> GraphTraversal {
        match self {
            On::Source(g) => g.merge_e(m),
            On::Mid(t) => t.merge_e(m),
        }
    }
    fn fail(self, e: String) -> GraphTraversal {
        match self {
            On::Source(g) => g.inject(()).with_error(e),
            On::Mid(t) => t.with_error(e),
        }
    }
}

/// `op` written from `on`.
pub(crate) fn append(on: On<'_>, op: &WriteOp) -> GraphTraversal {
    match op {
        WriteOp::Add(w) if w.out_v.is_some() => add_edge(on, w.clone()),
        WriteOp::Add(w) => add_vertex(on, w.clone()),
        WriteOp::Upsert(w) if w.out_v.is_some() => match edge_upsert_parts(w) {
            Ok((search, ends, create, on_match, rest)) => {
                let mut t = on.merge_e(search);
                for (which, m) in ends {
                    t = t.option((which, m));
                }
                finish_upsert(t, create, on_match, rest, true)
            }
            Err(e) => on.fail(e),
        },
        WriteOp::Upsert(w) => match vertex_upsert_parts(w) {
            Ok((search, create, on_match, rest)) => {
                finish_upsert(on.merge_v(search), create, on_match, rest, false)
            }
            Err(e) => on.fail(e),
        },
        WriteOp::MergeV(m) => raw_merge(on.merge_v(m.search.clone()), m),
        WriteOp::MergeE(m) => raw_merge(on.merge_e(m.search.clone()), m),
    }
}

fn raw_merge(mut t: GraphTraversal, m: &RawMerge) -> GraphTraversal {
    for (which, l) in [
        (Merge::OnCreate, &m.on_create),
        (Merge::OnMatch, &m.on_match),
    ] {
        if let Some(l) = l {
            t = t.option((which, l.clone()));
        }
    }
    t
}

/// An anonymous traversal counting (0 or 1) the elements `op` would match, for a batch to
/// tell created from matched; `None` when it cannot tell (a raw `mergeE`, a plain add).
pub(crate) fn match_probe(op: &WriteOp) -> Option<GraphTraversal> {
    let has_all = |mut t: GraphTraversal, entries: &[(Lit, Lit)]| {
        for (k, v) in entries {
            t = match k {
                Lit::Token(crate::lang::tokens::Token::T(T::Id)) => t.has_id(v.clone()),
                Lit::Token(crate::lang::tokens::Token::T(T::Label)) => t.has_label(v.clone()),
                Lit::String(k) => t.has((k.as_str(), v.clone())),
                _ => return None,
            };
        }
        Some(t)
    };
    let probe = |t: GraphTraversal| t.limit(1).count(());
    match op {
        WriteOp::Add(_) | WriteOp::MergeE(_) => None,
        WriteOp::Upsert(w) if w.out_v.is_none() => {
            let (Lit::Map(search), ..) = vertex_upsert_parts(w).ok()? else {
                return None;
            };
            has_all(__::v(()), &search).map(probe)
        }
        WriteOp::MergeV(m) => match &m.search {
            Lit::Map(search) => has_all(__::v(()), search).map(probe),
            _ => None,
        },
        WriteOp::Upsert(w) => {
            let (out_v, in_v) = (w.out_v.as_ref()?, w.in_v.as_ref()?);
            let t = end_finder(out_v).out_e(w.label);
            let t = t.where_(match in_v {
                End::Id(id) => __::in_v().has_id(id.clone()),
                End::Key { label, key, value } => __::in_v().has((*label, *key, value.clone())),
            });
            let keys: Vec<(Lit, Lit)> = w
                .props
                .iter()
                .filter(|p| p.key)
                .map(|p| Some((Lit::from(p.name), prop_lit(&p.values)?)))
                .collect::<Option<_>>()?;
            has_all(t, &keys).map(probe)
        }
    }
}

fn add_vertex(on: On<'_>, w: ElementWrite) -> GraphTraversal {
    let mut t = on.add_v(w.label);
    if let Some(id) = w.id {
        t = t.property((T::Id, id));
    }
    for p in w.props {
        match p.values {
            Written::Absent => {}
            Written::Single(l) => t = t.property((Cardinality::Single, p.name, l)),
            Written::List(items) => {
                for l in items {
                    t = t.property((Cardinality::List, p.name, l));
                }
            }
            Written::Set(items) => {
                for l in items {
                    t = t.property((Cardinality::Set, p.name, l));
                }
            }
        }
    }
    t
}

/// The anonymous traversal that finds an edge's end.
fn end_finder(end: &End) -> GraphTraversal {
    match end {
        End::Id(id) => __::v(id.clone()),
        End::Key { label, key, value } => __::v(()).has((*label, *key, value.clone())),
    }
}

fn add_edge(on: On<'_>, w: ElementWrite) -> GraphTraversal {
    let (Some(out_v), Some(in_v)) = (&w.out_v, &w.in_v) else {
        return on.fail("an edge needs its two ends".to_owned());
    };
    let mut t = on
        .add_e(w.label)
        .from(end_finder(out_v))
        .to(end_finder(in_v));
    if let Some(id) = w.id {
        t = t.property((T::Id, id));
    }
    for p in w.props {
        if let Some(l) = prop_lit(&p.values) {
            t = t.property((p.name, l));
        }
    }
    t
}

/// What is left after the merge step's options: properties dropped (absent) or replaced by
/// several values (list / set cardinality).
pub(super) type Rest = Vec<(&'static str, Written)>;

/// `(search, onCreate, onMatch, rest)` of a vertex upsert.
pub(super) fn vertex_upsert_parts(w: &ElementWrite) -> Result<(Lit, Lit, Lit, Rest), String> {
    let mut search = vec![(Lit::from(T::Label), Lit::from(w.label))];
    let mut create = Vec::new();
    let mut on_match = Vec::new();
    let mut rest = Vec::new();
    let has_keys = w.props.iter().any(|p| p.key);
    match (&w.id, has_keys) {
        (Some(id), false) => search.push((Lit::from(T::Id), id.clone())),
        (Some(id), true) => create.push((Lit::from(T::Id), id.clone())),
        (None, false) => {
            return Err(format!(
                "an upsert of a {:?} vertex needs a #[vertex(key)] field or an id",
                w.label
            ))
        }
        (None, true) => {}
    }
    for p in &w.props {
        match (&p.values, p.key) {
            (Written::Single(l), true) => search.push((Lit::from(p.name), l.clone())),
            (_, true) => {
                return Err(format!(
                    "key property {:?} must be one value (not absent, a list or a set)",
                    p.name
                ))
            }
            (Written::Single(l), false) => {
                create.push((Lit::from(p.name), l.clone()));
                on_match.push((Lit::from(p.name), l.clone()));
            }
            (other, false) => rest.push((p.name, other.clone())),
        }
    }
    Ok((Lit::Map(search), Lit::Map(create), Lit::Map(on_match), rest))
}

/// The search map of an edge upsert, the end lookups (`Merge.outV`/`inV` options), onCreate,
/// onMatch and the rest.
#[allow(clippy::type_complexity)]
pub(super) fn edge_upsert_parts(
    w: &ElementWrite,
) -> Result<(Lit, Vec<(Merge, Lit)>, Lit, Lit, Rest), String> {
    let (Some(out_v), Some(in_v)) = (&w.out_v, &w.in_v) else {
        return Err("an edge needs its two ends".into());
    };
    let mut search = vec![(Lit::from(T::Label), Lit::from(w.label))];
    let mut ends = Vec::new();
    for (end, dir, merge) in [
        (out_v, Direction::Out, Merge::OutV),
        (in_v, Direction::In, Merge::InV),
    ] {
        match end {
            End::Id(id) => search.push((Lit::from(dir), id.clone())),
            End::Key { label, key, value } => {
                search.push((Lit::from(dir), Lit::from(merge)));
                ends.push((
                    merge,
                    Lit::Map(vec![
                        (Lit::from(T::Label), Lit::from(*label)),
                        (Lit::from(*key), value.clone()),
                    ]),
                ));
            }
        }
    }
    let mut create = Vec::new();
    if let Some(id) = &w.id {
        create.push((Lit::from(T::Id), id.clone()));
    }
    let mut on_match = Vec::new();
    let mut rest = Vec::new();
    for p in &w.props {
        let value = prop_lit(&p.values);
        match (value, p.key) {
            (Some(l), true) => search.push((Lit::from(p.name), l)),
            (None, true) => return Err(format!("key property {:?} has no value", p.name)),
            (Some(l), false) => {
                create.push((Lit::from(p.name), l.clone()));
                on_match.push((Lit::from(p.name), l));
            }
            (None, false) => rest.push((p.name, Written::Absent)),
        }
    }
    Ok((
        Lit::Map(search),
        ends,
        Lit::Map(create),
        Lit::Map(on_match),
        rest,
    ))
}

/// The merge step's options, then the drops and multi-valued properties.
fn finish_upsert(
    mut t: GraphTraversal,
    create: Lit,
    on_match: Lit,
    rest: Rest,
    edge: bool,
) -> GraphTraversal {
    let nonempty = |l: &Lit| !matches!(l, Lit::Map(m) if m.is_empty());
    if nonempty(&create) {
        t = if edge {
            t.option((Merge::OnCreate, create))
        } else {
            t.option((Merge::OnCreate, create, Cardinality::Single))
        };
    }
    if nonempty(&on_match) {
        t = if edge {
            t.option((Merge::OnMatch, on_match))
        } else {
            t.option((Merge::OnMatch, on_match, Cardinality::Single))
        };
    }
    for (name, values) in rest {
        t = t.side_effect(__::properties(name).drop());
        let (card, items) = match values {
            Written::List(items) => (Cardinality::List, items),
            Written::Set(items) => (Cardinality::Set, items),
            Written::Absent | Written::Single(_) => continue,
        };
        for l in items {
            t = t.property((card, name, l));
        }
    }
    t
}
