//! Why a WebSocket connection ended: [`CloseReason`], logged when the connection's task ends
//! and turned into the error each request still in flight on it gets.

use std::time::Duration;

use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Error as WsError;

use super::Error3;

/// Why a connection's task ended. Its `Display` is the reason as a request's error names it
/// (`connection closed before the response ended: <reason>`) and the log's `reason` field.
#[derive(Debug)]
pub(crate) enum CloseReason {
    /// [`Client3::close`](super::Client3::close): its requests end with
    /// [`Error3::ClientClosed`].
    ClientClosed,
    /// Every handle on the connection was dropped.
    Dropped,
    /// A request timed out on it, and TinkerPop 3 cannot cancel one (`Results3::abandon_connection`).
    Abandoned,
    /// The server ended the stream without a close frame.
    ServerClosed,
    /// The server sent a close frame.
    CloseFrame(Option<CloseFrame>),
    /// A message was larger than the client's `max_message_size`: its requests end with
    /// [`Error3::Limit`] (the connection cannot skip a message).
    MessageTooLong {
        /// The message's size in bytes.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// Reading from the socket failed.
    Read(WsError),
    /// Writing requests to the socket failed.
    Send(WsError),
    /// A response message could not be routed to its request (`detail` says where and why).
    Undecodable {
        /// Whether the connection speaks GraphSON (else GraphBinary 1).
        graphson: bool,
        /// The offset and error, or why no offset.
        detail: String,
    },
    /// The answer to the server's SASL challenge could not be written or sent.
    Sasl(String),
    /// No answer to a keep-alive ping within the ping interval.
    PingUnanswered(Duration),
    /// A keep-alive ping could not be sent.
    Ping(WsError),
}

impl CloseReason {
    /// The reason a read error gives: a message over the client's limit, or the error.
    pub(crate) fn read(e: WsError) -> Self {
        use tokio_tungstenite::tungstenite::error::CapacityError;
        match e {
            WsError::Capacity(CapacityError::MessageTooLong { size, max_size }) => {
                CloseReason::MessageTooLong {
                    size,
                    max: max_size,
                }
            }
            e => CloseReason::Read(e),
        }
    }

    /// The error a request still in flight on the connection ends with.
    pub(crate) fn error(&self) -> Error3 {
        match self {
            CloseReason::ClientClosed => Error3::ClientClosed,
            CloseReason::MessageTooLong { size, max } => Error3::Limit {
                limit: crate::transport::Limit::MessageSize,
                seen: *size as u64,
                max: *max as u64,
            },
            other => Error3::Closed(format!(": {other}")),
        }
    }
}

impl std::fmt::Display for CloseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CloseReason::ClientClosed => f.write_str("the client was closed"),
            CloseReason::Dropped => f.write_str("the client is gone"),
            CloseReason::Abandoned => f.write_str(
                "closed after a request timed out on it (TinkerPop 3 cannot cancel one)",
            ),
            CloseReason::ServerClosed => f.write_str("the server closed the connection"),
            CloseReason::CloseFrame(frame) => write!(f, "close frame {frame:?}"),
            CloseReason::MessageTooLong { size, max } => write!(
                f,
                "a message of {size} bytes over the client's max_message_size of {max}"
            ),
            CloseReason::Read(e) => write!(f, "{e}"),
            CloseReason::Send(e) => write!(f, "sending a request: {e}"),
            CloseReason::Undecodable { graphson, detail } => {
                let what = if *graphson { "GraphSON " } else { "" };
                write!(f, "undecodable {what}response message: {detail}")
            }
            CloseReason::Sasl(e) => f.write_str(e),
            CloseReason::PingUnanswered(interval) => {
                write!(f, "no answer to a keep-alive ping within {interval:?}")
            }
            CloseReason::Ping(e) => write!(f, "sending a keep-alive ping: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_names_itself_once_and_maps_to_its_error() {
        let closed = CloseReason::ServerClosed.error();
        assert_eq!(
            closed.to_string(),
            "connection closed before the response ended: the server closed the connection"
        );
        assert!(matches!(
            CloseReason::ClientClosed.error(),
            Error3::ClientClosed
        ));
        let too_long = CloseReason::read(WsError::Capacity(
            tokio_tungstenite::tungstenite::error::CapacityError::MessageTooLong {
                size: 20,
                max_size: 10,
            },
        ));
        assert!(
            matches!(
                too_long.error(),
                Error3::Limit {
                    seen: 20,
                    max: 10,
                    ..
                }
            ),
            "{too_long:?}"
        );
        let ping = CloseReason::PingUnanswered(Duration::from_millis(100)).error();
        let text = ping.to_string();
        assert_eq!(text.matches("keep-alive ping").count(), 1, "{text}");
        let read = CloseReason::read(WsError::ConnectionClosed)
            .error()
            .to_string();
        assert_eq!(
            read.matches("Connection closed normally").count(),
            1,
            "{read}"
        );
    }
}
