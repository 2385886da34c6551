//! Which page is which page's translation, as the build's sitemap records
//! it (`xhtml:link` alternates): the standard, published record, which
//! holds with translated slugs too (decision 0264).

use std::collections::HashMap;

/// Each page's versions in every language, itself included, by page
/// path: `(language, path)`.
pub type Alternates = HashMap<String, Vec<(String, String)>>;

/// The alternates of a built `sitemap.xml`: for each `<url>` with
/// `<xhtml:link rel="alternate" hreflang=… href=…/>`, its versions by
/// language (`x-default` left out), as site paths.
pub fn sitemap_alternates(sitemap: &str) -> Alternates {
    let mut out = Alternates::new();
    for entry in sitemap.split("<url>").skip(1) {
        let entry = entry.split("</url>").next().unwrap_or_default();
        let Some(loc) = between(entry, "<loc>", "</loc>").and_then(path_of) else {
            continue;
        };
        let mut versions = Vec::new();
        for link in entry.split("<xhtml:link").skip(1) {
            let language = between(link, "hreflang=\"", "\"");
            let href = between(link, "href=\"", "\"").and_then(path_of);
            if let (Some(language), Some(href)) = (language, href)
                && language != "x-default"
            {
                versions.push((language.to_ascii_lowercase(), href));
            }
        }
        if !versions.is_empty() {
            out.insert(loc, versions);
        }
    }
    out
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    let end = start + s[start..].find(close)?;
    Some(s[start..end].trim())
}

/// The path of an absolute URL (`https://x.org/nl/docs/` → `/nl/docs/`),
/// XML's `&amp;` read back.
fn path_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    Some(rest[rest.find('/')?..].replace("&amp;", "&"))
}
