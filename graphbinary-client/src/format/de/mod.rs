//! Results as your own types: a [`serde`] deserializer for GraphBinary 4 values, straight
//! from the wire.
//!
//! [`from_slice`] deserializes one fully-qualified value from bytes, borrowing `&str`,
//! `&[u8]` and `Cow` from them where the target asks for it; [`read_fq`] does the same on the
//! fast path over a [`Cursor`]; [`from_value`] converts a decoded [`Value`]. The result
//! streams use it through `typed::<T>()` and `for_each_as::<T>()`
//! ([`ResultStream`](crate::ResultStream), [`ResponseStream`](crate::ResponseStream)).
//!
//! # How GraphBinary maps onto serde
//!
//! | GraphBinary | serde |
//! |---|---|
//! | null (typed or unspecified) | `none` / `unit` (`Option<T>` is `None`) |
//! | Byte, Short, Int, Long | `i8`, `i16`, `i32`, `i64` (serde checks the target's range) |
//! | Float, Double | `f32`, `f64` (a Double into an `f32`, or a Long into an `f64`, only when exact) |
//! | BigInteger | `i64`, `i128` when it fits, else its decimal string |
//! | BigDecimal | its decimal string (as Java's `toString`) |
//! | String, Char, Boolean | `str` (borrowed), `char`, `bool` |
//! | UUID | its hyphenated string; 16 bytes to a target that asks for bytes (`uuid::Uuid`) |
//! | Binary | bytes (borrowed) |
//! | List, Set | a sequence; a bulked List with each item repeated by its bulk |
//! | Map (elementMap, valueMap, project, group...) | a map: structs and `HashMap`s; a `T` key (`T.id`, `T.label`) is its name, `"id"`, `"label"` |
//! | Vertex | a map `{id, label, properties}` |
//! | Edge | a map `{id, label, in_v_id, in_v_label, out_v_id, out_v_label, properties}` |
//! | VertexProperty | a map `{id, label, value, properties}` |
//! | Property | a map `{key, value}` |
//! | Path | a map `{labels, objects}` |
//! | element labels | a sequence of strings, or one string to a target that asks for a string |
//! | DateTime | a map `{year, month, day, nanos, offset_seconds}`; its ISO-8601 text to a target that asks for a string |
//! | Duration | a map `{seconds, nanos}` |
//! | Direction, T, Merge | their names; enums by variant name |
//! | Tree | a map of each key to its subtree |
//! | Graph | a map `{vertices, edges}` |
//! | CompositePDT | the map of its fields; PrimitivePDT its string value |
//!
//! An enum is read from a String (a unit variant by name) or a one-entry Map (the variant's
//! name and its content). [`Value`] itself implements `Deserialize` and, from this
//! deserializer, keeps every detail (typed nulls, bulks, Map key types, elements).
//! `serde::de::IgnoredAny` (unknown struct fields) steps over values without building them.
//!
//! # Errors
//!
//! Bad input is never a panic: an [`Error`] names the absolute byte offset and the field path
//! of what did not fit (see [`Error`]). A sequence longer than the target (e.g. an array) is an
//! error, not a silent truncation.
//!
//! # Fast and slow path
//!
//! On the fast path (the whole value is buffered) deserialization runs synchronously over the
//! buffered bytes, allocating only what the target type itself allocates. A value larger than
//! the read buffer is first read whole by the `Value` slow path (limits enforced, streaming
//! large payloads), re-encoded, and then given to this same deserializer, so both paths give
//! the same result and name the same offsets. A String or Binary larger than the buffer is
//! not re-encoded: the slow path reads it into one buffer of its exact length and hands that
//! to the visitor by value (`visit_string`, `visit_byte_buf`; serde's defaults pass it on to
//! `visit_str`, `visit_bytes`).
//!
//! # Example
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Debug, PartialEq, Deserialize)]
//! struct Person<'a> {
//!     id: i64,
//!     name: &'a str,
//!     age: Option<i32>,
//! }
//! // A Map {T.id: Long 1, "name": "marko", "age": Int 29}, as elementMap() returns it.
//! let bytes = [
//!     0x0a, 0x00, 0, 0, 0, 3,
//!     0x20, 0x00, 0x03, 0x00, 0, 0, 0, 2, b'i', b'd',
//!     0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 1,
//!     0x03, 0x00, 0, 0, 0, 4, b'n', b'a', b'm', b'e',
//!     0x03, 0x00, 0, 0, 0, 5, b'm', b'a', b'r', b'k', b'o',
//!     0x03, 0x00, 0, 0, 0, 3, b'a', b'g', b'e',
//!     0x01, 0x00, 0, 0, 0, 29,
//! ];
//! let p: Person = graphbinary_client::format::de::from_slice(&bytes).unwrap();
//! assert_eq!(p, Person { id: 1, name: "marko", age: Some(29) });
//! ```

mod error;
mod owned;
pub(crate) use owned::convert;
mod to_value;
mod value;
// For `element`'s fast readers (the network feature).
#[cfg(feature = "http")]
pub(crate) use value::ValueVisitor;

use std::marker::PhantomData;

use graphbinary_core::{Cursor, Decode, DecodeError, ErrorKind, FastError, FastResult, Limits};
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;

pub use error::Error;
#[cfg(feature = "http")]
pub use to_value::to_literal;
pub use to_value::to_value;

use crate::format::graphbinary4::{fq_opt_list_header, fq_typed_header, skip_value};
use crate::value::{
    codes, decode_marker_value, read_fields_header, read_fq_str, read_header, BigDecimal,
    BigInteger, DateTime, Direction, Duration, Graph, Header, Merge, Value, T,
};

/// Deserializes a `T` from `bytes`, which must hold exactly one fully-qualified value.
///
/// Strings and byte arrays are borrowed from `bytes` where `T` asks for it (`&str`,
/// `&[u8]`, `Cow` with `#[serde(borrow)]`). Offsets in errors count from the start of
/// `bytes`. The limits are those of [`ReadOptions::default`](crate::ReadOptions).
///
/// ```
/// let tags: Vec<String> = graphbinary_client::format::de::from_slice(&[
///     0x09, 0x00, 0, 0, 0, 2, 0x03, 0x00, 0, 0, 0, 1, b'a', 0x03, 0x00, 0, 0, 0, 1, b'b',
/// ])
/// .unwrap();
/// assert_eq!(tags, ["a", "b"]);
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    from_slice_with(bytes, &DEFAULT_LIMITS)
}

/// The limits of [`ReadOptions::default`](crate::ReadOptions).
static DEFAULT_LIMITS: Limits = Limits {
    max_depth: crate::value::dynamic::DEFAULT_LIMITS.max_depth,
    ..Limits::DEFAULT
};

/// [`from_slice`] with explicit limits.
pub fn from_slice_with<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    limits: &'de Limits,
) -> Result<T, Error> {
    let mut cur = Cursor::new(bytes, 0, limits);
    whole::<T, Borrowed>(&mut cur, bytes.len())
}

/// Runs the deserializer over all of `cur`'s bytes (`len` of them), as one value.
pub(crate) fn whole<'de, T: Deserialize<'de>, M: Mode<'de, 'de>>(
    cur: &mut Cursor<'de>,
    len: usize,
) -> Result<T, Error> {
    let start = cur.offset();
    let v = match run::<T, M>(cur) {
        Ok(v) => v,
        Err(e) if e.is_need_more() => {
            return Err(Error::format(DecodeError::new(
                start + len as u64,
                ErrorKind::UnexpectedEof {
                    expected: "the rest of the value",
                },
            )))
        }
        Err(e) => return Err(e),
    };
    crate::value::expect_end(cur, len, "value", "trailing bytes after the value")
        .map_err(Error::format)?;
    Ok(v)
}

/// Fast path: deserializes one fully-qualified value from the cursor's buffered bytes into a
/// `T`, borrowing from them where `T` asks for it.
///
/// As for any fast-path read, [`FastError::NeedMore`] means the value is not all buffered
/// (the caller discards the cursor and retries with more bytes); a value that does not fit
/// `T` is [`FastError::Invalid`] with [`ErrorKind::Invalid`] naming the field path (see
/// [`Error::into_decode_error`]).
///
/// ```
/// use graphbinary_core::{Cursor, FastError, Limits};
///
/// let bytes = [0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 6];
/// let limits = Limits::DEFAULT;
/// let n: u8 = graphbinary_client::format::de::read_fq(&mut Cursor::new(&bytes, 0, &limits)).unwrap();
/// assert_eq!(n, 6);
/// let short = graphbinary_client::format::de::read_fq::<i64>(&mut Cursor::new(&bytes[..5], 0, &limits));
/// assert!(matches!(short, Err(FastError::NeedMore(_))));
/// ```
pub fn read_fq<'x, T: Deserialize<'x>>(cur: &mut Cursor<'x>) -> FastResult<T> {
    run::<T, Borrowed>(cur).map_err(Error::into_fast)
}

/// Converts a decoded [`Value`] into a `T`, with the same mapping as [`from_slice`] (the value
/// is re-encoded and deserialized; offsets count in that encoding).
///
/// ```
/// use graphbinary_client::Value;
///
/// let v = Value::List(vec![Value::Int(1), Value::Long(2)]);
/// let n: Vec<i64> = graphbinary_client::format::de::from_value(&v).unwrap();
/// assert_eq!(n, [1, 2]);
/// ```
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T, Error> {
    from_value_at(value, 0)
}

/// [`from_value`] with offsets counted from `base` (the value's place in its response).
pub(crate) fn from_value_at<T: DeserializeOwned>(value: &Value, base: u64) -> Result<T, Error> {
    let bytes = reencode(value, base)?;
    let limits = crate::value::dynamic::DEFAULT_LIMITS;
    let mut cur = Cursor::new(&bytes, base, &limits);
    whole::<T, Borrowed>(&mut cur, bytes.len())
}

/// `value` encoded again, to be deserialized from its bytes: a value that cannot be encoded
/// is an error at `at`.
fn reencode(value: &Value, at: u64) -> Result<Vec<u8>, Error> {
    value.to_bytes().map_err(|e| {
        Error::format(DecodeError::new(
            at,
            ErrorKind::Invalid {
                what: "value",
                detail: e.to_string(),
            },
        ))
    })
}

/// Runs `f` with a [`Transient`] deserializer over `bytes`, a value encoded again that
/// started at `at` in the input, nested `depth` deep.
fn transient<R>(
    bytes: &[u8],
    at: u64,
    limits: &Limits,
    depth: u32,
    f: impl FnOnce(&mut De<'_, '_, Transient>) -> Result<R, Error>,
) -> Result<R, Error> {
    let mut cur = Cursor::with_depth(bytes, at, limits, depth);
    let mut de = De::<Transient>::new(&mut cur);
    let r = f(&mut de);
    de.finish(r)
}

/// Hands `value` whole to [`Value`]'s own visitor, which asked for it with the newtype
/// [`VALUE_TOKEN`]: through [`STASH`], taken back if the visitor left it.
fn visit_value<'de, V: Visitor<'de>>(value: Value, v: V, at: u64) -> Result<V::Value, Error> {
    STASH.with(|s| s.set(Some(value)));
    let r = v.visit_map(serde::de::value::MapDeserializer::new(std::iter::empty::<(
        (),
        (),
    )>()));
    STASH.with(|s| s.take());
    r.map_err(|e: Error| e.at(at))
}

/// Grows the stack if it runs low, then runs `f`: around the reads of the values that hold
/// further values, the only ones that nest deep.
#[inline]
fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, f)
}

/// Runs the deserializer for one value; an error that a visitor swallowed still counts.
#[inline]
fn run<'x, T: Deserialize<'x>, M: Mode<'x, 'x>>(cur: &mut Cursor<'x>) -> Result<T, Error> {
    let mut de = De::<M>::new(cur);
    let r = T::deserialize(&mut de);
    de.finish(r)
}

// ---------------------------------------------------------------------------------------------
// Borrowing modes

/// How strings and bytes are handed to a visitor: borrowed from the input (`'x: 'de`) or
/// transient (input that does not outlive the call, e.g. a re-encoded Graph).
pub(crate) trait Mode<'x, 'de> {
    fn str<V: Visitor<'de>>(v: V, s: &'x str) -> Result<V::Value, Error>;
    fn bytes<V: Visitor<'de>>(v: V, b: &'x [u8]) -> Result<V::Value, Error>;
}

pub(crate) struct Borrowed;
pub(crate) struct Transient;

impl<'x: 'de, 'de> Mode<'x, 'de> for Borrowed {
    #[inline]
    fn str<V: Visitor<'de>>(v: V, s: &'x str) -> Result<V::Value, Error> {
        v.visit_borrowed_str(s)
    }
    #[inline]
    fn bytes<V: Visitor<'de>>(v: V, b: &'x [u8]) -> Result<V::Value, Error> {
        v.visit_borrowed_bytes(b)
    }
}

impl<'x, 'de> Mode<'x, 'de> for Transient {
    #[inline]
    fn str<V: Visitor<'de>>(v: V, s: &'x str) -> Result<V::Value, Error> {
        v.visit_str(s)
    }
    #[inline]
    fn bytes<V: Visitor<'de>>(v: V, b: &'x [u8]) -> Result<V::Value, Error> {
        v.visit_bytes(b)
    }
}

// ---------------------------------------------------------------------------------------------
// The deserializer

/// The first failure of the input itself, kept even if a visitor swallows the error.
enum Sticky {
    NeedMore(usize),
    Invalid(u64, String),
}

pub(crate) struct De<'a, 'x, M> {
    cur: &'a mut Cursor<'x>,
    sticky: Option<Sticky>,
    /// Items bulked Lists may still hand out, over the whole value (nested bulked Lists
    /// multiply): [`Limits::max_collection_len`] at the start.
    expand_budget: usize,
    mode: PhantomData<fn() -> M>,
}

/// The private newtype name through which [`Value`]'s `Deserialize` asks this deserializer
/// for the whole value.
pub(crate) const VALUE_TOKEN: &str = "$graphbinary::private::Value";

/// The private newtype name through which an element reader asks for a Map (an
/// `elementMap()` or `valueMap(true)`), anything else being an error.
pub(crate) const ELEMENT_TOKEN: &str = "$graphbinary::private::Element";

/// The private newtype name through which an element reader asks for a Map's key: see
/// [`De::element_key`].
pub(crate) const ELEMENT_KEY_TOKEN: &str = "$graphbinary::private::ElementKey";

/// The private newtype names through which an element reader asks for a property's value:
/// a scalar by its own visit, a List or Set (flag 0, ELEMENT_VALUE_TOKEN only) as a sequence
/// of values asked for with [`ELEMENT_SCALAR_TOKEN`], anything else a [`Value`] whole (as
/// [`VALUE_TOKEN`]).
pub(crate) const ELEMENT_VALUE_TOKEN: &str = "$graphbinary::private::ElementValue";
pub(crate) const ELEMENT_SCALAR_TOKEN: &str = "$graphbinary::private::ElementScalar";

/// An element map's `T` or `Direction` key, as [`De::element_key`] hands it over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ElementKey {
    Id = 0,
    Label = 1,
    Out = 2,
    In = 3,
    /// Another `T` or `Direction` (not an element map's key).
    Other = 4,
}

thread_local! {
    /// A [`Value`] decoded by this deserializer for [`Value`]'s visitor, taken at once.
    pub(crate) static STASH: std::cell::Cell<Option<Value>> = const { std::cell::Cell::new(None) };
}

const RED_ZONE: usize = 128 * 1024;
const STACK_SEGMENT: usize = 2 * 1024 * 1024;

impl<'a, 'x, M> De<'a, 'x, M> {
    fn new(cur: &'a mut Cursor<'x>) -> Self {
        let expand_budget = cur.limits().max_collection_len;
        De {
            cur,
            sticky: None,
            expand_budget,
            mode: PhantomData,
        }
    }

    #[inline]
    fn finish<T>(&mut self, r: Result<T, Error>) -> Result<T, Error> {
        // The usual case hands `r` back as it is (no move through a tuple).
        match self.sticky.take() {
            None => r,
            Some(s) => Self::finish_sticky(s, r),
        }
    }

    #[cold]
    fn finish_sticky<T>(s: Sticky, r: Result<T, Error>) -> Result<T, Error> {
        match (s, r) {
            (Sticky::NeedMore(n), _) => Err(Error::need_more(n)),
            (Sticky::Invalid(..), Err(e)) => Err(e),
            (Sticky::Invalid(at, detail), Ok(_)) => Err(Error::format(DecodeError::new(
                at,
                ErrorKind::Invalid {
                    what: "value",
                    detail,
                },
            ))),
        }
    }

    /// A failure of the input: recorded, then returned.
    #[cold]
    fn fail(&mut self, e: FastError) -> Error {
        if self.sticky.is_none() {
            self.sticky = Some(match &e {
                FastError::NeedMore(n) => Sticky::NeedMore(*n),
                FastError::Invalid(d) => Sticky::Invalid(d.offset(), d.kind().to_string()),
            });
        }
        Error::from_fast(e)
    }

    #[inline]
    fn fast<T>(&mut self, r: FastResult<T>) -> Result<T, Error> {
        match r {
            Ok(v) => Ok(v),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// The next type code and value flag, not consumed.
    #[inline]
    fn peek2(&mut self) -> Result<(u8, u8), Error> {
        match self.cur.remaining() {
            [c, f, ..] => Ok((*c, *f)),
            _ => {
                let n = self.cur.position() + 2;
                Err(self.fail(FastError::NeedMore(n)))
            }
        }
    }

    #[inline]
    fn header(&mut self) -> Result<Header, Error> {
        let r = read_header(self.cur);
        self.fast(r)
    }

    #[inline]
    fn enter(&mut self) -> Result<(), Error> {
        let r = self.cur.enter();
        self.fast(r)
    }

    #[inline]
    fn count(&mut self, what: &'static str, min_item: usize) -> Result<usize, Error> {
        let n = self.cur.read_count(what);
        let n = self.fast(n)?;
        let r = self.cur.require(n.saturating_mul(min_item));
        self.fast(r)?;
        Ok(n)
    }

    fn custom(&self, at: u64, msg: String) -> Error {
        <Error as de::Error>::custom(msg).at(at)
    }

    /// The error of a target that took only `n - left` of the `n` `unit`s (items, entries)
    /// of a sequence or map (`of`: its type, where the message names it).
    #[cold]
    fn took_fewer(&self, at: u64, n: usize, left: usize, unit: &str, of: Option<&str>) -> Error {
        let took = n - left;
        self.custom(
            at,
            match of {
                Some(what) => format!("the target took {took} of the {n} {unit} of the {what}"),
                None => format!("the target took {took} of the {n} {unit}"),
            },
        )
    }

    /// The name of the token after a T, Direction or Merge header (`code`: T, DIRECTION,
    /// anything else is read as a Merge).
    fn token(&mut self, code: u8) -> Result<&'static str, Error> {
        let r = match code {
            codes::T => T::decode(self.cur).map(T::as_str),
            codes::DIRECTION => Direction::decode(self.cur).map(Direction::as_str),
            _ => Merge::decode(self.cur).map(Merge::as_str),
        };
        self.fast(r)
    }
}

/// What a header announced, with where it started.
struct Head {
    at: u64,
    code: u8,
    flag: u8,
}

impl<'a, 'x, M> De<'a, 'x, M> {
    fn read_i64_of(&mut self, code: u8) -> Result<Option<i64>, Error> {
        let r = match code {
            codes::BYTE => self.cur.read_i8().map(i64::from),
            codes::SHORT => self.cur.read_i16().map(i64::from),
            codes::INT => self.cur.read_i32().map(i64::from),
            codes::LONG => self.cur.read_i64(),
            _ => return Ok(None),
        };
        self.fast(r).map(Some)
    }
}

/// Reads a primitive with the cursor's `$read` and hands it to the visitor's `$visit`.
macro_rules! visit_read {
    ($de:ident, $v:ident, $read:ident => $visit:ident) => {{
        let r = $de.cur.$read();
        $v.$visit($de.fast(r)?)
    }};
}

impl<'a, 'x, M> De<'a, 'x, M> {
    /// The value after its header, as serde's data model has it.
    fn any<'de, V: Visitor<'de>>(&mut self, h: Head, v: V) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        match h.code {
            codes::INT => visit_read!(self, v, read_i32 => visit_i32),
            codes::LONG => visit_read!(self, v, read_i64 => visit_i64),
            codes::STRING => {
                let r = self.cur.read_str();
                M::str(v, self.fast(r)?)
            }
            codes::DOUBLE => visit_read!(self, v, read_f64 => visit_f64),
            codes::FLOAT => visit_read!(self, v, read_f32 => visit_f32),
            codes::UUID => {
                let r = self.cur.read_uuid();
                let u = self.fast(r)?;
                let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
                v.visit_str(u.hyphenated().encode_lower(&mut buf))
            }
            codes::BYTE => visit_read!(self, v, read_i8 => visit_i8),
            codes::SHORT => visit_read!(self, v, read_i16 => visit_i16),
            codes::BOOLEAN => visit_read!(self, v, read_bool => visit_bool),
            codes::CHAR => visit_read!(self, v, read_char => visit_char),
            // Only the values that hold further values can nest deep: the others are read
            // without the stack check.
            codes::LIST
            | codes::SET
            | codes::MAP
            | codes::VERTEX
            | codes::EDGE
            | codes::VERTEX_PROPERTY
            | codes::PROPERTY
            | codes::PATH
            | codes::TREE
            | codes::GRAPH
            | codes::COMPOSITE_PDT => grow(|| self.structured(h, v)),
            _ => self.leaf(h, v),
        }
    }

    fn structured<'de, V: Visitor<'de>>(&mut self, h: Head, v: V) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        match h.code {
            codes::LIST if h.flag == 0x02 => {
                self.enter()?;
                let n = self.count("List", 10)?;
                let mut acc = BulkSeq {
                    de: self,
                    left: n,
                    item: None,
                    repeats: 0,
                    index: 0,
                };
                let r = v.visit_seq(&mut acc)?;
                let (left, repeats) = (acc.left, acc.repeats);
                if left > 0 || repeats > 0 {
                    return Err(self.custom(
                        h.at,
                        "the target took fewer items than the bulked List holds".into(),
                    ));
                }
                self.cur.leave();
                Ok(r)
            }
            codes::LIST => self.seq(h.at, "List", v),
            codes::SET => self.seq(h.at, "Set", v),
            codes::MAP => self.map(h.at, v),
            codes::VERTEX => self.element(VERTEX, v),
            codes::EDGE => self.element(EDGE, v),
            codes::VERTEX_PROPERTY => self.element(VERTEX_PROPERTY, v),
            codes::PROPERTY => self.element(PROPERTY, v),
            codes::PATH => self.element(PATH, v),
            codes::TREE => self.tree(h.at, v),
            codes::GRAPH => {
                let r = Graph::decode(self.cur);
                let g = self.fast(r)?;
                let as_map = Value::Map(vec![
                    (
                        Value::String("vertices".into()),
                        Value::List(
                            g.vertices
                                .into_iter()
                                .map(|x| Value::Vertex(Box::new(x)))
                                .collect(),
                        ),
                    ),
                    (
                        Value::String("edges".into()),
                        Value::List(
                            g.edges
                                .into_iter()
                                .map(|x| Value::Edge(Box::new(x)))
                                .collect(),
                        ),
                    ),
                ]);
                let bytes = as_map
                    .to_bytes()
                    .map_err(|e| self.custom(h.at, e.to_string()))?;
                let limits = *self.cur.limits();
                transient(&bytes, h.at, &limits, self.cur.depth(), |de| {
                    de::Deserializer::deserialize_any(de, v)
                })
            }
            codes::COMPOSITE_PDT => {
                let r = read_fq_str(self.cur, "CompositePDT type");
                self.fast(r)?;
                let r = read_fields_header(self.cur);
                self.fast(r)?;
                self.map(h.at, v)
            }
            _ => self.leaf(h, v),
        }
    }

    /// A value after its header that holds no further values.
    fn leaf<'de, V: Visitor<'de>>(&mut self, h: Head, v: V) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        match h.code {
            codes::DATE_TIME => {
                let r = DateTime::decode(self.cur);
                let d = self.fast(r)?;
                v.visit_map(FixedMap::new(&[
                    ("year", Prim::I32(d.year)),
                    ("month", Prim::I8(d.month)),
                    ("day", Prim::I8(d.day)),
                    ("nanos", Prim::I64(d.nanos)),
                    ("offset_seconds", Prim::I32(d.offset_seconds)),
                ]))
            }
            codes::DURATION => {
                let r = Duration::decode(self.cur);
                let d = self.fast(r)?;
                v.visit_map(FixedMap::new(&[
                    ("seconds", Prim::I64(d.seconds)),
                    ("nanos", Prim::I32(d.nanos)),
                ]))
            }
            codes::DIRECTION | codes::T | codes::MERGE => v.visit_str(self.token(h.code)?),
            codes::BIG_INTEGER => {
                let r = self.cur.read_len_prefixed("BigInteger");
                visit_big_integer(v, self.fast(r)?)
            }
            codes::BIG_DECIMAL => {
                let r = self.cur.read_i32();
                let scale = self.fast(r)?;
                let r = self.cur.read_len_prefixed("BigInteger");
                let unscaled = BigInteger::from_bytes(self.fast(r)?.to_vec());
                v.visit_string(BigDecimal { scale, unscaled }.to_java_string())
            }
            codes::BINARY => {
                let r = self.cur.read_len_prefixed("Binary");
                M::bytes(v, self.fast(r)?)
            }
            codes::PRIMITIVE_PDT => {
                let r = read_fq_str(self.cur, "PrimitivePDT type");
                self.fast(r)?;
                let r = read_fq_str(self.cur, "PrimitivePDT value");
                M::str(v, self.fast(r)?)
            }
            codes::MARKER => {
                let r = decode_marker_value(self.cur);
                self.fast(r)?;
                v.visit_unit()
            }
            other => {
                let e = FastError::Invalid(DecodeError::new(
                    h.at,
                    ErrorKind::UnknownTypeCode { code: other },
                ));
                Err(self.fail(e))
            }
        }
    }

    /// A List or Set (`what`) of fully-qualified values.
    fn seq<'de, V: Visitor<'de>>(
        &mut self,
        at: u64,
        what: &'static str,
        v: V,
    ) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        self.list(at, what, Fq, Some(what), v)
    }

    /// A List or Set (`what`, counted as one level of nesting) of items read as `items`
    /// says; `of` names it in the error of a target that takes fewer items.
    fn list<'de, I: Items, V: Visitor<'de>>(
        &mut self,
        at: u64,
        what: &'static str,
        items: I,
        of: Option<&str>,
        v: V,
    ) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        self.enter()?;
        let n = self.count(what, 2)?;
        let r = self.items(at, n, items, of, v)?;
        self.cur.leave();
        Ok(r)
    }

    /// `n` items read as `items` says, every one taken by the visitor.
    fn items<'de, I: Items, V: Visitor<'de>>(
        &mut self,
        at: u64,
        n: usize,
        items: I,
        of: Option<&str>,
        v: V,
    ) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        let mut acc = SeqAcc {
            de: self,
            left: n,
            index: 0,
            items,
        };
        let r = v.visit_seq(&mut acc)?;
        let left = acc.left;
        if left > 0 {
            return Err(self.took_fewer(at, n, left, "items", of));
        }
        Ok(r)
    }

    fn map<'de, V: Visitor<'de>>(&mut self, at: u64, v: V) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        self.entries(at, Entries::Map, v)
    }

    fn tree<'de, V: Visitor<'de>>(&mut self, at: u64, v: V) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        self.entries(at, Entries::Tree, v)
    }

    /// A Map's entries, or a Tree's (each key with its subtree).
    fn entries<'de, V: Visitor<'de>>(
        &mut self,
        at: u64,
        of: Entries,
        v: V,
    ) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        let what = of.what();
        self.enter()?;
        let n = self.count(what, of.min_entry())?;
        let mut acc = MapAcc {
            de: self,
            left: n,
            key: &[],
            of,
        };
        let r = v.visit_map(&mut acc)?;
        let left = acc.left;
        if left > 0 {
            return Err(self.took_fewer(at, n, left, "entries", Some(what)));
        }
        self.cur.leave();
        Ok(r)
    }

    fn element<'de, V: Visitor<'de>>(
        &mut self,
        fields: &'static [Field],
        v: V,
    ) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        self.enter()?;
        let r = self.element_here(fields, v)?;
        self.cur.leave();
        Ok(r)
    }

    /// An element's fields, bare (no depth counted: the caller does, as the `Value` reader).
    fn element_here<'de, V: Visitor<'de>>(
        &mut self,
        fields: &'static [Field],
        v: V,
    ) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        let mut acc = ElementAcc {
            de: self,
            fields,
            next: 0,
        };
        let r = v.visit_map(&mut acc)?;
        // Fields the visitor left are stepped over (and checked).
        while acc.next < fields.len() {
            let f = fields[acc.next];
            acc.next += 1;
            acc.de.skip_part(f.1)?;
        }
        Ok(r)
    }

    fn skip_part(&mut self, p: Part) -> Result<(), Error> {
        use crate::format::graphbinary4::{skip_labels, skip_property, skip_vertex_property};
        let r = match p {
            Part::Value | Part::Skip => skip_value(self.cur),
            Part::Labels => skip_labels(self.cur),
            Part::Key => self.cur.read_str().map(drop),
            Part::OptList(props) => (|| {
                if fq_opt_list_header(self.cur)? {
                    self.cur.enter()?;
                    let n = self.cur.read_count("List")?;
                    self.cur.require(n.saturating_mul(2))?;
                    for _ in 0..n {
                        fq_typed_header(self.cur, props.code(), props.what())?;
                        if let Props::VertexProperty = props {
                            skip_vertex_property(self.cur)?;
                        } else {
                            skip_property(self.cur)?;
                        }
                    }
                    self.cur.leave();
                }
                Ok(())
            })(),
            Part::PathLabels | Part::PathObjects => {
                // Only whole paths are skipped; a Path's parts are always visited.
                Ok(())
            }
        };
        self.fast(r)
    }
}

fn visit_big_integer<'de, V: Visitor<'de>>(v: V, bytes: &[u8]) -> Result<V::Value, Error> {
    if bytes.len() <= 16 {
        let fill = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
            0xff
        } else {
            0
        };
        let mut wide = [fill; 16];
        wide[16 - bytes.len()..].copy_from_slice(bytes);
        let n = i128::from_be_bytes(wide);
        return match i64::try_from(n) {
            Ok(n) => v.visit_i64(n),
            Err(_) => v.visit_i128(n),
        };
    }
    v.visit_string(num_bigint::BigInt::from_signed_bytes_be(bytes).to_string())
}

/// The unit variant `name` (for an enum read from a String or a token).
fn unit_variant<'de, V: Visitor<'de>>(v: V, name: &str) -> Result<V::Value, Error> {
    v.visit_enum(name.into_deserializer())
}

/// The integer targets: an Int or a Long is read and handed to the visitor directly (serde
/// checks the target's range), anything else as `deserialize_any` does, to the same result.
macro_rules! integers {
    ($($f:ident)*) => {$(
        #[inline]
        fn $f<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            let at = self.cur.offset();
            // The header and the number as words (the same bytes the patterns
            // `[INT, 0x00, a, b, c, d, ..]` and `[LONG, 0x00, a, .., h, ..]` take).
            let r = match *self.cur.remaining() {
                [codes::INT, 0x00, ..] => match self.cur.read_array::<6>() {
                    Ok(b) => v.visit_i32(i32::from_be_bytes([b[2], b[3], b[4], b[5]])),
                    Err(_) => return self.deserialize_any(v),
                },
                [codes::LONG, 0x00, ..] => match self.cur.read_array::<10>() {
                    Ok(b) => {
                        let n: [u8; 8] = b[2..].try_into().expect("8 bytes");
                        v.visit_i64(i64::from_be_bytes(n))
                    }
                    Err(_) => return self.deserialize_any(v),
                },
                _ => return self.deserialize_any(v),
            };
            r.map_err(|e: Error| e.at(at))
        }
    )*};
}

impl<'de, 'a, 'x, M: Mode<'x, 'de>> de::Deserializer<'de> for &mut De<'a, 'x, M> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.cur.offset();
        match self.header()? {
            Header::Null(_) => v.visit_unit(),
            Header::Value(code, flag) => self.any(Head { at, code, flag }, v),
        }
        .map_err(|e: Error| e.at(at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.cur.offset();
        let (_, flag) = self.peek2()?;
        if flag == 0x01 {
            self.header()?;
            v.visit_none().map_err(|e: Error| e.at(at))
        } else {
            v.visit_some(self).map_err(|e: Error| e.at(at))
        }
    }

    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.cur.offset();
        let (code, flag) = self.peek2()?;
        if flag != 0x00
            || !matches!(
                code,
                codes::DOUBLE | codes::INT | codes::LONG | codes::SHORT | codes::BYTE
            )
        {
            return self.deserialize_any(v);
        }
        self.header()?;
        let x = if code == codes::DOUBLE {
            let r = self.cur.read_f64();
            let d = self.fast(r)?;
            let f = d as f32;
            if f64::from(f) != d && !d.is_nan() {
                return Err(self.custom(at, format!("Double {d:?} does not fit an f32 exactly")));
            }
            f
        } else {
            let n = self.read_i64_of(code)?.unwrap_or_default();
            let f = n as f32;
            if f as i128 != i128::from(n) {
                return Err(self.custom(at, format!("integer {n} does not fit an f32 exactly")));
            }
            f
        };
        v.visit_f32(x).map_err(|e: Error| e.at(at))
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.cur.offset();
        let (code, flag) = self.peek2()?;
        if flag != 0x00 || code != codes::LONG {
            return self.deserialize_any(v);
        }
        self.header()?;
        let r = self.cur.read_i64();
        let n = self.fast(r)?;
        let f = n as f64;
        if f as i128 != i128::from(n) {
            return Err(self.custom(at, format!("Long {n} does not fit an f64 exactly")));
        }
        v.visit_f64(f).map_err(|e: Error| e.at(at))
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.cur.offset();
        if let [codes::STRING, 0x00, ..] = *self.cur.remaining() {
            // The usual case, without the general dispatch.
            let r = self.cur.read_array::<2>();
            self.fast(r)?;
            let r = self.cur.read_str();
            let s = self.fast(r)?;
            return M::str(v, s).map_err(|e: Error| e.at(at));
        }
        let (code, flag) = self.peek2()?;
        if code == codes::DATE_TIME && flag == 0x00 {
            self.header()?;
            let r = DateTime::decode(self.cur);
            let d = self.fast(r)?;
            return v.visit_string(d.to_string()).map_err(|e: Error| e.at(at));
        }
        self.deserialize_any(v)
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_str(v)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.cur.offset();
        let (code, flag) = self.peek2()?;
        if code == codes::UUID && flag == 0x00 {
            self.header()?;
            let r = self.cur.read_uuid();
            let u = self.fast(r)?;
            return v.visit_bytes(u.as_bytes()).map_err(|e: Error| e.at(at));
        }
        self.deserialize_any(v)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        let at = self.cur.offset();
        let (code, flag) = self.peek2()?;
        if flag != 0x00 {
            return self.deserialize_any(v);
        }
        let r = match code {
            codes::STRING => {
                self.header()?;
                let r = self.cur.read_str();
                let s = self.fast(r)?;
                unit_variant(v, s)
            }
            codes::T | codes::DIRECTION | codes::MERGE => {
                self.header()?;
                unit_variant(v, self.token(code)?)
            }
            codes::MAP => {
                self.header()?;
                self.enter()?;
                let n = self.count("Map", 4)?;
                if n != 1 {
                    return Err(self.custom(
                        at,
                        format!("a Map of {n} entries where an enum (one entry: variant and content) was expected"),
                    ));
                }
                let r = v.visit_enum(EnumAcc { de: self })?;
                self.cur.leave();
                Ok(r)
            }
            _ => return self.deserialize_any(v),
        };
        r.map_err(|e: Error| e.at(at))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        if name == VALUE_TOKEN {
            let at = self.cur.offset();
            let r = <Value as Decode>::decode(self.cur);
            let value = self.fast(r)?;
            return visit_value(value, v, at);
        }
        if name == ELEMENT_TOKEN {
            let at = self.cur.offset();
            return match self.peek2()? {
                (codes::MAP, 0x00 | 0x02) => de::Deserializer::deserialize_map(self, v),
                _ => Err(self.custom(at, "not a Map".to_owned())),
            };
        }
        if name == ELEMENT_KEY_TOKEN {
            return self.element_key(v);
        }
        if name == ELEMENT_VALUE_TOKEN || name == ELEMENT_SCALAR_TOKEN {
            // A scalar visited as itself (each to its own visit, as `Value`'s visitor maps
            // it back), a List or Set as a sequence of them (ELEMENT_VALUE_TOKEN only),
            // anything else as a `Value` decoded whole.
            let at = self.cur.offset();
            let seq = name == ELEMENT_VALUE_TOKEN;
            return match self.peek2()? {
                (
                    codes::BYTE
                    | codes::SHORT
                    | codes::INT
                    | codes::LONG
                    | codes::FLOAT
                    | codes::DOUBLE
                    | codes::BOOLEAN
                    | codes::CHAR
                    | codes::STRING,
                    0x00,
                ) => de::Deserializer::deserialize_any(self, v),
                (codes::LIST | codes::SET, 0x00) if seq => {
                    de::Deserializer::deserialize_any(self, v)
                }
                _ => {
                    let r = <Value as Decode>::decode(self.cur);
                    let value = self.fast(r)?;
                    visit_value(value, v, at)
                }
            };
        }
        v.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let r = skip_value(self.cur);
        self.fast(r)?;
        v.visit_unit()
    }

    /// A struct's field name: a Map's String key, or a `T` (elementMap's `T.id`, `T.label`),
    /// read without the general dispatch of [`deserialize_any`](Self::deserialize_any), to
    /// the same result.
    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.cur.offset();
        // elementMap's T.id and T.label, whole: `20 00` then the String `03 00` "id" or
        // "label" (any other T takes the general way, which checks the name), compared as
        // words: the 8-byte prefix (headers and length), then the name.
        const T_ID: u64 = u64::from_be_bytes([codes::T, 0, codes::STRING, 0, 0, 0, 0, 2]);
        const T_LABEL: u64 = u64::from_be_bytes([codes::T, 0, codes::STRING, 0, 0, 0, 0, 5]);
        let rem = self.cur.remaining();
        let r = match rem {
            [codes::STRING, 0x00, ..] => {
                let r = self.cur.read_array::<2>();
                self.fast(r)?;
                let r = self.cur.read_str();
                M::str(v, self.fast(r)?)
            }
            [codes::T, p @ ..] if rem.len() >= 10 => {
                let prefix = u64::from_be_bytes(rem[..8].try_into().expect("8 bytes"));
                let name = &p[7..];
                if prefix == T_ID && name.starts_with(b"id") {
                    let r = self.cur.read_array::<10>();
                    self.fast(r)?;
                    v.visit_str(T::Id.as_str())
                } else if prefix == T_LABEL && name.starts_with(b"label") {
                    let r = self.cur.read_array::<13>();
                    self.fast(r)?;
                    v.visit_str(T::Label.as_str())
                } else {
                    return self.deserialize_any(v);
                }
            }
            _ => return self.deserialize_any(v),
        };
        r.map_err(|e: Error| e.at(at))
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    integers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
        deserialize_u16 deserialize_u32 deserialize_u64
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.structure(v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.structure(v)
    }

    serde::forward_to_deserialize_any! {
        bool i128 u128 char unit unit_struct seq tuple tuple_struct
    }
}

impl<'a, 'x, M> De<'a, 'x, M> {
    /// An element map's key ([`ELEMENT_KEY_TOKEN`]): a String's bytes (`visit_bytes`, so that
    /// no other deserializer's string can pass for one), a `T` or `Direction` as its
    /// [`ElementKey`] number (`visit_u64`); anything else is an error.
    fn element_key<'de, V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        let at = self.cur.offset();
        match self.peek2()? {
            (codes::STRING, 0x00) => {
                self.header()?;
                let r = self.cur.read_str();
                let s = self.fast(r)?;
                M::bytes(v, s.as_bytes())
            }
            (codes::T, 0x00) => {
                // T.id and T.label whole, as `deserialize_identifier` reads them.
                let rem = self.cur.remaining();
                if rem.len() >= 13
                    && rem[..10] == [codes::T, 0, codes::STRING, 0, 0, 0, 0, 5, b'l', b'a']
                    && rem[10..13] == *b"bel"
                {
                    let r = self.cur.read_array::<13>();
                    self.fast(r)?;
                    return v.visit_u64(ElementKey::Label as u64);
                }
                if rem.len() >= 10
                    && rem[..10] == [codes::T, 0, codes::STRING, 0, 0, 0, 0, 2, b'i', b'd']
                {
                    let r = self.cur.read_array::<10>();
                    self.fast(r)?;
                    return v.visit_u64(ElementKey::Id as u64);
                }
                let key = |t| match t {
                    T::Id => ElementKey::Id,
                    T::Label => ElementKey::Label,
                    _ => ElementKey::Other,
                };
                self.token_key(v, key)
            }
            (codes::DIRECTION, 0x00) => {
                let key = |d| match d {
                    Direction::Out => ElementKey::Out,
                    Direction::In => ElementKey::In,
                    _ => ElementKey::Other,
                };
                self.token_key(v, key)
            }
            _ => Err(self.custom(at, "not an element key".to_owned())),
        }
    }

    /// A `T` or `Direction` element key, whole, as its [`ElementKey`] number by `key`.
    fn token_key<'de, V: Visitor<'de>, K: Decode>(
        &mut self,
        v: V,
        key: impl Fn(K) -> ElementKey,
    ) -> Result<V::Value, Error> {
        self.header()?;
        let r = K::decode(self.cur);
        let k = key(self.fast(r)?);
        v.visit_u64(k as u64)
    }

    /// A map or struct target: a present Map or element goes straight to its reader, anything
    /// else as [`deserialize_any`](de::Deserializer::deserialize_any) does, to the same result.
    #[inline]
    fn structure<'de, V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Error>
    where
        M: Mode<'x, 'de>,
    {
        let at = self.cur.offset();
        let code = match *self.cur.remaining() {
            [c @ (codes::MAP
            | codes::VERTEX
            | codes::EDGE
            | codes::VERTEX_PROPERTY
            | codes::PROPERTY
            | codes::PATH), 0x00, ..] => c,
            _ => return de::Deserializer::deserialize_any(self, v),
        };
        let r = self.cur.read_array::<2>();
        self.fast(r)?;
        let h = Head { at, code, flag: 0 };
        grow(|| {
            if code == codes::MAP {
                self.map(at, v)
            } else {
                self.structured(h, v)
            }
        })
        .map_err(|e: Error| e.at(at))
    }
}

// ---------------------------------------------------------------------------------------------
// Sequences and maps

/// How each item of a sequence is laid out: [`Fq`], a fully-qualified value, or an [`Item`]
/// of an element's typed List or Set.
trait Items: Copy {
    fn item<'de, 'x, M: Mode<'x, 'de>, S: DeserializeSeed<'de>>(
        self,
        de: &mut De<'_, 'x, M>,
        seed: S,
    ) -> Result<S::Value, Error>;
}

/// A fully-qualified value (the items of a List or Set).
#[derive(Clone, Copy)]
struct Fq;

impl Items for Fq {
    #[inline]
    fn item<'de, 'x, M: Mode<'x, 'de>, S: DeserializeSeed<'de>>(
        self,
        de: &mut De<'_, 'x, M>,
        seed: S,
    ) -> Result<S::Value, Error> {
        seed.deserialize(de)
    }
}

impl Items for Item {
    #[inline]
    fn item<'de, 'x, M: Mode<'x, 'de>, S: DeserializeSeed<'de>>(
        self,
        de: &mut De<'_, 'x, M>,
        seed: S,
    ) -> Result<S::Value, Error> {
        seed.deserialize(ItemDe { de, item: self })
    }
}

struct SeqAcc<'b, 'a, 'x, M, I> {
    de: &'b mut De<'a, 'x, M>,
    left: usize,
    index: usize,
    items: I,
}

impl<'de, 'x, M: Mode<'x, 'de>, I: Items> de::SeqAccess<'de> for &mut SeqAcc<'_, '_, 'x, M, I> {
    type Error = Error;
    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let i = self.index;
        self.index += 1;
        self.items
            .item(&mut *self.de, seed)
            .map(Some)
            .map_err(|e| e.in_index(i))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// A bulked List: each item handed out as many times as its bulk.
struct BulkSeq<'b, 'a, 'x, M> {
    de: &'b mut De<'a, 'x, M>,
    left: usize,
    /// The current item's bytes and offset.
    item: Option<(&'x [u8], u64)>,
    repeats: u64,
    index: usize,
}

impl<'de, 'x, M: Mode<'x, 'de>> de::SeqAccess<'de> for &mut BulkSeq<'_, '_, 'x, M> {
    type Error = Error;
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        while self.repeats == 0 {
            if self.left == 0 {
                return Ok(None);
            }
            self.left -= 1;
            let data = self.de.cur.remaining();
            let at = self.de.cur.offset();
            let limits = self.de.cur.limits();
            let mut probe = Cursor::with_depth(data, at, limits, self.de.cur.depth());
            let r = skip_value(&mut probe);
            self.de.fast(r)?;
            let len = probe.position();
            let r = self.de.cur.read_bytes(len);
            self.de.fast(r)?;
            let r = self.de.cur.read_i64();
            let bulk = self.de.fast(r)?;
            if bulk > 0 {
                self.item = Some((&data[..len], at));
                self.repeats = bulk as u64;
            }
        }
        self.repeats -= 1;
        let i = self.index;
        self.index += 1;
        if self.de.expand_budget == 0 {
            let limit = self.de.cur.limits().max_collection_len as u64;
            let e = self.de.cur.error(ErrorKind::LengthLimit {
                what: "bulked List (bulks expanded)",
                length: limit + 1,
                limit,
            });
            return Err(self.de.fail(e));
        }
        let (bytes, at) = self.item.expect("an item is set while repeats > 0");
        let mut sub = Cursor::with_depth(bytes, at, self.de.cur.limits(), self.de.cur.depth());
        let mut de = De::<M>::new(&mut sub);
        de.expand_budget = self.de.expand_budget - 1;
        let r = seed.deserialize(&mut de);
        self.de.expand_budget = de.expand_budget;
        let r = de.finish(r);
        r.map(Some).map_err(|e| e.in_index(i))
    }
}

/// What a [`MapAcc`] reads the entries of.
#[derive(Clone, Copy)]
enum Entries {
    /// A Map: fully-qualified keys and values.
    Map,
    /// A Tree: fully-qualified keys, each with its subtree (a bare Tree).
    Tree,
}

impl Entries {
    fn what(self) -> &'static str {
        match self {
            Entries::Map => "Map",
            Entries::Tree => "Tree",
        }
    }
    /// The fewest bytes an entry takes.
    fn min_entry(self) -> usize {
        match self {
            Entries::Map => 4,
            Entries::Tree => 6,
        }
    }
}

struct MapAcc<'b, 'a, 'x, M> {
    de: &'b mut De<'a, 'x, M>,
    left: usize,
    /// The bytes from the current key on (to name it in an error).
    key: &'x [u8],
    of: Entries,
}

/// A key's name for an error's path: a String or a token by its text, anything else by its
/// type.
fn key_name(bytes: &[u8]) -> String {
    let limits = Limits::DEFAULT;
    let mut cur = Cursor::new(bytes, 0, &limits);
    match <Value as Decode>::decode(&mut cur) {
        Ok(Value::String(s)) => s,
        Ok(Value::T(t)) => t.as_str().to_owned(),
        Ok(Value::Int(n)) => n.to_string(),
        Ok(Value::Long(n)) => n.to_string(),
        Ok(v) => format!("<{} key>", v.type_name()),
        Err(_) => "<key>".to_owned(),
    }
}

impl<'de, 'x, M: Mode<'x, 'de>> de::MapAccess<'de> for &mut MapAcc<'_, '_, 'x, M> {
    type Error = Error;
    #[inline]
    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.key = self.de.cur.remaining();
        let key = self.key;
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(|e| e.in_key(|| key_name(key)))
    }
    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        self.left = self.left.saturating_sub(1);
        let key = self.key;
        let r = match self.of {
            Entries::Map => seed.deserialize(&mut *self.de),
            Entries::Tree => seed.deserialize(BareTree { de: &mut *self.de }),
        };
        r.map_err(|e| e.in_key(|| key_name(key)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

struct BareTree<'b, 'a, 'x, M> {
    de: &'b mut De<'a, 'x, M>,
}

impl<'de, 'x, M: Mode<'x, 'de>> de::Deserializer<'de> for BareTree<'_, '_, 'x, M> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.de.cur.offset();
        grow(|| self.de.tree(at, v)).map_err(|e: Error| e.at(at))
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// An enum from a one-entry Map: the key names the variant, the value is its content.
struct EnumAcc<'b, 'a, 'x, M> {
    de: &'b mut De<'a, 'x, M>,
}

impl<'de, 'b, 'a, 'x, M: Mode<'x, 'de>> de::EnumAccess<'de> for EnumAcc<'b, 'a, 'x, M> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let v = seed.deserialize(&mut *self.de)?;
        Ok((v, self))
    }
}

impl<'de, 'x, M: Mode<'x, 'de>> de::VariantAccess<'de> for EnumAcc<'_, '_, 'x, M> {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        de::IgnoredAny::deserialize(&mut *self.de).map(drop)
    }
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(&mut *self.de)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(&mut *self.de, v)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_map(&mut *self.de, v)
    }
}

// ---------------------------------------------------------------------------------------------
// Elements

/// How a field of an element is laid out.
#[derive(Clone, Copy)]
enum Part {
    /// A fully-qualified value.
    Value,
    /// Labels: a bare List of fully-qualified Strings.
    Labels,
    /// A bare String (a Property's key).
    Key,
    /// A fully-qualified value that is not handed out (an element's `parent`, always null).
    Skip,
    /// A fully-qualified nullable List of vertex properties or properties.
    OptList(Props),
    /// A Path's labels: a fully-qualified List of fully-qualified Sets of Strings.
    PathLabels,
    /// A Path's objects: a fully-qualified List of values.
    PathObjects,
}

type Field = (&'static str, Part);

/// The elements a property list holds. (Small and word-free, so that copying a [`Part`] is
/// one byte: a `(u8, &str)` payload cost a store-forwarding stall on every field.)
#[derive(Clone, Copy)]
enum Props {
    VertexProperty,
    Property,
}

impl Props {
    fn code(self) -> u8 {
        match self {
            Props::VertexProperty => codes::VERTEX_PROPERTY,
            Props::Property => codes::PROPERTY,
        }
    }
    fn what(self) -> &'static str {
        match self {
            Props::VertexProperty => "VertexProperty",
            Props::Property => "Property",
        }
    }
    fn fields(self) -> &'static [Field] {
        match self {
            Props::VertexProperty => VERTEX_PROPERTY,
            Props::Property => PROPERTY,
        }
    }
}

const VERTEX: &[Field] = &[
    ("id", Part::Value),
    ("label", Part::Labels),
    ("properties", Part::OptList(Props::VertexProperty)),
];
const VERTEX_PROPERTY: &[Field] = &[
    ("id", Part::Value),
    ("label", Part::Labels),
    ("value", Part::Value),
    ("parent", Part::Skip),
    ("properties", Part::OptList(Props::Property)),
];
const PROPERTY: &[Field] = &[
    ("key", Part::Key),
    ("value", Part::Value),
    ("parent", Part::Skip),
];
const EDGE: &[Field] = &[
    ("id", Part::Value),
    ("label", Part::Labels),
    ("in_v_id", Part::Value),
    ("in_v_label", Part::Labels),
    ("out_v_id", Part::Value),
    ("out_v_label", Part::Labels),
    ("parent", Part::Skip),
    ("properties", Part::OptList(Props::Property)),
];
const PATH: &[Field] = &[("labels", Part::PathLabels), ("objects", Part::PathObjects)];

struct ElementAcc<'b, 'a, 'x, M> {
    de: &'b mut De<'a, 'x, M>,
    fields: &'static [Field],
    next: usize,
}

impl<'de, 'x, M: Mode<'x, 'de>> de::MapAccess<'de> for &mut ElementAcc<'_, '_, 'x, M> {
    type Error = Error;
    #[inline]
    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        while let Some(&(_, Part::Skip)) = self.fields.get(self.next) {
            self.next += 1;
            let r = skip_value(self.de.cur);
            self.de.fast(r)?;
        }
        field_key(seed, self.fields.get(self.next).map(|f| f.0))
    }
    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let (name, part) = self.fields[self.next];
        self.next += 1;
        let r = match part {
            Part::Value | Part::Skip => seed.deserialize(&mut *self.de),
            _ => seed.deserialize(PartDe {
                de: &mut *self.de,
                part,
            }),
        };
        r.map_err(|e| e.in_key(|| name.to_owned()))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - self.next)
    }
}

/// The key of the next field of a fixed list of them (an element's, a DateTime's): its name,
/// or `None` after the last.
#[inline]
fn field_key<'de, S: DeserializeSeed<'de>>(
    seed: S,
    name: Option<&'static str>,
) -> Result<Option<S::Value>, Error> {
    name.map(|name| seed.deserialize(BorrowedStrDeserializer::<Error>::new(name)))
        .transpose()
}

/// For the deserializers of a part of a value: a newtype struct is its content, read from the
/// same bytes, and the format is binary (not human-readable).
macro_rules! newtype_is_content_not_human_readable {
    () => {
        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            v: V,
        ) -> Result<V::Value, Error> {
            v.visit_newtype_struct(self)
        }

        fn is_human_readable(&self) -> bool {
            false
        }
    };
}

/// The deserializer of one element field that is not a plain fully-qualified value.
struct PartDe<'b, 'a, 'x, M> {
    de: &'b mut De<'a, 'x, M>,
    part: Part,
}

/// What each item of a typed sequence is.
#[derive(Clone, Copy)]
enum Item {
    /// A fully-qualified, non-null String.
    FqStr,
    /// A fully-qualified Set of Strings (a Path's step labels of one object).
    LabelSet,
    /// A fully-qualified, non-null element (bare after its header).
    Element(Props),
}

impl<'de, 'x, M: Mode<'x, 'de>> de::Deserializer<'de> for PartDe<'_, '_, 'x, M> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let de = self.de;
        let at = de.cur.offset();
        let r = match self.part {
            Part::Value | Part::Skip => de::Deserializer::deserialize_any(&mut *de, v),
            Part::Key => {
                let r = de.cur.read_str();
                M::str(v, de.fast(r)?)
            }
            Part::Labels => {
                let n = de.count("List", 2)?;
                de.enter()?;
                let r = de.items(at, n, Item::FqStr, None, v)?;
                de.cur.leave();
                Ok(r)
            }
            Part::OptList(props) => {
                let r = fq_opt_list_header(de.cur);
                if de.fast(r)? {
                    de.list(at, "List", Item::Element(props), None, v)
                } else {
                    v.visit_unit()
                }
            }
            Part::PathLabels => {
                let r = fq_typed_header(de.cur, codes::LIST, "List");
                de.fast(r)?;
                de.list(at, "List", Item::LabelSet, None, v)
            }
            Part::PathObjects => {
                let r = fq_typed_header(de.cur, codes::LIST, "List");
                de.fast(r)?;
                de.seq(at, "List", v)
            }
        };
        r.map_err(|e: Error| e.at(at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        if let Part::OptList(..) = self.part {
            let (_, flag) = self.de.peek2()?;
            if flag == 0x01 {
                let r = fq_opt_list_header(self.de.cur);
                self.de.fast(r)?;
                return v.visit_none();
            }
        }
        v.visit_some(self)
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        if let Part::Labels = self.part {
            let de = self.de;
            let at = de.cur.offset();
            let n = de.count("List", 2)?;
            if n != 1 {
                return Err(de.custom(at, format!("{n} labels where one String was expected")));
            }
            de.enter()?;
            let r = fq_typed_header(de.cur, codes::STRING, "String");
            de.fast(r)?;
            let r = de.cur.read_str();
            let s = de.fast(r)?;
            de.cur.leave();
            return M::str(v, s).map_err(|e: Error| e.at(at));
        }
        self.deserialize_any(v)
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_str(v)
    }

    newtype_is_content_not_human_readable!();

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.part {
            Part::PathLabels | Part::PathObjects => self.deserialize_any(v),
            p => {
                self.de.skip_part(p)?;
                v.visit_unit()
            }
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier
    }
}

struct ItemDe<'b, 'a, 'x, M> {
    de: &'b mut De<'a, 'x, M>,
    item: Item,
}

impl<'de, 'x, M: Mode<'x, 'de>> de::Deserializer<'de> for ItemDe<'_, '_, 'x, M> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let de = self.de;
        let at = de.cur.offset();
        let r = match self.item {
            Item::FqStr => {
                let r = fq_typed_header(de.cur, codes::STRING, "String");
                de.fast(r)?;
                let r = de.cur.read_str();
                M::str(v, de.fast(r)?)
            }
            Item::LabelSet => {
                let r = fq_typed_header(de.cur, codes::SET, "Set");
                de.fast(r)?;
                de.list(at, "Set", Item::FqStr, None, v)
            }
            Item::Element(props) => {
                let r = fq_typed_header(de.cur, props.code(), props.what());
                de.fast(r)?;
                de.element_here(props.fields(), v)
            }
        };
        r.map_err(|e: Error| e.at(at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_some(self)
    }

    newtype_is_content_not_human_readable!();

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed maps (DateTime, Duration)

#[derive(Clone, Copy)]
enum Prim {
    I8(i8),
    I32(i32),
    I64(i64),
}

struct FixedMap<'f> {
    fields: &'f [(&'static str, Prim)],
    next: usize,
}

impl<'f> FixedMap<'f> {
    fn new(fields: &'f [(&'static str, Prim)]) -> Self {
        FixedMap { fields, next: 0 }
    }
}

impl<'de> de::MapAccess<'de> for FixedMap<'_> {
    type Error = Error;
    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        field_key(seed, self.fields.get(self.next).map(|f| f.0))
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let (name, p) = self.fields[self.next];
        self.next += 1;
        match p {
            Prim::I8(n) => seed.deserialize(n.into_deserializer()),
            Prim::I32(n) => seed.deserialize(n.into_deserializer()),
            Prim::I64(n) => seed.deserialize(n.into_deserializer()),
        }
        .map_err(|e: Error| e.in_key(|| name.to_owned()))
    }
}
