//! The request handler: a plain async function of state and request, used by
//! the server and, without sockets, by the tests.
//!
//! It composes the parts of the sidecar (`http`, the features `live`,
//! `mcp`, `chat`, `contact` and `health`, `store` through the state); none
//! of them imports it.
//!
//! Order of decisions: normalise the path (400 when hostile) → the
//! contract's route table ([`Endpoint::lookup`]) → for a route of the
//! table, the rules every route obeys alike (its CORS class, OPTIONS, the
//! method; [`admit`]) and then its feature's handler, every one of the same
//! shape ([`crate::http::handler::Handler`], given a
//! [`crate::http::handler::Call`]: the request, its body read on demand,
//! the release it holds) → otherwise a file of `dist/` → not found (a
//! problem in the API space, the 404 page elsewhere). Whatever answered,
//! [`finish`] adds the CORS and security headers, strips HEAD bodies,
//! records metrics and logs — so those rules hold for every response,
//! errors included. A problem a handler returns is rendered here; a body no
//! one read is drained here.

use std::error::Error as StdError;
use std::panic::AssertUnwindSafe;
use std::time::Instant;

use bytes::Bytes;
use contract::routes::{self, Cors as CorsClass, Endpoint};
use http::header::{self, HeaderValue};
use http::request::Parts;
use http::{Method, Request, Response, Uri};
use hyper::body::Body as HttpBody;

use crate::Body;
use crate::health::Health;
use crate::http::access_log::{Answered, Seen, X_REQUEST_ID};
use crate::http::body::{close, discard};
use crate::http::cors::{self, Cors};
use crate::http::handler::{Answer, Call, Handler, RELEASE, name_release, serve};
use crate::http::negotiate;
use crate::http::panic::CatchPanic;
use crate::http::paths;
use crate::http::problem::{Code, Problem};
use crate::http::security_headers;
use crate::http::static_files;
use crate::metrics::Route;
use crate::published::Published;
use crate::published::files::{Entry, Resource};
use crate::state::AppState;

/// Answers one request (its client, if any, in its extensions as a
/// [`PeerAddr`](crate::http::proxy::PeerAddr)).
pub async fn handle<B>(state: &AppState, request: Request<B>) -> Response<Body>
where
    B: HttpBody<Data = Bytes> + Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let peer = request
        .extensions()
        .get::<crate::http::proxy::PeerAddr>()
        .map(|p| p.0);
    handle_from(state, request, peer).await
}

/// Answers one request from `peer`.
pub async fn handle_from<B>(
    state: &AppState,
    request: Request<B>,
    peer: Option<std::net::IpAddr>,
) -> Response<Body>
where
    B: HttpBody<Data = Bytes> + Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let seen = seen(state, &parts.headers, peer);
    // A file asked for without a body needs nothing awaited: it is answered
    // here, without the boxed future the other routes are polled through.
    if body.is_end_stream()
        && let Some(answer) = file_answer(state, &parts)
    {
        let (route, cors, response) =
            answer.unwrap_or_else(|_| panicked(state, &parts.method, &parts.uri));
        let request = (&parts.method, &parts.uri);
        return finish(state, request, route, &cors, response, started, &seen);
    }
    let (method, uri) = (parts.method.clone(), parts.uri.clone());
    let (route, cors, response) =
        CatchPanic(Box::pin(dispatch(state, Request::from_parts(parts, body))))
            .await
            .unwrap_or_else(|_| panicked(state, &method, &uri));
    finish(
        state,
        (&method, &uri),
        route,
        &cors,
        response,
        started,
        &seen,
    )
}

/// The request's id, and what its log line needs.
fn seen(state: &AppState, headers: &http::HeaderMap, peer: Option<std::net::IpAddr>) -> Seen {
    let config = &state.config;
    let log = state.access_log.is_some();
    Seen::new(
        &state.request_ids,
        log,
        &config.trusted_proxies,
        headers,
        peer,
    )
}

/// The answer for a path outside the live routes, or `None` for those
/// (and for paths that do not normalise, which `dispatch` refuses).
fn file_answer(
    state: &AppState,
    parts: &Parts,
) -> Option<std::thread::Result<(Route, Cors, Response<Body>)>> {
    let path = paths::normalise(parts.uri.path()).ok()?;
    if Endpoint::lookup(&path).is_some() {
        return None;
    }
    Some(std::panic::catch_unwind(AssertUnwindSafe(|| {
        static_route(state, parts, &path)
    })))
}

/// The answer when a handler panicked: logged, and a 500 problem.
fn panicked(state: &AppState, method: &Method, uri: &Uri) -> (Route, Cors, Response<Body>) {
    tracing::error!(
        method = method.as_str(),
        path = uri.path(),
        "a handler panicked"
    );
    let problem = Problem::new(
        Code::InternalError,
        "The request failed on the server's side.",
    );
    (
        Route::Unmatched,
        Cors::Public,
        state.problem(problem, uri.path()),
    )
}

/// The answer on a connection past the connection limit.
pub fn overloaded<B>(state: &AppState, request: &Request<B>) -> Response<Body> {
    let started = Instant::now();
    let peer = request
        .extensions()
        .get::<crate::http::proxy::PeerAddr>()
        .map(|p| p.0);
    let seen = seen(state, request.headers(), peer);
    let problem = Problem::new(
        Code::ServiceUnavailable,
        "The server is at its connection limit.",
    )
    .retry_after(1)
    .close();
    let response = state.problem(problem, request.uri().path());
    finish(
        state,
        (request.method(), request.uri()),
        Route::Overload,
        &Cors::Public,
        response,
        started,
        &seen,
    )
}

async fn dispatch<B>(state: &AppState, request: Request<B>) -> (Route, Cors, Response<Body>)
where
    B: HttpBody<Data = Bytes> + Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let (parts, body) = request.into_parts();
    let path = match paths::normalise(parts.uri.path()) {
        Ok(path) => path,
        Err(e) => {
            let problem = Problem::new(Code::BadRequest, e.detail());
            return (
                Route::Unmatched,
                Cors::Public,
                state.problem(problem, parts.uri.path()),
            );
        }
    };
    if let Some(endpoint) = Endpoint::lookup(&path) {
        return endpoint_route(state, endpoint, parts, body).await;
    }
    // No file takes a body: whatever was sent is read and dropped.
    let drained = discard(state.body_limits(), body).await;
    let (route, cors, mut response) = static_route(state, &parts, &path);
    if !drained {
        close(&mut response);
    }
    (route, cors, response)
}

fn static_route(state: &AppState, request: &Parts, path: &str) -> (Route, Cors, Response<Body>) {
    let published = state.published.get();
    let mut response = match published.files.lookup(path) {
        Some(Resource::File(entry)) => static_file(state, entry, request),
        Some(Resource::Page { html, markdown }) => {
            let accept = request
                .headers
                .get(header::ACCEPT)
                .map(HeaderValue::as_bytes);
            let page = if negotiate::prefers_markdown(accept) {
                markdown
            } else {
                html
            };
            static_file(state, page, request)
        }
        Some(Resource::Redirect(location)) => match request.method {
            Method::GET | Method::HEAD => static_files::redirect(location, request.uri.query()),
            _ => not_a_file_method(state, request),
        },
        Some(Resource::Moved(location)) => match request.method {
            Method::GET | Method::HEAD => static_files::moved(location, request.uri.query()),
            _ => not_a_file_method(state, request),
        },
        None => {
            return (
                Route::Unmatched,
                Cors::Public,
                not_found(state, &published, request, path),
            );
        }
    };
    // A 200 or 304 for a file is its prepared answer, complete.
    let cors = if matches!(
        response.status(),
        http::StatusCode::OK | http::StatusCode::NOT_MODIFIED
    ) {
        Cors::Prepared
    } else {
        name_release(&mut response, &published);
        Cors::Public
    };
    (Route::Static, cors, response)
}

fn static_file(state: &AppState, entry: &Entry, request: &Parts) -> Response<Body> {
    let head = match request.method {
        Method::GET => false,
        Method::HEAD => true,
        _ => return not_a_file_method(state, request),
    };
    static_files::serve(entry, &request.headers, head)
        .unwrap_or_else(|problem| state.problem(problem, request.uri.path()))
}

fn not_a_file_method(state: &AppState, request: &Parts) -> Response<Body> {
    if request.method == Method::OPTIONS {
        return cors::preflight(&static_files::ALLOW, &static_files::REQUEST_HEADERS);
    }
    state.problem(method_not_allowed(&static_files::ALLOW), request.uri.path())
}

fn not_found(
    state: &AppState,
    published: &Published,
    request: &Parts,
    path: &str,
) -> Response<Body> {
    let head = request.method == Method::HEAD;
    if (head || request.method == Method::GET)
        && !routes::is_api_space(path)
        && let Some(page) = published.files.not_found_page()
    {
        return static_files::not_found_page(page, &request.headers, head);
    }
    let detail = if routes::is_api_space(path) {
        "No API route exists at this path; /openapi.json lists them."
    } else {
        "No page or file exists at this path."
    };
    state.problem(Problem::new(Code::NotFound, detail), request.uri.path())
}

fn method_not_allowed(allow: &HeaderValue) -> Problem {
    let detail = format!("This route takes {}.", allow.to_str().unwrap_or_default());
    Problem::new(Code::MethodNotAllowed, detail).allow(allow.clone())
}

/// A route of the contract's table: the rules every route obeys (CORS,
/// OPTIONS, the method), then the handler of the route's feature; a body
/// the handler left unread is drained.
async fn endpoint_route<B>(
    state: &AppState,
    endpoint: Endpoint,
    parts: Parts,
    body: B,
) -> (Route, Cors, Response<Body>)
where
    B: HttpBody<Data = Bytes> + Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let mut body = Some(body);
    let (cors, refused) = admit(state, endpoint, &parts);
    let mut response = match refused {
        Some(response) => response,
        None => {
            let published = state.published.full();
            let call = Call::new(
                endpoint,
                &parts,
                &published,
                state.problem_base(),
                state.body_limits(),
                &mut body,
            );
            feature(state, call)
                .await
                .unwrap_or_else(|problem| state.problem(problem, parts.uri.path()))
        }
    };
    if let Some(unread) = body
        && !discard(state.body_limits(), unread).await
    {
        close(&mut response);
    }
    (Route::Endpoint(endpoint), cors, response)
}

/// The CORS of a request to `endpoint`, with the answer when the request
/// goes no further (a foreign origin, OPTIONS, a method the route does not
/// take, a submission with neither `Origin` nor `Sec-Fetch-Site:
/// same-origin`): the same for every route, from its row of the table.
fn admit(state: &AppState, endpoint: Endpoint, parts: &Parts) -> (Cors, Option<Response<Body>>) {
    let spec = endpoint.route();
    let allow = HeaderValue::from_static(spec.method.allow());
    let path = parts.uri.path();
    let cors = match spec.cors {
        CorsClass::SiteOrigins => match parts.headers.get(header::ORIGIN) {
            Some(origin) if cors::origin_allowed(state.site_origins(), origin) => {
                Cors::SiteOrigins {
                    echo: Some(origin.clone()),
                }
            }
            Some(_) => {
                let cors = Cors::SiteOrigins { echo: None };
                return (cors, Some(state.problem(forbidden_origin(), path)));
            }
            None => Cors::SiteOrigins { echo: None },
        },
        CorsClass::Public => Cors::Public,
    };
    if parts.method == Method::OPTIONS {
        let headers = HeaderValue::from_static(spec.request_headers);
        return (cors, Some(cors::preflight(&allow, &headers)));
    }
    if !takes(spec.method, &parts.method) {
        return (cors, Some(state.problem(method_not_allowed(&allow), path)));
    }
    // Without `Origin`, only a browser's own word that the request comes
    // from the same origin lets a submission through: a script or tool
    // that sends neither is refused as a foreign origin would be.
    if let Cors::SiteOrigins { echo: None } = cors
        && !same_origin_fetch(&parts.headers)
    {
        return (cors, Some(state.problem(forbidden_origin(), path)));
    }
    (cors, None)
}

/// The 403 of a request not from one of the site's own origins.
fn forbidden_origin() -> Problem {
    Problem::new(
        Code::ForbiddenOrigin,
        "This route accepts requests only from the site's own origin.",
    )
}

/// `Sec-Fetch-Site: same-origin`, which browsers send and pages cannot forge.
fn same_origin_fetch(headers: &http::HeaderMap) -> bool {
    headers
        .get("sec-fetch-site")
        .is_some_and(|v| v == "same-origin")
}

/// The handler of the feature that answers `call`'s route; a feature this
/// process runs without (no database) answers through [`serve`].
async fn feature(state: &AppState, call: Call<'_>) -> Answer {
    match call.endpoint {
        Endpoint::Healthz | Endpoint::Readyz => Health(state).handle(call).await,
        Endpoint::PlatformStats
        | Endpoint::ObservationsData
        | Endpoint::GlobeData
        | Endpoint::ObservationTrend
        | Endpoint::FeaturesLanding
        | Endpoint::FeaturesConformance
        | Endpoint::FeaturesCollections
        | Endpoint::FeaturesCollection
        | Endpoint::FeaturesItems
        | Endpoint::FeaturesItem
        | Endpoint::FeaturesQueryables => serve(state.live.as_deref(), call).await,
        Endpoint::ContactChallenge | Endpoint::Contact => {
            serve(state.contact.as_deref(), call).await
        }
        Endpoint::Chat => serve(state.chat.as_deref(), call).await,
        Endpoint::Mcp => state.mcp.handle(call).await,
    }
}

/// Whether a route of `method` takes the request's method (HEAD wherever
/// GET; OPTIONS is answered separately, for every route).
fn takes(method: routes::Method, request: &Method) -> bool {
    match method {
        routes::Method::Get => request == Method::GET || request == Method::HEAD,
        routes::Method::Post => request == Method::POST,
    }
}

/// Rules that hold for every response: CORS, `nosniff`, the request id,
/// no body on HEAD, one metrics sample, one access log line.
fn finish(
    state: &AppState,
    (method, uri): (&Method, &Uri),
    route: Route,
    cors: &Cors,
    mut response: Response<Body>,
    started: Instant,
    seen: &Seen,
) -> Response<Body> {
    response.headers_mut().insert(X_REQUEST_ID, seen.id.clone());
    if !matches!(cors, Cors::Prepared) {
        let headers = response.headers_mut();
        cors::apply(cors, headers);
        security_headers::apply_all(headers);
        // An answer made from a release already names it.
        if !headers.contains_key(RELEASE) {
            headers.insert(RELEASE, state.published.get().release_header.clone());
        }
    }
    if method == Method::HEAD {
        let len = response.body().size_hint().exact().unwrap_or(0);
        if len > 0 {
            response
                .headers_mut()
                .entry(header::CONTENT_LENGTH)
                .or_insert(HeaderValue::from(len));
            *response.body_mut() = Body::new(Bytes::new());
        }
    }
    let status = response.status().as_u16();
    let ended = Instant::now();
    let elapsed = ended.saturating_duration_since(started);
    state.metrics.record(route, status, elapsed);
    if let Some(log) = state.access_log.as_ref().filter(|_| seen.logged()) {
        let bytes = response.body().size_hint().exact().unwrap_or(0);
        // What a visitor typed into the form or the chat never reaches the
        // log, not even through a query string: neither the routes' nor
        // the form page's, which the chat's hand-off prefills by query.
        let private = uri.query().is_some()
            && match route {
                Route::Endpoint(e) => {
                    matches!(
                        e,
                        Endpoint::Contact | Endpoint::ContactChallenge | Endpoint::Chat
                    )
                }
                _ => {
                    let form = state.published.get();
                    let form = form.content.form_path().trim_end_matches('/');
                    uri.path().trim_end_matches('/') == form
                }
            };
        let answer = Answered {
            route: route.label(),
            private,
            status,
            bytes,
            elapsed,
            at: ended,
        };
        seen.log(log, (method, uri), answer);
    }
    response
}
