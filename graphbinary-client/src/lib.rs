//! The GraphBinary 4 client for Apache TinkerPop 4 Gremlin Server.
//!
//! * [`model`]: the data model, a dynamic [`Value`] and typed element structs;
//! * [`response`]: the streaming response deserializer, a `futures::Stream` of results;
//! * [`graphson`]: GraphSON 4 (typed JSON) output for any value;
//! * [`text`]: Gremlin Console style text for any value;
//! * [`client`]: the asynchronous HTTP client;
//! * [`error`]: errors and their causes on one line.

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

pub use model::Value;
pub use response::{
    read_response, ReadOptions, ResponseError, ResponseStream, ServerError, Status, Traverser,
};
