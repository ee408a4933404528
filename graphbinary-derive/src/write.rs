//! The writer back end: `Encode::encode`, the bare value in the same layout the readers
//! read, so that every decoded value re-encodes byte for byte.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Field, Layout, Shape, Variant};
use crate::bound::{self, Side};
use crate::sig::{self, Head};

/// `impl Encode for ...`.
pub(crate) fn encode_impl(cont: &Container<'_>) -> TokenStream {
    let generics = bound::generics(cont, Side::Encode);
    let head = Head::new(cont.ident, &generics);
    let body = match &cont.shape {
        Shape::Struct(fields) => struct_body(fields),
        Shape::EnumString(variants) => enum_body(variants),
        Shape::CompositePdt { name, fields } => pdt_body(name, fields),
    };
    sig::encode(&head, false, body)
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
        match &f.layout {
            Layout::Bare => quote_spanned! {ty.span()=>
                __graphbinary::Encode::encode(&self.#ident, out)?;
            },
            Layout::Fq => quote_spanned! {ty.span()=>
                __graphbinary::FqEncode::encode_fq(&self.#ident, out)?;
            },
            Layout::FqNullable(inner) => quote_spanned! {ty.span()=>
                match &self.#ident {
                    ::core::option::Option::Some(v) => {
                        __graphbinary::write::put_header(
                            out,
                            <#inner as __graphbinary::Typed>::TYPE_CODE,
                        );
                        <#inner as __graphbinary::Encode>::encode(v, out)?;
                    }
                    // A null in an object slot is the unspecified null, as TinkerPop
                    // writes it (and as core's `FqOpt` does).
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
                        <#inner as __graphbinary::Encode>::encode(v, out)?;
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

pub(crate) fn enum_body(variants: &[Variant<'_>]) -> TokenStream {
    let arms = variants.iter().map(|v| {
        let ident = v.ident;
        let name = &v.name;
        quote!(Self::#ident => #name,)
    });
    quote! {
        let name = match self {
            #(#arms)*
        };
        __graphbinary::write::put_header(out, __graphbinary::codes::STRING);
        __graphbinary::write::put_str(out, name)
    }
}

fn pdt_body(name: &str, fields: &[Field<'_>]) -> TokenStream {
    let count = proc_macro2::Literal::usize_unsuffixed(fields.len());
    let writes = fields.iter().map(|f| {
        let ident = f.ident;
        let key = &f.name;
        let ty = f.ty;
        let value = quote_spanned! {ty.span()=>
            __graphbinary::FqEncode::encode_fq(&self.#ident, out)?;
        };
        quote! {
            __graphbinary::write::put_header(out, __graphbinary::codes::STRING);
            __graphbinary::write::put_str(out, #key)?;
            #value
        }
    });
    quote! {
        __graphbinary::write::put_header(out, __graphbinary::codes::STRING);
        __graphbinary::write::put_str(out, #name)?;
        __graphbinary::write::put_header(out, __graphbinary::codes::MAP);
        __graphbinary::write::put_len(out, #count, "Map")?;
        #(#writes)*
        ::core::result::Result::Ok(())
    }
}
