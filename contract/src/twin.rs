//! The head of a page's Markdown twin (`…/index.md`): what every twin
//! states before its text, written by the generator and read back by the
//! sidecar (documents for MCP and the chat) through this one module.
//!
//! ```text
//! # Title
//!
//! > Summary
//! >
//! > Source: https://example.org/docs/page/
//! > Licence: CC BY 4.0 (CC-BY-4.0) — https://…
//! > Attribution: …
//! > Updated: 2026-11-26
//!
//! Text…
//! ```
//!
//! A page's twin is also one of the page URL's two representations: a
//! request there whose `Accept` prefers `text/markdown` is answered with
//! the twin ([`twin_key`], [`negotiated`]; decision 0046).

use std::fmt::{self, Display};

pub const SOURCE: &str = "Source:";
pub const LICENCE: &str = "Licence:";
pub const ATTRIBUTION: &str = "Attribution:";
pub const UPDATED: &str = "Updated:";

/// What a twin's head states.
#[derive(Clone, Copy)]
pub struct Head<'a> {
    pub title: &'a str,
    pub summary: &'a str,
    /// The page's absolute URL: origin, then path.
    pub source: (&'a str, &'a str),
    /// The licence's title, identifier and URL.
    pub licence: (&'a str, &'a str, &'a str),
    pub attribution: &'a str,
    pub updated: &'a dyn Display,
}

impl Display for Head<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (origin, path) = self.source;
        let (licence, id, url) = self.licence;
        write!(
            f,
            "# {}\n\n> {}\n>\n> {SOURCE} {origin}{path}\n> {LICENCE} {licence} ({id}) — {url}\n> {ATTRIBUTION} {}\n> {UPDATED} {}\n\n",
            self.title, self.summary, self.attribution, self.updated
        )
    }
}

/// A twin's head as read back: each field when present.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadHead {
    pub title: Option<String>,
    pub summary: Option<String>,
    /// The `Licence:` line's value, whole.
    pub licence: Option<String>,
    pub attribution: Option<String>,
}

/// Reads the head of `markdown`: the first `# ` line is the title; the
/// quoted lines after it give the summary (the first that is not a labelled
/// line) and the labelled values; the head ends at the first other line
/// that is not blank.
pub fn read_head(markdown: &str) -> ReadHead {
    let mut head = ReadHead::default();
    let mut in_head = false;
    for line in markdown.lines() {
        if head.title.is_none() {
            if let Some(t) = line.strip_prefix("# ") {
                head.title = Some(t.trim().to_owned());
                in_head = true;
            }
            continue;
        }
        let Some(quoted) = line.strip_prefix('>') else {
            if in_head && !line.trim().is_empty() {
                break;
            }
            continue;
        };
        let quoted = quoted.trim();
        if let Some(v) = quoted.strip_prefix(LICENCE) {
            head.licence = Some(v.trim().to_owned());
        } else if let Some(v) = quoted.strip_prefix(ATTRIBUTION) {
            head.attribution = Some(v.trim().to_owned());
        } else if head.summary.is_none()
            && !quoted.is_empty()
            && ![SOURCE, UPDATED].iter().any(|k| quoted.starts_with(k))
        {
            head.summary = Some(quoted.to_owned());
        }
    }
    head
}

/// The manifest key of the Markdown twin of the page published under
/// `page`: `index.md` beside an `index.html` (the home page's included).
/// Whether the twin exists is the manifest's to say.
pub fn twin_key(page: &str) -> Option<String> {
    let dir = page.strip_suffix("index.html")?;
    (dir.is_empty() || dir.ends_with('/')).then(|| format!("{dir}index.md"))
}

/// The manifest key of the page whose Markdown twin is `twin`.
pub fn page_key(twin: &str) -> Option<String> {
    let dir = twin.strip_suffix("index.md")?;
    (dir.is_empty() || dir.ends_with('/')).then(|| format!("{dir}index.html"))
}

/// Whether the answers for the file `key` depend on `Accept` (`Vary`): a
/// page that has a twin, or the twin of a page, among the files for which
/// `listed` holds. Both carry `Vary: Accept` at every URL they answer at,
/// so a cache keys them alike whichever URL it stored.
pub fn negotiated(key: &str, listed: impl Fn(&str) -> bool) -> bool {
    match (twin_key(key), page_key(key)) {
        (Some(twin), _) => listed(&twin),
        (_, Some(page)) => listed(&page),
        _ => false,
    }
}

/// Where the text after the head begins: past the title, the quoted lines
/// and the blank lines around them.
pub fn body_start(markdown: &str) -> usize {
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        let t = line.trim();
        if !(t.is_empty() || t.starts_with("# ") || t.starts_with('>')) {
            break;
        }
        offset += line.len();
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_head_reads_back() {
        let head = Head {
            title: "Nitrate",
            summary: "How to measure it.",
            source: ("https://example.org", "/docs/nitrate/"),
            licence: ("CC BY 4.0", "CC-BY-4.0", "https://example.org/licence/"),
            attribution: "The volunteers",
            updated: &"2026-11-26",
        };
        let twin = format!("{head}Dip the strip.\n");
        assert_eq!(
            twin,
            "# Nitrate\n\n> How to measure it.\n>\n> Source: https://example.org/docs/nitrate/\n> \
             Licence: CC BY 4.0 (CC-BY-4.0) — https://example.org/licence/\n> Attribution: The \
             volunteers\n> Updated: 2026-11-26\n\nDip the strip.\n"
        );
        assert_eq!(
            read_head(&twin),
            ReadHead {
                title: Some("Nitrate".into()),
                summary: Some("How to measure it.".into()),
                licence: Some("CC BY 4.0 (CC-BY-4.0) — https://example.org/licence/".into()),
                attribution: Some("The volunteers".into()),
            }
        );
        assert_eq!(&twin[body_start(&twin)..], "Dip the strip.\n");
    }

    #[test]
    fn pages_and_twins_pair_by_key() {
        assert_eq!(twin_key("index.html").as_deref(), Some("index.md"));
        assert_eq!(
            twin_key("docs/a/index.html").as_deref(),
            Some("docs/a/index.md")
        );
        assert_eq!(twin_key("docs/aindex.html"), None);
        assert_eq!(twin_key("404.html"), None);
        assert_eq!(
            page_key("docs/a/index.md").as_deref(),
            Some("docs/a/index.html")
        );
        assert_eq!(page_key("notes.md"), None);
        let listed = |k: &str| ["index.html", "index.md", "docs/a/index.html"].contains(&k);
        assert!(negotiated("index.html", listed));
        assert!(negotiated("index.md", listed));
        assert!(!negotiated("docs/a/index.html", listed), "no twin");
        assert!(!negotiated("404.html", listed));
    }

    #[test]
    fn a_head_ends_at_the_text() {
        let md = "# T\n\n> S\n\nText.\n\n> A quote in the text: Licence: not the head's.\n";
        let head = read_head(md);
        assert_eq!(head.summary.as_deref(), Some("S"));
        assert_eq!(head.licence, None);
        assert_eq!(read_head("no head").title, None);
    }
}
