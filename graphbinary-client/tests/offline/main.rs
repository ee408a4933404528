//! Tests that need no server of anyone else's: the codecs, the vectors, local listeners of their own (capture, TLS, a mock WebSocket server).
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

mod generated;

mod cancellation;
mod claimed_lengths;
mod conformance;
mod elements;
mod graphson;
mod hostile;
mod hosts;
mod large_values;
mod layers;
mod mutations;
mod options;
mod pdt;
mod process_gremlin_lang;
mod proptest_values;
mod response;
mod serde_de;
mod spec_vectors_test;
mod transport;
mod types;
mod v1_conformance;
mod v1_custom;
mod ws3_mock;
