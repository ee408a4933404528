//! The fully-qualified side: `Typed`, and `FqDecode`/`FqEncode` through it (the same impls
//! `graphbinary_core::impl_fq_via_typed!` writes, emitted inline so that they carry the
//! container's generics), plus the `TYPE_NAME` constant of a composite PDT.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Container, Shape};
use crate::bound::{self, Side};
use crate::gen::Gen;
use crate::sig::{self, Head};

/// `impl Typed`, `impl FqDecode`, `impl FqEncode` when the container has a type code, and the
/// inherent `TYPE_NAME` of a composite PDT.
pub(crate) fn impls(cont: &Container<'_>) -> TokenStream {
    let Some(code) = cont.type_code else {
        return TokenStream::new();
    };
    let ident = cont.ident;
    let typed = typed_impls(Gen::V4, cont, code);
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
        #type_name
    }
}

/// `impl Typed` with `code`, and `impl FqDecode` / `impl FqEncode` through it,
/// or their GraphBinary 1 twins: what core's `impl_fq_via_typed!` writes.
pub(crate) fn typed_impls(gen: Gen, cont: &Container<'_>, code: u8) -> TokenStream {
    let ident = cont.ident;
    let n = gen.names();
    let typed = sig::typed(gen, &Head::new(ident, cont.generics), code);
    let (decode, fq, fq_slow, fq_encode) = (
        n.decode,
        n.decode_fq_typed,
        n.decode_fq_typed_slow,
        n.encode_fq_typed,
    );
    let de_generics = bound::generics(gen, cont, Side::Decode);
    let fq_decode = sig::decode(
        gen,
        &Head::new(ident, &de_generics),
        true,
        &quote!(<Self as #decode>::EXPECTED),
        quote!(#fq::<Self>(cur)),
        quote!(#fq_slow::<Self, __R>(buf)),
    );
    let en_generics = bound::generics(gen, cont, Side::Encode);
    let fq_encode = sig::encode(
        gen,
        &Head::new(ident, &en_generics),
        true,
        quote!(#fq_encode(self, out)),
    );
    quote! {
        #typed
        #fq_decode
        #fq_encode
    }
}
