//! Response header values of the files of `dist/`, written once: the sidecar
//! sends them, and the generated front-server configurations
//! (`generate host-config`) make nginx, Caddy, Netlify and Cloudflare send
//! the same, so a site answers alike whichever of them serves it.

use crate::manifest;

/// The policy of [`content_security_policy`] less what a `<meta
/// http-equiv>` element cannot carry (`frame-ancestors`, which only the
/// header and [`FRAME_OPTIONS`] can say). Every page carries it in its head,
/// so the policy holds where a host cannot send headers (a plain bucket,
/// GitHub Pages); where the header is sent too, both apply and agree.
pub fn meta_content_security_policy(api_origin: Option<&str>) -> String {
    content_security_policy(api_origin)
        .split("; ")
        .filter(|directive| !directive.starts_with("frame-ancestors"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `X-Content-Type-Options`, on every response.
pub const NOSNIFF: &str = "nosniff";

/// The Content-Security-Policy of HTML documents: the site's own origin
/// only, no inline script, never framed.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
     connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'self'; \
     form-action 'self'; frame-ancestors 'none'";

/// The Content-Security-Policy of a site whose sidecar answers on
/// `api_origin` (a build with a separate API origin, see
/// [`crate::manifest::Manifest::api_origin`]): [`CONTENT_SECURITY_POLICY`]
/// with that one origin added where pages reach the sidecar, `connect-src`
/// (the scripts' requests) and `form-action` (the contact form).
pub fn content_security_policy(api_origin: Option<&str>) -> std::borrow::Cow<'static, str> {
    match api_origin {
        None => CONTENT_SECURITY_POLICY.into(),
        Some(api) => CONTENT_SECURITY_POLICY
            .replace("connect-src 'self'", &format!("connect-src 'self' {api}"))
            .replace("form-action 'self'", &format!("form-action 'self' {api}"))
            .into(),
    }
}
pub const REFERRER_POLICY: &str = "strict-origin-when-cross-origin";
pub const PERMISSIONS_POLICY: &str = "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=(), browsing-topics=()";
/// Older browsers ignore `frame-ancestors`; this says the same to them.
pub const FRAME_OPTIONS: &str = "DENY";

/// The headers every HTML document carries besides [`NOSNIFF`].
pub const HTML: [(&str, &str); 4] = [
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("Referrer-Policy", REFERRER_POLICY),
    ("Permissions-Policy", PERMISSIONS_POLICY),
    ("X-Frame-Options", FRAME_OPTIONS),
];

/// Whether a file of this media type gets the [`HTML`] headers.
pub fn is_html(content_type: &str) -> bool {
    content_type.to_ascii_lowercase().starts_with("text/html")
}

/// RFC 9727's relation, sent with the catalog itself and the home page.
pub const API_CATALOG_LINK: &str = "</.well-known/api-catalog>; rel=\"api-catalog\"";

/// The `Link` header of a file of `dist/` (by its manifest key).
pub fn link(key: &str) -> Option<&'static str> {
    matches!(key, manifest::API_CATALOG | "index.html").then_some(API_CATALOG_LINK)
}

/// `Vary` of a file that has precompressed twins.
pub const VARY_ENCODING: &str = "accept-encoding";

/// `Vary` of a file answered by `Accept-Encoding` (`encoding`: it has
/// compressed twins) and by `Accept` (`accept`: a page with a Markdown
/// twin, or that twin; see [`crate::twin::negotiated`]).
pub fn vary(encoding: bool, accept: bool) -> Option<&'static str> {
    match (encoding, accept) {
        (true, true) => Some("accept-encoding, accept"),
        (true, false) => Some(VARY_ENCODING),
        (false, true) => Some("accept"),
        (false, false) => None,
    }
}

/// The `Accept` headers for which nginx and Caddy answer a page URL with
/// its Markdown twin, as a regular expression both understand (PCRE and
/// RE2, to be matched case-insensitively): `text/markdown` named at full
/// quality, without parameters or with `q=1` only. Neither front compares
/// q-values; the sidecar does (RFC 9110 §12.5.1) and answers Markdown for
/// every header this matches, and for some more (decision 0046).
/// No braces, which Caddy's configuration could read as a placeholder.
pub const FRONT_MARKDOWN_ACCEPT: &str = r"(^|,)\s*text/markdown\s*(;\s*q=1(\.0?0?0?)?\s*)?(,|$)";

/// Request headers a cross-origin GET of a file may carry (its preflight's
/// `Access-Control-Allow-Headers`).
pub const FILE_REQUEST_HEADERS: &str = "Accept, Accept-Encoding, If-None-Match, If-Range, Range";

/// `Access-Control-Max-Age` of every preflight: Chromium caps the preflight
/// cache at two hours; more would be ignored.
pub const PREFLIGHT_MAX_AGE: &str = "7200";

/// `Cache-Control` of the 308 from a directory URL without its slash.
pub const REDIRECT_CACHE: &str = "public, max-age=3600";

/// Response header naming the release an answer of the sidecar comes
/// from (see [`crate::manifest::release_id`]).
pub const RELEASE: &str = "x-release";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csp_names_no_other_origin() {
        assert!(CONTENT_SECURITY_POLICY.contains("frame-ancestors 'none'"));
        assert!(!CONTENT_SECURITY_POLICY.contains("http"));
        assert!(is_html("text/html; charset=utf-8"));
        assert!(!is_html("text/markdown; charset=utf-8"));
        assert_eq!(link("index.html"), Some(API_CATALOG_LINK));
        assert_eq!(link("docs/index.html"), None);
        assert_eq!(vary(true, true), Some("accept-encoding, accept"));
        assert_eq!(vary(false, false), None);
    }

    #[test]
    fn a_separate_api_origin_is_named_where_pages_reach_it() {
        assert_eq!(content_security_policy(None), CONTENT_SECURITY_POLICY);
        let csp = content_security_policy(Some("https://api.example.org"));
        assert!(csp.contains("connect-src 'self' https://api.example.org;"));
        assert!(csp.contains("form-action 'self' https://api.example.org;"));
        assert!(csp.contains("script-src 'self';"), "{csp}");
        assert_eq!(csp.matches("api.example.org").count(), 2);
        let meta = meta_content_security_policy(Some("https://api.example.org"));
        assert!(!meta.contains("frame-ancestors"), "{meta}");
        assert_eq!(meta, csp.replace("; frame-ancestors 'none'", ""));
    }
}
