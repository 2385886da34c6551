//! The postings, compact: at 10,000 pages the index holds millions of
//! (term, passage) occurrences, and as `(u32, f32)` pairs in a list per
//! term they were most of the sidecar's memory. Here each term's
//! occurrences stand back to back in one byte array, in passage order: the
//! gap from the previous passage as a variable-length number (one byte for
//! gaps under 128, which common terms nearly always have) and one byte of
//! body count and field flags. The weight a posting had as a float is
//! worked out again while reading, from the count, the flags and two
//! figures per passage (its length's BM25 norm and its prior), by the same
//! expression in the same order as before, so every score is the same to
//! the bit.
//!
//! Every [`BLOCK`] postings a skip entry records where the next block
//! starts and the passage before it, so that one posting is found (for a
//! hit's coverage) by a binary search over the skips and at most a block
//! read.

use super::{B, HEADING_WEIGHT, K1, TITLE_WEIGHT};

/// Postings per skip entry.
const BLOCK: usize = 64;
/// The count byte's low bits hold body counts below this; this value
/// says a variable-length count follows.
const COUNT_ESCAPE: u8 = 0x3f;
const IN_HEADING: u8 = 0x40;
const IN_TITLE: u8 = 0x80;

/// An occurrence while building: the passage, its body count, and whether
/// the term is in the passage's heading or the page's title.
#[derive(Debug, Clone, Copy)]
pub(super) struct Occurrence {
    pub passage: u32,
    pub body: u32,
    pub heading: bool,
    pub title: bool,
}

/// Every term's postings.
#[derive(Debug, Default)]
pub(super) struct Postings {
    bytes: Vec<u8>,
    /// Per term: where its postings and its skips start, and how many
    /// postings it has; one more entry closes the last term.
    terms: Vec<TermAt>,
    skips: Vec<Skip>,
    /// Per passage: the two figures its postings' weights are made of,
    /// side by side, so that reading a posting costs one access to them.
    per: Vec<PassageFigures>,
}

#[derive(Debug, Clone, Copy, Default)]
struct PassageFigures {
    /// The BM25 length norm, `K1 * (1 - B + B * len / avg)`.
    norm: f32,
    /// Its prior (boilerplate and reference weigh less).
    prior: f32,
}

#[derive(Debug, Clone, Copy, Default)]
struct TermAt {
    byte: u32,
    skip: u32,
    count: u32,
}

#[derive(Debug, Clone, Copy)]
struct Skip {
    /// The passage of the posting before the block (0 for the first).
    before: u32,
    byte: u32,
}

impl Postings {
    /// Postings for terms added in id order with [`Postings::add_term`];
    /// `lens` and `prior` per passage.
    pub fn new(lens: &[f32], avg_len: f32, prior: Vec<f32>) -> Postings {
        let per = lens
            .iter()
            .zip(prior)
            .map(|(&len, prior)| PassageFigures {
                norm: K1 * (1.0 - B + B * len / avg_len),
                prior,
            })
            .collect();
        Postings {
            terms: vec![TermAt::default()],
            per,
            ..Postings::default()
        }
    }

    /// Adds the next term's occurrences, in passage order.
    pub fn add_term(&mut self, occurrences: &[Occurrence]) {
        let mut previous = 0u32;
        for (i, o) in occurrences.iter().enumerate() {
            if i % BLOCK == 0 {
                self.skips.push(Skip {
                    before: previous,
                    byte: self.bytes.len() as u32,
                });
            }
            encode(&mut self.bytes, o.passage - previous, o);
            previous = o.passage;
        }
        self.terms.push(TermAt {
            byte: self.bytes.len() as u32,
            skip: self.skips.len() as u32,
            count: 0,
        });
        let n = self.terms.len();
        self.terms[n - 2].count = occurrences.len() as u32;
    }

    /// Room for about this many bytes of postings.
    pub fn reserve(&mut self, bytes: usize) {
        self.bytes.reserve_exact(bytes);
    }

    /// Gives back spare capacity once every term is in.
    pub fn finish(&mut self) {
        self.bytes.shrink_to_fit();
        self.terms.shrink_to_fit();
        self.skips.shrink_to_fit();
    }

    /// How many passages term `id` occurs in.
    pub fn count(&self, id: usize) -> usize {
        self.terms[id].count as usize
    }

    /// Term `id`'s postings: (passage, weight before rarity), in passage
    /// order.
    pub fn of(&self, id: usize) -> Reader<'_> {
        let (at, end) = (self.terms[id], self.terms[id + 1]);
        Reader {
            per: &self.per,
            bytes: &self.bytes[at.byte as usize..end.byte as usize],
            previous: 0,
        }
    }

    /// Term `id`'s weight in `passage`, if it occurs there.
    pub fn weight_in(&self, id: usize, passage: u32) -> Option<f32> {
        let (at, end) = (self.terms[id], self.terms[id + 1]);
        let skips = &self.skips[at.skip as usize..end.skip as usize];
        // The block holding `passage`: the last that starts after a
        // passage before it (the first block for passage 0).
        let block = skips
            .partition_point(|s| s.before < passage)
            .saturating_sub(1);
        let from = *skips.get(block)?;
        let to = skips.get(block + 1).map_or(end.byte, |s| s.byte);
        let reader = Reader {
            per: &self.per,
            bytes: &self.bytes[from.byte as usize..to as usize],
            previous: from.before,
        };
        for (p, weight) in reader {
            if p >= passage {
                return (p == passage).then_some(weight);
            }
        }
        None
    }

    /// About how many bytes of the heap the postings take.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
            + self.terms.capacity() * std::mem::size_of::<TermAt>()
            + self.skips.capacity() * std::mem::size_of::<Skip>()
            + self.per.capacity() * std::mem::size_of::<PassageFigures>()
    }
}

/// The BM25F weight of a body count and fields in passage `p`, of the
/// figures `per` passage (the expression and order the index was always
/// built with).
#[inline]
fn weight(per: &[PassageFigures], p: u32, body: u32, heading: bool, title: bool) -> f32 {
    let figures = per[p as usize];
    let tf = body as f32;
    let body = tf * (K1 + 1.0) / (tf + figures.norm);
    let fields =
        f32::from(u8::from(heading)) * HEADING_WEIGHT + f32::from(u8::from(title)) * TITLE_WEIGHT;
    // The priors are powers of two, so multiplying them in here rounds as
    // multiplying them in last would.
    (body + fields) * figures.prior
}

/// A term's postings being read.
pub(super) struct Reader<'a> {
    /// The postings' figures per passage (a slice, not the postings, so
    /// that writing scores while reading leaves its address in a
    /// register).
    per: &'a [PassageFigures],
    bytes: &'a [u8],
    previous: u32,
}

impl Iterator for Reader<'_> {
    type Item = (u32, f32);

    #[inline]
    fn next(&mut self) -> Option<(u32, f32)> {
        // A one-byte gap and a count byte without escape: nearly every
        // posting, read without a branch on its count or flags (whose
        // mispredictions cost more than the division).
        if let [gap @ 0..0x80, byte, rest @ ..] = self.bytes
            && byte & COUNT_ESCAPE != COUNT_ESCAPE
        {
            let passage = self.previous + u32::from(*gap);
            self.previous = passage;
            self.bytes = rest;
            let weight = weight(
                self.per,
                passage,
                u32::from(byte & COUNT_ESCAPE),
                byte & IN_HEADING != 0,
                byte & IN_TITLE != 0,
            );
            return Some((passage, weight));
        }
        let o = decode(&mut self.bytes, self.previous)?;
        self.previous = o.passage;
        let weight = weight(self.per, o.passage, o.body, o.heading, o.title);
        Some((o.passage, weight))
    }
}

/// Appends `o`, `gap` passages after the previous occurrence.
pub(super) fn encode(out: &mut Vec<u8>, gap: u32, o: &Occurrence) {
    varint(out, gap);
    let flags = if o.heading { IN_HEADING } else { 0 } | if o.title { IN_TITLE } else { 0 };
    if o.body < u32::from(COUNT_ESCAPE) {
        out.push(flags | o.body as u8);
    } else {
        out.push(flags | COUNT_ESCAPE);
        varint(out, o.body);
    }
}

/// The next occurrence of `bytes`, the previous one being in `previous`.
#[inline]
fn decode(bytes: &mut &[u8], previous: u32) -> Option<Occurrence> {
    if bytes.is_empty() {
        return None;
    }
    let passage = previous + read_varint(bytes);
    let (&byte, rest) = bytes.split_first()?;
    *bytes = rest;
    let body = match byte & COUNT_ESCAPE {
        COUNT_ESCAPE => read_varint(bytes),
        n => u32::from(n),
    };
    Some(Occurrence {
        passage,
        body,
        heading: byte & IN_HEADING != 0,
        title: byte & IN_TITLE != 0,
    })
}

/// The occurrences [`encode`] wrote to `bytes`.
pub(super) fn occurrences(mut bytes: &[u8]) -> impl Iterator<Item = Occurrence> + '_ {
    let mut previous = 0;
    std::iter::from_fn(move || {
        let o = decode(&mut bytes, previous)?;
        previous = o.passage;
        Some(o)
    })
}

fn varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

#[inline]
fn read_varint(bytes: &mut &[u8]) -> u32 {
    let mut n = 0u32;
    let mut shift = 0;
    while let Some((&b, rest)) = bytes.split_first() {
        *bytes = rest;
        n |= u32::from(b & 0x7f) << shift;
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_read_back_as_written_and_are_found_by_passage() {
        let passages = 5_000u32;
        let lens: Vec<f32> = (0..passages).map(|p| (p % 97 + 1) as f32).collect();
        let prior: Vec<f32> = (0..passages)
            .map(|p| if p % 7 == 0 { 0.5 } else { 1.0 })
            .collect();
        let mut postings = Postings::new(&lens, 31.0, prior);
        let terms: Vec<Vec<Occurrence>> = (1..40u32)
            .map(|t| {
                (0..passages)
                    .filter(|p| p % t == 0 || p * 7 % (t + 100) == 3)
                    .map(|p| Occurrence {
                        passage: p,
                        body: (p * t) % 90,
                        heading: p % 3 == 0,
                        title: p % 5 == 0,
                    })
                    .collect()
            })
            .collect();
        for occurrences in &terms {
            postings.add_term(occurrences);
        }
        postings.finish();
        for (id, occurrences) in terms.iter().enumerate() {
            let read: Vec<(u32, f32)> = postings.of(id).collect();
            assert_eq!(read.len(), occurrences.len());
            assert_eq!(postings.count(id), occurrences.len());
            for (o, (p, w)) in occurrences.iter().zip(&read) {
                assert_eq!(o.passage, *p);
                let expected = weight(&postings.per, o.passage, o.body, o.heading, o.title);
                assert_eq!(w.to_bits(), expected.to_bits());
                assert_eq!(postings.weight_in(id, *p), Some(*w));
            }
            for p in (0..passages).step_by(13) {
                let found = occurrences.iter().any(|o| o.passage == p);
                assert_eq!(
                    postings.weight_in(id, p).is_some(),
                    found,
                    "term {id} passage {p}"
                );
            }
        }
    }
}
