//! Security review of the sidecar's answers, through the real binary on the
//! built sample site (the folder of `CONTRACT_OPENAPI`, see
//! `common::openapi`), with sample data:
//!
//! - a header audit of every answer to every file of the manifest and every
//!   route of the table, its errors included (404, 405, 400, 413, 304, 206,
//!   416, 308, preflights): `nosniff` everywhere; on HTML, a CSP of the site's
//!   own origin without inline or evaluated script, never framed, with the
//!   referrer, permissions and framing policies; never a cookie, a `Server`
//!   or `X-Powered-By` header, or credentials for another origin;
//! - open redirects: no answer sends a client to another host;
//! - path traversal through every route prefix, and CRLF injection in every
//!   value the sidecar reflects (the problem `instance`, the redirect's
//!   query, the CSV and live routes' query).

use std::path::PathBuf;

use common::client::{Reply, Server};
use contract::routes::{Endpoint, Method, ROUTES};
use serde_json::Value;

const EVIL: &str = "https://evil.example";

/// The built sample site and a sidecar on it, with sample data in its own
/// data folder; `None` when the contract tests are skipped.
fn start() -> Option<(Server, PathBuf, tempfile::TempDir)> {
    let dist = common::openapi::contract_path()?
        .parent()
        .unwrap()
        .to_owned();
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(
        &dist,
        &[
            "--sample",
            "default",
            "--data-dir",
            data.path().to_str().unwrap(),
        ],
    );
    Some((server, dist, data))
}

fn manifest_keys(dist: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(dist.join("manifest.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    m["files"].as_object().unwrap().keys().cloned().collect()
}

/// The old folders of moved pages (the manifest's `redirects`).
fn moved_pages(dist: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(dist.join("manifest.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    m["redirects"]
        .as_object()
        .map(|r| r.keys().cloned().collect())
        .unwrap_or_default()
}

/// A directory of the site (`/docs`), for the trailing-slash redirect.
fn a_directory(dist: &std::path::Path) -> String {
    manifest_keys(dist)
        .into_iter()
        .find_map(|k| k.strip_suffix("/index.html").map(|d| format!("/{d}")))
        .expect("the site has a directory page")
}

/// What every answer must and must not carry; `what` names the request.
fn audit(what: &str, r: &Reply) {
    for name in ["set-cookie", "server", "x-powered-by", "x-aspnet-version"] {
        assert!(r.header(name).is_none(), "{what}: sends {name}");
    }
    // A request that is not HTTP (a raw `<` in the target, a bare CR) is
    // refused by the HTTP parser with an empty 400 before any handler; it
    // carries nothing a browser could sniff or run.
    let parser_refusal = r.status == 400
        && r.header("content-type").is_none()
        && r.header("content-length") == Some("0");
    if parser_refusal {
        return;
    }
    assert_eq!(
        r.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert!(
        r.header("access-control-allow-credentials").is_none(),
        "{what}: allows credentials"
    );
    if let Some(origin) = r.header("access-control-allow-origin") {
        assert!(
            origin == "*" || !origin.contains("evil"),
            "{what}: reflects {origin}"
        );
    }
    if let Some(location) = r.header("location") {
        assert_same_site(what, location);
    }
    let html = r
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/html"));
    if html {
        audit_html(what, r);
    }
    if r.header("content-type") == Some("application/problem+json") {
        let v: Value = serde_json::from_slice(&r.body).expect("a problem body");
        let instance = v["instance"].as_str().unwrap_or("/");
        assert!(instance.starts_with('/'), "{what}: instance {instance:?}");
        assert!(
            !instance.chars().any(char::is_control),
            "{what}: raw control characters in the instance {instance:?}"
        );
        assert_eq!(r.header("cache-control"), Some("no-store"), "{what}");
    }
}

fn audit_html(what: &str, r: &Reply) {
    let csp = r
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: HTML without a CSP"));
    let directive = |name: &str| -> Vec<&str> {
        csp.split(';')
            .map(str::trim)
            .find_map(|d| d.strip_prefix(name).filter(|v| v.starts_with(' ')))
            .map(|v| v.split_whitespace().collect())
            .unwrap_or_default()
    };
    assert_eq!(directive("default-src"), ["'self'"], "{what}: {csp}");
    assert_eq!(directive("frame-ancestors"), ["'none'"], "{what}: {csp}");
    assert_eq!(directive("object-src"), ["'none'"], "{what}: {csp}");
    assert!(!directive("base-uri").is_empty(), "{what}: no base-uri");
    assert!(
        !directive("form-action").is_empty(),
        "{what}: no form-action"
    );
    for source in directive("script-src") {
        assert_eq!(source, "'self'", "{what}: script-src allows {source}");
    }
    assert!(!csp.contains("'unsafe-"), "{what}: {csp}");
    for source in csp.split([' ', ';']) {
        assert!(
            !["*", "http:", "https:", "blob:"].contains(&source),
            "{what}: allows any {source} in {csp}"
        );
    }
    assert_eq!(
        r.header("referrer-policy"),
        Some("strict-origin-when-cross-origin"),
        "{what}"
    );
    let permissions = r.header("permissions-policy").unwrap_or_default();
    for feature in ["camera=()", "microphone=()", "geolocation=()"] {
        assert!(permissions.contains(feature), "{what}: {permissions}");
    }
    assert_eq!(r.header("x-frame-options"), Some("DENY"), "{what}");
}

/// A `Location` stays on the site: a path, never `//host` or `/\\host`
/// (a URL in its query string is only text).
fn assert_same_site(what: &str, location: &str) {
    let path = location.split('?').next().unwrap_or_default();
    assert!(
        path.starts_with('/')
            && !path.starts_with("//")
            && !path.starts_with("/\\")
            && !path.contains("://")
            && !location.contains(['\r', '\n']),
        "{what}: redirects to {location:?}"
    );
}

fn post(server: &Server, path: &str, content_type: &str, body: &[u8]) -> Reply {
    let mut raw = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nOrigin: {EVIL}\r\n\
         Content-Type: {content_type}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n\r\n",
        server.addr,
        body.len()
    )
    .into_bytes();
    raw.extend_from_slice(body);
    server.raw(&raw, false)
}

/// A body each POST route accepts, so its success is audited too.
fn good_body(endpoint: Endpoint) -> &'static str {
    match endpoint {
        Endpoint::Mcp => {
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"audit","version":"1"}}}"#
        }
        Endpoint::Chat => r#"{"message":"How do I measure nitrate?"}"#,
        // Without a solved challenge: the refusal is what an attacker sees.
        _ => r#"{"email":"a@example.org","topic":"general","message":"hi"}"#,
    }
}

#[test]
fn every_answer_carries_the_security_headers() {
    let Some((server, dist, _data)) = start() else {
        return;
    };
    let origin = [("origin", EVIL)];
    let mut answers = 0;
    let mut check = |what: String, r: Reply| {
        audit(&what, &r);
        answers += 1;
        r
    };

    // Every file of the site, plain and compressed, and its directory URL.
    let keys = manifest_keys(&dist);
    assert!(keys.len() > 20, "the sample site has {} files", keys.len());
    for key in &keys {
        let url = format!("/{key}");
        let r = check(format!("GET {url}"), server.get(&url, &origin));
        assert_eq!(r.status, 200, "{url}");
        let br = [("accept-encoding", "br, gzip")];
        check(format!("GET {url} (br)"), server.get(&url, &br));
        if let Some(dir) = url.strip_suffix("index.html").filter(|d| d.len() > 1) {
            check(format!("GET {dir}"), server.get(dir, &[]));
            let bare = dir.trim_end_matches('/');
            let r = check(format!("GET {bare}"), server.get(bare, &[]));
            // A moved page's old folder goes straight to the page.
            let moved = moved_pages(&dist).contains(&dir.to_owned());
            assert_eq!(r.status, if moved { 301 } else { 308 }, "{bare}");
        }
        if let Some(etag) = r.header("etag") {
            let r = check(
                format!("GET {url} (If-None-Match)"),
                server.get(&url, &[("if-none-match", etag)]),
            );
            assert_eq!(r.status, 304, "{url}");
        }
    }
    let r = check("HEAD /".into(), server.request("HEAD", "/", &[]));
    assert_eq!(r.status, 200);
    let first = format!("/{}", keys[0]);
    let r = check(
        "range".into(),
        server.get(&first, &[("range", "bytes=0-0")]),
    );
    assert_eq!(r.status, 206);
    let r = check(
        "range past the end".into(),
        server.get(&first, &[("range", "bytes=99999999-")]),
    );
    assert_eq!(r.status, 416);

    // Every route of the table, its preflight and its wrong method.
    for route in ROUTES {
        for path in route.paths() {
            let pre = server.request(
                "OPTIONS",
                path,
                &[
                    ("origin", "http://127.0.0.1:8080"),
                    ("access-control-request-method", route.method.as_str()),
                ],
            );
            check(format!("OPTIONS {path}"), pre);
            let r = match (route.method, route.endpoint()) {
                (Method::Get, _) | (Method::Post, None) => server.get(path, &origin),
                (Method::Post, Some(endpoint)) => post(
                    &server,
                    path,
                    "application/json",
                    good_body(endpoint).as_bytes(),
                ),
            };
            assert!(r.status < 500, "{path}: {}", r.status);
            check(format!("{} {path}", route.method.as_str()), r);
            let other = match route.method {
                Method::Get => "DELETE",
                Method::Post => "GET",
            };
            let r = check(format!("{other} {path}"), server.request(other, path, &[]));
            assert_eq!(r.status, 405, "{other} {path}");
            if route.method == Method::Post {
                let r = check(
                    format!("POST {path} (not JSON)"),
                    post(&server, path, "application/json", b"{\"a\":"),
                );
                assert!((400..500).contains(&r.status), "{path}: {}", r.status);
                let r = check(
                    format!("POST {path} (text/plain)"),
                    post(&server, path, "text/plain", b"x"),
                );
                assert!((400..500).contains(&r.status), "{path}: {}", r.status);
            }
        }
    }

    // The errors every site has.
    for (target, status) in [
        ("/no/such/page", 404),
        ("/api/no-such-route", 404),
        ("/api/observations-data.php?limit=abc", 400),
        ("/api/observations-data.php?from=yesterday", 400),
        ("/%00", 400),
    ] {
        let r = check(format!("GET {target}"), server.get(target, &[]));
        assert_eq!(r.status, status, "{target}");
    }
    let big = format!(
        "POST /mcp/ HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: 8388608\r\n\r\n{{",
        server.addr
    );
    let r = check(
        "POST /mcp/ (8 MiB)".into(),
        server.raw(big.as_bytes(), false),
    );
    assert_eq!(r.status, 413);
    assert!(answers > keys.len() * 2, "{answers} answers audited");
}

#[test]
fn no_request_redirects_to_another_host() {
    let Some((server, dist, _data)) = start() else {
        return;
    };
    let dir = a_directory(&dist);
    for target in [
        "//evil.example".to_owned(),
        "//evil.example/".to_owned(),
        "///evil.example/".to_owned(),
        "/\\evil.example".to_owned(),
        "/%2f%2fevil.example".to_owned(),
        "/%5cevil.example".to_owned(),
        "/https://evil.example".to_owned(),
        "/https:%2f%2fevil.example".to_owned(),
        "/.//evil.example".to_owned(),
        format!("/{dir}"),
        format!("/{dir}?next=https://evil.example"),
        format!("{dir}?url=//evil.example"),
        format!("{dir}?%0d%0aLocation:%20https://evil.example"),
        format!("//evil.example{dir}"),
        format!("/%2fevil.example{dir}"),
        format!("{dir}/..//evil.example"),
        "http://evil.example/".to_owned(),
    ] {
        let r = server.get(&target, &[]);
        assert!(r.status != 500, "{target}");
        audit(&target, &r);
        if (300..400).contains(&r.status) {
            let location = r.must("location");
            let path = location.split('?').next().unwrap_or_default();
            assert!(!path.contains("evil.example"), "{target} → {location}");
        }
    }
}

#[test]
fn no_path_leaves_the_site_through_any_route_prefix() {
    let Some((server, dist, _data)) = start() else {
        return;
    };
    // A file beside the built site that no request may reach.
    let outside = dist.parent().unwrap().join("audit-outside.txt");
    std::fs::write(&outside, "AUDIT-OUTSIDE-7c1e").unwrap();
    let mut prefixes: Vec<&str> = vec!["", "/assets", "/files", "/docs", "/.well-known"];
    prefixes.extend(ROUTES.iter().flat_map(|r| r.paths()));
    for prefix in prefixes {
        for escape in [
            "/../audit-outside.txt",
            "/%2e%2e/audit-outside.txt",
            "/%2e%2e%2faudit-outside.txt",
            "/..%2faudit-outside.txt",
            "/..%5caudit-outside.txt",
            "/%252e%252e/audit-outside.txt",
            "/..;/audit-outside.txt",
            "/%c0%ae%c0%ae/audit-outside.txt",
            "/../../../../../../etc/passwd",
            "/....//audit-outside.txt",
        ] {
            let target = format!("{}{escape}", prefix.trim_end_matches('/'));
            let r = server.get(&target, &[]);
            audit(&target, &r);
            assert!(
                [400, 404, 405].contains(&r.status),
                "{target}: {}",
                r.status
            );
            let body = String::from_utf8_lossy(&r.body);
            assert!(
                !body.contains("AUDIT-OUTSIDE") && !body.contains("root:x:0:0"),
                "{target} leaked a file"
            );
        }
    }
    std::fs::remove_file(outside).unwrap();
}

#[test]
fn reflected_values_carry_no_injected_lines() {
    let Some((server, dist, _data)) = start() else {
        return;
    };
    let dir = a_directory(&dist);
    let injections = [
        "%0d%0aSet-Cookie:%20audit=1",
        "%0aSet-Cookie:%20audit=1",
        "%0d%0a%0d%0a<script>alert(1)</script>",
        "%0d%0a%0d%0a%3Cscript%3Ealert(1)%3C/script%3E",
        "%E5%98%8A%E5%98%8DSet-Cookie:%20audit=1",
        "%c4%8d%c4%8aSet-Cookie:%20audit=1",
    ];
    for inj in injections {
        for target in [
            // The problem instance of a 404 and of a 400.
            format!("/api/{inj}"),
            format!("/api/observations-data.php?limit={inj}"),
            // The redirect keeps the query.
            format!("{dir}?q={inj}"),
            format!("{dir}?{inj}"),
            // The live routes and their CSV form (with its Link header).
            format!("/api/observations-data.php?format=csv&site={inj}"),
            format!("/api/observations-data.php?format=csv&x={inj}"),
            format!("/api/globe-data.php?x={inj}"),
            format!("/api/platform-stats.php?{inj}"),
            format!("/no/such/{inj}"),
        ] {
            let r = server.get(&target, &[]);
            assert!(r.status != 500, "{target}");
            audit(&target, &r);
            // An injected line would arrive as a header of its own; what
            // was sent encoded stays encoded.
            for (name, value) in &r.headers {
                assert!(
                    !name.contains("cookie"),
                    "{target}: injected {name}: {value}"
                );
                if value.contains("Set-Cookie") {
                    assert!(value.contains(inj), "{target}: decoded into {value}");
                }
            }
            // Nothing reflected unescaped into a page either.
            assert!(
                !String::from_utf8_lossy(&r.body).contains("<script>alert(1)"),
                "{target}: reflected script"
            );
        }
        // A raw CR or LF in the request line never reaches a handler.
        let raw = format!(
            "GET /api/x\r\nSet-Cookie: audit=1 HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            server.addr
        );
        let r = server.raw(raw.as_bytes(), false);
        assert!(r.header("set-cookie").is_none());
        assert!(r.status == 400 || r.status == 404, "raw CRLF: {}", r.status);
    }
    // The problem instance is the path as it arrived, still escaped.
    let r = server.get("/api/a%0d%0ab", &[]);
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["instance"], "/api/a%0d%0ab");
}
