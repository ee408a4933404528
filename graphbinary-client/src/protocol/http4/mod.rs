//! TinkerPop 4's response: [`response`] reads a GraphBinary 4 response body into a stream of
//! results (public as `graphbinary_client::response`); `results_as` reads the same results in
//! other shapes (a user type through serde, counting without building).

pub mod response;
pub(crate) mod results_as;
#[cfg(feature = "serde")]
mod typed;
