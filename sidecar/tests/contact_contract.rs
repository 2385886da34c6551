//! Real answers of the contact routes — the receipt, the redirect, the
//! challenge and every refusal — validate against the built contract
//! (`CONTRACT_OPENAPI`, see `live_contract.rs`; `SIDECAR_SKIP_CONTRACT=1`
//! skips).

mod common;
mod contact_support;
mod live_support;

use bytes::Bytes;
use common::handler::Answer;
use contact_support::{
    CHALLENGE, FORM, JSON, MAX_BODY, ORIGIN, PATH, enquiry, env, post_json, send,
};
use live_support::Backend;
use serde_json::{Value, json};

fn contract() -> Option<Value> {
    let Ok(path) = std::env::var("CONTRACT_OPENAPI") else {
        if std::env::var("SIDECAR_SKIP_CONTRACT").as_deref() == Ok("1") {
            return None;
        }
        panic!("CONTRACT_OPENAPI is unset (see live_contract.rs), or set SIDECAR_SKIP_CONTRACT=1");
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Some(serde_json::from_str(&text).unwrap())
}

fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v["$ref"].as_str() {
        Some(r) => doc.pointer(r.trim_start_matches('#')).unwrap(),
        None => v,
    }
}

/// The status is declared for `method path`, its declared headers are
/// present, and the body validates against the declared schema.
fn check(doc: &Value, method: &str, path: &str, a: &Answer) -> Value {
    let status = a.status.as_u16().to_string();
    let op = &doc["paths"][path][method];
    assert!(op.is_object(), "{method} {path} is not in the contract");
    let declared = op["responses"]
        .get(&status)
        .unwrap_or_else(|| panic!("{method} {path}: status {status} is not declared"));
    let declared = resolve(doc, declared);
    for name in declared["headers"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|h| h.0)
    {
        assert!(
            a.has(name),
            "{method} {path} {status}: declared header {name} missing"
        );
    }
    let Some(content) = declared["content"].as_object() else {
        assert!(
            a.body.is_empty(),
            "{method} {path} {status}: undeclared body"
        );
        return Value::Null;
    };
    let essence = a
        .header("content-type")
        .split(';')
        .next()
        .unwrap()
        .trim()
        .to_owned();
    let schema = &content
        .get(&essence)
        .unwrap_or_else(|| panic!("{method} {path} {status}: {essence} not declared"))["schema"];
    let instance: Value = serde_json::from_slice(&a.body).unwrap();
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": doc["components"],
        "allOf": [schema],
    });
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&root)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{method} {path} {status}:\n{}\n{instance:#}",
        errors.join("\n")
    );
    instance
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contact_answers_match_the_contract() {
    let Some(doc) = contract() else {
        return;
    };
    let Some(e) = env(Backend::Sqlite, "contact_contract", |c| {
        c.submit_limit = 12;
        c.challenge_limit = 4;
    })
    .await
    else {
        return;
    };
    let s = &e.state;
    let peer = "192.0.2.1";
    let c = send(s, "GET", CHALLENGE, peer, &[], Bytes::new()).await;
    let challenge = check(&doc, "get", CHALLENGE, &c);
    let altcha = contact_support::solve(&challenge);
    let ok = post_json(s, peer, &enquiry(&altcha)).await;
    assert_eq!(ok.status, 201);
    check(&doc, "post", PATH, &ok);
    let altcha = contact_support::solved(s, peer).await;
    let form = format!(
        "name=A&email=a%40b.example&topic=other&message=m&consent=true&altcha={}",
        altcha
            .replace('+', "%2B")
            .replace('/', "%2F")
            .replace('=', "%3D")
    );
    let redirect = send(s, "POST", PATH, peer, &[ORIGIN, FORM], form).await;
    assert_eq!(redirect.status, 303);
    check(&doc, "post", PATH, &redirect);
    let mut refusals = vec![
        post_json(s, peer, &json!({"name": ""})).await,
        post_json(s, peer, &enquiry(&altcha)).await, // replayed
        post_json(s, peer, &enquiry("x")).await,
        send(s, "POST", PATH, peer, &[JSON], "{}").await,
        send(s, "POST", PATH, peer, &[ORIGIN, JSON], "{").await,
        send(
            s,
            "POST",
            PATH,
            peer,
            &[ORIGIN, ("content-type", "text/plain")],
            "x",
        )
        .await,
        send(
            s,
            "POST",
            PATH,
            peer,
            &[ORIGIN, JSON],
            "x".repeat(MAX_BODY + 1),
        )
        .await,
    ];
    let mut missing = enquiry("");
    missing.as_object_mut().unwrap().remove("altcha");
    refusals.push(post_json(s, peer, &missing).await);
    for _ in 0..12 {
        refusals.push(post_json(s, peer, &json!({})).await);
    }
    let statuses: Vec<u16> = refusals.iter().map(|a| a.status.as_u16()).collect();
    for status in [400, 403, 413, 415, 422, 429] {
        assert!(
            statuses.contains(&status),
            "{status} not exercised: {statuses:?}"
        );
    }
    for a in &refusals {
        let p = check(&doc, "post", PATH, a);
        assert_eq!(p["status"], a.status.as_u16());
    }
    for _ in 0..4 {
        send(s, "GET", CHALLENGE, peer, &[], Bytes::new()).await;
    }
    let limited = send(s, "GET", CHALLENGE, peer, &[], Bytes::new()).await;
    assert_eq!(limited.status, 429);
    check(&doc, "get", CHALLENGE, &limited);
}
