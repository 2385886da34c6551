//! Source assets (`templates/assets/`) published under content-hashed names,
//! so they can be cached forever; references inside CSS are rewritten to the
//! hashed names, and templates ask for them with `asset("name")`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::manifest::sha256_hex;
use crate::walk;

/// Hex digits of the content hash in a published asset name.
const HASH_LEN: usize = 16;

/// Published assets: source name (relative to `templates/assets/`) → the
/// published site path and bytes.
#[derive(Debug, Default, Clone)]
pub struct Assets {
    pub by_name: BTreeMap<String, Asset>,
}

#[derive(Debug, Clone)]
pub struct Asset {
    /// Site path, e.g. `/assets/site.0123456789abcdef.css`.
    pub url: String,
    pub bytes: Vec<u8>,
}

impl Assets {
    /// Adds an asset made by the build (not read from `templates/assets/`),
    /// named by its hash like the others.
    pub fn add(&mut self, name: &str, bytes: Vec<u8>) {
        let url = format!("/assets/{}", hashed_name(name, &bytes));
        self.by_name.insert(name.to_owned(), Asset { url, bytes });
    }

    /// The hashed site path of a source asset.
    pub fn url(&self, name: &str) -> Option<&str> {
        self.by_name.get(name).map(|a| a.url.as_str())
    }
}

fn hashed_name(name: &str, bytes: &[u8]) -> String {
    let hash = &sha256_hex(bytes)[..HASH_LEN];
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !stem.ends_with('/') => {
            format!("{stem}.{hash}.{ext}")
        }
        _ => format!("{name}.{hash}"),
    }
}

/// Reads every file under `dir` (recursively) and names it by its hash.
/// CSS is processed last so that its `url(...)` references to other assets
/// can be rewritten before it is hashed.
pub fn load(dir: &Path) -> Result<Assets> {
    let mut sources = BTreeMap::new();
    collect(dir, &mut sources)?;
    let mut assets = Assets::default();
    let (css, other): (Vec<_>, Vec<_>) = sources
        .into_iter()
        .partition(|(name, _)| name.ends_with(".css"));
    for (name, bytes) in other {
        let url = format!("/assets/{}", hashed_name(&name, &bytes));
        assets.by_name.insert(name, Asset { url, bytes });
    }
    for (name, bytes) in css {
        let text = String::from_utf8(bytes)
            .with_context(|| format!("templates/assets/{name} is not UTF-8"))?;
        let rewritten = rewrite_css_urls(&name, &text, &assets)?;
        let bytes = rewritten.into_bytes();
        let url = format!("/assets/{}", hashed_name(&name, &bytes));
        assets.by_name.insert(name, Asset { url, bytes });
    }
    Ok(assets)
}

fn collect(root: &Path, out: &mut BTreeMap<String, Vec<u8>>) -> Result<()> {
    for entry in walk::visible(root, &[]) {
        let entry = match entry {
            Ok(entry) => entry,
            // No assets folder (or one removed while walking): no assets.
            Err(f) if f.error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(f) => {
                return Err(f.error).with_context(|| format!("listing {}", f.path.display()));
            }
        };
        if entry.file_type().is_dir() {
            continue;
        }
        let path = entry.path();
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        out.insert(walk::slash_path(root, path), bytes);
    }
    Ok(())
}

/// Rewrites `url(name)` in a stylesheet to hashed asset URLs. References are
/// relative to the stylesheet's folder; `data:` and absolute URLs are kept.
fn rewrite_css_urls(css_name: &str, css: &str, assets: &Assets) -> Result<String> {
    let folder = css_name.rsplit_once('/').map_or("", |(f, _)| f);
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("url(") {
        out.push_str(&rest[..start + 4]);
        rest = &rest[start + 4..];
        let end = rest
            .find(')')
            .with_context(|| format!("templates/assets/{css_name}: unclosed url("))?;
        let raw = rest[..end].trim();
        let unquoted = raw.trim_matches(|c| c == '"' || c == '\'');
        let keep = unquoted.starts_with("data:")
            || unquoted.starts_with('#')
            || unquoted.contains("://")
            || unquoted.starts_with('/');
        if keep {
            out.push_str(&rest[..end]);
        } else {
            let target = if folder.is_empty() {
                unquoted.to_owned()
            } else {
                format!("{folder}/{unquoted}")
            };
            let Some(url) = assets.url(&target) else {
                bail!("templates/assets/{css_name}: url({unquoted}) names no asset");
            };
            out.push('"');
            out.push_str(url);
            out.push('"');
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_names_and_rewrites_css() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("img")).unwrap();
        std::fs::write(dir.path().join("img/logo.svg"), b"<svg/>").unwrap();
        std::fs::write(
            dir.path().join("site.css"),
            b"a{background:url('img/logo.svg')} b{background:url(data:x)}",
        )
        .unwrap();
        let assets = load(dir.path()).unwrap();
        let logo = assets.url("img/logo.svg").unwrap();
        assert!(
            logo.starts_with("/assets/img/logo.") && logo.ends_with(".svg"),
            "{logo}"
        );
        let css = String::from_utf8(assets.by_name["site.css"].bytes.clone()).unwrap();
        assert!(css.contains(&format!("url(\"{logo}\")")), "{css}");
        assert!(css.contains("url(data:x)"));
        let css_url = assets.url("site.css").unwrap();
        assert!(css_url.contains(&sha256_hex(css.as_bytes())[..HASH_LEN]));
    }

    #[test]
    fn unknown_css_reference_fails() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.css"), b"x{background:url(nope.png)}").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("nope.png"), "{err}");
    }
}
