//! The pages and files that are not documents: the home page, the 404
//! page, the contact pages, the chat page, the problem pages, and the JSON
//! and discovery documents.

use anyhow::{Context, Result};
use minijinja::Value;
use minijinja::value::Serde;
use serde::Serialize;
use serde_json::json;

use super::generated::{form_pages, home_pages, simple, twin, with_twin};
use super::languages::{generated_alternates, sitemap_alternates};
use super::{Site, TextEntries, categories};
use crate::content::Document;
use crate::discovery::{self, DocLink};
use crate::messages::Messages;
use crate::model::Date;
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

/// The fixed pages, the Markdown twins of those in the sitemap (the home
/// page and the list of problem codes) and their search-index entries.
pub(super) fn render_fixed_pages(
    site: &Site<'_>,
    renderer: &Renderer,
) -> Result<(Vec<OutFile>, TextEntries)> {
    let mut out = Vec::new();
    let mut index = Vec::new();
    home_pages(site, renderer, &mut out, &mut index)?;
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
    form_pages(site, renderer, &mut out)?;
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
    twin(site, &list, "problems", &body, &mut out, Some(&mut index));
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
    // The home page in each other language with pages (`/nl/`).
    pages.extend(
        generated_alternates(site.content, "/")
            .into_iter()
            .filter(|a| a.language != cs.language)
            .map(|a| (a.url, cs.updated.clone())),
    );
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
        messages
            .fill(code, "feed.subtitle", &[("name", service.name.as_str())])
            .map_err(anyhow::Error::msg)
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
        // Every language with pages has its home page (decision 0267).
        let home = format!("/{}/", l.code);
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
        // The language's home page first, as the default's is.
        let home = DocLink {
            url: home,
            title: service.name.clone(),
            summary: site
                .content
                .service_texts
                .get(&l.code)
                .map_or(&service.description, |s| &s.description)
                .clone(),
            section: String::new(),
        };
        translated.push(discovery::Translated {
            language: l,
            docs: std::iter::once(home)
                .chain(entries.into_iter().map(|(link, _, _)| link))
                .collect(),
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
