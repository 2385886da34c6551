//! `dist/manifest.json`: every published file with what a server needs to
//! answer for it without looking at the bytes again (size, media type, one
//! strong ETag per encoding, cache policy, precompressed twins), plus the
//! well-known paths inside `dist/` and the cache policy of each kind of
//! file. The generator writes it; the sidecar and the host configurations
//! read it. The manifest does not list itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// File name of the manifest inside the output directory.
pub const MANIFEST_FILE: &str = "manifest.json";
/// Bumped when the JSON shape changes incompatibly; the sidecar refuses to
/// start on another.
pub const FORMAT: u32 = 1;

/// Well-known files of `dist/`, relative to it.
pub const SERVICE_INFORMATION: &str = "api/service.json";
pub const OPENAPI: &str = "openapi.json";
pub const AI_CATALOG: &str = ".well-known/ai-catalog.json";
pub const API_CATALOG: &str = ".well-known/api-catalog";
pub const MCP_SERVER_CARD: &str = ".well-known/mcp/server-card.json";
/// The same card where the current server-card proposal (SEP-2127) has
/// clients look: extensionless, served as `application/json`.
pub const MCP_SERVER_CARD_WELL_KNOWN: &str = ".well-known/mcp/server-card";
pub const SECURITY_TXT: &str = ".well-known/security.txt";
/// The open-data catalogue (DCAT-AP, JSON-LD).
pub const DATA_CATALOG: &str = "catalog.jsonld";
/// The API reference page of the documentation site (a folder).
pub const API_REFERENCE: &str = "docs/developers/api/";
/// The OGC API – Features routes' API definition, in OpenAPI 3.0.
pub const FEATURES_OPENAPI: &str = "api/features/openapi.json";
pub const LLMS_TXT: &str = "llms.txt";
pub const SITEMAP: &str = "sitemap.xml";
/// The Atom feed of new and updated documents.
pub const FEED: &str = "feed.xml";
pub const ROBOTS_TXT: &str = "robots.txt";
pub const SEARCH_INDEX: &str = "search-index.json";
pub const SEARCH_PASSAGES: &str = "search-passages.json";
/// The page served (status 404) for unknown paths outside the API.
pub const NOT_FOUND_PAGE: &str = "404.html";
/// Content-hashed assets live below this folder.
pub const ASSETS: &str = "assets/";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: u32,
    /// The origin the site was built for (`generate build --base-url`):
    /// where its pages and Markdown twins are served and the base of every
    /// URL they, the discovery documents and the MCP server name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_origin: Option<String>,
    /// The sidecar's origin when the site was built for a separate API
    /// origin (`generate build --api-origin`); absent when the sidecar's
    /// routes share the site's origin. Whoever serves the HTML sends
    /// [`crate::headers::content_security_policy`] of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_origin: Option<String>,
    /// Keyed by path relative to the output directory, `/`-separated.
    pub files: BTreeMap<String, FileEntry>,
    /// Moved pages: an earlier site path (`/old/page/`, a page's `aliases`)
    /// and the path of the page it moved to, which every server of the
    /// site answers with a permanent redirect. The build also writes a
    /// small HTML page at each old path, for hosts without redirects.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub redirects: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    pub size: u64,
    /// Lower-case hex SHA-256 of the identity bytes.
    pub sha256: String,
    /// Strong ETag of the identity bytes, quotes included.
    pub etag: String,
    pub content_type: String,
    pub cache_control: String,
    /// Precompressed twins, keyed by content-coding (`br`, `gzip`); present
    /// only where smaller than the identity bytes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub encodings: BTreeMap<String, Encoded>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Encoded {
    /// Path of the twin relative to the output directory.
    pub path: String,
    pub size: u64,
    pub etag: String,
}

/// Hex digits of a release id.
pub const RELEASE_ID_LEN: usize = 16;

/// The release id of a build: the first [`RELEASE_ID_LEN`] hex digits of
/// the SHA-256 of its `manifest.json`, which lists every file's digest, so
/// two builds share an id exactly when they publish the same files.
/// `scripts/release` computes the same (`sha256sum manifest.json`).
pub fn release_id(manifest_sha256_hex: &str) -> &str {
    &manifest_sha256_hex[..RELEASE_ID_LEN.min(manifest_sha256_hex.len())]
}

/// A strong ETag from a SHA-256 hex digest: 128 bits are plenty to tell
/// versions apart and keep headers short.
pub fn etag_from_sha256(sha256_hex: &str) -> String {
    format!("\"{}\"", &sha256_hex[..32])
}

/// Hashed assets never change under their name.
pub const CACHE_IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// The contract: always revalidate, so clients never act on a stale one.
pub const CACHE_REVALIDATE: &str = "no-cache";
/// Service information: short freshness, revalidated with the ETag.
pub const CACHE_SERVICE: &str = "public, max-age=300, stale-while-revalidate=3600";
/// Pages and their Markdown twins: a minute of freshness absorbs bursts at a
/// CDN; after a deploy every page is current within a minute.
pub const CACHE_PAGE: &str = "public, max-age=60, stale-while-revalidate=600";
/// Discovery documents change rarely.
pub const CACHE_DISCOVERY: &str = "public, max-age=3600";
/// Archived downloads and data snapshots: stable URLs, rarely changed.
pub const CACHE_DOWNLOAD: &str = "public, max-age=86400";
/// Answers that must never be stored: problems, POST answers, probes.
pub const NO_STORE: &str = "no-store";

/// The cache policy of a published path.
pub fn cache_policy(path: &str) -> &'static str {
    if path.starts_with(ASSETS) {
        CACHE_IMMUTABLE
    } else if path == OPENAPI {
        CACHE_REVALIDATE
    } else if path.starts_with("api/") {
        CACHE_SERVICE
    } else if path.starts_with("files/")
        || path
            .strip_prefix(crate::snapshot::SITE_FOLDER)
            .is_some_and(|rest| rest.starts_with('/'))
    {
        // A snapshot never changes, but may be withdrawn: a day, not a year.
        CACHE_DOWNLOAD
    } else if path == SEARCH_INDEX || path == SEARCH_PASSAGES {
        // Changes with every content change, like the pages it indexes.
        CACHE_PAGE
    } else if path.starts_with(".well-known/") || matches!(path, LLMS_TXT | ROBOTS_TXT | SITEMAP) {
        CACHE_DISCOVERY
    } else {
        CACHE_PAGE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies() {
        assert_eq!(
            cache_policy("assets/site.0123456789abcdef.css"),
            CACHE_IMMUTABLE
        );
        assert_eq!(cache_policy(OPENAPI), "no-cache");
        assert_eq!(cache_policy(SERVICE_INFORMATION), CACHE_SERVICE);
        assert_eq!(cache_policy("docs/a/index.html"), CACHE_PAGE);
        assert_eq!(cache_policy(SEARCH_INDEX), CACHE_PAGE);
        assert_eq!(cache_policy(AI_CATALOG), CACHE_DISCOVERY);
        assert_eq!(
            cache_policy("snapshots/2026-11-27/observations.csv"),
            CACHE_DOWNLOAD
        );
    }

    #[test]
    fn etag_is_quoted_prefix() {
        let sha = "a".repeat(64);
        assert_eq!(etag_from_sha256(&sha), format!("\"{}\"", &sha[..32]));
    }

    #[test]
    fn round_trips_and_rejects_unknown_fields() {
        let text = r#"{"format":1,"files":{"a.html":{"size":3,"sha256":"x","etag":"\"x\"","content_type":"text/html","cache_control":"no-cache","encodings":{"br":{"path":"a.html.br","size":2,"etag":"\"x-br\""}}}}}"#;
        let m: Manifest = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), text);
        assert!(serde_json::from_str::<Manifest>(r#"{"format":1,"files":{},"x":1}"#).is_err());
    }
}
