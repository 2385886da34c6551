//! The browser's split search index: the header search box fetches a small
//! head, then only the shards a query's words fall in, instead of the whole
//! index (decision 0033).
//!
//! - `search/browser.json`, the head: the format version, how many
//!   documents and shards there are, and a digest of the shards.
//! - `search/terms-K.json`: the terms whose first two letters hash to `K`,
//!   each with its best postings (document id, weight). Keying by the first
//!   two letters keeps every completion of a typed prefix in one shard.
//! - `search/near-K.json`: the same postings keyed by the last two letters,
//!   for typo tolerance: one edit of a word of four letters or more leaves
//!   its first two or its last two letters as they were, so the word it
//!   was meant to be is in one of the two shards.
//! - `search/docs-K.json`: what a result shows (URL, title, section,
//!   summary) for [`DOCS_PER_SHARD`] documents by id (ids follow URL order).
//!
//! The terms are made in [`super::terms`], their postings in
//! [`super::postings`].

use std::collections::BTreeMap;

use rayon::prelude::*;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::postings::{BrowserEntry, postings};
use super::terms::{near_shard, term_shards};

/// The head's path in the output folder.
pub const HEAD: &str = "search/browser.json";

/// The head's file name, in its folder.
pub const HEAD_NAME: &str = "browser.json";
/// The format the script understands.
pub const VERSION: u32 = 1;
/// Documents per metadata shard.
pub const DOCS_PER_SHARD: usize = 50;

#[derive(Serialize)]
struct Head {
    version: u32,
    documents: usize,
    shards: usize,
    docs_per_shard: usize,
    digest: String,
}

#[derive(Serialize)]
struct TermShard<'a> {
    terms: BTreeMap<&'a str, &'a [u32]>,
}

#[derive(Serialize)]
struct DocShard<'a> {
    docs: Vec<[&'a str; 4]>,
}

/// The terms of one shard, each with its postings.
type ShardTerms<'a> = Vec<(&'a str, &'a [u32])>;

fn json<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).expect("strings serialise");
    bytes.push(b'\n');
    bytes
}

/// Every file of the split index in `folder` (`search/`, or a language's
/// `search/nl/`), as (path, bytes): the head first. The same pages, in
/// any order, give the same files.
pub fn files(pages: &[&BrowserEntry], folder: &str) -> Vec<(String, Vec<u8>)> {
    let mut docs = pages.to_vec();
    docs.sort_by(|a, b| a.url().cmp(b.url()));
    let shards = term_shards(docs.len());
    let by_shard = postings(&docs, shards);
    let mut near: Vec<ShardTerms> = vec![Vec::new(); shards];
    for (term, list) in by_shard.iter().flatten() {
        if term.chars().count() >= 3 {
            near[near_shard(term, shards)].push((term, list));
        }
    }
    let mut shard_lists: Vec<(&str, usize, ShardTerms)> = Vec::with_capacity(2 * shards);
    for (k, terms) in by_shard.iter().enumerate() {
        let terms = terms.iter().map(|(t, l)| (t.as_str(), l.as_slice()));
        shard_lists.push(("terms", k, terms.collect()));
    }
    for (k, terms) in near.into_iter().enumerate() {
        shard_lists.push(("near", k, terms));
    }
    // Each shard's JSON in parallel, then the documents' shards.
    let mut out: Vec<(String, Vec<u8>)> = shard_lists
        .into_par_iter()
        .map(|(kind, k, terms)| {
            let terms = terms.into_iter().collect();
            (
                format!("{folder}{kind}-{k}.json"),
                json(&TermShard { terms }),
            )
        })
        .collect();
    let doc_files = docs
        .par_chunks(DOCS_PER_SHARD)
        .enumerate()
        .map(|(k, chunk)| {
            let docs = chunk
                .iter()
                .map(|d| d.shown.each_ref().map(|s| &**s))
                .collect();
            (format!("{folder}docs-{k}.json"), json(&DocShard { docs }))
        });
    out.par_extend(doc_files);
    let mut digest = Sha256::new();
    for (path, bytes) in &out {
        digest.update(path.as_bytes());
        digest.update(bytes);
    }
    let head = Head {
        version: VERSION,
        documents: docs.len(),
        shards,
        docs_per_shard: DOCS_PER_SHARD,
        digest: hex::encode(&digest.finalize()[..8]),
    };
    out.insert(0, (format!("{folder}{HEAD_NAME}"), json(&head)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchDocument;
    use crate::search::postings::{MAX_POSTINGS, TEXT_CAP, TITLE};
    use crate::search::terms::{fold, term_shard};
    use serde_json::Value;

    /// A page and its text.
    fn doc(url: &str, title: &str, text: &str) -> (SearchDocument, String) {
        let page = SearchDocument {
            url: url.into(),
            title: title.into(),
            summary: String::new(),
            section: "docs".into(),
        };
        (page, text.into())
    }

    fn entries(docs: &[(SearchDocument, String)]) -> Vec<BrowserEntry> {
        docs.iter().map(|(d, t)| BrowserEntry::of(d, t)).collect()
    }

    /// A reader doing what the script does, from the files alone: the
    /// term's shard, and the near shard when the term shard has no term
    /// within one edit.
    fn lookup(files: &[(String, Vec<u8>)], word: &str) -> (Vec<String>, Vec<String>) {
        let get = |p: &str| -> Value {
            let (_, bytes) = files.iter().find(|(q, _)| q == p).expect("file exists");
            serde_json::from_slice(bytes).unwrap()
        };
        let head = get(HEAD);
        let shards = head["shards"].as_u64().unwrap() as usize;
        let per = head["docs_per_shard"].as_u64().unwrap() as usize;
        let word = &fold(word);
        let mut fetched = vec![HEAD.to_owned()];
        let mut best: Option<Vec<u64>> = None;
        for path in [
            format!("search/terms-{}.json", term_shard(word, shards)),
            format!("search/near-{}.json", near_shard(word, shards)),
        ] {
            let shard = get(&path);
            fetched.push(path);
            let terms = shard["terms"].as_object().unwrap();
            let hit = terms
                .get(word)
                .or_else(|| terms.iter().find(|(t, _)| one_edit(t, word)).map(|e| e.1));
            if let Some(list) = hit {
                best = Some(
                    list.as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_u64().unwrap())
                        .collect(),
                );
                break;
            }
        }
        let mut urls = Vec::new();
        for pair in best.unwrap_or_default().chunks(2) {
            let id = pair[0] as usize;
            let path = format!("search/docs-{}.json", id / per);
            let shard = get(&path);
            if !fetched.contains(&path) {
                fetched.push(path);
            }
            urls.push(shard["docs"][id % per][0].as_str().unwrap().to_owned());
        }
        (urls, fetched)
    }

    fn one_edit(a: &str, b: &str) -> bool {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        if long.len() - short.len() > 1 {
            return false;
        }
        let p = short.iter().zip(&long).take_while(|(x, y)| x == y).count();
        if short.len() == long.len() {
            short[p + 1.min(short.len() - p)..] == long[p + 1.min(long.len() - p)..]
        } else {
            short[p..] == long[p + 1..]
        }
    }

    /// The files of `docs`, each weighed as a render weighs it.
    fn built(docs: &[(SearchDocument, String)]) -> Vec<(String, Vec<u8>)> {
        files(&entries(docs).iter().collect::<Vec<_>>(), "search/")
    }

    fn site(n: usize) -> Vec<(SearchDocument, String)> {
        let mut docs: Vec<(SearchDocument, String)> = (0..n)
            .map(|i| {
                doc(
                    &format!("/docs/p{i:05}/"),
                    &format!("Page {i}"),
                    &format!("common words here item{i} and more text"),
                )
            })
            .collect();
        docs.push(doc(
            "/docs/water/",
            "Water quality sampling",
            "How volunteers measure turbidity and nitrate in rivers.",
        ));
        docs
    }

    #[test]
    fn a_term_finds_its_page_first() {
        let files = built(&site(300));
        let (urls, fetched) = lookup(&files, "Turbidity");
        assert_eq!(urls.first().map(String::as_str), Some("/docs/water/"));
        assert_eq!(fetched.len(), 3, "head, term shard, one docs shard");
        let (urls, _) = lookup(&files, "sampling");
        assert_eq!(urls, ["/docs/water/"]);
    }

    #[test]
    fn a_one_edit_typo_finds_the_page_at_either_end() {
        let files = built(&site(300));
        for typo in [
            "turbidty",
            "turbiditx",
            "yurbidity",
            "urbidity",
            "nitrat",
            "sampilng",
        ] {
            let (urls, _) = lookup(&files, typo);
            if typo == "sampilng" {
                // Two edits (a transposition): not promised.
                continue;
            }
            assert_eq!(
                urls.first().map(String::as_str),
                Some("/docs/water/"),
                "{typo}"
            );
        }
    }

    #[test]
    fn a_common_term_keeps_its_best_postings_in_order() {
        // Page i says "river" 1 + i % 7 times (capped at TEXT_CAP); every
        // tenth also has it in its title. Ties go to the lower id.
        let docs: Vec<(SearchDocument, String)> = (0..200usize)
            .map(|i| {
                let title = if i.is_multiple_of(10) {
                    "River"
                } else {
                    "Page"
                };
                doc(&format!("/p{i:03}/"), title, &"river ".repeat(1 + i % 7))
            })
            .collect();
        let entries = entries(&docs);
        let by_shard = postings(&entries.iter().collect::<Vec<_>>(), 4);
        let list = &by_shard[term_shard("river", 4)]
            .iter()
            .find(|(t, _)| t == "river")
            .unwrap()
            .1;
        let ids: Vec<u32> = list.chunks(2).map(|p| p[0]).collect();
        let score = |i: u32| {
            let title = if i.is_multiple_of(10) { TITLE } else { 0 };
            title + (1 + (i % 7) as u8).min(TEXT_CAP)
        };
        let mut want: Vec<u32> = (0..200).collect();
        want.sort_by(|a, b| score(*b).cmp(&score(*a)).then(a.cmp(b)));
        assert_eq!(ids, want[..MAX_POSTINGS]);
        for shard in &by_shard {
            assert!(shard.windows(2).all(|w| w[0].0 < w[1].0), "terms sorted");
        }
    }

    #[test]
    fn shards_stay_bounded_as_the_site_grows() {
        let files = built(&site(2000));
        let shards = term_shards(2001);
        assert_eq!(shards, 125);
        let count = |prefix: &str| files.iter().filter(|f| f.0.starts_with(prefix)).count();
        assert_eq!(count("search/terms-"), shards);
        assert_eq!(count("search/near-"), shards);
        assert_eq!(count("search/docs-"), 2001usize.div_ceil(DOCS_PER_SHARD));
        for (path, bytes) in &files {
            let value: Value = serde_json::from_slice(bytes).unwrap();
            if let Some(terms) = value["terms"].as_object() {
                for (term, list) in terms {
                    assert!(list.as_array().unwrap().len() <= 2 * MAX_POSTINGS, "{term}");
                }
            }
            assert!(bytes.len() < 64 * 1024, "{path}: {} bytes", bytes.len());
        }
        // Order of input does not matter.
        let mut reversed = site(2000);
        reversed.reverse();
        assert_eq!(built(&reversed), files);
    }
}
