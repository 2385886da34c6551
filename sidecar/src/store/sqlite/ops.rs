//! The operator's view of the SQLite database: [`super::super::outbox_stats`].

use super::SqliteStore;
use crate::store::outbox_stats::{OUTBOX_STATS, OutboxStats};

impl SqliteStore {
    pub(crate) async fn outbox_stats(&self) -> anyhow::Result<OutboxStats> {
        self.read(|c| {
            c.query_row(OUTBOX_STATS, [], |r| {
                Ok(OutboxStats {
                    pending: r.get(0)?,
                    parked: r.get(1)?,
                    oldest_pending_at: r.get(2)?,
                })
            })
        })
        .await
    }
}
