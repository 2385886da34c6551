//! `generate check`: every internal link and anchor of a built site resolves.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::manifest::Manifest;
use crate::output::read_manifest;
use crate::search;

/// Whether the sidecar answers `path` itself (a route of the contract that
/// is not a file of `dist/`).
fn is_dynamic_route(path: &str) -> bool {
    contract::Endpoint::ALL
        .iter()
        .any(|e| e.route().answers(path))
}

/// A link that does not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenLink {
    /// The page holding the link (path in the output directory).
    pub page: String,
    pub target: String,
    pub reason: String,
}

impl std::fmt::Display for BrokenLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: broken link `{}` ({})",
            self.page, self.target, self.reason
        )
    }
}

/// Checks every HTML page of the build in `out`.
pub fn check_links(out: &Path) -> Result<Vec<BrokenLink>> {
    let manifest = read_manifest(out).with_context(|| {
        format!(
            "{} holds no readable manifest.json: run `generate build` first",
            out.display()
        )
    })?;
    let html: Vec<&String> = manifest
        .files
        .iter()
        .filter(|(_, e)| e.content_type.starts_with("text/html"))
        .map(|(p, _)| p)
        .collect();
    let pages: Vec<(String, String)> = html
        .par_iter()
        .map(|p| {
            std::fs::read_to_string(out.join(p))
                .with_context(|| format!("reading {p}"))
                .map(|s| ((*p).clone(), s))
        })
        .collect::<Result<_>>()?;
    let ids: HashMap<&str, HashSet<String>> = pages
        .par_iter()
        .map(|(p, text)| (p.as_str(), attribute_values(text, "id").collect()))
        .collect();
    let mut broken: Vec<BrokenLink> = pages
        .par_iter()
        .flat_map_iter(|(page, text)| {
            let mut found = Vec::new();
            for attr in ["href", "src"] {
                for target in attribute_values(text, attr) {
                    if let Some(reason) = resolve(&manifest, &ids, page, &target) {
                        found.push(BrokenLink {
                            page: page.clone(),
                            target,
                            reason,
                        });
                    }
                }
            }
            found
        })
        .collect();
    broken.extend(check_search_index(out, &manifest));
    broken.sort_by(|a, b| (&a.page, &a.target).cmp(&(&b.page, &b.target)));
    broken.dedup();
    Ok(broken)
}

/// The search index parses, lists only pages that exist (with their
/// Markdown twin), and lists every page that has a twin.
fn check_search_index(out: &Path, manifest: &Manifest) -> Vec<BrokenLink> {
    let fault = |target: &str, reason: String| BrokenLink {
        page: search::PATH.to_owned(),
        target: target.to_owned(),
        reason,
    };
    // Only files of this build: a part the manifest does not list is missing.
    let read = |key: &str| {
        manifest
            .files
            .contains_key(key)
            .then(|| std::fs::read(out.join(key)).ok())
            .flatten()
    };
    let index = match contract::search::read_index(read) {
        Ok(index) => index,
        Err(e) => return vec![fault("", format!("unreadable search index: {e}"))],
    };
    let mut found = Vec::new();
    let listed: HashSet<&str> = index.documents.iter().map(|d| d.url.as_str()).collect();
    for d in &index.documents {
        let dir = d.url.trim_start_matches('/');
        let page = manifest.files.contains_key(&format!("{dir}index.html"));
        let twin = manifest.files.contains_key(&format!("{dir}index.md"));
        if !d.url.starts_with('/') || !d.url.ends_with('/') || !page || !twin {
            found.push(fault(
                &d.url,
                "no page with a Markdown twin at this URL".into(),
            ));
        }
    }
    for key in manifest.files.keys() {
        if let Some(dir) = key.strip_suffix("index.md") {
            let url = format!("/{dir}");
            if !listed.contains(url.as_str()) {
                found.push(fault(
                    &url,
                    "page with a Markdown twin missing from the index".into(),
                ));
            }
        }
    }
    found
}

/// Values of `name="…"` attributes, entity-decoded for the few entities an
/// URL or id can carry.
fn attribute_values<'a>(html: &'a str, name: &'a str) -> impl Iterator<Item = String> + 'a {
    let needle_dq = format!(" {name}=\"");
    let mut rest = html;
    std::iter::from_fn(move || {
        let start = rest.find(&needle_dq)? + needle_dq.len();
        let end = rest[start..].find('"')? + start;
        let value = decode_entities(&rest[start..end]);
        rest = &rest[end..];
        Some(value)
    })
}

/// Decodes the character references an attribute value can carry.
fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..end];
        let decoded = match name {
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "lt" => Some('<'),
            "gt" => Some('>'),
            _ => name
                .strip_prefix("#x")
                .or_else(|| name.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The URL path a page is served at.
fn page_url(page: &str) -> String {
    match page.strip_suffix("index.html") {
        Some(dir) => format!("/{dir}"),
        None => format!("/{page}"),
    }
}

fn resolve(
    manifest: &Manifest,
    ids: &HashMap<&str, HashSet<String>>,
    page: &str,
    target: &str,
) -> Option<String> {
    let external = [
        "http://",
        "https://",
        "//",
        "mailto:",
        "tel:",
        "data:",
        "javascript:",
    ];
    if target.is_empty() || external.iter().any(|p| target.starts_with(p)) {
        return None;
    }
    let (path_part, fragment) = match target.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (target, None),
    };
    let path_part = path_part.split('?').next().unwrap_or("");
    let base = page_url(page);
    let absolute = if path_part.is_empty() {
        base.clone()
    } else if path_part.starts_with('/') {
        path_part.to_owned()
    } else {
        let dir = &base[..=base.rfind('/').unwrap_or(0)];
        normalise(&format!("{dir}{path_part}"))
    };
    if is_dynamic_route(&absolute) {
        return None;
    }
    let key = if absolute.ends_with('/') {
        format!("{}index.html", &absolute[1..])
    } else {
        absolute[1..].to_owned()
    };
    let key = if manifest.files.contains_key(&key) {
        key
    } else if manifest.files.contains_key(&format!("{key}/index.html")) {
        format!("{key}/index.html")
    } else {
        return Some("no such page or file".into());
    };
    let fragment = fragment.filter(|f| !f.is_empty())?;
    match ids.get(key.as_str()) {
        Some(set) if set.contains(fragment) => None,
        Some(_) => Some(format!("no element with id `{fragment}` on {absolute}")),
        None => Some(format!(
            "{absolute} is not an HTML page, cannot hold anchor `{fragment}`"
        )),
    }
}

fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let mut s = parts.join("/");
    if !s.starts_with('/') {
        s.insert(0, '/');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_attributes() {
        let html =
            r#"<a href="&#x2f;a/?x=1&amp;y=2#top">x</a><h2 id="top">t</h2><img src="b.png">"#;
        assert_eq!(
            attribute_values(html, "href").collect::<Vec<_>>(),
            ["/a/?x=1&y=2#top"]
        );
        assert_eq!(attribute_values(html, "id").collect::<Vec<_>>(), ["top"]);
        assert_eq!(attribute_values(html, "src").collect::<Vec<_>>(), ["b.png"]);
    }

    #[test]
    fn normalises_relative_paths() {
        assert_eq!(normalise("/docs/a/../b/"), "/docs/b/");
        assert_eq!(normalise("/docs/./c"), "/docs/c");
        assert_eq!(page_url("docs/x/index.html"), "/docs/x/");
        assert_eq!(page_url("404.html"), "/404.html");
    }
}
