//! Reading `content/` into the typed model, with errors that name the file,
//! the line and what was expected.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::model::{
    Catalog, FrontMatter, Id, Licence, LicenceGrant, LicenceId, Material, ServiceInformation, Site,
};

mod catalog;
mod dates;
mod documents;
mod error;
mod service;
mod service_texts;
mod tags;
mod translations;
pub use catalog::{FREQUENCIES, THEMES};
pub use documents::*;
pub use error::*;
pub use service_texts::TextsFile;
pub use tags::*;
pub use translations::{TranslationGap, allows_derivatives, is_language_code};
/// A Markdown document of `content/docs/` or `content/pages/`.
#[derive(Debug, Clone)]
pub struct Document {
    /// Source path (for error messages).
    pub source: PathBuf,
    /// The source's path under `content/` (`docs/data/globe.md`), for the
    /// "Edit this page" link; `None` for the pages the generator writes.
    pub file: Option<String>,
    /// Site path of the page, e.g. `/docs/archive/quick-start/`.
    pub url: String,
    /// Output path of the HTML page relative to `dist/`, e.g.
    /// `docs/archive/quick-start/index.html`.
    pub out_dir: String,
    /// Section: the first path segment under `docs/` (`""` for the docs
    /// home), or `pages` for every page of `pages/`.
    pub section: String,
    /// Whether this is a section's `_index.md`.
    pub is_index: bool,
    pub front: FrontMatter,
    /// Markdown body after the front matter.
    pub body: String,
    /// 1-based line where the body starts in the source file.
    pub body_line: usize,
    /// For a translation (`statistics.nl.md`), its language and the page
    /// it translates; `None` for a page in the site's default language.
    pub translation: Option<Translation>,
}

/// What a translation is of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    /// The language code, one of `site.toml`'s `[[languages]]`.
    pub language: String,
    /// The URL of the page in the default language it translates.
    pub of: String,
}

impl Document {
    /// The URL of the page in the default language: its own, or the one
    /// it translates.
    pub fn original_url(&self) -> &str {
        self.translation.as_ref().map_or(&self.url, |t| &t.of)
    }

    /// The page's language code (`default` for a page in the default
    /// language).
    pub fn language<'a>(&'a self, default: &'a str) -> &'a str {
        self.translation.as_ref().map_or(default, |t| &t.language)
    }
}

/// Everything read from `content/`.
#[derive(Debug, Clone)]
pub struct Content {
    pub site: Site,
    pub service: ServiceInformation,
    /// Sorted by URL.
    pub documents: Vec<Document>,
    /// Files of `content/files/`, as (path relative to `content/files/`,
    /// absolute source path), sorted.
    pub files: Vec<(String, PathBuf)>,
    /// Groups of words a visitor may use for the same thing
    /// (`content/synonyms.toml`; none when the file is absent).
    pub synonyms: Vec<Vec<String>>,
    /// The open-data catalogue (`content/catalog.toml`; none when the file
    /// is absent).
    pub catalog: Option<Catalog>,
    /// The service information in each other language with translated
    /// texts (`content/service/*.{code}.toml`, decision 0268), by code.
    pub service_texts: std::collections::BTreeMap<String, ServiceInformation>,
    /// The files those texts came from, for `generate check`.
    pub service_text_files: Vec<TextsFile>,
    /// The content folder (for the days its files last changed).
    pub dir: PathBuf,
}

impl Content {
    /// The licence grant of `guardrails.toml` that covers `material`.
    pub fn grant(&self, material: Material) -> Option<&LicenceGrant> {
        self.service
            .guardrails
            .licences
            .iter()
            .find(|g| g.covers.contains(&material))
    }

    /// The licence `site.toml` lists as `id`.
    pub fn licence(&self, id: &LicenceId) -> Option<&Licence> {
        self.site.licences.iter().find(|l| l.id == *id)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SynonymsFile {
    groups: Vec<Vec<String>>,
}

/// Reads and validates the whole content directory.
pub fn load_content(dir: &Path) -> Result<Content, ContentError> {
    let site_path = dir.join("site.toml");
    let (site, site_text): (Site, String) = load(&site_path)?;
    check_site(&site_path, &site_text, &site)?;

    let svc = dir.join("service");
    let service = service::load_service(&svc, &site)?;

    let (service_texts, service_text_files) =
        service_texts::load_service_texts(&svc, &site, &service)?;
    let documents = load_documents(dir, &site)?;
    let files = list_files(&dir.join("files"))?;
    check_social_image(&site_path, &site_text, &site, &files)?;
    let synonyms = load_synonyms(&dir.join("synonyms.toml"))?;
    let catalog = catalog::load_catalog(
        &dir.join("catalog.toml"),
        &documents,
        &service.guardrails.licences,
        &site,
    )?;
    Ok(Content {
        site,
        service,
        documents,
        files,
        synonyms,
        catalog,
        service_texts,
        service_text_files,
        dir: dir.to_path_buf(),
    })
}

/// `synonyms.toml`: `groups = [["ph", "acidity"], …]`, each group two or
/// more single lower-case words (what the ranking's tokens look like).
fn load_synonyms(path: &Path) -> Result<Vec<Vec<String>>, ContentError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let (file, text): (SynonymsFile, _) = load(path)?;
    for group in &file.groups {
        if group.len() < 2 {
            return Err(error_at_value(
                path,
                &text,
                group.first().map_or("[]", String::as_str),
                "a synonym group of one word, expected two or more",
            ));
        }
        for word in group {
            if word.is_empty() || !word.chars().all(|c| c.is_lowercase() || c.is_ascii_digit()) {
                return Err(error_at_value(
                    path,
                    &text,
                    word,
                    format!("synonym `{word}`, expected one lower-case word"),
                ));
            }
        }
    }
    Ok(file.groups)
}

fn check_site(path: &Path, text: &str, site: &Site) -> Result<(), ContentError> {
    let base = site.base_url.as_str();
    let scheme_ok = base.starts_with("https://") || base.starts_with("http://");
    if !scheme_ok
        || base.ends_with('/')
        || base[base.find("//").map_or(0, |i| i + 2)..].contains('/')
    {
        return Err(error_at_value(
            path,
            text,
            base,
            format!(
                "invalid base_url `{base}`, expected an origin such as https://example.org (no path, no trailing slash)"
            ),
        ));
    }
    if site.page_size == 0 {
        return Err(error_at_value(
            path,
            text,
            "page_size",
            "page_size = 0, expected 1 or more pages per listing",
        ));
    }
    check_languages(path, text, site)?;
    if !site.licences.iter().any(|l| l.id == site.default_licence) {
        return Err(error_at_value(
            path,
            text,
            "default_licence",
            format!(
                "default_licence `{}` is not among the [[licences]]",
                site.default_licence
            ),
        ));
    }
    Ok(())
}

/// `[[languages]]`: codes a URL can start with, each once, the default
/// language among them, and a name for each.
fn check_languages(path: &Path, text: &str, site: &Site) -> Result<(), ContentError> {
    if site.languages.is_empty() {
        return Ok(());
    }
    for (i, l) in site.languages.iter().enumerate() {
        if !is_language_code(&l.code) {
            return Err(error_at_value(
                path,
                text,
                &l.code,
                format!(
                    "language code `{}`, expected a lower-case BCP 47 tag such as `nl` or `pt-br`",
                    l.code
                ),
            ));
        }
        if site.languages[..i].iter().any(|o| o.code == l.code) {
            return Err(error_at_value(
                path,
                text,
                &l.code,
                format!(
                    "language `{}` is declared twice, expected each once",
                    l.code
                ),
            ));
        }
        if l.name.trim().is_empty() {
            return Err(error_at_value(
                path,
                text,
                &l.code,
                format!(
                    "language `{}` has no name, expected its name in itself",
                    l.code
                ),
            ));
        }
    }
    if !site.languages.iter().any(|l| l.code == site.language) {
        return Err(error_at_value(
            path,
            text,
            "languages",
            format!(
                "the default language `{}` is not among the [[languages]], expected it there with its name",
                site.language
            ),
        ));
    }
    Ok(())
}

/// `social_image` is a file the site publishes (under `/files/`) or an
/// https URL, and has its text alternative; `edit_url` is an https URL.
fn check_social_image(
    path: &Path,
    text: &str,
    site: &Site,
    files: &[(String, PathBuf)],
) -> Result<(), ContentError> {
    if let Some(image) = &site.social_image {
        let image = image.as_str();
        let published = match image.strip_prefix("/files/") {
            Some(rel) => files.iter().any(|(f, _)| f == rel),
            None => image.starts_with("https://"),
        };
        if !published {
            return Err(error_at_value(
                path,
                text,
                "social_image",
                format!(
                    "social_image `{image}` is not a file of content/files/ (written /files/…) or an https URL"
                ),
            ));
        }
        if site
            .social_image_alt
            .as_deref()
            .is_none_or(|a| a.trim().is_empty())
        {
            return Err(error_at_value(
                path,
                text,
                "social_image",
                "social_image has no social_image_alt, expected a text alternative for it",
            ));
        }
    }
    if let Some(edit) = &site.edit_url
        && !edit.as_str().starts_with("https://")
    {
        return Err(error_at_value(
            path,
            text,
            "edit_url",
            format!(
                "edit_url `{edit}` is not an https URL, expected the content folder in a repository's web editor"
            ),
        ));
    }
    Ok(())
}

/// An error placed at the first line mentioning `needle` (used for checks
/// that span several values, after deserialisation succeeded).
pub(super) fn error_at_value(
    file: &Path,
    text: &str,
    needle: &str,
    message: impl Into<String>,
) -> ContentError {
    match text.find(needle) {
        Some(offset) => ContentError::at(file, text, offset, message),
        None => ContentError::whole(file, message),
    }
}

pub(super) fn unique_ids<'a>(
    file: &Path,
    text: &str,
    ids: impl Iterator<Item = &'a Id>,
) -> Result<BTreeSet<String>, ContentError> {
    let mut seen = BTreeSet::new();
    for id in ids {
        if !seen.insert(id.as_str().to_owned()) {
            let quoted = format!("\"{id}\"");
            let second = text
                .match_indices(&quoted)
                .nth(1)
                .map(|(i, _)| i)
                .unwrap_or(0);
            return Err(ContentError::at(
                file,
                text,
                second,
                format!("duplicate id `{id}`, expected every id in this file to be unique"),
            ));
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_errors_name_line_and_expectation() {
        let text = "title = \"x\"\nsummary = \"y\"\nweight = \"heavy\"\n";
        let err = parse_toml::<FrontMatter>(Path::new("a.md"), text, 1).unwrap_err();
        assert_eq!(err.line, 4, "{err}");
        assert!(err.message.contains("expected i64"), "{err}");
        let text = "title = \"x\"\nsummary = \"y\"\ncolour = 1\n";
        let err = parse_toml::<FrontMatter>(Path::new("a.md"), text, 0).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("unknown field `colour`"), "{err}");
        assert!(err.to_string().starts_with("a.md:3:"), "{err}");
    }

    #[test]
    fn front_matter_split() {
        let text = "+++\ntitle = \"T\"\nsummary = \"S\"\n+++\n## Body\n";
        let (front, body, line) = split_front_matter(Path::new("x.md"), text).unwrap();
        assert_eq!(front.title, "T");
        assert_eq!(body, "## Body\n");
        assert_eq!(line, 5);
        let err = split_front_matter(Path::new("x.md"), "## no front\n").unwrap_err();
        assert_eq!(err.line, 1);
        let err = split_front_matter(Path::new("x.md"), "+++\ntitle = \"T\"\n").unwrap_err();
        assert!(err.message.contains("not closed"));
        let err = split_front_matter(Path::new("x.md"), "+++\ntitle = \"T\"\nsummary = 3\n+++\n")
            .unwrap_err();
        assert_eq!(err.line, 3, "{err}");
    }

    #[test]
    fn line_col_counts_chars() {
        assert_eq!(line_col("ab\ncdé f", 8), (2, 5));
        assert_eq!(line_col("", 0), (1, 1));
    }
}
