//! `graphbinary-kit`: the real servers of the tests and tools, on loopback, and the helpers the
//! tooling crates share. Depends on no graphbinary crate (see README.md).

pub mod cluster;
pub mod server;
pub mod util;
