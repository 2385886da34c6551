//! The table of routes the sidecar answers itself (everything else is a file
//! of `dist/` or not found). Routes of later issues are registered already,
//! so a wrong method gets 405 with the right `Allow` and preflights work;
//! until their feature lands they answer 503 `service_unavailable`.

use http::{HeaderValue, Method};

use crate::metrics::Route;

/// A route served by code rather than from `dist/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Live {
    Healthz,
    Readyz,
    Metrics,
    PlatformStats,
    ObservationsData,
    GlobeData,
    Mcp,
    ContactChallenge,
    Contact,
}

/// What the router needs to know about a live route.
#[derive(Debug)]
pub struct Spec {
    pub metric: Route,
    /// Methods taken besides OPTIONS (and HEAD, implied by GET).
    pub method: Method,
    pub allow: HeaderValue,
    /// `Access-Control-Allow-Headers` of its preflight.
    pub request_headers: HeaderValue,
    /// Origin-restricted (contact) rather than public.
    pub site_origins_only: bool,
    /// Media types a body may have; `None` for routes without a body.
    pub body_types: Option<&'static [&'static str]>,
    /// Whether the feature behind the route exists in this build.
    pub enabled: bool,
    /// Transport faults in the body (unreadable, wrong type) are JSON-RPC
    /// errors (MCP) rather than problem objects.
    pub jsonrpc: bool,
}

const GET_ALLOW: HeaderValue = HeaderValue::from_static("GET, HEAD, OPTIONS");
const POST_ALLOW: HeaderValue = HeaderValue::from_static("POST, OPTIONS");
const GET_HEADERS: HeaderValue = HeaderValue::from_static("Accept, Accept-Encoding, If-None-Match");
const MCP_HEADERS: HeaderValue = HeaderValue::from_static(
    "Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
);
const CONTACT_HEADERS: HeaderValue = HeaderValue::from_static("Content-Type, Accept");

const fn get(metric: Route, site_origins_only: bool, enabled: bool) -> Spec {
    Spec {
        metric,
        method: Method::GET,
        allow: GET_ALLOW,
        request_headers: GET_HEADERS,
        site_origins_only,
        body_types: None,
        enabled,
        jsonrpc: false,
    }
}

static HEALTHZ: Spec = get(Route::Healthz, false, true);
static READYZ: Spec = get(Route::Readyz, false, true);
static METRICS: Spec = get(Route::Metrics, false, true);
static PLATFORM_STATS: Spec = get(Route::PlatformStats, false, false);
static OBSERVATIONS_DATA: Spec = get(Route::ObservationsData, false, false);
static GLOBE_DATA: Spec = get(Route::GlobeData, false, false);
// Public like any read: issuing a challenge changes nothing, and the rate
// limit (not the origin) is what bounds its cost. Only the submission is
// origin-restricted.
static CONTACT_CHALLENGE: Spec = get(Route::ContactChallenge, false, true);
static MCP: Spec = Spec {
    metric: Route::Mcp,
    method: Method::POST,
    allow: POST_ALLOW,
    request_headers: MCP_HEADERS,
    site_origins_only: false,
    body_types: Some(&["application/json"]),
    enabled: true,
    jsonrpc: true,
};
static CONTACT: Spec = Spec {
    metric: Route::Contact,
    method: Method::POST,
    allow: POST_ALLOW,
    request_headers: CONTACT_HEADERS,
    site_origins_only: true,
    body_types: Some(&["application/x-www-form-urlencoded", "application/json"]),
    enabled: true,
    jsonrpc: false,
};

impl Live {
    /// The live route at a normalised path. `/mcp` and `/mcp/` are the same
    /// route: a redirect between them breaks MCP clients.
    pub fn lookup(path: &str) -> Option<Live> {
        Some(match path {
            "/healthz" => Live::Healthz,
            "/readyz" => Live::Readyz,
            "/metrics" => Live::Metrics,
            "/api/platform-stats.php" => Live::PlatformStats,
            "/api/observations-data.php" => Live::ObservationsData,
            "/api/globe-data.php" => Live::GlobeData,
            "/mcp" | "/mcp/" => Live::Mcp,
            "/api/contact-challenge" => Live::ContactChallenge,
            "/api/contact.php" => Live::Contact,
            _ => return None,
        })
    }

    pub fn spec(self) -> &'static Spec {
        match self {
            Live::Healthz => &HEALTHZ,
            Live::Readyz => &READYZ,
            Live::Metrics => &METRICS,
            Live::PlatformStats => &PLATFORM_STATS,
            Live::ObservationsData => &OBSERVATIONS_DATA,
            Live::GlobeData => &GLOBE_DATA,
            Live::Mcp => &MCP,
            Live::ContactChallenge => &CONTACT_CHALLENGE,
            Live::Contact => &CONTACT,
        }
    }
}

impl Spec {
    /// Whether the route takes `method` (HEAD wherever GET; OPTIONS is
    /// answered separately, for every route).
    pub fn takes(&self, method: &Method) -> bool {
        method == self.method || (self.method == Method::GET && method == Method::HEAD)
    }
}
