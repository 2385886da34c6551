//! `content/catalog.toml`: the open-data catalogue, checked against the
//! code tables it names, the contract's routes, the licence grants and the
//! pages.

use std::path::Path;

use super::{ContentError, Document, error_at_value, load, unique_ids};
use crate::model::{Catalog, CatalogDataset, LicenceGrant};

/// The EU data-theme table's codes.
pub const THEMES: [&str; 13] = [
    "AGRI", "ECON", "EDUC", "ENER", "ENVI", "GOVE", "HEAL", "INTR", "JUST", "REGI", "SOCI", "TECH",
    "TRAN",
];

/// The EU frequency table's codes a catalogue here may name.
pub const FREQUENCIES: [&str; 24] = [
    "TRIENNIAL",
    "BIENNIAL",
    "ANNUAL",
    "ANNUAL_2",
    "ANNUAL_3",
    "QUARTERLY",
    "BIMONTHLY",
    "MONTHLY",
    "MONTHLY_2",
    "MONTHLY_3",
    "SEMIMONTHLY",
    "BIWEEKLY",
    "WEEKLY",
    "WEEKLY_2",
    "WEEKLY_3",
    "DAILY",
    "DAILY_2",
    "HOURLY",
    "CONT",
    "UPDATE_CONT",
    "IRREG",
    "NEVER",
    "UNKNOWN",
    "OTHER",
];

/// Reads `path` when it exists; `documents` are the pages a dataset may
/// name, `grants` the licence grants of `guardrails.toml`.
pub(super) fn load_catalog(
    path: &Path,
    documents: &[Document],
    grants: &[LicenceGrant],
    site: &crate::model::Site,
) -> Result<Option<Catalog>, ContentError> {
    if !path.exists() {
        return Ok(None);
    }
    let (catalog, text): (Catalog, String) = load(path)?;
    let at = |needle: &str, message: String| error_at_value(path, &text, needle, message);
    check_themes(&catalog.themes, &at)?;
    if catalog.datasets.is_empty() {
        return Err(ContentError::whole(
            path,
            "a catalogue without datasets, expected at least one [[datasets]]",
        ));
    }
    unique_ids(path, &text, catalog.datasets.iter().map(|d| &d.id))?;
    check_languages(&catalog.translations, site, &at)?;
    for d in &catalog.datasets {
        check_languages(&d.translations, site, &at)?;
        check_dataset(d, documents, grants, &at)?;
    }
    Ok(Some(catalog))
}

/// Each translation's language is one the site declares, not its
/// default (whose texts are the entry's own).
fn check_languages(
    translations: &std::collections::BTreeMap<String, crate::model::CatalogText>,
    site: &crate::model::Site,
    at: &dyn Fn(&str, String) -> ContentError,
) -> Result<(), ContentError> {
    for code in translations.keys() {
        if !site.translations().any(|l| &l.code == code) {
            let declared: Vec<&str> = site.translations().map(|l| l.code.as_str()).collect();
            return Err(at(
                &format!("translations.{code}"),
                format!(
                    "texts in `{code}`, which is not one of the site's other languages (site.toml), expected one of: {}",
                    if declared.is_empty() {
                        "none".to_owned()
                    } else {
                        declared.join(", ")
                    }
                ),
            ));
        }
    }
    Ok(())
}

fn check_themes(
    themes: &[String],
    at: &dyn Fn(&str, String) -> ContentError,
) -> Result<(), ContentError> {
    for t in themes {
        if !THEMES.contains(&t.as_str()) {
            return Err(at(
                &format!("\"{t}\""),
                format!(
                    "unknown theme `{t}`, expected a code of the EU data-theme table: {}",
                    THEMES.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn check_dataset(
    d: &CatalogDataset,
    documents: &[Document],
    grants: &[LicenceGrant],
    at: &dyn Fn(&str, String) -> ContentError,
) -> Result<(), ContentError> {
    let id = d.id.as_str();
    check_themes(&d.themes, at)?;
    if !documents.iter().any(|doc| doc.url == d.page) {
        return Err(at(
            &format!("\"{}\"", d.page),
            format!(
                "dataset `{id}`: no page at `{}`, expected the site path of a page under content/",
                d.page
            ),
        ));
    }
    if !grants.iter().any(|g| g.covers.contains(&d.material)) {
        return Err(at(
            id,
            format!(
                "dataset `{id}`: no licence grant in guardrails.toml covers its material `{:?}`",
                d.material
            ),
        ));
    }
    if !FREQUENCIES.contains(&d.frequency.as_str()) {
        return Err(at(
            &format!("\"{}\"", d.frequency),
            format!(
                "dataset `{id}`: unknown frequency `{}`, expected a code of the EU frequency table: {}",
                d.frequency,
                FREQUENCIES.join(", ")
            ),
        ));
    }
    if let (Some(start), Some(end)) = (&d.start, &d.end)
        && start.calendar() > end.calendar()
    {
        return Err(at(
            &format!("\"{end}\""),
            format!("dataset `{id}`: end {end} is before start {start}"),
        ));
    }
    for c in &d.countries {
        if c.len() != 3 || !c.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(at(
                &format!("\"{c}\""),
                format!(
                    "dataset `{id}`: country `{c}`, expected an ISO 3166-1 alpha-3 code such as `NLD`"
                ),
            ));
        }
    }
    if let Some([west, south, east, north]) = d.bbox {
        let lon = -180.0..=180.0;
        let lat = -90.0..=90.0;
        if !(lon.contains(&west)
            && lon.contains(&east)
            && lat.contains(&south)
            && lat.contains(&north))
            || south >= north
            || west >= east
        {
            return Err(at(
                "bbox",
                format!(
                    "dataset `{id}`: bbox [{west}, {south}, {east}, {north}], expected west, south, east, north in degrees with west < east and south < north"
                ),
            ));
        }
    }
    for r in &d.routes {
        let known = contract::routes::ROUTES
            .iter()
            .any(|route| route.path == r && route.method == contract::routes::Method::Get);
        if !known {
            return Err(at(
                &format!("\"{r}\""),
                format!("dataset `{id}`: `{r}` is not a GET route of the contract"),
            ));
        }
    }
    if d.routes.is_empty() && !d.archive_files {
        return Err(at(
            id,
            format!(
                "dataset `{id}` has no distribution, expected `routes` or `archive_files = true`"
            ),
        ));
    }
    Ok(())
}
