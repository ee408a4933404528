//! The typed model of `spec/types.toml`: raw serde shapes, then a validated [`Spec`].
//!
//! Validation collects every problem it finds (each naming the spec file and entry) so a
//! spec author sees all mistakes at once.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;

/// One problem in a spec file: which file, which entry, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// Path of the spec file relative to the repository root, e.g. `spec/types.toml`.
    pub file: String,
    /// The entry at fault, e.g. `type "Vertex" field "label"`; empty for whole-file problems.
    pub entry: String,
    /// What is wrong.
    pub message: String,
}

impl SpecError {
    pub fn new(file: &str, entry: impl Into<String>, message: impl Into<String>) -> Self {
        SpecError {
            file: file.to_owned(),
            entry: entry.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.entry.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.entry, self.message)
        }
    }
}

/// Several spec problems, reported together.
#[derive(Debug)]
pub struct SpecErrors(pub Vec<SpecError>);

/// One problem per line. The caller prefixes the first line with `error: ` (as `xtask`'s
/// `main` does for every error); the following lines carry their own prefix, so that each
/// line of the output reads `error: <file>: <entry>: <problem>`.
impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, "\nerror: ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SpecErrors {}

// ---------------------------------------------------------------------------------------------
// Raw shapes, exactly as written in TOML.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTypesFile {
    #[serde(rename = "type", default)]
    pub types: Vec<RawType>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawType {
    pub code: i64,
    pub name: String,
    pub rust: String,
    pub kind: String,
    pub doc: String,
    pub flags: Vec<i64>,
    #[serde(default)]
    pub derive: Vec<String>,
    #[serde(default)]
    pub fields: Option<Vec<RawField>>,
    #[serde(default)]
    pub values: Option<Vec<RawEnumValue>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawField {
    pub name: String,
    pub form: String,
    pub rust: String,
    pub doc: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEnumValue {
    pub name: String,
    pub rust: String,
    pub doc: String,
}

// ---------------------------------------------------------------------------------------------
// Validated model.

/// A `Copy` enum of the model's fixed words, with `ALL`: each variant beside the word that
/// names it in the TOML model (read with `named`).
macro_rules! named_enum {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $var:ident = $word:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vm])* $var,)*
        }

        impl $name {
            pub const ALL: &'static [(&'static str, $name)] = &[$(($word, $name::$var)),*];
        }
    };
}

named_enum! {
    /// What family of layout a type has; decides what regen emits for it.
    pub enum Kind {
        /// Fixed-width or length-prefixed scalar implemented in `graphbinary-core`.
        Primitive = "primitive",
        /// A struct of ordered fields: an annotated struct in `elements.rs`.
        Record = "record",
        /// A fully-qualified String naming the variant: an annotated enum in `elements.rs`.
        EnumString = "enum_string",
        /// List or Set.
        ListLike = "list_like",
        /// Map.
        Map = "map",
        /// Irregular, hand-written in the model.
        Special = "special",
    }
}

named_enum! {
    /// How a record field stands in the GraphBinary layout (maps onto the derive's attributes).
    pub enum Form {
        /// `{value}` via the field type's own Decode/Encode (no attribute).
        Bare = "bare",
        /// `{type_code}{0x00}{value}` (`#[graphbinary(fq)]`).
        Fq = "fq",
        /// `{type_code}{0x00}{value}` | `{type_code}{0x01}` | `FE 01` on `Option<T>` (`#[graphbinary(fq, nullable)]`).
        FqNullable = "fq_nullable",
        /// `{value_flag}{value}` on `Option<T>` (`#[graphbinary(nullable)]`).
        Nullable = "nullable",
        /// Not on the wire (`#[graphbinary(skip)]`): what the model keeps beside the wire form,
        /// read as `Default::default()`.
        Skip = "skip",
    }
}

/// The value `table` gives `name`, or the error naming the `what` and every known name.
fn named<T: Copy>(table: &[(&str, T)], what: &str, name: &str) -> Result<T, String> {
    match table.iter().find(|(n, _)| *n == name) {
        Some(&(_, v)) => Ok(v),
        None => {
            let known: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            Err(format!(
                "unknown {what} {name:?} (expected one of {})",
                known.join(", ")
            ))
        }
    }
}

/// One record field.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub form: Form,
    /// The Rust type as written in the spec, parsed.
    pub rust: syn::Type,
    pub doc: String,
}

/// One value of an `enum_string` type.
#[derive(Debug, Clone)]
pub struct EnumValue {
    /// The GraphBinary string, e.g. `OUT`.
    pub name: String,
    /// The Rust variant name, e.g. `Out`.
    pub rust: String,
    pub doc: String,
}

/// One GraphBinary type.
#[derive(Debug, Clone)]
pub struct TypeDef {
    pub code: u8,
    /// The name used by the GraphBinary spec, e.g. `UUID`.
    pub name: String,
    /// The Rust name: `TypeCode` variant and, for records and enums, the struct/enum name.
    pub rust: String,
    pub kind: Kind,
    pub doc: String,
    /// Value flags allowed after the type code.
    pub flags: Vec<u8>,
    /// Extra derives beyond `Debug, Clone, PartialEq, GraphBinary`.
    pub derive: Vec<String>,
    /// Record fields in layout order (records only).
    pub fields: Vec<Field>,
    /// Variants (enum_string only).
    pub values: Vec<EnumValue>,
}

/// The whole validated `spec/types.toml`, in file order.
#[derive(Debug, Clone)]
pub struct Spec {
    pub types: Vec<TypeDef>,
}

impl Spec {
    /// Types sorted by code (the order of generated enums).
    pub fn by_code(&self) -> Vec<&TypeDef> {
        let mut v: Vec<&TypeDef> = self.types.iter().collect();
        v.sort_by_key(|t| t.code);
        v
    }

    /// Look a type up by its GraphBinary or Rust name.
    pub fn find(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name == name || t.rust == name)
    }

    pub fn by_code_map(&self) -> BTreeMap<u8, &TypeDef> {
        self.types.iter().map(|t| (t.code, t)).collect()
    }
}

/// Type names a record field may use besides the generated records/enums themselves, with
/// where they come from (`None`: the prelude or a primitive).
pub const KNOWN_RUST_TYPES: &[(&str, Option<&str>)] = &[
    ("bool", None),
    ("i8", None),
    ("i16", None),
    ("i32", None),
    ("i64", None),
    ("f32", None),
    ("f64", None),
    ("char", None),
    ("str", None),
    ("String", None),
    ("Vec", None),
    ("Option", None),
    ("Arc", Some("std::sync::Arc")),
    ("Set", Some("graphbinary_core::Set")),
    ("Value", Some("crate::value::Value")),
    ("BigInteger", Some("crate::value::BigInteger")),
    ("Labels", Some("crate::value::Labels")),
    ("DateTimeKind", Some("crate::value::DateTimeKind")),
];

/// Derives a spec entry may add.
pub const KNOWN_DERIVES: &[&str] = &["Copy", "Eq", "Hash", "PartialOrd", "Ord", "Default"];

/// Whether `s` is a valid Rust identifier (and not a keyword that would need `r#`).
pub fn is_ident(s: &str) -> bool {
    syn::parse_str::<syn::Ident>(s).is_ok()
}

/// Every identifier of a path segment in `ty` (e.g. `Option<Vec<Arc<str>>>` gives
/// `Option, Vec, Arc, str`), or an error for shapes regen does not support.
pub fn type_idents(ty: &syn::Type, out: &mut BTreeSet<String>) -> Result<(), String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            if p.path.segments.len() != 1 || p.path.leading_colon.is_some() {
                return Err("use a bare type name; regen adds the `use` lines".into());
            }
            let seg = &p.path.segments[0];
            out.insert(seg.ident.to_string());
            match &seg.arguments {
                syn::PathArguments::None => Ok(()),
                syn::PathArguments::AngleBracketed(args) => {
                    for arg in &args.args {
                        match arg {
                            syn::GenericArgument::Type(t) => type_idents(t, out)?,
                            _ => return Err("only type arguments are supported".into()),
                        }
                    }
                    Ok(())
                }
                syn::PathArguments::Parenthesized(_) => {
                    Err("function types are not supported".into())
                }
            }
        }
        _ => Err("only plain (generic) type paths are supported".into()),
    }
}

/// `Some(T)` when `ty` is `Option<T>`.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// Parse and validate the text of `spec/types.toml` (`file` is used in error messages).
pub fn parse_types(file: &str, text: &str) -> Result<Spec, SpecErrors> {
    let raw: RawTypesFile = toml::from_str(text)
        .map_err(|e| SpecErrors(vec![SpecError::new(file, "", format!("invalid TOML: {e}"))]))?;
    let mut errs = Vec::new();
    let mut types = Vec::new();

    let mut codes: BTreeMap<i64, String> = BTreeMap::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut rusts: BTreeSet<String> = BTreeSet::new();
    // Names that records may refer to: the generated records and enums.
    let generated: BTreeSet<String> = raw
        .types
        .iter()
        .filter(|t| t.kind == "record" || t.kind == "enum_string")
        .map(|t| t.rust.clone())
        .collect();

    for t in &raw.types {
        let entry = format!("type {:?}", t.name);
        let mut err = |msg: String| errs.push(SpecError::new(file, entry.clone(), msg));

        let code = match u8::try_from(t.code) {
            Ok(c) => c,
            Err(_) => {
                err(format!("code {} does not fit in a byte", t.code));
                0
            }
        };
        if let Some(prev) = codes.insert(t.code, t.name.clone()) {
            err(format!(
                "duplicate code 0x{:02x} (also used by type {prev:?})",
                t.code
            ));
        }
        let kinds = ["name", "name", "rust name"];
        check_names(
            kinds,
            [&t.name, &t.rust, &t.doc],
            &mut names,
            &mut rusts,
            &mut err,
        );
        let kind = named(Kind::ALL, "kind", &t.kind).unwrap_or_else(|e| {
            err(e);
            Kind::Special
        });
        let mut flags = Vec::new();
        if t.flags.is_empty() {
            err("no value flags listed".into());
        }
        for &f in &t.flags {
            match u8::try_from(f) {
                Ok(b @ 0x00..=0x02) => {
                    if flags.contains(&b) {
                        err(format!("duplicate value flag 0x{b:02x}"));
                    }
                    flags.push(b)
                }
                _ => err(format!("value flag {f} is not one of 0x00, 0x01, 0x02")),
            }
        }
        for d in &t.derive {
            if !KNOWN_DERIVES.contains(&d.as_str()) {
                err(format!(
                    "unknown derive {d:?} (expected one of {})",
                    KNOWN_DERIVES.join(", ")
                ));
            }
        }
        if !t.derive.is_empty() && !matches!(kind, Kind::Record | Kind::EnumString) {
            err("`derive` is only meaningful for record and enum_string types".into());
        }

        // Record fields.
        let mut fields = Vec::new();
        match (&t.fields, kind) {
            (Some(_), k) if k != Kind::Record => {
                err("`fields` given for a type that is not a record".into())
            }
            (None, Kind::Record) => err("record without `fields`".into()),
            _ => {}
        }
        match (&t.values, kind) {
            (Some(_), k) if k != Kind::EnumString => {
                err("`values` given for a type that is not enum_string".into())
            }
            (None, Kind::EnumString) => err("enum_string without `values`".into()),
            (Some(v), Kind::EnumString) if v.is_empty() => err("enum_string with no values".into()),
            _ => {}
        }
        let mut field_names = BTreeSet::new();
        for f in t.fields.iter().flatten() {
            let fentry = format!("type {:?} field {:?}", t.name, f.name);
            let mut ferr = |msg: String| errs.push(SpecError::new(file, fentry.clone(), msg));
            if !is_ident(&f.name) || f.name.chars().any(|c| c.is_ascii_uppercase()) {
                ferr("field name is not a snake_case identifier".into());
            }
            if !field_names.insert(f.name.clone()) {
                ferr("duplicate field name".into());
            }
            if f.doc.trim().is_empty() {
                ferr("missing doc".into());
            }
            let form = named(Form::ALL, "form", &f.form).unwrap_or_else(|e| {
                ferr(e);
                Form::Bare
            });
            let ty = match syn::parse_str::<syn::Type>(&f.rust) {
                Ok(ty) => ty,
                Err(e) => {
                    ferr(format!("rust type {:?} does not parse: {e}", f.rust));
                    continue;
                }
            };
            let mut idents = BTreeSet::new();
            match type_idents(&ty, &mut idents) {
                Err(e) => ferr(format!("rust type {:?}: {e}", f.rust)),
                Ok(()) => {
                    for id in idents {
                        let known = KNOWN_RUST_TYPES.iter().any(|(n, _)| *n == id)
                            || generated.contains(&id);
                        if !known {
                            ferr(format!(
                                "rust type {:?} uses unknown type `{id}` (known: the record and enum_string types of this file and {})",
                                f.rust,
                                KNOWN_RUST_TYPES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                            ));
                        }
                    }
                }
            }
            if matches!(form, Form::FqNullable | Form::Nullable) && option_inner(&ty).is_none() {
                ferr(format!(
                    "form {:?} needs an `Option<T>` rust type, found {:?}",
                    f.form, f.rust
                ));
            }
            fields.push(Field {
                name: f.name.clone(),
                form,
                rust: ty,
                doc: f.doc.clone(),
            });
        }

        // Enum values.
        let mut values = Vec::new();
        let mut seen_names = BTreeSet::new();
        let mut seen_rust = BTreeSet::new();
        for v in t.values.iter().flatten() {
            let ventry = format!("type {:?} value {:?}", t.name, v.name);
            let mut verr = |msg: String| errs.push(SpecError::new(file, ventry.clone(), msg));
            let kinds = ["value name", "value", "rust variant"];
            let named = [&v.name, &v.rust, &v.doc];
            check_names(kinds, named, &mut seen_names, &mut seen_rust, &mut verr);
            values.push(EnumValue {
                name: v.name.clone(),
                rust: v.rust.clone(),
                doc: v.doc.clone(),
            });
        }

        types.push(TypeDef {
            code,
            name: t.name.clone(),
            rust: t.rust.clone(),
            kind,
            doc: t.doc.clone(),
            flags,
            derive: t.derive.clone(),
            fields,
            values,
        });
    }
    if raw.types.is_empty() {
        errs.push(SpecError::new(file, "", "no [[type]] entries"));
    }
    if errs.is_empty() {
        Ok(Spec { types })
    } else {
        Err(SpecErrors(errs))
    }
}

/// The rules a spec entry's `[name, rust name, doc]` obey: a non-empty name and an
/// UpperCamelCase Rust name, each not in `names` / `rusts` yet (and added), and a doc;
/// `[empty, duplicate, rust]` are how the messages call the name, a second one, and the Rust
/// name.
fn check_names(
    [empty, duplicate, rust_kind]: [&str; 3],
    [name, rust, doc]: [&String; 3],
    names: &mut BTreeSet<String>,
    rusts: &mut BTreeSet<String>,
    err: &mut impl FnMut(String),
) {
    if name.is_empty() {
        err(format!("empty {empty}"));
    }
    if !names.insert(name.clone()) {
        err(format!("duplicate {duplicate}"));
    }
    if !is_ident(rust) || !rust.starts_with(|c: char| c.is_ascii_uppercase()) {
        err(format!(
            "{rust_kind} {rust:?} is not an UpperCamelCase identifier"
        ));
    }
    if !rusts.insert(rust.clone()) {
        err(format!("duplicate {rust_kind} {rust:?}"));
    }
    if doc.trim().is_empty() {
        err("missing doc".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[[type]]
code = 0x01
name = "Int"
rust = "Int"
kind = "primitive"
doc = "int"
flags = [0x00, 0x01]

[[type]]
code = 0x81
name = "Duration"
rust = "Duration"
kind = "record"
doc = "d"
flags = [0x00, 0x01]
fields = [ { name = "seconds", form = "bare", rust = "i64", doc = "s" } ]
"#;

    fn errors(text: &str) -> Vec<String> {
        match parse_types("spec/types.toml", text) {
            Ok(_) => vec![],
            Err(e) => e.0.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn good_spec_parses() {
        let spec = parse_types("spec/types.toml", GOOD).unwrap();
        assert_eq!(spec.types.len(), 2);
        assert_eq!(spec.types[1].fields[0].form, Form::Bare);
    }

    #[test]
    fn duplicate_code_names_file_and_entry() {
        let text = GOOD.replace("code = 0x81", "code = 0x01");
        let errs = errors(&text);
        assert!(
            errs.iter()
                .any(|e| e.starts_with("spec/types.toml: type \"Duration\": duplicate code 0x01")),
            "{errs:?}"
        );
    }

    #[test]
    fn unknown_form_and_unknown_rust_type_are_both_reported() {
        let text = GOOD.replace(
            r#"form = "bare", rust = "i64""#,
            r#"form = "fully", rust = "Vec<Gizmo>""#,
        );
        let errs = errors(&text);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(
            errs[0].contains(r#"type "Duration" field "seconds": unknown form "fully""#),
            "{errs:?}"
        );
        assert!(errs[1].contains("unknown type `Gizmo`"), "{errs:?}");
    }

    #[test]
    fn nullable_needs_option() {
        let text = GOOD.replace(r#"form = "bare""#, r#"form = "fq_nullable""#);
        let errs = errors(&text);
        assert!(
            errs.iter().any(|e| e.contains("needs an `Option<T>`")),
            "{errs:?}"
        );
    }

    #[test]
    fn unknown_kind_and_bad_flag() {
        let text = GOOD
            .replace(r#"kind = "primitive""#, r#"kind = "scalar""#)
            .replace("[0x00, 0x01]\n\n", "[0x00, 0x07]\n\n");
        let errs = errors(&text);
        assert!(
            errs.iter().any(|e| e.contains(r#"unknown kind "scalar""#)),
            "{errs:?}"
        );
        assert!(errs.iter().any(|e| e.contains("value flag 7")), "{errs:?}");
    }

    #[test]
    fn unknown_toml_key_is_an_error() {
        let errs = errors(&GOOD.replace("doc = \"int\"", "doc = \"int\"\ncolour = 1"));
        assert!(errs[0].contains("unknown field `colour`"), "{errs:?}");
    }
}
