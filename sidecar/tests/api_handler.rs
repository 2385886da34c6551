//! Handler-level tests of the API rules (no socket): methods, bodies,
//! timeouts, the routes of later issues, CORS, health and metrics.

use sha2::Digest;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use common::Fixture;
use common::handler::{get, send, send_body, state, state_with};
use http_body_util::Full;
use hyper::body::{Body, Frame};
use serde_json::Value;

#[tokio::test]
async fn wrong_methods_get_405_with_allow() {
    let f = Fixture::new();
    let s = state(&f);
    let cases = [
        ("POST", "/index.html", "GET, HEAD, OPTIONS"),
        ("PUT", "/docs/guide/", "GET, HEAD, OPTIONS"),
        ("DELETE", "/docs/guide", "GET, HEAD, OPTIONS"),
        ("GET", "/mcp/", "POST, OPTIONS"),
        ("GET", "/mcp", "POST, OPTIONS"),
        ("DELETE", "/api/platform-stats.php", "GET, HEAD, OPTIONS"),
        ("POST", "/api/observations-data.php", "GET, HEAD, OPTIONS"),
        ("GET", "/api/contact.php", "POST, OPTIONS"),
        ("POST", "/healthz", "GET, HEAD, OPTIONS"),
    ];
    for (method, path, allow) in cases {
        let a = send(&s, method, path, &[]).await;
        assert_eq!(a.status, 405, "{method} {path}");
        assert_eq!(a.header("allow"), allow, "{method} {path}");
        a.problem("method_not_allowed");
    }
}

#[tokio::test]
async fn bodies_are_limited_and_typed() {
    let f = Fixture::new();
    let s = state_with(&f, |c| c.max_body_bytes = 100);
    let json = [("content-type", "application/json")];
    let big = Full::new(Bytes::from(vec![b'x'; 101]));
    // Declared too large.
    let declared = send_body(
        &s,
        "POST",
        "/mcp/",
        &[
            ("content-type", "application/json"),
            ("content-length", "5000"),
        ],
        Full::new(Bytes::new()),
    )
    .await;
    assert_eq!(declared.status, 413);
    declared.problem("payload_too_large");
    // Undeclared (chunked) and too large.
    let streamed = send_body(&s, "POST", "/mcp/", &json, big).await;
    assert_eq!(streamed.status, 413);
    assert_eq!(streamed.header("connection"), "close");
    streamed.problem("payload_too_large");
    for ct in [
        None,
        Some("text/plain"),
        Some("application/jsonx"),
        Some("multipart/form-data"),
    ] {
        let mut headers: Vec<_> = ct.map(|c| ("content-type", c)).into_iter().collect();
        // From the site's own page, or it is refused before its body is seen.
        headers.push(("sec-fetch-site", "same-origin"));
        let a = send_body(
            &s,
            "POST",
            "/api/contact.php",
            &headers,
            Full::new(Bytes::from_static(b"{}")),
        )
        .await;
        assert_eq!(a.status, 415, "{ct:?}");
        a.problem("unsupported_media_type");
        // MCP clients read JSON-RPC errors, so the MCP route answers those.
        let mcp = send_body(
            &s,
            "POST",
            "/mcp/",
            &headers,
            Full::new(Bytes::from_static(b"{}")),
        )
        .await;
        assert_eq!(mcp.status, 415, "{ct:?}");
        assert_eq!(mcp.header("content-type"), "application/json");
        let error = mcp.json();
        assert_eq!(error["jsonrpc"], "2.0");
        assert_eq!(error["id"], Value::Null);
        assert_eq!(error["error"]["code"], -32600);
    }
    let ok = send_body(
        &s,
        "POST",
        "/mcp",
        &[("content-type", "application/json; charset=utf-8")],
        Full::new(Bytes::from_static(b"{}")),
    )
    .await;
    // Past the type check (a charset parameter is fine): `{}` is JSON but
    // not a JSON-RPC request.
    assert_eq!(ok.status, 400);
    assert_eq!(ok.json()["error"]["code"], -32600);
}

/// A body that never finishes arriving.
struct Stalled;

impl Body for Stalled {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Poll::Pending
    }
}

#[tokio::test]
async fn slow_bodies_time_out_with_408() {
    let f = Fixture::new();
    let s = state_with(&f, |c| c.request_timeout = Duration::from_millis(50));
    let a = send_body(
        &s,
        "POST",
        "/mcp/",
        &[("content-type", "application/json")],
        Stalled,
    )
    .await;
    assert_eq!(a.status, 408);
    a.problem("request_timeout");
}

#[tokio::test]
async fn later_routes_answer_503_for_now() {
    let f = Fixture::new();
    let s = state(&f);
    for path in [
        "/api/platform-stats.php",
        "/api/observations-data.php?limit=5",
        "/api/globe-data.php",
    ] {
        let a = get(&s, path).await;
        assert_eq!(a.status, 503, "{path}");
        assert_eq!(a.header("retry-after"), "3600");
        assert_eq!(a.header("access-control-allow-origin"), "*");
        a.problem("service_unavailable");
    }
    assert_eq!(get(&s, "/api/contact-challenge").await.status, 503);
}

#[tokio::test]
async fn public_cors_and_preflight() {
    let f = Fixture::new();
    let s = state(&f);
    let pre = send(
        &s,
        "OPTIONS",
        "/mcp/",
        &[
            ("origin", "https://agent.example"),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "content-type, mcp-protocol-version",
            ),
        ],
    )
    .await;
    assert_eq!(pre.status, 204);
    assert!(pre.body.is_empty());
    assert_eq!(pre.header("access-control-allow-origin"), "*");
    assert_eq!(pre.header("access-control-allow-methods"), "POST, OPTIONS");
    let allowed = pre.header("access-control-allow-headers");
    for h in [
        "Content-Type",
        "Accept",
        "MCP-Protocol-Version",
        "Mcp-Session-Id",
        "Last-Event-ID",
    ] {
        assert!(allowed.contains(h), "{h}");
    }
    assert_eq!(pre.header("access-control-max-age"), "7200");
    assert!(!pre.has("access-control-allow-credentials"));
    let file = send(
        &s,
        "OPTIONS",
        "/openapi.json",
        &[("access-control-request-method", "GET")],
    )
    .await;
    assert_eq!(file.status, 204);
    assert_eq!(file.header("allow"), "GET, HEAD, OPTIONS");
    assert!(
        file.header("access-control-allow-headers")
            .contains("If-None-Match")
    );
    let api = send(&s, "OPTIONS", "/api/globe-data.php", &[]).await;
    assert_eq!(api.status, 204);
    assert_eq!(
        api.header("access-control-allow-methods"),
        "GET, HEAD, OPTIONS"
    );
    // Every public answer, errors too, is readable cross-origin.
    let simple = send(
        &s,
        "GET",
        "/api/service.json",
        &[("origin", "https://x.example")],
    )
    .await;
    assert_eq!(simple.header("access-control-allow-origin"), "*");
    let expose = simple.header("access-control-expose-headers");
    for h in ["ETag", "Retry-After", "Link", "MCP-Protocol-Version"] {
        assert!(expose.contains(h), "{h}");
    }
    assert_eq!(
        get(&s, "/api/nope")
            .await
            .header("access-control-allow-origin"),
        "*"
    );
    assert_eq!(send(&s, "OPTIONS", "/api/nope", &[]).await.status, 404);
}

#[tokio::test]
async fn contact_cors_is_origin_restricted() {
    let f = Fixture::new();
    let s = state_with(&f, |c| c.site_origins = vec!["https://site.example".into()]);
    let json = ("content-type", "application/json");
    let pre = send(
        &s,
        "OPTIONS",
        "/api/contact.php",
        &[
            ("origin", "https://site.example"),
            ("access-control-request-method", "POST"),
        ],
    )
    .await;
    assert_eq!(pre.status, 204);
    assert_eq!(
        pre.header("access-control-allow-origin"),
        "https://site.example"
    );
    assert_eq!(pre.header("vary"), "origin");
    assert_eq!(pre.header("access-control-allow-methods"), "POST, OPTIONS");
    let foreign = send(
        &s,
        "OPTIONS",
        "/api/contact.php",
        &[("origin", "https://evil.example")],
    )
    .await;
    assert_eq!(foreign.status, 403);
    assert!(!foreign.has("access-control-allow-origin"));
    assert_eq!(foreign.header("vary"), "origin");
    let p = foreign.json();
    assert_eq!(p["code"], "forbidden_origin");
    assert_eq!(
        p["type"],
        "https://site.example/docs/problems/forbidden_origin/"
    );
    let post = send_body(
        &s,
        "POST",
        "/api/contact.php",
        &[("origin", "https://site.example"), json],
        Full::new(Bytes::from_static(b"{}")),
    )
    .await;
    assert_eq!(post.status, 503);
    assert_eq!(
        post.header("access-control-allow-origin"),
        "https://site.example"
    );
    assert_eq!(post.header("vary"), "origin");
    assert_eq!(post.header("cache-control"), "no-store");
    let evil = send_body(
        &s,
        "POST",
        "/api/contact.php",
        &[("origin", "https://evil.example"), json],
        Full::new(Bytes::from_static(b"{}")),
    )
    .await;
    assert_eq!(evil.status, 403);
    assert!(!evil.has("access-control-allow-origin"));
    // Never `*`, and Vary: Origin on every answer, errors included.
    let wrong = send(&s, "GET", "/api/contact.php", &[]).await;
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.header("vary"), "origin");
    assert!(!wrong.has("access-control-allow-origin"));
    let untyped = send(
        &s,
        "POST",
        "/api/contact.php",
        &[("origin", "https://site.example")],
    )
    .await;
    assert_eq!(untyped.status, 415);
    assert_eq!(untyped.header("vary"), "origin");
    assert_eq!(
        untyped.header("access-control-allow-origin"),
        "https://site.example"
    );
}

#[tokio::test]
async fn health_readiness_and_metrics() {
    let f = Fixture::new();
    let s = state(&f);
    let h = get(&s, "/healthz").await;
    // The release is the manifest's digest, and every answer names it.
    let manifest = std::fs::read(f.dist.join("manifest.json")).unwrap();
    let digest = sha2::Sha256::digest(&manifest);
    let release: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        h.json(),
        serde_json::json!({"status": "ok", "release": release})
    );
    assert_eq!(h.header("x-release"), release);
    assert_eq!(h.header("cache-control"), "no-store");
    assert_eq!(h.header("content-type"), "application/json");
    let r = get(&s, "/readyz").await;
    assert_eq!(r.header("x-release"), release);
    assert_eq!(
        r.json(),
        serde_json::json!({"status": "ready", "checks": {"dist": "ok"}})
    );
    assert_eq!(r.header("cache-control"), "no-store");
    assert_eq!(get(&s, "/").await.header("x-release"), release);
    assert_eq!(get(&s, "/nope").await.header("x-release"), release);
    get(&s, "/api/nope").await;
    // Metrics are the admin listener's: the public one answers 404.
    let public = get(&s, "/metrics").await;
    assert_eq!(public.status, 404);
    assert_eq!(public.header("content-type"), "text/html; charset=utf-8");
    let request = |path: &str| http::Request::get(path).body(()).unwrap();
    let m = sidecar::admin::handle(&s, &request("/metrics")).await;
    assert_eq!(
        m.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let body = http_body_util::BodyExt::collect(m.into_body()).await;
    let text = String::from_utf8(body.unwrap().to_bytes().to_vec()).unwrap();
    assert!(
        text.contains("sidecar_http_requests_total{route=\"static\",status=\"200\"} 1\n"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "sidecar_release_info{{release=\"{release}\"}} 1\n"
    )));
    assert!(text.contains("sidecar_http_requests_total{route=\"unmatched\",status=\"404\"} 3\n"));
    assert!(text.contains("sidecar_http_requests_total{route=\"/readyz\",status=\"200\"} 1\n"));
    assert!(text.contains(
        "sidecar_http_request_duration_seconds_bucket{route=\"static\",le=\"+Inf\"} 1\n"
    ));
    assert!(text.contains("sidecar_open_connections 0\n"));
    assert!(text.contains("sidecar_static_files 9\n"));
    assert!(!text.contains("/no/such"), "no raw paths as labels");
    for (path, status) in [
        ("/healthz", 200),
        ("/readyz", 200),
        ("/nope", 404),
        ("/", 404),
    ] {
        let a = sidecar::admin::handle(&s, &request(path)).await;
        assert_eq!(a.status(), status, "{path}");
    }
    let post = http::Request::post("/metrics").body(()).unwrap();
    assert_eq!(sidecar::admin::handle(&s, &post).await.status(), 405);
    s.begin_shutdown();
    let draining = get(&s, "/readyz").await;
    assert_eq!(draining.status, 503);
    assert!(draining.has("retry-after"));
    draining.problem("service_unavailable");
}
