//! The browser index's postings: each page's words weighed by field, then
//! each term's best pages by weight times inverse document frequency,
//! gathered in parallel ([`super::shards`] writes them).

// Millions of short words hashed at 10,000 pages, by this process only:
// foldhash rather than the standard library's DoS-resistant SipHash.
use foldhash::HashMap;

use rayon::prelude::*;

use super::SearchDocument;
use super::terms::{fold, split, term_shard};

/// Postings kept per term, best first.
pub const MAX_POSTINGS: usize = 24;

/// Field weights: a title word counts most, body repetition a little.
pub(super) const TITLE: f64 = 10.0;
pub(super) const SUMMARY: f64 = 4.0;
pub(super) const SECTION: f64 = 2.0;
pub(super) const TEXT_CAP: usize = 5;

/// Buckets the postings are gathered in, in parallel: a term shard falls
/// in bucket `shard % BUCKETS`, whole.
const BUCKETS: usize = 64;

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
pub(super) fn postings(docs: &[&SearchDocument], shards: usize) -> Vec<Vec<(String, Vec<u32>)>> {
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
