//! Real responses of the four live routes — successes, 304s and every
//! error they answer themselves — validate against the schemas of the built
//! contract.
//!
//! The built contract comes from `CONTRACT_OPENAPI` (see `common::openapi`).

use common::live::{Backend, body, get, load_fixture, open};
use common::openapi::{contract, resolve};
use http::Response;
use serde_json::Value;
use sidecar::Body;
use sidecar::live::{self, Live, LiveConfig};
use sidecar::store::SampleSize;

/// Checks a live answer against the operation `GET path` of the contract.
async fn check(doc: &Value, path: &str, response: Response<Body>) -> Value {
    let (parts, bytes) = body(response).await;
    common::openapi::check(
        doc,
        "get",
        path,
        parts.status.as_u16(),
        &parts.headers,
        &bytes,
    )
}

/// Also checks that each request parameter we send is declared.
fn declared_parameters(doc: &Value, path: &str) -> Vec<String> {
    doc["paths"][path]["get"]["parameters"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .map(|p| resolve(doc, p)["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_responses_match_the_contract() {
    let Some(doc) = contract() else {
        return;
    };
    let db = open(Backend::Sqlite, "contract", SampleSize::Default)
        .await
        .unwrap();
    load_fixture(&db.store).await;
    let base = "https://example.org";
    let live = Live::new(
        db.store.clone(),
        LiveConfig {
            problem_base: base.into(),
            ..LiveConfig::default()
        },
    );

    const STATS: &str = "/api/platform-stats.php";
    const OBS: &str = "/api/observations-data.php";
    const GLOBE: &str = "/api/globe-data.php";

    let stats = check(
        &doc,
        STATS,
        live::platform_stats(&live, &get(STATS, &[])).await,
    )
    .await;
    assert_eq!(stats["stale"], false);

    let names = declared_parameters(&doc, OBS);
    for p in [
        "parameter",
        "site",
        "from",
        "to",
        "bbox",
        "limit",
        "cursor",
        "format",
    ] {
        assert!(
            names.iter().any(|n| n == p),
            "parameter {p} is not declared"
        );
    }
    for query in [
        "",
        "limit=1000",
        "parameter=nitrate&limit=3",
        "site=nl-0001",
        "from=2025-01-01&to=2025-12-31T23:59:59Z",
        "bbox=3.3,50.7,7.3,53.6&limit=5",
        "format=csv&limit=3",
        // Every answer the route gives itself, errors included.
        "colour=red",
        "limit=0",
        "cursor=%%%",
        "bbox=1,2,3",
    ] {
        let uri = format!("{OBS}?{query}");
        let page = check(&doc, OBS, live::observations(&live, &get(&uri, &[])).await).await;
        if let Some(c) = page["next_cursor"].as_str() {
            let uri = format!("{OBS}?{query}&cursor={c}");
            check(&doc, OBS, live::observations(&live, &get(&uri, &[])).await).await;
        }
    }
    check(
        &doc,
        OBS,
        live::observations(&live, &get(OBS, &[("accept", "text/csv")])).await,
    )
    .await;

    let r = live::globe(&live, &get(GLOBE, &[])).await;
    let tag = r.headers()["etag"].to_str().unwrap().to_owned();
    let globe = check(&doc, GLOBE, r).await;
    assert!(globe["features"].as_array().unwrap().len() > 300);
    let r = live::globe(&live, &get(GLOBE, &[("if-none-match", &tag)])).await;
    assert_eq!(r.status(), 304);
    check(&doc, GLOBE, r).await;

    const TREND: &str = "/api/observation-trend";
    let names = declared_parameters(&doc, TREND);
    for p in contract::observations::TREND_QUERY_PARAMETERS {
        assert!(
            names.iter().any(|n| n == p),
            "parameter {p} is not declared"
        );
    }
    for query in [
        "parameter=nitrate",
        "parameter=nitrate&site=nl-0001&interval=year",
        "parameter=ph&country=NL&from=2022-01-01&to=2022-12-31&interval=week",
        "parameter=ammonium&bbox=3.3,50.7,7.3,53.6&interval=day&from=2024-06-01",
        "parameter=phosphate&from=2030-01-01",
        "parameter=temperature&interval=day",
        // Every answer the route gives itself, errors included.
        "",
        "parameter=gold",
        "parameter=ph&colour=red",
        "parameter=ph&country=nl",
    ] {
        let uri = format!("{TREND}?{query}");
        let r = live::trend::trend(&live, &get(&uri, &[])).await;
        let status = r.status();
        let v = check(&doc, TREND, r).await;
        if query.starts_with("parameter=nitrate") {
            assert_eq!(status, 200, "{query}: {v}");
            assert!(!v["buckets"].as_array().unwrap().is_empty(), "{query}");
        }
    }

    // The database fails: the stale statistics, then 503 without a last good value.
    let zero_age = || LiveConfig {
        problem_base: base.into(),
        stats_max_age: std::time::Duration::ZERO,
        ..LiveConfig::default()
    };
    let refreshing = Live::new(db.store.clone(), zero_age());
    live::platform_stats(&refreshing, &get(STATS, &[])).await;
    db.break_database().await;
    let stale = check(
        &doc,
        STATS,
        live::platform_stats(&refreshing, &get(STATS, &[])).await,
    )
    .await;
    assert_eq!(stale["stale"], true);
    let broken = Live::new(db.store.clone(), zero_age());
    for path in [STATS, OBS, GLOBE, TREND] {
        let r = match path {
            STATS => live::platform_stats(&broken, &get(path, &[])).await,
            OBS => live::observations(&broken, &get(path, &[])).await,
            TREND => {
                let uri = format!("{TREND}?parameter=ph");
                live::trend::trend(&broken, &get(&uri, &[])).await
            }
            _ => live::globe(&broken, &get(path, &[])).await,
        };
        assert_eq!(r.status(), 503, "{path}");
        let v = check(&doc, path, r).await;
        assert_eq!(v["code"], "service_unavailable");
    }
}
