//! Unit tests on `proc_macro2`: expansion snapshots (formatted with prettyplease, checked
//! with insta; one per attribute and data shape) and the error collection.
//!
//! To accept changed snapshots: `INSTA_UPDATE=always cargo test -p graphbinary-derive --lib`
//! (or `cargo insta review`), then review the diff of `src/snapshots/`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// The input and the derive's output for it, both formatted.
fn expand(input: TokenStream) -> String {
    expand_with(input, crate::expand::derive)
}

/// `input` and what `derive` writes for it, both formatted.
fn expand_with(input: TokenStream, derive: impl FnOnce(&DeriveInput) -> TokenStream) -> String {
    let input: DeriveInput = syn::parse2(input).expect("test input parses");
    let output = derive(&input);
    let output: syn::File = syn::parse2(output).expect("derive output parses as items");
    let input: syn::File = syn::parse_quote!(#input);
    format!(
        "// input\n{}\n// expansion\n{}",
        prettyplease::unparse(&input),
        prettyplease::unparse(&output)
    )
}

/// Checks the expansion of `input` against `src/snapshots/<crate>__tests__<name>.snap`.
fn snapshot(name: &str, input: TokenStream) {
    let mut settings = insta::Settings::clone_current();
    settings.set_omit_expression(true);
    settings.set_prepend_module_to_snapshot(true);
    settings.bind(|| insta::assert_snapshot!(name, expand(input)));
}

/// The messages of every error the derive reports for `input`, in order.
fn errors(input: TokenStream) -> Vec<String> {
    let input: DeriveInput = syn::parse2(input).expect("test input parses");
    match crate::expand::expand(&input) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn snapshot_plain_struct() {
    snapshot(
        "plain_struct",
        quote! {
            struct Duration {
                seconds: i64,
                nanos: i32,
            }
        },
    );
}

#[test]
fn snapshot_every_field_kind() {
    snapshot(
        "every_field_kind",
        quote! {
            struct Vertex {
                id: Value,
                label: Vec<Arc<str>>,
                #[graphbinary(fq)]
                objects: Vec<Value>,
                #[graphbinary(fq, nullable)]
                properties: Option<Vec<VertexProperty>>,
                #[graphbinary(nullable)]
                message: Option<String>,
            }
        },
    );
}

#[test]
fn snapshot_type_code() {
    snapshot(
        "type_code",
        quote! {
            #[graphbinary(type_code = 0x0f)]
            pub struct Property {
                pub key: Arc<str>,
                pub value: Value,
                pub parent: Value,
            }
        },
    );
}

#[test]
fn snapshot_generic_struct() {
    snapshot(
        "generic_struct",
        quote! {
            struct Pair<A, B: Clone> where A: Default {
                first: A,
                #[graphbinary(fq)]
                second: B,
            }
        },
    );
}

#[test]
fn snapshot_enum_string() {
    snapshot(
        "enum_string",
        quote! {
            #[graphbinary(type_code = 0x18, enum_string)]
            pub enum Direction {
                #[graphbinary(rename = "OUT")]
                Out,
                #[graphbinary(rename = "IN")]
                In,
                Both,
            }
        },
    );
}

#[test]
fn snapshot_composite_pdt() {
    snapshot(
        "composite_pdt",
        quote! {
            #[graphbinary(composite_pdt = "Point")]
            pub struct Point {
                pub x: i32,
                #[graphbinary(rename = "y")]
                pub why: i32,
            }
        },
    );
}

#[test]
fn snapshot_errors_with_placeholders() {
    snapshot(
        "errors_with_placeholders",
        quote! {
            #[graphbinary(type_code = 0x11, colour = "red")]
            struct Vertex {
                #[graphbinary(nullable)]
                id: i32,
            }
        },
    );
}

#[test]
fn every_error_is_reported() {
    assert_eq!(
        errors(quote! {
            #[graphbinary(type_code = 256, frobnicate, type_code = 1)]
            struct S {
                #[graphbinary(nullable)]
                a: i32,
                #[graphbinary(fq, fq, rename = "b")]
                b: i32,
                #[graphbinary(nullable = true)]
                c: Option<i32>,
            }
        }),
        [
            "`type_code` must be an integer literal in 0..=255, e.g. `type_code = 0x11`",
            "unknown graphbinary attribute `frobnicate`; expected one of: `type_code`, `enum_string`, `composite_pdt`, `crate`, `v1`, `v1_type_code`, `v1_custom`, `v1_custom_info`",
            "duplicate graphbinary attribute `type_code`",
            "`nullable` requires a field of type `Option<T>`",
            "duplicate graphbinary attribute `fq`",
            "`rename` is only allowed on fields of a `composite_pdt` struct and on variants of an `enum_string` enum",
            "graphbinary attribute `nullable` takes no value",
        ]
    );
}

#[test]
fn shape_errors() {
    assert_eq!(
        errors(quote! {
            #[graphbinary(enum_string)]
            enum E { A, B(i32), #[graphbinary(rename = "A")] C }
        }),
        [
            "variants of an `enum_string` enum must be unit variants",
            "the name \"A\" is used twice",
        ]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(composite_pdt = "P")]
            struct P { a: i32, #[graphbinary(rename = "a")] b: i32, #[graphbinary(fq)] c: i32 }
        }),
        [
            "`fq` is not allowed in a `composite_pdt` struct: its field values are always fully qualified",
            "the name \"a\" is used twice",
        ]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(composite_pdt = "")]
            struct P { a: i32 }
        }),
        ["`composite_pdt` must be a non-empty string literal, e.g. `composite_pdt = \"Point\"`"]
    );
    assert_eq!(
        errors(quote!(
            struct T(i32);
        )),
        ["GraphBinary cannot be derived for tuple structs; use named fields"]
    );
}

#[test]
fn type_code_literals() {
    for ok in [
        quote!(0),
        quote!(255),
        quote!(0xff),
        quote!(0b1),
        quote!(7u8),
    ] {
        let input: DeriveInput = syn::parse2(quote!(
            #[graphbinary(type_code = #ok)]
            struct S {}
        ))
        .unwrap();
        assert!(crate::expand::expand(&input).is_ok(), "{ok}");
    }
    for bad in [
        quote!(256),
        quote!(-1),
        quote!("17"),
        quote!(1i32),
        quote!(X),
        quote!(1.0),
    ] {
        assert_eq!(
            errors(quote!(
                #[graphbinary(type_code = #bad)]
                struct S {}
            )),
            ["`type_code` must be an integer literal in 0..=255, e.g. `type_code = 0x11`"],
            "{bad}"
        );
    }
}

#[test]
fn the_crate_attribute_names_the_core_crate_once() {
    let input: DeriveInput = syn::parse_quote! {
        #[graphbinary(type_code = 0x81, crate = "graphbinary_client::graphbinary_core")]
        struct Duration {
            seconds: i64,
        }
    };
    let output = crate::expand::derive(&input).to_string();
    assert!(
        output.contains("use graphbinary_client :: graphbinary_core as __graphbinary ;"),
        "{output}"
    );
    assert!(!output.contains(":: graphbinary_core ::"), "{output}");
    assert!(!output.contains("use :: graphbinary_core"), "{output}");
}

#[test]
fn snapshot_v1_dialect() {
    // The element shape: a label that is a List in GraphBinary 4 and one String in
    // GraphBinary 1, a bare field, an fq field and an fq nullable one.
    snapshot(
        "v1_dialect",
        quote! {
            #[graphbinary(type_code = 0x11, v1)]
            pub struct Vertex {
                pub id: Value,
                #[graphbinary(v1 = "string")]
                pub label: Labels,
                #[graphbinary(fq)]
                pub objects: Vec<Value>,
                #[graphbinary(fq, nullable)]
                pub properties: Option<Vec<VertexProperty>>,
            }
        },
    );
}

#[test]
fn snapshot_skipped_field() {
    // A field not on the wire, in both dialects: defaulted by the readers, not written.
    snapshot(
        "skipped_field",
        quote! {
            #[graphbinary(type_code = 0x04, v1_type_code = 0x88)]
            pub struct Stamp {
                pub seconds: i64,
                #[graphbinary(skip)]
                pub kind: Kind,
            }
        },
    );
}

#[test]
fn skip_errors() {
    assert_eq!(
        errors(quote! {
            struct S {
                #[graphbinary(skip, fq)]
                a: i32,
            }
        }),
        ["`skip` takes no other field attribute: a skipped field is not on the wire"]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(composite_pdt = "P")]
            struct P {
                #[graphbinary(skip)]
                a: i32,
            }
        }),
        ["`skip` is not allowed in a `composite_pdt` struct: its field values are always fully qualified"]
    );
}

#[test]
fn snapshot_v1_enum_string_with_its_own_code() {
    snapshot(
        "v1_enum_string",
        quote! {
            #[graphbinary(type_code = 0x18, v1_type_code = 0x19, enum_string)]
            pub enum Direction {
                #[graphbinary(rename = "OUT")]
                Out,
                In,
            }
        },
    );
}

/// The GraphBinary 4 impls of a type are the same tokens with or without `v1`: the v1
/// dialect only adds impls, so it cannot slow the GraphBinary 4 hot path.
/// Asserts that the expansion `out` implements the GraphBinary 1 traits (with `marker`:
/// `TypedV1` or `CustomV1`) and not the GraphBinary 4 `Decode`.
fn assert_v1_only(out: &str, marker: &str) {
    let marker = format!("v1 :: {marker}");
    for tr in [
        "v1 :: DecodeV1",
        "v1 :: EncodeV1",
        marker.as_str(),
        "v1 :: FqDecodeV1",
        "v1 :: FqEncodeV1",
    ] {
        assert!(out.contains(tr), "{tr} missing from {out}");
    }
    assert!(!out.contains("__graphbinary :: Decode for"), "{out}");
}

#[test]
fn the_v1_dialect_leaves_the_v4_impls_unchanged() {
    let v4: DeriveInput = syn::parse_quote! {
        #[graphbinary(type_code = 0x0f)]
        pub struct Property { pub key: Arc<str>, pub value: Value, pub parent: Value }
    };
    let both: DeriveInput = syn::parse_quote! {
        #[graphbinary(type_code = 0x0f, v1)]
        pub struct Property { pub key: Arc<str>, pub value: Value, pub parent: Value }
    };
    let v4 = crate::expand::expand(&v4).unwrap().to_string();
    let both = crate::expand::expand(&both).unwrap().to_string();
    assert!(
        both.starts_with(&v4),
        "the v4 impls come first and unchanged"
    );
    let extra = &both[v4.len()..];
    assert_v1_only(extra, "TypedV1");
}

#[test]
fn v1_errors() {
    assert_eq!(
        errors(quote! {
            #[graphbinary(type_code = 0x11)]
            struct V {
                #[graphbinary(v1 = "string")]
                label: Labels,
            }
        }),
        ["`v1 = ...` on a field needs `#[graphbinary(v1)]`, `v1_type_code` or `v1_custom` on the type"]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(v1)]
            struct V {
                #[graphbinary(v1 = "list")]
                label: Labels,
                #[graphbinary(fq, v1 = "string")]
                other: Labels,
            }
        }),
        [
            "unknown GraphBinary 1 field layout; expected one of: `v1 = \"string\"`, `v1 = \"sentinel\"`",
            "`v1 = \"string\"` is a bare String in GraphBinary 1 and takes the field type's GraphBinary 4 layout as it is: it cannot be combined with `fq` or `nullable`",
        ]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(composite_pdt = "P", v1)]
            struct P { a: i32 }
        }),
        ["GraphBinary 1 has no CompositePDT: `v1` cannot be used with `composite_pdt`"]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(v1_type_code = 300)]
            struct P { a: i32 }
        }),
        ["`v1_type_code` must be an integer literal in 0..=255, e.g. `v1_type_code = 0x11`"]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(v1_type_code = 0x04)]
            struct P { a: i32 }
        }),
        ["`v1_type_code` needs `type_code` (the GraphBinary 4 code) beside it"]
    );
}

#[test]
fn snapshot_v1_custom_type() {
    // JanusGraph's RelationIdentifier: leaf fields (a hand-written `DecodeV1` type), Longs,
    // and an `Option` whose `None` is the leaf's sentinel.
    snapshot(
        "v1_custom",
        quote! {
            #[graphbinary(v1_custom = "janusgraph.RelationIdentifier", v1_custom_info = 0x1001)]
            pub struct RelationIdentifier {
                pub out_vertex_id: JanusVertexId,
                pub type_id: i64,
                pub relation_id: i64,
                #[graphbinary(v1 = "sentinel")]
                pub in_vertex_id: Option<JanusVertexId>,
            }
        },
    );
}

/// A custom type is GraphBinary 1 only: no GraphBinary 4 impl, and its bits of custom type
/// info are written as they are, a negative Int included.
#[test]
fn a_custom_type_has_only_graphbinary_1_impls() {
    let input: DeriveInput = syn::parse_quote! {
        #[graphbinary(v1_custom = "x.Y", v1_custom_info = 0xFFFF_FFFE)]
        struct Y { a: i64 }
    };
    let out = crate::expand::expand(&input).unwrap().to_string();
    assert_v1_only(&out, "CustomV1");
    assert!(!out.contains("__graphbinary :: Encode for"), "{out}");
    assert!(!out.contains("TypedV1"), "{out}");
    assert!(out.contains("(0xfffffffeu32 as i32)"), "{out}");
}

#[test]
fn v1_custom_errors() {
    assert_eq!(
        errors(quote! {
            #[graphbinary(v1_custom = "janusgraph.RelationIdentifier")]
            struct R { a: i64 }
        }),
        ["`v1_custom` needs `v1_custom_info` beside it: a custom type is `{0x00}{name}{custom_type_info Int}{value_flag}{value}`"]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(v1_custom_info = 0x1001)]
            struct R { a: i64 }
        }),
        ["`v1_custom_info` needs `v1_custom` beside it: a custom type is `{0x00}{name}{custom_type_info Int}{value_flag}{value}`"]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(v1_custom = "", v1_custom_info = 0x1_0000_0000)]
            struct R { a: i64 }
        }),
        [
            "`v1_custom` must be a non-empty string literal naming the custom type, e.g. `v1_custom = \"janusgraph.RelationIdentifier\"`",
            "`v1_custom_info` must be an integer literal in 0..=0xFFFF_FFFF (the Int written after the name), e.g. `v1_custom_info = 0x1001`",
        ]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(type_code = 0x11, v1_custom = "x.R", v1_custom_info = 1)]
            struct R { a: i64 }
        }),
        ["`v1_custom` is a GraphBinary 1 custom type (type code 0x00) of its own: it cannot be used with `type_code`"]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(enum_string, v1_custom = "x.R", v1_custom_info = 1)]
            enum R { A }
        }),
        ["`v1_custom` is only allowed on structs with named fields"]
    );
    assert_eq!(
        errors(quote! {
            #[graphbinary(v1_custom = "x.R", v1_custom_info = 1)]
            struct R {
                #[graphbinary(v1 = "sentinel")]
                a: i64,
                #[graphbinary(nullable, v1 = "sentinel")]
                b: Option<i64>,
            }
        }),
        [
            "`v1 = \"sentinel\"` requires a field of type `Option<T>` (`None` is written as `T`'s `SentinelV1::sentinel()`)",
            "`v1 = \"sentinel\"` is the field type's own layout, `None` written as its sentinel: it cannot be combined with `fq` or `nullable`",
        ]
    );
}

/// The expansion of `#[derive(Vertex)]` / `#[derive(Edge)]` for `input`, formatted.
fn expand_element(kind: crate::element::Kind, input: TokenStream) -> String {
    expand_with(input, |input| crate::element::derive(kind, input))
}

fn snapshot_element(name: &str, kind: crate::element::Kind, input: TokenStream) {
    let mut settings = insta::Settings::clone_current();
    settings.set_omit_expression(true);
    settings.set_prepend_module_to_snapshot(true);
    settings.bind(|| insta::assert_snapshot!(name, expand_element(kind, input)));
}

#[test]
fn snapshot_vertex() {
    snapshot_element(
        "vertex",
        crate::element::Kind::Vertex,
        quote! {
            #[vertex(label = "person", crate = "my::client")]
            struct Person {
                #[vertex(id)]
                id: Option<i64>,
                #[vertex(key)]
                name: String,
                age: Option<i32>,
                #[vertex(rename = "nick")]
                nicknames: Vec<String>,
                #[vertex(skip)]
                cached: u32,
            }
        },
    );
}

#[test]
fn snapshot_edge() {
    snapshot_element(
        "edge",
        crate::element::Kind::Edge,
        quote! {
            struct Knows {
                #[edge(out = Person)]
                from: String,
                #[edge(in)]
                to: i64,
                #[edge(key)]
                since: i32,
                weight: f64,
            }
        },
    );
}
