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

use crate::assets;
use crate::content::{self, Content, Document};
use crate::discovery::{self, DocLink};
use crate::manifest::Manifest;
use crate::markdown::{self, Heading};
use crate::model::{Date, Licence};
use crate::openapi;
use crate::output::{self, OutFile, WriteStats};
use crate::problems::{PROBLEMS, ProblemCode};
use crate::render::Renderer;

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
    let content = content::load_content(&opts.content)?;
    let base_url = match &opts.base_url {
        Some(url) => validate_base_url(url)?,
        None => content.site.base_url.clone(),
    };
    let assets = assets::load(&opts.templates.join("assets"))?;
    let renderer = Renderer::new(
        &opts.templates,
        assets
            .by_name
            .iter()
            .map(|(k, v)| (k.clone(), v.url.clone()))
            .collect(),
    )?;
    let site = Site::new(&content, &base_url);

    let mut files: Vec<OutFile> = Vec::with_capacity(content.documents.len() * 2 + 64);
    let pages = render_documents(&site, &renderer, opts.progress)?;
    let page_count = content.documents.len() + 3 + PROBLEMS.len();
    files.extend(pages);
    files.extend(render_fixed_pages(&site, &renderer)?);
    files.extend(data_files(&site)?);
    for asset in assets.by_name.values() {
        files.push(OutFile {
            path: asset.url.trim_start_matches('/').to_owned(),
            bytes: asset.bytes.clone(),
        });
    }
    for (rel, source) in &content.files {
        let bytes =
            std::fs::read(source).with_context(|| format!("reading {}", source.display()))?;
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

/// Everything the renderers share.
struct Site<'a> {
    content: &'a Content,
    base_url: String,
    site_value: Value,
    service_value: Value,
    by_url: HashMap<&'a str, &'a Document>,
    licences: HashMap<&'a str, &'a Licence>,
}

impl<'a> Site<'a> {
    fn new(content: &'a Content, base_url: &str) -> Self {
        Self {
            content,
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

fn render_documents(site: &Site<'_>, renderer: &Renderer, progress: bool) -> Result<Vec<OutFile>> {
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
    let results: Vec<Result<[OutFile; 2]>> = docs
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
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

fn render_document(
    site: &Site<'_>,
    renderer: &Renderer,
    d: &Document,
    siblings: &BTreeMap<&str, Vec<&Document>>,
) -> Result<[OutFile; 2]> {
    let cs = &site.content.site;
    let rendered = markdown::render(&d.body);
    let licence_id = d.front.licence.as_ref().unwrap_or(&cs.default_licence);
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
    let html = renderer
        .render(template, &site.ctx(&page, None))
        .with_context(|| format!("{}", d.source.display()))?;
    let twin = markdown_twin(site, d, licence, attribution, updated);
    Ok([
        OutFile {
            path: format!("{}index.html", d.out_dir),
            bytes: html.into_bytes(),
        },
        OutFile {
            path: format!("{}index.md", d.out_dir),
            bytes: twin.into_bytes(),
        },
    ])
}

/// The Markdown twin of a page: title, summary, source, licence and
/// attribution up front, then the document as written.
fn markdown_twin(
    site: &Site<'_>,
    d: &Document,
    licence: &Licence,
    attribution: &str,
    updated: &Date,
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
    s.push('\n');
    s
}

#[derive(Serialize)]
struct SimplePage<'a> {
    title: &'a str,
    summary: &'a str,
    url: &'a str,
    nav_url: String,
}

fn simple<'a>(site: &Site<'_>, title: &'a str, summary: &'a str, url: &'a str) -> SimplePage<'a> {
    SimplePage {
        title,
        summary,
        url,
        nav_url: site.nav_url(url),
    }
}

fn render_fixed_pages(site: &Site<'_>, renderer: &Renderer) -> Result<Vec<OutFile>> {
    let service = &site.content.service;
    let mut out = Vec::new();
    let home = simple(site, &service.name, &service.description, "/");
    out.push(OutFile {
        path: "index.html".into(),
        bytes: renderer
            .render("home.html", &site.ctx(&home, None))?
            .into_bytes(),
    });
    let missing = simple(
        site,
        "Page not found",
        "There is no page at this address.",
        "/404.html",
    );
    out.push(OutFile {
        path: "404.html".into(),
        bytes: renderer
            .render("404.html", &site.ctx(&missing, None))?
            .into_bytes(),
    });
    // The human contact form and its thank-you page; the form's topics come
    // from `service` in the shared context.
    for (template, title, summary, url) in [
        (
            "contact.html",
            "Contact us",
            "Send the organisation an enquiry: a person answers it.",
            "/contact/",
        ),
        (
            "contact-thanks.html",
            "Thank you",
            "Your enquiry has been received.",
            "/contact/thanks/",
        ),
    ] {
        let page = simple(site, title, summary, url);
        out.push(OutFile {
            path: format!("{}index.html", url.trim_start_matches('/')),
            bytes: renderer
                .render(template, &site.ctx(&page, None))?
                .into_bytes(),
        });
    }
    let list = simple(
        site,
        "Problem codes",
        "Every error code this service answers with, and what to do about it.",
        "/docs/problems/",
    );
    let problems: Vec<_> = PROBLEMS.iter().map(problem_json).collect();
    out.push(OutFile {
        path: "docs/problems/index.html".into(),
        bytes: renderer
            .render(
                "problems.html",
                &site.ctx(&list, Some(("problems", Value::from(Serde(&problems))))),
            )?
            .into_bytes(),
    });
    for p in PROBLEMS {
        let url = format!("/docs/problems/{}/", p.code);
        let page = simple(site, p.title, p.explanation, &url);
        out.push(OutFile {
            path: format!("docs/problems/{}/index.html", p.code),
            bytes: renderer
                .render(
                    "problem.html",
                    &site.ctx(
                        &page,
                        Some(("problem", Value::from(Serde(problem_json(p))))),
                    ),
                )?
                .into_bytes(),
        });
    }
    Ok(out)
}

fn problem_json(p: &ProblemCode) -> serde_json::Value {
    json!({"code": p.code, "status": p.status, "title": p.title, "explanation": p.explanation})
}

fn pretty(value: &impl Serialize) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value).context("serialising JSON")?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// JSON documents and discovery files.
fn data_files(site: &Site<'_>) -> Result<Vec<OutFile>> {
    let cs = &site.content.site;
    let service = &site.content.service;
    let base = site.base_url.as_str();
    let docs: Vec<DocLink> = site
        .content
        .documents
        .iter()
        .map(|d| DocLink {
            url: d.url.clone(),
            title: d.front.title.clone(),
            summary: d.front.summary.clone(),
            section: d.section.clone(),
        })
        .collect();
    let mut pages: Vec<(String, Date)> = vec![("/".to_owned(), cs.updated.clone())];
    for d in &site.content.documents {
        pages.push((
            d.url.clone(),
            d.front.updated.clone().unwrap_or(cs.updated.clone()),
        ));
    }
    pages.push(("/docs/problems/".to_owned(), cs.updated.clone()));

    let text = |path: &str, s: String| OutFile {
        path: path.to_owned(),
        bytes: s.into_bytes(),
    };
    Ok(vec![
        OutFile {
            path: "api/service.json".into(),
            bytes: pretty(service)?,
        },
        OutFile {
            path: "openapi.json".into(),
            bytes: pretty(&openapi::document(base, cs, service))?,
        },
        OutFile {
            path: ".well-known/ai-catalog.json".into(),
            bytes: pretty(&discovery::ai_catalog(base, cs, service))?,
        },
        OutFile {
            path: ".well-known/mcp/server-card.json".into(),
            bytes: pretty(&discovery::mcp_server_card(base, cs, service))?,
        },
        OutFile {
            path: ".well-known/api-catalog".into(),
            bytes: pretty(&discovery::api_catalog(base, service))?,
        },
        text("llms.txt", discovery::llms_txt(base, cs, service, &docs)),
        text("robots.txt", discovery::robots_txt(base)),
        text("sitemap.xml", discovery::sitemap_xml(base, &pages)),
        text(
            ".well-known/security.txt",
            discovery::security_txt(base, cs, service),
        ),
    ])
}
