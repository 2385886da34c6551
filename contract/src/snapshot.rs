//! The citable open-data snapshot (`sidecar export --to DIR`, published by
//! `generate build --snapshots DIR`): its folder, its files, the subset of
//! DataCite metadata both programs read and the one way a snapshot is
//! cited, so the README the sidecar writes and the data page the generator
//! builds cite it in the same words.

use serde::{Deserialize, Serialize};

/// Folder of `dist/` (and site path) under which each snapshot is
/// published, one folder per version.
pub const SITE_FOLDER: &str = "snapshots";

/// The public observations, one row each (RFC 4180, header row, CRLF).
pub const OBSERVATIONS_CSV: &str = "observations.csv";
/// The public sites that have observations, one row each.
pub const SITES_CSV: &str = "sites.csv";
/// The same sites as an RFC 7946 FeatureCollection.
pub const SITES_GEOJSON: &str = "sites.geojson";
/// The Frictionless Data Package: resources with their Table Schemas.
pub const DATAPACKAGE: &str = "datapackage.json";
/// Fields, units, privacy, licence and how to cite, for people.
pub const README: &str = "README.md";
/// The licence notice and attribution.
pub const LICENSE: &str = "LICENSE";
/// Citation File Format 1.2.0.
pub const CITATION_CFF: &str = "CITATION.cff";
/// DataCite metadata (the JSON of the DataCite REST API's attributes).
pub const DATACITE: &str = "datacite.json";
/// SHA-256 of every other file, in the format `sha256sum -c` reads.
pub const CHECKSUMS: &str = "SHA256SUMS";

/// Every file of a snapshot, in the order a listing shows them.
pub const FILES: [&str; 9] = [
    README,
    OBSERVATIONS_CSV,
    SITES_CSV,
    SITES_GEOJSON,
    DATAPACKAGE,
    DATACITE,
    CITATION_CFF,
    LICENSE,
    CHECKSUMS,
];

/// Longest version name.
pub const VERSION_MAX: usize = 64;

/// Whether `version` may name a snapshot: 1 to [`VERSION_MAX`] ASCII
/// letters, digits, `.`, `_` or `-`, starting with a letter or digit (so
/// it is one safe path segment and never a hidden file).
pub fn valid_version(version: &str) -> bool {
    (1..=VERSION_MAX).contains(&version.len())
        && version.starts_with(|c: char| c.is_ascii_alphanumeric())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// DataCite metadata of a snapshot: the properties of the DataCite
/// Metadata Schema 4.5 a snapshot states, spelt as the DataCite REST API's
/// JSON spells them (a repository deposit can take the file as it is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataCite {
    /// Always [`DATACITE_SCHEMA_VERSION`] (a member DataCite's JSON
    /// requires; a record written before it was added reads as that).
    #[serde(default = "datacite_schema_version")]
    pub schema_version: String,
    /// The snapshot's landing URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The snapshot's URL again, as an identifier (no DOI is minted here; a
    /// repository that mints one adds it as the `doi` and this stays an
    /// alternate identifier). Records written before schema 4.5 was
    /// followed called it `identifiers`; they still read.
    #[serde(alias = "identifiers")]
    pub alternate_identifiers: Vec<Identifier>,
    pub creators: Vec<Creator>,
    pub titles: Vec<Title>,
    pub publisher: Publisher,
    pub publication_year: String,
    pub types: Types,
    pub version: String,
    /// `Issued` (the export's date), `Collected` (first/last observation).
    pub dates: Vec<DateEntry>,
    pub rights_list: Vec<Rights>,
    pub descriptions: Vec<Description>,
    pub subjects: Vec<Subject>,
    pub related_identifiers: Vec<RelatedIdentifier>,
    /// Row counts in words, e.g. `1234 observations`.
    pub sizes: Vec<String>,
    pub formats: Vec<String>,
    pub language: String,
    /// The box around the published (coarsened) site locations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub geo_locations: Vec<GeoLocation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GeoLocation {
    pub geo_location_box: GeoLocationBox,
}

/// Decimal degrees (WGS 84).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GeoLocationBox {
    pub west_bound_longitude: f64,
    pub east_bound_longitude: f64,
    pub south_bound_latitude: f64,
    pub north_bound_latitude: f64,
}

/// The `schemaVersion` of DataCite Metadata Schema 4.x records.
pub const DATACITE_SCHEMA_VERSION: &str = "http://datacite.org/schema/kernel-4";

fn datacite_schema_version() -> String {
    DATACITE_SCHEMA_VERSION.to_owned()
}

/// An alternate identifier (`alternateIdentifiers` in DataCite's JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identifier {
    #[serde(rename = "alternateIdentifier", alias = "identifier")]
    pub identifier: String,
    #[serde(rename = "alternateIdentifierType", alias = "identifierType")]
    pub identifier_type: String,
}

/// The publisher (an object since schema 4.5; a record written before
/// that has a string, which still reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "PublisherForm")]
pub struct Publisher {
    pub name: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PublisherForm {
    Name(String),
    Object { name: String },
}

impl From<PublisherForm> for Publisher {
    fn from(form: PublisherForm) -> Self {
        match form {
            PublisherForm::Name(name) | PublisherForm::Object { name } => Publisher { name },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Creator {
    pub name: String,
    /// `Organizational` or `Personal`.
    pub name_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Title {
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Types {
    /// Always `Dataset`.
    pub resource_type_general: String,
    pub resource_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DateEntry {
    /// `YYYY-MM-DD`, or an RKMS-ISO 8601 range `start/end`.
    pub date: String,
    pub date_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rights {
    pub rights: String,
    pub rights_uri: String,
    /// The SPDX identifier.
    pub rights_identifier: String,
    pub rights_identifier_scheme: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Description {
    pub description: String,
    pub description_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subject {
    pub subject: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedIdentifier {
    pub related_identifier: String,
    pub related_identifier_type: String,
    pub relation_type: String,
}

impl DataCite {
    /// The issue date (`YYYY-MM-DD`), when stated.
    pub fn issued(&self) -> Option<&str> {
        self.dates
            .iter()
            .find(|d| d.date_type == "Issued")
            .map(|d| d.date.as_str())
    }

    /// The snapshot's URL, when stated.
    pub fn url(&self) -> Option<&str> {
        self.url.as_deref().or_else(|| {
            self.alternate_identifiers
                .iter()
                .find(|i| i.identifier_type == "URL")
                .map(|i| i.identifier.as_str())
        })
    }

    /// The citation in DataCite's recommended form: Creator (Year): Title.
    /// Version. Publisher. Dataset. Identifier.
    pub fn citation(&self) -> String {
        let creators: Vec<&str> = self.creators.iter().map(|c| c.name.as_str()).collect();
        let title = self.titles.first().map_or("", |t| t.title.as_str());
        let mut s = format!(
            "{} ({}): {}. Version {}. {}. {}.",
            creators.join("; "),
            self.publication_year,
            title,
            self.version,
            self.publisher.name,
            self.types.resource_type_general
        );
        if let Some(url) = self.url() {
            s.push(' ');
            s.push_str(url);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_one_safe_segment() {
        for ok in ["2026-11-27", "v1.2", "2026-11-27.2", "a_b"] {
            assert!(valid_version(ok), "{ok}");
        }
        for bad in ["", ".hidden", "-x", "a/b", "..", "a b", &"x".repeat(65)] {
            assert!(!valid_version(bad), "{bad:?}");
        }
    }

    #[test]
    fn citation_reads_as_datacite_recommends() {
        let d = DataCite {
            schema_version: DATACITE_SCHEMA_VERSION.into(),
            url: None,
            alternate_identifiers: vec![Identifier {
                identifier: "https://example.org/snapshots/v1/".into(),
                identifier_type: "URL".into(),
            }],
            creators: vec![Creator {
                name: "Example Org".into(),
                name_type: "Organizational".into(),
            }],
            titles: vec![Title {
                title: "Observations".into(),
            }],
            publisher: Publisher {
                name: "Example Org".into(),
            },
            publication_year: "2026".into(),
            types: Types {
                resource_type_general: "Dataset".into(),
                resource_type: "Observations".into(),
            },
            version: "v1".into(),
            dates: vec![DateEntry {
                date: "2026-11-27".into(),
                date_type: "Issued".into(),
            }],
            rights_list: vec![],
            descriptions: vec![],
            subjects: vec![],
            related_identifiers: vec![],
            sizes: vec![],
            formats: vec![],
            language: "en".into(),
            geo_locations: vec![],
        };
        assert_eq!(
            d.citation(),
            "Example Org (2026): Observations. Version v1. Example Org. Dataset. \
             https://example.org/snapshots/v1/"
        );
        assert_eq!(d.issued(), Some("2026-11-27"));
        // Written as DataCite 4.5's JSON, and read back.
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["publisher"]["name"], "Example Org");
        assert_eq!(json["schemaVersion"], DATACITE_SCHEMA_VERSION);
        assert_eq!(
            json["alternateIdentifiers"][0]["alternateIdentifierType"],
            "URL"
        );
        assert_eq!(serde_json::from_value::<DataCite>(json).unwrap(), d);
    }

    /// A record exported before the 4.5 form (a string publisher,
    /// `identifiers`, no `schemaVersion`) still reads, so a snapshot
    /// published then can be published again unchanged.
    #[test]
    fn an_earlier_record_still_reads() {
        let old = r#"{"identifiers":[{"identifier":"https://example.org/snapshots/v1/","identifierType":"URL"}],
            "creators":[{"name":"Example Org","nameType":"Organizational"}],"titles":[{"title":"Observations"}],
            "publisher":"Example Org","publicationYear":"2026",
            "types":{"resourceTypeGeneral":"Dataset","resourceType":"Observations"},"version":"v1",
            "dates":[{"date":"2026-11-27","dateType":"Issued"}],"rightsList":[],"descriptions":[],
            "subjects":[],"relatedIdentifiers":[],"sizes":[],"formats":[],"language":"en"}"#;
        let d: DataCite = serde_json::from_str(old).unwrap();
        assert_eq!(d.publisher.name, "Example Org");
        assert_eq!(d.schema_version, DATACITE_SCHEMA_VERSION);
        assert_eq!(d.url(), Some("https://example.org/snapshots/v1/"));
    }
}
