//! The entry point on `proc_macro2`: model, back ends, and placeholder impls on error.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ast::{Container, COMPOSITE_PDT_CODE};
use crate::attr::ContainerAttrs;
use crate::errors::Errors;
use crate::gen::Gen;
use crate::sig::{self, Head};
use crate::{read, typed, v1, write};

/// What `#[derive(GraphBinary)]` expands to: the impls, or every error found plus placeholder
/// impls (so that the user sees the errors, not a cascade of "trait not implemented"), inside
/// the block that names the core crate ([`sig::wrap`]).
pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let attrs = ContainerAttrs::parse(&input.attrs, &mut Errors::new());
    let krate = attrs.krate.as_ref().map(|k| &k.value);
    match expand(input) {
        Ok(tokens) => sig::wrap(krate, tokens),
        Err(err) => {
            let mut tokens = err.into_compile_error();
            tokens.extend(sig::wrap(krate, placeholder(input, &attrs)));
            tokens
        }
    }
}

/// The impls for a valid input, or every error found in it.
pub(crate) fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cont = Container::from_ast(input)?;
    let v1 = v1::impls(&cont);
    if cont.v1.as_ref().is_some_and(|v1| v1.custom.is_some()) {
        // A custom type (0x00) is GraphBinary 1 only: GraphBinary 4 has no custom types, and
        // its leaf fields need no GraphBinary 4 impls.
        return Ok(v1);
    }
    let decode = read::decode_impl(&cont);
    let encode = write::encode_impl(&cont);
    let typed = typed::impls(&cont);
    Ok(quote! {
        #decode
        #encode
        #typed
        #v1
    })
}

/// Impls with the right signatures and unreachable bodies, for an input with errors.
fn placeholder(input: &DeriveInput, attrs: &ContainerAttrs) -> TokenStream {
    let ident = &input.ident;
    let (_, ty_generics, _) = input.generics.split_for_impl();
    // `Decode` and `FqDecode` require `Send`; without the field bounds of a real impl, say so
    // directly (a generic type is `Send` only when its parameters are).
    let mut send_generics = input.generics.clone();
    if send_generics.type_params().next().is_some() {
        send_generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#ident #ty_generics: ::core::marker::Send));
    }
    let head = Head::new(ident, &input.generics);
    let send_head = Head::new(ident, &send_generics);
    let expected = crate::ast::unraw(ident);
    let expected = quote!(#expected);
    let fast = || quote! { let _ = cur; ::core::unreachable!() };
    let slow = || quote! { let _ = buf; ::core::future::pending() };
    let unwritable = || quote! { let _ = out; ::core::unreachable!() };
    // The bare impls of a generation and, with `typed` (its `Typed` impl or kin), its
    // fully-qualified ones.
    let impls = |gen: Gen, typed: Option<TokenStream>| {
        let decode = sig::decode(gen, &send_head, false, &expected, fast(), slow());
        let encode = sig::encode(gen, &head, false, unwritable());
        let fq = typed.map(|typed| {
            let fq_decode = sig::decode(gen, &send_head, true, &expected, fast(), slow());
            let fq_encode = sig::encode(gen, &head, true, unwritable());
            quote!(#typed #fq_decode #fq_encode)
        });
        (quote!(#decode #encode), fq.unwrap_or_default())
    };
    let (bare, typed) = impls(
        Gen::V4,
        attrs.wants_typed.then(|| {
            let code = match (&attrs.composite_pdt, &attrs.type_code) {
                (Some(_), _) | (None, None) => COMPOSITE_PDT_CODE,
                (None, Some(code)) => code.value,
            };
            sig::typed(Gen::V4, &head, code)
        }),
    );
    let v1 = if attrs.v1.is_some() || attrs.v1_type_code.is_some() || attrs.wants_custom {
        let code = attrs
            .v1_type_code
            .as_ref()
            .or(attrs.type_code.as_ref())
            .map(|c| c.value);
        let typed = match code {
            _ if attrs.wants_custom => {
                let name = attrs
                    .v1_custom
                    .as_ref()
                    .map(|c| c.value.clone())
                    .unwrap_or_default();
                let info =
                    crate::util::hex_i32(attrs.v1_custom_info.as_ref().map_or(0, |c| c.value));
                Some(sig::custom_v1(&send_head, quote!(#name), info))
            }
            Some(code) => Some(sig::typed(Gen::V1, &head, code)),
            None => None,
        };
        let (bare, typed) = impls(Gen::V1, typed);
        quote!(#bare #typed)
    } else {
        TokenStream::new()
    };
    quote! {
        #bare
        #typed
        #v1
    }
}
