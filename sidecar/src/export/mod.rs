//! `sidecar export --to DIR`: a citable snapshot of the public live data,
//! for `generate build --snapshots DIR` to publish as static files.
//!
//! The rows are read through the store's published queries, the ones the
//! live routes answer from (public sites only, withdrawn observations
//! left out), and the coordinates are coarsened with the same
//! [`coarsen`] — a snapshot never publishes more than the API does. The
//! observations and the site summaries are two queries; the export reads
//! the summaries again after the observations and starts over when an
//! import changed anything in between, so the files agree with each other
//! as one state of the database.
//!
//! Everything is rendered in memory, written into a hidden folder beside
//! the target and renamed into place once complete, so a failed export
//! leaves nothing behind and an existing version is never overwritten.
//! The same data gives the same bytes, the dates of the export apart.

mod citation;
mod tables;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use contract::service::ServiceInformation;
use contract::snapshot;

use crate::config::ExportArgs;
use crate::live::{Licence, LiveConfig};
use crate::store::published::coarsen;
use crate::store::{Location, ObservationFilter, ObservationRow, SampleSize, SiteSummary, Store};

/// Who publishes the data and under which terms, from the built site.
#[derive(Debug, Clone)]
pub struct About {
    /// The organisation: creator and publisher of the snapshot.
    pub publisher: String,
    /// The organisation's home page.
    pub home: String,
    /// The site origin the snapshot will be published under, when known.
    pub site_origin: Option<String>,
    pub licence: Licence,
    pub attribution: String,
}

/// One snapshot as it is rendered.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub version: String,
    /// The latest snapshot already in the folder, which this one follows.
    pub previous: Option<String>,
    /// The export's date, `YYYY-MM-DD` (UTC).
    pub issued: String,
    /// The export's time, RFC 3339 (UTC).
    pub created: String,
    pub about: About,
    /// Published (coarsened) rows, by id.
    pub observations: Vec<ObservationRow>,
    /// Published (coarsened) sites, by id.
    pub sites: Vec<SiteSummary>,
}

impl Snapshot {
    pub fn title(&self) -> String {
        format!("Public water observations of {}", self.about.publisher)
    }

    /// What the snapshot holds, in a paragraph.
    pub fn description(&self) -> String {
        format!(
            "Every public water-quality observation of {} and its monitoring sites, as \
             published by its open-data API on {}: {} observations at {} sites. Locations are \
             rounded to {} decimal places (about 1 km); private sites are left out.",
            self.about.publisher,
            self.issued,
            self.observations.len(),
            self.sites.len(),
            contract::observations::PRECISION_DECIMALS
        )
    }

    /// The URL the snapshot's folder is published at, when the origin is
    /// known.
    pub fn url(&self) -> Option<String> {
        self.about.site_origin.as_ref().map(|origin| {
            format!(
                "{}/{}/{}/",
                origin.trim_end_matches('/'),
                snapshot::SITE_FOLDER,
                self.version
            )
        })
    }
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub dir: PathBuf,
    pub observations: usize,
    pub sites: usize,
}

/// `sidecar export`: checks the flags, reads the built site and the
/// database, writes the snapshot.
pub fn run(args: &ExportArgs) -> anyhow::Result<Report> {
    let now = crate::live::now();
    let version = match &args.version {
        Some(v) => v.clone(),
        None => crate::store::rfc3339::format_rfc3339(now)[..10].to_owned(),
    };
    check_target(&args.to, &version)?;
    if let Location::Sqlite(path) = Location::of(args.db.database.as_deref(), &args.db.data_dir)? {
        // Opening would create an empty database; an export reads one.
        if !path.is_file() {
            bail!("no SQLite database at {}", path.display());
        }
    }
    let about = about(&args.dist)?;
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let store = Store::open(
                args.db.database.as_deref(),
                &args.db.data_dir,
                SampleSize::None,
            )
            .await?;
            export(&store, about, &args.to, &version, now).await
        })
}

/// Reads the public data from `store` and writes it as snapshot `version`
/// under `to`, dated `now` (Unix seconds).
pub async fn export(
    store: &Store,
    about: About,
    to: &Path,
    version: &str,
    now: i64,
) -> anyhow::Result<Report> {
    check_target(to, version)?;
    let (observations, sites) = read(store).await?;
    if observations.is_empty() {
        bail!("the database holds no public observations: nothing to export");
    }
    let created = crate::store::rfc3339::format_rfc3339(now);
    let snapshot = Snapshot {
        version: version.to_owned(),
        previous: latest(to),
        issued: created[..10].to_owned(),
        created,
        about,
        observations,
        sites,
    };
    let files = render(&snapshot)?;
    let dir = write(to, version, &files)?;
    Ok(Report {
        dir,
        observations: snapshot.observations.len(),
        sites: snapshot.sites.len(),
    })
}

/// Refuses a version that is no safe folder name, or already written.
fn check_target(to: &Path, version: &str) -> anyhow::Result<()> {
    if !snapshot::valid_version(version) {
        bail!(
            "--version {version:?}: expected 1 to {} letters, digits, '.', '_' or '-', \
             starting with a letter or digit",
            snapshot::VERSION_MAX
        );
    }
    let dir = to.join(version);
    if dir.symlink_metadata().is_ok() {
        bail!(
            "{} exists: a published version is never overwritten (choose another --version)",
            dir.display()
        );
    }
    Ok(())
}

/// The version of the latest snapshot under `to` (by issue date, then
/// name), read from the metadata of each.
fn latest(to: &Path) -> Option<String> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(to)
        .ok()?
        .filter_map(|e| {
            let meta = std::fs::read(e.ok()?.path().join(snapshot::DATACITE)).ok()?;
            let meta: snapshot::DataCite = serde_json::from_slice(&meta).ok()?;
            Some((meta.issued()?.to_owned(), meta.version))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, version)| version)
}

/// The publisher, licence and attribution the live routes use, from
/// `dist/api/service.json`, and the site origin from the manifest.
pub fn about(dist: &Path) -> anyhow::Result<About> {
    let path = dist.join("api/service.json");
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "reading {} (the built site names the publisher and the licence)",
            path.display()
        )
    })?;
    let service: ServiceInformation = serde_json::from_str(&text)
        .with_context(|| format!("{} is not service information", path.display()))?;
    let live = LiveConfig::default().with_service_information(&service);
    let manifest = dist.join(contract::manifest::MANIFEST_FILE);
    let site_origin = std::fs::read(&manifest)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|m| m.get("site_origin")?.as_str().map(str::to_owned));
    Ok(About {
        publisher: service.name.clone(),
        home: service.url.to_string(),
        site_origin,
        licence: live.licence,
        attribution: live.attribution,
    })
}

/// Reads how many times at most before giving up on a database that keeps
/// changing.
const READ_ATTEMPTS: usize = 3;

/// Every public observation and site, published as the live routes
/// publish them (coarsened), sorted by id.
pub async fn read(store: &Store) -> anyhow::Result<(Vec<ObservationRow>, Vec<SiteSummary>)> {
    let all = ObservationFilter {
        limit: u32::MAX,
        ..ObservationFilter::default()
    };
    for _ in 0..READ_ATTEMPTS {
        let sites = store.site_summaries().await?;
        let mut rows = store.observations(&all).await?;
        if store.site_summaries().await? != sites || !agree(&rows, &sites) {
            continue;
        }
        rows.sort_by_key(|r| r.id);
        for r in &mut rows {
            r.latitude = coarsen(r.latitude);
            r.longitude = coarsen(r.longitude);
        }
        let mut sites = sites;
        sites.sort_by(|a, b| a.site.id.cmp(&b.site.id));
        for s in &mut sites {
            s.site.latitude = coarsen(s.site.latitude);
            s.site.longitude = coarsen(s.site.longitude);
        }
        return Ok((rows, sites));
    }
    bail!("the public data changed while it was read, {READ_ATTEMPTS} times (an import running?)")
}

/// Whether the observations are those the site summaries count.
fn agree(rows: &[ObservationRow], sites: &[SiteSummary]) -> bool {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for r in rows {
        *counts.entry(&r.site_id).or_default() += 1;
    }
    counts.len() == sites.len()
        && sites
            .iter()
            .all(|s| counts.get(s.site.id.as_str()) == Some(&s.observations))
}

/// Every file of the snapshot, the checksum list last.
pub fn render(s: &Snapshot) -> anyhow::Result<Vec<(&'static str, Vec<u8>)>> {
    let mut files = vec![
        (snapshot::OBSERVATIONS_CSV, tables::observations_csv(s)),
        (snapshot::SITES_CSV, tables::sites_csv(s)),
        (snapshot::SITES_GEOJSON, tables::sites_geojson(s)?),
    ];
    files.push((snapshot::DATAPACKAGE, tables::datapackage(s, &files)?));
    files.push((snapshot::README, citation::readme(s).into_bytes()));
    files.push((snapshot::LICENSE, citation::licence(s).into_bytes()));
    files.push((snapshot::CITATION_CFF, citation::cff(s).into_bytes()));
    files.push((snapshot::DATACITE, citation::datacite_json(s)?));
    let sums = citation::checksums(&files);
    files.push((snapshot::CHECKSUMS, sums.into_bytes()));
    Ok(files)
}

/// Writes `files` into `to/.version.partial-PID`, then renames it to
/// `to/version`; removes the partial folder on any failure.
fn write(to: &Path, version: &str, files: &[(&str, Vec<u8>)]) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let partial = to.join(format!(".{version}.partial-{}", std::process::id()));
    let dir = to.join(version);
    let written = (|| {
        std::fs::create_dir(&partial).with_context(|| format!("creating {}", partial.display()))?;
        for (name, bytes) in files {
            let path = partial.join(name);
            std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        }
        // Durable before it is visible under its name.
        for (name, _) in files {
            std::fs::File::open(partial.join(name))?.sync_all()?;
        }
        check_target(to, version)?;
        std::fs::rename(&partial, &dir)
            .with_context(|| format!("renaming {} to {}", partial.display(), dir.display()))?;
        // The rename itself durable too.
        std::fs::File::open(to)?.sync_all()?;
        Ok(dir.clone())
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&partial);
    }
    written
}
