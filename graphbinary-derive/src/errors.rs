//! Error collection: every mistake in a derive input is reported at once, each with its span.
//!
//! The front end never stops at the first bad attribute. It pushes each error into an
//! [`Errors`] accumulator, which combines them into one `syn::Error` (rendered as several
//! `compile_error!`s, one per span) when the input has been walked completely.

use std::fmt::Display;

use quote::ToTokens;

/// A combining accumulator of `syn::Error`s.
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    /// An empty accumulator.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Records `err`.
    pub(crate) fn push(&mut self, err: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(err),
            None => self.combined = Some(err),
        }
    }

    /// Records an error spanning `tokens`.
    pub(crate) fn spanned<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records the error of `result`, if any, and returns its value.
    pub(crate) fn ok<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                self.push(e);
                None
            }
        }
    }

    /// `Ok(value)` when no error was recorded, else all of them.
    pub(crate) fn finish<T>(self, value: T) -> syn::Result<T> {
        match self.combined {
            None => Ok(value),
            Some(e) => Err(e),
        }
    }
}

/// The fixed message templates. Every user-facing message of the derive is built here, so
/// they stay consistent (and the compile-fail tests pin them).
pub(crate) mod msg {
    use std::fmt::Display;

    use crate::attr::{
        COMPOSITE_PDT, CRATE, ENUM_STRING, FQ, NULLABLE, RENAME, SKIP, TYPE_CODE, V1, V1_CUSTOM,
        V1_CUSTOM_INFO, V1_SENTINEL, V1_TYPE_CODE,
    };

    /// A name inside `#[graphbinary(...)]` that is not an attribute of this position.
    pub(crate) fn unknown(name: impl Display, expected: &[&str]) -> String {
        let expected = one_of(expected, |n| format!("`{n}`"));
        format!("unknown graphbinary attribute `{name}`; expected one of: {expected}")
    }

    /// The choices, each as `show` writes it, separated by commas.
    fn one_of(choices: &[&str], show: impl Fn(&str) -> String) -> String {
        choices
            .iter()
            .map(|n| show(n))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The same attribute given twice.
    pub(crate) fn duplicate(name: &str) -> String {
        format!("duplicate graphbinary attribute `{name}`")
    }

    /// `type_code = ...` with something other than an integer literal in range.
    pub(crate) fn type_code_not_u8(name: &str) -> String {
        format!("`{name}` must be an integer literal in 0..=255, e.g. `{name} = 0x11`")
    }

    /// `v1 = ...` on a field with a layout name the derive does not know.
    pub(crate) fn v1_layout_unknown(known: &[&str]) -> String {
        let known = one_of(known, |n| format!("`{V1} = \"{n}\"`"));
        format!("unknown GraphBinary 1 field layout; expected one of: {known}")
    }

    /// A field's `v1 = ...` in a type that has no GraphBinary 1 dialect.
    pub(crate) fn v1_field_without_v1() -> String {
        format!(
            "`{V1} = ...` on a field needs `#[graphbinary({V1})]`, `{V1_TYPE_CODE}` or `{V1_CUSTOM}` on the type"
        )
    }

    /// `v1 = "string"` together with a GraphBinary 4 layout attribute.
    pub(crate) fn v1_string_with_layout() -> String {
        format!(
            "`{V1} = \"string\"` is a bare String in GraphBinary 1 and takes the field type's GraphBinary 4 layout as it is: it cannot be combined with `{FQ}` or `{NULLABLE}`"
        )
    }

    /// `v1 = "sentinel"` together with a GraphBinary 4 layout attribute.
    pub(crate) fn v1_sentinel_with_layout() -> String {
        format!(
            "`{V1} = \"{V1_SENTINEL}\"` is the field type's own layout, `None` written as its sentinel: it cannot be combined with `{FQ}` or `{NULLABLE}`"
        )
    }

    /// `v1` on a composite PDT.
    pub(crate) fn v1_on_pdt() -> String {
        format!("GraphBinary 1 has no CompositePDT: `{V1}` cannot be used with `{COMPOSITE_PDT}`")
    }

    /// `v1_type_code` without `type_code`.
    pub(crate) fn v1_type_code_alone() -> String {
        format!("`{V1_TYPE_CODE}` needs `{TYPE_CODE}` (the GraphBinary 4 code) beside it")
    }

    /// `v1_custom = ...` with something other than a non-empty string literal.
    pub(crate) fn v1_custom_not_str() -> String {
        format!(
            "`{V1_CUSTOM}` must be a non-empty string literal naming the custom type, e.g. `{V1_CUSTOM} = \"janusgraph.RelationIdentifier\"`"
        )
    }

    /// `v1_custom_info = ...` with something other than an integer literal in range.
    pub(crate) fn v1_custom_info_not_int() -> String {
        format!(
            "`{V1_CUSTOM_INFO}` must be an integer literal in 0..=0xFFFF_FFFF (the Int written after the name), e.g. `{V1_CUSTOM_INFO} = 0x1001`"
        )
    }

    /// `v1_custom` without `v1_custom_info`, or the other way round.
    pub(crate) fn v1_custom_pair(given: &str, missing: &str) -> String {
        format!("`{given}` needs `{missing}` beside it: a custom type is `{{0x00}}{{name}}{{custom_type_info Int}}{{value_flag}}{{value}}`")
    }

    /// `v1_custom` with an attribute that gives the type another form.
    pub(crate) fn v1_custom_conflict(other: &str) -> String {
        format!(
            "`{V1_CUSTOM}` is a GraphBinary 1 custom type (type code 0x00) of its own: it cannot be used with `{other}`"
        )
    }

    /// `v1_custom` on an enum.
    pub(crate) fn v1_custom_not_struct() -> String {
        format!("`{V1_CUSTOM}` is only allowed on structs with named fields")
    }

    /// `v1 = "sentinel"` on a field that is not `Option<T>`.
    pub(crate) fn v1_sentinel_not_option() -> String {
        format!(
            "`{V1} = \"{V1_SENTINEL}\"` requires a field of type `Option<T>` (`None` is written as `T`'s `SentinelV1::sentinel()`)"
        )
    }

    /// `composite_pdt = ...` with something other than a non-empty string literal.
    pub(crate) fn crate_not_path() -> String {
        format!(
            "`{}` must be a string literal holding a path, e.g. `{} = \"graphbinary_client::graphbinary_core\"`",
            CRATE, CRATE
        )
    }

    pub(crate) fn pdt_name_not_str() -> String {
        format!(
            "`{}` must be a non-empty string literal, e.g. `{} = \"Point\"`",
            COMPOSITE_PDT, COMPOSITE_PDT
        )
    }

    /// `rename = ...` with something other than a string literal.
    pub(crate) fn rename_not_str() -> String {
        format!(
            "`{}` must be a string literal, e.g. `{} = \"OUT\"`",
            RENAME, RENAME
        )
    }

    /// Two attributes that exclude each other.
    pub(crate) fn conflict(a: &str, b: &str) -> String {
        format!("graphbinary attributes `{a}` and `{b}` cannot be used together")
    }

    /// `nullable` on a field whose type is not `Option<T>`.
    pub(crate) fn nullable_not_option() -> String {
        format!("`{}` requires a field of type `Option<T>`", NULLABLE)
    }

    /// A field attribute that a composite PDT does not allow.
    pub(crate) fn not_in_pdt(name: &str) -> String {
        format!(
            "`{name}` is not allowed in a `{}` struct: its field values are always fully qualified",
            COMPOSITE_PDT
        )
    }

    /// `rename` where there is no name to rename.
    pub(crate) fn skip_alone() -> String {
        format!(
            "`{}` takes no other field attribute: a skipped field is not on the wire",
            SKIP
        )
    }

    pub(crate) fn rename_misplaced() -> String {
        format!(
            "`{}` is only allowed on fields of a `{}` struct and on variants of an `{}` enum",
            RENAME, COMPOSITE_PDT, ENUM_STRING
        )
    }

    /// `enum_string` on something that is not an enum.
    pub(crate) fn enum_string_not_enum() -> String {
        format!("`{}` is only allowed on enums", ENUM_STRING)
    }

    /// `composite_pdt` on something that is not a struct.
    pub(crate) fn pdt_not_struct() -> String {
        format!(
            "`{}` is only allowed on structs with named fields",
            COMPOSITE_PDT
        )
    }

    /// An enum without `enum_string`.
    pub(crate) fn enum_needs_enum_string() -> String {
        format!(
            "GraphBinary can derive enums only as `#[graphbinary({})]` (a fully-qualified String naming the variant)",
            ENUM_STRING
        )
    }

    /// A variant with fields in an `enum_string` enum.
    pub(crate) fn variant_not_unit() -> String {
        format!(
            "variants of an `{}` enum must be unit variants",
            ENUM_STRING
        )
    }

    /// An `enum_string` enum without variants.
    pub(crate) fn no_variants() -> String {
        format!("an `{}` enum needs at least one variant", ENUM_STRING)
    }

    /// Two variants or PDT fields with the same name on the wire.
    pub(crate) fn duplicate_name(name: &str) -> String {
        format!("the name {name:?} is used twice")
    }

    /// A union.
    pub(crate) fn union() -> &'static str {
        "GraphBinary cannot be derived for unions"
    }

    /// A tuple struct.
    pub(crate) fn tuple_struct() -> &'static str {
        "GraphBinary cannot be derived for tuple structs; use named fields"
    }

    /// Attribute content that is neither `name` nor `name = value`.
    pub(crate) fn takes_no_value(name: &str) -> String {
        format!("graphbinary attribute `{name}` takes no value")
    }

    /// A marker attribute used as `name = value` or `name(...)`.
    pub(crate) fn needs_value(name: &str) -> String {
        format!("graphbinary attribute `{name}` needs a value: `{name} = ...`")
    }
}
