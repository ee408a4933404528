#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub use graphbinary_derive::GraphBinary;

/// The core crate (buffer, traits, errors), re-exported so that a user who depends only on
/// this crate can name it, e.g. in `#[graphbinary(crate = "graphbinary_client::graphbinary_core")]`
/// on a type deriving [`GraphBinary`].
pub use graphbinary_core;

/// `impl From<T> for Enum` for each `T => Variant`: the variant holds the value, converted by
/// `Into` (so `&str => String` holds a `String`). Defined before the modules that use it.
macro_rules! from_variants {
    ($enum:ident: $($t:ty => $v:ident),* $(,)?) => {$(
        impl From<$t> for $enum {
            fn from(v: $t) -> $enum {
                $enum::$v(v.into())
            }
        }
    )*};
}

/// `From<&String>` and `From` the unsigned integers for a value enum (`Value`, `Lit`), held as
/// Java holds them, having no unsigned types: `u16` an Int, `u32` a Long, `u64` a Long when it
/// fits, else a BigInteger (the variant `$big`).
macro_rules! from_string_ref_and_unsigned {
    ($enum:ident, $big:ident) => {
        impl From<&String> for $enum {
            fn from(v: &String) -> $enum {
                $enum::String(v.clone())
            }
        }

        impl From<u16> for $enum {
            /// An Int (Java has no unsigned types).
            fn from(v: u16) -> $enum {
                $enum::Int(i32::from(v))
            }
        }

        impl From<u32> for $enum {
            /// A Long.
            fn from(v: u32) -> $enum {
                $enum::Long(i64::from(v))
            }
        }

        impl From<u64> for $enum {
            /// A Long when it fits, else a BigInteger.
            fn from(v: u64) -> $enum {
                match i64::try_from(v) {
                    Ok(n) => $enum::Long(n),
                    Err(_) => {
                        $enum::$big($crate::value::BigInteger::from(num_bigint::BigInt::from(v)))
                    }
                }
            }
        }
    };
}

#[cfg(feature = "http")]
pub mod client;
#[cfg(feature = "http")]
pub use client::{Client, ClientBuilder, Error, ResultStream};
#[cfg(feature = "http")]
pub mod element;
pub mod format;
#[cfg(feature = "test-util")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(any(feature = "http", feature = "serde"))]
mod lang;
#[cfg(feature = "http")]
pub mod process;
mod protocol;
#[cfg(feature = "http")]
mod transport;
pub mod value;
/// The TinkerPop 3 WebSocket transport below [`Client`] (`Client3`, `Options3`, `Error3`,
/// `Session3`, the 3.x messages), for this repository's tests, benchmarks and xtask only:
/// feature `test-util`, hidden, not part of the API. A user reaches a 3.x server through
/// [`Client`] (`ws://` or `wss://`), every option is a [`ClientBuilder`] method, every error a
/// [`client::Error`], a session a [`client::Transaction`].
#[cfg(all(feature = "http", feature = "test-util"))]
#[doc(hidden)]
pub mod ws {
    pub use crate::transport::ws::*;
}

pub use protocol::http4::response;
#[cfg(feature = "http")]
pub use protocol::ws3::graphson::Serializer;
pub use response::{
    read_response, ReadOptions, ResponseError, ResponseStream, ServerError, Status, Traverser,
};
pub use value::Value;

/// What a spawned task holds stays fit for `tokio::spawn`: `Client`, `Transaction` and `Error`
/// are `Send + Sync + 'static`, `ResultStream` `Send + 'static` (its `&self` accessors are all
/// that `Sync` would add: every method that reads results takes `&mut self` or `self`).
/// Checked when the crate builds; tests/live4/send_sync.rs checks the futures and a spawned
/// task at run time.
#[cfg(feature = "http")]
const _: () = {
    fn send_sync_static<T: Send + Sync + 'static>() {}
    fn send_static<T: Send + 'static>() {}
    let _ = send_sync_static::<Client>;
    let _ = send_sync_static::<ClientBuilder>;
    let _ = send_sync_static::<client::Transaction>;
    let _ = send_sync_static::<Error>;
    let _ = send_sync_static::<ServerError>;
    let _ = send_sync_static::<Value>;
    let _ = send_static::<ResultStream>;
    let _ = send_static::<client::TraverserStream>;
};

/// The Rust blocks of the repository's README and of the guide (`docs/guide/`), compiled as
/// doctests (`cfg(doctest)`: outside the published crate, which `cargo package` leaves alone).
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../README.md")]
    mod readme {}
    #[doc = include_str!("../../docs/guide/src/connecting.md")]
    mod connecting {}
    #[doc = include_str!("../../docs/guide/src/tinkerpop3.md")]
    mod tinkerpop3 {}
    #[doc = include_str!("../../docs/guide/src/janusgraph.md")]
    mod janusgraph {}
    #[doc = include_str!("../../docs/guide/src/neptune.md")]
    mod neptune {}
    #[doc = include_str!("../../docs/guide/src/cosmos.md")]
    mod cosmos {}
    #[doc = include_str!("../../docs/guide/src/traversals.md")]
    mod traversals {}
    #[doc = include_str!("../../docs/guide/src/parameters.md")]
    mod parameters {}
    #[doc = include_str!("../../docs/guide/src/results.md")]
    mod results {}
    #[doc = include_str!("../../docs/guide/src/writing.md")]
    mod writing {}
    #[doc = include_str!("../../docs/guide/src/transactions.md")]
    mod transactions {}
    #[doc = include_str!("../../docs/guide/src/errors.md")]
    mod errors {}
    #[doc = include_str!("../../docs/guide/src/timeouts.md")]
    mod timeouts {}
    #[doc = include_str!("../../docs/guide/src/hosts.md")]
    mod hosts {}
    #[doc = include_str!("../../docs/guide/src/observability.md")]
    mod observability {}
    #[doc = include_str!("../../docs/guide/src/cli.md")]
    mod cli {}
    #[doc = include_str!("../../docs/guide/src/performance.md")]
    mod performance {}
    #[doc = include_str!("../../docs/guide/src/drivers.md")]
    mod drivers {}
    #[doc = include_str!("../../docs/guide/src/examples.md")]
    mod examples {}
}
