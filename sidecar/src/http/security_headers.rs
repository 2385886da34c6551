//! Security headers. Every response gets `X-Content-Type-Options: nosniff`;
//! HTML (pages and the 404 page) also gets a Content-Security-Policy that
//! names no third-party origin (only the sidecar's, when the site was built
//! for a separate API origin), and the framing, referrer and permissions
//! policies. Values come from `contract::headers`, shared with the generated
//! front-server configurations; applying them only clones.

use contract::headers;
use http::HeaderMap;
use http::header::{self, HeaderName, HeaderValue};

const NOSNIFF: HeaderValue = HeaderValue::from_static(headers::NOSNIFF);
const REFERRER: HeaderValue = HeaderValue::from_static(headers::REFERRER_POLICY);
const PERMISSIONS: HeaderValue = HeaderValue::from_static(headers::PERMISSIONS_POLICY);
const DENY: HeaderValue = HeaderValue::from_static(headers::FRAME_OPTIONS);
const PERMISSIONS_POLICY: HeaderName = HeaderName::from_static("permissions-policy");

/// For every response.
pub fn apply_all(headers: &mut HeaderMap) {
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF);
}

/// For HTML documents, with the site's policy (see [`Site`](super::site::Site)).
pub fn apply_html(headers: &mut HeaderMap, csp: &HeaderValue) {
    headers.insert(header::CONTENT_SECURITY_POLICY, csp.clone());
    headers.insert(header::REFERRER_POLICY, REFERRER);
    headers.insert(PERMISSIONS_POLICY, PERMISSIONS);
    // Older browsers ignore frame-ancestors; this says the same to them.
    headers.insert(header::X_FRAME_OPTIONS, DENY);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csp_is_self_only() {
        let csp = HeaderValue::from_static(headers::CONTENT_SECURITY_POLICY);
        let mut h = HeaderMap::new();
        apply_html(&mut h, &csp);
        apply_all(&mut h);
        assert_eq!(h.len(), 5);
    }
}
