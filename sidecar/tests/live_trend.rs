//! `/api/observation-trend` and the MCP live tools over a real store, on
//! SQLite and PostgreSQL (see `common::live`): the figures of the fixture,
//! the `country` filter, and a database that fails answering the tools as
//! results with `isError` (decision 0223).

use std::sync::Arc;

use common::both_backends;
use common::live::{Backend, TestDb, get, json, load_fixture, open};
use serde_json::{Map, Value, json};
use sidecar::live::mcp_tools::McpLiveTools;
use sidecar::live::{Live, LiveConfig, trend};
use sidecar::mcp::LiveTools;
use sidecar::mcp::tools::TOOL_FAULT;
use sidecar::store::SampleSize;

const TREND: &str = "/api/observation-trend";

async fn fixture(backend: Backend, name: &str) -> Option<(TestDb, Live)> {
    let db = open(backend, name, SampleSize::None).await?;
    load_fixture(&db.store).await;
    let cfg = LiveConfig {
        problem_base: "https://example.org".into(),
        observation_pages_cached: 0,
        ..LiveConfig::default()
    };
    let live = Live::new(db.store.clone(), cfg);
    Some((db, live))
}

async fn trend_of(live: &Live, query: &str) -> (u16, Value) {
    let r = trend::trend(live, &get(&format!("{TREND}?{query}"), &[])).await;
    let status = r.status().as_u16();
    (status, json(r).await.1)
}

async fn figures_of_the_fixture(backend: Backend) {
    let Some((_db, live)) = fixture(backend, "trend_figures").await else {
        return;
    };
    // Public nitrate: 5.5 (a-1, NL) and 3.2 (b-2, DE) in January 2025,
    // 6.1 (a-1) in March; the private site's 9.9 stays out.
    let (status, t) = trend_of(&live, "parameter=nitrate").await;
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["unit"], "mg/L");
    assert_eq!(t["interval"], "month");
    assert_eq!(t["observations"], 3);
    assert_eq!(
        t["buckets"],
        json!([
            {"start": "2025-01-01", "count": 2, "min": 3.2, "mean": 4.35, "max": 5.5},
            {"start": "2025-03-01", "count": 1, "min": 6.1, "mean": 6.1, "max": 6.1}
        ])
    );
    assert_eq!(t["trend"]["change"], 1.75);
    assert!(t["trend"]["slope_per_year"].as_f64().unwrap() > 0.0);
    assert_eq!(t["first_observed_at"], "2025-01-01T10:00:00Z");
    assert!(t["licence"]["id"].is_string() && t["attribution"].is_string());

    let (_, nl) = trend_of(&live, "parameter=nitrate&country=NL&interval=year").await;
    assert_eq!(
        nl["buckets"],
        json!([{"start": "2025-01-01", "count": 2, "min": 5.5, "mean": 5.8, "max": 6.1}])
    );
    assert_eq!(nl["selection"], json!({"country": "NL"}));
    assert_eq!(nl["trend"]["change"], Value::Null, "one bucket, no change");
    let (_, de) = trend_of(&live, "parameter=nitrate&site=b-2").await;
    assert_eq!(de["observations"], 1);
    assert_eq!(de["trend"]["slope_per_year"], Value::Null);
    let (_, none) = trend_of(&live, "parameter=ammonium&from=2025-01-01&to=2025-12-31").await;
    assert_eq!(none["observations"], 0);
    assert_eq!(none["buckets"], json!([]));
    assert_eq!(
        none["unit"], "mg/L",
        "the vocabulary's unit when no row has one"
    );

    let (status, p) = trend_of(&live, "site=a-1").await;
    assert_eq!(status, 400);
    assert_eq!(p["errors"][0]["name"], "parameter");
    let (status, p) = trend_of(&live, "parameter=ph&interval=hour").await;
    assert_eq!(status, 400);
    assert_eq!(p["errors"][0]["name"], "interval");
}

/// A database that cannot be read: each live tool answers a fault saying
/// when to retry, which `tools/call` turns into a result with `isError`.
async fn a_failing_database_is_a_tool_fault(backend: Backend) {
    let Some((db, live)) = fixture(backend, "trend_faults").await else {
        return;
    };
    db.break_database().await;
    let tools = McpLiveTools(Arc::new(live));
    let args = |v: Value| -> Map<String, Value> { v.as_object().unwrap().clone() };
    let faults = [
        ("get_platform_statistics", tools.stats().await),
        ("get_observations", tools.observations(Map::new()).await),
        ("get_globe_points", tools.globe(Map::new()).await),
        (
            "get_observation_trend",
            tools.trend(args(json!({"parameter": "ph"}))).await,
        ),
    ];
    for (name, got) in faults {
        let e = got.expect_err(name);
        assert_eq!(e.code, TOOL_FAULT, "{name}: {}", e.message);
        assert!(
            e.message.contains("Retry after 30 seconds"),
            "{name}: {}",
            e.message
        );
    }
    // Bad arguments stay -32602, naming the argument, even then.
    let e = tools
        .trend(args(json!({"parameter": "ph", "site": "a b"})))
        .await
        .unwrap_err();
    assert_eq!(e.code, -32602);
    assert_eq!(e.data.unwrap()["argument"], "site");
}

both_backends!(figures_of_the_fixture, a_failing_database_is_a_tool_fault);
