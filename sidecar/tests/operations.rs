//! What an operator sees of the real binary over real sockets: `/metrics`
//! on the admin listener only, one `access` log line per request with the
//! request id kept or made and echoed, and no query string or question of
//! the chat and contact routes in the log; a chat request without `Origin`
//! refused as a foreign one.

use common::Fixture;
use common::client::Server;
use serde_json::Value;

/// Seconds since the Unix epoch, now.
fn now() -> f64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.unwrap().as_secs_f64()
}

/// Seconds since the Unix epoch of a timestamp of the log's shape
/// (`2026-12-02T21:35:21.123456Z`), by the proleptic Gregorian calendar.
fn epoch_seconds(stamp: &str) -> f64 {
    assert!(stamp.len() == 27 && stamp.ends_with('Z'), "{stamp}");
    let n = |at: usize, len: usize| stamp[at..at + len].parse::<i64>().unwrap();
    let (month, day) = (n(5, 2), n(8, 2));
    let year = n(0, 4) - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let of_era = year - era * 400;
    let of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let days = era * 146_097 + of_era * 365 + of_era / 4 - of_era / 100 + of_year - 719_468;
    let seconds = days * 86_400 + n(11, 2) * 3_600 + n(14, 2) * 60;
    seconds as f64 + stamp[17..26].parse::<f64>().unwrap()
}

#[test]
fn timestamps_read_as_seconds() {
    assert_eq!(epoch_seconds("1970-01-01T00:00:00.000000Z"), 0.0);
    assert_eq!(epoch_seconds("2000-02-29T00:00:01.500000Z"), 951_782_401.5);
    assert_eq!(
        epoch_seconds("2026-12-02T21:35:21.000000Z"),
        1_796_247_321.0
    );
}

/// The `access` lines logged so far, parsed.
fn access_lines(server: &Server) -> Vec<Value> {
    server
        .logged("\"target\":\"access\"")
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn metrics_only_on_the_admin_listener() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--log-format", "json"]);
    let public = server.get("/metrics", &[]);
    assert_eq!(public.status, 404);
    let admin = server.admin_get("/metrics");
    assert_eq!(admin.status, 200);
    let text = String::from_utf8(admin.body).unwrap();
    let release = server.get("/healthz", &[]);
    let release: Value = serde_json::from_slice(&release.body).unwrap();
    let info = format!(
        "sidecar_release_info{{release=\"{}\"}} 1",
        release["release"].as_str().unwrap()
    );
    assert!(text.lines().any(|l| l == info), "{info} in\n{text}");
    assert!(text.contains("sidecar_outbox_send_failures_total{kind=\"connect\"} 0"));
    assert!(text.contains("sidecar_outbox_pending 0"));
    assert!(text.contains("sidecar_database_errors_total 0"));
    assert!(text.contains("sidecar_access_log_dropped_lines_total 0"));
    assert_eq!(server.admin_get("/healthz").status, 200);
    assert_eq!(server.admin_get("/api/chat.php").status, 404);
    // Off means off.
    let quiet = Server::start(&f.dist, &["--admin-listen", "off"]);
    assert!(quiet.admin.is_none());
    assert_eq!(quiet.get("/metrics", &[]).status, 404);
}

#[test]
fn one_access_line_per_request_without_private_queries() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--log-format", "json"]);
    let origin = format!("http://{}", server.addr);
    let before = now();
    let kept = server.get("/?v=2", &[("X-Request-Id", "front-7f3a")]);
    assert_eq!(kept.header("x-request-id"), Some("front-7f3a"));
    let made = server.get("/no/such/page", &[("X-Request-Id", "has space")]);
    assert_eq!(made.status, 404);
    let made_id = made.must("x-request-id").to_owned();
    assert_ne!(made_id, "has space");
    let marker = "kingfisherzebra9904";
    let body = format!("{{\"message\":\"Where is {marker}?\"}}");
    let length = body.len().to_string();
    let json = [
        ("Content-Type", "application/json"),
        ("Content-Length", length.as_str()),
        ("Origin", origin.as_str()),
    ];
    let chat = server.send(
        "POST",
        "/api/chat.php?q=querysecret",
        &json,
        body.as_bytes(),
    );
    assert!(chat.header("x-request-id").is_some());
    // A script sending no Origin is refused as a foreign origin is.
    let scripted = server.send("POST", "/api/chat.php", &json[..2], body.as_bytes());
    assert_eq!(scripted.status, 403);
    scripted.problem("forbidden_origin");
    let contact = server.send(
        "POST",
        "/api/contact.php?name=querysecret",
        &json,
        body.as_bytes(),
    );
    assert!(contact.header("x-request-id").is_some());
    // The chat's hand-off: the form page, prefilled by its query string.
    let handoff = server.get("/contact/?topic=other&message=querysecret", &[]);

    let deadline = std::time::Instant::now() + common::client::TIMEOUT;
    let lines = loop {
        let lines = access_lines(&server);
        if lines.len() >= 6 || std::time::Instant::now() > deadline {
            break lines;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(lines.len(), 6, "{lines:#?}");
    // Each line's time is when its request was answered (the log derives
    // it from the monotonic clock between readings of the system clock).
    let after = now();
    for l in &lines {
        let at = epoch_seconds(l["timestamp"].as_str().unwrap());
        assert!(
            before - 0.001 <= at && at <= after + 0.001,
            "{before} {at} {after}: {l}"
        );
    }
    let by_id = |id: &str| {
        lines
            .iter()
            .find(|l| l["request_id"] == id)
            .unwrap_or_else(|| panic!("no line for {id}: {lines:#?}"))
    };
    let file = by_id("front-7f3a");
    assert_eq!(file["level"], "INFO");
    assert_eq!(file["method"], "GET");
    assert_eq!(file["path"], "/?v=2");
    assert_eq!(file["status"], 200);
    assert_eq!(file["client"], "127.0.0.1");
    assert!(file["bytes"].as_u64().unwrap() > 0);
    assert!(file["duration_ms"].as_f64().is_some());
    assert!(file["timestamp"].is_string());
    assert_eq!(by_id(&made_id)["status"], 404);
    let chat_line = by_id(chat.must("x-request-id"));
    assert_eq!(chat_line["path"], "/api/chat.php");
    assert_eq!(
        by_id(contact.must("x-request-id"))["path"],
        "/api/contact.php"
    );
    assert_eq!(by_id(handoff.must("x-request-id"))["path"], "/contact/");
    let all = server.logged("");
    for line in &all {
        assert!(!line.contains(marker), "{line}");
        assert!(!line.contains("querysecret"), "{line}");
    }
}

#[test]
fn files_and_revalidations_carry_one_made_id_each() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &[]);
    let page = server.get("/", &[]);
    let etag = page.must("etag").to_owned();
    let revalidated = server.get("/", &[("If-None-Match", etag.as_str())]);
    assert_eq!(revalidated.status, 304);
    let brotli = server.get("/", &[("Accept-Encoding", "br")]);
    let mut ids = Vec::new();
    for answer in [&page, &revalidated, &brotli] {
        let all: Vec<&str> = answer
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("x-request-id"))
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(all.len(), 1, "one id on each answer: {all:?}");
        assert!(
            all[0].contains('-') && all[0].len() > 9,
            "a made id: {all:?}"
        );
        ids.push(all[0]);
    }
    ids.dedup();
    assert_eq!(ids.len(), 3, "each answer its own id: {ids:?}");
}

#[test]
fn the_access_log_can_be_turned_off() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &["--log-format", "json", "--access-log", "false"]);
    let a = server.get("/", &[]);
    assert!(
        a.header("x-request-id").is_some(),
        "the id is echoed all the same"
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(access_lines(&server).is_empty());
}
