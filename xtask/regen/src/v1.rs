//! The `v1` target: `spec/graphbinary-v1.toml` (GraphBinary 1, TinkerPop 3.x) to
//! `graphbinary-client/src/format/graphbinary1/codes.rs` (one constant per type code, the code table, the spec
//! names, and the GraphSON 3 names the GraphBinary-1-only types are mapped onto as PDTs).
//!
//! Validated before anything is written: codes and names unique, every `value` one of the
//! forms the reader implements, every `same_as` naming a type of `spec/types.toml` whose code
//! it shares unless the table says the codes differ on purpose.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde::Deserialize;

use super::model::{Kind, Spec, SpecError, SpecErrors};

/// Path of the GraphBinary 1 spec, relative to the root.
pub const V1_SPEC: &str = "spec/graphbinary-v1.toml";
/// Where its code table is generated, relative to the root.
pub const V1_CODES_RS: &str = "graphbinary-client/src/format/graphbinary1/codes.rs";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: i64,
    #[serde(rename = "type", default)]
    types: Vec<RawType>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawType {
    code: i64,
    name: String,
    layout: String,
    value: String,
    same_as: Option<String>,
    /// The constant's name when `name` is not a CamelCase word (e.g. "Unspecified null object").
    ident: Option<String>,
    /// The GraphBinary 4 record whose Rust struct this type shares, when the layouts differ
    /// only in the fields of `overrides`.
    model: Option<String>,
    /// Field (Rust name) to GraphBinary 1 layout, for `model`: `"string"` is a bare String.
    #[serde(default)]
    overrides: BTreeMap<String, String>,
}

/// How the reader maps a type onto `Value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mapping {
    /// `Value::X`.
    Variant(String),
    /// `Value::PrimitivePdt` with this GraphSON 3 type name.
    Primitive(String),
    /// `Value::CompositePdt` with this GraphSON 3 type name.
    Composite(String),
    /// A custom type: read through a registered reader, or an error.
    Custom,
}

/// One validated entry.
#[derive(Debug, Clone)]
pub struct V1Type {
    pub code: u8,
    pub name: String,
    pub ident: String,
    pub layout: String,
    pub mapping: Mapping,
    pub same_as: Option<String>,
    /// `model` (or `same_as`) when it names a GraphBinary 4 record or token enum: the Rust type
    /// that gets the GraphBinary 1 dialect of the derive.
    pub model: Option<String>,
    /// Fields whose GraphBinary 1 layout is a bare String.
    pub string_fields: BTreeSet<String>,
}

/// The GraphBinary 1 dialect one generated Rust type carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialect {
    /// The GraphBinary 1 type code.
    pub code: u8,
    /// Fields written `#[graphbinary(v1 = "string")]`.
    pub string_fields: BTreeSet<String>,
}

/// Per Rust name of a GraphBinary 4 record or enum (`Vertex`, `DateTime`, ...), the dialect
/// its derive emits beside the GraphBinary 4 one.
pub fn dialects(types: &[V1Type], v4: &Spec) -> BTreeMap<String, Dialect> {
    let mut out = BTreeMap::new();
    for t in types {
        let Some(model) = &t.model else { continue };
        let Some(v) = v4.types.iter().find(|v| &v.name == model) else {
            continue;
        };
        out.insert(
            v.rust.clone(),
            Dialect {
                code: t.code,
                string_fields: t.string_fields.clone(),
            },
        );
    }
    out
}

/// `SCREAMING_SNAKE_CASE` of a CamelCase name, keeping acronyms whole: `VertexProperty` ->
/// `VERTEX_PROPERTY`, `UUID` -> `UUID`, `TextP` -> `TEXT_P`, `GType` -> `GTYPE`.
pub fn screaming(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// Parses and validates the GraphBinary 1 table against the GraphBinary 4 one.
pub fn parse(file: &str, text: &str, v4: &Spec) -> Result<Vec<V1Type>, SpecErrors> {
    let raw: RawFile = toml::from_str(text)
        .map_err(|e| SpecErrors(vec![SpecError::new(file, "", e.to_string())]))?;
    let mut errors = Vec::new();
    if raw.version != 1 {
        errors.push(SpecError::new(
            file,
            "version",
            format!("{} is not 1", raw.version),
        ));
    }
    let mut codes = BTreeSet::new();
    let mut names = BTreeSet::new();
    let mut out = Vec::new();
    for t in raw.types {
        let entry = format!("type {:?}", t.name);
        let Ok(code) = u8::try_from(t.code) else {
            errors.push(SpecError::new(
                file,
                &entry,
                format!("code {} is not a byte", t.code),
            ));
            continue;
        };
        if !codes.insert(code) {
            errors.push(SpecError::new(
                file,
                &entry,
                format!("code 0x{code:02x} repeated"),
            ));
        }
        if !names.insert(t.name.clone()) {
            errors.push(SpecError::new(file, &entry, "name repeated"));
        }
        let ident = match &t.ident {
            Some(i) => i.clone(),
            None if t.name.chars().all(|c| c.is_ascii_alphanumeric()) => screaming(&t.name),
            None => {
                errors.push(SpecError::new(
                    file,
                    &entry,
                    "a name that is not one CamelCase word needs `ident`",
                ));
                continue;
            }
        };
        let mapping = if t.value == "error" || t.value == "custom" {
            Mapping::Custom
        } else if let Some(v) = t.value.strip_prefix("Value::") {
            Mapping::Variant(v.to_owned())
        } else if let Some(n) = t.value.strip_prefix("pdt ") {
            Mapping::Primitive(n.to_owned())
        } else if let Some(n) = t.value.strip_prefix("composite ") {
            Mapping::Composite(n.to_owned())
        } else {
            errors.push(SpecError::new(
                file,
                &entry,
                format!(
                    "value {:?}: expected \"Value::X\", \"pdt <name>\", \"composite <name>\" or \"custom\"",
                    t.value
                ),
            ));
            continue;
        };
        if let Some(same) = &t.same_as {
            match v4.types.iter().find(|v| &v.name == same) {
                None => errors.push(SpecError::new(
                    file,
                    &entry,
                    format!("same_as {same:?} is no type of spec/types.toml"),
                )),
                // 0x88 OffsetDateTime has GraphBinary 4 DateTime's layout under another code.
                Some(v) if v.code != code && t.name != "OffsetDateTime" => {
                    errors.push(SpecError::new(
                        file,
                        &entry,
                        format!(
                            "same_as {same:?} has code 0x{:02x} in GraphBinary 4, not 0x{code:02x}",
                            v.code
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        if t.model.is_some() && t.same_as.is_some() {
            errors.push(SpecError::new(
                file,
                &entry,
                "`model` and `same_as` exclude each other",
            ));
        }
        if t.model.is_none() && !t.overrides.is_empty() {
            errors.push(SpecError::new(file, &entry, "`overrides` needs `model`"));
        }
        let mut model = None;
        if let Some(m) = &t.model {
            match v4.types.iter().find(|v| &v.name == m) {
                Some(v) if v.kind == Kind::Record => {
                    for (field, layout) in &t.overrides {
                        if !v.fields.iter().any(|f| &f.name == field) {
                            errors.push(SpecError::new(
                                file,
                                &entry,
                                format!("override {field:?}: {m} has no such field"),
                            ));
                        }
                        if layout != "string" {
                            errors.push(SpecError::new(
                                file,
                                &entry,
                                format!("override {field:?} = {layout:?}: the only GraphBinary 1 field layout is \"string\""),
                            ));
                        }
                    }
                    model = Some(m.clone());
                }
                _ => errors.push(SpecError::new(
                    file,
                    &entry,
                    format!("model {m:?} is no record of spec/types.toml"),
                )),
            }
        }
        if let Some(same) = &t.same_as {
            if v4
                .types
                .iter()
                .any(|v| &v.name == same && matches!(v.kind, Kind::Record | Kind::EnumString))
            {
                model = Some(same.clone());
            }
        }
        out.push(V1Type {
            code,
            name: t.name,
            ident,
            layout: t.layout,
            mapping,
            same_as: t.same_as,
            model,
            string_fields: t.overrides.into_keys().collect(),
        });
    }
    out.sort_by_key(|t| t.code);
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(SpecErrors(errors))
    }
}

fn hex(b: u8) -> Literal {
    format!("0x{b:02x}").parse().expect("hex literal")
}

/// `graphbinary-client/src/format/graphbinary1/codes.rs`.
pub fn emit(types: &[V1Type]) -> TokenStream {
    let consts = types.iter().map(|t| {
        let ident = format_ident!("{}", t.ident);
        let code = hex(t.code);
        let read_as = match &t.mapping {
            Mapping::Variant(v) => format!("`Value::{v}`"),
            Mapping::Primitive(n) => format!("a `PrimitivePdt` named `{n}`"),
            Mapping::Composite(n) => format!("a `CompositePdt` named `{n}`"),
            Mapping::Custom => "a registered custom reader, else an error".to_owned(),
        };
        let same = match &t.same_as {
            Some(s) => format!(" Layout of GraphBinary 4's {s}."),
            None => String::new(),
        };
        let doc = format!(
            " {} (`0x{:02x}`): `{}`; read as {read_as}.{same}",
            t.name, t.code, t.layout
        );
        quote! { #[doc = #doc] pub const #ident: u8 = #code; }
    });
    let all = types.iter().map(|t| {
        let ident = format_ident!("{}", t.ident);
        let name = &t.name;
        quote!((#ident, #name),)
    });
    let pdt_arms = types.iter().filter_map(|t| {
        let ident = format_ident!("{}", t.ident);
        match &t.mapping {
            Mapping::Primitive(n) | Mapping::Composite(n) => Some(quote!(#ident => #n,)),
            _ => None,
        }
    });
    let primitive_arms = types.iter().filter_map(|t| {
        let ident = format_ident!("{}", t.ident);
        match &t.mapping {
            Mapping::Primitive(n) => Some(quote!(#n => #ident,)),
            _ => None,
        }
    });
    let composite_arms = types.iter().filter_map(|t| {
        let ident = format_ident!("{}", t.ident);
        match &t.mapping {
            Mapping::Composite(n) => Some(quote!(#n => #ident,)),
            _ => None,
        }
    });
    quote! {
        //! GraphBinary 1 type codes, generated from `spec/graphbinary-v1.toml`.
        //!
        //! Codes collide with GraphBinary 4 (`DATE` is 0x04, GraphBinary 4's DateTime code), so
        //! these constants are separate from `graphbinary_core::codes`.

        #(#consts)*

        /// Every GraphBinary 1 type code with its spec name, in code order.
        pub const ALL: &[(u8, &str)] = &[#(#all)*];

        /// `ALL` indexed by code: the reader asks for every value it decodes.
        const NAMES: [Option<&str>; 256] = super::names_by_code(ALL);

        /// The GraphBinary 1 name of a type code, `None` for a code GraphBinary 1 does not define.
        #[inline]
        pub fn name(code: u8) -> Option<&'static str> {
            NAMES[code as usize]
        }

        /// The PDT type name a GraphBinary-1-only type is mapped onto (its GraphSON 3 type name).
        pub fn graphson_name(code: u8) -> Option<&'static str> {
            Some(match code {
                #(#pdt_arms)*
                _ => return None,
            })
        }

        /// The type code of a `PrimitivePdt` type name the reader produces (the inverse of
        /// [`graphson_name`] for the text-valued types).
        pub fn primitive_code(type_name: &str) -> Option<u8> {
            Some(match type_name {
                #(#primitive_arms)*
                _ => return None,
            })
        }

        /// The type code of a `CompositePdt` type name the reader produces (the inverse of
        /// [`graphson_name`] for the types with fields).
        pub fn composite_code(type_name: &str) -> Option<u8> {
            Some(match type_name {
                #(#composite_arms)*
                _ => return None,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_names_keep_acronyms_whole() {
        assert_eq!(screaming("VertexProperty"), "VERTEX_PROPERTY");
        assert_eq!(screaming("UUID"), "UUID");
        assert_eq!(screaming("TextP"), "TEXT_P");
        assert_eq!(screaming("GType"), "GTYPE");
        assert_eq!(screaming("TinkerGraph"), "TINKER_GRAPH");
    }

    #[test]
    fn a_bad_table_reports_every_problem() {
        let v4 = super::super::load_spec(&super::super::project_root()).unwrap();
        let text = r#"
version = 2
[[type]]
code = 0x04
name = "Date"
layout = "{Long}"
value = "bogus"
[[type]]
code = 0x04
name = "Vertex"
layout = ""
value = "Value::Vertex"
same_as = "NoSuchType"
[[type]]
code = 0xfe
name = "Unspecified null"
layout = ""
value = "Value::Null"
"#;
        let e = parse("t.toml", text, &v4).unwrap_err().to_string();
        for needle in [
            "version: 2 is not 1",
            "type \"Date\": value \"bogus\"",
            "type \"Vertex\": code 0x04 repeated",
            "same_as \"NoSuchType\" is no type",
            "needs `ident`",
        ] {
            assert!(e.contains(needle), "{needle} not in {e}");
        }
    }
}
