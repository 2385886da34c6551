//! Tags and paged listings through the real `generate` binary, on a copy
//! of the sample content with more reports and a page size of 2.
//!
//! - Each tag of a section with `tags_enabled = true` has a page at
//!   `<section>tags/<slug>/` (newest first, itself paged) and the section
//!   an index at `<section>tags/`; tags differing only in case and spaces
//!   are one tag. They are real pages: a Markdown twin, manifest entries
//!   with an ETag, sitemap rows, search entries.
//! - A tagged page links its tags; the feed gives each entry a category
//!   per tag; the search index finds a page by its tags.
//! - A listing longer than `page_size` continues at `…/page/2/` with
//!   `<link rel="prev">`/`<link rel="next">` and visible links.
//! - A tag in a section without tags fails the build naming file and line.

use std::path::Path;

use common::sample_site::{BASE, SampleSite as Site};

mod browser_search;

const REPORTS: &str = "docs/platform/reports/";

/// The sample content, `page_size = 2`, and four more reports (seven
/// in all: four listing pages).
fn paged_site() -> Site {
    let site = Site::new();
    let content = site.content();
    let site_toml = content.join("site.toml");
    let text = std::fs::read_to_string(&site_toml).unwrap();
    let text = text.replacen("\nupdated = ", "\npage_size = 2\nupdated = ", 1);
    std::fs::write(&site_toml, text).unwrap();
    for (slug, date, tags) in [
        ("extra-a", "2026-11-20", r#"["water  QUALITY", "Sensors"]"#),
        ("extra-b", "2026-08-01", r#"["Water quality"]"#),
        ("extra-c", "2026-05-05", r#"["water-quality", "Sensors"]"#),
        ("extra-d", "2026-03-03", "[]"),
    ] {
        site.write(
            &format!("platform/reports/{slug}.md"),
            &format!(
                "+++\ntitle = \"Report {slug}\"\nsummary = \"The {slug} report.\"\nweight = 40\n\
                 updated = \"{date}\"\ntags = {tags}\n+++\n\nText of {slug}.\n"
            ),
        );
    }
    site
}

fn manifest(dist: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dist.join("manifest.json")).unwrap()).unwrap()
}

/// The hrefs of the cards of a listing, in order.
fn listed(html: &str) -> Vec<&str> {
    let cards = &html[html.find("<ul class=\"cards\">").expect("a listing")..];
    let cards = &cards[..cards.find("</ul>").unwrap()];
    cards
        .split("<li><a href=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect()
}

/// The `<link rel>` hrefs of a page's head for `rel`.
fn head_link<'a>(html: &'a str, rel: &str) -> Option<&'a str> {
    let head = &html[..html.find("</head>").unwrap()];
    let tag = format!("<link rel=\"{rel}\" href=\"");
    head.find(&tag).map(|i| {
        let rest = &head[i + tag.len()..];
        &rest[..rest.find('"').unwrap()]
    })
}

#[test]
fn tags_get_pages_and_long_listings_continue_on_later_pages() {
    let site = paged_site();
    site.built();
    let dist = site.dist();
    let files = &manifest(&dist)["files"];

    // Case and space variants are one tag, newest first; its page is paged.
    let tag = format!("{REPORTS}tags/water-quality/");
    let first = site.read(&format!("{tag}index.html"));
    assert!(first.contains("<h1>Tag: water QUALITY</h1>"), "{first}");
    assert_eq!(
        listed(&first),
        [
            "/docs/platform/reports/extra-a/",
            "/docs/platform/reports/bloom-season-2026/"
        ]
    );
    assert_eq!(head_link(&first, "prev"), None);
    assert_eq!(
        head_link(&first, "next"),
        Some("/docs/platform/reports/tags/water-quality/page/2/")
    );
    let second = site.read(&format!("{tag}page/2/index.html"));
    assert_eq!(
        listed(&second),
        [
            "/docs/platform/reports/extra-b/",
            "/docs/platform/reports/extra-c/"
        ]
    );
    assert_eq!(
        head_link(&second, "prev"),
        Some("/docs/platform/reports/tags/water-quality/")
    );
    assert_eq!(head_link(&second, "next"), None);
    assert!(second.contains(
        "rel=\"prev\" href=\"/docs/platform/reports/tags/water-quality/\">← Previous</a>"
    ));
    assert!(!dist.join(format!("{tag}page/3")).exists());

    // The index of the section's tags, one row per tag.
    let index = site.read(&format!("{REPORTS}tags/index.html"));
    let tags = listed(&index);
    assert_eq!(tags.len(), 8, "{tags:?}");
    assert!(tags.contains(&"/docs/platform/reports/tags/sensors/"));
    assert!(tags.contains(&"/docs/platform/reports/tags/data-quality/"));
    assert!(index.contains(">4 pages<"), "water quality has four pages");

    // Real pages: twin, manifest entry with an ETag, sitemap row.
    let sitemap = site.read("sitemap.xml");
    for url in [
        format!("{REPORTS}tags/"),
        tag.clone(),
        format!("{tag}page/2/"),
        format!("{REPORTS}page/2/"),
        format!("{REPORTS}page/4/"),
    ] {
        for file in ["index.html", "index.md"] {
            let rel = format!("{url}{file}");
            let entry = &files[&rel];
            assert!(
                entry["etag"].as_str().is_some_and(|e| e.starts_with('"')),
                "{rel} in the manifest with an ETag: {entry}"
            );
        }
        assert!(
            sitemap.contains(&format!("<loc>{BASE}/{url}</loc>")),
            "{url} in the sitemap"
        );
    }
    let twin = site.read(&format!("{tag}index.md"));
    assert!(
        twin.contains(&format!(
            "- [Report extra-a]({BASE}/{REPORTS}extra-a/index.md) (2026-11-20)"
        )),
        "{twin}"
    );
    assert!(twin.contains(&format!("Next page: {BASE}/{tag}page/2/index.md")));

    // A tagged page links its own tags, as written.
    let page = site.read(&format!("{REPORTS}extra-a/index.html"));
    assert!(page.contains(
        "<li><a rel=\"tag\" href=\"/docs/platform/reports/tags/water-quality/\">water QUALITY</a></li>"
    ));
    assert!(page.contains("href=\"/docs/platform/reports/tags/sensors/\">Sensors</a>"));

    // The feed: a category per tag, with the tag index as its scheme.
    let feed = site.read("feed.xml");
    let entry = feed
        .split("<entry>")
        .find(|e| e.contains("/extra-c/</id>"))
        .expect("extra-c in the feed");
    assert!(entry.contains(&format!(
        "<category term=\"water-quality\" label=\"water-quality\" scheme=\"{BASE}/{REPORTS}tags/\"/>"
    )), "{entry}");
    assert!(entry.contains("<category term=\"sensors\" label=\"Sensors\""));
    let untagged = feed
        .split("<entry>")
        .find(|e| e.contains("/extra-d/</id>"))
        .expect("extra-d in the feed");
    assert!(!untagged.contains("<category"));

    // The site search finds a page by its tags; the search index lists
    // the listing pages (`generate check` below holds every twin to be in
    // it).
    assert!(
        browser_search::finds(&dist, "search/", "Sensors")
            .contains(&"/docs/platform/reports/extra-c/".to_owned()),
        "extra-c found by its tag"
    );
    let index = contract::search::read_index(contract::search::read_from(&dist)).unwrap();
    let entry = |url: &str| index.documents.iter().find(|d| d.url == url);
    assert!(entry("/docs/platform/reports/extra-c/").is_some());
    assert!(entry(&format!("/{tag}page/2/")).is_some());
    assert!(entry(&format!("/{REPORTS}tags/")).is_some());

    // The section's listing: seven reports, two a page, four pages.
    let section = site.read(&format!("{REPORTS}index.html"));
    assert_eq!(listed(&section).len(), 2);
    assert_eq!(head_link(&section, "prev"), None);
    assert_eq!(
        head_link(&section, "next"),
        Some("/docs/platform/reports/page/2/")
    );
    assert!(section.contains("<span>Page 1 of 4</span>"));
    let mut seen: Vec<String> = listed(&section).iter().map(|s| s.to_string()).collect();
    for n in 2..=4 {
        let html = site.read(&format!("{REPORTS}page/{n}/index.html"));
        let prev = if n == 2 {
            "/docs/platform/reports/".to_owned()
        } else {
            format!("/docs/platform/reports/page/{}/", n - 1)
        };
        assert_eq!(head_link(&html, "prev"), Some(prev.as_str()), "page {n}");
        let next = (n < 4).then(|| format!("/docs/platform/reports/page/{}/", n + 1));
        assert_eq!(head_link(&html, "next"), next.as_deref(), "page {n}");
        assert!(html.contains(&format!("<span>Page {n} of 4</span>")));
        seen.extend(listed(&html).iter().map(|s| s.to_string()));
    }
    assert_eq!(seen.len(), 7, "every report listed once: {seen:?}");
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 7);
    assert!(!dist.join(format!("{REPORTS}page/5")).exists());

    // A short listing is one page, without paging links.
    let data = site.read("docs/data/index.html");
    assert_eq!(head_link(&data, "next"), None);
    assert!(!data.contains("class=\"paging\""));

    let check = site.run(&[
        "check",
        "--content",
        site.content().to_str().unwrap(),
        "--out",
        dist.to_str().unwrap(),
    ]);
    assert!(
        check.status.success(),
        "generate check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn a_tag_outside_a_section_with_tags_fails_naming_file_and_line() {
    let site = paged_site();
    site.front("data/globe.md", r#"tags = ["Maps"]"#);
    let err = site.refused();
    assert!(
        err.contains(
            "docs/data/globe.md:2:1: tags on a page of /docs/data/, a section without tags"
        ),
        "{err}"
    );

    let site = paged_site();
    site.front("platform/reports/release-3-audit.md", "tags_enabled = true");
    let err = site.refused();
    assert!(
        err.contains("release-3-audit.md:2:1: tags_enabled on a page"),
        "{err}"
    );

    let site = paged_site();
    site.write(
        "platform/reports/extra-d.md",
        "+++\ntitle = \"D\"\nsummary = \"D.\"\ntags = [\"--\"]\n+++\n",
    );
    let err = site.refused();
    assert!(err.contains("tag `--` has no letter or digit"), "{err}");
}
