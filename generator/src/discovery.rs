//! Discovery documents: how crawlers, developers and agents find the contract,
//! the data and the documentation without reading HTML.
//!
//! Every function is pure: the same content gives the same bytes, and every
//! date derives from the content, never from the clock.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::model::{Date, ServiceInformation, Site};
use crate::origin::Origins;
use contract::routes;

use crate::openapi::{CONTRACT_VERSION, MCP_PROTOCOL_VERSIONS};

/// AI Catalog draft version the catalog follows.
pub const AI_CATALOG_SPEC_VERSION: &str = "1.0";
/// Media type of the OpenAPI contract as a discovery target.
pub const OPENAPI_MEDIA_TYPE: &str = contract::media::OPENAPI;
/// Media type of the MCP server card (SEP-2127 draft).
pub const MCP_SERVER_CARD_MEDIA_TYPE: &str = contract::media::MCP_SERVER_CARD;
/// Site path of the MCP server card.
pub const MCP_SERVER_CARD_PATH: &str = routes::MCP_SERVER_CARD.path;
/// JSON Schema the server card declares (SEP-2127: the v1 schema family, the only one published).
pub const MCP_SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/// Name suffix of the MCP server: the last segment of its card `name` and of
/// its AI Catalog identifier.
const MCP_SERVER_NAME: &str = "public-information";

/// A documentation page, as the discovery documents list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocLink {
    /// Site path of the HTML page, such as `/docs/data/`.
    pub url: String,
    pub title: String,
    pub summary: String,
    /// Section the page belongs to; pages are grouped by it.
    pub section: String,
}

/// The host name of `base_url`, lower case, without scheme or port.
fn host(base_url: &str) -> String {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or(v6)
    } else {
        authority.split(':').next().unwrap_or(authority)
    };
    host.to_ascii_lowercase()
}

/// `waterwatch.example.org` → `org.example.waterwatch`.
fn reverse_dns(host: &str) -> String {
    host.rsplit('.').collect::<Vec<_>>().join(".")
}

/// A date as an RFC 3339 timestamp at midnight UTC.
fn midnight(y: i32, m: u32, d: u32) -> String {
    format!("{y:04}-{m:02}-{d:02}T00:00:00Z")
}

fn date_time(date: &Date) -> String {
    let (y, m, d) = date.ymd();
    midnight(y, m, d)
}

/// At most `max` characters of `s`, ending with `…` when cut.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// Collapses runs of whitespace (including newlines) to single spaces.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The AI Catalog (`/.well-known/ai-catalog.json`): a small, fixed list of
/// same-origin entries.
pub fn ai_catalog(base_url: &str, site: &Site, service: &ServiceInformation) -> Value {
    let host = host(base_url);
    let id = |ns: &str, name: &str| format!("urn:air:{host}:{ns}:{name}");
    let updated = date_time(&service.updated);
    json!({
        "specVersion": AI_CATALOG_SPEC_VERSION,
        "host": {
            "displayName": service.name,
            "identifier": host,
            "documentationUrl": format!("{base_url}/docs/"),
        },
        // The server card and the contract carry their own name and
        // description, so those entries omit `displayName` and `description`
        // (the draft asks for that, to avoid two values drifting apart).
        "entries": [
            {
                "identifier": id("mcp", MCP_SERVER_NAME),
                "type": MCP_SERVER_CARD_MEDIA_TYPE,
                // The card, not `POST /mcp/`: an entry's url must return the
                // artifact document itself.
                "url": format!("{base_url}{MCP_SERVER_CARD_PATH}"),
                "version": CONTRACT_VERSION,
                "updatedAt": updated,
            },
            {
                "identifier": id("api", "openapi"),
                "type": OPENAPI_MEDIA_TYPE,
                "url": format!("{base_url}{}", routes::OPENAPI.path),
                "version": CONTRACT_VERSION,
                "updatedAt": updated,
            },
            {
                "identifier": id("api", "service-information"),
                "displayName": format!("{} service information", service.name),
                "description": "Services, projects, evidence, scope, consortium, contact and \
                    guardrails for agents, as JSON.",
                "type": "application/json",
                "url": format!("{base_url}{}", routes::SERVICE_INFORMATION.path),
                "updatedAt": updated,
            },
            {
                "identifier": id("docs", "llms-txt"),
                "displayName": "llms.txt",
                "description": "A Markdown index of the API and documentation for language models.",
                // Served as text/plain (it is a .txt file); the draft asks the
                // type to match what the url serves.
                "type": "text/plain",
                "url": format!("{base_url}/llms.txt"),
                "updatedAt": updated,
            },
            {
                "identifier": id("docs", "feed"),
                "displayName": "Atom feed",
                "description": "The documents updated last, newest first, each with its page and Markdown twin.",
                "type": contract::media::ATOM,
                "url": format!("{base_url}{}", routes::FEED.path),
                "updatedAt": updated,
            },
            {
                "identifier": id("docs", "documentation"),
                "displayName": format!("{} documentation", site.title),
                "description": "Documentation for people; every page has a Markdown twin.",
                "type": "text/html",
                "url": format!("{base_url}/docs/"),
                "updatedAt": updated,
            },
        ],
    })
}

/// The MCP server card (SEP-2127 draft), published at
/// [`MCP_SERVER_CARD_PATH`].
///
/// The card sits under `/.well-known/` as a static file of `dist/`, so a CDN
/// serves it and `/mcp/` stays wholly the sidecar's; the catalog gives its
/// URL, so clients need not guess it. What the draft schema has no member for
/// (capabilities, the read-only promise) goes in `_meta` under our own
/// reverse-DNS prefix, which keeps the card valid against that schema.
pub fn mcp_server_card(origins: &Origins, site: &Site, service: &ServiceInformation) -> Value {
    let base_url = origins.site.as_str();
    let ns = reverse_dns(&host(base_url));
    json!({
        "$schema": MCP_SERVER_CARD_SCHEMA,
        "name": format!("{ns}/{MCP_SERVER_NAME}"),
        "version": CONTRACT_VERSION,
        "title": clip(&site.title, 100),
        "description": clip(
            &format!("Read-only public information and open data of {}.", service.name),
            100,
        ),
        "websiteUrl": format!("{base_url}/docs/"),
        "remotes": [{
            "type": "streamable-http",
            "url": origins.url(routes::MCP.path),
            "supportedProtocolVersions": MCP_PROTOCOL_VERSIONS,
        }],
        "_meta": {
            format!("{ns}/capabilities"): {
                "tools": { "listChanged": false },
                "resources": { "subscribe": false, "listChanged": false },
                "prompts": { "listChanged": false },
            },
            format!("{ns}/readOnly"): true,
            format!("{ns}/stateless"): true,
            format!("{ns}/guardrails"): format!(
                "Every tool only reads. {} Agents may prepare an enquiry; only a human submits it, at {}.",
                one_line(&service.guardrails.summary),
                service.guardrails.enquiries.form_url.absolute(base_url),
            ),
        },
    })
}

/// The RFC 9727 API catalog (`/.well-known/api-catalog`) as an RFC 9264 JSON
/// linkset with one context: the API at the site's root.
pub fn api_catalog(origins: &Origins, service: &ServiceInformation) -> Value {
    let base_url = origins.site.as_str();
    json!({
        "linkset": [{
            "anchor": format!("{base_url}/"),
            "service-desc": [{
                "href": format!("{base_url}{}", routes::OPENAPI.path),
                "type": OPENAPI_MEDIA_TYPE,
                "title": format!("{} OpenAPI contract", service.name),
            }],
            "service-doc": [{
                "href": format!("{base_url}/docs/"),
                "type": "text/html",
                "title": format!("{} documentation", service.name),
            }],
            "service-meta": [{
                "href": format!("{base_url}{}", routes::SERVICE_INFORMATION.path),
                "type": "application/json",
                "title": format!("{} service information", service.name),
            }],
            "status": [{
                "href": origins.url(routes::READYZ.path),
                "type": "application/json",
            }],
        }],
    })
}

/// Escapes text for a Markdown link label.
fn md_label(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in one_line(s).chars() {
        if matches!(c, '\\' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Makes a URL safe inside a Markdown link destination.
fn md_url(s: &str) -> String {
    s.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
        .replace('<', "%3C")
        .replace('>', "%3E")
}

fn md_item(out: &mut String, title: &str, url: &str, notes: &str) {
    let _ = writeln!(
        out,
        "- [{}]({}): {}",
        md_label(title),
        md_url(url),
        one_line(notes)
    );
}

/// Whether the guardrails' summary already says how enquiries go.
fn summary_mentions_enquiries(summary: &str) -> bool {
    let lower = summary.to_lowercase();
    lower.contains("enquir") && lower.contains("submit")
}

/// `/llms.txt` (llmstxt.org): H1, blockquote summary, guardrails, then link
/// lists under `API`, `Documentation` and `Optional`.
pub fn llms_txt(
    origins: &Origins,
    site: &Site,
    service: &ServiceInformation,
    docs: &[DocLink],
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
    let _ = writeln!(
        out,
        "Pages are written in `{}`; each HTML page has a Markdown twin (`index.md`), linked below.\n",
        site.language
    );

    out.push_str("## API\n\n");
    let versions = MCP_PROTOCOL_VERSIONS.join(", ");
    let api = [
        ("OpenAPI contract", routes::OPENAPI.path.to_owned(), format!("OpenAPI 3.1.0 description of every route, with schemas; contract version {CONTRACT_VERSION}")),
        ("Service information", routes::SERVICE_INFORMATION.path.to_owned(), "services, projects, evidence, scope, consortium, contact and guardrails as JSON".to_owned()),
        ("MCP endpoint", routes::MCP.path.to_owned(), format!("stateless Streamable HTTP; POST one JSON-RPC 2.0 message per request; protocol versions {versions}; read-only tools")),
        ("Platform statistics", routes::PLATFORM_STATS.path.to_owned(), "live counts of volunteers, observations, sites and projects".to_owned()),
        ("Observations", routes::OBSERVATIONS_DATA.path.to_owned(), "public water observations; filter with parameter, site, from, to and bbox; limit up to 1000; cursor pagination; JSON or CSV".to_owned()),
        ("Globe data", routes::GLOBE_DATA.path.to_owned(), "GeoJSON points of public monitoring sites, with coarsened coordinates".to_owned()),
    ];
    for (title, path, notes) in api {
        md_item(&mut out, title, &origins.url(&path), &notes);
    }

    out.push_str("\n## Documentation\n\n");
    let mut sections: Vec<&str> = Vec::new();
    for d in docs {
        if !sections.contains(&d.section.as_str()) {
            sections.push(&d.section);
        }
    }
    for (i, section) in sections.iter().enumerate() {
        if sections.len() > 1 && !section.is_empty() {
            if i > 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "{}:\n", one_line(section));
        }
        for d in docs.iter().filter(|d| d.section == *section) {
            let dir = if d.url.ends_with('/') { "" } else { "/" };
            let twin = format!("{base_url}{}{dir}index.md", d.url);
            md_item(&mut out, &d.title, &twin, &d.summary);
        }
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
            "the MCP endpoint's identity and protocol versions",
        ),
        (
            "security.txt",
            routes::SECURITY_TXT.path,
            "how to report a vulnerability",
        ),
        (
            "Search index",
            "/search-index.json",
            "the plain text of every documentation page as JSON, in parts it lists",
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

/// `/robots.txt`: crawl everything except the endpoints that act or cost.
pub fn robots_txt(base_url: &str) -> String {
    let mcp_alias = routes::MCP.alias.map_or("", |a| a.path);
    format!(
        "# Everything public may be crawled. The contact and MCP endpoints take POSTs,\n\
        # and each challenge costs the server work, so crawlers keep away from them.\n\
        User-agent: *\n\
        Allow: /\n\
        Disallow: {}\n\
        Disallow: {}\n\
        Disallow: {}\n\
        Disallow: {mcp_alias}$\n\
        \n\
        Sitemap: {base_url}{}\n",
        routes::CONTACT.path,
        routes::CONTACT_CHALLENGE.path,
        routes::MCP.path,
        routes::SITEMAP.path,
    )
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// How many documents the feed lists: the most recently updated.
pub const FEED_ENTRIES: usize = 50;

/// The identity of the feed: its title, what it is, who publishes it.
pub struct FeedHead<'a> {
    pub title: &'a str,
    pub subtitle: &'a str,
    pub author: &'a str,
    /// The licence of the feed's text.
    pub rights: &'a str,
}

/// `/feed.xml`, an Atom feed (RFC 4287) of the [`FEED_ENTRIES`] documents
/// updated last (newest first; equal dates by URL). Each entry's id is its
/// page's URL, its update time midnight UTC of the document's date, and it
/// links the page and its Markdown twin. The feed's own time is its newest
/// entry's, so the feed changes only when a document does.
pub fn atom_feed(base_url: &str, head: &FeedHead<'_>, docs: &[(DocLink, Date)]) -> String {
    let mut newest: Vec<&(DocLink, Date)> = docs.iter().collect();
    newest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.url.cmp(&b.0.url)));
    newest.truncate(FEED_ENTRIES);
    let updated = newest
        .first()
        .map_or_else(|| "1970-01-01".to_owned(), |(_, d)| d.to_string());
    let x = xml_escape;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = write!(
        out,
        "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n  \
         <id>{base}{feed}</id>\n  <title>{title}</title>\n  <subtitle>{subtitle}</subtitle>\n  \
         <updated>{updated}T00:00:00Z</updated>\n  \
         <author><name>{author}</name><uri>{base}/</uri></author>\n  \
         <rights>{rights}</rights>\n  \
         <link rel=\"self\" type=\"{atom}\" href=\"{base}{feed}\"/>\n  \
         <link rel=\"alternate\" type=\"text/html\" href=\"{base}/\"/>\n",
        base = x(base_url),
        feed = routes::FEED.path,
        title = x(head.title),
        subtitle = x(head.subtitle),
        author = x(head.author),
        rights = x(head.rights),
        atom = contract::media::ATOM,
    );
    for (d, date) in newest {
        let page = x(&format!("{base_url}{}", d.url));
        let _ = write!(
            out,
            "  <entry>\n    <id>{page}</id>\n    <title>{}</title>\n    \
             <updated>{date}T00:00:00Z</updated>\n    \
             <link rel=\"alternate\" type=\"text/html\" href=\"{page}\"/>\n    \
             <link rel=\"alternate\" type=\"text/markdown\" href=\"{page}index.md\"/>\n    \
             <summary>{}</summary>\n  </entry>\n",
            x(&d.title),
            x(&d.summary),
        );
    }
    out.push_str("</feed>\n");
    out
}

/// `/sitemap.xml` (sitemaps.org) of `pages`, in the order given.
pub fn sitemap_xml(base_url: &str, pages: &[(String, Date)]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
        <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (path, lastmod) in pages {
        let _ = writeln!(
            out,
            "  <url>\n    <loc>{}</loc>\n    <lastmod>{lastmod}</lastmod>\n  </url>",
            xml_escape(&format!("{base_url}{path}"))
        );
    }
    out.push_str("</urlset>\n");
    out
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i32, m: u32, d: u32) -> i64 {
    // Count years from March, so the leap day is the last day of a year.
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_from_march = (i64::from(m) + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(d) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let d = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let m = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let y = year_of_era + era * 400 + i64::from(m <= 2);
    // The ranges are bounded by construction: a month is 1..=12, a day 1..=31.
    (y as i32, m as u32, d as u32)
}

/// RFC 9116 `Expires`: 364 days after `date`, at midnight UTC — always less
/// than a year ahead of the content date, leap years included.
pub fn security_expires(date: &Date) -> String {
    let (y, m, d) = date.ymd();
    let (y, m, d) = civil_from_days(days_from_civil(y, m, d) + 364);
    midnight(y, m, d)
}

/// `/.well-known/security.txt` (RFC 9116).
pub fn security_txt(base_url: &str, site: &Site, service: &ServiceInformation) -> String {
    let languages = if service.contact.languages.is_empty() {
        site.language.clone()
    } else {
        service.contact.languages.join(", ")
    };
    format!(
        "# How to report a security problem to {name}.\n\
        Contact: mailto:{email}\n\
        Contact: {form}\n\
        Expires: {expires}\n\
        Preferred-Languages: {languages}\n\
        Canonical: {base_url}/.well-known/security.txt\n",
        name = one_line(&service.name),
        email = service.contact.email,
        form = service.contact.form_url.absolute(base_url),
        expires = security_expires(&site.updated),
    )
}

#[cfg(test)]
mod tests;
