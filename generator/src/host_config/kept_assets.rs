//! Hashed assets that a build does not list: those of the releases before
//! it, which `scripts/release` hard-links into the release it publishes
//! (`assets/<name>.<hash>.<ext>`, with their twins), so that pages cached
//! from those releases still find their styles and scripts. The sidecar
//! keeps serving them from memory; nginx and Caddy serve any such file
//! found on disk under `/assets/`, with the policy of hashed assets and a
//! type by extension, and the site's 404 when there is none.
//!
//! Twins by name (`….gz`, `….br`) and folders stay 404, as for the listed
//! files. Netlify and Cloudflare keep each deploy's files apart (see
//! docs/decisions/0102): nothing is written for them.

use std::collections::BTreeMap;

use contract::manifest::{ASSETS, CACHE_IMMUTABLE};
use contract::media;

use super::{File, Plan};

/// The URL prefix of hashed assets.
pub const PREFIX: &str = "/assets/";

/// The Cache-Control of every asset not listed: the one the contract gives
/// every hashed asset.
pub const CACHE: &str = CACHE_IMMUTABLE;

/// The extensions whose type the contract gives by name
/// (`contract::media::for_path`): an earlier release's asset was typed so.
const CONTRACT_EXTENSIONS: [&str; 19] = [
    "css", "csv", "geojson", "html", "ico", "jpeg", "jpg", "js", "json", "md", "mjs", "pdf", "png",
    "svg", "txt", "webp", "woff2", "xml", "zip",
];

/// The extensions (lower-cased) whose twins the build writes by name.
pub const TWIN_EXTENSIONS: [&str; 2] = ["gz", "br"];

impl File {
    /// Whether it is a hashed asset.
    pub fn is_asset(&self) -> bool {
        self.key.starts_with(ASSETS)
    }
}

impl Plan {
    /// The URLs of the hashed assets this build lists.
    pub fn listed_assets(&self) -> Vec<&str> {
        self.files
            .iter()
            .filter(|f| f.is_asset())
            .flat_map(|f| f.urls.iter().map(String::as_str))
            .collect()
    }

    /// The type of an asset not listed, by its extension (lower-cased):
    /// the type most of this build's assets of that extension have (ties
    /// to the first by name), else the contract's. Other extensions are
    /// `application/octet-stream`, as the contract types them.
    pub fn kept_asset_types(&self) -> BTreeMap<String, String> {
        let mut counts: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
        for f in self.files.iter().filter(|f| f.is_asset()) {
            if let Some(ext) = extension(&f.key) {
                *counts
                    .entry(ext)
                    .or_default()
                    .entry(&f.content_type)
                    .or_default() += 1;
            }
        }
        let mut types: BTreeMap<String, String> = CONTRACT_EXTENSIONS
            .iter()
            .map(|ext| {
                let ty = media::for_path(&format!("{ASSETS}x.{ext}"));
                ((*ext).to_owned(), ty.to_owned())
            })
            .collect();
        for (ext, by_type) in counts {
            let best = by_type
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(t, _)| (*t).to_owned())
                .expect("at least one file");
            types.insert(ext, best);
        }
        types
    }
}

/// The extension of a file name, lower-cased.
pub fn extension(key: &str) -> Option<String> {
    let name = key.rsplit('/').next()?;
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty()).then(|| ext.to_ascii_lowercase())
}

/// Extensions grouped by their type, each type once, in a stable order.
pub fn by_type(types: &BTreeMap<String, String>) -> BTreeMap<&str, Vec<&str>> {
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (ext, ty) in types {
        out.entry(ty.as_str()).or_default().push(ext);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_config::fixture;

    #[test]
    fn every_contract_extension_has_its_own_type() {
        for ext in CONTRACT_EXTENSIONS {
            assert_ne!(
                media::for_path(&format!("{ASSETS}x.{ext}")),
                "application/octet-stream",
                "{ext}"
            );
        }
    }

    #[test]
    fn types_of_assets_not_listed() {
        let plan = fixture::plan();
        assert_eq!(plan.listed_assets(), ["/assets/site.0123456789abcdef.css"]);
        let types = plan.kept_asset_types();
        assert_eq!(types["css"], "text/css; charset=utf-8");
        assert_eq!(types["js"], "text/javascript; charset=utf-8");
        assert_eq!(types["woff2"], "font/woff2");
        // Not the AI catalog's type, which the json files of the site have.
        assert_eq!(types["json"], "application/json");
        assert_eq!(
            by_type(&types)["text/javascript; charset=utf-8"],
            ["js", "mjs"]
        );
    }
}
