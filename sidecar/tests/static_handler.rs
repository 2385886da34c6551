//! Handler-level tests of static serving (no socket): headers, negotiation,
//! conditional and range requests, directories, unknown and hostile paths.

use common::handler::{get, send, state, state_with};
use common::{Fixture, SECRET};
use sidecar::published::Published;

#[tokio::test]
async fn serves_a_page_with_its_headers() {
    let f = Fixture::new();
    let s = state(&f);
    let a = get(&s, "/").await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body, f.read("index.html"));
    assert_eq!(a.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(a.header("etag"), common::etag(&f.read("index.html")));
    assert_eq!(a.header("cache-control"), common::PAGE);
    assert_eq!(a.header("vary"), "accept-encoding");
    assert_eq!(a.header("accept-ranges"), "bytes");
    assert_eq!(a.header("access-control-allow-origin"), "*");
    assert!(a.header("access-control-expose-headers").contains("ETag"));
    assert!(!a.has("access-control-allow-credentials"));
    let csp = a.header("content-security-policy");
    assert!(csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'self'"));
    assert!(!csp.contains("http"));
    assert_eq!(
        a.header("referrer-policy"),
        "strict-origin-when-cross-origin"
    );
    assert!(a.header("permissions-policy").contains("camera=()"));
    assert!(!a.has("content-encoding"));
    assert_eq!(get(&s, "/index.html").await.body, a.body);
}

#[tokio::test]
async fn manifest_policies_and_types_verbatim() {
    let f = Fixture::new();
    let s = state(&f);
    let css = get(&s, "/assets/site.0123456789abcdef.css").await;
    assert_eq!(css.header("cache-control"), common::IMMUTABLE);
    assert_eq!(css.header("content-type"), "text/css; charset=utf-8");
    assert!(!css.has("content-security-policy"), "CSP is for HTML");
    let api = get(&s, "/.well-known/api-catalog").await;
    assert_eq!(
        api.header("content-type"),
        "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\""
    );
    assert!(!api.has("vary"), "no twins, no Vary");
    let api_head = send(&s, "HEAD", "/.well-known/api-catalog", &[]).await;
    assert_eq!(
        api_head.header("link"),
        "</.well-known/api-catalog>; rel=\"api-catalog\""
    );
    assert!(api_head.body.is_empty());
    assert_eq!(get(&s, "/").await.header("link"), api_head.header("link"));
    assert!(!css.has("link"));
    let openapi = get(&s, "/openapi.json").await;
    assert_eq!(openapi.header("cache-control"), "no-cache");
    let service = get(&s, "/api/service.json").await;
    assert_eq!(service.status, 200);
    assert_eq!(service.header("content-type"), "application/json");
    let md = get(&s, "/docs/guide/index.md").await;
    assert_eq!(md.header("content-type"), "text/markdown; charset=utf-8");
}

#[tokio::test]
async fn negotiates_precompressed_twins() {
    let f = Fixture::new();
    let s = state(&f);
    let identity = f.read("index.html");
    let br = send(&s, "GET", "/", &[("accept-encoding", "gzip, deflate, br")]).await;
    assert_eq!(br.header("content-encoding"), "br");
    assert_eq!(common::unbrotli(&br.body), identity);
    assert_eq!(br.header("vary"), "accept-encoding");
    let gz = send(&s, "GET", "/", &[("accept-encoding", "gzip")]).await;
    assert_eq!(gz.header("content-encoding"), "gzip");
    assert_eq!(common::gunzip(&gz.body), identity);
    let refused = send(&s, "GET", "/", &[("accept-encoding", "br;q=0, gzip;q=0")]).await;
    assert!(!refused.has("content-encoding"));
    // Each representation has its own strong ETag.
    let tags = [br.header("etag"), gz.header("etag"), refused.header("etag")];
    assert!(tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2]);
    assert!(tags.iter().all(|t| t.starts_with('"')));
    // Twins are never served under their own names.
    assert_eq!(get(&s, "/index.html.br").await.status, 404);
    assert_eq!(get(&s, "/index.html.gz").await.status, 404);
}

/// A build without `--precompress` lists no twins: the sidecar makes each
/// compressible file's twins on the first request that accepts one, with
/// the identity ETag suffixed per coding, and keeps them.
#[tokio::test]
async fn compresses_files_built_without_twins_on_first_use() {
    let mut files = common::default_files();
    for f in &mut files {
        f.compress = false;
    }
    files.push(common::File {
        key: "noise.txt",
        bytes: common::noise(4096),
        content_type: "text/plain; charset=utf-8",
        cache_control: common::PAGE,
        compress: false,
    });
    let f = Fixture::with_files(files);
    let s = state(&f);
    let identity = f.read("index.html");
    let tag = common::etag(&identity);
    let plain = get(&s, "/").await;
    assert_eq!(plain.body, identity);
    assert_eq!(plain.header("etag"), tag);
    assert_eq!(plain.header("vary"), "accept-encoding");
    assert!(!plain.has("content-encoding"));

    let br = send(&s, "GET", "/", &[("accept-encoding", "gzip, br")]).await;
    assert_eq!(br.header("content-encoding"), "br");
    assert_eq!(common::unbrotli(&br.body), identity);
    let br_tag = format!("{}-br\"", &tag[..tag.len() - 1]);
    assert_eq!(br.header("etag"), br_tag);
    assert_eq!(br.header("vary"), "accept-encoding");
    assert_eq!(br.header("content-length"), br.body.len().to_string());
    assert!(
        br.header("content-security-policy")
            .contains("default-src 'self'")
    );
    let gz = send(&s, "GET", "/", &[("accept-encoding", "gzip")]).await;
    assert_eq!(gz.header("content-encoding"), "gzip");
    assert_eq!(common::gunzip(&gz.body), identity);
    assert_eq!(gz.header("etag"), format!("{}-gz\"", &tag[..tag.len() - 1]));
    // Made once: the same bytes again.
    let again = send(&s, "GET", "/", &[("accept-encoding", "br")]).await;
    assert_eq!(again.body, br.body);
    assert_eq!(again.header("etag"), br_tag);

    // Revalidation of the made twin.
    let revalidated = send(
        &s,
        "GET",
        "/",
        &[
            ("accept-encoding", "br"),
            ("if-none-match", br_tag.as_str()),
        ],
    )
    .await;
    assert_eq!(revalidated.status, 304);
    assert_eq!(revalidated.header("etag"), br_tag);
    assert_eq!(revalidated.header("vary"), "accept-encoding");
    let other = send(
        &s,
        "GET",
        "/",
        &[
            ("accept-encoding", "gzip"),
            ("if-none-match", br_tag.as_str()),
        ],
    )
    .await;
    assert_eq!(other.status, 200);

    // A page made first through the 404 page, and a range of identity bytes.
    let missing = send(&s, "GET", "/no-such-page/", &[("accept-encoding", "br")]).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.header("content-encoding"), "br");
    assert_eq!(common::unbrotli(&missing.body), f.read("404.html"));
    let part = send(
        &s,
        "GET",
        "/docs/guide/",
        &[("accept-encoding", "br"), ("range", "bytes=0-9")],
    )
    .await;
    assert_eq!(part.status, 206);
    assert!(!part.has("content-encoding"));
    assert_eq!(part.body, f.read("docs/guide/index.html")[..10]);

    // What does not compress stays identity; what is small or not text
    // is never compressed and does not vary.
    let noise = send(&s, "GET", "/noise.txt", &[("accept-encoding", "br, gzip")]).await;
    assert!(!noise.has("content-encoding"));
    assert_eq!(noise.header("etag"), common::etag(&common::noise(4096)));
    let small = send(&s, "GET", "/openapi.json", &[("accept-encoding", "br")]).await;
    assert!(!small.has("content-encoding") && !small.has("vary"));
    let binary = send(&s, "GET", "/files/data.bin", &[("accept-encoding", "br")]).await;
    assert!(!binary.has("content-encoding") && !binary.has("vary"));
}

#[tokio::test]
async fn if_none_match_gives_304_with_validators() {
    let f = Fixture::new();
    let s = state(&f);
    let first = send(&s, "GET", "/", &[("accept-encoding", "br")]).await;
    let tag = first.header("etag").to_owned();
    let again = send(
        &s,
        "GET",
        "/",
        &[("accept-encoding", "br"), ("if-none-match", &tag)],
    )
    .await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), tag);
    assert_eq!(again.header("cache-control"), common::PAGE);
    assert_eq!(again.header("vary"), "accept-encoding");
    assert_eq!(again.header("access-control-allow-origin"), "*");
    assert!(
        again
            .header("access-control-expose-headers")
            .contains("ETag")
    );
    assert_eq!(again.header("x-content-type-options"), "nosniff");
    // The br tag does not validate the gzip representation.
    let other = send(
        &s,
        "GET",
        "/",
        &[("accept-encoding", "gzip"), ("if-none-match", &tag)],
    )
    .await;
    assert_eq!(other.status, 200);
    let list = format!("\"nope\", W/{tag}");
    let weak = send(
        &s,
        "GET",
        "/",
        &[("accept-encoding", "br"), ("if-none-match", &list)],
    )
    .await;
    assert_eq!(weak.status, 304);
    let star = send(&s, "HEAD", "/files/data.bin", &[("if-none-match", "*")]).await;
    assert_eq!(star.status, 304);
}

#[tokio::test]
async fn head_has_headers_and_no_body() {
    let f = Fixture::new();
    let s = state(&f);
    let get_a = get(&s, "/assets/site.0123456789abcdef.css").await;
    let head = send(&s, "HEAD", "/assets/site.0123456789abcdef.css", &[]).await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    for h in [
        "content-length",
        "etag",
        "content-type",
        "cache-control",
        "vary",
    ] {
        assert_eq!(head.header(h), get_a.header(h), "{h}");
    }
    let missing = send(&s, "HEAD", "/api/nope", &[]).await;
    assert_eq!(missing.status, 404);
    assert!(missing.body.is_empty());
    assert_ne!(missing.header("content-length"), "0");
    assert_eq!(send(&s, "HEAD", "/healthz", &[]).await.status, 200);
}

#[tokio::test]
async fn single_ranges() {
    let f = Fixture::new();
    let s = state(&f);
    let data = f.read("files/data.bin");
    let len = data.len();
    let a = send(&s, "GET", "/files/data.bin", &[("range", "bytes=10-19")]).await;
    assert_eq!(a.status, 206);
    assert_eq!(a.body, data[10..20]);
    assert_eq!(a.header("content-range"), format!("bytes 10-19/{len}"));
    assert_eq!(a.header("content-length"), "10");
    assert_eq!(a.header("etag"), common::etag(&data));
    let tail = send(&s, "GET", "/files/data.bin", &[("range", "bytes=-5")]).await;
    assert_eq!(tail.body, data[len - 5..]);
    let open = send(
        &s,
        "GET",
        "/files/data.bin",
        &[("range", &format!("bytes={}-", len - 3))],
    )
    .await;
    assert_eq!(open.body, data[len - 3..]);
    let bad = send(
        &s,
        "GET",
        "/files/data.bin",
        &[("range", &format!("bytes={len}-"))],
    )
    .await;
    assert_eq!(bad.status, 416);
    assert_eq!(bad.header("content-range"), format!("bytes */{len}"));
    bad.problem("range_not_satisfiable");
    let multi = send(&s, "GET", "/files/data.bin", &[("range", "bytes=0-1,5-6")]).await;
    assert_eq!(multi.status, 200);
    assert_eq!(multi.body.len(), len);
    let tag = common::etag(&data);
    let stale = send(
        &s,
        "GET",
        "/files/data.bin",
        &[("range", "bytes=0-1"), ("if-range", "\"old\"")],
    )
    .await;
    assert_eq!(stale.status, 200);
    let fresh = send(
        &s,
        "GET",
        "/files/data.bin",
        &[("range", "bytes=0-1"), ("if-range", &tag)],
    )
    .await;
    assert_eq!(fresh.status, 206);
    // A range selects identity bytes even when the client takes br.
    let page = send(
        &s,
        "GET",
        "/",
        &[("range", "bytes=0-14"), ("accept-encoding", "br")],
    )
    .await;
    assert_eq!(page.status, 206);
    assert_eq!(&page.body[..], b"<!doctype html>");
    assert!(!page.has("content-encoding"));
}

/// A release larger than the memory budget keeps its pages on disk: they
/// answer the same, whole, in part and to HEAD, with the same prepared
/// headers; a page gone from disk since the release was loaded is a 500
/// problem, never a panic or a wrong body.
#[tokio::test]
async fn pages_beyond_the_memory_budget_are_read_from_disk() {
    let f = Fixture::new();
    let held = state(&f);
    let disk = state_with(&f, |c| c.files_memory = 0);
    let page = "/docs/guide/";
    let bytes = f.read("docs/guide/index.html");
    for (name, headers) in [
        ("identity", &[][..]),
        ("brotli", &[("accept-encoding", "br")][..]),
        ("range", &[("range", "bytes=10-19")][..]),
    ] {
        let a = send(&held, "GET", page, headers).await;
        let b = send(&disk, "GET", page, headers).await;
        assert_eq!((a.status, &a.body), (b.status, &b.body), "{name}");
        for h in [
            "etag",
            "content-length",
            "content-type",
            "vary",
            "content-range",
        ] {
            assert_eq!(a.has(h), b.has(h), "{name}: {h}");
            if a.has(h) {
                assert_eq!(a.header(h), b.header(h), "{name}: {h}");
            }
        }
    }
    assert_eq!(get(&disk, page).await.body, bytes);
    let head = send(&disk, "HEAD", page, &[]).await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    // Outside pages and search files, everything is held whatever the budget.
    std::fs::remove_file(f.dist.join("index.html")).unwrap();
    assert_eq!(get(&disk, "/").await.status, 200);
    std::fs::remove_file(f.dist.join("docs/guide/index.html")).unwrap();
    get(&disk, page).await.problem("internal_error");
    assert_eq!(get(&held, page).await.body, bytes);
}

#[tokio::test]
async fn directories_and_redirects() {
    let f = Fixture::new();
    let s = state(&f);
    let dir = get(&s, "/docs/guide/").await;
    assert_eq!(dir.status, 200);
    assert_eq!(dir.body, f.read("docs/guide/index.html"));
    let bare = get(&s, "/docs/guide?x=1").await;
    assert_eq!(bare.status, 308);
    assert_eq!(bare.header("location"), "/docs/guide/?x=1");
    // What a query may not hold raw is encoded, so the Location is a
    // valid URI (found by the http_request fuzz target); encoded bytes stay.
    let raw = get(&s, "/docs/guide?q=\u{e9}{x}|%41").await;
    assert_eq!(raw.status, 308);
    assert_eq!(raw.header("location"), "/docs/guide/?q=%C3%A9%7Bx%7D%7C%41");
    // Never for the API or MCP.
    assert_eq!(get(&s, "/mcp").await.status, 405);
    assert_eq!(get(&s, "/api").await.status, 404);
}

#[tokio::test]
async fn unknown_paths() {
    let f = Fixture::new();
    let s = state(&f);
    let page = get(&s, "/no/such/page").await;
    assert_eq!(page.status, 404);
    assert_eq!(page.body, f.read("404.html"));
    assert_eq!(page.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(page.header("cache-control"), "no-store");
    assert!(page.has("content-security-policy"));
    let br = send(&s, "GET", "/nope", &[("accept-encoding", "br")]).await;
    assert_eq!(br.status, 404);
    assert_eq!(common::unbrotli(&br.body), f.read("404.html"));
    for path in ["/api/nope", "/api/", "/mcp/tools", "/api/service.json/x"] {
        let a = get(&s, path).await;
        assert_eq!(a.status, 404, "{path}");
        let p = a.problem("not_found");
        assert_eq!(p["instance"], path);
    }
    // The manifest is never served; neither is anything it does not list.
    let manifest = get(&s, "/manifest.json").await;
    assert_eq!(manifest.status, 404);
    assert_eq!(manifest.body, f.read("404.html"));
    send(&s, "POST", "/nope", &[]).await.problem("not_found");
}

#[tokio::test]
async fn hostile_paths_never_leave_dist() {
    let f = Fixture::new();
    let s = state(&f);
    for path in [
        "/../secret.txt",
        "/../../etc/passwd",
        "/%2e%2e/secret.txt",
        "/%2E%2E/%2E%2E/etc/passwd",
        "/..%2fsecret.txt",
        "/%252e%252e/secret.txt",
        "/.%2e/secret.txt",
        "/docs/../../secret.txt",
        "/..\\secret.txt",
        "/%5c..%5csecret.txt",
        "/docs/%00",
        "/index.html%00.css",
        "//etc/passwd",
        "/./../dist-secret.txt",
        "/docs/guide/../../../secret.txt",
        "/%c0%ae%c0%ae/secret.txt",
        "/..;/secret.txt",
        "/manifest.json",
        "/%2fetc%2fpasswd",
        "/files/../../secret.txt",
        "/assets/%2e%2e%2f%2e%2e%2fsecret.txt",
    ] {
        let a = get(&s, path).await;
        assert!(a.status == 400 || a.status == 404, "{path}: {}", a.status);
        assert!(
            !String::from_utf8_lossy(&a.body).contains(SECRET),
            "{path} leaked"
        );
        if a.status == 400 {
            a.problem("bad_request");
        }
    }
}

#[test]
fn bad_manifests_are_refused() {
    let f = Fixture::new();
    let manifest = f.dist.join("manifest.json");
    let original = std::fs::read_to_string(&manifest).unwrap();
    let cases = [
        original.replace("\"format\": 1", "\"format\": 2"),
        original.replace("\"files/data.bin\"", "\"../secret.txt\""),
        original.replace("\"size\": 100000", "\"size\": 99"),
        original.replace("\"path\": \"index.html.br\"", "\"path\": \"../secret.txt\""),
    ];
    for (i, text) in cases.iter().enumerate() {
        assert_ne!(*text, original, "case {i} changed nothing");
        std::fs::write(&manifest, text).unwrap();
        assert!(load(&f.dist).is_err(), "case {i} loaded");
    }
    std::fs::remove_file(&manifest).unwrap();
    let err = load(&f.dist).unwrap_err();
    assert!(format!("{err:#}").contains("generate build"));
}

fn load(dist: &std::path::Path) -> anyhow::Result<Published> {
    Published::load(dist, "http://127.0.0.1:8080")
}

#[tokio::test]
async fn moved_pages_answer_301_to_the_page() {
    let f = Fixture::new();
    let path = f.dist.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    manifest["redirects"] = serde_json::json!({
        "/old/guide/": "/docs/guide/",
        "/guide.html": "/docs/guide/",
        "/api/old": "/docs/guide/",
    });
    std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let s = state(&f);
    for (from, to) in [
        ("/old/guide/", "/docs/guide/"),
        ("/old/guide", "/docs/guide/"),
        ("/guide.html", "/docs/guide/"),
        ("/old/guide/?x=1", "/docs/guide/?x=1"),
    ] {
        let a = get(&s, from).await;
        assert_eq!(a.status, 301, "{from}");
        assert_eq!(a.header("location"), to, "{from}");
        assert!(a.body.is_empty());
        assert_eq!(a.header("access-control-allow-origin"), "*");
    }
    assert_eq!(send(&s, "HEAD", "/old/guide/", &[]).await.status, 301);
    assert_eq!(send(&s, "POST", "/old/guide/", &[]).await.status, 405);
    // Never in the API space, whatever the manifest says.
    assert_eq!(get(&s, "/api/old").await.status, 404);
}
