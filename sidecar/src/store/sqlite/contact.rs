//! The contact tables on SQLite: every write goes through the single writer
//! connection, so a claim needs no row locks; rate-limit counters, which
//! need no durability, through their own connection (`synchronous=NORMAL`).

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::SqliteStore;
use crate::store::contact::{
    Deleted, EnquiryRecord, NewEnquiry, OutboxItem, OutboxState, PURGE_BATCH, Purged, Selection,
    Settle, Stored, sql, subject_sql,
};

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
                    e.message,
                    e.language
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
                            language: r.get(8)?,
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

    pub(crate) async fn enquiries(
        &self,
        selection: Selection,
    ) -> anyhow::Result<Vec<EnquiryRecord>> {
        self.read(move |c| {
            let (clause, value) = selection.clause();
            let sql = format!(
                "{}{clause}{}",
                subject_sql::RECORDS,
                subject_sql::RECORDS_ORDER
            );
            let mut stmt = c.prepare(&sql)?;
            let map = |r: &rusqlite::Row<'_>| {
                Ok(EnquiryRecord {
                    reference: r.get(0)?,
                    received_at: r.get(1)?,
                    name: r.get(2)?,
                    email: r.get(3)?,
                    organisation: r.get(4)?,
                    topic: r.get(5)?,
                    message: r.get(6)?,
                    language: r.get(11)?,
                    status: r.get(7)?,
                    attempts: r.get(8)?,
                    sent_at: r.get(9)?,
                    last_error: r.get(10)?,
                })
            };
            let rows = match value {
                Some(v) => stmt
                    .query_map([v], map)?
                    .collect::<rusqlite::Result<Vec<_>>>()?,
                None => stmt
                    .query_map([], map)?
                    .collect::<rusqlite::Result<Vec<_>>>()?,
            };
            Ok(rows)
        })
        .await
    }

    pub(crate) async fn delete_enquiries(&self, selection: Selection) -> anyhow::Result<Deleted> {
        self.write(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let (clause, value) = selection.clause();
            let references: Vec<String> = {
                let mut stmt = tx.prepare(&format!("{}{clause}", subject_sql::SELECTED))?;
                match value {
                    Some(v) => stmt
                        .query_map([v], |r| r.get(0))?
                        .collect::<rusqlite::Result<_>>()?,
                    None => stmt
                        .query_map([], |r| r.get(0))?
                        .collect::<rusqlite::Result<_>>()?,
                }
            };
            let deleted = delete_references(&tx, &references)?;
            tx.commit()?;
            Ok(deleted)
        })
        .await
    }

    pub(crate) async fn purge_enquiries(
        &self,
        sent_before: i64,
        received_before: i64,
        now: i64,
    ) -> anyhow::Result<Purged> {
        self.write(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let expired: Vec<(String, String)> = {
                let mut stmt = tx.prepare(subject_sql::EXPIRED)?;
                stmt.query_map(
                    params![sent_before, received_before, now, PURGE_BATCH],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )?
                .collect::<rusqlite::Result<_>>()?
            };
            let orphans: Vec<String> = {
                let mut stmt = tx.prepare(subject_sql::EXPIRED_ORPHANS)?;
                stmt.query_map(params![received_before, PURGE_BATCH], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?
            };
            let delivered = expired.iter().filter(|(_, s)| s == "sent").count() as u64;
            let purged = Purged {
                delivered,
                undelivered: (expired.len() + orphans.len()) as u64 - delivered,
            };
            let references: Vec<String> =
                expired.into_iter().map(|(r, _)| r).chain(orphans).collect();
            delete_references(&tx, &references)?;
            tx.commit()?;
            Ok(purged)
        })
        .await
    }
}

/// Deletes the outbox rows, then the enquiries, of `references`.
fn delete_references(
    tx: &rusqlite::Transaction<'_>,
    references: &[String],
) -> rusqlite::Result<Deleted> {
    let mut deleted = Deleted::default();
    let mut outbox = tx.prepare_cached("DELETE FROM outbox WHERE reference = ?1")?;
    let mut enquiry = tx.prepare_cached("DELETE FROM enquiries WHERE reference = ?1")?;
    for r in references {
        deleted.outbox += outbox.execute([r])? as u64;
        deleted.enquiries += enquiry.execute([r])? as u64;
    }
    Ok(deleted)
}
