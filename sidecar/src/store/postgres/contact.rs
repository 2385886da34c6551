//! The contact tables on PostgreSQL, shared by replicas: claims take rows
//! with `FOR UPDATE SKIP LOCKED`, so two replicas never claim the same row,
//! and the lease (`claimed_until`) hands a dead replica's rows to another.

use super::PgStore;
use crate::store::contact::{
    Deleted, EnquiryRecord, NewEnquiry, OutboxItem, OutboxState, PURGE_BATCH, Purged, Selection,
    Settle, Stored, sql, subject_sql,
};

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
                &e.language,
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
                    language: r.get(8),
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

    pub(crate) async fn enquiries(
        &self,
        selection: Selection,
    ) -> anyhow::Result<Vec<EnquiryRecord>> {
        let (clause, value) = selection.clause();
        let sql = sql::pg(&format!(
            "{}{clause}{}",
            subject_sql::RECORDS,
            subject_sql::RECORDS_ORDER
        ));
        let client = self.client().await?;
        let rows = match value {
            Some(v) => client.query(&sql, &[&v]).await?,
            None => client.query(&sql, &[]).await?,
        };
        Ok(rows
            .iter()
            .map(|r| EnquiryRecord {
                reference: r.get(0),
                received_at: r.get(1),
                name: r.get(2),
                email: r.get(3),
                organisation: r.get(4),
                topic: r.get(5),
                message: r.get(6),
                language: r.get(11),
                status: r.get(7),
                attempts: r.get(8),
                sent_at: r.get(9),
                last_error: r.get(10),
            })
            .collect())
    }

    pub(crate) async fn delete_enquiries(&self, selection: Selection) -> anyhow::Result<Deleted> {
        let (clause, value) = selection.clause();
        // Locks the enquiries, so a concurrent sweep or erasure waits.
        let sql = sql::pg(&format!("{}{clause} FOR UPDATE", subject_sql::SELECTED));
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let rows = match value {
            Some(v) => tx.query(&sql, &[&v]).await?,
            None => tx.query(&sql, &[]).await?,
        };
        let references: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
        let deleted = delete_references(&tx, &references).await?;
        tx.commit().await?;
        Ok(deleted)
    }

    pub(crate) async fn purge_enquiries(
        &self,
        sent_before: i64,
        received_before: i64,
        now: i64,
    ) -> anyhow::Result<Purged> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // Rows another replica is purging (or settling) are skipped, not
        // waited for: that replica removes them, or the next sweep does.
        let expired = tx
            .query(
                &format!(
                    "{} FOR UPDATE OF o, e SKIP LOCKED",
                    sql::pg(subject_sql::EXPIRED)
                ),
                &[&sent_before, &received_before, &now, &PURGE_BATCH],
            )
            .await?;
        let orphans = tx
            .query(
                &format!(
                    "{} FOR UPDATE OF e SKIP LOCKED",
                    sql::pg(subject_sql::EXPIRED_ORPHANS)
                ),
                &[&received_before, &PURGE_BATCH],
            )
            .await?;
        let delivered = expired
            .iter()
            .filter(|r| r.get::<_, &str>(1) == "sent")
            .count() as u64;
        let purged = Purged {
            delivered,
            undelivered: (expired.len() + orphans.len()) as u64 - delivered,
        };
        let references: Vec<String> = expired
            .iter()
            .chain(orphans.iter())
            .map(|r| r.get(0))
            .collect();
        delete_references(&tx, &references).await?;
        tx.commit().await?;
        Ok(purged)
    }
}

/// Deletes the outbox rows, then the enquiries, of `references`.
async fn delete_references(
    tx: &tokio_postgres::Transaction<'_>,
    references: &[String],
) -> anyhow::Result<Deleted> {
    if references.is_empty() {
        return Ok(Deleted::default());
    }
    let outbox = tx
        .execute(
            "DELETE FROM outbox WHERE reference = ANY($1)",
            &[&references],
        )
        .await?;
    let enquiries = tx
        .execute(
            "DELETE FROM enquiries WHERE reference = ANY($1)",
            &[&references],
        )
        .await?;
    Ok(Deleted { enquiries, outbox })
}
