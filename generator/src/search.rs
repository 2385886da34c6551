//! `dist/search-index.json`: the plain text of every page that has a
//! Markdown twin, for the in-browser search and the sidecar's MCP
//! `search_documentation` tool, which both read this one file.
//!
//! Format (version 1):
//! `{"version": 1, "documents": [{"url", "title", "summary", "section", "text"}]}`,
//! documents sorted by `url`; `url` is a site path ending in `/`, and the
//! page's Markdown twin is at `url + "index.md"`.

use serde::{Deserialize, Serialize};

/// Path of the index in the output directory.
pub const PATH: &str = "search-index.json";
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

/// The index of `documents`, sorted by URL; compact JSON (it is fetched by
/// browsers) with a final newline.
pub fn index_json(mut documents: Vec<SearchDocument>) -> Vec<u8> {
    documents.sort_by(|a, b| a.url.cmp(&b.url));
    let index = SearchIndex {
        version: VERSION,
        documents,
    };
    let mut bytes = serde_json::to_vec(&index).expect("strings serialise");
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_round_trips() {
        let doc = |url: &str| SearchDocument {
            url: url.into(),
            title: "T".into(),
            summary: "S".into(),
            section: "a".into(),
            text: "x y".into(),
        };
        let bytes = index_json(vec![doc("/docs/b/"), doc("/docs/a/")]);
        let back: SearchIndex = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back.version, 1);
        assert_eq!(back.documents[0].url, "/docs/a/");
    }
}
