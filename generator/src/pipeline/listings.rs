//! Listings longer than `site.toml`'s `page_size`, which continue at
//! `…/page/2/`, and the tag pages of the sections with tags: one page per
//! tag at `<section>tags/<slug>/` (its pages newest first) and an index of
//! the section's tags at `<section>tags/`.
//!
//! Page 1 of a section's listing is the section's own page (rendered with
//! the documents, [`super::render_document`]); the later pages, the tag
//! pages and the tag index are made here, each with a Markdown twin, a
//! sitemap row and a search entry (every page with a twin is in the search
//! index, as `generate check` holds the build to).

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use serde::Serialize;

use super::{Crumb, Site, TextEntries, TwinHead, crumb, parent_url, siblings, twin_head};
use crate::content::{self, Document, tag_label, tag_section, tag_slug};
use crate::discovery::Category;
use crate::markdown;
use crate::model::{Date, Licence};
use crate::output::OutFile;
use crate::render::Renderer;
use crate::search::SearchDocument;

/// The template of the listing pages.
const TEMPLATE: &str = "listing.html";

/// Where page `n` of the listing that starts at `first` is.
pub(super) fn page_url(first: &str, n: usize) -> String {
    if n <= 1 {
        first.to_owned()
    } else {
        format!("{first}page/{n}/")
    }
}

/// How many pages a listing of `len` entries takes.
pub(super) fn page_count(len: usize, size: usize) -> usize {
    len.div_ceil(size.max(1)).max(1)
}

/// Which page of a listing this is, and where the ones before and after are.
#[derive(Serialize, Clone, PartialEq, Eq, Debug)]
pub(super) struct Paging {
    pub(super) page: usize,
    pub(super) pages: usize,
    pub(super) prev: Option<String>,
    pub(super) next: Option<String>,
}

/// The paging of page `n` of `pages` of the listing at `first`; `None` for
/// a listing of one page.
pub(super) fn paging(first: &str, n: usize, pages: usize) -> Option<Paging> {
    (pages > 1).then(|| Paging {
        page: n,
        pages,
        prev: (n > 1).then(|| page_url(first, n - 1)),
        next: (n < pages).then(|| page_url(first, n + 1)),
    })
}

/// A page's own tags, as links to their tag pages (in the order written,
/// each slug once).
pub(super) fn tag_links(d: &Document) -> Vec<Crumb> {
    let Some(section) = tag_section(d) else {
        return Vec::new();
    };
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for tag in &d.front.tags {
        let slug = tag_slug(tag);
        if slug.is_empty() || seen.contains(&slug) {
            continue;
        }
        out.push(Crumb {
            title: tag_label(tag),
            url: format!("{section}tags/{slug}/"),
            summary: String::new(),
        });
        seen.push(slug);
    }
    out
}

/// A page's tags as Atom categories.
pub(super) fn categories(base_url: &str, d: &Document) -> Vec<Category> {
    tag_links(d)
        .into_iter()
        .map(|t| {
            let (scheme, term) = t
                .url
                .trim_end_matches('/')
                .rsplit_once('/')
                .unwrap_or_default();
            Category {
                term: term.to_owned(),
                label: t.title,
                scheme: format!("{base_url}{scheme}/"),
            }
        })
        .collect()
}

/// An entry of a listing page.
#[derive(Serialize)]
struct Entry {
    title: String,
    url: String,
    summary: String,
    /// `YYYY-MM-DD`, on the pages of a tag.
    date: Option<String>,
}

#[derive(Serialize)]
struct ListingCtx<'a> {
    title: &'a str,
    summary: &'a str,
    url: &'a str,
    nav_url: String,
    md_url: String,
    licence: &'a Licence,
    breadcrumbs: &'a [Crumb],
    entries: &'a [Entry],
    paging: &'a Option<Paging>,
}

/// One listing page to make.
struct Listing<'a> {
    /// The section of the search entry: the listed section's.
    section: &'a str,
    title: String,
    summary: String,
    url: String,
    breadcrumbs: Vec<Crumb>,
    entries: Vec<Entry>,
    paging: Option<Paging>,
    updated: &'a Date,
}

/// The crumbs of `url` and the pages above it.
fn trail(site: &Site<'_>, url: &str) -> Vec<Crumb> {
    let mut out = Vec::new();
    let mut cur = Some(url);
    while let Some(u) = cur {
        if let Some(d) = site.by_url.get(u) {
            out.push(crumb(d));
        }
        cur = parent_url(u);
    }
    out.reverse();
    out
}

fn date_of<'a>(site: &Site<'a>, d: &'a Document) -> &'a Date {
    d.front
        .updated
        .as_ref()
        .unwrap_or(&site.content.site.updated)
}

/// What the listing pages add to the build.
#[derive(Default)]
pub(super) struct Listed {
    /// HTML pages and their twins.
    pub(super) files: Vec<OutFile>,
    /// Sitemap rows.
    pub(super) rows: Vec<(String, Date)>,
    /// Search entries.
    pub(super) entries: TextEntries,
}

/// The later pages of the sections' listings, the tag pages and the tag
/// indexes.
pub(super) fn listing_pages(site: &Site<'_>, renderer: &Renderer) -> Result<Listed> {
    content::check_tags(&site.content.documents)?;
    let size = site.content.site.page_size;
    let mut listings = Vec::new();
    for (parent, kids) in siblings(site) {
        let Some(index) = site.by_url.get(parent).copied().filter(|d| d.is_index) else {
            continue;
        };
        let kids: Vec<&Document> = kids.into_iter().filter(|d| d.url != index.url).collect();
        let pages = page_count(kids.len(), size);
        for (n, chunk) in kids.chunks(size.max(1)).enumerate().skip(1) {
            let n = n + 1;
            listings.push(Listing {
                section: &index.section,
                title: format!("{} (page {n} of {pages})", index.front.title),
                summary: index.front.summary.clone(),
                url: page_url(&index.url, n),
                breadcrumbs: trail(site, &index.url),
                entries: chunk
                    .iter()
                    .map(|d| Entry {
                        title: d.front.title.clone(),
                        url: d.url.clone(),
                        summary: d.front.summary.clone(),
                        date: None,
                    })
                    .collect(),
                paging: paging(&index.url, n, pages),
                updated: date_of(site, index),
            });
        }
    }
    listings.extend(tag_listings(site, size));
    let mut out = Listed::default();
    for l in listings {
        if let Some(d) = site.by_url.get(l.url.as_str()) {
            bail!(
                "{}: publishes at {}, where the build makes a listing page; expected another path",
                d.source.display(),
                l.url
            );
        }
        let (html, twin, body) = render_listing(site, renderer, &l)?;
        out.files.push(html);
        out.files.push(twin);
        let entry = SearchDocument {
            url: l.url.clone(),
            title: l.title.clone(),
            summary: l.summary.clone(),
            section: l.section.to_owned(),
        };
        out.entries.push((entry, markdown::render(&body).text));
        out.rows.push((l.url, l.updated.clone()));
    }
    Ok(out)
}

/// A tag of a section and its pages, newest first.
struct Tag<'a> {
    label: String,
    pages: Vec<&'a Document>,
}

/// The tag pages (each paged) and the tag index of every section with tags.
fn tag_listings<'a>(site: &Site<'a>, size: usize) -> Vec<Listing<'a>> {
    // Section URL → slug → tag.
    let mut sections: BTreeMap<&str, BTreeMap<String, Tag<'a>>> = BTreeMap::new();
    for d in &site.content.documents {
        let Some(section) = tag_section(d) else {
            continue;
        };
        for tag in &d.front.tags {
            let t = sections
                .entry(section)
                .or_default()
                .entry(tag_slug(tag))
                .or_insert_with(|| Tag {
                    label: tag_label(tag),
                    pages: Vec::new(),
                });
            if !t.pages.iter().any(|p| p.url == d.url) {
                t.pages.push(d);
            }
        }
    }
    let mut out = Vec::new();
    for (section, tags) in sections {
        let Some(index) = site.by_url.get(section).copied() else {
            continue;
        };
        let tags_url = format!("{section}tags/");
        let above = trail(site, section);
        let mut newest_of_all = date_of(site, index);
        let mut index_entries = Vec::new();
        for (slug, mut tag) in tags {
            tag.pages.sort_by(|a, b| {
                date_of(site, b)
                    .cmp(date_of(site, a))
                    .then_with(|| a.url.cmp(&b.url))
            });
            // The spelling of the newest page names the tag.
            if let Some(label) = tag.pages.first().and_then(|p| {
                p.front
                    .tags
                    .iter()
                    .find(|t| tag_slug(t) == slug)
                    .map(|t| tag_label(t))
            }) {
                tag.label = label;
            }
            let first = format!("{tags_url}{slug}/");
            let newest = tag
                .pages
                .first()
                .map_or(newest_of_all, |p| date_of(site, p));
            newest_of_all = newest_of_all.max(newest);
            let count = tag.pages.len();
            index_entries.push(Entry {
                title: tag.label.clone(),
                url: first.clone(),
                summary: if count == 1 {
                    "1 page".to_owned()
                } else {
                    format!("{count} pages")
                },
                date: None,
            });
            let pages = page_count(count, size);
            let mut crumbs = above.clone();
            crumbs.push(Crumb {
                title: "Tags".to_owned(),
                url: tags_url.clone(),
                summary: String::new(),
            });
            for (n, chunk) in tag.pages.chunks(size.max(1)).enumerate() {
                let n = n + 1;
                let title = if n == 1 {
                    format!("Tag: {}", tag.label)
                } else {
                    format!("Tag: {} (page {n} of {pages})", tag.label)
                };
                out.push(Listing {
                    section: &index.section,
                    title,
                    summary: format!(
                        "The pages of {} tagged “{}”, newest first.",
                        index.front.title, tag.label
                    ),
                    url: page_url(&first, n),
                    breadcrumbs: crumbs.clone(),
                    entries: chunk
                        .iter()
                        .map(|d| Entry {
                            title: d.front.title.clone(),
                            url: d.url.clone(),
                            summary: d.front.summary.clone(),
                            date: Some(date_of(site, d).to_string()),
                        })
                        .collect(),
                    paging: paging(&first, n, pages),
                    updated: newest,
                });
            }
        }
        out.push(Listing {
            section: &index.section,
            title: format!("Tags: {}", index.front.title),
            summary: format!("Every tag of {}, with its pages.", index.front.title),
            url: tags_url,
            breadcrumbs: above,
            entries: index_entries,
            paging: None,
            updated: newest_of_all,
        });
    }
    out
}

/// A listing page's HTML, its Markdown twin and the twin's body.
fn render_listing(
    site: &Site<'_>,
    renderer: &Renderer,
    l: &Listing<'_>,
) -> Result<(OutFile, OutFile, String)> {
    let cs = &site.content.site;
    let Some(licence) = site.licences.get(cs.default_licence.as_str()).copied() else {
        bail!(
            "default_licence `{}` is not among the licences",
            cs.default_licence
        );
    };
    let md_url = format!("{}index.md", l.url);
    let page = ListingCtx {
        title: &l.title,
        summary: &l.summary,
        url: &l.url,
        nav_url: site.nav_url(&l.url),
        md_url,
        licence,
        breadcrumbs: &l.breadcrumbs,
        entries: &l.entries,
        paging: &l.paging,
    };
    let html = renderer.render(TEMPLATE, &site.ctx(&page, None))?;
    let mut twin = twin_head(
        site,
        TwinHead {
            title: &l.title,
            summary: &l.summary,
            url: &l.url,
            licence,
            attribution: &cs.default_attribution,
            updated: l.updated,
        },
    );
    let mut body = String::new();
    for e in &l.entries {
        body.push_str(&format!(
            "- [{}]({}{}index.md){}: {}\n",
            e.title,
            site.base_url,
            e.url,
            e.date
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default(),
            e.summary
        ));
    }
    if let Some(p) = &l.paging {
        body.push('\n');
        if let Some(prev) = &p.prev {
            body.push_str(&format!("Previous page: {}{prev}index.md\n", site.base_url));
        }
        if let Some(next) = &p.next {
            body.push_str(&format!("Next page: {}{next}index.md\n", site.base_url));
        }
    }
    twin.push_str(&body);
    let dir = l.url.trim_start_matches('/');
    Ok((
        OutFile {
            path: format!("{dir}index.html"),
            bytes: html.into_bytes(),
        },
        OutFile {
            path: format!("{dir}index.md"),
            bytes: twin.into_bytes(),
        },
        body,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_one_is_the_listing_itself_and_the_ends_have_one_neighbour() {
        assert_eq!(page_count(0, 20), 1);
        assert_eq!(page_count(20, 20), 1);
        assert_eq!(page_count(21, 20), 2);
        assert_eq!(page_url("/docs/s/", 1), "/docs/s/");
        assert_eq!(page_url("/docs/s/", 3), "/docs/s/page/3/");
        assert_eq!(paging("/docs/s/", 1, 1), None);
        let first = paging("/docs/s/", 1, 3).unwrap();
        assert_eq!(
            (first.prev, first.next.as_deref()),
            (None, Some("/docs/s/page/2/"))
        );
        let middle = paging("/docs/s/", 2, 3).unwrap();
        assert_eq!(middle.prev.as_deref(), Some("/docs/s/"));
        assert_eq!(middle.next.as_deref(), Some("/docs/s/page/3/"));
        let last = paging("/docs/s/", 3, 3).unwrap();
        assert_eq!(
            (last.prev.as_deref(), last.next),
            (Some("/docs/s/page/2/"), None)
        );
    }
}
