//! The shared helpers of graphbinary-client's integration tests (see README.md).

#![allow(dead_code, clippy::missing_panics_doc)]

pub mod capture;
pub mod common;
pub mod exclusive;
pub mod fault_proxy;
pub mod gremlin_server;
pub mod process;
pub mod readme;
pub mod results;
pub mod rotation;
pub mod run;
pub mod servers3;
pub mod skip;
pub mod strings;
pub mod tls;
pub mod upstream;
pub mod values;
pub mod ws_message;
