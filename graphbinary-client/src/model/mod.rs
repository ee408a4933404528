//! The GraphBinary 4 data model: the dynamic [`Value`] for any fully-qualified value, and
//! typed structs for the graph elements and the other structured types.
//!
//! Every type reads and writes itself through `graphbinary-core`'s traits: [`Decode`] and
//! [`Encode`] for the bare `{value}` form, [`FqDecode`] and [`FqEncode`] for the
//! fully-qualified `{type_code}{value_flag}{value}` form, each with a synchronous fast path
//! over buffered bytes and an async slow path that refills.
//!
//! [`Decode`]: graphbinary_core::Decode
//! [`Encode`]: graphbinary_core::Encode
//! [`FqDecode`]: graphbinary_core::FqDecode
//! [`FqEncode`]: graphbinary_core::FqEncode

mod labels;
mod pdt;
mod scalars;
mod skip;
mod structure;
mod value;

pub use crate::generated::{
    BigDecimal, DateTime, Direction, Duration, Edge, Merge, Path, Property, Vertex, VertexProperty,
    T,
};
pub use labels::Labels;
pub use pdt::{CompositePdt, PdtError, PdtRegistry, PrimitivePdt};
pub use scalars::BigInteger;
pub use skip::skip_value;
#[cfg(feature = "serde")]
pub(crate) use skip::{
    fq_opt_list_header, fq_typed_header, skip_labels, skip_property, skip_vertex_property,
};
pub use structure::{Graph, Tree};
pub(crate) use value::decode_marker_value;
pub use value::Value;
#[cfg(feature = "serde")]
pub(crate) use value::{read_fq_str, read_header, Header};

/// The GraphBinary 4 type codes.
pub mod codes {
    pub use graphbinary_core::codes::*;
    /// DateTime.
    pub const DATETIME: u8 = 0x04;
    /// Map.
    pub const MAP: u8 = 0x0a;
    /// Edge.
    pub const EDGE: u8 = 0x0d;
    /// Path.
    pub const PATH: u8 = 0x0e;
    /// Property.
    pub const PROPERTY: u8 = 0x0f;
    /// Graph.
    pub const GRAPH: u8 = 0x10;
    /// Vertex.
    pub const VERTEX: u8 = 0x11;
    /// VertexProperty.
    pub const VERTEX_PROPERTY: u8 = 0x12;
    /// Direction.
    pub const DIRECTION: u8 = 0x18;
    /// T.
    pub const T: u8 = 0x20;
    /// BigDecimal.
    pub const BIG_DECIMAL: u8 = 0x22;
    /// BigInteger.
    pub const BIG_INTEGER: u8 = 0x23;
    /// Tree.
    pub const TREE: u8 = 0x2b;
    /// Merge.
    pub const MERGE: u8 = 0x2e;
    /// CompositePDT.
    pub const COMPOSITE_PDT: u8 = 0xf0;
    /// PrimitivePDT.
    pub const PRIMITIVE_PDT: u8 = 0xf1;
    /// Marker.
    pub const MARKER: u8 = 0xfd;
    /// Duration.
    pub const DURATION: u8 = 0x81;

    /// The name of a GraphBinary 4 type code, or `None` for a code v4 does not define.
    #[inline]
    pub fn name(code: u8) -> Option<&'static str> {
        NAMES[code as usize]
    }

    /// [`name`] for every byte, computed once at compile time (a table lookup per value read).
    static NAMES: [Option<&'static str>; 256] = {
        let mut t = [None; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = name_of(i as u8);
            i += 1;
        }
        t
    };

    const fn name_of(code: u8) -> Option<&'static str> {
        Some(match code {
            INT => "Int",
            LONG => "Long",
            STRING => "String",
            DATETIME => "DateTime",
            DOUBLE => "Double",
            FLOAT => "Float",
            LIST => "List",
            MAP => "Map",
            SET => "Set",
            UUID => "UUID",
            EDGE => "Edge",
            PATH => "Path",
            PROPERTY => "Property",
            GRAPH => "Graph",
            VERTEX => "Vertex",
            VERTEX_PROPERTY => "VertexProperty",
            DIRECTION => "Direction",
            T => "T",
            BIG_DECIMAL => "BigDecimal",
            BIG_INTEGER => "BigInteger",
            BYTE => "Byte",
            BINARY => "Binary",
            SHORT => "Short",
            BOOLEAN => "Boolean",
            TREE => "Tree",
            MERGE => "Merge",
            COMPOSITE_PDT => "CompositePDT",
            PRIMITIVE_PDT => "PrimitivePDT",
            MARKER => "Marker",
            UNSPECIFIED_NULL => "unspecified null",
            CHAR => "Char",
            DURATION => "Duration",
            _ => return None,
        })
    }
}
