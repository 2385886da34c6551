//! `generate check`'s rule on what the site says about the observation
//! data: every country it associates with the data must be one the data
//! hold, and the catalogue's countries must be the data's own set.
//!
//! Which statements are about the data (decision 0245):
//!
//! - every country a page under `/docs/data/` names, or a page the
//!   catalogue gives for the observation data, read from its Markdown twin
//!   (the page's text without the site's frame; code blocks skipped);
//! - on any other page, a sentence that names a country together with the
//!   data's words (observations, readings, sites, data, points), unless the
//!   sentence names the Water Watch project: that is history, not the data;
//! - every country in `content/service/scope.toml`'s `regions`;
//! - the `countries` of the catalogue's observation dataset, which must
//!   equal the data's set.
//!
//! The facts are those of the newest snapshot the build published, read
//! from the built site, so check and build agree on one source.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use anyhow::{Context, Result};
use contract::service::Material;

use super::countries;
use crate::content::Content;
use crate::output::read_manifest;

/// Words that make a sentence on any page a statement about the data.
const DATA_WORDS: [&str; 5] = ["observation", "reading", "site", "data", "point"];

/// Words that make a sentence one about the project's history instead.
const PROJECT_WORDS: [&str; 1] = ["Water Watch"];

/// A statement the data contradict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FalseClaim {
    /// The page (its URL) or content file that makes it.
    pub source: String,
    /// What it says, as written.
    pub claim: String,
    /// The data's own countries (alpha-2 codes).
    pub actual: Vec<String>,
    /// The snapshot the facts come from.
    pub version: String,
}

impl fmt::Display for FalseClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}, but the data (snapshot {}) hold sites in {} only",
            self.source,
            self.claim,
            self.version,
            self.actual.join(", ")
        )
    }
}

/// One country the site associates with the data.
struct Claim {
    source: String,
    code: &'static str,
    written: String,
}

/// What the rule found.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The build has a snapshot: every claim was held against it.
    Checked {
        version: String,
        claims: usize,
        false_claims: Vec<FalseClaim>,
    },
    /// The build publishes no snapshot (or none that names the countries of
    /// its sites), so nothing could be verified.
    NoFacts { claims: usize },
}

/// Holds the built site in `out` and the `content` it was built from
/// against the newest snapshot the build published.
pub fn check(out: &Path, content: &Content) -> Result<Outcome> {
    let manifest = read_manifest(out).with_context(|| {
        format!(
            "{} holds no readable manifest.json: run `generate build` first",
            out.display()
        )
    })?;
    let data_pages: Vec<&str> = content
        .catalog
        .iter()
        .flat_map(|c| &c.datasets)
        .filter(|d| d.material == Material::ObservationData)
        .map(|d| d.page.as_str())
        .collect();
    let mut claims = Vec::new();
    for key in manifest.files.keys() {
        let Some(dir) = key.strip_suffix("index.md") else {
            continue;
        };
        let url = format!("/{dir}");
        let text =
            std::fs::read_to_string(out.join(key)).with_context(|| format!("reading {key}"))?;
        let whole = url.starts_with("/docs/data/") || data_pages.contains(&url.as_str());
        claims.extend(page_claims(&url, &text, whole));
    }
    for region in &content.service.scope.regions {
        for (code, written) in countries::named_in(region) {
            claims.push(Claim {
                source: "content/service/scope.toml regions".into(),
                code,
                written,
            });
        }
    }
    let catalogued: Vec<(&str, &str)> = content
        .catalog
        .iter()
        .flat_map(|c| &c.datasets)
        .filter(|d| d.material == Material::ObservationData)
        .flat_map(|d| d.countries.iter().map(move |c| (d.id.as_str(), c.as_str())))
        .collect();
    let count = claims.len() + catalogued.len();
    let facts = super::published(out, &manifest)?;
    let Some((version, facts)) = facts.filter(|(_, f)| !f.countries.is_empty()) else {
        return Ok(Outcome::NoFacts { claims: count });
    };
    let held: BTreeSet<&str> = facts.countries.iter().map(String::as_str).collect();
    let falsely = |source: String, claim: String| FalseClaim {
        source,
        claim,
        actual: facts.countries.clone(),
        version: version.clone(),
    };
    let mut false_claims: Vec<FalseClaim> = claims
        .iter()
        .filter(|c| !held.contains(c.code))
        .map(|c| {
            let claim = if countries::by_code(c.code).is_some_and(|k| k.name == c.written) {
                format!("names {} ({})", c.written, c.code)
            } else {
                format!(
                    "names {} ({}, {})",
                    c.written,
                    c.code,
                    countries::in_text(c.code)
                )
            };
            falsely(c.source.clone(), claim)
        })
        .collect();
    false_claims.extend(catalogue_claims(&catalogued, &held, falsely));
    false_claims.sort_by(|a, b| (&a.source, &a.claim).cmp(&(&b.source, &b.claim)));
    false_claims.dedup();
    Ok(Outcome::Checked {
        version,
        claims: count,
        false_claims,
    })
}

/// The catalogue's countries of each observation dataset against the set
/// the data hold: a country the data lack, and one it leaves out.
fn catalogue_claims(
    catalogued: &[(&str, &str)],
    held: &BTreeSet<&str>,
    falsely: impl Fn(String, String) -> FalseClaim,
) -> Vec<FalseClaim> {
    let mut out = Vec::new();
    let mut ids: Vec<&str> = catalogued.iter().map(|(id, _)| *id).collect();
    ids.dedup();
    for id in ids {
        let source = format!("content/catalog.toml dataset `{id}` countries");
        let mut listed = BTreeSet::new();
        for (_, code) in catalogued.iter().filter(|(d, _)| *d == id) {
            match countries::by_code(code) {
                Some(c) if held.contains(c.alpha2) => {
                    listed.insert(c.alpha2);
                }
                Some(c) => out.push(falsely(
                    source.clone(),
                    format!("lists {code} ({})", countries::in_text(c.alpha2)),
                )),
                None => out.push(falsely(
                    source.clone(),
                    format!("lists {code}, no country the data hold"),
                )),
            }
        }
        for missing in held.iter().filter(|c| !listed.contains(**c)) {
            let alpha3 = countries::by_code(missing).map_or(*missing, |c| c.alpha3);
            out.push(falsely(
                source.clone(),
                format!("leaves out {alpha3} ({})", countries::in_text(missing)),
            ));
        }
    }
    out
}

/// The countries a page's twin associates with the data: every one named
/// when the `whole` page is about the data, else those of its sentences
/// about the data. Fenced code is skipped.
fn page_claims(url: &str, twin: &str, whole: bool) -> Vec<Claim> {
    let mut prose = String::with_capacity(twin.len());
    let mut fence: Option<&str> = None;
    for line in twin.lines() {
        let trimmed = line.trim_start();
        match fence {
            Some(f) if trimmed.starts_with(f) => fence = None,
            Some(_) => {}
            None if trimmed.starts_with("```") => fence = Some("```"),
            None if trimmed.starts_with("~~~") => fence = Some("~~~"),
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
        if fence.is_some() {
            prose.push('\n');
        }
    }
    let mut out = Vec::new();
    for sentence in sentences(&prose) {
        if !whole && !about_the_data(sentence) {
            continue;
        }
        for (code, written) in countries::named_in(sentence) {
            out.push(Claim {
                source: url.to_owned(),
                code,
                written,
            });
        }
    }
    out
}

/// Whether a sentence speaks of the data, not of the project's history.
fn about_the_data(sentence: &str) -> bool {
    if PROJECT_WORDS.iter().any(|w| sentence.contains(w)) {
        return false;
    }
    sentence
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .any(|w| DATA_WORDS.iter().any(|d| w.starts_with(d)))
}

/// The sentences of a text: split after `.`, `!` or `?` before white
/// space, at every line break and between the cells of a table row (a
/// member's country beside what it works on is no statement about data).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let b = rest.as_bytes();
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            let next_space = b.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
            if c == '\n' || c == '|' || (matches!(c, '.' | '!' | '?') && next_space) {
                end = i + c.len_utf8();
                break;
            }
        }
        let (s, r) = rest.split_at(end);
        rest = r;
        Some(s)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(claims: &[Claim]) -> Vec<&str> {
        claims.iter().map(|c| c.code).collect()
    }

    #[test]
    fn a_data_page_claims_every_country_it_names() {
        let twin = "Points cluster in the Netherlands and Finland.\n\n```sh\necho Italy\n```\n";
        assert_eq!(
            codes(&page_claims("/docs/data/globe/", twin, true)),
            ["NL", "FI"]
        );
    }

    #[test]
    fn other_pages_claim_in_sentences_about_the_data() {
        let twin = "Our office is in the Netherlands. Advanced-kit readings come from sites in \
                    Finland.\nWater Watch started with sites in Italy.\n\
                    | Lake station | Poland | Lake observations |\n";
        assert_eq!(codes(&page_claims("/docs/archive/x/", twin, false)), ["FI"]);
    }

    #[test]
    fn sentences_split_at_stops_and_lines() {
        let s: Vec<&str> = sentences("One. Two 2.5 too!\nThree").collect();
        assert_eq!(s, ["One.", " Two 2.5 too!", "\n", "Three"]);
    }
}
