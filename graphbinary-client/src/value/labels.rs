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
    write, Cursor, Decode, DecodeError, Encode, EncodeError, FastResult, FqDecode, FqEncode,
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
/// use graphbinary_client::value::Labels;
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
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move { Ok(Labels::from(Vec::<Arc<str>>::decode_slow(buf).await?)) }
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
