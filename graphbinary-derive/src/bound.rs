//! Where-clauses for generic containers.
//!
//! A generic struct gets, for each impl, one predicate per field saying what that field's
//! layout needs of its type (e.g. `T: FqDecode` for an `fq` field). Non-generic containers
//! get none: their field types are checked where they are used, with the field's span.

use syn::{parse_quote, Generics, Type, WherePredicate};

use crate::ast::{Container, Layout, V1Field};
use crate::gen::Gen;

/// Which side of the codec an impl belongs to.
#[derive(Clone, Copy)]
pub(crate) enum Side {
    /// `Decode`, `FqDecode`.
    Decode,
    /// `Encode`, `FqEncode`.
    Encode,
}

/// The container's generics plus what each field's layout needs on `side` of `gen` (in
/// GraphBinary 1, a field's `v1 = ".."` layout where it has one).
pub(crate) fn generics(gen: Gen, cont: &Container<'_>, side: Side) -> Generics {
    let mut generics = cont.generics.clone();
    if generics.type_params().next().is_none() {
        return generics;
    }
    let preds: Vec<WherePredicate> = cont
        .fields()
        .iter()
        .map(|f| {
            let ty = f.ty;
            match (gen, &f.v1) {
                (Gen::V1, V1Field::String) => parse_quote!(#ty: __graphbinary::v1::OneString),
                (Gen::V1, V1Field::Sentinel(inner)) => {
                    parse_quote!(#inner: __graphbinary::v1::SentinelV1)
                }
                _ => predicate(gen, ty, &f.layout, side),
            }
        })
        .collect();
    generics.make_where_clause().predicates.extend(preds);
    generics
}

fn predicate(gen: Gen, ty: &Type, layout: &Layout<'_>, side: Side) -> WherePredicate {
    let n = gen.names();
    let (bare, fq) = match side {
        Side::Decode => (n.decode, n.fq_decode),
        Side::Encode => (n.encode, n.fq_encode),
    };
    let typed = n.typed;
    match (side, layout) {
        (_, Layout::Bare) => parse_quote!(#ty: #bare),
        (_, Layout::Fq) => parse_quote!(#ty: #fq),
        (_, Layout::FqNullable(inner)) => parse_quote!(#inner: #bare + #typed),
        (_, Layout::Nullable(inner)) => parse_quote!(#inner: #bare),
        (Side::Decode, Layout::Skip) => parse_quote!(#ty: ::core::default::Default),
        (Side::Encode, Layout::Skip) => parse_quote!(#ty: ::core::marker::Sized),
    }
}
