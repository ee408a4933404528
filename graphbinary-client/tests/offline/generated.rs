//! The files `cargo xtask regen` writes for these tests (do not edit them by hand).

pub mod spec_vectors;
