//! The contact routes through the real request handler, on SQLite and on a
//! real PostgreSQL server: what is stored, what is refused and with which
//! problem code, and what is never stored.

use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use common::both_backends;
use common::contact::{
    CHALLENGE, FORM, JSON, KEY, MAX_BODY, ORIGIN, PATH, SITE, enquiry, env, post_json, send, solved,
};
use common::live::Backend;
use serde_json::{Value, json};
use sidecar::contact::altcha::Altcha;
use sidecar::store::contact::Selection;

const PEER: &str = "192.0.2.10";

async fn json_submission_is_stored_with_its_outbox_row(backend: Backend) {
    let Some(e) = env(backend, "contact_json", |_| {}).await else {
        return;
    };
    let c = send(&e.state, "GET", CHALLENGE, PEER, &[], Bytes::new()).await;
    assert_eq!(c.status, 200);
    assert_eq!(c.header("cache-control"), "no-store");
    assert_eq!(c.header("content-type"), "application/json");
    assert_eq!(c.json()["parameters"]["algorithm"], "PBKDF2/SHA-256");
    let altcha = common::contact::solve(&c.json());
    let a = post_json(&e.state, PEER, &enquiry(&altcha)).await;
    assert_eq!(a.status, 201, "{:?}", a.body);
    assert_eq!(a.header("cache-control"), "no-store");
    assert_eq!(a.header("vary"), "origin");
    assert_eq!(a.header("access-control-allow-origin"), SITE);
    let receipt = a.json();
    assert_eq!(receipt["status"], "received");
    let reference = receipt["reference"].as_str().unwrap().to_owned();
    assert!(reference.starts_with("ENQ-"), "{reference}");
    assert_eq!(e.db.store.enquiry_count().await.unwrap(), 1);
    let outbox = e.db.store.outbox_state(reference).await.unwrap().unwrap();
    assert_eq!((outbox.status.as_str(), outbox.attempts), ("pending", 0));
}

async fn form_post_redirects_to_the_thank_you_page(backend: Backend) {
    let Some(e) = env(backend, "contact_form", |_| {}).await else {
        return;
    };
    let altcha = solved(&e.state, PEER).await;
    let body = format!(
        "name=Grace+Hopper&email=grace%40navy.example&organisation=&topic=service%3Adata\
         &message=Hello%0D%0Athere&consent=on&website=&altcha={}",
        percent(&altcha)
    );
    let a = send(&e.state, "POST", PATH, PEER, &[ORIGIN, FORM], body).await;
    assert_eq!(a.status, 303, "{:?}", a.body);
    let location = a.header("location").to_owned();
    let reference = location
        .strip_prefix("/contact/thanks/?reference=")
        .unwrap_or_else(|| panic!("{location}"));
    assert!(reference.starts_with("ENQ-"));
    assert_eq!(a.header("cache-control"), "no-store");
    assert_eq!(a.header("vary"), "origin");
    let outbox = e.db.store.outbox_state(reference.into()).await.unwrap();
    assert_eq!(outbox.unwrap().status, "pending");
}

fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn foreign_or_missing_origin_is_refused(backend: Backend) {
    let Some(e) = env(backend, "contact_origin", |_| {}).await else {
        return;
    };
    let altcha = solved(&e.state, PEER).await;
    let body = enquiry(&altcha).to_string();
    for headers in [
        vec![("origin", "https://evil.example"), JSON],
        vec![("origin", "null"), JSON],
        vec![JSON],
        vec![("sec-fetch-site", "cross-site"), JSON],
        vec![("sec-fetch-site", "same-site"), JSON],
    ] {
        let a = send(&e.state, "POST", PATH, PEER, &headers, body.clone()).await;
        assert_eq!(a.status, 403, "{headers:?}");
        a.problem("forbidden_origin");
        assert_eq!(a.header("vary"), "origin");
        assert!(!a.has("access-control-allow-origin"));
    }
    assert_eq!(e.db.store.enquiry_count().await.unwrap(), 0);
    // Without Origin, a browser's same-origin fetch metadata is enough.
    let a = send(
        &e.state,
        "POST",
        PATH,
        PEER,
        &[("sec-fetch-site", "same-origin"), JSON],
        body,
    )
    .await;
    assert_eq!(a.status, 201);
    assert_eq!(a.header("vary"), "origin");
    assert!(!a.has("access-control-allow-origin"));
    assert_eq!(e.db.store.enquiry_count().await.unwrap(), 1);
}

async fn challenge_refusals_have_distinct_codes(backend: Backend) {
    let Some(e) = env(backend, "contact_challenge", |_| {}).await else {
        return;
    };
    let mut missing = enquiry("");
    missing.as_object_mut().unwrap().remove("altcha");
    post_json(&e.state, PEER, &missing)
        .await
        .problem("challenge_missing");

    // Signed with another key.
    let other = Altcha::new(b"somebody else's key material".to_vec());
    let forged = serde_json::to_value(other.issue(10, (1, 5), now_ms(), 60_000)).unwrap();
    let a = post_json(&e.state, PEER, &enquiry(&common::contact::solve(&forged))).await;
    assert_eq!(a.status, 422);
    a.problem("challenge_invalid");
    // Garbage, and a wrong solution of a genuine challenge.
    post_json(&e.state, PEER, &enquiry("bm90IGpzb24="))
        .await
        .problem("challenge_invalid");
    let genuine = solved(&e.state, PEER).await;
    let mut payload: Value = serde_json::from_slice(
        &base64::engine::general_purpose::STANDARD
            .decode(&genuine)
            .unwrap(),
    )
    .unwrap();
    let prefix = payload["challenge"]["parameters"]["keyPrefix"]
        .as_str()
        .unwrap()
        .to_owned();
    payload["solution"]["derivedKey"] = json!(format!("{prefix}{}", "0".repeat(32)));
    let wrong = base64::engine::general_purpose::STANDARD.encode(payload.to_string());
    post_json(&e.state, PEER, &enquiry(&wrong))
        .await
        .problem("challenge_invalid");

    // Expired: issued with our key twenty minutes ago for ten.
    let ours = Altcha::new(KEY.to_vec());
    let old = serde_json::to_value(ours.issue(10, (1, 5), now_ms() - 1_200_000, 600_000)).unwrap();
    post_json(&e.state, PEER, &enquiry(&common::contact::solve(&old)))
        .await
        .problem("challenge_expired");

    // Used once, then replayed.
    assert_eq!(
        post_json(&e.state, PEER, &enquiry(&genuine)).await.status,
        201
    );
    let again = post_json(&e.state, PEER, &enquiry(&genuine)).await;
    assert_eq!(again.status, 422);
    again.problem("challenge_replayed");
    assert_eq!(e.db.store.enquiry_count().await.unwrap(), 1);

    // Faster than a person fills the form.
    let Some(slow) = env(backend, "contact_too_fast", |c| {
        c.min_fill = Duration::from_secs(60)
    })
    .await
    else {
        return;
    };
    let altcha = solved(&slow.state, PEER).await;
    post_json(&slow.state, PEER, &enquiry(&altcha))
        .await
        .problem("submitted_too_fast");
    assert_eq!(slow.db.store.enquiry_count().await.unwrap(), 0);
}

fn now_ms() -> i64 {
    sidecar::contact::now_ms()
}

async fn honeypot_answers_normally_and_stores_nothing(backend: Backend) {
    let Some(e) = env(backend, "contact_honeypot", |_| {}).await else {
        return;
    };
    let altcha = solved(&e.state, PEER).await;
    let mut bot = enquiry(&altcha);
    bot["website"] = json!("https://spam.example");
    let a = post_json(&e.state, PEER, &bot).await;
    assert_eq!(a.status, 201);
    assert_eq!(a.json()["status"], "received");
    assert!(a.json()["reference"].as_str().unwrap().starts_with("ENQ-"));
    let form = "name=Bot&email=bot%40spam.example&topic=other&message=buy&consent=on&website=x";
    let a = send(&e.state, "POST", PATH, PEER, &[ORIGIN, FORM], form).await;
    assert_eq!(a.status, 303);
    assert!(
        a.header("location")
            .starts_with("/contact/thanks/?reference=ENQ-")
    );
    assert_eq!(e.db.store.enquiry_count().await.unwrap(), 0);
    // The challenge was not spent either: a human can still use it.
    assert_eq!(
        post_json(&e.state, PEER, &enquiry(&altcha)).await.status,
        201
    );
}

async fn flood_gets_429_while_another_client_passes(backend: Backend) {
    let Some(e) = env(backend, "contact_flood", |c| {
        c.submit_limit = 3;
        c.challenge_limit = 4;
        c.trusted_proxies = vec!["10.0.0.0/8".parse().unwrap()];
    })
    .await
    else {
        return;
    };
    let flooder = "203.0.113.5";
    for _ in 0..3 {
        let a = post_json(&e.state, flooder, &json!({})).await;
        assert_eq!(a.status, 422);
    }
    let a = post_json(&e.state, flooder, &json!({})).await;
    assert_eq!(a.status, 429);
    a.problem("too_many_requests");
    let wait: u64 = a.header("retry-after").parse().unwrap();
    assert!((1..=600).contains(&wait), "{wait}");
    assert_eq!(a.header("vary"), "origin");
    // Another client, behind a trusted proxy, still gets through.
    let altcha = solved(&e.state, "10.1.2.3").await;
    let body = enquiry(&altcha).to_string();
    let via_proxy = [
        ORIGIN,
        JSON,
        ("x-forwarded-for", "203.0.113.5, 198.51.100.7"),
    ];
    let a = send(&e.state, "POST", PATH, "10.1.2.3", &via_proxy, body).await;
    assert_eq!(a.status, 201, "{:?}", a.body);
    // A forged X-Forwarded-For from an untrusted peer counts as that peer.
    let spoof = [ORIGIN, JSON, ("x-forwarded-for", "198.51.100.99")];
    let a = send(&e.state, "POST", PATH, flooder, &spoof, "{}").await;
    assert_eq!(a.status, 429);
    // IPv6 clients are counted per /64.
    for i in 0..3 {
        let peer = format!("2001:db8:5:6::{i}");
        assert_eq!(post_json(&e.state, &peer, &json!({})).await.status, 422);
    }
    let a = post_json(&e.state, "2001:db8:5:6:ffff::1", &json!({})).await;
    assert_eq!(a.status, 429);
    assert_eq!(
        post_json(&e.state, "2001:db8:5:7::1", &json!({}))
            .await
            .status,
        422
    );
    // The challenge route has its own limit.
    let peer = "192.0.2.77";
    for _ in 0..4 {
        let a = send(&e.state, "GET", CHALLENGE, peer, &[], Bytes::new()).await;
        assert_eq!(a.status, 200);
    }
    let a = send(&e.state, "GET", CHALLENGE, peer, &[], Bytes::new()).await;
    assert_eq!(a.status, 429);
    a.problem("too_many_requests");
    assert!(a.has("retry-after"));
}

async fn bad_bodies_get_the_right_problem(backend: Backend) {
    let Some(e) = env(backend, "contact_bodies", |_| {}).await else {
        return;
    };
    let big = format!(r#"{{"message":"{}"}}"#, "x".repeat(MAX_BODY));
    let a = send(&e.state, "POST", PATH, PEER, &[ORIGIN, JSON], big).await;
    assert_eq!(a.status, 413);
    a.problem("payload_too_large");
    let a = send(&e.state, "POST", PATH, PEER, &[ORIGIN, JSON], "{\"name\": ").await;
    assert_eq!(a.status, 400);
    a.problem("bad_request");
    let a = send(&e.state, "POST", PATH, PEER, &[ORIGIN, JSON], "[1, 2]").await;
    a.problem("bad_request");
    let a = send(&e.state, "POST", PATH, PEER, &[ORIGIN, FORM], "name=%FF%FE").await;
    assert_eq!(a.status, 400);
    a.problem("bad_request");
    let text = ("content-type", "text/plain");
    let a = send(&e.state, "POST", PATH, PEER, &[ORIGIN, text], "hello").await;
    assert_eq!(a.status, 415);
    a.problem("unsupported_media_type");

    let bad = json!({
        "name": "",
        "email": "not-an-address",
        "organisation": "x".repeat(201),
        "topic": "project:unknown",
        "message": "y".repeat(5001),
        "consent": false,
        "altcha": "irrelevant",
    });
    let a = post_json(&e.state, PEER, &bad).await;
    assert_eq!(a.status, 422);
    let p = a.problem("invalid_submission");
    let errors = p["errors"].as_array().unwrap();
    let got: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("name", "required"),
            ("organisation", "too_long"),
            ("message", "too_long"),
            ("email", "invalid_format"),
            ("topic", "invalid_choice"),
            ("consent", "consent_required"),
        ]
    );
    assert!(
        errors
            .iter()
            .all(|e| e["reason"].as_str().unwrap().len() > 10)
    );
    assert_eq!(e.db.store.enquiry_count().await.unwrap(), 0);
}

async fn a_dutch_form_is_answered_in_dutch(backend: Backend) {
    let Some(e) = env(backend, "contact_dutch", |_| {}).await else {
        return;
    };
    let altcha = solved(&e.state, PEER).await;
    let mut dutch = enquiry(&altcha);
    dutch["language"] = json!("nl");
    dutch["name"] = json!("");
    let a = post_json(&e.state, PEER, &dutch).await;
    assert_eq!(a.status, 422);
    let p = a.problem("invalid_submission");
    assert_eq!(
        p["errors"],
        json!([{"name": "name", "reason": "Vul uw naam in.", "code": "required"}])
    );
    assert_eq!(
        p["detail"],
        "1 veld van het formulier moet worden verbeterd; `errors` noemt het."
    );
    // The same form in English, as before.
    dutch["language"] = json!("en");
    let p = post_json(&e.state, PEER, &dutch)
        .await
        .problem("invalid_submission");
    assert_eq!(p["errors"][0]["reason"], "Please enter your name.");
    assert_eq!(e.db.store.enquiry_count().await.unwrap(), 0);

    // A Dutch form post goes to the Dutch thank-you page, and the enquiry
    // keeps its language.
    let body = format!(
        "name=Grace+Hopper&email=grace%40navy.example&topic=other&message=Hallo\
         &consent=on&website=&language=nl&altcha={}",
        percent(&altcha)
    );
    let a = send(&e.state, "POST", PATH, PEER, &[ORIGIN, FORM], body).await;
    assert_eq!(a.status, 303, "{:?}", a.body);
    let location = a.header("location").to_owned();
    let reference = location
        .strip_prefix("/nl/contact/thanks/?reference=")
        .unwrap_or_else(|| panic!("{location}"));
    let stored =
        e.db.store
            .enquiries(Selection::Reference(reference.into()))
            .await
            .unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].language, "nl");
}

async fn an_unknown_language_is_refused_naming_the_field(backend: Backend) {
    let Some(e) = env(backend, "contact_language", |_| {}).await else {
        return;
    };
    let altcha = solved(&e.state, PEER).await;
    let mut german = enquiry(&altcha);
    german["language"] = json!("de");
    let a = post_json(&e.state, PEER, &german).await;
    assert_eq!(a.status, 422);
    let p = a.problem("invalid_submission");
    assert_eq!(
        p["errors"],
        json!([{
            "name": "language",
            "reason": "The language must be one of en, nl.",
            "code": "invalid_choice"
        }])
    );
    german["language"] = json!(["nl"]);
    let p = post_json(&e.state, PEER, &german)
        .await
        .problem("invalid_submission");
    assert_eq!(p["errors"][0]["name"], "language");
    assert_eq!(p["errors"][0]["code"], "invalid_type");
    assert_eq!(e.db.store.enquiry_count().await.unwrap(), 0);
    // The challenge was not spent: the same form in a known language passes.
    german["language"] = json!("nl");
    assert_eq!(post_json(&e.state, PEER, &german).await.status, 201);
}

both_backends!(
    json_submission_is_stored_with_its_outbox_row,
    form_post_redirects_to_the_thank_you_page,
    foreign_or_missing_origin_is_refused,
    challenge_refusals_have_distinct_codes,
    honeypot_answers_normally_and_stores_nothing,
    flood_gets_429_while_another_client_passes,
    bad_bodies_get_the_right_problem,
    a_dutch_form_is_answered_in_dutch,
    an_unknown_language_is_refused_naming_the_field,
);
