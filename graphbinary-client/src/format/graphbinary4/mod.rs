//! GraphBinary 4, TinkerPop 4's binary format. Every model type reads and writes itself
//! through `graphbinary-core`'s traits (the derive generates the element structs' readers and
//! writers; `Value`'s are hand-written in `value/dynamic.rs`); here are the walkers that check
//! and step over a value without building it: [`skip_value`] on the fast path, its async twin
//! for a value larger than the read buffer.

mod skip;
mod skip_async;

pub use skip::skip_value;
#[cfg(feature = "serde")]
pub(crate) use skip::{
    fq_opt_list_header, fq_typed_header, skip_labels, skip_property, skip_vertex_property,
};
pub(crate) use skip_async::skip_value_slow;
