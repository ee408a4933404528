//! The entry point on `proc_macro2`: model, back ends, and placeholder impls on error.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ast::{Container, COMPOSITE_PDT_CODE};
use crate::attr::ContainerAttrs;
use crate::errors::Errors;
use crate::read::hex_u8;
use crate::{read, typed, write};

/// What `#[derive(GraphBinary)]` expands to: the impls, or every error found plus placeholder
/// impls (so that the user sees the errors, not a cascade of "trait not implemented").
pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    match expand(input) {
        Ok(tokens) => tokens,
        Err(err) => {
            let mut tokens = err.into_compile_error();
            tokens.extend(placeholder(input));
            tokens
        }
    }
}

/// The impls for a valid input, or every error found in it.
pub(crate) fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cont = Container::from_ast(input)?;
    let decode = read::decode_impl(&cont);
    let encode = write::encode_impl(&cont);
    let typed = typed::impls(&cont);
    Ok(quote! {
        #decode
        #encode
        #typed
    })
}

/// Impls with the right signatures and unreachable bodies, for an input with errors.
fn placeholder(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    // `Decode` and `FqDecode` require `Send`; without the field bounds of a real impl, say so
    // directly (a generic type is `Send` only when its parameters are).
    let mut send_generics = input.generics.clone();
    if send_generics.type_params().next().is_some() {
        send_generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#ident #ty_generics: ::core::marker::Send));
    }
    let (_, _, send_where_clause) = send_generics.split_for_impl();
    let expected = crate::ast::unraw(ident);
    let attrs = ContainerAttrs::parse(&input.attrs, &mut Errors::new());
    let typed = if attrs.wants_typed {
        let code = match (&attrs.composite_pdt, &attrs.type_code) {
            (Some(_), _) | (None, None) => COMPOSITE_PDT_CODE,
            (None, Some(code)) => code.value,
        };
        let code = hex_u8(code);
        quote! {
            #[automatically_derived]
            impl #impl_generics ::graphbinary_core::Typed for #ident #ty_generics #where_clause {
                const TYPE_CODE: u8 = #code;
            }
            #[automatically_derived]
            impl #impl_generics ::graphbinary_core::FqDecode for #ident #ty_generics #send_where_clause {
                const EXPECTED: &'static str = #expected;
                fn decode_fq(
                    _: &mut ::graphbinary_core::Cursor<'_>,
                ) -> ::graphbinary_core::FastResult<Self> {
                    ::core::unreachable!()
                }
                fn decode_fq_slow<
                    __R: ::graphbinary_core::__private::AsyncRead
                        + ::core::marker::Unpin
                        + ::core::marker::Send,
                >(
                    _: &mut ::graphbinary_core::ReadBuffer<__R>,
                ) -> impl ::graphbinary_core::__private::Future<
                    Output = ::core::result::Result<Self, ::graphbinary_core::DecodeError>,
                > + ::core::marker::Send {
                    ::core::future::pending()
                }
            }
            #[automatically_derived]
            impl #impl_generics ::graphbinary_core::FqEncode for #ident #ty_generics #where_clause {
                fn encode_fq<__B: ::graphbinary_core::__private::BufMut>(
                    &self,
                    _: &mut __B,
                ) -> ::core::result::Result<(), ::graphbinary_core::EncodeError> {
                    ::core::unreachable!()
                }
            }
        }
    } else {
        TokenStream::new()
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::graphbinary_core::Decode for #ident #ty_generics #send_where_clause {
            const EXPECTED: &'static str = #expected;
            fn decode(
                _: &mut ::graphbinary_core::Cursor<'_>,
            ) -> ::graphbinary_core::FastResult<Self> {
                ::core::unreachable!()
            }
            fn decode_slow<
                __R: ::graphbinary_core::__private::AsyncRead
                    + ::core::marker::Unpin
                    + ::core::marker::Send,
            >(
                _: &mut ::graphbinary_core::ReadBuffer<__R>,
            ) -> impl ::graphbinary_core::__private::Future<
                Output = ::core::result::Result<Self, ::graphbinary_core::DecodeError>,
            > + ::core::marker::Send {
                ::core::future::pending()
            }
        }
        #[automatically_derived]
        impl #impl_generics ::graphbinary_core::Encode for #ident #ty_generics #where_clause {
            fn encode<__B: ::graphbinary_core::__private::BufMut>(
                &self,
                _: &mut __B,
            ) -> ::core::result::Result<(), ::graphbinary_core::EncodeError> {
                ::core::unreachable!()
            }
        }
        #typed
    }
}
