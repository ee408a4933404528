//! The rules: which attribute combinations and data shapes the derive accepts.
//!
//! Each rule records its error (with the span of the offending attribute, field or type) and
//! lets the walk go on, so one compilation reports every mistake.

use syn::{Data, DeriveInput, Fields, Ident, Type, Variant};

use crate::ast::{option_inner, Layout, V1Field};
use crate::attr::{
    ContainerAttrs, FieldAttrs, COMPOSITE_PDT, ENUM_STRING, FQ, NULLABLE, SKIP, TYPE_CODE,
    V1_CUSTOM, V1_CUSTOM_INFO, V1_SENTINEL, V1_TYPE_CODE,
};
use crate::errors::{msg, Errors};

/// What kind of value the container is, once its attributes agree with its data.
pub(crate) enum Kind {
    /// A struct with named fields (or a unit struct): its fields in order.
    Struct,
    /// An enum of unit variants written as a fully-qualified String.
    EnumString,
    /// A CompositePDT with this type name.
    CompositePdt(String),
}

/// Decides the container's kind, reporting every conflict between its attributes and its
/// data. `None` when it cannot be derived.
pub(crate) fn kind(
    input: &DeriveInput,
    attrs: &ContainerAttrs,
    errors: &mut Errors,
) -> Option<Kind> {
    let mut ok = true;
    if let (Some(pdt), Some(_)) = (&attrs.composite_pdt, &attrs.type_code) {
        errors.push(syn::Error::new(
            pdt.span,
            msg::conflict(COMPOSITE_PDT, TYPE_CODE),
        ));
        ok = false;
    }
    if let (Some(pdt), Some(_)) = (&attrs.composite_pdt, &attrs.enum_string) {
        errors.push(syn::Error::new(
            pdt.span,
            msg::conflict(COMPOSITE_PDT, ENUM_STRING),
        ));
        ok = false;
    }
    let kind = match &input.data {
        Data::Union(u) => {
            errors.spanned(u.union_token, msg::union());
            return None;
        }
        Data::Struct(s) => {
            if let Some(span) = attrs.enum_string {
                errors.push(syn::Error::new(span, msg::enum_string_not_enum()));
                ok = false;
            }
            if let Fields::Unnamed(fields) = &s.fields {
                errors.spanned(fields, msg::tuple_struct());
                ok = false;
            }
            match &attrs.composite_pdt {
                Some(pdt) => {
                    if matches!(s.fields, Fields::Unit) {
                        errors.push(syn::Error::new(pdt.span, msg::pdt_not_struct()));
                        ok = false;
                    }
                    Kind::CompositePdt(pdt.value.clone())
                }
                None => Kind::Struct,
            }
        }
        Data::Enum(e) => {
            if let Some(pdt) = &attrs.composite_pdt {
                errors.push(syn::Error::new(pdt.span, msg::pdt_not_struct()));
                ok = false;
            }
            if attrs.enum_string.is_none() {
                errors.spanned(&input.ident, msg::enum_needs_enum_string());
                ok = false;
            } else if e.variants.is_empty() {
                errors.spanned(&input.ident, msg::no_variants());
                ok = false;
            }
            Kind::EnumString
        }
    };
    ok.then_some(kind)
}

/// The layout of a field from its attributes and type. `None` (with errors recorded) when
/// they do not fit.
pub(crate) fn field_layout<'a>(
    ty: &'a Type,
    attrs: &FieldAttrs,
    in_pdt: bool,
    errors: &mut Errors,
) -> Option<Layout<'a>> {
    if let Some(span) = attrs.skip {
        // Not on the wire: no layout, no name, no GraphBinary 1 form (the readers put
        // `Default::default()` in it). Not in a composite PDT, whose fields are its map.
        let others = attrs.fq.is_some()
            || attrs.nullable.is_some()
            || attrs.rename.is_some()
            || attrs.v1.is_some();
        if others {
            errors.push(syn::Error::new(span, msg::skip_alone()));
            return None;
        }
        if in_pdt {
            errors.push(syn::Error::new(span, msg::not_in_pdt(SKIP)));
            return None;
        }
        return Some(Layout::Skip);
    }
    if in_pdt {
        let mut ok = true;
        if let Some(span) = attrs.fq {
            errors.push(syn::Error::new(span, msg::not_in_pdt(FQ)));
            ok = false;
        }
        if let Some(span) = attrs.nullable {
            errors.push(syn::Error::new(span, msg::not_in_pdt(NULLABLE)));
            ok = false;
        }
        return ok.then_some(Layout::Fq);
    }
    if let Some(rename) = &attrs.rename {
        errors.push(syn::Error::new(rename.span, msg::rename_misplaced()));
    }
    match (attrs.fq, attrs.nullable) {
        (None, None) => Some(Layout::Bare),
        (Some(_), None) => Some(Layout::Fq),
        (fq, Some(_)) => match option_inner(ty) {
            Some(inner) if fq.is_some() => Some(Layout::FqNullable(inner)),
            Some(inner) => Some(Layout::Nullable(inner)),
            None => {
                errors.spanned(ty, msg::nullable_not_option());
                None
            }
        },
    }
}

/// A variant of an `enum_string` enum must be a unit variant.
pub(crate) fn unit_variant(v: &Variant, errors: &mut Errors) -> Option<()> {
    if matches!(v.fields, Fields::Unit) {
        Some(())
    } else {
        errors.spanned(&v.fields, msg::variant_not_unit());
        None
    }
}

/// Wire names (variant Strings, PDT map keys) must be distinct.
pub(crate) fn unique_names<'a>(
    names: impl Iterator<Item = (&'a Ident, &'a str)>,
    errors: &mut Errors,
) {
    let mut seen: Vec<&str> = Vec::new();
    for (ident, name) in names {
        if seen.contains(&name) {
            errors.spanned(ident, msg::duplicate_name(name));
        } else {
            seen.push(name);
        }
    }
}

/// Whether the container asks for the GraphBinary 1 dialect, reporting the combinations that
/// cannot have one.
pub(crate) fn v1(input: &DeriveInput, attrs: &ContainerAttrs, errors: &mut Errors) -> bool {
    let wanted = attrs.v1.is_some() || attrs.v1_type_code.is_some() || attrs.wants_custom;
    if let (Some(code), None) = (&attrs.v1_type_code, &attrs.type_code) {
        errors.push(syn::Error::new(code.span, msg::v1_type_code_alone()));
    }
    if let (true, Some(pdt)) = (wanted, &attrs.composite_pdt) {
        errors.push(syn::Error::new(pdt.span, msg::v1_on_pdt()));
    }
    match (&attrs.v1_custom, &attrs.v1_custom_info) {
        (Some(custom), None) => errors.push(syn::Error::new(
            custom.span,
            msg::v1_custom_pair(V1_CUSTOM, V1_CUSTOM_INFO),
        )),
        (None, Some(info)) => errors.push(syn::Error::new(
            info.span,
            msg::v1_custom_pair(V1_CUSTOM_INFO, V1_CUSTOM),
        )),
        _ => {}
    }
    if let Some(custom) = &attrs.v1_custom {
        if attrs.type_code.is_some() {
            errors.push(syn::Error::new(
                custom.span,
                msg::v1_custom_conflict(TYPE_CODE),
            ));
        }
        if attrs.v1_type_code.is_some() {
            errors.push(syn::Error::new(
                custom.span,
                msg::v1_custom_conflict(V1_TYPE_CODE),
            ));
        }
        if attrs.enum_string.is_some() || matches!(input.data, Data::Enum(_)) {
            errors.push(syn::Error::new(custom.span, msg::v1_custom_not_struct()));
        }
    }
    wanted
}

/// A field's `v1 = "..."`: only in a container with the GraphBinary 1 dialect, and not with
/// a GraphBinary 4 layout attribute; `v1 = "sentinel"` only on `Option<T>`. `None` (with the
/// error recorded) when the field cannot have it.
pub(crate) fn field_v1<'a>(
    ty: &'a Type,
    attrs: &FieldAttrs,
    container_v1: bool,
    errors: &mut Errors,
) -> Option<V1Field<'a>> {
    let Some(v1) = &attrs.v1 else {
        return Some(V1Field::Same);
    };
    if !container_v1 {
        errors.push(syn::Error::new(v1.span, msg::v1_field_without_v1()));
    }
    let with_layout = attrs.fq.is_some() || attrs.nullable.is_some();
    if v1.value == V1_SENTINEL {
        if with_layout {
            errors.push(syn::Error::new(v1.span, msg::v1_sentinel_with_layout()));
        }
        match option_inner(ty) {
            Some(inner) => Some(V1Field::Sentinel(inner)),
            None => {
                errors.spanned(ty, msg::v1_sentinel_not_option());
                None
            }
        }
    } else {
        if with_layout {
            errors.push(syn::Error::new(v1.span, msg::v1_string_with_layout()));
        }
        Some(V1Field::String)
    }
}
