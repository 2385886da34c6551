//! The published text, ranked: one BM25 implementation over the passages
//! the generator cut from every page (`search-passages.json`: the search
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
//! Cost: the weight of a term in a passage depends on the passage alone, so
//! it is worked out once at startup and kept in the posting ([`Posting`]);
//! a question then costs a multiplication per posting of its terms, into
//! accumulators that live as long as the index ([`scratch`]), and a pass
//! over the passages it touched, grouped by page through an id (no string
//! is hashed or compared while ranking).

mod excerpt;
mod scratch;
pub mod text;

pub use excerpt::excerpt;

use std::collections::HashMap;
use std::sync::Mutex;

use contract::search::{Passage, PassageIndex};
use scratch::{Acc, Scratch};

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
/// At most this many longer words a prefix stands for.
const PREFIX_FANOUT: usize = 16;
/// At most this many words of a question are told apart (a bit each in a
/// passage's mask); further words are ignored.
const MAX_WORDS: usize = 64;

/// The ranked passages.
#[derive(Debug, Default)]
pub struct Index {
    passages: Vec<Passage>,
    /// Per passage: its page; pages are numbered in URL order, so that
    /// comparing numbers orders pages as their URLs.
    page: Vec<u32>,
    /// Per passage: its place in (URL, anchor) order, for ties.
    order: Vec<u32>,
    /// Per page: one of its passages (for its URL).
    page_passage: Vec<u32>,
    /// Sorted terms; a term's position is its id.
    vocab: Vec<String>,
    /// Per term: its occurrences, by passage.
    postings: Vec<Vec<Posting>>,
    /// Per term: the other terms of its synonym groups.
    synonyms: HashMap<String, Vec<String>>,
    /// Accumulators for one question at a time each, reused.
    scratch: Mutex<Vec<Scratch>>,
}

/// A term in one passage: its BM25F weight there before rarity (body
/// saturation, heading and title, times the passage's prior).
#[derive(Debug, Clone, Copy)]
struct Posting {
    passage: u32,
    weight: f32,
}

/// A ranked passage.
#[derive(Debug, Clone)]
pub struct Hit<'a> {
    pub passage: &'a Passage,
    pub score: f32,
    /// The share of the question's weight (its words' rarity) that the
    /// passage matches, from 0 to 1.
    pub coverage: f32,
    /// The stems that matched, for quoting the right sentences.
    pub matched: Vec<String>,
}

/// A term's occurrence while indexing: body count, heading, title.
#[derive(Debug, Clone, Copy)]
struct Raw {
    passage: u32,
    body: u32,
    heading: bool,
    title: bool,
}

impl Index {
    pub fn new(file: PassageIndex) -> Index {
        // Terms get ids in order of appearance first, sorted ids at the end;
        // postings are built per term directly, so nothing holds a term per
        // passage.
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut raw: Vec<Vec<Raw>> = Vec::new();
        let mut lens = Vec::with_capacity(file.passages.len());
        for (i, p) in file.passages.iter().enumerate() {
            let passage = i as u32;
            let mut len = 0.0f32;
            for term in text::terms(&p.text) {
                occurrence(&mut ids, &mut raw, term, passage).body += 1;
                len += 1.0;
            }
            for term in text::terms(&p.heading) {
                occurrence(&mut ids, &mut raw, term, passage).heading = true;
            }
            for term in text::terms(&p.title) {
                occurrence(&mut ids, &mut raw, term, passage).title = true;
            }
            lens.push(len);
        }
        let avg_len = if lens.is_empty() {
            1.0
        } else {
            (lens.iter().sum::<f32>() / lens.len() as f32).max(1.0)
        };
        let prior = priors(&file.passages);
        let mut vocab: Vec<(String, usize)> = ids.into_iter().collect();
        vocab.sort_unstable();
        let postings = vocab
            .iter()
            .map(|(_, id)| {
                std::mem::take(&mut raw[*id])
                    .into_iter()
                    .map(|r| {
                        let p = r.passage as usize;
                        let (tf, len) = (r.body as f32, lens[p]);
                        let body = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len));
                        let fields = f32::from(u8::from(r.heading)) * HEADING_WEIGHT
                            + f32::from(u8::from(r.title)) * TITLE_WEIGHT;
                        // The priors are powers of two, so multiplying them
                        // in here rounds as multiplying them in last would.
                        Posting {
                            passage: r.passage,
                            weight: (body + fields) * prior[p],
                        }
                    })
                    .collect()
            })
            .collect();
        let vocab = vocab.into_iter().map(|(term, _)| term).collect();
        let (page, order, page_passage) = pages(&file.passages);
        let mut synonyms: HashMap<String, Vec<String>> = HashMap::new();
        for group in &file.synonyms {
            let stems: Vec<String> = group.iter().map(|w| text::stem(w)).collect();
            for s in &stems {
                let others = synonyms.entry(s.clone()).or_default();
                others.extend(stems.iter().filter(|o| *o != s).cloned());
                others.sort();
                others.dedup();
            }
        }
        Index {
            passages: file.passages,
            page,
            order,
            page_passage,
            vocab,
            postings,
            synonyms,
            scratch: Mutex::default(),
        }
    }

    /// Whether every meaningful word of `text` is one the published text
    /// uses (itself, a synonym or a longer word it begins).
    pub fn knows_all(&self, text: &str) -> bool {
        text::terms(text).all(|stem| !self.expand(&stem).is_empty())
    }

    pub fn passages(&self) -> &[Passage] {
        &self.passages
    }

    pub fn is_empty(&self) -> bool {
        self.passages.is_empty()
    }

    fn idf(&self, df: usize) -> f32 {
        let n = self.passages.len() as f32;
        (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln()
    }

    /// The terms a question word stands for, each with its weight.
    fn expand(&self, stem: &str) -> Vec<(usize, f32)> {
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
        let mut stems: Vec<String> = text::terms(query).collect();
        stems.sort();
        stems.dedup();
        let unknown = self.idf(1);
        stems
            .into_iter()
            .map(|stem| {
                let w = self
                    .vocab
                    .binary_search(&stem)
                    .map_or(unknown, |id| self.idf(self.postings[id].len()));
                (stem, w)
            })
            .collect()
    }

    /// The best passages for `query`, best first (ties by URL, then by
    /// place on the page).
    pub fn rank(&self, query: &str, limit: usize) -> Vec<Hit<'_>> {
        let weights = self.weights(query);
        let total: f32 = weights.iter().map(|(_, w)| w).sum();
        self.with_scratch(|s| {
            self.score(&weights, s);
            let mut best: Vec<(Acc, u32)> =
                s.touched.iter().map(|&p| (s.acc[p as usize], p)).collect();
            let by_rank = |a: &(Acc, u32), b: &(Acc, u32)| {
                b.0.score
                    .total_cmp(&a.0.score)
                    .then_with(|| self.order[a.1 as usize].cmp(&self.order[b.1 as usize]))
            };
            top(&mut best, limit, by_rank);
            best.iter()
                .map(|(acc, p)| self.hit(*p, acc, &weights, total))
                .collect()
        })
    }

    /// Adds up the score of every passage matching one of `weights`'
    /// stems into `s` (its `touched` lists them, first touch first).
    fn score(&self, weights: &[(String, f32)], s: &mut Scratch) {
        s.fit(self.passages.len(), self.page_passage.len());
        for (q, (stem, own_idf)) in weights.iter().enumerate().take(MAX_WORDS) {
            let bit = 1 << q;
            let terms = self.expand(stem);
            // A word that stands for one term (the common case) goes
            // straight into the accumulators.
            if let [(id, weight)] = terms[..] {
                let postings = &self.postings[id];
                let factor = weight * self.idf(postings.len());
                let covered = weight * own_idf;
                for posting in postings {
                    let e = &mut s.acc[posting.passage as usize];
                    if e.mask == 0 {
                        s.touched.push(posting.passage);
                    }
                    e.score += factor * posting.weight;
                    e.covered += covered;
                    e.mask |= bit;
                }
                continue;
            }
            // Otherwise a passage counts its best match: the highest of the
            // word itself, a synonym and a longer word.
            for (id, weight) in terms {
                let postings = &self.postings[id];
                let factor = weight * self.idf(postings.len());
                let covered = weight * own_idf;
                for posting in postings {
                    let value = factor * posting.weight;
                    let best = &mut s.best[posting.passage as usize];
                    if best.0 == 0.0 {
                        s.term_touched.push(posting.passage);
                    }
                    if value > best.0 {
                        *best = (value, covered);
                    }
                }
            }
            for &p in &s.term_touched {
                let (value, covered) = std::mem::take(&mut s.best[p as usize]);
                let e = &mut s.acc[p as usize];
                if e.mask == 0 {
                    s.touched.push(p);
                }
                e.score += value;
                e.covered += covered;
                e.mask |= bit;
            }
            s.term_touched.clear();
        }
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

    fn hit(&self, passage: u32, s: &Acc, weights: &[(String, f32)], total: f32) -> Hit<'_> {
        Hit {
            passage: &self.passages[passage as usize],
            score: s.score,
            coverage: if total > 0.0 {
                (s.covered / total).min(1.0)
            } else {
                0.0
            },
            matched: weights
                .iter()
                .enumerate()
                .filter(|(q, _)| *q < MAX_WORDS && s.mask & (1 << q) != 0)
                .map(|(_, (stem, _))| stem.clone())
                .collect(),
        }
    }

    /// The best pages for `query`, each with its matching passages (best
    /// first). A page scores its best passages with decreasing weight, so
    /// a page about the subject outranks one that mentions it once, and
    /// more the more of the question its passages cover together, so a
    /// page that answers all of it outranks one that answers a part well.
    pub fn rank_pages(&self, query: &str, limit: usize) -> Vec<Page<'_>> {
        let weights = self.weights(query);
        let total: f32 = weights.iter().map(|(_, w)| w).sum();
        let covered = |mask: u64| -> f32 {
            weights
                .iter()
                .enumerate()
                .filter(|(q, _)| *q < MAX_WORDS && mask & (1 << q) != 0)
                .map(|(_, (_, w))| w)
                .sum()
        };
        let coverage = |mask: u64| {
            if total > 0.0 {
                covered(mask) / total
            } else {
                0.0
            }
        };
        self.with_scratch(|s| {
            self.score(&weights, s);
            // Per page: its best passages and the words any passage matched.
            let ahead = |a: u32, b: u32| {
                let (sa, sb) = (s.acc[a as usize].score, s.acc[b as usize].score);
                sa > sb || (sa == sb && self.order[a as usize] < self.order[b as usize])
            };
            for &p in &s.touched {
                let g = self.page[p as usize] as usize;
                let page = &mut s.pages[g];
                if page.len == 0 {
                    s.pages_touched.push(g as u32);
                }
                page.mask |= s.acc[p as usize].mask;
                page.insert(p, ahead);
            }
            let mut ranked: Vec<(f32, u32)> = s
                .pages_touched
                .iter()
                .map(|&g| {
                    let page = &s.pages[g as usize];
                    let mut weight = 1.0;
                    let mut agg = 0.0;
                    for &p in page.best() {
                        agg += weight * s.acc[p as usize].score;
                        weight *= PAGE_DECAY;
                    }
                    (agg * (0.5 + 0.5 * coverage(page.mask)), g)
                })
                .collect();
            top(&mut ranked, limit, |a, b| {
                b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1))
            });
            ranked
                .into_iter()
                .map(|(score, g)| {
                    let page = &s.pages[g as usize];
                    Page {
                        url: &self.passages[self.page_passage[g as usize] as usize].url,
                        score,
                        coverage: coverage(page.mask),
                        hits: page
                            .best()
                            .iter()
                            .map(|&p| self.hit(p, &s.acc[p as usize], &weights, total))
                            .collect(),
                    }
                })
                .collect()
        })
    }
}

/// The occurrence of `term` in `passage` (the latest indexed), added if
/// new; `ids` gives each term its list in `raw`.
fn occurrence<'a>(
    ids: &mut HashMap<String, usize>,
    raw: &'a mut Vec<Vec<Raw>>,
    term: String,
    passage: u32,
) -> &'a mut Raw {
    let id = *ids.entry(term).or_insert_with(|| {
        raw.push(Vec::new());
        raw.len() - 1
    });
    let list = &mut raw[id];
    if list.last().is_none_or(|r| r.passage != passage) {
        list.push(Raw {
            passage,
            body: 0,
            heading: false,
            title: false,
        });
    }
    list.last_mut().expect("pushed above")
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

/// Per passage: 1, or [`BOILERPLATE`] when the same text stands on several
/// pages, times [`REFERENCE`] for reference material.
fn priors(passages: &[Passage]) -> Vec<f32> {
    let mut copies: HashMap<&str, usize> = HashMap::new();
    for p in passages {
        *copies.entry(p.text.as_str()).or_insert(0) += 1;
    }
    passages
        .iter()
        .map(|p| {
            let boilerplate = if copies[p.text.as_str()] > 1 {
                BOILERPLATE
            } else {
                1.0
            };
            let reference = if p.reference { REFERENCE } else { 1.0 };
            boilerplate * reference
        })
        .collect()
}

/// Per passage its page number and its place in (URL, anchor) order; per
/// page one of its passages. Pages are numbered in URL order.
fn pages(passages: &[Passage]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut sorted: Vec<u32> = (0..passages.len() as u32).collect();
    sorted.sort_by(|&a, &b| {
        let (pa, pb) = (&passages[a as usize], &passages[b as usize]);
        pa.url.cmp(&pb.url).then_with(|| pa.anchor.cmp(&pb.anchor))
    });
    let mut page = vec![0; passages.len()];
    let mut order = vec![0; passages.len()];
    let mut page_passage: Vec<u32> = Vec::new();
    for (rank, &p) in sorted.iter().enumerate() {
        let url = &passages[p as usize].url;
        if page_passage
            .last()
            .is_none_or(|&q| passages[q as usize].url != *url)
        {
            page_passage.push(p);
        }
        page[p as usize] = (page_passage.len() - 1) as u32;
        order[p as usize] = rank as u32;
    }
    (page, order, page_passage)
}

/// The weight of a passage whose text stands verbatim on several pages (a
/// template's notice rather than what a page is about).
const BOILERPLATE: f32 = 0.5;

/// The weight of generated reference material against prose.
const REFERENCE: f32 = 0.5;

/// A page scores its best [`PAGE_PASSAGES`] passages, each further one
/// counting [`PAGE_DECAY`] of the one before.
pub const PAGE_PASSAGES: usize = 3;
pub const PAGE_DECAY: f32 = 0.5;

/// A ranked page and its matching passages, best first.
#[derive(Debug, Clone)]
pub struct Page<'a> {
    pub url: &'a str,
    pub score: f32,
    /// The share of the question's weight its passages match together.
    pub coverage: f32,
    pub hits: Vec<Hit<'a>>,
}

impl<'a> Page<'a> {
    /// Its best passage.
    pub fn best(&self) -> &Hit<'a> {
        &self.hits[0]
    }
}

/// The passage's URL with its heading's anchor.
pub fn passage_path(p: &Passage) -> String {
    if p.anchor.is_empty() {
        p.url.clone()
    } else {
        format!("{}#{}", p.url, p.anchor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(url: &str, heading: &str, text: &str) -> Passage {
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
    }
}
