//! Every HTTP route of the service: its path, method, who serves it, its
//! CORS class, the request bodies it takes, the media types it answers with
//! and how its answers may be cached.
//!
//! The generator builds the contract's paths, the API reference, the
//! discovery documents and the front-server configurations from this table;
//! the sidecar builds its router and metric labels from it. Both match on
//! [`RouteId`] exhaustively, so a route added here without an operation in
//! the contract or a handler in the sidecar does not compile.

use crate::{manifest, media};

mod features;
mod operations;
mod trend;
pub use features::*;
pub use operations::{HEALTHZ, READYZ};
pub use trend::OBSERVATION_TREND;

/// The methods a route takes (HEAD is implied by GET, OPTIONS by CORS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }

    /// The `Allow` header of a route taking this method.
    pub const fn allow(self) -> &'static str {
        match self {
            Method::Get => "GET, HEAD, OPTIONS",
            Method::Post => "POST, OPTIONS",
        }
    }
}

/// Who may read a route's answers from a browser on another origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cors {
    /// Public and read-only: `Access-Control-Allow-Origin: *`, never with
    /// credentials.
    Public,
    /// A human submission: only the configured site origins, echoed
    /// exactly, with `Vary: Origin`; any other origin gets 403.
    SiteOrigins,
}

/// How a route's answers may be cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// A file of `dist/`: the manifest's policy for it.
    File,
    /// Computed by the sidecar and cached briefly (a configured `max-age`,
    /// strong ETag, revalidation).
    Live,
    /// Never stored (`no-store`): probes, challenges, POST answers.
    NoStore,
}

/// The documented files of `dist/` that are routes of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StaticFile {
    ServiceInformation,
    OpenApi,
    AiCatalog,
    ApiCatalog,
    McpServerCard,
    McpServerCardWellKnown,
    DataCatalog,
    FeaturesOpenApi,
    LlmsTxt,
    Sitemap,
    Feed,
    RobotsTxt,
    SecurityTxt,
}

impl StaticFile {
    /// Its path relative to `dist/`.
    pub fn file(self) -> &'static str {
        match self {
            StaticFile::ServiceInformation => manifest::SERVICE_INFORMATION,
            StaticFile::OpenApi => manifest::OPENAPI,
            StaticFile::AiCatalog => manifest::AI_CATALOG,
            StaticFile::ApiCatalog => manifest::API_CATALOG,
            StaticFile::McpServerCard => manifest::MCP_SERVER_CARD,
            StaticFile::McpServerCardWellKnown => manifest::MCP_SERVER_CARD_WELL_KNOWN,
            StaticFile::DataCatalog => manifest::DATA_CATALOG,
            StaticFile::FeaturesOpenApi => manifest::FEATURES_OPENAPI,
            StaticFile::LlmsTxt => manifest::LLMS_TXT,
            StaticFile::Sitemap => manifest::SITEMAP,
            StaticFile::Feed => manifest::FEED,
            StaticFile::RobotsTxt => manifest::ROBOTS_TXT,
            StaticFile::SecurityTxt => manifest::SECURITY_TXT,
        }
    }
}

/// The routes the sidecar answers with code rather than a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endpoint {
    PlatformStats,
    ObservationsData,
    GlobeData,
    ObservationTrend,
    Mcp,
    ContactChallenge,
    Contact,
    Chat,
    Healthz,
    Readyz,
    FeaturesLanding,
    FeaturesConformance,
    FeaturesCollections,
    FeaturesCollection,
    FeaturesItems,
    FeaturesItem,
    FeaturesQueryables,
}

impl Endpoint {
    pub const ALL: [Endpoint; 17] = [
        Endpoint::PlatformStats,
        Endpoint::ObservationsData,
        Endpoint::GlobeData,
        Endpoint::ObservationTrend,
        Endpoint::Mcp,
        Endpoint::ContactChallenge,
        Endpoint::Contact,
        Endpoint::Chat,
        Endpoint::Healthz,
        Endpoint::Readyz,
        Endpoint::FeaturesLanding,
        Endpoint::FeaturesConformance,
        Endpoint::FeaturesCollections,
        Endpoint::FeaturesCollection,
        Endpoint::FeaturesItems,
        Endpoint::FeaturesItem,
        Endpoint::FeaturesQueryables,
    ];

    /// Its entry in the route table.
    pub fn route(self) -> &'static Route {
        match self {
            Endpoint::PlatformStats => &PLATFORM_STATS,
            Endpoint::ObservationsData => &OBSERVATIONS_DATA,
            Endpoint::GlobeData => &GLOBE_DATA,
            Endpoint::ObservationTrend => &OBSERVATION_TREND,
            Endpoint::Mcp => &MCP,
            Endpoint::ContactChallenge => &CONTACT_CHALLENGE,
            Endpoint::Contact => &CONTACT,
            Endpoint::Chat => &CHAT,
            Endpoint::Healthz => &HEALTHZ,
            Endpoint::Readyz => &READYZ,
            Endpoint::FeaturesLanding => &FEATURES_LANDING,
            Endpoint::FeaturesConformance => &FEATURES_CONFORMANCE,
            Endpoint::FeaturesCollections => &FEATURES_COLLECTIONS,
            Endpoint::FeaturesCollection => &FEATURES_COLLECTION,
            Endpoint::FeaturesItems => &FEATURES_ITEMS,
            Endpoint::FeaturesItem => &FEATURES_ITEM,
            Endpoint::FeaturesQueryables => &FEATURES_QUERYABLES,
        }
    }

    /// The endpoint at a normalised request path (its alias included).
    pub fn lookup(path: &str) -> Option<Endpoint> {
        // Every sidecar path is below `/api/` or `/mcp`, or one of the two
        // operations routes (the test of the table holds this to every
        // endpoint's paths): a file's request, the home page's included,
        // leaves here without scanning the table.
        if !(path.starts_with("/api/")
            || path.starts_with("/mcp")
            || matches!(path, "/healthz" | "/readyz"))
        {
            return None;
        }
        Endpoint::ALL.into_iter().find(|e| e.route().answers(path))
    }

    /// Its canonical path, also its metric label.
    pub fn path(self) -> &'static str {
        self.route().path
    }
}

/// What a route is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteId {
    Static(StaticFile),
    Sidecar(Endpoint),
}

/// A second path answering exactly like the route (never a redirect).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alias {
    pub path: &'static str,
    pub operation_id: &'static str,
    pub summary: &'static str,
}

/// One row of the route table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub id: RouteId,
    pub path: &'static str,
    pub alias: Option<Alias>,
    pub method: Method,
    /// The contract's `operationId`, `summary` and tag.
    pub operation_id: &'static str,
    pub summary: &'static str,
    pub tag: &'static str,
    pub cors: Cors,
    /// `Access-Control-Allow-Headers` of its preflight.
    pub request_headers: &'static str,
    /// Media types a request body may have; empty for routes without one.
    pub body_types: &'static [&'static str],
    /// Media types of its successful answers.
    pub media_types: &'static [&'static str],
    pub cache: Cache,
}

impl Route {
    /// Whether the route answers at `path` (its own or its alias). A
    /// `{name}` segment of the route's path matches any one non-empty
    /// segment.
    pub fn answers(&self, path: &str) -> bool {
        matches_template(self.path, path) || self.alias.is_some_and(|a| a.path == path)
    }

    /// The values of the `{name}` segments of its path in `path`, in order
    /// (empty when the path has none or does not match).
    pub fn path_values<'p>(&self, path: &'p str) -> Vec<&'p str> {
        if !matches_template(self.path, path) {
            return Vec::new();
        }
        self.path
            .split('/')
            .zip(path.split('/'))
            .filter(|(t, _)| t.starts_with('{'))
            .map(|(_, v)| v)
            .collect()
    }

    /// Whether its path has `{name}` segments.
    pub fn is_template(&self) -> bool {
        self.path.contains('{')
    }

    /// Its paths: the canonical one, then the alias.
    pub fn paths(&self) -> impl Iterator<Item = &'static str> + use<> {
        std::iter::once(self.path).chain(self.alias.map(|a| a.path))
    }

    pub fn endpoint(&self) -> Option<Endpoint> {
        match self.id {
            RouteId::Sidecar(e) => Some(e),
            RouteId::Static(_) => None,
        }
    }
}

/// Whether `path` matches `template`, where a `{name}` segment stands for
/// any one non-empty segment.
fn matches_template(template: &str, path: &str) -> bool {
    if !template.contains('{') {
        return template == path;
    }
    let (mut t, mut p) = (template.split('/'), path.split('/'));
    loop {
        match (t.next(), p.next()) {
            (None, None) => return true,
            (Some(ts), Some(ps)) => {
                let ok = if ts.starts_with('{') {
                    !ps.is_empty()
                } else {
                    ts == ps
                };
                if !ok {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// The largest request body any route takes by default (the sidecar's
/// `--max-body-bytes`; fronts use the same limit).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Request headers a cross-origin GET may send.
pub const GET_REQUEST_HEADERS: &str = "Accept, Accept-Encoding, If-None-Match";
/// Request headers of an MCP client.
pub const MCP_REQUEST_HEADERS: &str =
    "Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID";
/// Request headers of a form submission sent by the site's script.
pub const SUBMISSION_REQUEST_HEADERS: &str = "Content-Type, Accept";
/// Response headers a browser script may read (`Access-Control-Expose-Headers`).
pub const EXPOSE_HEADERS: &str = "ETag, Retry-After, Link, MCP-Protocol-Version";

const fn file(
    file: StaticFile,
    path: &'static str,
    operation_id: &'static str,
    tag: &'static str,
    summary: &'static str,
    media_type: &'static [&'static str],
) -> Route {
    Route {
        id: RouteId::Static(file),
        path,
        alias: None,
        method: Method::Get,
        operation_id,
        summary,
        tag,
        cors: Cors::Public,
        request_headers: GET_REQUEST_HEADERS,
        body_types: &[],
        media_types: media_type,
        cache: Cache::File,
    }
}

const fn get(
    endpoint: Endpoint,
    path: &'static str,
    operation_id: &'static str,
    tag: &'static str,
    summary: &'static str,
    media_types: &'static [&'static str],
    cache: Cache,
) -> Route {
    Route {
        id: RouteId::Sidecar(endpoint),
        path,
        alias: None,
        method: Method::Get,
        operation_id,
        summary,
        tag,
        cors: Cors::Public,
        request_headers: GET_REQUEST_HEADERS,
        body_types: &[],
        media_types,
        cache,
    }
}

pub static SERVICE_INFORMATION: Route = file(
    StaticFile::ServiceInformation,
    "/api/service.json",
    "getServiceInformation",
    "service",
    "The organisation's public service information",
    &[media::JSON],
);
pub static OPENAPI: Route = file(
    StaticFile::OpenApi,
    "/openapi.json",
    "getOpenApi",
    "service",
    "This OpenAPI contract",
    &[media::OPENAPI_ESSENCE],
);
pub static AI_CATALOG: Route = file(
    StaticFile::AiCatalog,
    "/.well-known/ai-catalog.json",
    "getAiCatalog",
    "discovery",
    "AI Catalog of the service's artifacts",
    &[media::AI_CATALOG],
);
pub static API_CATALOG: Route = file(
    StaticFile::ApiCatalog,
    "/.well-known/api-catalog",
    "getApiCatalog",
    "discovery",
    "RFC 9727 API catalog",
    &[media::LINKSET],
);
pub static MCP_SERVER_CARD: Route = file(
    StaticFile::McpServerCard,
    "/.well-known/mcp/server-card.json",
    "getMcpServerCard",
    "discovery",
    "MCP server card",
    &[media::MCP_SERVER_CARD],
);
/// The same card at SEP-2127's location (decision 0047).
pub static MCP_SERVER_CARD_WELL_KNOWN: Route = file(
    StaticFile::McpServerCardWellKnown,
    "/.well-known/mcp/server-card",
    "getMcpServerCardWellKnown",
    "discovery",
    "MCP server card, where SEP-2127 has clients look",
    &[media::JSON],
);
pub static DATA_CATALOG: Route = file(
    StaticFile::DataCatalog,
    "/catalog.jsonld",
    "getDataCatalog",
    "discovery",
    "DCAT-AP catalogue of the open data",
    &[media::JSON_LD],
);
pub static LLMS_TXT: Route = file(
    StaticFile::LlmsTxt,
    "/llms.txt",
    "getLlmsTxt",
    "discovery",
    "llms.txt index for language models",
    &[media::TEXT_PLAIN],
);
pub static SITEMAP: Route = file(
    StaticFile::Sitemap,
    "/sitemap.xml",
    "getSitemap",
    "discovery",
    "Sitemap of every page",
    &[media::XML],
);
pub static FEED: Route = file(
    StaticFile::Feed,
    "/feed.xml",
    "getFeed",
    "discovery",
    "Atom feed of new and updated documents",
    &[media::ATOM],
);
pub static ROBOTS_TXT: Route = file(
    StaticFile::RobotsTxt,
    "/robots.txt",
    "getRobotsTxt",
    "discovery",
    "Crawler rules",
    &[media::TEXT_PLAIN],
);
pub static SECURITY_TXT: Route = file(
    StaticFile::SecurityTxt,
    "/.well-known/security.txt",
    "getSecurityTxt",
    "discovery",
    "RFC 9116 security contact",
    &[media::TEXT_PLAIN],
);
pub static PLATFORM_STATS: Route = get(
    Endpoint::PlatformStats,
    "/api/platform-stats.php",
    "getPlatformStats",
    "live-data",
    "Live platform statistics",
    &[media::JSON],
    Cache::Live,
);
pub static OBSERVATIONS_DATA: Route = get(
    Endpoint::ObservationsData,
    "/api/observations-data.php",
    "getObservations",
    "live-data",
    "Public water observations",
    &[media::JSON, media::CSV],
    Cache::Live,
);
pub static GLOBE_DATA: Route = get(
    Endpoint::GlobeData,
    "/api/globe-data.php",
    "getPublicGlobeData",
    "live-data",
    "Public monitoring sites as GeoJSON",
    &[media::GEO_JSON],
    Cache::Live,
);
pub static MCP: Route = Route {
    id: RouteId::Sidecar(Endpoint::Mcp),
    path: "/mcp/",
    // A redirect between the two breaks MCP clients: both answer alike.
    alias: Some(Alias {
        path: "/mcp",
        operation_id: "postMcpNoSlash",
        summary: "MCP endpoint, without the trailing slash",
    }),
    method: Method::Post,
    operation_id: "postMcp",
    summary: "MCP endpoint (JSON-RPC 2.0)",
    tag: "mcp",
    cors: Cors::Public,
    request_headers: MCP_REQUEST_HEADERS,
    body_types: &[media::JSON],
    media_types: &[media::JSON],
    cache: Cache::NoStore,
};
// Public like any read: issuing a challenge changes nothing, and the rate
// limit (not the origin) is what bounds its cost. Only the submission is
// origin-restricted.
pub static CONTACT_CHALLENGE: Route = get(
    Endpoint::ContactChallenge,
    "/api/contact-challenge",
    "getContactChallenge",
    "contact",
    "A human-verification challenge",
    &[media::JSON],
    Cache::NoStore,
);
pub static CONTACT: Route = Route {
    id: RouteId::Sidecar(Endpoint::Contact),
    path: "/api/contact.php",
    alias: None,
    method: Method::Post,
    operation_id: "postContact",
    summary: "Submit a human enquiry",
    tag: "contact",
    cors: Cors::SiteOrigins,
    request_headers: SUBMISSION_REQUEST_HEADERS,
    body_types: &[media::FORM, media::JSON],
    media_types: &[media::JSON],
    cache: Cache::NoStore,
};
pub static CHAT: Route = Route {
    id: RouteId::Sidecar(Endpoint::Chat),
    path: "/api/chat.php",
    alias: None,
    method: Method::Post,
    operation_id: "postChat",
    summary: "Ask a question of the published documents",
    tag: "chat",
    cors: Cors::SiteOrigins,
    request_headers: SUBMISSION_REQUEST_HEADERS,
    body_types: &[media::JSON],
    media_types: &[media::JSON],
    cache: Cache::NoStore,
};
/// The whole table: the documented files first, then the sidecar's routes.
pub static ROUTES: [&Route; 30] = [
    &SERVICE_INFORMATION,
    &OPENAPI,
    &AI_CATALOG,
    &API_CATALOG,
    &MCP_SERVER_CARD,
    &MCP_SERVER_CARD_WELL_KNOWN,
    &DATA_CATALOG,
    &FEATURES_OPENAPI,
    &LLMS_TXT,
    &SITEMAP,
    &FEED,
    &ROBOTS_TXT,
    &SECURITY_TXT,
    &PLATFORM_STATS,
    &OBSERVATIONS_DATA,
    &GLOBE_DATA,
    &OBSERVATION_TREND,
    &MCP,
    &CONTACT_CHALLENGE,
    &CONTACT,
    &CHAT,
    &HEALTHZ,
    &READYZ,
    &FEATURES_LANDING,
    &FEATURES_CONFORMANCE,
    &FEATURES_COLLECTIONS,
    &FEATURES_COLLECTION,
    &FEATURES_ITEMS,
    &FEATURES_ITEM,
    &FEATURES_QUERYABLES,
];

/// The contact form's thank-you page, which the generator builds and the
/// sidecar sends a browser's form submission to (303, `?reference=`).
pub const CONTACT_THANKS: &str = "/contact/thanks/";

/// The roots of the API space: each with every path below it.
pub const API_SPACES: [&str; 2] = ["/api", "/mcp"];

/// Whether a path lies in the API space, where an unknown path is a 404
/// problem object rather than the 404 page.
pub fn is_api_space(path: &str) -> bool {
    API_SPACES.iter().any(|root| {
        path.strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

#[cfg(test)]
mod tests;
