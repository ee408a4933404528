//! Where-clauses for generic containers.
//!
//! A generic struct gets, for each impl, one predicate per field saying what that field's
//! layout needs of its type (e.g. `T: FqDecode` for an `fq` field). Non-generic containers
//! get none: their field types are checked where they are used, with the field's span.

use syn::{parse_quote, Generics, Type, WherePredicate};

use crate::ast::{Container, Layout};

/// Which side of the codec an impl belongs to.
#[derive(Clone, Copy)]
pub(crate) enum Side {
    /// `Decode`, `FqDecode`.
    Decode,
    /// `Encode`, `FqEncode`.
    Encode,
}

/// The container's generics plus what each field's layout needs on `side`.
pub(crate) fn generics(cont: &Container<'_>, side: Side) -> Generics {
    let mut generics = cont.generics.clone();
    if generics.type_params().next().is_none() {
        return generics;
    }
    let preds: Vec<WherePredicate> = cont
        .fields()
        .iter()
        .map(|f| predicate(f.ty, &f.layout, side))
        .collect();
    generics.make_where_clause().predicates.extend(preds);
    generics
}

fn predicate(ty: &Type, layout: &Layout<'_>, side: Side) -> WherePredicate {
    match (side, layout) {
        (Side::Decode, Layout::Bare) => parse_quote!(#ty: __graphbinary::Decode),
        (Side::Decode, Layout::Fq) => parse_quote!(#ty: __graphbinary::FqDecode),
        (Side::Decode, Layout::FqNullable(inner)) => {
            parse_quote!(#inner: __graphbinary::Decode + __graphbinary::Typed)
        }
        (Side::Decode, Layout::Nullable(inner)) => parse_quote!(#inner: __graphbinary::Decode),
        (Side::Encode, Layout::Bare) => parse_quote!(#ty: __graphbinary::Encode),
        (Side::Encode, Layout::Fq) => parse_quote!(#ty: __graphbinary::FqEncode),
        (Side::Encode, Layout::FqNullable(inner)) => {
            parse_quote!(#inner: __graphbinary::Encode + __graphbinary::Typed)
        }
        (Side::Encode, Layout::Nullable(inner)) => parse_quote!(#inner: __graphbinary::Encode),
        (Side::Decode, Layout::Skip) => parse_quote!(#ty: ::core::default::Default),
        (Side::Encode, Layout::Skip) => parse_quote!(#ty: ::core::marker::Sized),
    }
}
