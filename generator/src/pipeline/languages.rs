//! A page's other languages: its translations (`hreflang` alternates,
//! the sitemap's `xhtml:link`) and the language switcher's links, and
//! which licences allow a translation at all (decision 0262).

use super::*;

/// A page in one language, for `hreflang` alternates and the switcher.
#[derive(Serialize, Clone, PartialEq, Eq)]
pub(super) struct Alternate {
    /// BCP 47 code.
    pub(super) language: String,
    /// The language's name in itself.
    pub(super) name: String,
    /// Site path.
    pub(super) url: String,
}

/// Every document by its URL in the default language, with its
/// translations, for the pages that have any.
pub(super) fn versions(content: &Content) -> HashMap<&str, Vec<&Document>> {
    let languages = &content.site.languages;
    if languages.is_empty() {
        return HashMap::new();
    }
    let mut all: HashMap<&str, Vec<&Document>> = HashMap::new();
    for d in &content.documents {
        all.entry(d.original_url()).or_default().push(d);
    }
    all.retain(|_, list| list.len() > 1);
    let rank = |d: &Document| {
        let code = d.language(&content.site.language);
        languages.iter().position(|l| l.code == code)
    };
    for list in all.values_mut() {
        list.sort_by_key(|d| rank(d));
    }
    all
}

impl Site<'_> {
    /// The page `d` in every language it exists in, itself included, in
    /// `site.toml`'s order; empty when it has no translation.
    pub(super) fn alternates(&self, d: &Document) -> Vec<Alternate> {
        let cs = &self.content.site;
        let Some(list) = self.versions.get(d.original_url()) else {
            return Vec::new();
        };
        list.iter()
            .filter_map(|v| {
                let code = v.language(&cs.language);
                let l = cs.languages.iter().find(|l| l.code == code)?;
                Some(Alternate {
                    language: l.code.clone(),
                    name: l.name.clone(),
                    url: v.url.clone(),
                })
            })
            .collect()
    }

    /// The language switcher of `d`: for each other language of the site,
    /// the same page in it, else its nearest parent that exists in it
    /// (the home page, in the default language); a language with neither
    /// is left out.
    pub(super) fn switcher(&self, d: &Document) -> Vec<Alternate> {
        let cs = &self.content.site;
        let own = d.language(&cs.language);
        let mut out = Vec::new();
        for l in cs.languages.iter().filter(|l| l.code != own) {
            let default = l.code == cs.language;
            // The page at `url` (in the default language) in `l`: itself,
            // or its translation, wherever its slug put it.
            let in_language = |url: &str| -> Option<String> {
                if default {
                    (url == "/" || self.by_url.contains_key(url)).then(|| url.to_owned())
                } else {
                    self.versions.get(url)?.iter().find_map(|v| {
                        let t = v.translation.as_ref()?;
                        (t.language == l.code).then(|| v.url.clone())
                    })
                }
            };
            let mut at = Some(d.original_url());
            let mut found = None;
            while let Some(url) = at {
                if let Some(candidate) = in_language(url) {
                    found = Some(candidate);
                    break;
                }
                at = parent_url(url).or((url != "/").then_some("/"));
            }
            if let Some(url) = found {
                out.push(Alternate {
                    language: l.code.clone(),
                    name: l.name.clone(),
                    url,
                });
            }
        }
        out
    }
}

/// A translation's page must allow derivatives: its licence is
/// `licence_id` (the original's, see [`Document::original_url`]).
pub(super) fn check_translatable(d: &Document, licence_id: &LicenceId) -> Result<()> {
    if let Some(t) = &d.translation
        && !content::allows_derivatives(licence_id.as_str())
    {
        bail!(
            "{}: a translation into `{}` of {}, whose licence `{licence_id}` allows no derivatives; \
             expected no translation of it (a page in `{}` may link the original instead)",
            d.source.display(),
            t.language,
            t.of,
            t.language
        );
    }
    Ok(())
}

/// Every page with a translation: its versions (itself included) and the
/// default language's as `x-default`.
pub(super) fn sitemap_alternates(site: &Site<'_>) -> crate::discovery::SitemapAlternates {
    let default = &site.content.site.language;
    let mut out = crate::discovery::SitemapAlternates::new();
    for d in &site.content.documents {
        let versions = site.alternates(d);
        if versions.is_empty() {
            continue;
        }
        let mut links: Vec<(String, String)> = versions
            .iter()
            .map(|a| (a.language.clone(), a.url.clone()))
            .collect();
        if let Some(a) = versions.iter().find(|a| &a.language == default) {
            links.push(("x-default".to_owned(), a.url.clone()));
        }
        out.insert(d.url.clone(), links);
    }
    out
}
