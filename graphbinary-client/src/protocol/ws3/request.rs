//! The GraphBinary 1 request message and the writer for the values a request carries.

use bytes::BufMut;
use graphbinary_core::{write, EncodeError};
use uuid::Uuid;

use crate::value::Value;

use crate::format::graphbinary1::codes;
use crate::format::graphbinary1::encode_value;
use crate::format::graphbinary1::CustomTypes;

/// The mime type a GraphBinary 1 request is prefixed with on WebSocket.
pub const MIME_TYPE: &str = "application/vnd.graphbinary-v1.0";

/// A TinkerPop 3 request: `{0x81}{request id}{op}{processor}{args Map}`.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMessage {
    /// The request id; every response to the request carries it.
    pub request_id: Uuid,
    /// The operation, e.g. `eval` or `authentication`.
    pub op: String,
    /// The op processor: `""` (standard), `session` or `traversal`.
    pub processor: String,
    /// The arguments, e.g. `gremlin`, `bindings`, `language`, `batchSize`.
    pub args: Vec<(String, Value)>,
}

impl RequestMessage {
    /// An `eval` of a Gremlin script by the standard processor, with no arguments beyond it.
    pub fn eval(gremlin: &str) -> Self {
        RequestMessage {
            request_id: new_request_id(),
            op: "eval".into(),
            processor: String::new(),
            args: vec![("gremlin".into(), Value::String(gremlin.into()))],
        }
    }

    /// Writes the message as a WebSocket payload: `{mime length}{mime}` then the message.
    pub fn encode_ws(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(128);
        out.put_u8(MIME_TYPE.len() as u8);
        out.put_slice(MIME_TYPE.as_bytes());
        self.encode(&mut out)?;
        Ok(out)
    }

    /// As [`RequestMessage::encode_ws`], writing argument values of the custom types in
    /// `custom` (e.g. a JanusGraph `RelationIdentifier` bound to `g.E(id)`) with their writers.
    pub fn encode_ws_with(&self, custom: &CustomTypes) -> Result<Vec<u8>, EncodeError> {
        crate::format::graphbinary1::custom::scoped(custom, || self.encode_ws())
    }

    /// Writes the message without the mime prefix.
    pub fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        out.put_u8(0x81);
        out.put_slice(self.request_id.as_bytes());
        write::put_str(out, &self.op)?;
        write::put_str(out, &self.processor)?;
        write::put_len(out, self.args.len(), "request args")?;
        for (k, v) in &self.args {
            write::put_header(out, codes::STRING);
            write::put_str(out, k)?;
            encode_value(v, out)?;
        }
        Ok(())
    }
}

/// A fresh random (version 4) request id: std's randomly keyed SipHash over a process-wide
/// counter and the time, so no random-number dependency is needed for ids that only have to be
/// unique per connection.
pub fn new_request_id() -> Uuid {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static KEYS: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let keys = KEYS.get_or_init(std::collections::hash_map::RandomState::new);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or_default();
    let mut bytes = [0u8; 16];
    for (i, half) in bytes.chunks_mut(8).enumerate() {
        let mut h = keys.build_hasher();
        h.write_u64(n);
        h.write_u64(now);
        h.write_usize(i);
        half.copy_from_slice(&h.finish().to_be_bytes());
    }
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}
