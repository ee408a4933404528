//! SigV4 signing (feature `sigv4`): its own process because it sets AWS environment variables (`std::env::set_var`), which other tests' threads must not race with.
//!
//! One test binary of graphbinary-client (see CONTRIBUTING.md): each module below was a binary of its own; shared helpers are in `graphbinary-testkit` (xtask/testkit).

mod sigv4;
