//! Parsing of `#[graphbinary(...)]` attributes into raw, per-position attribute sets.
//!
//! This module only reads what was written (each name at most once, values of the right
//! literal kind) and remembers where. Which combinations make sense is decided in
//! [`crate::check`].

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, Expr, ExprLit, Lit, Token};

use crate::errors::{msg, Errors};

/// The attribute path: `#[graphbinary(...)]`.
pub(crate) const GRAPHBINARY: &str = "graphbinary";
/// Container: `type_code = <0..=255>`; also implements `Typed` and the fully-qualified form.
pub(crate) const TYPE_CODE: &str = "type_code";
/// Container (enums): the value is a fully-qualified String naming the variant.
pub(crate) const ENUM_STRING: &str = "enum_string";
/// Container (structs): a CompositePDT (0xF0) with this type name.
pub(crate) const COMPOSITE_PDT: &str = "composite_pdt";
/// Container: `crate = "path"`, the path of `graphbinary-core` in the generated code (default
/// `::graphbinary_core`), for a crate that reaches it through a re-export.
pub(crate) const CRATE: &str = "crate";
/// Container: also emit the GraphBinary 1 dialect (`DecodeV1`, `EncodeV1`, and with a type
/// code `TypedV1`, `FqDecodeV1`, `FqEncodeV1`); on a field, `v1 = "string"`: a bare String in
/// GraphBinary 1 (`OneString`).
pub(crate) const V1: &str = "v1";
/// Container: the GraphBinary 1 type code, when it differs from `type_code` (implies `v1`).
pub(crate) const V1_TYPE_CODE: &str = "v1_type_code";
/// Container (structs): a GraphBinary 1 custom type (type code 0x00) with this name, in
/// JanusGraph's layout `{0x00}{name}{custom_type_info Int}{value_flag}{fields}` (implies `v1`;
/// no GraphBinary 4 impls, GraphBinary 4 has no custom types).
pub(crate) const V1_CUSTOM: &str = "v1_custom";
/// Container: the custom type info Int written after a `v1_custom` type's name.
pub(crate) const V1_CUSTOM_INFO: &str = "v1_custom_info";
/// The GraphBinary 1 field layouts `v1 = "..."` accepts: `string` (a bare String, through
/// `OneString`) and `sentinel` (an `Option<T>` whose `None` is `T`'s sentinel value, through
/// `SentinelV1`).
pub(crate) const V1_FIELD_LAYOUTS: &[&str] = &[V1_STRING, V1_SENTINEL];
/// `v1 = "string"`.
pub(crate) const V1_STRING: &str = "string";
/// `v1 = "sentinel"`.
pub(crate) const V1_SENTINEL: &str = "sentinel";
/// Field: fully-qualified `{type_code}{0x00}{value}`.
pub(crate) const FQ: &str = "fq";
/// Field (on `Option<T>`): nullable, bare `{value_flag}{value}` or with `fq` the
/// fully-qualified nullable form.
pub(crate) const NULLABLE: &str = "nullable";
/// Variant of an `enum_string` enum, or field of a `composite_pdt` struct: the name on the
/// wire.
pub(crate) const RENAME: &str = "rename";
/// Field: not on the wire; read as `Default::default()`, never written.
pub(crate) const SKIP: &str = "skip";

/// The attributes allowed on the type itself.
pub(crate) const CONTAINER_ATTRS: &[&str] = &[
    TYPE_CODE,
    ENUM_STRING,
    COMPOSITE_PDT,
    CRATE,
    V1,
    V1_TYPE_CODE,
    V1_CUSTOM,
    V1_CUSTOM_INFO,
];
/// The attributes allowed on a field.
pub(crate) const FIELD_ATTRS: &[&str] = &[FQ, NULLABLE, RENAME, V1, SKIP];
/// The attributes allowed on an enum variant.
pub(crate) const VARIANT_ATTRS: &[&str] = &[RENAME];

/// A value and the span of the attribute name that set it.
#[derive(Clone)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// Attributes on the deriving type.
#[derive(Default)]
pub(crate) struct ContainerAttrs {
    pub(crate) type_code: Option<Spanned<u8>>,
    pub(crate) enum_string: Option<Span>,
    pub(crate) composite_pdt: Option<Spanned<String>>,
    pub(crate) krate: Option<Spanned<syn::Path>>,
    pub(crate) v1: Option<Span>,
    pub(crate) v1_type_code: Option<Spanned<u8>>,
    pub(crate) v1_custom: Option<Spanned<String>>,
    /// The custom type info, as the Int's bits.
    pub(crate) v1_custom_info: Option<Spanned<i32>>,
    /// A `v1_custom` or `v1_custom_info` was written, even if its value was bad: the
    /// placeholder impls then include `CustomV1`.
    pub(crate) wants_custom: bool,
    /// A `type_code` or `composite_pdt` was written, even if its value was bad: the
    /// placeholder impls then include the fully-qualified traits too.
    pub(crate) wants_typed: bool,
}

/// Attributes on a field.
#[derive(Default)]
pub(crate) struct FieldAttrs {
    pub(crate) fq: Option<Span>,
    pub(crate) nullable: Option<Span>,
    pub(crate) rename: Option<Spanned<String>>,
    /// `v1 = "string"` or `v1 = "sentinel"`.
    pub(crate) v1: Option<Spanned<String>>,
    /// `skip`: the field is not on the wire.
    pub(crate) skip: Option<Span>,
}

/// Attributes on an enum variant.
#[derive(Default)]
pub(crate) struct VariantAttrs {
    pub(crate) rename: Option<Spanned<String>>,
}

impl ContainerAttrs {
    /// Reads the container attributes, recording every mistake in `errors`.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = ContainerAttrs::default();
        each(attrs, CONTAINER_ATTRS, errors, |name, meta, errors| {
            let span = meta.path.span();
            match name {
                TYPE_CODE => {
                    out.wants_typed = true;
                    let code = value_with(&meta, name, errors, |e, errs| type_code(name, e, errs))?;
                    out.type_code = code.map(|value| Spanned { value, span });
                }
                V1 => {
                    flag(&meta, name, errors)?;
                    out.v1 = Some(span);
                }
                V1_TYPE_CODE => {
                    let code = value_with(&meta, name, errors, |e, errs| type_code(name, e, errs))?;
                    out.v1_type_code = code.map(|value| Spanned { value, span });
                }
                V1_CUSTOM => {
                    out.wants_custom = true;
                    let v = value_with(&meta, name, errors, |expr, errors| match expr {
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        }) if !s.value().is_empty() => Some(s.value()),
                        _ => {
                            errors.spanned(expr, msg::v1_custom_not_str());
                            None
                        }
                    })?;
                    out.v1_custom = v.map(|value| Spanned { value, span });
                }
                V1_CUSTOM_INFO => {
                    out.wants_custom = true;
                    let v = value_with(&meta, name, errors, custom_info)?;
                    out.v1_custom_info = v.map(|value| Spanned { value, span });
                }
                ENUM_STRING => {
                    flag(&meta, name, errors)?;
                    out.enum_string = Some(span);
                }
                COMPOSITE_PDT => {
                    out.wants_typed = true;
                    let pdt = value_with(&meta, name, errors, |expr, errors| match expr {
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        }) if !s.value().is_empty() => Some(s.value()),
                        _ => {
                            errors.spanned(expr, msg::pdt_name_not_str());
                            None
                        }
                    })?;
                    out.composite_pdt = pdt.map(|value| Spanned { value, span });
                }
                CRATE => {
                    let path = value_with(&meta, name, errors, |expr, errors| match expr {
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        }) => match s.parse::<syn::Path>() {
                            Ok(path) => Some(path),
                            Err(_) => {
                                errors.spanned(expr, msg::crate_not_path());
                                None
                            }
                        },
                        _ => {
                            errors.spanned(expr, msg::crate_not_path());
                            None
                        }
                    })?;
                    out.krate = path.map(|value| Spanned { value, span });
                }
                _ => unreachable!("`each` passes only known names"),
            }
            Ok(())
        });
        out
    }
}

impl FieldAttrs {
    /// Reads a field's attributes, recording every mistake in `errors`.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = FieldAttrs::default();
        each(attrs, FIELD_ATTRS, errors, |name, meta, errors| {
            let span = meta.path.span();
            match name {
                FQ => {
                    flag(&meta, name, errors)?;
                    out.fq = Some(span);
                }
                NULLABLE => {
                    flag(&meta, name, errors)?;
                    out.nullable = Some(span);
                }
                SKIP => {
                    flag(&meta, name, errors)?;
                    out.skip = Some(span);
                }
                RENAME => {
                    let v = rename(&meta, errors)?;
                    out.rename = v.map(|value| Spanned { value, span });
                }
                V1 => {
                    let v = value_with(&meta, name, errors, |expr, errors| match expr {
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        }) if V1_FIELD_LAYOUTS.contains(&s.value().as_str()) => Some(s.value()),
                        _ => {
                            errors.spanned(expr, msg::v1_layout_unknown(V1_FIELD_LAYOUTS));
                            None
                        }
                    })?;
                    out.v1 = v.map(|value| Spanned { value, span });
                }
                _ => unreachable!("`each` passes only known names"),
            }
            Ok(())
        });
        out
    }
}

/// A type code: an integer literal in `0..=255`.
fn type_code(name: &str, expr: &Expr, errors: &mut Errors) -> Option<u8> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) if matches!(int.suffix(), "" | "u8") => match int.base10_parse::<u8>() {
            Ok(v) => Some(v),
            Err(_) => {
                errors.spanned(expr, msg::type_code_not_u8(name));
                None
            }
        },
        _ => {
            errors.spanned(expr, msg::type_code_not_u8(name));
            None
        }
    }
}

/// A custom type info: an integer literal in `0..=0xFFFF_FFFF`, the Int's bits.
fn custom_info(expr: &Expr, errors: &mut Errors) -> Option<i32> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) if matches!(int.suffix(), "" | "i32" | "u32") => match int.base10_parse::<u32>() {
            Ok(v) => Some(v as i32),
            Err(_) => {
                errors.spanned(expr, msg::v1_custom_info_not_int());
                None
            }
        },
        _ => {
            errors.spanned(expr, msg::v1_custom_info_not_int());
            None
        }
    }
}

impl VariantAttrs {
    /// Reads a variant's attributes, recording every mistake in `errors`.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = VariantAttrs::default();
        each(attrs, VARIANT_ATTRS, errors, |_name, meta, errors| {
            let span = meta.path.span();
            let v = rename(&meta, errors)?;
            out.rename = v.map(|value| Spanned { value, span });
            Ok(())
        });
        out
    }
}

/// Calls `f` for every name inside every `#[graphbinary(...)]` in `attrs` that is one of
/// `known`, once per name; reports (and skips) unknown names and repeated ones.
fn each(
    attrs: &[Attribute],
    known: &[&'static str],
    errors: &mut Errors,
    mut f: impl FnMut(&'static str, ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) {
    let mut seen: Vec<&'static str> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident(GRAPHBINARY)) {
        let result = attr.parse_nested_meta(|meta| {
            let written = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_else(|| path_to_string(&meta.path));
            match known.iter().find(|k| **k == written) {
                Some(name) if seen.contains(name) => {
                    errors.spanned(&meta.path, msg::duplicate(name));
                    skip_value(&meta)
                }
                Some(name) => {
                    seen.push(name);
                    f(name, meta, errors)
                }
                None => {
                    errors.spanned(&meta.path, msg::unknown(&written, known));
                    skip_value(&meta)
                }
            }
        });
        errors.ok(result);
    }
}

fn path_to_string(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Consumes `= <expr>` or `(...)` after an attribute name, if present.
pub(crate) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

/// A marker attribute (no value): reports and skips a value if one was written.
fn flag(meta: &ParseNestedMeta<'_>, name: &str, errors: &mut Errors) -> syn::Result<()> {
    reject_value(meta, errors, || msg::takes_no_value(name))
}

/// For an attribute that takes no value (of this derive or of `#[derive(Vertex)]` /
/// `#[derive(Edge)]`): a value written after it is reported with `message` and skipped.
pub(crate) fn reject_value(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    message: impl FnOnce() -> String,
) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        errors.spanned(&meta.path, message());
        skip_value(meta)?;
    }
    Ok(())
}

/// A `name = <expr>` attribute: parses the expression and hands it to `check`.
fn value_with<T>(
    meta: &ParseNestedMeta<'_>,
    name: &str,
    errors: &mut Errors,
    check: impl FnOnce(&Expr, &mut Errors) -> Option<T>,
) -> syn::Result<Option<T>> {
    if !meta.input.peek(Token![=]) {
        errors.spanned(&meta.path, msg::needs_value(name));
        skip_value(meta)?;
        return Ok(None);
    }
    let expr: Expr = meta.value()?.parse()?;
    Ok(check(&expr, errors))
}

/// `rename = "..."`.
fn rename(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Option<String>> {
    value_with(meta, RENAME, errors, |expr, errors| match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.value()),
        _ => {
            errors.spanned(expr, msg::rename_not_str());
            None
        }
    })
}
