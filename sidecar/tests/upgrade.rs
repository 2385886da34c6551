//! Upgrading a database the previous release wrote (schema version 2, kept
//! as fixtures) through the real paths: `sidecar migrate --check` reports
//! the pending migrations and exits 3, `sidecar migrate` applies them, the
//! upgraded database serves its data (observations, counts, the enquiry,
//! in English as the form then was, and its outbox row), takes a
//! repeatable import, and `--check` then
//! exits 0. A database newer than the binary is refused. SQLite and a real
//! PostgreSQL server (a database of its own, dropped at the end).

use std::path::PathBuf;
use std::process::{Command, Output};

use common::live::{Backend, pg_url};
use sidecar::live::{self, Live, LiveConfig};
use sidecar::store::{ObservationFilter, SampleSize, Store};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for tests"),
    )
    .join("tests/fixtures")
    .join(name)
}

/// Runs `sidecar ARGS --database URL`.
fn sidecar(args: &[&str], url: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sidecar"))
        .args(args)
        .arg("--database")
        .arg(url)
        .env_remove("SIDECAR_DATABASE")
        .output()
        .expect("the sidecar binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A database of the previous release: its URL, and the PostgreSQL admin
/// URL and database name to drop it with.
struct OldDatabase {
    url: String,
    pg: Option<(String, String)>,
    _dir: tempfile::TempDir,
}

async fn pg_exec(url: &str, sql: &str) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connecting to PostgreSQL");
    let task = tokio::spawn(conn);
    client.batch_execute(sql).await.expect(sql);
    drop(client);
    let _ = task.await;
}

/// `url` with its database name replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let authority_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[authority_end..].find('/') {
        Some(i) => &base[..authority_end + i],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

async fn old_database(backend: Backend, name: &str) -> Option<OldDatabase> {
    let dir = tempfile::tempdir().unwrap();
    match backend {
        Backend::Sqlite => {
            let file = dir.path().join("service.sqlite3");
            std::fs::copy(fixture("schema-v2.sqlite3"), &file).unwrap();
            Some(OldDatabase {
                url: format!("sqlite:{}", file.display()),
                pg: None,
                _dir: dir,
            })
        }
        Backend::Postgres => {
            let admin = pg_url()?;
            let db = format!("sidecar_data_upgrade_{name}_{}", std::process::id());
            pg_exec(&admin, &format!("DROP DATABASE IF EXISTS {db}")).await;
            pg_exec(&admin, &format!("CREATE DATABASE {db}")).await;
            let url = with_database(&admin, &db);
            let sql = std::fs::read_to_string(fixture("schema-v2.postgres.sql")).unwrap();
            pg_exec(&url, &sql).await;
            Some(OldDatabase {
                url,
                pg: Some((admin, db)),
                _dir: dir,
            })
        }
    }
}

impl OldDatabase {
    async fn drop(self) {
        if let Some((admin, db)) = &self.pg {
            pg_exec(admin, &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")).await;
        }
    }

    /// Sets the recorded schema version to `version`, as a later release
    /// would leave it.
    async fn record_version(&self, version: i64) {
        let sql = format!("INSERT INTO schema_migrations VALUES ({version}, 0)");
        match &self.pg {
            Some(_) => pg_exec(&self.url, &sql).await,
            None => {
                let path = self.url.strip_prefix("sqlite:").unwrap();
                rusqlite::Connection::open(path)
                    .unwrap()
                    .execute_batch(&sql)
                    .unwrap();
            }
        }
    }

    /// `SELECT count(*)` of `table`, read outside the store.
    async fn count(&self, table: &str) -> i64 {
        let sql = format!("SELECT count(*) FROM {table}");
        match &self.pg {
            Some(_) => {
                let (client, conn) = tokio_postgres::connect(&self.url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                let task = tokio::spawn(conn);
                let n: i64 = client.query_one(&sql, &[]).await.unwrap().get(0);
                drop(client);
                let _ = task.await;
                n
            }
            None => {
                let path = self.url.strip_prefix("sqlite:").unwrap();
                rusqlite::Connection::open(path)
                    .unwrap()
                    .query_row(&sql, [], |r| r.get(0))
                    .unwrap()
            }
        }
    }
}

async fn upgrades_the_previous_release_and_serves_from_it(backend: Backend) {
    let name = format!("{backend:?}").to_lowercase();
    let Some(db) = old_database(backend, &name).await else {
        return;
    };
    let check = sidecar(&["migrate", "--check"], &db.url);
    assert_eq!(check.status.code(), Some(3), "{}", stdout(&check));
    assert_eq!(
        stdout(&check),
        "schema version 2 (this sidecar knows 4)\npending 0003_import_keys\npending 0004_enquiry_language\n"
    );
    // --check changed nothing: it says the same again.
    assert_eq!(
        sidecar(&["migrate", "--check"], &db.url).status.code(),
        Some(3)
    );

    let migrate = sidecar(&["migrate"], &db.url);
    assert!(
        migrate.status.success(),
        "{}",
        String::from_utf8_lossy(&migrate.stderr)
    );
    assert!(
        stdout(&migrate).contains(
            "applied 0003_import_keys\napplied 0004_enquiry_language\nschema version 4\n"
        )
    );
    let check = sidecar(&["migrate", "--check"], &db.url);
    assert_eq!(check.status.code(), Some(0));
    assert!(stdout(&check).contains("up to date"));

    // The upgraded database serves what the old release wrote.
    let data_dir = tempfile::tempdir().unwrap();
    let store = Store::open(Some(&db.url), data_dir.path(), SampleSize::None)
        .await
        .unwrap();
    let counts = store.counts(0).await.unwrap();
    assert_eq!(
        (
            counts.observations,
            counts.sites,
            counts.classifications,
            counts.classification_projects,
            counts.volunteers
        ),
        (3, 1, 3, 1, 2),
        "{counts:?}"
    );
    let filter = ObservationFilter {
        limit: 100,
        ..ObservationFilter::default()
    };
    let rows = store.observations(&filter).await.unwrap();
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    assert_eq!(ids, [3, 2, 1]);
    let live = Live::new(store.clone(), LiveConfig::default());
    let r = live::observations(
        &live,
        &common::live::get("/api/observations-data.php?parameter=nitrate", &[]),
    )
    .await;
    assert_eq!(r.status(), 200);
    let (_, v) = common::live::json(r).await;
    assert_eq!(v["data"][0]["site_id"], "nl-up-1");
    assert_eq!(db.count("enquiries").await, 1);
    let enquiries = store
        .enquiries(sidecar::store::contact::Selection::All)
        .await
        .unwrap();
    assert_eq!(enquiries[0].language, "en");
    assert_eq!(db.count("outbox WHERE status = 'pending'").await, 1);
    assert_eq!(db.count("observations").await, 5);

    // The new schema's imports work on it, repeatably.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("after.csv");
    std::fs::write(
        &csv,
        "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag,source,source_id\n\
         nl-up-1,Upgrade Brook,NL,stream,52.0912,5.1214,2024-06-01T10:00:00Z,nitrate,9.5,mg/L,colorimetric test kit,valid,ww-app,7001\n",
    )
    .unwrap();
    let first = sidecar::store::import::run(&store, &csv).await.unwrap();
    let again = sidecar::store::import::run(&store, &csv).await.unwrap();
    assert_eq!((first.added, again.added, again.unchanged), (1, 0, 1));
    assert_eq!(store.counts(0).await.unwrap().observations, 4);
    drop((store, live));
    db.drop().await;
}

async fn a_database_newer_than_the_binary_is_refused(backend: Backend) {
    let name = format!("newer_{backend:?}").to_lowercase();
    let Some(db) = old_database(backend, &name).await else {
        return;
    };
    db.record_version(99).await;
    let check = sidecar(&["migrate", "--check"], &db.url);
    assert_eq!(check.status.code(), Some(1));
    let err = String::from_utf8_lossy(&check.stderr);
    assert!(
        err.contains("schema is version 99, newer than this sidecar knows"),
        "{err}"
    );
    assert!(err.contains("restore the backup"), "{err}");
    let data_dir = tempfile::tempdir().unwrap();
    let err = Store::open(Some(&db.url), data_dir.path(), SampleSize::None)
        .await
        .unwrap_err();
    assert!(
        format!("{err:#}").contains("newer than this sidecar knows"),
        "{err:#}"
    );
    // Nothing was applied on the way.
    assert_eq!(db.count("schema_migrations").await, 3);
    db.drop().await;
}

common::both_backends!(
    upgrades_the_previous_release_and_serves_from_it,
    a_database_newer_than_the_binary_is_refused,
);
