//! The search files of a build, from what each page's render left in its
//! [`PageMemo`] and the fixed pages' entries: every file after a whole
//! build, only the parts holding a changed page after an incremental one.

use std::collections::BTreeMap;

use super::{FixedEntries, OutFile, PageMemo, Prepared};

use crate::content::Document;
use crate::search;

impl Prepared {
    /// The search files after an incremental rebuild: the parts holding a
    /// page rendered again (`rendered`, by URL) or a fixed page whose entry
    /// is not the one in `before`; all of them when the fixed pages are not
    /// the same URLs.
    pub(super) fn search_since(
        &self,
        memo: &[PageMemo],
        fixed: &FixedEntries,
        rendered: &dyn Fn(&str) -> bool,
        before: &FixedEntries,
    ) -> Vec<OutFile> {
        let same_urls =
            before.len() == fixed.len() && before.iter().zip(fixed).all(|(a, b)| a.url == b.url);
        let changed = |url: &str| {
            rendered(url)
                || before
                    .iter()
                    .zip(fixed)
                    .any(|(a, b)| b.url == url && a.entry != b.entry)
        };
        self.search_files(memo, fixed, same_urls.then_some(&changed))
    }

    /// The search files (heads and the parts `changed` asks for), from each
    /// document's fragments in `memo` and the fixed pages' entries.
    pub(super) fn search_files(
        &self,
        memo: &[PageMemo],
        fixed: &FixedEntries,
        changed: search::Changed<'_>,
    ) -> Vec<OutFile> {
        self.search_parts(memo, fixed, changed)
            .into_iter()
            .map(|f| {
                let (path, bytes) = f.made();
                OutFile { path, bytes }
            })
            .collect()
    }

    /// The search entries (documents', fixed pages') and passages, by URL.
    #[allow(clippy::type_complexity)]
    pub(super) fn search_inputs<'a>(
        &'a self,
        memo: &'a [PageMemo],
        fixed: &'a FixedEntries,
    ) -> (Vec<(&'a str, &'a [u8])>, Vec<(&'a str, &'a [u8])>) {
        let docs = &self.content.documents;
        let mut entries: Vec<(&str, &[u8])> = docs
            .iter()
            .zip(memo)
            .map(|(d, m)| (d.url.as_str(), &m.entry[..]))
            .collect();
        entries.extend(fixed.iter().map(|f| (f.url.as_str(), &f.entry[..])));
        // Every language's passages: each carries its language, and the
        // sidecar ranks each language apart (decision 0264).
        let passages = docs
            .iter()
            .zip(memo)
            .map(|(d, m)| (d.url.as_str(), &m.passages[..]))
            .collect();
        (entries, passages)
    }

    /// [`Prepared::search_files`], each part to be joined when it is used.
    pub(super) fn search_parts<'a>(
        &'a self,
        memo: &'a [PageMemo],
        fixed: &'a FixedEntries,
        changed: search::Changed<'_>,
    ) -> Vec<search::SearchFile<'a>> {
        let (entries, passages) = self.search_inputs(memo, fixed);
        let browser = browser_files(&self.content.documents, memo, fixed);
        search::index_files(entries, changed)
            .into_iter()
            .chain(browser)
            .chain(search::passages_files(
                passages,
                &self.content.site.language,
                &self.content.synonyms,
                changed,
            ))
            .collect()
    }
}

/// The browser's split index, one per language: each page's entry as its
/// render left it in `memo` (beside its document in `docs`) or in `fixed`
/// (the generated pages: in the default language, or in the language
/// whose folder holds them, as `/nl/`).
pub(super) fn browser_files<'a>(
    docs: &[Document],
    memo: &[PageMemo],
    fixed: &FixedEntries,
) -> Vec<search::SearchFile<'a>> {
    let mut by_language: BTreeMap<Option<&str>, Vec<&search::BrowserEntry>> = BTreeMap::new();
    let codes: Vec<&str> = docs
        .iter()
        .filter_map(|d| d.translation.as_ref().map(|t| t.language.as_str()))
        .collect();
    by_language.insert(None, Vec::new());
    for f in fixed {
        let language = codes.iter().copied().find(|code| {
            f.url
                .strip_prefix('/')
                .and_then(|u| u.strip_prefix(code))
                .is_some_and(|rest| rest.starts_with('/'))
        });
        by_language.entry(language).or_default().push(&f.browser);
    }
    for (d, m) in docs.iter().zip(memo) {
        let language = d.translation.as_ref().map(|t| t.language.as_str());
        by_language.entry(language).or_default().push(&m.browser);
    }
    by_language
        .into_iter()
        .flat_map(|(language, pages)| search::browser_files(&pages, language))
        .collect()
}
