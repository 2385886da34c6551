//! `dist/search-index.json`: the plain text of every page that has a
//! Markdown twin, for the in-browser search and the sidecar's MCP
//! `search_documentation` tool, which both read this one file.
//!
//! The format is the contract's (`contract::search`): documents sorted by
//! `url`, a site path ending in `/` whose Markdown twin is `url + "index.md"`.

pub use contract::manifest::SEARCH_INDEX as PATH;
pub use contract::manifest::SEARCH_PASSAGES as PASSAGES_PATH;
pub use contract::search::{Passage, PassageIndex, SearchDocument, SearchIndex, VERSION};
use serde::Serialize;

/// One value as compact JSON: an entry of the index, as the index holds it.
pub fn fragment<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("strings serialise")
}

/// Values as compact JSON separated by commas, without brackets (the
/// passages of one page); empty for none.
pub fn fragment_list<T: Serialize>(values: &[T]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            bytes.push(b',');
        }
        serde_json::to_writer(&mut bytes, v).expect("strings serialise");
    }
    bytes
}

/// A JSON array's elements from fragments given with their URLs: sorted
/// by URL (stably: the fragments of one URL keep their order), empty
/// fragments left out.
fn join_sorted(out: &mut Vec<u8>, mut parts: Vec<(&str, &[u8])>) {
    parts.sort_by(|a, b| a.0.cmp(b.0));
    out.reserve(parts.iter().map(|p| p.1.len() + 1).sum::<usize>() + 4);
    out.push(b'[');
    let mut first = true;
    for (_, bytes) in parts.into_iter().filter(|p| !p.1.is_empty()) {
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(bytes);
    }
    out.extend_from_slice(b"]}\n");
}

/// The index from its entries' fragments ([`fragment`]) with their URLs:
/// the same bytes as [`index_json`] of the entries, without serialising
/// again the entries a rebuild did not change.
pub fn index_from_fragments(parts: Vec<(&str, &[u8])>) -> Vec<u8> {
    let mut out = format!("{{\"version\":{VERSION},\"documents\":").into_bytes();
    join_sorted(&mut out, parts);
    out
}

/// The passage file from each page's fragment ([`fragment_list`]) with its
/// URL: the same bytes as [`passages_json`].
pub fn passages_from_fragments(parts: Vec<(&str, &[u8])>, synonyms: &[Vec<String>]) -> Vec<u8> {
    let mut out = format!(
        "{{\"version\":{},\"synonyms\":",
        contract::search::PASSAGES_VERSION
    )
    .into_bytes();
    serde_json::to_writer(&mut out, synonyms).expect("strings serialise");
    out.extend_from_slice(b",\"passages\":");
    join_sorted(&mut out, parts);
    out
}

/// The index of `documents`, sorted by URL; compact JSON (it is fetched by
/// browsers) with a final newline.
pub fn index_json(documents: &[SearchDocument]) -> Vec<u8> {
    let parts: Vec<Vec<u8>> = documents.iter().map(fragment).collect();
    index_from_fragments(
        documents
            .iter()
            .zip(&parts)
            .map(|(d, p)| (d.url.as_str(), &p[..]))
            .collect(),
    )
}

/// The passage file: passages sorted by URL (then in page order), with the
/// synonym groups; compact JSON with a final newline.
pub fn passages_json(passages: &[Passage], synonyms: &[Vec<String>]) -> Vec<u8> {
    let parts: Vec<Vec<u8>> = passages.iter().map(fragment).collect();
    passages_from_fragments(
        passages
            .iter()
            .zip(&parts)
            .map(|(p, f)| (p.url.as_str(), &f[..]))
            .collect(),
        synonyms,
    )
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
        let bytes = index_json(&[doc("/docs/b/"), doc("/docs/a/")]);
        let back: SearchIndex = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back.version, 1);
        assert_eq!(back.documents[0].url, "/docs/a/");
        // The same bytes as serialising the whole index at once.
        let mut whole = serde_json::to_vec(&back).unwrap();
        whole.push(b'\n');
        assert_eq!(bytes, whole);
    }

    #[test]
    fn passages_from_fragments_are_the_whole_file_serialised() {
        let passage = |url: &str, heading: &str| Passage {
            url: url.into(),
            anchor: heading.to_lowercase(),
            title: "T".into(),
            heading: heading.into(),
            section: "a".into(),
            historical: false,
            licence: None,
            attribution: None,
            reference: false,
            text: "x \"y\"".into(),
        };
        let synonyms = vec![vec!["ph".to_owned(), "acidity".to_owned()]];
        // A page without passages leaves an empty fragment out.
        let pages = [
            (
                "/docs/b/",
                vec![passage("/docs/b/", "One"), passage("/docs/b/", "Two")],
            ),
            ("/docs/c/", vec![]),
            ("/docs/a/", vec![passage("/docs/a/", "Three")]),
        ];
        let parts: Vec<(&str, Vec<u8>)> = pages
            .iter()
            .map(|(url, ps)| (*url, fragment_list(ps)))
            .collect();
        let bytes =
            passages_from_fragments(parts.iter().map(|(u, f)| (*u, &f[..])).collect(), &synonyms);
        let all: Vec<Passage> = pages.iter().flat_map(|p| p.1.clone()).collect();
        assert_eq!(bytes, passages_json(&all, &synonyms));
        let back: PassageIndex = serde_json::from_slice(&bytes).unwrap();
        let headings: Vec<&str> = back.passages.iter().map(|p| p.heading.as_str()).collect();
        assert_eq!(headings, ["Three", "One", "Two"]);
        let mut whole = serde_json::to_vec(&back).unwrap();
        whole.push(b'\n');
        assert_eq!(bytes, whole);
    }
}
