//! Live data storage: one small interface ([`Store`]) over two backends.
//!
//! SQLite ([`sqlite`], a file in the data directory) is the embedded default
//! for a single machine; PostgreSQL ([`postgres`], by URL) is what several
//! sidecar replicas share. Both run the same versioned migrations (embedded
//! SQL under `migrations/`, applied on open) and answer the same queries, so
//! one integration suite runs against both.
//!
//! The schema holds what the organisation's platforms hold:
//! - `sites`: monitoring sites (name, ISO country, water-body type, exact
//!   WGS 84 location, whether public);
//! - `observations`: volunteer measurements from the app (site, time as Unix
//!   seconds UTC, parameter, value, unit, method, quality flag; the source
//!   and the source's row id that make imports repeatable, and whether a
//!   correction withdrew it: withdrawn rows stay, unpublished);
//! - `volunteers`, `projects`, `classifications`: counted for the platform
//!   statistics only, without any personal data.
//!
//! Exact coordinates stay in the database; the publishing layer
//! ([`crate::live`]) coarsens them ([`published::coarsen`]), and location
//! filters match the coarsened values, never the exact ones
//! ([`published`] says how).

pub mod contact;
pub mod import;
pub mod migrate;
pub mod outbox_stats;
pub mod postgres;
pub mod private;
pub mod published;
pub mod rfc3339;
pub mod sample;
pub mod sqlite;
pub mod upgrade;

use std::path::Path;

pub use sample::SampleSize;

/// The observation vocabulary is the contract's.
pub use contract::vocabulary::{PARAMETER_NAMES as PARAMETERS, QUALITY_FLAGS, WATER_BODY_TYPES};

/// A monitoring site, as stored (exact location).
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    pub id: String,
    pub name: String,
    pub country: String,
    pub water_body_type: String,
    pub latitude: f64,
    pub longitude: f64,
    pub public: bool,
}

/// An observation to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewObservation {
    pub id: i64,
    pub site_id: String,
    pub observed_at: i64,
    pub parameter: String,
    pub value: f64,
    pub unit: String,
    pub method: String,
    pub quality_flag: String,
    pub volunteer_id: Option<i64>,
    /// The export it came from (`None`: the sample data, or an import from
    /// before schema version 3); with `source_id`, or the natural key (site,
    /// parameter, time) when that is `None`, it names the row for repeated
    /// imports and corrections.
    pub source: Option<String>,
    pub source_id: Option<String>,
}

/// What an import row does with its observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Adds it, unless an observation with its key is already there.
    Add,
    /// Withdraws the observation with its key from every public read.
    Withdraw,
    /// Replaces the value, unit, method and quality flag of the observation
    /// with its key (and publishes it again if it was withdrawn).
    Replace,
}

/// One validated row of an import, with the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportRow {
    pub line: u64,
    pub action: Action,
    pub observation: NewObservation,
}

/// A validated import: the sites it names and its rows, written in one
/// transaction by [`Store::apply`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportBatch {
    pub sites: Vec<Site>,
    /// Whether the file said which sites are public (`site_public`); without
    /// it, new sites are public and known ones keep their setting.
    pub sets_public: bool,
    pub rows: Vec<ImportRow>,
}

/// What an import changed; a repeated import reports only `unchanged`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied {
    pub added: u64,
    pub withdrawn: u64,
    pub replaced: u64,
    /// Rows whose observation was already as the row says.
    pub unchanged: u64,
    pub sites: u64,
}

/// A classification from a platform's export, keyed by the project and
/// the platform's own id.
#[derive(Debug, Clone, PartialEq)]
pub struct NewClassification {
    pub project_id: String,
    pub project_name: String,
    pub source_id: String,
    pub created_at: i64,
}

/// Where the configuration puts the database.
pub enum Location<'a> {
    Postgres(&'a str),
    Sqlite(std::path::PathBuf),
}

impl Location<'_> {
    pub fn of<'a>(database_url: Option<&'a str>, data_dir: &Path) -> anyhow::Result<Location<'a>> {
        Ok(match database_url {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Location::Postgres(url)
            }
            Some(url) => {
                let path = url
                    .strip_prefix("sqlite://")
                    .or_else(|| url.strip_prefix("sqlite:"))
                    .ok_or_else(|| anyhow::anyhow!("unsupported database URL {url:?}"))?;
                Location::Sqlite(path.into())
            }
            None => Location::Sqlite(data_dir.join("service.sqlite3")),
        })
    }
}

/// One public observation with its site, as read (exact location).
#[derive(Debug, Clone, PartialEq)]
pub struct ObservationRow {
    pub id: i64,
    pub site_id: String,
    pub site_name: String,
    pub country: String,
    pub water_body_type: String,
    pub observed_at: i64,
    pub parameter: String,
    pub value: f64,
    pub unit: String,
    pub method: String,
    pub quality_flag: String,
    pub latitude: f64,
    pub longitude: f64,
}

/// Filters of an observation page. Rows come newest first, ordered by
/// `(observed_at, id)` descending; `before` is the keyset of the last row of
/// the previous page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObservationFilter {
    pub parameter: Option<String>,
    pub site: Option<String>,
    /// Only sites in this country (ISO 3166-1 alpha-2).
    pub country: Option<String>,
    /// Inclusive lower bound, Unix seconds.
    pub from: Option<i64>,
    /// Exclusive upper bound, Unix seconds.
    pub until: Option<i64>,
    /// `[min_lon, min_lat, max_lon, max_lat]`, matched on the published
    /// (coarsened) location, as a response shows it.
    pub bbox: Option<[f64; 4]>,
    /// Only the observation with this id.
    pub id: Option<i64>,
    pub before: Option<(i64, i64)>,
    pub limit: u32,
}

/// The raw counts behind the platform statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub volunteers: i64,
    pub observations: i64,
    pub sites: i64,
    pub countries: i64,
    pub classifications: i64,
    pub classification_projects: i64,
    pub projects: i64,
    pub observations_since: i64,
    pub latest_observation_at: Option<i64>,
}

/// Per-month counts in `[from, to)`, each as `("YYYY-MM" in UTC, count)`,
/// months without rows absent, in no particular order: public, not
/// withdrawn observations by the time they were taken, and classifications
/// by the time they were made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MonthCounts {
    pub observations: Vec<(String, i64)>,
    pub classifications: Vec<(String, i64)>,
}

/// One public site with the aggregate of its observations.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteSummary {
    pub site: Site,
    pub observations: i64,
    pub first_observed_at: i64,
    pub latest_observed_at: i64,
    pub parameters: Vec<String>,
}

/// The live-data store: SQLite or PostgreSQL. Cheap to clone (both hold
/// their pools behind `Arc`s).
#[derive(Clone)]
pub enum Store {
    Sqlite(sqlite::SqliteStore),
    Postgres(postgres::PgStore),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Store::Sqlite(_) => "Store::Sqlite",
            Store::Postgres(_) => "Store::Postgres",
        })
    }
}

impl Store {
    /// Opens the store the configuration names: PostgreSQL for a
    /// `postgres://`/`postgresql://` URL, the SQLite file of a `sqlite:PATH`
    /// URL, or `data_dir/service.sqlite3` (created, in a directory created
    /// private when missing: [`private`]) when there is no URL.
    /// Applies pending migrations, then fills in the sample data set of
    /// `sample` when the database holds no observations yet.
    pub async fn open(
        database_url: Option<&str>,
        data_dir: &Path,
        sample: SampleSize,
    ) -> anyhow::Result<Store> {
        let store = match Location::of(database_url, data_dir)? {
            Location::Postgres(url) => Store::Postgres(postgres::PgStore::open(url, None).await?),
            Location::Sqlite(path) => {
                if database_url.is_none() {
                    private::create_dir(data_dir)?;
                }
                Store::Sqlite(sqlite::SqliteStore::open(&path).await?)
            }
        };
        store.fill_sample(sample).await?;
        Ok(store)
    }

    /// Fills in the sample data set when the database has no observations
    /// (a no-op for [`SampleSize::None`]). Returns whether it did.
    pub async fn fill_sample(&self, sample: SampleSize) -> anyhow::Result<bool> {
        if sample == SampleSize::None || self.observation_count().await? > 0 {
            return Ok(false);
        }
        let data = sample::Sample::new(sample, sample::default_end());
        match self {
            Store::Sqlite(s) => s.insert_sample(data).await?,
            Store::Postgres(s) => s.insert_sample(data).await?,
        }
        Ok(true)
    }

    /// Whether the database answers (for `/readyz`).
    pub async fn ping(&self) -> anyhow::Result<()> {
        match self {
            Store::Sqlite(s) => s.ping().await,
            Store::Postgres(s) => s.ping().await,
        }
    }

    pub async fn observation_count(&self) -> anyhow::Result<i64> {
        match self {
            Store::Sqlite(s) => s.observation_count().await,
            Store::Postgres(s) => s.observation_count().await,
        }
    }

    /// The counts of the platform statistics; `since` bounds
    /// `observations_since` (Unix seconds).
    pub async fn counts(&self, since: i64) -> anyhow::Result<Counts> {
        match self {
            Store::Sqlite(s) => s.counts(since).await,
            Store::Postgres(s) => s.counts(since).await,
        }
    }

    /// Observations and classifications per UTC month, in `[from, to)`.
    pub async fn month_counts(&self, from: i64, to: i64) -> anyhow::Result<MonthCounts> {
        match self {
            Store::Sqlite(s) => s.month_counts(from, to).await,
            Store::Postgres(s) => s.month_counts(from, to).await,
        }
    }

    /// One page of public observations, at most `filter.limit` rows.
    pub async fn observations(
        &self,
        filter: &ObservationFilter,
    ) -> anyhow::Result<Vec<ObservationRow>> {
        match self {
            Store::Sqlite(s) => s.observations(filter).await,
            Store::Postgres(s) => s.observations(filter).await,
        }
    }

    /// Every public site that has observations, with their aggregate.
    pub async fn site_summaries(&self) -> anyhow::Result<Vec<SiteSummary>> {
        match self {
            Store::Sqlite(s) => s.site_summaries().await,
            Store::Postgres(s) => s.site_summaries().await,
        }
    }

    /// Inserts or updates `sites` and adds `observations` in one
    /// transaction (see [`Store::apply`]); returns how many were added.
    pub async fn import(
        &self,
        sites: Vec<Site>,
        observations: Vec<NewObservation>,
    ) -> anyhow::Result<u64> {
        let rows = observations
            .into_iter()
            .map(|observation| ImportRow {
                line: 0,
                action: Action::Add,
                observation,
            })
            .collect();
        let batch = ImportBatch {
            sites,
            sets_public: true,
            rows,
        };
        Ok(self.apply(batch).await?.added)
    }

    /// Writes a validated import in one transaction: sites are inserted or
    /// updated, each row adds (ids after the current largest), withdraws
    /// or replaces its observation. A withdrawal or replacement of an
    /// observation that is not there fails the whole import with an
    /// [`import::ImportError::Row`] naming the row's line.
    pub async fn apply(&self, batch: ImportBatch) -> anyhow::Result<Applied> {
        match self {
            Store::Sqlite(s) => s.apply(batch).await,
            Store::Postgres(s) => s.apply(batch).await,
        }
    }

    /// Adds classifications (and their projects) in one transaction, except
    /// those already there; returns how many were added.
    pub async fn import_classifications(
        &self,
        rows: Vec<NewClassification>,
    ) -> anyhow::Result<u64> {
        match self {
            Store::Sqlite(s) => s.import_classifications(rows).await,
            Store::Postgres(s) => s.import_classifications(rows).await,
        }
    }
}

/// A bound value of a generated query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Arg {
    Text(String),
    Int(i64),
    Real(f64),
}

/// The observation page query, shared by both backends: `placeholder(n)`
/// spells the n-th (1-based) bind parameter.
pub(crate) fn observation_query(
    filter: &ObservationFilter,
    placeholder: impl Fn(usize) -> String,
) -> (String, Vec<Arg>) {
    let mut sql = String::from(
        "SELECT o.id, o.site_id, s.name, s.country, s.water_body_type, o.observed_at, \
         o.parameter, o.value, o.unit, o.method, o.quality_flag, s.latitude, s.longitude \
         FROM observations o JOIN sites s ON s.id = o.site_id \
         WHERE s.public = TRUE AND o.withdrawn = FALSE",
    );
    let mut args = Vec::new();
    let mut bind = |sql: &mut String, clause: &str, arg: Arg| {
        args.push(arg);
        sql.push_str(&clause.replace('?', &placeholder(args.len())));
    };
    if let Some(p) = &filter.parameter {
        bind(&mut sql, " AND o.parameter = ?", Arg::Text(p.clone()));
    }
    if let Some(site) = &filter.site {
        bind(&mut sql, " AND o.site_id = ?", Arg::Text(site.clone()));
    }
    if let Some(country) = &filter.country {
        bind(&mut sql, " AND s.country = ?", Arg::Text(country.clone()));
    }
    if let Some(id) = filter.id {
        bind(&mut sql, " AND o.id = ?", Arg::Int(id));
    }
    if let Some(from) = filter.from {
        bind(&mut sql, " AND o.observed_at >= ?", Arg::Int(from));
    }
    if let Some(until) = filter.until {
        bind(&mut sql, " AND o.observed_at < ?", Arg::Int(until));
    }
    if let Some([min_lon, min_lat, max_lon, max_lat]) = filter.bbox {
        // The box is on published locations: compare the exact ones with the
        // ends of the exact ranges that publish inside it.
        let lon = published::exact_range(min_lon, max_lon);
        let lat = published::exact_range(min_lat, max_lat);
        match lon.zip(lat) {
            Some(((lon_lo, lon_hi), (lat_lo, lat_hi))) => {
                bind(&mut sql, " AND s.longitude >= ?", Arg::Real(lon_lo));
                bind(&mut sql, " AND s.latitude >= ?", Arg::Real(lat_lo));
                bind(&mut sql, " AND s.longitude <= ?", Arg::Real(lon_hi));
                bind(&mut sql, " AND s.latitude <= ?", Arg::Real(lat_hi));
            }
            None => sql.push_str(" AND FALSE"),
        }
    }
    if let Some((at, id)) = filter.before {
        // A row-value comparison, which both planners turn into an index range.
        bind(&mut sql, " AND (o.observed_at, o.id) < (?", Arg::Int(at));
        bind(&mut sql, ", ?)", Arg::Int(id));
    }
    sql.push_str(" ORDER BY o.observed_at DESC, o.id DESC LIMIT ");
    sql.push_str(&filter.limit.to_string());
    (sql, args)
}

/// Groups `(site, parameter, count, latest)` rows (ordered by site) into
/// site summaries.
pub(crate) fn summarise(
    sites: Vec<Site>,
    groups: Vec<(String, String, i64, i64, i64)>,
) -> Vec<SiteSummary> {
    let mut by_id: std::collections::BTreeMap<String, SiteSummary> = sites
        .into_iter()
        .map(|site| {
            (
                site.id.clone(),
                SiteSummary {
                    site,
                    observations: 0,
                    first_observed_at: i64::MAX,
                    latest_observed_at: i64::MIN,
                    parameters: Vec::new(),
                },
            )
        })
        .collect();
    for (site, parameter, count, first, latest) in groups {
        if let Some(s) = by_id.get_mut(&site) {
            s.observations += count;
            s.first_observed_at = s.first_observed_at.min(first);
            s.latest_observed_at = s.latest_observed_at.max(latest);
            s.parameters.push(parameter);
        }
    }
    by_id
        .into_values()
        .filter(|s| s.observations > 0)
        .map(|mut s| {
            s.parameters.sort();
            s
        })
        .collect()
}
