//! TinkerPop 3.x's WebSocket messages: a request (`request.rs`) and a response
//! (`response.rs`) in GraphBinary 1, and the same in GraphSON 3 or 2 (`graphson.rs`: the
//! serializer choice, the request writer and the response reader).

// Without the transports (`test-util` only) the fuzz targets use part of it. Its `pub`
// items are reachable only through the hidden `test-util` path `graphbinary_client::ws`
// (tests, benchmarks, xtask): without `test-util` they are crate-private in effect.
#![cfg_attr(
    not(feature = "http"),
    allow(unused_imports, dead_code, unreachable_pub)
)]
#![cfg_attr(not(feature = "test-util"), allow(unreachable_pub))]

pub(crate) mod graphson;
mod request;
mod response;

pub use request::{new_request_id, RequestMessage, MIME_TYPE};
#[cfg(feature = "test-util")]
pub use response::decode_response;
pub(crate) use response::decode_response_interned;
pub use response::{decode_response_with, ResponseMessage};
