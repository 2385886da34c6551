//! `dist/search-index.json`: the plain text of every page that has a
//! Markdown twin. The generator writes it; the browser's search box and the
//! sidecar's ranking read it.
//!
//! Format (version 1):
//! `{"version": 1, "documents": [{"url", "title", "summary", "section", "text"}]}`,
//! documents sorted by `url`; `url` is a site path ending in `/`, and the
//! page's Markdown twin is at `url + "index.md"`.

use serde::{Deserialize, Serialize};

/// Bumped when the shape changes incompatibly.
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchIndex {
    pub version: u32,
    pub documents: Vec<SearchDocument>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchDocument {
    pub url: String,
    pub title: String,
    pub summary: String,
    /// First path segment under `/docs/` (`""` for the documentation home).
    pub section: String,
    /// The page's text without markup.
    pub text: String,
}
