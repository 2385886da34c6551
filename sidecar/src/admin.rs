//! The admin listener (`--admin-listen`, loopback by default): `/metrics`,
//! and `/healthz` and `/readyz` again, for the operator's scraper and
//! probes only. The public listener answers `/metrics` 404, and no
//! generated front configuration routes it: what the metrics tell (release,
//! outbox depth, failures) is nobody else's business, and a scrape costs a
//! database query that the public should not be able to trigger at will.
//!
//! Small on purpose: a few connections at once, on the acceptor's runtime,
//! no CORS, no files, no logs per request.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http::header::HeaderValue;
use http::{Method, Request, Response};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::Body;
use crate::health;
use crate::http::problem::{Code, Problem};
use crate::http::security_headers;
use crate::state::AppState;
use crate::timer::SweptTimer;

/// Connections the admin listener serves at once; more wait to be accepted.
const CONNECTIONS: usize = 16;
const ALLOW: HeaderValue = HeaderValue::from_static("GET, HEAD");

/// Answers one request to the admin listener.
pub async fn handle<B>(state: &AppState, request: &Request<B>) -> Response<Body> {
    answer(state, request.method(), request.uri().path()).await
}

/// Answers `method` on `path`.
async fn answer(state: &AppState, method: &Method, path: &str) -> Response<Body> {
    let known = matches!(path, "/metrics" | "/healthz" | "/readyz");
    let head = method == Method::HEAD;
    let mut response = if !known {
        let problem = Problem::new(
            Code::NotFound,
            "The admin listener answers /metrics, /healthz and /readyz.",
        );
        state.problem(problem, path)
    } else if !(head || method == Method::GET) {
        let problem =
            Problem::new(Code::MethodNotAllowed, "This route takes GET, HEAD.").allow(ALLOW);
        state.problem(problem, path)
    } else {
        let published = state.published.full();
        match path {
            "/metrics" => health::metrics(state, &published).await,
            "/healthz" => health::healthz(&published),
            _ => health::readyz(state)
                .await
                .unwrap_or_else(|problem| state.problem(problem, path)),
        }
    };
    security_headers::apply_all(response.headers_mut());
    if head {
        *response.body_mut() = Body::new(Bytes::new());
    }
    response
}

/// Serves the admin listener until the runtime it runs on stops.
pub async fn serve(listener: TcpListener, state: Arc<AppState>) {
    let permits = Arc::new(Semaphore::new(CONNECTIONS));
    let mut builder = http1::Builder::new();
    builder
        .timer(SweptTimer::spawn())
        .header_read_timeout(state.config.header_read_timeout)
        .keep_alive(true);
    loop {
        let Ok(permit) = permits.clone().acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "admin: accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let state = state.clone();
        let service = service_fn(move |request: Request<hyper::body::Incoming>| {
            let state = state.clone();
            let (method, path) = (request.method().clone(), request.uri().path().to_owned());
            async move { Ok::<_, Infallible>(answer(&state, &method, &path).await) }
        });
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
}
