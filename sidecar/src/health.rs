//! `/healthz` (the process answers), `/readyz` (it can serve: dist loaded —
//! and, once the sidecar has one, its database reachable) and `/metrics`.

use bytes::Bytes;
use http::Response;
use http::header::{self, HeaderValue};

use crate::Body;
use crate::http::problem::{Code, Problem};
use crate::published::Published;
use crate::state::AppState;

const RELEASE: header::HeaderName = header::HeaderName::from_static(contract::headers::RELEASE);
const JSON: HeaderValue = HeaderValue::from_static("application/json");
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
const PROMETHEUS: HeaderValue =
    HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");

/// The process answers, serving `published`.
pub fn healthz(published: &Published) -> Response<Body> {
    let body = serde_json::json!({"status": "ok", "release": published.release});
    let mut response = json(Bytes::from(body.to_string()));
    response
        .headers_mut()
        .insert(RELEASE, published.release_header.clone());
    response
}

/// Ready while the site is loaded (it always is once state exists), the
/// database answers within a second, and the process is not draining.
pub async fn readyz(state: &AppState) -> Result<Response<Body>, Problem> {
    if state.is_shutting_down() {
        return Err(
            Problem::new(Code::ServiceUnavailable, "The server is shutting down.").retry_after(5),
        );
    }
    let Some(live) = &state.live else {
        return Ok(ready(serde_json::json!({"dist": "ok"})));
    };
    match tokio::time::timeout(PING_TIMEOUT, live.store().ping()).await {
        Ok(Ok(())) => Ok(ready(serde_json::json!({"dist": "ok", "database": "ok"}))),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "readiness: database unreachable");
            Err(database_down())
        }
        Err(_) => Err(database_down()),
    }
}

fn ready(checks: serde_json::Value) -> Response<Body> {
    let body = serde_json::json!({"status": "ready", "checks": checks});
    json(Bytes::from(body.to_string()))
}

const PING_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

fn database_down() -> Problem {
    Problem::new(Code::ServiceUnavailable, "The database does not answer.").retry_after(5)
}

pub fn metrics(state: &AppState) -> Response<Body> {
    let published = state.published.get();
    let text = state
        .metrics
        .render(published.files.file_count(), published.files.byte_count());
    let mut response = Response::new(Body::new(Bytes::from(text)));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, PROMETHEUS);
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, NO_STORE);
    response
}

fn json(body: Bytes) -> Response<Body> {
    let mut response = Response::new(Body::new(body));
    response.headers_mut().insert(header::CONTENT_TYPE, JSON);
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, NO_STORE);
    response
}
