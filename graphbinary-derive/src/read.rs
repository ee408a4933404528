//! The reader back ends: `Decode::decode` (fast path, from a `Cursor` over buffered bytes)
//! and `Decode::decode_slow` (slow path, from a `ReadBuffer`, one field at a time through
//! `buf.read::<..>()` so that each field re-enters the fast path).
//!
//! Both are generated from the same model and must agree byte for byte; the behavioural
//! tests run every derived type through both. The field walkers serve both generations
//! (GraphBinary 1's `DecodeV1` in [`crate::v1`]), through [`Gen`]'s names.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use crate::ast::{unraw, Container, Field, Layout, Shape, Variant};
use crate::bound::{self, Side};
use crate::gen::{Gen, Names};
use crate::sig::{self, Head};

/// `impl Decode for ...`.
pub(crate) fn decode_impl(cont: &Container<'_>) -> TokenStream {
    let generics = bound::generics(Gen::V4, cont, Side::Decode);
    let head = Head::new(cont.ident, &generics);
    let expected = &cont.expected;
    let (fast, slow) = match &cont.shape {
        Shape::Struct(fields) => (
            struct_reads(fields, quote!(cur), |f| layout_fast(Gen::V4, f)),
            struct_reads(fields, quote!(buf), |f| layout_slow(Gen::V4, f)),
        ),
        Shape::EnumString(variants) => (enum_fast(variants), enum_slow(variants)),
        Shape::CompositePdt { name, fields } => {
            (pdt_fast(cont, name, fields), pdt_slow(name, fields))
        }
    };
    sig::decode(
        Gen::V4,
        &head,
        false,
        &quote!(#expected),
        fast,
        quote!(async move { #slow }),
    )
}

/// The local variable holding a field's value while the struct is read.
pub(crate) fn local(field: &Field<'_>) -> Ident {
    format_ident!("__{}", unraw(field.ident))
}

/// `Self { a: __a, b: __b }`.
pub(crate) fn construct(fields: &[Field<'_>]) -> TokenStream {
    let inits = fields.iter().map(|f| {
        let ident = f.ident;
        let local = local(f);
        quote!(#ident: #local)
    });
    quote!(::core::result::Result::Ok(Self { #(#inits),* }))
}

/// The body of a struct reader (either generation, either path): one `let __f = ..;` per
/// field, `read` giving the expression that reads it, then `Ok(Self { .. })`. `input` names
/// what is read from (`cur` or `buf`), for a struct without fields.
pub(crate) fn struct_reads(
    fields: &[Field<'_>],
    input: TokenStream,
    read: impl Fn(&Field<'_>) -> TokenStream,
) -> TokenStream {
    if fields.is_empty() {
        return quote! {
            let _ = #input;
            ::core::result::Result::Ok(Self {})
        };
    }
    let reads = fields.iter().map(|f| {
        let local = local(f);
        let read = read(f);
        quote!(let #local = #read;)
    });
    let construct = construct(fields);
    quote! {
        #(#reads)*
        #construct
    }
}

/// The fast path's read of a field by its layout, through `gen`'s traits.
pub(crate) fn layout_fast(gen: Gen, f: &Field<'_>) -> TokenStream {
    let ty = f.ty;
    let span = ty.span();
    let Names {
        decode,
        decode_fn,
        fq_opt,
        nullable,
        ..
    } = gen.names_at(span);
    match &f.layout {
        Layout::Bare => quote_spanned!(span=> <#ty as #decode>::#decode_fn(cur)?),
        Layout::Fq => fq_fast(gen, ty),
        Layout::FqNullable(inner) => {
            quote_spanned!(span=> <#fq_opt<#inner> as #decode>::#decode_fn(cur)?.0)
        }
        Layout::Nullable(inner) => {
            quote_spanned!(span=> <#nullable<#inner> as #decode>::#decode_fn(cur)?.0)
        }
        Layout::Skip => default(ty),
    }
}

/// The slow path's read of a field by its layout: `buf.read::<W<T>>()` of the layout's
/// wrapper `W` (in GraphBinary 1, inside `v1::V1`), unwrapped.
pub(crate) fn layout_slow(gen: Gen, f: &Field<'_>) -> TokenStream {
    let ty = f.ty;
    let n = gen.names_at(ty.span());
    match &f.layout {
        Layout::Bare => slow_read(&n, None, ty),
        Layout::Fq => fq_slow(gen, ty),
        Layout::FqNullable(inner) => slow_read(&n, Some(&n.fq_opt), inner),
        Layout::Nullable(inner) => slow_read(&n, Some(&n.nullable), inner),
        Layout::Skip => default(ty),
    }
}

/// `<T as FqDecode>::decode_fq(cur)?`.
fn fq_fast(gen: Gen, ty: &syn::Type) -> TokenStream {
    let Names {
        fq_decode,
        decode_fq_fn,
        ..
    } = gen.names_at(ty.span());
    quote_spanned!(ty.span()=> <#ty as #fq_decode>::#decode_fq_fn(cur)?)
}

/// `buf.read::<Fq<T>>().await?.0`.
fn fq_slow(gen: Gen, ty: &syn::Type) -> TokenStream {
    let n = gen.names_at(ty.span());
    slow_read(&n, Some(&n.fq), ty)
}

/// `buf.read::<T>().await?`, or with a layout wrapper `W` `buf.read::<W<T>>().await?.0`,
/// itself inside the generation's slow wrapper when it has one (`V1<W<T>>`, `.0.0`).
fn slow_read(n: &Names, wrapper: Option<&TokenStream>, ty: &syn::Type) -> TokenStream {
    let span = ty.span();
    match (&n.slow_wrapper, wrapper) {
        (None, None) => quote_spanned!(span=> buf.read::<#ty>().await?),
        (None, Some(w)) => quote_spanned!(span=> buf.read::<#w<#ty>>().await?.0),
        (Some(v), None) => quote_spanned!(span=> buf.read::<#v<#ty>>().await?.0),
        (Some(v), Some(w)) => quote_spanned!(span=> buf.read::<#v<#w<#ty>>>().await?.0.0),
    }
}

/// `T::default()`, the value of a skipped field.
fn default(ty: &syn::Type) -> TokenStream {
    quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default())
}

/// `&["a", "b"]`: the names on the wire, for the error of an unknown one.
fn names<'n>(names: impl Iterator<Item = &'n str>) -> TokenStream {
    let names = names.collect::<Vec<_>>();
    quote!(&[#(#names),*])
}

/// What the value is called in errors: the local the composite PDT readers bind it to.
fn what() -> TokenStream {
    quote!(__what)
}

/// `let __what = <Self as Decode>::EXPECTED;`.
fn bind_what() -> TokenStream {
    quote!(let __what: &'static str = <Self as __graphbinary::Decode>::EXPECTED;)
}

fn enum_matches(variants: &[Variant<'_>]) -> Vec<TokenStream> {
    variants
        .iter()
        .map(|v| {
            let ident = v.ident;
            let name = &v.name;
            quote!(#name => ::core::result::Result::Ok(Self::#ident),)
        })
        .collect()
}

/// `other => Err(unknown_variant(..))`.
fn enum_unknown(variants: &[Variant<'_>], err: impl Fn(TokenStream) -> TokenStream) -> TokenStream {
    let what = what();
    let names = names(variants.iter().map(|v| v.name.as_str()));
    let e = quote!(__graphbinary::__private::unknown_variant(at, #what, other, #names));
    let e = err(e);
    quote!(other => ::core::result::Result::Err(#e),)
}

pub(crate) fn enum_fast(variants: &[Variant<'_>]) -> TokenStream {
    let what = what();
    let arms = enum_matches(variants);
    let unknown = enum_unknown(variants, |e| quote!(#e.into()));
    let bind = bind_what();
    quote! {
        #bind
        let at = cur.offset();
        match __graphbinary::__private::fq_str(cur, #what)? {
            #(#arms)*
            #unknown
        }
    }
}

pub(crate) fn enum_slow(variants: &[Variant<'_>]) -> TokenStream {
    let arms = enum_matches(variants);
    let unknown = enum_unknown(variants, |e| e);
    let bind = bind_what();
    quote! {
        #bind
        let at = buf.offset();
        match __graphbinary::__private::fq_string(buf).await?.as_str() {
            #(#arms)*
            #unknown
        }
    }
}

/// The pieces of a composite PDT reader that do not depend on the path: one
/// `let mut __x = None;` per field, the key arms (reading each value with `read`), the
/// unknown-key arm, and one `let __x = take_field(..)?;` per field.
fn pdt_pieces(
    fields: &[Field<'_>],
    read: impl Fn(&syn::Type) -> TokenStream,
    err: impl Fn(TokenStream) -> TokenStream,
) -> (
    Vec<TokenStream>,
    Vec<TokenStream>,
    TokenStream,
    Vec<TokenStream>,
) {
    let what = what();
    let slots = fields
        .iter()
        .map(|f| {
            let local = local(f);
            let ty = f.ty;
            quote!(let mut #local: ::core::option::Option<#ty> = ::core::option::Option::None;)
        })
        .collect();
    let arms = fields
        .iter()
        .map(|f| {
            let local = local(f);
            let key = &f.name;
            let read = read(f.ty);
            quote! {
                #key => {
                    __graphbinary::__private::vacant(&#local, key_at, #what, #key)?;
                    #local = ::core::option::Option::Some(#read);
                }
            }
        })
        .collect();
    let names = names(fields.iter().map(|f| f.name.as_str()));
    let unknown =
        err(quote!(__graphbinary::__private::unknown_field(key_at, #what, other, #names)));
    let unknown = quote!(other => return ::core::result::Result::Err(#unknown),);
    let takes = fields
        .iter()
        .map(|f| {
            let local = local(f);
            let key = &f.name;
            quote!(let #local = __graphbinary::__private::take_field(#local, map_at, #what, #key)?;)
        })
        .collect();
    (slots, arms, unknown, takes)
}

fn pdt_fast(cont: &Container<'_>, name: &str, fields: &[Field<'_>]) -> TokenStream {
    let what = what();
    let key_what = format!("{} field name", cont.expected);
    let count = proc_macro2::Literal::usize_unsuffixed(fields.len());
    let (slots, arms, unknown, takes) =
        pdt_pieces(fields, |ty| fq_fast(Gen::V4, ty), |e| quote!(#e.into()));
    let construct = construct(fields);
    let bind = bind_what();
    quote! {
        #bind
        __graphbinary::__private::pdt_name(cur, #what, #name)?;
        let map_at = cur.offset();
        let n = __graphbinary::__private::pdt_map_header(cur, #what, #count)?;
        #(#slots)*
        for _ in 0..n {
            let key_at = cur.offset();
            match __graphbinary::__private::fq_str(cur, #key_what)? {
                #(#arms)*
                #unknown
            }
        }
        cur.leave();
        #(#takes)*
        #construct
    }
}

fn pdt_slow(name: &str, fields: &[Field<'_>]) -> TokenStream {
    let what = what();
    let count = proc_macro2::Literal::usize_unsuffixed(fields.len());
    let (slots, arms, unknown, takes) = pdt_pieces(fields, |ty| fq_slow(Gen::V4, ty), |e| e);
    let construct = construct(fields);
    let bind = bind_what();
    quote! {
        #bind
        __graphbinary::__private::pdt_name_slow(buf, #what, #name).await?;
        let map_at = buf.offset();
        let n = __graphbinary::__private::pdt_map_header_slow(buf, #what, #count).await?;
        #(#slots)*
        for _ in 0..n {
            let key_at = buf.offset();
            match __graphbinary::__private::fq_string(buf).await?.as_str() {
                #(#arms)*
                #unknown
            }
        }
        buf.leave();
        #(#takes)*
        #construct
    }
}
