//! `generate build --snapshots DIR`: a snapshot that `sidecar export`
//! wrote is published under `/snapshots/VERSION/`, in the manifest, and
//! listed with its citation on the open-data page and its twin; a snapshot
//! whose files no longer match its SHA256SUMS is refused.

use std::path::Path;

use contract::snapshot::*;
use generator::{BuildOptions, build};
use sha2::{Digest, Sha256};

use common::repo;

fn opts(out: &Path, snapshots: &Path) -> BuildOptions {
    BuildOptions {
        content: repo().join("content"),
        templates: repo().join("templates"),
        out: out.to_path_buf(),
        base_url: Some("https://water.example.org".into()),
        api_origin: None,
        progress: false,
        cache: None,
        precompress: false,
        drafts: false,
        snapshots: Some(snapshots.to_path_buf()),
    }
}

fn meta(version: &str) -> DataCite {
    DataCite {
        alternate_identifiers: vec![Identifier {
            identifier: format!("https://water.example.org/snapshots/{version}/"),
            identifier_type: "URL".into(),
        }],
        rights_list: vec![Rights {
            rights: "Open Database License 1.0".into(),
            rights_uri: "https://opendatacommons.org/licenses/odbl/1-0/".into(),
            rights_identifier: "ODbL-1.0".into(),
            rights_identifier_scheme: "SPDX".into(),
        }],
        formats: vec!["text/csv".into()],
        geo_locations: vec![GeoLocation {
            geo_location_box: GeoLocationBox {
                west_bound_longitude: 4.1,
                east_bound_longitude: 5.25,
                south_bound_latitude: 51.0,
                north_bound_latitude: 52.5,
            },
        }],
        ..common::snapshots::datacite(
            version,
            "2026-11-27",
            "2022-01-01/2024-12-31",
            &["2 observations", "1 sites"],
        )
    }
}

/// A snapshot folder as the export writes it (fewer files).
fn write_snapshot(dir: &Path, version: &str) {
    common::snapshots::write_files(
        &dir.join(version),
        &[
            (OBSERVATIONS_CSV, b"id,value\r\n1,2.5\r\n2,3\r\n".to_vec()),
            (DATACITE, serde_json::to_vec_pretty(&meta(version)).unwrap()),
        ],
    );
}

#[test]
fn snapshots_are_published_and_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let snaps = tmp.path().join("snapshots");
    write_snapshot(&snaps, "2026-11-27");
    // An export still being written is hidden and left out.
    std::fs::create_dir_all(snaps.join(".2026-11-28.partial-1")).unwrap();
    let out = tmp.path().join("dist");
    build(&opts(&out, &snaps)).unwrap();

    let csv = out.join("snapshots/2026-11-27/observations.csv");
    assert_eq!(
        std::fs::read(&csv).unwrap(),
        b"id,value\r\n1,2.5\r\n2,3\r\n"
    );
    assert!(!out.join("snapshots/.2026-11-28.partial-1").exists());
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    for name in [OBSERVATIONS_CSV, DATACITE, CHECKSUMS] {
        let entry = &manifest["files"][format!("snapshots/2026-11-27/{name}")];
        assert!(entry["etag"].as_str().unwrap().starts_with('"'), "{name}");
        assert_eq!(entry["cache_control"], "public, max-age=86400", "{name}");
    }
    assert_eq!(
        manifest["files"]["snapshots/2026-11-27/SHA256SUMS"]["content_type"],
        "text/plain; charset=utf-8"
    );

    let page = std::fs::read_to_string(out.join("docs/data/index.html")).unwrap();
    assert!(page.contains(r#"<h2 id="snapshots">Citable snapshots</h2>"#));
    assert!(page.contains("Version 2026-11-27"));
    assert!(page.contains("2 observations, 1 sites"));
    assert!(page.contains("2022-01-01 to 2024-12-31"));
    let sha = hex::encode(Sha256::digest(b"id,value\r\n1,2.5\r\n2,3\r\n"));
    assert!(page.contains(&sha));
    assert!(page.contains(r#"href="/snapshots/2026-11-27/observations.csv""#));
    let citation = meta("2026-11-27").citation();
    assert!(
        page.contains(&citation.replace('/', "&#x2f;")) || page.contains(&citation),
        "the page does not cite {citation}"
    );
    // A distribution of the observation data in the DCAT-AP catalogue and
    // in the page's schema.org markup, with its size and checksum.
    let catalog = std::fs::read_to_string(out.join("catalog.jsonld")).unwrap();
    let file_url = "https://water.example.org/snapshots/2026-11-27/observations.csv";
    let graph: serde_json::Value = serde_json::from_str(&catalog).unwrap();
    let node = graph["@graph"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["dcat:downloadURL"]["@id"] == file_url)
        .expect("the snapshot's CSV is a distribution");
    assert!(
        node["@id"]
            .as_str()
            .unwrap()
            .contains("#observations-distribution-")
    );
    assert_eq!(node["spdx:checksum"]["spdx:checksumValue"]["@value"], sha);
    assert!(page.contains(&file_url.replace('/', "&#x2f;")) || page.contains(file_url));
    assert!(!catalog.contains("snapshots/2026-11-27/datacite.json"));
    let twin = std::fs::read_to_string(out.join("docs/data/index.md")).unwrap();
    assert!(twin.contains("### Version 2026-11-27 (2026-11-27)"));
    assert!(twin.contains(
        "[observations.csv](https://water.example.org/snapshots/2026-11-27/observations.csv)"
    ));
    assert!(twin.contains(&format!("Cite as: {citation}")));
}

/// The observation data's coverage, counts, box and last change are the
/// newest snapshot's, in both vocabularies (decision 0215); without a
/// snapshot the catalogue states no period for them.
#[test]
fn the_catalogue_states_the_newest_snapshots_facts() {
    let tmp = tempfile::tempdir().unwrap();
    let snaps = tmp.path().join("snapshots");
    write_snapshot(&snaps, "2026-11-27");
    let out = tmp.path().join("dist");
    build(&opts(&out, &snaps)).unwrap();
    let graph: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("catalog.jsonld")).unwrap()).unwrap();
    let nodes = graph["@graph"].as_array().unwrap();
    let obs = nodes
        .iter()
        .find(|n| n["@id"] == "https://water.example.org/catalog.jsonld#observations")
        .unwrap();
    assert_eq!(
        obs["dct:temporal"]["dcat:startDate"]["@value"],
        "2022-01-01"
    );
    assert_eq!(obs["dct:temporal"]["dcat:endDate"]["@value"], "2024-12-31");
    assert_eq!(obs["dct:modified"]["@value"], "2026-11-27");
    let boxes: Vec<&str> = obs["dct:spatial"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["dcat:bbox"]["@value"].as_str())
        .collect();
    assert_eq!(
        boxes,
        ["POLYGON((4.1 51, 5.25 51, 5.25 52.5, 4.1 52.5, 4.1 51))"]
    );
    let sentence = "As published in snapshot 2026-11-27 of 2026-11-27: 2 observations at 1 sites, \
                    taken from 2022-01-01 to 2024-12-31.";
    // The description in the default language (the sample has a Dutch
    // one beside it) ends with the snapshot's facts.
    let english = obs["dct:description"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["@language"] == "en")
        .unwrap();
    assert!(english["@value"].as_str().unwrap().ends_with(sentence));
    let page = std::fs::read_to_string(out.join("docs/data/index.html")).unwrap();
    assert!(
        page.contains("2022-01-01/2024-12-31"),
        "schema.org temporalCoverage"
    );
    assert!(page.contains("51 4.1 52.5 5.25"), "schema.org box");
    assert!(
        page.contains("within longitudes 4.1 to 5.25 and latitudes 51 to 52.5"),
        "the page's box"
    );
    let twin = std::fs::read_to_string(out.join("docs/data/index.md")).unwrap();
    assert!(twin.contains(
        "holds 2 observations at 1 sites, taken from 2022-01-01 to 2024-12-31, within \
         longitudes 4.1 to 5.25 and latitudes 51 to 52.5."
    ));
    // The OGC API – Features serves the observation data.
    let ogc = nodes
        .iter()
        .find(|n| n["@id"] == "https://water.example.org/catalog.jsonld#ogc-api-features")
        .unwrap();
    assert_eq!(ogc["@type"], "dcat:DataService");
    assert_eq!(
        ogc["dcat:endpointDescription"]["@id"],
        "https://water.example.org/api/features/openapi.json"
    );
    assert_eq!(ogc["dcat:servesDataset"][0]["@id"], obs["@id"]);

    // No snapshot: no period for the observation data.
    let empty = tmp.path().join("none");
    std::fs::create_dir_all(&empty).unwrap();
    let out = tmp.path().join("dist-none");
    build(&opts(&out, &empty)).unwrap();
    let graph: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("catalog.jsonld")).unwrap()).unwrap();
    let obs = graph["@graph"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["@id"] == "https://water.example.org/catalog.jsonld#observations")
        .unwrap();
    assert!(obs.get("dct:temporal").is_none() && obs.get("dct:modified").is_none());
}

#[test]
fn a_changed_snapshot_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let snaps = tmp.path().join("snapshots");
    write_snapshot(&snaps, "v1");
    std::fs::write(
        snaps.join("v1").join(OBSERVATIONS_CSV),
        b"id,value\r\n1,9\r\n",
    )
    .unwrap();
    let err = build(&opts(&tmp.path().join("dist"), &snaps)).unwrap_err();
    assert!(format!("{err:#}").contains("SHA-256"), "{err:#}");

    let snaps = tmp.path().join("other");
    write_snapshot(&snaps, "v2");
    std::fs::rename(snaps.join("v2"), snaps.join("v3")).unwrap();
    let err = build(&opts(&tmp.path().join("dist2"), &snaps)).unwrap_err();
    assert!(format!("{err:#}").contains("names version"), "{err:#}");

    let snaps = tmp.path().join("third");
    write_snapshot(&snaps, "v1");
    std::fs::write(snaps.join("v1/extra.txt"), b"x").unwrap();
    let err = build(&opts(&tmp.path().join("dist3"), &snaps)).unwrap_err();
    assert!(
        format!("{err:#}").contains("not listed in SHA256SUMS"),
        "{err:#}"
    );
}
