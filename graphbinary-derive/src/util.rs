//! Small helpers shared by the back ends.

/// A byte as a hexadecimal literal (`0x0a`), for readable generated code.
pub(crate) fn hex_u8(v: u8) -> syn::LitInt {
    syn::LitInt::new(&format!("0x{v:02x}"), proc_macro2::Span::call_site())
}
