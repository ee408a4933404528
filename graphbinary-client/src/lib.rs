//! The GraphBinary 4 client (work in progress).
