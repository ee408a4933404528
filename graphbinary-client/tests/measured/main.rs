//! End-to-end tests that measure the whole process or the server's sockets (peak RSS, this process's connections, the server's ESTABLISHED sockets), against `GREMLIN_URL` (and `GREMLIN_WS_URL_373`): apart from the other binaries, and one at a time here (`graphbinary_testkit::exclusive`).
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

mod e2e_large;
mod e2e_reuse;
mod soak;
