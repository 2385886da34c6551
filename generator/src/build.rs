//! `generate build`: content + templates → every output file → the tree.

use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use minijinja::Value;
use minijinja::value::Serde;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;

use crate::about;
use crate::apiref;
use crate::archive::{self, Listing};
use crate::assets;
use crate::content::{self, Content, Document};
use crate::manifest::Manifest;
use crate::markdown::{self, Heading};
use crate::model::{Date, Licence, LicenceGrant, LicenceId, Material};
use crate::openapi;
use crate::output::{self, OutFile, WriteStats};
use crate::render::Renderer;
use crate::search::{self, SearchDocument};
use contract::ProblemCode;

mod fixed;
use fixed::{data_files, render_fixed_pages};

/// What to build from where.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub content: PathBuf,
    pub templates: PathBuf,
    pub out: PathBuf,
    /// Overrides `site.toml`'s `base_url`.
    pub base_url: Option<String>,
    /// Show a progress bar on long builds (only drawn on a terminal).
    pub progress: bool,
}

/// What a build produced, for the one-line summary.
#[derive(Debug, Clone)]
pub struct Summary {
    pub pages: usize,
    pub stats: WriteStats,
    pub seconds: f64,
    pub manifest: Manifest,
}

impl Summary {
    /// The one line printed at the end of a build.
    pub fn line(&self) -> String {
        format!(
            "built {} pages, {} files, {} (+{} precompressed), {} written, {} removed, in {:.2} s",
            self.pages,
            self.stats.files,
            human_bytes(self.stats.bytes),
            human_bytes(self.stats.compressed_bytes),
            self.stats.written,
            self.stats.removed,
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
    let started = Instant::now();
    let mut content = content::load_content(&opts.content)?;
    let base_url = match &opts.base_url {
        Some(url) => validate_base_url(url)?,
        None => content.site.base_url.clone(),
    };
    let openapi_doc = openapi::document(&base_url, &content.site, &content.service);
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
    let api = apiref::reference(&openapi_doc, &base_url);
    add_generated_documents(&mut content, &api, &base_url)?;
    let assets = assets::load(&opts.templates.join("assets"))?;
    let renderer = Renderer::new(
        &opts.templates,
        assets
            .by_name
            .iter()
            .map(|(k, v)| (k.clone(), v.url.clone()))
            .collect(),
    )?;
    let mut site = Site::new(&content, &base_url, openapi_doc);
    site.template_extra
        .insert(apiref::TEMPLATE, ("api", Value::from(Serde(&api))));
    if let Some(listing) = &listing {
        site.template_extra
            .insert(archive::TEMPLATE, ("files", Value::from(Serde(listing))));
        site.twin_extra
            .insert(archive::TEMPLATE, listing.markdown(&base_url));
    }

    let mut files: Vec<OutFile> = Vec::with_capacity(content.documents.len() * 2 + 64);
    let (pages, search_docs) = render_documents(&site, &renderer, opts.progress)?;
    let page_count = content.documents.len() + 3 + ProblemCode::ALL.len();
    files.extend(pages);
    files.extend(render_fixed_pages(&site, &renderer)?);
    files.extend(data_files(&site)?);
    files.push(OutFile {
        path: search::PATH.into(),
        bytes: search::index_json(search_docs),
    });
    if let Some(listing) = &listing {
        let page = site
            .content
            .documents
            .iter()
            .find(|d| d.front.template.as_deref() == Some(archive::TEMPLATE))
            .map_or("/docs/", |d| d.url.as_str());
        files.push(OutFile {
            path: format!("files/{}{}", archive::FOLDER, archive::LICENCE_NOTE),
            bytes: listing.licence_note(&base_url, page).into_bytes(),
        });
        files.push(OutFile {
            path: format!("files/{}{}", archive::FOLDER, archive::CHECKSUMS),
            bytes: listing.checksums().into_bytes(),
        });
    }
    for asset in assets.by_name.values() {
        files.push(OutFile {
            path: asset.url.trim_start_matches('/').to_owned(),
            bytes: asset.bytes.clone(),
        });
    }
    for (rel, bytes) in downloads {
        files.push(OutFile {
            path: format!("files/{rel}"),
            bytes,
        });
    }

    let (manifest, stats) = output::write_tree(&opts.out, files)?;
    Ok(Summary {
        pages: page_count,
        stats,
        seconds: started.elapsed().as_secs_f64(),
        manifest,
    })
}

fn validate_base_url(url: &str) -> Result<String> {
    let url = url.trim_end_matches('/');
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .with_context(|| format!("--base-url {url}: expected an http:// or https:// origin"))?;
    if rest.is_empty() || rest.contains('/') || rest.contains(['?', '#', ' ']) {
        bail!("--base-url {url}: expected an origin such as https://example.org, without a path");
    }
    Ok(url.to_owned())
}

/// The licence grant that covers `material`, if any.
fn grant(content: &Content, material: Material) -> Option<&LicenceGrant> {
    content
        .service
        .guardrails
        .licences
        .iter()
        .find(|g| g.covers.contains(&material))
}

/// The file archive's listing, when the content has an archive licence grant.
fn archive_listing(content: &Content, downloads: &[(String, Vec<u8>)]) -> Result<Option<Listing>> {
    let Some(g) = grant(content, Material::Archive) else {
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
) -> Result<()> {
    let g = grant(content, Material::ServiceInformation);
    let licence: Option<LicenceId> = g.map(|g| g.licence.clone());
    let attribution = g.and_then(|g| g.attribution.clone());
    let mut generated = about::documents(&content.service, licence.clone(), attribution.clone());
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

/// Everything the renderers share.
struct Site<'a> {
    content: &'a Content,
    base_url: String,
    site_value: Value,
    service_value: Value,
    by_url: HashMap<&'a str, &'a Document>,
    licences: HashMap<&'a str, &'a Licence>,
    /// The contract, as written to `openapi.json`.
    openapi: serde_json::Value,
    /// The archive licence grant: the default of pages under the archive.
    archive_grant: Option<&'a LicenceGrant>,
    /// Extra context for pages rendered with a given template.
    template_extra: HashMap<&'static str, (&'static str, Value)>,
    /// Markdown appended to the twins of pages rendered with a template.
    twin_extra: HashMap<&'static str, String>,
}

impl<'a> Site<'a> {
    fn new(content: &'a Content, base_url: &str, openapi: serde_json::Value) -> Self {
        Self {
            content,
            openapi,
            archive_grant: grant(content, Material::Archive),
            template_extra: HashMap::new(),
            twin_extra: HashMap::new(),
            base_url: base_url.to_owned(),
            site_value: Value::from(Serde(&content.site)),
            service_value: Value::from(Serde(&content.service)),
            by_url: content
                .documents
                .iter()
                .map(|d| (d.url.as_str(), d))
                .collect(),
            licences: content
                .site
                .licences
                .iter()
                .map(|l| (l.id.as_str(), l))
                .collect(),
        }
    }

    fn nav_url(&self, url: &str) -> String {
        self.content
            .site
            .nav
            .iter()
            .map(|n| n.url.as_str())
            .filter(|n| url.starts_with(n) && (*n != "/" || url == "/"))
            .max_by_key(|n| n.len())
            .unwrap_or("")
            .to_owned()
    }

    /// The template context: site and service are converted once and shared
    /// (minijinja values are reference-counted), the page per render.
    fn ctx<P: Serialize>(&self, page: &P, extra: Option<(&'static str, Value)>) -> Value {
        let base = [
            ("site", self.site_value.clone()),
            ("service", self.service_value.clone()),
            ("base_url", Value::from(self.base_url.as_str())),
            ("page", Value::from(Serde(page))),
        ];
        Value::from_pairs(base.into_iter().chain(extra))
    }
}

#[derive(Serialize, Clone)]
struct Crumb {
    title: String,
    url: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    summary: String,
}

#[derive(Serialize)]
struct PageCtx<'a> {
    title: &'a str,
    summary: &'a str,
    url: &'a str,
    nav_url: String,
    md_url: Option<String>,
    content: String,
    toc: Vec<Heading>,
    licence: Option<&'a Licence>,
    attribution: Option<&'a str>,
    updated: Option<&'a Date>,
    breadcrumbs: Vec<Crumb>,
    children: Vec<Crumb>,
    prev: Option<Crumb>,
    next: Option<Crumb>,
    jsonld: serde_json::Value,
}

fn parent_url(url: &str) -> Option<&str> {
    let trimmed = url.trim_end_matches('/');
    let cut = trimmed.rfind('/')?;
    (cut > 0).then(|| &url[..=cut])
}

fn crumb(d: &Document) -> Crumb {
    Crumb {
        title: d.front.title.clone(),
        url: d.url.clone(),
        summary: d.front.summary.clone(),
    }
}

/// Documents under `parent` (one level), ordered by weight then title.
fn children_of<'a>(site: &Site<'a>, parent: &str) -> Vec<&'a Document> {
    let mut kids: Vec<&Document> = site
        .content
        .documents
        .iter()
        .filter(|d| d.url != parent && parent_url(&d.url) == Some(parent))
        .collect();
    kids.sort_by(|a, b| {
        (a.front.weight, &a.front.title, &a.url).cmp(&(b.front.weight, &b.front.title, &b.url))
    });
    kids
}

fn render_documents(
    site: &Site<'_>,
    renderer: &Renderer,
    progress: bool,
) -> Result<(Vec<OutFile>, Vec<SearchDocument>)> {
    let docs = &site.content.documents;
    let mut siblings: BTreeMap<&str, Vec<&Document>> = BTreeMap::new();
    for d in docs {
        if let Some(parent) = parent_url(&d.url) {
            siblings.entry(parent).or_default();
        }
    }
    let siblings: BTreeMap<&str, Vec<&Document>> = siblings
        .into_keys()
        .map(|p| (p, children_of(site, p)))
        .collect();

    let bar = (progress && docs.len() >= 500 && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(docs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("rendering {bar:40} {pos}/{len} pages")
                .expect("static template"),
        );
        bar
    });
    let results: Vec<Result<([OutFile; 2], SearchDocument)>> = docs
        .par_iter()
        .map(|d| {
            let r = render_document(site, renderer, d, &siblings);
            if let Some(bar) = &bar {
                bar.inc(1);
            }
            r
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut out = Vec::with_capacity(docs.len() * 2);
    let mut index = Vec::with_capacity(docs.len());
    for r in results {
        let (files, entry) = r?;
        out.extend(files);
        index.push(entry);
    }
    Ok((out, index))
}

fn render_document(
    site: &Site<'_>,
    renderer: &Renderer,
    d: &Document,
    siblings: &BTreeMap<&str, Vec<&Document>>,
) -> Result<([OutFile; 2], SearchDocument)> {
    let cs = &site.content.site;
    let rendered = markdown::render(&d.body);
    // Pages of the archive default to the archive grant's licence and
    // attribution, and may not name another licence.
    let archive = site
        .archive_grant
        .filter(|_| d.url.starts_with(archive::PAGES));
    if let (Some(g), Some(own)) = (archive, &d.front.licence)
        && own != &g.licence
    {
        bail!(
            "{}: licence `{own}`, expected the archive's licence `{}` (or none) for a page under {}",
            d.source.display(),
            g.licence,
            archive::PAGES
        );
    }
    let licence_id = d
        .front
        .licence
        .as_ref()
        .or(archive.map(|g| &g.licence))
        .unwrap_or(&cs.default_licence);
    let licence = site
        .licences
        .get(licence_id.as_str())
        .copied()
        .with_context(|| {
            format!(
                "{}: unknown licence `{licence_id}`, expected one of the licences in site.toml",
                d.source.display()
            )
        })?;
    let attribution = d
        .front
        .attribution
        .as_deref()
        .or(archive.and_then(|g| g.attribution.as_deref()))
        .unwrap_or(&cs.default_attribution);
    let updated = d.front.updated.as_ref().unwrap_or(&cs.updated);

    let mut breadcrumbs = Vec::new();
    let mut cur = parent_url(&d.url);
    while let Some(p) = cur {
        if let Some(doc) = site.by_url.get(p) {
            breadcrumbs.push(crumb(doc));
        }
        cur = parent_url(p);
    }
    breadcrumbs.reverse();

    let (prev, next) = match parent_url(&d.url).and_then(|p| siblings.get(p)) {
        Some(list) if !d.is_index => {
            let i = list.iter().position(|x| x.url == d.url);
            let prev = i.and_then(|i| i.checked_sub(1)).map(|i| crumb(list[i]));
            let next = i.and_then(|i| list.get(i + 1)).map(|x| crumb(x));
            (prev, next)
        }
        _ => (None, None),
    };
    let children = if d.is_index {
        siblings
            .get(d.url.as_str())
            .map(|kids| kids.iter().map(|k| crumb(k)).collect())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let md_url = format!("{}index.md", d.url);
    let jsonld = json!({
        "@context": "https://schema.org",
        "@type": "TechArticle",
        "headline": d.front.title,
        "description": d.front.summary,
        "url": format!("{}{}", site.base_url, d.url),
        "inLanguage": cs.language,
        "dateModified": updated,
        "license": licence.url.absolute(&site.base_url),
        "creditText": attribution,
        "creator": {"@type": "Organization", "name": attribution},
        "isPartOf": {"@type": "WebSite", "name": cs.title, "url": format!("{}/", site.base_url)},
        "encoding": {"@type": "MediaObject", "encodingFormat": "text/markdown", "contentUrl": format!("{}{}", site.base_url, md_url)},
    });
    let page = PageCtx {
        title: &d.front.title,
        summary: &d.front.summary,
        url: &d.url,
        nav_url: site.nav_url(&d.url),
        md_url: Some(md_url),
        content: rendered.html,
        toc: rendered.headings,
        licence: Some(licence),
        attribution: Some(attribution),
        updated: Some(updated),
        breadcrumbs,
        children,
        prev,
        next,
        jsonld,
    };
    let template = d.front.template.as_deref().unwrap_or("page.html");
    let extra = site.template_extra.get(template).cloned();
    let html = renderer
        .render(template, &site.ctx(&page, extra))
        .with_context(|| format!("{}", d.source.display()))?;
    let appendix = site.twin_extra.get(template).map(String::as_str);
    let twin = markdown_twin(site, d, licence, attribution, updated, appendix);
    let mut text = rendered.text;
    if let Some(more) = appendix {
        text.push(' ');
        text.push_str(&markdown::render(more).text);
    }
    let entry = SearchDocument {
        url: d.url.clone(),
        title: d.front.title.clone(),
        summary: d.front.summary.clone(),
        section: d.section.clone(),
        text,
    };
    Ok((
        [
            OutFile {
                path: format!("{}index.html", d.out_dir),
                bytes: html.into_bytes(),
            },
            OutFile {
                path: format!("{}index.md", d.out_dir),
                bytes: twin.into_bytes(),
            },
        ],
        entry,
    ))
}

/// The Markdown twin of a page: title, summary, source, licence and
/// attribution up front, then the document as written.
fn markdown_twin(
    site: &Site<'_>,
    d: &Document,
    licence: &Licence,
    attribution: &str,
    updated: &Date,
    appendix: Option<&str>,
) -> String {
    let mut s = String::with_capacity(d.body.len() + 512);
    s.push_str(&format!("# {}\n\n", d.front.title));
    s.push_str(&format!("> {}\n>\n", d.front.summary));
    s.push_str(&format!("> Source: {}{}\n", site.base_url, d.url));
    s.push_str(&format!(
        "> Licence: {} ({}) — {}\n",
        licence.title,
        licence.id,
        licence.url.absolute(&site.base_url)
    ));
    s.push_str(&format!("> Attribution: {attribution}\n"));
    s.push_str(&format!("> Updated: {updated}\n\n"));
    s.push_str(d.body.trim_end());
    if let Some(more) = appendix {
        s.push_str(more.trim_end());
    }
    s.push('\n');
    s
}
