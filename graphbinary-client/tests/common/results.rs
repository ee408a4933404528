//! Shared helpers of the client tests for the one thing nearly all of them do with a response:
//! send it and take its results, failing the test (with the query in the message) on any error.
//! Included by path (`#[path = "common/results.rs"] mod results;`), beside `capture` or
//! `gremlin_server`.

#![allow(dead_code)]

use std::future::IntoFuture;

use graphbinary_client::client::{Error, ResultStream};
use graphbinary_client::model::Value;

/// The single result of a request (`c.submit(q)`, `c.request(q)...` or `...send()`), as `T`.
pub async fn one_as<T>(sent: impl IntoFuture<Output = Result<ResultStream, Error>>) -> T
where
    T: TryFrom<Value>,
    T::Error: std::fmt::Display,
{
    sent.await
        .expect("request failed")
        .one()
        .await
        .expect("no single result")
}

/// Every result of a sent request, deserialized as `T` (serde).
#[cfg(feature = "serde")]
pub async fn collect_as<T>(sent: impl IntoFuture<Output = Result<ResultStream, Error>>) -> Vec<T>
where
    T: serde::de::DeserializeOwned,
{
    use futures::TryStreamExt;
    sent.await
        .expect("request failed")
        .typed()
        .try_collect()
        .await
        .expect("results do not deserialize")
}
