//! The search files: every page that has a Markdown twin, by URL, title,
//! summary and section (`dist/search-index.json`), and the pages' plain
//! text cut at headings (`dist/search-passages.json`). The text is written
//! once, in the passages (decision 0260). The generator writes them; the
//! sidecar's ranking reads the passages, `generate check` the index.
//!
//! Each is published in parts, so that an edit of one page rewrites one
//! part and not the text of every page:
//!
//! - `search-index.json` (version 3): `{"version": 3, "documents": N, "parts": ["/search/index-1.json", …]}`;
//!   each part `{"documents": [{"url", "title", "summary", "section"}, …]}`.
//! - `search-passages.json` (version 3): `{"version": 3, "language": "en", "synonyms": [[…]], "parts": ["/search/passages-1.json", …]}`,
//!   `language` being the site's default language (a translation's
//!   passages name their own);
//!   each part `{"passages": [{"url", "anchor"?, "title", …, "text"}, …]}`.
//!
//! Parts are site paths under [`PARTS_DIR`]; their entries, read in the
//! order the parts are listed, are sorted by `url` (a page's passages
//! together, in page order). `url` is a site path ending in `/`, and the
//! page's Markdown twin is at `url + "index.md"`. [`read_index`] and
//! [`read_passages`] put the parts back together as [`SearchIndex`] and
//! [`PassageIndex`], the whole lists.

use serde::{Deserialize, Serialize};

/// Bumped when the index's shape changes incompatibly (3: without the
/// pages' text, which the passages hold).
pub const VERSION: u32 = 3;

/// The folder of the parts, as a site path.
pub const PARTS_DIR: &str = "/search/";

/// `search-index.json` as published: the parts to read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexHead {
    pub version: u32,
    /// How many documents the parts hold together.
    pub documents: usize,
    pub parts: Vec<String>,
}

/// One part of the search index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexPart {
    pub documents: Vec<SearchDocument>,
}

/// `search-passages.json` as published: the synonyms and the parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PassagesHead {
    pub version: u32,
    /// The site's default language (BCP 47): that of every passage that
    /// does not name its own.
    pub language: String,
    /// Groups of words a visitor may use for the same thing (lower case).
    pub synonyms: Vec<Vec<String>>,
    pub parts: Vec<String>,
}

/// One part of the passages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PassagesPart {
    pub passages: Vec<Passage>,
}

/// The whole search index, its parts put together.
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
}

/// Bumped when the passage file's shape changes incompatibly.
pub const PASSAGES_VERSION: u32 = 3;

/// The passages put together: the text of every document page, cut at
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
    /// A page written for developers (front matter `audience =
    /// "developers"`, and the API reference): the chat quotes it only for a
    /// question in developers' words, or when nothing else answers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub developers: bool,
    /// The language of a translation (its BCP 47 code); absent on the
    /// pages in the site's default language. The sidecar ranks each
    /// language's passages apart, with its own stemming and stop words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    pub text: String,
}

/// Why search files could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// A file is missing (the head or a part it lists).
    Missing(String),
    /// A file is not the JSON of its shape, or of another version.
    Invalid(String, String),
    /// A part outside [`PARTS_DIR`] or climbing out of it.
    BadPart(String),
    /// The parts do not hold the number of documents the head says.
    Count { said: usize, found: usize },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Missing(path) => write!(f, "{path} is missing"),
            ReadError::Invalid(path, why) => write!(f, "{path} is not a search file: {why}"),
            ReadError::BadPart(part) => {
                write!(f, "the part {part:?} is not a file under {PARTS_DIR}")
            }
            ReadError::Count { said, found } => write!(
                f,
                "the index says {said} documents and its parts hold {found}"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// The key of a listed part in the output folder (`search/index-1.json`),
/// when it is a plain file name under [`PARTS_DIR`].
pub fn part_key(part: &str) -> Result<&str, ReadError> {
    let plain = part.strip_prefix(PARTS_DIR).is_some_and(|name| {
        !name.is_empty()
            && !name.starts_with('.')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    });
    if plain {
        Ok(&part[1..])
    } else {
        Err(ReadError::BadPart(part.to_owned()))
    }
}

fn parse<T: serde::de::DeserializeOwned>(
    read: &impl Fn(&str) -> Option<Vec<u8>>,
    key: &str,
) -> Result<T, ReadError> {
    let bytes = read(key).ok_or_else(|| ReadError::Missing(key.to_owned()))?;
    serde_json::from_slice(&bytes).map_err(|e| ReadError::Invalid(key.to_owned(), e.to_string()))
}

fn check_version(key: &str, version: u32, expected: u32) -> Result<(), ReadError> {
    if version == expected {
        Ok(())
    } else {
        Err(ReadError::Invalid(
            key.to_owned(),
            format!("version {version}, not {expected}"),
        ))
    }
}

/// The whole search index, from `read` (a file's bytes by its key in the
/// output folder, such as `search-index.json`).
pub fn read_index(read: impl Fn(&str) -> Option<Vec<u8>>) -> Result<SearchIndex, ReadError> {
    let key = crate::manifest::SEARCH_INDEX;
    let head: IndexHead = parse(&read, key)?;
    check_version(key, head.version, VERSION)?;
    // Not sized by the head's count: a wrong count is found below, not
    // allocated.
    let mut documents = Vec::new();
    for part in &head.parts {
        let part: IndexPart = parse(&read, part_key(part)?)?;
        documents.extend(part.documents);
    }
    if documents.len() != head.documents {
        return Err(ReadError::Count {
            said: head.documents,
            found: documents.len(),
        });
    }
    Ok(SearchIndex {
        version: VERSION,
        documents,
    })
}

/// The whole passage file, from `read` as for [`read_index`].
pub fn read_passages(read: impl Fn(&str) -> Option<Vec<u8>>) -> Result<PassageIndex, ReadError> {
    let mut passages = Vec::new();
    let synonyms = read_passages_each(read, |p| passages.push(p))?;
    Ok(PassageIndex {
        version: PASSAGES_VERSION,
        synonyms,
        passages,
    })
}

/// [`read_passages`] one part at a time: hands every passage to `each`,
/// in order, so that nothing holds them all at once; returns the synonym
/// groups. On an error, `each` may have had the passages of the parts
/// before.
pub fn read_passages_each(
    read: impl Fn(&str) -> Option<Vec<u8>>,
    mut each: impl FnMut(Passage),
) -> Result<Vec<Vec<String>>, ReadError> {
    read_passages_located(read, |p, _| each(p))
}

/// The site's default language as the passage file names it: that of
/// every passage without a `language` of its own.
pub fn passages_language(read: impl Fn(&str) -> Option<Vec<u8>>) -> Result<String, ReadError> {
    let key = crate::manifest::SEARCH_PASSAGES;
    let head: PassagesHead = parse(&read, key)?;
    check_version(key, head.version, PASSAGES_VERSION)?;
    Ok(head.language)
}

/// Where a passage's JSON object stands in the build's files: the part's
/// key and the object's bytes in it, so that a reader may read it again
/// from there instead of holding its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<'a> {
    pub part: &'a str,
    pub bytes: std::ops::Range<usize>,
}

/// [`read_passages_each`], with where each passage stands.
pub fn read_passages_located(
    read: impl Fn(&str) -> Option<Vec<u8>>,
    mut each: impl FnMut(Passage, Located<'_>),
) -> Result<Vec<Vec<String>>, ReadError> {
    let key = crate::manifest::SEARCH_PASSAGES;
    let head: PassagesHead = parse(&read, key)?;
    check_version(key, head.version, PASSAGES_VERSION)?;
    for part in &head.parts {
        let part = part_key(part)?;
        let bytes = read(part).ok_or_else(|| ReadError::Missing(part.to_owned()))?;
        let invalid = |e: serde_json::Error| ReadError::Invalid(part.to_owned(), e.to_string());
        let raw: RawPart<'_> = serde_json::from_slice(&bytes).map_err(invalid)?;
        for object in raw.passages {
            let text = object.get();
            let start = text.as_ptr() as usize - bytes.as_ptr() as usize;
            let passage: Passage = serde_json::from_str(text).map_err(invalid)?;
            each(
                passage,
                Located {
                    part,
                    bytes: start..start + text.len(),
                },
            );
        }
    }
    Ok(head.synonyms)
}

/// A part of the passages, each passage's JSON as it stands in the file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPart<'a> {
    #[serde(borrow)]
    passages: Vec<&'a serde_json::value::RawValue>,
}

/// [`read_index`] and [`read_passages`]'s `read` for an output folder.
pub fn read_from(dir: &std::path::Path) -> impl Fn(&str) -> Option<Vec<u8>> + '_ {
    move |key| std::fs::read(dir.join(key)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn files(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<Vec<u8>> {
        let map: HashMap<String, Vec<u8>> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect();
        move |k| map.get(k).cloned()
    }

    const DOC: &str = r#"{"url":"/docs/a/","title":"A","summary":"","section":"a"}"#;

    #[test]
    fn a_located_passage_reads_back_from_its_bytes() {
        let p = |url: &str| Passage {
            url: url.into(),
            anchor: "a".into(),
            title: "T".into(),
            heading: "H \"quoted\"".into(),
            section: "s".into(),
            historical: false,
            licence: None,
            attribution: None,
            reference: false,
            developers: false,
            language: None,
            text: "ünïcode \\ and \"quotes\"".into(),
        };
        let part = serde_json::to_string_pretty(&PassagesPart {
            passages: vec![p("/x/"), p("/y/")],
        })
        .unwrap();
        let head =
            r#"{"version":3,"language":"en","synonyms":[],"parts":["/search/passages-1.json"]}"#;
        let pairs = [
            (crate::manifest::SEARCH_PASSAGES, head),
            ("search/passages-1.json", part.as_str()),
        ];
        let read = files(&pairs);
        let mut seen = Vec::new();
        read_passages_located(read, |passage, at| {
            assert_eq!(at.part, "search/passages-1.json");
            let again: Passage = serde_json::from_str(&part[at.bytes]).unwrap();
            assert_eq!(again, passage);
            seen.push(passage.url);
        })
        .unwrap();
        assert_eq!(seen, ["/x/", "/y/"]);
    }

    #[test]
    fn parts_are_read_in_order_and_counted() {
        let second = DOC.replace("/docs/a/", "/docs/b/");
        let index = read_index(files(&[
            (
                "search-index.json",
                r#"{"version":3,"documents":2,"parts":["/search/index-1.json","/search/index-2.json"]}"#,
            ),
            ("search/index-1.json", &format!(r#"{{"documents":[{DOC}]}}"#)),
            ("search/index-2.json", &format!(r#"{{"documents":[{second}]}}"#)),
        ]))
        .unwrap();
        let urls: Vec<&str> = index.documents.iter().map(|d| d.url.as_str()).collect();
        assert_eq!(urls, ["/docs/a/", "/docs/b/"]);

        let short = read_index(files(&[
            (
                "search-index.json",
                r#"{"version":3,"documents":3,"parts":["/search/index-1.json"]}"#,
            ),
            (
                "search/index-1.json",
                &format!(r#"{{"documents":[{DOC}]}}"#),
            ),
        ]));
        assert_eq!(short, Err(ReadError::Count { said: 3, found: 1 }));
        let missing = read_index(files(&[(
            "search-index.json",
            r#"{"version":3,"documents":1,"parts":["/search/index-9.json"]}"#,
        )]));
        assert_eq!(
            missing,
            Err(ReadError::Missing("search/index-9.json".into()))
        );
        let old = read_index(files(&[(
            "search-index.json",
            r#"{"version":1,"documents":[]}"#,
        )]));
        assert!(matches!(old, Err(ReadError::Invalid(..))), "{old:?}");
        // Version 2 carried each page's text: read as version 3, refused.
        let with_text = read_index(files(&[
            (
                "search-index.json",
                r#"{"version":2,"documents":1,"parts":["/search/index-1.json"]}"#,
            ),
            (
                "search/index-1.json",
                &format!(r#"{{"documents":[{DOC}]}}"#),
            ),
        ]));
        assert!(
            matches!(with_text, Err(ReadError::Invalid(..))),
            "{with_text:?}"
        );
    }

    #[test]
    fn parts_stay_in_their_folder() {
        assert_eq!(part_key("/search/index-1.json"), Ok("search/index-1.json"));
        for bad in [
            "/search/../manifest.json",
            "/search/",
            "/search/.hidden",
            "search/index-1.json",
            "/other/index-1.json",
            "/search/a/b.json",
            "https://example.org/search/x.json",
        ] {
            assert!(part_key(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passages_keep_the_heads_synonyms() {
        let passages = read_passages(files(&[
            (
                "search-passages.json",
                r#"{"version":3,"language":"en","synonyms":[["a","b"]],"parts":["/search/passages-1.json"]}"#,
            ),
            (
                "search/passages-1.json",
                r#"{"passages":[{"url":"/docs/a/","title":"A","section":"a","text":"t"}]}"#,
            ),
        ]))
        .unwrap();
        assert_eq!(passages.synonyms, [["a", "b"]]);
        assert_eq!(passages.passages.len(), 1);
        assert_eq!(passages.passages[0].anchor, "");
    }
}
