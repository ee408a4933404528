//! Typed results over any [`ResponseStream`] (no HTTP client needed).

use graphbinary_core::DecodeError;
use serde::de::DeserializeOwned;
use tokio::io::AsyncRead;

use super::{from_value_at, Error as DeError};
use crate::response::{ResponseError, ResponseStream};
use crate::value::Value;

/// Slow path: the `Value` the stream read, deserialized into a `T`: a String or Binary (read
/// into one buffer of its exact length) handed over by value, anything else re-encoded and
/// deserialized.
pub(crate) fn convert<T: DeserializeOwned>(value: Value, at: u64) -> Result<T, DecodeError> {
    match super::owned::OwnedDe::new(value, at) {
        Ok(de) => T::deserialize(de),
        Err(value) => from_value_at(&value, at),
    }
    .map_err(DeError::into_decode_error)
}

impl<R: AsyncRead + Unpin + Send + 'static> ResponseStream<R> {
    /// Calls `f` with each remaining result deserialized into a `T` (see [`de`](crate::de))
    /// and its bulk, until the response ends: [`ResponseStream::for_each_result`] for your own
    /// type. A value larger than the read buffer is read by the `Value` slow path; a String or
    /// Binary then goes to the visitor by value (`visit_string`, `visit_byte_buf`: one buffer
    /// of its exact length, no copy), anything else is re-encoded and deserialized by the
    /// same deserializer.
    ///
    /// ```
    /// use graphbinary_client::response::{read_response, ReadOptions};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let body: &'static [u8] = &[
    ///     0x84, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 7,
    ///     0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01,
    /// ];
    /// let mut all = Vec::new();
    /// let mut results = read_response(body, ReadOptions::default());
    /// results.for_each_as(|n: u8, _bulk| all.push(n)).await.unwrap();
    /// assert_eq!(all, [42, 7]);
    /// # });
    /// ```
    ///
    /// # Cancel safety
    /// As [`ResponseStream::for_each_result`].
    pub async fn for_each_as<T: DeserializeOwned>(
        &mut self,
        f: impl FnMut(T, i64),
    ) -> Result<(), ResponseError> {
        crate::drive::drive(self, |c, _| super::read_fq::<T>(c), convert::<T>, None, f).await
    }
}
