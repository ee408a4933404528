//! [`Labels`]: an element's label list (a GraphBinary `List` of Strings) that keeps the usual
//! single label inline instead of in a one-item `Vec`.

#![allow(clippy::manual_async_fn)]

use std::fmt;
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use bytes::BufMut;
use graphbinary_core::{
    codes, write, Cursor, Decode, DecodeError, Encode, EncodeError, FastResult, FqDecode, FqEncode,
    ReadBuffer, Typed,
};
use tokio::io::AsyncRead;

/// The labels of a graph element: a `List {value}` of fully-qualified Strings on the wire.
///
/// Almost every element has exactly one label; it is held inline, so decoding it allocates
/// nothing beyond the (interned) string. Dereferences to `[Arc<str>]`, and compares, hashes
/// and prints like the equivalent `Vec<Arc<str>>` (one label held inline equals a one-item
/// list).
///
/// ```
/// use std::sync::Arc;
/// use graphbinary_client::model::Labels;
///
/// let l = Labels::from(Arc::<str>::from("person"));
/// assert_eq!(&l[..], &[Arc::<str>::from("person")]);
/// assert_eq!(l, Labels::from(vec![Arc::<str>::from("person")]));
/// assert_eq!(format!("{l:?}"), r#"["person"]"#);
/// ```
#[derive(Clone)]
pub enum Labels {
    /// Exactly one label (the common case), held inline.
    One(Arc<str>),
    /// Any other number of labels.
    Many(Vec<Arc<str>>),
}

impl Labels {
    /// The labels as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Arc<str>] {
        match self {
            Labels::One(a) => std::slice::from_ref(a),
            Labels::Many(v) => v,
        }
    }

    /// The labels as a `Vec`.
    pub fn into_vec(self) -> Vec<Arc<str>> {
        match self {
            Labels::One(a) => vec![a],
            Labels::Many(v) => v,
        }
    }
}

impl Default for Labels {
    fn default() -> Self {
        Labels::Many(Vec::new())
    }
}

impl Deref for Labels {
    type Target = [Arc<str>];
    #[inline]
    fn deref(&self) -> &[Arc<str>] {
        self.as_slice()
    }
}

impl AsRef<[Arc<str>]> for Labels {
    fn as_ref(&self) -> &[Arc<str>] {
        self.as_slice()
    }
}

impl PartialEq for Labels {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}
impl Eq for Labels {}

impl PartialEq<Vec<Arc<str>>> for Labels {
    fn eq(&self, other: &Vec<Arc<str>>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Hash for Labels {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl From<Arc<str>> for Labels {
    fn from(a: Arc<str>) -> Self {
        Labels::One(a)
    }
}

impl From<Vec<Arc<str>>> for Labels {
    fn from(mut v: Vec<Arc<str>>) -> Self {
        if v.len() == 1 {
            Labels::One(v.pop().expect("one item"))
        } else {
            Labels::Many(v)
        }
    }
}

impl From<Labels> for Vec<Arc<str>> {
    fn from(l: Labels) -> Self {
        l.into_vec()
    }
}

impl FromIterator<Arc<str>> for Labels {
    fn from_iter<I: IntoIterator<Item = Arc<str>>>(iter: I) -> Self {
        Labels::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a Labels {
    type Item = &'a Arc<str>;
    type IntoIter = std::slice::Iter<'a, Arc<str>>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// The List layout of `Vec<Arc<str>>`: `{length}{fq String}...`.
impl Decode for Labels {
    const EXPECTED: &'static str = "List";
    #[inline]
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        // The usual label, one fully-qualified String (count 1, `03 00`), its six bytes
        // checked at once when the limits admit the count and the List's depth (else the
        // steps below name the error): what the steps below do for it, to the same result and
        // errors (`labels_fast_path_agrees_with_the_steps`).
        if let [0, 0, 0, 1, codes::STRING, 0x00, ..] = *cur.remaining() {
            let l = cur.limits();
            if cur.depth() < l.max_depth
                && l.max_collection_len >= 1
                && l.max_response_size
                    .is_none_or(|max| cur.offset().saturating_add(4) < max)
            {
                cur.read_array::<6>()?;
                return cur.read_interned_str().map(Labels::One);
            }
        }
        Labels::decode_steps(cur)
    }
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move { Ok(Labels::from(Vec::<Arc<str>>::decode_slow(buf).await?)) }
    }
}

impl Labels {
    /// [`Decode::decode`] step by step.
    fn decode_steps(cur: &mut Cursor<'_>) -> FastResult<Self> {
        // The same steps (and errors) as `Vec<Arc<str>>`, without a Vec for one label.
        let n = cur.read_count("List")?;
        cur.require(n.saturating_mul(2))?;
        cur.enter()?;
        let labels = if n == 1 {
            Labels::One(<Arc<str> as FqDecode>::decode_fq(cur)?)
        } else {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(<Arc<str> as FqDecode>::decode_fq(cur)?);
            }
            Labels::Many(v)
        };
        cur.leave();
        Ok(labels)
    }
}

impl Encode for Labels {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        write::put_len(out, self.len(), "List")?;
        for item in self.as_slice() {
            item.encode_fq(out)?;
        }
        Ok(())
    }
}

impl Typed for Labels {
    const TYPE_CODE: u8 = graphbinary_core::codes::LIST;
}
graphbinary_core::impl_fq_via_typed!(Labels);

#[cfg(test)]
mod tests {
    use graphbinary_core::{Interner, Limits};

    use super::*;

    /// The one-label shortcut of [`Labels::decode`] gives what the steps give, at every
    /// truncation, under limits at and around its edges, with and without an interner.
    #[test]
    fn labels_fast_path_agrees_with_the_steps() {
        let mut inputs: Vec<Vec<u8>> = vec![
            vec![
                0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 6, b'p', b'e', b'r', b's', b'o', b'n',
            ],
            vec![0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 0],
            vec![0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 2, 0xc3, 0x28], // invalid UTF-8
            vec![0, 0, 0, 1, 0x03, 0x00, 0xff, 0xff, 0xff, 0xff], // negative length
            vec![0, 0, 0, 1, 0x03, 0x01],                         // a null String
            vec![0, 0, 0, 1, 0x01, 0x00, 0, 0, 0, 1],             // not a String
            vec![
                0, 0, 0, 2, 0x03, 0x00, 0, 0, 0, 1, b'a', 0x03, 0x00, 0, 0, 0, 1, b'b',
            ],
            vec![0, 0, 0, 0],
        ];
        inputs.push([&[0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 40][..], &[b'x'; 40]].concat());
        let mut limits = vec![Limits::DEFAULT];
        for depth in 0..3 {
            limits.push(Limits {
                max_depth: depth,
                ..Limits::DEFAULT
            });
        }
        for max in 0..24 {
            limits.push(Limits {
                max_response_size: Some(max),
                ..Limits::DEFAULT
            });
        }
        limits.push(Limits {
            max_collection_len: 0,
            ..Limits::DEFAULT
        });
        limits.push(Limits {
            max_bytes_len: 5,
            ..Limits::DEFAULT
        });
        let mut checked = 0;
        for input in &inputs {
            for cut in 0..=input.len() {
                let bytes = &input[..cut];
                for l in &limits {
                    for base in [0u64, 3] {
                        for depth in [0u32, 1] {
                            for interned in [false, true] {
                                let run = |f: fn(&mut Cursor<'_>) -> FastResult<Labels>| {
                                    let mut interner = Interner::new();
                                    let mut cur = Cursor::with_depth(bytes, base, l, depth);
                                    if interned {
                                        cur = cur.with_interner(&mut interner);
                                    }
                                    let r = f(&mut cur);
                                    // After an error the cursor is dropped: only a success
                                    // must leave it where the steps leave it.
                                    let at = r.is_ok().then(|| (cur.position(), cur.depth()));
                                    (format!("{r:?}"), at)
                                };
                                let fast = run(<Labels as Decode>::decode);
                                let steps = run(Labels::decode_steps);
                                assert_eq!(
                                    fast, steps,
                                    "{bytes:02x?} base {base} depth {depth} {l:?}"
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
