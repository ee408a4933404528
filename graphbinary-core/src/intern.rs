//! A per-stream string interner.
//!
//! Vertex labels, edge labels and property keys repeat in almost every result of a response.
//! Interning them hands out one shared `Arc<str>` per distinct string instead of allocating
//! each occurrence, which is most of the allocation cost of decoding graph elements.
//!
//! A hit is on the hot path of every element decoded, so the table is a small open-addressing
//! one of our own: the hash reads the bytes in place with overlapping word loads, and a hit is
//! confirmed by comparing the full hash and then the bytes with the same word loads, inline
//! (no call to `memcmp`).

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
    /// Open addressing with linear probing; the length is zero or a power of two, at least
    /// twice the number of entries.
    slots: Vec<Option<(u64, Arc<str>)>>,
    len: usize,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[inline]
fn mix(h: u64, word: u64) -> u64 {
    (h.rotate_left(5) ^ word).wrapping_mul(SEED)
}

#[inline]
fn word(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

#[inline]
fn half(b: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(
        b[at..at + 4].try_into().expect("4 bytes"),
    ))
}

/// The bytes after the whole words, read in place (overlapping the last word when there is
/// one): copying a tail into a zeroed stack word and loading it back stalls store forwarding.
#[inline]
fn tail(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 8 {
        word(b, n - 8)
    } else if n >= 4 {
        half(b, 0) | (half(b, n - 4) << 32)
    } else if n > 0 {
        u64::from(b[0]) | (u64::from(b[n / 2]) << 8) | (u64::from(b[n - 1]) << 16)
    } else {
        0
    }
}

/// The hash of a byte string (its length included).
#[inline]
fn hash(b: &[u8]) -> u64 {
    let n = b.len();
    let mut h = mix(0, n as u64);
    let mut at = 0;
    while at + 8 <= n {
        h = mix(h, word(b, at));
        at += 8;
    }
    if n % 8 != 0 {
        h = mix(h, tail(b));
    }
    // Spread the high bits into the low ones, which pick the slot.
    h ^ (h >> 29)
}

/// Byte equality for short strings without a call: whole words, then the overlapping tail.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n > 16 {
        return a == b;
    }
    let mut at = 0;
    while at + 8 <= n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    tail(a) == tail(b)
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
        let h = hash(s.as_bytes());
        match self.find(h, s.as_bytes()) {
            Ok(hit) => hit,
            Err(slot) => self.insert(slot, h, s),
        }
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
        let h = hash(bytes);
        match self.find(h, bytes) {
            Ok(hit) => Ok(hit),
            Err(slot) => Ok(self.insert(slot, h, crate::cursor::from_utf8(bytes)?)),
        }
    }

    /// The held string equal to `bytes`, or the free slot where it would go (`None` when the
    /// table has no slots yet).
    #[inline]
    fn find(&self, h: u64, bytes: &[u8]) -> Result<Arc<str>, Option<usize>> {
        if self.slots.is_empty() {
            return Err(None);
        }
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            match &self.slots[i] {
                None => return Err(Some(i)),
                Some((h2, s)) if *h2 == h && same(s.as_bytes(), bytes) => return Ok(s.clone()),
                Some(_) => i = (i + 1) & mask,
            }
        }
    }

    /// Allocates `s` and keeps it when there is room.
    #[cold]
    fn insert(&mut self, slot: Option<usize>, h: u64, s: &str) -> Arc<str> {
        let a: Arc<str> = Arc::from(s);
        if self.len >= MAX_INTERNED_ENTRIES {
            return a;
        }
        let slot = match slot {
            Some(i) if (self.len + 1) * 2 <= self.slots.len() => i,
            _ => {
                self.grow();
                self.free_slot(h)
            }
        };
        self.slots[slot] = Some((h, a.clone()));
        self.len += 1;
        a
    }

    /// Doubles the table (at least 64 slots) and re-inserts what it holds.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![None; size]);
        for (h, s) in old.into_iter().flatten() {
            let i = self.free_slot(h);
            self.slots[i] = Some((h, s));
        }
    }

    fn free_slot(&self, h: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        while self.slots[i].is_some() {
            i = (i + 1) & mask;
        }
        i
    }

    /// How many distinct strings are held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no string is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
