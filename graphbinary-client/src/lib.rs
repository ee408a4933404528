//! The GraphBinary 4 client for Apache TinkerPop 4 Gremlin Server.
//!
//! * [`client`]: the asynchronous HTTP client.

#![warn(missing_docs)]

pub mod client;
