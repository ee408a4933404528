//! The batch writer's one-binding form for TinkerPop 3 servers: a request of merges as one
//! constant Groovy script and one binding holding the batch's rows.
//!
//! A TinkerPop 3 server compiles each distinct script it evaluates (Groovy), and caches it by
//! its text. The chained form (`g.inject(0).mergeV([...]).option(..).mergeV(..)...` with every
//! value a literal) is a new script for every batch, so every batch is compiled; here the text
//! depends only on the batch's [`Shape`] (vertices or edges, end lookups, counting), so it is
//! compiled once, and the rows travel as GraphBinary 1 data. The script is the merge step over
//! rows of [`super::rows`] (`inject(gbw_rows)`), after a prelude: GraphBinary 1 has no type for
//! `Cardinality.set(value)`, so a row's `c` / `u` values that had a cardinality travel plain,
//! their cardinalities in `cc` / `uc` under the same keys, and the prelude wraps them back
//! before the traversal.

use super::arg::GValue;
use super::rows::{rows, traversal, Row, Shape};
use super::GraphTraversalSource;
use crate::element::WriteOp;
use crate::lang::Lit;
use crate::value::Value;

/// The binding that holds the rows.
pub(super) const ROWS: &str = "gbw_rows";

/// A batch in its one-binding form: the script and the rows.
pub(super) struct Bound {
    pub(super) script: String,
    pub(super) rows: Value,
}

/// The batch as one binding, when every item takes the row form, they share a shape, and
/// every value has a GraphBinary 1 type.
pub(super) fn bound(items: &[(u64, WriteOp)], count_created: bool) -> Option<Bound> {
    let (shape, rows) = rows(items)?;
    let rows = rows
        .into_iter()
        .map(split_row)
        .collect::<Option<Vec<_>>>()?;
    let rows = Value::try_from(&Lit::List(rows)).ok()?;
    Some(Bound {
        script: script(shape, count_created)?,
        rows,
    })
}

/// The script of a shape (constant for it: compiled once by the server).
fn script(shape: Shape, count_created: bool) -> Option<String> {
    // Wrap back the values that had a cardinality, in place (GraphBinary 1 maps arrive as
    // mutable LinkedHashMaps).
    let mut s = format!(
        "for (r in {ROWS}) {{ for (p in [['c','cc'],['u','uc']]) {{ def cs = r.get(p[1]); \
         if (cs != null) {{ def m = r.get(p[0]); for (e in cs.entrySet()) {{ \
         m.put(e.getKey(), new org.apache.tinkerpop.gremlin.process.traversal.lambda.\
         CardinalityValueTraversal(e.getValue(), m.get(e.getKey()))) }} }} }} }}\n"
    );
    let rows = GValue::new(ROWS, Lit::Null).into();
    let t = traversal(
        &GraphTraversalSource::detached(),
        shape,
        rows,
        count_created,
    );
    s.push_str(&t.gremlin_lang_for(true).ok()?.gremlin);
    Some(s)
}

/// A row as a map literal with its `c` / `u` cardinalities taken out: `Cardinality.set(x)`
/// becomes `x`, and `set` goes into `cc` / `uc` under the same key.
fn split_row(row: Row) -> Option<Lit> {
    let mut out = Vec::with_capacity(row.len() + 2);
    for (name, value) in row {
        let cards = match name {
            "c" => "cc",
            "u" => "uc",
            _ => {
                out.push((Lit::from(name), value));
                continue;
            }
        };
        let Lit::Map(entries) = value else {
            return None;
        };
        let mut plain = Vec::with_capacity(entries.len());
        let mut cs = Vec::new();
        for (k, v) in entries {
            match v {
                Lit::CardinalityValue(c, inner) => {
                    cs.push((k.clone(), Lit::from(c)));
                    plain.push((k, *inner));
                }
                v => plain.push((k, v)),
            }
        }
        out.push((Lit::from(name), Lit::Map(plain)));
        if !cs.is_empty() {
            out.push((Lit::from(cards), Lit::Map(cs)));
        }
    }
    Some(Lit::Map(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::RawMerge;
    use crate::lang::tokens::{Cardinality, Merge, T};

    fn key(s: &str) -> Value {
        Value::String(s.to_owned())
    }

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
        assert!(a
            .script
            .contains(".inject(gbw_rows).unfold().as('m').mergeV(__.select('m').select('s'))"));
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
            .ends_with(".mergeE(__.select('m').select('s')).option(Merge.onCreate,__.select('m').select('c')).option(Merge.onMatch,__.select('m').select('u')).count()"));
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
