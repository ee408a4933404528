//! The GraphBinary 1 request message and the writer for the values a request carries.

use bytes::BufMut;
use graphbinary_core::{write, EncodeError};
use uuid::Uuid;

use crate::model::Value;

use super::codes;

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

/// Writes `value` fully qualified in GraphBinary 1. Covers what requests carry (scalars, UUID,
/// List, Set, Map, nulls, Binary); other values are [`EncodeError::Unrepresentable`].
pub fn encode_value<B: BufMut>(value: &Value, out: &mut B) -> Result<(), EncodeError> {
    match value {
        Value::Null(code) => {
            let code = if codes::name(*code).is_some() {
                *code
            } else {
                codes::UNSPECIFIED_NULL
            };
            write::put_null(out, code);
        }
        Value::Int(v) => {
            write::put_header(out, codes::INT);
            out.put_i32(*v);
        }
        Value::Long(v) => {
            write::put_header(out, codes::LONG);
            out.put_i64(*v);
        }
        Value::String(s) => {
            write::put_header(out, codes::STRING);
            write::put_str(out, s)?;
        }
        Value::Double(v) => {
            write::put_header(out, codes::DOUBLE);
            out.put_f64(*v);
        }
        Value::Float(v) => {
            write::put_header(out, codes::FLOAT);
            out.put_f32(*v);
        }
        Value::Boolean(b) => {
            write::put_header(out, codes::BOOLEAN);
            out.put_u8(u8::from(*b));
        }
        Value::Short(v) => {
            write::put_header(out, codes::SHORT);
            out.put_i16(*v);
        }
        Value::Byte(v) => {
            write::put_header(out, codes::BYTE);
            out.put_i8(*v);
        }
        Value::Uuid(u) => {
            write::put_header(out, codes::UUID);
            out.put_slice(u.as_bytes());
        }
        Value::Binary(b) => {
            write::put_header(out, codes::BYTE_BUFFER);
            write::put_bytes(out, b, "ByteBuffer")?;
        }
        Value::List(items) | Value::Set(items) => {
            let code = if matches!(value, Value::Set(_)) {
                codes::SET
            } else {
                codes::LIST
            };
            write::put_header(out, code);
            write::put_len(out, items.len(), "List")?;
            for i in items {
                encode_value(i, out)?;
            }
        }
        Value::Map(entries) | Value::OrderedMap(entries) => {
            write::put_header(out, codes::MAP);
            write::put_len(out, entries.len(), "Map")?;
            for (k, v) in entries {
                encode_value(k, out)?;
                encode_value(v, out)?;
            }
        }
        other => {
            return Err(EncodeError::Unrepresentable {
                what: "GraphBinary 1 request value",
                detail: format!(
                    "{} is not written by this GraphBinary 1 writer",
                    other.type_name()
                ),
            })
        }
    }
    Ok(())
}
