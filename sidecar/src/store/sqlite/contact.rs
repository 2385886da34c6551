//! The contact tables on SQLite: every write goes through the single writer
//! connection, so a claim needs no row locks; rate-limit counters, which
//! need no durability, through their own connection (`synchronous=NORMAL`).

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::SqliteStore;
use crate::store::contact::{NewEnquiry, OutboxItem, OutboxState, Settle, Stored, sql};

impl SqliteStore {
    pub(crate) async fn rate_hit(
        &self,
        bucket: &'static str,
        client: String,
        window_ms: i64,
        now: i64,
    ) -> anyhow::Result<(i64, i64)> {
        self.count(move |c| {
            let mut stmt = c.prepare_cached(sql::RATE_HIT)?;
            Ok(
                stmt.query_row(params![bucket, client, now, now + window_ms], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?,
            )
        })
        .await
    }

    pub(crate) async fn insert_enquiry(
        &self,
        e: NewEnquiry,
        nonce: String,
        nonce_expires_at: i64,
    ) -> anyhow::Result<Stored> {
        self.write(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            if tx.execute(sql::USE_CHALLENGE, params![nonce, nonce_expires_at])? == 0 {
                return Ok(Stored::Replayed);
            }
            tx.execute(
                sql::INSERT_ENQUIRY,
                params![
                    e.reference,
                    e.received_at,
                    e.name,
                    e.email,
                    e.organisation,
                    e.topic,
                    e.message
                ],
            )?;
            tx.execute(sql::INSERT_OUTBOX, params![e.reference, e.received_at])?;
            tx.commit()?;
            Ok(Stored::Committed)
        })
        .await
    }

    pub(crate) async fn claim_outbox(
        &self,
        now: i64,
        lease_ms: i64,
        limit: i64,
        token: String,
    ) -> anyhow::Result<Vec<OutboxItem>> {
        self.write(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "UPDATE outbox SET claimed_until = ?1, claim_token = ?2, attempts = attempts + 1 \
                 WHERE reference IN (SELECT reference FROM outbox WHERE status = 'pending' \
                 AND attempt_after <= ?3 AND claimed_until <= ?3 ORDER BY attempt_after LIMIT ?4)",
                params![now + lease_ms, token, now, limit],
            )?;
            let items = {
                let mut stmt = tx.prepare(sql::CLAIMED)?;
                let rows = stmt.query_map([&token], |r| {
                    Ok(OutboxItem {
                        enquiry: NewEnquiry {
                            reference: r.get(0)?,
                            received_at: r.get(1)?,
                            name: r.get(2)?,
                            email: r.get(3)?,
                            organisation: r.get(4)?,
                            topic: r.get(5)?,
                            message: r.get(6)?,
                        },
                        attempts: r.get(7)?,
                    })
                })?;
                rows.collect::<rusqlite::Result<Vec<_>>>()?
            };
            tx.commit()?;
            Ok(items)
        })
        .await
    }

    pub(crate) async fn settle_outbox(
        &self,
        reference: String,
        token: String,
        outcome: Settle,
    ) -> anyhow::Result<bool> {
        self.write(move |c| {
            let (status, sent_at, after, error) = outcome.columns();
            let n = c.execute(
                sql::SETTLE,
                params![reference, token, status, sent_at, after, error],
            )?;
            Ok(n == 1)
        })
        .await
    }

    pub(crate) async fn contact_cleanup(&self, now: i64) -> anyhow::Result<()> {
        self.write(move |c| {
            c.execute(sql::CLEANUP, [now])?;
            c.execute(sql::CLEANUP_RATES, [now])?;
            Ok(())
        })
        .await
    }

    pub(crate) async fn enquiry_count(&self) -> anyhow::Result<i64> {
        self.read(|c| c.query_row("SELECT count(*) FROM enquiries", [], |r| r.get(0)))
            .await
    }

    pub(crate) async fn outbox_state(
        &self,
        reference: String,
    ) -> anyhow::Result<Option<OutboxState>> {
        self.read(move |c| {
            c.query_row(sql::OUTBOX_STATE, [reference], |r| {
                Ok(OutboxState {
                    status: r.get(0)?,
                    attempts: r.get(1)?,
                })
            })
            .optional()
        })
        .await
    }
}
