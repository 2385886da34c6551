//! The pages and files that are not documents: the home page, the 404
//! page, the contact pages, the chat page, the problem pages, and the JSON
//! and discovery documents.

use anyhow::{Context, Result};
use minijinja::Value;
use minijinja::value::Serde;
use serde::Serialize;
use serde_json::json;

use super::languages::{Alternate, sitemap_alternates};
use super::{Crumb, Site, TextEntries, TwinHead, categories, children_of, crumb, twin_head};
use crate::content::Document;
use crate::discovery::{self, DocLink};
use crate::markdown;
use crate::messages::Messages;
use crate::model::{Date, Licence};
use crate::output::OutFile;
use crate::render::Renderer;
use crate::search::SearchDocument;
use contract::ProblemCode;
use contract::manifest;

/// The list of problem codes.
const PROBLEMS_URL: &str = "/docs/problems/";
const PROBLEMS_TITLE: &str = "Problem codes";
const PROBLEMS_SUMMARY: &str =
    "Every error code this service answers with, and what to do about it.";

#[derive(Serialize)]
struct SimplePage<'a> {
    title: &'a str,
    summary: &'a str,
    url: &'a str,
    nav_url: String,
    /// Set on the pages with a Markdown twin (see [`twin`]).
    md_url: Option<String>,
    licence: Option<&'a Licence>,
    /// A page in another language than the site's: its code.
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<String>,
    /// The page in every language it exists in (`hreflang`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    alternates: Vec<Alternate>,
    /// The language switcher's links.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    languages: Vec<Alternate>,
}

fn simple<'a>(site: &Site<'_>, title: &'a str, summary: &'a str, url: &'a str) -> SimplePage<'a> {
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

/// The section of follow-up reports; the home page shows its newest.
const REPORTS_URL: &str = "/docs/platform/reports/";
/// How many reports the home page shows.
const LATEST_REPORTS: usize = 3;

/// What the home page shows beside the service information.
#[derive(Serialize)]
struct HomeCtx<'a> {
    /// The first sentence of the organisation's description.
    lead: &'a str,
    /// The documentation's sections (the pages one level under /docs/).
    sections: &'a [Crumb],
    /// The newest reports, newest first.
    latest: Vec<Latest>,
    reports_url: &'static str,
    feed_url: &'static str,
}

#[derive(Serialize)]
struct Latest {
    title: String,
    url: String,
    summary: String,
    /// `YYYY-MM-DD`, for `<time datetime>`.
    date: String,
    /// The date as a reader writes it ("15 October 2026").
    date_text: String,
}

/// `text` up to the end of its first sentence (a full stop followed by a
/// space), or all of it.
fn first_sentence(text: &str) -> &str {
    text.find(". ").map_or(text, |i| &text[..=i])
}

/// The newest [`LATEST_REPORTS`] reports by their `updated` date (then by
/// URL), the section's own page left out.
fn latest_reports(site: &Site<'_>) -> Vec<Latest> {
    let mut reports: Vec<(&crate::content::Document, &Date)> = children_of(site, REPORTS_URL)
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
    reports
        .into_iter()
        .take(LATEST_REPORTS)
        .map(|(d, date)| {
            let day = date.calendar();
            Latest {
                title: d.front.title.clone(),
                url: d.url.clone(),
                summary: d.front.summary.clone(),
                date: date.to_string(),
                date_text: format!("{} {} {}", day.day(), day.month(), day.year()),
            }
        })
        .collect()
}

/// A fixed page that has a Markdown twin: it links the twin and states the
/// twin's licence, the site's default.
fn with_twin<'a>(site: &Site<'a>, mut page: SimplePage<'a>) -> SimplePage<'a> {
    page.md_url = Some(format!("{}index.md", page.url));
    page.licence = site
        .licences
        .get(site.content.site.default_licence.as_str())
        .copied();
    page
}

/// The fixed pages, the Markdown twins of those in the sitemap (the home
/// page and the list of problem codes) and their search-index entries.
pub(super) fn render_fixed_pages(
    site: &Site<'_>,
    renderer: &Renderer,
) -> Result<(Vec<OutFile>, TextEntries)> {
    let service = &site.content.service;
    let mut out = Vec::new();
    let mut index = Vec::new();
    let home = with_twin(site, simple(site, &service.name, &service.description, "/"));
    // The documentation's sections (the pages one level under /docs/), for
    // the home page's overview.
    let sections: Vec<Crumb> = children_of(site, "/docs/").into_iter().map(crumb).collect();
    let front = HomeCtx {
        lead: first_sentence(&service.description),
        sections: &sections,
        latest: latest_reports(site),
        reports_url: REPORTS_URL,
        feed_url: contract::routes::FEED.path,
    };
    out.push(OutFile {
        path: "index.html".into(),
        bytes: renderer
            .render(
                "home.html",
                &site.ctx(&home, Some(("home", Value::from(Serde(&front))))),
            )?
            .into_bytes(),
    });
    let mut body = String::from("## Documentation\n\n");
    for c in &sections {
        body.push_str(&format!(
            "- [{}]({}{}index.md): {}\n",
            c.title, site.base_url, c.url, c.summary
        ));
    }
    twin(site, &home, "", &body, &mut out, &mut index);
    let missing = simple(
        site,
        "Page not found",
        "There is no page at this address.",
        "/404.html",
    );
    out.push(OutFile {
        path: manifest::NOT_FOUND_PAGE.into(),
        bytes: renderer
            .render("404.html", &site.ctx(&missing, None))?
            .into_bytes(),
    });
    // The human contact form and its thank-you page (the form's topics come
    // from `service` in the shared context), and the chat page.
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
            contract::routes::CONTACT_THANKS,
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
    chat_pages(site, renderer, &mut out)?;
    let list = with_twin(
        site,
        simple(site, PROBLEMS_TITLE, PROBLEMS_SUMMARY, PROBLEMS_URL),
    );
    let problems: Vec<_> = ProblemCode::ALL.into_iter().map(problem_json).collect();
    out.push(OutFile {
        path: "docs/problems/index.html".into(),
        bytes: renderer
            .render(
                "problems.html",
                &site.ctx(&list, Some(("problems", Value::from(Serde(&problems))))),
            )?
            .into_bytes(),
    });
    let mut body = String::new();
    for p in ProblemCode::ALL {
        body.push_str(&format!(
            "- `{code}` (HTTP {}): {}. {} [The page of `{code}`]({}/docs/problems/{code}/)\n",
            p.status(),
            p.title(),
            p.explanation(),
            site.base_url,
            code = p.as_str(),
        ));
    }
    twin(site, &list, "problems", &body, &mut out, &mut index);
    for p in ProblemCode::ALL {
        let url = format!("/docs/problems/{}/", p.as_str());
        let page = simple(site, p.title(), p.explanation(), &url);
        out.push(OutFile {
            path: format!("docs/problems/{}/index.html", p.as_str()),
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
    Ok((out, index))
}

/// The chat page in each language the site has pages in (`/chat/`,
/// `/nl/chat/`; decision 0265), its words from the message files; the
/// same chat opens as a panel from every page's header
/// (templates/assets/chat.js), asking the pages of the page's language.
fn chat_pages(site: &Site<'_>, renderer: &Renderer, out: &mut Vec<OutFile>) -> Result<()> {
    let cs = &site.content.site;
    let has_pages = |code: &str| {
        code == cs.language
            || site
                .content
                .documents
                .iter()
                .any(|d| d.translation.as_ref().is_some_and(|t| t.language == code))
    };
    let url_in = |code: &str| {
        if code == cs.language {
            "/chat/".to_owned()
        } else {
            format!("/{code}/chat/")
        }
    };
    let versions: Vec<Alternate> = cs
        .languages
        .iter()
        .filter(|l| has_pages(&l.code))
        .map(|l| Alternate {
            language: l.code.clone(),
            name: l.name.clone(),
            url: url_in(&l.code),
        })
        .collect();
    let mut codes: Vec<&str> = vec![cs.language.as_str()];
    codes.extend(
        versions
            .iter()
            .map(|a| a.language.as_str())
            .filter(|c| *c != cs.language),
    );
    for code in codes {
        let word = |key: &str| -> Result<String> {
            Ok(renderer
                .messages
                .get(code, key)
                .map_err(anyhow::Error::msg)?
                .to_owned())
        };
        let (title, summary, url) = (
            word("chat_page.title")?,
            word("chat_page.summary")?,
            url_in(code),
        );
        let mut page = simple(site, &title, &summary, &url);
        if versions.len() > 1 {
            page.alternates = versions.clone();
            page.languages = versions
                .iter()
                .filter(|a| a.language != code)
                .cloned()
                .collect();
        }
        if code != cs.language {
            page.language = Some(code.to_owned());
        }
        out.push(OutFile {
            path: format!("{}index.html", url.trim_start_matches('/')),
            bytes: renderer
                .render("chat.html", &site.ctx(&page, None))?
                .into_bytes(),
        });
    }
    Ok(())
}

/// The Markdown twin of a fixed page made by [`with_twin`], and its
/// search-index entry.
fn twin(
    site: &Site<'_>,
    page: &SimplePage<'_>,
    section: &str,
    body: &str,
    out: &mut Vec<OutFile>,
    index: &mut TextEntries,
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
    let entry = SearchDocument {
        url: page.url.to_owned(),
        title: page.title.to_owned(),
        summary: page.summary.to_owned(),
        section: section.to_owned(),
    };
    index.push((entry, markdown::render(body).text));
}

fn problem_json(p: ProblemCode) -> serde_json::Value {
    json!({"code": p.as_str(), "status": p.status(), "title": p.title(), "explanation": p.explanation()})
}

fn pretty(value: &impl Serialize) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value).context("serialising JSON")?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// JSON documents and discovery files; `listed` are the sitemap rows of
/// the listing pages ([`super::listings`]) and `listings` their entries
/// (for `llms.txt`, which names every page with a twin).
pub(super) fn data_files(
    site: &Site<'_>,
    messages: &Messages,
    listed: &[(String, Date)],
    listings: &[(SearchDocument, String)],
) -> Result<Vec<OutFile>> {
    let cs = &site.content.site;
    let service = &site.content.service;
    let base = site.base_url.as_str();
    let link = |d: &Document| DocLink {
        url: d.url.clone(),
        title: d.front.title.clone(),
        summary: d.front.summary.clone(),
        section: d.section.clone(),
    };
    // Each document's date, for the feed and the sitemap.
    let date = |d: &Document| d.front.updated.clone().unwrap_or(cs.updated.clone());
    // The feed and `llms.txt` list the default language's pages; each
    // other language has its own feed and section (decision 0263).
    let in_language = |code: &str| -> Vec<&Document> {
        let default = code == cs.language.as_str();
        site.content
            .documents
            .iter()
            .filter(|d| {
                d.translation
                    .as_ref()
                    .map_or(default, |t| t.language == code)
            })
            .collect()
    };
    let feed_of = |code: &str| -> Vec<discovery::FeedEntry> {
        in_language(code)
            .into_iter()
            .map(|d| (link(d), date(d), categories(base, d)))
            .collect()
    };
    let mut docs: Vec<DocLink> = in_language(&cs.language).into_iter().map(link).collect();
    // The fixed pages with a twin: the home page first, the problem codes
    // as a section of their own.
    docs.insert(
        0,
        DocLink {
            url: "/".to_owned(),
            title: service.name.clone(),
            summary: service.description.clone(),
            section: String::new(),
        },
    );
    docs.push(DocLink {
        url: PROBLEMS_URL.to_owned(),
        title: PROBLEMS_TITLE.to_owned(),
        summary: PROBLEMS_SUMMARY.to_owned(),
        section: "problems".to_owned(),
    });
    // The listing pages after their section's documents, in URL order.
    for (l, _) in listings {
        let at = docs
            .iter()
            .rposition(|d| d.section == l.section && d.url <= l.url)
            .map_or(docs.len(), |i| i + 1);
        docs.insert(
            at,
            DocLink {
                url: l.url.clone(),
                title: l.title.clone(),
                summary: l.summary.clone(),
                section: l.section.clone(),
            },
        );
    }
    let mut pages: Vec<(String, Date)> = vec![("/".to_owned(), cs.updated.clone())];
    for d in &site.content.documents {
        pages.push((d.url.clone(), date(d)));
    }
    pages.push((PROBLEMS_URL.to_owned(), cs.updated.clone()));
    pages.extend(listed.iter().cloned());

    let rights = site.licences.get(cs.default_licence.as_str()).map_or_else(
        || cs.default_licence.to_string(),
        |l| format!("{} ({})", l.title, l.id),
    );
    let subtitle = |code: &str| -> Result<String> {
        Ok(messages
            .get(code, "feed.subtitle")
            .map_err(anyhow::Error::msg)?
            .replace("{name}", &service.name))
    };
    let feed = discovery::atom_feed(
        base,
        &discovery::FeedHead {
            title: &cs.title,
            subtitle: &subtitle(&cs.language)?,
            author: &service.name,
            rights: &rights,
            language: &cs.language,
            path: contract::routes::FEED.path,
            home: "/",
        },
        &feed_of(&cs.language),
    );
    let mut translated = Vec::new();
    let mut language_feeds = Vec::new();
    for l in cs.translations() {
        let entries = feed_of(&l.code);
        if entries.is_empty() {
            continue;
        }
        let path = format!("/{}{}", l.code, contract::routes::FEED.path);
        let home = format!("/{}/", l.code);
        let home = if site.by_url.contains_key(home.as_str()) {
            home
        } else {
            "/".to_owned()
        };
        let title = format!("{} ({})", cs.title, l.name);
        let xml = discovery::atom_feed(
            base,
            &discovery::FeedHead {
                title: &title,
                subtitle: &subtitle(&l.code)?,
                author: &service.name,
                rights: &rights,
                language: &l.code,
                path: &path,
                home: &home,
            },
            &entries,
        );
        language_feeds.push(OutFile {
            path: path.trim_start_matches('/').to_owned(),
            bytes: xml.into_bytes(),
        });
        translated.push(discovery::Translated {
            language: l,
            docs: entries.into_iter().map(|(link, _, _)| link).collect(),
        });
    }
    let text = |path: &str, s: String| OutFile {
        path: path.to_owned(),
        bytes: s.into_bytes(),
    };
    // One card at both locations (decision 0047).
    let card = pretty(&discovery::mcp_server_card(&site.origins, cs, service))?;
    let mut files = vec![
        OutFile {
            path: manifest::SERVICE_INFORMATION.into(),
            bytes: pretty(service)?,
        },
        OutFile {
            path: manifest::OPENAPI.into(),
            bytes: pretty(&site.openapi)?,
        },
        OutFile {
            path: manifest::AI_CATALOG.into(),
            bytes: pretty(&discovery::ai_catalog(base, cs, service))?,
        },
        OutFile {
            path: manifest::MCP_SERVER_CARD.into(),
            bytes: card.clone(),
        },
        OutFile {
            path: manifest::MCP_SERVER_CARD_WELL_KNOWN.into(),
            bytes: card,
        },
        OutFile {
            path: manifest::FEATURES_OPENAPI.into(),
            bytes: pretty(&crate::openapi::oas30::document(
                &site.openapi,
                site.origins.api(),
            ))?,
        },
        OutFile {
            path: manifest::DATA_CATALOG.into(),
            bytes: pretty(&site.open_data.dcat_ap())?,
        },
        OutFile {
            path: manifest::API_CATALOG.into(),
            bytes: pretty(&discovery::api_catalog(&site.origins, service))?,
        },
        text(
            manifest::LLMS_TXT,
            discovery::llms_txt(&site.origins, cs, service, &docs, &translated),
        ),
        text(manifest::ROBOTS_TXT, discovery::robots_txt(base)),
        text(
            manifest::SITEMAP,
            discovery::sitemap_xml(base, &pages, &sitemap_alternates(site)),
        ),
        text(manifest::FEED, feed),
        text(
            manifest::SECURITY_TXT,
            discovery::security_txt(base, cs, service),
        ),
    ];
    files.extend(language_feeds);
    Ok(files)
}
