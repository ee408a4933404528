//! Tests of one binary that must not overlap: those that measure the whole process (its peak
//! memory, its sockets) take [`alone`]; those that only must not run beside them (they load
//! the same server, several at once) take [`beside`]. Each test binary used to be its own
//! process; now several test files share one (`graphbinary-client/tests/measured/`).

use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

static LOCK: RwLock<()> = RwLock::const_new(());

/// Held for the whole test: no other test of the binary that takes [`alone`] or [`beside`]
/// runs meanwhile.
pub async fn alone() -> RwLockWriteGuard<'static, ()> {
    LOCK.write().await
}

/// Held for the whole test: runs beside other [`beside`] tests, never beside an [`alone`] one.
pub async fn beside() -> RwLockReadGuard<'static, ()> {
    LOCK.read().await
}
