//! The files of a snapshot that describe it: the README a person reads,
//! the licence notice, the citation metadata (DataCite JSON and Citation
//! File Format) and the SHA-256 list of every other file.

use std::fmt::Write as _;

use contract::snapshot::{self, DataCite};
use contract::vocabulary::{PARAMETERS, QUALITY_FLAGS, WATER_BODY_TYPES};
use sha2::{Digest, Sha256};

use super::Snapshot;
use super::tables::{OBSERVATION_COLUMNS, SITE_COLUMNS};
use crate::store::rfc3339::format_rfc3339;

/// First and last observation time, `YYYY-MM-DD` each.
fn collected(s: &Snapshot) -> Option<(String, String)> {
    let first = s.observations.iter().map(|r| r.observed_at).min()?;
    let last = s.observations.iter().map(|r| r.observed_at).max()?;
    Some((
        format_rfc3339(first)[..10].to_owned(),
        format_rfc3339(last)[..10].to_owned(),
    ))
}

/// The snapshot's DataCite metadata.
pub fn datacite(s: &Snapshot) -> DataCite {
    use contract::snapshot::*;
    let mut dates = vec![DateEntry {
        date: s.issued.clone(),
        date_type: "Issued".into(),
    }];
    if let Some((first, last)) = collected(s) {
        dates.push(DateEntry {
            date: format!("{first}/{last}"),
            date_type: "Collected".into(),
        });
    }
    let mut related = match &s.about.site_origin {
        Some(origin) => {
            let origin = origin.trim_end_matches('/');
            vec![
                RelatedIdentifier {
                    related_identifier: format!("{origin}/api/observations-data.php"),
                    related_identifier_type: "URL".into(),
                    relation_type: "IsDerivedFrom".into(),
                },
                RelatedIdentifier {
                    related_identifier: format!("{origin}/docs/data/"),
                    related_identifier_type: "URL".into(),
                    relation_type: "IsDocumentedBy".into(),
                },
            ]
        }
        None => Vec::new(),
    };
    if let (Some(origin), Some(previous)) = (&s.about.site_origin, &s.previous) {
        related.push(RelatedIdentifier {
            related_identifier: format!(
                "{}/{}/{previous}/",
                origin.trim_end_matches('/'),
                snapshot::SITE_FOLDER
            ),
            related_identifier_type: "URL".into(),
            relation_type: "IsNewVersionOf".into(),
        });
    }
    DataCite {
        schema_version: DATACITE_SCHEMA_VERSION.into(),
        url: s.url(),
        alternate_identifiers: s
            .url()
            .map(|url| Identifier {
                identifier: url,
                identifier_type: "URL".into(),
            })
            .into_iter()
            .collect(),
        creators: vec![Creator {
            name: s.about.publisher.clone(),
            name_type: "Organizational".into(),
        }],
        titles: vec![Title { title: s.title() }],
        publisher: Publisher {
            name: s.about.publisher.clone(),
        },
        publication_year: s.issued[..4].to_owned(),
        types: Types {
            resource_type_general: "Dataset".into(),
            resource_type: "Water-quality observations".into(),
        },
        version: s.version.clone(),
        dates,
        rights_list: vec![Rights {
            rights: s.about.licence.title.clone(),
            rights_uri: s.about.licence.url.clone(),
            rights_identifier: s.about.licence.id.clone(),
            rights_identifier_scheme: "SPDX".into(),
        }],
        descriptions: vec![
            Description {
                description: s.description(),
                description_type: "Abstract".into(),
            },
            Description {
                description: format!("Attribution: {}", s.about.attribution),
                description_type: "Other".into(),
            },
        ],
        subjects: ["water quality", "citizen science", "freshwater"]
            .map(|subject| Subject {
                subject: subject.into(),
            })
            .into(),
        related_identifiers: related,
        sizes: vec![
            format!("{} observations", s.observations.len()),
            format!("{} sites", s.sites.len()),
        ],
        formats: vec![
            "text/csv".into(),
            "application/geo+json".into(),
            "application/json".into(),
        ],
        language: "en".into(),
        geo_locations: geo_box(s)
            .map(|geo_location_box| GeoLocation { geo_location_box })
            .into_iter()
            .collect(),
    }
}

/// The box around the published site locations, when there are sites.
fn geo_box(s: &Snapshot) -> Option<contract::snapshot::GeoLocationBox> {
    let lons = s.sites.iter().map(|x| x.site.longitude);
    let lats = s.sites.iter().map(|x| x.site.latitude);
    Some(contract::snapshot::GeoLocationBox {
        west_bound_longitude: lons.clone().reduce(f64::min)?,
        east_bound_longitude: lons.reduce(f64::max)?,
        south_bound_latitude: lats.clone().reduce(f64::min)?,
        north_bound_latitude: lats.reduce(f64::max)?,
    })
}

pub fn datacite_json(s: &Snapshot) -> anyhow::Result<Vec<u8>> {
    let mut out = serde_json::to_vec_pretty(&datacite(s))?;
    out.push(b'\n');
    Ok(out)
}

/// A YAML string in double quotes.
fn yaml(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// `CITATION.cff` (Citation File Format 1.2.0).
pub fn cff(s: &Snapshot) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "cff-version: 1.2.0");
    let _ = writeln!(
        out,
        "message: {}",
        yaml("If you use these data, please cite them as below.")
    );
    let _ = writeln!(out, "type: dataset");
    let _ = writeln!(out, "title: {}", yaml(&s.title()));
    let _ = writeln!(out, "version: {}", yaml(&s.version));
    let _ = writeln!(out, "date-released: {}", yaml(&s.issued));
    let _ = writeln!(out, "abstract: {}", yaml(&s.description()));
    let _ = writeln!(out, "authors:\n  - name: {}", yaml(&s.about.publisher));
    let _ = writeln!(out, "license: {}", yaml(&s.about.licence.id));
    if let Some(url) = s.url() {
        let _ = writeln!(out, "url: {}", yaml(&url));
        let _ = writeln!(
            out,
            "identifiers:\n  - type: url\n    value: {}",
            yaml(&url)
        );
    }
    let _ = writeln!(
        out,
        "keywords:\n  - water quality\n  - citizen science\n  - freshwater"
    );
    out
}

/// `LICENSE`: the licence and the attribution every copy must keep.
pub fn licence(s: &Snapshot) -> String {
    let l = &s.about.licence;
    format!(
        "{title}\n\nThe data in this folder (version {}) are published by {} under the\n\
         {} ({}). The full text of the licence:\n{}\n\n\
         Attribution (keep it with every copy and every work using the data):\n{}\n\n\
         How to cite the data:\n{}\n",
        s.version,
        s.about.publisher,
        l.title,
        l.id,
        l.url,
        s.about.attribution,
        datacite(s).citation(),
        title = s.title(),
    )
}

/// A Markdown table of a CSV's columns and what they hold.
fn columns_table(out: &mut String, columns: &[&str], describe: impl Fn(&str) -> String) {
    out.push_str("| Column | What it holds |\n|---|---|\n");
    for c in columns {
        let _ = writeln!(out, "| `{c}` | {} |", describe(c));
    }
    out.push('\n');
}

fn describe(column: &str) -> String {
    let p = contract::observations::PRECISION_DECIMALS;
    match column {
        "id" => "A stable observation number (unique)".into(),
        "site_id" => "The monitoring site's code (a row of `sites.csv`)".into(),
        "site_name" | "name" => "The monitoring site's name".into(),
        "country" => "The site's country, an ISO 3166-1 alpha-2 code such as `NL`".into(),
        "water_body_type" => format!("One of {}", ticks(&WATER_BODY_TYPES)),
        "observed_at" => "When the sample was taken, UTC, ISO 8601".into(),
        "parameter" => "The measured parameter (see the units below)".into(),
        "value" => "The measured value, in the unit of `unit`".into(),
        "unit" => "The unit of `value`".into(),
        "method" => "How the value was measured".into(),
        "quality_flag" => format!("The validation result: one of {}", ticks(&QUALITY_FLAGS)),
        "latitude" => format!("Degrees north (WGS 84), rounded to {p} decimal places"),
        "longitude" => format!("Degrees east (WGS 84), rounded to {p} decimal places"),
        "observations" => "How many observations of the site this snapshot holds".into(),
        "latest_observed_at" => "When the site's latest observation was taken, UTC".into(),
        "parameters" => "The parameters measured at the site, separated by spaces".into(),
        _ => String::new(),
    }
}

fn ticks(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `README.md`: what the snapshot holds, its fields and units, privacy,
/// licence, how to cite it and how to check it.
pub fn readme(s: &Snapshot) -> String {
    let d = datacite(s);
    let mut out = format!("# {} — version {}\n\n", s.title(), s.version);
    let _ = writeln!(out, "{}\n", s.description());
    let _ = writeln!(out, "- Version: {}", s.version);
    let _ = writeln!(out, "- Exported: {} (UTC)", s.created);
    if let Some((first, last)) = collected(s) {
        let _ = writeln!(out, "- Observations taken: {first} to {last}");
    }
    if let Some(b) = geo_box(s) {
        let _ = writeln!(
            out,
            "- Area: longitude {} to {}, latitude {} to {} (WGS 84)",
            b.west_bound_longitude,
            b.east_bound_longitude,
            b.south_bound_latitude,
            b.north_bound_latitude
        );
    }
    let _ = writeln!(out, "- Publisher: {} ({})", s.about.publisher, s.about.home);
    if let Some(url) = s.url() {
        let _ = writeln!(out, "- Published at: {url}");
    }
    if let Some(previous) = &s.previous {
        let _ = writeln!(out, "- Follows version {previous}");
    }
    let _ = writeln!(
        out,
        "- Licence: {} ({}), {}\n",
        s.about.licence.title, s.about.licence.id, s.about.licence.url
    );
    out.push_str("## How to cite\n\n");
    let _ = writeln!(out, "{}\n", d.citation());
    let _ = writeln!(
        out,
        "Attribution to keep with every copy: \"{}\"\n\n`CITATION.cff` and `datacite.json` hold the \
         same citation as metadata.\n",
        s.about.attribution
    );
    out.push_str("## Files\n\n| File | What it holds |\n|---|---|\n");
    let files = [
        (
            snapshot::OBSERVATIONS_CSV,
            format!("{} observations, one per row", s.observations.len()),
        ),
        (
            snapshot::SITES_CSV,
            format!("{} monitoring sites, one per row", s.sites.len()),
        ),
        (
            snapshot::SITES_GEOJSON,
            "The same sites as GeoJSON points (RFC 7946)".into(),
        ),
        (
            snapshot::DATAPACKAGE,
            "Frictionless Data Package: a Table Schema per CSV (types, constraints, keys)".into(),
        ),
        (snapshot::DATACITE, "DataCite metadata".into()),
        (
            snapshot::CITATION_CFF,
            "Citation File Format metadata".into(),
        ),
        (snapshot::LICENSE, "The licence and attribution".into()),
        (snapshot::CHECKSUMS, "SHA-256 of every other file".into()),
    ];
    for (name, what) in files {
        let _ = writeln!(out, "| `{name}` | {what} |");
    }
    out.push_str(
        "\nThe CSV files are UTF-8, comma-separated, with a header row and CRLF line ends.\n\n",
    );
    let _ = writeln!(out, "## Fields of `{}`\n", snapshot::OBSERVATIONS_CSV);
    columns_table(&mut out, &OBSERVATION_COLUMNS, describe);
    let _ = writeln!(out, "## Fields of `{}`\n", snapshot::SITES_CSV);
    columns_table(&mut out, &SITE_COLUMNS, |c| match c {
        "site_id" => "The monitoring site's code (unique)".into(),
        c => describe(c),
    });
    out.push_str("## Parameters and units\n\n| Parameter | Unit |\n|---|---|\n");
    for p in PARAMETERS {
        let _ = writeln!(out, "| `{}` | {} |", p.name, p.unit);
    }
    out.push_str(
        "\n## Privacy\n\nOnly public sites and their observations are included, as the \
         open-data API publishes them. Locations are rounded to about 1 km; no observation \
         names the volunteer who made it. Please do not try to re-identify volunteers by \
         combining locations and times with other data.\n\n## Checking the files\n\n\
         ```sh\nsha256sum -c SHA256SUMS\nfrictionless validate datapackage.json\n```\n",
    );
    out
}

/// `SHA256SUMS`: one `HASH  NAME` line per file, by name.
pub fn checksums(files: &[(&str, Vec<u8>)]) -> String {
    let mut lines: Vec<String> = files
        .iter()
        .map(|(name, bytes)| format!("{}  {name}\n", hex::encode(Sha256::digest(bytes))))
        .collect();
    lines.sort_by(|a, b| a[66..].cmp(&b[66..]));
    lines.concat()
}
