//! Provider-defined types: CompositePDT (a type name and a Map of fields) and PrimitivePDT (a
//! type name and a stringified value), decoded generically.
//!
//! A user maps them onto Rust types of their own with `#[derive(GraphBinary)]` and
//! `#[graphbinary(composite_pdt = "Name")]`, then converts with [`CompositePdt::to_typed`], or
//! registers the type in a [`PdtRegistry`] to convert whatever arrives by its type name.
//!
//! ```
//! use graphbinary_client::value::{CompositePdt, PdtRegistry, Value};
//! use graphbinary_client::GraphBinary;
//!
//! // `crate = ..` lets the derive's output reach graphbinary-core through this crate, for a
//! // user who depends only on graphbinary-client.
//! #[derive(Debug, PartialEq, GraphBinary)]
//! #[graphbinary(composite_pdt = "Point", crate = "graphbinary_client::graphbinary_core")]
//! pub struct Point {
//!     pub x: i32,
//!     pub y: i32,
//! }
//!
//! // 0xF0 CompositePDT "Point" {x: 1, y: 2}, as a server sends it.
//! let bytes = [
//!     0xf0, 0x00, 0x03, 0x00, 0, 0, 0, 5, b'P', b'o', b'i', b'n', b't', 0x0a, 0x00, 0, 0, 0, 2,
//!     0x03, 0x00, 0, 0, 0, 1, b'x', 0x01, 0x00, 0, 0, 0, 1,
//!     0x03, 0x00, 0, 0, 0, 1, b'y', 0x01, 0x00, 0, 0, 0, 2,
//! ];
//! let Value::CompositePdt(pdt) = Value::from_bytes(&bytes).unwrap() else { panic!() };
//! assert_eq!(pdt.to_typed::<Point>().unwrap(), Point { x: 1, y: 2 });
//!
//! let mut registry = PdtRegistry::new();
//! registry.register::<Point>(Point::TYPE_NAME);
//! let any = registry.convert(&pdt).unwrap().unwrap();
//! assert_eq!(any.downcast_ref::<Point>(), Some(&Point { x: 1, y: 2 }));
//! ```

#![allow(clippy::manual_async_fn)]

use std::future::Future;

use bytes::BufMut;
use graphbinary_core::{
    Cursor, Decode, DecodeError, Encode, EncodeError, ErrorKind, FastResult, Limits, ReadBuffer,
    Typed,
};
use tokio::io::AsyncRead;

use super::codes;
use super::graphbinary4::{
    decode_entries, encode_entries, put_fq_str, read_entries_slow, read_fq_str, read_fq_string,
};
use super::Value;

/// A provider-defined composite value (CompositePDT, 0xf0): `{type}{fields}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompositePdt {
    /// The provider's name for the type, e.g. `"Point"`.
    pub type_name: String,
    /// The fields, keys and values of any type, in the order read.
    pub fields: Vec<(Value, Value)>,
    /// Whether the fields Map was written in its ordered form (value flag 0x02).
    pub ordered: bool,
}

impl CompositePdt {
    /// The value of the field whose key is the String `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        super::get_by_str(&self.fields, name)
    }

    /// Converts to a typed Rust value (one derived with
    /// `#[graphbinary(composite_pdt = "...")]`, or any type whose bare form is a CompositePDT's).
    ///
    /// Errors name the byte offset in this value's own encoding.
    pub fn to_typed<T: Decode>(&self) -> Result<T, PdtError> {
        let mut bytes = Vec::new();
        self.encode(&mut bytes)?;
        let limits = Limits::DEFAULT;
        let mut cur = Cursor::new(&bytes, 0, &limits);
        match T::decode(&mut cur) {
            Ok(v) if cur.position() == bytes.len() => Ok(v),
            Ok(_) => Err(PdtError::Decode(DecodeError::new(
                cur.offset(),
                ErrorKind::Invalid {
                    what: T::EXPECTED,
                    detail: "did not read every field".into(),
                },
            ))),
            Err(graphbinary_core::FastError::Invalid(e)) => Err(PdtError::Decode(e)),
            Err(graphbinary_core::FastError::NeedMore(_)) => {
                Err(PdtError::Decode(DecodeError::new(
                    bytes.len() as u64,
                    ErrorKind::UnexpectedEof {
                        expected: T::EXPECTED,
                    },
                )))
            }
        }
    }

    /// Converts a typed Rust value (see [`CompositePdt::to_typed`]) to its generic form.
    pub fn from_typed<T: Encode>(value: &T) -> Result<Self, PdtError> {
        let mut bytes = Vec::new();
        value.encode(&mut bytes)?;
        let limits = Limits::DEFAULT;
        let mut cur = Cursor::new(&bytes, 0, &limits);
        CompositePdt::decode(&mut cur).map_err(|e| match e {
            graphbinary_core::FastError::Invalid(e) => PdtError::Decode(e),
            graphbinary_core::FastError::NeedMore(_) => PdtError::Decode(DecodeError::new(
                bytes.len() as u64,
                ErrorKind::UnexpectedEof {
                    expected: "CompositePDT",
                },
            )),
        })
    }
}

type Converter = fn(&CompositePdt) -> Result<Box<dyn std::any::Any + Send + Sync>, PdtError>;

/// Rust types registered under CompositePDT type names, to convert generic
/// [`CompositePdt`] values into them.
#[derive(Default, Clone)]
pub struct PdtRegistry {
    types: std::collections::HashMap<String, Converter>,
}

impl std::fmt::Debug for PdtRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.types.keys()).finish()
    }
}

impl PdtRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `T` (whose bare form is a CompositePDT's, e.g. derived with
    /// `#[graphbinary(composite_pdt = "...")]`) under `type_name`.
    pub fn register<T: Decode + Send + Sync + 'static>(&mut self, type_name: &str) -> &mut Self {
        fn convert<T: Decode + Send + Sync + 'static>(
            p: &CompositePdt,
        ) -> Result<Box<dyn std::any::Any + Send + Sync>, PdtError> {
            Ok(Box::new(p.to_typed::<T>()?))
        }
        self.types.insert(type_name.to_owned(), convert::<T>);
        self
    }

    /// Whether a type is registered under `type_name`.
    pub fn contains(&self, type_name: &str) -> bool {
        self.types.contains_key(type_name)
    }

    /// Converts `pdt` into the type registered under its name: `None` when none is.
    pub fn convert(
        &self,
        pdt: &CompositePdt,
    ) -> Option<Result<Box<dyn std::any::Any + Send + Sync>, PdtError>> {
        self.types.get(&pdt.type_name).map(|f| f(pdt))
    }
}

/// A provider-defined type could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum PdtError {
    /// The generic form does not match the typed layout.
    #[error("provider-defined type does not match")]
    Decode(#[from] DecodeError),
    /// The value could not be written.
    #[error("provider-defined type cannot be written")]
    Encode(#[from] EncodeError),
}

/// A provider-defined primitive value (PrimitivePDT, 0xf1): `{type}{value}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrimitivePdt {
    /// The provider's name for the type, e.g. `"Uint8"`.
    pub type_name: String,
    /// The value as a string, e.g. `"10"`.
    pub value: String,
}

/// The header of a CompositePDT's fields: a Map, not null; whether it is ordered (flag 0x02).
pub(crate) fn read_fields_header(cur: &mut Cursor<'_>) -> FastResult<bool> {
    cur.expect_type_code(codes::MAP, "CompositePDT fields")?;
    let at = cur.offset();
    match cur.read_u8()? {
        0x00 => Ok(false),
        0x02 => Ok(true),
        0x01 => Err(cur.error_at(
            at,
            ErrorKind::UnexpectedNull {
                what: "CompositePDT fields",
            },
        )),
        flag => Err(cur.error_at(
            at,
            ErrorKind::InvalidValueFlag {
                what: "CompositePDT fields",
                flag,
            },
        )),
    }
}

impl Decode for CompositePdt {
    const EXPECTED: &'static str = "CompositePDT";
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        let type_name = read_fq_str(cur, "CompositePDT type")?.to_owned();
        let ordered = read_fields_header(cur)?;
        Ok(CompositePdt {
            type_name,
            fields: decode_entries(cur)?,
            ordered,
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            let type_name = read_fq_string(buf, "CompositePDT type").await?;
            let ordered = buf
                .read_with(read_fields_header, "CompositePDT fields")
                .await?;
            Ok(CompositePdt {
                type_name,
                fields: read_entries_slow(buf).await?,
                ordered,
            })
        }
    }
}
impl Encode for CompositePdt {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        put_fq_str(out, &self.type_name)?;
        out.put_u8(codes::MAP);
        out.put_u8(if self.ordered { 0x02 } else { 0x00 });
        encode_entries(out, &self.fields)
    }
}
impl Typed for CompositePdt {
    const TYPE_CODE: u8 = codes::COMPOSITE_PDT;
}

impl Decode for PrimitivePdt {
    const EXPECTED: &'static str = "PrimitivePDT";
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(PrimitivePdt {
            type_name: read_fq_str(cur, "PrimitivePDT type")?.to_owned(),
            value: read_fq_str(cur, "PrimitivePDT value")?.to_owned(),
        })
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(PrimitivePdt {
                type_name: read_fq_string(buf, "PrimitivePDT type").await?,
                value: read_fq_string(buf, "PrimitivePDT value").await?,
            })
        }
    }
}
impl Encode for PrimitivePdt {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        put_fq_str(out, &self.type_name)?;
        put_fq_str(out, &self.value)
    }
}
impl Typed for PrimitivePdt {
    const TYPE_CODE: u8 = codes::PRIMITIVE_PDT;
}

graphbinary_core::impl_fq_via_typed!(CompositePdt, PrimitivePdt);
