//! Real answers of the contact routes — the receipt, the redirect, the
//! challenge and every refusal — validate against the built contract
//! (`CONTRACT_OPENAPI`, see `common::openapi`).

use bytes::Bytes;
use common::contact::{
    CHALLENGE, FORM, JSON, MAX_BODY, ORIGIN, PATH, enquiry, env, post_json, send,
};
use common::live::Backend;
use common::openapi::{check_answer, contract};
use serde_json::json;

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
    let challenge = check_answer(&doc, "get", CHALLENGE, &c);
    let altcha = common::contact::solve(&challenge);
    let ok = post_json(s, peer, &enquiry(&altcha)).await;
    assert_eq!(ok.status, 201);
    check_answer(&doc, "post", PATH, &ok);
    let altcha = common::contact::solved(s, peer).await;
    let form = format!(
        "name=A&email=a%40b.example&topic=other&message=m&consent=true&altcha={}",
        altcha
            .replace('+', "%2B")
            .replace('/', "%2F")
            .replace('=', "%3D")
    );
    let redirect = send(s, "POST", PATH, peer, &[ORIGIN, FORM], form).await;
    assert_eq!(redirect.status, 303);
    check_answer(&doc, "post", PATH, &redirect);
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
        let p = check_answer(&doc, "post", PATH, a);
        assert_eq!(p["status"], a.status.as_u16());
    }
    for _ in 0..4 {
        send(s, "GET", CHALLENGE, peer, &[], Bytes::new()).await;
    }
    let limited = send(s, "GET", CHALLENGE, peer, &[], Bytes::new()).await;
    assert_eq!(limited.status, 429);
    check_answer(&doc, "get", CHALLENGE, &limited);
}
