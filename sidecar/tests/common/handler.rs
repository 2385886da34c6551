//! Helpers for the handler-level tests: call `sidecar::handle` without a
//! socket and collect the answer, checking the rules every answer obeys.

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Body;
use serde_json::Value;
use sidecar::config::Config;
use sidecar::{AppState, handle};

use super::Fixture;

pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Answer {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap())
            .unwrap_or_else(|| panic!("no {name} header"))
    }

    pub fn has(&self, name: &str) -> bool {
        self.headers.contains_key(name)
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    /// Checks the problem-object rules and returns the object.
    pub fn problem(&self, code: &str) -> Value {
        assert_eq!(self.header("content-type"), "application/problem+json");
        assert_eq!(self.header("cache-control"), "no-store");
        let p = self.json();
        assert_eq!(p["code"], code);
        assert_eq!(p["status"], self.status.as_u16());
        assert_eq!(
            p["type"],
            format!("http://127.0.0.1:8080/docs/problems/{code}/")
        );
        assert!(p["title"].is_string() && p["detail"].is_string() && p["instance"].is_string());
        p
    }
}

pub fn state_with(fixture: &Fixture, edit: impl FnOnce(&mut Config)) -> AppState {
    let mut config = Config::defaults(&fixture.dist);
    edit(&mut config);
    AppState::load(config, "127.0.0.1:8080".parse().unwrap()).expect("fixture loads")
}

pub fn state(fixture: &Fixture) -> AppState {
    state_with(fixture, |_| {})
}

pub async fn send_body<B>(
    state: &AppState,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: B,
) -> Answer
where
    B: Body<Data = Bytes> + Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut request = Request::builder().method(method).uri(path);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = handle(state, request.body(body).unwrap()).await;
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    assert_eq!(
        parts.headers["x-content-type-options"], "nosniff",
        "{method} {path}"
    );
    if let Some(len) = parts.headers.get("content-length")
        && method != "HEAD"
    {
        assert_eq!(
            len.to_str().unwrap(),
            body.len().to_string(),
            "{method} {path}"
        );
    }
    Answer {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

pub async fn send(state: &AppState, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    send_body(state, method, path, headers, Full::new(Bytes::new())).await
}

pub async fn get(state: &AppState, path: &str) -> Answer {
    send(state, "GET", path, &[]).await
}
