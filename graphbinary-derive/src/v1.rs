//! The GraphBinary 1 back end (`#[graphbinary(v1)]`): `DecodeV1` (fast and slow paths),
//! `EncodeV1`, and with a type code `TypedV1`, `FqDecodeV1`, `FqEncodeV1`, from the same model
//! as the GraphBinary 4 impls, which it leaves exactly as they are: the field walkers, layouts,
//! where-clauses and impl heads are the GraphBinary 4 ones over [`Gen::V1`]'s names; this module
//! adds only what GraphBinary 1 has alone (the `v1 = ".."` field layouts, custom types).
//!
//! Each field keeps its layout (bare, `fq`, `fq, nullable`, `nullable`) through the v1 traits
//! of core's `v1` module; `v1 = "string"` makes it a bare String (`OneString`), and
//! `v1 = "sentinel"` an `Option<T>` whose `None` is `T`'s sentinel value (`SentinelV1`).
//!
//! A custom type (`v1_custom = "name", v1_custom_info = ..`) has the same bare impls from its
//! fields, plus `CustomV1` (its name and info) and `FqDecodeV1` / `FqEncodeV1` as the whole
//! custom value `{0x00}{name}{info}{0x00}{fields}` (core's `decode_fq_custom_v1` and kin).
//! Fields whose layout is no GraphBinary type of its own are leaf types implementing
//! `DecodeV1` / `EncodeV1` by hand, the way the primitives do, and are read like any bare
//! field.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Field, Shape, V1Field};
use crate::bound::{self, Side};
use crate::gen::Gen;
use crate::read::{enum_fast, enum_slow, layout_fast, layout_slow, struct_reads};
use crate::sig::{self, Head};
use crate::typed::typed_impls;
use crate::write::{enum_body, layout_write, struct_writes};

/// The GraphBinary 1 impls, or nothing when the container did not ask for them.
pub(crate) fn impls(cont: &Container<'_>) -> TokenStream {
    let Some(v1) = &cont.v1 else {
        return TokenStream::new();
    };
    let ident = cont.ident;
    let expected = &cont.expected;
    let de_generics = bound::generics(Gen::V1, cont, Side::Decode);
    let en_generics = bound::generics(Gen::V1, cont, Side::Encode);
    let (fast, slow, body) = match &cont.shape {
        Shape::Struct(fields) => (
            struct_reads(fields, quote!(cur), field_fast),
            struct_reads(fields, quote!(buf), field_slow),
            struct_writes(fields, field_write),
        ),
        Shape::EnumString(variants) => (
            enum_fast(variants),
            enum_slow(variants),
            enum_body(variants),
        ),
        // Rejected in `check::v1`.
        Shape::CompositePdt { .. } => return TokenStream::new(),
    };
    let decode = sig::decode(
        Gen::V1,
        &Head::new(ident, &de_generics),
        false,
        &quote!(#expected),
        fast,
        quote!(async move { #slow }),
    );
    let encode = sig::encode(Gen::V1, &Head::new(ident, &en_generics), false, body);
    let typed = match (&v1.custom, v1.type_code) {
        (Some(custom), _) => {
            let mut both = de_generics.clone();
            if let Some(w) = en_generics.where_clause.clone() {
                both.make_where_clause().predicates.extend(w.predicates);
            }
            let name = &custom.name;
            let info = crate::util::hex_i32(custom.info);
            let head = sig::custom_v1(&Head::new(ident, &both), quote!(#name), info);
            let fq_decode = sig::decode(
                Gen::V1,
                &Head::new(ident, &both),
                true,
                &quote!(<Self as __graphbinary::v1::DecodeV1>::EXPECTED),
                quote!(__graphbinary::v1::decode_fq_custom_v1::<Self>(cur)),
                quote!(__graphbinary::v1::decode_fq_custom_v1_slow::<Self, __R>(
                    buf
                )),
            );
            let fq_encode = sig::encode(
                Gen::V1,
                &Head::new(ident, &both),
                true,
                quote!(__graphbinary::v1::encode_fq_custom_v1(self, out)),
            );
            quote!(#head #fq_decode #fq_encode)
        }
        (None, Some(code)) => typed_impls(Gen::V1, cont, code),
        (None, None) => TokenStream::new(),
    };
    quote! {
        #decode
        #encode
        #typed
    }
}

/// The fast path's read of a field: its `v1 = ".."` layout, else its layout.
fn field_fast(f: &Field<'_>) -> TokenStream {
    let ty = f.ty;
    match f.v1 {
        V1Field::String => quote_spanned! {ty.span()=>
            <#ty as ::core::convert::From<::std::sync::Arc<str>>>::from(
                <::std::sync::Arc<str> as __graphbinary::Decode>::decode(cur)?,
            )
        },
        V1Field::Sentinel(inner) => quote_spanned! {ty.span()=>
            <__graphbinary::v1::SentinelOptV1<#inner> as __graphbinary::v1::DecodeV1>::decode_v1(cur)?.0
        },
        V1Field::Same => layout_fast(Gen::V1, f),
    }
}

/// The slow path's read of a field: its `v1 = ".."` layout, else its layout.
fn field_slow(f: &Field<'_>) -> TokenStream {
    let ty = f.ty;
    match f.v1 {
        V1Field::String => quote_spanned! {ty.span()=>
            <#ty as ::core::convert::From<::std::sync::Arc<str>>>::from(
                buf.read::<::std::sync::Arc<str>>().await?,
            )
        },
        V1Field::Sentinel(inner) => quote_spanned! {ty.span()=>
            buf.read::<__graphbinary::v1::V1<__graphbinary::v1::SentinelOptV1<#inner>>>().await?.0.0
        },
        V1Field::Same => layout_slow(Gen::V1, f),
    }
}

/// The write of a field: its `v1 = ".."` layout, else its layout.
fn field_write(f: &Field<'_>) -> TokenStream {
    let ident = f.ident;
    let ty = f.ty;
    match f.v1 {
        V1Field::String => quote_spanned! {ty.span()=>
            __graphbinary::write::put_str(
                out,
                __graphbinary::v1::OneString::one_string(&self.#ident)?,
            )?;
        },
        V1Field::Sentinel(_) => quote_spanned! {ty.span()=>
            __graphbinary::v1::encode_sentinel_opt_v1(&self.#ident, out)?;
        },
        V1Field::Same => layout_write(Gen::V1, f),
    }
}
