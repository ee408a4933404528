//! The writer back end: `Encode::encode`, the bare value in the same layout the readers
//! read, so that every decoded value re-encodes byte for byte.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Field, Layout, Shape, Variant};
use crate::bound::{self, Side};
use crate::read::hex_u8;

/// The type code of Map (the fields of a composite PDT).
const MAP_CODE: u8 = 0x0a;

/// `impl Encode for ...`.
pub(crate) fn encode_impl(cont: &Container<'_>) -> TokenStream {
    let ident = cont.ident;
    let generics = bound::generics(cont, Side::Encode);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let body = match &cont.shape {
        Shape::Struct(fields) => struct_body(fields),
        Shape::EnumString(variants) => enum_body(variants),
        Shape::CompositePdt { name, fields } => pdt_body(name, fields),
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::graphbinary_core::Encode for #ident #ty_generics #where_clause {
            fn encode<__B: ::graphbinary_core::__private::BufMut>(
                &self,
                out: &mut __B,
            ) -> ::core::result::Result<(), ::graphbinary_core::EncodeError> {
                #body
            }
        }
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
        match &f.layout {
            Layout::Bare => quote_spanned! {ty.span()=>
                ::graphbinary_core::Encode::encode(&self.#ident, out)?;
            },
            Layout::Fq => quote_spanned! {ty.span()=>
                ::graphbinary_core::FqEncode::encode_fq(&self.#ident, out)?;
            },
            Layout::FqNullable(inner) => quote_spanned! {ty.span()=>
                match &self.#ident {
                    ::core::option::Option::Some(v) => {
                        ::graphbinary_core::write::put_header(
                            out,
                            <#inner as ::graphbinary_core::Typed>::TYPE_CODE,
                        );
                        <#inner as ::graphbinary_core::Encode>::encode(v, out)?;
                    }
                    // A null in an object slot is the unspecified null, as TinkerPop
                    // writes it (and as core's `FqOpt` does).
                    ::core::option::Option::None => ::graphbinary_core::write::put_null(
                        out,
                        ::graphbinary_core::codes::UNSPECIFIED_NULL,
                    ),
                }
            },
            Layout::Nullable(inner) => quote_spanned! {ty.span()=>
                match &self.#ident {
                    ::core::option::Option::Some(v) => {
                        ::graphbinary_core::__private::BufMut::put_u8(out, 0x00);
                        <#inner as ::graphbinary_core::Encode>::encode(v, out)?;
                    }
                    ::core::option::Option::None => {
                        ::graphbinary_core::__private::BufMut::put_u8(out, 0x01);
                    }
                }
            },
        }
    });
    quote! {
        #(#writes)*
        ::core::result::Result::Ok(())
    }
}

fn enum_body(variants: &[Variant<'_>]) -> TokenStream {
    let arms = variants.iter().map(|v| {
        let ident = v.ident;
        let name = &v.name;
        quote!(Self::#ident => #name,)
    });
    quote! {
        let name = match self {
            #(#arms)*
        };
        ::graphbinary_core::write::put_header(out, ::graphbinary_core::codes::STRING);
        ::graphbinary_core::write::put_str(out, name)
    }
}

fn pdt_body(name: &str, fields: &[Field<'_>]) -> TokenStream {
    let map_code = hex_u8(MAP_CODE);
    let count = proc_macro2::Literal::usize_unsuffixed(fields.len());
    let writes = fields.iter().map(|f| {
        let ident = f.ident;
        let key = &f.name;
        let ty = f.ty;
        let value = quote_spanned! {ty.span()=>
            ::graphbinary_core::FqEncode::encode_fq(&self.#ident, out)?;
        };
        quote! {
            ::graphbinary_core::write::put_header(out, ::graphbinary_core::codes::STRING);
            ::graphbinary_core::write::put_str(out, #key)?;
            #value
        }
    });
    quote! {
        ::graphbinary_core::write::put_header(out, ::graphbinary_core::codes::STRING);
        ::graphbinary_core::write::put_str(out, #name)?;
        ::graphbinary_core::write::put_header(out, #map_code);
        ::graphbinary_core::write::put_len(out, #count, "Map")?;
        #(#writes)*
        ::core::result::Result::Ok(())
    }
}
