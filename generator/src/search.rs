//! The search files (`search-index.json`, `search-passages.json` and their
//! parts under `search/`): every page that has a Markdown twin, by URL,
//! title, summary and section, and the text of every document cut at
//! headings, for the sidecar's ranking (the chat and the MCP
//! `search_documentation` tool); and the browser's split index
//! ([`shards`]), made from the same text.
//!
//! The format is the contract's (`contract::search`): entries sorted by
//! `url`, a site path ending in `/` whose Markdown twin is `url + "index.md"`,
//! cut into parts of [`PART_SIZE`] pages, so an edit of one page rewrites
//! one part of each file and the two small heads.

pub use contract::manifest::SEARCH_INDEX as PATH;
pub use contract::manifest::SEARCH_PASSAGES as PASSAGES_PATH;
pub use contract::search::{Passage, PassageIndex, SearchDocument, SearchIndex, VERSION};
use serde::Serialize;

mod json;
mod postings;
pub use postings::BrowserEntry;
pub mod shards;
pub mod terms;

/// One value as compact JSON: an entry of the index, as the index holds it.
pub fn fragment<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("strings serialise")
}

/// [`fragment`] of a passage, whose JSON ends with its `text` (the long
/// part, written by [`json::push_literal`] rather than by `serde_json`, to
/// the same bytes), into `bytes` (made with room for it, say). The passage
/// is as it was afterwards.
pub fn passage_fragment_in(mut bytes: Vec<u8>, passage: &mut Passage) -> Vec<u8> {
    // The rest as serde_json writes it, with an empty text last:
    // `…,"text":""}`; the text goes between the quotes.
    const EMPTY_TEXT: &[u8] = b"\"text\":\"\"}";
    let text = std::mem::take(&mut passage.text);
    let start = bytes.len();
    serde_json::to_writer(&mut bytes, &*passage).expect("strings serialise");
    assert!(
        bytes[start..].ends_with(EMPTY_TEXT),
        "`text` is the last field of a passage"
    );
    bytes.truncate(bytes.len() - 3);
    json::push_literal(&mut bytes, &text);
    bytes.push(b'}');
    passage.text = text;
    bytes
}

/// [`fragment_list`] of passages ([`passage_fragment_in`]).
pub fn passage_fragment_list_in(mut bytes: Vec<u8>, passages: &mut [Passage]) -> Vec<u8> {
    for (i, p) in passages.iter_mut().enumerate() {
        if i > 0 {
            bytes.push(b',');
        }
        bytes = passage_fragment_in(bytes, p);
    }
    bytes
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

/// Pages per part. Parts are cut by position in the list sorted by URL,
/// so which part holds a page changes only when pages are added or removed
/// (which rebuilds everything).
pub const PART_SIZE: usize = 200;

/// Which parts to make: every part, or only the parts holding a URL for
/// which the function is true (the others are as the last build left them).
pub type Changed<'a> = Option<&'a dyn Fn(&str) -> bool>;

/// One file of the search files: a head, made already, or a part, joined
/// from its pages' fragments only when [`SearchFile::bytes`] is called,
/// so a build that writes each part as it joins it holds one part at a
/// time beside the fragments, not a second copy of the whole index.
pub struct SearchFile<'a> {
    /// Path relative to the output folder.
    pub path: String,
    body: Body<'a>,
}

enum Body<'a> {
    Made(Vec<u8>),
    Part {
        field: &'static str,
        fragments: Vec<&'a [u8]>,
    },
}

impl SearchFile<'_> {
    /// The file's bytes.
    pub fn bytes(self) -> Vec<u8> {
        let (field, fragments) = match self.body {
            Body::Made(bytes) => return bytes,
            Body::Part { field, fragments } => (field, fragments),
        };
        let mut bytes =
            Vec::with_capacity(fragments.iter().map(|f| f.len() + 1).sum::<usize>() + 32);
        bytes.extend_from_slice(format!("{{\"{field}\":[").as_bytes());
        for (i, fragment) in fragments.iter().enumerate() {
            if i > 0 {
                bytes.push(b',');
            }
            bytes.extend_from_slice(fragment);
        }
        bytes.extend_from_slice(b"]}\n");
        bytes
    }

    /// The path and the bytes.
    pub fn made(mut self) -> (String, Vec<u8>) {
        let path = std::mem::take(&mut self.path);
        (path, self.bytes())
    }
}

/// A search file made of a head and parts: the head, then each part, for
/// the parts `changed` asks for.
fn parted<'a>(
    kind: &str,
    field: &'static str,
    mut entries: Vec<(&'a str, &'a [u8])>,
    changed: Changed<'_>,
    head: impl FnOnce(&mut Vec<u8>, usize),
) -> Vec<SearchFile<'a>> {
    // Stable: the fragments of one URL keep their order.
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let count = entries.iter().filter(|e| !e.1.is_empty()).count();
    let parts = entries.chunks(PART_SIZE).count();
    let path = |n: usize| format!("{}{kind}-{n}.json", contract::search::PARTS_DIR);
    let mut out = Vec::with_capacity(parts + 1);
    let mut bytes = Vec::new();
    head(&mut bytes, count);
    bytes.extend_from_slice(b",\"parts\":");
    let list: Vec<String> = (1..=parts).map(path).collect();
    serde_json::to_writer(&mut bytes, &list).expect("strings serialise");
    bytes.extend_from_slice(b"}\n");
    out.push(SearchFile {
        path: String::new(),
        body: Body::Made(bytes),
    });
    for (n, part) in entries.chunks(PART_SIZE).enumerate() {
        if changed.is_some_and(|wanted| !part.iter().any(|e| wanted(e.0))) {
            continue;
        }
        out.push(SearchFile {
            path: path(n + 1)[1..].to_owned(),
            body: Body::Part {
                field,
                fragments: part.iter().map(|e| e.1).filter(|f| !f.is_empty()).collect(),
            },
        });
    }
    out
}

/// The index's files (its head, keyed [`PATH`], then parts) from its
/// entries' fragments ([`fragment`]) with their URLs.
pub fn index_files<'a>(
    entries: Vec<(&'a str, &'a [u8])>,
    changed: Changed<'_>,
) -> Vec<SearchFile<'a>> {
    let mut files = parted("index", "documents", entries, changed, |out, count| {
        out.extend_from_slice(format!("{{\"version\":{VERSION},\"documents\":{count}").as_bytes());
    });
    files[0].path = PATH.to_owned();
    files
}

/// The passage files (head keyed [`PASSAGES_PATH`], then parts) from each
/// page's fragment ([`fragment_list`]) with its URL.
pub fn passages_files<'a>(
    pages: Vec<(&'a str, &'a [u8])>,
    language: &str,
    synonyms: &[Vec<String>],
    changed: Changed<'_>,
) -> Vec<SearchFile<'a>> {
    let mut files = parted("passages", "passages", pages, changed, |out, _| {
        out.extend_from_slice(
            format!(
                "{{\"version\":{},\"language\":",
                contract::search::PASSAGES_VERSION
            )
            .as_bytes(),
        );
        serde_json::to_writer(&mut *out, language).expect("strings serialise");
        out.extend_from_slice(b",\"synonyms\":");
        serde_json::to_writer(&mut *out, synonyms).expect("strings serialise");
    });
    files[0].path = PASSAGES_PATH.to_owned();
    files
}

/// The browser's split index ([`shards`]) from every page's entry of one
/// language: every file each time, since a term's postings depend on
/// every page. The default language's is in `search/`, another's in
/// `search/{code}/` (`language`).
pub fn browser_files<'a>(pages: &[&BrowserEntry], language: Option<&str>) -> Vec<SearchFile<'a>> {
    let folder = match language {
        None => "search/".to_owned(),
        Some(code) => format!("search/{code}/"),
    };
    shards::files(pages, &folder)
        .into_iter()
        .map(|(path, bytes)| SearchFile {
            path,
            body: Body::Made(bytes),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(files: &[(String, Vec<u8>)]) -> impl Fn(&str) -> Option<Vec<u8>> + '_ {
        let map: HashMap<&str, &Vec<u8>> = files.iter().map(|(k, v)| (k.as_str(), v)).collect();
        move |k| map.get(k).map(|v| v.to_vec())
    }

    fn doc(url: &str) -> SearchDocument {
        SearchDocument {
            url: url.into(),
            title: "T".into(),
            summary: "S \"quoted\"".into(),
            section: "a".into(),
        }
    }

    #[test]
    fn passages_are_the_bytes_serde_json_writes() {
        let passage = |anchor: &str, historical: bool| Passage {
            url: "/docs/a/".into(),
            anchor: anchor.into(),
            title: "T".into(),
            heading: anchor.to_uppercase(),
            section: "a".into(),
            historical,
            licence: historical.then(|| "CC BY 4.0".into()),
            attribution: historical.then(|| "Someone".into()),
            reference: !historical,
            developers: !historical,
            language: None,
            text: format!("{anchor}: Qualité \"de\" l'eau\n\ttab \\ with lines\u{1}"),
        };
        let mut passages = vec![
            passage("", false),
            passage("one", true),
            passage("two", false),
        ];
        let before = passages.clone();
        assert_eq!(
            passage_fragment_list_in(Vec::new(), &mut passages),
            fragment_list(&before)
        );
        assert_eq!(passages, before);
        assert!(passage_fragment_list_in(Vec::new(), &mut []).is_empty());
    }

    #[test]
    fn the_index_is_sorted_cut_into_parts_and_read_back_whole() {
        let docs: Vec<SearchDocument> = (0..PART_SIZE * 2 + 7)
            .rev()
            .map(|i| doc(&format!("/docs/p{i:04}/")))
            .collect();
        let fragments: Vec<Vec<u8>> = docs.iter().map(fragment).collect();
        let entries = || {
            docs.iter()
                .zip(&fragments)
                .map(|(d, f)| (d.url.as_str(), &f[..]))
                .collect()
        };
        let made = |files: Vec<SearchFile<'_>>| -> Vec<(String, Vec<u8>)> {
            files.into_iter().map(SearchFile::made).collect()
        };
        let files = made(index_files(entries(), None));
        assert_eq!(files.len(), 4, "a head and three parts");
        assert_eq!(files[0].0, PATH);
        assert_eq!(files[1].0, "search/index-1.json");
        let back = contract::search::read_index(read(&files)).unwrap();
        let mut sorted = docs.clone();
        sorted.sort_by(|a, b| a.url.cmp(&b.url));
        assert_eq!(back.documents, sorted);
        // Each file is what serde_json writes for its shape.
        let head: contract::search::IndexHead = serde_json::from_slice(&files[0].1).unwrap();
        let mut again = serde_json::to_vec(&head).unwrap();
        again.push(b'\n');
        assert_eq!(files[0].1, again);
        let part: contract::search::IndexPart = serde_json::from_slice(&files[3].1).unwrap();
        assert_eq!(part.documents.len(), 7);
        let mut again = serde_json::to_vec(&part).unwrap();
        again.push(b'\n');
        assert_eq!(files[3].1, again);

        // Asking for the parts of one URL gives the head and that part only,
        // with the bytes of the whole making.
        let changed = |url: &str| url == "/docs/p0250/";
        let some = made(index_files(entries(), Some(&changed)));
        assert_eq!(some.len(), 2);
        assert_eq!(some[0], files[0]);
        assert_eq!(some[1], files[2]);
    }

    #[test]
    fn passages_keep_page_order_and_leave_empty_pages_out() {
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
            developers: false,
            language: None,
            text: "x \"y\"".into(),
        };
        let synonyms = vec![vec!["ph".to_owned(), "acidity".to_owned()]];
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
        let files: Vec<(String, Vec<u8>)> = passages_files(
            parts.iter().map(|(u, f)| (*u, &f[..])).collect(),
            "en",
            &synonyms,
            None,
        )
        .into_iter()
        .map(SearchFile::made)
        .collect();
        let back = contract::search::read_passages(read(&files)).unwrap();
        assert_eq!(back.synonyms, synonyms);
        let headings: Vec<&str> = back.passages.iter().map(|p| p.heading.as_str()).collect();
        assert_eq!(headings, ["Three", "One", "Two"]);
        let part: contract::search::PassagesPart = serde_json::from_slice(&files[1].1).unwrap();
        let mut whole = serde_json::to_vec(&part).unwrap();
        whole.push(b'\n');
        assert_eq!(files[1].1, whole);
    }
}
