//! End-to-end tests against TinkerPop 4's Gremlin Server (`GREMLIN_URL`, `GREMLIN_TX_URL`) that leave the Modern graph as it is (some assert its exact counts), and the `ws_` halves of the fault-proxy and observe tests against TinkerPop 3.7.3 (`GREMLIN_WS_URL_373`); each skips with a notice when its server is unset or unreachable.
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

mod e2e_cancel;
mod e2e_serde;
mod e2e_values;
mod faults;
mod interceptors;
mod observe;
mod send_sync;
mod transactions;
