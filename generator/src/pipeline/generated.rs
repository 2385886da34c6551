//! The generated pages in each language that has pages (decision 0265):
//! the home page (`/`, `/nl/`), the chat page, the contact form and its
//! thank-you page, their words from the message files; and what every
//! generated page shares ([`SimplePage`], its Markdown twin).

use anyhow::Result;
use minijinja::Value;
use minijinja::value::Serde;
use serde::Serialize;

use super::languages::{Alternate, generated_alternates, generated_url, page_languages};
use super::{Site, TextEntries, TwinHead, children_of, twin_head};
use crate::content::Document;
use crate::markdown;
use crate::model::{Date, Licence};
use crate::output::OutFile;
use crate::render::Renderer;
use crate::search::SearchDocument;

#[derive(Serialize)]
pub(super) struct SimplePage<'a> {
    pub(super) title: &'a str,
    pub(super) summary: &'a str,
    pub(super) url: &'a str,
    /// The top navigation's entry of the page, by its address in the
    /// default language.
    pub(super) nav_url: String,
    /// Set on the pages with a Markdown twin (see [`twin`]).
    pub(super) md_url: Option<String>,
    pub(super) licence: Option<&'a Licence>,
    /// A page in another language than the site's: its code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) language: Option<String>,
    /// The page in every language it exists in (`hreflang`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) alternates: Vec<Alternate>,
    /// The language switcher's links.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) languages: Vec<Alternate>,
}

pub(super) fn simple<'a>(
    site: &Site<'_>,
    title: &'a str,
    summary: &'a str,
    url: &'a str,
) -> SimplePage<'a> {
    SimplePage {
        title,
        summary,
        url,
        nav_url: site.nav_url(url),
        md_url: None,
        licence: None,
        language: None,
        alternates: Vec::new(),
        languages: Vec::new(),
    }
}

/// A fixed page that has a Markdown twin: it links the twin and states the
/// twin's licence, the site's default.
pub(super) fn with_twin<'a>(site: &Site<'a>, mut page: SimplePage<'a>) -> SimplePage<'a> {
    page.md_url = Some(format!("{}index.md", page.url));
    page.licence = site
        .licences
        .get(site.content.site.default_licence.as_str())
        .copied();
    page
}

/// The Markdown twin of a fixed page made by [`with_twin`], and its
/// search-index entry when `index` is given.
pub(super) fn twin(
    site: &Site<'_>,
    page: &SimplePage<'_>,
    section: &str,
    body: &str,
    out: &mut Vec<OutFile>,
    index: Option<&mut TextEntries>,
) {
    let cs = &site.content.site;
    let Some(licence) = page.licence else {
        return;
    };
    let mut text = twin_head(
        site,
        TwinHead {
            title: page.title,
            summary: page.summary,
            url: page.url,
            licence,
            attribution: &cs.default_attribution,
            updated: &cs.updated,
        },
    );
    text.push_str(body.trim_end());
    text.push('\n');
    out.push(OutFile {
        path: format!("{}index.md", page.url.trim_start_matches('/')),
        bytes: text.into_bytes(),
    });
    if let Some(index) = index {
        let entry = SearchDocument {
            url: page.url.to_owned(),
            title: page.title.to_owned(),
            summary: page.summary.to_owned(),
            section: section.to_owned(),
        };
        index.push((entry, markdown::render(body).text));
    }
}

/// The generated page at `url` (in the default language) in `code`: its
/// language, `hreflang` alternates and switcher, and the top navigation's
/// entry of the page it translates.
fn in_language<'a>(
    site: &Site<'_>,
    mut page: SimplePage<'a>,
    code: &str,
    url: &str,
) -> SimplePage<'a> {
    let versions = generated_alternates(site.content, url);
    page.nav_url = site.nav_url(url);
    page.languages = versions
        .iter()
        .filter(|a| a.language != code)
        .cloned()
        .collect();
    page.alternates = versions;
    if code != site.content.site.language {
        page.language = Some(code.to_owned());
    }
    page
}

/// The page `d` (in the default language) in `code`: its translation, or
/// `d` itself when it has none (or `code` is the default).
fn version_in<'a>(site: &Site<'a>, d: &'a Document, code: &str) -> &'a Document {
    site.versions
        .get(d.original_url())
        .and_then(|list| {
            list.iter()
                .find(|v| v.translation.as_ref().is_some_and(|t| t.language == code))
        })
        .copied()
        .unwrap_or(d)
}

/// A page on the home page: in the home page's language, or in the
/// default one (`lang`, so browsers and screen readers read it as such).
#[derive(Serialize)]
struct Card {
    title: String,
    url: String,
    summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
    /// `YYYY-MM-DD`, for `<time datetime>` (reports).
    #[serde(skip_serializing_if = "String::is_empty")]
    date: String,
    /// The date as a reader of the language writes it ("15 October 2026").
    #[serde(skip_serializing_if = "String::is_empty")]
    date_text: String,
}

impl Card {
    /// `d` in `code` where translated, else in the default language.
    fn of(site: &Site<'_>, d: &Document, code: &str) -> Self {
        let v = version_in(site, d, code);
        let own = v.language(&site.content.site.language);
        Card {
            title: v.front.title.clone(),
            url: v.url.clone(),
            summary: v.front.summary.clone(),
            lang: (own != code).then(|| own.to_owned()),
            date: String::new(),
            date_text: String::new(),
        }
    }
}

/// What the home page shows beside the service information.
#[derive(Serialize)]
struct HomeCtx<'a> {
    /// The first sentence of the organisation's description.
    lead: &'a str,
    /// The documentation's sections (the pages one level under /docs/).
    sections: Vec<Card>,
    /// The newest reports, newest first.
    latest: Vec<Card>,
    reports_url: String,
    feed_url: String,
}

/// The section of follow-up reports; the home page shows its newest.
const REPORTS_URL: &str = "/docs/platform/reports/";
/// How many reports the home page shows.
const LATEST_REPORTS: usize = 3;

/// `text` up to the end of its first sentence (a full stop followed by a
/// space), or all of it.
fn first_sentence(text: &str) -> &str {
    text.find(". ").map_or(text, |i| &text[..=i])
}

/// The newest [`LATEST_REPORTS`] reports by their `updated` date (then by
/// URL), the section's own page left out, each in `code` where translated.
fn latest_reports(site: &Site<'_>, renderer: &Renderer, code: &str) -> Result<Vec<Card>> {
    let mut reports: Vec<(&Document, &Date)> = children_of(site, REPORTS_URL)
        .into_iter()
        .map(|d| {
            (
                d,
                d.front
                    .updated
                    .as_ref()
                    .unwrap_or(&site.content.site.updated),
            )
        })
        .collect();
    reports.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.url.cmp(&b.0.url)));
    let months = word(renderer, code, "dates.months")?;
    let months: Vec<&str> = months.split_whitespace().collect();
    let day_format = word(renderer, code, "dates.day")?;
    let mut out = Vec::new();
    for (d, date) in reports.into_iter().take(LATEST_REPORTS) {
        let day = date.calendar();
        let month = months
            .get(usize::from(u8::from(day.month())) - 1)
            .copied()
            .unwrap_or_default();
        let mut card = Card::of(site, d, code);
        card.date = date.to_string();
        card.date_text = day_format
            .replace("{day}", &day.day().to_string())
            .replace("{month}", month)
            .replace("{year}", &day.year().to_string());
        out.push(card);
    }
    Ok(out)
}

fn word(renderer: &Renderer, code: &str, key: &str) -> Result<String> {
    Ok(renderer
        .messages
        .get(code, key)
        .map_err(anyhow::Error::msg)?
        .to_owned())
}

/// The home page in each language with pages, and its Markdown twin with
/// its search-index entry (the browser's index of its language).
pub(super) fn home_pages(
    site: &Site<'_>,
    renderer: &Renderer,
    out: &mut Vec<OutFile>,
    index: &mut TextEntries,
) -> Result<()> {
    let content = site.content;
    let service = &content.service;
    let cs = &content.site;
    // The documentation's sections (the pages one level under /docs/),
    // for the home page's overview.
    let sections = children_of(site, "/docs/");
    let reports = site.by_url.get(REPORTS_URL).copied();
    for code in page_languages(content) {
        let default = code == cs.language;
        let url = generated_url(content, code, "/");
        // The organisation's description in the page's language
        // (`organisation.nl.toml`), else in the default one.
        let summary = content
            .service_texts
            .get(code)
            .filter(|_| !default)
            .map_or(&service.description, |s| &s.description);
        let home = in_language(
            site,
            with_twin(site, simple(site, &service.name, summary, &url)),
            code,
            "/",
        );
        let front = HomeCtx {
            lead: first_sentence(summary),
            sections: sections.iter().map(|d| Card::of(site, d, code)).collect(),
            latest: latest_reports(site, renderer, code)?,
            reports_url: reports.map_or_else(
                || REPORTS_URL.to_owned(),
                |d| version_in(site, d, code).url.clone(),
            ),
            feed_url: if default {
                contract::routes::FEED.path.to_owned()
            } else {
                format!("/{code}{}", contract::routes::FEED.path)
            },
        };
        out.push(OutFile {
            path: format!("{}index.html", url.trim_start_matches('/')),
            bytes: renderer
                .render(
                    "home.html",
                    &site.ctx(&home, Some(("home", Value::from(Serde(&front))))),
                )?
                .into_bytes(),
        });
        let mut body = format!("## {}\n\n", word(renderer, code, "home.twin_heading")?);
        for c in &front.sections {
            body.push_str(&format!(
                "- [{}]({}{}index.md): {}\n",
                c.title, site.base_url, c.url, c.summary
            ));
        }
        twin(site, &home, "", &body, out, Some(&mut *index));
    }
    Ok(())
}

/// The contact form, its thank-you page and the chat page in each
/// language with pages (`/contact/`, `/nl/contact/`, …), their title and
/// summary from the message files; the same chat opens as a panel from
/// every page's header (templates/assets/chat.js), asking the pages of
/// the page's language.
pub(super) fn form_pages(
    site: &Site<'_>,
    renderer: &Renderer,
    out: &mut Vec<OutFile>,
) -> Result<()> {
    let content = site.content;
    for (template, words, url) in [
        ("contact.html", "contact_page", "/contact/"),
        (
            "contact-thanks.html",
            "thanks_page",
            contract::routes::CONTACT_THANKS,
        ),
        ("chat.html", "chat_page", "/chat/"),
    ] {
        for code in page_languages(content) {
            let title = word(renderer, code, &format!("{words}.title"))?;
            let summary = word(renderer, code, &format!("{words}.summary"))?;
            let at = generated_url(content, code, url);
            let page = in_language(site, simple(site, &title, &summary, &at), code, url);
            // The language the form tells the sidecar to answer in: the
            // page's where the sidecar has words for it, else its default
            // (decision 0266).
            let form_language = contract::contact::ContactLanguage::parse(code)
                .unwrap_or_default()
                .code();
            out.push(OutFile {
                path: format!("{}index.html", at.trim_start_matches('/')),
                bytes: renderer
                    .render(
                        template,
                        &site.ctx(&page, Some(("form_language", Value::from(form_language)))),
                    )?
                    .into_bytes(),
            });
        }
    }
    Ok(())
}
