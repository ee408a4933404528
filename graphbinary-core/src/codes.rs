//! Type codes of the primitive types implemented in this crate.

/// Int.
pub const INT: u8 = 0x01;
/// Long.
pub const LONG: u8 = 0x02;
/// String.
pub const STRING: u8 = 0x03;
/// Double.
pub const DOUBLE: u8 = 0x07;
/// Float.
pub const FLOAT: u8 = 0x08;
/// List.
pub const LIST: u8 = 0x09;
/// Set.
pub const SET: u8 = 0x0b;
/// UUID.
pub const UUID: u8 = 0x0c;
/// Byte.
pub const BYTE: u8 = 0x24;
/// Binary.
pub const BINARY: u8 = 0x25;
/// Short.
pub const SHORT: u8 = 0x26;
/// Boolean.
pub const BOOLEAN: u8 = 0x27;
/// Char.
pub const CHAR: u8 = 0x80;
/// Unspecified null object.
pub const UNSPECIFIED_NULL: u8 = 0xfe;
