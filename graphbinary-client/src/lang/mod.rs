//! gremlin-lang, the language of TinkerPop 4 scripts, as values: typed literals ([`Lit`]) and
//! the tokens (`T.id`, `Order.desc`, ...), and how both are written as text.
//!
//! It sits below the client and the traversal API, which both write it: the client writes a
//! request's parameters as gremlin-lang literals (TinkerPop 4), the traversal API writes whole
//! traversals. Its public items are re-exported by [`process`](crate::process).

// Without the client (feature `http`), only `de::to_value`'s literal conversion uses it.
#![cfg_attr(
    not(feature = "http"),
    allow(dead_code, unused_imports, unreachable_pub)
)]

mod lit;
mod lit_parse;
#[rustfmt::skip]
pub(crate) mod tokens;
mod version;

pub(crate) use lit::{write_groovy_string, write_string, MAX_DEPTH};
pub use lit::{IntoLit, Lit};
pub use version::ServerVersion;

// The impls of the generated `Token` that do not depend on the spec.
impl tokens::Token {
    /// Appends `Class.value`.
    pub(crate) fn write(&self, out: &mut String) {
        out.push_str(self.class_name());
        out.push('.');
        out.push_str(self.value_name());
    }
}

impl std::fmt::Display for tokens::Token {
    /// `Class.value`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.class_name())?;
        f.write_str(".")?;
        f.write_str(self.value_name())
    }
}
