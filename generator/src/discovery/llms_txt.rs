//! `/llms.txt`: the API and the documentation as a Markdown index for
//! language models.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::catalogs::MCP_SERVER_CARD_PATH;
use super::text::{DocLink, one_line};
use crate::model::{Language, ServiceInformation, Site};
use crate::openapi::{CONTRACT_VERSION, MCP_PROTOCOL_VERSIONS};
use crate::origin::Origins;
use contract::routes;

/// The pages of one language other than the site's default, for
/// [`llms_txt`].
pub struct Translated<'a> {
    pub language: &'a Language,
    pub docs: Vec<DocLink>,
}

/// Text for a Markdown link label. Brackets become parentheses rather than
/// being escaped: llmstxt.org's reference parser reads a label up to the
/// first `]`, escaped or not.
fn md_label(s: &str) -> String {
    one_line(s)
        .chars()
        .map(|c| match c {
            '[' => '(',
            ']' => ')',
            c => c,
        })
        .collect()
}

/// Makes a URL safe inside a Markdown link destination.
fn md_url(s: &str) -> String {
    s.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
        .replace('<', "%3C")
        .replace('>', "%3E")
}

/// `- [title](url): notes`, or without `: notes` when there are none.
fn md_item(out: &mut String, title: &str, url: &str, notes: &str) {
    let _ = write!(out, "- [{}]({})", md_label(title), md_url(url));
    let notes = one_line(notes);
    if !notes.is_empty() {
        let _ = write!(out, ": {notes}");
    }
    out.push('\n');
}

/// Whether the guardrails' summary already says how enquiries go.
fn summary_mentions_enquiries(summary: &str) -> bool {
    let lower = summary.to_lowercase();
    lower.contains("enquir") && lower.contains("submit")
}

/// The H2 heading of a documentation section: `Documentation` for the
/// pages outside any section, else the section's name with a capital,
/// prefixed with `Documentation: ` when that would repeat a heading (each
/// heading is a key to a reader of the file).
fn section_heading(section: &str, taken: &[String]) -> String {
    let name = one_line(section);
    if name.is_empty() {
        return "Documentation".to_owned();
    }
    let mut chars = name.chars();
    let capital: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    let taken = |h: &str| taken.iter().any(|t| t.eq_ignore_ascii_case(h));
    if taken(&capital) || capital.eq_ignore_ascii_case("Documentation") {
        format!("Documentation: {name}")
    } else {
        capital
    }
}

/// `/llms.txt` (llmstxt.org): H1, blockquote summary, guardrails, then link
/// lists under `API`, `Documentation` (one H2 per section of the
/// documentation) and `Optional`.
pub fn llms_txt(
    origins: &Origins,
    site: &Site,
    service: &ServiceInformation,
    docs: &[DocLink],
    translations: &[Translated<'_>],
) -> String {
    let base_url = origins.site.as_str();
    let g = &service.guardrails;
    let form = g.enquiries.form_url.absolute(base_url);
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", one_line(&service.name));
    let _ = writeln!(out, "> {}\n", one_line(&service.description));
    // The guardrails' summary usually says it already; say it once.
    let summary = one_line(&g.summary);
    let mut rules = if summary.to_lowercase().contains("read-only") {
        summary
    } else {
        format!(
            "Everything listed here is read-only: reading it changes nothing and contacts no \
            one. {summary}"
        )
    };
    if g.enquiries.agents_may_prepare && summary_mentions_enquiries(&rules) {
        // The summary says who submits; only where is left to say.
        let _ = write!(rules, " The contact form is at {form}.");
    } else if g.enquiries.agents_may_prepare {
        let _ = write!(
            rules,
            " An agent may prepare an enquiry for its user but must never submit it: the user \
            reviews it and sends it through the form at {form}."
        );
    } else {
        let _ = write!(
            rules,
            " Agents must not prepare or submit enquiries; people use the form at {form}."
        );
    }
    let _ = writeln!(out, "{rules}\n");
    if !g.agents_must_not.is_empty() {
        let _ = writeln!(out, "Agents must not:\n");
        for rule in &g.agents_must_not {
            let _ = writeln!(out, "- {}", one_line(rule));
        }
        out.push('\n');
    }
    let _ = write!(
        out,
        "Pages are written in `{}`; each HTML page has a Markdown twin (`index.md`), linked below.",
        site.language
    );
    for t in translations {
        let _ = write!(
            out,
            " The pages translated into {} (`{}`) are listed under that name, with their own feed.",
            one_line(&t.language.name),
            t.language.code
        );
    }
    out.push_str("\n\n");

    out.push_str("## API\n\n");
    let versions = MCP_PROTOCOL_VERSIONS.join(", ");
    let api = [
        ("OpenAPI contract", routes::OPENAPI.path.to_owned(), format!("OpenAPI 3.1.0 description of every route, with schemas; contract version {CONTRACT_VERSION}")),
        ("Service information", routes::SERVICE_INFORMATION.path.to_owned(), "services, projects, evidence, scope, consortium, contact and guardrails as JSON".to_owned()),
        ("MCP endpoint", routes::MCP.path.to_owned(), format!("stateless Streamable HTTP; POST one JSON-RPC 2.0 message per request; protocol versions {versions}; read-only tools")),
        ("Platform statistics", routes::PLATFORM_STATS.path.to_owned(), "live counts of volunteers, observations, sites and projects".to_owned()),
        ("Observations", routes::OBSERVATIONS_DATA.path.to_owned(), "public water observations; filter with parameter, site, from, to and bbox; limit up to 1000; cursor pagination; JSON or CSV".to_owned()),
        ("Observation trend", format!("{}?parameter=nitrate&interval=year", routes::OBSERVATION_TREND.path), "one parameter's count, minimum, mean and maximum per day, week, month or year, with the trend per year; select with site, bbox or country, from and to; parameter is required".to_owned()),
        ("Globe data", routes::GLOBE_DATA.path.to_owned(), "GeoJSON points of public monitoring sites, with coarsened coordinates".to_owned()),
        ("OGC API – Features", routes::FEATURES_LANDING.path.to_owned(), format!("the public sites and observations as collections for GIS software (GeoJSON or HTML), filtered by bbox, datetime and the queryable properties (such as parameter), with numberMatched, paged by next links; OpenAPI 3.0 at {}", routes::FEATURES_OPENAPI.path)),
        ("Open-data catalogue", routes::DATA_CATALOG.path.to_owned(), "DCAT-AP 3 JSON-LD of the open datasets: distributions with media types, licences, coverage in time and space, update frequency".to_owned()),
    ];
    for (title, path, notes) in api {
        md_item(&mut out, title, &origins.url(&path), &notes);
    }
    let above = out.len();
    let mut said: HashSet<String> = HashSet::new();

    // Each section of the documentation is a section of its own: the
    // format has link lists under H2 headings and nothing else, so a
    // sub-heading inside a list would be read as a broken link.
    // `Documentation` holds the pages outside any section; it stays (empty)
    // when there are no pages at all, so every section is always there.
    let mut sections: Vec<&str> = Vec::new();
    if docs.is_empty() || docs.iter().any(|d| d.section.is_empty()) {
        sections.push("");
    }
    for d in docs {
        if !sections.contains(&d.section.as_str()) {
            sections.push(&d.section);
        }
    }
    let mut headings: Vec<String> = ["API", "Optional"].map(str::to_owned).into();
    for section in sections {
        let heading = section_heading(section, &headings);
        let _ = writeln!(out, "\n## {heading}\n");
        headings.push(heading);
        // A summary said already is not said twice: the home page's is the
        // site's description, the quote at the top. What is above the
        // lists is searched; the lists' own summaries are compared whole,
        // since searching them again for each entry grew with the square
        // of the pages (a third of a 10,000-page build).
        for d in docs.iter().filter(|d| d.section == section) {
            let dir = if d.url.ends_with('/') { "" } else { "/" };
            let twin = format!("{base_url}{}{dir}index.md", d.url);
            let summary = one_line(&d.summary);
            let notes = if out[..above].contains(summary.as_str()) || said.contains(&summary) {
                ""
            } else {
                &summary
            };
            md_item(&mut out, &d.title, &twin, notes);
            said.insert(summary);
        }
    }

    // Each other language's pages after the default's, under the
    // language's own name (decision 0263).
    for t in translations {
        let heading = format!("{} ({})", one_line(&t.language.name), t.language.code);
        let _ = writeln!(out, "\n## {heading}\n");
        for d in &t.docs {
            let dir = if d.url.ends_with('/') { "" } else { "/" };
            let twin = format!("{base_url}{}{dir}index.md", d.url);
            md_item(&mut out, &d.title, &twin, &d.summary);
        }
        let feed = format!("{base_url}/{}{}", t.language.code, routes::FEED.path);
        md_item(
            &mut out,
            &format!("Atom feed ({})", t.language.name),
            &feed,
            "",
        );
        md_item(
            &mut out,
            &format!("Contact form ({})", t.language.name),
            &format!("{base_url}/{}/contact/", t.language.code),
            "for people only; agents prepare, people submit",
        );
        md_item(
            &mut out,
            &format!("Chat ({})", t.language.name),
            &format!("{base_url}/{}/chat/", t.language.code),
            "for people: answers quoted from the pages of this language",
        );
    }

    out.push_str("\n## Optional\n\n");
    let optional = [
        (
            "Sitemap",
            routes::SITEMAP.path,
            "every page with its last change",
        ),
        (
            "Atom feed",
            routes::FEED.path,
            "the documents updated last, newest first",
        ),
        (
            "AI catalog",
            routes::AI_CATALOG.path,
            "the artifacts above as an AI Catalog",
        ),
        (
            "API catalog",
            routes::API_CATALOG.path,
            "RFC 9727 linkset pointing at the contract and documentation",
        ),
        (
            "MCP server card",
            MCP_SERVER_CARD_PATH,
            "the MCP endpoint's identity and protocol versions; the same card is at /.well-known/mcp/server-card, where SEP-2127 has clients look",
        ),
        (
            "security.txt",
            routes::SECURITY_TXT.path,
            "how to report a vulnerability",
        ),
        (
            "Search index",
            "/search-index.json",
            "every page with a Markdown twin, by title, summary and section, as JSON in parts it lists",
        ),
        (
            "Search passages",
            "/search-passages.json",
            "the plain text of every documentation page cut at its headings, as JSON in parts it lists",
        ),
    ];
    for (title, path, notes) in optional {
        md_item(&mut out, title, &format!("{base_url}{path}"), notes);
    }
    md_item(
        &mut out,
        "Contact form",
        &form,
        "for people only; agents prepare, people submit",
    );
    md_item(
        &mut out,
        "Chat",
        &format!("{base_url}/chat/"),
        "for people: answers quoted from the pages above; agents use the MCP tool search_documentation",
    );
    out
}
