//! Security headers. Every response gets `X-Content-Type-Options: nosniff`;
//! HTML (pages and the 404 page) also gets a Content-Security-Policy that
//! names no third-party origin, and the framing, referrer and permissions
//! policies. Values are static (`contract::headers`, shared with the
//! generated front-server configurations), so applying them only clones.

use contract::headers;
use http::HeaderMap;
use http::header::{self, HeaderName, HeaderValue};

const CSP: HeaderValue = HeaderValue::from_static(headers::CONTENT_SECURITY_POLICY);
const NOSNIFF: HeaderValue = HeaderValue::from_static(headers::NOSNIFF);
const REFERRER: HeaderValue = HeaderValue::from_static(headers::REFERRER_POLICY);
const PERMISSIONS: HeaderValue = HeaderValue::from_static(headers::PERMISSIONS_POLICY);
const DENY: HeaderValue = HeaderValue::from_static(headers::FRAME_OPTIONS);
const PERMISSIONS_POLICY: HeaderName = HeaderName::from_static("permissions-policy");

/// For every response.
pub fn apply_all(headers: &mut HeaderMap) {
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF);
}

/// For HTML documents.
pub fn apply_html(headers: &mut HeaderMap) {
    headers.insert(header::CONTENT_SECURITY_POLICY, CSP);
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
        let csp = CSP;
        let csp = csp.to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"));
        assert!(!csp.contains("http"), "no third-party origin: {csp}");
        let mut h = HeaderMap::new();
        apply_html(&mut h);
        apply_all(&mut h);
        assert_eq!(h.len(), 5);
    }
}
