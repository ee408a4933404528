//! The TinkerPop 4 transport: GraphBinary 4 over HTTP/1.1, through reqwest (hyper) with rustls.
//!
//! A request is one `POST`; its response body is read as an `AsyncRead` ([`BodyReader`]),
//! decompressed (`Content-Encoding: deflate`, which in HTTP is zlib), with byte counters. The
//! client above picks the host, runs the interceptors and decodes the body.

mod body;

pub use body::BodyReader;
pub(crate) use body::{ClientClosed, DecompressError};
