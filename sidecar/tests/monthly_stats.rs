//! The `monthly` series of `GET /api/platform-stats.php`, from known rows
//! in several months, against SQLite and a real PostgreSQL server (see
//! `common::live`): both must give the same answer.

use common::both_backends;
use common::live::{Backend, get, json, open};
use serde_json::{Value, json};
use sidecar::live::{self, Live, LiveConfig};
use sidecar::store::rfc3339::parse_rfc3339;
use sidecar::store::{NewClassification, NewObservation, SampleSize, Site};

const STATS: &str = "/api/platform-stats.php";

fn site(id: &str, public: bool) -> Site {
    Site {
        id: id.into(),
        name: format!("Site {id}"),
        country: "NL".into(),
        water_body_type: "river".into(),
        latitude: 52.0,
        longitude: 5.0,
        public,
    }
}

fn obs(site: &str, at: &str, parameter: &str) -> NewObservation {
    NewObservation {
        id: 0,
        site_id: site.into(),
        observed_at: parse_rfc3339(at).unwrap(),
        parameter: parameter.into(),
        value: 1.0,
        unit: "mg/L".into(),
        method: "test kit".into(),
        quality_flag: "valid".into(),
        volunteer_id: None,
        source: None,
        source_id: None,
    }
}

fn classification(n: u32, created_at: i64) -> NewClassification {
    NewClassification {
        project_id: "otters".into(),
        project_name: "Otter watch".into(),
        source_id: n.to_string(),
        created_at,
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The months from `first` to `last` (`YYYY-MM`), both included.
fn months(first: &str, last: &str) -> Vec<String> {
    let parse = |m: &str| {
        let y: i64 = m[..4].parse().unwrap();
        let mo: i64 = m[5..7].parse().unwrap();
        y * 12 + mo - 1
    };
    (parse(first)..=parse(last))
        .map(|i| format!("{:04}-{:02}", i / 12, i % 12 + 1))
        .collect()
}

async fn monthly_series_counts_each_month_once_without_gaps(backend: Backend) {
    let Some(db) = open(backend, "monthly", SampleSize::None).await else {
        return;
    };
    let sites = vec![site("a", true), site("b", true), site("p", false)];
    let rows = vec![
        // January 2025: two, the second in the month's last second.
        obs("a", "2025-01-03T10:00:00Z", "nitrate"),
        obs("b", "2025-01-31T23:59:59Z", "nitrate"),
        // February 2025 begins at midnight UTC.
        obs("a", "2025-02-01T00:00:00Z", "nitrate"),
        // A private site's reading is never counted.
        obs("p", "2025-03-10T12:00:00Z", "nitrate"),
        // May 2025: three.
        obs("a", "2025-05-15T08:00:00Z", "nitrate"),
        obs("a", "2025-05-15T08:00:00Z", "ph"),
        obs("b", "2025-05-20T08:00:00Z", "ph"),
        // A reading dated in the future counts in the total, not per month.
        obs("a", "2099-01-01T00:00:00Z", "nitrate"),
    ];
    assert_eq!(db.store.import(sites, rows).await.unwrap(), 8);
    let at = |s: &str| parse_rfc3339(s).unwrap();
    let classifications = vec![
        classification(1, at("2025-03-31T23:00:00Z")),
        classification(2, at("2025-05-01T00:00:00Z")),
        classification(3, at("2025-05-31T12:00:00Z")),
        classification(4, now()),
    ];
    assert_eq!(
        db.store
            .import_classifications(classifications)
            .await
            .unwrap(),
        4
    );

    let live = Live::new(db.store.clone(), LiveConfig::default());
    let r = live::platform_stats(&live, &get(STATS, &[])).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    let (_, v) = json(r).await;
    assert_eq!(v["observations"], 7);
    assert_eq!(v["classifications"], 4);

    let current = &v["generated_at"].as_str().unwrap()[..7];
    let expected: Vec<Value> = months("2025-01", current)
        .into_iter()
        .map(|m| {
            let (o, c) = match m.as_str() {
                "2025-01" => (2, 0),
                "2025-02" => (1, 0),
                "2025-03" => (0, 1),
                "2025-05" => (3, 2),
                _ => (0, 0),
            };
            // The classification made now falls in the current month.
            let c = if m == current { c + 1 } else { c };
            json!({ "month": m, "observations": o, "classifications": c })
        })
        .collect();
    assert_eq!(v["monthly"], Value::Array(expected), "{backend:?}");
}

both_backends!(monthly_series_counts_each_month_once_without_gaps);
