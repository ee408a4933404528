//! A per-stream string interner.
//!
//! Vertex labels, edge labels and property keys repeat in almost every result of a response.
//! Interning them hands out one shared `Arc<str>` per distinct string instead of allocating
//! each occurrence, which is most of the allocation cost of decoding graph elements.

use std::collections::HashSet;
use std::sync::Arc;

/// Strings longer than this are never interned (they are unlikely to repeat).
pub const MAX_INTERNED_LEN: usize = 64;
/// At most this many distinct strings are kept; past it, strings are allocated as usual.
/// Bounds the memory a hostile response can pin.
pub const MAX_INTERNED_ENTRIES: usize = 4096;

/// Interns short strings as shared `Arc<str>`, bounded in size.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    set: HashSet<Arc<str>>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns a shared copy of `s`, reusing an earlier one when there is one.
    #[inline]
    pub fn intern(&mut self, s: &str) -> Arc<str> {
        if s.len() > MAX_INTERNED_LEN {
            return Arc::from(s);
        }
        if let Some(a) = self.set.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        if self.set.len() < MAX_INTERNED_ENTRIES {
            self.set.insert(a.clone());
        }
        a
    }

    /// How many distinct strings are held.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether no string is held.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}
