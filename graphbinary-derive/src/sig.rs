//! The trait signatures, written once: every impl of `Decode`, `FqDecode`, `Encode` and
//! `FqEncode` and of their GraphBinary 1 twins the derive emits (real or placeholder) is built
//! here from its bodies.
//!
//! Generated code names the core crate as `__graphbinary`, which [`wrap`] binds (to
//! `::graphbinary_core`, or to the path of `#[graphbinary(crate = "...")]`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, ImplGenerics, TypeGenerics, WhereClause};

use crate::gen::Gen;

/// The `impl<..> Trait for Type<..> where ..` parts of one impl.
pub(crate) struct Head<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) impl_generics: ImplGenerics<'a>,
    pub(crate) ty_generics: TypeGenerics<'a>,
    pub(crate) where_clause: Option<&'a WhereClause>,
}

impl<'a> Head<'a> {
    pub(crate) fn new(ident: &'a Ident, generics: &'a syn::Generics) -> Self {
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        Head {
            ident,
            impl_generics,
            ty_generics,
            where_clause,
        }
    }

    fn of(&self, tr: TokenStream) -> TokenStream {
        let Head {
            ident,
            impl_generics,
            ty_generics,
            where_clause,
        } = self;
        quote! {
            #[automatically_derived]
            impl #impl_generics #tr for #ident #ty_generics #where_clause
        }
    }
}

/// `impl Decode` (`fq = false`) or `impl FqDecode` (`fq = true`), or their GraphBinary 1
/// twins (`DecodeV1`, `FqDecodeV1`): `fast` is the body of the fast path (`decode(cur)` /
/// `decode_fq(cur)`), `slow` an expression of the future the slow path (`decode_slow(buf)` /
/// `decode_fq_slow(buf)`) returns.
pub(crate) fn decode(
    gen: Gen,
    head: &Head<'_>,
    fq: bool,
    expected: &TokenStream,
    fast: TokenStream,
    slow: TokenStream,
) -> TokenStream {
    let n = gen.names();
    let (tr, fast_fn, slow_fn) = if fq {
        (n.fq_decode, n.decode_fq_fn, n.decode_fq_slow_fn)
    } else {
        (n.decode, n.decode_fn, n.decode_slow_fn)
    };
    decode_named(head, tr, fast_fn, slow_fn, expected, fast, slow)
}

fn decode_named(
    head: &Head<'_>,
    tr: TokenStream,
    fast_fn: TokenStream,
    slow_fn: TokenStream,
    expected: &TokenStream,
    fast: TokenStream,
    slow: TokenStream,
) -> TokenStream {
    let head = head.of(tr);
    quote! {
        #head {
            const EXPECTED: &'static str = #expected;

            #[inline]
            fn #fast_fn(
                cur: &mut __graphbinary::Cursor<'_>,
            ) -> __graphbinary::FastResult<Self> {
                #fast
            }

            fn #slow_fn<
                __R: __graphbinary::__private::AsyncRead
                    + ::core::marker::Unpin
                    + ::core::marker::Send,
            >(
                buf: &mut __graphbinary::ReadBuffer<__R>,
            ) -> impl __graphbinary::__private::Future<
                Output = ::core::result::Result<Self, __graphbinary::DecodeError>,
            > + ::core::marker::Send {
                #slow
            }
        }
    }
}

/// `impl Encode` (`fq = false`) or `impl FqEncode` (`fq = true`), or their GraphBinary 1
/// twins, with `body` writing to `out`.
pub(crate) fn encode(gen: Gen, head: &Head<'_>, fq: bool, body: TokenStream) -> TokenStream {
    let n = gen.names();
    let (tr, method) = if fq {
        (n.fq_encode, n.encode_fq_fn)
    } else {
        (n.encode, n.encode_fn)
    };
    encode_named(head, tr, method, body)
}

fn encode_named(
    head: &Head<'_>,
    tr: TokenStream,
    method: TokenStream,
    body: TokenStream,
) -> TokenStream {
    let head = head.of(tr);
    quote! {
        #head {
            #[inline]
            fn #method<__B: __graphbinary::__private::BufMut>(
                &self,
                out: &mut __B,
            ) -> ::core::result::Result<(), __graphbinary::EncodeError> {
                #body
            }
        }
    }
}

/// `impl Typed` (`impl TypedV1`).
pub(crate) fn typed(gen: Gen, head: &Head<'_>, code: u8) -> TokenStream {
    let n = gen.names();
    let head = head.of(n.typed);
    let (code, name) = (crate::util::hex_u8(code), n.type_code);
    quote! {
        #head {
            const #name: u8 = #code;
        }
    }
}

/// `impl CustomV1`: a GraphBinary 1 custom type's name and custom type info.
pub(crate) fn custom_v1(head: &Head<'_>, name: TokenStream, info: TokenStream) -> TokenStream {
    let head = head.of(quote!(__graphbinary::v1::CustomV1));
    quote! {
        #head {
            const CUSTOM_NAME: &'static str = #name;
            const CUSTOM_INFO: i32 = #info;
        }
    }
}

/// Puts the derive's output in an anonymous `const` block that names the core crate
/// `__graphbinary` (serde's `_serde`), so that the same code works whether the user depends
/// on `graphbinary-core` or reaches it through another crate (`#[graphbinary(crate = "..")]`).
pub(crate) fn wrap(krate: Option<&syn::Path>, tokens: TokenStream) -> TokenStream {
    let krate = match krate {
        Some(path) => quote!(#path),
        None => quote!(::graphbinary_core),
    };
    quote! {
        #[doc(hidden)]
        const _: () = {
            use #krate as __graphbinary;
            #tokens
        };
    }
}
