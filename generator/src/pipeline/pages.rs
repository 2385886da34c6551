//! Rendering the documents: the shared [`Site`] context, breadcrumbs,
//! section listings, previous/next, each page's HTML and its Markdown twin.

use super::*;

/// Everything the renderers share.
pub(super) struct Site<'a> {
    pub(super) content: &'a Content,
    /// The site's origin (`origins.site`), the base of its absolute URLs.
    pub(super) base_url: String,
    pub(super) origins: Origins,
    /// The Content-Security-Policy every page repeats in a `<meta>`.
    pub(super) csp_meta: Value,
    pub(super) site_value: Value,
    pub(super) service_value: Value,
    pub(super) by_url: HashMap<&'a str, &'a Document>,
    pub(super) licences: HashMap<&'a str, &'a Licence>,
    /// The licences by identifier, for the shortcodes.
    pub(super) licences_value: Value,
    /// The facts of the observation data, for the shortcodes.
    pub(super) data_value: Value,
    /// The contract, as written to `openapi.json`.
    pub(super) openapi: serde_json::Value,
    /// The archive licence grant: the default of pages under the archive.
    pub(super) archive_grant: Option<&'a LicenceGrant>,
    /// Extra context for pages rendered with a given template.
    pub(super) template_extra: HashMap<&'static str, (&'static str, Value)>,
    /// Markdown appended to the twins of pages rendered with a template.
    pub(super) twin_extra: HashMap<&'static str, String>,
    /// The images the pages show, each prepared once.
    pub(super) images: Images,
    /// The open-data catalogue's facts.
    pub(super) open_data: OpenData<'a>,
    /// Each page that has a translation, by its URL in the default
    /// language: the page in every language, in `site.toml`'s order.
    pub(super) versions: HashMap<&'a str, Vec<&'a Document>>,
    /// Where each page of the default language is in each other language,
    /// for the templates' `link(url)` (`languages::links`).
    pub(super) links_value: Value,
}

impl<'a> Site<'a> {
    pub(super) fn new(content: &'a Content, origins: &Origins, openapi: serde_json::Value) -> Self {
        let versions = versions(content);
        Self {
            content,
            openapi,
            archive_grant: content.grant(Material::Archive),
            template_extra: HashMap::new(),
            twin_extra: HashMap::new(),
            images: Images::new(&content.files),
            open_data: OpenData::new(content, origins, &[], &[]),
            base_url: origins.site.clone(),
            origins: origins.clone(),
            csp_meta: Value::from(contract::headers::meta_content_security_policy(
                origins.separate_api.as_deref(),
            )),
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
            licences_value: Value::from_object(
                content
                    .site
                    .licences
                    .iter()
                    .map(|l| (l.id.as_str().to_owned(), Value::from(Serde(l))))
                    .collect::<BTreeMap<_, _>>(),
            ),
            data_value: crate::data_facts::context(None),
            links_value: languages::links(content, &versions),
            versions,
        }
    }

    pub(super) fn nav_url(&self, url: &str) -> String {
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
    pub(super) fn ctx<P: Serialize>(
        &self,
        page: &P,
        extra: Option<(&'static str, Value)>,
    ) -> Value {
        let base = [
            ("site", self.site_value.clone()),
            ("service", self.service_value.clone()),
            ("base_url", Value::from(self.base_url.as_str())),
            // Before a sidecar route in page markup: empty (relative URLs)
            // or the separate API origin.
            ("api_prefix", Value::from(self.origins.script_prefix())),
            ("csp", self.csp_meta.clone()),
            ("page", Value::from(Serde(page))),
            ("links", self.links_value.clone()),
        ];
        Value::from_pairs(base.into_iter().chain(extra))
    }
}

#[derive(Serialize, Clone, PartialEq, Eq)]
pub(super) struct Crumb {
    pub(super) title: String,
    pub(super) url: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(super) summary: String,
}

#[derive(Serialize)]
pub(super) struct PageCtx<'a> {
    pub(super) title: &'a str,
    pub(super) summary: &'a str,
    pub(super) url: &'a str,
    pub(super) nav_url: String,
    pub(super) md_url: Option<String>,
    pub(super) content: String,
    pub(super) toc: Vec<Heading>,
    pub(super) licence: Option<&'a Licence>,
    pub(super) attribution: Option<&'a str>,
    pub(super) updated: Option<&'a Date>,
    pub(super) breadcrumbs: Vec<Crumb>,
    pub(super) children: Vec<Crumb>,
    pub(super) prev: Option<Crumb>,
    pub(super) next: Option<Crumb>,
    pub(super) jsonld: serde_json::Value,
    /// The page's tags, linking their tag pages.
    pub(super) tags: Vec<Crumb>,
    /// Page 1 of a listing longer than `page_size`.
    pub(super) paging: Option<Paging>,
    /// Marked as a draft (only `generate serve` builds drafts).
    pub(super) draft: bool,
    /// The card a shared link shows: the page's first image (absolute URL
    /// and text alternative); without one, the template takes the site's.
    pub(super) image: Option<(String, String)>,
    /// Where the page's source is edited, when the site names an editor.
    pub(super) edit_url: Option<String>,
    /// The page's language (BCP 47).
    pub(super) language: &'a str,
    /// The page in every language it exists in, itself included
    /// (`hreflang` alternates); empty without a translation.
    pub(super) alternates: Vec<Alternate>,
    /// The language switcher's links ([`Site::switcher`]).
    pub(super) languages: Vec<Alternate>,
}

/// The absolute URL of an image a page at `page` names as `src`: a site
/// path, an https URL or a path relative to the page (without `..`);
/// `None` for anything else (a data URL, a path climbing out of the page).
fn card_url(base_url: &str, page: &str, src: &str) -> Option<String> {
    if src.starts_with("https://") {
        Some(src.to_owned())
    } else if src.starts_with('/') && !src.starts_with("//") {
        Some(format!("{base_url}{src}"))
    } else if !src.contains(':') && !src.split('/').any(|s| s == "..") && !src.is_empty() {
        Some(format!("{base_url}{page}{}", src.trim_start_matches("./")))
    } else {
        None
    }
}

pub(super) fn parent_url(url: &str) -> Option<&str> {
    let trimmed = url.trim_end_matches('/');
    let cut = trimmed.rfind('/')?;
    (cut > 0).then(|| &url[..=cut])
}

pub(super) fn crumb(d: &Document) -> Crumb {
    Crumb {
        title: d.front.title.clone(),
        url: d.url.clone(),
        summary: d.front.summary.clone(),
    }
}

/// Documents under `parent` (one level), ordered by weight then title.
pub(super) fn children_of<'a>(site: &Site<'a>, parent: &str) -> Vec<&'a Document> {
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

/// What a page shows of the other documents: its breadcrumbs, its
/// previous and next siblings and (for a section's index) its children.
/// A page whose own source and neighbours did not change renders to the
/// same bytes (see [`super::session`]).
#[derive(Clone, PartialEq, Eq)]
pub(super) struct Neighbours {
    breadcrumbs: Vec<Crumb>,
    prev: Option<Crumb>,
    next: Option<Crumb>,
    children: Vec<Crumb>,
}

/// A rendered page: its HTML and Markdown twin, its search-index entry and
/// its passages (as compact JSON, see [`search::Fragments`]), and what the
/// browser's index needs of it.
pub(super) struct Rendered<F> {
    pub(super) files: [F; 2],
    pub(super) entry: Vec<u8>,
    pub(super) passages: Vec<u8>,
    pub(super) browser: search::BrowserEntry,
}

/// The siblings of every section: documents under each parent URL, in
/// listing order.
pub(super) fn siblings<'a>(site: &Site<'a>) -> BTreeMap<&'a str, Vec<&'a Document>> {
    let mut parents: BTreeMap<&str, Vec<&Document>> = BTreeMap::new();
    for d in &site.content.documents {
        if let Some(parent) = parent_url(&d.url) {
            parents.entry(parent).or_default().push(d);
        }
    }
    for kids in parents.values_mut() {
        kids.sort_by(|a, b| {
            (a.front.weight, &a.front.title, &a.url).cmp(&(b.front.weight, &b.front.title, &b.url))
        });
    }
    parents
}

/// Renders every document, handing each page to the publisher as soon as
/// it is rendered (into a fresh folder it is written and compressed at
/// once); returns the staged files, each document's neighbours and its
/// search entry and passages.
pub(super) fn render_documents(
    site: &Site<'_>,
    renderer: &Renderer,
    progress: bool,
    publisher: &Publisher<'_>,
) -> Result<Vec<(Rendered<Staged>, Neighbours)>> {
    let docs = &site.content.documents;
    let siblings = siblings(site);
    let bar = (progress && docs.len() >= 500 && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(docs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("rendering {bar:40} {pos}/{len} pages")
                .expect("static template"),
        );
        bar
    });
    // A page at a time: rayon's default splits the pages into a few long
    // runs, and a core that finishes its runs waits for the other's last
    // one, which it cannot take a part of.
    let results: Vec<Result<(Rendered<Staged>, Neighbours)>> = docs
        .par_iter()
        .with_max_len(1)
        .map(|d| {
            let near = neighbours(site, d, &siblings);
            let r = render_document(site, renderer, d, &near).and_then(|r| {
                let [html, twin] = r.files;
                Ok((
                    Rendered {
                        files: [publisher.stage(html)?, publisher.stage(twin)?],
                        entry: r.entry,
                        passages: r.passages,
                        browser: r.browser,
                    },
                    near,
                ))
            });
            if let Some(bar) = &bar {
                bar.inc(1);
            }
            r
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    results.into_iter().collect()
}

/// What `d` shows of the other documents.
pub(super) fn neighbours(
    site: &Site<'_>,
    d: &Document,
    siblings: &BTreeMap<&str, Vec<&Document>>,
) -> Neighbours {
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
    Neighbours {
        breadcrumbs,
        prev,
        next,
        children,
    }
}

pub(super) fn render_document(
    site: &Site<'_>,
    renderer: &Renderer,
    d: &Document,
    near: &Neighbours,
) -> Result<Rendered<OutFile>> {
    let cs = &site.content.site;
    // Pages of the archive default to the archive grant's licence and
    // attribution, and may not name another licence.
    let archive = site
        .archive_grant
        .filter(|_| d.original_url().starts_with(archive::PAGES));
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
    let licence_id = site.content.licence_of(d);
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
    check_translatable(d, licence_id)?;
    let attribution = d
        .front
        .attribution
        .as_deref()
        .or(archive.and_then(|g| g.attribution.as_deref()))
        .unwrap_or(&cs.default_attribution);
    let updated = d.front.updated.as_ref().unwrap_or(&cs.updated);
    // Shortcode calls become placeholders (line for line), the images
    // are rendered with the Markdown, then the calls' output fills in.
    let src = shortcodes::Source {
        path: &d.source,
        text: &d.body,
        first_line: d.body_line,
    };
    let expanded = shortcodes::expand(
        src,
        renderer,
        &shortcodes::PageInfo {
            url: &d.url,
            title: &d.front.title,
            licence,
            attribution,
            language: d.language(&site.content.site.language),
            licences: &site.licences_value,
            data: &site.data_value,
        },
    )?;
    let rendered = expanded.finish(src, site.images.render(d, &expanded.markdown)?)?;

    let md_url = format!("{}index.md", d.url);
    // A section's listing shows its first `page_size` pages; the rest are
    // on `page/2/` and on ([`super::listings`]).
    let size = cs.page_size.max(1);
    let children = near.children.iter().take(size).cloned().collect();
    let paging = paging(&d.url, 1, page_count(near.children.len(), size));
    let tags = tag_links(d);
    let mut jsonld = json!({
        "@context": "https://schema.org",
        "@type": "TechArticle",
        "headline": d.front.title,
        "description": d.front.summary,
        "url": format!("{}{}", site.base_url, d.url),
        "inLanguage": d.language(&cs.language),
        "dateModified": updated,
        "license": licence.url.absolute(&site.base_url),
        "creditText": attribution,
        "creator": {"@type": "Organization", "name": attribution},
        "isPartOf": {"@type": "WebSite", "name": cs.title, "url": format!("{}/", site.base_url)},
        "encoding": {"@type": "MediaObject", "encodingFormat": "text/markdown", "contentUrl": format!("{}{}", site.base_url, md_url)},
    });
    if site.open_data.describes(&d.url) {
        // The page and the datasets it describes, in one graph.
        let mut graph = vec![jsonld];
        graph[0].as_object_mut().map(|o| o.remove("@context"));
        graph.extend(site.open_data.schema_org(&d.url));
        jsonld = json!({"@context": "https://schema.org", "@graph": graph});
    }
    let page = PageCtx {
        title: &d.front.title,
        summary: &d.front.summary,
        url: &d.url,
        nav_url: site.nav_url(d.original_url()),
        md_url: Some(md_url),
        content: rendered.html,
        toc: rendered.headings,
        licence: Some(licence),
        attribution: Some(attribution),
        updated: Some(updated),
        breadcrumbs: near.breadcrumbs.clone(),
        children,
        prev: near.prev.clone(),
        next: near.next.clone(),
        jsonld,
        tags,
        paging,
        draft: d.front.draft,
        image: rendered
            .image
            .and_then(|i| Some((card_url(&site.base_url, &d.url, &i.src)?, i.alt))),
        edit_url: cs
            .edit_url
            .as_ref()
            .zip(d.file.as_ref())
            .map(|(edit, file)| format!("{}/{file}", edit.as_str().trim_end_matches('/'))),
        language: d.language(&cs.language),
        alternates: site.alternates(d),
        languages: site.switcher(d),
    };
    let template = d.front.template.as_deref().unwrap_or("page.html");
    let extra = site.template_extra.get(template).cloned();
    let html = renderer
        .render(template, &site.ctx(&page, extra))
        .with_context(|| format!("{}", d.source.display()))?;
    let appendix = site.twin_extra.get(template).map(String::as_str);
    let twin = markdown_twin(
        site,
        d,
        &expanded.twin,
        licence,
        attribution,
        updated,
        appendix,
    );
    let mut text = rendered.text;
    // A page is found by its tags too.
    for tag in &page.tags {
        text.push(' ');
        text.push_str(&tag.title);
    }
    let mut sections = rendered.sections;
    if let Some(more) = appendix {
        let more = markdown::render(more);
        text.push(' ');
        text.push_str(&more.text);
        sections.extend(more.sections);
    }
    let historical = archive.is_some();
    let mut passages: Vec<Passage> = sections
        .into_iter()
        .map(|part| Passage {
            url: d.url.clone(),
            anchor: part.anchor.unwrap_or_default(),
            title: d.front.title.clone(),
            heading: part.heading.unwrap_or_default(),
            section: d.section.clone(),
            historical,
            licence: historical.then(|| licence.title.clone()),
            attribution: historical.then(|| attribution.to_owned()),
            reference: d.url == crate::apiref::URL,
            developers: d.url == crate::apiref::URL
                || d.front.audience == crate::model::Audience::Developers,
            language: d.translation.as_ref().map(|t| t.language.clone()),
            text: part.text,
        })
        .collect();
    // Room for the JSON of each at once: its text, a little escaping, the
    // names and the fields around it.
    let passages_room = passages
        .iter()
        .map(|p| p.text.len() + p.heading.len() + 2 * d.url.len() + 256)
        .sum::<usize>();
    let entry = SearchDocument {
        url: d.url.clone(),
        title: d.front.title.clone(),
        summary: d.front.summary.clone(),
        section: d.section.clone(),
    };
    Ok(Rendered {
        files: [
            OutFile {
                path: format!("{}index.html", d.out_dir),
                bytes: html.into_bytes(),
            },
            OutFile {
                path: format!("{}index.md", d.out_dir),
                bytes: twin.into_bytes(),
            },
        ],
        entry: search::fragment(&entry),
        passages: search::passage_fragment_list_in(
            Vec::with_capacity(passages_room),
            &mut passages,
        ),
        browser: search::BrowserEntry::of(&entry, &text),
    })
}

/// The Markdown twin of a page: title, summary, source, licence and
/// attribution up front, then the document as written (`body`: its
/// Markdown with each shortcode's Markdown form in place).
pub(super) fn markdown_twin(
    site: &Site<'_>,
    d: &Document,
    body: &str,
    licence: &Licence,
    attribution: &str,
    updated: &Date,
    appendix: Option<&str>,
) -> String {
    let mut s = twin_head(
        site,
        TwinHead {
            title: &d.front.title,
            summary: &d.front.summary,
            url: &d.url,
            licence,
            attribution,
            updated,
        },
    );
    s.reserve(body.len() + 2);
    s.push_str(body.trim_end());
    if let Some(more) = appendix {
        s.push_str(more.trim_end());
    }
    s.push('\n');
    s
}

/// What every Markdown twin states before its text.
pub(super) struct TwinHead<'a> {
    pub(super) title: &'a str,
    pub(super) summary: &'a str,
    pub(super) url: &'a str,
    pub(super) licence: &'a Licence,
    pub(super) attribution: &'a str,
    pub(super) updated: &'a Date,
}

/// A twin's opening: title, summary, source, licence, attribution and date
/// ([`contract::twin`], which the sidecar reads it back with).
pub(super) fn twin_head(site: &Site<'_>, h: TwinHead<'_>) -> String {
    let licence_url = h.licence.url.absolute(&site.base_url);
    contract::twin::Head {
        title: h.title,
        summary: h.summary,
        source: (&site.base_url, h.url),
        licence: (&h.licence.title, h.licence.id.as_str(), &licence_url),
        attribution: h.attribution,
        updated: h.updated,
    }
    .to_string()
}
