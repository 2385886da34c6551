//! The JSON discovery documents: the AI Catalog, the MCP server card and
//! the RFC 9727 API catalog.

use serde_json::{Value, json};

use super::text::{date_time, one_line};
use crate::model::{ServiceInformation, Site};
use crate::openapi::{CONTRACT_VERSION, MCP_PROTOCOL_VERSIONS};
use crate::origin::Origins;
use contract::routes;

/// AI Catalog draft version the catalog follows.
pub const AI_CATALOG_SPEC_VERSION: &str = "1.0";
/// Media type of the OpenAPI contract as a discovery target.
pub const OPENAPI_MEDIA_TYPE: &str = contract::media::OPENAPI;
/// Media type of the MCP server card (SEP-2127 draft).
pub const MCP_SERVER_CARD_MEDIA_TYPE: &str = contract::media::MCP_SERVER_CARD;
/// Site path of the MCP server card.
pub const MCP_SERVER_CARD_PATH: &str = routes::MCP_SERVER_CARD.path;
/// JSON Schema the server card declares (SEP-2127: the v1 schema family, the only one published).
pub const MCP_SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/// Name suffix of the MCP server: the last segment of its card `name` and of
/// its AI Catalog identifier.
const MCP_SERVER_NAME: &str = "public-information";

/// The host name of `base_url`, lower case, without scheme or port.
pub(super) fn host(base_url: &str) -> String {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or(v6)
    } else {
        authority.split(':').next().unwrap_or(authority)
    };
    host.to_ascii_lowercase()
}

/// `waterwatch.example.org` → `org.example.waterwatch`.
pub(super) fn reverse_dns(host: &str) -> String {
    host.rsplit('.').collect::<Vec<_>>().join(".")
}

/// At most `max` characters of `s`, ending with `…` when cut.
pub(super) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// The AI Catalog (`/.well-known/ai-catalog.json`): a small, fixed list of
/// same-origin entries.
pub fn ai_catalog(base_url: &str, site: &Site, service: &ServiceInformation) -> Value {
    let host = host(base_url);
    let id = |ns: &str, name: &str| format!("urn:air:{host}:{ns}:{name}");
    let updated = date_time(&service.updated);
    json!({
        "specVersion": AI_CATALOG_SPEC_VERSION,
        "host": {
            "displayName": service.name,
            "identifier": host,
            "documentationUrl": format!("{base_url}/docs/"),
        },
        // The server card and the contract carry their own name and
        // description, so those entries omit `displayName` and `description`
        // (the draft asks for that, to avoid two values drifting apart).
        "entries": [
            {
                "identifier": id("mcp", MCP_SERVER_NAME),
                "type": MCP_SERVER_CARD_MEDIA_TYPE,
                // The card, not `POST /mcp/`: an entry's url must return the
                // artifact document itself.
                "url": format!("{base_url}{MCP_SERVER_CARD_PATH}"),
                "version": CONTRACT_VERSION,
                "updatedAt": updated,
            },
            {
                "identifier": id("api", "openapi"),
                "type": OPENAPI_MEDIA_TYPE,
                "url": format!("{base_url}{}", routes::OPENAPI.path),
                "version": CONTRACT_VERSION,
                "updatedAt": updated,
            },
            {
                // The OGC API – Features routes, by their own OpenAPI 3.0
                // definition (which names them, so no displayName here).
                "identifier": id("api", "ogc-api-features"),
                "type": contract::media::OPENAPI_30,
                "url": format!("{base_url}{}", routes::FEATURES_OPENAPI.path),
                "version": CONTRACT_VERSION,
                "updatedAt": updated,
            },
            {
                "identifier": id("api", "service-information"),
                "displayName": format!("{} service information", service.name),
                "description": "Services, projects, evidence, scope, consortium, contact and \
                    guardrails for agents, as JSON.",
                "type": "application/json",
                "url": format!("{base_url}{}", routes::SERVICE_INFORMATION.path),
                "updatedAt": updated,
            },
            {
                "identifier": id("docs", "llms-txt"),
                "displayName": "llms.txt",
                "description": "A Markdown index of the API and documentation for language models.",
                // Served as text/plain (it is a .txt file); the draft asks the
                // type to match what the url serves.
                "type": "text/plain",
                "url": format!("{base_url}/llms.txt"),
                "updatedAt": updated,
            },
            {
                "identifier": id("docs", "feed"),
                "displayName": "Atom feed",
                "description": "The documents updated last, newest first, each with its page and Markdown twin.",
                "type": contract::media::ATOM,
                "url": format!("{base_url}{}", routes::FEED.path),
                "updatedAt": updated,
            },
            {
                "identifier": id("docs", "documentation"),
                "displayName": format!("{} documentation", site.title),
                "description": "Documentation for people; every page has a Markdown twin.",
                "type": "text/html",
                "url": format!("{base_url}/docs/"),
                "updatedAt": updated,
            },
        ],
    })
}

/// The MCP server card (SEP-2127 draft), published at
/// [`MCP_SERVER_CARD_PATH`].
///
/// The card sits under `/.well-known/` as a static file of `dist/`, so a CDN
/// serves it and `/mcp/` stays wholly the sidecar's; the catalog gives its
/// URL, so clients need not guess it. What the draft schema has no member for
/// (capabilities, the read-only promise) goes in `_meta` under our own
/// reverse-DNS prefix, which keeps the card valid against that schema.
pub fn mcp_server_card(origins: &Origins, site: &Site, service: &ServiceInformation) -> Value {
    let base_url = origins.site.as_str();
    let ns = reverse_dns(&host(base_url));
    json!({
        "$schema": MCP_SERVER_CARD_SCHEMA,
        "name": format!("{ns}/{MCP_SERVER_NAME}"),
        "version": CONTRACT_VERSION,
        "title": clip(&site.title, 100),
        "description": clip(
            &format!("Read-only public information and open data of {}.", service.name),
            100,
        ),
        "websiteUrl": format!("{base_url}/docs/"),
        "remotes": [{
            "type": "streamable-http",
            "url": origins.url(routes::MCP.path),
            "supportedProtocolVersions": MCP_PROTOCOL_VERSIONS,
        }],
        "_meta": {
            format!("{ns}/capabilities"): {
                "tools": { "listChanged": false },
                "resources": { "subscribe": false, "listChanged": false },
                "prompts": { "listChanged": false },
            },
            format!("{ns}/readOnly"): true,
            format!("{ns}/stateless"): true,
            format!("{ns}/guardrails"): format!(
                "Every tool only reads. {} Agents may prepare an enquiry; only a human submits it, at {}.",
                one_line(&service.guardrails.summary),
                service.guardrails.enquiries.form_url.absolute(base_url),
            ),
        },
    })
}

/// The RFC 9727 API catalog (`/.well-known/api-catalog`) as an RFC 9264 JSON
/// linkset with one context: the API at the site's root.
pub fn api_catalog(origins: &Origins, service: &ServiceInformation) -> Value {
    let base_url = origins.site.as_str();
    json!({
        "linkset": [{
            "anchor": format!("{base_url}/"),
            "service-desc": [{
                "href": format!("{base_url}{}", routes::OPENAPI.path),
                "type": OPENAPI_MEDIA_TYPE,
                "title": format!("{} OpenAPI contract", service.name),
            }],
            "service-doc": [{
                "href": format!("{base_url}/docs/"),
                "type": "text/html",
                "title": format!("{} documentation", service.name),
            }],
            "service-meta": [{
                "href": format!("{base_url}{}", routes::SERVICE_INFORMATION.path),
                "type": "application/json",
                "title": format!("{} service information", service.name),
            }, {
                "href": format!("{base_url}{}", routes::DATA_CATALOG.path),
                "type": contract::media::JSON_LD,
                "title": format!("{} open-data catalogue (DCAT-AP)", service.name),
            }],
            "status": [{
                "href": origins.url(routes::READYZ.path),
                "type": "application/json",
            }],
        }, {
            // The OGC API – Features routes, with their own OpenAPI 3.0
            // definition, for GIS clients (decision 0049).
            "anchor": origins.url(routes::FEATURES_LANDING.path),
            "service-desc": [{
                "href": format!("{base_url}{}", routes::FEATURES_OPENAPI.path),
                "type": contract::media::OPENAPI_30,
                "title": format!("{} OGC API – Features definition (OpenAPI 3.0)", service.name),
            }],
            "service-doc": [{
                "href": format!("{base_url}/docs/data/"),
                "type": "text/html",
                "title": format!("{} open data", service.name),
            }],
        }],
    })
}
