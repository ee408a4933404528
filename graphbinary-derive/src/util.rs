//! Small helpers shared by the back ends.

/// A byte as a hexadecimal literal (`0x0a`), for readable generated code.
pub(crate) fn hex_u8(v: u8) -> syn::LitInt {
    syn::LitInt::new(&format!("0x{v:02x}"), proc_macro2::Span::call_site())
}

/// An Int as an expression of type `i32` written in hexadecimal (`0x1001`; the bits of a
/// negative one as `(0x80000000u32 as i32)`), for readable generated code.
pub(crate) fn hex_i32(v: i32) -> proc_macro2::TokenStream {
    if v >= 0 {
        let lit = syn::LitInt::new(&format!("0x{v:x}"), proc_macro2::Span::call_site());
        quote::quote!(#lit)
    } else {
        let lit = syn::LitInt::new(
            &format!("0x{:x}u32", v as u32),
            proc_macro2::Span::call_site(),
        );
        quote::quote!((#lit as i32))
    }
}
