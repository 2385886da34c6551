//! CORS (Fetch standard). Two policies:
//!
//! - **public**: static files, the live read-only routes, MCP and health —
//!   `Access-Control-Allow-Origin: *` on every response, never credentials;
//! - **site origins**: the contact routes — only a configured site origin is
//!   echoed, and every response (preflight and errors included) carries
//!   `Vary: Origin` so no cache hands one origin's answer to another.
//!
//! Preflights answer 204 naming the route's methods and request headers.

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Response, StatusCode};

use crate::Body;

const ANY: HeaderValue = HeaderValue::from_static("*");
const EXPOSE: HeaderValue = HeaderValue::from_static(contract::routes::EXPOSE_HEADERS);
/// Chromium caps the preflight cache at two hours; more would be ignored.
const MAX_AGE: HeaderValue = HeaderValue::from_static(contract::headers::PREFLIGHT_MAX_AGE);
const ORIGIN: HeaderValue = HeaderValue::from_static("origin");

/// How a response is decorated for cross-origin readers.
#[derive(Debug, Clone)]
pub enum Cors {
    Public,
    /// Public, and the answer already carries its CORS headers and
    /// `nosniff` (a file's prepared 200, see
    /// [`crate::http::static_files::full_headers`]): nothing to add.
    Prepared,
    /// Origin-restricted; `echo` is the request's `Origin` when it is one of
    /// the configured site origins.
    SiteOrigins {
        echo: Option<HeaderValue>,
    },
}

/// Adds the CORS response headers for `cors`.
pub fn apply(cors: &Cors, headers: &mut HeaderMap) {
    match cors {
        Cors::Public => {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY);
            headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSE);
        }
        Cors::Prepared => {}
        Cors::SiteOrigins { echo } => {
            headers.append(header::VARY, ORIGIN);
            if let Some(origin) = echo {
                headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
                headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSE);
            }
        }
    }
}

/// Whether `origin` is exactly one of the configured site origins.
pub fn origin_allowed(site_origins: &[HeaderValue], origin: &HeaderValue) -> bool {
    site_origins.iter().any(|o| o == origin)
}

/// The 204 answer to `OPTIONS` on a route (a CORS preflight or a plain
/// capabilities query): `Allow` plus what a preflight needs.
pub fn preflight(methods: &HeaderValue, request_headers: &HeaderValue) -> Response<Body> {
    let mut response = Response::new(Body::new(Bytes::new()));
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    headers.insert(header::ALLOW, methods.clone());
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, methods.clone());
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        request_headers.clone(),
    );
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, MAX_AGE);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_is_star_without_credentials() {
        let mut h = HeaderMap::new();
        apply(&Cors::Public, &mut h);
        assert_eq!(h["access-control-allow-origin"], "*");
        assert!(h.get("access-control-allow-credentials").is_none());
        assert!(
            h["access-control-expose-headers"]
                .to_str()
                .unwrap()
                .contains("Retry-After")
        );
    }

    #[test]
    fn site_origins_echo_and_vary() {
        let mut h = HeaderMap::new();
        apply(&Cors::SiteOrigins { echo: None }, &mut h);
        assert_eq!(h["vary"], "origin");
        assert!(h.get("access-control-allow-origin").is_none());
        let o = HeaderValue::from_static("https://example.org");
        let mut h = HeaderMap::new();
        h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        apply(
            &Cors::SiteOrigins {
                echo: Some(o.clone()),
            },
            &mut h,
        );
        assert_eq!(h["access-control-allow-origin"], "https://example.org");
        assert_eq!(h.get_all("vary").iter().count(), 2);
        assert!(origin_allowed(std::slice::from_ref(&o), &o));
        assert!(!origin_allowed(
            &[o],
            &HeaderValue::from_static("https://example.org.evil")
        ));
    }
}
