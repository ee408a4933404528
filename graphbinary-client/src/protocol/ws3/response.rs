//! The GraphBinary 1 response message: one per WebSocket message, one batch of results each.

use std::collections::VecDeque;

use graphbinary_core::{Cursor, DecodeError, ErrorKind, FastResult, Interner, Limits};
use uuid::Uuid;

use crate::value::{complete, Value};

use crate::format::graphbinary1::codes;
use crate::format::graphbinary1::custom::{self, CustomTypes};
use crate::format::graphbinary1::decode_value;

/// `{0x81}{request id: nullable UUID}{status Int}{message: nullable String}{attributes Map}
/// {meta Map}{result data: one fq value}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseMessage {
    /// The id of the request answered (null only for errors the server cannot attribute).
    pub request_id: Option<Uuid>,
    /// 200 success (last batch), 204 no content, 206 partial content (more batches follow),
    /// 407 authentication required, 4xx/5xx errors.
    pub status: i32,
    /// The status message (`""` on success; the error message otherwise).
    pub message: Option<String>,
    /// Status attributes (`host`; on errors `exceptions` and `stackTrace`).
    pub attributes: Vec<(Value, Value)>,
    /// Result meta data.
    pub meta: Vec<(Value, Value)>,
    /// The batch: a List of results (Traversers for `bytecode` requests), `FE 01` when empty.
    pub data: Value,
    /// For each item of `data` (when it is a List): the bulk of that result, 1 unless the item
    /// was a Traverser, whose value then stands in `data` in its place.
    pub bulks: Vec<i64>,
}

impl ResponseMessage {
    /// The results of this batch with their bulks: the items of a List (a Traverser gives its
    /// value with its bulk), nothing for a null, else the one value.
    pub fn results(self) -> Vec<(Value, i64)> {
        match self.data {
            Value::List(items) if self.bulks.len() == items.len() => {
                items.into_iter().zip(self.bulks).collect()
            }
            Value::Null(_) => Vec::new(),
            other => vec![(other, 1)],
        }
    }

    /// The value of attribute `key`, if any.
    #[cfg(feature = "test-util")]
    pub fn attribute(&self, key: &str) -> Option<&Value> {
        self.attributes
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }
}

/// Decodes one whole response message (a WebSocket message's payload, which carries no mime
/// prefix). Truncation is an `UnexpectedEof` at the end of `bytes`; trailing bytes are an error.
#[cfg(feature = "test-util")]
pub fn decode_response(bytes: &[u8], limits: &Limits) -> Result<ResponseMessage, DecodeError> {
    decode_response_with(bytes, limits, &CustomTypes::janusgraph())
}

/// [`decode_response`] with the readers of `custom` for custom types (e.g.
/// [`CustomTypes::janusgraph`] for JanusGraph's edge ids).
pub fn decode_response_with(
    bytes: &[u8],
    limits: &Limits,
    custom: &CustomTypes,
) -> Result<ResponseMessage, DecodeError> {
    custom::scoped(custom, || decode_here(bytes, limits, None, None))
}

/// [`decode_response_with`], sharing labels and property keys through `interner`: kept across
/// the messages of one request, a label repeated over its results is one allocation, not one
/// per element (as the GraphBinary 4 reader's buffer does over a response).
pub(crate) fn decode_response_interned(
    bytes: &[u8],
    limits: &Limits,
    custom: &CustomTypes,
    interner: &mut Interner,
    into: Option<&mut VecDeque<(Value, i64)>>,
) -> Result<ResponseMessage, DecodeError> {
    custom::scoped(custom, || decode_here(bytes, limits, Some(interner), into))
}

/// Where the results of a List batch go: the message's `data` (and `bulks`), or, for a
/// stream, straight onto its queue (no List built, then taken apart).
type Sink<'a> = Option<&'a mut VecDeque<(Value, i64)>>;

fn decode_here(
    bytes: &[u8],
    limits: &Limits,
    interner: Option<&mut Interner>,
    mut into: Sink<'_>,
) -> Result<ResponseMessage, DecodeError> {
    let mut cur = Cursor::new(bytes, 0, limits);
    if let Some(i) = interner {
        cur = cur.with_interner(i);
    }
    // A message that fails leaves the queue as it was.
    let before = into.as_deref().map_or(0, VecDeque::len);
    let r = decode(&mut cur, into.as_deref_mut());
    if r.is_err() {
        if let Some(q) = into {
            q.truncate(before);
        }
    }
    let msg = complete(r, bytes.len(), "a GraphBinary 1 response message")?;
    crate::value::expect_end(
        &cur,
        bytes.len(),
        "GraphBinary 1 response message",
        "bytes after the result data",
    )?;
    Ok(msg)
}

fn decode(cur: &mut Cursor<'_>, into: Sink<'_>) -> FastResult<ResponseMessage> {
    let at = cur.offset();
    let version = cur.read_u8()?;
    if version != 0x81 {
        return Err(cur.error_at(
            at,
            ErrorKind::Invalid {
                what: "response version",
                detail: format!("0x{version:02x}, expected 0x81 (GraphBinary 1)"),
            },
        ));
    }
    let request_id = if cur.read_nullable_flag("request id")? {
        Some(cur.read_uuid()?)
    } else {
        None
    };
    let status = cur.read_i32()?;
    let message = if cur.read_nullable_flag("status message")? {
        Some(cur.read_str()?.to_owned())
    } else {
        None
    };
    let attributes = bare_map(cur, "status attributes")?;
    let meta = bare_map(cur, "result meta")?;
    let (data, bulks) = decode_data(cur, into)?;
    Ok(ResponseMessage {
        request_id,
        status,
        message,
        attributes,
        meta,
        data,
        bulks,
    })
}

fn bare_map(cur: &mut Cursor<'_>, what: &'static str) -> FastResult<Vec<(Value, Value)>> {
    cur.read_counted(what, 4, |cur| Ok((decode_value(cur)?, decode_value(cur)?)))
}

/// Where [`decode_data`] puts a List's items.
enum Out<'a> {
    Message(&'a mut Vec<Value>, &'a mut Vec<i64>),
    Queue(&'a mut VecDeque<(Value, i64)>),
}

impl Out<'_> {
    #[inline]
    fn push(&mut self, v: Value, bulk: i64) {
        match self {
            Out::Message(items, bulks) => {
                items.push(v);
                bulks.push(bulk);
            }
            Out::Queue(q) => q.push_back((v, bulk)),
        }
    }
}

/// The result data; a List's Traverser items are unwrapped into (value, bulk) here, so that a
/// BulkSet result stays distinguishable from a batch of Traversers. With `into`, a List's
/// items go there and the data is left an empty List.
fn decode_data(cur: &mut Cursor<'_>, into: Sink<'_>) -> FastResult<(Value, Vec<i64>)> {
    let rest = cur.remaining();
    if rest.len() < 2 || rest[0] != codes::LIST || rest[1] != 0x00 {
        return Ok((decode_value(cur)?, Vec::new()));
    }
    cur.read_array::<2>()?;
    cur.enter()?;
    let n = cur.read_count("result data")?;
    cur.require(n.saturating_mul(2))?;
    let (mut items, mut bulks) = (Vec::new(), Vec::new());
    let mut out = match into {
        Some(q) => {
            q.reserve(n);
            Out::Queue(q)
        }
        None => {
            items.reserve(n);
            bulks.reserve(n);
            Out::Message(&mut items, &mut bulks)
        }
    };
    for _ in 0..n {
        let r = cur.remaining();
        if r.len() >= 2 && r[0] == codes::TRAVERSER && r[1] == 0x00 {
            cur.read_array::<2>()?;
            cur.enter()?;
            let bulk = cur.read_i64()?;
            let v = decode_value(cur)?;
            cur.leave();
            out.push(v, bulk);
        } else {
            out.push(decode_value(cur)?, 1);
        }
    }
    cur.leave();
    Ok((Value::List(items), bulks))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count response Gremlin Server 3.7.3 sent (doc section 1): its status, message and
    /// `host` attribute, besides the one result (tests/offline/v1_conformance.rs reads the
    /// results through the public `decode_graphbinary1_response`).
    #[test]
    fn a_response_message_keeps_its_status_message_and_attributes() {
        let mut count = vec![0x81, 0x00];
        count.extend_from_slice(&[0xab; 16]);
        count.extend_from_slice(&[0, 0, 0, 200, 0x00, 0, 0, 0, 0]);
        count.extend_from_slice(&[0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 4]);
        count.extend_from_slice(b"host");
        count.extend_from_slice(&[0x03, 0x00, 0, 0, 0, 16]);
        count.extend_from_slice(b"/127.0.0.1:44626");
        count.extend_from_slice(&[
            0, 0, 0, 0, 0x09, 0x00, 0, 0, 0, 1, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 6,
        ]);
        let msg = decode_response_with(&count, &Limits::default(), &CustomTypes::new()).unwrap();
        assert_eq!(msg.request_id, Some(Uuid::from_bytes([0xab; 16])));
        assert_eq!(msg.status, 200);
        assert_eq!(msg.message.as_deref(), Some(""));
        assert_eq!(
            msg.attributes,
            vec![(
                Value::String("host".into()),
                Value::String("/127.0.0.1:44626".into())
            )]
        );
        assert_eq!(msg.results(), vec![(Value::Long(6), 1)]);
    }
}
