//! The GraphBinary 1 back end (`#[graphbinary(v1)]`): `DecodeV1` (fast and slow paths),
//! `EncodeV1`, and with a type code `TypedV1`, `FqDecodeV1`, `FqEncodeV1`, from the same model
//! as the GraphBinary 4 impls, which it leaves exactly as they are.
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
use syn::{parse_quote, Generics, WherePredicate};

use crate::ast::{Container, Field, Layout, Shape, V1Field};
use crate::read::{construct, enum_fast, enum_slow, local};
use crate::sig::{self, Head};
use crate::write::enum_body;

/// The GraphBinary 1 impls, or nothing when the container did not ask for them.
pub(crate) fn impls(cont: &Container<'_>) -> TokenStream {
    let Some(v1) = &cont.v1 else {
        return TokenStream::new();
    };
    let ident = cont.ident;
    let expected = &cont.expected;
    let de_generics = generics(cont, true);
    let en_generics = generics(cont, false);
    let (fast, slow, body) = match &cont.shape {
        Shape::Struct(fields) => (
            struct_fast(fields),
            struct_slow(fields),
            struct_body(fields),
        ),
        Shape::EnumString(variants) => (
            enum_fast(variants),
            enum_slow(variants),
            enum_body(variants),
        ),
        // Rejected in `check::v1`.
        Shape::CompositePdt { .. } => return TokenStream::new(),
    };
    let decode = sig::decode_v1(
        &Head::new(ident, &de_generics),
        false,
        &quote!(#expected),
        fast,
        quote!(async move { #slow }),
    );
    let encode = sig::encode_v1(&Head::new(ident, &en_generics), false, body);
    let typed = match (&v1.custom, v1.type_code) {
        (Some(custom), _) => {
            let mut both = de_generics.clone();
            if let Some(w) = en_generics.where_clause.clone() {
                both.make_where_clause().predicates.extend(w.predicates);
            }
            let name = &custom.name;
            let info = crate::util::hex_i32(custom.info);
            let head = sig::custom_v1(&Head::new(ident, &both), quote!(#name), info);
            let fq_decode = sig::decode_v1(
                &Head::new(ident, &both),
                true,
                &quote!(<Self as __graphbinary::v1::DecodeV1>::EXPECTED),
                quote!(__graphbinary::v1::decode_fq_custom_v1::<Self>(cur)),
                quote!(__graphbinary::v1::decode_fq_custom_v1_slow::<Self, __R>(
                    buf
                )),
            );
            let fq_encode = sig::encode_v1(
                &Head::new(ident, &both),
                true,
                quote!(__graphbinary::v1::encode_fq_custom_v1(self, out)),
            );
            quote!(#head #fq_decode #fq_encode)
        }
        (None, Some(code)) => {
            let typed = sig::typed_v1(&Head::new(ident, cont.generics), code);
            let fq_decode = sig::decode_v1(
                &Head::new(ident, &de_generics),
                true,
                &quote!(<Self as __graphbinary::v1::DecodeV1>::EXPECTED),
                quote!(__graphbinary::v1::decode_fq_v1_typed::<Self>(cur)),
                quote!(__graphbinary::v1::decode_fq_v1_typed_slow::<Self, __R>(buf)),
            );
            let fq_encode = sig::encode_v1(
                &Head::new(ident, &en_generics),
                true,
                quote!(__graphbinary::v1::encode_fq_v1_typed(self, out)),
            );
            quote!(#typed #fq_decode #fq_encode)
        }
        (None, None) => TokenStream::new(),
    };
    quote! {
        #decode
        #encode
        #typed
    }
}

/// The container's generics plus, per field, what its GraphBinary 1 layout needs.
fn generics(cont: &Container<'_>, decode: bool) -> Generics {
    let mut generics = cont.generics.clone();
    if generics.type_params().next().is_none() {
        return generics;
    }
    let preds: Vec<WherePredicate> = cont
        .fields()
        .iter()
        .map(|f| {
            let ty = f.ty;
            match (decode, &f.v1, &f.layout) {
                (_, V1Field::String, _) => parse_quote!(#ty: __graphbinary::v1::OneString),
                (_, V1Field::Sentinel(inner), _) => {
                    parse_quote!(#inner: __graphbinary::v1::SentinelV1)
                }
                (true, _, Layout::Bare) => parse_quote!(#ty: __graphbinary::v1::DecodeV1),
                (true, _, Layout::Fq) => parse_quote!(#ty: __graphbinary::v1::FqDecodeV1),
                (true, _, Layout::FqNullable(inner)) => {
                    parse_quote!(#inner: __graphbinary::v1::DecodeV1 + __graphbinary::v1::TypedV1)
                }
                (true, _, Layout::Nullable(inner)) => {
                    parse_quote!(#inner: __graphbinary::v1::DecodeV1)
                }
                (false, _, Layout::Bare) => parse_quote!(#ty: __graphbinary::v1::EncodeV1),
                (false, _, Layout::Fq) => parse_quote!(#ty: __graphbinary::v1::FqEncodeV1),
                (false, _, Layout::FqNullable(inner)) => {
                    parse_quote!(#inner: __graphbinary::v1::EncodeV1 + __graphbinary::v1::TypedV1)
                }
                (false, _, Layout::Nullable(inner)) => {
                    parse_quote!(#inner: __graphbinary::v1::EncodeV1)
                }
                (true, _, Layout::Skip) => parse_quote!(#ty: ::core::default::Default),
                (false, _, Layout::Skip) => parse_quote!(#ty: ::core::marker::Sized),
            }
        })
        .collect();
    generics.make_where_clause().predicates.extend(preds);
    generics
}

fn struct_fast(fields: &[Field<'_>]) -> TokenStream {
    if fields.is_empty() {
        return quote! {
            let _ = cur;
            ::core::result::Result::Ok(Self {})
        };
    }
    let reads = fields.iter().map(|f| {
        let local = local(f);
        let ty = f.ty;
        let read = if let V1Field::String = f.v1 {
            quote_spanned! {ty.span()=>
                <#ty as ::core::convert::From<::std::sync::Arc<str>>>::from(
                    <::std::sync::Arc<str> as __graphbinary::Decode>::decode(cur)?,
                )
            }
        } else if let V1Field::Sentinel(inner) = f.v1 {
            quote_spanned! {ty.span()=>
                <__graphbinary::v1::SentinelOptV1<#inner> as __graphbinary::v1::DecodeV1>::decode_v1(cur)?.0
            }
        } else {
            match &f.layout {
                Layout::Bare => {
                    quote_spanned!(ty.span()=> <#ty as __graphbinary::v1::DecodeV1>::decode_v1(cur)?)
                }
                Layout::Fq => quote_spanned! {ty.span()=>
                    <#ty as __graphbinary::v1::FqDecodeV1>::decode_fq_v1(cur)?
                },
                Layout::FqNullable(inner) => quote_spanned! {ty.span()=>
                    <__graphbinary::v1::FqOptV1<#inner> as __graphbinary::v1::DecodeV1>::decode_v1(cur)?.0
                },
                Layout::Nullable(inner) => quote_spanned! {ty.span()=>
                    <__graphbinary::v1::NullableV1<#inner> as __graphbinary::v1::DecodeV1>::decode_v1(cur)?.0
                },
                Layout::Skip => quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default()),
            }
        };
        quote!(let #local = #read;)
    });
    let construct = construct(fields);
    quote! {
        #(#reads)*
        #construct
    }
}

fn struct_slow(fields: &[Field<'_>]) -> TokenStream {
    if fields.is_empty() {
        return quote! {
            let _ = buf;
            ::core::result::Result::Ok(Self {})
        };
    }
    let reads = fields.iter().map(|f| {
        let local = local(f);
        let ty = f.ty;
        let read = if let V1Field::String = f.v1 {
            quote_spanned! {ty.span()=>
                <#ty as ::core::convert::From<::std::sync::Arc<str>>>::from(
                    buf.read::<::std::sync::Arc<str>>().await?,
                )
            }
        } else if let V1Field::Sentinel(inner) = f.v1 {
            quote_spanned! {ty.span()=>
                buf.read::<__graphbinary::v1::V1<__graphbinary::v1::SentinelOptV1<#inner>>>().await?.0.0
            }
        } else {
            match &f.layout {
                Layout::Bare => {
                    quote_spanned!(ty.span()=> buf.read::<__graphbinary::v1::V1<#ty>>().await?.0)
                }
                Layout::Fq => quote_spanned! {ty.span()=>
                    buf.read::<__graphbinary::v1::V1<__graphbinary::v1::FqV1<#ty>>>().await?.0.0
                },
                Layout::FqNullable(inner) => quote_spanned! {ty.span()=>
                    buf.read::<__graphbinary::v1::V1<__graphbinary::v1::FqOptV1<#inner>>>().await?.0.0
                },
                Layout::Nullable(inner) => quote_spanned! {ty.span()=>
                    buf.read::<__graphbinary::v1::V1<__graphbinary::v1::NullableV1<#inner>>>().await?.0.0
                },
                Layout::Skip => quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default()),
            }
        };
        quote!(let #local = #read;)
    });
    let construct = construct(fields);
    quote! {
        #(#reads)*
        #construct
    }
}

fn struct_body(fields: &[Field<'_>]) -> TokenStream {
    if fields.is_empty() {
        return quote! {
            let _ = out;
            ::core::result::Result::Ok(())
        };
    }
    let writes = fields.iter().map(|f| {
        let ident = f.ident;
        let ty = f.ty;
        match f.v1 {
            V1Field::String => {
                return quote_spanned! {ty.span()=>
                    __graphbinary::write::put_str(
                        out,
                        __graphbinary::v1::OneString::one_string(&self.#ident)?,
                    )?;
                };
            }
            V1Field::Sentinel(_) => {
                return quote_spanned! {ty.span()=>
                    __graphbinary::v1::encode_sentinel_opt_v1(&self.#ident, out)?;
                };
            }
            V1Field::Same => {}
        }
        match &f.layout {
            Layout::Bare => quote_spanned! {ty.span()=>
                __graphbinary::v1::EncodeV1::encode_v1(&self.#ident, out)?;
            },
            Layout::Fq => quote_spanned! {ty.span()=>
                __graphbinary::v1::FqEncodeV1::encode_fq_v1(&self.#ident, out)?;
            },
            Layout::FqNullable(inner) => quote_spanned! {ty.span()=>
                match &self.#ident {
                    ::core::option::Option::Some(v) => {
                        __graphbinary::write::put_header(
                            out,
                            <#inner as __graphbinary::v1::TypedV1>::TYPE_CODE_V1,
                        );
                        <#inner as __graphbinary::v1::EncodeV1>::encode_v1(v, out)?;
                    }
                    ::core::option::Option::None => __graphbinary::write::put_null(
                        out,
                        __graphbinary::codes::UNSPECIFIED_NULL,
                    ),
                }
            },
            Layout::Nullable(inner) => quote_spanned! {ty.span()=>
                match &self.#ident {
                    ::core::option::Option::Some(v) => {
                        __graphbinary::__private::BufMut::put_u8(out, 0x00);
                        <#inner as __graphbinary::v1::EncodeV1>::encode_v1(v, out)?;
                    }
                    ::core::option::Option::None => {
                        __graphbinary::__private::BufMut::put_u8(out, 0x01);
                    }
                }
            },
            Layout::Skip => TokenStream::new(),
        }
    });
    quote! {
        #(#writes)*
        ::core::result::Result::Ok(())
    }
}
