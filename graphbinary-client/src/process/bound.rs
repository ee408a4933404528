//! The batch writer's one-binding form for TinkerPop 3 servers: a request of upserts as one
//! constant Groovy script and one binding holding the batch's rows.
//!
//! A TinkerPop 3 server compiles each distinct script it evaluates (Groovy), and caches it by
//! its text. The chained form (`g.inject(0).mergeV([...]).option(..).mergeV(..)...` with every
//! value a literal) is a new script for every batch, so every batch is compiled; here the text
//! depends only on the batch's shape (vertices or edges, end lookups, counting), so it is
//! compiled once, and the rows travel as GraphBinary 1 data:
//!
//! ```text
//! g.withSideEffect('gbw_created',[]).inject(_gbw_rows).unfold().as('m')
//!   .mergeV(select('m').select('s'))
//!   .option(Merge.onCreate, select('m').sideEffect(constant(1).aggregate('gbw_created')).select('c'))
//!   .option(Merge.onMatch, select('m').select('u'))
//!   .cap('gbw_created').count(local)
//! ```
//!
//! Each row is a map: `s` the search map, `c` and `u` the `onCreate` and `onMatch` maps (empty
//! when the item has none: an empty `onCreate` creates from the search, an empty `onMatch`
//! changes nothing), `cc` / `uc` the cardinality of the entries of `c` / `u` that had one
//! (GraphBinary 1 has no type for `Cardinality.set(value)`: the script wraps those values
//! back, before the traversal), `o` / `i` the end lookups of an edge whose ends are found by
//! key (`Merge.outV` / `Merge.inV`). The `select('m')` form (not `select('s')` on the incoming
//! map) is the one that runs alike on 3.7 and on 3.8, where option children see the merged
//! element. The rows created are counted by the `onCreate` child, which runs only for them.
//!
//! Items that do not take this form (plain adds, typed upserts that drop or replace
//! multi-valued properties, values with no GraphBinary 1 type, a batch mixing vertices and
//! edges or end lookups) are sent in the chained form.

use super::typed::{edge_upsert_parts, vertex_upsert_parts};
use crate::element::WriteOp;
use crate::lang::tokens::{Cardinality, Merge};
use crate::lang::Lit;
use crate::value::Value;

/// The binding that holds the rows.
pub(super) const ROWS: &str = "_gbw_rows";

/// A batch in its one-binding form: the script and the rows.
pub(super) struct Bound {
    pub(super) script: String,
    pub(super) rows: Value,
}

/// One item as a row, and its shape: `(edge, end lookups (out, in), row)`.
struct Row {
    edge: bool,
    ends: (bool, bool),
    value: Value,
}

/// The batch as one binding, when every item takes that form and they share a shape.
pub(super) fn bound(items: &[(u64, WriteOp)], count_created: bool) -> Option<Bound> {
    let mut rows = Vec::with_capacity(items.len());
    let mut shape = None;
    for (_, op) in items {
        let r = row(op)?;
        match shape {
            None => shape = Some((r.edge, r.ends)),
            Some(s) if s != (r.edge, r.ends) => return None,
            Some(_) => {}
        }
        rows.push(r.value);
    }
    let (edge, ends) = shape?;
    Some(Bound {
        script: script(edge, ends, count_created),
        rows: Value::List(rows),
    })
}

/// The script of a shape (constant for it: compiled once by the server).
fn script(edge: bool, (out_v, in_v): (bool, bool), count_created: bool) -> String {
    // Wrap back the values that had a cardinality, in place (GraphBinary 1 maps arrive as
    // mutable LinkedHashMaps).
    let mut s = format!(
        "for (r in {ROWS}) {{ for (p in [['c','cc'],['u','uc']]) {{ def cs = r.get(p[1]); \
         if (cs != null) {{ def m = r.get(p[0]); for (e in cs.entrySet()) {{ \
         m.put(e.getKey(), new org.apache.tinkerpop.gremlin.process.traversal.lambda.\
         CardinalityValueTraversal(e.getValue(), m.get(e.getKey()))) }} }} }} }}\n"
    );
    s.push_str(if count_created {
        "g.withSideEffect('gbw_created',[])"
    } else {
        "g"
    });
    s.push_str(&format!(".inject({ROWS}).unfold().as('m')"));
    s.push_str(if edge { ".mergeE" } else { ".mergeV" });
    s.push_str("(select('m').select('s'))");
    if out_v {
        s.push_str(".option(Merge.outV,select('m').select('o'))");
    }
    if in_v {
        s.push_str(".option(Merge.inV,select('m').select('i'))");
    }
    if count_created {
        s.push_str(
            ".option(Merge.onCreate,select('m').sideEffect(constant(1)\
             .aggregate('gbw_created')).select('c'))",
        );
    } else {
        s.push_str(".option(Merge.onCreate,select('m').select('c'))");
    }
    s.push_str(".option(Merge.onMatch,select('m').select('u'))");
    s.push_str(if count_created {
        ".cap('gbw_created').count(local)"
    } else {
        ".count()"
    });
    s
}

fn row(op: &WriteOp) -> Option<Row> {
    let (edge, search, create, on_match, all_single, ends) = match op {
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
            // The chained form's `option(onCreate|onMatch, map, Cardinality.single)`.
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
    let mut entries = vec![(key("s"), Value::try_from(&search).ok()?)];
    for (name, cards, map) in [("c", "cc", create), ("u", "uc", on_match)] {
        let (map, card) = split_cardinality(map.as_ref(), all_single)?;
        entries.push((key(name), map));
        if let Some(card) = card {
            entries.push((key(cards), card));
        }
    }
    let mut out_v = false;
    let mut in_v = false;
    for (which, lookup) in ends {
        let (name, flag) = match which {
            Merge::OutV => ("o", &mut out_v),
            Merge::InV => ("i", &mut in_v),
            _ => return None,
        };
        *flag = true;
        entries.push((key(name), Value::try_from(&lookup).ok()?));
    }
    Some(Row {
        edge,
        ends: (out_v, in_v),
        value: Value::Map(entries),
    })
}

fn key(s: &str) -> Value {
    Value::String(s.to_owned())
}

/// `map` as a value with its entries' cardinalities taken out (`Cardinality.set(x)` becomes
/// `x`, and `set` goes into the second map under the same key); with `all_single`, every
/// string key gets `single`. `None` when a value has no GraphBinary 1 form.
fn split_cardinality(map: Option<&Lit>, all_single: bool) -> Option<(Value, Option<Value>)> {
    let Some(map) = map else {
        return Some((Value::Map(Vec::new()), None));
    };
    let Lit::Map(entries) = map else {
        return None;
    };
    let mut plain = Vec::with_capacity(entries.len());
    let mut cards = Vec::new();
    for (k, v) in entries {
        let kv = Value::try_from(k).ok()?;
        let (card, v) = match v {
            Lit::CardinalityValue(c, inner) => (Some(*c), &**inner),
            v if all_single && matches!(k, Lit::String(_)) => (Some(Cardinality::Single), v),
            v => (None, v),
        };
        if let Some(c) = card {
            cards.push((kv.clone(), Value::try_from(&Lit::from(c)).ok()?));
        }
        plain.push((kv, Value::try_from(v).ok()?));
    }
    let cards = (!cards.is_empty()).then_some(Value::Map(cards));
    Some((Value::Map(plain), cards))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::RawMerge;
    use crate::lang::tokens::T;

    fn merge_v(id: &str, card: Option<Cardinality>) -> (u64, WriteOp) {
        let v = Lit::from("x");
        let v = match card {
            Some(c) => Lit::CardinalityValue(c, Box::new(v)),
            None => v,
        };
        (
            0,
            WriteOp::MergeV(RawMerge {
                search: Lit::Map(vec![(Lit::from(T::Id), Lit::from(id))]),
                on_create: Some(Lit::Map(vec![(Lit::from("name"), v.clone())])),
                on_match: None,
            }),
        )
    }

    #[test]
    fn a_batch_of_vertex_merges_is_one_script_whatever_its_values() {
        let a = bound(&[merge_v("1", None), merge_v("2", None)], true).unwrap();
        let b = bound(&[merge_v("3", Some(Cardinality::Set))], true).unwrap();
        assert_eq!(a.script, b.script);
        assert!(a.script.contains(".mergeV(select('m').select('s'))"));
        let Value::List(rows) = &b.rows else {
            panic!("{:?}", b.rows)
        };
        let Value::Map(row) = &rows[0] else {
            panic!("{rows:?}")
        };
        let get = |k: &str| row.iter().find(|(n, _)| *n == key(k)).map(|(_, v)| v);
        assert_eq!(
            get("c"),
            Some(&Value::Map(vec![(key("name"), key("x"))])),
            "the value without its cardinality"
        );
        assert!(matches!(get("cc"), Some(Value::Map(m)) if m.len() == 1));
        assert_eq!(get("u"), Some(&Value::Map(Vec::new())), "no onMatch: empty");
    }

    #[test]
    fn mixed_or_unbindable_batches_keep_the_chained_form() {
        let e = (
            1,
            WriteOp::MergeE(RawMerge {
                search: Lit::Map(vec![(Lit::from(T::Id), Lit::from("e"))]),
                on_create: None,
                on_match: None,
            }),
        );
        assert!(bound(&[merge_v("1", None), e.clone()], true).is_none());
        assert!(bound(&[e], false)
            .unwrap()
            .script
            .ends_with(".mergeE(select('m').select('s')).option(Merge.onCreate,select('m').select('c')).option(Merge.onMatch,select('m').select('u')).count()"));
        // A step as a value has no GraphBinary 1 form.
        let odd = (
            2,
            WriteOp::MergeV(RawMerge {
                search: Lit::Map(vec![(Lit::from(T::Id), Lit::from(Merge::OnCreate))]),
                on_create: Some(Lit::List(vec![Lit::CardinalityValue(
                    Cardinality::List,
                    Box::new(Lit::from(1)),
                )])),
                on_match: None,
            }),
        );
        assert!(bound(&[odd], true).is_none());
    }
}
