//! The two GraphBinary generations the derive writes impls for, as the names their impls
//! use: GraphBinary 4 (`Decode`, `Encode`, `Typed`, `FqOpt`, ..) and GraphBinary 1 (`v1::DecodeV1`,
//! `v1::EncodeV1`, `v1::TypedV1`, `v1::FqOptV1`, ..). The field walkers of the readers and the
//! writer ([`crate::read`], [`crate::write`]), the where-clauses ([`crate::bound`]) and the
//! impl heads ([`crate::sig`]) are written once over these names.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote_spanned;

/// A GraphBinary generation.
#[derive(Clone, Copy)]
pub(crate) enum Gen {
    /// GraphBinary 4 (TinkerPop 4): core's `Decode`/`Encode` family.
    V4,
    /// GraphBinary 1 (TinkerPop 3): core's `v1` module.
    V1,
}

/// The paths and names of one generation's traits, wrappers and helpers, every token with one
/// span (that of the field they are written for, so that an unmet bound points at it).
pub(crate) struct Names {
    /// The bare reader trait (`Decode`), its fast and slow methods.
    pub(crate) decode: TokenStream,
    pub(crate) decode_fn: TokenStream,
    pub(crate) decode_slow_fn: TokenStream,
    /// The fully-qualified reader trait (`FqDecode`), its fast and slow methods.
    pub(crate) fq_decode: TokenStream,
    pub(crate) decode_fq_fn: TokenStream,
    pub(crate) decode_fq_slow_fn: TokenStream,
    /// The bare writer trait (`Encode`) and its method.
    pub(crate) encode: TokenStream,
    pub(crate) encode_fn: TokenStream,
    /// The fully-qualified writer trait (`FqEncode`) and its method.
    pub(crate) fq_encode: TokenStream,
    pub(crate) encode_fq_fn: TokenStream,
    /// The type code trait (`Typed`) and its constant.
    pub(crate) typed: TokenStream,
    pub(crate) type_code: TokenStream,
    /// The layout wrappers: `Fq<T>`, `FqOpt<T>`, `Nullable<T>`.
    pub(crate) fq: TokenStream,
    pub(crate) fq_opt: TokenStream,
    pub(crate) nullable: TokenStream,
    /// What the slow path reads a value through, when not the value's own `Decode`
    /// (GraphBinary 1's `v1::V1<T>`, a `Decode` of its own, unwrapped with `.0`).
    pub(crate) slow_wrapper: Option<TokenStream>,
    /// The fully-qualified impls of a type with a type code (core's `decode_fq_typed`,
    /// `decode_fq_typed_slow`, `encode_fq_typed`).
    pub(crate) decode_fq_typed: TokenStream,
    pub(crate) decode_fq_typed_slow: TokenStream,
    pub(crate) encode_fq_typed: TokenStream,
}

impl Gen {
    /// The names at the call site of the derive.
    pub(crate) fn names(self) -> Names {
        self.names_at(Span::call_site())
    }

    /// The names with `span`. GraphBinary 1's follow core's `v1` module: a trait or wrapper
    /// `X` is `v1::XV1`, a method or function `stem_rest` is `stem_v1_rest`.
    pub(crate) fn names_at(self, span: Span) -> Names {
        let item = |name: &str| self.item(name, span);
        let method = |stem: &str, rest: &str| {
            let ident = Ident::new(&format!("{stem}{}{rest}", self.infix()), span);
            quote_spanned!(span=> #ident)
        };
        let function = |stem: &str, rest: &str| {
            let f = method(stem, rest);
            match self {
                Gen::V4 => quote_spanned!(span=> __graphbinary::#f),
                Gen::V1 => quote_spanned!(span=> __graphbinary::v1::#f),
            }
        };
        let type_code = Ident::new(&format!("TYPE_CODE{}", self.infix().to_uppercase()), span);
        Names {
            decode: item("Decode"),
            decode_fn: method("decode", ""),
            decode_slow_fn: method("decode", "_slow"),
            fq_decode: item("FqDecode"),
            decode_fq_fn: method("decode_fq", ""),
            decode_fq_slow_fn: method("decode_fq", "_slow"),
            encode: item("Encode"),
            encode_fn: method("encode", ""),
            fq_encode: item("FqEncode"),
            encode_fq_fn: method("encode_fq", ""),
            typed: item("Typed"),
            type_code: quote_spanned!(span=> #type_code),
            fq: item("Fq"),
            fq_opt: item("FqOpt"),
            nullable: item("Nullable"),
            slow_wrapper: match self {
                Gen::V4 => None,
                Gen::V1 => Some(quote_spanned!(span=> __graphbinary::v1::V1)),
            },
            decode_fq_typed: function("decode_fq", "_typed"),
            decode_fq_typed_slow: function("decode_fq", "_typed_slow"),
            encode_fq_typed: function("encode_fq", "_typed"),
        }
    }

    /// `__graphbinary::X` or `__graphbinary::v1::XV1`.
    fn item(self, name: &str, span: Span) -> TokenStream {
        match self {
            Gen::V4 => {
                let ident = Ident::new(name, span);
                quote_spanned!(span=> __graphbinary::#ident)
            }
            Gen::V1 => {
                let ident = Ident::new(&format!("{name}V1"), span);
                quote_spanned!(span=> __graphbinary::v1::#ident)
            }
        }
    }

    /// What a method name has after its stem: nothing, or `_v1`.
    fn infix(self) -> &'static str {
        match self {
            Gen::V4 => "",
            Gen::V1 => "_v1",
        }
    }
}
