//! The client's own limits ([`Limit`]): which one a response went over, told apart from the
//! server's errors and from a connection that failed.

use graphbinary_core::{DecodeError, ErrorKind, Limits};

/// A limit of the client's own, which a response went over (see
/// [`Error::Limit`](crate::client::Error::Limit)): each is set on the
/// [`ClientBuilder`](crate::client::ClientBuilder) and by a flag of the `graphbinary` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// The largest WebSocket message (TinkerPop 3), in bytes.
    MessageSize,
    /// The most bytes of one response in all.
    ResponseSize,
    /// The deepest nesting of values.
    Depth,
    /// The most elements of one collection (List, Set, Map, Path, Tree, Graph).
    CollectionLength,
    /// The most bytes of one String, Binary or BigInteger.
    BytesLength,
}

impl Limit {
    /// The [`ClientBuilder`](crate::client::ClientBuilder) method that sets it, e.g.
    /// `ClientBuilder::max_message_size`.
    pub fn builder_method(self) -> &'static str {
        match self {
            Limit::MessageSize => "ClientBuilder::max_message_size",
            Limit::ResponseSize => "ClientBuilder::max_response_size",
            Limit::Depth => "ClientBuilder::max_depth",
            Limit::CollectionLength => "ClientBuilder::max_collection_len",
            Limit::BytesLength => "ClientBuilder::max_bytes_len",
        }
    }

    /// The flag of the `graphbinary` tool (`query` and `console`) that sets it, e.g.
    /// `--max-message-size`.
    pub fn cli_flag(self) -> &'static str {
        match self {
            Limit::MessageSize => "--max-message-size",
            Limit::ResponseSize => "--max-response-size",
            Limit::Depth => "--max-depth",
            Limit::CollectionLength => "--max-collection-len",
            Limit::BytesLength => "--max-bytes-len",
        }
    }

    /// What is measured against it, for messages: `WebSocket message size`, ...
    pub fn what(self) -> &'static str {
        match self {
            Limit::MessageSize => "WebSocket message size",
            Limit::ResponseSize => "response size",
            Limit::Depth => "nesting depth",
            Limit::CollectionLength => "collection length",
            Limit::BytesLength => "String/Binary length",
        }
    }

    /// The unit of its sizes (`bytes`, `levels`, `elements`).
    pub fn unit(self) -> &'static str {
        match self {
            Limit::MessageSize | Limit::ResponseSize | Limit::BytesLength => "bytes",
            Limit::Depth => "levels",
            Limit::CollectionLength => "elements",
        }
    }

    /// Which limit of `limits` a decoding error went over, with the size seen and the
    /// maximum; `None` for any other error. A length over the room left under
    /// `max_response_size` is [`Limit::ResponseSize`] (seen: where the value would end); a
    /// nesting too deep is seen as one level over the maximum (reading stops there).
    pub(crate) fn of(e: &DecodeError, limits: &Limits) -> Option<(Limit, u64, u64)> {
        match e.kind() {
            ErrorKind::DepthLimit { limit } => {
                Some((Limit::Depth, u64::from(*limit) + 1, u64::from(*limit)))
            }
            ErrorKind::ResponseLimit { limit } => {
                Some((Limit::ResponseSize, limit.saturating_add(1), *limit))
            }
            ErrorKind::LengthLimit {
                what,
                length,
                limit,
            } => {
                let bytes = limits.max_bytes_len as u64;
                let count = limits.max_collection_len as u64;
                let payload = is_payload(what);
                if *limit == bytes && (payload || *limit != count) {
                    Some((Limit::BytesLength, *length, *limit))
                } else if *limit == count {
                    Some((Limit::CollectionLength, *length, *limit))
                } else if let Some(max) = limits.max_response_size {
                    // The room left: the value would end past `max`.
                    let end = max.saturating_sub(*limit).saturating_add(*length);
                    Some((Limit::ResponseSize, end, max))
                } else if payload {
                    Some((Limit::BytesLength, *length, *limit))
                } else {
                    Some((Limit::CollectionLength, *length, *limit))
                }
            }
            _ => None,
        }
    }
}

/// Whether a length is a byte payload's (checked against `max_bytes_len`) rather than a
/// collection's count.
fn is_payload(what: &str) -> bool {
    matches!(
        what,
        "String" | "Binary" | "BigInteger" | "BigDecimal" | "ByteBuffer" | "Char" | "bytes"
    ) || what.ends_with("String")
        || what.contains("name")
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.what())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_decode_limit_names_its_option() {
        let limits = Limits {
            max_bytes_len: 100,
            max_collection_len: 10,
            max_depth: 4,
            max_response_size: Some(1000),
        };
        let e = |k| DecodeError::new(0, k);
        let of = |k| Limit::of(&e(k), &limits);
        assert_eq!(
            of(ErrorKind::DepthLimit { limit: 4 }),
            Some((Limit::Depth, 5, 4))
        );
        let s = ErrorKind::LengthLimit {
            what: "String",
            length: 200,
            limit: 100,
        };
        assert_eq!(of(s), Some((Limit::BytesLength, 200, 100)));
        let l = ErrorKind::LengthLimit {
            what: "List",
            length: 11,
            limit: 10,
        };
        assert_eq!(of(l), Some((Limit::CollectionLength, 11, 10)));
        // 40 bytes left at offset 960, a String of 90 claimed: it would end at 1050.
        let room = ErrorKind::LengthLimit {
            what: "String",
            length: 90,
            limit: 40,
        };
        assert_eq!(of(room), Some((Limit::ResponseSize, 1050, 1000)));
        assert_eq!(
            of(ErrorKind::ResponseLimit { limit: 1000 }),
            Some((Limit::ResponseSize, 1001, 1000))
        );
        assert_eq!(of(ErrorKind::UnknownTypeCode { code: 0x77 }), None);
        assert_eq!(Limit::MessageSize.cli_flag(), "--max-message-size");
        assert_eq!(
            Limit::CollectionLength.builder_method(),
            "ClientBuilder::max_collection_len"
        );
    }
}
