//! The writer back end: `Encode::encode`, the bare value in the same layout the readers
//! read, so that every decoded value re-encodes byte for byte; its field walker serves
//! GraphBinary 1's `EncodeV1` too.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Field, Layout, Shape, Variant};
use crate::bound::{self, Side};
use crate::gen::{Gen, Names};
use crate::sig::{self, Head};

/// `impl Encode for ...`.
pub(crate) fn encode_impl(cont: &Container<'_>) -> TokenStream {
    let generics = bound::generics(Gen::V4, cont, Side::Encode);
    let head = Head::new(cont.ident, &generics);
    let body = match &cont.shape {
        Shape::Struct(fields) => struct_writes(fields, |f| layout_write(Gen::V4, f)),
        Shape::EnumString(variants) => enum_body(variants),
        Shape::CompositePdt { name, fields } => pdt_body(name, fields),
    };
    sig::encode(Gen::V4, &head, false, body)
}

/// The body of a struct writer (either generation): `write` per field, then `Ok(())`.
pub(crate) fn struct_writes(
    fields: &[Field<'_>],
    write: impl Fn(&Field<'_>) -> TokenStream,
) -> TokenStream {
    if fields.is_empty() {
        return quote! {
            let _ = out;
            ::core::result::Result::Ok(())
        };
    }
    let writes = fields.iter().map(write);
    quote! {
        #(#writes)*
        ::core::result::Result::Ok(())
    }
}

/// The write of a field by its layout, through `gen`'s traits.
pub(crate) fn layout_write(gen: Gen, f: &Field<'_>) -> TokenStream {
    let ident = f.ident;
    let ty = f.ty;
    let Names {
        encode,
        encode_fn,
        fq_encode,
        encode_fq_fn,
        typed,
        type_code,
        ..
    } = gen.names_at(ty.span());
    match &f.layout {
        Layout::Bare => quote_spanned! {ty.span()=>
            #encode::#encode_fn(&self.#ident, out)?;
        },
        Layout::Fq => quote_spanned! {ty.span()=>
            #fq_encode::#encode_fq_fn(&self.#ident, out)?;
        },
        Layout::FqNullable(inner) => quote_spanned! {ty.span()=>
            match &self.#ident {
                ::core::option::Option::Some(v) => {
                    __graphbinary::write::put_header(
                        out,
                        <#inner as #typed>::#type_code,
                    );
                    <#inner as #encode>::#encode_fn(v, out)?;
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
                    <#inner as #encode>::#encode_fn(v, out)?;
                }
                ::core::option::Option::None => {
                    __graphbinary::__private::BufMut::put_u8(out, 0x01);
                }
            }
        },
        Layout::Skip => TokenStream::new(),
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
