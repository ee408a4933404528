//! End-to-end tests against TinkerPop 3.x, JanusGraph and the Cosmos-shaped servers over WebSocket (`GREMLIN_WS_*`, started by `cargo xtask ci`'s TinkerPop 3 and JanusGraph BerkeleyJE steps); each skips with a notice when its server is unset.
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

mod cosmos;
mod roundtrip;
mod secrets;
mod ws3;
mod ws3_graphson;
mod ws3_hosts;
mod ws3_janusgraph;
mod ws3_janusgraph_index;
mod ws3_versions;

use futures::TryStreamExt;
use graphbinary_client::client::{ClientBuilder, Error, RequestBuilder};
use graphbinary_client::value::Value;
use graphbinary_client::Client;

/// A client from `builder` with a 10 s connect timeout (it connects at its first request);
/// `what` names it if it cannot be built.
fn build(what: &str, builder: ClientBuilder) -> Client {
    builder
        .connect_timeout(std::time::Duration::from_secs(10))
        .build()
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// Every result of `request` with its bulk; panics when it has not ended within 120 s.
async fn all(request: RequestBuilder) -> Result<Vec<(Value, i64)>, Error> {
    let all = async {
        request
            .send()
            .await?
            .traversers()
            .map_ok(|t| (t.value, t.bulk))
            .try_collect()
            .await
    };
    tokio::time::timeout(std::time::Duration::from_secs(120), all)
        .await
        .expect("no end within 120 s")
}
