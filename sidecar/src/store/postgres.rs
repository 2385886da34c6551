//! The PostgreSQL backend: what several sidecar replicas share.
//!
//! `tokio-postgres` behind a `deadpool-postgres` pool, over plain TCP or,
//! when the URL asks with `sslmode`, over TLS with the server's certificate
//! checked (`tls.rs`). Rate-limit hits use a small pool of their own whose
//! sessions run with `synchronous_commit = off`: a counter lost in a crash
//! costs nothing, and a hit then does not wait for the WAL flush (enquiries
//! still do). Migrations run under a transaction-scoped advisory lock, so
//! replicas starting together apply each version once.

use anyhow::Context;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::types::ToSql;

use super::sample::Sample;
use super::{
    Arg, Counts, MonthCounts, NewObservation, ObservationFilter, ObservationRow, Site, SiteSummary,
};

mod contact;
mod import;
mod ops;
mod tls;
/// Versioned migrations, applied in order (named in [`super::migrate`]).
const MIGRATIONS: [(i64, &str); 4] = [
    (1, include_str!("migrations/postgres/0001_init.sql")),
    (2, include_str!("migrations/postgres/0002_contact.sql")),
    (3, include_str!("migrations/postgres/0003_import_keys.sql")),
    (
        4,
        include_str!("migrations/postgres/0004_enquiry_language.sql"),
    ),
];
const _: () = assert!(MIGRATIONS.len() == super::migrate::MIGRATIONS.len());

/// The schema version of the database at `url` (in `schema`, or the
/// connection's search path), read without writing: 0 before the first
/// migration.
pub async fn schema_version(url: &str, schema: Option<&str>) -> anyhow::Result<i64> {
    let (mut config, tls) = tls::target(url)?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(std::time::Duration::from_secs(5));
    }
    if let Some(schema) = schema {
        config.options(format!("-c search_path={schema}"));
    }
    let (client, conn) = config.connect(tls).await.context("connecting")?;
    let task = tokio::spawn(conn);
    let table: Option<String> = client
        .query_one("SELECT to_regclass('schema_migrations')::TEXT", &[])
        .await?
        .get(0);
    let version = match table {
        None => 0,
        Some(_) => client
            .query_one(
                "SELECT coalesce(max(version), 0)::BIGINT FROM schema_migrations",
                &[],
            )
            .await?
            .get(0),
    };
    drop(client);
    let _ = task.await;
    Ok(version)
}

/// Key of the advisory lock that serialises migrations across replicas.
const MIGRATION_LOCK: i64 = 0x51de_ca7e;

const POOL_SIZE: usize = 16;
/// Connections for rate-limit hits (one statement each, no flush to wait).
const COUNTER_POOL_SIZE: usize = 4;

#[derive(Clone)]
pub struct PgStore {
    pool: Pool,
    /// Writes rate-limit counters only.
    counters: Pool,
    /// Connections that could not be had, for the metrics.
    errors: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

type Param = Box<dyn ToSql + Sync + Send>;

fn refs(params: &[Param]) -> Vec<&(dyn ToSql + Sync)> {
    params
        .iter()
        .map(|p| p.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

impl PgStore {
    /// Connects to `url` and applies pending migrations. With `schema`, every
    /// connection works in that schema (created if missing) — tests use one
    /// schema each to stay independent.
    pub async fn open(url: &str, schema: Option<&str>) -> anyhow::Result<PgStore> {
        let (mut config, tls) = tls::target(url)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(std::time::Duration::from_secs(5));
        }
        if let Some(schema) = schema {
            anyhow::ensure!(
                schema
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "schema names are lowercase letters, digits and _"
            );
            let (client, conn) = config.connect(tls.clone()).await.context("connecting")?;
            let task = tokio::spawn(conn);
            client
                .batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
                .await?;
            drop(client);
            let _ = task.await;
            config.options(format!("-c search_path={schema}"));
        }
        let mut counter_config = config.clone();
        let options = config
            .get_options()
            .map_or(String::new(), |o| format!("{o} "));
        counter_config.options(format!("{options}-c synchronous_commit=off"));
        let pool = |config, size| {
            let manager = Manager::from_config(
                config,
                tls.clone(),
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .build()
                .context("building the PostgreSQL pool")
        };
        let store = PgStore {
            pool: pool(config, POOL_SIZE)?,
            counters: pool(counter_config, COUNTER_POOL_SIZE)?,
            errors: Default::default(),
        };
        store.migrate().await?;
        Ok(store)
    }

    async fn client(&self) -> anyhow::Result<deadpool_postgres::Object> {
        let client = self.pool.get().await;
        self.counted(client.context("getting a PostgreSQL connection"))
    }

    /// `result`, counted among the errors when it is one.
    fn counted<T>(&self, result: anyhow::Result<T>) -> anyhow::Result<T> {
        if result.is_err() {
            self.errors
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        result
    }

    pub(crate) fn errors(&self) -> u64 {
        self.errors.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A connection of the rate-limit counters' pool.
    async fn counter_client(&self) -> anyhow::Result<deadpool_postgres::Object> {
        let client = self.counters.get().await;
        self.counted(client.context("getting a PostgreSQL connection for rate limits"))
    }

    async fn migrate(&self) -> anyhow::Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations \
             (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
        )
        .await?;
        let current: i64 = tx
            .query_one(
                "SELECT coalesce(max(version), 0)::BIGINT FROM schema_migrations",
                &[],
            )
            .await?
            .get(0);
        super::migrate::refuse_newer(current)?;
        for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > current) {
            tx.batch_execute(sql)
                .await
                .with_context(|| format!("applying PostgreSQL migration {version}"))?;
            tx.execute(
                "INSERT INTO schema_migrations (version, applied_at) \
                 VALUES ($1, extract(epoch FROM now())::BIGINT)",
                &[version],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn ping(&self) -> anyhow::Result<()> {
        let client = self.client().await?;
        client.query_one("SELECT count(*) FROM sites", &[]).await?;
        Ok(())
    }

    pub async fn observation_count(&self) -> anyhow::Result<i64> {
        let client = self.client().await?;
        Ok(client
            .query_one("SELECT count(*) FROM observations", &[])
            .await?
            .get(0))
    }

    pub async fn counts(&self, since: i64) -> anyhow::Result<Counts> {
        let client = self.client().await?;
        let row = client
            .query_one(
                "SELECT \
                 (SELECT count(*) FROM volunteers), \
                 (SELECT count(*) FROM observations o JOIN sites s ON s.id = o.site_id \
                    WHERE s.public AND NOT o.withdrawn), \
                 (SELECT count(*) FROM sites WHERE public), \
                 (SELECT count(DISTINCT country) FROM sites WHERE public), \
                 (SELECT count(*) FROM classifications), \
                 (SELECT count(*) FROM projects WHERE collects_classifications), \
                 (SELECT count(*) FROM projects), \
                 (SELECT count(*) FROM observations o JOIN sites s ON s.id = o.site_id \
                    WHERE s.public AND NOT o.withdrawn AND o.observed_at >= $1), \
                 (SELECT max(o.observed_at) FROM observations o JOIN sites s \
                    ON s.id = o.site_id WHERE s.public AND NOT o.withdrawn)",
                &[&since],
            )
            .await?;
        Ok(Counts {
            volunteers: row.get(0),
            observations: row.get(1),
            sites: row.get(2),
            countries: row.get(3),
            classifications: row.get(4),
            classification_projects: row.get(5),
            projects: row.get(6),
            observations_since: row.get(7),
            latest_observation_at: row.get(8),
        })
    }

    pub async fn month_counts(&self, from: i64, to: i64) -> anyhow::Result<MonthCounts> {
        let client = self.client().await?;
        let per_month = async |sql: &str| -> anyhow::Result<Vec<(String, i64)>> {
            let rows = client.query(sql, &[&from, &to]).await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        };
        Ok(MonthCounts {
            observations: per_month(
                "SELECT to_char(to_timestamp(o.observed_at) AT TIME ZONE 'UTC', 'YYYY-MM') AS m, \
                 count(*) FROM observations o JOIN sites s ON s.id = o.site_id \
                 WHERE s.public AND NOT o.withdrawn \
                 AND o.observed_at >= $1 AND o.observed_at < $2 GROUP BY m",
            )
            .await?,
            classifications: per_month(
                "SELECT to_char(to_timestamp(created_at) AT TIME ZONE 'UTC', 'YYYY-MM') AS m, \
                 count(*) FROM classifications WHERE created_at >= $1 AND created_at < $2 \
                 GROUP BY m",
            )
            .await?,
        })
    }

    pub async fn observations(
        &self,
        filter: &ObservationFilter,
    ) -> anyhow::Result<Vec<ObservationRow>> {
        let (sql, args) = super::observation_query(filter, |n| format!("${n}"));
        let params = pg_params(args);
        let client = self.client().await?;
        let stmt = client.prepare_cached(&sql).await?;
        let rows = client.query(&stmt, &refs(&params)).await?;
        Ok(rows
            .iter()
            .map(|r| ObservationRow {
                id: r.get(0),
                site_id: r.get(1),
                site_name: r.get(2),
                country: r.get(3),
                water_body_type: r.get(4),
                observed_at: r.get(5),
                parameter: r.get(6),
                value: r.get(7),
                unit: r.get(8),
                method: r.get(9),
                quality_flag: r.get(10),
                latitude: r.get(11),
                longitude: r.get(12),
            })
            .collect())
    }

    pub async fn count_observations(&self, filter: &ObservationFilter) -> anyhow::Result<i64> {
        let (sql, args) = super::observation_count_query(filter, |n| format!("${n}"));
        let params = pg_params(args);
        let client = self.client().await?;
        let stmt = client.prepare_cached(&sql).await?;
        Ok(client.query_one(&stmt, &refs(&params)).await?.get(0))
    }

    pub async fn site_summaries(&self) -> anyhow::Result<Vec<SiteSummary>> {
        let client = self.client().await?;
        let sites = client
            .query(
                "SELECT id, name, country, water_body_type, latitude, longitude, public \
                 FROM sites WHERE public ORDER BY id",
                &[],
            )
            .await?
            .iter()
            .map(|r| Site {
                id: r.get(0),
                name: r.get(1),
                country: r.get(2),
                water_body_type: r.get(3),
                latitude: r.get(4),
                longitude: r.get(5),
                public: r.get(6),
            })
            .collect();
        let groups = client
            .query(
                "SELECT site_id, parameter, count(*), min(observed_at), max(observed_at) FROM observations \
                 WHERE NOT withdrawn GROUP BY site_id, parameter ORDER BY site_id, parameter",
                &[],
            )
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
            .collect();
        Ok(super::summarise(sites, groups))
    }

    pub(super) async fn insert_sample(&self, sample: Sample) -> anyhow::Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // Replicas starting together: the first fills, the others find rows.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        let existing: i64 = tx
            .query_one("SELECT count(*) FROM observations", &[])
            .await?
            .get(0);
        if existing > 0 {
            return Ok(());
        }
        let sites = sample.sites();
        upsert_sites(&tx, &sites, true).await?;
        let extras = sample.extras();
        let (ids, joined): (Vec<i64>, Vec<i64>) = extras.volunteers.iter().copied().unzip();
        tx.execute(
            "INSERT INTO volunteers (id, joined_at) SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[])",
            &[&ids, &joined],
        )
        .await?;
        for (id, name, collects) in &extras.projects {
            tx.execute(
                "INSERT INTO projects (id, name, collects_classifications) VALUES ($1, $2, $3)",
                &[id, name, collects],
            )
            .await?;
        }
        let ids: Vec<i64> = extras.classifications.iter().map(|c| c.0).collect();
        let projects: Vec<&str> = extras.classifications.iter().map(|c| c.1).collect();
        let volunteers: Vec<i64> = extras.classifications.iter().map(|c| c.2).collect();
        let at: Vec<i64> = extras.classifications.iter().map(|c| c.3).collect();
        tx.execute(
            "INSERT INTO classifications (id, project_id, volunteer_id, created_at) \
             SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::BIGINT[], $4::BIGINT[])",
            &[&ids, &projects, &volunteers, &at],
        )
        .await?;
        // The generator is synchronous: collect batches, then send them.
        let mut batches = Vec::new();
        sample.observations(&sites, 20_000, |b| {
            batches.push(b.to_vec());
            Ok::<_, std::convert::Infallible>(())
        })?;
        for batch in batches {
            insert_observations(&tx, &batch).await?;
        }
        tx.commit().await?;
        client.batch_execute("ANALYZE").await?;
        Ok(())
    }
}

/// Inserts or updates `sites`; a known site's `public` changes only when
/// `sets_public`.
async fn upsert_sites(
    tx: &deadpool_postgres::Transaction<'_>,
    sites: &[Site],
    sets_public: bool,
) -> anyhow::Result<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO sites (id, name, country, water_body_type, latitude, longitude, public) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO UPDATE SET \
             name = excluded.name, country = excluded.country, \
             water_body_type = excluded.water_body_type, latitude = excluded.latitude, \
             longitude = excluded.longitude, \
             public = CASE WHEN $8 THEN excluded.public ELSE sites.public END",
        )
        .await?;
    for s in sites {
        tx.execute(
            &stmt,
            &[
                &s.id,
                &s.name,
                &s.country,
                &s.water_body_type,
                &s.latitude,
                &s.longitude,
                &s.public,
                &sets_public,
            ],
        )
        .await?;
    }
    Ok(())
}

/// One multi-row insert through `unnest` of column arrays.
async fn insert_observations(
    tx: &deadpool_postgres::Transaction<'_>,
    rows: &[NewObservation],
) -> anyhow::Result<()> {
    let id: Vec<i64> = rows.iter().map(|o| o.id).collect();
    let site: Vec<&str> = rows.iter().map(|o| o.site_id.as_str()).collect();
    let at: Vec<i64> = rows.iter().map(|o| o.observed_at).collect();
    let parameter: Vec<&str> = rows.iter().map(|o| o.parameter.as_str()).collect();
    let value: Vec<f64> = rows.iter().map(|o| o.value).collect();
    let unit: Vec<&str> = rows.iter().map(|o| o.unit.as_str()).collect();
    let method: Vec<&str> = rows.iter().map(|o| o.method.as_str()).collect();
    let flag: Vec<&str> = rows.iter().map(|o| o.quality_flag.as_str()).collect();
    let volunteer: Vec<Option<i64>> = rows.iter().map(|o| o.volunteer_id).collect();
    tx.execute(
        "INSERT INTO observations (id, site_id, observed_at, parameter, value, unit, method, \
         quality_flag, volunteer_id) SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], \
         $3::BIGINT[], $4::TEXT[], $5::DOUBLE PRECISION[], $6::TEXT[], $7::TEXT[], $8::TEXT[], \
         $9::BIGINT[])",
        &[
            &id, &site, &at, &parameter, &value, &unit, &method, &flag, &volunteer,
        ],
    )
    .await?;
    Ok(())
}

fn pg_params(args: Vec<Arg>) -> Vec<Param> {
    args.into_iter()
        .map(|a| -> Param {
            match a {
                Arg::Text(s) => Box::new(s),
                Arg::Int(i) => Box::new(i),
                Arg::Real(f) => Box::new(f),
            }
        })
        .collect()
}
