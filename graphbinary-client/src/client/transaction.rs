//! Transactions over HTTP, as Gremlin Server 4 defines them.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use super::{Client, Error, RequestBuilder, ResultStream};
use crate::transport::ws::Session3;
use crate::value::Value;

/// The begin, commit and rollback scripts the server recognises (exactly these strings).
const BEGIN: &str = "g.tx().begin()";
const COMMIT: &str = "g.tx().commit()";
const ROLLBACK: &str = "g.tx().rollback()";

/// The header that carries the transaction id.
pub const TRANSACTION_ID_HEADER: &str = "X-Transaction-Id";

/// Where a transactional request goes: the transaction id (none for begin) and the pinned host;
/// for a TinkerPop 3 session, the session its requests are evaluated in.
#[derive(Debug, Clone)]
pub(super) struct TxContext {
    pub(super) id: Option<String>,
    pub(super) host: Option<usize>,
    pub(super) session: Option<Arc<Session3>>,
}

impl TxContext {
    /// Maps the server's 404 and 503 answers to a transactional request to their typed errors.
    pub(super) fn map_error(&self, e: Error) -> Error {
        match e {
            Error::Server(se) if se.http_status == Some(404) || se.code == 404 => {
                Error::TransactionNotFound {
                    id: self.id.clone().unwrap_or_default(),
                    source: se,
                }
            }
            Error::Server(se) if se.http_status == Some(503) || se.code == 503 => {
                Error::TransactionUnavailable { source: se }
            }
            other => other,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    Committed,
    RolledBack,
}

/// Transactions over HTTP, as Gremlin Server 4 defines them.
///
/// [`Client::transaction`] sends `g.tx().begin()`; the server answers with a transaction id.
/// Every request of the [`Transaction`] then carries that id, in the body's `transactionId`
/// field and in the `X-Transaction-Id` header, and goes to the host that began it (a client
/// with several hosts pins the transaction to that host). [`Transaction::commit`] and
/// [`Transaction::rollback`] end it. [`Client::execute_in_tx`] runs a closure in a transaction
/// and commits when it returns `Ok`, rolls back when it returns `Err`.
///
/// The server needs a graph that supports transactions (e.g. `TinkerTransactionGraph`); on a
/// plain TinkerGraph, begin fails with a server error 400. The server bounds transactions
/// (Gremlin Server defaults: idle 60 s, lifetime 600 s, 1000 open at once). A transaction the
/// server no longer knows (expired, or already ended) makes a request fail with
/// [`Error::TransactionNotFound`] (HTTP 404); too many open transactions make begin fail with
/// [`Error::TransactionUnavailable`] (HTTP 503). A failing request inside a transaction does not
/// end it.
///
/// # Dropping an open transaction
///
/// When the last clone of a [`Transaction`] that is still open is dropped inside a Tokio
/// runtime, a rollback is sent in the background (a spawned task; its outcome is not
/// reported). Outside a runtime nothing is sent, and the server rolls the transaction back when
/// its idle timeout (`idleTransactionTimeoutMillis`, default 60 s) passes. Either way,
/// uncommitted writes are never committed by a drop; call [`Transaction::commit`] to keep them
/// and [`Transaction::rollback`] to know the rollback happened.
///
/// ```no_run
/// use graphbinary_client::Client;
///
/// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
/// let client = Client::new("http://127.0.0.1:8182/gremlin")?;
/// let tx = client.transaction().await?;
/// tx.submit("g.addV('person').property('name','ada')").await?.count().await?;
/// tx.submit("g.addV('person').property('name','bob')").await?.count().await?;
/// tx.commit().await?;
/// # Ok(()) }
/// ```
///
/// Cheap to clone: clones are the same transaction.
#[derive(Clone)]
pub struct Transaction {
    inner: Arc<TxInner>,
}

struct TxInner {
    client: Client,
    id: String,
    host: usize,
    g: String,
    state: Mutex<State>,
    /// A TinkerPop 3 session (a `ws://` client); `None` for a TinkerPop 4 transaction over
    /// HTTP.
    session: Option<Arc<Session3>>,
}

impl fmt::Debug for Transaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transaction")
            .field("id", &self.inner.id)
            .field("host", &self.host())
            .field("g", &self.inner.g)
            .field("state", &self.state())
            .finish()
    }
}

impl Client {
    /// Begins a transaction on the traversal source `g`. See [`Client::transaction_on`].
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: when the future is dropped after the server began the transaction but
    /// before its id was read, the transaction stays open on the server until its idle timeout.
    pub async fn transaction(&self) -> Result<Transaction, Error> {
        self.transaction_on("g").await
    }

    /// Begins a transaction on the traversal source `alias` (`g.tx().begin()`); its requests
    /// all use that alias.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// let tx = client.transaction_on("gtx").await?;
    /// tx.submit("g.addV('x')").await?.count().await?;
    /// tx.rollback().await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Cancel safety
    ///
    /// As [`Client::transaction`].
    pub async fn transaction_on(&self, alias: &str) -> Result<Transaction, Error> {
        if self.is_tinkerpop3() {
            return Err(Error::InvalidRequest(
                "HTTP transactions are TinkerPop 4; over ws:// (TinkerPop 3) use Client::session"
                    .into(),
            ));
        }
        let ctx = TxContext {
            id: None,
            host: None,
            session: None,
        };
        let (raw, host) = self
            .request(BEGIN)
            .g(alias)
            .in_transaction(ctx.clone())
            .send_raw_on()
            .await?;
        let opts = self.inner.read_options;
        let results = ResultStream::new(raw, opts)
            .all()
            .await
            .map_err(|e| ctx.map_error(e))?;
        let id = results.iter().find_map(transaction_id_of).ok_or_else(|| {
            Error::Protocol("g.tx().begin() answered without a transaction id".to_owned())
        })?;
        Ok(Transaction {
            inner: Arc::new(TxInner {
                client: self.clone(),
                id,
                host,
                g: alias.to_owned(),
                state: Mutex::new(State::Open),
                session: None,
            }),
        })
    }

    /// Opens a TinkerPop 3 session (a `ws://` client only; for TinkerPop 4 see
    /// [`Client::transaction`]), as a [`Transaction`]: its requests are evaluated in order by
    /// the server's `session` processor, on a connection of its own, sharing script variables
    /// and (on a graph that supports transactions) one transaction.
    /// [`Transaction::commit`] and [`Transaction::rollback`] run `g.tx().commit()` /
    /// `g.tx().rollback()` in it and then close the session; [`Transaction::close`] closes it
    /// without either (the server rolls back what is open). Dropping the last clone closes it
    /// in the background. A session is not reconnected: once its connection dropped, its
    /// requests fail and a new session is needed.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::Client::new("ws://127.0.0.1:8182/gremlin")?;
    /// let s = client.session().await?;
    /// s.submit("g.addV('person').property('name','ada')").await?.count().await?;
    /// s.commit().await?;
    /// # Ok(()) }
    /// ```
    pub async fn session(&self) -> Result<Transaction, Error> {
        if self.inner.cosmos {
            return Err(super::cosmos::unsupported(
                "sessions (TinkerPop 3's transactions; Cosmos DB has none)",
            ));
        }
        let (pool, host) = self.tinkerpop3_on().await?;
        let session = pool.session().await.map_err(super::ws3::from_error3)?;
        Ok(Transaction {
            inner: Arc::new(TxInner {
                client: self.clone(),
                id: session.id().to_string(),
                host,
                g: "g".to_owned(),
                state: Mutex::new(State::Open),
                session: Some(Arc::new(session)),
            }),
        })
    }

    /// Runs `f` in a new transaction (on `g`): commits when it returns `Ok`, rolls back when
    /// it returns `Err` (the rollback's own failure is then ignored: `f`'s error is returned).
    /// A failed commit is returned as the error.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// let client = graphbinary_client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// let n: i64 = client
    ///     .execute_in_tx(|tx| async move {
    ///         tx.submit("g.addV('person').property('name','ada')").await?.count().await?;
    ///         tx.submit("g.V().hasLabel('person').count()").await?.one().await
    ///     })
    ///     .await?;
    /// # let _ = n; Ok(()) }
    /// ```
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: dropping the future drops the transaction, which rolls it back as
    /// described for [`Transaction`].
    pub async fn execute_in_tx<T, E, F, Fut>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(Transaction) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        E: From<Error>,
    {
        let tx = self.transaction().await?;
        match f(tx.clone()).await {
            Ok(v) => {
                tx.commit().await?;
                Ok(v)
            }
            Err(e) => {
                if tx.is_open() {
                    let _ = tx.rollback().await;
                }
                Err(e)
            }
        }
    }
}

/// The `transactionId` of a begin response's map.
fn transaction_id_of(v: &Value) -> Option<String> {
    let entries = match v {
        Value::Map(e) | Value::OrderedMap(e) => e,
        _ => return None,
    };
    entries
        .iter()
        .find(|(k, _)| k.as_str() == Some("transactionId"))
        .and_then(|(_, v)| v.as_str().map(str::to_owned))
}

impl Transaction {
    /// The transaction id the server gave; for a TinkerPop 3 session, the session id (a UUID
    /// the client chose).
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The URL of the host the transaction is pinned to.
    pub fn host(&self) -> &str {
        self.inner.client.inner.hosts.url(self.inner.host).as_str()
    }

    /// Whether the transaction is still open (neither committed nor rolled back through this
    /// handle; the server may have expired it meanwhile).
    pub fn is_open(&self) -> bool {
        self.state() == State::Open && self.inner.session.as_ref().is_none_or(|s| s.is_open())
    }

    fn state(&self) -> State {
        *self
            .inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn set_state(&self, s: State) {
        *self
            .inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = s;
    }

    fn context(&self) -> TxContext {
        TxContext {
            id: Some(self.inner.id.clone()),
            host: Some(self.inner.host),
            session: self.inner.session.clone(),
        }
    }

    /// A request inside the transaction, to add parameters and options to before sending.
    /// Once the transaction is closed, sending it fails with [`Error::TransactionClosed`].
    pub fn request(&self, gremlin: impl Into<String>) -> RequestBuilder {
        let mut rb = self.inner.client.request(gremlin);
        if self.inner.session.is_none() {
            // A session evaluates with the server's own `g` (no alias sent), as before.
            rb = rb.g(self.inner.g.clone());
        }
        let rb = rb.in_transaction(self.context());
        match self.state() {
            State::Open => rb,
            closed => rb.fail_with(self.closed_error(closed)),
        }
    }

    fn closed_error(&self, s: State) -> Error {
        Error::TransactionClosed {
            id: self.inner.id.clone(),
            state: if s == State::Committed {
                "committed"
            } else {
                "rolled back"
            },
        }
    }

    /// Sends `gremlin` inside the transaction; the results stream as they arrive.
    ///
    /// ```no_run
    /// # async fn demo(tx: graphbinary_client::client::Transaction) -> Result<(), graphbinary_client::client::Error> {
    /// let n: i64 = tx.submit("g.V().count()").await?.one().await?;
    /// # let _ = n; Ok(()) }
    /// ```
    ///
    /// # Cancel safety
    ///
    /// As [`RequestBuilder::send`]: dropping the future abandons the request (the server may
    /// still run it inside the transaction).
    pub async fn submit(&self, gremlin: impl Into<String>) -> Result<ResultStream, Error> {
        self.request(gremlin).send().await
    }

    /// Commits the transaction (`g.tx().commit()`) and waits for the server's answer.
    ///
    /// After a commit that succeeded, or that failed with [`Error::TransactionNotFound`], the
    /// handle is closed. Any other failure leaves it open (the server keeps a transaction open
    /// after an error), so a rollback can follow.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: when dropped after sending, the commit may or may not have happened.
    pub async fn commit(&self) -> Result<(), Error> {
        self.end(COMMIT, State::Committed).await
    }

    /// Rolls the transaction back (`g.tx().rollback()`) and waits for the server's answer.
    /// The handle is closed afterwards in the same cases as after [`Transaction::commit`].
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: when dropped after sending, the rollback may or may not have happened
    /// (the server's idle timeout rolls back in any case).
    pub async fn rollback(&self) -> Result<(), Error> {
        self.end(ROLLBACK, State::RolledBack).await
    }

    async fn end(&self, script: &str, to: State) -> Result<(), Error> {
        let res = match self.request(script).send().await {
            Ok(results) => results.count().await.map(drop),
            Err(e) => Err(e),
        };
        match &res {
            Ok(()) | Err(Error::TransactionNotFound { .. }) => {
                self.set_state(to);
                if let Some(s) = &self.inner.session {
                    // Its work is done: the session's close is best effort.
                    let _ = s.close().await;
                }
            }
            _ => {}
        }
        res
    }

    /// Ends the transaction without committing: a TinkerPop 3 session is closed on the server
    /// (which rolls back what is open, and drops the session's variables), a TinkerPop 4
    /// transaction is rolled back ([`Transaction::rollback`]). The handle is closed after it;
    /// closing a closed handle does nothing.
    pub async fn close(&self) -> Result<(), Error> {
        if self.state() != State::Open {
            return Ok(());
        }
        match &self.inner.session {
            Some(s) => {
                self.set_state(State::RolledBack);
                s.close().await.map_err(super::ws3::from_error3)
            }
            None => self.rollback().await,
        }
    }

    /// Whether this is a TinkerPop 3 session ([`Client::session`]) rather than a TinkerPop 4
    /// transaction ([`Client::transaction`]).
    pub fn is_session(&self) -> bool {
        self.inner.session.is_some()
    }
}

impl Drop for TxInner {
    fn drop(&mut self) {
        if self.session.is_some() {
            // The session closes itself when its last handle is dropped.
            return;
        }
        let open = *self
            .state
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            == State::Open;
        if !open {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let request = self
            .client
            .request(ROLLBACK)
            .g(self.g.clone())
            .in_transaction(TxContext {
                id: Some(std::mem::take(&mut self.id)),
                host: Some(self.host),
                session: None,
            });
        rt.spawn(async move {
            if let Ok(results) = request.send().await {
                let _ = results.count().await;
            }
        });
    }
}
