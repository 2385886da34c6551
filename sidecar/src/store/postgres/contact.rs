//! The contact tables on PostgreSQL, shared by replicas: claims take rows
//! with `FOR UPDATE SKIP LOCKED`, so two replicas never claim the same row,
//! and the lease (`claimed_until`) hands a dead replica's rows to another.

use super::PgStore;
use crate::store::contact::{NewEnquiry, OutboxItem, OutboxState, Settle, Stored, sql};

impl PgStore {
    pub(crate) async fn rate_hit(
        &self,
        bucket: &'static str,
        client: String,
        window_ms: i64,
        now: i64,
    ) -> anyhow::Result<(i64, i64)> {
        let client_conn = self.counter_client().await?;
        let stmt = client_conn.prepare_cached(&sql::pg(sql::RATE_HIT)).await?;
        let row = client_conn
            .query_one(&stmt, &[&bucket, &client, &now, &(now + window_ms)])
            .await?;
        Ok((row.get(0), row.get(1)))
    }

    pub(crate) async fn insert_enquiry(
        &self,
        e: NewEnquiry,
        nonce: String,
        nonce_expires_at: i64,
    ) -> anyhow::Result<Stored> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let used = tx
            .execute(&sql::pg(sql::USE_CHALLENGE), &[&nonce, &nonce_expires_at])
            .await?;
        if used == 0 {
            return Ok(Stored::Replayed);
        }
        tx.execute(
            &sql::pg(sql::INSERT_ENQUIRY),
            &[
                &e.reference,
                &e.received_at,
                &e.name,
                &e.email,
                &e.organisation,
                &e.topic,
                &e.message,
            ],
        )
        .await?;
        tx.execute(
            &sql::pg(sql::INSERT_OUTBOX),
            &[&e.reference, &e.received_at],
        )
        .await?;
        tx.commit().await?;
        Ok(Stored::Committed)
    }

    pub(crate) async fn claim_outbox(
        &self,
        now: i64,
        lease_ms: i64,
        limit: i64,
        token: String,
    ) -> anyhow::Result<Vec<OutboxItem>> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx.execute(
            "UPDATE outbox SET claimed_until = $1, claim_token = $2, attempts = attempts + 1 \
             WHERE reference IN (SELECT reference FROM outbox WHERE status = 'pending' \
             AND attempt_after <= $3 AND claimed_until <= $3 ORDER BY attempt_after LIMIT $4 \
             FOR UPDATE SKIP LOCKED)",
            &[&(now + lease_ms), &token, &now, &limit],
        )
        .await?;
        let rows = tx.query(&sql::pg(sql::CLAIMED), &[&token]).await?;
        tx.commit().await?;
        Ok(rows
            .iter()
            .map(|r| OutboxItem {
                enquiry: NewEnquiry {
                    reference: r.get(0),
                    received_at: r.get(1),
                    name: r.get(2),
                    email: r.get(3),
                    organisation: r.get(4),
                    topic: r.get(5),
                    message: r.get(6),
                },
                attempts: r.get(7),
            })
            .collect())
    }

    pub(crate) async fn settle_outbox(
        &self,
        reference: String,
        token: String,
        outcome: Settle,
    ) -> anyhow::Result<bool> {
        let (status, sent_at, after, error) = outcome.columns();
        let client = self.client().await?;
        let n = client
            .execute(
                &sql::pg(sql::SETTLE),
                &[&reference, &token, &status, &sent_at, &after, &error],
            )
            .await?;
        Ok(n == 1)
    }

    pub(crate) async fn contact_cleanup(&self, now: i64) -> anyhow::Result<()> {
        let client = self.client().await?;
        client.execute(&sql::pg(sql::CLEANUP), &[&now]).await?;
        client
            .execute(&sql::pg(sql::CLEANUP_RATES), &[&now])
            .await?;
        Ok(())
    }

    pub(crate) async fn enquiry_count(&self) -> anyhow::Result<i64> {
        let client = self.client().await?;
        Ok(client
            .query_one("SELECT count(*) FROM enquiries", &[])
            .await?
            .get(0))
    }

    pub(crate) async fn outbox_state(
        &self,
        reference: String,
    ) -> anyhow::Result<Option<OutboxState>> {
        let client = self.client().await?;
        let row = client
            .query_opt(&sql::pg(sql::OUTBOX_STATE), &[&reference])
            .await?;
        Ok(row.map(|r| OutboxState {
            status: r.get(0),
            attempts: r.get(1),
        }))
    }
}
