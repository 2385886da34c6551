//! Pages and hashed assets by pattern rather than by name, so that a
//! release adding, removing or renaming them writes the same
//! configuration and the front needs no reload (decision 0204).
//!
//! A file is left out of the maps ([`implicit`]) when the patterns give it
//! every value its own entries would: a page (`…/`, `…/index.html`,
//! `…/index.md`) with the pages' cache policy and `Vary: accept-encoding,
//! accept`, typed by extension; a hashed asset with the assets' policy and
//! the `Vary` its type gives (the entries of earlier releases' assets,
//! `kept_assets`). Any other file keeps its entries by name, which nginx's
//! maps match before any pattern. What the patterns reach must then be a
//! file on disk: `location /` answers a path that is none (a folder
//! without `index.html` included) with the 404 page, and a folder's URL
//! without its slash with a 308 to it when it holds an `index.html`.

use std::collections::BTreeMap;
use std::fmt::Write;

use contract::headers;
use contract::manifest::CACHE_PAGE;

use super::kept_assets::compressed_types;
use super::q;
use crate::host_config::kept_assets::{self, extension};
use crate::host_config::{FILE_HEADERS, File, Plan};

/// The URLs of pages and their Markdown twins.
pub(super) const PAGE: &str = r#""~^(/|/.+/)(index\.(html|md))?$""#;

/// `Vary` of a page with a twin, and of the twin, when compressed.
fn page_vary() -> &'static str {
    headers::vary(true, true).expect("varies")
}

/// How the server's `types {}` and the assets' type files by extension.
pub(super) struct Typing<'a> {
    /// The type most files of each extension have.
    pub by_ext: BTreeMap<String, &'a str>,
    /// The types `location ^~ /assets/` gives by extension.
    pub kept: BTreeMap<String, String>,
}

impl<'a> Typing<'a> {
    pub fn of(plan: &'a Plan) -> Typing<'a> {
        let mut counts: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
        for f in &plan.files {
            if let Some(ext) = extension(&f.key) {
                *counts
                    .entry(ext)
                    .or_default()
                    .entry(&f.content_type)
                    .or_default() += 1;
            }
        }
        let by_ext = counts
            .into_iter()
            .map(|(ext, counts)| {
                let best = counts
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                    .map(|(t, _)| *t)
                    .expect("at least one file");
                (ext, best)
            })
            .collect();
        Typing {
            by_ext,
            kept: plan.kept_asset_types(),
        }
    }

    /// Whether the location that serves `f` gives it its type by extension
    /// (an asset also the type of /assets/).
    pub fn by_extension(&self, f: &File) -> bool {
        extension(&f.key).is_some_and(|e| {
            self.by_ext.get(&e) == Some(&f.content_type.as_str())
                && (!f.is_asset() || self.kept.get(&e) == Some(&f.content_type))
        })
    }
}

/// Whether the patterns give `f` all of its own entries' values, so that
/// the maps leave it out. `own_location`: it needs a location of its own.
pub(super) fn implicit(plan: &Plan, typing: &Typing, f: &File, own_location: bool) -> bool {
    if own_location || f.in_api_space() || !typing.by_extension(f) {
        return false;
    }
    if f.is_asset() {
        let compressed = compressed_types(plan, &typing.kept);
        return f.cache_control == kept_assets::CACHE
            && f.varies(plan.compress)
                == compressed.contains(&f.content_type.to_ascii_lowercase());
    }
    let page = f
        .urls
        .iter()
        .all(|u| u.ends_with('/') || u.ends_with("/index.html") || u.ends_with("/index.md"));
    page && f.cache_control == CACHE_PAGE && f.vary(plan.compress) == Some(page_vary())
}

/// The pages' entry of `$pis_file_cache`, after every entry by name.
pub(super) fn cache_entry(o: &mut String) {
    let _ = writeln!(o, "    {PAGE} {};", q(CACHE_PAGE));
}

/// The pages' entry of `$pis_file_vary`, after every entry by name.
pub(super) fn vary_entry(o: &mut String) {
    let _ = writeln!(o, "    {PAGE} {};", q(page_vary()));
}

/// The maps `location /` tests the disk with: the `index.html` a folder's
/// URL without its slash would have, the file a path names (a folder's
/// `index.html`), and the path as the client sent it.
pub(super) fn maps(o: &mut String) {
    o.push_str(
        "# What `location /` finds on disk: a folder's index.html behind a path\n\
         # without its slash (then a 308 to the folder), the file a path names.\n\
         # Volatile: $uri changes when a folder's index.html is served.\n\
         map $uri $pis_folder_index {\n    volatile;\n    default \"\";\n    \"~[^/]$\" \"/index.html\";\n}\n\
         map $uri $pis_index {\n    volatile;\n    default \"\";\n    \"~/$\" \"index.html\";\n}\n\
         map $request_uri $pis_path {\n    \"~^(?<pis_request_path>[^?]*)\" $pis_request_path;\n}\n\n",
    );
}

/// The first lines of `location /`: the folder redirect, with the headers
/// of the sidecar's redirects, as the sidecar answers it for a page's
/// folder (the moved pages have their locations).
pub(super) fn folder_redirect(o: &mut String, indent: &str) {
    let _ = writeln!(o, "{indent}if (-f $request_filename$pis_folder_index) {{");
    let _ = writeln!(
        o,
        "{indent}    add_header Cache-Control {} always;",
        q(headers::REDIRECT_CACHE)
    );
    for (name, value) in FILE_HEADERS {
        let _ = writeln!(o, "{indent}    add_header {name} {} always;", q(value));
    }
    let _ = writeln!(o, "{indent}    return 308 \"$pis_path/$is_args$args\";");
    let _ = writeln!(o, "{indent}}}");
}

/// After the test of `$pis_file_cache`: what the patterns reach must be on
/// disk (a folder without `index.html` is the 404 page, not nginx's 403).
pub(super) fn on_disk(o: &mut String, indent: &str) {
    let _ = writeln!(
        o,
        "{indent}if (!-f $request_filename$pis_index) {{ return 404; }}"
    );
}
