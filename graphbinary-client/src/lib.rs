//! The GraphBinary 4 client for Apache TinkerPop 4 Gremlin Server.
//!
//! * [`model`]: the data model, a dynamic [`Value`] and typed element structs;
//! * [`response`]: the streaming response deserializer, a `futures::Stream` of results;
//! * [`graphson`]: GraphSON 4 (typed JSON) output for any value;
//! * [`text`]: Gremlin Console style text for any value;
//! * [`client`]: the asynchronous HTTP client;
//! * [`error`]: errors and their causes on one line.
//!
//! # Example
//!
//! Decoding a response as it arrives, here the 21 bytes Gremlin Server answers to
//! `g.V().count()` on the modern graph, read from a slice (any `AsyncRead` works the same,
//! e.g. an HTTP body; [`Client`] does that for you):
//!
//! ```
//! use futures::TryStreamExt;
//! use graphbinary_client::{read_response, ReadOptions, Value};
//!
//! let body: &'static [u8] = &[
//!     0x84, 0x00, // version, not bulked
//!     0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 6, // Long 6
//!     0xfd, 0x00, 0x00, // marker
//!     0, 0, 0, 200, 0x01, 0x01, // status 200, no message, no exception
//! ];
//! let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let results: Vec<_> = rt
//!     .block_on(read_response(body, ReadOptions::default()).try_collect())
//!     .unwrap();
//! assert_eq!(results.len(), 1);
//! assert_eq!(results[0].value, Value::Long(6));
//! assert_eq!(results[0].bulk, 1);
//! ```

#![warn(missing_docs)]

pub use graphbinary_derive::GraphBinary;

pub mod client;
pub use client::{Client, ClientBuilder, ResultStream};
pub mod error;
pub mod generated;
pub mod graphson;
pub mod model;
pub mod response;
pub mod text;
pub mod v1;
pub mod ws;

pub use model::Value;
pub use response::{
    read_response, ReadOptions, ResponseError, ResponseStream, ServerError, Status, Traverser,
};
