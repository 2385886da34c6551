//! Pages in a second language: a translation beside its page
//! (`statistics.nl.md`) publishes under `/nl/`, in its language, and the
//! two link each other (`hreflang`, the language switcher, the sitemap);
//! what cannot be translated, or in a language the site does not declare,
//! fails the build naming the file.

use common::sample_site::{BASE, SampleSite as Site};

mod browser_search;

/// The sample content as published: in English and Dutch.
fn bilingual() -> Site {
    let site = Site::new();
    let toml = std::fs::read_to_string(site.content().join("site.toml")).unwrap();
    assert!(
        toml.contains("code = \"nl\""),
        "the sample site declares Dutch"
    );
    site
}

/// The sample content in English only: no `[[languages]]`, no
/// translations.
fn one_language() -> Site {
    let site = Site::new();
    let path = site.content().join("site.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = text
        .split("\n\n")
        .filter(|block| !block.contains("[[languages]]"))
        .collect();
    std::fs::write(&path, kept.join("\n\n")).unwrap();
    // The catalogue's Dutch texts go with the language.
    let path = site.content().join("catalog.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = text
        .split("\n\n")
        .filter(|block| !block.contains("translations.nl]"))
        .collect();
    std::fs::write(&path, kept.join("\n\n")).unwrap();
    // Every translation of the sample content goes.
    let mut folders = vec![site.content()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.to_string_lossy().ends_with(".nl.md")
                || path.to_string_lossy().ends_with(".nl.toml")
            {
                std::fs::remove_file(&path).unwrap();
            }
        }
    }
    site
}

fn page(title: &str, body: &str, extra: &str) -> String {
    format!("+++\ntitle = \"{title}\"\nsummary = \"{title}.\"\n{extra}+++\n\n{body}\n")
}

/// The `href` of the `<link rel="alternate" hreflang="…">` of `html`.
fn hreflang<'a>(html: &'a str, language: &str) -> Option<&'a str> {
    let tag = format!("<link rel=\"alternate\" hreflang=\"{language}\" href=\"");
    let at = html.find(&tag)? + tag.len();
    Some(&html[at..at + html[at..].find('"')?])
}

/// The language switcher's links of `html`: (hreflang, href).
fn switcher(html: &str) -> Vec<(String, String)> {
    let Some(start) = html.find("<nav class=\"languages\"") else {
        return Vec::new();
    };
    let nav = &html[start..start + html[start..].find("</nav>").unwrap()];
    nav.split("<a href=\"")
        .skip(1)
        .map(|a| {
            let href = &a[..a.find('"').unwrap()];
            let lang = a.split("hreflang=\"").nth(1).unwrap();
            (lang[..lang.find('"').unwrap()].to_owned(), href.to_owned())
        })
        .collect()
}

#[test]
fn a_translation_publishes_under_its_language_and_both_link_each_other() {
    let site = bilingual();
    site.write(
        "data/statistics.nl.md",
        &page(
            "Actuele cijfers",
            "Deze pagina toont de cijfers van het observatorium: waarnemingen en vrijwilligers.",
            "template = \"stats.html\"\n",
        ),
    );
    site.built();

    let nl = site.read("nl/docs/data/statistics/index.html");
    assert!(
        nl.starts_with("<!DOCTYPE html>\n<html lang=\"nl\">"),
        "{}",
        &nl[..80]
    );
    assert!(nl.contains("<meta property=\"og:locale\" content=\"nl\">"));
    assert!(
        nl.contains("\"inLanguage\": \"nl\""),
        "JSON-LD names the language"
    );
    let en_url = format!("{BASE}/docs/data/statistics/");
    let nl_url = format!("{BASE}/nl/docs/data/statistics/");
    assert_eq!(hreflang(&nl, "en"), Some(en_url.as_str()));
    assert_eq!(hreflang(&nl, "nl"), Some(nl_url.as_str()));
    assert_eq!(hreflang(&nl, "x-default"), Some(en_url.as_str()));
    assert_eq!(
        switcher(&nl),
        [("en".to_owned(), "/docs/data/statistics/".to_owned())]
    );
    assert!(
        site.read("nl/docs/data/statistics/index.md")
            .contains("Actuele cijfers")
    );
    // The interface words are Dutch, from templates/messages/nl.toml.
    for words in [
        "<a class=\"skip\" href=\"#main\">Naar de inhoud</a>",
        "placeholder=\"Zoek op de site\"",
        "<nav class=\"languages\" aria-label=\"Taal\">",
        "Licentie: <a rel=\"license\"",
        ">Deze pagina als Markdown</a>",
    ] {
        assert!(nl.contains(words), "{words}");
    }

    // The English page links its translation the same way.
    let en = site.read("docs/data/statistics/index.html");
    assert!(en.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert_eq!(hreflang(&en, "nl"), Some(nl_url.as_str()));
    assert_eq!(hreflang(&en, "x-default"), Some(en_url.as_str()));
    assert!(en.contains("<a class=\"skip\" href=\"#main\">Skip to content</a>"));
    assert!(en.contains("<nav class=\"languages\" aria-label=\"Language\">"));
    assert_eq!(
        switcher(&en),
        [("nl".to_owned(), "/nl/docs/data/statistics/".to_owned())]
    );
    // A page without a translation has no alternates; its switcher leads
    // to the nearest parent that has one (here the documentation's home).
    let mcp = site.read("docs/developers/mcp/index.html");
    assert_eq!(hreflang(&mcp, "nl"), None);
    assert_eq!(switcher(&mcp), [("nl".to_owned(), "/nl/docs/".to_owned())]);
    // The Dutch documentation home's switcher: the English one.
    let home = site.read("nl/docs/index.html");
    assert_eq!(switcher(&home), [("en".to_owned(), "/docs/".to_owned())]);

    // The sitemap lists both, each with both alternates and the default.
    let sitemap = site.read("sitemap.xml");
    assert!(sitemap.contains("xmlns:xhtml=\"http://www.w3.org/1999/xhtml\""));
    let nl_link = format!("<xhtml:link rel=\"alternate\" hreflang=\"nl\" href=\"{nl_url}\"/>");
    assert_eq!(sitemap.matches(&nl_link).count(), 2, "{sitemap}");
    let entry = &sitemap[sitemap.find(&format!("<loc>{nl_url}</loc>")).unwrap()..];
    let entry = &entry[..entry.find("</url>").unwrap()];
    assert!(entry.contains(&format!("hreflang=\"x-default\" href=\"{en_url}\"")));

    // The chat page in each language, linked both ways; a Dutch page's
    // chat panel opens the Dutch chat page.
    let chat_nl = site.read("nl/chat/index.html");
    assert!(chat_nl.starts_with("<!DOCTYPE html>\n<html lang=\"nl\">"));
    assert!(chat_nl.contains("<h1>Stel een vraag</h1>"), "{chat_nl}");
    assert!(chat_nl.contains("<label for=\"chat-input\">Uw vraag</label>"));
    assert_eq!(
        hreflang(&chat_nl, "en"),
        Some(format!("{BASE}/chat/").as_str())
    );
    assert_eq!(switcher(&chat_nl), [("en".to_owned(), "/chat/".to_owned())]);
    let chat_en = site.read("chat/index.html");
    assert!(chat_en.contains("<h1>Ask a question</h1>"));
    assert_eq!(
        hreflang(&chat_en, "nl"),
        Some(format!("{BASE}/nl/chat/").as_str())
    );
    assert!(nl.contains("data-page=\"/nl/chat/\""));
    assert!(en.contains("data-page=\"/chat/\""));

    // Each language has its own feed and its own section of llms.txt; the
    // default's feed and sections hold no translation.
    let feed = site.read("feed.xml");
    assert!(
        feed.contains("xml:lang=\"en\"") && !feed.contains("/nl/"),
        "{feed}"
    );
    let nl_feed = site.read("nl/feed.xml");
    assert!(nl_feed.contains("xml:lang=\"nl\""), "{nl_feed}");
    assert!(nl_feed.contains(&format!("<id>{nl_url}</id>")));
    assert!(nl_feed.contains("<subtitle>Nieuwe en bijgewerkte documenten van "));
    for entry in nl_feed.split("<entry>").skip(1) {
        assert!(entry.contains(&format!("<id>{BASE}/nl/")), "{entry}");
    }
    assert!(nl.contains("type=\"application/atom+xml\" href=\"/nl/feed.xml\""));
    assert!(en.contains("type=\"application/atom+xml\" href=\"/feed.xml\""));
    let llms = site.read("llms.txt");
    let dutch = llms
        .find("\n## Nederlands (nl)\n")
        .expect("a Dutch section");
    assert!(!llms[..dutch].contains("/nl/"), "{llms}");
    assert!(
        llms[dutch..].contains(&format!("({nl_url}index.md)")),
        "{llms}"
    );

    // Each language has its own site search: a Dutch word finds the Dutch
    // page in the Dutch index, which the Dutch pages' search box reads,
    // and nothing in the English one; the English index keeps its pages.
    let dist = site.dist();
    let dutch = browser_search::finds(&dist, "search/nl/", "vrijwilligers");
    assert!(
        dutch.contains(&"/nl/docs/data/statistics/".to_owned())
            && dutch.iter().all(|u| u.starts_with("/nl/")),
        "{dutch:?}"
    );
    assert!(browser_search::finds(&dist, "search/", "vrijwilligers").is_empty());
    assert!(nl.contains("data-index=\"/search/nl/browser.json\""));
    assert!(!en.contains("data-index="));
    let english = browser_search::finds(&dist, "search/", "statistics");
    assert!(
        english.contains(&"/docs/data/statistics/".to_owned()),
        "{english:?}"
    );

    // The chat's passages carry each translation's language; the default
    // language's carry none, and the head names it.
    let passages = contract::search::read_passages(contract::search::read_from(&dist)).unwrap();
    for p in &passages.passages {
        let dutch = p.url.starts_with("/nl/");
        assert_eq!(p.language.as_deref(), dutch.then_some("nl"), "{}", p.url);
    }
    assert!(
        passages
            .passages
            .iter()
            .any(|p| p.url == "/nl/docs/data/statistics/")
    );
    assert_eq!(
        contract::search::passages_language(contract::search::read_from(&dist)).unwrap(),
        "en"
    );
    assert!(
        passages
            .passages
            .iter()
            .any(|p| p.url == "/docs/data/statistics/")
    );

    // The build checks out: every page and twin where the manifest says.
    let check = site.check();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn check_reports_missing_and_outdated_translations() {
    let site = bilingual();
    // Older than its page (updated 2026-11-26).
    site.write(
        "data/statistics.nl.md",
        &page(
            "Actuele cijfers",
            "Tekst.",
            "template = \"stats.html\"\nupdated = \"2026-01-05\"\n",
        ),
    );
    site.built();
    let out = site.check();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "warnings only: {stderr}");
    assert!(
        stderr.contains(
            "warning: docs/data/statistics.nl.md: older than the page it translates, \
             docs/data/statistics.md (updated 2026-01-05 against 2026-11-26)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "warning: docs/developers/mcp.md: no translation into `nl` (expected docs/developers/mcp.nl.md)"
        ),
        "{stderr}"
    );
    // The archive (CC BY-NC-ND) may not be translated: never missing.
    assert!(!stderr.contains("docs/archive/"), "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("check: `nl` (Nederlands): "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains(", 1 translations older than their page"),
        "{line}"
    );

    let strict = site.check_with(&["--strict-translations"]);
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert_eq!(strict.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: docs/developers/mcp.md: no translation into `nl`"),
        "{stderr}"
    );
    assert!(stderr.contains("pages without an up-to-date translation (--strict-translations)"));
}

#[test]
fn a_site_in_one_language_has_no_switcher_and_no_alternates() {
    let site = one_language();
    site.built();
    let en = site.read("docs/data/statistics/index.html");
    assert!(switcher(&en).is_empty() && hreflang(&en, "en").is_none());
    let chat = site.read("chat/index.html");
    assert!(switcher(&chat).is_empty() && hreflang(&chat, "en").is_none());
    assert!(
        !site.dist().join("nl").exists(),
        "no folder for a language the site lacks"
    );
    assert!(!site.read("sitemap.xml").contains("xhtml"));
    // Without [[languages]], a `.nl.md` names a language the site does not
    // declare.
    site.write("data/globe.nl.md", &page("Wereldbol", "Tekst.", ""));
    let err = site.refused();
    assert!(
        err.contains("globe.nl.md") && err.contains("`nl`, a language site.toml does not declare"),
        "{err}"
    );
}

#[test]
fn what_cannot_be_translated_fails_naming_the_file() {
    let refused = |rel: &str, text: &str| {
        let site = bilingual();
        site.write_content(rel, text);
        site.refused()
    };
    let err = refused("docs/data/globe.de.md", &page("Globus", "Text.", ""));
    assert!(
        err.contains("globe.de.md") && err.contains("`de`") && err.contains("nl"),
        "{err}"
    );
    let err = refused("docs/data/globe.en.md", &page("Globe", "Text.", ""));
    assert!(
        err.contains("names the default language") && err.contains("globe.md"),
        "{err}"
    );
    let err = refused("docs/data/nowhere.nl.md", &page("Nergens", "Tekst.", ""));
    assert!(
        err.contains("nowhere.nl.md") && err.contains("/docs/data/nowhere/"),
        "{err}"
    );
    // The archive is CC BY-NC-ND: no derivatives, so no translation.
    let err = refused(
        "docs/archive/quick-start.nl.md",
        &page("Snel aan de slag", "Tekst.", ""),
    );
    assert!(
        err.contains("quick-start.nl.md") && err.contains("allows no derivatives"),
        "{err}"
    );
    // A page of pages/ may not take a language's folder.
    let err = refused("pages/nl/over.md", &page("Over", "Tekst.", ""));
    assert!(err.contains("pages/nl/"), "{err}");

    // The default language is one of the declared ones.
    let site = one_language();
    let path = site.content().join("site.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let only_nl = "[[languages]]\ncode = \"nl\"\nname = \"Nederlands\"\n\n[[licences]]";
    std::fs::write(&path, text.replacen("[[licences]]", only_nl, 1)).unwrap();
    let err = site.refused();
    assert!(
        err.contains("the default language `en` is not among the [[languages]]"),
        "{err}"
    );

    // A declared language needs the templates' words in it, every key.
    let site = bilingual();
    let messages = site.own_templates().join("messages");
    std::fs::remove_file(messages.join("nl.toml")).unwrap();
    let err = site.refused();
    assert!(
        err.contains("templates/messages/nl.toml is missing"),
        "{err}"
    );
    std::fs::write(
        messages.join("nl.toml"),
        "[header]\nskip = \"Naar de inhoud\"\n",
    )
    .unwrap();
    let err = site.refused();
    assert!(
        err.contains("messages/nl.toml lacks keys") && err.contains("page.licence"),
        "{err}"
    );
}

#[test]
fn a_translation_may_carry_its_own_slug_and_the_pages_under_it_follow() {
    let site = bilingual();
    // The globe stays untranslated here, to show where its switcher leads.
    std::fs::remove_file(site.content().join("docs/data/globe.nl.md")).unwrap();
    site.write(
        "data/_index.nl.md",
        &page("Gegevens", "De open gegevens.", "slug = \"gegevens\"\n"),
    );
    site.write(
        "data/statistics.nl.md",
        &page(
            "Actuele cijfers",
            "De cijfers van het observatorium.",
            "template = \"stats.html\"\nslug = \"statistieken\"\n",
        ),
    );
    // Without a slug of its own, a page follows its parent's.
    site.write("data/downloads.md", &page("Downloads", "The files.", ""));
    site.write(
        "data/downloads.nl.md",
        &page("Bestanden", "De bestanden.", ""),
    );
    site.built();

    let nl = site.read("nl/docs/gegevens/statistieken/index.html");
    assert!(
        site.read("nl/docs/gegevens/index.html")
            .contains("<h1>Gegevens</h1>")
    );
    assert!(
        site.read("nl/docs/gegevens/downloads/index.html")
            .contains("Bestanden")
    );
    assert!(
        site.read("nl/docs/gegevens/statistieken/index.md")
            .contains("Actuele cijfers")
    );
    let en_url = format!("{BASE}/docs/data/statistics/");
    let nl_url = format!("{BASE}/nl/docs/gegevens/statistieken/");
    assert_eq!(hreflang(&nl, "en"), Some(en_url.as_str()));
    assert_eq!(hreflang(&nl, "nl"), Some(nl_url.as_str()));
    let en = site.read("docs/data/statistics/index.html");
    assert_eq!(hreflang(&en, "nl"), Some(nl_url.as_str()));
    assert_eq!(
        switcher(&en),
        [(
            "nl".to_owned(),
            "/nl/docs/gegevens/statistieken/".to_owned()
        )]
    );
    assert_eq!(
        switcher(&nl),
        [("en".to_owned(), "/docs/data/statistics/".to_owned())]
    );
    // A page without a translation leads to its nearest translated parent.
    let globe = site.read("docs/data/globe/index.html");
    assert_eq!(
        switcher(&globe),
        [("nl".to_owned(), "/nl/docs/gegevens/".to_owned())]
    );
    assert!(
        site.read("sitemap.xml")
            .contains(&format!("<loc>{nl_url}</loc>"))
    );
    let check = site.check();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // A slug is a translation's: on a page in the default language it fails.
    site.write(
        "data/globe.md",
        &page("Globe", "The sites.", "slug = \"world\"\n"),
    );
    let err = site.refused();
    assert!(
        err.contains("globe.md") && err.contains("slug `world` on a page in the default language"),
        "{err}"
    );
}

#[test]
fn the_generated_pages_and_the_catalogue_are_in_both_languages() {
    let site = bilingual();
    site.built();
    // The home page in Dutch: its language, both alternates and the
    // default, its switcher, the menu's Dutch titles leading to the Dutch
    // pages where they exist, its words from nl.toml, and what is only in
    // English marked as such.
    let home = site.read("nl/index.html");
    assert!(home.starts_with("<!DOCTYPE html>\n<html lang=\"nl\">"));
    assert_eq!(hreflang(&home, "en"), Some(format!("{BASE}/").as_str()));
    assert_eq!(hreflang(&home, "nl"), Some(format!("{BASE}/nl/").as_str()));
    assert_eq!(
        hreflang(&home, "x-default"),
        Some(format!("{BASE}/").as_str())
    );
    assert_eq!(switcher(&home), [("en".to_owned(), "/".to_owned())]);
    for words in [
        "<a class=\"brand\" href=\"/nl/\">",
        "<li><a href=\"/nl/docs/\">Documentatie</a></li>",
        "<li><a href=\"/nl/docs/data/\">Data</a></li>",
        "<li><a href=\"/docs/archive/\">Archief</a></li>",
        "<li><a href=\"/nl/contact/\">Contact</a></li>",
        "<h2 id=\"where\">Waar vrijwilligers maten</h2>",
        "<a href=\"/nl/docs/data/globe/\"><strong>Verken de data</strong>",
        "<a href=\"/nl/chat/\"><strong>Stel een vraag</strong>",
        "<a href=\"/nl/docs/platform/#hoe-u-meedoet\"><strong>Doe mee</strong>",
        "<a href=\"/nl/feed.xml\">Nieuwsfeed</a>",
        "Het Blue Reach Observatory is een Europese onderzoeksinfrastructuur",
        "<li lang=\"en\"><a href=\"/docs/archive/\" hreflang=\"en\">Water Watch archive</a>",
    ] {
        assert!(home.contains(words), "{words}");
    }
    assert!(site.read("nl/index.md").contains("## Documentatie"));
    // The English home page links its Dutch one, and is otherwise as it
    // was: its menu in English.
    let en = site.read("index.html");
    assert_eq!(hreflang(&en, "nl"), Some(format!("{BASE}/nl/").as_str()));
    assert!(en.contains("<li><a href=\"/docs/\">Documentation</a></li>"));
    assert!(en.contains("<h2 id=\"where\">Where volunteers measured</h2>"));
    // The contact form and its thank-you page, in Dutch.
    for (page, title) in [
        ("nl/contact/index.html", "Neem contact op"),
        ("nl/contact/thanks/index.html", "Dank u wel"),
    ] {
        let html = site.read(page);
        assert!(
            html.starts_with("<!DOCTYPE html>\n<html lang=\"nl\">"),
            "{page}"
        );
        assert!(html.contains(&format!("<h1>{title}</h1>")), "{page}");
        assert_eq!(switcher(&html).len(), 1, "{page}");
    }
    // Both home pages in the sitemap, each naming the other.
    let sitemap = site.read("sitemap.xml");
    assert!(sitemap.contains(&format!(
        "<loc>{BASE}/nl/</loc>\n    <lastmod>2026-11-01</lastmod>\n    \
         <xhtml:link rel=\"alternate\" hreflang=\"en\" href=\"{BASE}/\"/>"
    )));
    // A data page's shortcode speaks the page's language.
    let data = site.read("nl/docs/data/index.html");
    assert!(data.contains("<h2 id=\"downloads\">Download de data</h2>"));
    // The catalogue: each title, description and keyword in both
    // languages, each with its @language.
    let catalog: serde_json::Value = serde_json::from_str(&site.read("catalog.jsonld")).unwrap();
    let graph = catalog["@graph"].as_array().unwrap();
    let observations = graph
        .iter()
        .find(|n| n["dct:identifier"] == "observations")
        .unwrap();
    let in_language = |field: &str, code: &str| -> Vec<String> {
        observations[field]
            .as_array()
            .unwrap_or_else(|| panic!("{field}: {}", observations[field]))
            .iter()
            .filter(|t| t["@language"] == code)
            .map(|t| t["@value"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        in_language("dct:title", "en"),
        ["Water Watch freshwater observations"]
    );
    assert_eq!(
        in_language("dct:title", "nl"),
        ["Zoetwaterwaarnemingen van Water Watch"]
    );
    assert_eq!(in_language("dct:description", "nl").len(), 1);
    assert!(in_language("dcat:keyword", "nl").contains(&"waterkwaliteit".to_owned()));
    assert!(in_language("dcat:keyword", "en").contains(&"water quality".to_owned()));
    let languages = graph[0]["dct:language"].as_array().unwrap();
    assert_eq!(languages.len(), 2, "{languages:?}");

    // Texts in a language the site does not declare fail, naming it.
    let path = site.content().join("catalog.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("[translations.nl]", "[translations.de]", 1),
    )
    .unwrap();
    let err = site.refused();
    assert!(
        err.contains("catalog.toml") && err.contains("texts in `de`") && err.contains("nl"),
        "{err}"
    );
}

#[test]
fn the_service_pages_are_written_in_dutch_from_the_service_texts() {
    let site = bilingual();
    site.built();
    // The privacy notice: in Dutch, its facts from the one service
    // information (the period, the address), linked both ways.
    let privacy = site.read("nl/docs/about/privacy/index.html");
    assert!(privacy.starts_with("<!DOCTYPE html>\n<html lang=\"nl\">"));
    assert!(privacy.contains("<strong>180 dagen</strong>"));
    assert!(privacy.contains("mailto:info@water.example.org"));
    assert!(privacy.contains("href=\"/nl/contact/\""));
    assert_eq!(
        hreflang(&privacy, "en"),
        Some(format!("{BASE}/docs/about/privacy/").as_str())
    );
    let english = site.read("docs/about/privacy/index.html");
    assert_eq!(
        hreflang(&english, "nl"),
        Some(format!("{BASE}/nl/docs/about/privacy/").as_str())
    );
    assert!(english.contains("<strong>180 days</strong>"));
    // The consortium: countries and roles in Dutch, names as they are.
    let consortium = site.read("nl/docs/about/consortium/index.md");
    assert!(consortium.contains("| Lid | Land | Rol |"));
    assert!(consortium.contains(
        "| [Maasvliet Water Authority](https://www.maasvliet-water.example.org/) | Nederland | Regionaal waterschap;"
    ));
    // The projects: statuses and periods in Dutch, the links to the Dutch
    // pages where they exist.
    let projects = site.read("nl/docs/about/projects/index.md");
    assert!(projects.contains("| [Riverlens](#riverlens) | Lopend | sinds 2021-09-01 |"));
    assert!(projects.contains("[/nl/docs/platform/](/nl/docs/platform/)"));
    // The index: the Dutch description, and the English pages that have
    // no Dutch one linked as they are.
    let index = site.read("nl/docs/about/index.md");
    assert!(index.contains("Het Blue Reach Observatory is een Europese"));
    assert!(index.contains("([lijst](/nl/docs/about/consortium/))"));
    assert!(index.contains("([lijst](/docs/about/services/))"));
    // service.json stays the one canonical document, in English.
    let service = site.read("api/service.json");
    assert!(service.contains("Regional water authority;") && !service.contains("Regionaal"));

    // A text for an entry the source lacks, a translated number and a
    // language the site does not declare are refused, naming the file.
    for (file, text, refusal) in [
        (
            "consortium.nl.toml",
            "[[members]]\nid = \"nobody\"\nrole = \"Niemand\"\n",
            "no entry `nobody`",
        ),
        (
            "contact.nl.toml",
            "enquiry_retention_days = 30\n",
            "only texts are translated",
        ),
        (
            "scope.de.toml",
            "summary = \"Umfang\"\n",
            "does not declare",
        ),
    ] {
        site.write_content(&format!("service/{file}"), text);
        let err = site.refused();
        assert!(err.contains(file) && err.contains(refusal), "{err}");
        site.write_content(&format!("service/{file}"), "");
    }
}

#[test]
fn check_reports_service_texts_older_than_their_file() {
    let site = bilingual();
    // The Dutch projects last changed before the projects themselves.
    let dutch = site.content().join("service/projects.nl.toml");
    let touched = std::process::Command::new("touch")
        .args(["-d", "2020-01-05T12:00:00Z"])
        .arg(&dutch)
        .status()
        .unwrap();
    assert!(touched.success());
    site.built();
    let out = site.check();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "warnings only: {stderr}");
    assert!(
        stderr.contains(
            "warning: service/projects.nl.toml: older than the file it translates, \
             service/projects.toml (changed 2020-01-05 against "
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("consortium.nl.toml"), "{stderr}");
    // With the flag, an error.
    let strict = site.check_with(&["--strict-translations"]);
    assert!(!strict.status.success());
    assert!(
        String::from_utf8_lossy(&strict.stderr).contains("error: service/projects.nl.toml: older"),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
}
