//! Real responses of the three live routes — successes, 304s and every
//! error they answer themselves — validate against the schemas of the built
//! contract.
//!
//! The sidecar does not depend on the generator, so this test reads a built
//! `openapi.json` from `CONTRACT_OPENAPI`, e.g.
//!
//! ```text
//! cargo run -p generator -- build --out /tmp/site
//! CONTRACT_OPENAPI=/tmp/site/openapi.json cargo test -p sidecar --test live_contract
//! ```
//!
//! It fails when the variable is unset, unless `SIDECAR_SKIP_CONTRACT=1`.

mod live_support;

use http::Response;
use live_support::{Backend, body, get, load_fixture, open};
use serde_json::{Value, json};
use sidecar::Body;
use sidecar::live::{self, Live, LiveConfig};
use sidecar::store::SampleSize;

fn contract() -> Option<Value> {
    let Ok(path) = std::env::var("CONTRACT_OPENAPI") else {
        if std::env::var("SIDECAR_SKIP_CONTRACT").as_deref() == Ok("1") {
            return None;
        }
        panic!(
            "CONTRACT_OPENAPI is unset: build the site (`cargo run -p generator -- build --out \
             /tmp/site`) and set CONTRACT_OPENAPI=/tmp/site/openapi.json, or set \
             SIDECAR_SKIP_CONTRACT=1"
        );
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Some(serde_json::from_str(&text).unwrap())
}

/// Follows a local `$ref` (`#/components/...`).
fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v["$ref"].as_str() {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("dangling {r}")),
        None => v,
    }
}

/// Checks a response against the operation `GET path` of the contract:
/// the status is declared, declared headers are present, and the body
/// validates against the schema of its media type.
async fn check(doc: &Value, path: &str, response: Response<Body>) -> Value {
    let status = response.status().as_u16().to_string();
    let op = &doc["paths"][path]["get"];
    assert!(op.is_object(), "{path} is not in the contract");
    let declared = op["responses"]
        .get(&status)
        .unwrap_or_else(|| panic!("{path}: status {status} is not declared"));
    let declared = resolve(doc, declared);
    let (parts, bytes) = body(response).await;
    if let Some(headers) = declared["headers"].as_object() {
        for name in headers.keys() {
            if name == "Vary" && status == "304" {
                continue;
            }
            assert!(
                parts.headers.contains_key(name.as_str()),
                "{path} {status}: header {name} is declared but missing"
            );
        }
    }
    let Some(content) = declared["content"].as_object() else {
        assert!(bytes.is_empty(), "{path} {status}: undeclared body");
        return Value::Null;
    };
    let media = parts.headers["content-type"].to_str().unwrap();
    let essence = media.split(';').next().unwrap().trim();
    let schema = &content
        .get(essence)
        .unwrap_or_else(|| panic!("{path} {status}: media type {essence} is not declared"))["schema"];
    let instance: Value = if essence == "text/csv" {
        Value::String(String::from_utf8(bytes.to_vec()).unwrap())
    } else {
        serde_json::from_slice(&bytes).unwrap()
    };
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": doc["components"],
        "allOf": [schema],
    });
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("{path} {status}: schema does not compile: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{path} {status} ({essence}) does not match the contract:\n{}\n{instance:#}",
        errors.join("\n")
    );
    instance
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
    for path in [STATS, OBS, GLOBE] {
        let r = match path {
            STATS => live::platform_stats(&broken, &get(path, &[])).await,
            OBS => live::observations(&broken, &get(path, &[])).await,
            _ => live::globe(&broken, &get(path, &[])).await,
        };
        assert_eq!(r.status(), 503, "{path}");
        let v = check(&doc, path, r).await;
        assert_eq!(v["code"], "service_unavailable");
    }
}
