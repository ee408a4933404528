//! Decode and encode errors.
//!
//! Every decode error names the absolute byte offset at which the rule was broken and what
//! was expected there. "Not enough bytes yet" is *not* an error on the fast path (see
//! [`FastError::NeedMore`]); on the slow path it becomes [`ErrorKind::UnexpectedEof`] only
//! when the underlying reader has really ended.

use std::fmt;

/// A GraphBinary decoding error: what went wrong and at which absolute byte offset.
///
/// The offset counts every byte consumed from the underlying reader since the
/// [`ReadBuffer`](crate::ReadBuffer) was created (for a response body: from its first byte).
///
/// It is one pointer wide (the details are boxed), so that results carrying it stay small on
/// the hot path where errors never happen.
pub struct DecodeError(Box<Inner>);

#[derive(Debug)]
struct Inner {
    offset: u64,
    kind: ErrorKind,
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeError")
            .field("offset", &self.0.offset)
            .field("kind", &self.0.kind)
            .finish()
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.0.offset, self.0.kind)
    }
}

/// The kind is already part of the message; the source is what caused the kind (an I/O error).
impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0.kind)
    }
}

impl DecodeError {
    /// An error of `kind` at absolute byte `offset`.
    pub fn new(offset: u64, kind: ErrorKind) -> Self {
        Self(Box::new(Inner { offset, kind }))
    }

    /// The absolute byte offset (from the start of the stream) where the error was found.
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Consumes the error, returning what went wrong.
    pub fn into_kind(self) -> ErrorKind {
        self.0.kind
    }

    /// The I/O error of an [`ErrorKind::Io`], or the error itself for every other kind.
    pub fn into_io(self) -> Result<std::io::Error, Self> {
        match self.0.kind {
            ErrorKind::Io(io) => Ok(io),
            kind => Err(Self(Box::new(Inner {
                offset: self.0.offset,
                kind,
            }))),
        }
    }
}

/// What rule a GraphBinary input broke.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The stream ended inside a value.
    #[error("unexpected end of stream: expected {expected}")]
    UnexpectedEof {
        /// What was being read, e.g. "4-byte Int".
        expected: &'static str,
    },
    /// A length field was negative.
    #[error("negative length {length} for {what}")]
    NegativeLength {
        /// What the length was for.
        what: &'static str,
        /// The length as read.
        length: i32,
    },
    /// A length or count field exceeded a configured limit.
    #[error("{what} length {length} exceeds the limit of {limit}")]
    LengthLimit {
        /// What the length was for.
        what: &'static str,
        /// The length as read.
        length: u64,
        /// The configured limit.
        limit: u64,
    },
    /// Values nested deeper than the configured limit.
    #[error("nesting depth exceeds the limit of {limit}")]
    DepthLimit {
        /// The configured limit.
        limit: u32,
    },
    /// The stream is longer than the configured maximum response size.
    #[error("response exceeds the limit of {limit} bytes")]
    ResponseLimit {
        /// The configured limit.
        limit: u64,
    },
    /// A type code no reader knows.
    #[error("unknown type code 0x{code:02x}")]
    UnknownTypeCode {
        /// The type code as read.
        code: u8,
    },
    /// A type code other than the one the layout calls for.
    #[error("expected type code 0x{expected:02x} ({what}), found 0x{found:02x}")]
    UnexpectedTypeCode {
        /// What was being read.
        what: &'static str,
        /// The code the layout calls for.
        expected: u8,
        /// The code as read.
        found: u8,
    },
    /// A value flag that is not allowed here.
    #[error("invalid value flag 0x{flag:02x} for {what}")]
    InvalidValueFlag {
        /// What was being read.
        what: &'static str,
        /// The flag as read.
        flag: u8,
    },
    /// A null where the layout requires a value.
    #[error("unexpected null for {what}")]
    UnexpectedNull {
        /// What was being read.
        what: &'static str,
    },
    /// Bytes that are not valid UTF-8 where text is required.
    #[error("invalid UTF-8 in {what}")]
    InvalidUtf8 {
        /// What was being read.
        what: &'static str,
    },
    /// Any other violation of a layout, e.g. a Boolean byte other than 0 or 1.
    #[error("invalid {what}: {detail}")]
    Invalid {
        /// What was being read.
        what: &'static str,
        /// Why it is invalid.
        detail: String,
    },
    /// The underlying reader failed.
    #[error("I/O error")]
    Io(#[source] std::io::Error),
}

/// The outcome of a fast-path (synchronous) read that did not produce a value.
#[derive(Debug)]
pub enum FastError {
    /// Not enough bytes are buffered. The value needs at least this many bytes counted from
    /// the start of the cursor. Nothing was consumed; this is not an error.
    NeedMore(usize),
    /// The bytes are invalid.
    Invalid(DecodeError),
}

impl From<DecodeError> for FastError {
    fn from(e: DecodeError) -> Self {
        FastError::Invalid(e)
    }
}

impl fmt::Display for FastError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FastError::NeedMore(n) => write!(f, "need at least {n} bytes"),
            FastError::Invalid(e) => e.fmt(f),
        }
    }
}

/// The result of a fast-path read: a value, "need more" (consuming nothing), or an error.
pub type FastResult<T> = Result<T, FastError>;

/// A value that cannot be written as GraphBinary.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// A length does not fit the 4-byte signed length field.
    #[error("{what} length {length} does not fit in a GraphBinary Int")]
    TooLong {
        /// What was being written.
        what: &'static str,
        /// The length.
        length: usize,
    },
    /// A value the format cannot express.
    #[error("cannot encode {what}: {detail}")]
    Unrepresentable {
        /// What was being written.
        what: &'static str,
        /// Why.
        detail: String,
    },
}
