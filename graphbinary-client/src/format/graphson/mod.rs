//! GraphSON, TinkerPop's typed JSON: [`to_graphson`] writes GraphSON 4 (`v4.rs`) and
//! [`to_graphson3`] GraphSON 3 (`v3.rs`, each value as the GraphSON 3 type of the GraphBinary 1
//! type it was read from). The GraphSON 2/3 request writer and response reader of the
//! TinkerPop 3 WebSocket protocol are in `protocol/ws3/graphson.rs`.
//!
//! ```
//! use graphbinary_client::format::graphson::to_graphson;
//! use graphbinary_client::value::Value;
//!
//! let v = Value::List(vec![Value::Int(1), Value::from("a"), Value::Null(0xfe)]);
//! assert_eq!(
//!     to_graphson(&v),
//!     r#"{"@type":"g:List","@value":[{"@type":"g:Int32","@value":1},"a",null]}"#
//! );
//! ```

// The reader of the 3.x protocol's GraphSON messages (`protocol::ws3`, built with it).
#[cfg(any(feature = "http", feature = "test-util"))]
pub(crate) mod read;
mod v3;
mod v4;

pub use v3::{to_graphson3, write_graphson3};
pub(crate) use v4::Writer;
pub use v4::{to_graphson, write_graphson, write_graphson_traverser};
