//! minijinja templates from `templates/`, with `asset(name)` resolving
//! source asset names to their content-hashed URLs and `integrity(name)`
//! giving their Subresource Integrity value.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::assets::Assets;
use crate::eight;
use crate::messages::Messages;
use crate::walk;
use minijinja::{
    AutoEscape, Environment, Error, ErrorKind, Output, State, UndefinedBehavior, Value,
    value::Kwargs,
};

/// The loaded templates.
pub struct Renderer {
    env: Environment<'static>,
    /// Their interface words, by language.
    pub messages: Arc<Messages>,
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
    pub fn new(dir: &Path, assets: &Assets, messages: Messages) -> Result<Self> {
        let asset_urls: BTreeMap<String, Value> = assets
            .by_name
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.url.as_str())))
            .collect();
        // Made into template values once: a page calls `asset` and
        // `integrity` a dozen times, and cloning a value shares its text.
        let integrity: BTreeMap<String, Value> = assets
            .by_name
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(sri(&v.bytes))))
            .collect();
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Chainable);
        let mut names = collect_templates(dir)?;
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
        env.add_function("integrity", move |name: &str| -> Result<Value, Error> {
            integrity.get(name).cloned().ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("integrity(\"{name}\"): no such file in templates/assets/"),
                )
            })
        });
        // `fail(message)`: stops the build with `message`, for a shortcode
        // that is called without what it needs.
        env.add_function("fail", |message: &str| -> Result<String, Error> {
            Err(Error::new(ErrorKind::InvalidOperation, message.to_owned()))
        });
        env.add_function("asset", move |name: &str| -> Result<Value, Error> {
            urls.get(name).cloned().ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("asset(\"{name}\"): no such file in templates/assets/"),
                )
            })
        });
        // `t(key, name=value…)`: the interface word `key` in the language
        // of the page being rendered (`page.language`, else the site's),
        // each `{name}` in it replaced by its value.
        let messages = Arc::new(messages);
        let words = Arc::clone(&messages);
        env.add_function(
            "t",
            move |state: &State, key: &str, args: Kwargs| -> Result<Value, Error> {
                let language = state
                    .lookup("page")
                    .map(|p| p.get_attr("language").unwrap_or_default())
                    .filter(|l| !l.is_undefined() && !l.is_none())
                    .or_else(|| {
                        state
                            .lookup("site")
                            .and_then(|s| s.get_attr("language").ok())
                    })
                    .unwrap_or_default();
                let language = language.as_str().unwrap_or("");
                let vars = args
                    .args()
                    .map(|name| Ok((name, args.get::<Value>(name)?.to_string())))
                    .collect::<Result<Vec<_>, Error>>()?;
                let word = words
                    .fill(language, key, &vars)
                    .map_err(|e| Error::new(ErrorKind::InvalidOperation, e))?;
                args.assert_all_used()?;
                Ok(Value::from(word))
            },
        );
        // `link(url)`: the page at `url` (an address in the default
        // language) in the language of the page being rendered, where it
        // exists there, else `url` itself; an address with a `#fragment`
        // is left as it is (a translation's headings have their own ids).
        env.add_function("link", |state: &State, url: &str| -> Value {
            let language = state
                .lookup("page")
                .and_then(|p| p.get_attr("language").ok())
                .filter(|l| !l.is_undefined() && !l.is_none());
            let found = language.filter(|_| !url.contains('#')).and_then(|l| {
                let map = state.lookup("links")?.get_item(&l).ok()?;
                let to = map.get_item(&Value::from(url)).ok()?;
                (!to.is_undefined()).then(|| to.to_string())
            });
            Value::from(found.unwrap_or_else(|| url.to_owned()))
        });
        Ok(Self { env, messages })
    }

    /// Whether template `name` was loaded.
    pub fn has(&self, name: &str) -> bool {
        self.env.get_template(name).is_ok()
    }

    /// The names of the loaded templates under `folder/` ending in
    /// `suffix`, without either, sorted.
    pub fn names_in(&self, folder: &str, suffix: &str) -> Vec<String> {
        let prefix = format!("{folder}/");
        let mut names: Vec<String> = self
            .env
            .templates()
            .filter_map(|(name, _)| {
                name.strip_prefix(&prefix)?
                    .strip_suffix(suffix)
                    .map(str::to_owned)
            })
            .collect();
        names.sort();
        names
    }

    /// The variables template `name` reads from its context: what it uses
    /// and does not set itself, apart from the functions every template
    /// has (`asset`, `range`…). Empty when there is no such template.
    pub fn variables(&self, name: &str) -> BTreeSet<String> {
        let Ok(template) = self.env.get_template(name) else {
            return BTreeSet::new();
        };
        let globals: BTreeSet<&str> = self.env.globals().map(|(k, _)| k).collect();
        template
            .undeclared_variables(false)
            .into_iter()
            .filter(|v| !globals.contains(v.as_str()))
            .collect()
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
            let bytes = s.as_bytes();
            let (mut last, mut i) = (0, 0);
            loop {
                i = eight::skip_clean(bytes, i, any_to_escape);
                let Some(&byte) = bytes.get(i) else { break };
                let rep = match byte {
                    b'&' => "&amp;",
                    b'<' => "&lt;",
                    b'>' => "&gt;",
                    b'"' => "&quot;",
                    b'\'' => "&#39;",
                    _ => {
                        i += 1;
                        continue;
                    }
                };
                out.write_str(&s[last..i]).map_err(Error::from)?;
                out.write_str(rep).map_err(Error::from)?;
                i += 1;
                last = i;
            }
            out.write_str(&s[last..]).map_err(Error::from)
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}

/// Whether any of the eight bytes of `word` is one [`html_formatter`]
/// escapes (`&`, `<`, `>`, `"` or `'`).
fn any_to_escape(word: u64) -> bool {
    let has = |c| eight::has_byte(word, c);
    has(b'&') | has(b'<') | has(b'>') | has(b'"') | has(b'\'')
}

/// Every `*.html` file under `root` outside `assets/`, and every `*.md`
/// file of `shortcodes/` (a shortcode's Markdown form), named by its path
/// relative to `root`.
fn collect_templates(root: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in walk::visible(root, &["assets"]) {
        let entry = entry.map_err(|f| {
            anyhow::Error::new(f.error).context(format!("listing {}", f.path.display()))
        })?;
        let path = entry.path();
        let markdown_shortcode = path.extension().is_some_and(|e| e == "md")
            && path.parent() == Some(&root.join("shortcodes"));
        if !entry.file_type().is_dir()
            && (path.extension().is_some_and(|e| e == "html") || markdown_shortcode)
        {
            out.push((walk::slash_path(root, path), entry.into_path()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formatter_escapes_the_five_characters_wherever_they_are() {
        let mut env = Environment::new();
        env.set_formatter(html_formatter);
        env.add_template("t.html", "{{ s }}").unwrap();
        let template = env.get_template("t.html").unwrap();
        let reference = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;")
        };
        let mut cases = vec![
            String::new(),
            "plain text, longer than eight bytes / with slashes".to_owned(),
            "Qualité de l'eau & <b>\"tout\"</b> — ünïcödé".to_owned(),
        ];
        for c in ['&', '<', '>', '"', '\''] {
            for at in 0..17 {
                let mut s: String = "abcdefghijklmnopq".to_owned();
                s.replace_range(at..=at, &c.to_string());
                cases.push(s);
            }
        }
        for s in cases {
            let out = template.render(minijinja::context! { s => &s }).unwrap();
            assert_eq!(out, reference(&s), "{s:?}");
        }
    }
}
