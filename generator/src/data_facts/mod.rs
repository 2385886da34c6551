//! Facts about the observation data on pages (decision 0245): the `data`
//! shortcode renders them from the newest citable snapshot of the build,
//! and `generate check` holds what pages and the service information say
//! about the data against the same snapshot, as the build published it.

use std::path::Path;

use anyhow::{Context, Result};
use minijinja::Value;
use minijinja::value::Serde;
use serde::Serialize;

use crate::data_snapshots::{DataFacts, Snapshot};
use crate::manifest::Manifest;

pub mod claims;
pub mod countries;

/// Where a page without facts sends its reader for the current figures.
pub const STATISTICS_PAGE: &str = "/docs/data/statistics/";

/// Where the snapshots a fact comes from are listed.
pub const SNAPSHOTS_LIST: &str = "/docs/data/#snapshots";

/// What the `data` shortcode sees as `data`.
#[derive(Debug, Clone, Default, Serialize)]
struct Facts {
    /// Whether the build has a snapshot to take facts from.
    known: bool,
    /// The snapshot the facts come from.
    version: String,
    countries: Vec<String>,
    /// The countries' names joined for running text ("Belgium, Denmark
    /// and the Netherlands").
    country_names: String,
    sites: Option<u64>,
    observations: Option<u64>,
    first: Option<String>,
    last: Option<String>,
    first_year: Option<String>,
    last_year: Option<String>,
    statistics: &'static str,
    snapshots: &'static str,
}

/// The shortcode context of the facts of `newest` (the newest snapshot of
/// the build), or of none.
pub fn context(newest: Option<&Snapshot>) -> Value {
    let mut ctx = Facts {
        statistics: STATISTICS_PAGE,
        snapshots: SNAPSHOTS_LIST,
        ..Facts::default()
    };
    if let Some(s) = newest {
        let f = &s.facts;
        let year = |d: &Option<String>| d.as_ref().and_then(|d| d.get(..4)).map(str::to_owned);
        ctx = Facts {
            known: true,
            version: s.version.clone(),
            countries: f.countries.clone(),
            country_names: join_names(&f.countries),
            sites: f.sites,
            observations: f.observations,
            first_year: year(&f.first),
            last_year: year(&f.last),
            first: f.first.clone(),
            last: f.last.clone(),
            ..ctx
        };
    }
    Value::from(Serde(ctx))
}

/// "A", "A and B", "A, B and C", with each code's name in running text.
fn join_names(codes: &[String]) -> String {
    let mut sorted: Vec<&String> = codes.iter().collect();
    sorted.sort_by_key(|c| countries::by_code(c).map_or(c.as_str(), |k| k.name));
    let names: Vec<String> = sorted.iter().map(|c| countries::in_text(c)).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The facts of the newest snapshot a built site publishes (by issue date,
/// then version, as the build orders them), read from its files in `out`.
pub fn published(out: &Path, manifest: &Manifest) -> Result<Option<(String, DataFacts)>> {
    let folder = format!("{}/", contract::snapshot::SITE_FOLDER);
    let suffix = format!("/{}", contract::snapshot::DATACITE);
    let mut newest: Option<(String, String, Vec<u8>)> = None;
    for key in manifest.files.keys() {
        let Some(version) = key
            .strip_prefix(&folder)
            .and_then(|k| k.strip_suffix(&suffix))
        else {
            continue;
        };
        let bytes = std::fs::read(out.join(key)).with_context(|| format!("reading {key}"))?;
        let meta: contract::snapshot::DataCite =
            serde_json::from_slice(&bytes).with_context(|| key.clone())?;
        let issued = meta.issued().unwrap_or_default().to_owned();
        let newer = newest
            .as_ref()
            .is_none_or(|(i, v, _)| (issued.as_str(), version) > (i.as_str(), v.as_str()));
        if newer {
            newest = Some((issued, version.to_owned(), bytes));
        }
    }
    let Some((_, version, record)) = newest else {
        return Ok(None);
    };
    let sites_key = format!("{folder}{version}/{}", contract::snapshot::SITES_GEOJSON);
    let sites = if manifest.files.contains_key(&sites_key) {
        Some(std::fs::read(out.join(&sites_key)).with_context(|| format!("reading {sites_key}"))?)
    } else {
        None
    };
    let facts = DataFacts::read(&record, sites.as_deref())
        .with_context(|| format!("{folder}{version}/"))?;
    Ok(Some((version, facts)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_join_for_running_text() {
        let codes = |c: &[&str]| c.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(join_names(&codes(&[])), "");
        assert_eq!(join_names(&codes(&["NL"])), "the Netherlands");
        assert_eq!(
            join_names(&codes(&["BE", "NL"])),
            "Belgium and the Netherlands"
        );
        assert_eq!(
            join_names(&codes(&["GB", "DE", "BE", "DK"])),
            "Belgium, Denmark, Germany and the United Kingdom"
        );
    }
}
