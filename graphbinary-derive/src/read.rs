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

/// The type code of Map (the fields of a composite PDT).
const MAP_CODE: u8 = 0x0a;

/// A byte as a hexadecimal literal (`0x0a`), for readable generated code.
pub(crate) fn hex_u8(v: u8) -> syn::LitInt {
    syn::LitInt::new(&format!("0x{v:02x}"), proc_macro2::Span::call_site())
}

/// `impl Decode for ...`.
pub(crate) fn decode_impl(cont: &Container<'_>) -> TokenStream {
    let ident = cont.ident;
    let generics = bound::generics(cont, Side::Decode);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let expected = &cont.expected;
    let (fast, slow) = match &cont.shape {
        Shape::Struct(fields) => (struct_fast(fields), struct_slow(fields)),
        Shape::EnumString(variants) => (enum_fast(variants), enum_slow(variants)),
        Shape::CompositePdt { name, fields } => {
            (pdt_fast(cont, name, fields), pdt_slow(name, fields))
        }
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::graphbinary_core::Decode for #ident #ty_generics #where_clause {
            const EXPECTED: &'static str = #expected;

            #[inline]
            fn decode(
                cur: &mut ::graphbinary_core::Cursor<'_>,
            ) -> ::graphbinary_core::FastResult<Self> {
                #fast
            }

            fn decode_slow<
                __R: ::graphbinary_core::__private::AsyncRead
                    + ::core::marker::Unpin
                    + ::core::marker::Send,
            >(
                buf: &mut ::graphbinary_core::ReadBuffer<__R>,
            ) -> impl ::graphbinary_core::__private::Future<
                Output = ::core::result::Result<Self, ::graphbinary_core::DecodeError>,
            > + ::core::marker::Send {
                async move { #slow }
            }
        }
    }
}

/// The local variable holding a field's value while the struct is read.
fn local(field: &Field<'_>) -> Ident {
    format_ident!("__{}", unraw(field.ident))
}

/// `Self { a: __a, b: __b }`.
fn construct(fields: &[Field<'_>]) -> TokenStream {
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
                quote_spanned!(ty.span()=> <#ty as ::graphbinary_core::Decode>::decode(cur)?)
            }
            Layout::Fq => {
                quote_spanned!(ty.span()=> <#ty as ::graphbinary_core::FqDecode>::decode_fq(cur)?)
            }
            Layout::FqNullable(inner) => quote_spanned! {ty.span()=>
                <::graphbinary_core::FqOpt<#inner> as ::graphbinary_core::Decode>::decode(cur)?.0
            },
            Layout::Nullable(inner) => quote_spanned! {ty.span()=>
                <::graphbinary_core::Nullable<#inner> as ::graphbinary_core::Decode>::decode(cur)?.0
            },
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
            Layout::Fq => quote_spanned!(ty.span()=> buf.read::<::graphbinary_core::Fq<#ty>>().await?.0),
            Layout::FqNullable(inner) => {
                quote_spanned!(ty.span()=> buf.read::<::graphbinary_core::FqOpt<#inner>>().await?.0)
            }
            Layout::Nullable(inner) => {
                quote_spanned!(ty.span()=> buf.read::<::graphbinary_core::Nullable<#inner>>().await?.0)
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

/// Names on the wire, for error messages inside a `format!` string: `"a", "b"`.
fn name_list<'n>(names: impl Iterator<Item = &'n str>) -> String {
    names.map(quoted).collect::<Vec<_>>().join(", ")
}

/// A name on the wire, quoted, for use inside a `format!` string (braces escaped).
fn quoted(name: &str) -> String {
    format!("{name:?}").replace('{', "{{").replace('}', "}}")
}

/// Fast path: reads the header of a fully-qualified, non-null String (`03 00`) naming `what`.
fn fq_string_header_fast(what: &TokenStream) -> TokenStream {
    quote! {
        cur.expect_type_code(::graphbinary_core::codes::STRING, #what)?;
        {
            let flag_at = cur.offset();
            if !cur.read_nullable_flag(#what)? {
                return ::core::result::Result::Err(cur.error_at(
                    flag_at,
                    ::graphbinary_core::ErrorKind::UnexpectedNull { what: #what },
                ));
            }
        }
    }
}

/// `ErrorKind::Invalid { what, detail }`.
fn invalid(what: &TokenStream, detail: TokenStream) -> TokenStream {
    quote! {
        ::graphbinary_core::ErrorKind::Invalid {
            what: #what,
            detail: #detail,
        }
    }
}

/// A detail message with captured variables: `format!("..{n}..")` (braces in `message`
/// other than captures must be doubled).
fn formatted(message: String) -> TokenStream {
    quote!(::std::format!(#message))
}

/// A constant detail message.
fn text(message: String) -> TokenStream {
    quote!(::std::string::String::from(#message))
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

fn enum_unknown(variants: &[Variant<'_>], what: &TokenStream) -> TokenStream {
    let message = format!(
        "unknown variant {{other:?}}; expected one of: {}",
        name_list(variants.iter().map(|v| v.name.as_str()))
    );
    invalid(what, formatted(message))
}

fn enum_fast(variants: &[Variant<'_>]) -> TokenStream {
    let what = quote!(<Self as ::graphbinary_core::Decode>::EXPECTED);
    let header = fq_string_header_fast(&what);
    let arms = enum_matches(variants);
    let unknown = enum_unknown(variants, &what);
    quote! {
        let at = cur.offset();
        #header
        match cur.read_str()? {
            #(#arms)*
            other => ::core::result::Result::Err(cur.error_at(at, #unknown)),
        }
    }
}

fn enum_slow(variants: &[Variant<'_>]) -> TokenStream {
    let what = quote!(<Self as ::graphbinary_core::Decode>::EXPECTED);
    let arms = enum_matches(variants);
    let unknown = enum_unknown(variants, &what);
    quote! {
        let at = buf.offset();
        let name = buf
            .read::<::graphbinary_core::Fq<::std::string::String>>()
            .await?
            .0;
        match name.as_str() {
            #(#arms)*
            other => ::core::result::Result::Err(::graphbinary_core::DecodeError::new(at, #unknown)),
        }
    }
}

/// Pieces shared by the two composite PDT readers.
struct Pdt {
    what: TokenStream,
    /// `let mut __x: Option<T> = None;` per field.
    slots: Vec<TokenStream>,
    /// The field count, as a literal.
    count: proc_macro2::Literal,
    wrong_name: TokenStream,
    too_many: TokenStream,
    unknown: TokenStream,
    /// `(field, duplicate error kind, missing error kind)` per field.
    per_field: Vec<(TokenStream, TokenStream)>,
}

fn pdt_pieces(fields: &[Field<'_>], name: &str) -> Pdt {
    let what = quote!(<Self as ::graphbinary_core::Decode>::EXPECTED);
    let slots = fields
        .iter()
        .map(|f| {
            let local = local(f);
            let ty = f.ty;
            quote!(let mut #local: ::core::option::Option<#ty> = ::core::option::Option::None;)
        })
        .collect();
    let wrong_name = invalid(
        &what,
        formatted(format!(
            "composite type name {{found:?}} where {} was expected",
            quoted(name)
        )),
    );
    let too_many = invalid(
        &what,
        formatted(format!(
            "{{n}} fields where at most {} were expected",
            fields.len()
        )),
    );
    let unknown = invalid(
        &what,
        formatted(format!(
            "unknown field {{other:?}}; expected one of: {}",
            name_list(fields.iter().map(|f| f.name.as_str()))
        )),
    );
    let per_field = fields
        .iter()
        .map(|f| {
            let name = format!("{:?}", f.name);
            let dup = invalid(&what, text(format!("field {name} appears twice")));
            let missing = invalid(&what, text(format!("missing field {name}")));
            (dup, missing)
        })
        .collect();
    Pdt {
        what,
        slots,
        count: proc_macro2::Literal::usize_unsuffixed(fields.len()),
        wrong_name,
        too_many,
        unknown,
        per_field,
    }
}

fn pdt_fast(cont: &Container<'_>, name: &str, fields: &[Field<'_>]) -> TokenStream {
    let Pdt {
        what,
        slots,
        count,
        wrong_name,
        too_many,
        unknown,
        per_field,
    } = pdt_pieces(fields, name);
    let key_what = format!("{} field name", cont.expected);
    let map_code = hex_u8(MAP_CODE);
    let name_header = fq_string_header_fast(&what);
    let key_header = fq_string_header_fast(&quote!(#key_what));
    let arms = fields.iter().zip(&per_field).map(|(f, (dup, _))| {
        let local = local(f);
        let key = &f.name;
        let ty = f.ty;
        let read =
            quote_spanned!(ty.span()=> <#ty as ::graphbinary_core::FqDecode>::decode_fq(cur)?);
        quote! {
            #key => {
                if #local.is_some() {
                    return ::core::result::Result::Err(cur.error_at(key_at, #dup));
                }
                #local = ::core::option::Option::Some(#read);
            }
        }
    });
    let takes = fields.iter().zip(&per_field).map(|(f, (_, missing))| {
        let local = local(f);
        quote! {
            let #local = match #local {
                ::core::option::Option::Some(v) => v,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(cur.error_at(map_at, #missing));
                }
            };
        }
    });
    let construct = construct(fields);
    quote! {
        let at = cur.offset();
        #name_header
        let found = cur.read_str()?;
        if found != #name {
            return ::core::result::Result::Err(cur.error_at(at, #wrong_name));
        }
        let map_at = cur.offset();
        cur.expect_type_code(#map_code, "Map")?;
        let flag_at = cur.offset();
        match cur.read_u8()? {
            0x00 | 0x02 => {}
            0x01 => {
                return ::core::result::Result::Err(cur.error_at(
                    flag_at,
                    ::graphbinary_core::ErrorKind::UnexpectedNull { what: "Map" },
                ));
            }
            flag => {
                return ::core::result::Result::Err(cur.error_at(
                    flag_at,
                    ::graphbinary_core::ErrorKind::InvalidValueFlag { what: "Map", flag },
                ));
            }
        }
        let count_at = cur.offset();
        let n = cur.read_count("Map")?;
        if n > #count {
            return ::core::result::Result::Err(cur.error_at(count_at, #too_many));
        }
        // Every entry takes at least 8 bytes: a fully-qualified String key (6) and a value (2).
        cur.require(n * 8)?;
        cur.enter()?;
        #(#slots)*
        for _ in 0..n {
            let key_at = cur.offset();
            #key_header
            match cur.read_str()? {
                #(#arms)*
                other => {
                    return ::core::result::Result::Err(cur.error_at(key_at, #unknown));
                }
            }
        }
        cur.leave();
        #(#takes)*
        #construct
    }
}

fn pdt_slow(name: &str, fields: &[Field<'_>]) -> TokenStream {
    let Pdt {
        slots,
        count,
        wrong_name,
        too_many,
        unknown,
        per_field,
        ..
    } = pdt_pieces(fields, name);
    let map_code = hex_u8(MAP_CODE);
    let arms = fields.iter().zip(&per_field).map(|(f, (dup, _))| {
        let local = local(f);
        let key = &f.name;
        let ty = f.ty;
        let read = quote_spanned!(ty.span()=> buf.read::<::graphbinary_core::Fq<#ty>>().await?.0);
        quote! {
            #key => {
                if #local.is_some() {
                    return ::core::result::Result::Err(::graphbinary_core::DecodeError::new(key_at, #dup));
                }
                #local = ::core::option::Option::Some(#read);
            }
        }
    });
    let takes = fields.iter().zip(&per_field).map(|(f, (_, missing))| {
        let local = local(f);
        quote! {
            let #local = match #local {
                ::core::option::Option::Some(v) => v,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(::graphbinary_core::DecodeError::new(map_at, #missing));
                }
            };
        }
    });
    let construct = construct(fields);
    quote! {
        let at = buf.offset();
        let found = buf
            .read::<::graphbinary_core::Fq<::std::string::String>>()
            .await?
            .0;
        if found != #name {
            return ::core::result::Result::Err(::graphbinary_core::DecodeError::new(at, #wrong_name));
        }
        let map_at = buf.offset();
        buf.read_with(
            |cur| {
                cur.expect_type_code(#map_code, "Map")?;
                let flag_at = cur.offset();
                match cur.read_u8()? {
                    0x00 | 0x02 => ::core::result::Result::Ok(()),
                    0x01 => ::core::result::Result::Err(cur.error_at(
                        flag_at,
                        ::graphbinary_core::ErrorKind::UnexpectedNull { what: "Map" },
                    )),
                    flag => ::core::result::Result::Err(cur.error_at(
                        flag_at,
                        ::graphbinary_core::ErrorKind::InvalidValueFlag { what: "Map", flag },
                    )),
                }
            },
            "Map",
        )
        .await?;
        let count_at = buf.offset();
        let n = buf.read_count("Map").await?;
        if n > #count {
            return ::core::result::Result::Err(::graphbinary_core::DecodeError::new(count_at, #too_many));
        }
        buf.enter()?;
        #(#slots)*
        for _ in 0..n {
            let key_at = buf.offset();
            let key = buf
                .read::<::graphbinary_core::Fq<::std::string::String>>()
                .await?
                .0;
            match key.as_str() {
                #(#arms)*
                other => {
                    return ::core::result::Result::Err(::graphbinary_core::DecodeError::new(key_at, #unknown));
                }
            }
        }
        buf.leave();
        #(#takes)*
        #construct
    }
}
