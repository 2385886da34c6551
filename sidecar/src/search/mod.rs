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

pub mod text;

use std::collections::{BTreeMap, HashMap};

use contract::search::{Passage, PassageIndex};

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

/// The ranked passages.
#[derive(Debug, Default)]
pub struct Index {
    passages: Vec<Passage>,
    /// Length of each passage's body, in terms.
    lens: Vec<f32>,
    /// Per passage: 1, or [`BOILERPLATE`] when the same text stands on
    /// several pages.
    prior: Vec<f32>,
    avg_len: f32,
    /// Sorted terms; a term's position is its id.
    vocab: Vec<String>,
    /// Per term: its occurrences, by passage.
    postings: Vec<Vec<Posting>>,
    /// Per term: the other terms of its synonym groups.
    synonyms: HashMap<String, Vec<String>>,
}

/// A term in one passage: how often in the body, whether in the heading
/// and in the page title.
#[derive(Debug, Clone, Copy)]
struct Posting {
    passage: u32,
    body: f32,
    heading: bool,
    title: bool,
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

impl Index {
    pub fn new(file: PassageIndex) -> Index {
        let mut counts: Vec<BTreeMap<String, (f32, bool, bool)>> =
            Vec::with_capacity(file.passages.len());
        let mut lens = Vec::with_capacity(file.passages.len());
        for p in &file.passages {
            let mut tf: BTreeMap<String, (f32, bool, bool)> = BTreeMap::new();
            let mut len = 0.0;
            for term in text::terms(&p.text) {
                tf.entry(term).or_default().0 += 1.0;
                len += 1.0;
            }
            for term in text::terms(&p.heading) {
                tf.entry(term).or_default().1 = true;
            }
            for term in text::terms(&p.title) {
                tf.entry(term).or_default().2 = true;
            }
            counts.push(tf);
            lens.push(len);
        }
        let mut vocab: Vec<String> = counts.iter().flat_map(|c| c.keys().cloned()).collect();
        vocab.sort();
        vocab.dedup();
        let mut postings = vec![Vec::new(); vocab.len()];
        for (i, tf) in counts.into_iter().enumerate() {
            for (term, (body, heading, title)) in tf {
                let id = vocab.binary_search(&term).expect("collected above");
                postings[id].push(Posting {
                    passage: i as u32,
                    body,
                    heading,
                    title,
                });
            }
        }
        let mut copies: HashMap<&str, usize> = HashMap::new();
        for p in &file.passages {
            *copies.entry(p.text.as_str()).or_insert(0) += 1;
        }
        let prior = file
            .passages
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
            .collect();
        let avg_len = if lens.is_empty() {
            1.0
        } else {
            (lens.iter().sum::<f32>() / lens.len() as f32).max(1.0)
        };
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
            lens,
            prior,
            avg_len,
            vocab,
            postings,
            synonyms,
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
        self.scored(&weights)
            .into_iter()
            .take(limit)
            .map(|s| self.hit(&s, &weights, total))
            .collect()
    }

    /// Every passage matching one of `weights`' stems, best first: dense
    /// accumulators over the passages, so a common word costs one pass over
    /// its postings and no allocation per passage.
    fn scored(&self, weights: &[(String, f32)]) -> Vec<Scored> {
        if weights.is_empty() || self.passages.is_empty() {
            return Vec::new();
        }
        let n = self.passages.len();
        let mut acc = vec![Scored::default(); n];
        let mut touched: Vec<u32> = Vec::new();
        let mut best = vec![(0.0f32, 0.0f32); n];
        let mut term_touched: Vec<u32> = Vec::new();
        // At most 64 question words are told apart (a mask per passage).
        for (q, (stem, own_idf)) in weights.iter().enumerate().take(64) {
            for (id, weight) in self.expand(stem) {
                let postings = &self.postings[id];
                let idf = self.idf(postings.len());
                for posting in postings {
                    let p = posting.passage as usize;
                    let (tf, len) = (posting.body, self.lens[p]);
                    let body = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / self.avg_len));
                    let fields = f32::from(u8::from(posting.heading)) * HEADING_WEIGHT
                        + f32::from(u8::from(posting.title)) * TITLE_WEIGHT;
                    let value = weight * idf * (body + fields) * self.prior[p];
                    if best[p].0 == 0.0 {
                        term_touched.push(p as u32);
                    }
                    if value > best[p].0 {
                        best[p] = (value, weight * own_idf);
                    }
                }
            }
            for &p in &term_touched {
                let (value, covered) = std::mem::take(&mut best[p as usize]);
                let e = &mut acc[p as usize];
                if e.mask == 0 {
                    touched.push(p);
                }
                e.passage = p;
                e.score += value;
                e.covered += covered;
                e.mask |= 1 << q;
            }
            term_touched.clear();
        }
        let mut out: Vec<Scored> = touched.into_iter().map(|p| acc[p as usize]).collect();
        out.sort_by(|a, b| {
            let (pa, pb) = (
                &self.passages[a.passage as usize],
                &self.passages[b.passage as usize],
            );
            b.score
                .total_cmp(&a.score)
                .then_with(|| pa.url.cmp(&pb.url))
                .then_with(|| pa.anchor.cmp(&pb.anchor))
        });
        out
    }

    fn hit(&self, s: &Scored, weights: &[(String, f32)], total: f32) -> Hit<'_> {
        Hit {
            passage: &self.passages[s.passage as usize],
            score: s.score,
            coverage: if total > 0.0 {
                (s.covered / total).min(1.0)
            } else {
                0.0
            },
            matched: weights
                .iter()
                .enumerate()
                .filter(|(q, _)| *q < 64 && s.mask & (1 << q) != 0)
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
        // Per page: its passages (best first), score and the words matched.
        let mut pages: Vec<(&str, Vec<Scored>, f32, u64)> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        for s in self.scored(&weights) {
            let url = self.passages[s.passage as usize].url.as_str();
            let i = *at.entry(url).or_insert_with(|| {
                pages.push((url, Vec::new(), 0.0, 0));
                pages.len() - 1
            });
            let page = &mut pages[i];
            page.3 |= s.mask;
            if page.1.len() < PAGE_PASSAGES {
                page.1.push(s);
            }
        }
        let covered = |mask: u64| -> f32 {
            weights
                .iter()
                .enumerate()
                .filter(|(q, _)| *q < 64 && mask & (1 << q) != 0)
                .map(|(_, (_, w))| w)
                .sum()
        };
        for page in &mut pages {
            let mut weight = 1.0;
            let mut agg = 0.0;
            for s in &page.1 {
                agg += weight * s.score;
                weight *= PAGE_DECAY;
            }
            let coverage = if total > 0.0 {
                covered(page.3) / total
            } else {
                0.0
            };
            page.2 = agg * (0.5 + 0.5 * coverage);
        }
        pages.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(b.0)));
        pages.truncate(limit);
        pages
            .into_iter()
            .map(|(url, scored, score, mask)| Page {
                url,
                score,
                coverage: if total > 0.0 {
                    covered(mask) / total
                } else {
                    0.0
                },
                hits: scored
                    .iter()
                    .map(|s| self.hit(s, &weights, total))
                    .collect(),
            })
            .collect()
    }
}

/// A passage's running score for one question.
#[derive(Debug, Clone, Copy, Default)]
struct Scored {
    passage: u32,
    score: f32,
    covered: f32,
    /// Which of the question's words it matches (bit q = word q).
    mask: u64,
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

/// An exact excerpt of `text`: the run of whole sentences, at most about
/// `max` characters, that holds the most of `stems`.
pub fn excerpt(text: &str, stems: &[String], max: usize) -> String {
    let sentences = split_sentences(text);
    if sentences.is_empty() {
        return String::new();
    }
    let hits: Vec<usize> = sentences
        .iter()
        .map(|&(a, b)| {
            let words: Vec<String> = text::terms(&text[a..b]).collect();
            stems
                .iter()
                .filter(|s| words.iter().any(|w| w.starts_with(s.as_str())))
                .count()
        })
        .collect();
    let mut best = (0, 0, 0usize);
    for start in 0..sentences.len() {
        let mut end = start;
        let mut score = 0;
        while end < sentences.len() && sentences[end].1 - sentences[start].0 <= max.max(1) {
            score += hits[end];
            end += 1;
        }
        let end = end.max(start + 1);
        if score > best.2 {
            best = (start, end, score);
        }
    }
    let (start, end, _) = if best.2 == 0 { (0, 1, 0) } else { best };
    let a = sentences[start].0;
    let b = sentences[end - 1].1;
    let mut cut = text[a..b].trim();
    if cut.chars().count() > max * 2 {
        // One very long sentence: cut at a word boundary.
        let at = cut.char_indices().nth(max).map_or(cut.len(), |(i, _)| i);
        let at = cut[..at].rfind(' ').unwrap_or(at);
        cut = &cut[..at];
    }
    cut.to_owned()
}

/// Byte ranges of the sentences of `text` (a sentence ends at `.`, `?` or
/// `!` followed by a space).
fn split_sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        if matches!(bytes[i], b'.' | b'?' | b'!') && bytes.get(i + 1) == Some(&b' ') {
            out.push((start, i + 1));
            start = i + 2;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
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

    #[test]
    fn excerpts_are_exact_whole_sentences() {
        let t = "First one here. The nitrate test uses a strip. Last one.";
        let e = excerpt(t, &["nitrat".to_owned()], 30);
        assert_eq!(e, "The nitrate test uses a strip.");
        assert!(t.contains(&e));
        assert_eq!(excerpt(t, &["zzz".to_owned()], 10), "First one here.");
    }
}
