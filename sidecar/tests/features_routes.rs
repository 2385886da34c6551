//! The OGC API – Features routes over a real SQLite file and, with
//! `TEST_DATABASE_URL`, a real PostgreSQL server: the privacy rules of the
//! other live routes (no private site, rounded locations), paging through
//! `next` links, `bbox` (four and six numbers, across the antimeridian),
//! `datetime` (GDAL's forms too), property filters and `numberMatched`,
//! the queryables, single features, 404s and 400s,
//! HTML; every JSON answer checked against the built contract when
//! `CONTRACT_OPENAPI` names one.

use common::live::{Backend, load_fixture, open, pg_url};
use contract::routes::Endpoint;
use serde_json::Value;
use sidecar::live::features::features;
use sidecar::live::{Live, LiveConfig};
use sidecar::published::Published;
use sidecar::store::SampleSize;

const BASE: &str = "https://example.org";

struct Env {
    live: Live,
    release: Published,
    contract: Option<Value>,
}

impl Env {
    /// GET `uri`: status, content type and body (JSON when it is JSON).
    async fn get(&self, uri: &str, accept: &str) -> (u16, String, Value) {
        let path = uri.split('?').next().unwrap();
        let endpoint = Endpoint::lookup(path).unwrap_or_else(|| panic!("{path} is no route"));
        let parts = common::live::get(uri, &[("accept", accept)]);
        let response = features(&self.live, endpoint, &parts, &self.release).await;
        let kind = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        if kind.starts_with("text/html") {
            let (parts, bytes) = common::live::body(response).await;
            let text = String::from_utf8(bytes.to_vec()).unwrap();
            return (parts.status.as_u16(), kind, Value::String(text));
        }
        let (parts, bytes) = common::live::body(response).await;
        if let Some(doc) = &self.contract {
            common::openapi::check(
                doc,
                "get",
                endpoint.route().path,
                parts.status.as_u16(),
                &parts.headers,
                &bytes,
            );
        }
        (
            parts.status.as_u16(),
            kind,
            serde_json::from_slice(&bytes).unwrap(),
        )
    }

    async fn ok(&self, uri: &str) -> Value {
        let (status, _, body) = self.get(uri, "application/json").await;
        assert_eq!(status, 200, "{uri}: {body}");
        body
    }
}

fn ids(page: &Value) -> Vec<String> {
    page["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| match &f["id"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

fn next(page: &Value) -> Option<String> {
    page["links"].as_array().unwrap().iter().find_map(|l| {
        (l["rel"] == "next").then(|| {
            let href = l["href"].as_str().unwrap();
            href.strip_prefix(BASE).unwrap().to_owned()
        })
    })
}

async fn env(backend: Backend) -> Option<(Env, common::live::TestDb)> {
    let db = open(backend, "features", SampleSize::None).await?;
    load_fixture(&db.store).await;
    let live = Live::new(
        db.store.clone(),
        LiveConfig {
            problem_base: BASE.into(),
            ..LiveConfig::default()
        },
    );
    let env = Env {
        live,
        release: Published::empty(BASE),
        contract: common::openapi::contract(),
    };
    Some((env, db))
}

async fn the_routes_publish_what_the_live_routes_publish(backend: Backend) {
    let Some((e, _db)) = env(backend).await else {
        return;
    };
    let landing = e.ok("/api/features").await;
    let rels: Vec<&str> = landing["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["rel"].as_str().unwrap())
        .collect();
    for rel in ["self", "service-desc", "service-doc", "conformance", "data"] {
        assert!(rels.contains(&rel), "{rel}");
    }
    assert!(
        landing["links"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["href"].as_str().unwrap().starts_with("https://"))
    );
    let conformance = e.ok("/api/features/conformance").await;
    assert_eq!(conformance["conformsTo"].as_array().unwrap().len(), 6);
    let collections = e.ok("/api/features/collections").await;
    assert_eq!(collections["collections"].as_array().unwrap().len(), 2);
    let sites = e.ok("/api/features/collections/sites").await;
    assert_eq!(
        sites["extent"]["temporal"]["interval"][0],
        serde_json::json!(["2025-01-01T10:00:00Z", "2025-03-01T12:00:00Z"])
    );

    // Sites: the private one absent, locations rounded.
    let page = e.ok("/api/features/collections/sites/items").await;
    assert_eq!(ids(&page), ["a-1", "b-2"]);
    assert_eq!(page["numberReturned"], 2);
    assert_eq!(page["numberMatched"], 2);
    assert_eq!(
        page["features"][0]["geometry"]["coordinates"],
        serde_json::json!([4.99, 52.12])
    );
    assert!(next(&page).is_none());
    // Paged one by one.
    let first = e.ok("/api/features/collections/sites/items?limit=1").await;
    assert_eq!(ids(&first), ["a-1"]);
    assert_eq!(
        (&first["numberReturned"], &first["numberMatched"]),
        (&1.into(), &2.into())
    );
    let second = e.ok(&next(&first).unwrap()).await;
    assert_eq!(ids(&second), ["b-2"]);
    assert!(next(&second).is_none());
    // bbox, on the rounded locations; datetime, on the span of observations.
    let boxed = e
        .ok("/api/features/collections/sites/items?bbox=4.99,52.12,5,53")
        .await;
    assert_eq!(ids(&boxed), ["a-1"]);
    let early = e
        .ok("/api/features/collections/sites/items?datetime=../2025-01-01")
        .await;
    assert_eq!(ids(&early), ["a-1"]);

    // Observations: newest first, the private site's (id 5) absent.
    let mut all = Vec::new();
    let mut uri = Some("/api/features/collections/observations/items?limit=2".to_owned());
    while let Some(u) = uri {
        let page = e.ok(&u).await;
        assert!(page["numberReturned"].as_u64().unwrap() <= 2);
        all.extend(ids(&page));
        uri = next(&page);
    }
    assert_eq!(all, ["7", "6", "4", "3", "2", "1"]);
    let day = e
        .ok("/api/features/collections/observations/items?datetime=2025-01-02")
        .await;
    assert_eq!(ids(&day), ["3", "2"]);
    let window = e
        .ok("/api/features/collections/observations/items?datetime=2025-02-01T08:30:00Z/2025-03-01T12:00:00Z&bbox=11,48,12,49")
        .await;
    assert_eq!(ids(&window), ["7", "4"]);

    // numberMatched: every match over every page, with the page's filters.
    let counted = |page: &Value| {
        (
            page["numberReturned"].as_u64().unwrap(),
            page["numberMatched"].as_u64().unwrap(),
        )
    };
    let uri = "/api/features/collections/observations/items";
    let page = e.ok(&format!("{uri}?limit=2")).await;
    assert_eq!(counted(&page), (2, 6));
    assert_eq!(counted(&e.ok(&next(&page).unwrap()).await), (2, 6));
    assert_eq!(counted(&day), (2, 2));
    assert_eq!(counted(&window), (2, 2));
    // GDAL's datetime forms, property filters, six-number and antimeridian
    // boxes, each with its count.
    for (query, want) in [
        ("datetime=2025-02-01T%2F..", vec!["7", "6", "4"]),
        ("datetime=..%2F2025-01-02T", vec!["1"]),
        (
            "datetime=2025-01-02T10Z%2F2025-02-01T08:30Z",
            vec!["4", "3", "2"],
        ),
        ("parameter=nitrate", vec!["6", "3", "1"]),
        ("country=DE&quality_flag=valid", vec!["7", "4", "3"]),
        (
            "site_id=a-1&parameter=nitrate&datetime=2025-02-01/..",
            vec!["6"],
        ),
        ("water_body_type=pond", vec![]),
        ("bbox=11,48,4.9,49", vec!["7", "4", "3"]),
        ("bbox=11,48,4.99,53", vec!["7", "6", "4", "3", "2", "1"]),
        ("bbox=4.99,52.12,-100,5,53,100", vec!["6", "2", "1"]),
    ] {
        let page = e.ok(&format!("{uri}?{query}&limit=2")).await;
        let all = e.ok(&format!("{uri}?{query}")).await;
        assert_eq!(ids(&all), want, "{query}");
        assert_eq!(
            counted(&page),
            (want.len().min(2) as u64, want.len() as u64),
            "{query}"
        );
    }
    let sites = "/api/features/collections/sites/items";
    for (query, want) in [
        ("country=NL", vec!["a-1"]),
        ("water_body_type=lake&site_id=b-2", vec!["b-2"]),
        ("bbox=11,48,4.9,49", vec!["b-2"]),
        ("bbox=4.99,52.12,-1,5,53,1", vec!["a-1"]),
        ("datetime=2025-03-01T12Z%2F..", vec!["a-1", "b-2"]),
    ] {
        let page = e.ok(&format!("{sites}?{query}")).await;
        assert_eq!(ids(&page), want, "{query}");
        assert_eq!(page["numberMatched"], want.len(), "{query}");
    }

    // Queryables: a JSON Schema per collection, linked from it.
    let (status, kind, q) = e
        .get(
            "/api/features/collections/observations/queryables",
            "application/schema+json",
        )
        .await;
    assert_eq!((status, kind.as_str()), (200, "application/schema+json"));
    assert_eq!(
        q["$id"],
        "https://example.org/api/features/collections/observations/queryables"
    );
    assert_eq!(q["type"], "object");
    let names: Vec<&String> = q["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        names,
        [
            "country",
            "parameter",
            "quality_flag",
            "site_id",
            "water_body_type"
        ]
    );
    assert_eq!(q["properties"]["parameter"]["enum"][0], "nitrate");
    let q = e.ok("/api/features/collections/sites/queryables").await;
    assert!(q["properties"].get("parameter").is_none());
    let collection = e.ok("/api/features/collections/observations").await;
    assert!(collection["links"].as_array().unwrap().iter().any(|l| {
        l["rel"] == "http://www.opengis.net/def/rel/ogc/1.0/queryables"
            && l["type"] == "application/schema+json"
    }));

    // Single features.
    let one = e.ok("/api/features/collections/observations/items/1").await;
    assert_eq!(one["properties"]["parameter"], "nitrate");
    assert_eq!(
        one["geometry"]["coordinates"],
        serde_json::json!([4.99, 52.12])
    );
    let site = e.ok("/api/features/collections/sites/items/b-2").await;
    assert_eq!(site["properties"]["observations"], 3);
    for missing in [
        "/api/features/collections/observations/items/5",
        "/api/features/collections/observations/items/99",
        "/api/features/collections/observations/items/x1",
        "/api/features/collections/sites/items/p-3",
        "/api/features/collections/lakes",
        "/api/features/collections/lakes/items",
    ] {
        let (status, kind, body) = e.get(missing, "application/json").await;
        assert_eq!(
            (status, kind.as_str()),
            (404, "application/problem+json"),
            "{missing}"
        );
        assert_eq!(body["code"], "not_found", "{missing}");
    }
    for (bad, name) in [
        ("/api/features/collections/sites/items?limit=0", "limit"),
        (
            "/api/features/collections/sites/items?datetime=soon",
            "datetime",
        ),
        ("/api/features/collections/sites/items?bbox=1,2,3", "bbox"),
        ("/api/features/collections/sites?limit=5", "limit"),
        (
            "/api/features/collections/sites/items?cursor=MToxOjE",
            "cursor",
        ),
        (
            "/api/features/collections/sites/items?parameter=nitrate",
            "parameter",
        ),
        (
            "/api/features/collections/observations/items?parameter=gold",
            "parameter",
        ),
        (
            "/api/features/collections/observations/items?bbox=1,2,3,4,5",
            "bbox",
        ),
        (
            "/api/features/collections/observations/items?bbox=1,2,9,3,4,5",
            "bbox",
        ),
        (
            "/api/features/collections/observations/items?datetime=2025/01/01",
            "datetime",
        ),
        (
            "/api/features/collections/observations/queryables?limit=1",
            "limit",
        ),
    ] {
        let (status, _, body) = e.get(bad, "application/json").await;
        assert_eq!(status, 400, "{bad}");
        assert_eq!(body["errors"][0]["name"], name, "{bad}");
    }

    // HTML by f, and by a browser's Accept.
    let (status, kind, html) = e
        .get(
            "/api/features/collections/sites/items?f=html",
            "application/json",
        )
        .await;
    assert_eq!((status, kind.as_str()), (200, "text/html; charset=utf-8"));
    let html = html.as_str().unwrap();
    assert!(html.contains("Alpha, &quot;the&quot; River") && !html.contains("Private Pond"));
    let (_, kind, _) = e
        .get("/api/features", "text/html,application/xhtml+xml,*/*;q=0.8")
        .await;
    assert!(kind.starts_with("text/html"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite() {
    the_routes_publish_what_the_live_routes_publish(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres() {
    if pg_url().is_none() {
        return;
    }
    the_routes_publish_what_the_live_routes_publish(Backend::Postgres).await;
}
