//! `dist/manifest.json` → the in-memory [`Files`] of one release.
//!
//! The whole site is loaded at start: every file's bytes (identity and each
//! precompressed twin) as `Bytes`, and every header value pre-rendered, so
//! answering a static request is a hash lookup and a few clones — no file
//! system, no formatting. The site is a few megabytes; this is what lets a
//! small process keep up with nginx. Files are reached only through manifest
//! keys (checked here to stay inside `dist/`), never through request paths.
//!
//! A build without `--precompress` lists no twins: then each compressible
//! file of [`LAZY_FROM`] bytes or more gets its brotli and gzip twins the
//! first time a client accepts one, made once and kept (each kept only
//! when it saves 5 %, the build's rule), with the strong ETags
//! `"<identity tag>-br"` and `"<identity tag>-gz"`: the same on every
//! replica, since the encoders are deterministic. Start-up stays a read of
//! the files, and memory holds only the twins that were asked for.
//!
//! The manifest does not list itself, and twins (`x.html.br`) are not keys,
//! so neither is ever served on its own.
//!
//! A page's URL (`/docs/x/`) with a Markdown twin beside its HTML
//! (`index.md`, see [`contract::twin`]) has both: the request's `Accept`
//! chooses (decision 0046), and both files say `Vary: Accept`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use bytes::Bytes;
use http::HeaderValue;

pub use super::entry::{Entry, LAZY_FROM, Twins, Variant};
use super::entry::{Kinds, load_entry};
use crate::http::encode::{PATH_KEEPS, percent_encode_into};

use contract::manifest::{ASSETS, Manifest, NOT_FOUND_PAGE};

/// What a URL path resolves to.
#[derive(Debug, Clone)]
pub enum Resource {
    File(Arc<Entry>),
    /// A page URL with two representations: its HTML and its Markdown twin.
    Page {
        html: Arc<Entry>,
        markdown: Arc<Entry>,
    },
    /// A directory requested without its slash: 308 to this location.
    Redirect(HeaderValue),
    /// A moved page (an alias in the manifest's `redirects`): 301 to this
    /// location.
    Moved(HeaderValue),
}

/// The files of one release, keyed by URL path (`/`, `/docs/x/`,
/// `/docs/x/index.html`).
#[derive(Debug, Default)]
pub struct Files {
    routes: HashMap<String, Resource>,
    not_found: Option<Arc<Entry>>,
    files: usize,
    bytes: u64,
    /// Assets carried over from earlier releases (see [`Files::keep_assets`]).
    kept: usize,
}

impl Files {
    /// Loads every file `manifest` lists from `root` (canonical), each
    /// answer naming `release`. The bytes of files other than pages and
    /// search files are held in memory, and theirs too while the whole
    /// stays within `budget` bytes; the rest are read at each request.
    pub fn load(
        root: &Path,
        mut manifest: Manifest,
        release: &HeaderValue,
        budget: u64,
    ) -> anyhow::Result<Files> {
        let mut site = Files::default();
        let csp = HeaderValue::try_from(
            contract::headers::content_security_policy(manifest.api_origin.as_deref()).as_ref(),
        )
        .with_context(|| format!("api_origin {:?}", manifest.api_origin))?;
        let moved = std::mem::take(&mut manifest.redirects);
        let mut entries = Vec::with_capacity(manifest.files.len());
        let mut held = 0u64;
        let mut kinds = Kinds::default();
        let negotiated: std::collections::HashSet<String> = manifest
            .files
            .keys()
            .filter(|k| contract::twin::negotiated(k, |o| manifest.files.contains_key(o)))
            .cloned()
            .collect();
        for (key, file) in manifest.files {
            let size = file.size + file.encodings.values().map(|e| e.size).sum::<u64>();
            let hold = !on_disk_first(&key) || held + size <= budget;
            if hold {
                held += size;
            }
            let negotiated = negotiated.contains(&key);
            let entry = load_entry(
                root,
                (&key, file),
                &mut kinds,
                (&csp, release),
                (hold, negotiated),
            )
            .with_context(|| format!("manifest entry {key:?}"))?;
            site.files += 1;
            site.bytes += entry.loaded_bytes();
            entries.push(Arc::new(entry));
        }
        site.index(entries);
        site.moved(moved);
        Ok(site)
    }

    /// Builds the URL map: each file under `/<key>`, each `…/index.html`
    /// also under its directory URL (with its Markdown twin, when it has
    /// one), and a redirect from the directory without slash (pages only —
    /// never in the API space).
    fn index(&mut self, entries: Vec<Arc<Entry>>) {
        let mut redirects = Vec::new();
        let twins: HashMap<String, Arc<Entry>> = entries
            .iter()
            .filter(|e| contract::twin::page_key(&e.key).is_some())
            .map(|e| (e.key.clone(), e.clone()))
            .collect();
        for entry in entries {
            let url = format!("/{}", entry.key);
            if entry.key == NOT_FOUND_PAGE {
                self.not_found = Some(entry.clone());
            }
            if let Some(dir) = url.strip_suffix("index.html").filter(|d| d.ends_with('/')) {
                let dir = dir.to_owned();
                let bare = dir.trim_end_matches('/');
                if !bare.is_empty() && !contract::routes::is_api_space(bare) {
                    redirects.push((bare.to_owned(), dir.clone()));
                }
                let twin = contract::twin::twin_key(&entry.key).and_then(|k| twins.get(&k));
                let page = match twin {
                    Some(markdown) => Resource::Page {
                        html: entry.clone(),
                        markdown: markdown.clone(),
                    },
                    None => Resource::File(entry.clone()),
                };
                self.routes.insert(dir, page);
            }
            self.routes.insert(url, Resource::File(entry));
        }
        for (from, to) in redirects {
            if let Ok(location) = HeaderValue::try_from(encode_location(&to)) {
                self.routes
                    .entry(from)
                    .or_insert(Resource::Redirect(location));
            }
        }
    }

    /// Each moved page's old path (and, for a directory, the same without
    /// its slash) answers with a 301 to the page, before any file there
    /// (the build's HTML page for hosts without redirects).
    fn moved(&mut self, redirects: std::collections::BTreeMap<String, String>) {
        for (from, to) in redirects {
            if !from.starts_with('/') || contract::routes::is_api_space(&from) {
                continue;
            }
            let Ok(location) = HeaderValue::try_from(encode_location(&to)) else {
                continue;
            };
            if let Some(bare) = from.strip_suffix('/').filter(|b| !b.is_empty()) {
                self.routes
                    .insert(bare.to_owned(), Resource::Moved(location.clone()));
            }
            self.routes.insert(from, Resource::Moved(location));
        }
    }

    /// The resource at a normalised URL path.
    pub fn lookup(&self, path: &str) -> Option<&Resource> {
        self.routes.get(path)
    }

    /// The file published under manifest key `key`.
    pub fn entry(&self, key: &str) -> Option<&Arc<Entry>> {
        match self.routes.get(&format!("/{key}"))? {
            Resource::File(entry) if entry.key == key => Some(entry),
            _ => None,
        }
    }

    /// The identity bytes of the file under manifest key `key`.
    pub fn bytes(&self, key: &str) -> Option<Bytes> {
        self.entry(key)?.identity.bytes().ok()
    }

    /// The hashed assets this release published itself (not those it
    /// keeps from earlier ones).
    pub fn own_assets(&self, release: &HeaderValue) -> Vec<Arc<Entry>> {
        self.routes
            .values()
            .filter_map(|r| match r {
                Resource::File(e) if e.key.starts_with(ASSETS) && e.kind.release == release => {
                    Some(e.clone())
                }
                _ => None,
            })
            .collect()
    }

    /// Keeps serving `older` hashed assets (of earlier releases) that this
    /// release does not have, so that pages cached from those releases
    /// still find their styles and scripts. Each kept file still names its
    /// own release.
    pub fn keep_assets<'a>(&mut self, older: impl IntoIterator<Item = &'a Arc<Entry>>) {
        for entry in older {
            let url = format!("/{}", entry.key);
            if let std::collections::hash_map::Entry::Vacant(slot) = self.routes.entry(url) {
                slot.insert(Resource::File(entry.clone()));
                self.kept += 1;
            }
        }
    }

    /// Hashed assets kept from earlier releases.
    pub fn kept_assets(&self) -> usize {
        self.kept
    }

    pub fn not_found_page(&self) -> Option<&Arc<Entry>> {
        self.not_found.as_ref()
    }

    /// Number of files loaded (twins not counted).
    pub fn file_count(&self) -> usize {
        self.files
    }

    /// Bytes held in memory at load, the build's twins included.
    pub fn byte_count(&self) -> u64 {
        self.bytes
    }
}

/// Whether a file's bytes go to disk before others' when the release is
/// larger than the memory budget: pages and their twins under `docs/`, and
/// the search files, which the browser fetches from a CDN in production.
fn on_disk_first(key: &str) -> bool {
    key.starts_with("docs/") || key.starts_with("search/")
}

/// Percent-encodes what may not appear raw in a `Location` path.
fn encode_location(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    percent_encode_into(&mut out, path, PATH_KEEPS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_encoding() {
        assert_eq!(encode_location("/docs/a b/"), "/docs/a%20b/");
        assert_eq!(encode_location("/docs/é/"), "/docs/%C3%A9/");
    }

    /// A site built with a separate API origin names it in its pages' CSP;
    /// files other than HTML carry none.
    #[test]
    fn html_carries_the_policy_of_the_manifests_api_origin() {
        let dir = tempfile::tempdir().unwrap();
        let entry = |size: usize, content_type: &str| {
            serde_json::json!({"size": size, "sha256": "00", "etag": "\"e\"",
                "content_type": content_type, "cache_control": "no-cache"})
        };
        std::fs::write(dir.path().join("index.html"), "<p>").unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        let manifest = |api: Option<&str>| {
            let mut m = serde_json::json!({"format": contract::manifest::FORMAT, "files": {
                "index.html": entry(3, "text/html; charset=utf-8"),
                "a.txt": entry(1, "text/plain")}});
            if let Some(api) = api {
                m["api_origin"] = api.into();
            }
            std::fs::write(
                dir.path().join(contract::manifest::MANIFEST_FILE),
                m.to_string(),
            )
            .unwrap();
            crate::published::Published::load(dir.path(), "http://127.0.0.1:8080")
                .unwrap()
                .files
        };
        let csp = |site: &Files, path: &str| match site.lookup(path) {
            Some(Resource::File(e)) => e.kind.csp.clone(),
            other => panic!("{path}: {other:?}"),
        };
        let split = manifest(Some("http://127.0.0.1:9"));
        let policy = csp(&split, "/").unwrap();
        assert!(
            policy
                .to_str()
                .unwrap()
                .contains("connect-src 'self' http://127.0.0.1:9;")
        );
        assert!(csp(&split, "/a.txt").is_none());
        let same = manifest(None);
        assert_eq!(
            csp(&same, "/index.html").unwrap(),
            contract::headers::CONTENT_SECURITY_POLICY
        );
    }
}
