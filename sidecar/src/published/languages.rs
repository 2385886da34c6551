//! The languages of a release: each one's passages, ranked apart
//! ([`Content::index`]), and which page is which page's translation, read
//! from the sitemap's `xhtml:link` alternates (the published, standard
//! record of it; decision 0264).

use super::content::Content;
use crate::search::Index;

impl Content {
    /// The passages of `language` (`None`: the default language's);
    /// `None` for a language the build has no pages in.
    pub fn index(&self, language: Option<&str>) -> Option<&Index> {
        match language {
            None => Some(&self.passages),
            Some(code) if code == self.language => Some(&self.passages),
            Some(code) => self
                .translated
                .iter()
                .find(|(c, _)| c == code)
                .map(|(_, index)| index),
        }
    }

    /// The languages the build has pages in: the default first.
    pub fn languages(&self) -> Vec<&str> {
        std::iter::once(self.language.as_str())
            .chain(self.translated.iter().map(|(c, _)| c.as_str()))
            .collect()
    }

    /// The language of the page at `path`: the one its alternates give
    /// it, else the site's default.
    pub fn language_of(&self, path: &str) -> &str {
        self.alternates
            .get(path)
            .and_then(|v| v.iter().find(|(_, p)| p == path))
            .map_or(self.language.as_str(), |(l, _)| l.as_str())
    }

    /// The page at `path` and its translations: `(language, path)`, in the
    /// sitemap's order; empty for a page in one language only.
    pub fn versions(&self, path: &str) -> &[(String, String)] {
        self.alternates.get(path).map_or(&[], Vec::as_slice)
    }

    /// The path of the page at `path` in `language`: itself when it is in
    /// it, else its translation into it, if it has one.
    pub fn version_in<'a>(&'a self, path: &'a str, language: &str) -> Option<&'a str> {
        if self.language_of(path) == language {
            return Some(path);
        }
        self.versions(path)
            .iter()
            .find(|(l, _)| l == language)
            .map(|(_, p)| p.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::super::alternates::sitemap_alternates;
    use super::*;

    #[test]
    fn each_language_is_ranked_apart_with_its_own_words() {
        let head =
            r#"{"version":3,"language":"en","synonyms":[],"parts":["/search/passages-1.json"]}"#;
        let part = r#"{"passages":[
            {"url":"/docs/data/","title":"Data","section":"data","text":"Nitrate measurements by volunteers."},
            {"url":"/nl/docs/data/","title":"Gegevens","section":"data","language":"nl","text":"Nitraatmetingen door vrijwilligers. De metingen van nitraat in sloten."}
        ]}"#;
        let keys = vec![
            "search-passages.json".to_owned(),
            "search/passages-1.json".to_owned(),
        ];
        let read = |k: &str| match k {
            "search-passages.json" => Some(head.to_owned()),
            "search/passages-1.json" => Some(part.to_owned()),
            _ => None,
        };
        let c = Content::new(&keys, read, |_| None, None, "https://example.org");
        assert_eq!(c.languages(), ["en", "nl"]);
        assert_eq!(c.passages.len(), 1);
        let nl = c.index(Some("nl")).expect("the Dutch passages");
        // Dutch stemming: "meting" meets "metingen", "vrijwilliger" the plural.
        let hits = c.search_in(nl, "meting vrijwilliger", 5);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].path, "/nl/docs/data/");
        // The languages do not mix: an English question finds the English page.
        let en = c.index(Some("en")).unwrap();
        assert_eq!(
            c.search_in(en, "nitrate volunteers", 5)[0].path,
            "/docs/data/"
        );
        assert!(c.search_in(en, "metingen", 5).is_empty());
        assert!(c.index(Some("de")).is_none());
        assert!(std::ptr::eq(c.index(None).unwrap(), en));
    }

    #[test]
    fn a_page_finds_its_versions_through_the_sitemap() {
        let sitemap = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>https://x.org/docs/data/statistics/</loc>
    <xhtml:link rel="alternate" hreflang="en" href="https://x.org/docs/data/statistics/"/>
    <xhtml:link rel="alternate" hreflang="nl" href="https://x.org/nl/docs/gegevens/statistieken/"/>
    <xhtml:link rel="alternate" hreflang="x-default" href="https://x.org/docs/data/statistics/"/>
  </url>
  <url>
    <loc>https://x.org/nl/docs/gegevens/statistieken/</loc>
    <xhtml:link rel="alternate" hreflang="en" href="https://x.org/docs/data/statistics/"/>
    <xhtml:link rel="alternate" hreflang="nl" href="https://x.org/nl/docs/gegevens/statistieken/"/>
  </url>
  <url><loc>https://x.org/docs/data/globe/</loc></url>
</urlset>"#;
        let c = Content {
            language: "en".into(),
            alternates: sitemap_alternates(sitemap),
            ..Content::default()
        };
        let nl = "/nl/docs/gegevens/statistieken/";
        assert_eq!(c.language_of(nl), "nl");
        assert_eq!(c.language_of("/docs/data/statistics/"), "en");
        assert_eq!(c.language_of("/docs/data/globe/"), "en");
        assert_eq!(c.version_in("/docs/data/statistics/", "nl"), Some(nl));
        assert_eq!(c.version_in(nl, "en"), Some("/docs/data/statistics/"));
        assert_eq!(c.version_in(nl, "nl"), Some(nl));
        assert_eq!(c.version_in("/docs/data/globe/", "nl"), None);
        assert_eq!(c.versions("/docs/data/statistics/").len(), 2);
    }
}
