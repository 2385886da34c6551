//! Real-socket tests: the built binary on a free loopback port, spoken to
//! with raw HTTP/1.1 (so hostile request targets reach the server exactly as
//! written).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use common::client::{Server, TIMEOUT, read_reply};
use common::{Fixture, SECRET};
use serde_json::Value;

#[test]
fn etag_304_round_trip_and_keep_alive() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--log-format", "json"]);
    let first = server.get("/", &[("Accept-Encoding", "br")]);
    assert_eq!(first.status, 200);
    let tag = first.must("etag").to_owned();
    let second = server.get("/", &[("Accept-Encoding", "br"), ("If-None-Match", &tag)]);
    assert_eq!(second.status, 304);
    assert!(second.body.is_empty());
    assert_eq!(second.must("etag"), tag);
    assert_eq!(second.must("cache-control"), common::PAGE);
    assert_eq!(second.must("vary"), "accept-encoding");
    // Two requests on one connection.
    let mut s = server.connect();
    let req = format!(
        "GET /openapi.json HTTP/1.1\r\nHost: {}\r\n\r\n",
        server.addr
    );
    s.write_all(req.as_bytes()).unwrap();
    let a = read_reply(&mut s, false);
    s.write_all(
        format!(
            "GET /openapi.json HTTP/1.1\r\nHost: x\r\nIf-None-Match: {}\r\n\r\n",
            a.must("etag")
        )
        .as_bytes(),
    )
    .unwrap();
    let b = read_reply(&mut s, false);
    assert_eq!((a.status, b.status), (200, 304));
    assert_eq!(b.must("cache-control"), "no-cache");
    let health: serde_json::Value =
        serde_json::from_slice(&server.get("/healthz", &[]).body).unwrap();
    assert_eq!(health["status"], "ok");
}

/// A refusal answered before its body is read (a method no route takes, a
/// foreign origin): the body is read and dropped, so the connection stays
/// usable and the peer never gets a reset in place of the answer (a proxy in
/// front would report that reset as its own 502).
#[test]
fn refused_bodies_are_drained_and_the_connection_kept() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &[]);
    let body = "x".repeat(8 * 1024);
    let mut s = server.connect();
    for (method, path, extra, media) in [
        ("PUT", "/", "", "application/json"),
        ("PATCH", "/mcp", "", "application/json"),
        ("DELETE", "/api/contact.php", "", "application/json"),
        (
            "POST",
            "/api/contact.php",
            "Origin: http://elsewhere.example\r\n",
            "application/json",
        ),
        // A media type the route does not take (415, refused unread).
        ("POST", "/mcp/", "", "multipart/form-data"),
    ] {
        // The head first and the body a moment later, as a proxy writes
        // them: the refusal is ready before the body has arrived.
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: x\r\n{extra}Content-Type: {media}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(150));
        s.write_all(body.as_bytes()).unwrap();
        let refused = read_reply(&mut s, false);
        assert!(
            matches!(refused.status, 403 | 405 | 415),
            "{method} {path}: {}",
            refused.status
        );
        assert_ne!(
            refused.header("connection"),
            Some("close"),
            "{method} {path}"
        );
        // The next request on the same connection is answered.
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        assert_eq!(
            read_reply(&mut s, false).status,
            200,
            "after {method} {path}"
        );
    }
}

#[test]
fn gzip_and_brotli_negotiation() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &[]);
    let identity = f.read("docs/guide/index.html");
    let br = server.get(
        "/docs/guide/",
        &[("Accept-Encoding", "gzip, deflate, br, zstd")],
    );
    assert_eq!(br.must("content-encoding"), "br");
    assert_eq!(common::unbrotli(&br.body), identity);
    let gz = server.get("/docs/guide/", &[("Accept-Encoding", "gzip")]);
    assert_eq!(gz.must("content-encoding"), "gzip");
    assert_eq!(common::gunzip(&gz.body), identity);
    let plain = server.get("/docs/guide/", &[]);
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.body, identity);
    // The page has a Markdown twin: its answers vary by Accept too.
    for r in [&br, &gz, &plain] {
        assert_eq!(r.must("vary"), "accept-encoding, accept");
    }
    let md = server.get("/docs/guide/", &[("Accept", "text/markdown")]);
    assert_eq!(md.must("content-type"), "text/markdown; charset=utf-8");
    assert_eq!(md.body, f.read("docs/guide/index.md"));
    assert_eq!(md.must("vary"), "accept", "a twin too small to compress");
    assert!(br.must("etag") != gz.must("etag") && gz.must("etag") != plain.must("etag"));
    let head = server.request("HEAD", "/docs/guide/", &[("Accept-Encoding", "br")]);
    assert_eq!(head.must("content-length"), br.body.len().to_string());
    assert!(head.body.is_empty());
}

#[test]
fn range_requests() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &[]);
    let data = f.read("files/data.bin");
    let part = server.get("/files/data.bin", &[("Range", "bytes=1000-1999")]);
    assert_eq!(part.status, 206);
    assert_eq!(
        part.must("content-range"),
        format!("bytes 1000-1999/{}", data.len())
    );
    assert_eq!(part.body, data[1000..2000]);
    let tail = server.get("/files/data.bin", &[("Range", "bytes=-100")]);
    assert_eq!(tail.body, data[data.len() - 100..]);
    let outside = server.get("/files/data.bin", &[("Range", "bytes=999999-")]);
    assert_eq!(outside.status, 416);
    assert_eq!(
        outside.must("content-range"),
        format!("bytes */{}", data.len())
    );
    outside.problem("range_not_satisfiable");
    let whole = server.get("/files/data.bin", &[]);
    assert_eq!(whole.must("accept-ranges"), "bytes");
    assert_eq!(whole.body, data);
}

#[test]
fn traversal_attempts_never_leave_dist() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &[]);
    let targets: &[&[u8]] = &[
        b"/../../etc/passwd",
        b"/../secret.txt",
        b"/%2e%2e/%2e%2e/etc/passwd",
        b"/%2e%2e/secret.txt",
        b"/%252e%252e/secret.txt",
        b"/%252e%252e/%252e%252e/etc/passwd",
        b"/..%2f..%2fetc/passwd",
        b"/..%2fsecret.txt",
        b"/..\\..\\etc\\passwd",
        b"/%5c..%5csecret.txt",
        b"/docs/%00",
        b"/secret.txt%00.html",
        b"/.%2e/secret.txt",
        b"/%2e./secret.txt",
        b"//etc/passwd",
        b"//../secret.txt",
        b"/docs/../../manifest.json",
        b"/docs/guide/../../../secret.txt",
        b"/./../dist-secret.txt",
        b"/%c0%ae%c0%ae/secret.txt",
        b"/..;/secret.txt",
        b"/manifest.json",
        b"/index.html.br",
        b"/%2fetc%2fpasswd",
        b"/assets/..%5c..%5csecret.txt",
        b"/files/%2e%2e/%2e%2e/secret.txt",
        b"/..%00/secret.txt",
        b"/docs/\x00/x",
        b"/%u002e%u002e/secret.txt",
        b"/....//....//secret.txt",
    ];
    assert!(targets.len() >= 20);
    for target in targets {
        let mut raw = b"GET ".to_vec();
        raw.extend_from_slice(target);
        raw.extend_from_slice(b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        let reply = server.raw(&raw, false);
        let shown = String::from_utf8_lossy(target);
        assert!(
            reply.status == 400 || reply.status == 404,
            "{shown}: {}",
            reply.status
        );
        assert!(
            !String::from_utf8_lossy(&reply.body).contains(SECRET),
            "{shown} leaked the secret"
        );
        assert!(
            !reply.body.starts_with(b"{\n  \"format\""),
            "{shown} leaked the manifest"
        );
    }
    // Still serving after all that.
    assert_eq!(server.get("/", &[]).status, 200);
}

#[test]
fn cors_preflight_and_simple_requests() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--site-origin", "https://site.example"]);
    let pre = server.request(
        "OPTIONS",
        "/mcp/",
        &[
            ("Origin", "https://agent.example"),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "content-type,mcp-protocol-version",
            ),
        ],
    );
    assert_eq!(pre.status, 204);
    assert_eq!(pre.must("access-control-allow-origin"), "*");
    assert_eq!(pre.must("access-control-allow-methods"), "POST, OPTIONS");
    assert!(
        pre.must("access-control-allow-headers")
            .contains("MCP-Protocol-Version")
    );
    assert_eq!(pre.must("access-control-max-age"), "7200");
    assert_eq!(pre.header("access-control-allow-credentials"), None);
    let simple = server.get("/api/service.json", &[("Origin", "https://agent.example")]);
    assert_eq!(simple.status, 200);
    assert_eq!(simple.must("access-control-allow-origin"), "*");
    assert!(
        simple
            .must("access-control-expose-headers")
            .contains("ETag")
    );
    let contact = server.request(
        "OPTIONS",
        "/api/contact.php",
        &[
            ("Origin", "https://site.example"),
            ("Access-Control-Request-Method", "POST"),
        ],
    );
    assert_eq!(contact.status, 204);
    assert_eq!(
        contact.must("access-control-allow-origin"),
        "https://site.example"
    );
    assert_eq!(contact.must("vary"), "origin");
    let foreign = server.request(
        "OPTIONS",
        "/api/contact.php",
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(foreign.status, 403);
    assert_eq!(foreign.header("access-control-allow-origin"), None);
    assert_eq!(foreign.must("vary"), "origin");
    foreign.problem("forbidden_origin");
}

#[test]
fn errors_are_problem_objects() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--max-body-bytes", "1000"]);
    let wrong = server.request("GET", "/mcp/", &[]);
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.must("allow"), "POST, OPTIONS");
    wrong.problem("method_not_allowed");
    let put = server.request("PUT", "/index.html", &[]);
    assert_eq!(put.status, 405);
    assert_eq!(put.must("allow"), "GET, HEAD, OPTIONS");
    put.problem("method_not_allowed");
    // Declared too large: answered before the body is sent.
    let declared = server.raw(
        format!("POST /mcp/ HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 50000\r\n\r\n", server.addr)
            .as_bytes(),
        false,
    );
    assert_eq!(declared.status, 413);
    declared.problem("payload_too_large");
    // Chunked past the limit.
    let mut chunked = format!(
        "POST /mcp/ HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5dc\r\n",
        server.addr
    )
    .into_bytes();
    chunked.extend_from_slice(&[b' '; 1500]);
    chunked.extend_from_slice(b"\r\n");
    let streamed = server.raw(&chunked, false);
    assert_eq!(streamed.status, 413);
    streamed.problem("payload_too_large");
    let untyped = server.raw(
        format!("POST /api/contact.php HTTP/1.1\r\nHost: {}\r\nSec-Fetch-Site: same-origin\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}", server.addr)
            .as_bytes(),
        false,
    );
    assert_eq!(untyped.status, 415);
    assert_eq!(untyped.must("vary"), "origin");
    untyped.problem("unsupported_media_type");
    // On MCP the same fault is a JSON-RPC error (what MCP clients read).
    let mcp = server.raw(
        format!("POST /mcp/ HTTP/1.1\r\nHost: {}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}", server.addr)
            .as_bytes(),
        false,
    );
    assert_eq!(mcp.status, 415);
    assert_eq!(mcp.must("content-type"), "application/json");
    let error: Value = serde_json::from_slice(&mcp.body).unwrap();
    assert_eq!(error["error"]["code"], -32600);
    let later = server.raw(
        format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}", server.addr)
            .as_bytes(),
        false,
    );
    // A JSON body that is not a JSON-RPC request: a JSON-RPC error too.
    assert_eq!(later.status, 400);
    let error: Value = serde_json::from_slice(&later.body).unwrap();
    assert_eq!(error["error"]["code"], -32600);
    server.get("/api/nope", &[]).problem("not_found");
    let page = server.get("/nope", &[]);
    assert_eq!(page.status, 404);
    assert_eq!(page.body, f.read("404.html"));
}

/// A keep-alive connection that has been answered, so it holds the one
/// slot of `--max-connections 1`.
fn hold_the_only_slot(server: &Server) -> std::net::TcpStream {
    let mut held = server.connect();
    held.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(read_reply(&mut held, false).status, 200);
    held
}

#[test]
fn connection_limit_answers_503() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--max-connections", "1"]);
    let held = hold_the_only_slot(&server);
    let refused = server.get("/", &[]);
    assert_eq!(refused.status, 503);
    assert!(refused.header("retry-after").is_some());
    refused.problem("service_unavailable");
    drop(held);
    // The one slot frees once the server has seen each close, a moment after
    // the client's: retry until a request gets through.
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if server.get("/healthz", &[]).status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the slot was not released");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The admin listener has its own connections: the public limit does
    // not apply to it.
    let metrics = String::from_utf8(server.admin_get("/metrics").body).unwrap();
    assert!(
        metrics.contains("sidecar_connections_rejected_total "),
        "{metrics}"
    );
    assert!(
        metrics.contains("sidecar_http_requests_total{route=\"overload\",status=\"503\"} "),
        "{metrics}"
    );
}

#[test]
fn a_burst_past_the_limit_is_answered_503_not_dropped() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--max-connections", "1"]);
    let _held = hold_the_only_slot(&server);
    // Every refusal slot (64) taken by a connection that sends nothing yet…
    let silent: Vec<_> = (0..64).map(|_| server.connect()).collect();
    std::thread::sleep(Duration::from_millis(100));
    // …then a burst that asks: each must still get its 503 once a slot
    // frees, not a bare close.
    let burst: Vec<_> = (0..100)
        .map(|_| {
            let mut s = server.connect();
            s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    drop(silent);
    for mut s in burst {
        let reply = read_reply(&mut s, false);
        assert_eq!(reply.status, 503);
        assert!(reply.header("retry-after").is_some());
    }
}

#[test]
fn slow_headers_are_cut_off() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--header-read-timeout-ms", "300"]);
    let mut s = server.connect();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 1024];
    // The server closes the connection (EOF or reset) well before our timeout.
    let n = s.read(&mut buf).unwrap_or(0);
    assert_eq!(n, 0, "no response to an incomplete head");
    assert!(started.elapsed() < Duration::from_secs(5), "not cut off");
    assert!(started.elapsed() >= Duration::from_millis(250));
}

#[test]
fn graceful_shutdown_completes_a_slow_download() {
    let mut files = common::default_files();
    let big = common::noise(24 * 1024 * 1024);
    files.push(common::File {
        key: "files/big.bin",
        bytes: big.clone(),
        content_type: "application/octet-stream",
        cache_control: "public, max-age=86400",
        compress: false,
    });
    let f = Fixture::with_files(files);
    let mut server = Server::start(&f.dist, &[]);
    let mut s = server.connect();
    s.write_all(b"GET /files/big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    // Read a little, so the response is under way but far from done.
    let mut first = [0u8; 65536];
    let n = s.read(&mut first).unwrap();
    assert!(n > 0);
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "exited with a request in flight"
    );
    // New connections are no longer accepted.
    assert!(
        TcpStream::connect(server.addr).is_err(),
        "still accepting after SIGTERM"
    );
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    let mut all = first[..n].to_vec();
    all.extend_from_slice(&rest);
    let head_end = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    assert!(all.starts_with(b"HTTP/1.1 200"));
    assert_eq!(
        all.len() - head_end,
        big.len(),
        "the in-flight body completed"
    );
    assert!(all[head_end..] == big[..]);
    let status = server.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn sigint_on_an_idle_server_exits_zero() {
    let f = Fixture::new();
    let mut server = Server::start(&f.dist, &[]);
    server.signal("INT");
    assert!(server.wait_exit().success());
}

#[test]
fn bad_configuration_exits_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_sidecar"))
        .args(["serve", "--max-connections", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-connections"));
    let missing = Command::new(env!("CARGO_BIN_EXE_sidecar"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--dist",
            "/nonexistent-dist",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("generate build"));
}
