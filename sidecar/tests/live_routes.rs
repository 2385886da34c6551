//! The live routes and the store, run against SQLite and a real PostgreSQL
//! server (see `common::live`).

use std::time::Duration;

use common::both_backends;
use common::live::{Backend, FIXTURE_ORDER, TestDb, body, get, json, load_fixture, open};
use serde_json::Value;
use sidecar::live::{self, Live, LiveConfig};
use sidecar::store::SampleSize;
use sidecar::store::import::{self, ImportError};
use sidecar::store::sample::{Sample, default_end};

const OBS: &str = "/api/observations-data.php";

/// A store with the fixture data, and live routes over it without the
/// observation page cache (so every assertion sees the database).
async fn fixture(backend: Backend, name: &str) -> Option<(TestDb, Live)> {
    fixture_with_pages(backend, name, 0).await
}

async fn fixture_with_pages(backend: Backend, name: &str, pages: usize) -> Option<(TestDb, Live)> {
    let db = open(backend, name, SampleSize::None).await?;
    load_fixture(&db.store).await;
    let cfg = LiveConfig {
        problem_base: "https://example.org".into(),
        observation_pages_cached: pages,
        ..LiveConfig::default()
    };
    let live = Live::new(db.store.clone(), cfg);
    Some((db, live))
}

async fn page(live: &Live, query: &str) -> Value {
    let r = live::observations(live, &get(&format!("{OBS}?{query}"), &[])).await;
    assert_eq!(r.status(), 200, "{query}");
    json(r).await.1
}

fn ids(page: &Value) -> Vec<i64> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_i64().unwrap())
        .collect()
}

async fn observations_order_filters_and_privacy(backend: Backend) {
    let Some((_db, live)) = fixture(backend, "obs_filters").await else {
        return;
    };
    let all = page(&live, "").await;
    assert_eq!(ids(&all), FIXTURE_ORDER);
    assert_eq!(all["next_cursor"], Value::Null);
    assert_eq!(all["limit"], 100);
    assert_eq!(all["licence"]["id"], "CC-BY-4.0");
    assert!(all["attribution"].as_str().unwrap().len() > 10);
    let first = &all["data"][5];
    assert_eq!(first["observed_at"], "2025-01-01T10:00:00Z");
    assert_eq!(first["site_name"], "Alpha, \"the\" River");
    // Coarsened to two decimals, never the exact location.
    assert_eq!(first["latitude"], 52.12);
    assert_eq!(first["longitude"], 4.99);

    assert_eq!(ids(&page(&live, "parameter=nitrate").await), [6, 3, 1]);
    assert_eq!(ids(&page(&live, "site=b-2").await), [7, 4, 3]);
    assert_eq!(ids(&page(&live, "site=p-3").await), Vec::<i64>::new());
    assert_eq!(
        ids(&page(&live, "site=a-1&parameter=nitrate").await),
        [6, 1]
    );
    assert_eq!(
        ids(&page(&live, "from=2025-01-02&to=2025-02-01").await),
        [4, 3, 2]
    );
    assert_eq!(
        ids(&page(&live, "from=2025-01-02T10:00:01Z").await),
        [7, 6, 4]
    );
    assert_eq!(ids(&page(&live, "bbox=4,52,6,53").await), [6, 2, 1]);
    assert_eq!(
        ids(&page(&live, "bbox=-10,0,-5,1").await),
        Vec::<i64>::new()
    );
}

/// `bbox` matches the published (rounded) location, never the exact one:
/// a box around a site's exact point that leaves out its published point
/// finds nothing, however small, and a box around the published point
/// finds the site even when it leaves out the exact point. Otherwise boxes
/// halved a couple of dozen times would recover the exact location.
async fn bbox_matches_only_the_published_location(backend: Backend) {
    let Some((db, live)) = fixture(backend, "obs_bbox_published").await else {
        return;
    };
    // a-1 is stored at 52.123456, 4.987654 and published at 52.12, 4.99.
    for exact_only in [
        "bbox=4.98765,52.12345,4.98766,52.12346",
        "bbox=4.9876,52.1234,4.9877,52.1235",
        "bbox=4.98,52.12,4.9877,52.13",
        "bbox=4.98,52.121,5,52.13",
    ] {
        assert_eq!(
            ids(&page(&live, exact_only).await),
            Vec::<i64>::new(),
            "{exact_only}"
        );
    }
    for published_only in [
        "bbox=4.99,52.12,4.99,52.12",
        "bbox=4.988,52.115,4.995,52.122",
    ] {
        assert_eq!(
            ids(&page(&live, published_only).await),
            [6, 2, 1],
            "{published_only}"
        );
    }

    // Sites on the edge between two published values are found where Rust
    // rounds them, on every backend: h-1 lies exactly half way (rounded away
    // from zero, not to even); n-1's decimal text and binary value round
    // differently (1.005 is stored just below the half, 2.675 just below it
    // too, yet its product with 100 rounds up to the half). Their
    // observations are the newest, so a filter applied after the limit
    // would show here.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("edges.csv");
    std::fs::write(
        &csv,
        format!(
            "{HEADER}h-1,Halfway,FR,pond,10.125,-3.375,2025-06-01T00:00:00Z,ph,7.0,pH,strip,valid\n\
             n-1,Narrow,FR,pond,1.005,2.675,2025-06-02T00:00:00Z,ph,7.2,pH,strip,valid\n"
        ),
    )
    .unwrap();
    import::run(&db.store, &csv).await.unwrap();
    for (published, id, lat, lon) in [
        ("bbox=-3.38,10.13,-3.38,10.13", 8, 10.13, -3.38),
        ("bbox=2.68,1,2.68,1", 9, 1.0, 2.68),
    ] {
        let p = page(&live, published).await;
        assert_eq!(ids(&p), [id], "{published}");
        assert_eq!(p["data"][0]["latitude"], lat, "{published}");
        assert_eq!(p["data"][0]["longitude"], lon, "{published}");
    }
    for elsewhere in [
        "bbox=-3.37,10.12,-3.37,10.12",
        "bbox=-3.38,10.12,-3.38,10.12",
        "bbox=-3.376,10.124,-3.374,10.126",
        "bbox=2.68,1.01,2.68,1.01",
        "bbox=2.67,1,2.67,1",
        "bbox=2.674,1.004,2.676,1.006",
    ] {
        assert_eq!(
            ids(&page(&live, elsewhere).await),
            Vec::<i64>::new(),
            "{elsewhere}"
        );
    }

    // The filter runs before the limit: pages of one row walk a-1 only.
    let mut seen = Vec::new();
    let mut query = "bbox=4.99,52.12,4.99,52.12&limit=1".to_owned();
    loop {
        let p = page(&live, &query).await;
        seen.extend(ids(&p));
        match p["next_cursor"].as_str() {
            Some(c) => query = format!("bbox=4.99,52.12,4.99,52.12&limit=1&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(seen, [6, 2, 1]);

    // The MCP tool goes through the same query.
    use sidecar::live::mcp_tools::McpLiveTools;
    use sidecar::mcp::LiveTools;
    let tools = McpLiveTools(std::sync::Arc::new(live));
    for (bbox, want) in [
        ("4.98765,52.12345,4.98766,52.12346", vec![]),
        ("4.988,52.115,4.995,52.122", vec![6, 2, 1]),
    ] {
        let mut args = serde_json::Map::new();
        args.insert("bbox".into(), Value::from(bbox));
        let got = tools.observations(args).await.unwrap();
        let got: Value = serde_json::from_slice(&got.json).unwrap();
        assert_eq!(ids(&got), want, "{bbox}");
    }
}

async fn observations_keyset_pagination(backend: Backend) {
    let Some((_db, live)) = fixture(backend, "obs_pages").await else {
        return;
    };
    let mut seen = Vec::new();
    let mut query = "limit=2".to_owned();
    loop {
        let p = page(&live, &query).await;
        assert!(ids(&p).len() <= 2);
        seen.extend(ids(&p));
        match p["next_cursor"].as_str() {
            Some(c) => query = format!("limit=2&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(seen, FIXTURE_ORDER);
    // Filters and cursors combine.
    let p = page(&live, "parameter=nitrate&limit=1").await;
    assert_eq!(ids(&p), [6]);
    let c = p["next_cursor"].as_str().unwrap();
    assert_eq!(
        ids(&page(&live, &format!("parameter=nitrate&limit=5&cursor={c}")).await),
        [3, 1]
    );
}

async fn observations_errors_name_the_parameter(backend: Backend) {
    let Some((_db, live)) = fixture(backend, "obs_errors").await else {
        return;
    };
    for (query, code, name) in [
        ("colour=blue", "unknown_parameter", "colour"),
        ("limit=5000", "invalid_parameter", "limit"),
        ("parameter=gold", "invalid_parameter", "parameter"),
        ("cursor=bm9wZQ", "invalid_parameter", "cursor"),
        ("bbox=1,2", "invalid_parameter", "bbox"),
        ("from=yesterday", "invalid_parameter", "from"),
    ] {
        let r = live::observations(&live, &get(&format!("{OBS}?{query}"), &[])).await;
        assert_eq!(r.status(), 400);
        assert_eq!(r.headers()["content-type"], "application/problem+json");
        assert_eq!(r.headers()["access-control-allow-origin"], "*");
        let (_, v) = json(r).await;
        assert_eq!(v["code"], code);
        assert_eq!(v["status"], 400);
        assert_eq!(
            v["type"],
            format!("https://example.org/docs/problems/{code}/")
        );
        assert_eq!(v["instance"], OBS);
        assert!(v["detail"].as_str().unwrap().contains(&format!("`{name}`")));
        assert_eq!(v["errors"][0]["name"], name);
    }
}

async fn observations_csv_and_etag(backend: Backend) {
    let Some((_db, live)) = fixture(backend, "obs_csv").await else {
        return;
    };
    for parts in [
        get(&format!("{OBS}?limit=2"), &[("accept", "text/csv")]),
        get(&format!("{OBS}?limit=2&format=csv"), &[]),
    ] {
        let r = live::observations(&live, &parts).await;
        assert_eq!(r.status(), 200);
        assert!(
            r.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/csv")
        );
        let link = r.headers()["link"].to_str().unwrap().to_owned();
        assert!(link.contains("rel=\"license\""), "{link}");
        assert!(link.contains("rel=\"next\""), "{link}");
        let (_, b) = body(r).await;
        let text = String::from_utf8(b.to_vec()).unwrap();
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert_eq!(
            lines[0],
            "id,site_id,site_name,country,water_body_type,observed_at,parameter,value,unit,method,quality_flag,latitude,longitude"
        );
        assert_eq!(lines.len(), 4);
        assert!(
            lines[1].starts_with("7,b-2,Beta Lake,DE,lake,2025-03-01T12:00:00Z,phosphate,0.3,")
        );
    }
    let r = live::observations(&live, &get(OBS, &[])).await;
    assert_eq!(r.headers()["content-type"], "application/json");
    assert_eq!(r.headers()["cache-control"], "public, max-age=60");
    let tag = r.headers()["etag"].to_str().unwrap().to_owned();
    assert!(tag.starts_with('"') && tag.len() == 34);
    // The same data gives the same CSV, so the ETag revalidates.
    let csv = get(&format!("{OBS}?format=csv"), &[]);
    let tag = live::observations(&live, &csv).await.headers()["etag"].clone();
    let again = get(
        &format!("{OBS}?format=csv"),
        &[("if-none-match", tag.to_str().unwrap())],
    );
    let r = live::observations(&live, &again).await;
    assert_eq!(r.status(), 304);
    assert_eq!(r.headers()["etag"], tag);
}

async fn globe_points_are_coarsened_aggregates(backend: Backend) {
    let Some((_db, live)) = fixture(backend, "globe").await else {
        return;
    };
    let r = live::globe(&live, &get("/api/globe-data.php", &[])).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/geo+json");
    let (_, v) = json(r).await;
    assert_eq!(v["type"], "FeatureCollection");
    assert_eq!(v["precision_decimals"], 2);
    let features = v["features"].as_array().unwrap();
    assert_eq!(features.len(), 2, "the private site is not published");
    let a = &features[0];
    assert_eq!(a["id"], "a-1");
    assert_eq!(
        a["geometry"]["coordinates"],
        serde_json::json!([4.99, 52.12])
    );
    assert_eq!(a["properties"]["observations"], 3);
    assert_eq!(
        a["properties"]["latest_observed_at"],
        "2025-03-01T12:00:00Z"
    );
    assert_eq!(
        a["properties"]["parameters"],
        serde_json::json!(["nitrate", "ph"])
    );
    assert_eq!(features[1]["properties"]["observations"], 3);
}

async fn stats_from_sample_cached_and_stale(backend: Backend) {
    let Some(db) = open(backend, "stats", SampleSize::Default).await else {
        return;
    };
    let sample = Sample::new(SampleSize::Default, default_end());
    let sites = sample.sites();
    let public: std::collections::HashSet<&str> = sites
        .iter()
        .filter(|s| s.public)
        .map(|s| s.id.as_str())
        .collect();
    let mut public_obs = 0;
    sample
        .observations(&sites, 10_000, |b| {
            public_obs += b
                .iter()
                .filter(|o| public.contains(o.site_id.as_str()))
                .count();
            Ok::<_, ()>(())
        })
        .unwrap();
    // Zero max-age: every request refreshes, so a broken database shows.
    let cfg = LiveConfig {
        stats_max_age: Duration::ZERO,
        ..LiveConfig::default()
    };
    let live = Live::new(db.store.clone(), cfg);
    let parts = get("/api/platform-stats.php", &[]);
    let r = live::platform_stats(&live, &parts).await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["cache-control"],
        "public, max-age=0, stale-while-revalidate=30"
    );
    let (_, v) = json(r).await;
    assert_eq!(v["stale"], false);
    assert_eq!(v["volunteers"], 1200);
    assert_eq!(v["observations"], public_obs as i64);
    assert_eq!(v["sites"], public.len() as i64);
    assert_eq!(v["countries"], 8);
    assert_eq!(v["projects"], 9);
    assert_eq!(v["classification_projects"], 5);
    assert_eq!(v["classifications"], 8000);
    // Water Watch ended in June 2024: its archive no longer grows.
    assert_eq!(v["observations_last_30_days"], 0);
    assert!(
        v["latest_observation_at"]
            .as_str()
            .unwrap()
            .starts_with("2024-06-"),
        "{v}"
    );

    // The series per month adds up to the totals (the sample lies within
    // its ten years), ends with the current month, and shows the archive
    // ending in June 2024 while classifications go on.
    let monthly = v["monthly"].as_array().unwrap();
    let sum = |k: &str| monthly.iter().map(|m| m[k].as_i64().unwrap()).sum::<i64>();
    assert_eq!(sum("observations"), public_obs as i64);
    assert_eq!(sum("classifications"), 8000);
    let month = |m: &str| monthly.iter().find(|x| x["month"] == m).unwrap();
    assert!(month("2024-06")["observations"].as_i64().unwrap() > 0);
    assert_eq!(month("2024-07")["observations"], 0);
    assert_eq!(
        monthly.last().unwrap()["month"].as_str().unwrap(),
        &v["generated_at"].as_str().unwrap()[..7]
    );

    // A second open finds observations and adds no sample again.
    assert!(!db.store.fill_sample(SampleSize::Default).await.unwrap());

    db.break_database().await;
    let r = live::platform_stats(&live, &parts).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-cache");
    let (_, stale) = json(r).await;
    assert_eq!(stale["stale"], true);
    assert_eq!(stale["observations"], v["observations"]);

    // No last good value: 503 with Retry-After.
    let fresh = Live::new(db.store.clone(), LiveConfig::default());
    let r = live::platform_stats(&fresh, &parts).await;
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "30");
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    let r = live::globe(&fresh, &get("/api/globe-data.php", &[])).await;
    assert_eq!(r.status(), 503);
    let r = live::observations(&fresh, &get(OBS, &[])).await;
    assert_eq!(r.status(), 503);
    assert!(r.headers().contains_key("retry-after"));
}

async fn stats_etag_and_single_refresh(backend: Backend) {
    let Some((_db, live)) = fixture(backend, "stats_etag").await else {
        return;
    };
    let parts = get("/api/platform-stats.php", &[]);
    // Many concurrent first requests: one computation, one value.
    let answers = futures_join(&live, &parts, 16).await;
    let first = &answers[0];
    assert!(answers.iter().all(|a| a == first));
    let r = live::platform_stats(&live, &parts).await;
    let tag = r.headers()["etag"].to_str().unwrap().to_owned();
    let (_, v) = json(r).await;
    assert_eq!(v["observations"], 6);
    assert_eq!(v["sites"], 2);
    assert_eq!(v["countries"], 2);
    assert_eq!(v["latest_observation_at"], "2025-03-01T12:00:00Z");
    assert_eq!(v["cache_max_age_s"], 60);
    let r = live::platform_stats(
        &live,
        &get("/api/platform-stats.php", &[("if-none-match", &tag)]),
    )
    .await;
    assert_eq!(r.status(), 304);
    assert!(r.headers().contains_key("cache-control"));
}

async fn futures_join(live: &Live, parts: &http::request::Parts, n: usize) -> Vec<bytes::Bytes> {
    let mut set = Vec::new();
    for _ in 0..n {
        set.push(live::platform_stats(live, parts));
    }
    let mut out = Vec::new();
    for r in join_all(set).await {
        out.push(body(r).await.1);
    }
    out
}

/// Polls all futures concurrently on this task (no extra dependency).
async fn join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in futures.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(Option::unwrap).collect()
}

const HEADER: &str = "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag\n";

async fn import_all_or_nothing(backend: Backend) {
    let Some((db, live)) = fixture(backend, "import").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.csv");
    std::fs::write(
        &good,
        format!(
            "{HEADER}c-9,\"Canal, north\",BE,canal,50.85,4.35,2025-04-01T09:00:00Z,turbidity,12.5,NTU,turbidity tube,valid\r\n\
             c-9,\"Canal, north\",BE,canal,50.85,4.35,2025-04-02T09:00:00+02:00,ph,7.4,pH,strip,unverified\r\n"
        ),
    )
    .unwrap();
    let report = import::run(&db.store, &good).await.unwrap();
    assert_eq!((report.added, report.sites), (2, 1));
    let p = page(&live, "site=c-9").await;
    assert_eq!(ids(&p), [9, 8]);
    assert_eq!(p["data"][0]["observed_at"], "2025-04-02T07:00:00Z");
    assert_eq!(p["data"][0]["site_name"], "Canal, north");

    let before = page(&live, "limit=1000").await["data"].clone();
    let count = db.store.observation_count().await.unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        format!(
            "{HEADER}d-1,Dyke,NL,ditch,52,5,2025-05-01T00:00:00Z,nitrate,1,mg/L,kit,valid\n\
             d-1,Dyke,NL,ditch,52,5,2025-05-02T00:00:00Z,nitrate,2,mg/L,kit,valid\n\
             d-1,Dyke,NL,ditch,52,5,2025-05-03T00:00:00Z,lead,3,mg/L,kit,valid\n\
             d-1,Dyke,NL,ditch,52,5,2025-05-04T00:00:00Z,nitrate,4,mg/L,kit,valid\n"
        ),
    )
    .unwrap();
    let err = import::run(&db.store, &bad).await.unwrap_err();
    assert!(matches!(err, ImportError::Row { line: 4, .. }), "{err}");
    assert!(
        err.to_string().starts_with("line 4: parameter `lead`"),
        "{err}"
    );
    assert_eq!(db.store.observation_count().await.unwrap(), count);
    assert_eq!(page(&live, "limit=1000").await["data"], before);
    assert_eq!(ids(&page(&live, "site=d-1").await), Vec::<i64>::new());
}

async fn observations_pages_are_served_again_for_their_max_age(backend: Backend) {
    let Some((db, live)) = fixture_with_pages(backend, "obs_page_cache", 16).await else {
        return;
    };
    let before = page(&live, "limit=1000").await;
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("new.csv");
    std::fs::write(
        &csv,
        format!(
            "{HEADER}e-1,East pond,NL,pond,52.1,5.1,2025-06-01T09:00:00Z,ph,7.0,pH,strip,valid\n"
        ),
    )
    .unwrap();
    import::run(&db.store, &csv).await.unwrap();
    // The same query within max-age: the same page, byte for byte.
    assert_eq!(page(&live, "limit=1000").await, before);
    // Another query reaches the database and sees the new observation.
    let fresh = page(&live, "limit=999").await;
    assert_eq!(ids(&fresh).len(), ids(&before).len() + 1);
    // Revalidating the cached page answers 304.
    let r = live::observations(&live, &get(&format!("{OBS}?limit=1000"), &[])).await;
    let tag = r.headers()["etag"].to_str().unwrap().to_owned();
    let again = get(&format!("{OBS}?limit=1000"), &[("if-none-match", &tag)]);
    assert_eq!(live::observations(&live, &again).await.status(), 304);
}

async fn fetch(live: &Live, uri: &str, headers: &[(&str, &str)]) -> http::Response<sidecar::Body> {
    let parts = get(uri, headers);
    if uri.starts_with(OBS) {
        live::observations(live, &parts).await
    } else {
        live::globe(live, &parts).await
    }
}

fn decode(coding: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let result = match coding {
        "br" => std::io::Read::read_to_end(&mut brotli::Decompressor::new(bytes, 4096), &mut out),
        _ => std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out),
    };
    result.unwrap();
    out
}

/// Live bodies come compressed when the client accepts it, each coding with
/// its own strong ETag, decoding to the identity bytes.
async fn live_bodies_are_compressed_once_per_fill(backend: Backend) {
    let Some((_db, live)) = fixture_with_pages(backend, "compressed", 8).await else {
        return;
    };
    // The fixture's globe document is under a kilobyte: not worth a coding.
    let small = fetch(&live, "/api/globe-data.php", &[("accept-encoding", "br")]).await;
    assert!(small.headers().get("content-encoding").is_none());
    {
        let uri = OBS;
        let (plain_head, plain) = body(fetch(&live, uri, &[]).await).await;
        assert!(plain_head.headers.get("content-encoding").is_none());
        let mut tags = vec![plain_head.headers["etag"].to_str().unwrap().to_owned()];
        for (accept, coding) in [("gzip, deflate, br", "br"), ("gzip", "gzip")] {
            let (head, bytes) = body(fetch(&live, uri, &[("accept-encoding", accept)]).await).await;
            assert_eq!(head.status, 200, "{uri}");
            assert_eq!(head.headers["content-encoding"], coding, "{uri}");
            assert!(
                bytes.len() < plain.len() / 2,
                "{uri}: {} vs {}",
                bytes.len(),
                plain.len()
            );
            assert_eq!(decode(coding, &bytes), plain, "{uri} {coding}");
            let vary = head.headers["vary"].to_str().unwrap();
            assert!(vary.contains("Accept-Encoding"), "{vary}");
            tags.push(head.headers["etag"].to_str().unwrap().to_owned());
        }
        assert!(tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2]);
        // Revalidation matches the representation the client holds.
        let held = [
            ("accept-encoding", "br"),
            ("if-none-match", tags[1].as_str()),
        ];
        assert_eq!(fetch(&live, uri, &held).await.status(), 304, "{uri}");
        let other = [("if-none-match", tags[1].as_str())];
        assert_eq!(fetch(&live, uri, &other).await.status(), 200, "{uri}");
    }
}

/// The MCP live tools get the route's very bytes with the route's strong
/// ETag (which their results are kept by), and new data brings a new tag.
async fn mcp_tools_carry_the_routes_bytes_and_etag(backend: Backend) {
    use sidecar::live::mcp_tools::McpLiveTools;
    use sidecar::mcp::LiveTools;
    let Some((db, live)) = fixture(backend, "mcptags").await else {
        return;
    };
    let live = std::sync::Arc::new(live);
    let tools = McpLiveTools(live.clone());
    let mut args = serde_json::Map::new();
    args.insert("limit".into(), Value::from(3));
    let first = tools.observations(args.clone()).await.unwrap();
    let again = tools.observations(args.clone()).await.unwrap();
    let r = live::observations(&live, &get(&format!("{OBS}?limit=3"), &[])).await;
    let tag = r.headers()["etag"].to_str().unwrap().to_owned();
    let (_, http_body) = body(r).await;
    assert_eq!(first.etag.as_deref(), Some(tag.as_str()));
    assert_eq!(first.json, http_body);
    assert_eq!(again.etag, first.etag);

    let stats = tools.stats().await.unwrap();
    assert!(stats.etag.is_some());

    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("new.csv");
    std::fs::write(
        &csv,
        format!(
            "{HEADER}e-9,West pond,NL,pond,52.1,5.1,2099-06-01T09:00:00Z,ph,7.0,pH,strip,valid\n"
        ),
    )
    .unwrap();
    import::run(&db.store, &csv).await.unwrap();
    let changed = tools.observations(args).await.unwrap();
    assert_ne!(changed.etag, first.etag, "new data, new tag");
}

both_backends!(
    mcp_tools_carry_the_routes_bytes_and_etag,
    live_bodies_are_compressed_once_per_fill,
    observations_pages_are_served_again_for_their_max_age,
    observations_order_filters_and_privacy,
    bbox_matches_only_the_published_location,
    observations_keyset_pagination,
    observations_errors_name_the_parameter,
    observations_csv_and_etag,
    globe_points_are_coarsened_aggregates,
    stats_from_sample_cached_and_stale,
    stats_etag_and_single_refresh,
    import_all_or_nothing,
);
