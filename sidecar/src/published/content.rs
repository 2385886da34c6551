//! What MCP, the chat and search read of a release, taken from its loaded
//! files (never read from disk again): `api/service.json`, `openapi.json`,
//! the Markdown twin of every page (the home page, the documentation and
//! the list of problem codes), and the search passages. The tools read
//! exactly the bytes the static routes serve, so agents and people see one
//! source of truth.

use std::sync::Arc;

use serde_json::Value;

use super::entry::Entry;

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
    markdown: Markdown,
}

/// Where a document's Markdown is: its twin among the release's files (read
/// when asked for, so a large site's text is not held twice), or its own.
#[derive(Debug, Clone)]
enum Markdown {
    Text(String),
    File(Arc<Entry>),
}

/// One ranked page, as `search_documentation` returns it.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The page's URL path, such as `/docs/archive/`.
    pub path: String,
    pub title: String,
    /// An exact excerpt of the best passage.
    pub snippet: String,
    /// The BM25 score of the best passage, in hundredths.
    pub score: u32,
}

use contract::manifest::{MCP_SERVER_CARD, SEARCH_PASSAGES, SITEMAP};
use contract::search::{Passage, PassageIndex};
use contract::service::ServiceInformation;

use super::alternates::{Alternates, sitemap_alternates};
use crate::search::text::Lang;
use crate::search::{self, Index};

/// What the features read of one release, beside its files.
#[derive(Debug, Default)]
pub struct Content {
    /// The origin the site was built for (no trailing slash): where its
    /// pages and Markdown twins are served, and the base of every URL and
    /// resource URI the MCP server names.
    pub base_url: String,
    /// `api/service.json`, read into the contract's types; `None` when the
    /// build has none (or an unreadable one, logged).
    pub service: Option<ServiceInformation>,
    /// `openapi.json` as published.
    pub openapi: Option<String>,
    /// `api/service.json` as published.
    pub service_json: Option<String>,
    /// `.well-known/mcp/server-card.json`, parsed; `Null` when absent. Its
    /// name, version and title are the server's in `initialize`.
    pub server_card: Value,
    /// In manifest order (by file key).
    pub documents: Vec<Document>,
    /// What `search_documentation` and the chat rank: the passages of
    /// `search-passages.json`, or, for a build without them, one passage
    /// per Markdown twin; those of the site's default language.
    pub passages: Index,
    /// The site's default language (BCP 47), as the passages name it.
    pub language: String,
    /// Each other language's passages, ranked apart with its own stemming
    /// and stop words, by language code.
    pub translated: Vec<(String, Index)>,
    /// Each page's versions in the other languages, from the sitemap's
    /// alternates ([`super::languages`]).
    pub alternates: Alternates,
}

impl Content {
    /// Reads a release's content through `read` (a manifest key to the
    /// file's text), over the manifest `keys`. `fallback_base` (the
    /// configured site origin) stands in for the site's origin when the
    /// build records none. Missing files leave their part empty: the tools
    /// then say so rather than the server failing to start.
    /// `twin` gives the release's file under a key, for the documents'
    /// Markdown (`None`: each document keeps the text `read` gave).
    /// `site_origin` is the manifest's; a build that records none is read
    /// for it (its sitemap, its server card).
    pub fn new(
        keys: &[String],
        read: impl Fn(&str) -> Option<String>,
        twin: impl Fn(&str) -> Option<Arc<Entry>>,
        site_origin: Option<&str>,
        fallback_base: &str,
    ) -> Content {
        let service_json = read("api/service.json");
        let service = service_json
            .as_deref()
            .and_then(|s| match serde_json::from_str(s) {
                Ok(service) => Some(service),
                Err(error) => {
                    tracing::warn!(%error, "api/service.json does not read as service information");
                    None
                }
            });
        let server_card = read(MCP_SERVER_CARD)
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(Value::Null);
        // Not `service.json`'s `url`: that is the organisation's address,
        // which need not be where this build of the site is served.
        let base_url = site_origin
            .and_then(origin_of)
            .or_else(|| read(SITEMAP).as_deref().and_then(sitemap_origin))
            .or_else(|| server_card["websiteUrl"].as_str().and_then(origin_of))
            .unwrap_or_else(|| fallback_base.trim_end_matches('/').to_owned());
        let documents: Vec<Document> = keys
            .iter()
            .filter(|k| (*k == "index.md" || k.ends_with("/index.md")) && !k.contains(".."))
            .filter_map(|k| {
                let text = read(k)?;
                let path = format!("/{}", k.strip_suffix("index.md").unwrap_or(k));
                let mut document = Document::parse(path, text);
                if let Some(file) = twin(k) {
                    document.markdown = Markdown::File(file);
                }
                Some(document)
            })
            .collect();
        let (language, passages, translated) = load_passages(keys, &read, &twin, &documents);
        let alternates = read(SITEMAP)
            .map(|s| sitemap_alternates(&s))
            .unwrap_or_default();
        Content {
            base_url,
            service,
            openapi: read("openapi.json"),
            service_json,
            server_card,
            documents,
            passages,
            language,
            translated,
            alternates,
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

    /// The contact form's URL as the service information names it: a
    /// path on the site, or an absolute URL.
    pub fn form_path(&self) -> &str {
        self.service
            .as_ref()
            .map_or("/contact/", |s| s.guardrails.enquiries.form_url.as_str())
    }

    /// The contact form's absolute URL, under `base` when it is a path.
    pub fn form_url_under(&self, base: &str) -> String {
        let form_path = self.form_path();
        if form_path.contains("://") {
            form_path.to_owned()
        } else {
            format!("{base}{form_path}")
        }
    }

    /// The contact form's absolute URL on the public site.
    pub fn form_url(&self) -> String {
        self.form_url_under(&self.base_url)
    }

    /// The best pages for `query`, ranked by their best passage.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.search_in(&self.passages, query, limit)
    }

    /// [`Content::search`] in the passages of one language ([`Content::index`]).
    pub fn search_in(&self, index: &Index, query: &str, limit: usize) -> Vec<Hit> {
        let lang = index.lang();
        index
            .rank_pages(query, limit)
            .into_iter()
            .map(|page| {
                let h = page.best();
                Hit {
                    path: h.passage.url.to_owned(),
                    title: h.passage.title.to_owned(),
                    snippet: search::excerpt(lang, &h.passage.text(), &h.matched, SNIPPET_CHARS),
                    score: (page.score * 100.0).round() as u32,
                }
            })
            .collect()
    }
}

/// The origin of the first page URL of a built `sitemap.xml`: the origin
/// the site was built for (`generate build --base-url`), which its pages,
/// twins, `llms.txt` and server card all use.
fn sitemap_origin(sitemap: &str) -> Option<String> {
    let start = sitemap.find("<loc>")? + "<loc>".len();
    let end = start + sitemap[start..].find("</loc>")?;
    origin_of(sitemap[start..end].trim())
}

/// The origin of an absolute `http(s)` URL, serialised as `--site-origin`
/// is (lower case, no default port); `None` for anything else.
fn origin_of(url: &str) -> Option<String> {
    contract::origin::Origin::of_url(url).map(|o| o.to_string())
}

/// About how long a snippet is, in characters.
const SNIPPET_CHARS: usize = 240;

/// The passages of the build: `search-passages.json` and its parts; else
/// one per Markdown twin. Only files the manifest lists are read. Returns
/// the default language, its passages, and each other language's.
fn load_passages(
    keys: &[String],
    read: &impl Fn(&str) -> Option<String>,
    entry: &impl Fn(&str) -> Option<Arc<Entry>>,
    documents: &[Document],
) -> (String, Index, Vec<(String, Index)>) {
    let listed = |key: &str| keys.iter().any(|k| k == key);
    let read_listed = |key: &str| {
        listed(key)
            .then(|| read(key))
            .flatten()
            .map(String::into_bytes)
    };
    // The passages' text stays in the parts, read again when quoted. Each
    // language gets a builder of its own, with its own parts' numbers.
    let default = contract::search::passages_language(read_listed)
        .unwrap_or_else(|_| DEFAULT_LANGUAGE.to_owned());
    let mut builders: Vec<InLanguage> =
        vec![(None, search::Builder::new(Lang::of(&default)), Vec::new())];
    let located = contract::search::read_passages_located(read_listed, |p, at| {
        let language = p.language.clone().filter(|l| *l != default);
        let at_builder = match builders.iter().position(|(l, _, _)| *l == language) {
            Some(i) => i,
            None => {
                let lang = Lang::of(language.as_deref().unwrap_or_default());
                builders.push((language, search::Builder::new(lang), Vec::new()));
                builders.len() - 1
            }
        };
        let (_, builder, parts) = &mut builders[at_builder];
        if parts.last().is_none_or(|(key, _)| key != at.part) {
            let source = entry(at.part).map(|e| builder.add_part(e));
            parts.push((at.part.to_owned(), source));
        }
        match parts.last().and_then(|(_, part)| *part) {
            Some(part) => builder.push_located(p, part, at.bytes),
            None => builder.push(p),
        }
    });
    match located {
        Ok(synonyms) => {
            let mut builders = builders.into_iter();
            let (_, first, _) = builders.next().expect("the default language's builder");
            // The synonym groups of `content/` are in the default language.
            let passages = first.finish(&synonyms);
            let translated = builders
                .filter_map(|(language, builder, _)| Some((language?, builder.finish(&[]))))
                .collect();
            return (default, passages, translated);
        }
        Err(e) if listed(SEARCH_PASSAGES) => {
            tracing::warn!("{e}; ranking whole pages");
        }
        Err(_) => {}
    }
    let page = |url: String, title: String, text: String| Passage {
        url,
        anchor: String::new(),
        title,
        heading: String::new(),
        section: String::new(),
        historical: false,
        licence: None,
        attribution: None,
        reference: false,
        developers: false,
        language: None,
        text,
    };
    let passages = documents
        .iter()
        .map(|d| {
            let markdown = d.markdown();
            let body = &markdown[contract::twin::body_start(&markdown)..];
            page(d.path.clone(), d.title.clone(), body.to_owned())
        })
        .collect();
    let index = Index::new(PassageIndex {
        version: contract::search::PASSAGES_VERSION,
        synonyms: Vec::new(),
        passages,
    });
    (DEFAULT_LANGUAGE.to_owned(), index, Vec::new())
}

/// An index being built for one language (`None`: the default): its
/// builder and the parts it has numbered.
type InLanguage = (Option<String>, search::Builder, Vec<(String, Option<u32>)>);

/// The language of a build whose passages do not name theirs.
const DEFAULT_LANGUAGE: &str = "en";

impl Document {
    /// Reads the head the generator writes: `# Title`, then a quoted block
    /// with the summary and `Licence:` / `Attribution:` lines.
    pub fn parse(path: String, markdown: String) -> Document {
        let head = contract::twin::read_head(&markdown);
        Document {
            title: head.title.unwrap_or_else(|| path.clone()),
            path,
            description: head.summary,
            licence: head.licence,
            attribution: head.attribution,
            markdown: Markdown::Text(markdown),
        }
    }

    /// The document's Markdown, as published.
    pub fn markdown(&self) -> String {
        match &self.markdown {
            Markdown::Text(text) => text.clone(),
            Markdown::File(file) => match file.identity.bytes() {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    tracing::error!(file = file.key, error = %e, "a Markdown twin could not be read");
                    String::new()
                }
            },
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Service information for tests: two projects' worth of topics and a
    /// data licence grant.
    pub(crate) fn service() -> ServiceInformation {
        let link = "https://example.org/";
        serde_json::from_value(serde_json::json!({
            "name": "Example", "description": "An example.", "url": link, "updated": "2026-11-26",
            "services": [
                {"id": "s1", "title": "S1", "summary": "", "status": "operational", "access": "open", "audience": [], "url": link},
                {"id": "s2", "title": "S2", "summary": "", "status": "beta", "access": "open", "audience": [], "url": link}
            ],
            "projects": [{"id": "p1", "title": "P1", "summary": "", "status": "active", "started": "2020-01-01", "url": link, "themes": []}],
            "evidence": [],
            "scope": {"summary": "", "themes": [], "regions": [], "in_scope": [], "out_of_scope": []},
            "consortium": {"summary": "", "members": []},
            "contact": {"email": "info@example.org", "form_url": "/contact/", "languages": ["en"], "response_time": "a week"},
            "guardrails": {
                "summary": "Read-only.", "read_only_calls_have_no_side_effects": true,
                "agents_may": [], "agents_must_not": ["Submit enquiries."],
                "enquiries": {"agents_may_prepare": true, "agents_may_submit": false, "requires_explicit_user_approval": true, "form_url": "/contact/"},
                "licences": [
                    {"applies_to": "Docs", "covers": ["documentation"], "licence": "CC-BY-4.0", "title": "CC BY", "url": "https://a.example/by"},
                    {"applies_to": "Data", "covers": ["observation_data"], "licence": "ODbL-1.0", "title": "Open Database License",
                     "url": "https://b.example/odbl", "attribution": "Volunteers of Example"}
                ]
            }
        }))
        .expect("a complete service information")
    }

    const TWIN: &str = "# Water Watch archive\n\n> The preserved archive.\n>\n> Source: http://x/docs/archive/\n> Licence: CC-BY-4.0\n> Attribution: The volunteers\n\nNitrate readings by volunteers. Nitrate again.\n";

    fn content() -> Content {
        let documents = vec![
            Document::parse("/docs/archive/".into(), TWIN.into()),
            Document::parse("/docs/".into(), "# Docs\n\nAll about nitrate.\n".into()),
        ];
        Content {
            base_url: "https://example.org".into(),
            passages: load_passages(&[], &|_| None, &|_| None, &documents).1,
            documents,
            ..Content::default()
        }
    }

    #[test]
    fn origins_are_read_from_the_build() {
        let sitemap = "<?xml version=\"1.0\"?>\n<urlset>\n  <url>\n    \
            <loc>http://127.0.0.1:8080/</loc>\n  </url>\n</urlset>\n";
        assert_eq!(
            sitemap_origin(sitemap).as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(sitemap_origin("<urlset/>"), None);
        for (url, origin) in [
            ("https://Site.example/docs/", Some("https://site.example")),
            ("http://[::1]:9/x?y", Some("http://[::1]:9")),
            ("https://site.example", Some("https://site.example")),
            ("ftp://site.example/", None),
            ("https://user@site.example/", None),
            ("https:///docs/", None),
            ("/docs/", None),
        ] {
            assert_eq!(origin_of(url).as_deref(), origin, "{url}");
        }
    }

    #[test]
    fn the_built_origin_wins_over_service_url_and_fallback() {
        let dir = tempfile::tempdir().unwrap();
        let write = |key: &str, text: &str| {
            let path = dir.path().join(key);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let load = || {
            let read = |key: &str| std::fs::read_to_string(dir.path().join(key)).ok();
            Content::new(&[], read, |_| None, None, "http://127.0.0.1:8080/")
        };
        write("api/service.json", r#"{"url": "https://org.example/"}"#);
        assert_eq!(load().base_url, "http://127.0.0.1:8080");
        write(
            MCP_SERVER_CARD,
            r#"{"websiteUrl": "https://card.example/docs/"}"#,
        );
        assert_eq!(load().base_url, "https://card.example");
        write(
            SITEMAP,
            "<urlset><url><loc>https://built.example:8443/</loc></url></urlset>",
        );
        let c = load();
        assert_eq!(c.base_url, "https://built.example:8443");
        // The manifest's record wins over anything read from the files.
        let read = |key: &str| std::fs::read_to_string(dir.path().join(key)).ok();
        let recorded = Content::new(&[], read, |_| None, Some("https://site.example"), "x");
        assert_eq!(recorded.base_url, "https://site.example");
        assert_eq!(
            c.page_uri("/docs/archive/"),
            "https://built.example:8443/docs/archive/index.md"
        );
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
        let hits = c.search("NITRATE readings", 10);
        assert_eq!(hits[0].path, "/docs/archive/");
        assert_eq!(hits.len(), 2);
        assert!(hits[0].snippet.contains("Nitrate"));
        assert!(c.search("archive", 10)[0].score > 5);
        assert!(c.search("zzz", 10).is_empty());
        assert_eq!(c.search("nitrate", 1).len(), 1);
    }
}
