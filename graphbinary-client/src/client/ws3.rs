//! The TinkerPop 3 side of [`Client`](super::Client): a `ws://` or `wss://` URL sends every
//! request through a [`Client3`] pool (GraphBinary 1 over WebSocket), one pool per host
//! ([`ClientBuilder::add_host`](super::ClientBuilder::add_host)), each connected at the first
//! request that goes to its host, and hands its results to the same
//! [`ResultStream`](super::ResultStream).
//!
//! A request's parameters are typed values ([`RequestBuilder::param`]), sent as GraphBinary 1
//! `bindings` of their own types (`RequestBuilder::eval_v1`). Here: that message, one try of
//! it on one host, a request of a session, and the client error of a TinkerPop 3 error. The
//! send loop over the hosts is `send.rs`.

use std::time::Duration;

use tokio::sync::OnceCell;

use super::error::{Error, ServerError, TransportKind};
use super::params::Param;
use super::send::{timeout_error, Failed};
use super::{Inner, RequestBuilder, ResultStream};
use crate::format::graphbinary1::CustomTypes;
use crate::protocol::ws3::RequestMessage;
use crate::transport::ws::{Client3, Error3, Options3};
use crate::value::Value;

impl RequestBuilder {
    /// The TinkerPop 3 `eval` request message of this request (for a `ws://` client):
    /// `gremlin`, `language`, parameters as `bindings`, `g` as the alias of `g`, `batchSize`,
    /// `timeout_millis` as `evaluationTimeout`, `materializeProperties`.
    pub(crate) fn eval_v1(&self) -> Result<crate::transport::ws::Eval, Error> {
        if self
            .transaction
            .as_ref()
            .is_some_and(|t| t.session.is_none())
        {
            return Err(Error::InvalidRequest(
                "HTTP transactions are TinkerPop 4; over ws:// (TinkerPop 3) use Client::session"
                    .into(),
            ));
        }
        let mut eval = crate::transport::ws::Eval::new(self.gremlin.clone());
        for (name, p) in &self.params {
            match p {
                Param::Value { value, .. } => {
                    eval.bindings.push((name.clone(), bound_value(value)));
                }
                Param::Text(_) => {
                    return Err(Error::InvalidRequest(format!(
                        "parameter {name:?} is gremlin-lang text (param_literal), which TinkerPop 3 bindings cannot carry; bind a value with param"
                    )))
                }
            }
        }
        eval.language.clone_from(&self.language);
        if let Some(g) = &self.g {
            eval.aliases.push(("g".into(), g.clone()));
        }
        eval.batch_size = self
            .batch_size
            .map(|n| i32::try_from(n).unwrap_or(i32::MAX));
        eval.evaluation_timeout = self
            .timeout_millis
            .map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        eval.materialize_properties = self.materialize_properties.map(|m| m.as_str().to_owned());
        Ok(eval)
    }

    /// Sends the request in a TinkerPop 3 session, on its connection; the request's deadline
    /// (or the client's) bounds it to the end of its results.
    pub(super) async fn send_session(
        mut self,
        session: &crate::transport::ws::Session3,
    ) -> Result<ResultStream, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let eval = self.eval_v1()?;
        let t = self.timeout.or(self.client.inner.request_timeout);
        let results = session.eval(eval).await.map_err(from_error3)?;
        Ok(ResultStream::from_ws(
            results,
            t,
            self.client.inner.read_timeout,
        ))
    }
}

/// A value as a TinkerPop 3 binding: itself, an element as its id (as on TinkerPop 4).
fn bound_value(v: &Value) -> Value {
    match v {
        Value::Vertex(x) => bound_value(&x.id),
        Value::Edge(x) => bound_value(&x.id),
        Value::VertexProperty(x) => bound_value(&x.id),
        other => other.clone(),
    }
}

impl Inner {
    /// One try of `request` on `ws://` host `host` (its pool connected if this is its first
    /// request), bounded by `left` (the time left of the deadline `t`) to the end of its
    /// results. A host that cannot be reached (nothing was sent, [`Failed::unreachable`]) is
    /// marked down.
    pub(super) async fn send_ws(
        &self,
        ws: &Ws3,
        request: &RequestMessage,
        host: usize,
        t: Option<Duration>,
        left: Option<Duration>,
    ) -> Result<ResultStream, Failed> {
        self.hosts.attempt(host);
        let send = async { ws.client(host).await?.send_message(request).await };
        let res = match (t, left) {
            (Some(t), Some(left)) => match tokio::time::timeout(left, send).await {
                Ok(res) => res,
                Err(_) => return Err(Failed::new(timeout_error(t), Some(host))),
            },
            _ => send.await,
        };
        match res {
            Ok(results) => Ok(ResultStream::from_ws(results, left, self.read_timeout)),
            Err(e) if unreachable(&e) => {
                self.hosts.failed(host);
                let mut f = Failed::new(unreachable_error(e), Some(host));
                f.unreachable = true;
                Err(f)
            }
            Err(e) => Err(Failed::new(from_error3(e), Some(host))),
        }
    }
}

/// The TinkerPop 3 pools of a client, one per host (in the order of the client's hosts), each
/// opened on first use.
#[derive(Debug)]
pub(super) struct Ws3 {
    pools: Vec<Pool>,
    options: Options3,
}

#[derive(Debug)]
struct Pool {
    url: String,
    client: OnceCell<Client3>,
}

impl Ws3 {
    /// The pools of `urls` (at least one; credentials already taken out).
    pub(super) fn new(urls: Vec<String>, options: Options3) -> Self {
        Ws3 {
            pools: urls
                .into_iter()
                .map(|url| Pool {
                    url,
                    client: OnceCell::new(),
                })
                .collect(),
            options,
        }
    }

    /// The pool of host `i`, connecting its first connection if this is its first request (a
    /// failed connect leaves it unopened: the next request tries again).
    pub(super) async fn client(&self, i: usize) -> Result<&Client3, Error3> {
        let pool = &self.pools[i];
        pool.client
            .get_or_try_init(|| Client3::connect_with(&pool.url, self.options.clone()))
            .await
    }

    /// Closes the pools that were opened (see [`Client3::close`]); the requests still in
    /// flight when `grace` ended, over all of them.
    pub(super) async fn close(&self, grace: std::time::Duration) -> usize {
        let closing = self
            .pools
            .iter()
            .filter_map(|p| p.client.get())
            .map(|c| c.close(grace));
        futures::future::join_all(closing).await.into_iter().sum()
    }
}

/// Whether `e`, returned by [`Client3::send_message`] (so before the request was handed to a
/// connection), says the host could not be reached: nothing was sent, and the request may go
/// to another host whether it is idempotent or not. A connection that could not be opened
/// (refused, reset during the handshake, connect timeout) or that closed before the request
/// was queued on it.
pub(super) fn unreachable(e: &Error3) -> bool {
    matches!(
        e,
        Error3::WebSocket(_) | Error3::Closed(_) | Error3::Timeout(_)
    )
}

/// The client error for an [`unreachable`] host: [`TransportKind::Connect`] (nothing was
/// sent) for a connection that closed before the request was queued on it, else what
/// [`from_error3`] says (`Connect`; `Timeout` for a connect timeout, `Tls` for a failed TLS
/// handshake).
pub(super) fn unreachable_error(e: Error3) -> Error {
    match from_error3(e) {
        Error::Transport {
            kind: TransportKind::Io,
            source,
        } => Error::Transport {
            kind: TransportKind::Connect,
            source,
        },
        other => other,
    }
}

/// Reads one TinkerPop 3 response message in GraphBinary 1 (the bytes of one WebSocket
/// message of a 3.x Gremlin Server, e.g. a captured one) as a `ws://` [`Client`](super::Client)
/// reads it: its results with their bulks (a Traverser's bulk, else 1). `custom` are the
/// custom types read besides the standard ones (JanusGraph's:
/// [`CustomTypes::janusgraph`]).
///
/// A status other than 200, 204 and 206 is [`Error::Server`] with the status code, message
/// and attributes; bytes that are not such a message are [`Error::Decode`] (with the byte
/// offset); a value over `limits` is [`Error::Limit`].
///
/// ```
/// use graphbinary_client::client::{decode_graphbinary1_response, ErrorKind};
/// use graphbinary_client::format::graphbinary1::CustomTypes;
/// use graphbinary_client::graphbinary_core::Limits;
///
/// // Version 0x81, a null request id, status 204, a null message, no attributes, no meta,
/// // a null result.
/// let mut msg = vec![0x81, 0x01];
/// msg.extend_from_slice(&204i32.to_be_bytes());
/// msg.push(0x01);
/// msg.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0x01]);
/// let results = decode_graphbinary1_response(&msg, &Limits::default(), &CustomTypes::new())?;
/// assert!(results.is_empty());
///
/// let e = decode_graphbinary1_response(&msg[..5], &Limits::default(), &CustomTypes::new());
/// assert_eq!(e.unwrap_err().kind(), ErrorKind::Decode);
/// # Ok::<(), graphbinary_client::Error>(())
/// ```
pub fn decode_graphbinary1_response(
    bytes: &[u8],
    limits: &graphbinary_core::Limits,
    custom: &CustomTypes,
) -> Result<Vec<(Value, i64)>, Error> {
    let msg = crate::protocol::ws3::decode_response_with(bytes, limits, custom)
        .map_err(|e| Error::from_decode(e, limits))?;
    match msg.status {
        200 | 204 | 206 => Ok(msg.results()),
        code => Err(server_error(code, msg.message, msg.attributes)),
    }
}

/// [`Error::Server`] for a 3.x status: its first `exceptions` attribute as the exception.
fn server_error(code: i32, message: Option<String>, attributes: Vec<(Value, Value)>) -> Error {
    let exception = attributes
        .iter()
        .find(|(k, _)| k.as_str() == Some("exceptions"))
        .and_then(|(_, v)| match v {
            Value::List(l) => l.first().and_then(|x| x.as_str()).map(str::to_owned),
            _ => None,
        });
    Error::Server(ServerError {
        code,
        message,
        exception,
        http_status: None,
        attributes: attributes.into(),
    })
}

/// The client error for a TinkerPop 3 error.
pub(crate) fn from_error3(e: Error3) -> Error {
    match e {
        Error3::Server {
            code,
            message,
            attributes,
        } => server_error(code, Some(message), attributes),
        Error3::AuthenticationRequired => Error::Server(ServerError {
            code: 407,
            message: Some(
                "the server requires authentication and no credentials were given".into(),
            ),
            exception: None,
            http_status: None,
            attributes: Default::default(),
        }),
        Error3::Decode(d) => Error::Decode(d),
        Error3::Limit { limit, seen, max } => Error::Limit { limit, seen, max },
        Error3::Timeout(_) => Error::Transport {
            kind: TransportKind::Timeout,
            source: Box::new(e),
        },
        Error3::WebSocket(ref w) => {
            use tokio_tungstenite::tungstenite::Error as W;
            let Some(w) = w.downcast_ref::<W>() else {
                return Error::Transport {
                    kind: TransportKind::Connect,
                    source: Box::new(e),
                };
            };
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
