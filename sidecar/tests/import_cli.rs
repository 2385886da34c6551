//! `sidecar import FILE` through the real binary on a real SQLite file: a
//! good export is imported; a bad row names its line, exits non-zero and
//! leaves the database as it was.

use std::process::Command;

const HEADER: &str = "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag\n";

fn import(data_dir: &std::path::Path, file: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sidecar"))
        .arg("import")
        .arg(file)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("SIDECAR_DATABASE")
        .output()
        .expect("the sidecar binary runs")
}

fn import_kind(
    data_dir: &std::path::Path,
    kind: &str,
    file: &std::path::Path,
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sidecar"))
        .args(["import", "--kind", kind])
        .arg(file)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("SIDECAR_DATABASE")
        .output()
        .expect("the sidecar binary runs")
}

fn observation_count(data_dir: &std::path::Path) -> i64 {
    let db = rusqlite::Connection::open(data_dir.join("service.sqlite3")).unwrap();
    db.query_row("SELECT count(*) FROM observations", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn imports_a_good_file_and_refuses_a_bad_row_by_line() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let good = tmp.path().join("good.csv");
    std::fs::write(
        &good,
        format!(
            "{HEADER}\
             NL-CLI-1,Test ditch,NL,ditch,52.0912,5.1214,2025-06-01T10:30:00Z,nitrate,12.5,mg/L,test strip,valid\n\
             NL-CLI-1,Test ditch,NL,ditch,52.0912,5.1214,2025-06-02T10:30:00Z,ph,7.4,pH,test strip,unverified\n"
        ),
    )
    .unwrap();
    let out = import(&data, &good);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("imported 2 new observations"));
    assert_eq!(observation_count(&data), 2);
    // The same file again: nothing new.
    let out = import(&data, &good);
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.starts_with("imported 0 new observations (0 withdrawn, 0 replaced, 2 unchanged)"),
        "{said}"
    );
    assert_eq!(observation_count(&data), 2);

    let bad = tmp.path().join("bad.csv");
    std::fs::write(
        &bad,
        format!(
            "{HEADER}\
             NL-CLI-2,Other pond,NL,pond,52.1,5.2,2025-06-03T09:00:00Z,nitrate,3.0,mg/L,test strip,valid\n\
             NL-CLI-2,Other pond,NL,pond,52.1,5.2,2025-06-04T09:00:00Z,lead,3.0,mg/L,test strip,valid\n"
        ),
    )
    .unwrap();
    let out = import(&data, &bad);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("lead"), "{err}");
    assert_eq!(observation_count(&data), 2, "a failed import wrote rows");
}

#[test]
fn imports_classifications_once_and_refuses_a_bad_row_by_line() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("classifications.csv");
    std::fs::write(
        &file,
        "project_id,project_name,classification_id,created_at\n\
         riverlens,Riverlens,501,2026-11-20T12:00:00Z\n\
         riverlens,Riverlens,502,2026-11-21T12:00:00Z\n",
    )
    .unwrap();
    let out = import_kind(&data, "classifications", &file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.starts_with("imported 2 new classifications (0 already there)"),
        "{said}"
    );
    let out = import_kind(&data, "classifications", &file);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.starts_with("imported 0 new classifications (2 already there)"),
        "{said}"
    );

    let bad = tmp.path().join("bad.csv");
    std::fs::write(
        &bad,
        "project_id,project_name,classification_id,created_at\n\
         riverlens,Riverlens,503,2026-11-22T12:00:00Z\n\
         river lens,Riverlens,504,2026-11-22T12:00:00Z\n",
    )
    .unwrap();
    let out = import_kind(&data, "classifications", &bad);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3: project_id `river lens`"), "{err}");
    let db = rusqlite::Connection::open(data.join("service.sqlite3")).unwrap();
    let n: i64 = db
        .query_row("SELECT count(*) FROM classifications", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2, "a failed import wrote rows");
}
