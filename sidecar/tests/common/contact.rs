//! Shared by the `contact_*` tests: the real request handler with contact
//! state over a real database (SQLite or PostgreSQL, see [`crate::live`]),
//! requests from a chosen client address, and a challenge solver that works
//! as the browser widget does.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use sidecar::AppState;
use sidecar::contact::altcha::pbkdf2_sha256;
use sidecar::contact::{Contact, ContactConfig, PeerAddr};

use crate::Fixture;
use crate::handler::{Answer, state_with};
use crate::live::{Backend, TestDb, open};

pub const KEY: &[u8] = b"contact test key, 32 bytes long!";
/// The site origin of the test state (the default: the listen address).
pub const SITE: &str = "http://127.0.0.1:8080";
pub const PATH: &str = "/api/contact.php";
pub const CHALLENGE: &str = "/api/contact-challenge";
pub const MAX_BODY: usize = 16 * 1024;

/// A handler state with contact routes over a fresh database.
pub struct Env {
    pub state: AppState,
    pub db: TestDb,
    _fixture: Fixture,
}

/// Cheap challenges and no fill-time minimum unless `edit` says otherwise.
pub fn test_config() -> ContactConfig {
    ContactConfig {
        challenge_cost: 10,
        challenge_counter: (1, 30),
        min_fill: Duration::ZERO,
        submit_limit: 1000,
        challenge_limit: 1000,
        topics: vec![
            "project:rivers".into(),
            "service:data".into(),
            "other".into(),
        ],
        ..ContactConfig::default()
    }
}

pub async fn env(
    backend: Backend,
    name: &str,
    edit: impl FnOnce(&mut ContactConfig),
) -> Option<Env> {
    let db = open(backend, name, sidecar::store::SampleSize::None).await?;
    let fixture = Fixture::new();
    let mut state = state_with(&fixture, |c| c.max_body_bytes = MAX_BODY);
    let mut cfg = test_config();
    edit(&mut cfg);
    state.contact = Some(Arc::new(Contact::new(db.store.clone(), KEY.to_vec(), cfg)));
    Some(Env {
        state,
        db,
        _fixture: fixture,
    })
}

/// Sends a request as the client at `peer`.
pub async fn send(
    state: &AppState,
    method: &str,
    path: &str,
    peer: &str,
    headers: &[(&str, &str)],
    body: impl Into<Bytes>,
) -> Answer {
    let mut request = Request::builder().method(method).uri(path);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let mut request = request.body(Full::new(body.into())).unwrap();
    request
        .extensions_mut()
        .insert(PeerAddr(peer.parse::<IpAddr>().unwrap()));
    let response = sidecar::handle(state, request).await;
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: body.collect().await.unwrap().to_bytes(),
    }
}

/// A challenge from the route, solved: the `altcha` field value.
pub async fn solved(state: &AppState, peer: &str) -> String {
    let a = send(state, "GET", CHALLENGE, peer, &[], Bytes::new()).await;
    assert_eq!(a.status, 200, "{:?}", a.body);
    solve(&a.json())
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Solves a challenge as the widget does: counters from 0 until the derived
/// key starts with `keyPrefix`; returns the base64 `altcha` payload.
pub fn solve(challenge: &Value) -> String {
    let p = &challenge["parameters"];
    let nonce = unhex(p["nonce"].as_str().unwrap());
    let salt = unhex(p["salt"].as_str().unwrap());
    let prefix = p["keyPrefix"].as_str().unwrap();
    let cost = p["cost"].as_u64().unwrap() as u32;
    let len = p["keyLength"].as_u64().unwrap() as usize;
    for counter in 0u32..1_000_000 {
        let mut pw = nonce.clone();
        pw.extend_from_slice(&counter.to_be_bytes());
        let key: String = pbkdf2_sha256(&pw, &salt, cost, len)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if key.starts_with(prefix) {
            let payload = json!({
                "challenge": challenge,
                "solution": {"counter": counter, "derivedKey": key, "time": 1}
            });
            return base64::engine::general_purpose::STANDARD.encode(payload.to_string());
        }
    }
    panic!("no solution")
}

/// A valid JSON enquiry with `altcha`.
pub fn enquiry(altcha: &str) -> Value {
    json!({
        "name": "Ada Lovelace",
        "email": "ada@visitor.example",
        "organisation": "Analytical Engines",
        "topic": "project:rivers",
        "message": "How can our school join the nitrate survey?\nThanks!",
        "consent": true,
        "altcha": altcha,
    })
}

pub const JSON: (&str, &str) = ("content-type", "application/json");
pub const FORM: (&str, &str) = ("content-type", "application/x-www-form-urlencoded");
pub const ORIGIN: (&str, &str) = ("origin", SITE);

/// Posts a JSON enquiry from the site origin.
pub async fn post_json(state: &AppState, peer: &str, body: &Value) -> Answer {
    send(state, "POST", PATH, peer, &[ORIGIN, JSON], body.to_string()).await
}

pub fn backend_name(b: Backend) -> &'static str {
    match b {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "pg",
    }
}
