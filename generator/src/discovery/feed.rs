//! `/feed.xml`: the documents updated last, as an Atom feed; one per
//! language (`/nl/feed.xml` for the Dutch pages, decision 0263).

use std::fmt::Write as _;

use super::text::{DocLink, xml_escape};
use crate::model::Date;

/// How many documents the feed lists: the most recently updated.
pub const FEED_ENTRIES: usize = 50;

/// The identity of the feed: its title, what it is, who publishes it.
pub struct FeedHead<'a> {
    pub title: &'a str,
    pub subtitle: &'a str,
    pub author: &'a str,
    /// The licence of the feed's text.
    pub rights: &'a str,
    /// The language of its entries (BCP 47), as `xml:lang`.
    pub language: &'a str,
    /// The site path of the feed itself (`/feed.xml`, `/nl/feed.xml`).
    pub path: &'a str,
    /// The site path of the home page in that language (`/`, `/nl/`).
    pub home: &'a str,
}

/// A tag of a feed entry: `<category term label scheme>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    /// The tag's slug.
    pub term: String,
    /// The tag as written.
    pub label: String,
    /// The absolute URL of the section's tag index.
    pub scheme: String,
}

/// A document of the feed: its link, its date and its tags.
pub type FeedEntry = (DocLink, Date, Vec<Category>);

/// `/feed.xml`, an Atom feed (RFC 4287) of the [`FEED_ENTRIES`] documents
/// updated last (newest first; equal dates by URL). Each entry's id is its
/// page's URL, its update time midnight UTC of the document's date, and it
/// links the page and its Markdown twin, and has a category per tag. The feed's own time is its newest
/// entry's, so the feed changes only when a document does.
pub fn atom_feed(base_url: &str, head: &FeedHead<'_>, docs: &[FeedEntry]) -> String {
    let mut newest: Vec<&FeedEntry> = docs.iter().collect();
    newest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.url.cmp(&b.0.url)));
    newest.truncate(FEED_ENTRIES);
    let updated = newest
        .first()
        .map_or_else(|| "1970-01-01".to_owned(), |(_, d, _)| d.to_string());
    let x = xml_escape;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = write!(
        out,
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{language}\">\n  \
         <id>{base}{feed}</id>\n  <title>{title}</title>\n  <subtitle>{subtitle}</subtitle>\n  \
         <updated>{updated}T00:00:00Z</updated>\n  \
         <author><name>{author}</name><uri>{base}/</uri></author>\n  \
         <rights>{rights}</rights>\n  \
         <link rel=\"self\" type=\"{atom}\" href=\"{base}{feed}\"/>\n  \
         <link rel=\"alternate\" type=\"text/html\" href=\"{base}{home}\"/>\n",
        base = x(base_url),
        feed = x(head.path),
        home = x(head.home),
        language = x(head.language),
        title = x(head.title),
        subtitle = x(head.subtitle),
        author = x(head.author),
        rights = x(head.rights),
        atom = contract::media::ATOM,
    );
    for (d, date, tags) in newest {
        let page = x(&format!("{base_url}{}", d.url));
        let _ = write!(
            out,
            "  <entry>\n    <id>{page}</id>\n    <title>{}</title>\n    \
             <updated>{date}T00:00:00Z</updated>\n    \
             <link rel=\"alternate\" type=\"text/html\" href=\"{page}\"/>\n    \
             <link rel=\"alternate\" type=\"text/markdown\" href=\"{page}index.md\"/>\n    \
             <summary>{}</summary>\n",
            x(&d.title),
            x(&d.summary),
        );
        for c in tags {
            let _ = writeln!(
                out,
                "    <category term=\"{}\" label=\"{}\" scheme=\"{}\"/>",
                x(&c.term),
                x(&c.label),
                x(&c.scheme)
            );
        }
        out.push_str("  </entry>\n");
    }
    out.push_str("</feed>\n");
    out
}
