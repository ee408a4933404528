//! The trait signatures, written once: every impl of `Decode`, `FqDecode`, `Encode` and
//! `FqEncode` the derive emits (real or placeholder) is built here from its bodies.
//!
//! Generated code names the core crate as `__graphbinary`, which [`wrap`] binds (to
//! `::graphbinary_core`, or to the path of `#[graphbinary(crate = "...")]`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, ImplGenerics, TypeGenerics, WhereClause};

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
            impl #impl_generics __graphbinary::#tr for #ident #ty_generics #where_clause
        }
    }
}

/// `impl Decode` (`fq = false`) or `impl FqDecode` (`fq = true`): `fast` is the body of the
/// fast path (`decode(cur)` / `decode_fq(cur)`), `slow` an expression of the future the slow
/// path (`decode_slow(buf)` / `decode_fq_slow(buf)`) returns.
pub(crate) fn decode(
    head: &Head<'_>,
    fq: bool,
    expected: &TokenStream,
    fast: TokenStream,
    slow: TokenStream,
) -> TokenStream {
    let (tr, fast_fn, slow_fn) = if fq {
        (quote!(FqDecode), quote!(decode_fq), quote!(decode_fq_slow))
    } else {
        (quote!(Decode), quote!(decode), quote!(decode_slow))
    };
    decode_named(head, tr, fast_fn, slow_fn, expected, fast, slow)
}

/// `impl DecodeV1` (`fq = false`) or `impl FqDecodeV1` (`fq = true`), the GraphBinary 1
/// dialect of [`decode`].
pub(crate) fn decode_v1(
    head: &Head<'_>,
    fq: bool,
    expected: &TokenStream,
    fast: TokenStream,
    slow: TokenStream,
) -> TokenStream {
    let (tr, fast_fn, slow_fn) = if fq {
        (
            quote!(v1::FqDecodeV1),
            quote!(decode_fq_v1),
            quote!(decode_fq_v1_slow),
        )
    } else {
        (
            quote!(v1::DecodeV1),
            quote!(decode_v1),
            quote!(decode_v1_slow),
        )
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

/// `impl Encode` (`fq = false`) or `impl FqEncode` (`fq = true`) with `body` writing to `out`.
pub(crate) fn encode(head: &Head<'_>, fq: bool, body: TokenStream) -> TokenStream {
    let (tr, method) = if fq {
        (quote!(FqEncode), quote!(encode_fq))
    } else {
        (quote!(Encode), quote!(encode))
    };
    encode_named(head, tr, method, body)
}

/// `impl EncodeV1` (`fq = false`) or `impl FqEncodeV1` (`fq = true`).
pub(crate) fn encode_v1(head: &Head<'_>, fq: bool, body: TokenStream) -> TokenStream {
    let (tr, method) = if fq {
        (quote!(v1::FqEncodeV1), quote!(encode_fq_v1))
    } else {
        (quote!(v1::EncodeV1), quote!(encode_v1))
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

/// `impl Typed`.
pub(crate) fn typed(head: &Head<'_>, code: u8) -> TokenStream {
    let head = head.of(quote!(Typed));
    let code = crate::util::hex_u8(code);
    quote! {
        #head {
            const TYPE_CODE: u8 = #code;
        }
    }
}

/// `impl TypedV1`.
pub(crate) fn typed_v1(head: &Head<'_>, code: u8) -> TokenStream {
    let head = head.of(quote!(v1::TypedV1));
    let code = crate::util::hex_u8(code);
    quote! {
        #head {
            const TYPE_CODE_V1: u8 = #code;
        }
    }
}

/// `impl CustomV1`: a GraphBinary 1 custom type's name and custom type info.
pub(crate) fn custom_v1(head: &Head<'_>, name: TokenStream, info: TokenStream) -> TokenStream {
    let head = head.of(quote!(v1::CustomV1));
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
