//! The content writer's front matter through the real `generate` binary on
//! a copy of the sample content: a moved page (`aliases`) and a draft.
//!
//! - An alias becomes a redirect in the manifest and a small HTML page at
//!   the old path (link, `rel=canonical`, meta refresh), in neither the
//!   sitemap nor the search files.
//! - An alias that is not a site path, or that is a page's address or
//!   another alias, fails the build naming the files (and the line).
//! - A draft is left out of `generate build` entirely, built and marked by
//!   `generate serve`; `generate check` names the draft a published page
//!   links to.
//! - Every page carries OpenGraph and Twitter card metadata, with the
//!   page's first image or the site's `social_image`, and an "Edit this
//!   page" link when `site.toml` names an `edit_url`.
//! - A document without `updated` takes the day of the last commit that
//!   touched it, or its file's time when changed since or outside git.
//! - A document of `pages/` publishes at the top of the site like any page
//!   (twin, sitemap row, search entry); one that would take the home page,
//!   a folder of the site's own or a page the build writes fails naming it.

use std::path::Path;
use std::process::{Command, Stdio};

use common::host_config::{Running, free_port, get};
use common::sample_site::{BASE, SampleSite as Site};
use common::{generate_bin, repo};

fn manifest(dist: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dist.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn an_alias_is_a_redirect_and_a_page_that_points_on() {
    let site = Site::new();
    site.front("data/globe.md", r#"aliases = ["/globe", "/docs/map.html"]"#);
    site.built();

    let redirects = &manifest(&site.dist())["redirects"];
    assert_eq!(
        redirects,
        &serde_json::json!({
            "/docs/archive/getting-started/": "/docs/archive/quick-start/",
            "/docs/map.html": "/docs/data/globe/",
            "/globe/": "/docs/data/globe/"
        })
    );
    for rel in ["globe/index.html", "docs/map.html"] {
        let page = site.read(rel);
        assert!(
            page.contains(&format!(
                r#"<link rel="canonical" href="{BASE}/docs/data/globe/">"#
            )),
            "{rel}: {page}"
        );
        assert!(page.contains(r#"<meta http-equiv="refresh" content="0; url=/docs/data/globe/">"#));
        assert!(page.contains(r#"<a href="/docs/data/globe/">Globe of monitoring sites</a>"#));
        assert!(
            manifest(&site.dist())["files"][rel].is_object(),
            "{rel} in the manifest"
        );
    }
    // Old addresses are not pages of the site.
    for rel in ["sitemap.xml", "search-index.json", "llms.txt"] {
        let text = site.read(rel);
        assert!(
            !text.contains(".org/globe/")
                && !text.contains("\"/globe/\"")
                && !text.contains("/docs/map.html"),
            "{rel} lists an alias"
        );
    }
    assert!(
        site.check().status.success(),
        "generate check after aliases"
    );
}

#[test]
fn an_alias_that_is_not_a_path_of_its_own_fails_the_build() {
    let site = Site::new();
    site.front("data/globe.md", r#"aliases = ["old page"]"#);
    let err = site.refused();
    assert!(
        err.contains("docs/data/globe.md:2:")
            && err.contains("alias `old page` is not a site path"),
        "{err}"
    );

    let site = Site::new();
    site.front("data/globe.md", r#"aliases = ["/docs/data"]"#);
    let err = site.refused();
    assert!(
        err.contains("docs/data/globe.md: alias /docs/data/ is the address of")
            && err.contains("docs/data/_index.md"),
        "{err}"
    );

    let site = Site::new();
    site.front("data/globe.md", r#"aliases = ["/old/"]"#);
    site.front("data/statistics.md", r#"aliases = ["/old/"]"#);
    let err = site.refused();
    assert!(
        err.contains("alias /old/ is also an alias in")
            && err.contains("globe.md")
            && err.contains("statistics.md"),
        "{err}"
    );

    let site = Site::new();
    site.front("data/globe.md", r#"aliases = ["/contact/"]"#);
    let err = site.refused();
    assert!(
        err.contains("docs/data/globe.md: alias /contact/ is the address of a page the site has"),
        "{err}"
    );
}

#[test]
fn a_draft_is_served_and_marked_but_never_built() {
    let site = Site::new();
    site.write(
        "data/upcoming.md",
        "+++\ntitle = \"Upcoming data release\"\nsummary = \"What the next release will hold.\"\ndraft = true\naliases = [\"/upcoming/\"]\n+++\n\nNot yet.\n",
    );
    site.built();
    assert!(
        !site.dist().join("docs/data/upcoming").exists(),
        "the draft was built"
    );
    assert!(
        !site.dist().join("upcoming").exists(),
        "the draft's alias was built"
    );
    for rel in [
        "sitemap.xml",
        "search-index.json",
        "llms.txt",
        "feed.xml",
        "docs/data/index.html",
    ] {
        assert!(
            !site.read(rel).contains("/docs/data/upcoming/"),
            "{rel} names the draft"
        );
    }
    // Only the sample's own moved page.
    assert_eq!(
        manifest(&site.dist())["redirects"],
        serde_json::json!({"/docs/archive/getting-started/": "/docs/archive/quick-start/"})
    );
    assert!(site.check().status.success());

    // A published page that links to the draft: `generate check` names it.
    let stats = site.content().join("docs/data/statistics.md");
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::write(
        &stats,
        format!("{text}\nSee the [upcoming release](/docs/data/upcoming/).\n"),
    )
    .unwrap();
    site.built();
    let o = site.check();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains(
            "docs/data/statistics/index.html: broken link `/docs/data/upcoming/` (a draft, "
        ) && err.contains("docs/data/upcoming.md: publish it or remove the link"),
        "{err}"
    );

    // `generate serve` builds the draft and marks it.
    let port = free_port();
    let content = site.content();
    let templates = repo().join("templates");
    let _serve = Running(
        Command::new(generate_bin())
            .args([
                "serve",
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--content",
            ])
            .arg(&content)
            .arg("--templates")
            .arg(&templates)
            .env_remove("GENERATE_SIDECAR_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
    .listening(port);
    let (status, _, body) = get(port, "/docs/data/upcoming/", "identity");
    let body = String::from_utf8_lossy(&body);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(r#"<p class="notice draft" role="note">Draft:"#),
        "{body}"
    );
    let (status, _, body) = get(port, "/docs/data/statistics/", "identity");
    assert_eq!(status, 200);
    assert!(!String::from_utf8_lossy(&body).contains("notice draft"));
}

/// Every front-matter key the loader accepts (as it names them when it
/// refuses an unknown one) has a row in `docs/writing-content.md`.
#[test]
fn the_guide_documents_every_front_matter_key() {
    let site = Site::new();
    site.front("data/globe.md", r#"colour = "blue""#);
    let err = site.refused();
    let (_, expected) = err
        .split_once("unknown field `colour`, expected one of ")
        .unwrap_or_else(|| panic!("{err}"));
    let keys: Vec<&str> = expected
        .trim()
        .split(", ")
        .map(|k| k.trim_matches('`'))
        .collect();
    assert!(
        keys.contains(&"title") && keys.contains(&"draft"),
        "{keys:?}"
    );
    let guide = std::fs::read_to_string(repo().join("docs/writing-content.md")).unwrap();
    for key in keys {
        assert!(
            guide.contains(&format!("| `{key}` |")),
            "docs/writing-content.md has no row for the front-matter key `{key}`"
        );
    }
}

const PAGE: &str = "+++\ntitle = \"Accessibility\"\nsummary = \"How accessible the site is.\"\n+++\n\nWe test every page.\n";

#[test]
fn a_page_of_pages_is_published_at_the_top_of_the_site() {
    let site = Site::new();
    site.write_content("pages/about-us/accessibility.md", PAGE);
    site.built();
    for (url, rel, title) in [
        ("/imprint/", "imprint/", "Legal notice"),
        (
            "/about-us/accessibility/",
            "about-us/accessibility/",
            "Accessibility",
        ),
    ] {
        let page = site.read(&format!("{rel}index.html"));
        assert!(page.contains(&format!("<h1>{title}</h1>")), "{page}");
        assert!(page.contains(&format!(r#"<link rel="canonical" href="{BASE}{url}">"#)));
        let twin = site.read(&format!("{rel}index.md"));
        assert!(twin.starts_with(&format!("# {title}\n")), "{twin}");
        assert!(
            site.read("sitemap.xml")
                .contains(&format!("<loc>{BASE}{url}</loc>"))
        );
        assert!(
            site.read("llms.txt")
                .contains(&format!("({BASE}{url}index.md)"))
        );
        assert!(manifest(&site.dist())["files"][format!("{rel}index.html")].is_object());
        let indexed = std::fs::read_dir(site.dist().join("search"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .any(|text| text.contains(&format!("\"{url}\",\"{title}\",\"pages\"")));
        assert!(indexed, "{url} in the search files");
    }
    // The site's footer links to the legal notice (site.toml `footer`).
    assert!(
        site.read("docs/data/globe/index.html")
            .contains(r#"<a href="/imprint/">Legal notice</a>"#)
    );
    assert!(site.check().status.success(), "generate check with pages");
}

#[test]
fn a_page_of_pages_cannot_take_an_address_of_the_site() {
    for (rel, expected) in [
        (
            "pages/_index.md",
            "pages/_index.md: pages/_index.md would publish at /, the home page",
        ),
        (
            "pages/api/keys.md",
            "keys.md: a page under pages/api/ would publish inside /api/",
        ),
        (
            "pages/docs/x.md",
            "x.md: a page under pages/docs/ would publish inside /docs/",
        ),
        (
            "pages/chat.md",
            "chat.md: publishes at /chat/, the address of a page the site writes itself",
        ),
    ] {
        let site = Site::new();
        site.write_content(rel, PAGE);
        let err = site.refused();
        assert!(err.contains(expected), "{rel}: {err}");
    }
}

/// The value of `<meta property|name="key" content="…">` in `page`.
fn meta<'a>(page: &'a str, key: &str) -> &'a str {
    let at = page
        .find(&format!("=\"{key}\" content=\""))
        .unwrap_or_else(|| panic!("no meta {key}"));
    let rest = &page[at + key.len() + 13..];
    &rest[..rest.find('"').unwrap()]
}

#[test]
fn every_page_has_a_card_for_shared_links_and_an_edit_link() {
    let site = Site::new();
    site.write(
        "data/kit.md",
        "+++\ntitle = \"The test kit\"\nsummary = \"What is in the kit.\"\n+++\n\nText.\n\n![A test kit on a bench](kit.png)\n",
    );
    // The image must exist beside the page (any PNG will do).
    std::fs::copy(
        site.content()
            .join("docs/platform/reports/bloom-alerts-2026.png"),
        site.content().join("docs/data/kit.png"),
    )
    .unwrap();
    site.built();
    let globe = site.read("docs/data/globe/index.html");
    assert_eq!(meta(&globe, "og:title"), "Globe of monitoring sites");
    assert!(meta(&globe, "og:description").starts_with("Every public monitoring site"));
    assert_eq!(meta(&globe, "og:url"), format!("{BASE}/docs/data/globe/"));
    assert_eq!(meta(&globe, "og:type"), "article");
    assert_eq!(meta(&globe, "article:modified_time"), "2026-11-01");
    assert_eq!(
        meta(&globe, "og:image"),
        format!("{BASE}/files/img/social-card.png")
    );
    assert!(meta(&globe, "og:image:alt").starts_with("Blue Reach Observatory"));
    assert_eq!(meta(&globe, "twitter:card"), "summary_large_image");
    assert!(site.dist().join("files/img/social-card.png").is_file());
    assert!(globe.contains(
        r#"<a class="edit" href="https://git.example.org/blue-reach/site/-/edit/main/content/docs/data/globe.md">Edit this page</a>"#
    ));
    // A page's own first image is its card.
    let kit = site.read("docs/data/kit/index.html");
    assert_eq!(
        meta(&kit, "og:image"),
        format!("{BASE}/docs/data/kit/kit.png")
    );
    assert_eq!(meta(&kit, "og:image:alt"), "A test kit on a bench");
    assert!(site.dist().join("docs/data/kit/kit.png").is_file());
    // The home page is the site; generated pages have no source to edit.
    let home = site.read("index.html");
    assert_eq!(meta(&home, "og:type"), "website");
    let about = site.read("docs/about/index.html");
    assert!(about.contains("og:image") && !about.contains(r#"class="edit""#));

    // Without social_image and edit_url: a summary card, no edit link.
    let site = Site::new();
    let toml = std::fs::read_to_string(site.content().join("site.toml")).unwrap();
    let plain: String = toml
        .lines()
        .filter(|l| !l.starts_with("social_image") && !l.starts_with("edit_url"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(site.content().join("site.toml"), &plain).unwrap();
    site.built();
    let globe = site.read("docs/data/globe/index.html");
    assert_eq!(meta(&globe, "twitter:card"), "summary");
    assert!(!globe.contains("og:image") && !globe.contains(r#"class="edit""#));

    // A card that is not a published file fails at its line.
    std::fs::write(
        site.content().join("site.toml"),
        plain.replacen(
            "language",
            "social_image = \"/files/none.png\"\nsocial_image_alt = \"x\"\nlanguage",
            1,
        ),
    )
    .unwrap();
    let err = site.refused();
    assert!(
        err.contains("site.toml:") && err.contains("social_image `/files/none.png` is not a file"),
        "{err}"
    );
}

fn git(dir: &Path, args: &[&str], date: &str) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Writer",
            "-c",
            "user.email=writer@example.org",
        ])
        .args(args)
        .env("GIT_COMMITTER_DATE", date)
        .env("GIT_AUTHOR_DATE", date)
        .stdout(Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn set_modified(path: &Path, unix: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix))
        .unwrap();
}

#[test]
fn a_page_without_updated_takes_its_last_commit_or_its_file_time() {
    let site = Site::new();
    let globe = site.content().join("docs/data/globe.md");
    let text = std::fs::read_to_string(&globe).unwrap();
    std::fs::write(&globe, text.replace("updated = \"2026-11-01\"\n", "")).unwrap();

    // Outside a repository: the file's time (2025-02-03 UTC).
    set_modified(&globe, 1_738_584_000);
    site.built();
    let page = site.read("docs/data/globe/index.html");
    assert!(page.contains("Updated 2025-02-03."), "file time");
    assert!(site.read("sitemap.xml").contains(&format!(
        "<loc>{BASE}/docs/data/globe/</loc>\n    <lastmod>2025-02-03</lastmod>"
    )));

    // Committed: the day of the last commit that touched it.
    let root = site.root();
    git(root, &["init", "-q"], "2025-01-01T12:00:00Z");
    // In a repository but not added yet: still the file's time.
    site.built();
    assert!(
        site.read("docs/data/globe/index.html")
            .contains("Updated 2025-02-03."),
        "untracked file time"
    );
    git(root, &["add", "content"], "2025-01-01T12:00:00Z");
    git(
        root,
        &["commit", "-q", "-m", "content"],
        "2025-03-04T12:00:00Z",
    );
    site.built();
    assert!(
        site.read("docs/data/globe/index.html")
            .contains("Updated 2025-03-04."),
        "commit day"
    );
    // Changed since the commit: the file's time again.
    std::fs::write(
        &globe,
        format!(
            "{}\nOne more line.\n",
            std::fs::read_to_string(&globe).unwrap()
        ),
    )
    .unwrap();
    set_modified(&globe, 1_746_532_800);
    site.built();
    assert!(
        site.read("docs/data/globe/index.html")
            .contains("Updated 2025-05-06."),
        "an uncommitted change"
    );
}
