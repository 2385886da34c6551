//! One release of the published site, loaded once: its files with their
//! prepared headers and twins ([`files`]), what the features read of it
//! ([`content`]: documents, service information, search passages), and its
//! release id. Every answer is made from one [`Published`] value, held in
//! [`Current`] so that a new release replaces it atomically while requests
//! are in flight ([`reload`]).

pub mod alternates;
pub mod content;
pub mod entry;
pub mod files;
mod kind;
pub mod languages;
pub mod reload;

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, ensure};
use arc_swap::{ArcSwap, Guard};
use http::HeaderValue;
use sha2::{Digest, Sha256};

use contract::manifest::{FORMAT, MANIFEST_FILE, Manifest};

pub use content::Content;
pub use files::Files;

/// Bytes of files held in memory by default (`--files-memory-mb`).
pub const DEFAULT_FILE_MEMORY: u64 = crate::config::FILES_MEMORY_MB << 20;

/// One release of `dist/`.
#[derive(Debug)]
pub struct Published {
    /// The release id: the manifest's digest (see
    /// [`contract::manifest::release_id`]).
    pub release: String,
    /// The same, as the `X-Release` header value.
    pub release_header: HeaderValue,
    pub files: Files,
    pub content: Content,
    /// The origin the sidecar's routes are published at: the build's API
    /// origin, else the site's (for links in the answers, such as OGC API
    /// – Features').
    pub api_origin: String,
}

impl Published {
    /// [`Published::load_within`] the default memory budget for files.
    pub fn load(dist: &Path, fallback_base: &str) -> anyhow::Result<Published> {
        Published::load_within(dist, fallback_base, DEFAULT_FILE_MEMORY)
    }

    /// Loads and checks the `dist/` at `dist`: the manifest, every file it
    /// lists (sizes, ETags, paths inside `dist/`), and the content read
    /// from those files. `fallback_base` (the configured site origin)
    /// stands in for the site's origin when the build records none. Files
    /// are held in memory within `file_memory` bytes (see [`Files::load`]).
    pub fn load_within(
        dist: &Path,
        fallback_base: &str,
        file_memory: u64,
    ) -> anyhow::Result<Published> {
        let loaded = Published::read(dist, fallback_base, file_memory);
        // What reading needed (the manifest parsed, the index's scratch)
        // is free now: give it back rather than hold it (decision 0259).
        heap::release_free();
        loaded
    }

    fn read(dist: &Path, fallback_base: &str, file_memory: u64) -> anyhow::Result<Published> {
        let root = dist.canonicalize().with_context(|| {
            format!("resolving {} (run `generate build` first)", dist.display())
        })?;
        let manifest_path = root.join(MANIFEST_FILE);
        let text = std::fs::read(&manifest_path).with_context(|| {
            format!(
                "reading {} (run `generate build` first)",
                manifest_path.display()
            )
        })?;
        let manifest: Manifest = serde_json::from_slice(&text)
            .with_context(|| format!("parsing {}", manifest_path.display()))?;
        ensure!(
            manifest.format == FORMAT,
            "{}: format {} is not the supported format {FORMAT}",
            manifest_path.display(),
            manifest.format
        );
        let digest = hex::encode(Sha256::digest(&text));
        let release = contract::manifest::release_id(&digest).to_owned();
        let release_header = HeaderValue::try_from(release.as_str()).context("release id")?;
        // In manifest order: documents are listed in it.
        let keys: Vec<String> = manifest.files.keys().cloned().collect();
        let site_origin = manifest.site_origin.clone();
        let api_origin = manifest.api_origin.clone();
        let files = Files::load(&root, manifest, &release_header, file_memory)?;
        let read = |key: &str| {
            files
                .bytes(key)
                .and_then(|b| String::from_utf8(b.to_vec()).ok())
        };
        let twin = |key: &str| files.entry(key).cloned();
        let content = Content::new(&keys, read, twin, site_origin.as_deref(), fallback_base);
        if content.service.is_none() {
            tracing::warn!("api/service.json is missing or invalid; MCP serves without it");
        }
        let api_origin = api_origin
            .map(|o| o.trim_end_matches('/').to_owned())
            .unwrap_or_else(|| content.base_url.clone());
        Ok(Published {
            release,
            release_header,
            files,
            content,
            api_origin,
        })
    }
}

impl Published {
    /// A release with no files and no content, whose site is at
    /// `base_url`: what a handler over nothing published answers from.
    pub fn empty(base_url: &str) -> Published {
        Published {
            release: "0".repeat(contract::manifest::RELEASE_ID_LEN),
            release_header: HeaderValue::from_static("0000000000000000"),
            files: Files::default(),
            content: Content {
                base_url: base_url.trim_end_matches('/').to_owned(),
                ..Content::default()
            },
            api_origin: base_url.trim_end_matches('/').to_owned(),
        }
    }
}

/// The release being served, replaced whole by [`Current::publish`]; a
/// request holds the one it started with until it is answered.
#[derive(Debug)]
pub struct Current {
    serving: ArcSwap<Published>,
}

impl Current {
    pub fn new(published: Published) -> Current {
        Current {
            serving: ArcSwap::from_pointee(published),
        }
    }

    /// The release being served now: a cheap guard for a request that
    /// answers without awaiting.
    pub fn get(&self) -> Guard<Arc<Published>> {
        self.serving.load()
    }

    /// The release being served now, held for as long as the caller likes
    /// (across awaits).
    pub fn full(&self) -> Arc<Published> {
        self.serving.load_full()
    }

    /// Serves `published` from now on; returns the release it replaces.
    pub fn publish(&self, published: Arc<Published>) -> Arc<Published> {
        self.serving.swap(published)
    }
}
