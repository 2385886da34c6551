//! Citable snapshot folders as `sidecar export` writes them, for the tests
//! of `generate build --snapshots` and of `generate check`'s data facts.

use std::path::Path;

use contract::snapshot::*;
use sha2::{Digest, Sha256};

/// The DataCite record of snapshot `version`: issued on `issued`, its
/// observations collected over `collected` (`first/last`), of `sizes`
/// (`"N observations"`, `"N sites"`); no licence, formats or box, which a
/// test adds with struct update syntax where it reads them.
pub fn datacite(version: &str, issued: &str, collected: &str, sizes: &[&str]) -> DataCite {
    DataCite {
        schema_version: DATACITE_SCHEMA_VERSION.into(),
        url: None,
        alternate_identifiers: vec![],
        creators: vec![Creator {
            name: "Blue Reach Observatory".into(),
            name_type: "Organizational".into(),
        }],
        titles: vec![Title {
            title: "Public water observations".into(),
        }],
        publisher: Publisher {
            name: "Blue Reach Observatory".into(),
        },
        publication_year: "2026".into(),
        types: Types {
            resource_type_general: "Dataset".into(),
            resource_type: "Water-quality observations".into(),
        },
        version: version.into(),
        dates: vec![
            DateEntry {
                date: issued.into(),
                date_type: "Issued".into(),
            },
            DateEntry {
                date: collected.into(),
                date_type: "Collected".into(),
            },
        ],
        rights_list: vec![],
        descriptions: vec![],
        subjects: vec![],
        related_identifiers: vec![],
        sizes: sizes.iter().map(|s| (*s).to_owned()).collect(),
        formats: vec![],
        language: "en".into(),
        geo_locations: vec![],
    }
}

/// Writes `files` into `dir` (created) with the SHA256SUMS that lists them.
pub fn write_files(dir: &Path, files: &[(&str, Vec<u8>)]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut sums = String::new();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
        sums.push_str(&format!("{}  {name}\n", hex::encode(Sha256::digest(bytes))));
    }
    std::fs::write(dir.join(CHECKSUMS), sums).unwrap();
}
