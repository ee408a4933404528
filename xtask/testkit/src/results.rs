//! Shared helpers of the client tests for the one thing nearly all of them do with a response:
//! send it and take its results, failing the test (with the query in the message) on any error.
//! Used beside `capture` or `gremlin_server`.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::future::IntoFuture;

use graphbinary_client::client::{Client, Error, RequestBuilder, ResultStream};
use graphbinary_client::process::{GraphTraversalSource, T};
use graphbinary_client::value::Value;

/// The single result of a request (`c.submit(q)`, `c.request(q)...` or `...send()`), as `T`.
pub async fn one_as<T>(sent: impl IntoFuture<Output = Result<ResultStream, Error>>) -> T
where
    T: TryFrom<Value>,
    T::Error: std::fmt::Display + 'static,
{
    sent.await
        .expect("request failed")
        .one()
        .await
        .expect("no single result")
}

/// Every result of a sent request, deserialized as `T` (serde).
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

/// The one set-up nearly every test repeats on a request it sends (`c.submit(q)`,
/// `c.request(q)...`, `tx.request(q)`, `...send()`): send it and take its results, failing the
/// test on any error, as `....await.unwrap().one().await.unwrap()` and kin would.
#[allow(async_fn_in_trait)] // the tests' own helper, awaited on one task
pub trait Sent: IntoFuture<Output = Result<ResultStream, Error>> + Sized {
    /// The single result, as `T`.
    async fn expect_one<T>(self) -> T
    where
        T: TryFrom<Value>,
        T::Error: std::fmt::Display + 'static,
    {
        one_as(self).await
    }

    /// Every result.
    async fn expect_all(self) -> Vec<Value> {
        self.await
            .expect("request failed")
            .all()
            .await
            .expect("results failed")
    }

    /// Every result, deserialized as `T` (serde).
    async fn expect_typed<T: serde::de::DeserializeOwned>(self) -> Vec<T> {
        collect_as(self).await
    }

    /// How many results (a bulked result counts its bulk).
    async fn expect_count(self) -> u64 {
        self.await
            .expect("request failed")
            .count()
            .await
            .expect("results failed")
    }
}

impl<F: IntoFuture<Output = Result<ResultStream, Error>>> Sent for F {}

/// How many vertices (or, with `edges`, edges) of `g` have each label
/// (`groupCount().by(T.label)`); a count that is not a Long fails the test.
pub async fn server_label_counts(g: &GraphTraversalSource, edges: bool) -> BTreeMap<String, i64> {
    let t = if edges { g.e(()) } else { g.v(()) };
    let v = t
        .group_count(())
        .by(T::Label)
        .next()
        .await
        .unwrap()
        .unwrap();
    let Value::Map(entries) = v else {
        panic!("a map: {v:?}")
    };
    entries
        .into_iter()
        .map(|(k, n)| match n {
            Value::Long(n) => (k.as_str().unwrap().to_owned(), n),
            other => panic!("{k:?}: a Long count, not {other:?}"),
        })
        .collect()
}

/// `c.request(gremlin)` asking for bulked results (a result once with its bulk, which the
/// stream expands unless asked for traversers).
pub fn bulked(c: &Client, gremlin: &str) -> RequestBuilder {
    c.request(gremlin).bulk_results(true)
}
