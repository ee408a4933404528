//! Sessions: the `session` op processor of TinkerPop 3 servers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use futures::TryStreamExt;
use uuid::Uuid;

use super::conn::Conn;
use super::{Error3, Eval, Results3};
use crate::protocol::ws3::RequestMessage;
use crate::value::Value;

/// A TinkerPop 3 session: requests evaluated by the server's `session` processor, in order, on
/// one thread, sharing script variables and (on a transactional graph) one transaction, which
/// [`Session3::commit`] and [`Session3::rollback`] end. It is how 3.x users group writes; the
/// TinkerPop 4 counterpart is [`Transaction`](crate::client::Transaction).
///
/// A session has a connection of its own (the Java driver does the same), so it never waits
/// for the pool. [`Session3::close`] ends it on the server (an open transaction is rolled back,
/// variables are gone); dropping it inside a Tokio runtime sends the close in the background,
/// and closing the connection ends the session too. A session is not reconnected: once its
/// connection has dropped, its requests fail with [`Error3::Closed`] and a new session is
/// needed (the server-side state is gone with it).
///
/// ```no_run
/// # async fn demo(client: graphbinary_client::ws::Client3) -> Result<(), graphbinary_client::ws::Error3> {
/// use futures::TryStreamExt;
/// let s = client.session().await?;
/// s.results("x = 20").await?.try_collect::<Vec<_>>().await?;
/// let r: Vec<_> = s.results("x + 1").await?.try_collect().await?; // [(21, 1)]
/// s.commit().await?; // g.tx().commit(), on a graph that supports transactions
/// s.close().await?;
/// # drop(r); Ok(()) }
/// ```
#[derive(Debug)]
pub struct Session3 {
    conn: Arc<Conn>,
    id: Uuid,
    manage_transaction: bool,
    closed: AtomicBool,
}

impl Session3 {
    pub(super) fn new(conn: Arc<Conn>, id: Uuid, manage_transaction: bool) -> Self {
        Session3 {
            conn,
            id,
            manage_transaction,
            closed: AtomicBool::new(false),
        }
    }

    /// The session id (sent as the `session` argument).
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// Whether [`Session3::close`] has not been called and the connection is open.
    pub fn is_open(&self) -> bool {
        !self.closed.load(Ordering::Acquire) && self.conn.is_alive()
    }

    /// The request message of `eval` in this session.
    pub fn to_request(&self, eval: &Eval) -> RequestMessage {
        let mut req = eval.to_request();
        req.processor = "session".into();
        req.args
            .push(("session".into(), Value::String(self.id.to_string())));
        if self.manage_transaction {
            req.args
                .push(("manageTransaction".into(), Value::Boolean(true)));
        }
        req
    }

    /// Evaluates `eval` in the session; its results as they arrive.
    pub async fn eval(&self, eval: Eval) -> Result<Results3, Error3> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error3::SessionClosed);
        }
        self.conn.send(&self.to_request(&eval))
    }

    /// Evaluates a script in the session.
    #[cfg(feature = "test-util")]
    pub async fn results(&self, gremlin: &str) -> Result<Results3, Error3> {
        self.eval(Eval::new(gremlin)).await
    }

    /// Evaluates a script in the session and collects its results.
    #[cfg(feature = "test-util")]
    pub async fn all(&self, gremlin: &str) -> Result<Vec<(Value, i64)>, Error3> {
        self.results(gremlin).await?.try_collect().await
    }

    /// Runs `g.tx().commit()` in the session (the graph must support transactions).
    #[cfg(feature = "test-util")]
    pub async fn commit(&self) -> Result<(), Error3> {
        self.all("g.tx().commit()").await.map(drop)
    }

    /// Runs `g.tx().rollback()` in the session (the graph must support transactions).
    #[cfg(feature = "test-util")]
    pub async fn rollback(&self) -> Result<(), Error3> {
        self.all("g.tx().rollback()").await.map(drop)
    }

    /// Closes the session on the server (`close` op of the `session` processor): an open
    /// transaction is rolled back and the session's variables are gone. Later requests fail
    /// with [`Error3::SessionClosed`].
    pub async fn close(&self) -> Result<(), Error3> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let r: Result<Vec<_>, Error3> =
            self.conn.send(&close_request(self.id))?.try_collect().await;
        r.map(drop)
    }
}

fn close_request(id: Uuid) -> RequestMessage {
    RequestMessage {
        request_id: crate::protocol::ws3::new_request_id(),
        op: "close".into(),
        processor: "session".into(),
        args: vec![("session".into(), Value::String(id.to_string()))],
    }
}

impl Drop for Session3 {
    fn drop(&mut self) {
        if self.closed.load(Ordering::Acquire) || !self.conn.is_alive() {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let conn = self.conn.clone();
        let id = self.id;
        rt.spawn(async move {
            if let Ok(results) = conn.send(&close_request(id)) {
                let _ = tokio::time::timeout(
                    std::time::Duration::from_secs(10),
                    TryStreamExt::try_collect::<Vec<_>>(results),
                )
                .await;
            }
        });
    }
}
