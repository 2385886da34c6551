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
    // The home page in each language with pages.
    let homes = generated_alternates(site.content, "/");
    if !homes.is_empty() {
        let mut links: Vec<(String, String)> = homes
            .iter()
            .map(|a| (a.language.clone(), a.url.clone()))
            .collect();
        links.push(("x-default".to_owned(), "/".to_owned()));
        for a in &homes {
            out.insert(a.url.clone(), links.clone());
        }
    }
    out
}

/// The generated pages each language with pages has (decision 0265): the
/// home page, the chat page, the contact form and its thank-you page, by
/// their address in the default language.
pub(super) const GENERATED: [&str; 4] =
    ["/", "/chat/", "/contact/", contract::routes::CONTACT_THANKS];

/// The codes of the site's languages that have pages, the default first,
/// then in `site.toml`'s order: the default and each language with a
/// translated document.
pub(super) fn page_languages(content: &Content) -> Vec<&str> {
    let cs = &content.site;
    std::iter::once(cs.language.as_str())
        .chain(cs.translations().map(|l| l.code.as_str()).filter(|code| {
            content
                .documents
                .iter()
                .any(|d| d.translation.as_ref().is_some_and(|t| t.language == *code))
        }))
        .collect()
}

/// The address of the generated page `url` (one of [`GENERATED`]) in
/// `code`: itself in the default language, under `/{code}` in another.
pub(super) fn generated_url(content: &Content, code: &str, url: &str) -> String {
    if code == content.site.language {
        url.to_owned()
    } else {
        format!("/{code}{url}")
    }
}

/// The generated page `url` in each language that has pages, for its
/// `hreflang` alternates; empty when the site has one.
pub(super) fn generated_alternates(content: &Content, url: &str) -> Vec<Alternate> {
    let languages = page_languages(content);
    if languages.len() < 2 {
        return Vec::new();
    }
    languages
        .into_iter()
        .map(|code| Alternate {
            language: code.to_owned(),
            name: content
                .site
                .languages
                .iter()
                .find(|l| l.code == code)
                .map_or_else(|| code.to_owned(), |l| l.name.clone()),
            url: generated_url(content, code, url),
        })
        .collect()
}

/// For each other language with pages, where each page of the default
/// language is in it (its translations and the generated pages), for
/// the templates' `link(url)`.
pub(super) fn links(content: &Content, versions: &HashMap<&str, Vec<&Document>>) -> Value {
    let cs = &content.site;
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for code in page_languages(content)
        .into_iter()
        .filter(|code| *code != cs.language)
    {
        let map = out.entry(code.to_owned()).or_default();
        for url in GENERATED {
            map.insert(url.to_owned(), generated_url(content, code, url));
        }
        for (url, list) in versions {
            if let Some(v) = list
                .iter()
                .find(|v| v.translation.as_ref().is_some_and(|t| t.language == code))
            {
                map.insert((*url).to_owned(), v.url.clone());
            }
        }
    }
    Value::from(Serde(&out))
}

/// The about section's pages in each other language with pages and with
/// the service information's texts in it (decision 0268).
pub(super) fn about_pages(
    content: &Content,
    messages: &crate::messages::Messages,
    licence: Option<&crate::model::LicenceId>,
    attribution: Option<&String>,
) -> anyhow::Result<Vec<crate::content::Document>> {
    let mut out = Vec::new();
    for code in page_languages(content).into_iter().skip(1) {
        let Some(service) = content.service_texts.get(code) else {
            continue;
        };
        // Where each page is in this language: the translated documents,
        // these pages and the generated ones.
        let mut pages: HashMap<String, String> = content
            .documents
            .iter()
            .filter_map(|d| {
                let t = d.translation.as_ref().filter(|t| t.language == code)?;
                Some((t.of.clone(), d.url.clone()))
            })
            .collect();
        for url in crate::about::TRANSLATED.iter().chain(&GENERATED) {
            pages.insert((*url).to_owned(), format!("/{code}{url}"));
        }
        let words = crate::about::Words::new(messages, code, &content.service, pages);
        out.extend(crate::about::documents(
            service,
            licence.cloned(),
            attribution.cloned(),
            &words,
            Some(code),
        )?);
    }
    Ok(out)
}
