//! Which pages lack a translation into each of the site's languages, and
//! which translations are older than their page: `generate check` reports
//! them (decision 0262), with the rules for language codes and licences.
//! A page whose licence allows no derivatives (the
//! archive's) is never counted as lacking one.

use super::{Content, Document};
use crate::model::{Date, LicenceId};

/// A gap between a page and its translations.
#[derive(Debug, Clone)]
pub enum TranslationGap<'a> {
    /// `page` has no translation into `language`.
    Missing {
        language: &'a str,
        page: &'a Document,
    },
    /// `translation` was last changed before its `page`.
    Outdated {
        page: &'a Document,
        translation: &'a Document,
    },
    /// A file of the service information's texts (decision 0268) last
    /// changed before the file it translates.
    OutdatedTexts {
        file: &'a super::TextsFile,
        changed: Date,
        source_changed: Date,
    },
}

impl TranslationGap<'_> {
    /// The language the gap is in.
    pub fn language(&self) -> &str {
        match self {
            TranslationGap::Missing { language, .. } => language,
            TranslationGap::Outdated { translation, .. } => translation
                .translation
                .as_ref()
                .map_or("", |t| t.language.as_str()),
            TranslationGap::OutdatedTexts { file, .. } => &file.language,
        }
    }
}

impl std::fmt::Display for TranslationGap<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let file = |d: &Document| d.file.clone().unwrap_or_else(|| d.url.clone());
        let day = |d: &Document| {
            d.front
                .updated
                .as_ref()
                .map_or("no date".to_owned(), |u| u.to_string())
        };
        match self {
            TranslationGap::Missing { language, page } => {
                let f_name = file(page);
                let expected = f_name
                    .strip_suffix(".md")
                    .map_or(f_name.clone(), |s| format!("{s}.{language}.md"));
                write!(
                    f,
                    "{f_name}: no translation into `{language}` (expected {expected})"
                )
            }
            TranslationGap::OutdatedTexts {
                file,
                changed,
                source_changed,
            } => write!(
                f,
                "{}: older than the file it translates, {} (changed {changed} against \
                 {source_changed})",
                file.translation, file.source
            ),
            TranslationGap::Outdated { page, translation } => write!(
                f,
                "{}: older than the page it translates, {} (updated {} against {})",
                file(translation),
                file(page),
                day(translation),
                day(page)
            ),
        }
    }
}

/// A language code a URL can start with: lower-case letters, and one `-`
/// before a region (`nl`, `pt-br`).
pub fn is_language_code(code: &str) -> bool {
    let mut parts = code.split('-');
    let lang = parts.next().unwrap_or("");
    let region = parts.next();
    (2..=3).contains(&lang.len())
        && lang.bytes().all(|b| b.is_ascii_lowercase())
        && region.is_none_or(|r| {
            (2..=4).contains(&r.len())
                && r.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
        && parts.next().is_none()
}

/// Whether a licence (an SPDX identifier) allows derivatives, such as a
/// translation: not the Creative Commons "NoDerivatives" ones (`-ND-`).
pub fn allows_derivatives(licence: &str) -> bool {
    !licence.split('-').any(|part| part == "ND")
}

impl Content {
    /// The licence a document is published under: its own, else the
    /// archive's for a page under the archive, else the site's default.
    pub fn licence_of<'a>(&'a self, d: &'a Document) -> &'a LicenceId {
        let archive = self
            .grant(crate::model::Material::Archive)
            .filter(|_| d.original_url().starts_with(crate::archive::PAGES));
        d.front
            .licence
            .as_ref()
            .or(archive.map(|g| &g.licence))
            .unwrap_or(&self.site.default_licence)
    }

    /// Every page written in `content/` that may be translated and lacks a
    /// translation into one of the site's other languages, and every
    /// translation last changed (its `updated`, or its file's last commit)
    /// before its page; by language, then page, in URL order.
    pub fn translation_gaps(&self) -> Vec<TranslationGap<'_>> {
        // Each translation by its language and the URL it translates.
        let translations: std::collections::HashMap<(&str, &str), &Document> = self
            .documents
            .iter()
            .filter_map(|t| {
                let tr = t.translation.as_ref()?;
                Some(((tr.language.as_str(), tr.of.as_str()), t))
            })
            .collect();
        let mut gaps = Vec::new();
        for l in self.site.translations() {
            for page in self.documents.iter().filter(|d| {
                d.translation.is_none()
                    && d.file.is_some()
                    && !d.front.draft
                    && allows_derivatives(self.licence_of(d).as_str())
            }) {
                match translations
                    .get(&(l.code.as_str(), page.url.as_str()))
                    .copied()
                {
                    None => gaps.push(TranslationGap::Missing {
                        language: &l.code,
                        page,
                    }),
                    Some(t) if older(t, page) => gaps.push(TranslationGap::Outdated {
                        page,
                        translation: t,
                    }),
                    Some(_) => {}
                }
            }
        }
        // The service information's texts, by the day each file last
        // changed (its last commit, else its modification time).
        if !self.service_text_files.is_empty() {
            let history = super::dates::LastChanges::of(&self.dir.join("service"));
            for file in &self.service_text_files {
                let day = |rel: &str| history.day(&self.dir.join(rel));
                if let (Some(changed), Some(source_changed)) =
                    (day(&file.translation), day(&file.source))
                    && changed.calendar() < source_changed.calendar()
                {
                    gaps.push(TranslationGap::OutdatedTexts {
                        file,
                        changed,
                        source_changed,
                    });
                }
            }
        }
        gaps
    }
}

/// Whether `a` was last changed on an earlier day than `b` (a page
/// without a date is never older).
fn older(a: &Document, b: &Document) -> bool {
    match (&a.front.updated, &b.front.updated) {
        (Some(a), Some(b)) => a.calendar() < b.calendar(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_codes_and_licences() {
        for code in ["nl", "en", "fry", "pt-br", "zh-hant", "es-419"] {
            assert!(is_language_code(code), "{code}");
        }
        for code in ["", "n", "NL", "dutch", "v1", "pt_br", "pt-", "en-us-x", "2"] {
            assert!(!is_language_code(code), "{code}");
        }
        assert!(allows_derivatives("CC-BY-4.0") && allows_derivatives("CC0-1.0"));
        assert!(!allows_derivatives("CC-BY-NC-ND-4.0") && !allows_derivatives("CC-BY-ND-4.0"));
    }
}
