//! `graphbinary-conformance`: TinkerPop's Gherkin feature suites through graphbinary-client
//! (see README.md). The binary (`src/main.rs`) is what `cargo xtask features ARGS` (and
//! `cargo xtask matrix ARGS`, `src/matrix.rs`) runs; the
//! library also gives the suite's scenarios to the fuzz seeds (`graphbinary-fuzzing`).

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

pub mod features;
pub mod matrix;

// The kit's modules under the names the runner's modules had inside xtask.
use graphbinary_kit::{server, util};
