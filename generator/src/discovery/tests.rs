//! Snapshot and shape tests of the discovery documents.

use serde_json::Value;

use super::catalogs::{clip, host, reverse_dns};
use super::text::one_line;
use super::*;
use crate::model::Date;
use crate::openapi::CONTRACT_VERSION;
use crate::openapi::fixture::{self, BASE_URL};
use crate::origin::Origins;

fn docs() -> Vec<DocLink> {
    let doc = |url: &str, title: &str, summary: &str, section: &str| DocLink {
        url: url.to_owned(),
        title: title.to_owned(),
        summary: summary.to_owned(),
        section: section.to_owned(),
    };
    vec![
        doc("/docs/data/", "Open data", "What the data holds.", "Guides"),
        doc(
            "/docs/api/",
            "Using the API",
            "Filters,\n pages and formats.",
            "Reference",
        ),
        doc("/docs/mcp/", "MCP [beta]", "Connecting an agent.", "Guides"),
    ]
}

fn snapshot_json(name: &str, value: &Value) {
    insta::with_settings!({ snapshot_path => "../snapshots" }, {
        insta::assert_json_snapshot!(name, value);
    });
}

fn snapshot_text(name: &str, value: &str) {
    insta::with_settings!({ snapshot_path => "../snapshots" }, {
        insta::assert_snapshot!(name, value);
    });
}

/// Every string member named `url`, `href`, `anchor` or ending in `Url`.
fn urls(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let is_url = matches!(k.as_str(), "url" | "href" | "anchor") || k.ends_with("Url");
                match v {
                    Value::String(s) if is_url => out.push(s.clone()),
                    _ => urls(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| urls(v, out)),
        _ => {}
    }
}

fn assert_same_origin(value: &Value, expected: usize) {
    let mut found = Vec::new();
    urls(value, &mut found);
    assert_eq!(found.len(), expected, "{found:?}");
    for url in found {
        assert!(url.starts_with(&format!("{BASE_URL}/")), "{url}");
    }
}

#[test]
fn host_is_taken_from_the_base_url() {
    assert_eq!(host(BASE_URL), "waterwatch.example.org");
    assert_eq!(host("https://Example.ORG:8443/sub"), "example.org");
    assert_eq!(host("http://127.0.0.1:8080"), "127.0.0.1");
    assert_eq!(host("http://[::1]:8080/"), "::1");
    assert_eq!(
        reverse_dns("waterwatch.example.org"),
        "org.example.waterwatch"
    );
}

#[test]
fn ai_catalog_is_bounded_and_same_origin() {
    let catalog = ai_catalog(BASE_URL, &fixture::site(), &fixture::service());
    let parsed: Value = serde_json::from_str(&serde_json::to_string(&catalog).unwrap()).unwrap();
    assert_eq!(parsed["specVersion"], "1.0");
    assert_eq!(parsed["host"]["displayName"], "Water Watch");
    let entries = parsed["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 7);
    // The OGC API – Features, by its OpenAPI 3.0 definition.
    assert!(
        entries
            .iter()
            .any(|e| e["type"] == contract::media::OPENAPI_30
                && e["url"] == format!("{BASE_URL}/api/features/openapi.json"))
    );
    let mut ids: Vec<&str> = Vec::new();
    for e in entries {
        let id = e["identifier"].as_str().unwrap();
        assert!(id.starts_with("urn:air:waterwatch.example.org:"), "{id}");
        assert_eq!(id.split(':').count(), 5, "{id}");
        assert!(!ids.contains(&id), "duplicate {id}");
        ids.push(id);
        assert!(e["type"].as_str().is_some_and(|t| t.contains('/')));
        assert!(e.get("url").is_some() != e.get("data").is_some());
        assert_eq!(e["updatedAt"], "2026-10-15T00:00:00Z");
    }
    let mcp = &entries[0];
    assert_eq!(mcp["type"], MCP_SERVER_CARD_MEDIA_TYPE);
    assert_eq!(mcp["url"], format!("{BASE_URL}{MCP_SERVER_CARD_PATH}"));
    assert_eq!(entries[1]["version"], CONTRACT_VERSION);
    // Seven entry urls plus the host's documentationUrl.
    assert_same_origin(&parsed, 8);
    snapshot_json("ai_catalog", &catalog);
}

#[test]
fn server_card_follows_the_draft_shape() {
    let card = mcp_server_card(
        &Origins::same(BASE_URL),
        &fixture::site(),
        &fixture::service(),
    );
    let name = card["name"].as_str().unwrap();
    assert_eq!(name, "org.example.waterwatch/public-information");
    let (ns, local) = name.split_once('/').unwrap();
    assert!(!local.contains('/') && !ns.is_empty());
    assert!(card["description"].as_str().unwrap().chars().count() <= 100);
    assert_eq!(card["version"], "1.0.0");
    assert_eq!(card["remotes"][0]["type"], "streamable-http");
    assert_eq!(card["remotes"][0]["url"], format!("{BASE_URL}/mcp/"));
    assert_eq!(
        card["remotes"][0]["supportedProtocolVersions"],
        serde_json::json!(["2024-11-05", "2025-03-26", "2025-06-18"])
    );
    assert_eq!(card["_meta"]["org.example.waterwatch/readOnly"], true);
    assert!(card["_meta"]["org.example.waterwatch/capabilities"]["tools"].is_object());
    assert_same_origin(&card, 2);
    snapshot_json("mcp_server_card", &card);
}

#[test]
fn clip_bounds_length_on_char_boundaries() {
    assert_eq!(clip("short", 10), "short");
    let long = "é".repeat(150);
    let clipped = clip(&long, 100);
    assert_eq!(clipped.chars().count(), 100);
    assert!(clipped.ends_with('…'));
    assert_eq!(clip("abc def", 5), "abc…");
}

#[test]
fn api_catalog_is_a_linkset() {
    let catalog = api_catalog(&Origins::same(BASE_URL), &fixture::service());
    let linkset = catalog["linkset"].as_array().unwrap();
    assert_eq!(linkset.len(), 2);
    assert_eq!(linkset[1]["anchor"], format!("{BASE_URL}/api/features"));
    assert_eq!(
        linkset[1]["service-desc"][0]["type"],
        contract::media::OPENAPI_30
    );
    let context = linkset[0].as_object().unwrap();
    assert_eq!(context["anchor"], format!("{BASE_URL}/"));
    for rel in ["service-desc", "service-doc", "service-meta", "status"] {
        let targets = context[rel].as_array().unwrap_or_else(|| panic!("{rel}"));
        assert!(
            targets
                .iter()
                .all(|t| t["href"].is_string() && t["type"].is_string())
        );
    }
    assert_eq!(context["service-desc"][0]["type"], OPENAPI_MEDIA_TYPE);
    assert_same_origin(&catalog, 9);
    assert_eq!(context["service-meta"][1]["type"], "application/ld+json");
    snapshot_json("api_catalog", &catalog);
}

#[test]
fn llms_txt_has_the_expected_structure() {
    let text = llms_txt(
        &Origins::same(BASE_URL),
        &fixture::site(),
        &fixture::service(),
        &docs(),
        &[],
    );
    assert!(text.starts_with("# Water Watch\n"));
    let quote = text.lines().find(|l| l.starts_with("> ")).expect("summary");
    assert!(quote.contains("lakes & ponds"), "{quote}");
    assert!(text.contains("must never submit"));
    let api = text.find("\n## API\n").unwrap();
    // Every page of the fixture is in a section: no empty `Documentation`.
    assert!(!text.contains("\n## Documentation\n"));
    let documentation = text.find("\n## Guides\n").unwrap();
    let optional = text.find("\n## Optional\n").unwrap();
    assert!(api < documentation && documentation < optional);
    for line in text.lines().filter(|l| l.starts_with("- [")) {
        let url = line.split("](").nth(1).unwrap().split(')').next().unwrap();
        assert!(url.starts_with(&format!("{BASE_URL}/")), "{line}");
        assert!(line.contains("): "), "{line}");
    }
    // Grouped by section in order of first appearance; twins are Markdown.
    let data = text
        .find("(https://waterwatch.example.org/docs/data/index.md)")
        .unwrap();
    // Brackets in a title become parentheses (the format's parser reads
    // a label up to the first `]`, escaped or not).
    let mcp = text
        .find("- [MCP (beta)](https://waterwatch.example.org/docs/mcp/index.md)")
        .unwrap();
    let api_doc = text
        .find("/docs/api/index.md): Filters, pages and formats.")
        .unwrap();
    assert!(data < mcp && mcp < api_doc);
    // Each section of the documentation is an H2 of its own: under an H2
    // the format has link items only.
    assert!(text.contains("\n## Guides\n") && text.contains("\n## Reference\n"));
    assert!(!text.contains("Guides:\n"));
    let mut headings: Vec<&str> = text.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(headings.last(), Some(&"## Optional"));
    let all = headings.len();
    headings.sort_unstable();
    headings.dedup();
    assert_eq!(headings.len(), all, "repeated H2 headings");
    let mut in_section = false;
    for line in text.lines() {
        in_section |= line.starts_with("## ");
        if in_section && !line.is_empty() && !line.starts_with("## ") {
            assert!(
                line.starts_with("- ["),
                "not a link item under an H2: {line}"
            );
        }
    }
    snapshot_text("llms_txt", &text);
}

/// The home page's summary is the site's description, quoted at the top
/// already: its entry links the page without saying it again.
#[test]
fn llms_txt_says_the_description_once() {
    let service = fixture::service();
    let mut docs = docs();
    docs.insert(
        0,
        DocLink {
            url: "/".to_owned(),
            title: "Home".to_owned(),
            summary: service.description.clone(),
            section: String::new(),
        },
    );
    let text = llms_txt(
        &Origins::same(BASE_URL),
        &fixture::site(),
        &service,
        &docs,
        &[],
    );
    let description = one_line(&service.description);
    assert_eq!(text.matches(description.as_str()).count(), 1, "{text}");
    assert!(
        text.contains("- [Home](https://waterwatch.example.org/index.md)\n"),
        "{text}"
    );
    assert!(text.contains("/docs/data/index.md): What the data holds.\n"));
}

#[test]
fn llms_txt_without_docs_still_has_every_section() {
    let text = llms_txt(
        &Origins::same(BASE_URL),
        &fixture::site(),
        &fixture::service(),
        &[],
        &[],
    );
    assert!(text.contains("## Documentation\n\n\n## Optional"));
}

#[test]
fn llms_txt_lists_each_language_under_its_own_name() {
    let dutch = crate::model::Language {
        code: "nl".to_owned(),
        name: "Nederlands".to_owned(),
    };
    let mut page = docs()[0].clone();
    page.url = format!("/nl{}", page.url);
    page.title = "Vertaald".to_owned();
    let translated = [Translated {
        language: &dutch,
        docs: vec![page.clone()],
    }];
    let text = llms_txt(
        &Origins::same(BASE_URL),
        &fixture::site(),
        &fixture::service(),
        &docs(),
        &translated,
    );
    let own = text
        .find("\n## Nederlands (nl)\n")
        .expect("a section of its own");
    let optional = text.find("\n## Optional\n").unwrap();
    assert!(own < optional, "{text}");
    let section = &text[own..optional];
    assert!(
        section.contains(&format!("[Vertaald]({BASE_URL}{}index.md)", page.url)),
        "{section}"
    );
    assert!(
        section.contains(&format!("({BASE_URL}/nl/feed.xml)")),
        "{section}"
    );
    // The English sections above it do not list it.
    assert_eq!(text.matches("Vertaald").count(), 1);
    assert!(text.contains("translated into Nederlands (`nl`)"));
}

#[test]
fn robots_txt_points_at_the_sitemap() {
    let text = robots_txt(BASE_URL);
    assert!(text.contains(&format!("Sitemap: {BASE_URL}/sitemap.xml\n")));
    assert!(text.contains("User-agent: *\n"));
    for path in ["/api/contact.php", "/mcp/"] {
        assert!(text.contains(&format!("Disallow: {path}\n")), "{path}");
    }
    assert!(!text.lines().any(|l| l == "Disallow: /"));
    snapshot_text("robots_txt", &text);
}

/// A small well-formedness check: balanced tags and only known entities.
fn assert_well_formed(xml: &str) {
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .expect("declaration");
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        let mut amp = text;
        while let Some(i) = amp.find('&') {
            let tail = &amp[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| tail.starts_with(e)),
                "bare & in {text:?}"
            );
            amp = &amp[i + 1..];
        }
        assert!(!text.contains('>'), "stray > in {text:?}");
        let end = rest[start..].find('>').expect("unclosed tag") + start;
        let tag = &rest[start + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "mismatched </{name}>");
        } else if tag.ends_with('/') {
            // Self-closing: nothing to match.
        } else {
            stack.push(tag.split(' ').next().unwrap());
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(rest.trim(), "");
}

#[test]
fn sitemap_is_well_formed_and_escaped() {
    let date = |s: &str| Date::parse(s).unwrap();
    let pages = vec![
        ("/".to_owned(), date("2026-11-01")),
        ("/docs/a&b/".to_owned(), date("2026-10-01")),
        ("/docs/<odd>/".to_owned(), date("2024-02-29")),
    ];
    let xml = sitemap_xml(BASE_URL, &pages, &Default::default());
    assert_well_formed(&xml);
    assert!(
        !xml.contains("xmlns:xhtml"),
        "no namespace without alternates"
    );
    assert!(xml.contains("<loc>https://waterwatch.example.org/docs/a&amp;b/</loc>"));
    assert!(xml.contains("<lastmod>2024-02-29</lastmod>"));
    assert_eq!(xml.matches("<url>").count(), 3);
    let first = xml.find("example.org/</loc>").unwrap();
    let second = xml.find("a&amp;b").unwrap();
    assert!(first < second, "order kept");
    snapshot_text("sitemap_xml", &xml);

    // A page and its translation list each other, themselves and the
    // default; a page without one lists nothing.
    let pair = vec![
        ("en".to_owned(), "/docs/a/".to_owned()),
        ("nl".to_owned(), "/nl/docs/a/".to_owned()),
        ("x-default".to_owned(), "/docs/a/".to_owned()),
    ];
    let pages = vec![
        ("/docs/a/".to_owned(), date("2026-11-01")),
        ("/nl/docs/a/".to_owned(), date("2026-11-02")),
        ("/docs/b/".to_owned(), date("2026-11-03")),
    ];
    let alternates: SitemapAlternates = [
        ("/docs/a/".to_owned(), pair.clone()),
        ("/nl/docs/a/".to_owned(), pair),
    ]
    .into_iter()
    .collect();
    let xml = sitemap_xml(BASE_URL, &pages, &alternates);
    assert_well_formed(&xml);
    assert!(xml.contains("xmlns:xhtml=\"http://www.w3.org/1999/xhtml\""));
    assert_eq!(xml.matches("<xhtml:link ").count(), 6);
    let nl = "<xhtml:link rel=\"alternate\" hreflang=\"nl\" href=\"https://waterwatch.example.org/nl/docs/a/\"/>";
    assert_eq!(xml.matches(nl).count(), 2);
    let b = &xml[xml.find("/docs/b/</loc>").unwrap()..];
    assert!(!b[..b.find("</url>").unwrap()].contains("xhtml:link"));
}

#[test]
fn expires_is_364_days_later_at_midnight() {
    let expires = |s: &str| security_expires(&Date::parse(s).unwrap());
    assert_eq!(expires("2026-11-01"), "2027-10-31T00:00:00Z");
    assert_eq!(expires("2024-02-29"), "2025-02-27T00:00:00Z");
    assert_eq!(expires("2023-03-01"), "2024-02-28T00:00:00Z");
    assert_eq!(expires("2027-12-31"), "2028-12-29T00:00:00Z");
    assert_eq!(expires("2024-01-01"), "2024-12-30T00:00:00Z");
    assert_eq!(expires("2099-03-02"), "2100-03-01T00:00:00Z");
    assert_eq!(expires("1999-03-01"), "2000-02-28T00:00:00Z");
}

#[test]
fn security_txt_has_the_required_fields() {
    let text = security_txt(BASE_URL, &fixture::site(), &fixture::service());
    assert!(text.contains("Contact: mailto:info@waterwatch.example.org\n"));
    assert_eq!(text.matches("\nExpires: ").count(), 1);
    assert!(text.contains("Expires: 2027-10-31T00:00:00Z\n"));
    assert!(text.contains("Preferred-Languages: en, nl\n"));
    assert!(text.contains(&format!("Canonical: {BASE_URL}/.well-known/security.txt\n")));
    for line in text.lines() {
        assert!(line.starts_with('#') || line.contains(": "), "{line}");
    }
    snapshot_text("security_txt", &text);
}

#[test]
fn a_separate_api_origin_is_named_for_the_sidecar_routes_only() {
    let api = "https://api.example.net";
    let origins = Origins {
        site: BASE_URL.to_owned(),
        separate_api: Some(api.to_owned()),
    };
    let card = mcp_server_card(&origins, &fixture::site(), &fixture::service());
    assert_eq!(card["remotes"][0]["url"], format!("{api}/mcp/"));
    assert_eq!(card["websiteUrl"], format!("{BASE_URL}/docs/"));
    let catalog = api_catalog(&origins, &fixture::service());
    let links = &catalog["linkset"][0];
    assert_eq!(links["status"][0]["href"], format!("{api}/readyz"));
    assert_eq!(
        links["service-desc"][0]["href"],
        format!("{BASE_URL}/openapi.json")
    );
    let text = llms_txt(
        &origins,
        &fixture::site(),
        &fixture::service(),
        &docs(),
        &[],
    );
    for path in ["/mcp/", "/api/platform-stats.php", "/api/globe-data.php"] {
        assert!(text.contains(&format!("]({api}{path})")), "{path}: {text}");
    }
    for path in ["/openapi.json", "/api/service.json", "/sitemap.xml"] {
        assert!(
            text.contains(&format!("]({BASE_URL}{path})")),
            "{path}: {text}"
        );
    }
    // The same origin twice is the same-origin layout.
    assert_eq!(
        mcp_server_card(
            &Origins::same(BASE_URL),
            &fixture::site(),
            &fixture::service()
        )["remotes"][0]["url"],
        format!("{BASE_URL}/mcp/")
    );
}

#[test]
fn the_feed_lists_the_documents_updated_last_newest_first() {
    let head = FeedHead {
        title: "Water & Watch",
        subtitle: "New <and> updated",
        author: "Blue Reach",
        rights: "CC-BY-4.0",
        language: "en",
        path: "/feed.xml",
        home: "/",
    };
    // More documents than the feed holds: the oldest fall out.
    let mut list: Vec<FeedEntry> = Vec::new();
    for i in 0..FEED_ENTRIES + 5 {
        let mut d = docs()[i % 3].clone();
        d.url = format!("/docs/page-{i:03}/");
        let day = 1 + (i % 28);
        list.push((
            d,
            Date::parse(&format!("2026-0{}-{day:02}", 1 + i % 9)).unwrap(),
            Vec::new(),
        ));
    }
    let feed = atom_feed(BASE_URL, &head, &list);
    assert!(feed.contains("<title>Water &amp; Watch</title>"), "{feed}");
    assert!(feed.contains("<subtitle>New &lt;and&gt; updated</subtitle>"));
    assert_eq!(feed.matches("<entry>").count(), FEED_ENTRIES);
    let times: Vec<&str> = feed.split("<updated>").skip(1).map(|s| &s[..20]).collect();
    // The feed's own time is its newest entry's; entries never get newer.
    assert_eq!(times[0], times[1]);
    assert!(times[1..].windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    let mut newest: Vec<&Date> = list.iter().map(|(_, d, _)| d).collect();
    newest.sort_by(|a, b| b.cmp(a));
    let oldest_listed = &times[times.len() - 1][..10];
    assert_eq!(oldest_listed, newest[FEED_ENTRIES - 1].to_string());
    // Each entry links its page and its twin on the site.
    for entry in feed.split("<entry>").skip(1) {
        let id = &entry[entry.find("<id>").unwrap() + 4..entry.find("</id>").unwrap()];
        assert!(id.starts_with(&format!("{BASE_URL}/docs/page-")), "{id}");
        assert!(entry.contains(&format!("type=\"text/html\" href=\"{id}\"")));
        assert!(entry.contains(&format!("type=\"text/markdown\" href=\"{id}index.md\"")));
    }
    assert!(feed.contains(&format!(
        "<link rel=\"self\" type=\"application/atom+xml\" href=\"{BASE_URL}/feed.xml\"/>"
    )));
    assert!(feed.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"en\">"));
    assert!(feed.ends_with("</feed>\n"));
}
