//! The accumulators of one question: dense arrays over the passages and
//! pages, kept by the index between questions (sized once, and set back to
//! zero only where a question touched them), so ranking allocates nothing
//! in proportion to the corpus.

use super::PAGE_PASSAGES;

/// A passage's running score for one question.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Acc {
    pub score: f32,
    pub covered: f32,
    /// Which of the question's words it matches (bit q = word q).
    pub mask: u64,
}

/// A page's best passages so far (best first) and the words its passages
/// match together.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PageAcc {
    best: [u32; PAGE_PASSAGES],
    pub len: u8,
    pub mask: u64,
}

impl PageAcc {
    pub fn best(&self) -> &[u32] {
        &self.best[..usize::from(self.len)]
    }

    /// Keeps `p` if it is among the best, `ahead(a, b)` saying whether `a`
    /// ranks before `b`.
    pub fn insert(&mut self, p: u32, ahead: impl Fn(u32, u32) -> bool) {
        let len = usize::from(self.len);
        let at = self.best[..len]
            .iter()
            .position(|&q| ahead(p, q))
            .unwrap_or(len);
        if at == PAGE_PASSAGES {
            return;
        }
        let end = (len + 1).min(PAGE_PASSAGES);
        self.best.copy_within(at..end - 1, at + 1);
        self.best[at] = p;
        self.len = end as u8;
    }
}

#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Per passage.
    pub acc: Vec<Acc>,
    /// Passages with a score, first touch first.
    pub touched: Vec<u32>,
    /// Per passage: the best match of the current question word and the
    /// share of the question it covers.
    pub best: Vec<(f32, f32)>,
    /// Passages the current question word matched.
    pub term_touched: Vec<u32>,
    /// Per page.
    pub pages: Vec<PageAcc>,
    pub pages_touched: Vec<u32>,
}

impl Scratch {
    /// Sizes the arrays for `passages` and `pages` (all zero).
    pub fn fit(&mut self, passages: usize, pages: usize) {
        self.acc.resize(passages, Acc::default());
        self.best.resize(passages, (0.0, 0.0));
        self.pages.resize(pages, PageAcc::default());
    }

    /// Zeroes what a question touched.
    pub fn clear(&mut self) {
        for p in self.touched.drain(..) {
            self.acc[p as usize] = Acc::default();
        }
        for &p in &self.term_touched {
            self.best[p as usize] = (0.0, 0.0);
        }
        self.term_touched.clear();
        for g in self.pages_touched.drain(..) {
            self.pages[g as usize] = PageAcc::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_keeps_its_best_passages_in_order() {
        let mut page = PageAcc::default();
        for p in [5, 9, 1, 7, 3] {
            page.insert(p, |a, b| a > b);
        }
        assert_eq!(page.best(), [9, 7, 5]);
        page.insert(2, |a, b| a > b);
        assert_eq!(page.best(), [9, 7, 5]);
    }
}
