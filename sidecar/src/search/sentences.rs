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
//! The chat quotes the best sentence as a reader meets it: with the line
//! that leads into it when it goes on from one ("… when:" before a list
//! item), with the run-in label before it ("Filters. parameter, …"), with
//! the description of the record a short field belongs to ("Kind —
//! dataset." under what the dataset holds), and with the next sentence
//! when that says more about the question too or the first is short (the
//! next line, another fact, only in the first case). It re-ranks its
//! first pages by their best sentence: a page whose single sentence
//! answers the whole question beats one that mentions its words in
//! different places.

use std::borrow::Cow;

use super::cue::Cue;
use super::read::{NONE, Read, Word};
use super::{Index, Page, PassageRef};

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
    total: f32,
    cue: Cue,
}

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
        let order = self
            .lang
            .terms(query)
            .filter_map(|t| weights.iter().position(|(s, _)| *s == t))
            .collect();
        Asked {
            idf: weights.iter().map(|(_, w)| *w).collect(),
            total: weights.iter().map(|(_, w)| w).sum(),
            terms,
            order,
            cue: Cue::of(query),
        }
    }

    /// The best sentence of `page` for `q`.
    pub fn quote<'a>(&'a self, q: &Asked, page: &Page<'a>) -> Option<Quote<'a>> {
        if q.total <= 0.0 {
            return None;
        }
        let best_score = page.hits.first().map_or(0.0, |h| h.score);
        let mut best: Option<(Best, Cow<'a, Read>)> = None;
        // The passages ranking kept for the page (its best
        // `PAGE_PASSAGES`), and for "how do I …" its steps: reading every
        // passage of the page cost more than ranking.
        let candidates = self.page_passages(page.number as usize).filter(|&id| {
            page.hits.iter().any(|h| h.id == id)
                || (q.cue == Cue::Procedure
                    && q.cue.met("", self.passages.get(id as usize).heading))
        });
        for id in candidates {
            let passage_rank = page.hits.iter().find(|h| h.id == id).map_or(0.0, |h| {
                if best_score > 0.0 {
                    h.score / best_score
                } else {
                    0.0
                }
            });
            let read = self.read(id);
            let mut found: Option<Best> = None;
            let beats = |score: f32, found: &Option<Best>, best: &Option<(Best, _)>| {
                found.as_ref().is_none_or(|f| score > f.0)
                    && best.as_ref().is_none_or(|(b, _)| score > b.0)
            };
            // "How do I …": the steps from their start, when the page has
            // a section of steps and the question is about the page.
            if q.cue == Cue::Procedure
                && let Some(words) = &read.steps
            {
                let (coverage, _) = q.matches(words, &read.heading);
                // Up to a piece left out as code: a quote is one run of
                // the text.
                let end = read
                    .pieces
                    .iter()
                    .zip(read.pieces.iter().skip(1).map(Some).chain([None]))
                    .take_while(|&(&(_, b), _)| b <= QUOTE_MAX)
                    .position(|(&(_, b), next)| {
                        next.is_some_and(|&(na, _)| !read.text[b..na].trim().is_empty())
                    })
                    .map_or_else(
                        || {
                            read.pieces
                                .iter()
                                .take_while(|&&(_, b)| b <= QUOTE_MAX)
                                .count()
                        },
                        |i| i + 1,
                    )
                    .max(1);
                let score = coverage + 2.0 * CUE_BONUS + PASSAGE_SHARE * passage_rank;
                if coverage > 0.0 && beats(score, &found, &best) {
                    found = Some((score, coverage, id, 0, Some(end)));
                }
            }
            for i in 0..read.pieces.len() {
                let (coverage, phrases) = q.matches(read.words(i), &read.heading);
                if coverage <= 0.0 {
                    continue;
                }
                let cue = if q.cue != Cue::None && read.meets(i, q.cue) {
                    CUE_BONUS
                } else {
                    0.0
                };
                let score =
                    coverage + cue + PHRASE_BONUS * phrases as f32 + PASSAGE_SHARE * passage_rank;
                if beats(score, &found, &best) {
                    found = Some((score, coverage, id, i, None));
                }
            }
            if let Some(found) = found {
                best = Some((found, read));
            }
        }
        let ((score, coverage, id, i, end), read) = best?;
        let pieces = &read.pieces;
        let (mut a, mut b) = pieces[i];
        // A piece that opens in lower case goes on from the one before,
        // and is quoted with it so that the quote reads as a whole
        // sentence: a list item after its lead-in line ("The app refused a
        // reading when:" / "the tube was past its date;"), or the rest of a
        // line after its run-in label ("Filters. parameter, site, …").
        if i > 0
            && read.text[a..b].starts_with(char::is_lowercase)
            && read.text[pieces[i - 1].1..a].trim().is_empty()
            && if read.text[pieces[i - 1].1..a].contains('\n') {
                read.text[..pieces[i - 1].1].ends_with(':')
            } else {
                pieces[i - 1].1 - pieces[i - 1].0 < SHORT
            }
        {
            a = pieces[i - 1].0;
        } else if end.is_none()
            // A field that is the kind of fact asked for ("when …?" and
            // "Started — 2021-09-01.") answers alone under its heading.
            && !(q.cue != Cue::None && read.meets(i, q.cue))
            && is_a_records_field(&read.text, a, b)
        {
            // From the passage's start: the record's description.
            a = 0;
        }
        if let Some(end) = end {
            b = pieces[end - 1].1;
        } else if let Some(&(na, nb)) = pieces.get(i + 1)
            // The next sentence too, when it follows (no code left out
            // between), is about the question as well and the two stay
            // short.
            && read.text[b..na].trim().is_empty()
            && nb - a <= QUOTE_MAX
            && if read.text[b..na].contains('\n') {
                // The next line (a list item, a table row) is another fact:
                // it comes when the line before leads into it, or when it
                // holds a question word the first leaves out (every row of
                // a table shares its column labels): the two cover more
                // than the first's `coverage`, scored above.
                read.text[..b].ends_with(':')
                    || q.matches(read.words_of(i..i + 2), &read.heading).0 > coverage + 1e-6
            } else {
                // A sentence of the same paragraph comes when it is about
                // the question too, or the first is short.
                q.matches(read.words(i + 1), &[]).0 > 0.0 || b - a < SHORT
            }
        {
            b = nb;
        }
        Some(Quote {
            passage: self.passages.get(id as usize),
            text: read.text[a..b].trim().to_owned(),
            score,
            coverage,
        })
    }
}

/// Question word `q`'s bit in a mask (none past [`super::MAX_WORDS`],
/// which no term stands for).
fn bit(q: usize) -> u64 {
    1u64.checked_shl(q as u32).unwrap_or(0)
}

/// The best quote so far: its score and coverage, its passage, its first
/// piece, and where it ends when it runs over several (the steps of a
/// procedure).
type Best = (f32, f32, u32, usize, Option<usize>);

/// Whether the piece at `a..b` of a passage's `text` is a short field of
/// the record the passage describes: a passage that describes one thing
/// in prose and then lists its fields ("Kind — dataset.", "Published —
/// 2024-10-01.") quotes a field with the description above it, which says
/// what the field is of (the field alone reads as a fragment). Table rows
/// carry their column labels ("Status: Active; Access: Open") and are
/// whole already; a long field ("Funding — Funded by …") says what it is.
fn is_a_records_field(text: &str, a: usize, b: usize) -> bool {
    // The first line is the description; the field is on a later one.
    let (Some(description_end), Some(before)) = (text.find('\n'), text[..a].rfind('\n')) else {
        return false;
    };
    let line_start = before + 1;
    let line_end = text[b..].find('\n').map_or(text.len(), |n| b + n);
    let field = |line: &str| {
        line.split_once(" — ").is_some_and(|(label, value)| {
            !label.is_empty()
                && label.len() <= FIELD_LABEL
                && value.len() <= FIELD_VALUE
                && !value.contains(": ")
        })
    };
    let description = text[..description_end].trim();
    text[a..b].trim() == text[line_start..line_end].trim()
        && line_end <= QUOTE_MAX
        && !description.is_empty()
        && !description.contains(" — ")
        && text[description_end + 1..line_end].lines().all(field)
}

/// A record's field line has a label of at most this many bytes …
const FIELD_LABEL: usize = 40;
/// … and a value of at most this many.
const FIELD_VALUE: usize = 40;

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
        for &w in heading {
            if w != NONE {
                for &(_, q, weight) in self.of(w) {
                    best[q] = best[q].max(weight * HEADING_SHARE);
                }
            }
        }
        // The words read once each: which question words each stands
        // for (a bit per word), against the word before it for phrases.
        let pairs = &self.order[..self.order.len().min(65)];
        let mut found = 0u64;
        let mut before = 0u64;
        for &w in words {
            let mut now = 0u64;
            if w != NONE {
                for &(_, q, weight) in self.of(w) {
                    best[q] = best[q].max(weight);
                    now |= 1 << q;
                }
            }
            if before != 0 && now != 0 {
                for (j, pair) in pairs.windows(2).enumerate() {
                    if before & bit(pair[0]) != 0 && now & bit(pair[1]) != 0 {
                        found |= 1 << j;
                    }
                }
            }
            before = now;
        }
        let covered: f32 = best.iter().zip(&self.idf).map(|(b, idf)| b * idf).sum();
        // A word repeated in the question ("water … water") is no phrase.
        let phrases = pairs
            .windows(2)
            .enumerate()
            .filter(|(j, pair)| pair[0] != pair[1] && found & (1 << j) != 0)
            .count();
        ((covered / self.total).min(1.0), phrases)
    }
}

#[cfg(test)]
mod tests {
    use crate::search::Index;
    use crate::search::tests::passage;
    use contract::search::PassageIndex;

    /// The first quote of the best page for a question, over `passages`
    /// given as (url, heading, text).
    fn quoter(passages: &[(&str, &str, &str)]) -> impl Fn(&str) -> String {
        let index = Index::new(PassageIndex {
            version: 1,
            synonyms: Vec::new(),
            passages: passages
                .iter()
                .map(|&(url, heading, text)| passage(url, heading, text))
                .collect(),
        });
        move |q: &str| {
            let page = &index.rank_pages(q, 1)[0];
            index.quote(&index.question(q), page).expect("a quote").text
        }
    }

    #[test]
    fn a_list_item_is_quoted_with_its_lead_in() {
        let quote = quoter(&[(
            "/a/",
            "Checks",
            "Volunteers sampled monthly.\nThe app refused a reading when:\n\
             the reagent tube was past its expiry date;\nthe photograph was late.",
        )]);
        let text = quote("reagent tube expiry date");
        assert!(
            text.starts_with("The app refused a reading when:\nthe reagent tube"),
            "{text}"
        );
    }

    #[test]
    fn a_records_short_field_is_quoted_with_its_description() {
        let quote = quoter(&[
            (
                "/evidence/",
                "River readings, final release",
                "About 214,000 readings from 4,912 sites.\nKind — dataset.\n\
                 Published — 2024-10-01.\nFunding — A grant from the regional \
                 water authority for the monitoring programme of 2018-2024.",
            ),
            (
                "/services/",
                "Services",
                "Archive — Status: Preserved; Access: Open.\nWorkshops — Status: \
                 Operational; Access: On request.",
            ),
        ]);
        assert_eq!(
            quote("is there a dataset"),
            "About 214,000 readings from 4,912 sites.\nKind — dataset."
        );
        assert_eq!(
            quote("which kind of record is it"),
            "About 214,000 readings from 4,912 sites.\nKind — dataset."
        );
        // A field that is the kind of fact asked for answers alone.
        assert_eq!(quote("when was it published"), "Published — 2024-10-01.");
        // A long field says what it is; a table row carries its labels.
        assert_eq!(
            quote("who gave the grant"),
            "Funding — A grant from the regional water authority for the \
             monitoring programme of 2018-2024."
        );
        assert_eq!(
            quote("workshops on request"),
            "Workshops — Status: Operational; Access: On request."
        );
    }

    #[test]
    fn a_line_is_quoted_with_its_run_in_label() {
        let quote = quoter(&[(
            "/developers/",
            "Observation data",
            "The route returns validated observations.\nFilters. parameter, site \
             and bbox narrow the list; limit sets the page size (1 to 1000).",
        )]);
        assert_eq!(
            quote("page size limit"),
            "Filters. parameter, site and bbox narrow the list; limit sets the page \
             size (1 to 1000)."
        );
    }

    #[test]
    fn the_next_row_comes_only_with_a_question_word_of_its_own() {
        let quote = quoter(&[(
            "/reference/",
            "Parameters",
            "Phosphate — unit: mg/L; method: comparator tube.\n\
             Turbidity — unit: NTU; method: turbidity tube.\n\
             Nitrate — unit: mg/L; method: test strip read by the phosphate app.\n\
             The app refused a reading when:\nthe tube was past its date;",
        )]);
        // The turbidity row shares only the column label "unit".
        assert_eq!(
            quote("phosphate unit"),
            "Phosphate — unit: mg/L; method: comparator tube."
        );
        // A line that leads into the next takes it.
        assert_eq!(
            quote("when was a reading refused"),
            "The app refused a reading when:\nthe tube was past its date;"
        );
    }

    #[test]
    fn a_short_line_comes_alone_and_a_short_sentence_with_the_next() {
        let quote = quoter(&[
            (
                "/a/",
                "Riverlens",
                "Status — Active.\nStarted — 2021-09-01.\nThemes — image classification.",
            ),
            (
                "/b/",
                "Water Watch",
                "Water Watch ended in 2024. The pages are kept as they were.",
            ),
        ]);
        assert_eq!(quote("riverlens started"), "Started — 2021-09-01.");
        assert_eq!(
            quote("water watch ended"),
            "Water Watch ended in 2024. The pages are kept as they were."
        );
    }
}
