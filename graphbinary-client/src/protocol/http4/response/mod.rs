//! The streaming response deserializer.
//!
//! A GraphBinary 4 response is
//! `{version}{bulked}{result_data}{marker}{status_code}{status_message}{exception}`.
//! [`read_response`] turns any [`AsyncRead`] over such a body into a [`ResponseStream`], a
//! [`futures::Stream`] that yields each result as soon as it is decoded and never holds the
//! whole response. Results that are already buffered are decoded synchronously (the fast
//! path, no allocation beyond the value itself); the async slow path refills.
//!
//! The public types are here; the state machine that reads a response is in `stream.rs`.
//!
//! # Example
//!
//! ```
//! use futures::StreamExt;
//! use graphbinary_client::value::Value;
//! use graphbinary_client::response::{read_response, ReadOptions};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let body: &'static [u8] = &[
//!     0x84, 0x00,                         // version, not bulked
//!     0x01, 0x00, 0x00, 0x00, 0x00, 0x2a, // Int 42
//!     0xfd, 0x00, 0x00,                   // marker
//!     0x00, 0x00, 0x00, 0xc8, 0x01, 0x01, // status 200, no message, no exception
//! ];
//! let mut results = read_response(body, ReadOptions::default());
//! let first = results.next().await.unwrap().unwrap();
//! assert_eq!(first.value, Value::Int(42));
//! assert!(results.next().await.is_none());
//! assert_eq!(results.status().unwrap().code, 200);
//! # });
//! ```

mod attributes;
mod stream;

use std::fmt;

use graphbinary_core::{DecodeError, Limits, ReadBuffer, DEFAULT_CAPACITY};
use tokio::io::AsyncRead;

use crate::value::Value;

pub use attributes::StatusAttributes;
pub(crate) use stream::Out;
pub use stream::{read_value, ResponseStream};

/// The response version this deserializer reads.
pub const VERSION: u8 = 0x84;

/// The status code of a successful response.
pub const STATUS_OK: i32 = 200;

/// How a response is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Limits checked while decoding.
    pub limits: Limits,
    /// The read buffer's capacity in bytes. Values larger than this are read by the slow path.
    pub capacity: usize,
    /// Whether buffered values are decoded on the synchronous fast path (the default). Only
    /// with the `test-util` feature: switching it off is for tests of the slow path and for
    /// benchmarks.
    #[cfg(feature = "test-util")]
    pub fast_path: bool,
}

/// The default nesting limit of [`ReadOptions`]: the slow path uses a few KiB of stack per
/// nesting level (optimized build), so 128 levels stay well inside a 2 MiB thread stack.
pub const DEFAULT_MAX_DEPTH: u32 = crate::value::dynamic::DEFAULT_LIMITS.max_depth;

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            limits: crate::value::dynamic::DEFAULT_LIMITS,
            capacity: DEFAULT_CAPACITY,
            #[cfg(feature = "test-util")]
            fast_path: true,
        }
    }
}

/// One result: a value and its bulk (how many times it stands in the result; 1 when the
/// response is not bulked). In a bulked response each value is followed by its bulk as a
/// fully-qualified Long, as Gremlin Server writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traverser {
    /// The value.
    pub value: Value,
    /// The bulk.
    pub bulk: i64,
}

/// The status that ends a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The status code (200 for success).
    pub code: i32,
    /// The status message.
    pub message: Option<String>,
    /// The exception, when the server failed.
    pub exception: Option<String>,
}

/// An error reported by Gremlin Server: the one server error type of the crate, returned both
/// by [`ResponseStream`] ([`ResponseError::Server`]) and by the HTTP client
/// (`client::Error::Server`).
///
/// Gremlin Server reports errors in two places: before it has read the request, as an HTTP
/// status with a JSON body `{"message": ...}` (then [`ServerError::code`] is the HTTP status
/// and [`ServerError::exception`] is `None`); afterwards, in the GraphBinary footer, with
/// a status code, message and exception name (e.g. `MalformedQueryException`), usually inside
/// an HTTP 200 response, possibly after some results were already delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    /// The Gremlin status code (the footer's, or the HTTP status for JSON errors), e.g. 400,
    /// 500.
    pub code: i32,
    /// The server's message.
    pub message: Option<String>,
    /// The server's short exception name, e.g. `ServerTimeoutExceededException`.
    pub exception: Option<String>,
    /// The HTTP status of the response, where there is one: `None` when the response was
    /// read with [`read_response`] from something other than the HTTP client.
    pub http_status: Option<u16>,
    /// The status attributes of a TinkerPop 3 error message, all of them (`exceptions`,
    /// `stackTrace`, and Azure Cosmos DB's `x-ms-status-code`, `x-ms-retry-after-ms`,
    /// `x-ms-request-charge`, ... with typed accessors); empty over HTTP, whose GraphBinary 4
    /// footer has none.
    pub attributes: StatusAttributes,
}

impl ServerError {
    /// The error for a footer `status` (of a response with HTTP status `http_status`, if any).
    pub fn from_status(status: Status, http_status: Option<u16>) -> Self {
        ServerError {
            code: status.code,
            message: status.message,
            exception: status.exception,
            http_status,
            attributes: StatusAttributes::default(),
        }
    }

    /// Whether the server throttled the request: status 429, or Azure Cosmos DB's way of
    /// saying it, a status 500 whose `x-ms-status-code` attribute is 429. A throttled
    /// idempotent request is retried after the wait the server asked for
    /// ([`StatusAttributes::retry_after`], or HTTP's `Retry-After`).
    pub fn is_throttled(&self) -> bool {
        self.code == 429
            || self.http_status == Some(429)
            || self.attributes.status_code() == Some(429)
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "server error {}", self.code)?;
        if let Some(c) = self.attributes.status_code() {
            write!(f, " [x-ms-status-code {c}")?;
            if let Some(s) = self.attributes.substatus_code() {
                write!(f, "/{s}")?;
            }
            f.write_str("]")?;
        }
        if let Some(e) = &self.exception {
            write!(f, " ({e})")?;
        }
        if let Some(m) = &self.message {
            write!(f, ": {m}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ServerError {}

/// Why a response stream failed.
#[derive(Debug, thiserror::Error)]
pub enum ResponseError {
    /// The bytes are not a valid GraphBinary 4 response (or the reader failed); the
    /// [`DecodeError`] is the source.
    #[error("malformed response")]
    Decode(#[from] DecodeError),
    /// The server's status was not 200. Results before it were yielded.
    #[error(transparent)]
    Server(Box<ServerError>),
}

impl ResponseError {
    /// The byte offset of a format error.
    pub fn offset(&self) -> Option<u64> {
        match self {
            ResponseError::Decode(e) => Some(e.offset()),
            ResponseError::Server(_) => None,
        }
    }
}

/// Reads a GraphBinary 4 response from `reader` as a stream of results.
///
/// The stream yields each [`Traverser`] as soon as it is decoded. After the last result it
/// reads the status: on 200 the stream ends; otherwise it yields one
/// [`ResponseError::Server`] and ends. A malformed or truncated response yields one
/// [`ResponseError::Decode`] naming the byte offset and ends.
pub fn read_response<R: AsyncRead + Unpin + Send + 'static>(
    reader: R,
    opts: ReadOptions,
) -> ResponseStream<R> {
    let buf = ReadBuffer::with_capacity(opts.capacity, reader).with_limits(opts.limits);
    #[cfg(feature = "test-util")]
    let buf = buf.with_fast_path(opts.fast_path);
    ResponseStream::new(buf)
}
