//! The reader back ends: `Decode::decode` (fast path, from a `Cursor` over buffered bytes)
//! and `Decode::decode_slow` (slow path, from a `ReadBuffer`, one field at a time through
//! `buf.read::<..>()` so that each field re-enters the fast path).
//!
//! Both are generated from the same model and must agree byte for byte; the behavioural
//! tests run every derived type through both.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use crate::ast::{unraw, Container, Field, Layout, Shape, Variant};
use crate::bound::{self, Side};
use crate::sig::{self, Head};

/// `impl Decode for ...`.
pub(crate) fn decode_impl(cont: &Container<'_>) -> TokenStream {
    let generics = bound::generics(cont, Side::Decode);
    let head = Head::new(cont.ident, &generics);
    let expected = &cont.expected;
    let (fast, slow) = match &cont.shape {
        Shape::Struct(fields) => (struct_fast(fields), struct_slow(fields)),
        Shape::EnumString(variants) => (enum_fast(variants), enum_slow(variants)),
        Shape::CompositePdt { name, fields } => {
            (pdt_fast(cont, name, fields), pdt_slow(name, fields))
        }
    };
    sig::decode(
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
        let read = match &f.layout {
            Layout::Bare => {
                quote_spanned!(ty.span()=> <#ty as __graphbinary::Decode>::decode(cur)?)
            }
            Layout::Fq => {
                quote_spanned!(ty.span()=> <#ty as __graphbinary::FqDecode>::decode_fq(cur)?)
            }
            Layout::FqNullable(inner) => quote_spanned! {ty.span()=>
                <__graphbinary::FqOpt<#inner> as __graphbinary::Decode>::decode(cur)?.0
            },
            Layout::Nullable(inner) => quote_spanned! {ty.span()=>
                <__graphbinary::Nullable<#inner> as __graphbinary::Decode>::decode(cur)?.0
            },
            Layout::Skip => {
                quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default())
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
        let read = match &f.layout {
            Layout::Bare => quote_spanned!(ty.span()=> buf.read::<#ty>().await?),
            Layout::Fq => quote_spanned!(ty.span()=> buf.read::<__graphbinary::Fq<#ty>>().await?.0),
            Layout::FqNullable(inner) => {
                quote_spanned!(ty.span()=> buf.read::<__graphbinary::FqOpt<#inner>>().await?.0)
            }
            Layout::Nullable(inner) => {
                quote_spanned!(ty.span()=> buf.read::<__graphbinary::Nullable<#inner>>().await?.0)
            }
            Layout::Skip => {
                quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default())
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
    let (slots, arms, unknown, takes) = pdt_pieces(
        fields,
        |ty| quote_spanned!(ty.span()=> <#ty as __graphbinary::FqDecode>::decode_fq(cur)?),
        |e| quote!(#e.into()),
    );
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
    let (slots, arms, unknown, takes) = pdt_pieces(
        fields,
        |ty| quote_spanned!(ty.span()=> buf.read::<__graphbinary::Fq<#ty>>().await?.0),
        |e| e,
    );
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
