//! The error of the serde deserializer: the byte offset, the field path and what went wrong.

use std::fmt;

use graphbinary_core::{DecodeError, ErrorKind, FastError};

/// Why a GraphBinary value could not be deserialized into the requested type, or (from
/// [`to_value`](super::to_value) and `to_literal`) why a Rust value cannot be made a
/// [`Value`](crate::Value).
///
/// It names the absolute byte offset of the value (or of the byte that broke the format) and
/// the path of the field inside the result, e.g. `.properties[0].value`:
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Debug, Deserialize)]
/// struct Person {
///     name: String,
///     age: i8,
/// }
/// // A Map {"name": "marko", "age": Int 300}
/// let bytes = [
///     0x0a, 0x00, 0, 0, 0, 2,
///     0x03, 0x00, 0, 0, 0, 4, b'n', b'a', b'm', b'e',
///     0x03, 0x00, 0, 0, 0, 5, b'm', b'a', b'r', b'k', b'o',
///     0x03, 0x00, 0, 0, 0, 3, b'a', b'g', b'e',
///     0x01, 0x00, 0, 0, 0x01, 0x2c,
/// ];
/// let err = graphbinary_client::format::de::from_slice::<Person>(&bytes).unwrap_err();
/// assert_eq!(err.offset(), Some(36));
/// assert_eq!(err.path(), ".age");
/// assert!(!err.is_malformed());
/// assert_eq!(
///     err.to_string(),
///     "at byte 36, in .age: invalid value: integer `300`, expected i8"
/// );
/// ```
pub struct Error(Box<Inner>);

struct Inner {
    kind: Kind,
    offset: Option<u64>,
    /// Innermost segment first.
    path: Vec<Segment>,
}

enum Kind {
    /// The value is not all buffered yet (fast path only; never escapes to users of
    /// [`from_slice`](super::from_slice)).
    NeedMore(usize),
    /// The bytes break the GraphBinary format.
    Format(DecodeError),
    /// The value does not fit the requested type.
    Custom(String),
}

enum Segment {
    Key(String),
    Index(usize),
}

impl Error {
    pub(crate) fn need_more(n: usize) -> Self {
        Self::new(Kind::NeedMore(n))
    }

    pub(crate) fn format(e: DecodeError) -> Self {
        Self::new(Kind::Format(e))
    }

    pub(crate) fn from_fast(e: FastError) -> Self {
        match e {
            FastError::NeedMore(n) => Self::need_more(n),
            FastError::Invalid(e) => Self::format(e),
        }
    }

    /// An error that is only a message (a value that does not fit, a Rust value that cannot
    /// be made a [`Value`](crate::Value)).
    pub(crate) fn message(msg: String) -> Self {
        Self::new(Kind::Custom(msg))
    }

    fn new(kind: Kind) -> Self {
        Error(Box::new(Inner {
            kind,
            offset: None,
            path: Vec::new(),
        }))
    }

    /// The absolute byte offset where the problem was found: for a value that does not fit
    /// the requested type, the first byte of that value; for malformed bytes, the byte that
    /// broke the format. `None` only for an error made outside the deserializer.
    pub fn offset(&self) -> Option<u64> {
        match &self.0.kind {
            Kind::Format(e) => Some(e.offset()),
            _ => self.0.offset,
        }
    }

    /// The path of the field inside the result, e.g. `.name`, `[3]` or
    /// `.properties[0].value`; empty for the result itself.
    pub fn path(&self) -> String {
        let mut s = String::new();
        for seg in self.0.path.iter().rev() {
            match seg {
                Segment::Key(k) => {
                    s.push('.');
                    s.push_str(k);
                }
                Segment::Index(i) => {
                    s.push('[');
                    s.push_str(&i.to_string());
                    s.push(']');
                }
            }
        }
        s
    }

    /// Whether the bytes break the GraphBinary format (rather than being a valid value that
    /// does not fit the requested type).
    pub fn is_malformed(&self) -> bool {
        matches!(self.0.kind, Kind::Format(_))
    }

    /// The format error, when [`Error::is_malformed`].
    pub fn decode_error(&self) -> Option<&DecodeError> {
        match &self.0.kind {
            Kind::Format(e) => Some(e),
            _ => None,
        }
    }

    pub(crate) fn is_need_more(&self) -> bool {
        matches!(self.0.kind, Kind::NeedMore(_))
    }

    /// Sets the offset when none is known yet (the deepest one wins).
    pub(crate) fn at(mut self, offset: u64) -> Self {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
        }
        self
    }

    pub(crate) fn in_key(mut self, key: impl FnOnce() -> String) -> Self {
        if !self.is_need_more() {
            self.0.path.push(Segment::Key(key()));
        }
        self
    }

    pub(crate) fn in_index(mut self, i: usize) -> Self {
        if !self.is_need_more() {
            self.0.path.push(Segment::Index(i));
        }
        self
    }

    /// As a fast-path outcome: "need more" stays "need more", anything else becomes a
    /// [`DecodeError`] (see [`Error::into_decode_error`]).
    pub fn into_fast(self) -> FastError {
        match self.0.kind {
            Kind::NeedMore(n) => FastError::NeedMore(n),
            _ => FastError::Invalid(self.into_decode_error()),
        }
    }

    /// As a [`DecodeError`]: a format error as it was found; a value that does not fit the
    /// requested type as [`ErrorKind::Invalid`] (what: `"result for the requested type"`) at
    /// the value's offset, the detail naming the field path and the reason.
    pub fn into_decode_error(self) -> DecodeError {
        let path = self.path();
        let offset = self.offset().unwrap_or(0);
        match self.0.kind {
            Kind::Format(e) => e,
            Kind::NeedMore(n) => DecodeError::new(
                offset,
                ErrorKind::UnexpectedEof {
                    expected: if n > 0 {
                        "the rest of the value"
                    } else {
                        "a value"
                    },
                },
            ),
            Kind::Custom(msg) => DecodeError::new(
                offset,
                ErrorKind::Invalid {
                    what: "result for the requested type",
                    detail: if path.is_empty() {
                        msg
                    } else {
                        format!("in {path}: {msg}")
                    },
                },
            ),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(o) = self.offset() {
            write!(f, "at byte {o}")?;
        }
        let path = self.path();
        if !path.is_empty() {
            if self.offset().is_some() {
                f.write_str(", ")?;
            }
            write!(f, "in {path}")?;
        }
        if self.offset().is_some() || !path.is_empty() {
            f.write_str(": ")?;
        }
        match &self.0.kind {
            Kind::NeedMore(n) => write!(f, "incomplete value: at least {n} bytes are needed"),
            Kind::Format(e) => e.kind().fmt(f),
            Kind::Custom(m) => f.write_str(m),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("offset", &self.offset())
            .field("path", &self.path())
            .field("message", &self.to_string())
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            Kind::Format(e) => Some(e),
            _ => None,
        }
    }
}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self::message(msg.to_string())
    }
}

/// The error of [`to_value`](super::to_value): a Rust value that cannot be made a
/// [`Value`](crate::Value) (no offset, no path).
impl serde::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self::message(msg.to_string())
    }
}

impl From<Error> for DecodeError {
    fn from(e: Error) -> Self {
        e.into_decode_error()
    }
}
