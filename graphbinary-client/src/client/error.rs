//! The client's error type: transport, server, format and usage errors kept apart.
//!
//! * [`Error::Transport`]: the bytes did not get through (connect refused, TLS handshake,
//!   connect or read timeout, connection reset, ...). [`TransportKind`] says which.
//! * [`Error::Server`]: the server answered with an error, either as an HTTP status with a JSON
//!   `{"message": ...}` body or as a GraphBinary footer whose status code is not 200 (which
//!   Gremlin Server sends inside an HTTP 200 response). See [`ServerError`].
//! * [`Error::Decode`] and [`Error::Decompress`]: the bytes arrived but are not valid
//!   GraphBinary (with the byte offset) or not a valid zlib stream.
//! * [`Error::InvalidRequest`], [`Error::Build`], [`Error::Literal`], [`Error::Config`]: the
//!   request, the traversal, a literal or the builder was rejected before anything was sent.
//! * [`Error::Protocol`]: the server answered in a way this client does not understand.
//! * [`Error::Conversion`], [`Error::Element`], [`Error::NoResult`],
//!   [`Error::TooManyResults`]: typed access to results failed.
//! * [`Error::File`], [`Error::Export`], [`Error::Context`]: the loader's and the exporter's
//!   failures (a file, a graph the format cannot hold, a step of the task).

use std::fmt;
use std::io;

use graphbinary_core::DecodeError;

use crate::lang::Lit;
use crate::transport::http::{DecompressError, HttpError};

pub use crate::protocol::http4::response::ServerError;

pub use crate::transport::Limit;

/// Every error the client returns. The underlying cause is available through
/// [`std::error::Error::source`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The client configuration is invalid (e.g. an unparsable URL or PEM certificate).
    #[error("invalid client configuration: {0}")]
    Config(String),
    /// The request is invalid and was not sent (e.g. a parameter name that is not an
    /// identifier).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The request or response did not get through.
    #[error("{kind} error talking to the server")]
    Transport {
        /// What failed.
        kind: TransportKind,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The server reported an error.
    #[error(transparent)]
    Server(#[from] ServerError),
    /// A request interceptor failed; the request was not sent.
    #[error("request interceptor {name:?} failed")]
    Interceptor {
        /// The interceptor's [`name`](super::Interceptor::name).
        name: String,
        /// Its error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The server does not know the transaction (HTTP 404): it expired (idle or lifetime
    /// timeout), was already committed or rolled back, or the id is wrong.
    #[error("transaction {id} is unknown to the server (expired or already ended)")]
    TransactionNotFound {
        /// The transaction id sent.
        id: String,
        /// The server's answer.
        #[source]
        source: ServerError,
    },
    /// The server cannot open another transaction (HTTP 503, `maxConcurrentTransactions`).
    #[error("the server cannot open another transaction")]
    TransactionUnavailable {
        /// The server's answer.
        #[source]
        source: ServerError,
    },
    /// The [`Transaction`](super::Transaction) was already committed or rolled back; nothing
    /// was sent.
    #[error("transaction {id} was already {state}")]
    TransactionClosed {
        /// The transaction id.
        id: String,
        /// `committed` or `rolled back`.
        state: &'static str,
    },
    /// The response body is not valid GraphBinary.
    #[error("invalid GraphBinary response")]
    Decode(#[source] DecodeError),
    /// The response body claims `Content-Encoding: deflate` but is not a valid zlib stream.
    #[error("invalid compressed response body")]
    Decompress(#[source] io::Error),
    /// The response is not what the protocol allows (e.g. an unexpected content type).
    #[error("unexpected response: {0}")]
    Protocol(String),
    /// A result could not be converted to the requested Rust type.
    #[error("cannot convert result to {target}: {detail}")]
    Conversion {
        /// The requested type.
        target: &'static str,
        /// Why.
        detail: String,
    },
    /// A single result was requested but the response had none.
    #[error("the response has no result")]
    NoResult,
    /// A single result was requested but the response had this many (bulks counted).
    #[error("expected one result, the response has {0}")]
    TooManyResults(u64),
    /// A response went over a limit of the client's own, not the server's: a WebSocket
    /// message larger than [`ClientBuilder::max_message_size`](super::ClientBuilder::max_message_size),
    /// values nested deeper than [`ClientBuilder::max_depth`](super::ClientBuilder::max_depth),
    /// ... [`Limit`] names it, with the builder method and the `graphbinary` flag that raise
    /// it. A WebSocket message over the limit ends every request of its connection (the
    /// protocol cannot skip a message), each with this error.
    #[error("{} {seen} {} over the client's limit of {max} (raise it with {} or {})", .limit.what(), .limit.unit(), .limit.builder_method(), .limit.cli_flag())]
    Limit {
        /// Which limit.
        limit: Limit,
        /// The size seen: bytes of the message, the response or the String; elements of the
        /// collection; levels of nesting (reading stops one level over the limit, so this is
        /// the limit plus one).
        seen: u64,
        /// The limit.
        max: u64,
    },
    /// The client was closed ([`Client::close`](super::Client::close)): the request was not
    /// sent, or its response was cut.
    #[error("the client is closed")]
    Closed,
    /// A struct deriving [`Vertex`](crate::element::Vertex) or [`Edge`](crate::element::Edge)
    /// could not be read from what the server answered (a property missing or of another
    /// type, another label, ...) or could not be written (a key property without a value, ...).
    #[error("cannot read a {target}: {detail}")]
    Element {
        /// The Rust type.
        target: &'static str,
        /// What went wrong, the field named.
        detail: String,
    },
    /// A traversal could not be built: an argument fits no form of its step, a parameter
    /// name is invalid or reused with another value, a child traversal is not anonymous, ...
    #[error("cannot build the traversal: {0}")]
    Build(String),
    /// A gremlin-lang literal could not be read
    /// ([`Lit::parse`](crate::process::Lit::parse)).
    #[error("invalid gremlin-lang literal at byte {at}: {message}")]
    Literal {
        /// The byte offset in the text.
        at: usize,
        /// What was wrong there.
        message: String,
    },
    /// Reading or writing a file (or the writer given) failed: a load's input, an export's
    /// output.
    #[error("{action} {file}")]
    File {
        /// `reading` or `writing`.
        action: &'static str,
        /// The file's name (for a writer: `nodes` or `edges`).
        file: String,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// An export refused the graph: a value, key, id or label the format cannot hold (the
    /// element named), or the graph changed between the passes.
    #[error("{0}")]
    Export(String),
    /// An error of a step of a longer task (an export reading the graph, a load reading the
    /// ids back...): `context` says which; the error is the source, and [`Error::kind`] is
    /// its kind.
    #[error("{context}")]
    Context {
        /// What was being done, e.g. `reading the graph`.
        context: String,
        /// The error.
        #[source]
        source: Box<Error>,
    },
    /// The server this client is set up for refuses what the request asks (e.g. a lambda on
    /// Azure Cosmos DB, see [`ClientBuilder::cosmos`](super::ClientBuilder::cosmos)); it was
    /// not sent.
    #[error("{server} does not support {what}; the request was not sent")]
    Unsupported {
        /// The server, e.g. `"Azure Cosmos DB"`.
        server: &'static str,
        /// What it does not support, e.g. `"lambdas (a Groovy closure at byte 12)"`.
        what: String,
    },
    /// The traversal has a step, predicate or token newer than the server's TinkerPop
    /// version ([`ClientBuilder::server_version`](super::ClientBuilder::server_version)); it
    /// was not sent. Its kind is [`ErrorKind::Unsupported`].
    #[error("{what} needs TinkerPop {needs} or later; the server is {server} (ClientBuilder::server_version): the request was not sent")]
    NeedsVersion {
        /// The step, predicate or token, as Gremlin writes it: `asNumber()`, `P.typeOf()`,
        /// `GType.INT`.
        what: String,
        /// The first version that has it.
        needs: super::ServerVersion,
        /// The server's version.
        server: super::ServerVersion,
    },
}

/// What kind of error an [`Error`] is ([`Error::kind`]): about one per variant, with transport
/// timeouts apart from the other transport failures; an [`Error::Context`] has the kind of
/// its source. New kinds may be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// [`Error::Config`].
    Config,
    /// [`Error::InvalidRequest`], [`Error::Build`].
    InvalidRequest,
    /// [`Error::Transport`] of [`TransportKind::Timeout`].
    Timeout,
    /// [`Error::Transport`] of any other [`TransportKind`].
    Transport,
    /// [`Error::Server`].
    Server,
    /// [`Error::Interceptor`].
    Interceptor,
    /// [`Error::TransactionNotFound`], [`Error::TransactionUnavailable`],
    /// [`Error::TransactionClosed`].
    Transaction,
    /// [`Error::Decode`].
    Decode,
    /// [`Error::Decompress`].
    Decompress,
    /// [`Error::Protocol`].
    Protocol,
    /// [`Error::Conversion`], [`Error::Element`].
    Conversion,
    /// [`Error::NoResult`].
    NoResult,
    /// [`Error::TooManyResults`].
    TooManyResults,
    /// [`Error::Closed`].
    Closed,
    /// [`Error::Unsupported`] and [`Error::NeedsVersion`].
    Unsupported,
    /// [`Error::Limit`].
    Limit,
    /// [`Error::Literal`].
    Literal,
    /// [`Error::File`].
    File,
    /// [`Error::Export`].
    Export,
}

impl ErrorKind {
    /// A short name, for logs and metrics labels: `config`, `invalid_request`, `timeout`,
    /// `transport`, `server`, `interceptor`, `transaction`, `decode`, `decompress`,
    /// `protocol`, `conversion`, `no_result`, `too_many_results`, `closed`, `unsupported`,
    /// `limit`, `literal`, `file` or `export`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Config => "config",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Transport => "transport",
            ErrorKind::Server => "server",
            ErrorKind::Interceptor => "interceptor",
            ErrorKind::Transaction => "transaction",
            ErrorKind::Decode => "decode",
            ErrorKind::Decompress => "decompress",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Conversion => "conversion",
            ErrorKind::NoResult => "no_result",
            ErrorKind::TooManyResults => "too_many_results",
            ErrorKind::Closed => "closed",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Limit => "limit",
            ErrorKind::Literal => "literal",
            ErrorKind::File => "file",
            ErrorKind::Export => "export",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of transport failure an [`Error::Transport`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// The connection could not be established (refused, DNS, unreachable).
    Connect,
    /// The TLS handshake or a TLS record failed (e.g. an untrusted certificate).
    Tls,
    /// The connect or read timeout expired.
    Timeout,
    /// The connection failed while sending the request or reading the response.
    Io,
    /// Any other HTTP-level failure.
    Http,
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TransportKind::Connect => "connect",
            TransportKind::Tls => "TLS",
            TransportKind::Timeout => "timeout",
            TransportKind::Io => "I/O",
            TransportKind::Http => "HTTP",
        })
    }
}

impl Error {
    /// What kind of error this is; [`ErrorKind::as_str`] is its short name for logs and
    /// metrics labels.
    ///
    /// ```
    /// use graphbinary_client::client::{Client, ErrorKind};
    ///
    /// let e = Client::new("ftp://127.0.0.1/").unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::Config);
    /// assert_eq!(e.kind().as_str(), "config");
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Config(_) => ErrorKind::Config,
            Error::InvalidRequest(_) => ErrorKind::InvalidRequest,
            Error::Transport {
                kind: TransportKind::Timeout,
                ..
            } => ErrorKind::Timeout,
            Error::Transport { .. } => ErrorKind::Transport,
            Error::Server(_) => ErrorKind::Server,
            Error::Interceptor { .. } => ErrorKind::Interceptor,
            Error::TransactionNotFound { .. }
            | Error::TransactionUnavailable { .. }
            | Error::TransactionClosed { .. } => ErrorKind::Transaction,
            Error::Decode(_) => ErrorKind::Decode,
            Error::Decompress(_) => ErrorKind::Decompress,
            Error::Protocol(_) => ErrorKind::Protocol,
            Error::Conversion { .. } => ErrorKind::Conversion,
            Error::NoResult => ErrorKind::NoResult,
            Error::TooManyResults(_) => ErrorKind::TooManyResults,
            Error::Closed => ErrorKind::Closed,
            Error::Unsupported { .. } | Error::NeedsVersion { .. } => ErrorKind::Unsupported,
            Error::Limit { .. } => ErrorKind::Limit,
            Error::Element { .. } => ErrorKind::Conversion,
            Error::Build(_) => ErrorKind::InvalidRequest,
            Error::Literal { .. } => ErrorKind::Literal,
            Error::File { .. } => ErrorKind::File,
            Error::Export(_) => ErrorKind::Export,
            Error::Context { source, .. } => source.kind(),
        }
    }

    /// The error of converting a result to `T` that failed with `e`: `e` itself when it is
    /// already this crate's [`Error`] (the conversions of [`Value`](crate::value::Value) to
    /// Rust types), else [`Error::Conversion`] with `e`'s text.
    pub(crate) fn conversion<T, E: fmt::Display + 'static>(e: E) -> Error {
        let mut e = Some(e);
        if let Some(slot) = (&mut e as &mut dyn std::any::Any).downcast_mut::<Option<Error>>() {
            if let Some(own) = slot.take() {
                return own;
            }
        }
        let e = e.expect("not taken");
        Error::Conversion {
            target: std::any::type_name::<T>(),
            detail: e.to_string(),
        }
    }

    /// The server error, if this is one (or an [`Error::Context`] of one).
    pub fn server_error(&self) -> Option<&ServerError> {
        match self {
            Error::Server(e) => Some(e),
            Error::Context { source, .. } => source.server_error(),
            _ => None,
        }
    }

    /// The transport failure kind, if this is a transport error (or an [`Error::Context`] of
    /// one).
    pub fn transport_kind(&self) -> Option<TransportKind> {
        match self {
            Error::Transport { kind, .. } => Some(*kind),
            Error::Context { source, .. } => source.transport_kind(),
            _ => None,
        }
    }

    /// `self` as the source of an [`Error::Context`] saying what was being done.
    pub(crate) fn context(self, context: impl Into<String>) -> Error {
        Error::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// Whether this is a transport timeout (connect or read).
    pub fn is_timeout(&self) -> bool {
        self.transport_kind() == Some(TransportKind::Timeout)
    }

    /// The client error for a decoding error of a response read with `limits`: one of those
    /// limits is [`Error::Limit`]; I/O failures surfaced by the decoder are transport or
    /// decompression errors; anything else is [`Error::Decode`].
    pub(crate) fn from_decode(e: DecodeError, limits: &graphbinary_core::Limits) -> Self {
        if let Some((limit, seen, max)) = Limit::of(&e, limits) {
            return Error::Limit { limit, seen, max };
        }
        match e.into_io() {
            Ok(io) => Error::from_body_io(io),
            Err(e) => Error::Decode(e),
        }
    }

    /// The error of the HTTP transport: [`Error::Transport`] of its kind, its cause as the
    /// source.
    pub(crate) fn from_http(e: HttpError) -> Self {
        use crate::transport::http::FailKind;
        let kind = match e.kind {
            FailKind::Connect => TransportKind::Connect,
            FailKind::Tls => TransportKind::Tls,
            FailKind::Timeout => TransportKind::Timeout,
            FailKind::Io => TransportKind::Io,
            FailKind::Http => TransportKind::Http,
        };
        Error::Transport {
            kind,
            source: e.source,
        }
    }

    /// Converts an I/O error raised while reading the response body.
    pub(crate) fn from_body_io(e: io::Error) -> Self {
        if e.get_ref().is_some_and(|inner| inner.is::<HttpError>()) {
            let inner = e.into_inner().expect("checked above");
            return match inner.downcast::<HttpError>() {
                Ok(he) => Error::from_http(*he),
                Err(other) => Error::Transport {
                    kind: TransportKind::Io,
                    source: other,
                },
            };
        }
        if e.get_ref()
            .is_some_and(|inner| inner.is::<DecompressError>())
        {
            return Error::Decompress(e);
        }
        if e.get_ref()
            .is_some_and(|inner| inner.is::<crate::transport::http::ClientClosed>())
        {
            return Error::Closed;
        }
        let kind = if e.kind() == io::ErrorKind::TimedOut {
            TransportKind::Timeout
        } else {
            TransportKind::Io
        };
        Error::Transport {
            kind,
            source: Box::new(e),
        }
    }
}

impl From<DecodeError> for Error {
    /// I/O failures surfaced by the decoder become transport or decompression errors; every
    /// other decode error is a format error.
    fn from(e: DecodeError) -> Self {
        Error::from_decode(e, &crate::value::dynamic::DEFAULT_LIMITS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graphbinary_core::ErrorKind;

    #[test]
    fn a_context_has_its_sources_kind_and_each_cause_prints_once() {
        let server = ServerError::from_status(
            crate::protocol::http4::response::Status {
                code: 500,
                message: Some("boom".into()),
                exception: None,
            },
            None,
        );
        let e = Error::Server(server).context("reading the graph");
        assert_eq!(e.kind(), super::ErrorKind::Server);
        assert_eq!(e.server_error().map(|s| s.code), Some(500));
        assert_eq!(
            crate::format::text::one_line(&e),
            "reading the graph: server error 500: boom"
        );
        let e = Error::File {
            action: "writing",
            file: "out/nodes.csv".into(),
            source: io::Error::other("disk full"),
        };
        assert_eq!(e.kind(), super::ErrorKind::File);
        assert_eq!(
            crate::format::text::one_line(&e),
            "writing out/nodes.csv: disk full"
        );
    }

    #[test]
    fn decode_io_error_from_decompressor_is_decompress() {
        let io = io::Error::new(
            io::ErrorKind::InvalidData,
            DecompressError(io::Error::other("bad header")),
        );
        let e = Error::from(DecodeError::new(7, ErrorKind::Io(io)));
        assert!(matches!(e, Error::Decompress(_)), "{e:?}");
    }

    #[test]
    fn decode_format_error_stays_decode_with_offset() {
        let e = Error::from(DecodeError::new(
            42,
            ErrorKind::UnknownTypeCode { code: 0x77 },
        ));
        match e {
            Error::Decode(d) => assert_eq!(d.offset(), 42),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn plain_io_timeout_is_timeout() {
        let e = Error::from_body_io(io::Error::new(io::ErrorKind::TimedOut, "slow"));
        assert!(e.is_timeout());
    }

    #[test]
    fn server_error_display_names_code_exception_message() {
        let e = ServerError {
            http_status: Some(200),
            code: 400,
            message: Some("bad".into()),
            exception: Some("MalformedQueryException".into()),
            attributes: Default::default(),
        };
        assert_eq!(
            e.to_string(),
            "server error 400 (MalformedQueryException): bad"
        );
    }
}

/// The gremlin-lang literal reader's public entry points: defined here, with the crate's
/// [`Error`], since `lang` (where the parser lives) sits below the client layer.
impl Lit {
    /// Reads a whole text as one literal (surrounding whitespace allowed).
    ///
    /// ```
    /// use graphbinary_client::process::Lit;
    /// assert_eq!(Lit::parse("29").unwrap(), Lit::Int(29));
    /// assert_eq!(Lit::parse("29L").unwrap(), Lit::Long(29));
    /// assert_eq!(
    ///     Lit::parse("[name:'marko', ages:[1,2]]").unwrap(),
    ///     Lit::map([("name", Lit::from("marko")), ("ages", Lit::from(vec![1, 2]))])
    /// );
    /// assert!(Lit::parse("g.V()").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Lit, Error> {
        Lit::parse_text(text).map_err(|e| Error::Literal {
            at: e.at,
            message: e.message,
        })
    }

    /// Reads one literal at the start of `text` (after any whitespace) and returns it with the
    /// number of bytes it took; what follows is left for the caller (a parser of whole
    /// traversals reads its literals with it).
    ///
    /// ```
    /// use graphbinary_client::process::Lit;
    /// assert_eq!(Lit::parse_prefix("1.5f, 'x')").unwrap(), (Lit::Float(1.5), 4));
    /// ```
    pub fn parse_prefix(text: &str) -> Result<(Lit, usize), Error> {
        Lit::parse_prefix_text(text).map_err(|e| Error::Literal {
            at: e.at,
            message: e.message,
        })
    }
}

#[cfg(test)]
mod literal_tests {
    use super::{Error, ErrorKind, Lit};

    #[test]
    fn the_public_error_is_the_crates_literal_error() {
        let e = Lit::parse("[1, 2").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Literal);
        assert!(matches!(&e, Error::Literal { at: 5, .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("invalid gremlin-lang literal at byte 5: "),
            "{e}"
        );
        assert_eq!(
            Lit::parse_prefix("1.5f, 'x')").unwrap(),
            (Lit::Float(1.5), 4)
        );
    }
}
