//! The TinkerPop 3 side of [`Client`](super::Client): a `ws://` or `wss://` URL sends every
//! request through a [`Client3`] pool (GraphBinary 1 over WebSocket), connected at the first
//! request, and hands its results to the same [`ResultStream`](super::ResultStream).
//!
//! A request's parameters are typed values ([`RequestBuilder::param`](super::RequestBuilder::param)),
//! sent as GraphBinary 1 `bindings` of their own types.

use tokio::sync::OnceCell;

use super::error::{Error, ServerError, TransportKind};
use crate::model::Value;
use crate::transport::ws::{Client3, Error3, Options3};

/// The TinkerPop 3 pool of a client, opened on first use.
#[derive(Debug)]
pub(super) struct Ws3 {
    url: String,
    options: Options3,
    client: OnceCell<Client3>,
}

impl Ws3 {
    pub(super) fn new(url: String, options: Options3) -> Self {
        Ws3 {
            url,
            options,
            client: OnceCell::new(),
        }
    }

    /// The pool, connecting its first connection if this is the first request.
    pub(super) async fn client(&self) -> Result<&Client3, Error> {
        self.client
            .get_or_try_init(|| Client3::connect_with(&self.url, self.options.clone()))
            .await
            .map_err(from_error3)
    }
}

impl Ws3 {
    /// Closes the pool if it was opened (see [`Client3::close`]); the requests still in flight
    /// when `grace` ended.
    pub(super) async fn close(&self, grace: std::time::Duration) -> usize {
        match self.client.get() {
            Some(c) => c.close(grace).await,
            None => 0,
        }
    }
}

/// The client error for a TinkerPop 3 error.
pub(crate) fn from_error3(e: Error3) -> Error {
    match e {
        Error3::Server {
            code,
            message,
            attributes,
        } => {
            let exception = attributes
                .iter()
                .find(|(k, _)| k.as_str() == Some("exceptions"))
                .and_then(|(_, v)| match v {
                    Value::List(l) => l.first().and_then(|x| x.as_str()).map(str::to_owned),
                    _ => None,
                });
            Error::Server(ServerError {
                code,
                message: Some(message),
                exception,
                http_status: None,
            })
        }
        Error3::AuthenticationRequired => Error::Server(ServerError {
            code: 407,
            message: Some(
                "the server requires authentication and no credentials were given".into(),
            ),
            exception: None,
            http_status: None,
        }),
        Error3::Decode(d) => Error::Decode(d),
        Error3::Timeout(_) => Error::Transport {
            kind: TransportKind::Timeout,
            source: Box::new(e),
        },
        Error3::WebSocket(ref w) => {
            use tokio_tungstenite::tungstenite::Error as W;
            let kind = match w {
                // rustls reports a failed handshake as an I/O error wrapping its own.
                W::Io(io)
                    if io
                        .get_ref()
                        .is_some_and(|inner| inner.is::<rustls::Error>()) =>
                {
                    TransportKind::Tls
                }
                W::Io(_) | W::Url(_) | W::Http(_) | W::HttpFormat(_) => TransportKind::Connect,
                W::Tls(_) => TransportKind::Tls,
                _ => TransportKind::Io,
            };
            Error::Transport {
                kind,
                source: Box::new(e),
            }
        }
        Error3::ClientClosed => Error::Closed,
        Error3::Closed(_) => Error::Transport {
            kind: TransportKind::Io,
            source: Box::new(e),
        },
        Error3::Interceptor { name, source } => Error::Interceptor { name, source },
        Error3::Config(c) => Error::Config(c),
        Error3::Encode(e) => Error::InvalidRequest(e.to_string()),
        other => Error::Protocol(other.to_string()),
    }
}
