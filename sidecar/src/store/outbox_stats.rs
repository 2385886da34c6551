//! What the outbox holds, for the admin listener's metrics: counted in the
//! database at each scrape, because replicas sharing PostgreSQL share the
//! outbox and no one process knows all of it.

use super::Store;

/// The outbox at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutboxStats {
    /// Enquiries not sent yet (waiting, or between retries).
    pub pending: i64,
    /// Enquiries whose mail failed for good, waiting for a person.
    pub parked: i64,
    /// When the oldest pending enquiry was received (Unix ms).
    pub oldest_pending_at: Option<i64>,
}

/// One statement for both backends: three counts of the outbox.
pub(crate) const OUTBOX_STATS: &str = "SELECT \
    (SELECT count(*) FROM outbox WHERE status = 'pending'), \
    (SELECT count(*) FROM outbox WHERE status = 'parked'), \
    (SELECT min(e.received_at) FROM outbox o JOIN enquiries e ON e.reference = o.reference \
     WHERE o.status = 'pending')";

impl Store {
    /// The outbox's pending and parked rows and its oldest pending enquiry.
    pub async fn outbox_stats(&self) -> anyhow::Result<OutboxStats> {
        match self {
            Store::Sqlite(s) => s.outbox_stats().await,
            Store::Postgres(s) => s.outbox_stats().await,
        }
    }

    /// Database operations that failed since start (statements and
    /// connections on SQLite; getting a connection on PostgreSQL).
    pub fn errors(&self) -> u64 {
        match self {
            Store::Sqlite(s) => s.errors(),
            Store::Postgres(s) => s.errors(),
        }
    }
}
