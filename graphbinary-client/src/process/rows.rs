//! A batch of merges as rows of one merge step: the shape shared by the batch writer's two
//! fast forms, the list form over gremlin-lang ([`listed`]) and the one-binding form for
//! TinkerPop 3 ([`super::bound`]):
//!
//! ```text
//! g.withSideEffect("gbw_created",[]).inject(ROWS).unfold().as("m")
//!   .mergeV(__.select("m").select("s"))
//!   .option(Merge.outV,__.select("m").select("o"))      (edges whose out end is found by key)
//!   .option(Merge.inV,__.select("m").select("i"))       (edges whose in end is found by key)
//!   .option(Merge.onCreate,__.select("m").sideEffect(__.constant(1).aggregate("gbw_created")).select("c"))
//!   .option(Merge.onMatch,__.select("m").select("u"))
//!   .cap("gbw_created").count(Scope.local)
//! ```
//!
//! Each row is a map: `s` the search map, `c` and `u` the `onCreate` and `onMatch` maps (empty
//! when the item has none: an empty `onCreate` creates from the search, an empty `onMatch`
//! changes nothing), `o` / `i` the end lookups of an edge whose ends are found by key. A typed
//! vertex upsert's property values are `Cardinality.single(value)`, as the chained form's
//! `option(onCreate, map, Cardinality.single)` sets them. The `select("m")` form (not
//! `select("s")` on the incoming map) is the one that runs alike on 3.7, 3.8 and 4.0, where
//! option children see the merged element. The rows created are counted by the `onCreate`
//! child, which runs only for them.
//!
//! Items that do not take this form (plain adds, typed upserts that drop or replace
//! multi-valued properties, a search or option that is not a map literal, a batch mixing
//! vertices and edges or end lookups) are sent in the chained form.

use super::arg::Arg;
use super::typed::{edge_upsert_parts, vertex_upsert_parts};
use super::{GraphTraversal, GraphTraversalSource, __};
use crate::element::WriteOp;
use crate::lang::tokens::{Cardinality, Merge, Scope};
use crate::lang::Lit;

/// The side-effect key of the count of the rows created.
pub(super) const CREATED_KEY: &str = "gbw_created";

/// What every row of one request shares: vertices or edges, and which ends are found by key.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Shape {
    pub(super) edge: bool,
    pub(super) out_v: bool,
    pub(super) in_v: bool,
}

/// One item as a row: its entries by name (`s`, `c`, `u`, then `o` / `i` when present).
pub(super) type Row = Vec<(&'static str, Lit)>;

/// The batch as rows of one shape, when every item takes the row form and they share it.
pub(super) fn rows(items: &[(u64, WriteOp)]) -> Option<(Shape, Vec<Row>)> {
    let mut rows = Vec::with_capacity(items.len());
    let mut shape = None;
    for (_, op) in items {
        let (s, row) = row(op)?;
        match shape {
            None => shape = Some(s),
            Some(first) if first != s => return None,
            Some(_) => {}
        }
        rows.push(row);
    }
    Some((shape?, rows))
}

fn row(op: &WriteOp) -> Option<(Shape, Row)> {
    let (edge, search, create, on_match, single, ends) = match op {
        WriteOp::Add(_) => return None,
        WriteOp::MergeV(m) | WriteOp::MergeE(m) => (
            matches!(op, WriteOp::MergeE(_)),
            m.search.clone(),
            m.on_create.clone(),
            m.on_match.clone(),
            false,
            Vec::new(),
        ),
        WriteOp::Upsert(w) if w.out_v.is_none() => {
            let (search, create, on_match, rest) = vertex_upsert_parts(w).ok()?;
            if !rest.is_empty() {
                return None;
            }
            (
                false,
                search,
                Some(create),
                Some(on_match),
                true,
                Vec::new(),
            )
        }
        WriteOp::Upsert(w) => {
            let (search, ends, create, on_match, rest) = edge_upsert_parts(w).ok()?;
            if !rest.is_empty() {
                return None;
            }
            (true, search, Some(create), Some(on_match), false, ends)
        }
    };
    if !matches!(search, Lit::Map(_)) {
        return None;
    }
    let mut row = vec![
        ("s", search),
        ("c", option_map(create, single)?),
        ("u", option_map(on_match, single)?),
    ];
    let mut shape = Shape {
        edge,
        out_v: false,
        in_v: false,
    };
    for (which, lookup) in ends {
        let (name, flag) = match which {
            Merge::OutV => ("o", &mut shape.out_v),
            Merge::InV => ("i", &mut shape.in_v),
            _ => return None,
        };
        *flag = true;
        row.push((name, lookup));
    }
    Some((shape, row))
}

/// An `onCreate` / `onMatch` map: absent, an empty map; with `single`, each property value
/// (a string key) as `Cardinality.single(value)` unless it names its cardinality. `None` when
/// it is not a map literal.
fn option_map(map: Option<Lit>, single: bool) -> Option<Lit> {
    match map {
        None => Some(Lit::Map(Vec::new())),
        Some(Lit::Map(entries)) if single => Some(Lit::Map(
            entries
                .into_iter()
                .map(|(k, v)| match v {
                    v @ Lit::CardinalityValue(..) => (k, v),
                    v if matches!(k, Lit::String(_)) => {
                        (k, Lit::CardinalityValue(Cardinality::Single, Box::new(v)))
                    }
                    v => (k, v),
                })
                .collect(),
        )),
        Some(m @ Lit::Map(_)) => Some(m),
        Some(_) => None,
    }
}

/// The merge step over `rows` (a list literal, or a binding holding the rows), counting the
/// rows created when `count_created` (else counting the rows).
pub(super) fn traversal(
    g: &GraphTraversalSource,
    shape: Shape,
    rows: Arg,
    count_created: bool,
) -> GraphTraversal {
    let g = if count_created {
        g.with_side_effect((CREATED_KEY, Lit::List(Vec::new())))
    } else {
        g.clone()
    };
    let t = g.inject(vec![rows]).unfold().as_("m");
    let search = __::select("m").select("s");
    let mut t = if shape.edge {
        t.merge_e(search)
    } else {
        t.merge_v(search)
    };
    if shape.out_v {
        t = t.option((Merge::OutV, __::select("m").select("o")));
    }
    if shape.in_v {
        t = t.option((Merge::InV, __::select("m").select("i")));
    }
    let create = if count_created {
        __::select("m").side_effect(__::constant(1).aggregate(CREATED_KEY))
    } else {
        __::select("m")
    };
    let t = t
        .option((Merge::OnCreate, create.select("c")))
        .option((Merge::OnMatch, __::select("m").select("u")));
    if count_created {
        t.cap(CREATED_KEY).count(Scope::Local)
    } else {
        t.count(())
    }
}

/// A request of merges in the list form (gremlin-lang, which refuses `inject` with a
/// parameter): the rows as one list literal, every value a literal of its exact type.
pub(super) fn listed(
    g: &GraphTraversalSource,
    items: &[(u64, WriteOp)],
    count_created: bool,
) -> Option<GraphTraversal> {
    let (shape, rows) = rows(items)?;
    let rows = rows
        .into_iter()
        .map(|r| Lit::Map(r.into_iter().map(|(k, v)| (Lit::from(k), v)).collect()))
        .collect();
    Some(traversal(g, shape, Lit::List(rows).into(), count_created))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::{ElementWrite, End, Prop, Written};

    fn person(name: &str, age: i32) -> (u64, WriteOp) {
        let prop = |name, key, v: Lit| Prop {
            name,
            key,
            values: Written::Single(v),
        };
        (
            0,
            WriteOp::Upsert(ElementWrite {
                label: "person",
                id: None,
                props: vec![
                    prop("name", true, Lit::from(name)),
                    prop("age", false, Lit::Int(age)),
                ],
                out_v: None,
                in_v: None,
            }),
        )
    }

    fn knows(from: &str, to: &str) -> (u64, WriteOp) {
        let end = |v: &str| End::Key {
            label: "person",
            key: "name",
            value: Lit::from(v),
        };
        (
            1,
            WriteOp::Upsert(ElementWrite {
                label: "knows",
                id: None,
                props: Vec::new(),
                out_v: Some(end(from)),
                in_v: Some(end(to)),
            }),
        )
    }

    #[test]
    fn typed_vertex_upserts_are_rows_with_single_values() {
        let g = GraphTraversalSource::detached();
        let t = listed(&g, &[person("marko", 29), person("vadas", 27)], true).unwrap();
        let text = t.gremlin_lang().unwrap().gremlin;
        assert!(
            text.starts_with(concat!(
                r#"g.withSideEffect("gbw_created",[]).inject([["s":[(T.label):"person","name":"marko"],"#,
                r#""c":["age":Cardinality.single(29)],"u":["age":Cardinality.single(29)]],"#
            )),
            "{text}"
        );
        assert!(
            text.contains(".mergeV(__.select(\"m\").select(\"s\"))"),
            "{text}"
        );
    }

    #[test]
    fn edges_found_by_key_look_their_ends_up_per_row() {
        let g = GraphTraversalSource::detached();
        let t = listed(&g, &[knows("marko", "vadas")], false).unwrap();
        let text = t.gremlin_lang().unwrap().gremlin;
        assert!(
            text.contains(concat!(
                r#""o":[(T.label):"person","name":"marko"],"#,
                r#""i":[(T.label):"person","name":"vadas"]"#
            )),
            "{text}"
        );
        assert!(
            text.contains(concat!(
                r#".mergeE(__.select("m").select("s"))"#,
                r#".option(Merge.outV,__.select("m").select("o"))"#,
                r#".option(Merge.inV,__.select("m").select("i"))"#,
                r#".option(Merge.onCreate,__.select("m").select("c"))"#
            )),
            "{text}"
        );
        // Vertices and edges do not share a request's shape.
        assert!(rows(&[person("a", 1), knows("a", "b")]).is_none());
    }
}
