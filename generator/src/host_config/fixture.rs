//! A small manifest with one file of every kind the writers treat apart:
//! the home page (with `Link`), a page under a directory, its Markdown twin,
//! a hashed asset, the 404 page, the service information inside the API
//! space, the extensionless api-catalog and the AI catalog (custom types)
//! and a download without twins.

use std::collections::BTreeMap;
use std::path::PathBuf;

use contract::manifest::{self, Encoded, FileEntry, Manifest};

use super::{Listen, Plan};

fn entry(key: &str, twins: bool) -> (String, FileEntry) {
    sized(key, twins, 100)
}

fn sized(key: &str, twins: bool, size: u64) -> (String, FileEntry) {
    let mut encodings = BTreeMap::new();
    if twins {
        for (coding, ext) in [("br", "br"), ("gzip", "gz")] {
            encodings.insert(
                coding.to_owned(),
                Encoded {
                    path: format!("{key}.{ext}"),
                    size: 10,
                    etag: format!("\"{coding}\""),
                },
            );
        }
    }
    (
        key.to_owned(),
        FileEntry {
            size,
            sha256: "0".repeat(64),
            etag: format!("\"{}\"", "0".repeat(32)),
            content_type: contract::media::for_path(key).to_owned(),
            cache_control: manifest::cache_policy(key).to_owned(),
            encodings,
        },
    )
}

pub fn manifest() -> Manifest {
    Manifest {
        redirects: BTreeMap::new(),
        format: manifest::FORMAT,
        site_origin: None,
        api_origin: None,
        files: [
            entry("index.html", true),
            entry("404.html", true),
            entry("docs/about/index.html", true),
            entry("docs/about/index.md", true),
            entry("assets/site.0123456789abcdef.css", true),
            entry("api/service.json", true),
            entry(".well-known/api-catalog", true),
            entry(".well-known/ai-catalog.json", true),
            entry("files/data.csv", false),
        ]
        .into_iter()
        .collect(),
    }
}

/// A build without `--precompress`: no twins; pages of every size,
/// compressible or not.
pub fn manifest_without_twins() -> Manifest {
    Manifest {
        redirects: BTreeMap::new(),
        format: manifest::FORMAT,
        site_origin: None,
        api_origin: None,
        files: [
            sized("index.html", false, 4000),
            sized("404.html", false, 2000),
            sized("docs/about/index.html", false, 3000),
            sized("docs/about/index.md", false, 1500),
            sized("assets/site.0123456789abcdef.css", false, 9000),
            sized("api/service.json", false, 5000),
            sized(".well-known/api-catalog", false, 600),
            sized("robots.txt", false, 80),
            sized("files/data.csv", false, 300),
            sized("files/photo.png", false, 50000),
        ]
        .into_iter()
        .collect(),
    }
}

pub fn plan() -> Plan {
    plan_of(&manifest())
}

pub fn plan_without_twins() -> Plan {
    plan_of(&manifest_without_twins())
}

pub fn plan_of(manifest: &Manifest) -> Plan {
    Plan::new(
        PathBuf::from("/srv/site/dist"),
        manifest,
        crate::origin::sidecar_url("http://127.0.0.1:8081").unwrap(),
        "127.0.0.1:8080".parse::<Listen>().unwrap(),
        "https://example.org".to_owned(),
    )
    .unwrap()
}
