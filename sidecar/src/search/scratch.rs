//! The accumulators of one question: dense arrays over the passages and
//! pages, kept by the index between questions (sized once, and set back to
//! zero only where a question touched them), so ranking allocates nothing
//! in proportion to the corpus.

use super::PAGE_PASSAGES;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The question's words a passage matches, a bit each (bit q = word q).
pub(super) type Mask = u32;

/// A passage's place in a page's ranking: its score, then its number
/// (its place in (URL, anchor) order) for ties.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Key {
    pub score: f32,
    pub passage: u32,
}

impl Key {
    /// Whether `self` ranks before `other`.
    fn ahead(&self, other: &Key) -> bool {
        self.score > other.score || (self.score == other.score && self.passage < other.passage)
    }
}

/// A page's best passages so far (best first, with the keys they rank by,
/// so that keeping them reads nothing else) and the words its passages
/// match together.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PageAcc {
    best: [Key; PAGE_PASSAGES],
    pub len: u8,
    pub mask: Mask,
}

impl PageAcc {
    pub fn best(&self) -> &[Key] {
        &self.best[..usize::from(self.len)]
    }

    /// Its best passages' scores, each after the first weighing
    /// [`super::PAGE_DECAY`] times the one before.
    pub fn score(&self) -> f32 {
        let mut weight = 1.0;
        let mut agg = 0.0;
        for key in self.best() {
            agg += weight * key.score;
            weight *= super::PAGE_DECAY;
        }
        agg
    }

    /// Keeps `key` if it is among the best.
    pub fn insert(&mut self, key: Key) {
        let len = usize::from(self.len);
        if len == PAGE_PASSAGES && !key.ahead(&self.best[len - 1]) {
            return;
        }
        let at = self.best[..len]
            .iter()
            .position(|q| key.ahead(q))
            .unwrap_or(len);
        let end = (len + 1).min(PAGE_PASSAGES);
        self.best.copy_within(at..end - 1, at + 1);
        self.best[at] = key;
        self.len = end as u8;
    }
}

/// A page's best passage's score and the words its passages match.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageBest {
    pub page: u32,
    pub score: f32,
    pub mask: Mask,
}

/// The running scores of one question, per passage (arrays apart, so
/// that reading one reads nothing else).
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub score: Vec<f32>,
    /// Which of the question's words it matches (bit q = word q).
    pub mask: Vec<Mask>,
    /// Whether the question touches a large share of the passages: then
    /// `touched` is not kept, and the arrays are read and zeroed whole.
    pub dense: bool,
    /// Passages with a score (when not dense).
    pub touched: Vec<u32>,
    /// Per passage: the best match of the current question word.
    pub best: Vec<f32>,
    /// Per question word: the terms it stands for, with their weights.
    pub words: Vec<Vec<(usize, f32)>>,
    /// Passages the current question word matched.
    pub term_touched: Vec<u32>,
    /// Per page touched: its best passage's score and the words matched.
    pub page_best: Vec<PageBest>,
    /// Per page touched: the lowest score it can have.
    pub lows: Vec<f32>,
    /// The pages the question touched, each with its best passages, and
    /// their scores with their place in `pages` (emptied per question).
    pub pages: Vec<(u32, PageAcc)>,
    pub ranked: Vec<(f32, u32)>,
    /// The lowest of the best page scores so far, on top (emptied per
    /// question).
    pub kept: BinaryHeap<Reverse<Score>>,
}

/// A score that orders (scores are never NaN: `total_cmp` is their order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Score(pub f32);

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Score) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Score) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl Scratch {
    /// Sizes the per-passage arrays for `passages` (all zero).
    pub fn fit(&mut self, passages: usize, dense: bool) {
        self.score.resize(passages, 0.0);
        self.mask.resize(passages, 0);
        self.best.resize(passages, 0.0);
        self.dense = dense;
    }

    /// Adds a match of question word `bit` to passage `p`.
    #[inline]
    pub fn add(&mut self, p: u32, score: f32, bit: Mask) {
        let i = p as usize;
        if !self.dense && self.mask[i] == 0 {
            self.touched.push(p);
        }
        self.score[i] += score;
        self.mask[i] |= bit;
    }

    /// The passages with a score, in order.
    pub fn touched_sorted(&mut self) -> Vec<u32> {
        if self.dense {
            let mask = &self.mask;
            (0..mask.len() as u32)
                .filter(|&p| mask[p as usize] != 0)
                .collect()
        } else {
            self.touched.sort_unstable();
            self.touched.clone()
        }
    }

    /// Zeroes what a question touched.
    pub fn clear(&mut self) {
        if self.dense {
            self.score.fill(0.0);
            self.mask.fill(0);
        }
        for p in self.touched.drain(..) {
            let i = p as usize;
            self.score[i] = 0.0;
            self.mask[i] = 0;
        }
        for &p in &self.term_touched {
            self.best[p as usize] = 0.0;
        }
        self.term_touched.clear();
        self.page_best.clear();
        self.pages.clear();
        self.ranked.clear();
        self.kept.clear();
        self.dense = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_keeps_its_best_passages_in_order() {
        let key = |passage: u32, score: f32| Key { score, passage };
        let mut page = PageAcc::default();
        for (p, score) in [(5, 5.0), (9, 9.0), (1, 1.0), (7, 7.0), (3, 3.0)] {
            page.insert(key(p, score));
        }
        let kept: Vec<u32> = page.best().iter().map(|k| k.passage).collect();
        assert_eq!(kept, [9, 7, 5]);
        page.insert(key(2, 2.0));
        // A tie goes to the passage that comes first on the page.
        page.insert(key(4, 7.0));
        let kept: Vec<u32> = page.best().iter().map(|k| k.passage).collect();
        assert_eq!(kept, [9, 4, 7]);
    }
}
