//! `dist/manifest.json`: every published file with what a server needs to
//! answer for it without looking at the bytes again — size, content type,
//! strong ETag (one per encoding), cache policy and precompressed twins.
//!
//! The sidecar reads this file (its own types, same JSON); a CDN deploy script
//! can read it too. The manifest does not list itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// File name of the manifest inside the output directory.
pub const MANIFEST_FILE: &str = "manifest.json";
/// Bumped when the JSON shape changes incompatibly.
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: u32,
    /// Keyed by path relative to the output directory, `/`-separated.
    pub files: BTreeMap<String, FileEntry>,
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

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
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
/// Archived downloads: stable URLs, rarely changed.
pub const CACHE_DOWNLOAD: &str = "public, max-age=86400";

/// The cache policy for a published path.
pub fn cache_policy(path: &str) -> &'static str {
    if path.starts_with("assets/") {
        CACHE_IMMUTABLE
    } else if path == "openapi.json" {
        CACHE_REVALIDATE
    } else if path.starts_with("api/") {
        CACHE_SERVICE
    } else if path.starts_with("files/") {
        CACHE_DOWNLOAD
    } else if path == crate::search::PATH {
        // Changes with every content change, like the pages it indexes.
        CACHE_PAGE
    } else if path.starts_with(".well-known/")
        || matches!(path, "llms.txt" | "robots.txt" | "sitemap.xml")
    {
        CACHE_DISCOVERY
    } else {
        CACHE_PAGE
    }
}

/// The media type for a published path.
pub fn content_type(path: &str) -> &'static str {
    match path {
        ".well-known/ai-catalog.json" => return "application/ai-catalog+json",
        ".well-known/mcp/server-card.json" => return "application/mcp-server-card+json",
        ".well-known/api-catalog" => {
            return "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"";
        }
        _ => {}
    }
    let ext = path
        .rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" => "text/html; charset=utf-8",
        "md" => "text/markdown; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "geojson" => "application/geo+json",
        "txt" => "text/plain; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        "xml" => "application/xml",
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

/// Whether a media type is text-like and worth precompressing.
pub fn compressible(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || content_type.starts_with("application/json")
        || content_type.starts_with("application/ai-catalog+json")
        || content_type.starts_with("application/mcp-server-card+json")
        || content_type.starts_with("application/linkset+json")
        || content_type.starts_with("application/geo+json")
        || content_type.starts_with("application/xml")
        || content_type.starts_with("image/svg+xml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_and_types() {
        assert_eq!(
            cache_policy("assets/site.0123456789abcdef.css"),
            CACHE_IMMUTABLE
        );
        assert_eq!(cache_policy("openapi.json"), "no-cache");
        assert_eq!(cache_policy("api/service.json"), CACHE_SERVICE);
        assert_eq!(cache_policy("docs/a/index.html"), CACHE_PAGE);
        assert_eq!(cache_policy("search-index.json"), CACHE_PAGE);
        assert_eq!(
            content_type("docs/a/index.md"),
            "text/markdown; charset=utf-8"
        );
        assert_eq!(
            content_type(".well-known/ai-catalog.json"),
            "application/ai-catalog+json"
        );
        assert_eq!(content_type("files/x.bin"), "application/octet-stream");
        assert!(compressible(content_type("index.html")));
        assert!(!compressible(content_type("logo.png")));
    }

    #[test]
    fn etag_is_quoted_prefix() {
        let sha = sha256_hex(b"abc");
        assert_eq!(etag_from_sha256(&sha), format!("\"{}\"", &sha[..32]));
    }
}
