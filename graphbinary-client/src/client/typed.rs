//! Typed results (feature `serde`): the result streams deserialize each result straight into
//! the caller's type, through the [`de`](crate::format::de) module's reader.

use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use graphbinary_core::{Cursor, Decode, DecodeError, FastError, FastResult, Fq};
use serde::de::DeserializeOwned;

use super::{Error, ResultStream, TraverserStream};
use crate::format::de::{convert, read_fq, whole, Borrowed, Error as DeError};

/// Deserializes one `T` from `bytes` (exactly one value), offsets counted from `at`.
fn from_bytes_at<T: DeserializeOwned>(bytes: &[u8], at: u64) -> Result<T, DeError> {
    let limits = crate::ReadOptions::default().limits;
    let mut cur = Cursor::new(bytes, at, &limits);
    whole::<T, Borrowed>(&mut cur, bytes.len())
}

/// A result's bytes and offset, kept to deserialize it again for each further bulk.
type Kept = Option<(Vec<u8>, u64)>;

/// Fast path: a `T`, keeping its bytes (and offset) when a bulk after it says it repeats.
fn read_keeping<T: DeserializeOwned>(cur: &mut Cursor<'_>, bulked: bool) -> FastResult<(T, Kept)> {
    let data = cur.remaining();
    let at = cur.offset();
    let p0 = cur.position();
    let v = read_fq::<T>(cur)?;
    let len = cur.position() - p0;
    if !bulked {
        return Ok((v, None));
    }
    // Peek the bulk (a fully-qualified Long), which the caller reads.
    let keep = match cur.remaining() {
        [0x02, 0x00, b @ ..] if b.len() >= 8 => {
            let bulk = i64::from_be_bytes(b[..8].try_into().expect("8 bytes"));
            (bulk > 1).then(|| (data[..len].to_vec(), at))
        }
        r if r.len() < 10 => return Err(FastError::NeedMore(cur.position() + 10)),
        _ => None,
    };
    Ok((v, keep))
}

impl ResultStream {
    /// The results as a [`Stream`] of `T`s, each deserialized straight from the response's
    /// bytes (see [`de`](crate::format::de) for the mapping). A bulked result is yielded once per bulk.
    ///
    /// A result that does not fit `T` ends the stream with [`Error::Decode`], whose offset is
    /// that result's and whose detail names the field path and the reason.
    ///
    /// ```no_run
    /// use futures::TryStreamExt;
    /// use serde::Deserialize;
    ///
    /// #[derive(Debug, Deserialize)]
    /// struct Person {
    ///     id: i64,
    ///     name: String,
    ///     age: i32,
    /// }
    ///
    /// # async fn f() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::Client::new("http://localhost:8182/gremlin")?;
    /// let people: Vec<Person> = client
    ///     .submit("g.V().hasLabel('person').elementMap()")
    ///     .await?
    ///     .typed::<Person>()
    ///     .try_collect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn typed<T: DeserializeOwned>(self) -> Typed<T> {
        Typed {
            inner: self.traversers(),
            repeat: None,
            item: PhantomData,
        }
    }

    /// Calls `f` with each result deserialized into a `T`, in order, until the response ends:
    /// what [`ResultStream::typed`] yields, for less work per result (the buffered results
    /// are deserialized in one synchronous loop, as in
    /// [`ResponseStream::for_each_result`](crate::protocol::http4::response::ResponseStream::for_each_result)). A bulked result is passed once per bulk.
    ///
    /// ```no_run
    /// # async fn f(client: graphbinary_client::Client) -> Result<(), graphbinary_client::client::Error> {
    /// let mut total = 0i64;
    /// client
    ///     .submit("g.V().values('age')")
    ///     .await?
    ///     .for_each_as(|age: i64| total += age)
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub async fn for_each_as<T: DeserializeOwned>(self, mut f: impl FnMut(T)) -> Result<(), Error> {
        let mut t = self.traversers();
        let mut failed: Option<DecodeError> = None;
        t.drive(
            read_keeping::<T>,
            |v, at| {
                let bytes = v.to_bytes().ok();
                let t = convert::<T>(v, at)?;
                Ok((t, bytes.map(|b| (b, at))))
            },
            |(v, keep), bulk| {
                if bulk <= 0 || failed.is_some() {
                    return;
                }
                f(v);
                if let Some((bytes, at)) = keep {
                    for _ in 1..bulk {
                        match from_bytes_at::<T>(&bytes, at) {
                            Ok(v) => f(v),
                            Err(e) => {
                                failed = Some(e.into_decode_error());
                                break;
                            }
                        }
                    }
                }
            },
        )
        .await?;
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}

impl TraverserStream {
    /// Calls `f` with each remaining result deserialized into a `T` and its bulk (bulks not
    /// expanded); see [`ResultStream::for_each_as`].
    pub async fn for_each_as<T: DeserializeOwned>(
        &mut self,
        f: impl FnMut(T, i64),
    ) -> Result<(), Error> {
        self.drive(|c, _| read_fq::<T>(c), convert::<T>, f).await
    }
}

/// The results of a request as a [`Stream`] of `T`s; made by [`ResultStream::typed`].
pub struct Typed<T> {
    inner: TraverserStream,
    /// A bulked result still to be yielded `.2` more times: its bytes and offset.
    repeat: Option<(Vec<u8>, u64, u64)>,
    item: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for Typed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Typed")
            .field("inner", &self.inner)
            .field("type", &std::any::type_name::<T>())
            .finish_non_exhaustive()
    }
}

impl<T> Typed<T> {
    /// The underlying stream of traversers (for its status, counters and request id).
    pub fn get_ref(&self) -> &TraverserStream {
        &self.inner
    }
}

type Got<T> = (T, i64, Kept);

impl<T: DeserializeOwned> Stream for Typed<T> {
    type Item = Result<T, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some((bytes, at, left)) = &mut this.repeat {
            let r = from_bytes_at::<T>(bytes, *at).map_err(|e| Error::from(e.into_decode_error()));
            *left -= 1;
            if *left == 0 {
                this.repeat = None;
            }
            return Poll::Ready(Some(r));
        }
        loop {
            let got = this.inner.poll_with(
                cx,
                |cur, bulked| -> FastResult<Got<T>> {
                    let (v, keep) = read_keeping::<T>(cur, bulked)?;
                    let bulk = if bulked { Fq::<i64>::decode(cur)?.0 } else { 1 };
                    Ok((v, bulk, keep))
                },
                |t, at| {
                    let keep = if t.bulk > 1 {
                        t.value.to_bytes().ok().map(|b| (b, at))
                    } else {
                        None
                    };
                    Ok((convert::<T>(t.value, at)?, t.bulk, keep))
                },
            );
            match got {
                Poll::Ready(Some(Ok((v, bulk, keep)))) => {
                    if bulk <= 0 {
                        continue;
                    }
                    if let (true, Some((bytes, at))) = (bulk > 1, keep) {
                        this.repeat = Some((bytes, at, bulk as u64 - 1));
                    }
                    return Poll::Ready(Some(Ok(v)));
                }
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
