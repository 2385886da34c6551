//! minijinja templates from `templates/`, with `asset(name)` resolving
//! source asset names to their content-hashed URLs and `integrity(name)`
//! giving their Subresource Integrity value.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::assets::Assets;
use minijinja::{
    AutoEscape, Environment, Error, ErrorKind, Output, State, UndefinedBehavior, Value,
};

/// The loaded templates.
pub struct Renderer {
    env: Environment<'static>,
}

/// The Subresource Integrity value of `bytes`: SHA-384, base64.
pub fn sri(bytes: &[u8]) -> String {
    use base64::Engine as _;
    use sha2::{Digest, Sha384};
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha384::digest(bytes))
    )
}

impl Renderer {
    /// Loads every `*.html` file of `dir` (outside `assets/`) as a template
    /// named by its path relative to `dir`.
    pub fn new(dir: &Path, assets: &Assets) -> Result<Self> {
        let asset_urls: BTreeMap<String, String> = assets
            .by_name
            .iter()
            .map(|(k, v)| (k.clone(), v.url.clone()))
            .collect();
        let integrity: BTreeMap<String, String> = assets
            .by_name
            .iter()
            .map(|(k, v)| (k.clone(), sri(&v.bytes)))
            .collect();
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Chainable);
        let mut names = Vec::new();
        collect_templates(dir, dir, &mut names)?;
        names.sort();
        for (name, path) in names {
            let source = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            env.add_template_owned(name.clone(), source)
                .with_context(|| format!("template {}", path.display()))?;
        }
        env.set_formatter(html_formatter);
        let urls = Arc::new(asset_urls);
        // `has_asset(name)`: lets a template refer to an optional asset
        // (`{% if has_asset("world.json") %}`) without failing the build.
        let known = Arc::clone(&urls);
        env.add_function("has_asset", move |name: &str| known.contains_key(name));
        // `markdown`: short Markdown (descriptions of the contract) as HTML.
        env.add_filter("markdown", |s: &str| {
            Value::from_safe_string(crate::markdown::inline_html(s))
        });
        // `integrity(name)`: the SRI value of an asset's bytes, for the
        // `integrity` attribute of its `<script>` or `<link>`.
        env.add_function("integrity", move |name: &str| -> Result<String, Error> {
            integrity.get(name).cloned().ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("integrity(\"{name}\"): no such file in templates/assets/"),
                )
            })
        });
        env.add_function("asset", move |name: &str| -> Result<String, Error> {
            urls.get(name).cloned().ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("asset(\"{name}\"): no such file in templates/assets/"),
                )
            })
        });
        Ok(Self { env })
    }

    /// Renders template `name` with `ctx`.
    pub fn render(&self, name: &str, ctx: &Value) -> Result<String> {
        let template = self
            .env
            .get_template(name)
            .with_context(|| format!("no template {name} in templates/"))?;
        template.render(ctx).map_err(|e| {
            let mut message = format!("rendering {name}: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                message.push_str(&format!(": {s}"));
                source = s.source();
            }
            anyhow::anyhow!(message)
        })
    }
}

/// Escapes `&`, `<`, `>`, `"` and `'` only: minijinja's default also
/// escapes `/`, which makes every URL in the output harder to read.
fn html_formatter(out: &mut Output, state: &mut State, value: &Value) -> Result<(), Error> {
    match (state.auto_escape(), value.as_str()) {
        (AutoEscape::Html, Some(s)) if !value.is_safe() => {
            let mut last = 0;
            for (i, b) in s.bytes().enumerate() {
                let rep = match b {
                    b'&' => "&amp;",
                    b'<' => "&lt;",
                    b'>' => "&gt;",
                    b'"' => "&quot;",
                    b'\'' => "&#39;",
                    _ => continue,
                };
                out.write_str(&s[last..i]).map_err(Error::from)?;
                out.write_str(rep).map_err(Error::from)?;
                last = i + 1;
            }
            out.write_str(&s[last..]).map_err(Error::from)
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}

fn collect_templates(
    root: &Path,
    dir: &Path,
    out: &mut Vec<(String, std::path::PathBuf)>,
) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let entry = entry?;
        let path = entry.path();
        let rel = path.strip_prefix(root).expect("walked under root");
        if rel.starts_with("assets") || entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if entry.file_type()?.is_dir() {
            collect_templates(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "html") {
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((name, path));
        }
    }
    Ok(())
}
