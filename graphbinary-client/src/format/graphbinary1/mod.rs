//! GraphBinary 1, the format of TinkerPop 3.x servers (3.5 to 3.8), decoded into the same
//! [`Value`](crate::Value) model as GraphBinary 4.
//!
//! The type table is `spec/graphbinary-v1.toml`; [`codes`] is generated from it. Type codes collide with
//! GraphBinary 4 (0x04 is Date here, DateTime there), so version 1 has its own dispatch
//! ([`decode_value`]). No `Value` variant is added for it; the types GraphBinary 4 lacks map as
//! follows, and nothing is merged: each maps back to the type it was read from.
//!
//! | GraphBinary 1 | `Value` |
//! |---|---|
//! | Date 0x04, Timestamp 0x05 (ms since the epoch), Instant 0x83 | `DateTime` at UTC (offset 0), its [`kind`](crate::value::DateTimeKind) `Date`, `Timestamp`, `Instant` |
//! | OffsetDateTime 0x88, ZonedDateTime 0x8d | `DateTime` of kind `OffsetDateTime`, `ZonedDateTime` (the zone id is not on the wire; its offset is) |
//! | ByteBuffer 0x25 | `Binary` |
//! | Traverser 0x21 `{bulk}{value}` | in a response's result list, one result with that bulk (as the client hands it out); inside a value, a `CompositePdt` named `g:Traverser` with fields `bulk` (Long) and `value` |
//! | BulkSet 0x2a | `BulkList` (items with their bulks, as GraphBinary 4's bulked List) |
//! | TinkerGraph 0x10 | `Graph` |
//! | Class, Barrier, Cardinality, Column, Operator, Order, Pick, Pop, Scope, DT, GType, InetAddress | `PrimitivePdt` named by the GraphSON 3 type (`g:Class`, `g:Barrier`, ..., `gx:InetAddress`), the value as text |
//! | Binding, Bytecode, Lambda, P, TextP, TraversalStrategy, Metrics, TraversalMetrics, LocalDate, LocalDateTime, LocalTime, MonthDay, OffsetTime, Period, Year, YearMonth, ZoneOffset | `CompositePdt` named by the GraphSON 3 type (`g:P`, `gx:LocalDate`, ...), with named fields |
//! | Custom 0x00 | through the reader registered for its name ([`CustomTypes`]; JanusGraph's `janusgraph.RelationIdentifier`, `janusgraph.Geoshape` and `janusgraph.P` give `CompositePdt`s of those names: [`RelationIdentifier`], [`Geoshape`], [`JanusGraphP`]), else an error naming the name and offset (its value is not self-delimiting) |
//!
//! A typed null keeps its GraphBinary 1 type code (`Value::Null(0x04)` is a null Date).
//! Vertex, Edge and VertexProperty labels are single Strings in GraphBinary 1 ([`Labels::One`](crate::value::Labels::One)).
//!
//! # Writing back what was read
//!
//! [`encode_value`] writes every value the reader produces as the type it was read from, so
//! that a decoded value re-encodes byte for byte (all 60 of TinkerPop's GraphBinary 1
//! vectors, `tests/v1_conformance.rs`), and a value read from a TinkerPop 3 server and bound
//! again keeps its Java class (a `java.util.Date` property is matched by the `Date` read).
//! PDT names name the GraphBinary 1 type, `Labels::One` the bare String, `Value::Null(code)`
//! the typed null, a `DateTime`'s `kind` its date-time type.
//!
//! # GraphSON 3
//!
//! [`to_graphson3`](crate::format::graphson::to_graphson3) renders a decoded value as TinkerPop 3.x's GraphSON 3, each value as the
//! GraphSON 3 type of the GraphBinary 1 type it was read from (`g:Date`, `gx:Instant`,
//! `g:Traverser`, ...).
//!
//! # The derive's GraphBinary 1 dialect
//!
//! The element structs (`Vertex`, `Edge`, `VertexProperty`, `Property`, `Path`, and
//! `DateTime` (as 0x88), `Duration`, `BigDecimal`, `Direction`, `T`, `Merge`) are read and
//! written in GraphBinary 1 by the impls `#[graphbinary(v1)]` derives beside their GraphBinary 4
//! ones (`graphbinary_core::v1::{DecodeV1, EncodeV1, ...}`); `cargo xtask regen` puts the
//! attributes on them from `spec/graphbinary-v1.toml`.

#[rustfmt::skip]
pub mod codes;
pub(crate) mod custom;
mod dialect;
mod janusgraph;
mod reader;
mod slow;
mod writer;

pub use custom::{
    CustomType, CustomTypes, CustomValue, DerivedCustom, JanusVertexId, RelationIdentifier,
    RelationIdentifierType,
};
pub use janusgraph::{GeoPoint, Geoshape, GeoshapeType, JanusGraphP, JanusGraphPType};
#[cfg(any(feature = "http", feature = "test-util"))]
pub(crate) use reader::{composite, predicate_value};
pub use reader::{
    date_time_from_millis, decode_slice, decode_slice_with, decode_value, read_value,
    read_value_with, traverser,
};
pub use writer::{encode_value, encode_value_with};

/// A code table (`codes::ALL`) indexed by code, built at compile time: the generated
/// `codes::name` looks a code up in it for every value the reader decodes.
const fn names_by_code(all: &[(u8, &'static str)]) -> [Option<&'static str>; 256] {
    let mut names = [None; 256];
    let mut i = 0;
    while i < all.len() {
        names[all[i].0 as usize] = Some(all[i].1);
        i += 1;
    }
    names
}
