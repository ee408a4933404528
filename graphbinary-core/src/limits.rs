//! Limits that protect a reader from hostile or broken input.

/// Limits checked while decoding, before any allocation is made on the strength of a length
/// field.
///
/// The defaults are generous enough for any real Gremlin Server response and small enough
/// that a hostile length cannot exhaust memory.
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
