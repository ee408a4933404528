//! A per-stream string interner.
//!
//! Vertex labels, edge labels and property keys repeat in almost every result of a response.
//! Interning them hands out one shared `Arc<str>` per distinct string instead of allocating
//! each occurrence, which is most of the allocation cost of decoding graph elements.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::str::Utf8Error;
use std::sync::Arc;

/// Strings longer than this are never interned (they are unlikely to repeat).
pub const MAX_INTERNED_LEN: usize = 64;
/// At most this many distinct strings are kept; past it, strings are allocated as usual.
/// Bounds the memory a hostile response can pin.
pub const MAX_INTERNED_ENTRIES: usize = 4096;

/// Interns short strings as shared `Arc<str>`, bounded in size.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    set: HashSet<Key, BuildHasherDefault<WordHasher>>,
}

/// An interned string, found by its bytes, so that a hit needs no UTF-8 validation.
#[derive(Debug, Clone)]
struct Key(Arc<str>);

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_bytes() == other.0.as_bytes()
    }
}
impl Eq for Key {}
impl Hash for Key {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.as_bytes().hash(state)
    }
}
impl Borrow<[u8]> for Key {
    #[inline]
    fn borrow(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// A fast non-cryptographic hasher for the short strings the interner holds (a word-at-a-time
/// multiply-rotate hash). The interner is per stream and bounded in size, so hash flooding
/// can at worst slow one response's lookups within [`MAX_INTERNED_ENTRIES`] entries; SipHash
/// cost a tenth of the decoding time of a vertex-heavy response.
#[derive(Debug, Default, Clone, Copy)]
struct WordHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
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
        if let Some(k) = self.set.get(s.as_bytes()) {
            return k.0.clone();
        }
        self.insert(s)
    }

    /// Like [`Interner::intern`] for bytes that should be UTF-8: bytes equal to a held string
    /// return it without validation (a held string is valid UTF-8); other bytes are validated.
    ///
    /// ```
    /// let mut i = graphbinary_core::Interner::new();
    /// let a = i.intern_utf8(b"person").unwrap();
    /// assert!(std::sync::Arc::ptr_eq(&a, &i.intern_utf8(b"person").unwrap()));
    /// assert!(i.intern_utf8(&[0xff]).is_err());
    /// ```
    #[inline]
    pub fn intern_utf8(&mut self, bytes: &[u8]) -> Result<Arc<str>, Utf8Error> {
        if bytes.len() > MAX_INTERNED_LEN {
            return std::str::from_utf8(bytes).map(Arc::from);
        }
        if let Some(k) = self.set.get(bytes) {
            return Ok(k.0.clone());
        }
        Ok(self.insert(std::str::from_utf8(bytes)?))
    }

    /// Allocates `s` and keeps it when there is room (`s` is short and not held yet).
    fn insert(&mut self, s: &str) -> Arc<str> {
        let a: Arc<str> = Arc::from(s);
        if self.set.len() < MAX_INTERNED_ENTRIES {
            self.set.insert(Key(a.clone()));
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
