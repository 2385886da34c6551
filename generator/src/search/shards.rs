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
//! Terms are normalised as the script does it: NFD, combining marks
//! dropped, lower case, split at anything not a letter or digit.

use std::collections::BTreeMap;

// Millions of short words hashed at 10,000 pages, by this process only:
// foldhash rather than the standard library's DoS-resistant SipHash.
use foldhash::HashMap;

use rayon::prelude::*;

use serde::Serialize;
use sha2::{Digest, Sha256};
use unicode_normalization::UnicodeNormalization;

use super::SearchDocument;

/// The head's path in the output folder.
pub const HEAD: &str = "search/browser.json";
/// The format the script understands.
pub const VERSION: u32 = 1;
/// Documents per metadata shard.
pub const DOCS_PER_SHARD: usize = 50;
/// Postings kept per term, best first.
pub const MAX_POSTINGS: usize = 24;
/// Longest summary kept for a result, in characters.
const SUMMARY_CHARS: usize = 160;
/// Documents per term shard, on average: the shard count grows with the
/// site so a shard stays about the same size.
const DOCS_PER_TERM_SHARD: usize = 16;
const MAX_TERM_SHARDS: usize = 1024;

/// Field weights: a title word counts most, body repetition a little.
const TITLE: f64 = 10.0;
const SUMMARY: f64 = 4.0;
const SECTION: f64 = 2.0;
const TEXT_CAP: usize = 5;

/// A string folded as the script folds it.
pub fn fold(s: &str) -> String {
    // ASCII is its own decomposition and has no marks to drop.
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.nfd()
        .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The folded words of a string.
pub fn words(s: &str) -> Vec<String> {
    split(&fold(s)).map(str::to_owned).collect()
}

/// The words of a folded string, as slices of it.
fn split(folded: &str) -> Box<dyn Iterator<Item = &str> + '_> {
    if folded.is_ascii() {
        // The same words, found a byte at a time rather than a decoded
        // character at a time: ASCII letters and digits are the only
        // alphanumeric characters below 128.
        let base = folded.as_ptr() as usize;
        return Box::new(
            folded
                .as_bytes()
                .split(|b| !b.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(move |w| {
                    let start = w.as_ptr() as usize - base;
                    &folded[start..start + w.len()]
                }),
        );
    }
    Box::new(
        folded
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty()),
    )
}

/// FNV-1a over UTF-8 bytes, 32 bits: the script computes the same.
pub fn hash(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The first two characters of `term`, as a slice of it.
fn first_two(term: &str) -> &str {
    let end = term.char_indices().nth(2).map_or(term.len(), |(i, _)| i);
    &term[..end]
}

/// The last two characters of `term`, as a slice of it.
fn last_two(term: &str) -> &str {
    let start = term.char_indices().rev().nth(1).map_or(0, |(i, _)| i);
    &term[start..]
}

/// How many term shards (and near shards) a site of `documents` gets.
pub fn term_shards(documents: usize) -> usize {
    (documents / DOCS_PER_TERM_SHARD).clamp(1, MAX_TERM_SHARDS)
}

/// The term shard holding `term`.
pub fn term_shard(term: &str, shards: usize) -> usize {
    hash(first_two(term)) as usize % shards
}

/// The near shard holding `term`.
pub fn near_shard(term: &str, shards: usize) -> usize {
    hash(last_two(term)) as usize % shards
}

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

/// Buckets the postings are gathered in, in parallel: a term shard falls
/// in bucket `shard % BUCKETS`, whole.
const BUCKETS: usize = 64;

/// The terms of one shard, each with its postings.
type ShardTerms<'a> = Vec<(&'a str, &'a [u32])>;

/// One weighted term of a page: its bucket, where it is in the page's
/// folded fields (field, start, end) and its weight.
type PageTerm = (usize, u8, u32, u32, f64);

/// One page's weighted terms, by bucket, as slices of its folded fields:
/// each distinct word is owned once, by its field.
struct PageTerms {
    fields: [String; 4],
    terms: Vec<PageTerm>,
    /// Where each bucket's terms start in `terms` (by bucket), then its end.
    starts: [u32; BUCKETS + 1],
}

impl PageTerms {
    fn word(&self, t: &PageTerm) -> &str {
        &self.fields[usize::from(t.1)][t.2 as usize..t.3 as usize]
    }

    /// The page's terms that fall in `bucket`.
    fn in_bucket(&self, bucket: usize) -> &[PageTerm] {
        &self.terms[self.starts[bucket] as usize..self.starts[bucket + 1] as usize]
    }
}

/// The weighted terms of one page: a title word counts most, body
/// repetition a little (at most [`TEXT_CAP`] times).
fn page_terms(doc: &SearchDocument, shards: usize) -> PageTerms {
    let fields = [
        fold(&doc.title),
        fold(&doc.summary),
        fold(&doc.section),
        fold(&doc.text),
    ];
    let terms = {
        // Each word: its fields' weight, its count in the text, where it
        // was first seen; room for about one word in eight bytes of text.
        let mut here: HashMap<&str, (f64, usize, u8, u32, u32)> =
            HashMap::with_capacity_and_hasher(fields[3].len() / 8, Default::default());
        let at = |field: usize, w: &str| {
            let start = w.as_ptr() as usize - fields[field].as_ptr() as usize;
            let start = u32::try_from(start).expect("a field under 4 GiB");
            (field as u8, start, start + w.len() as u32)
        };
        for (field, weight) in [(0, TITLE), (1, SUMMARY), (2, SECTION)] {
            let mut seen: Vec<&str> = split(&fields[field]).collect();
            seen.sort_unstable();
            seen.dedup();
            for w in seen {
                let (f, s, e) = at(field, w);
                here.entry(w).or_insert((0.0, 0, f, s, e)).0 += weight;
            }
        }
        for w in split(&fields[3]) {
            here.entry(w)
                .or_insert_with(|| {
                    let (f, s, e) = at(3, w);
                    (0.0, 0, f, s, e)
                })
                .1 += 1;
        }
        let mut terms: Vec<PageTerm> = here
            .into_iter()
            .map(|(w, (weight, n, f, s, e))| {
                let weight = if n > 0 {
                    weight + n.min(TEXT_CAP) as f64
                } else {
                    weight
                };
                (term_shard(w, shards) % BUCKETS, f, s, e, weight)
            })
            .collect();
        terms.sort_unstable_by_key(|t| t.0);
        terms
    };
    let starts = std::array::from_fn(|b| terms.partition_point(|t| t.0 < b) as u32);
    PageTerms {
        fields,
        terms,
        starts,
    }
}

/// Each term's postings, flattened `[id, weight, id, weight, …]`, best
/// first, at most [`MAX_POSTINGS`], by term shard and term. The weight is
/// a field-weighted term count times the term's inverse document
/// frequency (BM25's, without length normalisation: pages are short and
/// titles decide most).
fn postings(docs: &[&SearchDocument], shards: usize) -> Vec<Vec<(String, Vec<u32>)>> {
    let pages: Vec<PageTerms> = docs
        .par_iter()
        .with_max_len(1)
        .map(|d| page_terms(d, shards))
        .collect();
    let n = docs.len() as f64;
    // Each bucket's terms gathered from every page, in page order, the
    // buckets in parallel.
    let gathered: Vec<Vec<(usize, String, Vec<u32>)>> = (0..BUCKETS)
        .into_par_iter()
        .with_max_len(1)
        .map(|bucket| {
            let mut scored: HashMap<&str, Vec<(u32, f64)>> = HashMap::default();
            for (id, page) in pages.iter().enumerate() {
                let id = u32::try_from(id).expect("fewer than 2^32 documents");
                for t in page.in_bucket(bucket) {
                    scored.entry(page.word(t)).or_default().push((id, t.4));
                }
            }
            scored
                .into_iter()
                .map(|(term, mut list)| {
                    let df = list.len() as f64;
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    // Ids are unique, so this order is total: the best
                    // `MAX_POSTINGS` chosen first, then sorted, are the
                    // first ones of the whole list sorted.
                    let order =
                        |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
                    if list.len() > MAX_POSTINGS {
                        list.select_nth_unstable_by(MAX_POSTINGS - 1, order);
                        list.truncate(MAX_POSTINGS);
                    }
                    list.sort_unstable_by(order);
                    let flat = list
                        .into_iter()
                        .flat_map(|(id, s)| [id, (s * idf * 100.0).round().max(1.0) as u32])
                        .collect();
                    (term_shard(term, shards), term.to_owned(), flat)
                })
                .collect()
        })
        .collect();
    let mut by_shard: Vec<Vec<(String, Vec<u32>)>> = vec![Vec::new(); shards];
    for (shard, term, flat) in gathered.into_iter().flatten() {
        by_shard[shard].push((term, flat));
    }
    by_shard
        .par_iter_mut()
        .for_each(|terms| terms.sort_unstable_by(|a, b| a.0.cmp(&b.0)));
    by_shard
}

fn json<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).expect("strings serialise");
    bytes.push(b'\n');
    bytes
}

fn summary(s: &str) -> &str {
    match s.char_indices().nth(SUMMARY_CHARS) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Every file of the split index, as (path, bytes): the head first. The
/// same documents, in any order, give the same files.
pub fn files(documents: &[SearchDocument]) -> Vec<(String, Vec<u8>)> {
    let mut docs: Vec<&SearchDocument> = documents.iter().collect();
    docs.sort_by(|a, b| a.url.cmp(&b.url));
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
                format!("search/{kind}-{k}.json"),
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
                .map(|d| {
                    [
                        d.url.as_str(),
                        d.title.as_str(),
                        d.section.as_str(),
                        summary(&d.summary),
                    ]
                })
                .collect();
            (format!("search/docs-{k}.json"), json(&DocShard { docs }))
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
    out.insert(0, (HEAD.to_owned(), json(&head)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn doc(url: &str, title: &str, text: &str) -> SearchDocument {
        SearchDocument {
            url: url.into(),
            title: title.into(),
            summary: String::new(),
            section: "docs".into(),
            text: text.into(),
        }
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

    fn site(n: usize) -> Vec<SearchDocument> {
        let mut docs: Vec<SearchDocument> = (0..n)
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
        let files = files(&site(300));
        let (urls, fetched) = lookup(&files, "Turbidity");
        assert_eq!(urls.first().map(String::as_str), Some("/docs/water/"));
        assert_eq!(fetched.len(), 3, "head, term shard, one docs shard");
        let (urls, _) = lookup(&files, "sampling");
        assert_eq!(urls, ["/docs/water/"]);
    }

    #[test]
    fn a_one_edit_typo_finds_the_page_at_either_end() {
        let files = files(&site(300));
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
    fn accents_and_case_fold_like_the_script() {
        assert_eq!(words("Qualité de l'EAU"), ["qualite", "de", "l", "eau"]);
        assert_eq!(hash(""), 0x811c_9dc5);
        assert_eq!(hash("a"), 0xe40c_292c);
    }

    #[test]
    fn ascii_text_splits_as_characters_do() {
        let by_char = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect()
        };
        for s in [
            "",
            "  ",
            "pH 7.2, 25°C",
            "a_b-c d'e (x2)\tend.",
            "--x--",
            "café au lait",
        ] {
            let folded = fold(s);
            let words: Vec<String> = split(&folded).map(str::to_owned).collect();
            assert_eq!(words, by_char(&folded), "{s:?}");
        }
    }

    #[test]
    fn two_letter_keys_count_characters_not_bytes() {
        assert_eq!(first_two("été"), "ét");
        assert_eq!(last_two("été"), "té");
        assert_eq!((first_two("a"), last_two("a")), ("a", "a"));
        assert_eq!((first_two(""), last_two("")), ("", ""));
    }

    #[test]
    fn a_common_term_keeps_its_best_postings_in_order() {
        // Page i says "river" 1 + i % 7 times (capped at TEXT_CAP); every
        // tenth also has it in its title. Ties go to the lower id.
        let docs: Vec<SearchDocument> = (0..200usize)
            .map(|i| {
                let title = if i.is_multiple_of(10) {
                    "River"
                } else {
                    "Page"
                };
                doc(&format!("/p{i:03}/"), title, &"river ".repeat(1 + i % 7))
            })
            .collect();
        let refs: Vec<&SearchDocument> = docs.iter().collect();
        let by_shard = postings(&refs, 4);
        let list = &by_shard[term_shard("river", 4)]
            .iter()
            .find(|(t, _)| t == "river")
            .unwrap()
            .1;
        let ids: Vec<u32> = list.chunks(2).map(|p| p[0]).collect();
        let score = |i: u32| {
            let title = if i.is_multiple_of(10) { TITLE } else { 0.0 };
            title + (1 + i as usize % 7).min(TEXT_CAP) as f64
        };
        let mut want: Vec<u32> = (0..200).collect();
        want.sort_by(|a, b| score(*b).total_cmp(&score(*a)).then(a.cmp(b)));
        assert_eq!(ids, want[..MAX_POSTINGS]);
        for shard in &by_shard {
            assert!(shard.windows(2).all(|w| w[0].0 < w[1].0), "terms sorted");
        }
    }

    #[test]
    fn shards_stay_bounded_as_the_site_grows() {
        let files = files(&site(2000));
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
        assert_eq!(super::files(&reversed), files);
    }
}
