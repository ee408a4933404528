//! `#[derive(GraphBinary)]`: GraphBinary 4 readers and writers from annotated types.
//!
//! One annotated definition gives a type
//!
//! * `graphbinary_core::Decode`: the fast path `decode` (whole value from buffered bytes, no
//!   I/O) and the slow path `decode_slow` (field by field from a `ReadBuffer`, each field
//!   through `buf.read::<..>()` so that it re-enters the fast path);
//! * `graphbinary_core::Encode`, writing exactly what the readers read;
//! * with a type code (`type_code = ..` or `composite_pdt = ..`): `Typed`, and `FqDecode` /
//!   `FqEncode` for the fully-qualified form `{type_code}{0x00}{value}`, so that the type can
//!   be a List/Set/Map item or an `fq` field.
//!
//! The generated code names the core crate `::graphbinary_core` by absolute path, bound once
//! in an anonymous `const` block around the impls. A crate that reaches it through a
//! re-export says where: `#[graphbinary(crate = "graphbinary_client::graphbinary_core")]`
//! (serde's `crate` attribute). The readers call the `#[doc(hidden)]` helpers of
//! `graphbinary_core::__private` for the checks they share (header checks, PDT map header,
//! missing, duplicate and unknown fields), as serde's generated code calls
//! `serde::__private::de`.
//!
//! # Example
//!
//! ```
//! use graphbinary_core::{Encode, ReadBuffer};
//! use graphbinary_derive::GraphBinary;
//!
//! #[derive(GraphBinary, Debug, PartialEq)]
//! #[graphbinary(type_code = 0x81)]
//! struct Duration {
//!     seconds: i64,
//!     nanos: i32,
//!     #[graphbinary(nullable)]
//!     note: Option<String>,
//! }
//!
//! let d = Duration { seconds: 90, nanos: 5, note: None };
//! let mut bytes = Vec::new();
//! d.encode(&mut bytes).unwrap();
//! assert_eq!(bytes, [0, 0, 0, 0, 0, 0, 0, 90, 0, 0, 0, 5, 0x01]);
//!
//! let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let read = rt.block_on(async {
//!     // A buffer smaller than the value: read field by field on the slow path.
//!     let mut buf = ReadBuffer::with_capacity(4, &bytes[..]);
//!     buf.read::<Duration>().await
//! });
//! assert_eq!(read.unwrap(), d);
//! ```
//!
//! # Attributes
//!
//! On the type:
//!
//! | attribute | meaning |
//! |---|---|
//! | `type_code = 0x11` | an integer literal in `0..=255`; implements `Typed`, `FqDecode`, `FqEncode` |
//! | `enum_string` | enums of unit variants: the value is a fully-qualified String (`03 00 {len}{bytes}`) naming the variant |
//! | `composite_pdt = "Name"` | structs: a CompositePDT (type code `0xF0`), see below; also an inherent `const TYPE_NAME: &str` |
//! | `v1` | also the GraphBinary 1 dialect (TinkerPop 3.x), see below |
//! | `v1_type_code = 0x88` | the GraphBinary 1 type code when it differs from `type_code` (implies `v1`) |
//! | `v1_custom = "name", v1_custom_info = 0x1001` | structs: a GraphBinary 1 custom type (type code `0x00`), GraphBinary 1 only, see below |
//!
//! On a field of a plain struct:
//!
//! | attribute | layout | core type |
//! |---|---|---|
//! | (none) | `{value}` through the field type's `Decode`/`Encode` | `T` |
//! | `fq` | `{type_code}{0x00}{value}` through `FqDecode`/`FqEncode` | `Fq<T>` |
//! | `fq, nullable` on `Option<T>` | `{code}{0x00}{value}`, or null: written `FE 01` as TinkerPop does (`{code}{0x01}` is accepted on input) | `FqOpt<T>` |
//! | `nullable` on `Option<T>` | `{0x00}{value}` or `{0x01}` | `Nullable<T>` |
//! | `skip` | nothing: not on the wire; read as `Default::default()`, never written (both dialects). For what the model keeps beside the wire form, e.g. which GraphBinary 1 type a value was read from | (none) |
//!
//! `rename = "..."` sets the name on the wire of an `enum_string` variant (default: the variant
//! name as written) or of a `composite_pdt` field (default: the field name, without `r#`).
//!
//! Fields are read and written in declaration order. A `Vec<T>` field is a bare List
//! (`{length}{fq item}...`), `Set<T>` a bare Set; `Arc<str>` strings go through the buffer's
//! interner.
//!
//! # The GraphBinary 1 dialect
//!
//! With `#[graphbinary(v1)]` the derive also implements `graphbinary_core::v1::DecodeV1` (fast
//! and slow paths) and `EncodeV1`, and with a type code `TypedV1`, `FqDecodeV1` and
//! `FqEncodeV1`, from the same fields: each keeps its layout, read and written through the
//! version 1 traits of its type (so a `Value` field is a GraphBinary 1 value there). A field
//! whose layout differs says how: `#[graphbinary(v1 = "string")]` is a bare String in
//! GraphBinary 1 (the element labels, a List of Strings in GraphBinary 4), read through
//! `From<Arc<str>>` and written through `graphbinary_core::v1::OneString`. The GraphBinary 4
//! impls are the same tokens with or without `v1`; composite PDTs have no GraphBinary 1 form.
//!
//! `#[graphbinary(v1 = "sentinel")]` on an `Option<T>` field reads and writes `T`'s own layout,
//! `None` being `T`'s `graphbinary_core::v1::SentinelV1::sentinel()` on the wire (a value read
//! as the sentinel is `None`; `Some(sentinel)` cannot be written).
//!
//! ```
//! use std::sync::Arc;
//! use graphbinary_core::v1::{DecodeV1, EncodeV1};
//! use graphbinary_core::{Cursor, Encode, Limits};
//! use graphbinary_derive::GraphBinary;
//!
//! #[derive(GraphBinary, Debug, PartialEq)]
//! #[graphbinary(type_code = 0x0f, v1)]
//! struct Property {
//!     key: Arc<str>,
//!     value: i32,
//! }
//!
//! let p = Property { key: "age".into(), value: 29 };
//! let (mut v4, mut v1) = (Vec::new(), Vec::new());
//! p.encode(&mut v4).unwrap();
//! p.encode_v1(&mut v1).unwrap();
//! assert_eq!(v1, v4); // the same layout in both versions
//! let limits = Limits::default();
//! let back = Property::decode_v1(&mut Cursor::new(&v1, 0, &limits)).unwrap();
//! assert_eq!(back, p);
//! ```
//!
//! # GraphBinary 1 custom types
//!
//! `#[graphbinary(v1_custom = "janusgraph.RelationIdentifier", v1_custom_info = 0x1001)]` on a
//! struct makes it a custom type (type code `0x00`) in the layout JanusGraph writes its types
//! in: `{0x00}{name String}{custom_type_info Int}{value_flag}{fields}`. The derive implements
//! `DecodeV1` (fast and slow paths) and `EncodeV1` of the fields in order,
//! `graphbinary_core::v1::CustomV1` (the name and the info) and `FqDecodeV1` / `FqEncodeV1` as
//! the whole value (non-null); no GraphBinary 4 impls (GraphBinary 4 has no custom types). A
//! registry of custom types by name reads what follows the name with
//! `graphbinary_core::v1::decode_custom_v1_body`. A field whose layout is no GraphBinary type
//! (JanusGraph's marker-tagged vertex ids) is a leaf type implementing `DecodeV1` / `EncodeV1`
//! by hand, as the primitives do; the derive reads and writes it as any bare field.
//!
//! ```
//! use graphbinary_core::v1::{CustomV1, DecodeV1, FqEncodeV1};
//! use graphbinary_core::{Cursor, Limits};
//! use graphbinary_derive::GraphBinary;
//!
//! #[derive(GraphBinary, Debug, PartialEq)]
//! #[graphbinary(v1_custom = "example.Pair", v1_custom_info = 7)]
//! struct Pair {
//!     a: i32,
//!     b: i64,
//! }
//!
//! let p = Pair { a: 1, b: 2 };
//! let mut whole = Vec::new();
//! p.encode_fq_v1(&mut whole).unwrap();
//! assert_eq!(whole[0], 0x00); // the custom type code
//! assert_eq!(&whole[5..17], b"example.Pair");
//! assert_eq!(&whole[17..22], [0, 0, 0, 7, 0x00]); // the info, then the value flag
//! assert_eq!(<Pair as CustomV1>::CUSTOM_NAME, "example.Pair");
//! let limits = Limits::default();
//! let back = Pair::decode_v1(&mut Cursor::new(&whole[22..], 0, &limits)).unwrap();
//! assert_eq!(back, p);
//! ```
//!
//! # Composite PDTs
//!
//! `#[graphbinary(composite_pdt = "Point")]` on `struct Point { x: i32, y: i32 }` reads and
//! writes `{type: fq String "Point"}{fields: fq Map}`, where the Map's keys are fully-qualified
//! Strings naming the fields and its values are fully qualified (field types need
//! `FqDecode`/`FqEncode`). On input, keys may come in any order and the Map may be ordered
//! (value flag `0x02`) or not; a different type name, a missing field, a repeated field and an
//! unknown field are errors (unknown fields cannot be skipped without knowing their type, and
//! silently dropping data would break byte-identical round trips). On output the fields are
//! written in declaration order, with value flag `0x00`.
//!
//! # Errors
//!
//! Decode errors name the type (`Decode::EXPECTED` is the type's name) and the absolute byte
//! offset: an unknown `enum_string` value is `ErrorKind::Invalid` at the offset of the String,
//! with the value read and the names expected.
//!
//! Attribute mistakes are all reported in one compilation, each at its span, e.g.
//! ``unknown graphbinary attribute `colour`; expected one of: `type_code`, `enum_string`,
//! `composite_pdt`, `crate` ``; the derive then still emits placeholder impls so that the mistakes are
//! not buried under "trait not implemented" errors.
//!
//! # Generics
//!
//! A generic struct gets, per impl, a where-clause predicate for each field saying what its
//! layout needs (e.g. `B: FqDecode` for an `fq` field of type `B`).

#![warn(missing_docs)]

mod ast;
mod attr;
mod bound;
mod check;
mod element;
mod errors;
mod expand;
mod gen;
mod read;
mod sig;
mod typed;
mod util;
mod v1;
mod write;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `graphbinary_core::Decode` (fast and slow paths) and `Encode`, plus `Typed`,
/// `FqDecode` and `FqEncode` when the type has a type code. See the [crate docs](crate) for the
/// attribute language.
#[proc_macro_derive(GraphBinary, attributes(graphbinary))]
pub fn derive_graphbinary(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

/// Derives `graphbinary_client::element::VertexType`: the struct as a vertex (label, id, key
/// fields, properties). Attributes in `#[vertex(...)]`: on the type `label = "..."` (default:
/// the type's name) and `crate = "..."` (the client crate's path, default
/// `::graphbinary_client`); on a field `id`, `key`, `skip`, `rename = "..."`. See
/// `graphbinary_client::element` for the field types and what is generated.
#[proc_macro_derive(Vertex, attributes(vertex))]
pub fn derive_vertex(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    element::derive(element::Kind::Vertex, &input).into()
}

/// Derives `graphbinary_client::element::EdgeType`: the struct as an edge. The attributes of
/// `#[derive(Vertex)]` in `#[edge(...)]`, plus on a field `out` / `in` (the end's id) or
/// `out = VertexType` / `in = VertexType` (the end's value of that vertex type's one key
/// field); every edge has one of each.
#[proc_macro_derive(Edge, attributes(edge))]
pub fn derive_edge(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    element::derive(element::Kind::Edge, &input).into()
}
