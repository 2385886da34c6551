//! Imports on SQLite: one write transaction per file (see [`Store::apply`]).
//!
//! [`Store::apply`]: crate::store::Store::apply

use rusqlite::{OptionalExtension, Transaction, params};

use super::{SqliteStore, insert_observations, upsert_sites};
use crate::store::import::ImportError;
use crate::store::{Action, Applied, ImportBatch, NewClassification, NewObservation};

/// The row a key names: by the source's id, or by the natural key.
const FIND_BY_ID: &str = "SELECT id, value, unit, method, quality_flag, withdrawn \
     FROM observations WHERE source = ?1 AND source_id = ?2";
const FIND_BY_NATURAL_KEY: &str = "SELECT id, value, unit, method, quality_flag, withdrawn \
     FROM observations WHERE source = ?1 AND source_id IS NULL AND site_id = ?2 \
     AND parameter = ?3 AND observed_at = ?4";

type Found = (i64, f64, String, String, String, bool);

fn find(tx: &Transaction<'_>, o: &NewObservation) -> rusqlite::Result<Option<Found>> {
    let map = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Found> {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ))
    };
    match &o.source_id {
        Some(id) => tx
            .prepare_cached(FIND_BY_ID)?
            .query_row(params![o.source, id], map)
            .optional(),
        None => tx
            .prepare_cached(FIND_BY_NATURAL_KEY)?
            .query_row(
                params![o.source, o.site_id, o.parameter, o.observed_at],
                map,
            )
            .optional(),
    }
}

impl SqliteStore {
    pub async fn apply(&self, batch: ImportBatch) -> anyhow::Result<Applied> {
        self.write(move |conn| {
            let tx = conn.transaction()?;
            upsert_sites(&tx, &batch.sites, batch.sets_public)?;
            let mut next: i64 =
                tx.query_row("SELECT coalesce(max(id), 0) FROM observations", [], |r| {
                    r.get(0)
                })?;
            let mut applied = Applied {
                sites: batch.sites.len() as u64,
                ..Applied::default()
            };
            for row in batch.rows {
                let mut o = row.observation;
                if row.action == Action::Add {
                    o.id = next + 1;
                    if insert_observations(&tx, std::slice::from_ref(&o))? == 1 {
                        next += 1;
                        applied.added += 1;
                    } else {
                        applied.unchanged += 1;
                    }
                    continue;
                }
                let Some((id, value, unit, method, flag, withdrawn)) = find(&tx, &o)? else {
                    return Err(ImportError::not_found(row.line, row.action).into());
                };
                match row.action {
                    Action::Withdraw if withdrawn => applied.unchanged += 1,
                    Action::Withdraw => {
                        tx.execute(
                            "UPDATE observations SET withdrawn = TRUE WHERE id = ?1",
                            [id],
                        )?;
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
                            "UPDATE observations SET value = ?2, unit = ?3, method = ?4, \
                             quality_flag = ?5, withdrawn = FALSE WHERE id = ?1",
                            params![id, o.value, o.unit, o.method, o.quality_flag],
                        )?;
                        applied.replaced += 1;
                    }
                }
            }
            tx.commit()?;
            Ok(applied)
        })
        .await
    }

    pub async fn import_classifications(
        &self,
        rows: Vec<NewClassification>,
    ) -> anyhow::Result<u64> {
        self.write(move |conn| {
            let tx = conn.transaction()?;
            let mut next: i64 = tx.query_row(
                "SELECT coalesce(max(id), 0) FROM classifications",
                [],
                |r| r.get(0),
            )?;
            let mut added = 0;
            {
                let mut project = tx.prepare(
                    "INSERT INTO projects (id, name, collects_classifications) \
                     VALUES (?1, ?2, TRUE) ON CONFLICT (id) DO UPDATE SET \
                     name = excluded.name, collects_classifications = TRUE",
                )?;
                let mut insert = tx.prepare(
                    "INSERT INTO classifications (id, project_id, created_at, source_id) \
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                )?;
                let mut seen = std::collections::HashSet::new();
                for c in &rows {
                    if seen.insert(c.project_id.as_str()) {
                        project.execute(params![c.project_id, c.project_name])?;
                    }
                    if insert.execute(params![next + 1, c.project_id, c.created_at, c.source_id])?
                        == 1
                    {
                        next += 1;
                        added += 1;
                    }
                }
            }
            tx.commit()?;
            Ok(added)
        })
        .await
    }
}
