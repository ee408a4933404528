//! Sending one script, for `graphbinary query` and the console: on the client, in a TinkerPop 4
//! transaction or in a TinkerPop 3 session, with the same options; results as one stream of
//! `(value, bulk)` whatever the transport.

use std::sync::Arc;

use futures::stream::{BoxStream, StreamExt};
use graphbinary_client::client::{ByteCounters, Client, Error, RequestBuilder, Transaction};
use graphbinary_client::value::Value;

/// Where a script runs.
pub enum Target<'a> {
    /// On the client (its pool).
    Client(&'a Client),
    /// In a transaction: TinkerPop 4's, or a TinkerPop 3 session.
    Tx(&'a Transaction),
}

/// The options of a script.
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// The traversal source `g` stands for.
    pub source: Option<String>,
    /// Typed parameters.
    pub params: Vec<(String, Value)>,
    /// Ask for bulked results.
    pub bulk: bool,
    /// Results per chunk or message.
    pub batch_size: Option<u32>,
    /// The server-side timeout.
    pub timeout_millis: Option<u64>,
}

/// Results as they arrive.
pub type Results = BoxStream<'static, Result<(Value, i64), Error>>;

fn options(mut req: RequestBuilder, opts: &Opts) -> RequestBuilder {
    for (name, value) in &opts.params {
        req = req.param(name.clone(), value.clone());
    }
    if let Some(g) = &opts.source {
        req = req.g(g.clone());
    }
    if opts.bulk {
        req = req.bulk_results(true);
    }
    if let Some(n) = opts.batch_size {
        req = req.batch_size(n);
    }
    if let Some(ms) = opts.timeout_millis {
        req = req.timeout_millis(ms);
    }
    req
}

/// A script sent: its results, and the byte counters of its response (HTTP only).
pub struct Sent {
    /// The results as they arrive.
    pub results: Results,
    /// Bytes read so far (body and wire); none in a TinkerPop 3 session.
    pub counters: Option<Arc<ByteCounters>>,
}

/// Sends `gremlin` to `target`.
pub async fn send(target: Target<'_>, gremlin: &str, opts: &Opts) -> Result<Sent, Error> {
    let traversers = |req: RequestBuilder| async move {
        let stream = req.send().await?.traversers();
        let counters = Some(stream.counters());
        let results = stream.map(|t| t.map(|t| (t.value, t.bulk))).boxed();
        Ok::<Sent, Error>(Sent { results, counters })
    };
    match target {
        Target::Client(c) => traversers(options(c.request(gremlin), opts)).await,
        Target::Tx(tx) => traversers(options(tx.request(gremlin), opts)).await,
    }
}
