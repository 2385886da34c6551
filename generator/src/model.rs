//! The typed content model: what `content/` may say, and nothing else.
//!
//! Every file is read with `deny_unknown_fields` into these types, so a typo in
//! `content/` fails the build instead of silently publishing less. The
//! service information's types are the contract's
//! ([`contract::service`]): the same types serialise `api/service.json`,
//! give its JSON Schema and read it back in the sidecar.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use contract::service::*;

/// `content/site.toml`: presentation settings of the published site.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    /// Title shown in the browser and in discovery documents.
    pub title: String,
    /// Canonical base URL without a trailing slash; `--base-url` overrides it.
    pub base_url: String,
    /// BCP 47 language tag of the content: the default language, whose
    /// pages keep the site's plain URLs.
    pub language: String,
    /// Every language the site publishes in, the default one included,
    /// with its name in itself (for the language switcher). Empty for a
    /// site in one language. A page's translation sits beside it, named
    /// with the language before `.md` (`statistics.nl.md`), and publishes
    /// under `/{code}/` (`/nl/docs/data/statistics/`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<Language>,
    /// The content's date: every date the build needs (sitemap, security.txt
    /// expiry) derives from it, never from the clock.
    pub updated: Date,
    /// Licence of pages that do not name their own.
    pub default_licence: LicenceId,
    /// Attribution of pages that do not name their own.
    pub default_attribution: String,
    /// Licences that pages, files and the service information may name.
    pub licences: Vec<Licence>,
    /// Top navigation, in order.
    pub nav: Vec<NavItem>,
    /// Links added to every page's footer, in order (a legal notice, an
    /// accessibility statement).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub footer: Vec<NavItem>,
    /// The image a shared link shows (OpenGraph, Twitter card) for a page
    /// without an image of its own: a file under `/files/` or an https URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub social_image: Option<Link>,
    /// The text alternative of `social_image`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub social_image_alt: Option<String>,
    /// The content folder in a repository's web editor (https): a page's
    /// "Edit this page" link is this followed by the page's file path under
    /// `content/`, e.g. `docs/data/globe.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_url: Option<Link>,
    /// How many pages a listing (a section's index, a tag's page) shows
    /// before it continues at `…/page/2/`.
    #[serde(default = "default_page_size")]
    pub page_size: usize,
}

/// A language the site publishes in.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    /// BCP 47 tag in lower case, such as `nl` or `pt-br`.
    pub code: String,
    /// The language's name in itself, such as `Nederlands`.
    pub name: String,
}

impl Site {
    /// The languages pages may be translated into: the declared ones but
    /// the default.
    pub fn translations(&self) -> impl Iterator<Item = &Language> {
        self.languages.iter().filter(|l| l.code != self.language)
    }
}

/// The listing length when `site.toml` names none.
pub const DEFAULT_PAGE_SIZE: usize = 20;

fn default_page_size() -> usize {
    DEFAULT_PAGE_SIZE
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Licence {
    /// SPDX identifier.
    pub id: LicenceId,
    pub title: String,
    pub url: Link,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NavItem {
    pub title: String,
    pub url: Link,
    /// The title in the site's other languages, by code (`titles = { nl =
    /// "Contact" }`); a language without one shows `title`. The link
    /// leads to the page in the visitor's language where it exists.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub titles: std::collections::BTreeMap<String, String>,
}

/// TOML front matter of a Markdown document, between `+++` lines.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FrontMatter {
    pub title: String,
    pub summary: String,
    /// Order within its section (lower first), then by title.
    #[serde(default)]
    pub weight: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<Date>,
    /// Overrides the site's default licence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub licence: Option<LicenceId>,
    /// Overrides the site's default attribution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
    /// Template to render with (default `page.html`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// A translation's own last URL segment (`statistieken` for
    /// `/nl/docs/data/statistieken/`); the pages under it follow it. Only
    /// in a translation: a page in the default language is named by its
    /// file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    /// Earlier addresses of the page (site paths such as `/old/path/`):
    /// each answers with a permanent redirect to the page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// A draft: built and marked by `generate serve`, left out by
    /// `generate build`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub draft: bool,
    /// Topics of the page (`["Water quality", …]`), each listed on a tag
    /// page of its section; only in a section whose `_index.md` has
    /// `tags_enabled = true`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// On a section's `_index.md`: its pages may have `tags`, and the
    /// section gets tag pages under `tags/`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tags_enabled: bool,
    /// Who the page is written for: `"developers"` (the API, MCP and
    /// contract pages) or everyone (the default). The chat quotes a page
    /// for developers only for a question in developers' words, or when
    /// nothing else answers.
    #[serde(default, skip_serializing_if = "Audience::is_everyone")]
    pub audience: Audience,
}

/// Who a page is written for (front matter `audience`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    #[default]
    Everyone,
    Developers,
}

impl Audience {
    pub fn is_everyone(&self) -> bool {
        *self == Audience::Everyone
    }
}

/// `content/catalog.toml`: the open-data catalogue, published as DCAT-AP
/// (`/catalog.jsonld`) and as schema.org `Dataset` markup on each
/// dataset's page.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    pub title: String,
    pub description: String,
    /// When the catalogue was first published.
    pub issued: Date,
    /// Codes of the EU data-theme table (`ENVI`).
    #[serde(default)]
    pub themes: Vec<String>,
    pub datasets: Vec<CatalogDataset>,
    /// The title and description in the site's other languages, by code
    /// (`[translations.nl]`): DCAT-AP states each with its `@language`.
    #[serde(default)]
    pub translations: std::collections::BTreeMap<String, CatalogText>,
}

/// A catalogue's or a dataset's texts in another language of the site.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogText {
    pub title: String,
    pub description: String,
    /// A dataset's keywords in the language (none for the catalogue).
    #[serde(default)]
    pub keywords: Vec<String>,
}

/// One dataset of the catalogue.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogDataset {
    pub id: Id,
    /// The site path of the page that describes it (its landing page).
    pub page: String,
    pub title: String,
    pub description: String,
    /// The title, description and keywords in the site's other languages,
    /// by code (`[datasets.translations.nl]`).
    #[serde(default)]
    pub translations: std::collections::BTreeMap<String, CatalogText>,
    /// The kind of material: its licence and attribution are the grant of
    /// `guardrails.toml` that covers it.
    pub material: Material,
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Codes of the EU data-theme table.
    #[serde(default)]
    pub themes: Vec<String>,
    /// A code of the EU frequency table (`IRREG`, `NEVER`, `DAILY`, …).
    pub frequency: String,
    /// Temporal coverage.
    pub start: Option<Date>,
    pub end: Option<Date>,
    /// ISO 3166-1 alpha-3 codes (the EU country table).
    #[serde(default)]
    pub countries: Vec<String>,
    /// West, south, east, north in degrees (WGS 84).
    pub bbox: Option<[f64; 4]>,
    /// Contract routes that publish it: one distribution per media type.
    #[serde(default)]
    pub routes: Vec<String>,
    /// Whether the measured parameters of the contract's vocabulary are
    /// its variables.
    #[serde(default)]
    pub variables: bool,
    /// Whether every file of the file archive is a distribution.
    #[serde(default)]
    pub archive_files: bool,
}
