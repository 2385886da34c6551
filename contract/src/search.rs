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

/// Bumped when the passage file's shape changes incompatibly.
pub const PASSAGES_VERSION: u32 = 1;

/// `dist/search-passages.json`: the same text as the search index, cut at
/// every heading, with the synonym groups of `content/`. The sidecar ranks
/// it for the chat and the MCP `search_documentation` tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PassageIndex {
    pub version: u32,
    /// Groups of words a visitor may use for the same thing (lower case).
    pub synonyms: Vec<Vec<String>>,
    pub passages: Vec<Passage>,
}

/// The text under one heading of one page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Passage {
    /// The page's URL path, ending in `/`.
    pub url: String,
    /// The heading's id on the page; empty for the text before the first
    /// heading.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub anchor: String,
    /// The page's title.
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub heading: String,
    /// First path segment under `/docs/`, as in the search index.
    pub section: String,
    /// Archived material: historical, not current advice. Such passages
    /// carry their licence and attribution.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub historical: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub licence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
    /// Generated reference material (the API reference's operation and
    /// schema tables): it repeats the vocabulary of the prose pages, so it
    /// ranks below them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reference: bool,
    pub text: String,
}
