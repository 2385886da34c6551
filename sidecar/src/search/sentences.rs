//! Answers at sentence level: within a ranked page, the sentence that best
//! answers a question, found by what it says rather than by where it
//! stands. A sentence scores the share of the question's weight its words
//! carry (each question word as itself, through its synonyms or as the
//! start of a longer word, as in ranking), helped by its heading, by
//! question words that stand next to each other in it as in the question
//! (phrase evidence), and by the kind of fact the question asks for: a
//! "when" question prefers a sentence with a date, "how long" or "how
//! often" one with a duration, "what unit" one with a unit, "how many" one
//! with a number, "how do I" a step of a procedure.
//!
//! The chat quotes the best sentence (with the next one when that says
//! more about the question too) and re-ranks its first pages by their best
//! sentence: a page whose single sentence answers the whole question beats
//! one that mentions its words in different places.

use std::collections::HashMap;

use super::cue::Cue;
use super::{Index, Page, PassageRef, text};

/// A sentence longer than this many bytes (a flattened table or list) is
/// cut into pieces of about [`PIECE`] bytes at word boundaries.
const LONG: usize = 320;
const PIECE: usize = 240;
/// What the kind of fact asked for adds when the sentence has it.
const CUE_BONUS: f32 = 0.25;
/// What each pair of question words standing together adds.
const PHRASE_BONUS: f32 = 0.15;
/// How much a word of the heading or the page's title counts for the
/// sentences under it, against the sentence's own words.
const HEADING_SHARE: f32 = 0.5;
/// How much the passage's own rank on the page adds (its score over the
/// page's best).
const PASSAGE_SHARE: f32 = 0.15;

/// The best sentence of a page for a question.
#[derive(Debug, Clone)]
pub struct Quote<'a> {
    pub passage: PassageRef<'a>,
    /// An exact excerpt of the passage's text.
    pub text: String,
    /// Its score (the coverage below, with the bonuses).
    pub score: f32,
    /// The share of the question's weight the sentence (with its heading)
    /// matches, from 0 to 1.
    pub coverage: f32,
}

/// A question read once for quoting: its words with their weights and the
/// terms each stands for, by term number.
pub struct Asked {
    /// Per word: its rarity.
    idf: Vec<f32>,
    /// (term, word, weight): each term a question word stands for
    /// (itself, a synonym, a longer word it begins, a word one edit away)
    /// as ranking expands it, sorted by term.
    terms: Vec<(u32, usize, f32)>,
    /// The words' indexes in question order (for phrases).
    order: Vec<usize>,
    /// The first two letters of every term in `terms`, sorted: a word
    /// whose stem is one of them starts with the same two letters (the
    /// English stemmer only changes a word's end), so a word that starts
    /// otherwise need not be stemmed and looked up.
    heads: Vec<[char; 2]>,
    total: f32,
    cue: Cue,
}

/// A word of a text, as its term's number; [`NONE`] for a stop word or
/// a word the index does not know.
type Word = u32;
const NONE: Word = u32::MAX;
/// A stop word or a single letter, which does not count.
const SKIP: Word = u32::MAX - 1;

impl Index {
    /// `query` read for quoting.
    pub fn question(&self, query: &str) -> Asked {
        let weights = self.weights(query);
        let mut terms: Vec<(u32, usize, f32)> = weights
            .iter()
            .take(super::MAX_WORDS)
            .enumerate()
            .flat_map(|(q, (stem, _))| {
                self.expand(stem)
                    .into_iter()
                    .map(move |(id, w)| (id as u32, q, w))
            })
            .collect();
        terms.sort_by_key(|t| (t.0, t.1));
        let mut heads: Vec<[char; 2]> = terms
            .iter()
            .filter_map(|t| head(&self.vocab[t.0 as usize]))
            .collect();
        heads.sort_unstable();
        heads.dedup();
        let order = text::terms(query)
            .filter_map(|t| weights.iter().position(|(s, _)| *s == t))
            .collect();
        Asked {
            idf: weights.iter().map(|(_, w)| *w).collect(),
            total: weights.iter().map(|(_, w)| w).sum(),
            terms,
            order,
            heads,
            cue: Cue::of(query),
        }
    }

    /// The words of `text` that count, in order, as term numbers: a word
    /// is stemmed once per thread and index, then looked up; a word that
    /// cannot be one of `q`'s terms is [`NONE`] without either.
    fn words_of(&self, q: &Asked, text: &str) -> Vec<Word> {
        thread_local! {
            static SEEN: std::cell::RefCell<(u64, HashMap<String, Word, text::FnvBuild>)> =
                std::cell::RefCell::new((0, HashMap::default()));
        }
        SEEN.with(|seen| {
            let mut seen = seen.borrow_mut();
            if seen.0 != self.serial || seen.1.len() > SEEN_MAX {
                seen.0 = self.serial;
                seen.1.clear();
            }
            let mut lower = String::new();
            let mut out = Vec::new();
            for w in word_spans(text) {
                lower.clear();
                if w.is_ascii() {
                    lower.push_str(w);
                    lower.make_ascii_lowercase();
                } else {
                    lower.extend(w.chars().flat_map(char::to_lowercase));
                }
                let Some(first) = head(&lower) else {
                    continue;
                };
                if q.heads.binary_search(&first).is_err() {
                    if !text::is_stop(&lower) {
                        out.push(NONE);
                    }
                    continue;
                }
                let id = match seen.1.get(lower.as_str()) {
                    Some(&id) => id,
                    None => {
                        let id = if lower.chars().count() < 2 || text::is_stop(&lower) {
                            SKIP
                        } else {
                            let stem = text::stem(&lower);
                            self.vocab
                                .binary_search(&stem)
                                .map_or(NONE, |id| id as Word)
                        };
                        seen.1.insert(lower.clone(), id);
                        id
                    }
                };
                // Stop words and single letters are left out, as ranking
                // leaves them out.
                if id != SKIP {
                    out.push(id);
                }
            }
            out
        })
    }

    /// The best sentence of `page` for `q`.
    pub fn quote<'a>(&'a self, q: &Asked, page: &Page<'a>) -> Option<Quote<'a>> {
        if q.total <= 0.0 {
            return None;
        }
        let best_score = page.hits.first().map_or(0.0, |h| h.score);
        let mut best: Option<Best> = None;
        // The passages ranking kept for the page (its best
        // `PAGE_PASSAGES`), and for "how do I …" its steps: reading every
        // passage of the page cost more than ranking.
        let candidates = self.page_passages(page.number as usize).filter(|&id| {
            page.hits.iter().any(|h| h.id == id)
                || (q.cue == Cue::Procedure
                    && q.cue.met("", self.passages.get(id as usize).heading))
        });
        for id in candidates {
            let p = self.passages.get(id as usize);
            let passage_rank = page.hits.iter().find(|h| h.id == id).map_or(0.0, |h| {
                if best_score > 0.0 {
                    h.score / best_score
                } else {
                    0.0
                }
            });
            let heading: Vec<Word> = [p.heading, p.title]
                .iter()
                .flat_map(|t| self.words_of(q, t))
                .collect();
            let body = p.text();
            let pieces = pieces(&body);
            // "How do I …": the steps from their start, when the page has
            // a section of steps and the question is about the page.
            if q.cue == Cue::Procedure && q.cue.met("", p.heading) {
                let words = self.words_of(q, &body);
                let (coverage, _) = q.matches(&words, &heading);
                let end = pieces
                    .iter()
                    .take_while(|&&(_, b)| b <= QUOTE_MAX)
                    .count()
                    .max(1);
                let score = coverage + 2.0 * CUE_BONUS + PASSAGE_SHARE * passage_rank;
                if coverage > 0.0 && best.as_ref().is_none_or(|b| score > b.0) {
                    best = Some((score, coverage, id, 0, Some(end)));
                }
            }
            for (i, &(a, b)) in pieces.iter().enumerate() {
                let (coverage, phrases) = q.matches(&self.words_of(q, &body[a..b]), &heading);
                if coverage <= 0.0 {
                    continue;
                }
                let cue = if q.cue != Cue::None && q.cue.met(&body[a..b], p.heading) {
                    CUE_BONUS
                } else {
                    0.0
                };
                let score =
                    coverage + cue + PHRASE_BONUS * phrases as f32 + PASSAGE_SHARE * passage_rank;
                if best.as_ref().is_none_or(|b| score > b.0) {
                    best = Some((score, coverage, id, i, None));
                }
            }
        }
        let (score, coverage, id, i, end) = best?;
        let passage = self.passages.get(id as usize);
        let body = passage.text();
        let pieces = pieces(&body);
        let (a, mut b) = pieces[i];
        if let Some(end) = end {
            b = pieces[end - 1].1;
        } else if let Some(&(_, nb)) = pieces.get(i + 1)
            // The next sentence too, when it is about the question as
            // well and the two stay short.
            && nb - a <= QUOTE_MAX
        {
            let words = self.words_of(q, &body[b..nb]);
            if q.matches(&words, &[]).0 > 0.0 || b - a < SHORT {
                b = nb;
            }
        }
        Some(Quote {
            passage,
            text: body[a..b].trim().to_owned(),
            score,
            coverage,
        })
    }
}

/// The best quote so far: its score and coverage, its passage, its first
/// piece, and where it ends when it runs over several (the steps of a
/// procedure).
type Best = (f32, f32, u32, usize, Option<usize>);

/// A quote of two sentences stays under this many bytes.
const QUOTE_MAX: usize = 420;
/// A sentence shorter than this is quoted with the next one.
const SHORT: usize = 60;

impl Asked {
    /// The (word, weight) pairs term `id` stands for.
    fn of(&self, id: Word) -> &[(u32, usize, f32)] {
        let start = self.terms.partition_point(|t| t.0 < id);
        let end = start + self.terms[start..].iter().take_while(|t| t.0 == id).count();
        &self.terms[start..end]
    }

    /// The share of the question's weight `words` match (a heading's
    /// words counting [`HEADING_SHARE`]), and how many pairs of the
    /// question's words stand together in them as in the question.
    fn matches(&self, words: &[Word], heading: &[Word]) -> (f32, usize) {
        let mut best = [0.0f32; super::MAX_WORDS];
        for (ws, share) in [(words, 1.0), (heading, HEADING_SHARE)] {
            for &w in ws {
                if w == NONE {
                    continue;
                }
                for &(_, q, weight) in self.of(w) {
                    best[q] = best[q].max(weight * share);
                }
            }
        }
        let covered: f32 = best.iter().zip(&self.idf).map(|(b, idf)| b * idf).sum();
        let stands_for = |w: Word, q: usize| w != NONE && self.of(w).iter().any(|t| t.1 == q);
        let phrases = self
            .order
            .windows(2)
            .filter(|pair| {
                pair[0] != pair[1]
                    && words
                        .windows(2)
                        .any(|ws| stands_for(ws[0], pair[0]) && stands_for(ws[1], pair[1]))
            })
            .count();
        ((covered / self.total).min(1.0), phrases)
    }
}

/// The words of `text`: its runs of letters and digits, as
/// `text.split(|c| !c.is_alphanumeric())` gives them without the empty
/// ones, read byte by byte where the text is ASCII.
fn word_spans(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        // The character at `at` and its length, when it is part of a word.
        let word_char = |at: usize| -> (bool, usize) {
            let b = bytes[at];
            if b < 0x80 {
                (b.is_ascii_alphanumeric(), 1)
            } else {
                let c = text[at..].chars().next().unwrap_or(' ');
                (c.is_alphanumeric(), c.len_utf8())
            }
        };
        while i < bytes.len() {
            let (is_word, len) = word_char(i);
            if is_word {
                break;
            }
            i += len;
        }
        if i >= bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() {
            let (is_word, len) = word_char(i);
            if !is_word {
                break;
            }
            i += len;
        }
        Some(&text[start..i])
    })
}

/// The first two letters of `word`; `None` for a single letter.
fn head(word: &str) -> Option<[char; 2]> {
    let mut chars = word.chars();
    Some([chars.next()?, chars.next()?])
}

/// A thread remembers the terms of this many words at most.
const SEEN_MAX: usize = 50_000;

/// Byte ranges of `text`'s sentences, long ones cut into pieces at word
/// boundaries.
fn pieces(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (a, b) in super::excerpt::split_sentences(text) {
        if b - a <= LONG {
            out.push((a, b));
            continue;
        }
        let mut start = a;
        while start < b {
            let mut end = (start + PIECE).min(b);
            if end < b {
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                end = text[start..end].rfind(' ').map_or(end, |i| start + i);
                if end <= start {
                    end = (start + PIECE).min(b);
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                }
            }
            out.push((start, end));
            start = end;
            while start < b && text.as_bytes()[start] == b' ' {
                start += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_split_as_the_index_splits_them() {
        for t in [
            "Dip the strip; wait 60 s. Ça va? Ölçüm—test mg/L (NH4-N) …end",
            "",
            "  ",
            "é",
        ] {
            let want: Vec<&str> = t
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            assert_eq!(word_spans(t).collect::<Vec<_>>(), want, "{t}");
        }
    }

    #[test]
    fn pieces_are_exact_and_bounded() {
        let long = "word ".repeat(200);
        let text = format!("Short one. {long}End.");
        for (a, b) in pieces(&text) {
            assert!(b - a <= LONG, "{}", b - a);
            assert!(text.is_char_boundary(a) && text.is_char_boundary(b));
        }
    }
}
