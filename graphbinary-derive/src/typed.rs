//! The fully-qualified side: `Typed`, and `FqDecode`/`FqEncode` through it (the same impls
//! `graphbinary_core::impl_fq_via_typed!` writes, emitted inline so that they carry the
//! container's generics), plus the `TYPE_NAME` constant of a composite PDT.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Container, Shape};
use crate::bound::{self, Side};
use crate::read::hex_u8;

/// `impl Typed`, `impl FqDecode`, `impl FqEncode` when the container has a type code, and the
/// inherent `TYPE_NAME` of a composite PDT.
pub(crate) fn impls(cont: &Container<'_>) -> TokenStream {
    let Some(code) = cont.type_code else {
        return TokenStream::new();
    };
    let ident = cont.ident;
    let code = hex_u8(code);
    let (impl_generics, ty_generics, where_clause) = cont.generics.split_for_impl();
    let typed = quote! {
        #[automatically_derived]
        impl #impl_generics ::graphbinary_core::Typed for #ident #ty_generics #where_clause {
            const TYPE_CODE: u8 = #code;
        }
    };
    let de_generics = bound::generics(cont, Side::Decode);
    let (impl_generics, ty_generics, where_clause) = de_generics.split_for_impl();
    let fq_decode = quote! {
        #[automatically_derived]
        impl #impl_generics ::graphbinary_core::FqDecode for #ident #ty_generics #where_clause {
            const EXPECTED: &'static str = <Self as ::graphbinary_core::Decode>::EXPECTED;

            #[inline]
            fn decode_fq(
                cur: &mut ::graphbinary_core::Cursor<'_>,
            ) -> ::graphbinary_core::FastResult<Self> {
                ::graphbinary_core::decode_fq_typed::<Self>(cur)
            }

            fn decode_fq_slow<
                __R: ::graphbinary_core::__private::AsyncRead
                    + ::core::marker::Unpin
                    + ::core::marker::Send,
            >(
                buf: &mut ::graphbinary_core::ReadBuffer<__R>,
            ) -> impl ::graphbinary_core::__private::Future<
                Output = ::core::result::Result<Self, ::graphbinary_core::DecodeError>,
            > + ::core::marker::Send {
                ::graphbinary_core::decode_fq_typed_slow::<Self, __R>(buf)
            }
        }
    };
    let en_generics = bound::generics(cont, Side::Encode);
    let (impl_generics, ty_generics, where_clause) = en_generics.split_for_impl();
    let fq_encode = quote! {
        #[automatically_derived]
        impl #impl_generics ::graphbinary_core::FqEncode for #ident #ty_generics #where_clause {
            #[inline]
            fn encode_fq<__B: ::graphbinary_core::__private::BufMut>(
                &self,
                out: &mut __B,
            ) -> ::core::result::Result<(), ::graphbinary_core::EncodeError> {
                ::graphbinary_core::encode_fq_typed(self, out)
            }
        }
    };
    let type_name = match &cont.shape {
        Shape::CompositePdt { name, .. } => {
            let doc = format!(" The CompositePDT type name on the wire: `{name}`.");
            let (impl_generics, ty_generics, where_clause) = cont.generics.split_for_impl();
            quote! {
                #[automatically_derived]
                impl #impl_generics #ident #ty_generics #where_clause {
                    #[doc = #doc]
                    pub const TYPE_NAME: &'static str = #name;
                }
            }
        }
        _ => TokenStream::new(),
    };
    quote! {
        #typed
        #fq_decode
        #fq_encode
        #type_name
    }
}
