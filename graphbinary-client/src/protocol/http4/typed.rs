//! Typed results over any [`ResponseStream`] (no HTTP client needed).

use serde::de::DeserializeOwned;
use tokio::io::AsyncRead;

use crate::format::de::convert;
use crate::protocol::http4::response::{ResponseError, ResponseStream};

impl<R: AsyncRead + Unpin + Send + 'static> ResponseStream<R> {
    /// Calls `f` with each remaining result deserialized into a `T` (see [`de`](crate::format::de))
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
        crate::protocol::http4::results_as::drive(
            self,
            |c, _| crate::format::de::read_fq::<T>(c),
            convert::<T>,
            None,
            f,
        )
        .await
    }
}
