//! A streaming Gremlin client for every Gremlin server: TinkerPop 4 over HTTP (GraphBinary 4)
//! and the TinkerPop 3.x servers (Gremlin Server 3.5-3.8, JanusGraph, Amazon Neptune, Azure
//! Cosmos DB) over WebSocket (GraphBinary 1, GraphSON 3 or 2), through one [`Client`]: the URL's
//! scheme picks the protocol.
//!
//! * [`client`]: the [`Client`], its builder, requests, result streams, transactions;
//! * [`process`]: the traversal API (`g.v(()).out("knows")`), written as gremlin-lang;
//! * [`value`]: the data model, a dynamic [`Value`] and typed element structs;
//! * [`format`](mod@format): the formats a value is read from and written to: GraphBinary 4 and 1,
//!   GraphSON, Gremlin Console text, and [`format::de`] (feature `serde`, on by default),
//!   results as your own types through a `serde` deserializer straight from the wire;
//! * [`response`]: TinkerPop 4's streaming response reader, a `futures::Stream` of results
//!   from any `AsyncRead`;
//!
//! # Errors
//!
//! One error type per layer, each cause printed once along the chain of
//! [`source`](std::error::Error::source)s: `graphbinary_core::DecodeError` for the format
//! (with the byte offset), [`ServerError`] for the server's status (the same type whether it
//! came in a GraphBinary footer or as an HTTP error), [`ResponseError`] for a response stream,
//! and the client's [`Error`] for everything a request can run into.
//!
//! # Example
//!
//! Sending a script and printing the results as they stream in:
//!
//! ```no_run
//! use futures::TryStreamExt;
//! use graphbinary_client::Client;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::builder("http://127.0.0.1:8182/gremlin").build()?;
//! let mut results = client.submit("g.V().has('name', 'marko').out('knows')").await?;
//! while let Some(v) = results.try_next().await? {
//!     println!("{v}");
//! }
//! # Ok(()) }
//! ```
//!
//! # Features
//!
//! * `http` (default): the network client ([`client`], both protocols); without it the crate
//!   decodes responses from any `AsyncRead` and needs neither hyper nor rustls.
//! * `cli`: the `graphbinary` command line tool and console (clap); not a default.
//! * `test-util`: helpers for tests and benchmarks (switching the fast path off); not part of
//!   the stable API.
//!
//! # Decoding without the client
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

/// The core crate (buffer, traits, errors), re-exported so that a user who depends only on
/// this crate can name it, e.g. in `#[graphbinary(crate = "graphbinary_client::graphbinary_core")]`
/// on a type deriving [`GraphBinary`].
pub use graphbinary_core;

#[cfg(feature = "http")]
pub mod client;
#[cfg(feature = "http")]
pub use client::{Client, ClientBuilder, Error, ResultStream};
pub mod format;
#[cfg(any(feature = "http", feature = "serde"))]
mod lang;
#[cfg(feature = "http")]
pub mod process;
mod protocol;
#[cfg(feature = "http")]
mod transport;
pub mod value;
/// The TinkerPop 3 WebSocket transport below [`Client`] (`Client3`, `Options3`, `Error3`,
/// `Session3`, the 3.x messages). Not part of the stable API: every option is a
/// [`ClientBuilder`] method, every error a [`client::Error`], a session a
/// [`client::Transaction`]; it stays reachable, hidden, for the `graphbinary` tool's `decode`,
/// xtask, benchmarks and tests.
#[cfg(feature = "http")]
#[doc(hidden)]
pub use transport::ws;

pub use protocol::http4::response;
#[cfg(feature = "http")]
pub use protocol::ws3::graphson::Serializer;
pub use response::{
    read_response, ReadOptions, ResponseError, ResponseStream, ServerError, Status, Traverser,
};
pub use value::Value;
