//! Media types the service sends or accepts, named once.

pub const JSON: &str = "application/json";
pub const PROBLEM_JSON: &str = "application/problem+json";
pub const GEO_JSON: &str = "application/geo+json";
/// The OpenAPI contract: the JSON media type the OpenAPI Initiative
/// registered, with the specification's version.
pub const OPENAPI: &str = "application/vnd.oai.openapi+json;version=3.1";
/// The OpenAPI media type without its version parameter.
/// OpenAPI 3.0, for the OGC API – Features routes' own definition.
pub const OPENAPI_30: &str = "application/vnd.oai.openapi+json;version=3.0";
pub const OPENAPI_ESSENCE: &str = "application/vnd.oai.openapi+json";
pub const AI_CATALOG: &str = "application/ai-catalog+json";
pub const MCP_SERVER_CARD: &str = "application/mcp-server-card+json";
/// RFC 9727's linkset, with the profile the RFC registers.
pub const API_CATALOG: &str =
    "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"";
/// The linkset media type without its profile parameter.
pub const LINKSET: &str = "application/linkset+json";
/// JSON-LD (the open-data catalogue).
pub const JSON_LD: &str = "application/ld+json";
pub const FORM: &str = "application/x-www-form-urlencoded";
pub const CSV: &str = "text/csv";
pub const CSV_UTF8: &str = "text/csv; charset=utf-8";
pub const TEXT_PLAIN: &str = "text/plain";
pub const TEXT_PLAIN_UTF8: &str = "text/plain; charset=utf-8";
pub const HTML_UTF8: &str = "text/html; charset=utf-8";
pub const MARKDOWN_UTF8: &str = "text/markdown; charset=utf-8";
pub const XML: &str = "application/xml";
/// The Atom Syndication Format (RFC 4287).
pub const ATOM: &str = "application/atom+xml";
/// The Prometheus text exposition format.
pub const PROMETHEUS: &str = "text/plain; version=0.0.4";

/// The media type of a published file, by its path relative to `dist/`:
/// the well-known documents by name, everything else by extension.
pub fn for_path(path: &str) -> &'static str {
    match path {
        crate::manifest::AI_CATALOG => return AI_CATALOG,
        crate::manifest::MCP_SERVER_CARD => return MCP_SERVER_CARD,
        // SEP-2127 asks for plain JSON at its location.
        crate::manifest::MCP_SERVER_CARD_WELL_KNOWN => return JSON,
        crate::manifest::API_CATALOG => return API_CATALOG,
        crate::manifest::OPENAPI => return OPENAPI,
        crate::manifest::FEATURES_OPENAPI => return OPENAPI_30,
        crate::manifest::FEED => return ATOM,
        _ => {}
    }
    let name = path.rsplit('/').next().unwrap_or_default();
    // Each language's feed (`nl/feed.xml`) is Atom like the default one.
    if name == crate::manifest::FEED {
        return ATOM;
    }
    // A snapshot's checksum list and licence notice keep their customary
    // names without an extension.
    if name == crate::snapshot::CHECKSUMS || name == crate::snapshot::LICENSE {
        return TEXT_PLAIN_UTF8;
    }
    let ext = path
        .rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" => HTML_UTF8,
        "md" => MARKDOWN_UTF8,
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => JSON,
        "jsonld" => JSON_LD,
        "geojson" => GEO_JSON,
        "txt" => TEXT_PLAIN_UTF8,
        // Citation File Format: YAML, shown as text.
        "cff" => "text/plain; charset=utf-8",
        "csv" => CSV_UTF8,
        "xml" => XML,
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// Whether a media type is text-like and worth compressing.
pub fn compressible(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || [
            JSON,
            OPENAPI,
            AI_CATALOG,
            MCP_SERVER_CARD,
            LINKSET,
            JSON_LD,
            GEO_JSON,
            XML,
            ATOM,
            "image/svg+xml",
        ]
        .iter()
        .any(|t| content_type.starts_with(t))
}

/// The essence of a `Content-Type` value: the type before any parameter,
/// trimmed (compare it case-insensitively).
pub fn essence(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or_default().trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_by_path() {
        assert_eq!(for_path("docs/a/index.md"), MARKDOWN_UTF8);
        assert_eq!(for_path(".well-known/ai-catalog.json"), AI_CATALOG);
        assert_eq!(for_path(".well-known/api-catalog"), API_CATALOG);
        assert_eq!(
            for_path(".well-known/mcp/server-card.json"),
            MCP_SERVER_CARD
        );
        assert_eq!(for_path(".well-known/mcp/server-card"), JSON);
        assert_eq!(for_path("openapi.json"), OPENAPI);
        assert_eq!(for_path("feed.xml"), ATOM);
        assert!(compressible(ATOM));
        assert!(compressible(OPENAPI));
        assert_eq!(for_path("files/x.bin"), "application/octet-stream");
        assert!(compressible(for_path("index.html")));
        assert!(compressible(API_CATALOG));
        assert!(!compressible(for_path("logo.png")));
        assert_eq!(essence("text/csv; charset=utf-8"), CSV);
    }
}
