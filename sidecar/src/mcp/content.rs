//! What the MCP tools and resources read, loaded once at start from the
//! files the generator wrote: `api/service.json`, `openapi.json`, the
//! Markdown twin of every documentation page listed in the manifest, and
//! `search-index.json`, the same index the site's in-browser search reads.
//! The tools read exactly the bytes the static routes serve, so agents and
//! people see one source of truth.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// One documentation page, as its Markdown twin.
#[derive(Debug, Clone)]
pub struct Document {
    /// The page's URL path, such as `/docs/archive/`.
    pub path: String,
    pub title: String,
    /// The summary line under the title, when the twin has one.
    pub description: Option<String>,
    pub licence: Option<String>,
    pub attribution: Option<String>,
    pub markdown: String,
}

/// One page of the search index (`search-index.json`, written by
/// `generate`), with its terms counted once at load.
#[derive(Debug, Clone)]
pub struct SearchEntry {
    /// The page's URL path, such as `/docs/archive/`.
    pub path: String,
    pub title: String,
    pub summary: String,
    /// The page's plain text.
    pub text: String,
    title_terms: BTreeMap<String, u32>,
    body_terms: BTreeMap<String, u32>,
}

impl SearchEntry {
    pub fn new(path: String, title: String, summary: String, text: String) -> SearchEntry {
        SearchEntry {
            title_terms: count(&title),
            body_terms: count(&format!("{summary} {text}")),
            path,
            title,
            summary,
            text,
        }
    }
}

/// File name of the search index in `dist/`.
pub use contract::manifest::SEARCH_INDEX;
use contract::search::SearchIndex as SearchIndexFile;

/// Everything loaded from `dist/`.
#[derive(Debug, Default)]
pub struct Content {
    /// The service's public base URL (no trailing slash).
    pub base_url: String,
    /// `api/service.json`, parsed; `Null` when the build has none.
    pub service: Value,
    /// `openapi.json` as published.
    pub openapi: Option<String>,
    /// `api/service.json` as published.
    pub service_json: Option<String>,
    /// `.well-known/mcp/server-card.json`, parsed; `Null` when absent. Its
    /// name, version and title are the server's in `initialize`.
    pub server_card: Value,
    /// In manifest order (by file key).
    pub documents: Vec<Document>,
    /// What `search_documentation` ranks: the entries of
    /// `search-index.json`, or, for a build without one, the twins.
    pub index: Vec<SearchEntry>,
}

#[derive(Deserialize)]
struct Manifest {
    files: BTreeMap<String, Value>,
}

/// One search hit.
#[derive(Debug, Clone)]
pub struct Hit<'a> {
    pub entry: &'a SearchEntry,
    pub score: u32,
    pub snippet: String,
}

impl Content {
    /// Loads from a built `dist/`. `fallback_base` stands in for the public
    /// URL when `service.json` names none. Missing files leave their part
    /// empty: the tools then say so rather than the server failing to start.
    pub fn load(dist: &Path, fallback_base: &str) -> Content {
        let read = |key: &str| std::fs::read_to_string(dist.join(key)).ok();
        let service_json = read("api/service.json");
        let service: Value = service_json
            .as_deref()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or(Value::Null);
        let base_url = service["url"]
            .as_str()
            .unwrap_or(fallback_base)
            .trim_end_matches('/')
            .to_owned();
        let keys: Vec<String> = read("manifest.json")
            .and_then(|s| serde_json::from_str::<Manifest>(&s).ok())
            .map(|m| m.files.into_keys().collect())
            .unwrap_or_default();
        let documents: Vec<Document> = keys
            .iter()
            .filter(|k| k.starts_with("docs/") && k.ends_with("/index.md") && !k.contains(".."))
            .filter_map(|k| {
                let text = read(k)?;
                let path = format!("/{}", k.strip_suffix("index.md").unwrap_or(k));
                Some(Document::parse(path, text))
            })
            .collect();
        let index = if keys.iter().any(|k| k == SEARCH_INDEX) {
            read(SEARCH_INDEX)
                .and_then(|s| serde_json::from_str::<SearchIndexFile>(&s).ok())
                .filter(|f| f.version == contract::search::VERSION)
                .map(|f| {
                    f.documents
                        .into_iter()
                        .map(|d| SearchEntry::new(d.url, d.title, d.summary, d.text))
                        .collect()
                })
        } else {
            None
        };
        let index = index.unwrap_or_else(|| {
            if keys.iter().any(|k| k == SEARCH_INDEX) {
                tracing::warn!("{SEARCH_INDEX} is unreadable; searching the Markdown twins");
            }
            documents.iter().map(SearchEntry::from_document).collect()
        });
        let server_card = read(".well-known/mcp/server-card.json")
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(Value::Null);
        Content {
            base_url,
            service,
            openapi: read("openapi.json"),
            service_json,
            server_card,
            documents,
            index,
        }
    }

    /// The document at a page path, a twin path or a URL of either.
    pub fn document(&self, reference: &str) -> Option<&Document> {
        let path = self.page_path(reference)?;
        self.documents.iter().find(|d| d.path == path)
    }

    /// Normalises a reference to a page path such as `/docs/x/`.
    fn page_path(&self, reference: &str) -> Option<String> {
        let reference = reference.trim();
        let path = if let Some(rest) = reference.strip_prefix(&self.base_url) {
            rest
        } else if let Some((_, rest)) = reference.split_once("://") {
            &rest[rest.find('/')?..]
        } else {
            reference
        };
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let path = path.strip_suffix("index.md").unwrap_or(path);
        let path = path.strip_suffix("index.html").unwrap_or(path);
        let mut path = if path.starts_with('/') {
            path.to_owned()
        } else {
            format!("/{path}")
        };
        if !path.ends_with('/') {
            path.push('/');
        }
        Some(path)
    }

    /// The URI of a document's Markdown twin.
    pub fn document_uri(&self, document: &Document) -> String {
        self.page_uri(&document.path)
    }

    /// The URL of a document's HTML page.
    pub fn document_url(&self, document: &Document) -> String {
        self.page_url(&document.path)
    }

    /// The URI of the Markdown twin of the page at `path`.
    pub fn page_uri(&self, path: &str) -> String {
        format!("{}{path}index.md", self.base_url)
    }

    /// The URL of the page at `path`.
    pub fn page_url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// Ranks the search index for `query`: the occurrences of each query
    /// term, a term in the title counting five times. Ties go to the
    /// shorter path.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit<'_>> {
        let terms: Vec<String> = tokens(query).collect();
        let mut hits: Vec<Hit<'_>> = self
            .index
            .iter()
            .filter_map(|entry| {
                let score: u32 = terms
                    .iter()
                    .map(|t| {
                        5 * entry.title_terms.get(t).copied().unwrap_or(0)
                            + entry.body_terms.get(t).copied().unwrap_or(0)
                    })
                    .sum();
                (score > 0).then(|| Hit {
                    entry,
                    score,
                    snippet: entry_snippet(entry, &terms),
                })
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .cmp(&a.score)
                .then(a.entry.path.len().cmp(&b.entry.path.len()))
                .then(a.entry.path.cmp(&b.entry.path))
        });
        hits.truncate(limit);
        hits
    }
}

impl Document {
    /// Reads the head the generator writes: `# Title`, then a quoted block
    /// with the summary and `Licence:` / `Attribution:` lines.
    pub fn parse(path: String, markdown: String) -> Document {
        let mut title = None;
        let mut description = None;
        let mut licence = None;
        let mut attribution = None;
        let mut in_head = false;
        for line in markdown.lines() {
            if title.is_none() {
                if let Some(t) = line.strip_prefix("# ") {
                    title = Some(t.trim().to_owned());
                    in_head = true;
                }
                continue;
            }
            let Some(quoted) = line.strip_prefix('>') else {
                if in_head && !line.trim().is_empty() {
                    break;
                }
                continue;
            };
            let quoted = quoted.trim();
            if let Some(v) = quoted.strip_prefix("Licence:") {
                licence = Some(v.trim().to_owned());
            } else if let Some(v) = quoted.strip_prefix("Attribution:") {
                attribution = Some(v.trim().to_owned());
            } else if description.is_none()
                && !quoted.is_empty()
                && !["Source:", "Updated:"]
                    .iter()
                    .any(|k| quoted.starts_with(k))
            {
                description = Some(quoted.to_owned());
            }
        }
        let title = title.unwrap_or_else(|| path.clone());
        Document {
            path,
            title,
            description,
            licence,
            attribution,
            markdown,
        }
    }
}

impl SearchEntry {
    /// An entry from a Markdown twin, for a build without a search index:
    /// the body after the head stands in for the plain text.
    fn from_document(d: &Document) -> SearchEntry {
        let body = &d.markdown[body_start(&d.markdown)..];
        SearchEntry::new(
            d.path.clone(),
            d.title.clone(),
            d.description.clone().unwrap_or_default(),
            body.to_owned(),
        )
    }
}

/// About 240 characters of the entry's text around the first matching
/// term; the summary when only it (or the title) matches.
fn entry_snippet(entry: &SearchEntry, terms: &[String]) -> String {
    let lower = entry.text.to_lowercase();
    if terms.iter().any(|t| lower.contains(t.as_str())) || entry.summary.is_empty() {
        snippet_in(&entry.text, terms)
    } else {
        snippet_in(&entry.summary, terms)
    }
}

/// Lower-case words of two or more letters or digits.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
}

fn count(text: &str) -> BTreeMap<String, u32> {
    let mut counts = BTreeMap::new();
    for token in tokens(text) {
        *counts.entry(token).or_insert(0) += 1;
    }
    counts
}

/// Byte offset after the leading title and quoted lines.
fn body_start(text: &str) -> usize {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if !(t.is_empty() || t.starts_with("# ") || t.starts_with('>')) {
            break;
        }
        offset += line.len();
    }
    offset
}

fn snippet_in(text: &str, terms: &[String]) -> String {
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths; only use the offset when it
    // lands on a boundary of the original.
    let at = terms
        .iter()
        .filter_map(|t| lower.find(t.as_str()))
        .min()
        .filter(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let start = text[..at]
        .char_indices()
        .rev()
        .nth(80)
        .map_or(0, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .nth(160)
        .map_or(text.len(), |(i, _)| at + i);
    let mut out: String = text[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if start > 0 {
        out.insert(0, '…');
    }
    if end < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWIN: &str = "# Water Watch archive\n\n> The preserved archive.\n>\n> Source: http://x/docs/archive/\n> Licence: CC-BY-4.0\n> Attribution: The volunteers\n\nNitrate readings by volunteers. Nitrate again.\n";

    fn content() -> Content {
        let documents = vec![
            Document::parse("/docs/archive/".into(), TWIN.into()),
            Document::parse("/docs/".into(), "# Docs\n\nAll about nitrate.\n".into()),
        ];
        Content {
            base_url: "https://example.org".into(),
            index: documents.iter().map(SearchEntry::from_document).collect(),
            documents,
            ..Content::default()
        }
    }

    #[test]
    fn head_is_read() {
        let d = Document::parse("/docs/archive/".into(), TWIN.into());
        assert_eq!(d.title, "Water Watch archive");
        assert_eq!(d.description.as_deref(), Some("The preserved archive."));
        assert_eq!(d.licence.as_deref(), Some("CC-BY-4.0"));
        assert_eq!(d.attribution.as_deref(), Some("The volunteers"));
    }

    #[test]
    fn references_resolve() {
        let c = content();
        for r in [
            "/docs/archive/",
            "/docs/archive",
            "docs/archive/index.md",
            "https://example.org/docs/archive/index.md",
            "http://127.0.0.1:8080/docs/archive/",
        ] {
            assert_eq!(c.document(r).unwrap().path, "/docs/archive/", "{r}");
        }
        assert!(c.document("/docs/nothing/").is_none());
    }

    #[test]
    fn search_ranks_and_snips() {
        let c = content();
        let hits = c.search("NITRATE", 10);
        assert_eq!(hits[0].entry.path, "/docs/archive/");
        assert!(hits[0].snippet.contains("Nitrate"));
        assert!(c.search("archive", 10)[0].score > 5);
        assert!(c.search("zzz", 10).is_empty());
        assert_eq!(c.search("nitrate", 1).len(), 1);
    }
}
