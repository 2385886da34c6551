//! The published text, ranked: one BM25 implementation over the passages
//! the generator cut from every page (`search-passages.json` and its parts: the search
//! index's text, split at each heading), shared by the chat and the MCP
//! `search_documentation` tool.
//!
//! A question's words are stemmed ([`text`]) and each is looked up three
//! ways: as itself, through its synonym group from `content/synonyms.toml`
//! (weight [`SYNONYM_WEIGHT`]), and as the prefix of longer words
//! (weight [`PREFIX_WEIGHT`]); a passage scores the best of the three per
//! question word, so a synonym never counts twice. Words of the page title
//! and of the passage's heading count more than body words. Besides the
//! score, each hit says which share of the question's meaning it covers
//! (its words weighted by rarity), which is how the chat tells a good
//! answer from a coincidental one.
//!
//! Cost: the weight of a term in a passage depends on the passage alone;
//! the postings keep its count and flags in a byte and work the weight out
//! again while reading, from two figures per passage ([`postings`]), so a
//! question costs a short decode, a division and a multiplication per
//! posting of its terms, into accumulators that live as long as the index
//! ([`scratch`]). Passages
//! are numbered in (URL, anchor) order, so a page's passages stand
//! together and a number settles a tie. Pages are then bounded before they
//! are scored: a page scores at least its best passage and at most 1.75
//! times it (both times its coverage), so only the pages whose upper bound
//! reaches the `limit`-th lower bound, and the `limit`-th score of the
//! pages scored so far, are scored in full, with the same result as
//! scoring all (a test compares the two). No string is hashed or compared
//! while ranking.

mod audience;
mod build;
mod cue;
mod excerpt;
mod pages;
mod postings;
mod read;
mod scratch;
mod sentences;
mod store;
pub mod text;

pub use build::Builder;
pub use cue::Cue;
pub use excerpt::excerpt;
pub use pages::{PAGE_DECAY, PAGE_PASSAGES, Page};
pub use sentences::{Asked, Quote};
pub use store::{PassageRef, Passages, TextSource};

use std::collections::HashMap;
use std::sync::Mutex;

use postings::{Occurrence as Raw, Postings};
use scratch::{Mask, Scratch};

/// BM25 parameters of the body text.
const K1: f32 = 1.2;
const B: f32 = 0.75;
/// What a word in the passage's heading, and in the page's title, adds
/// (times its rarity): short fields, so not weighed against their length,
/// and one occurrence is the whole signal (BM25F-like).
const HEADING_WEIGHT: f32 = 2.0;
const TITLE_WEIGHT: f32 = 1.5;
pub const SYNONYM_WEIGHT: f32 = 0.7;
pub const PREFIX_WEIGHT: f32 = 0.5;
/// A question word stands for the longer words it begins from this many
/// characters on ("measur" → "measurement"; "appl" would match too much).
const PREFIX_MIN: usize = 5;
/// A word the site never uses stands for the words one edit away (a
/// letter added, dropped, changed or two swapped) from this many
/// characters on, with this weight.
const TYPO_MIN: usize = 5;
pub const TYPO_WEIGHT: f32 = 0.7;
/// At most this many longer words a prefix stands for.
const PREFIX_FANOUT: usize = 16;
/// At most this many words of a question are told apart (a bit each in a
/// passage's mask, [`scratch::Mask`]); of a longer question, the rarest
/// are kept.
pub(crate) const MAX_WORDS: usize = scratch::Mask::BITS as usize;

/// The ranked passages.
#[derive(Debug, Default)]
pub struct Index {
    /// In (URL, anchor) order, so that comparing two passages' numbers
    /// breaks a tie between them, and a page's passages stand together.
    passages: Passages,
    /// Per passage: its page; pages are numbered in URL order, so that
    /// comparing numbers orders pages as their URLs.
    page: Vec<u32>,
    /// Per page: its first passage.
    page_start: Vec<u32>,
    /// Sorted terms; a term's position is its id.
    vocab: Vec<String>,
    /// Per term: its occurrences, by passage, with their weights.
    postings: Postings,
    /// Per term: the prose passages it occurs in (its document frequency
    /// for rarity), and how many prose passages there are: generated
    /// reference material (the API reference) does not make a word of the
    /// documents rarer or commoner, so the size of the API does not reorder
    /// the documents' passages.
    prose_df: Vec<u32>,
    prose_passages: usize,
    /// Per term: the other terms of its synonym groups.
    synonyms: HashMap<String, Vec<String>>,
    /// How its passages' words, and its questions', are read.
    lang: text::Lang,
    /// Accumulators for one question at a time each, reused.
    scratch: Mutex<Vec<Scratch>>,
    /// Passages as quoting reads them, kept between questions.
    reads: read::Reads,
    /// This index among those the process built (a thread's memory of
    /// words' terms belongs to one index).
    serial: u64,
}

/// A ranked passage.
#[derive(Debug, Clone)]
pub struct Hit<'a> {
    /// The passage's number in the index.
    pub id: u32,
    pub passage: PassageRef<'a>,
    pub score: f32,
    /// The share of the question's weight (its words' rarity) that the
    /// passage matches, from 0 to 1.
    pub coverage: f32,
    /// The stems that matched, for quoting the right sentences.
    pub matched: Vec<String>,
}

impl Index {
    /// Whether every meaningful word of `text` is one the published text
    /// uses (itself, a synonym or a longer word it begins).
    pub fn knows_all(&self, text: &str) -> bool {
        self.lang
            .terms(text)
            .all(|stem| !self.expand(&stem).is_empty())
    }

    /// How many passages the index ranks.
    pub fn len(&self) -> usize {
        self.passages.len()
    }

    /// Passage `i` (in (URL, anchor) order).
    pub fn passage(&self, i: usize) -> PassageRef<'_> {
        self.passages.get(i)
    }

    /// How its passages' words are read.
    pub fn lang(&self) -> text::Lang {
        self.lang
    }

    pub fn is_empty(&self) -> bool {
        self.passages.is_empty()
    }

    /// About how many bytes of the heap the index takes: the passages, the
    /// vocabulary and the postings (not the synonyms, which are few).
    pub fn heap_bytes(&self) -> usize {
        self.passages.heap_bytes()
            + self.vocab.iter().map(|t| t.capacity() + 24).sum::<usize>()
            + self.postings.heap_bytes()
            + self.prose_df.capacity() * 4
            + (self.page.capacity() + self.page_start.capacity()) * 4
    }

    fn idf(&self, df: usize) -> f32 {
        let n = self.prose_passages as f32;
        let df = (df as f32).min(n);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The rarity of term `id`.
    fn term_idf(&self, id: usize) -> f32 {
        self.idf(self.prose_df[id] as usize)
    }

    /// The terms a question word stands for, each with its weight.
    fn expand(&self, stem: &str) -> Vec<(usize, f32)> {
        let known = self
            .vocab
            .binary_search_by(|t| t.as_str().cmp(stem))
            .is_ok()
            || self.synonyms.contains_key(stem);
        let mut out: Vec<(usize, f32)> = Vec::new();
        let mut add = |id: usize, w: f32| match out.iter_mut().find(|(i, _)| *i == id) {
            Some(e) => e.1 = e.1.max(w),
            None => out.push((id, w)),
        };
        if let Ok(id) = self.vocab.binary_search_by(|t| t.as_str().cmp(stem)) {
            add(id, 1.0);
        }
        for other in self.synonyms.get(stem).into_iter().flatten() {
            if let Ok(id) = self.vocab.binary_search(other) {
                add(id, SYNONYM_WEIGHT);
            }
        }
        if !known && stem.chars().count() >= TYPO_MIN {
            // A word the site never uses, but one edit away from one it
            // does: a misspelling ("mesage"). Not a shorter word that the
            // edit makes of it ("reset" is not "rest").
            for (id, t) in self.vocab.iter().enumerate() {
                if t.len() >= TYPO_MIN && one_edit(stem, t) {
                    add(id, TYPO_WEIGHT);
                }
            }
        }
        if stem.chars().count() >= PREFIX_MIN {
            let start = self.vocab.partition_point(|t| t.as_str() < stem);
            for (id, t) in self.vocab[start..].iter().enumerate().take(PREFIX_FANOUT) {
                if !t.starts_with(stem) {
                    break;
                }
                add(start + id, PREFIX_WEIGHT);
            }
        }
        out
    }

    /// Each stem of `query` with its weight: its rarity; a word the site
    /// never uses counts as a rare one (it may be off topic, or a
    /// paraphrase of something the site says otherwise).
    fn weights(&self, query: &str) -> Vec<(String, f32)> {
        let mut stems: Vec<String> = self.lang.terms(query).collect();
        stems.sort();
        stems.dedup();
        let unknown = self.idf(1);
        let mut weights: Vec<(String, f32)> = stems
            .into_iter()
            .map(|stem| {
                let w = self
                    .vocab
                    .binary_search(&stem)
                    .map_or(unknown, |id| self.term_idf(id));
                (stem, w)
            })
            .collect();
        if weights.len() > MAX_WORDS {
            // The rarest words, still in the words' order.
            let mut rarity: Vec<f32> = weights.iter().map(|(_, w)| *w).collect();
            let least = *rarity
                .select_nth_unstable_by(MAX_WORDS - 1, |a, b| b.total_cmp(a))
                .1;
            let mut above = weights.iter().filter(|(_, w)| *w > least).count();
            weights.retain(|(_, w)| {
                let keep = *w > least || (*w == least && above < MAX_WORDS);
                if *w == least && keep {
                    above += 1;
                }
                keep
            });
        }
        weights
    }

    /// The best passages for `query`, best first (ties by URL, then by
    /// place on the page).
    pub fn rank(&self, query: &str, limit: usize) -> Vec<Hit<'_>> {
        let weights = self.weights(query);
        let total: f32 = weights.iter().map(|(_, w)| w).sum();
        self.with_scratch(|s| {
            self.score(&weights, s);
            let mut best: Vec<(f32, u32)> = s
                .touched_sorted()
                .into_iter()
                .map(|p| (s.score[p as usize], p))
                .collect();
            top(&mut best, limit, |a, b| {
                b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1))
            });
            best.iter()
                .map(|&(_, p)| self.hit(p, s, &weights, total))
                .collect()
        })
    }

    /// Adds up the score of every passage matching one of `weights`'
    /// stems into `s`.
    fn score(&self, weights: &[(String, f32)], s: &mut Scratch) {
        let words: Vec<Vec<(usize, f32)>> = weights
            .iter()
            .take(MAX_WORDS)
            .map(|(stem, _)| self.expand(stem))
            .collect();
        let postings: usize = words
            .iter()
            .flatten()
            .map(|(id, _)| self.postings.count(*id))
            .sum();
        s.fit(
            self.passages.len(),
            postings * DENSE_SHARE >= self.passages.len(),
        );
        for (q, terms) in words.iter().enumerate() {
            let bit = 1 << q;
            // A word that stands for one term (the common case) goes
            // straight into the accumulators.
            if let [(id, weight)] = terms[..] {
                let factor = weight * self.term_idf(id);
                if s.dense {
                    // The arrays as slices: writing a score does not make
                    // their addresses be read again.
                    let (score, mask) = (&mut s.score[..], &mut s.mask[..]);
                    for (passage, posting) in self.postings.of(id) {
                        let i = passage as usize;
                        score[i] += factor * posting;
                        mask[i] |= bit;
                    }
                } else {
                    for (passage, posting) in self.postings.of(id) {
                        s.add(passage, factor * posting, bit);
                    }
                }
                continue;
            }
            // Otherwise a passage counts its best match: the highest of the
            // word itself, a synonym and a longer word.
            for &(id, weight) in terms {
                let factor = weight * self.term_idf(id);
                for (passage, posting) in self.postings.of(id) {
                    let value = factor * posting;
                    let best = &mut s.best[passage as usize];
                    if *best == 0.0 {
                        s.term_touched.push(passage);
                    }
                    if value > *best {
                        *best = value;
                    }
                }
            }
            for i in 0..s.term_touched.len() {
                let p = s.term_touched[i];
                let value = std::mem::take(&mut s.best[p as usize]);
                s.add(p, value, bit);
            }
            s.term_touched.clear();
        }
        s.words = words;
    }

    /// The share of the question's weight that `passage` matches: per
    /// word it matched, the word's rarity times the weight of the term
    /// that counted (itself, a synonym or a longer word), found again
    /// the way [`Index::score`] chose it (summed in the same order, so
    /// rounding as a running sum would).
    fn covered(&self, passage: u32, s: &Scratch, weights: &[(String, f32)]) -> f32 {
        let mut covered = 0.0f32;
        for (q, (terms, (_, own_idf))) in s.words.iter().zip(weights).enumerate() {
            if s.mask[passage as usize] & (1 << q) == 0 {
                continue;
            }
            let weight = match terms[..] {
                [(_, weight)] => weight,
                _ => {
                    let mut best = (0.0f32, 0.0f32);
                    for &(id, weight) in terms {
                        if let Some(posting) = self.postings.weight_in(id, passage) {
                            let value = weight * self.term_idf(id) * posting;
                            if value > best.0 {
                                best = (value, weight);
                            }
                        }
                    }
                    best.1
                }
            };
            covered += weight * own_idf;
        }
        covered
    }

    /// Runs `f` with accumulators sized for this index, all zero, and
    /// puts them back for the next question once `f` has cleared them.
    fn with_scratch<T>(&self, f: impl FnOnce(&mut Scratch) -> T) -> T {
        let mut s = self
            .scratch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        let out = f(&mut s);
        s.clear();
        self.scratch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(s);
        out
    }

    fn hit(&self, passage: u32, s: &Scratch, weights: &[(String, f32)], total: f32) -> Hit<'_> {
        let i = passage as usize;
        Hit {
            id: passage,
            passage: self.passages.get(i),
            score: s.score[i],
            coverage: if total > 0.0 {
                (self.covered(passage, s, weights) / total).min(1.0)
            } else {
                0.0
            },
            matched: weights
                .iter()
                .enumerate()
                .filter(|(q, _)| *q < MAX_WORDS && s.mask[i] & (1 << q) != 0)
                .map(|(_, (stem, _))| stem.clone())
                .collect(),
        }
    }
}

/// The share of a question's weight (its words' rarity) that a set of its
/// words carries, by mask (bit q = word q); a table for questions of up to
/// [`SHARE_TABLE_WORDS`] words, which is nearly all.
struct Shares {
    total: f32,
    weights: Vec<f32>,
    table: Vec<f32>,
}

const SHARE_TABLE_WORDS: usize = 8;

impl Shares {
    fn new(weights: &[(String, f32)]) -> Shares {
        let total: f32 = weights.iter().map(|(_, w)| w).sum();
        let weights: Vec<f32> = weights.iter().take(MAX_WORDS).map(|(_, w)| *w).collect();
        let mut shares = Shares {
            total,
            weights,
            table: Vec::new(),
        };
        if shares.weights.len() <= SHARE_TABLE_WORDS {
            shares.table = (0..1u32 << shares.weights.len())
                .map(|m| shares.compute(m))
                .collect();
        }
        shares
    }

    fn of(&self, mask: Mask) -> f32 {
        match self.table.get(mask as usize) {
            Some(&share) => share,
            None => self.compute(mask),
        }
    }

    /// The words' weights summed in the words' order (as f32 rounds).
    fn compute(&self, mask: Mask) -> f32 {
        if self.total <= 0.0 {
            return 0.0;
        }
        let covered: f32 = self
            .weights
            .iter()
            .enumerate()
            .filter(|(q, _)| mask & (1 << q) != 0)
            .map(|(_, w)| w)
            .sum();
        covered / self.total
    }
}

/// The first `limit` of `items` in `order`, sorted; the rest dropped
/// unsorted.
fn top<T>(items: &mut Vec<T>, limit: usize, order: impl Fn(&T, &T) -> std::cmp::Ordering) {
    if limit == 0 {
        items.clear();
        return;
    }
    if items.len() > limit {
        items.select_nth_unstable_by(limit - 1, &order);
        items.truncate(limit);
    }
    items.sort_unstable_by(order);
}

/// Whether `a` and `b` differ by one edit: a character added, dropped or
/// changed, or two neighbours swapped.
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > 1 || a == b {
        return false;
    }
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[common..], &b[common..]);
    match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..]
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        std::cmp::Ordering::Less => ra == &rb[1..],
        std::cmp::Ordering::Greater => &ra[1..] == rb,
    }
}

/// A question whose terms' postings number at least 1/DENSE_SHARE of the
/// passages is scored densely (see [`scratch::Scratch::dense`]).
const DENSE_SHARE: usize = 16;

/// The passage's URL with its heading's anchor.
pub fn passage_path(p: PassageRef<'_>) -> String {
    if p.anchor.is_empty() {
        p.url.to_owned()
    } else {
        format!("{}#{}", p.url, p.anchor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::search::{Passage, PassageIndex};

    pub(crate) fn passage(url: &str, heading: &str, text: &str) -> Passage {
        Passage {
            url: url.into(),
            anchor: heading.to_lowercase().replace(' ', "-"),
            title: "Page".into(),
            heading: heading.into(),
            section: "x".into(),
            historical: false,
            licence: None,
            attribution: None,
            reference: false,
            developers: false,
            language: None,
            text: text.into(),
        }
    }

    fn index() -> Index {
        Index::new(PassageIndex {
            version: 1,
            synonyms: vec![vec!["ph".into(), "acidity".into()]],
            passages: vec![
                passage(
                    "/a/",
                    "Measuring pH",
                    "Dip the strip in the water. Compare the colour with the chart.",
                ),
                passage(
                    "/b/",
                    "Nitrate",
                    "Nitrate comes from fertiliser. Measure it with a colour kit.",
                ),
                passage("/c/", "Licence", "The data are licensed under ODbL."),
            ],
        })
    }

    #[test]
    fn ranks_by_heading_synonyms_and_prefixes() {
        let i = index();
        assert_eq!(i.rank("how is acidity measured?", 3)[0].passage.url, "/a/");
        assert_eq!(i.rank("nitrates", 3)[0].passage.url, "/b/");
        assert_eq!(i.rank("licens", 3)[0].passage.url, "/c/");
        let best = &i.rank("nitrate", 1)[0];
        assert!(best.coverage > 0.99);
        let partial = &i.rank("nitrate zeppelin", 1)[0];
        assert!(partial.coverage <= 0.5, "{}", partial.coverage);
        assert!(i.rank("zeppelin", 3).is_empty());
        assert!(i.rank("the of", 3).is_empty());
        // One edit away: a misspelling.
        assert_eq!(i.rank("nitrte", 3)[0].passage.url, "/b/");
        assert_eq!(i.rank("licnese", 3)[0].passage.url, "/c/");
    }

    #[test]
    fn one_edit_is_one_edit() {
        assert!(one_edit("mesag", "messag"));
        assert!(one_edit("messag", "mesag"));
        assert!(one_edit("nitrat", "nitrit"));
        assert!(one_edit("licnes", "licens"));
        assert!(!one_edit("nitrat", "nitrat"));
        assert!(!one_edit("nitrat", "natrit"));
        assert!(!one_edit("abc", "abcde"));
    }
}
