//! The formats a value is read from and written to, one folder or file each, below the
//! protocols that carry them: [`graphbinary4`] (the walkers of TinkerPop 4's binary format; its
//! readers and writers are the model's own `Decode`/`Encode` impls), [`graphbinary1`]
//! (TinkerPop 3.x's binary format), [`graphson`] (GraphSON 2, 3 and 4), [`text`] (Gremlin Console
//! style text) and [`de`] (serde, results as your own types). A format names only the value
//! model, `java` (number and date renderings shared by the text forms) and the formats listed
//! before it in tests/layers.rs.

#[cfg(feature = "serde")]
pub mod de;
pub mod graphbinary1;
pub mod graphbinary4;
pub mod graphson;
pub(crate) mod java;
pub mod text;
