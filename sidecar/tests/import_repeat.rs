//! Imports that can be repeated, on SQLite and on a real PostgreSQL server:
//! the same file twice adds nothing; a file says which sites are private; a
//! corrections file withdraws or replaces observations, and withdrawn ones
//! vanish from every public read; classification exports are counted; a
//! bad row names its line and leaves the database as it was.

use common::both_backends;
use common::live::{Backend, TestDb, get, json, open};
use sidecar::live::{self, Live, LiveConfig};
use sidecar::store::import::{self, ImportError, classifications};
use sidecar::store::{Applied, ObservationFilter, SampleSize};

const HEADER: &str = "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag,site_public,source,source_id";
const CORRECTIONS: &str = "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag,source,source_id,action";

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Public observation ids, newest first, as the store reads them.
async fn public_ids(db: &TestDb) -> Vec<i64> {
    let filter = ObservationFilter {
        limit: 1000,
        ..ObservationFilter::default()
    };
    let rows = db.store.observations(&filter).await.unwrap();
    rows.iter().map(|r| r.id).collect()
}

/// Public ids through the observation route of a fresh `Live` (no cache).
async fn served_ids(db: &TestDb) -> Vec<i64> {
    let live = Live::new(db.store.clone(), LiveConfig::default());
    let r = live::observations(&live, &get("/api/observations-data.php?limit=1000", &[])).await;
    assert_eq!(r.status(), 200);
    let (_, v) = json(r).await;
    let data = v["data"].as_array().unwrap();
    data.iter().map(|o| o["id"].as_i64().unwrap()).collect()
}

async fn the_same_file_twice_adds_nothing(backend: Backend) {
    let Some(db) = open(backend, "import_twice", SampleSize::None).await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "export.csv",
        &format!(
            "{HEADER}\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-01T10:00:00Z,nitrate,12.5,mg/L,kit,valid,true,ww-app,r1\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-01T10:00:00Z,ph,7.5,pH,strip,valid,true,ww-app,r2\n\
             p-2,Garden Pond,NL,pond,52.2,5.2,2024-03-02T10:00:00Z,ph,7.1,pH,strip,valid,false,ww-app,r3\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-03T10:00:00Z,ph,7.3,pH,strip,valid,true,ww-app,\n"
        ),
    );
    let first = import::run(&db.store, &file).await.unwrap();
    assert_eq!((first.added, first.unchanged, first.sites), (4, 0, 2));
    let counts = db.store.counts(0).await.unwrap();
    let ids = public_ids(&db).await;
    let second = import::run(&db.store, &file).await.unwrap();
    assert_eq!(
        second,
        Applied {
            unchanged: 4,
            sites: 2,
            ..Applied::default()
        }
    );
    assert_eq!(db.store.observation_count().await.unwrap(), 4);
    assert_eq!(db.store.counts(0).await.unwrap(), counts);
    assert_eq!(public_ids(&db).await, ids);
    // The private site's observation is kept and never published.
    assert_eq!(counts.observations, 3);
    assert_eq!(counts.sites, 1);
    assert_eq!(ids.len(), 3);

    // An older export without the new columns: the natural key (source
    // `import`, site, parameter, time) makes it repeatable too, and it
    // leaves the private site private.
    let old = write(
        &dir,
        "old.csv",
        "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag\n\
         p-2,Garden Pond,NL,pond,52.2,5.2,2024-04-02T10:00:00Z,ph,7.0,pH,strip,valid\n",
    );
    assert_eq!(import::run(&db.store, &old).await.unwrap().added, 1);
    assert_eq!(import::run(&db.store, &old).await.unwrap().added, 0);
    assert_eq!(db.store.counts(0).await.unwrap().sites, 1);
    // A file that says so makes it public.
    let public = write(
        &dir,
        "public.csv",
        &format!(
            "{HEADER}\np-2,Garden Pond,NL,pond,52.2,5.2,2024-03-02T10:00:00Z,ph,7.1,pH,strip,valid,true,ww-app,r3\n"
        ),
    );
    let applied = import::run(&db.store, &public).await.unwrap();
    assert_eq!((applied.added, applied.unchanged), (0, 1));
    assert_eq!(db.store.counts(0).await.unwrap().sites, 2);
    assert_eq!(db.store.counts(0).await.unwrap().observations, 5);
}

async fn corrections_withdraw_and_replace(backend: Backend) {
    let Some(db) = open(backend, "import_corrections", SampleSize::None).await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let export = write(
        &dir,
        "export.csv",
        &format!(
            "{HEADER}\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-01T10:00:00Z,nitrate,12.5,mg/L,kit,valid,true,ww-app,r1\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-02T10:00:00Z,ph,7.5,pH,strip,valid,true,ww-app,r2\n\
             b-2,Birch Lake,DE,lake,48.5,11.2,2024-03-03T10:00:00Z,nitrate,3.1,mg/L,kit,valid,true,ww-app,r3\n"
        ),
    );
    import::run(&db.store, &export).await.unwrap();
    assert_eq!(served_ids(&db).await, [3, 2, 1]);
    assert_eq!(db.store.site_summaries().await.unwrap().len(), 2);

    let corrections = write(
        &dir,
        "corrections.csv",
        &format!(
            "{CORRECTIONS}\n\
             b-2,Birch Lake,DE,lake,48.5,11.2,2024-03-03T10:00:00Z,nitrate,3.1,mg/L,kit,valid,ww-app,r3,withdraw\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-02T10:00:00Z,ph,7.2,pH,strip,suspect,ww-app,r2,replace\n"
        ),
    );
    let applied = import::run(&db.store, &corrections).await.unwrap();
    assert_eq!((applied.withdrawn, applied.replaced), (1, 1));
    // Withdrawn: gone from the observations (store and route), the counts
    // and the globe's site list.
    assert_eq!(served_ids(&db).await, [2, 1]);
    let counts = db.store.counts(0).await.unwrap();
    assert_eq!(counts.observations, 2);
    assert_eq!(counts.observations_since, 2);
    let summaries = db.store.site_summaries().await.unwrap();
    assert_eq!(summaries.len(), 1);
    assert_eq!(summaries[0].site.id, "a-1");
    assert_eq!(summaries[0].observations, 2);
    let filter = ObservationFilter {
        parameter: Some("ph".into()),
        limit: 10,
        ..ObservationFilter::default()
    };
    let replaced = &db.store.observations(&filter).await.unwrap()[0];
    assert_eq!(
        (replaced.value, replaced.quality_flag.as_str()),
        (7.2, "suspect")
    );

    // Again: nothing changes; the original export does not bring the
    // withdrawn observation back, nor undo the replacement.
    let again = import::run(&db.store, &corrections).await.unwrap();
    assert_eq!(
        (again.withdrawn, again.replaced, again.unchanged),
        (0, 0, 2)
    );
    let again = import::run(&db.store, &export).await.unwrap();
    assert_eq!((again.added, again.unchanged), (0, 3));
    assert_eq!(served_ids(&db).await, [2, 1]);
    assert_eq!(db.store.observations(&filter).await.unwrap()[0].value, 7.2);

    // A correction of an observation that is not there fails by line, and
    // the file's other rows (an addition, a withdrawal) are not written.
    let unknown = write(
        &dir,
        "unknown.csv",
        &format!(
            "{CORRECTIONS}\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-05-01T10:00:00Z,ph,7.0,pH,strip,valid,ww-app,r8,\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-01T10:00:00Z,nitrate,12.5,mg/L,kit,valid,ww-app,r1,withdraw\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-01T10:00:00Z,nitrate,12.5,mg/L,kit,valid,ww-app,r9,replace\n"
        ),
    );
    let err = import::run(&db.store, &unknown).await.unwrap_err();
    assert!(matches!(err, ImportError::Row { line: 4, .. }), "{err}");
    assert!(err.to_string().contains("to replace"), "{err}");
    assert_eq!(served_ids(&db).await, [2, 1]);
    assert_eq!(db.store.observation_count().await.unwrap(), 3);

    // A bad action is refused before the database is touched.
    let bad = write(
        &dir,
        "bad.csv",
        &format!(
            "{CORRECTIONS}\n\
             a-1,Alder Brook,NL,stream,52.1,5.1,2024-03-01T10:00:00Z,nitrate,12.5,mg/L,kit,valid,ww-app,r1,delete\n"
        ),
    );
    let err = import::run(&db.store, &bad).await.unwrap_err().to_string();
    assert_eq!(
        err,
        "line 2: action `delete` is not one of add, withdraw, replace"
    );
}

async fn classifications_are_imported_once(backend: Backend) {
    let Some(db) = open(backend, "import_classifications", SampleSize::None).await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "classifications.csv",
        "project_id,project_name,classification_id,created_at\n\
         riverlens,Riverlens,9001,2026-11-01T08:00:00Z\n\
         riverlens,Riverlens,9002,2026-11-01T08:01:00Z\n\
         bankcam,Bank Camera Traps,9001,2026-11-02T09:00:00Z\n",
    );
    let first = classifications::run(&db.store, &file).await.unwrap();
    assert_eq!((first.rows, first.added), (3, 3));
    let counts = db.store.counts(0).await.unwrap();
    assert_eq!(
        (
            counts.classifications,
            counts.classification_projects,
            counts.projects
        ),
        (3, 2, 2)
    );
    let again = classifications::run(&db.store, &file).await.unwrap();
    assert_eq!((again.rows, again.added), (3, 0));
    assert_eq!(db.store.counts(0).await.unwrap(), counts);

    // A bad row names its line; the good row before it is not written.
    let bad = write(
        &dir,
        "bad.csv",
        "project_id,project_name,classification_id,created_at\n\
         riverlens,Riverlens,9003,2026-11-03T08:00:00Z\n\
         riverlens,Riverlens,9004,03/11/2026\n",
    );
    let err = classifications::run(&db.store, &bad).await.unwrap_err();
    assert!(err.to_string().starts_with("line 3: created_at"), "{err}");
    assert_eq!(db.store.counts(0).await.unwrap(), counts);
}

both_backends!(
    the_same_file_twice_adds_nothing,
    corrections_withdraw_and_replace,
    classifications_are_imported_once,
);
