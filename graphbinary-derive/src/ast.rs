//! The typed model of a derive input: what every back end (fast reader, slow reader,
//! writer, fully-qualified impls) consumes.
//!
//! [`Container::from_ast`] walks the whole input, reads the attributes ([`crate::attr`]),
//! applies the rules ([`crate::check`]) and returns either a complete model or every error
//! found.

use syn::{Data, DeriveInput, Fields, Generics, Ident, Type};

use crate::attr::{ContainerAttrs, FieldAttrs, VariantAttrs};
use crate::check;
use crate::errors::Errors;

/// The type code of CompositePDT.
pub(crate) const COMPOSITE_PDT_CODE: u8 = 0xf0;

/// A type deriving `GraphBinary`.
pub(crate) struct Container<'a> {
    /// The type's name.
    pub(crate) ident: &'a Ident,
    /// Its generics, as written (bounds are added per impl).
    pub(crate) generics: &'a Generics,
    /// What `Decode::EXPECTED` says: the type's name.
    pub(crate) expected: String,
    /// The type code for `Typed` and the fully-qualified impls: the `type_code` attribute, or
    /// 0xF0 for a composite PDT.
    pub(crate) type_code: Option<u8>,
    /// The layout of the value.
    pub(crate) shape: Shape<'a>,
    /// The GraphBinary 1 dialect, when asked for (`v1` or `v1_type_code`).
    pub(crate) v1: Option<V1Dialect>,
}

/// What the GraphBinary 1 impls need beyond the shared model.
pub(crate) struct V1Dialect {
    /// The GraphBinary 1 type code: `v1_type_code`, else `type_code` (the same in both
    /// versions), else none (no fully-qualified v1 impls).
    pub(crate) type_code: Option<u8>,
    /// `v1_custom = "name", v1_custom_info = ..`: a custom type (0x00), GraphBinary 1 only.
    pub(crate) custom: Option<Custom>,
}

/// A GraphBinary 1 custom type: `{0x00}{name String}{info Int}{value_flag}{fields}`.
pub(crate) struct Custom {
    /// The type name on the wire.
    pub(crate) name: String,
    /// The custom type info Int written after the name.
    pub(crate) info: i32,
}

/// The layout of a type's bare value.
pub(crate) enum Shape<'a> {
    /// The fields in declaration order, each in its own layout.
    Struct(Vec<Field<'a>>),
    /// A fully-qualified String naming one of the variants.
    EnumString(Vec<Variant<'a>>),
    /// `{type: fq String}{fields: fq Map}`: the type name, then a Map from field names (fq
    /// Strings) to fully-qualified values.
    CompositePdt {
        /// The type name on the wire.
        name: String,
        /// The fields in declaration order (their layout is always [`Layout::Fq`]).
        fields: Vec<Field<'a>>,
    },
}

/// A named field.
pub(crate) struct Field<'a> {
    /// The Rust field name.
    pub(crate) ident: &'a Ident,
    /// The field's type.
    pub(crate) ty: &'a Type,
    /// How the field's value is laid out.
    pub(crate) layout: Layout<'a>,
    /// The field's name on the wire (composite PDT map key): `rename`, else the field name.
    pub(crate) name: String,
    /// The field's GraphBinary 1 layout, when it differs from `layout`'s.
    pub(crate) v1: V1Field<'a>,
}

/// A field's GraphBinary 1 layout (`v1 = "..."`).
pub(crate) enum V1Field<'a> {
    /// The same as in GraphBinary 4 (`layout`), through the v1 traits.
    Same,
    /// `v1 = "string"`: a bare String (through `OneString`), whatever the GraphBinary 4
    /// layout.
    String,
    /// `v1 = "sentinel"` on `Option<T>`: `T`'s layout, `None` written as its sentinel
    /// (through `SentinelV1`).
    Sentinel(&'a Type),
}

/// The layout of one field.
pub(crate) enum Layout<'a> {
    /// `{value}` through the field type's `Decode`/`Encode`.
    Bare,
    /// `{type_code}{0x00}{value}` through `FqDecode`/`FqEncode` (`core::Fq`).
    Fq,
    /// `Option<T>`: `{type_code}{0x00}{value}`, `{type_code}{0x01}` or `FE 01` (`core::FqOpt`).
    FqNullable(&'a Type),
    /// `Option<T>`: `{0x00}{value}` or `{0x01}` (`core::Nullable`).
    Nullable(&'a Type),
    /// `skip`: not on the wire; read as `Default::default()`, never written.
    Skip,
}

/// A unit variant of an `enum_string` enum.
pub(crate) struct Variant<'a> {
    /// The Rust variant name.
    pub(crate) ident: &'a Ident,
    /// The String on the wire: `rename`, else the variant name as written.
    pub(crate) name: String,
}

impl<'a> Container<'a> {
    /// Builds the model, or returns every error found in the input.
    pub(crate) fn from_ast(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::new();
        let attrs = ContainerAttrs::parse(&input.attrs, &mut errors);
        let kind = check::kind(input, &attrs, &mut errors);
        let v1 = check::v1(input, &attrs, &mut errors);

        let shape = match (&input.data, kind) {
            (Data::Struct(data), Some(check::Kind::Struct)) => {
                let fields = fields(&data.fields, false, v1, &mut errors);
                Some(Shape::Struct(fields))
            }
            (Data::Struct(data), Some(check::Kind::CompositePdt(name))) => {
                let fields = fields(&data.fields, true, v1, &mut errors);
                check::unique_names(
                    fields.iter().map(|f| (f.ident, f.name.as_str())),
                    &mut errors,
                );
                Some(Shape::CompositePdt { name, fields })
            }
            (Data::Enum(data), Some(check::Kind::EnumString)) => {
                let variants: Vec<Variant<'a>> = data
                    .variants
                    .iter()
                    .filter_map(|v| {
                        let attrs = VariantAttrs::parse(&v.attrs, &mut errors);
                        check::unit_variant(v, &mut errors)?;
                        Some(Variant {
                            ident: &v.ident,
                            name: attrs
                                .rename
                                .map(|r| r.value)
                                .unwrap_or_else(|| unraw(&v.ident)),
                        })
                    })
                    .collect();
                check::unique_names(
                    variants.iter().map(|v| (v.ident, v.name.as_str())),
                    &mut errors,
                );
                Some(Shape::EnumString(variants))
            }
            _ => {
                // The kind was rejected: still read the inner attributes, so that their
                // mistakes are reported in the same compilation.
                check_inner_attrs(&input.data, &mut errors);
                None
            }
        };

        let type_code = match &shape {
            Some(Shape::CompositePdt { .. }) => Some(COMPOSITE_PDT_CODE),
            _ => attrs.type_code.map(|c| c.value),
        };
        // Every rejection above has recorded an error, so `errors` is not empty when `shape`
        // is `None`.
        let shape = errors.finish(shape)?;
        Ok(Container {
            ident: &input.ident,
            generics: &input.generics,
            expected: unraw(&input.ident),
            type_code,
            v1: v1.then(|| V1Dialect {
                type_code: attrs.v1_type_code.as_ref().map(|c| c.value).or(type_code),
                custom: match (&attrs.v1_custom, &attrs.v1_custom_info) {
                    (Some(name), Some(info)) => Some(Custom {
                        name: name.value.clone(),
                        info: info.value,
                    }),
                    _ => None,
                },
            }),
            shape: shape.ok_or_else(|| {
                syn::Error::new_spanned(&input.ident, "GraphBinary cannot be derived for this type")
            })?,
        })
    }

    /// The fields of a struct shape (none for an enum).
    pub(crate) fn fields(&self) -> &[Field<'a>] {
        match &self.shape {
            Shape::Struct(fields) | Shape::CompositePdt { fields, .. } => fields,
            Shape::EnumString(_) => &[],
        }
    }
}

/// The model of a struct's named fields.
fn fields<'a>(
    fields: &'a Fields,
    in_pdt: bool,
    container_v1: bool,
    errors: &mut Errors,
) -> Vec<Field<'a>> {
    fields
        .iter()
        .filter_map(|f| {
            let attrs = FieldAttrs::parse(&f.attrs, errors);
            let ident = f.ident.as_ref()?;
            let layout = check::field_layout(&f.ty, &attrs, in_pdt, errors)?;
            let v1 = check::field_v1(&f.ty, &attrs, container_v1, errors)?;
            Some(Field {
                ident,
                ty: &f.ty,
                layout,
                name: attrs
                    .rename
                    .map(|r| r.value)
                    .unwrap_or_else(|| unraw(ident)),
                v1,
            })
        })
        .collect()
}

/// Parses the attributes of fields and variants of an input whose kind was rejected.
fn check_inner_attrs(data: &Data, errors: &mut Errors) {
    match data {
        Data::Struct(s) => {
            for f in &s.fields {
                FieldAttrs::parse(&f.attrs, errors);
            }
        }
        Data::Enum(e) => {
            for v in &e.variants {
                VariantAttrs::parse(&v.attrs, errors);
            }
        }
        Data::Union(u) => {
            for f in &u.fields.named {
                FieldAttrs::parse(&f.attrs, errors);
            }
        }
    }
}

/// An identifier as a name, without the `r#` of a raw identifier.
pub(crate) fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    match s.strip_prefix("r#") {
        Some(rest) => rest.to_owned(),
        None => s,
    }
}

/// `T` when `ty` is written `Option<T>` (any path ending in `Option`).
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Group(g) => option_inner(&g.elem),
        Type::Paren(p) => option_inner(&p.elem),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if last.ident != "Option" {
                return None;
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => {
                    match args.args.first()? {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}
