//! `dist/search-index.json`: the plain text of every page that has a
//! Markdown twin, for the in-browser search and the sidecar's MCP
//! `search_documentation` tool, which both read this one file.
//!
//! The format is the contract's (`contract::search`): documents sorted by
//! `url`, a site path ending in `/` whose Markdown twin is `url + "index.md"`.

pub use contract::manifest::SEARCH_INDEX as PATH;
pub use contract::manifest::SEARCH_PASSAGES as PASSAGES_PATH;
pub use contract::search::{Passage, PassageIndex, SearchDocument, SearchIndex, VERSION};

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

/// The passage file: passages sorted by URL (then in page order), with the
/// synonym groups; compact JSON with a final newline.
pub fn passages_json(mut passages: Vec<Passage>, synonyms: &[Vec<String>]) -> Vec<u8> {
    // Stable: passages of one page keep their order.
    passages.sort_by(|a, b| a.url.cmp(&b.url));
    let index = PassageIndex {
        version: contract::search::PASSAGES_VERSION,
        synonyms: synonyms.to_vec(),
        passages,
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
