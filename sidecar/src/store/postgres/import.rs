//! Imports on PostgreSQL: one transaction per file, holding an exclusive
//! lock on `observations` so that concurrent imports do not race for ids
//! (see [`Store::apply`]).
//!
//! [`Store::apply`]: crate::store::Store::apply

use deadpool_postgres::Transaction;

use super::{PgStore, upsert_sites};
use crate::store::import::ImportError;
use crate::store::{Action, Applied, ImportBatch, NewClassification, NewObservation};

type Found = (i64, f64, String, String, String, bool);

async fn find(tx: &Transaction<'_>, o: &NewObservation) -> anyhow::Result<Option<Found>> {
    let row = match &o.source_id {
        Some(id) => {
            tx.query_opt(
                "SELECT id, value, unit, method, quality_flag, withdrawn FROM observations \
                 WHERE source = $1 AND source_id = $2",
                &[&o.source, id],
            )
            .await?
        }
        None => {
            tx.query_opt(
                "SELECT id, value, unit, method, quality_flag, withdrawn FROM observations \
                 WHERE source = $1 AND source_id IS NULL AND site_id = $2 AND parameter = $3 \
                 AND observed_at = $4",
                &[&o.source, &o.site_id, &o.parameter, &o.observed_at],
            )
            .await?
        }
    };
    Ok(row.map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))))
}

impl PgStore {
    pub async fn apply(&self, batch: ImportBatch) -> anyhow::Result<Applied> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx.batch_execute("LOCK TABLE observations IN EXCLUSIVE MODE")
            .await?;
        upsert_sites(&tx, &batch.sites, batch.sets_public).await?;
        let mut next: i64 = tx
            .query_one("SELECT coalesce(max(id), 0)::BIGINT FROM observations", &[])
            .await?
            .get(0);
        let insert = tx
            .prepare(
                "INSERT INTO observations (id, site_id, observed_at, parameter, value, unit, \
                 method, quality_flag, volunteer_id, source, source_id) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING",
            )
            .await?;
        let mut applied = Applied {
            sites: batch.sites.len() as u64,
            ..Applied::default()
        };
        for row in batch.rows {
            let o = row.observation;
            if row.action == Action::Add {
                let n = tx
                    .execute(
                        &insert,
                        &[
                            &(next + 1),
                            &o.site_id,
                            &o.observed_at,
                            &o.parameter,
                            &o.value,
                            &o.unit,
                            &o.method,
                            &o.quality_flag,
                            &o.volunteer_id,
                            &o.source,
                            &o.source_id,
                        ],
                    )
                    .await?;
                if n == 1 {
                    next += 1;
                    applied.added += 1;
                } else {
                    applied.unchanged += 1;
                }
                continue;
            }
            let Some((id, value, unit, method, flag, withdrawn)) = find(&tx, &o).await? else {
                return Err(ImportError::not_found(row.line, row.action).into());
            };
            match row.action {
                Action::Withdraw if withdrawn => applied.unchanged += 1,
                Action::Withdraw => {
                    tx.execute(
                        "UPDATE observations SET withdrawn = TRUE WHERE id = $1",
                        &[&id],
                    )
                    .await?;
                    applied.withdrawn += 1;
                }
                _ if !withdrawn
                    && value == o.value
                    && unit == o.unit
                    && method == o.method
                    && flag == o.quality_flag =>
                {
                    applied.unchanged += 1
                }
                _ => {
                    tx.execute(
                        "UPDATE observations SET value = $2, unit = $3, method = $4, \
                         quality_flag = $5, withdrawn = FALSE WHERE id = $1",
                        &[&id, &o.value, &o.unit, &o.method, &o.quality_flag],
                    )
                    .await?;
                    applied.replaced += 1;
                }
            }
        }
        tx.commit().await?;
        Ok(applied)
    }

    pub async fn import_classifications(
        &self,
        rows: Vec<NewClassification>,
    ) -> anyhow::Result<u64> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx.batch_execute("LOCK TABLE classifications IN EXCLUSIVE MODE")
            .await?;
        let mut next: i64 = tx
            .query_one(
                "SELECT coalesce(max(id), 0)::BIGINT FROM classifications",
                &[],
            )
            .await?
            .get(0);
        let project = tx
            .prepare(
                "INSERT INTO projects (id, name, collects_classifications) VALUES ($1, $2, TRUE) \
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, \
                 collects_classifications = TRUE",
            )
            .await?;
        let insert = tx
            .prepare(
                "INSERT INTO classifications (id, project_id, created_at, source_id) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            )
            .await?;
        let mut seen = std::collections::HashSet::new();
        let mut added = 0;
        for c in &rows {
            if seen.insert(c.project_id.as_str()) {
                tx.execute(&project, &[&c.project_id, &c.project_name])
                    .await?;
            }
            let n = tx
                .execute(
                    &insert,
                    &[&(next + 1), &c.project_id, &c.created_at, &c.source_id],
                )
                .await?;
            if n == 1 {
                next += 1;
                added += 1;
            }
        }
        tx.commit().await?;
        Ok(added)
    }
}
