//! Shared by the `live_*` tests: a real database of either backend, request
//! parts, response bodies, and a known fixture data set.
//!
//! PostgreSQL tests read `TEST_DATABASE_URL` (e.g. from
//! `scripts/pg-test-server`) and fail when it is unset, unless
//! `SIDECAR_SKIP_PG=1`. Each test works in its own schema, recreated at the
//! start.

use std::path::PathBuf;

use http::request::Parts;
use http_body_util::BodyExt;
use sidecar::store::{NewObservation, SampleSize, Site, Store, postgres::PgStore};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A store on a real database, and what keeps it alive.
pub struct TestDb {
    pub store: Store,
    pub backend: Backend,
    /// SQLite: the database file.
    pub file: Option<PathBuf>,
    /// PostgreSQL: the URL and schema.
    pub pg: Option<(String, String)>,
    _dir: tempfile::TempDir,
}

pub fn pg_url() -> Option<String> {
    match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("SIDECAR_SKIP_PG").as_deref() == Ok("1") => None,
        _ => panic!(
            "TEST_DATABASE_URL is unset: run `TEST_DATABASE_URL=$(scripts/pg-test-server) \
             cargo test -p sidecar`, or set SIDECAR_SKIP_PG=1 to skip the PostgreSQL half"
        ),
    }
}

async fn pg_exec(url: &str, sql: &str) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connecting to TEST_DATABASE_URL");
    let task = tokio::spawn(conn);
    client.batch_execute(sql).await.expect(sql);
    drop(client);
    let _ = task.await;
}

/// An empty (migrated) store, or `None` when PostgreSQL is skipped.
pub async fn open(backend: Backend, name: &str, sample: SampleSize) -> Option<TestDb> {
    let dir = tempfile::tempdir().unwrap();
    match backend {
        Backend::Sqlite => {
            let store = Store::open(None, dir.path(), sample).await.unwrap();
            Some(TestDb {
                store,
                backend,
                file: Some(dir.path().join("service.sqlite3")),
                pg: None,
                _dir: dir,
            })
        }
        Backend::Postgres => {
            let url = pg_url()?;
            let schema = format!("t_{name}");
            pg_exec(&url, &format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).await;
            let store = Store::Postgres(PgStore::open(&url, Some(&schema)).await.unwrap());
            store.fill_sample(sample).await.unwrap();
            Some(TestDb {
                store,
                backend,
                file: None,
                pg: Some((url, schema)),
                _dir: dir,
            })
        }
    }
}

impl TestDb {
    /// Makes the live queries fail, as an unreachable database would: the
    /// tables they read are renamed away.
    pub async fn break_database(&self) {
        let sql = "ALTER TABLE volunteers RENAME TO volunteers_gone; \
                   ALTER TABLE observations RENAME TO observations_gone;";
        match &self.pg {
            Some((url, schema)) => {
                pg_exec(url, &format!("SET search_path = {schema}; {sql}")).await;
            }
            None => {
                let conn = rusqlite::Connection::open(self.file.as_ref().unwrap()).unwrap();
                conn.execute_batch(sql).unwrap();
            }
        }
    }
}

fn site(
    id: &str,
    name: &str,
    country: &str,
    water: &str,
    lat: f64,
    lon: f64,
    public: bool,
) -> Site {
    Site {
        id: id.into(),
        name: name.into(),
        country: country.into(),
        water_body_type: water.into(),
        latitude: lat,
        longitude: lon,
        public,
    }
}

fn obs(site: &str, at: &str, parameter: &str, value: f64, unit: &str) -> NewObservation {
    NewObservation {
        id: 0,
        site_id: site.into(),
        observed_at: sidecar::store::rfc3339::parse_rfc3339(at).unwrap(),
        parameter: parameter.into(),
        value,
        unit: unit.into(),
        method: "test kit".into(),
        quality_flag: "valid".into(),
        volunteer_id: None,
        source: None,
        source_id: None,
    }
}

/// Public observations of the fixture, newest first, by id.
pub const FIXTURE_ORDER: [i64; 6] = [7, 6, 4, 3, 2, 1];

/// Three sites (one private) and seven observations (ids 1–7; 5 is at the
/// private site; 2 and 3, 6 and 7 share a time).
pub async fn load_fixture(store: &Store) {
    let sites = vec![
        site(
            "a-1",
            "Alpha, \"the\" River",
            "NL",
            "river",
            52.123456,
            4.987654,
            true,
        ),
        site("b-2", "Beta Lake", "DE", "lake", 48.5, 11.25, true),
        site("p-3", "Private Pond", "NL", "pond", 52.2, 5.0, false),
    ];
    let rows = vec![
        obs("a-1", "2025-01-01T10:00:00Z", "nitrate", 5.5, "mg/L"),
        obs("a-1", "2025-01-02T10:00:00Z", "ph", 7.1, "pH"),
        obs("b-2", "2025-01-02T10:00:00Z", "nitrate", 3.2, "mg/L"),
        obs("b-2", "2025-02-01T08:30:00Z", "temperature", 4.5, "°C"),
        obs("p-3", "2025-02-02T09:00:00Z", "nitrate", 9.9, "mg/L"),
        obs("a-1", "2025-03-01T12:00:00Z", "nitrate", 6.1, "mg/L"),
        obs("b-2", "2025-03-01T12:00:00Z", "phosphate", 0.3, "mg/L"),
    ];
    assert_eq!(store.import(sites, rows).await.unwrap(), 7);
}

pub fn get(uri: &str, headers: &[(&str, &str)]) -> Parts {
    let mut b = http::Request::builder().uri(uri);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    b.body(()).unwrap().into_parts().0
}

pub async fn body(r: http::Response<sidecar::Body>) -> (http::response::Parts, bytes::Bytes) {
    let (parts, body) = r.into_parts();
    (parts, body.collect().await.unwrap().to_bytes())
}

pub async fn json(r: http::Response<sidecar::Body>) -> (http::response::Parts, serde_json::Value) {
    let (parts, bytes) = body(r).await;
    let v = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&bytes)));
    (parts, v)
}

/// Runs each listed `async fn name(Backend)` once per backend.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::live::Backend::Sqlite).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::live::Backend::Postgres).await
                }
            )*
        }
    };
}
