//! Building the index from the passages: every term's postings with its
//! weight in each passage worked out once, the passages' priors
//! (boilerplate and reference material weigh less) and the page each
//! passage belongs to.

use std::collections::HashMap;
use std::sync::Mutex;

use contract::search::PassageIndex;

use super::store::Passages;

use super::*;

impl Index {
    pub fn new(file: PassageIndex) -> Index {
        let mut passages = Passages::default();
        for p in file.passages {
            passages.push(p);
        }
        Index::build(passages, &file.synonyms)
    }

    /// The index of `passages` (in the order the file gives them) with the
    /// synonym groups of `content/`.
    pub fn build(mut passages: Passages, synonym_groups: &[Vec<String>]) -> Index {
        // The passages are numbered in (URL, anchor) order; `file_order`
        // keeps where each stood in the file, where the average length is
        // summed (in f32, the order of a sum decides its rounding).
        let file_order = passages.sort();
        // Terms get ids in order of appearance first, sorted ids at the end;
        // postings are built per term directly, so nothing holds a term per
        // passage.
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut raw: Vec<Vec<Raw>> = Vec::new();
        let mut lens = Vec::with_capacity(passages.len());
        for i in 0..passages.len() {
            let (p, passage) = (passages.get(i), i as u32);
            let mut len = 0.0f32;
            for term in text::terms(p.text) {
                occurrence(&mut ids, &mut raw, term, passage).body += 1;
                len += 1.0;
            }
            for term in text::terms(p.heading) {
                occurrence(&mut ids, &mut raw, term, passage).heading = true;
            }
            for term in text::terms(p.title) {
                occurrence(&mut ids, &mut raw, term, passage).title = true;
            }
            lens.push(len);
        }
        let avg_len = if lens.is_empty() {
            1.0
        } else {
            let sum: f32 = file_order.iter().map(|&id| lens[id as usize]).sum();
            (sum / lens.len() as f32).max(1.0)
        };
        let prior = priors(&passages);
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
        let (page, page_start) = pages(&passages);
        let mut synonyms: HashMap<String, Vec<String>> = HashMap::new();
        for group in synonym_groups {
            let stems: Vec<String> = group.iter().map(|w| text::stem(w)).collect();
            for s in &stems {
                let others = synonyms.entry(s.clone()).or_default();
                others.extend(stems.iter().filter(|o| *o != s).cloned());
                others.sort();
                others.dedup();
            }
        }
        Index {
            passages,
            page,
            page_start,
            vocab,
            postings,
            synonyms,
            scratch: Mutex::default(),
        }
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

/// Per passage: 1, or [`BOILERPLATE`] when the same text stands on several
/// pages, times [`REFERENCE`] for reference material.
fn priors(passages: &Passages) -> Vec<f32> {
    let mut copies: HashMap<&str, usize> = HashMap::new();
    for i in 0..passages.len() {
        *copies.entry(passages.get(i).text).or_insert(0) += 1;
    }
    (0..passages.len())
        .map(|i| {
            let p = passages.get(i);
            let boilerplate = if copies[p.text] > 1 { BOILERPLATE } else { 1.0 };
            let reference = if p.reference { REFERENCE } else { 1.0 };
            boilerplate * reference
        })
        .collect()
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
