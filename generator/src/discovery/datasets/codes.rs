//! The code tables and vocabularies the catalogue names: EU authority
//! tables (data themes, languages, file types), ADMS licence types, IANA
//! media types and WKT geometry.

use serde_json::{Value, json};

use super::EU_AUTHORITY;
use crate::content::THEMES;

/// Terms of the code tables the shapes check, each stated once with its
/// table (and, for a `skos:Concept`, its label).
#[derive(Default)]
pub(super) struct Terms(pub(super) Vec<Value>);

impl Terms {
    pub(super) fn term(
        &mut self,
        iri: String,
        scheme: &str,
        class: &str,
        label: Option<&str>,
    ) -> Value {
        if !self.0.iter().any(|t| t["@id"] == iri.as_str()) {
            let mut t = json!({"@id": iri, "@type": class, "skos:inScheme": {"@id": scheme}});
            if let Some(label) = label {
                t["skos:prefLabel"] = json!({"@value": label, "@language": "en"});
            }
            self.0.push(t);
        }
        json!({"@id": iri})
    }

    /// A code of the EU table `table` (`frequency`, `data-theme`, …).
    pub(super) fn concept(&mut self, table: &str, code: &str, class: &str) -> Value {
        let label = (class == "skos:Concept").then(|| eu_label(table, code));
        self.term(
            format!("{EU_AUTHORITY}/{table}/{code}"),
            &format!("{EU_AUTHORITY}/{table}"),
            class,
            label,
        )
    }
}

/// A media type without parameters, as a static string where it is one
/// of the contract's.
pub(super) fn media_essence(m: &str) -> &'static str {
    let e = contract::media::essence(m);
    [
        contract::media::JSON,
        contract::media::GEO_JSON,
        contract::media::CSV,
        "text/plain",
        "text/markdown",
        "application/pdf",
        "application/zip",
    ]
    .into_iter()
    .find(|k| k.eq_ignore_ascii_case(e))
    .unwrap_or("application/octet-stream")
}

/// The EU file-type code of a media type.
pub(super) fn eu_file_type(media: &str) -> Option<&'static str> {
    Some(match media {
        "application/json" => "JSON",
        "application/geo+json" => "GEOJSON",
        "text/csv" => "CSV",
        "text/plain" => "TXT",
        "application/pdf" => "PDF",
        "application/zip" => "ZIP",
        _ => return None,
    })
}

/// The EU language table's code of a BCP 47 tag's language.
pub(super) fn eu_language(tag: &str) -> Option<&'static str> {
    let primary = tag
        .split('-')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    Some(match primary.as_str() {
        "en" => "ENG",
        "nl" => "NLD",
        "de" => "DEU",
        "fr" => "FRA",
        "it" => "ITA",
        "es" => "SPA",
        "da" => "DAN",
        "pt" => "POR",
        "pl" => "POL",
        "sv" => "SWE",
        _ => return None,
    })
}

/// A bounding box (west, south, east, north) as a WKT polygon, longitude
/// first, closed.
pub(super) fn wkt_polygon([w, s, e, n]: [f64; 4]) -> String {
    format!("POLYGON(({w} {s}, {e} {s}, {e} {n}, {w} {n}, {w} {s}))")
}

/// Adds a licence (URL, title, SPDX id) once.
pub(super) fn add_licence(
    list: &mut Vec<(String, String, String)>,
    url: &str,
    title: &str,
    id: &str,
) {
    if !list.iter().any(|(u, _, _)| u == url) {
        list.push((url.to_owned(), title.to_owned(), id.to_owned()));
    }
}

/// The ADMS licence types of an SPDX licence: what it asks of a reuser.
pub(super) fn licence_kinds(spdx: &str) -> Vec<(&'static str, &'static str)> {
    let id = spdx.to_ascii_uppercase();
    if id.starts_with("CC0") || id.starts_with("PDDL") {
        return vec![("PublicDomain", "Public domain")];
    }
    let mut kinds = vec![("Attribution", "Attribution")];
    let parts: Vec<&str> = id.split('-').collect();
    if parts.contains(&"NC") {
        kinds.push(("NonCommercialUseOnly", "Non-commercial use only"));
    }
    if parts.contains(&"ND") {
        kinds.push(("NoDerivativeWork", "No derivative work"));
    }
    if parts.contains(&"SA") || id.starts_with("ODBL") {
        kinds.push(("ShareAlike", "Share-alike"));
    }
    kinds
}

/// The English label of a code of an EU table the catalogue states as a
/// `skos:Concept` (the data themes).
fn eu_label(table: &str, code: &str) -> &'static str {
    const LABELS: [&str; 13] = [
        "Agriculture, fisheries, forestry and food",
        "Economy and finance",
        "Education, culture and sport",
        "Energy",
        "Environment",
        "Government and public sector",
        "Health",
        "International issues",
        "Justice, legal system and public safety",
        "Regions and cities",
        "Population and society",
        "Science and technology",
        "Transport",
    ];
    match table {
        "data-theme" => THEMES
            .iter()
            .position(|t| *t == code)
            .map_or("", |i| LABELS[i]),
        _ => "",
    }
}
