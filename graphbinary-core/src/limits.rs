//! Limits that protect a reader from hostile or broken input.

/// Limits checked while decoding, before any allocation is made on the strength of a length
/// field.
///
/// The defaults are generous enough for any real Gremlin Server response and small enough
/// that a hostile length cannot exhaust memory.
///
/// # How lengths are checked
///
/// Every 4-byte length or count is checked as soon as it is read, before anything is allocated
/// on its strength:
///
/// * a negative value is [`ErrorKind::NegativeLength`](crate::ErrorKind::NegativeLength);
/// * a String, Binary or BigInteger length above [`Limits::max_bytes_len`], or a collection
///   count above [`Limits::max_collection_len`], is
///   [`ErrorKind::LengthLimit`](crate::ErrorKind::LengthLimit) with that limit;
/// * when [`Limits::max_response_size`] is set, a length (or count: every item takes at least
///   one byte) larger than the bytes the response may still hold after the length field is
///   `LengthLimit` with `limit` = those remaining bytes ("beyond what the response can still
///   contain").
///
/// All three are reported at the offset of the length field. Without a response size limit the
/// readers cannot know in advance how much is left; they then never allocate more than what
/// has arrived (the fast path only decodes a collection whose minimal size is buffered, the
/// slow path grows its storage as bytes arrive), and a stream that ends early is
/// [`ErrorKind::UnexpectedEof`](crate::ErrorKind::UnexpectedEof) at the end offset.
///
/// Nesting is checked before recursing: entering a container deeper than
/// [`Limits::max_depth`] is [`ErrorKind::DepthLimit`](crate::ErrorKind::DepthLimit) at the
/// offset just after the container's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest String, Binary or BigInteger payload in bytes. Default 256 MiB.
    pub max_bytes_len: usize,
    /// Largest element count of a List, Set, Map, Tree, Path or Graph. Default 64 Mi.
    pub max_collection_len: usize,
    /// Deepest nesting of container values. Default 512.
    pub max_depth: u32,
    /// Largest stream (response body) in bytes; `None` for no limit. Default `None`.
    pub max_response_size: Option<u64>,
}

impl Limits {
    /// The default limits (see the field docs).
    pub const DEFAULT: Limits = Limits {
        max_bytes_len: 256 << 20,
        max_collection_len: 64 << 20,
        max_depth: 512,
        max_response_size: None,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
