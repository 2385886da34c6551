//! `generate build`: content + templates → every output file → the tree.

use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use minijinja::Value;
use minijinja::value::Serde;
use rayon::prelude::*;

use crate::twin_cache::TwinCache;
use serde::Serialize;
use serde_json::json;

use crate::about;
use crate::apiref;
use crate::archive::{self, Listing};
use crate::assets;
use crate::content::{self, Content, Document};
use crate::data_snapshots::{self, Snapshots};
use crate::discovery::OpenData;
use crate::images::Images;
use crate::manifest::Manifest;
use crate::markdown::{self, Heading};
use crate::messages::Messages;
use crate::model::{Date, Licence, LicenceGrant, LicenceId, Material};
use crate::openapi;
use crate::origin::{self, Origins};
use crate::output::{ChunkMemo, OutFile, Publisher, Staged, Twins, WriteStats};
use crate::render::Renderer;
use crate::search::{self, Passage, SearchDocument};
use crate::shortcodes;
use contract::ProblemCode;

mod fixed;
use fixed::{data_files, render_fixed_pages};

mod generated;

mod aliases;

mod listings;
use listings::{Paging, categories, listing_pages, page_count, paging, tag_links};

mod languages;
use languages::{Alternate, check_translatable, versions};

mod pages;
use pages::*;

mod search_files;
use search_files::browser_files;

mod unchanged;
use unchanged::Stamp;

mod session;
pub use session::{Rebuilt, Session};

/// What to build from where.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub content: PathBuf,
    pub templates: PathBuf,
    pub out: PathBuf,
    /// Overrides `site.toml`'s `base_url`.
    pub base_url: Option<String>,
    /// The sidecar's origin when it is not the site's (the separate-origin
    /// layout): pages, scripts, the CSP and every discovery document then
    /// name it for the sidecar's routes.
    pub api_origin: Option<String>,
    /// Show a progress bar on long builds (only drawn on a terminal).
    pub progress: bool,
    /// Where compressed twins are kept between builds (see
    /// [`crate::twin_cache`]); `None` compresses everything again.
    pub cache: Option<PathBuf>,
    /// Write `.br` and `.gz` twins of compressible files (for nginx, Caddy
    /// and other fronts that serve them as they are); without them the
    /// sidecar compresses each file when it is first asked for.
    pub precompress: bool,
    /// Build the documents marked `draft = true` too (`generate serve`);
    /// a published build leaves them out.
    pub drafts: bool,
    /// Folder of `sidecar export` snapshots, published under
    /// `/snapshots/` and listed on the open-data page.
    pub snapshots: Option<PathBuf>,
}

/// What a build produced, for the one-line summary.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Pages rendered; 0 when the output was unchanged (see `unchanged`).
    pub pages: usize,
    /// The inputs were those of the build in the output folder, which was
    /// still whole: nothing was rendered or written.
    pub unchanged: bool,
    pub stats: WriteStats,
    pub seconds: f64,
    /// What the build published, shared with the session that keeps it
    /// ([`Session`]); `None` when unchanged (the manifest in the output
    /// folder is the recorded build's, unread).
    pub manifest: Option<Arc<Manifest>>,
}

impl Summary {
    /// The one line printed at the end of a build.
    pub fn line(&self) -> String {
        if self.unchanged {
            return format!(
                "unchanged since the last build: {} files, {} (+{} precompressed), nothing written, in {:.2} s",
                self.stats.files,
                human_bytes(self.stats.bytes),
                human_bytes(self.stats.compressed_bytes),
                self.seconds
            );
        }
        format!(
            "built {} pages, {} files, {} (+{} precompressed), {} written, {} removed, {} twins compressed ({} from the cache), in {:.2} s",
            self.pages,
            self.stats.files,
            human_bytes(self.stats.bytes),
            human_bytes(self.stats.compressed_bytes),
            self.stats.written,
            self.stats.removed,
            self.stats.compressed,
            self.stats.cached,
            self.seconds
        )
    }
}

fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 10 * 1024 * 1024 => format!("{:.1} MiB", n as f64 / 1048576.0),
        n if n >= 10 * 1024 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// Builds the site.
pub fn build(opts: &BuildOptions) -> Result<Summary> {
    let (summary, loaded) = build_keeping(opts, None)?;
    // What a large site loaded is freed on a thread of its own, unwaited.
    std::thread::spawn(move || drop(loaded));
    Ok(summary)
}

/// Fixed or listing pages' search entries, each with the page's text.
type TextEntries = Vec<(SearchDocument, String)>;

/// The search entries of the fixed and listing pages.
type FixedEntries = Vec<FixedEntry>;

/// A fixed or listing page's search entry: its URL, its fragment of the
/// index and its words for the browser's index.
struct FixedEntry {
    url: String,
    entry: Vec<u8>,
    browser: search::BrowserEntry,
}

/// The entries of the fixed and listing pages, from each page and its
/// text.
fn fixed_entries(pages: TextEntries) -> FixedEntries {
    pages
        .into_par_iter()
        .map(|(page, text)| FixedEntry {
            entry: search::fragment(&page),
            browser: search::BrowserEntry::of(&page, &text),
            url: page.url,
        })
        .collect()
}

/// What a build loaded, what each page was rendered from and the fixed
/// pages' search entries.
struct Loaded {
    prepared: Prepared,
    memo: Vec<PageMemo>,
    fixed: FixedEntries,
}

/// Builds the site; returns, unless nothing was rendered, what it loaded
/// and what its pages were rendered from (for [`Session`]).
fn build_keeping(
    opts: &BuildOptions,
    memo: Option<&ChunkMemo>,
) -> Result<(Summary, Option<Loaded>)> {
    let started = Instant::now();
    let (stamp, recorded) = opts
        .cache
        .as_deref()
        .map_or((None, None), |c| Stamp::check(opts, c));
    if let Some(recorded) = recorded {
        let stats = WriteStats {
            files: recorded.files,
            bytes: recorded.bytes,
            compressed_bytes: recorded.compressed_bytes,
            ..WriteStats::default()
        };
        let summary = Summary {
            pages: 0,
            unchanged: true,
            stats,
            seconds: started.elapsed().as_secs_f64(),
            manifest: None,
        };
        return Ok((summary, None));
    }
    let prepared = Prepared::load(opts)?;
    let cache = opts.cache.as_deref().map(TwinCache::new);
    let publisher = Publisher::open(
        &opts.out,
        Twins {
            precompress: opts.precompress,
            cache: cache.as_ref(),
            memo,
        },
    )?;
    if let Some(stamp) = &stamp {
        stamp.forget();
    }
    let (manifest, stats, memo, fixed) = prepared.publish(&publisher, opts.progress)?;
    if let Some(stamp) = &stamp {
        stamp.record(&opts.out, &manifest);
    }
    let summary = Summary {
        pages: prepared.page_count(),
        unchanged: false,
        stats,
        seconds: started.elapsed().as_secs_f64(),
        manifest: Some(Arc::new(manifest)),
    };
    let loaded = Loaded {
        prepared,
        memo,
        fixed,
    };
    Ok((summary, Some(loaded)))
}

/// Everything a build reads and derives before it renders a page: the
/// content, the contract, the assets, the templates and the downloads.
struct Prepared {
    content: Content,
    origins: Origins,
    openapi: serde_json::Value,
    api: apiref::Reference,
    listing: Option<Listing>,
    snapshots: Snapshots,
    assets: assets::Assets,
    renderer: Renderer,
    downloads: Vec<(String, Vec<u8>)>,
}

/// What the pages of a build were rendered from and what they gave the
/// search files: one per document, in the content's order.
struct PageMemo {
    neighbours: Neighbours,
    entry: Vec<u8>,
    passages: Vec<u8>,
    browser: search::BrowserEntry,
}

impl Prepared {
    fn load(opts: &BuildOptions) -> Result<Self> {
        // The templates and their assets are read and compiled while the
        // documents are: neither needs the other.
        let (content, templates) = rayon::join(
            || content::load_content(&opts.content),
            || -> Result<_> {
                let messages = Messages::load(&opts.templates)?;
                let mut assets = assets::load(&opts.templates.join("assets"))?;
                for (name, bytes) in messages.script_assets() {
                    assets.add(&name, bytes);
                }
                let renderer = Renderer::new(&opts.templates, &assets, messages)?;
                Ok((assets, renderer))
            },
        );
        let mut content = content?;
        let (assets, renderer) = templates?;
        let languages: Vec<&str> = std::iter::once(content.site.language.as_str())
            .chain(content.site.languages.iter().map(|l| l.code.as_str()))
            .collect();
        renderer.messages.require(&languages)?;
        if !opts.drafts {
            content.documents.retain(|d| !d.front.draft);
        }
        let base_url = match &opts.base_url {
            Some(url) => origin::base_url(url)?,
            None => content.site.base_url.clone(),
        };
        let origins = Origins {
            separate_api: match &opts.api_origin {
                Some(raw) => Some(
                    origin::api_origin(raw)
                        .map_err(anyhow::Error::msg)?
                        .to_string(),
                )
                .filter(|api| *api != base_url),
                None => None,
            },
            site: base_url.clone(),
        };
        content
            .documents
            .par_iter_mut()
            .for_each(|d| substitute_origins(&mut d.body, &origins));
        let page_languages = languages::page_languages(&content);
        let openapi = openapi::document(
            &origins,
            &content.site,
            &content.service,
            &page_languages[1..],
        );
        let downloads: Vec<(String, Vec<u8>)> = content
            .files
            .iter()
            .map(|(rel, source)| {
                std::fs::read(source)
                    .with_context(|| format!("reading {}", source.display()))
                    .map(|bytes| (rel.clone(), bytes))
            })
            .collect::<Result<_>>()?;
        let listing = archive_listing(&content, &downloads)?;
        let snapshots = data_snapshots::load(opts.snapshots.as_deref())?;
        let api = apiref::reference(&openapi, &base_url);
        add_generated_documents(&mut content, &api, &base_url, &renderer.messages)?;
        Ok(Self {
            content,
            origins,
            openapi,
            api,
            listing,
            snapshots,
            assets,
            renderer,
            downloads,
        })
    }

    fn page_count(&self) -> usize {
        self.content.documents.len() + 3 + ProblemCode::ALL.len()
    }

    /// The context every page shares.
    fn site(&self) -> Site<'_> {
        let mut site = Site::new(&self.content, &self.origins, self.openapi.clone());
        site.template_extra
            .insert(apiref::TEMPLATE, ("api", Value::from(Serde(&self.api))));
        let snapshots = ("snapshots", Value::from(Serde(&self.snapshots)));
        site.template_extra
            .insert(data_snapshots::TEMPLATE, snapshots);
        site.twin_extra.insert(
            data_snapshots::TEMPLATE,
            self.snapshots.markdown(&site.base_url),
        );
        if let Some(listing) = &self.listing {
            site.template_extra
                .insert(archive::TEMPLATE, ("files", Value::from(Serde(listing))));
            site.twin_extra
                .insert(archive::TEMPLATE, listing.markdown(&site.base_url));
        }
        let archive = self.listing.as_ref().map_or(&[][..], |l| &l.files[..]);
        let snapshots = &self.snapshots.snapshots;
        site.data_value = crate::data_facts::context(snapshots.first());
        site.open_data = OpenData::new(&self.content, &self.origins, archive, snapshots);
        site
    }

    /// Renders and publishes every file; a failed build leaves the folder
    /// as [`Publisher::discard`] says.
    fn publish(
        &self,
        publisher: &Publisher<'_>,
        progress: bool,
    ) -> Result<(Manifest, WriteStats, Vec<PageMemo>, FixedEntries)> {
        let site = self.site();
        let published = (|| {
            // The fixed pages and data files render beside the documents.
            let (pages, whole) = rayon::join(
                || render_documents(&site, &self.renderer, progress, publisher),
                || self.whole_site_files(&site, true),
            );
            let (pages, (files, fixed)) = (pages?, whole?);
            let mut staged = Vec::with_capacity(pages.len() * 2 + 64);
            let mut memo = Vec::with_capacity(pages.len());
            for (r, neighbours) in pages {
                staged.extend(r.files);
                memo.push(PageMemo {
                    neighbours,
                    entry: r.entry,
                    passages: r.passages,
                    browser: r.browser,
                });
            }
            // Each part of the search files is joined as it is staged: into
            // a fresh folder, written and let go before the next.
            let stage_part = |f: search::SearchFile<'_>| {
                let (path, bytes) = f.made();
                publisher.stage(OutFile { path, bytes })
            };
            let (entries, passages) = self.search_inputs(&memo, &fixed);
            // The browser's index needs every page's words, gathered
            // before its files can be made: the other files are staged
            // meanwhile.
            let (browser, rest) = rayon::join(
                || browser_files(&self.content.documents, &memo, &fixed),
                || {
                    let parts: Vec<_> = search::index_files(entries, None)
                        .into_iter()
                        .chain(search::passages_files(
                            passages,
                            &self.content.site.language,
                            &self.content.synonyms,
                            None,
                        ))
                        .collect();
                    let files = files.into_par_iter().chain(site.images.files());
                    let files = files.map(|f| publisher.stage(f));
                    files
                        .chain(parts.into_par_iter().map(stage_part))
                        .collect::<Vec<_>>()
                },
            );
            let browser: Vec<Result<Staged>> = browser.into_par_iter().map(stage_part).collect();
            for s in rest.into_iter().chain(browser) {
                staged.push(s?);
            }
            let (manifest, stats) = publisher.finish(
                staged,
                Some(self.origins.site.clone()),
                self.origins.separate_api.clone(),
                aliases::redirects(&self.content.documents),
            )?;
            Ok((manifest, stats, memo, fixed))
        })();
        published.inspect_err(|_| publisher.discard())
    }

    /// Every file but the documents' pages and the search files (which
    /// come from the pages: [`Prepared::search_parts`] for a whole build,
    /// [`Prepared::search_since`] after an incremental one): the fixed
    /// pages, the data and discovery files, the archive's notes and, with
    /// `unchanging`, the assets and downloads (which only a change of
    /// templates or files changes).
    fn whole_site_files(
        &self,
        site: &Site<'_>,
        unchanging: bool,
    ) -> Result<(Vec<OutFile>, FixedEntries)> {
        let base_url = &site.base_url;
        let (mut files, mut fixed_index) = render_fixed_pages(site, &self.renderer)?;
        let listed = listing_pages(site, &self.renderer)?;
        files.extend(listed.files);
        files.extend(data_files(
            site,
            &self.renderer.messages,
            &listed.rows,
            &listed.entries,
        )?);
        fixed_index.extend(listed.entries);
        aliases::check_pages_free(site, &files)?;
        let moved = aliases::fallback_pages(site, &files)?;
        files.extend(moved);
        let fixed = fixed_entries(fixed_index);
        let docs = &self.content.documents;
        if let Some(listing) = &self.listing {
            let page = docs
                .iter()
                .find(|d| d.front.template.as_deref() == Some(archive::TEMPLATE))
                .map_or("/docs/", |d| d.url.as_str());
            files.push(OutFile {
                path: format!("files/{}{}", archive::FOLDER, archive::LICENCE_NOTE),
                bytes: listing.licence_note(base_url, page).into_bytes(),
            });
            files.push(OutFile {
                path: format!("files/{}{}", archive::FOLDER, archive::CHECKSUMS),
                bytes: listing.checksums().into_bytes(),
            });
        }
        if unchanging {
            for asset in self.assets.by_name.values() {
                files.push(OutFile {
                    path: asset.url.trim_start_matches('/').to_owned(),
                    bytes: asset.bytes.clone(),
                });
            }
            for (rel, bytes) in &self.downloads {
                files.push(OutFile {
                    path: format!("files/{rel}"),
                    bytes: bytes.clone(),
                });
            }
            for (path, bytes) in &self.snapshots.files {
                let (path, bytes) = (path.clone(), bytes.clone());
                files.push(OutFile { path, bytes });
            }
        }
        Ok((files, fixed))
    }
}

/// The tokens a document's Markdown may use for the origins of this build,
/// so no page hard-codes a host: `{{ site_origin }}` and `{{ api_origin }}`
/// (the same origin unless the build has `--api-origin`).
pub const SITE_ORIGIN_TOKEN: &str = "{{ site_origin }}";
pub const API_ORIGIN_TOKEN: &str = "{{ api_origin }}";

fn substitute_origins(body: &mut String, origins: &Origins) {
    if body.contains("{{ ") {
        *body = body
            .replace(SITE_ORIGIN_TOKEN, &origins.site)
            .replace(API_ORIGIN_TOKEN, origins.api());
    }
}

/// The file archive's listing, when the content has an archive licence grant.
fn archive_listing(content: &Content, downloads: &[(String, Vec<u8>)]) -> Result<Option<Listing>> {
    let Some(g) = content.grant(Material::Archive) else {
        return Ok(None);
    };
    let licence = content
        .site
        .licences
        .iter()
        .find(|l| l.id == g.licence)
        .context("archive licence grant names no licence of site.toml")?;
    archive::listing(downloads, g, licence, &content.site.default_attribution).map(Some)
}

/// Adds the pages generated from the service information and the contract
/// to the documents, refusing a content document at the same URL.
fn add_generated_documents(
    content: &mut Content,
    api: &apiref::Reference,
    base_url: &str,
    messages: &Messages,
) -> Result<()> {
    let g = content.grant(Material::ServiceInformation);
    let licence: Option<LicenceId> = g.map(|g| g.licence.clone());
    let attribution = g.and_then(|g| g.attribution.clone());
    let default = content.site.language.as_str();
    let words = about::Words::new(messages, default, &content.service, HashMap::new());
    let mut generated = about::documents(
        &content.service,
        licence.clone(),
        attribution.clone(),
        &words,
        None,
    )?;
    generated.extend(languages::about_pages(
        content,
        messages,
        licence.as_ref(),
        attribution.as_ref(),
    )?);
    generated.push(about::document(
        apiref::URL,
        about::front(
            "API reference",
            "Every HTTP operation of the service with its parameters, request bodies, responses, schemas, examples and error codes, generated from the OpenAPI contract.",
            10,
            apiref::TEMPLATE,
            licence,
            attribution,
            &content.service.updated,
        ),
        apiref::markdown(api, base_url),
    ));
    for d in &generated {
        if let Some(taken) = content.documents.iter().find(|c| c.url == d.url) {
            bail!(
                "{}: publishes at {}, where the build generates a page; expected another path",
                taken.source.display(),
                d.url
            );
        }
    }
    content.documents.extend(generated);
    content.documents.sort_by(|a, b| a.url.cmp(&b.url));
    Ok(())
}
