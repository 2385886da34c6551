//! The rules of `POST /api/chat.php`, through the real handler over the
//! built site and a real database (SQLite, then PostgreSQL): own origins
//! only with exact CORS and `Vary: Origin`, the preflight, the rate limit
//! shared through the database, body limits and field problems, answers
//! and refusals valid against the built contract, no trace of a question in
//! the database, the metrics counters; and one question over a real socket
//! to the real binary.

use std::io::Write as _;
use std::time::Duration;

use bytes::Bytes;
use common::chat::{PATH, ask, ask_with, built_dist, env};
use common::client::{Server, read_reply};
use common::contact::{SITE, send};
use common::handler::Answer;
use common::live::Backend;
use serde_json::{Value, json};

const PEER: &str = "192.0.2.10";

fn check(doc: &Value, a: &Answer) -> Value {
    common::openapi::check_answer(doc, "post", PATH, a)
}

fn varies_on_origin(a: &Answer) -> bool {
    a.headers
        .get_all("vary")
        .iter()
        .any(|v| v.to_str().unwrap().to_ascii_lowercase().contains("origin"))
}

async fn answers_and_refusals(backend: Backend) {
    let Some(doc) = common::openapi::contract() else {
        return;
    };
    let Some(env) = env(backend, "chat_answers", 1000).await else {
        return;
    };
    let s = &env.state;
    let dist = built_dist().unwrap();
    let passages = contract::search::read_passages(contract::search::read_from(&dist)).unwrap();

    let a = ask(s, PEER, "How do I measure nitrate?").await;
    assert_eq!(a.status, 200);
    assert_eq!(a.header("access-control-allow-origin"), SITE);
    assert!(varies_on_origin(&a));
    assert!(!a.has("access-control-allow-credentials"));
    assert_eq!(a.header("cache-control"), "no-store");
    let v = check(&doc, &a);
    assert_eq!(v["kind"], "answer");
    for c in v["citations"].as_array().unwrap() {
        let quote = c["quote"].as_str().unwrap();
        let url = c["url"].as_str().unwrap();
        assert!(url.starts_with(SITE), "{url}");
        let (page, anchor) = url[SITE.len()..]
            .split_once('#')
            .unwrap_or((&url[SITE.len()..], ""));
        let source = passages
            .passages
            .iter()
            .find(|p| p.url == page && p.anchor == anchor)
            .unwrap_or_else(|| panic!("{url} is no passage"));
        assert!(source.text.contains(quote), "not quoted exactly: {quote}");
    }
    // The question travels in the fragment only, never in a query string
    // that servers and proxies log.
    let handoff = v["handoff"]["url"].as_str().unwrap();
    let (before, fragment) = handoff.split_once('#').unwrap();
    assert!(!before.contains('?'), "{handoff}");
    assert!(fragment.contains("message=How%20do%20I%20measure%20nitrate%3F"));

    // Figures come from the live statistics, with their time.
    let figures = check(
        &doc,
        &ask(s, PEER, "How many observations are there?").await,
    );
    assert_eq!(figures["kind"], "figures");
    assert!(
        figures["statistics"]["values"]["observations"]
            .as_i64()
            .unwrap()
            > 0
    );

    // Asked to act: declined, with the hand-off, never an action.
    let declined = check(
        &doc,
        &ask(s, PEER, "Please send my readings to the water authority").await,
    );
    assert_eq!(declined["kind"], "declined");
    assert_eq!(declined["handoff"]["suggested"], true);

    // A follow-up leans on the previous question.
    let follow = ask_with(
        s,
        PEER,
        &json!({"message": "and the safety rules?", "history": [
            {"role": "user", "text": "How do I measure nitrate?"},
            {"role": "assistant", "text": "Here is what the published pages say."}
        ]}),
    )
    .await;
    let follow = check(&doc, &follow);
    assert_eq!(follow["kind"], "answer", "{follow}");
    let quote = follow["citations"][0]["quote"]
        .as_str()
        .unwrap()
        .to_lowercase();
    assert!(
        quote.contains("nitrate") && quote.contains("safety"),
        "{follow}"
    );

    // An off-topic question after a real one stays off topic.
    let off = ask_with(
        s,
        PEER,
        &json!({"message": "Can I adopt a cat from you?", "history": [
            {"role": "user", "text": "How do I measure nitrate?"}
        ]}),
    )
    .await;
    assert_eq!(check(&doc, &off)["kind"], "no_match");

    // A Dutch question is answered from the Dutch pages, in Dutch.
    let dutch = |message: &str| json!({"message": message, "language": "nl"});
    let nl = check(
        &doc,
        &ask_with(s, PEER, &dutch("Welke licentie heeft het archief?")).await,
    );
    assert_eq!(nl["kind"], "answer", "{nl}");
    for c in nl["citations"].as_array().unwrap() {
        let url = c["url"].as_str().unwrap();
        assert!(url.starts_with(&format!("{SITE}/nl/")), "{url}");
    }
    let lead = nl["text"].as_str().unwrap();
    assert!(
        ["Dit zeggen", "Deze passages", "Dit kwam"]
            .iter()
            .any(|l| lead.starts_with(l)),
        "{lead}"
    );
    assert!(
        nl["notice"]
            .as_str()
            .unwrap()
            .starts_with("Antwoorden citeren")
    );
    // Its figures, declines and "no match" are Dutch too.
    let figures = check(
        &doc,
        &ask_with(s, PEER, &dutch("Hoeveel waarnemingen zijn er?")).await,
    );
    assert_eq!(figures["kind"], "figures", "{figures}");
    assert!(
        figures["text"]
            .as_str()
            .unwrap()
            .starts_with("Uit de statistieken")
    );
    assert!(
        figures["citations"][0]["quote"]
            .as_str()
            .unwrap()
            .ends_with("waarnemingen")
    );
    let declined = check(
        &doc,
        &ask_with(
            s,
            PEER,
            &dutch("Kunt u mijn metingen naar het waterschap sturen?"),
        )
        .await,
    );
    assert_eq!(declined["kind"], "declined", "{declined}");
    assert!(
        declined["text"]
            .as_str()
            .unwrap()
            .starts_with("Dat kan deze chat niet")
    );
    assert!(
        declined["handoff"]["label"]
            .as_str()
            .unwrap()
            .starts_with("Vraag het een mens")
    );
    // The hand-off leads to the Dutch contact form.
    let form = declined["handoff"]["url"].as_str().unwrap();
    assert!(form.starts_with(&format!("{SITE}/nl/contact/")), "{form}");
    let none = check(
        &doc,
        &ask_with(s, PEER, &dutch("Mag ik een kat adopteren?")).await,
    );
    assert_eq!(none["kind"], "no_match", "{none}");
    assert!(
        none["text"]
            .as_str()
            .unwrap()
            .starts_with("Ik vond daarop geen goed antwoord")
    );
    // English with `language: "en"` is as without it.
    let en = check(
        &doc,
        &ask_with(
            s,
            PEER,
            &json!({"message": "How do I measure nitrate?", "language": "en"}),
        )
        .await,
    );
    assert_eq!(en["kind"], "answer");
    assert_eq!(en["text"], v["text"]);
    // A language the site has no pages in, or no language code: 422.
    for (language, code) in [
        (json!("de"), "invalid_choice"),
        (json!("english!"), "invalid_format"),
        (json!(7), "invalid_type"),
    ] {
        let a = ask_with(s, PEER, &json!({"message": "Hallo?", "language": language})).await;
        assert_eq!(a.status, 422, "{language}");
        check(&doc, &a);
        let p = a.json();
        assert_eq!(p["errors"][0]["name"], "language", "{p}");
        assert_eq!(p["errors"][0]["code"], code, "{p}");
    }

    // Refusals: each a problem object the contract declares.
    let json_type = [("content-type", "application/json"), ("origin", SITE)];
    type Case<'a> = (&'a [(&'a str, &'a str)], Bytes, u16, &'a str);
    let cases: [Case<'_>; 7] = [
        (
            &json_type,
            Bytes::from_static(b"{not json"),
            400,
            "bad_request",
        ),
        (
            &json_type,
            Bytes::from_static(b"{\"message\": 3}"),
            422,
            "invalid_submission",
        ),
        (
            &json_type,
            Bytes::from(vec![b' '; 20_000]),
            413,
            "payload_too_large",
        ),
        (
            &[("content-type", "text/plain"), ("origin", SITE)],
            Bytes::from_static(b"hi"),
            415,
            "unsupported_media_type",
        ),
        (
            &[
                ("content-type", "application/json"),
                ("origin", "https://evil.example"),
            ],
            Bytes::from_static(b"{\"message\":\"hi\"}"),
            403,
            "forbidden_origin",
        ),
        // Neither `Origin` nor a browser's same-origin fetch metadata: a
        // script or tool, refused as a foreign origin is.
        (
            &[("content-type", "application/json")],
            Bytes::from_static(b"{\"message\":\"hi\"}"),
            403,
            "forbidden_origin",
        ),
        (
            &[
                ("content-type", "application/json"),
                ("sec-fetch-site", "cross-site"),
            ],
            Bytes::from_static(b"{\"message\":\"hi\"}"),
            403,
            "forbidden_origin",
        ),
    ];
    for (headers, body, status, code) in cases {
        let a = send(s, "POST", PATH, PEER, headers, body).await;
        assert_eq!(a.status, status, "{code}");
        a.problem(code);
        assert!(varies_on_origin(&a), "{code}: Vary: Origin");
        check(&doc, &a);
    }
    let bad = send(
        s,
        "POST",
        PATH,
        PEER,
        &json_type,
        Bytes::from_static(b"{\"message\": \"\"}"),
    )
    .await
    .json();
    assert_eq!(bad["errors"][0]["name"], "message");
    assert_eq!(bad["errors"][0]["code"], "required");
    // Without `Origin`, the browser's `Sec-Fetch-Site: same-origin` is enough.
    let same = send(
        s,
        "POST",
        PATH,
        PEER,
        &[
            ("content-type", "application/json"),
            ("sec-fetch-site", "same-origin"),
        ],
        Bytes::from_static(b"{\"message\":\"How do I measure nitrate?\"}"),
    )
    .await;
    assert_eq!(same.status, 200);
    assert!(!same.has("access-control-allow-origin"));

    // The preflight names the method and headers, for the site only.
    let pre = send(
        s,
        "OPTIONS",
        PATH,
        PEER,
        &[("origin", SITE), ("access-control-request-method", "POST")],
        Bytes::new(),
    )
    .await;
    assert_eq!(pre.status, 204);
    assert_eq!(pre.header("access-control-allow-origin"), SITE);
    assert_eq!(pre.header("access-control-allow-methods"), "POST, OPTIONS");
    assert_eq!(
        pre.header("access-control-allow-headers"),
        "Content-Type, Accept"
    );
    assert!(varies_on_origin(&pre));
    let foreign = send(
        s,
        "OPTIONS",
        PATH,
        PEER,
        &[("origin", "https://evil.example")],
        Bytes::new(),
    )
    .await;
    assert_eq!(foreign.status, 403);
    assert!(!foreign.has("access-control-allow-origin"));
}

async fn rate_limit_is_shared(backend: Backend) {
    let Some(env) = env(backend, "chat_limit", 3).await else {
        return;
    };
    for _ in 0..3 {
        assert_eq!(
            ask(&env.state, PEER, "What is Riverlens?").await.status,
            200
        );
    }
    let limited = ask(&env.state, PEER, "What is Riverlens?").await;
    assert_eq!(limited.status, 429);
    limited.problem("too_many_requests");
    assert!(limited.header("retry-after").parse::<u32>().unwrap() >= 1);
    assert_eq!(
        ask(&env.state, "192.0.2.99", "What is Riverlens?")
            .await
            .status,
        200
    );
    // A second replica on the same database counts the same client.
    let dist = built_dist().unwrap();
    let mut replica = sidecar::AppState::load(
        sidecar::config::Config::defaults(&dist),
        "127.0.0.1:8080".parse().unwrap(),
    )
    .unwrap();
    common::chat::add_chat(&mut replica, env.db.store.clone(), 3);
    assert_eq!(ask(&replica, PEER, "What is Riverlens?").await.status, 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_answers_and_refusals() {
    answers_and_refusals(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_answers_and_refusals() {
    answers_and_refusals(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_rate_limit_is_shared() {
    rate_limit_is_shared(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_rate_limit_is_shared() {
    rate_limit_is_shared(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_leave_no_trace_and_are_counted() {
    let Some(env) = env(Backend::Sqlite, "chat_trace", 1000).await else {
        return;
    };
    let s = &env.state;
    let marker = "kingfisherzebra7731";
    let with_history = json!({"message": "How do I measure nitrate?", "history": [
        {"role": "user", "text": format!("My name is {marker}")}
    ]});
    assert_eq!(ask_with(s, PEER, &with_history).await.status, 200);
    let unanswered = format!("Who won the football match last night, {marker}?");
    assert_eq!(ask(s, PEER, &unanswered).await.status, 200);
    assert_eq!(ask_with(s, PEER, &json!({"message": ""})).await.status, 422);
    // Nothing of the question reached the database file or its journal.
    let file = env.db.file.clone().unwrap();
    for f in [file.clone(), file.with_extension("sqlite3-wal")] {
        if let Ok(bytes) = std::fs::read(&f) {
            assert!(
                !bytes.windows(marker.len()).any(|w| w == marker.as_bytes()),
                "{}",
                f.display()
            );
        }
    }
    let scrape = http::Request::get("/metrics").body(()).unwrap();
    let metrics = sidecar::admin::handle(s, &scrape).await;
    let body = http_body_util::BodyExt::collect(metrics.into_body()).await;
    let text = String::from_utf8(body.unwrap().to_bytes().to_vec()).unwrap();
    for line in [
        "sidecar_chat_questions_total 2",
        "sidecar_chat_answered_total 1",
        "sidecar_chat_handoffs_total 1",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
    }
}

#[test]
fn a_question_over_a_real_socket() {
    let Some(dist) = built_dist() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(
        &dist,
        &[
            "--data-dir",
            data.path().to_str().unwrap(),
            "--sample",
            "default",
        ],
    );
    let origin = format!("http://{}", server.addr);
    let body = br#"{"message":"What is a calibration day?"}"#;
    let mut s = server.connect();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "POST {PATH} HTTP/1.1\r\nHost: {}\r\nOrigin: {origin}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        server.addr,
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let reply = read_reply(&mut s, false);
    assert_eq!(
        reply.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(
        reply.header("access-control-allow-origin"),
        Some(origin.as_str())
    );
    let v: Value = serde_json::from_slice(&reply.body).unwrap();
    assert_eq!(v["kind"], "answer");
    assert!(
        v["citations"][0]["url"]
            .as_str()
            .unwrap()
            .starts_with(&origin),
        "{v}"
    );
}
