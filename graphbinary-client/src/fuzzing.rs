//! Entry points of the fuzz targets (`fuzz/`) into readers and writers that are not public API:
//! GraphBinary 1 values and response messages, the GraphSON 2/3 reader and writers, and the
//! gremlin-lang literal parser. Behind the `test-util` feature and hidden from the docs; not
//! part of the stable API, and shaped so that moving the modules behind it does not change it
//! (plain functions over `Value`, bytes and text; no internal type in a signature).

use graphbinary_core::{DecodeError, EncodeError, Limits, ReadBuffer};
use tokio::io::AsyncRead;
use uuid::Uuid;

use crate::value::Value;

/// A TinkerPop 3 response message as the fuzz targets compare it (GraphBinary 1 or GraphSON).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The request id (`None` for a null one).
    pub request_id: Option<Uuid>,
    /// The status code.
    pub status: i32,
    /// The status message.
    pub message: Option<String>,
    /// The status attributes.
    pub attributes: Vec<(Value, Value)>,
    /// The result meta data.
    pub meta: Vec<(Value, Value)>,
    /// The result data as read (Traversers of a List replaced by their values).
    pub data: Value,
    /// The results with their bulks, as the client hands them out.
    pub results: Vec<(Value, i64)>,
}

impl From<crate::protocol::ws3::ResponseMessage> for Message {
    fn from(m: crate::protocol::ws3::ResponseMessage) -> Self {
        Message {
            request_id: m.request_id,
            status: m.status,
            message: m.message.clone(),
            attributes: m.attributes.clone(),
            meta: m.meta.clone(),
            data: m.data.clone(),
            results: m.results(),
        }
    }
}

/// GraphBinary 1 (TinkerPop 3.x): values and response messages.
pub mod graphbinary1 {
    use super::*;
    use crate::format::graphbinary1::CustomTypes;

    fn custom(janusgraph: bool) -> CustomTypes {
        if janusgraph {
            CustomTypes::janusgraph()
        } else {
            CustomTypes::new()
        }
    }

    /// Decodes exactly one fully-qualified value from `bytes` (the fast path); with
    /// `janusgraph`, JanusGraph's custom types are read.
    pub fn decode(bytes: &[u8], limits: &Limits, janusgraph: bool) -> Result<Value, DecodeError> {
        crate::format::graphbinary1::decode_slice_with(bytes, limits, &custom(janusgraph))
    }

    /// Reads one value from `buf` (the refilling path; the slow path when the buffer's fast
    /// path is off or the value is larger than the buffer).
    pub async fn read<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
        janusgraph: bool,
    ) -> Result<Value, DecodeError> {
        crate::format::graphbinary1::read_value_with(buf, &custom(janusgraph)).await
    }

    /// Writes `v` as a fully-qualified value.
    pub fn encode(v: &Value, janusgraph: bool) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        crate::format::graphbinary1::encode_value_with(v, &mut out, &custom(janusgraph))?;
        Ok(out)
    }

    /// Decodes one whole response message.
    pub fn decode_response(
        bytes: &[u8],
        limits: &Limits,
        janusgraph: bool,
    ) -> Result<Message, DecodeError> {
        crate::protocol::ws3::decode_response_with(bytes, limits, &custom(janusgraph))
            .map(Message::from)
    }

    /// Writes `m` as a response message (the library reads these and writes none: the fuzz
    /// targets' round trip). A List `data` is written as Traversers of `m.results`' bulks.
    pub fn encode_response(m: &Message, janusgraph: bool) -> Result<Vec<u8>, EncodeError> {
        let custom = custom(janusgraph);
        let mut out = vec![0x81];
        match m.request_id {
            Some(id) => {
                out.push(0x00);
                out.extend_from_slice(id.as_bytes());
            }
            None => out.push(0x01),
        }
        out.extend_from_slice(&m.status.to_be_bytes());
        match &m.message {
            Some(s) => {
                out.push(0x00);
                out.extend_from_slice(&len(s.len())?);
                out.extend_from_slice(s.as_bytes());
            }
            None => out.push(0x01),
        }
        for map in [&m.attributes, &m.meta] {
            out.extend_from_slice(&len(map.len())?);
            for (k, v) in map {
                crate::format::graphbinary1::encode_value_with(k, &mut out, &custom)?;
                crate::format::graphbinary1::encode_value_with(v, &mut out, &custom)?;
            }
        }
        let data = match &m.data {
            Value::List(_) => Value::List(
                m.results
                    .iter()
                    .map(|(v, bulk)| crate::format::graphbinary1::traverser(*bulk, v.clone()))
                    .collect(),
            ),
            other => other.clone(),
        };
        crate::format::graphbinary1::encode_value_with(&data, &mut out, &custom)?;
        Ok(out)
    }

    fn len(n: usize) -> Result<[u8; 4], EncodeError> {
        i32::try_from(n)
            .map(i32::to_be_bytes)
            .map_err(|_| EncodeError::Unrepresentable {
                what: "GraphBinary 1 length",
                detail: format!("{n} is past i32"),
            })
    }

    /// Decodes one whole response message as a WebSocket connection does (labels interned, a
    /// List's results pushed straight onto a queue): the results with their bulks and the
    /// status code.
    pub fn decode_response_queued(
        bytes: &[u8],
        limits: &Limits,
        janusgraph: bool,
    ) -> Result<(Vec<(Value, i64)>, i32), DecodeError> {
        let mut interner = graphbinary_core::Interner::default();
        let mut queue = std::collections::VecDeque::new();
        let msg = crate::protocol::ws3::decode_response_interned(
            bytes,
            limits,
            &custom(janusgraph),
            &mut interner,
            Some(&mut queue),
        )?;
        let status = msg.status;
        let mut results: Vec<_> = queue.into_iter().collect();
        results.extend(msg.results());
        Ok((results, status))
    }
}

/// GraphSON 2 and 3 (TinkerPop 3.x over WebSocket), typed and untyped.
pub mod graphson {
    use super::*;
    use crate::protocol::ws3::graphson::Serializer;

    fn serializer(version: u8, typed: bool) -> Serializer {
        match (version, typed) {
            (2, true) => Serializer::GraphSon2,
            (2, false) => Serializer::GraphSon2Untyped,
            (_, true) => Serializer::GraphSon3,
            (_, false) => Serializer::GraphSon3Untyped,
        }
    }

    /// The reader's message, as the connection reads it.
    type Read = Result<crate::protocol::ws3::ResponseMessage, DecodeError>;

    fn read(bytes: &[u8], version: u8, typed: bool, limits: &Limits) -> Read {
        crate::protocol::ws3::graphson::decode_response(bytes, serializer(version, typed), limits)
    }

    /// Decodes one response message of GraphSON `version` (2 or 3), `typed` or not.
    pub fn decode_response(
        bytes: &[u8],
        version: u8,
        typed: bool,
        limits: &Limits,
    ) -> Result<Message, DecodeError> {
        read(bytes, version, typed, limits).map(Message::from)
    }

    /// The result data of one response message, read as [`decode_response`] reads it, with
    /// nothing copied (the benchmark of the reader).
    pub fn decode_data(
        bytes: &[u8],
        version: u8,
        typed: bool,
        limits: &Limits,
    ) -> Result<Value, DecodeError> {
        read(bytes, version, typed, limits).map(|m| m.data)
    }

    /// The request id and status code of a response message, read without its data (what a
    /// connection routes by).
    pub fn header(
        bytes: &[u8],
        version: u8,
        typed: bool,
        limits: &Limits,
    ) -> Result<Option<(Uuid, i32)>, DecodeError> {
        crate::protocol::ws3::graphson::header(bytes, serializer(version, typed), limits)
    }

    /// Writes `v` as the client writes a request's binding in that GraphSON: GraphSON 3
    /// typed writes every value; the others only what they can represent.
    pub fn write(v: &Value, version: u8, typed: bool) -> Result<String, EncodeError> {
        crate::protocol::ws3::graphson::write_binding(v, serializer(version, typed))
    }
}

/// gremlin-lang literals: [`lang::parse`], [`lang::parse_prefix`] and
/// [`Lit::to_gremlin`](crate::lang::Lit::to_gremlin).
#[cfg(any(feature = "http", feature = "serde"))]
pub mod lang {
    pub use crate::lang::Lit;

    /// [`Lit::parse`](crate::lang::Lit::parse) without feature `http` (the fuzz targets build
    /// with `serde` only), its error as text.
    pub fn parse(text: &str) -> Result<Lit, String> {
        Lit::parse_text(text).map_err(|e| e.to_string())
    }

    /// [`Lit::parse_prefix`](crate::lang::Lit::parse_prefix), as [`parse`].
    pub fn parse_prefix(text: &str) -> Result<(Lit, usize), String> {
        Lit::parse_prefix_text(text).map_err(|e| e.to_string())
    }
}
