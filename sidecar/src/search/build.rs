//! Building the index from the passages: every term's postings with its
//! weight in each passage worked out once, the passages' priors
//! (boilerplate and reference material weigh less) and the page each
//! passage belongs to.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use contract::search::{Passage, PassageIndex};

use super::store::{Passages, TextSource};

use super::*;

/// An index being built, one passage at a time: each passage's terms are
/// counted as it comes, so that its text need not be kept (see
/// [`Builder::push_located`]).
#[derive(Debug, Default)]
pub struct Builder {
    passages: Passages,
    /// Every term's occurrences so far.
    terms: Terms,
    /// Per passage pushed: its length in body words.
    lens: Vec<f32>,
    /// Per passage pushed: a hash of its text, which tells boilerplate.
    texts: Vec<u64>,
    /// Per passage pushed: whether it is generated reference material.
    reference: Vec<bool>,
    /// How the passages' words are read.
    lang: text::Lang,
    /// Each word's stem, worked out once per build: a site uses a few tens
    /// of thousands of words millions of times, and stemming them each
    /// time was most of the cost of indexing.
    stems: HashMap<String, String, text::FnvBuild>,
}

impl Builder {
    /// A builder of an index in `lang`.
    pub fn new(lang: text::Lang) -> Builder {
        Builder {
            lang,
            ..Builder::default()
        }
    }

    /// Adds the next passage, its text held by the index.
    pub fn push(&mut self, p: Passage) {
        self.count(&p);
        self.passages.push(p);
    }

    /// Adds the next passage, its text left where `source` has it: `bytes`
    /// of part `part` (from [`Builder::add_part`]) are its JSON object.
    pub fn push_located(&mut self, p: Passage, part: u32, bytes: std::ops::Range<usize>) {
        self.count(&p);
        self.passages.push_located(p, part, bytes);
    }

    /// A file passages' text may be read from again; its number.
    pub fn add_part(&mut self, source: Arc<dyn TextSource>) -> u32 {
        self.passages.add_part(source)
    }

    fn count(&mut self, p: &Passage) {
        let passage = self.lens.len() as u32;
        let mut len = 0.0f32;
        // A table row carries its columns' labels ("x — Meaning: …;
        // Advice: …"): a label's words count once in the passage, or a
        // table of many rows would rank on its header's words.
        let mut labels: Vec<String> = Vec::new();
        for line in p.text.lines() {
            let (fields, row_labels) = row_fields(line);
            let label_terms: Vec<String> =
                row_labels.iter().flat_map(|l| self.terms_of(l)).collect();
            for term in label_terms {
                if !labels.contains(&term) {
                    self.terms.occurrence(term.clone(), passage).body += 1;
                    len += 1.0;
                    labels.push(term);
                }
            }
            for field in fields {
                for term in self.terms_of(field) {
                    self.terms.occurrence(term, passage).body += 1;
                    len += 1.0;
                }
            }
        }
        for term in self.terms_of(&p.heading) {
            self.terms.occurrence(term, passage).heading = true;
        }
        for term in self.terms_of(&p.title) {
            self.terms.occurrence(term, passage).title = true;
        }
        self.terms.end_passage();
        self.lens.push(len);
        self.reference.push(p.reference);
        let mut h = DefaultHasher::new();
        p.text.hash(&mut h);
        self.texts.push(h.finish());
    }

    /// The stems of `text`'s meaningful words, in order (as
    /// [`text::Lang::terms`] gives them), each word stemmed once per build.
    fn terms_of(&mut self, text: &str) -> Vec<String> {
        let lang = self.lang;
        lang.meaningful(text)
            .map(|w| match self.stems.get(&w) {
                Some(stem) => stem.clone(),
                None => {
                    let stem = lang.stem(&w);
                    self.stems.insert(w, stem.clone());
                    stem
                }
            })
            .collect()
    }

    /// The index, with the synonym groups of `content/`.
    pub fn finish(self, synonym_groups: &[Vec<String>]) -> Index {
        let Builder {
            mut passages,
            terms,
            lens: pushed_lens,
            texts,
            reference,
            lang,
            stems: _,
        } = self;
        // The average length of the prose passages, as rarity counts
        // prose only: the size of the API reference does not lengthen or
        // shorten the documents' passages. Summed in the order pushed (the
        // file's; in f32, the order of a sum decides its rounding).
        let prose_lens = || {
            pushed_lens
                .iter()
                .zip(&reference)
                .filter(|(_, r)| !**r)
                .map(|(l, _)| *l)
        };
        let prose = prose_lens().count();
        let avg_len = if prose == 0 {
            1.0
        } else {
            let sum: f32 = prose_lens().sum();
            (sum / prose as f32).max(1.0)
        };
        // The passages are numbered in (URL, anchor) order.
        let number = passages.sort();
        let mut lens = vec![0.0f32; pushed_lens.len()];
        for (at, &id) in number.iter().enumerate() {
            lens[id as usize] = pushed_lens[at];
        }
        let prior = priors(&passages, &number, &texts);
        let Terms { ids, mut raw, .. } = terms;
        let mut vocab: Vec<(String, usize)> = ids.into_iter().collect();
        vocab.sort_unstable();
        let is_reference: Vec<bool> = (0..passages.len())
            .map(|p| passages.get(p).reference)
            .collect();
        let prose_passages = is_reference.iter().filter(|r| !**r).count().max(1);
        let mut postings = Postings::new(&lens, avg_len, prior);
        postings.reserve(raw.iter().map(Vec::len).sum());
        let mut prose_df = Vec::with_capacity(vocab.len());
        let mut list = Vec::new();
        for (_, id) in &vocab {
            // Each term's compact list is read back and freed in turn, so
            // the index never holds its occurrences at full size.
            list.clear();
            list.extend(
                postings::occurrences(&std::mem::take(&mut raw[*id])).map(|mut r| {
                    r.passage = number[r.passage as usize];
                    r
                }),
            );
            list.sort_unstable_by_key(|r| r.passage);
            prose_df.push(
                list.iter()
                    .filter(|r| !is_reference[r.passage as usize])
                    .count() as u32,
            );
            postings.add_term(&list);
        }
        postings.finish();
        let vocab = vocab.into_iter().map(|(term, _)| term).collect();
        let (page, page_start) = pages(&passages);
        let mut synonyms: HashMap<String, Vec<String>> = HashMap::new();
        for group in synonym_groups {
            let stems: Vec<String> = group.iter().map(|w| lang.stem(w)).collect();
            for s in &stems {
                let others = synonyms.entry(s.clone()).or_default();
                others.extend(stems.iter().filter(|o| *o != s).cloned());
                others.sort();
                others.dedup();
            }
        }
        Index {
            reads: super::read::Reads::new(passages.len()),
            passages,
            page,
            page_start,
            vocab,
            postings,
            prose_df,
            prose_passages,
            synonyms,
            lang,
            scratch: Mutex::default(),
            serial: {
                static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
                SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
        }
    }
}

impl Index {
    pub fn new(file: PassageIndex) -> Index {
        let mut builder = Builder::default();
        for p in file.passages {
            builder.push(p);
        }
        builder.finish(&file.synonyms)
    }
}

/// The terms met while indexing, each with its occurrences in the order
/// the passages were pushed, held compact (as [`postings`] encodes them):
/// at 10,000 pages there are millions, and as structs of 12 bytes in
/// growing lists they took more memory than the finished index, and left
/// it fragmented.
#[derive(Debug, Default)]
struct Terms {
    /// Terms get ids in order of appearance.
    ids: HashMap<String, usize>,
    /// Per term: its occurrences in earlier passages, encoded.
    raw: Vec<Vec<u8>>,
    /// Per term: the passage of its last encoded occurrence.
    last: Vec<u32>,
    /// Per term: one more than the passage it was last met in (0: none).
    met: Vec<u32>,
    /// Per term met in the current passage: its place in `here`.
    slot: Vec<u32>,
    /// The current passage's occurrences, encoded when it ends.
    here: Vec<(usize, Raw)>,
}

impl Terms {
    /// The occurrence of `term` in `passage` (the one being indexed),
    /// added if new.
    fn occurrence(&mut self, term: String, passage: u32) -> &mut Raw {
        let next = self.raw.len();
        let id = *self.ids.entry(term).or_insert(next);
        if id == next {
            self.raw.push(Vec::new());
            self.last.push(0);
            self.met.push(0);
            self.slot.push(0);
        }
        if self.met[id] != passage + 1 {
            self.met[id] = passage + 1;
            self.slot[id] = self.here.len() as u32;
            self.here.push((
                id,
                Raw {
                    passage,
                    body: 0,
                    heading: false,
                    title: false,
                },
            ));
        }
        &mut self.here[self.slot[id] as usize].1
    }

    /// Encodes the current passage's occurrences onto their terms' lists.
    fn end_passage(&mut self) {
        for (id, r) in self.here.drain(..) {
            postings::encode(&mut self.raw[id], r.passage - self.last[id], &r);
            self.last[id] = r.passage;
        }
    }
}

/// Per passage (numbered): 1, or [`BOILERPLATE`] when the same text
/// stands on several pages, times [`REFERENCE`] for reference material.
/// `texts` are the texts' hashes in the order pushed, `number` their
/// passages' numbers.
fn priors(passages: &Passages, number: &[u32], texts: &[u64]) -> Vec<f32> {
    let mut copies: HashMap<u64, usize> = HashMap::new();
    for t in texts {
        *copies.entry(*t).or_insert(0) += 1;
    }
    let mut prior = vec![1.0f32; texts.len()];
    for (at, t) in texts.iter().enumerate() {
        let id = number[at] as usize;
        let boilerplate = if copies[t] > 1 { BOILERPLATE } else { 1.0 };
        let reference = if passages.get(id).reference {
            REFERENCE
        } else {
            1.0
        };
        prior[id] = boilerplate * reference;
    }
    prior
}

/// Per passage (in URL order) its page number; per page its first
/// passage. Pages are numbered in URL order.
fn pages(passages: &Passages) -> (Vec<u32>, Vec<u32>) {
    let mut page = Vec::with_capacity(passages.len());
    let mut page_start: Vec<u32> = Vec::new();
    for p in 0..passages.len() {
        if page_start
            .last()
            .is_none_or(|&q| !passages.same_url(q as usize, p))
        {
            page_start.push(p as u32);
        }
        page.push((page_start.len() - 1) as u32);
    }
    (page, page_start)
}

/// The weight of a passage whose text stands verbatim on several pages (a
/// template's notice rather than what a page is about).
const BOILERPLATE: f32 = 0.5;

/// The weight of generated reference material against prose.
const REFERENCE: f32 = 0.5;

/// A line of a passage as its fields and its labels: a table row as the
/// generator writes it ("subject \u{2014} Label: value; Label: value.")
/// gives its subject and values as fields and its labels apart; any other
/// line is one field.
fn row_fields(line: &str) -> (Vec<&str>, Vec<&str>) {
    let Some((subject, rest)) = line.split_once(" \u{2014} ") else {
        return (vec![line], Vec::new());
    };
    let mut fields = vec![subject];
    let mut labels = Vec::new();
    for field in rest.split("; ") {
        match field.split_once(": ") {
            Some((label, value)) if label.len() <= LABEL_MAX && !label.contains('.') => {
                labels.push(label);
                fields.push(value);
            }
            _ => fields.push(field),
        }
    }
    (fields, labels)
}

/// A column's label is at most this many bytes.
const LABEL_MAX: usize = 48;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_kept_between_passages_are_the_stemmers_own() {
        let texts = [
            "Measuring nitrate: measure the nitrates, then measured values.",
            "De metingen van nitraat; meten en gemeten waarden 2024.",
            "The measurements' units — mg/L, µS/cm — and the meter's calibration.",
            "Measuring nitrate again: the second reading is a cache hit.",
        ];
        for lang in [text::Lang::English, text::Lang::Dutch, text::Lang::Plain] {
            let mut builder = Builder::new(lang);
            for text in texts {
                let expected: Vec<String> = lang.terms(text).collect();
                assert_eq!(builder.terms_of(text), expected, "{lang:?}: {text}");
            }
            assert!(!builder.stems.is_empty());
        }
    }
}
