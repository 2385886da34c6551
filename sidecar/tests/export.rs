//! `sidecar export`, on SQLite and on a real PostgreSQL server: the
//! snapshot holds exactly what the live routes publish (no private site,
//! no withdrawn observation, coarsened coordinates, the same row counts),
//! its checksums verify, the same data gives the same files, and an
//! existing version, a bad version or a missing database is refused
//! without leaving a folder behind.

use std::process::Command;

use common::both_backends;
use common::live::{Backend, TestDb, get, json, open};
use sha2::{Digest, Sha256};
use sidecar::export::{self, About};
use sidecar::live::{self, Licence, Live, LiveConfig};
use sidecar::store::SampleSize;
use sidecar::store::import;

const HEADER: &str = "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag,site_public,source,source_id";

/// 2024-06-01T12:00:00Z.
const NOW: i64 = 1_717_243_200;

fn about() -> About {
    About {
        publisher: "Example Observatory".into(),
        home: "https://org.example/".into(),
        site_origin: Some("https://data.example".into()),
        licence: Licence {
            id: "ODbL-1.0".into(),
            title: "Open Database License 1.0".into(),
            url: "https://opendatacommons.org/licenses/odbl/1-0/".into(),
        },
        attribution: "Example volunteers".into(),
    }
}

/// Three public observations at two public sites, one at a private site,
/// exact coordinates to five places, a name that needs CSV quoting.
async fn filled(backend: Backend, name: &str) -> Option<(TestDb, tempfile::TempDir)> {
    let db = open(backend, name, SampleSize::None).await?;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.csv");
    std::fs::write(
        &file,
        format!(
            "{HEADER}\n\
             a-1,\"Alder Brook, upper\",NL,stream,52.12345,5.12678,2024-03-01T10:00:00Z,nitrate,12.5,mg/L,kit,valid,true,app,r1\n\
             a-1,\"Alder Brook, upper\",NL,stream,52.12345,5.12678,2024-03-01T10:00:00Z,ph,7.5,pH,strip,valid,true,app,r2\n\
             b-2,Beck,BE,river,50.98765,4.00499,2024-03-02T10:00:00Z,temperature,11.25,°C,probe,suspect,true,app,r3\n\
             p-3,Garden Pond,NL,pond,52.22222,5.22222,2024-03-02T10:00:00Z,ph,7.1,pH,strip,valid,false,app,r4\n"
        ),
    )
    .unwrap();
    import::run(&db.store, &file).await.unwrap();
    Some((db, dir))
}

fn read(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// Data rows of a CSV (none of these fields holds a line break).
fn rows(csv: &str) -> Vec<&str> {
    csv.split("\r\n")
        .skip(1)
        .filter(|l| !l.is_empty())
        .collect()
}

async fn holds_what_the_routes_publish(backend: Backend) {
    let Some((db, tmp)) = filled(backend, "export_publish").await else {
        return;
    };
    let to = tmp.path().join("snapshots");
    let report = export::export(&db.store, about(), &to, "2024-06-01", NOW)
        .await
        .unwrap();
    assert_eq!((report.observations, report.sites), (3, 2));
    let dir = to.join("2024-06-01");
    assert_eq!(report.dir, dir);

    let observations = read(&dir, "observations.csv");
    assert!(observations.starts_with("id,site_id,site_name,country,water_body_type,observed_at,parameter,value,unit,method,quality_flag,latitude,longitude\r\n"));
    let obs = rows(&observations);
    assert_eq!(obs.len(), 3);
    assert!(!observations.contains("p-3") && !observations.contains("Garden Pond"));
    assert!(obs[0].contains(",\"Alder Brook, upper\",NL,stream,2024-03-01T10:00:00Z,nitrate,12.5,mg/L,kit,valid,52.12,5.13"));
    assert!(obs[2].ends_with(",temperature,11.25,°C,probe,suspect,50.99,4"));
    let sites = read(&dir, "sites.csv");
    assert_eq!(
        rows(&sites),
        [
            "a-1,\"Alder Brook, upper\",NL,stream,52.12,5.13,2,2024-03-01T10:00:00Z,nitrate ph",
            "b-2,Beck,BE,river,50.99,4,1,2024-03-02T10:00:00Z,temperature"
        ]
    );
    for name in [
        "observations.csv",
        "sites.csv",
        "sites.geojson",
        "README.md",
    ] {
        let text = read(&dir, name);
        for exact in ["52.12345", "5.12678", "50.98765", "4.00499", "52.22222"] {
            assert!(!text.contains(exact), "{name} holds an exact coordinate");
        }
    }

    // The same counts as the live routes.
    let live = Live::new(db.store.clone(), LiveConfig::default());
    let (_, page) =
        json(live::observations(&live, &get("/api/observations-data.php?limit=1000", &[])).await)
            .await;
    assert_eq!(page["data"].as_array().unwrap().len(), report.observations);
    let (_, globe) = json(live::globe(&live, &get("/api/globe-data.php", &[])).await).await;
    let features = globe["features"].as_array().unwrap();
    assert_eq!(features.len(), report.sites);
    let geojson: serde_json::Value = serde_json::from_str(&read(&dir, "sites.geojson")).unwrap();
    assert_eq!(geojson["features"], globe["features"]);

    // Every other file is in SHA256SUMS with its hash.
    let sums = read(&dir, "SHA256SUMS");
    let listed: Vec<&str> = sums.lines().map(|l| &l[66..]).collect();
    assert_eq!(
        listed,
        [
            "CITATION.cff",
            "LICENSE",
            "README.md",
            "datacite.json",
            "datapackage.json",
            "observations.csv",
            "sites.csv",
            "sites.geojson"
        ]
    );
    for line in sums.lines() {
        let bytes = std::fs::read(dir.join(&line[66..])).unwrap();
        assert_eq!(&line[..64], hex::encode(Sha256::digest(&bytes)), "{line}");
    }

    // Citation metadata.
    let cite: serde_json::Value = serde_json::from_str(&read(&dir, "datacite.json")).unwrap();
    assert_eq!(cite["version"], "2024-06-01");
    assert_eq!(cite["publicationYear"], "2024");
    assert_eq!(cite["types"]["resourceTypeGeneral"], "Dataset");
    assert_eq!(cite["rightsList"][0]["rightsIdentifier"], "ODbL-1.0");
    assert_eq!(cite["url"], "https://data.example/snapshots/2024-06-01/");
    assert_eq!(
        cite["alternateIdentifiers"][0]["alternateIdentifier"],
        "https://data.example/snapshots/2024-06-01/"
    );
    assert_eq!(cite["publisher"]["name"], "Example Observatory");
    assert_eq!(cite["schemaVersion"], "http://datacite.org/schema/kernel-4");
    assert_eq!(cite["sizes"][0], "3 observations");
    assert_eq!(cite["dates"][1]["date"], "2024-03-01/2024-03-02");
    assert_eq!(
        cite["geoLocations"][0]["geoLocationBox"],
        serde_json::json!({"westBoundLongitude": 4.0, "eastBoundLongitude": 5.13,
                           "southBoundLatitude": 50.99, "northBoundLatitude": 52.12})
    );
    let readme = read(&dir, "README.md");
    assert!(readme.contains("Example Observatory (2024): Public water observations of Example Observatory. Version 2024-06-01. Example Observatory. Dataset. https://data.example/snapshots/2024-06-01/"));
    assert!(readme.contains("| `dissolved_oxygen` | mg/L |"));
    assert!(read(&dir, "CITATION.cff").contains("license: \"ODbL-1.0\""));
    let package: serde_json::Value = serde_json::from_str(&read(&dir, "datapackage.json")).unwrap();
    assert_eq!(package["resources"][0]["schema"]["primaryKey"][0], "id");
    assert_eq!(package["licenses"][0]["name"], "ODbL-1.0");

    // The same data gives the same files; an existing version is refused.
    let again = tmp.path().join("again");
    export::export(&db.store, about(), &again, "2024-06-01", NOW)
        .await
        .unwrap();
    for line in sums.lines() {
        let name = &line[66..];
        assert_eq!(
            std::fs::read(dir.join(name)).unwrap(),
            std::fs::read(again.join("2024-06-01").join(name)).unwrap(),
            "{name}"
        );
    }
    // A later version names the one it follows.
    export::export(&db.store, about(), &to, "2024-06-02", NOW + 86_400)
        .await
        .unwrap();
    let next: serde_json::Value =
        serde_json::from_str(&read(&to.join("2024-06-02"), "datacite.json")).unwrap();
    let relations = next["relatedIdentifiers"].as_array().unwrap();
    assert!(relations.contains(&serde_json::json!({
        "relatedIdentifier": "https://data.example/snapshots/2024-06-01/",
        "relatedIdentifierType": "URL",
        "relationType": "IsNewVersionOf"
    })));
    assert!(
        cite["relatedIdentifiers"]
            .to_string()
            .contains("IsDerivedFrom")
    );
    assert!(
        !cite["relatedIdentifiers"]
            .to_string()
            .contains("IsNewVersionOf")
    );
    let err = export::export(&db.store, about(), &to, "2024-06-01", NOW)
        .await
        .unwrap_err();
    assert!(format!("{err:#}").contains("never overwritten"), "{err:#}");
    let names: Vec<_> = std::fs::read_dir(&to)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(
        names,
        ["2024-06-01", "2024-06-02"],
        "no partial folder is left"
    );
}

async fn an_empty_database_is_refused(backend: Backend) {
    let Some(db) = open(backend, "export_empty", SampleSize::None).await else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let err = export::export(&db.store, about(), tmp.path(), "v1", NOW)
        .await
        .unwrap_err();
    assert!(format!("{err:#}").contains("no public observations"));
    assert!(!tmp.path().join("v1").exists());
}

both_backends!(holds_what_the_routes_publish, an_empty_database_is_refused);

fn sidecar(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sidecar"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn bad_starts_are_refused_without_a_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("out");
    let to_s = to.to_str().unwrap();
    let missing = format!("sqlite:{}", tmp.path().join("none.sqlite3").display());
    let dist = tmp.path().join("dist");
    std::fs::create_dir_all(dist.join("api")).unwrap();
    let dist_s = dist.to_str().unwrap();
    let present = tmp.path().join("present.sqlite3");
    std::fs::write(&present, b"").unwrap();
    let present = format!("sqlite:{}", present.display());
    let cases: [(&[&str], &str); 4] = [
        (&["export", "--to", to_s, "--version", "../x"], "--version"),
        (
            &[
                "export",
                "--to",
                to_s,
                "--database",
                &present,
                "--dist",
                dist_s,
            ],
            "api/service.json",
        ),
        (&["export"], "--to"),
        (
            &["export", "--to", to_s, "--database", &missing],
            "no SQLite database",
        ),
    ];
    for (args, says) in cases {
        let out = sidecar(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    assert!(!to.exists());
}
