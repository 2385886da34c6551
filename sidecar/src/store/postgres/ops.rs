//! The operator's view of the PostgreSQL database: [`super::super::outbox_stats`].

use super::PgStore;
use crate::store::outbox_stats::{OUTBOX_STATS, OutboxStats};

impl PgStore {
    pub(crate) async fn outbox_stats(&self) -> anyhow::Result<OutboxStats> {
        let client = self.client().await?;
        let row = client.query_one(OUTBOX_STATS, &[]).await?;
        Ok(OutboxStats {
            pending: row.get(0),
            parked: row.get(1),
            oldest_pending_at: row.get(2),
        })
    }
}
