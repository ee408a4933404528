//! Derive macros for GraphBinary 4 (work in progress).
