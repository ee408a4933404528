//! `#[derive(GraphBinary)]`: GraphBinary 4 readers and writers from annotated types.
//!
//! See [`GraphBinary`] for the attribute language.

mod ast;
mod attr;
mod bound;
mod check;
mod errors;
mod expand;
mod read;
mod typed;
mod write;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `graphbinary_core::Decode` (fast and slow paths) and `Encode`, plus `Typed`,
/// `FqDecode` and `FqEncode` when the type has a type code.
#[proc_macro_derive(GraphBinary, attributes(graphbinary))]
pub fn derive_graphbinary(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
