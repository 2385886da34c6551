//! Ranking whole pages: a page scores its best passages with decreasing
//! weight, bounded before it is scored in full (see the module
//! documentation of [`super`]).

use super::scratch::{Key, Mask, PageAcc, PageBest, Score, Scratch};
use super::*;
use std::cmp::Reverse;

/// A page scores its best [`PAGE_PASSAGES`] passages, each further one
/// counting [`PAGE_DECAY`] of the one before.
pub const PAGE_PASSAGES: usize = 3;
pub const PAGE_DECAY: f32 = 0.5;
/// How many times its best passage a page can score at most (1 + decay +
/// decay² for three passages), with room for the rounding of the sums.
const PAGE_BOUND: f32 = (1.0 + PAGE_DECAY + PAGE_DECAY * PAGE_DECAY) * 1.001;

impl Index {
    /// The numbers of page `g`'s passages.
    pub(super) fn page_passages(&self, g: usize) -> std::ops::Range<u32> {
        self.page_start[g]..self.page_end(g)
    }

    /// The passages after page `g`'s.
    fn page_end(&self, g: usize) -> u32 {
        self.page_start
            .get(g + 1)
            .copied()
            .unwrap_or(self.passages.len() as u32)
    }

    /// Fills `s.page_best` with every page a passage of which scored: its
    /// best passage's score and the words its passages matched. A question
    /// that touched few passages reads them sorted; one that touched many
    /// reads the accumulators page after page (reading in order costs less
    /// than sorting there).
    fn page_bests(&self, s: &mut Scratch) {
        s.page_best.clear();
        if !s.dense {
            s.touched.sort_unstable();
            for &p in &s.touched {
                let i = p as usize;
                let (g, score, mask) = (self.page[i], s.score[i], s.mask[i]);
                match s.page_best.last_mut() {
                    Some(b) if b.page == g => {
                        b.score = b.score.max(score);
                        b.mask |= mask;
                    }
                    _ => s.page_best.push(PageBest {
                        page: g,
                        score,
                        mask,
                    }),
                }
            }
            return;
        }
        for g in 0..self.page_start.len() {
            let (first, end) = (self.page_start[g] as usize, self.page_end(g) as usize);
            // Scores are never NaN: a plain comparison, which vectorises.
            let score = s.score[first..end]
                .iter()
                .fold(0.0f32, |a, &b| if b > a { b } else { a });
            let mask = s.mask[first..end].iter().fold(0, |a, &b| a | b);
            if mask != 0 {
                s.page_best.push(PageBest {
                    page: g as u32,
                    score,
                    mask,
                });
            }
        }
    }

    /// Page `g`'s best passages and the words its passages match.
    fn page_acc(&self, g: usize, s: &Scratch) -> PageAcc {
        let mut page = PageAcc::default();
        for p in self.page_passages(g) {
            let mask = s.mask[p as usize];
            if mask == 0 {
                continue;
            }
            page.mask |= mask;
            page.insert(Key {
                score: s.score[p as usize],
                passage: p,
            });
        }
        page
    }

    /// The best pages for `query`, each with its matching passages (best
    /// first). A page scores its best passages with decreasing weight, so
    /// a page about the subject outranks one that mentions it once, and
    /// more the more of the question its passages cover together, so a
    /// page that answers all of it outranks one that answers a part well.
    pub fn rank_pages(&self, query: &str, limit: usize) -> Vec<Page<'_>> {
        let weights = self.weights(query);
        let shares = Shares::new(&weights);
        let coverage = |mask: Mask| shares.of(mask);
        self.with_scratch(|s| {
            self.score(&weights, s);
            // Per page touched: its best passage's score and the words its
            // passages match together, which bound its score from both
            // sides: the page scores at least its best passage and at most
            // its best passage as many times as it counts passages
            // (1 + PAGE_DECAY + …), both times its coverage.
            self.page_bests(s);
            let mut lows = std::mem::take(&mut s.lows);
            lows.extend(
                s.page_best
                    .iter()
                    .map(|b| b.score * (0.5 + 0.5 * coverage(b.mask))),
            );
            // Only a page whose highest possible score reaches the
            // `limit`-th lowest bound can be among the first `limit`; only
            // those are scored in full (exactly as all were before).
            let floor = if lows.len() > limit && limit > 0 {
                *lows
                    .select_nth_unstable_by(limit - 1, |a, b| b.total_cmp(a))
                    .1
            } else {
                0.0
            };
            lows.clear();
            s.lows = lows;
            // The floor rises as pages are scored: once `limit` pages have
            // their score, a page whose highest possible score is below
            // the lowest of those cannot take its place. The pages at or
            // above the first floor are scored first, so that it rises
            // early; ties are broken by page number, not by this order.
            let mut kept = std::mem::take(&mut s.kept);
            for first_pass in [true, false] {
                for &b in &s.page_best {
                    let low = b.score * (0.5 + 0.5 * coverage(b.mask));
                    if (low >= floor) != first_pass
                        || low * PAGE_BOUND < floor
                        || kept.len() == limit
                            && kept.peek().is_some_and(|l| low * PAGE_BOUND < l.0.0)
                    {
                        continue;
                    }
                    let page = self.page_acc(b.page as usize, s);
                    let score = page.score() * (0.5 + 0.5 * coverage(page.mask));
                    if limit > 0 {
                        kept.push(Reverse(Score(score)));
                        if kept.len() > limit {
                            kept.pop();
                        }
                    }
                    s.ranked.push((score, s.pages.len() as u32));
                    s.pages.push((b.page, page));
                }
            }
            kept.clear();
            s.kept = kept;
            let mut ranked = std::mem::take(&mut s.ranked);
            let pages = &s.pages;
            top(&mut ranked, limit, |a, b| {
                b.0.total_cmp(&a.0)
                    .then_with(|| pages[a.1 as usize].0.cmp(&pages[b.1 as usize].0))
            });
            let out = ranked
                .iter()
                .map(|&(score, at)| {
                    let (g, page) = &s.pages[at as usize];
                    Page {
                        number: *g,
                        url: self.passages.get(self.page_start[*g as usize] as usize).url,
                        score,
                        coverage: coverage(page.mask),
                        hits: page
                            .best()
                            .iter()
                            .map(|k| self.hit(k.passage, s, &weights, shares.total))
                            .collect(),
                    }
                })
                .collect();
            ranked.clear();
            s.ranked = ranked;
            out
        })
    }
}

/// A ranked page and its matching passages, best first.
#[derive(Debug, Clone)]
pub struct Page<'a> {
    /// The page's number in the index (URL order).
    pub number: u32,
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

#[cfg(test)]
mod page_ranking {
    use super::super::tests::passage;
    use super::*;
    use contract::search::PassageIndex;

    /// Pages of passages drawn from a small vocabulary (a deterministic
    /// generator), so that questions touch most passages (the dense path)
    /// and pages tie, or touch few (the sorted path).
    fn corpus(pages: usize) -> Index {
        let words = [
            "nitrate",
            "stream",
            "measure",
            "measured",
            "measurement",
            "volunteer",
            "archive",
            "acidity",
            "ph",
            "sample",
            "kit",
            "river",
            "flow",
            "camera",
            "otter",
            "licence",
        ];
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut passages = Vec::new();
        for page in 0..pages {
            for section in 0..(1 + next() % 6) {
                let mut text: Vec<&str> = (0..(3 + next() % 12))
                    .map(|_| words[next() % words.len()])
                    .collect();
                // A rare word, for questions that touch few passages.
                if page % 97 == 0 {
                    text.push("heron");
                }
                let mut p = passage(
                    &format!("/p/{page:03}/"),
                    words[next() % words.len()],
                    &text.join(" "),
                );
                p.anchor = format!("s{section}");
                passages.push(p);
            }
        }
        // The file's order is not the URL order.
        passages.reverse();
        Index::new(PassageIndex {
            version: 1,
            synonyms: vec![vec!["ph".into(), "acidity".into()]],
            passages,
        })
    }

    /// The pages as `rank_pages` defines them, worked out the long way:
    /// every passage ranked, grouped by page, every page scored.
    fn reference(index: &Index, query: &str, limit: usize) -> Vec<(String, f32, Vec<String>)> {
        let shares = Shares::new(&index.weights(query));
        let words: Vec<String> = index.weights(query).into_iter().map(|(w, _)| w).collect();
        let mut by_page: Vec<(String, Vec<Hit<'_>>)> = Vec::new();
        for hit in index.rank(query, usize::MAX) {
            match by_page.iter_mut().find(|(url, _)| *url == hit.passage.url) {
                Some((_, hits)) => hits.push(hit),
                None => by_page.push((hit.passage.url.to_owned(), vec![hit])),
            }
        }
        let mut pages: Vec<(String, f32, Vec<String>)> = by_page
            .into_iter()
            .map(|(url, hits)| {
                let mask = hits
                    .iter()
                    .flat_map(|h| h.matched.iter())
                    .map(|m| 1 << words.iter().position(|w| w == m).unwrap())
                    .fold(0, |a, b| a | b);
                let (mut agg, mut weight) = (0.0f32, 1.0f32);
                for h in hits.iter().take(PAGE_PASSAGES) {
                    agg += weight * h.score;
                    weight *= PAGE_DECAY;
                }
                let anchors = hits
                    .iter()
                    .take(PAGE_PASSAGES)
                    .map(|h| h.passage.anchor.to_owned())
                    .collect();
                (url, agg * (0.5 + 0.5 * shares.of(mask)), anchors)
            })
            .collect();
        pages.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        pages.truncate(limit);
        pages
    }

    #[test]
    fn a_long_question_keeps_its_rarest_words() {
        // Forty words every page uses, and one that sorts after them all
        // and only one page uses: more words than a mask tells apart.
        let common: Vec<String> = (b'a'..=b'z')
            .flat_map(|a| [b'b', b'd'].map(|b| format!("k{}{}x", a as char, b as char)))
            .take(40)
            .collect();
        let passages = (0..30)
            .map(|n| {
                let mut text = common.join(" ");
                if n == 17 {
                    text.push_str(" zymurgy");
                }
                passage(&format!("/p/{n:02}/"), "Words", &text)
            })
            .collect();
        let index = Index::new(PassageIndex {
            version: 1,
            synonyms: vec![],
            passages,
        });
        let question = format!("{} zymurgy", common.join(" "));
        assert!(common.len() > MAX_WORDS);
        assert_eq!(index.weights(&question).len(), MAX_WORDS);
        let best = &index.rank_pages(&question, 3)[0];
        assert_eq!(best.url, "/p/17/");
        assert!(
            best.best().matched.iter().any(|w| w == "zymurgi"),
            "{:?}",
            best.best().matched
        );
    }

    #[test]
    fn pruned_page_ranking_equals_scoring_every_page() {
        let index = corpus(300);
        for query in [
            "nitrate",
            "how is the acidity measured in a stream",
            "otter camera licence",
            "measur",
            "volunteer archive sample kit river flow",
            "zeppelin nitrate",
            "heron",
            "heron kit",
        ] {
            for limit in [1, 5, 12] {
                let got: Vec<(String, f32, Vec<String>)> = index
                    .rank_pages(query, limit)
                    .into_iter()
                    .map(|p| {
                        let anchors = p.hits.iter().map(|h| h.passage.anchor.to_owned()).collect();
                        (p.url.to_string(), p.score, anchors)
                    })
                    .collect();
                assert_eq!(got, reference(&index, query, limit), "{query} / {limit}");
            }
        }
    }
}
