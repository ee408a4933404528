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
mod structure;
#[rustfmt::skip]
mod generated;
pub(crate) mod dynamic;
pub(crate) mod graphbinary4;
mod time;

pub use dynamic::Value;
pub use generated::elements::{
    BigDecimal, DateTime, Direction, Duration, Edge, Merge, Path, Property, Vertex, VertexProperty,
    T,
};
pub use generated::type_code::TypeCode;
pub(crate) use graphbinary4::{complete, decode_marker_value, expect_end};
#[cfg(feature = "serde")]
pub(crate) use graphbinary4::{read_fq_str, read_header, Header};
pub use labels::Labels;
#[cfg(feature = "serde")]
pub(crate) use pdt::read_fields_header;
pub use pdt::{CompositePdt, PdtError, PdtRegistry, PrimitivePdt};
pub use scalars::BigInteger;
pub use structure::{Graph, Tree};
pub(crate) use time::epoch;
pub use time::DateTimeKind;
#[cfg(any(feature = "http", feature = "test-util"))]
pub(crate) use time::{parse_local_date, parse_local_time, parse_zone_offset};

/// The GraphBinary 4 type codes: the constants of [`graphbinary_core::codes`] (generated from
/// `spec/types.toml`), and each code's name and value flags as lookup tables built at compile
/// time from the generated [`TypeCode`].
pub mod codes {
    pub use graphbinary_core::codes::*;

    use super::TypeCode;

    /// The name of a GraphBinary 4 type code (as the specification writes it), or `None` for a
    /// code v4 does not define.
    #[inline]
    pub fn name(code: u8) -> Option<&'static str> {
        INFO[code as usize].map(|(name, _)| name)
    }

    /// Whether the specification allows `flag` after type code `code` (`false` for an
    /// unknown code).
    #[inline]
    pub(crate) fn allows_flag(code: u8, flag: u8) -> bool {
        flag < 8 && FLAGS[code as usize] & (1 << flag) != 0
    }

    /// The allowed value flags of every byte (bit `f` set for flag `f`; none for an unknown
    /// code): one byte per code, so that the check of every header reads one small table.
    static FLAGS: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            if let Some((_, mask)) = INFO[i] {
                t[i] = mask;
            }
            i += 1;
        }
        t
    };

    /// Name and allowed value flags (bit `f` set for flag `f`) of every byte, computed once at
    /// compile time from [`TypeCode`]: a table lookup per value read.
    static INFO: [Option<(&'static str, u8)>; 256] = {
        let mut t = [None; 256];
        let mut i = 0;
        while i < 256 {
            if let Some(tc) = TypeCode::from_u8(i as u8) {
                let flags = tc.value_flags();
                let mut mask = 0u8;
                let mut f = 0;
                while f < flags.len() {
                    mask |= 1 << flags[f];
                    f += 1;
                }
                t[i] = Some((tc.name(), mask));
            }
            i += 1;
        }
        t
    };
}

// The impls of the generated `TypeCode` that do not depend on the spec.
impl TryFrom<u8> for TypeCode {
    type Error = u8;

    /// Fails with the unknown byte.
    fn try_from(code: u8) -> Result<Self, u8> {
        TypeCode::from_u8(code).ok_or(code)
    }
}

impl std::fmt::Display for TypeCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The value of the String key `key` among a Map's entries (the first, if it repeats): a
/// CompositePDT's field, a status attribute.
pub(crate) fn get_by_str<'a>(entries: &'a [(Value, Value)], key: &str) -> Option<&'a Value> {
    entries
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}
