//! Moved pages: a document's `aliases` (earlier addresses) become the
//! manifest's redirects, which the sidecar and every `host-config` output
//! answer with a 301, and a small HTML page at each old path for hosts
//! that cannot redirect: a link to the page, `rel=canonical` and an
//! immediate meta refresh.

use std::collections::{BTreeMap, HashSet};

use anyhow::{Result, bail};

use super::Site;
use crate::content::Document;
use crate::discovery::xml_escape;
use crate::output::OutFile;

/// Each alias and the page it moved to, by path.
pub(super) fn redirects(docs: &[Document]) -> BTreeMap<String, String> {
    docs.iter()
        .flat_map(|d| d.front.aliases.iter().map(|a| (a.clone(), d.url.clone())))
        .collect()
}

/// The HTML page written at each alias; an error naming the document
/// when an alias is the path of a file the build writes anyway (`others`:
/// the fixed pages and data files).
pub(super) fn fallback_pages(site: &Site<'_>, others: &[OutFile]) -> Result<Vec<OutFile>> {
    let taken: HashSet<&str> = others.iter().map(|f| f.path.as_str()).collect();
    let mut out = Vec::new();
    for d in &site.content.documents {
        for alias in &d.front.aliases {
            let path = output_path(alias);
            if taken.contains(path.as_str()) {
                bail!(
                    "{}: alias {alias} is the address of a page the site has ({path}), expected an address no page has",
                    d.source.display()
                );
            }
            out.push(OutFile {
                path,
                bytes: fallback(&site.base_url, &d.url, &d.front.title).into_bytes(),
            });
        }
    }
    Ok(out)
}

/// An error naming the document when a page (of `pages/`, which publish at
/// the top of the site) is at the path of a file the build writes anyway
/// (`others`: the fixed pages and data files), such as `/chat/`.
pub(super) fn check_pages_free(site: &Site<'_>, others: &[OutFile]) -> Result<()> {
    let taken: HashSet<&str> = others.iter().map(|f| f.path.as_str()).collect();
    for d in &site.content.documents {
        let page = format!("{}index.html", d.out_dir);
        if taken.contains(page.as_str()) {
            bail!(
                "{}: publishes at {}, the address of a page the site writes itself ({page}), expected another name",
                d.source.display(),
                d.url
            );
        }
    }
    Ok(())
}

/// Where the page for `alias` is written: `/old/page/` →
/// `old/page/index.html`, `/old.html` → `old.html`.
fn output_path(alias: &str) -> String {
    let rel = alias.trim_start_matches('/');
    if rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.to_owned()
    }
}

fn fallback(base_url: &str, url: &str, title: &str) -> String {
    let (url, title) = (xml_escape(url), xml_escape(title));
    let base = xml_escape(base_url);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Moved: {title}</title>\n\
         <link rel=\"canonical\" href=\"{base}{url}\">\n\
         <meta name=\"robots\" content=\"noindex\">\n\
         <meta http-equiv=\"refresh\" content=\"0; url={url}\">\n\
         </head>\n<body>\n<main>\n<h1>This page has moved</h1>\n\
         <p>It is now at <a href=\"{url}\">{title}</a>.</p>\n</main>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_written_where_they_are_asked_for() {
        assert_eq!(output_path("/old/page/"), "old/page/index.html");
        assert_eq!(output_path("/old.html"), "old.html");
        let page = fallback("https://example.org", "/docs/new/", "New & better");
        assert!(page.contains("<link rel=\"canonical\" href=\"https://example.org/docs/new/\">"));
        assert!(page.contains("content=\"0; url=/docs/new/\""));
        assert!(page.contains("New &amp; better"));
    }
}
