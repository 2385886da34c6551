//! The browser index's postings: each page's words weighed by field, then
//! each term's best pages by weight times inverse document frequency,
//! gathered in parallel ([`super::shards`] writes them).

// Millions of short words hashed at 10,000 pages, by this process only:
// foldhash rather than the standard library's DoS-resistant SipHash.
use foldhash::HashMap;

use std::hash::{BuildHasherDefault, Hash, Hasher};

use rayon::prelude::*;

use super::SearchDocument;
use super::terms::{fold, split_hashed, term_shard};

/// Postings kept per term, best first.
pub const MAX_POSTINGS: usize = 24;

/// Field weights: a title word counts most, body repetition a little. A
/// word's weight is at most their sum, 21, and fits a byte.
pub(super) const TITLE: u8 = 10;
pub(super) const SUMMARY: u8 = 4;
pub(super) const SECTION: u8 = 2;
pub(super) const TEXT_CAP: u8 = 5;

/// Longest summary kept for a result, in characters.
const SUMMARY_CHARS: usize = 160;

/// Buckets the postings are gathered in, in parallel: a term falls in
/// bucket `hash(term) % BUCKETS`.
const BUCKETS: usize = 64;

/// What the browser index needs of one page, made once when the page is
/// rendered and kept with it (so neither a build's end nor a preview's
/// edit reads every entry again): what a result shows and the page's
/// weighed words.
pub struct BrowserEntry {
    /// URL, title, section and summary (cut at [`SUMMARY_CHARS`]).
    pub(super) shown: [Box<str>; 4],
    /// The page's distinct words, bucket by bucket, each followed by a
    /// space (a folded word has none): one string and a byte a word
    /// rather than a string each, since every page's are kept.
    words: Box<str>,
    /// Each word's weight, in the order of `words`.
    weights: Box<[u8]>,
    /// Where each bucket's words start in `words` and in `weights`, then
    /// where the last one ends.
    starts: Box<[(u32, u32)]>,
}

impl BrowserEntry {
    /// The entry of `doc`, whose text is `text`: its words weighed by
    /// field, a title word most, body repetition a little (at most
    /// [`TEXT_CAP`] times).
    pub fn of(doc: &SearchDocument, text: &str) -> Self {
        let fields = [
            fold(&doc.title),
            fold(&doc.summary),
            fold(&doc.section),
            fold(text),
        ];
        // Each word: its fields' weight and its count in the text; room
        // for about one word in eight bytes of text. A word is hashed once,
        // as it is split: the table finds it by that hash, which also
        // names its bucket.
        let mut here: std::collections::HashMap<Hashed<'_>, (u8, u8), BuildHasherDefault<Spread>> =
            std::collections::HashMap::with_capacity_and_hasher(
                fields[3].len() / 8,
                Default::default(),
            );
        for (field, weight) in [(0, TITLE), (1, SUMMARY), (2, SECTION)] {
            let mut seen: Vec<(u32, &str)> = split_hashed(&fields[field]).collect();
            seen.sort_unstable();
            seen.dedup();
            for (hash, word) in seen {
                here.entry(Hashed { hash, word }).or_default().0 += weight;
            }
        }
        for (hash, word) in split_hashed(&fields[3]) {
            let n = &mut here.entry(Hashed { hash, word }).or_default().1;
            *n = (*n + 1).min(TEXT_CAP);
        }
        // Placed bucket by bucket: counted, then each put where its
        // bucket's run begins.
        let weighed: Vec<(usize, &str, u8)> = here
            .into_iter()
            .map(|(w, (fields, n))| (w.hash as usize % BUCKETS, w.word, fields + n))
            .collect();
        let mut starts = vec![(0u32, 0u32); BUCKETS + 1];
        for &(bucket, word, _) in &weighed {
            let (bytes, count) = &mut starts[bucket + 1];
            *bytes += u32::try_from(word.len() + 1).expect("a page's words under 4 GiB");
            *count += 1;
        }
        for b in 0..BUCKETS {
            let (bytes, count) = starts[b];
            starts[b + 1].0 += bytes;
            starts[b + 1].1 += count;
        }
        let mut words = vec![b' '; starts[BUCKETS].0 as usize];
        let mut weights = vec![0u8; weighed.len()];
        let mut next = starts.clone();
        for (bucket, word, weight) in weighed {
            let (byte, i) = &mut next[bucket];
            words[*byte as usize..*byte as usize + word.len()].copy_from_slice(word.as_bytes());
            weights[*i as usize] = weight;
            *byte += word.len() as u32 + 1;
            *i += 1;
        }
        let words = String::from_utf8(words).expect("whole words, each followed by a space");
        let summary = match doc.summary.char_indices().nth(SUMMARY_CHARS) {
            Some((i, _)) => &doc.summary[..i],
            None => &doc.summary,
        };
        Self {
            shown: [&doc.url, &doc.title, &doc.section, summary].map(Box::from),
            words: words.into_boxed_str(),
            weights: weights.into_boxed_slice(),
            starts: starts.into_boxed_slice(),
        }
    }

    /// The page's URL.
    pub(super) fn url(&self) -> &str {
        &self.shown[0]
    }

    /// The page's words that fall in `bucket`, with their weights.
    fn in_bucket(&self, bucket: usize) -> impl Iterator<Item = (&str, u8)> {
        let ((b0, i0), (b1, i1)) = (self.starts[bucket], self.starts[bucket + 1]);
        self.words[b0 as usize..b1 as usize]
            .split_terminator(' ')
            .zip(self.weights[i0 as usize..i1 as usize].iter().copied())
    }
}

/// A word with its hash ([`super::terms::hash`]), made as the word was
/// split: equal words have equal hashes, so the hash is compared first.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Hashed<'a> {
    hash: u32,
    word: &'a str,
}

impl Hash for Hashed<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u32(self.hash);
    }
}

/// A hasher for [`Hashed`] words, whose hash is made already: it only
/// spreads the 32 bits over 64 (the table takes its slot from the low
/// bits and a tag from the high ones).
#[derive(Default)]
struct Spread(u64);

impl Hasher for Spread {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b) ^ (self.0 as u32));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Each term's postings, flattened `[id, weight, id, weight, …]`, best
/// first, at most [`MAX_POSTINGS`], by term shard and term. The weight is
/// a field-weighted term count times the term's inverse document
/// frequency (BM25's, without length normalisation: pages are short and
/// titles decide most).
pub(super) fn postings(pages: &[&BrowserEntry], shards: usize) -> Vec<Vec<(String, Vec<u32>)>> {
    let n = pages.len() as f64;
    // Each bucket's terms gathered from every page, in page order, the
    // buckets in parallel.
    let gathered: Vec<Vec<(usize, String, Vec<u32>)>> = (0..BUCKETS)
        .into_par_iter()
        .with_max_len(1)
        .map(|bucket| {
            let mut scored: HashMap<&str, Vec<(u32, u8)>> = HashMap::default();
            for (id, page) in pages.iter().enumerate() {
                let id = u32::try_from(id).expect("fewer than 2^32 documents");
                for (word, weight) in page.in_bucket(bucket) {
                    scored.entry(word).or_default().push((id, weight));
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
                    let order = |a: &(u32, u8), b: &(u32, u8)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
                    if list.len() > MAX_POSTINGS {
                        list.select_nth_unstable_by(MAX_POSTINGS - 1, order);
                        list.truncate(MAX_POSTINGS);
                    }
                    list.sort_unstable_by(order);
                    let flat = list
                        .into_iter()
                        .flat_map(|(id, s)| {
                            [id, (f64::from(s) * idf * 100.0).round().max(1.0) as u32]
                        })
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
