//! Citable data snapshots (`generate build --snapshots DIR`): each folder
//! `DIR/VERSION/` that `sidecar export` wrote is published unchanged under
//! `/snapshots/VERSION/`, so its files are in the manifest like every
//! other file, and listed on the page whose front matter says
//! `template = "open-data.html"` (as the `snapshots` context variable, and
//! as a table appended to its Markdown twin).
//!
//! A snapshot is published only whole and unchanged: every file but the
//! checksum list must be in `SHA256SUMS` with the SHA-256 of its bytes,
//! every file there must exist, and the DataCite metadata must name the
//! folder's version. A build refuses anything else rather than publish a
//! citation whose files differ from what was cited.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use contract::snapshot::{self, DataCite};
use serde::Serialize;

use crate::archive::size_text;
use crate::manifest::{content_type, sha256_hex};

/// Template that receives the listing as `snapshots`.
pub const TEMPLATE: &str = "open-data.html";

/// One published file of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotFile {
    pub name: String,
    /// Site path of the download.
    pub url: String,
    pub size: u64,
    pub size_text: String,
    pub sha256: String,
    pub media_type: String,
}

/// One snapshot as the data page lists it.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub version: String,
    /// Issue date, `YYYY-MM-DD`.
    pub issued: String,
    /// Site path of its folder.
    pub url: String,
    /// Row counts in words (`1234 observations`, `56 sites`).
    pub sizes: Vec<String>,
    /// The time span of the observations (`first to last`), when stated.
    pub collected: Option<String>,
    /// The facts of its data, as its DataCite metadata states them.
    pub facts: DataFacts,
    pub citation: String,
    pub licence_id: String,
    pub licence_title: String,
    pub licence_url: String,
    pub files: Vec<SnapshotFile>,
}

/// What a snapshot's data hold, read from the DataCite metadata the export
/// computed from the rows: the facts the open-data catalogue states
/// (decision 0215).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DataFacts {
    /// Day of the first and of the last observation, `YYYY-MM-DD`.
    pub first: Option<String>,
    pub last: Option<String>,
    pub observations: Option<u64>,
    pub sites: Option<u64>,
    /// West, south, east, north in degrees (WGS 84): the box around the
    /// published site locations.
    pub bbox: Option<[f64; 4]>,
    /// The same four numbers as the Markdown twin and the catalogue write
    /// them (`51`, not `51.0`), for the page.
    pub bbox_text: Option<[String; 4]>,
    /// The countries of the published sites, ISO 3166-1 alpha-2 codes in
    /// alphabetical order, read from the snapshot's `sites.geojson` (empty
    /// when the snapshot has no such file).
    pub countries: Vec<String>,
}

impl DataFacts {
    fn of(meta: &DataCite) -> Self {
        let (first, last) = meta
            .dates
            .iter()
            .find(|d| d.date_type == "Collected")
            .and_then(|d| d.date.split_once('/'))
            .map_or((None, None), |(a, b)| {
                (Some(a.to_owned()), Some(b.to_owned()))
            });
        let count = |unit: &str| {
            meta.sizes.iter().find_map(|s| {
                let (n, u) = s.split_once(' ')?;
                (u == unit).then(|| n.parse().ok()).flatten()
            })
        };
        let bbox = meta.geo_locations.first().map(|g| {
            let b = &g.geo_location_box;
            [
                b.west_bound_longitude,
                b.south_bound_latitude,
                b.east_bound_longitude,
                b.north_bound_latitude,
            ]
        });
        DataFacts {
            first,
            last,
            observations: count("observations"),
            sites: count("sites"),
            bbox,
            bbox_text: bbox.map(|b| b.map(|x| x.to_string())),
            countries: Vec::new(),
        }
    }

    /// The facts of a snapshot from its two files: the DataCite record and,
    /// when there is one, the sites as GeoJSON (for the countries).
    pub fn read(datacite: &[u8], sites: Option<&[u8]>) -> Result<Self> {
        let meta: DataCite = serde_json::from_slice(datacite)?;
        let mut facts = Self::of(&meta);
        if let Some(sites) = sites {
            facts.countries = countries_of(sites)?;
        }
        Ok(facts)
    }

    /// `39670 observations at 396 sites, taken from 2020-07-02 to
    /// 2024-06-30` (what is known of it).
    pub fn sentence(&self) -> String {
        let mut s = match (self.observations, self.sites) {
            (Some(o), Some(n)) => format!("{o} observations at {n} sites"),
            (Some(o), None) => format!("{o} observations"),
            (None, Some(n)) => format!("{n} sites"),
            (None, None) => String::new(),
        };
        if let (Some(a), Some(b)) = (&self.first, &self.last) {
            if !s.is_empty() {
                s.push_str(", ");
            }
            let _ = write!(s, "taken from {a} to {b}");
        }
        s
    }
}

/// The distinct `country` properties of a GeoJSON feature collection,
/// upper-cased and sorted.
fn countries_of(geojson: &[u8]) -> Result<Vec<String>> {
    #[derive(serde::Deserialize)]
    struct Collection {
        features: Vec<Feature>,
    }
    #[derive(serde::Deserialize)]
    struct Feature {
        properties: Properties,
    }
    #[derive(serde::Deserialize)]
    struct Properties {
        country: String,
    }
    let doc: Collection = serde_json::from_slice(geojson).context(
        "sites.geojson: expected a feature collection whose features name their country",
    )?;
    let mut codes: Vec<String> = doc
        .features
        .into_iter()
        .map(|f| f.properties.country.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty())
        .collect();
    codes.sort();
    codes.dedup();
    Ok(codes)
}

/// Every snapshot, newest first, with the bytes to publish.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Snapshots {
    pub snapshots: Vec<Snapshot>,
    #[serde(skip)]
    pub files: Vec<(String, Vec<u8>)>,
}

/// Reads and checks the snapshots under `dir` (none without a folder).
pub fn load(dir: Option<&Path>) -> Result<Snapshots> {
    let Some(dir) = dir else {
        return Ok(Snapshots::default());
    };
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("--snapshots {}", dir.display()))?;
    let mut out = Snapshots::default();
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // An export still being written (or abandoned) is hidden.
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        if !path.is_dir() || !snapshot::valid_version(&name) {
            bail!(
                "{}: expected only snapshot folders named by their version (sidecar export)",
                path.display()
            );
        }
        let (s, files) = one(&path, &name)?;
        out.snapshots.push(s);
        out.files.extend(files);
    }
    out.snapshots.sort_by(|a, b| {
        (b.issued.as_str(), b.version.as_str()).cmp(&(a.issued.as_str(), a.version.as_str()))
    });
    out.files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

type Published = Vec<(String, Vec<u8>)>;

/// One snapshot folder, checked against its checksum list.
fn one(dir: &Path, version: &str) -> Result<(Snapshot, Published)> {
    let mut bytes: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !path.is_file() || name.starts_with('.') {
            bail!("{}: expected only the files of a snapshot", path.display());
        }
        let read = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        bytes.insert(name, read);
    }
    let sums = bytes
        .get(snapshot::CHECKSUMS)
        .with_context(|| format!("{}: no {}", dir.display(), snapshot::CHECKSUMS))?;
    let sums = std::str::from_utf8(sums).context("SHA256SUMS is not UTF-8")?;
    let mut listed: BTreeMap<&str, &str> = BTreeMap::new();
    for line in sums.lines() {
        let (hash, name) = line
            .split_once("  ")
            .with_context(|| format!("{}/SHA256SUMS: bad line {line:?}", dir.display()))?;
        listed.insert(name, hash);
    }
    for (name, b) in &bytes {
        if name == snapshot::CHECKSUMS {
            continue;
        }
        match listed.get(name.as_str()) {
            Some(hash) if *hash == sha256_hex(b) => {}
            Some(_) => bail!(
                "{}/{name}: its SHA-256 is not the one SHA256SUMS lists (the file changed after the export)",
                dir.display()
            ),
            None => bail!("{}/{name}: not listed in SHA256SUMS", dir.display()),
        }
    }
    if let Some(missing) = listed.keys().find(|n| !bytes.contains_key(**n)) {
        bail!(
            "{}/{missing}: listed in SHA256SUMS but missing",
            dir.display()
        );
    }
    let record = bytes
        .get(snapshot::DATACITE)
        .with_context(|| format!("{}: no {}", dir.display(), snapshot::DATACITE))?;
    let meta: DataCite = serde_json::from_slice(record)
        .with_context(|| format!("{}/{}", dir.display(), snapshot::DATACITE))?;
    let sites = bytes.get(snapshot::SITES_GEOJSON).map(Vec::as_slice);
    let facts = DataFacts::read(record, sites).with_context(|| dir.display().to_string())?;
    if meta.version != version {
        bail!(
            "{}: datacite.json names version {:?}, the folder {version:?}",
            dir.display(),
            meta.version
        );
    }
    let folder = format!("{}/{version}/", snapshot::SITE_FOLDER);
    let mut files: Vec<SnapshotFile> = bytes
        .iter()
        .map(|(name, b)| SnapshotFile {
            name: name.clone(),
            url: format!("/{folder}{name}"),
            size: b.len() as u64,
            size_text: size_text(b.len() as u64),
            sha256: sha256_hex(b),
            media_type: content_type(name).to_owned(),
        })
        .collect();
    let order = |n: &str| snapshot::FILES.iter().position(|f| *f == n);
    files.sort_by(|a, b| (order(&a.name), &a.name).cmp(&(order(&b.name), &b.name)));
    let rights = meta.rights_list.first();
    let s = Snapshot {
        version: version.to_owned(),
        issued: meta.issued().unwrap_or_default().to_owned(),
        url: format!("/{folder}"),
        sizes: meta.sizes.clone(),
        collected: meta
            .dates
            .iter()
            .find(|d| d.date_type == "Collected")
            .map(|d| d.date.replace('/', " to ")),
        facts,
        citation: meta.citation(),
        licence_id: rights
            .map(|r| r.rights_identifier.clone())
            .unwrap_or_default(),
        licence_title: rights.map(|r| r.rights.clone()).unwrap_or_default(),
        licence_url: rights.map(|r| r.rights_uri.clone()).unwrap_or_default(),
        files,
    };
    let published = bytes
        .into_iter()
        .map(|(name, b)| (format!("{folder}{name}"), b))
        .collect();
    Ok((s, published))
}

impl Snapshots {
    /// The table appended to the data page's Markdown twin.
    pub fn markdown(&self, base_url: &str) -> String {
        let mut s = String::from("\n\n## Citable snapshots\n\n");
        if self.snapshots.is_empty() {
            s.push_str("No snapshot has been published yet.\n");
            return s;
        }
        if let Some(newest) = self.snapshots.first()
            && let Some([w, so, e, n]) = newest.facts.bbox
        {
            let _ = writeln!(
                s,
                "The newest snapshot, version {} (issued {}), holds {}, within longitudes {w} to {e} \
                 and latitudes {so} to {n}. The open-data catalogue states the same figures.\n",
                newest.version,
                newest.issued,
                newest.facts.sentence(),
            );
        }
        for snap in &self.snapshots {
            let _ = writeln!(
                s,
                "### Version {} ({})\n\n{}. Licence: {} ({}).\n\nCite as: {}\n\n| File | Size | SHA-256 |\n|---|---|---|",
                snap.version,
                snap.issued,
                snap.sizes.join(", "),
                snap.licence_title,
                snap.licence_id,
                snap.citation
            );
            for f in &snap.files {
                let _ = writeln!(
                    s,
                    "| [{}]({base_url}{}) | {} | `{}` |",
                    f.name, f.url, f.size_text, f.sha256
                );
            }
            s.push('\n');
        }
        s
    }
}
