//! `graphbinary-kit`: the real servers of the tests and tools, on loopback, and the helpers the
//! tooling crates share. Depends on no graphbinary crate (see README.md).

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

pub mod args;
pub mod cluster;
pub mod link;
pub mod server;
pub mod util;
