//! The SQLite backend: one file, WAL, `synchronous=FULL`.
//!
//! rusqlite is synchronous, so every call runs on tokio's blocking pool.
//! Reads take a connection from a small idle list (WAL lets them run beside
//! the writer); writes go through the writer connection, except rate-limit
//! hits, which have a connection of their own with `synchronous=NORMAL`:
//! a counter lost to a power cut costs nothing, while an fsync per hit
//! would cap the chat at one question per disk flush. (In WAL mode the
//! setting is per connection: enquiries stay durable once acknowledged.)

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use rusqlite::{Connection, OpenFlags, params, params_from_iter};

use super::sample::Sample;
use super::{
    Arg, Counts, MonthCounts, NewObservation, ObservationFilter, ObservationRow, Site, SiteSummary,
};

pub mod backup;
mod contact;
mod import;
mod ops;
/// Versioned migrations, applied in order (named in [`super::migrate`]).
const MIGRATIONS: [(i64, &str); 4] = [
    (1, include_str!("migrations/sqlite/0001_init.sql")),
    (2, include_str!("migrations/sqlite/0002_contact.sql")),
    (3, include_str!("migrations/sqlite/0003_import_keys.sql")),
    (
        4,
        include_str!("migrations/sqlite/0004_enquiry_language.sql"),
    ),
];
const _: () = assert!(MIGRATIONS.len() == super::migrate::MIGRATIONS.len());

/// The schema version of the file at `path`, read without writing (0 when
/// there is no file yet).
pub async fn schema_version(path: &Path) -> anyhow::Result<i64> {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || -> anyhow::Result<i64> {
        if !path.exists() {
            return Ok(0);
        }
        let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .with_context(|| format!("opening {}", path.display()))?;
        let recorded: bool = conn.query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'schema_migrations'",
            [],
            |r| r.get(0),
        )?;
        if !recorded {
            return Ok(0);
        }
        Ok(conn.query_row(
            "SELECT coalesce(max(version), 0) FROM schema_migrations",
            [],
            |r| r.get(0),
        )?)
    })
    .await?
}

/// Reads running at once, each on its own read connection: a burst of
/// requests queues here instead of starting a thread and a connection
/// (with its page cache) each.
const MAX_READERS: usize = 8;

#[derive(Clone)]
pub struct SqliteStore {
    path: Arc<PathBuf>,
    idle: Arc<Mutex<Vec<Connection>>>,
    /// One permit per read in progress ([`MAX_READERS`]).
    readers: Arc<tokio::sync::Semaphore>,
    writer: Arc<Mutex<Connection>>,
    /// Writes rate-limit counters only.
    counter: Arc<Mutex<Connection>>,
    /// Operations that failed, for the metrics.
    errors: Arc<AtomicU64>,
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a commit is durable once acknowledged, even on power loss.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

impl SqliteStore {
    /// Opens the database file, creating it 0600 ([`super::private`]), and
    /// applies pending migrations.
    pub async fn open(path: &Path) -> anyhow::Result<SqliteStore> {
        let path = path.to_path_buf();
        let writer = tokio::task::spawn_blocking({
            let path = path.clone();
            move || -> anyhow::Result<Connection> {
                // Private before SQLite writes into it; its -wal and -shm
                // files take its mode.
                if !super::private::create_file(&path)? {
                    super::private::warn_if_shared(&path);
                }
                let mut conn = Connection::open(&path)
                    .with_context(|| format!("opening {}", path.display()))?;
                configure(&conn)?;
                migrate(&mut conn)?;
                Ok(conn)
            }
        })
        .await??;
        let counter = tokio::task::spawn_blocking({
            let path = path.clone();
            move || -> anyhow::Result<Connection> {
                let conn = Connection::open(&path)
                    .with_context(|| format!("opening {}", path.display()))?;
                configure(&conn)?;
                // NORMAL: a commit may be lost on power loss, never corrupt.
                conn.pragma_update(None, "synchronous", "NORMAL")?;
                Ok(conn)
            }
        })
        .await??;
        Ok(SqliteStore {
            path: Arc::new(path),
            idle: Arc::new(Mutex::new(Vec::new())),
            readers: Arc::new(tokio::sync::Semaphore::new(MAX_READERS)),
            writer: Arc::new(Mutex::new(writer)),
            counter: Arc::new(Mutex::new(counter)),
            errors: Arc::new(AtomicU64::new(0)),
        })
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let this = self.clone();
        let permit = self.readers.clone().acquire_owned().await?;
        let out = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let conn = this.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let conn = match conn {
                Some(c) => c,
                None => {
                    let c = Connection::open_with_flags(
                        &*this.path,
                        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                    )?;
                    c.busy_timeout(std::time::Duration::from_secs(5))?;
                    c
                }
            };
            let out = f(&conn);
            // A connection that failed may be broken: drop it rather than reuse.
            if out.is_ok() {
                let mut idle = this.idle.lock().unwrap_or_else(|e| e.into_inner());
                if idle.len() < MAX_READERS {
                    idle.push(conn);
                }
            }
            Ok(out?)
        })
        .await?;
        self.counted(out)
    }

    /// `result`, counted among the errors when it is one.
    fn counted<T>(&self, result: anyhow::Result<T>) -> anyhow::Result<T> {
        if result.is_err() {
            self.errors.fetch_add(1, Relaxed);
        }
        result
    }

    pub(crate) fn errors(&self) -> u64 {
        self.errors.load(Relaxed)
    }

    async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let writer = self.writer.clone();
        let out = tokio::task::spawn_blocking(move || {
            let mut conn = writer.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut conn)
        })
        .await?;
        self.counted(out)
    }

    /// Like [`SqliteStore::write`], on the rate-limit counters' connection.
    async fn count<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let counter = self.counter.clone();
        let out = tokio::task::spawn_blocking(move || {
            let mut conn = counter.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut conn)
        })
        .await?;
        self.counted(out)
    }

    pub async fn ping(&self) -> anyhow::Result<()> {
        self.read(|c| c.query_row("SELECT count(*) FROM sites", [], |_| Ok(())))
            .await
    }

    pub async fn observation_count(&self) -> anyhow::Result<i64> {
        self.read(|c| c.query_row("SELECT count(*) FROM observations", [], |r| r.get(0)))
            .await
    }

    pub async fn counts(&self, since: i64) -> anyhow::Result<Counts> {
        self.read(move |c| {
            let one = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0));
            Ok(Counts {
                volunteers: one("SELECT count(*) FROM volunteers")?,
                observations: one(
                    "SELECT count(*) FROM observations o JOIN sites s ON s.id = o.site_id \
                     WHERE s.public = TRUE AND o.withdrawn = FALSE",
                )?,
                sites: one("SELECT count(*) FROM sites WHERE public = TRUE")?,
                countries: one("SELECT count(DISTINCT country) FROM sites WHERE public = TRUE")?,
                classifications: one("SELECT count(*) FROM classifications")?,
                classification_projects: one(
                    "SELECT count(*) FROM projects WHERE collects_classifications = TRUE",
                )?,
                projects: one("SELECT count(*) FROM projects")?,
                observations_since: c.query_row(
                    "SELECT count(*) FROM observations o JOIN sites s ON s.id = o.site_id \
                     WHERE s.public = TRUE AND o.withdrawn = FALSE AND o.observed_at >= ?1",
                    [since],
                    |r| r.get(0),
                )?,
                latest_observation_at: c.query_row(
                    "SELECT max(o.observed_at) FROM observations o \
                     JOIN sites s ON s.id = o.site_id WHERE s.public = TRUE \
                     AND o.withdrawn = FALSE",
                    [],
                    |r| r.get(0),
                )?,
            })
        })
        .await
    }

    pub async fn month_counts(&self, from: i64, to: i64) -> anyhow::Result<MonthCounts> {
        self.read(move |c| {
            let per_month = |sql: &str| -> rusqlite::Result<Vec<(String, i64)>> {
                let mut stmt = c.prepare_cached(sql)?;
                let rows = stmt.query_map([from, to], |r| Ok((r.get(0)?, r.get(1)?)))?;
                rows.collect()
            };
            Ok(MonthCounts {
                observations: per_month(
                    "SELECT strftime('%Y-%m', o.observed_at, 'unixepoch') AS m, count(*) \
                     FROM observations o JOIN sites s ON s.id = o.site_id \
                     WHERE s.public = TRUE AND o.withdrawn = FALSE \
                     AND o.observed_at >= ?1 AND o.observed_at < ?2 GROUP BY m",
                )?,
                classifications: per_month(
                    "SELECT strftime('%Y-%m', created_at, 'unixepoch') AS m, count(*) \
                     FROM classifications WHERE created_at >= ?1 AND created_at < ?2 \
                     GROUP BY m",
                )?,
            })
        })
        .await
    }

    pub async fn observations(
        &self,
        filter: &ObservationFilter,
    ) -> anyhow::Result<Vec<ObservationRow>> {
        let (sql, args) = super::observation_query(filter, |n| format!("?{n}"));
        self.read(move |c| {
            let mut stmt = c.prepare_cached(&sql)?;
            let values = args.iter().map(sqlite_value);
            let rows = stmt.query_map(params_from_iter(values), |r| {
                Ok(ObservationRow {
                    id: r.get(0)?,
                    site_id: r.get(1)?,
                    site_name: r.get(2)?,
                    country: r.get(3)?,
                    water_body_type: r.get(4)?,
                    observed_at: r.get(5)?,
                    parameter: r.get(6)?,
                    value: r.get(7)?,
                    unit: r.get(8)?,
                    method: r.get(9)?,
                    quality_flag: r.get(10)?,
                    latitude: r.get(11)?,
                    longitude: r.get(12)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    pub async fn count_observations(&self, filter: &ObservationFilter) -> anyhow::Result<i64> {
        let (sql, args) = super::observation_count_query(filter, |n| format!("?{n}"));
        self.read(move |c| {
            let mut stmt = c.prepare_cached(&sql)?;
            let values = args.iter().map(sqlite_value);
            stmt.query_row(params_from_iter(values), |r| r.get(0))
        })
        .await
    }

    pub async fn site_summaries(&self) -> anyhow::Result<Vec<SiteSummary>> {
        let (sites, groups) = self
            .read(|c| {
                let mut stmt = c.prepare(
                    "SELECT id, name, country, water_body_type, latitude, longitude, public \
                     FROM sites WHERE public = TRUE ORDER BY id",
                )?;
                let sites = stmt
                    .query_map([], |r| {
                        Ok(Site {
                            id: r.get(0)?,
                            name: r.get(1)?,
                            country: r.get(2)?,
                            water_body_type: r.get(3)?,
                            latitude: r.get(4)?,
                            longitude: r.get(5)?,
                            public: r.get(6)?,
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                let mut stmt = c.prepare(
                    "SELECT site_id, parameter, count(*), min(observed_at), max(observed_at) FROM observations \
                     WHERE withdrawn = FALSE GROUP BY site_id, parameter \
                     ORDER BY site_id, parameter",
                )?;
                let groups = stmt
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok((sites, groups))
            })
            .await?;
        Ok(super::summarise(sites, groups))
    }

    pub(super) async fn insert_sample(&self, sample: Sample) -> anyhow::Result<()> {
        self.write(move |conn| {
            let tx = conn.transaction()?;
            let sites = sample.sites();
            upsert_sites(&tx, &sites, true)?;
            let extras = sample.extras();
            {
                let mut v = tx.prepare("INSERT INTO volunteers (id, joined_at) VALUES (?1, ?2)")?;
                for (id, at) in &extras.volunteers {
                    v.execute(params![id, at])?;
                }
                let mut p = tx.prepare(
                    "INSERT INTO projects (id, name, collects_classifications) VALUES (?1, ?2, ?3)",
                )?;
                for (id, name, collects) in &extras.projects {
                    p.execute(params![id, name, collects])?;
                }
                let mut c = tx.prepare(
                    "INSERT INTO classifications (id, project_id, volunteer_id, created_at) \
                     VALUES (?1, ?2, ?3, ?4)",
                )?;
                for (id, project, volunteer, at) in &extras.classifications {
                    c.execute(params![id, project, volunteer, at])?;
                }
            }
            sample.observations(&sites, 10_000, |batch| {
                insert_observations(&tx, batch).map(drop)
            })?;
            tx.commit()?;
            conn.execute_batch("ANALYZE")?;
            Ok(())
        })
        .await
    }
}

/// Inserts or updates `sites`; a known site's `public` changes only when
/// `sets_public`.
fn upsert_sites(
    tx: &rusqlite::Transaction<'_>,
    sites: &[Site],
    sets_public: bool,
) -> anyhow::Result<()> {
    let mut stmt = tx.prepare_cached(if sets_public {
        "INSERT INTO sites (id, name, country, water_body_type, latitude, longitude, public) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) DO UPDATE SET name = excluded.name, \
         country = excluded.country, water_body_type = excluded.water_body_type, \
         latitude = excluded.latitude, longitude = excluded.longitude, public = excluded.public"
    } else {
        "INSERT INTO sites (id, name, country, water_body_type, latitude, longitude, public) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) DO UPDATE SET name = excluded.name, \
         country = excluded.country, water_body_type = excluded.water_body_type, \
         latitude = excluded.latitude, longitude = excluded.longitude"
    })?;
    for s in sites {
        stmt.execute(params![
            s.id,
            s.name,
            s.country,
            s.water_body_type,
            s.latitude,
            s.longitude,
            s.public
        ])?;
    }
    Ok(())
}

/// Inserts `rows`, skipping any whose key is already there; returns how
/// many went in.
fn insert_observations(
    tx: &rusqlite::Transaction<'_>,
    rows: &[NewObservation],
) -> anyhow::Result<u64> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO observations (id, site_id, observed_at, parameter, value, unit, method, \
         quality_flag, volunteer_id, source, source_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT DO NOTHING",
    )?;
    let mut added = 0;
    for o in rows {
        added += stmt.execute(params![
            o.id,
            o.site_id,
            o.observed_at,
            o.parameter,
            o.value,
            o.unit,
            o.method,
            o.quality_flag,
            o.volunteer_id,
            o.source,
            o.source_id
        ])? as u64;
    }
    Ok(added)
}

fn migrate(conn: &mut Connection) -> anyhow::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations \
         (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
    )?;
    let current: i64 = tx.query_row(
        "SELECT coalesce(max(version), 0) FROM schema_migrations",
        [],
        |r| r.get(0),
    )?;
    super::migrate::refuse_newer(current)?;
    for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > current) {
        tx.execute_batch(sql)
            .with_context(|| format!("applying SQLite migration {version}"))?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, unixepoch())",
            [version],
        )?;
    }
    tx.commit()?;
    Ok(())
}

fn sqlite_value(a: &Arg) -> rusqlite::types::Value {
    match a {
        Arg::Text(s) => rusqlite::types::Value::Text(s.clone()),
        Arg::Int(i) => rusqlite::types::Value::Integer(*i),
        Arg::Real(f) => rusqlite::types::Value::Real(*f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threads() -> usize {
        std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count())
    }

    #[test]
    fn a_burst_of_reads_uses_a_bounded_number_of_threads_and_connections() {
        // A runtime of its own, with tokio's default blocking pool (up to
        // 512 threads): only the store's own bound keeps the burst small.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let before = threads();
        runtime.block_on(async {
            let store = SqliteStore::open(&dir.path().join("t.sqlite3"))
                .await
                .unwrap();
            let mut reads = tokio::task::JoinSet::new();
            for _ in 0..200 {
                let store = store.clone();
                reads.spawn(async move {
                    store
                        .read(|c| {
                            // Long enough that the reads overlap.
                            std::thread::sleep(std::time::Duration::from_millis(5));
                            c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))
                        })
                        .await
                });
            }
            while let Some(read) = reads.join_next().await {
                assert_eq!(read.unwrap().unwrap(), 1);
            }
            assert!(store.idle.lock().unwrap().len() <= MAX_READERS);
        });
        // Idle blocking threads stay alive for a while: all those started
        // are still counted here. Other tests may run threads meanwhile.
        let started = threads().saturating_sub(before);
        assert!(
            started <= MAX_READERS + 40,
            "{started} threads for 200 reads"
        );
    }
}
