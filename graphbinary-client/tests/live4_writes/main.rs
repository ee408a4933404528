//! End-to-end tests that write to TinkerPop 4's Modern graph (`GREMLIN_URL`) under labels or run tags of their own and drop what they wrote: apart from `live4`, whose tests assert the Modern graph's exact counts. Their `ws_` halves run against 3.7.3 (`GREMLIN_WS_URL_373`); e2e_elements' also against 3.8.1 (`GREMLIN_WS_URL_381`) and JanusGraph 1.1.0 (`GREMLIN_WS_JANUSGRAPH_URL`).
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

// Every test takes graphbinary_testkit::exclusive::alone(): one process now holds what were four,
// and a test counting the Modern graph saw another's 600 vertices (606 instead of 6).
mod e2e_batch;
mod e2e_elements;
mod e2e_mutation;
mod e2e_process;
