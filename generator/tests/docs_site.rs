//! The generated documentation on the shipped sample content: the file
//! archive listing, licences of the archive, the API reference and the
//! search index.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use generator::{BuildOptions, build};
use sha2::{Digest, Sha256};

use common::{copy_dir, files, repo};

const ARCHIVE_LICENCE_URL: &str = "https://creativecommons.org/licenses/by-nc-nd/4.0/";
const ARCHIVE_ATTRIBUTION: &str = "Water Watch project (2018-2024), coordinated by Lindmark University of Applied Sciences, and the Water Watch volunteers";

/// One build of the sample content, shared by the tests of this file.
fn dist() -> &'static Path {
    static DIST: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIST
        .get_or_init(|| {
            let tmp = tempfile::tempdir().unwrap();
            let out = tmp.path().join("dist");
            build(&BuildOptions {
                content: repo().join("content"),
                templates: repo().join("templates"),
                out: out.clone(),
                base_url: Some("https://water.example.org".into()),
                api_origin: None,
                progress: false,
                cache: None,
                precompress: false,
                drafts: false,
                snapshots: None,
            })
            .unwrap();
            (tmp, out)
        })
        .1
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(dist().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn files_under(dir: &Path, root: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, root, out);
        } else {
            out.push(
                p.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
    }
}

#[test]
fn file_archive_lists_every_file_with_its_size_and_sha256() {
    let source = repo().join("content/files/archive");
    let mut names = Vec::new();
    files_under(&source, &source, &mut names);
    names.sort();
    assert!(names.len() >= 4, "{names:?}");
    let html = read("docs/archive/files/index.html");
    let twin = read("docs/archive/files/index.md");
    let sums = read("files/archive/sha256sums.txt");
    let note = read("files/archive/licence.txt");
    for name in &names {
        let bytes = std::fs::read(source.join(name)).unwrap();
        let sha = hex_lower(&Sha256::digest(&bytes));
        let row = html
            .split("<tr id=\"file-")
            .find(|r| r.contains(&format!(">{name}</a>")))
            .unwrap_or_else(|| panic!("{name}: no row on the file archive page"));
        assert!(
            row.contains(&format!("href=\"/files/archive/{name}\"")),
            "{row}"
        );
        assert!(row.contains(&sha), "{name}: SHA-256 {sha} not in {row}");
        assert!(
            row.contains(&format!("data-bytes=\"{}\"", bytes.len())),
            "{row}"
        );
        assert!(
            row.contains(&format!("rel=\"license\" href=\"{ARCHIVE_LICENCE_URL}\"")),
            "{row}"
        );
        assert!(
            twin.contains(&format!("`{sha}`")),
            "{name}: not in the twin"
        );
        assert!(
            sums.contains(&format!("{sha}  {name}\n")),
            "{name}: not in sha256sums.txt"
        );
        assert!(
            note.contains(&format!("{sha}  ")),
            "{name}: not in licence.txt"
        );
        // The download is the file itself.
        assert_eq!(
            std::fs::read(dist().join("files/archive").join(name)).unwrap(),
            bytes
        );
    }
    assert!(html.contains(ARCHIVE_ATTRIBUTION));
    assert!(note.contains(ARCHIVE_ATTRIBUTION) && note.contains(ARCHIVE_LICENCE_URL));
}

fn hex_lower(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_archive_page_and_twin_carries_the_licence_and_attribution() {
    let root = dist().join("docs/archive");
    let mut files = Vec::new();
    files_under(&root, &root, &mut files);
    // A moved page's old folder holds only the page that sends readers on.
    let manifest: serde_json::Value = serde_json::from_str(&read("manifest.json")).unwrap();
    let moved = |page: &str| {
        let folder = format!("/docs/archive/{}", page.trim_end_matches("index.html"));
        manifest["redirects"].get(&folder).is_some()
    };
    let pages: Vec<&String> = files
        .iter()
        .filter(|f| f.ends_with("index.html") && !moved(f))
        .collect();
    assert!(pages.len() >= 12, "{pages:?}");
    for page in pages {
        let html = read(&format!("docs/archive/{page}"));
        assert!(
            html.contains(&format!("rel=\"license\" href=\"{ARCHIVE_LICENCE_URL}\"")),
            "{page}: no licence link"
        );
        assert!(html.contains(ARCHIVE_ATTRIBUTION), "{page}: no attribution");
        let jsonld = html
            .split("<script type=\"application/ld+json\">")
            .nth(1)
            .and_then(|s| s.split("</script>").next())
            .unwrap_or_else(|| panic!("{page}: no JSON-LD"));
        let jsonld: serde_json::Value = serde_json::from_str(jsonld).unwrap();
        // A page that describes a dataset holds its article first in a graph.
        let jsonld = jsonld.get("@graph").map_or(&jsonld, |g| &g[0]);
        assert_eq!(jsonld["@type"], "TechArticle", "{page}");
        assert_eq!(jsonld["license"], ARCHIVE_LICENCE_URL, "{page}");
        assert_eq!(jsonld["creditText"], ARCHIVE_ATTRIBUTION, "{page}");
        assert_eq!(jsonld["creator"]["name"], ARCHIVE_ATTRIBUTION, "{page}");
        let twin = read(&format!(
            "docs/archive/{}",
            page.replace("index.html", "index.md")
        ));
        assert!(
            twin.contains("> Licence: Creative Commons Attribution-NonCommercial-NoDerivatives 4.0 International (CC-BY-NC-ND-4.0)"),
            "{page}: twin without licence"
        );
        assert!(
            twin.contains(&format!("> Attribution: {ARCHIVE_ATTRIBUTION}")),
            "{page}: twin without attribution"
        );
    }
}

#[test]
fn api_reference_lists_every_operation_and_links_every_problem_code() {
    let openapi: serde_json::Value = serde_json::from_str(&read("openapi.json")).unwrap();
    let html = read("docs/developers/api/index.html");
    let twin = read("docs/developers/api/index.md");
    let mut operations = 0;
    for (path, item) in openapi["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap();
            operations += 1;
            assert!(html.contains(&format!("<code>{id}</code>")), "{id}");
            assert!(
                html.contains(&format!(
                    "{}</span> <code>{path}</code>",
                    method.to_ascii_uppercase()
                )),
                "{method} {path}"
            );
            assert!(twin.contains(&format!("### {} {path}", method.to_ascii_uppercase())));
            assert!(twin.contains(&format!("`{id}`")), "{id} not in the twin");
        }
    }
    assert!(operations >= 10);
    for p in contract::ProblemCode::ALL {
        let link = format!("href=\"/docs/problems/{}/\"", p.as_str());
        assert!(html.contains(&link), "{} not linked", p.as_str());
    }
    for name in openapi["components"]["schemas"].as_object().unwrap().keys() {
        assert!(
            html.contains(&format!("id=\"schema-{}\"", name.to_ascii_lowercase())),
            "schema {name}"
        );
    }
    assert!(html.contains("curl -sS"));
}

#[test]
fn search_index_lists_every_document_and_parses() {
    let index = contract::search::read_index(contract::search::read_from(dist())).unwrap();
    assert_eq!(index.version, 3);
    // Every page with a Markdown twin, the home page and the list of
    // problem codes included, and nothing else.
    let root = dist();
    let mut files = Vec::new();
    files_under(root, root, &mut files);
    let twins: BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.strip_suffix("index.md"))
        .map(|dir| format!("/{dir}"))
        .collect();
    let listed: BTreeSet<String> = index.documents.iter().map(|d| d.url.clone()).collect();
    assert_eq!(listed, twins);
    assert!(listed.contains("/") && listed.contains("/docs/problems/"));
    assert!(listed.contains("/docs/developers/api/") && listed.contains("/docs/about/services/"));
    for d in &index.documents {
        assert!(!d.title.is_empty(), "{}", d.url);
    }
    let ph = index
        .documents
        .iter()
        .find(|d| d.url == "/docs/archive/protocols/ph/")
        .unwrap();
    assert_eq!(ph.section, "archive");
    // The text is in the passages, once, without markup.
    let passages = contract::search::read_passages(contract::search::read_from(dist())).unwrap();
    let text_of = |url: &str| -> String {
        let page: Vec<&str> = passages
            .passages
            .iter()
            .filter(|p| p.url == url)
            .map(|p| p.text.as_str())
            .collect();
        page.join("\n")
    };
    for p in &passages.passages {
        assert!(
            listed.contains(&p.url),
            "{} has passages and no entry",
            p.url
        );
        assert!(
            !p.text.contains("<p>") && !p.text.contains("**"),
            "{}#{}",
            p.url,
            p.anchor
        );
    }
    let ph = text_of("/docs/archive/protocols/ph/");
    assert!(ph.contains("buffer solutions") || ph.contains("Buffer solutions"));
    assert!(text_of("/docs/archive/files/").contains("parameter-reference.csv"));
    // No index part repeats the text.
    for f in files.iter().filter(|f| f.starts_with("search/index-")) {
        let part = std::fs::read_to_string(root.join(f)).unwrap();
        assert!(!part.contains("\"text\""), "{f}");
    }
}

#[test]
fn generated_pages_follow_the_service_information() {
    let services = read("docs/about/services/index.html");
    assert!(services.contains("id=\"water-watch-archive\""));
    let consortium = read("docs/about/consortium/index.md");
    assert!(consortium.contains("Lindmark University of Applied Sciences"));
    let globe = read("docs/data/globe/index.html");
    assert!(globe.contains("id=\"globe\"") && globe.contains("data-src=\"/api/globe-data.php\""));
    assert!(globe.contains("id=\"globe-table\""));
    let stats = read("docs/data/statistics/index.html");
    assert!(
        stats.contains("id=\"stats\"") && stats.contains("data-src=\"/api/platform-stats.php\"")
    );
    assert!(stats.contains("<noscript>"));
}

#[test]
fn check_reports_a_search_index_that_misses_a_page() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    build(&BuildOptions {
        content: repo().join("content"),
        templates: repo().join("templates"),
        out: out.clone(),
        base_url: None,
        api_origin: None,
        progress: false,
        cache: None,
        precompress: false,
        drafts: false,
        snapshots: None,
    })
    .unwrap();
    assert!(generator::check::check_links(&out).unwrap().is_empty());
    let mut index = contract::search::read_index(contract::search::read_from(&out)).unwrap();
    index.documents.retain(|d| d.url != "/docs/archive/files/");
    index.documents[0].url = "/docs/nowhere/".into();
    // Written back as the head and one part, a file of the build's own.
    let head = contract::search::IndexHead {
        version: index.version,
        documents: index.documents.len(),
        parts: vec!["/search/index-1.json".into()],
    };
    let part = contract::search::IndexPart {
        documents: index.documents,
    };
    let path = out.join(generator::search::PATH);
    std::fs::write(&path, serde_json::to_vec(&head).unwrap()).unwrap();
    std::fs::write(
        out.join("search/index-1.json"),
        serde_json::to_vec(&part).unwrap(),
    )
    .unwrap();
    let broken = generator::check::check_links(&out).unwrap();
    let targets: Vec<&str> = broken
        .iter()
        .filter(|b| b.page == generator::search::PATH)
        .map(|b| b.target.as_str())
        .collect();
    assert!(targets.contains(&"/docs/archive/files/"), "{broken:?}");
    assert!(targets.contains(&"/docs/nowhere/"), "{broken:?}");
}

#[test]
fn an_archive_page_may_not_name_another_licence() {
    let tmp = tempfile::tempdir().unwrap();
    let content = tmp.path().join("content");
    copy_dir(&repo().join("content"), &content);
    let page = content.join("docs/archive/quick-start.md");
    let text = std::fs::read_to_string(&page)
        .unwrap()
        .replace("licence = \"CC-BY-NC-ND-4.0\"", "licence = \"CC-BY-4.0\"");
    std::fs::write(&page, text).unwrap();
    let err = build(&BuildOptions {
        content,
        templates: repo().join("templates"),
        out: tmp.path().join("dist"),
        base_url: None,
        api_origin: None,
        progress: false,
        cache: None,
        precompress: false,
        drafts: false,
        snapshots: None,
    })
    .unwrap_err();
    let err = format!("{err:#}");
    assert!(err.contains("quick-start.md"), "{err}");
    assert!(
        err.contains("expected the archive's licence `CC-BY-NC-ND-4.0`"),
        "{err}"
    );
}

/// The separate-origin layout: the sidecar's routes on `--api-origin`, the
/// files on the site's origin, in pages, scripts' attributes, the CSP, the
/// contract, the discovery documents and the Markdown of the documents.
#[test]
fn a_separate_api_origin_reaches_every_output_that_names_a_sidecar_route() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    let site = "https://www.example.net";
    let api = "https://api.example.net";
    let opts = |api_origin: &str| BuildOptions {
        content: repo().join("content"),
        templates: repo().join("templates"),
        out: out.clone(),
        base_url: Some(site.into()),
        api_origin: Some(api_origin.into()),
        progress: false,
        cache: None,
        precompress: false,
        drafts: false,
        snapshots: None,
    };
    for bad in [
        "api.example.net",
        "https://api.example.net/v1",
        "https://u:p@api.example.net",
    ] {
        let err = format!("{:#}", build(&opts(bad)).unwrap_err());
        assert!(err.starts_with("--api-origin "), "{bad}: {err}");
    }
    build(&opts(&format!("{api}/"))).unwrap();
    assert!(generator::check::check_links(&out).unwrap().is_empty());
    let read = |p: &str| std::fs::read_to_string(out.join(p)).unwrap();

    let manifest: serde_json::Value = serde_json::from_str(&read("manifest.json")).unwrap();
    assert_eq!(manifest["api_origin"], api);
    let csp = contract::headers::meta_content_security_policy(Some(api));
    let escaped = csp.replace('\'', "&#39;");
    for page in [
        "index.html",
        "contact/index.html",
        "docs/data/statistics/index.html",
    ] {
        assert!(
            read(page).contains(&escaped),
            "{page} carries the CSP naming {api}"
        );
    }
    let contact = read("contact/index.html");
    assert!(contact.contains(&format!("action=\"{api}/api/contact.php\"")));
    assert!(contact.contains(&format!("data-challenge=\"{api}/api/contact-challenge\"")));
    assert!(read("chat/index.html").contains(&format!("data-src=\"{api}/api/chat.php\"")));
    assert!(
        read("docs/data/globe/index.html")
            .contains(&format!("data-src=\"{api}/api/globe-data.php\""))
    );
    assert!(
        read("docs/data/statistics/index.html")
            .contains(&format!("data-src=\"{api}/api/platform-stats.php\""))
    );

    let openapi: serde_json::Value = serde_json::from_str(&read("openapi.json")).unwrap();
    assert_eq!(openapi["servers"][0]["url"], site);
    assert_eq!(openapi["paths"]["/mcp/"]["servers"][0]["url"], api);
    assert!(openapi["paths"]["/openapi.json"].get("servers").is_none());
    let card: serde_json::Value =
        serde_json::from_str(&read(".well-known/mcp/server-card.json")).unwrap();
    assert_eq!(card["remotes"][0]["url"], format!("{api}/mcp/"));
    // The same card where SEP-2127 has clients look.
    assert_eq!(
        read(".well-known/mcp/server-card"),
        read(".well-known/mcp/server-card.json")
    );
    let llms = read("llms.txt");
    assert!(
        llms.contains(&format!("({api}/mcp/)")) && llms.contains(&format!("({site}/openapi.json)"))
    );
    let guide = read("docs/developers/mcp/index.md");
    assert!(
        guide.contains(&format!("{api}/mcp/")),
        "the MCP guide names the API origin"
    );
    assert!(!guide.contains("water.example.org"));
    // No token is left anywhere.
    for entry in files(&out) {
        if let Ok(text) = std::fs::read_to_string(&entry) {
            assert!(
                !text.contains("{{ site_origin }}") && !text.contains("{{ api_origin }}"),
                "{} keeps an origin token",
                entry.display()
            );
        }
    }
}

/// Every script and stylesheet a page loads carries the Subresource
/// Integrity value of the very bytes published at its URL.
#[test]
fn every_script_and_stylesheet_carries_the_integrity_of_its_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    build(&BuildOptions {
        content: repo().join("content"),
        templates: repo().join("templates"),
        out: out.clone(),
        base_url: None,
        api_origin: None,
        progress: false,
        cache: None,
        precompress: false,
        drafts: false,
        snapshots: None,
    })
    .unwrap();
    let tags = |html: &str| -> Vec<String> {
        let mut out = Vec::new();
        for open in ["<script ", "<link "] {
            let mut rest = html;
            while let Some(i) = rest.find(open) {
                let end = rest[i..].find('>').unwrap();
                out.push(rest[i..i + end].to_owned());
                rest = &rest[i + end..];
            }
        }
        out
    };
    let attr = |t: &str, name: &str| {
        let key = format!(" {name}=\"");
        t.find(&key).map(|i| {
            let v = &t[i + key.len()..];
            v[..v.find('"').unwrap()].to_owned()
        })
    };
    let mut checked = 0;
    for page in files(&out)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
    {
        let html = std::fs::read_to_string(&page).unwrap();
        for t in tags(&html) {
            let t = t.as_str();
            let url = match (attr(t, "src"), attr(t, "rel").as_deref(), attr(t, "href")) {
                (Some(src), _, _) => src,
                (None, Some("stylesheet"), Some(href)) => href,
                _ => continue,
            };
            let bytes = std::fs::read(out.join(url.trim_start_matches('/'))).unwrap();
            assert_eq!(
                attr(t, "integrity").as_deref(),
                Some(generator::render::sri(&bytes).as_str()),
                "{}: {t}",
                page.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}
