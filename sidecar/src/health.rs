//! `/healthz` (the process answers), `/readyz` (it can serve: dist loaded —
//! and, once the sidecar has one, its database reachable) and `/metrics`
//! (on the admin listener only, [`crate::admin`]): one handler over the
//! whole process's state, which is what they report.

use bytes::Bytes;
use contract::routes::Endpoint;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use serde::Serialize;

use crate::Body;
use crate::http::handler::{Answer, Call, Handler, name_release};
use crate::http::json::json_response;
use crate::http::problem::{Code, Problem};
use crate::logging::access::AccessLog;
use crate::metrics::Scrape;
use crate::published::Published;
use crate::state::AppState;
use crate::store::Store;

const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
const PROMETHEUS: HeaderValue =
    HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");

/// The health routes' handler, over the state they report on.
pub struct Health<'s>(pub &'s AppState);

impl Handler for Health<'_> {
    async fn handle(&self, call: Call<'_>) -> Answer {
        match call.endpoint {
            Endpoint::Healthz => Ok(healthz(call.release)),
            _ => readyz(self.0).await,
        }
    }
}

/// `/healthz`'s answer (members in this order).
#[derive(Serialize)]
struct Alive<'a> {
    release: &'a str,
    status: &'static str,
}

/// `/readyz`'s answer (members in this order).
#[derive(Serialize)]
struct Ready {
    checks: Checks,
    status: &'static str,
}

#[derive(Serialize)]
struct Checks {
    #[serde(skip_serializing_if = "Option::is_none")]
    database: Option<&'static str>,
    dist: &'static str,
}

/// The process answers, serving `published`.
pub fn healthz(published: &Published) -> Response<Body> {
    let alive = Alive {
        release: &published.release,
        status: "ok",
    };
    let mut response = json_response(StatusCode::OK, &alive);
    name_release(&mut response, published);
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
        return Ok(ready(None));
    };
    match tokio::time::timeout(PING_TIMEOUT, live.store().ping()).await {
        Ok(Ok(())) => Ok(ready(Some("ok"))),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "readiness: database unreachable");
            Err(database_down())
        }
        Err(_) => Err(database_down()),
    }
}

fn ready(database: Option<&'static str>) -> Response<Body> {
    let ready = Ready {
        checks: Checks {
            database,
            dist: "ok",
        },
        status: "ready",
    };
    json_response(StatusCode::OK, &ready)
}

const PING_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

fn database_down() -> Problem {
    Problem::new(Code::ServiceUnavailable, "The database does not answer.").retry_after(5)
}

/// The Prometheus text of the process's counters, of `published` and of
/// the database (the outbox counted there, since replicas share it).
pub async fn metrics(state: &AppState, published: &Published) -> Response<Body> {
    let store = state.live.as_ref().map(|live| live.store());
    let outbox = match store {
        Some(store) => match tokio::time::timeout(PING_TIMEOUT, store.outbox_stats()).await {
            Ok(Ok(stats)) => Some(stats),
            Ok(Err(e)) => {
                tracing::warn!(error = %format!("{e:#}"), "metrics: the outbox could not be counted");
                None
            }
            Err(_) => None,
        },
        None => None,
    };
    let scrape = Scrape {
        release: &published.release,
        site_files: published.files.file_count(),
        site_bytes: published.files.byte_count(),
        outbox,
        database_errors: store.map(Store::errors),
        access_log_dropped: state.access_log.as_ref().map(AccessLog::dropped),
        now_ms: crate::contact::now_ms(),
    };
    let text = state.metrics.render(&scrape);
    let mut response = Response::new(Body::new(Bytes::from(text)));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, PROMETHEUS);
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, NO_STORE);
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn body(response: Response<Body>) -> Bytes {
        response.into_body().collect().await.unwrap().to_bytes()
    }

    /// The typed answers serialise to the bytes the `json!` values did.
    #[tokio::test]
    async fn answers_as_before() {
        let published = Published::empty("http://127.0.0.1:8080");
        let alive = healthz(&published);
        assert_eq!(alive.headers()["content-type"], "application/json");
        assert_eq!(alive.headers()["cache-control"], "no-store");
        assert_eq!(
            alive.headers()["x-release"],
            published.release_header.to_str().unwrap()
        );
        let was = serde_json::json!({"status": "ok", "release": published.release});
        assert_eq!(body(alive).await, was.to_string());
        let was = serde_json::json!({"status": "ready", "checks": {"dist": "ok"}});
        assert_eq!(body(ready(None)).await, was.to_string());
        let was =
            serde_json::json!({"status": "ready", "checks": {"dist": "ok", "database": "ok"}});
        assert_eq!(body(ready(Some("ok"))).await, was.to_string());
    }
}
