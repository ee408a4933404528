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
    let input: DeriveInput = syn::parse2(input).expect("test input parses");
    let output = crate::expand::derive(&input);
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
            "unknown graphbinary attribute `frobnicate`; expected one of: `type_code`, `enum_string`, `composite_pdt`, `crate`",
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
