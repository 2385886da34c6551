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

use super::{Index, PREFIX_MIN, Page, PassageRef, SYNONYM_WEIGHT, text};

/// A sentence longer than this many bytes (a flattened table or list) is
/// cut into pieces of about [`PIECE`] bytes at word boundaries.
const LONG: usize = 320;
const PIECE: usize = 240;
/// What the kind of fact asked for adds when the sentence has it.
const CUE_BONUS: f32 = 0.25;
/// What each pair of question words standing together adds.
const PHRASE_BONUS: f32 = 0.1;
/// How much a word of the heading or the page's title counts for the
/// sentences under it, against the sentence's own words.
const HEADING_SHARE: f32 = 0.5;
/// How much the passage's own rank on the page adds (its score over the
/// page's best).
const PASSAGE_SHARE: f32 = 0.15;

/// The kind of fact a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    None,
    /// "when", "what year", "since when".
    Date,
    /// "how long", "how often".
    Duration,
    /// "what unit", "in what units".
    Unit,
    /// "how many", "how much", "maximum", "how far".
    Number,
    /// "how do I", "how should I", "how to".
    Procedure,
}

impl Cue {
    /// The cue of a question, from its wording.
    pub fn of(question: &str) -> Cue {
        let q = format!(
            " {} ",
            question.to_lowercase().replace(['?', ',', '.'], " ")
        );
        let has = |phrases: &[&str]| phrases.iter().any(|p| q.contains(p));
        if has(&[" unit ", " units "]) {
            Cue::Unit
        } else if has(&[
            " how long ",
            " how often ",
            " how frequently ",
            " how soon ",
            " how quickly ",
        ]) {
            Cue::Duration
        } else if has(&[" when ", " what year ", " which year ", " what date "]) {
            Cue::Date
        } else if has(&[
            " how many ",
            " how much ",
            " maximum ",
            " minimum ",
            " how far ",
            " how close ",
            " how big ",
            " how deep ",
            " what size ",
            " limit ",
        ]) {
            Cue::Number
        } else if has(&[
            " how do i ",
            " how should i ",
            " how to ",
            " how can i ",
            " how did volunteers ",
            " what steps ",
        ]) {
            Cue::Procedure
        } else {
            Cue::None
        }
    }

    /// Whether `sentence` (under `heading`) holds the kind of fact asked.
    fn met(self, sentence: &str, heading: &str) -> bool {
        let lower = sentence.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '/' && c != '°' && c != '%')
            .filter(|w| !w.is_empty())
            .collect();
        let number = |w: &str| w.chars().any(|c| c.is_ascii_digit());
        match self {
            Cue::None => false,
            Cue::Date => words.iter().any(|w| {
                (w.len() == 4
                    && w.chars().all(|c| c.is_ascii_digit())
                    && (w.starts_with("19") || w.starts_with("20")))
                    || MONTHS.contains(w)
            }),
            Cue::Duration => {
                words.windows(2).any(|p| {
                    (number(p[0]) || COUNTS.contains(&p[0]))
                        && DURATIONS.iter().any(|d| p[1].trim_end_matches('s') == *d)
                }) || words.iter().any(|w| FREQUENCIES.contains(w))
            }
            Cue::Unit => {
                words.iter().any(|w| UNITS.contains(w)) || lower.contains("°c") || {
                    words.windows(2).any(|p| number(p[0]) && p[1] == "%")
                }
            }
            Cue::Number => words.iter().any(|w| number(w)),
            Cue::Procedure => {
                let h = heading.to_lowercase();
                ["step", "procedure", "method", "how to", "what to do"]
                    .iter()
                    .any(|k| h.contains(k))
            }
        }
    }
}

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DURATIONS: &[&str] = &[
    "second", "minute", "min", "hour", "day", "week", "month", "year",
];
/// Words that count a duration ("half a day", "two weeks").
const COUNTS: &[&str] = &[
    "a", "an", "one", "two", "three", "four", "five", "six", "seven", "ten", "half", "full", "few",
    "several",
];
const FREQUENCIES: &[&str] = &[
    "daily",
    "weekly",
    "monthly",
    "yearly",
    "annually",
    "hourly",
    "fortnightly",
    "once",
    "twice",
    "every",
];
const UNITS: &[&str] = &[
    "mg/l", "µs/cm", "us/cm", "ntu", "ppm", "mg", "ml", "°c", "celsius", "kelvin",
];

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
/// terms each stands for.
pub struct Asked {
    /// Per word: its rarity, and the stems it matches with their weight.
    words: Vec<(f32, Vec<(String, f32)>)>,
    /// The words' indexes in question order (for phrases).
    order: Vec<usize>,
    total: f32,
    cue: Cue,
    /// The first two bytes of every term the question's words match.
    heads: Vec<Vec<u8>>,
}

impl Index {
    /// `query` read for quoting.
    pub fn question(&self, query: &str) -> Asked {
        let weights = self.weights(query);
        let words: Vec<(f32, Vec<(String, f32)>)> = weights
            .iter()
            .map(|(stem, w)| {
                // The word itself, its synonyms and the words one edit
                // away as ranking found them (longer words it begins are
                // matched by prefix below).
                let mut terms = vec![(stem.clone(), 1.0)];
                for other in self.synonyms.get(stem).into_iter().flatten() {
                    terms.push((other.clone(), SYNONYM_WEIGHT));
                }
                for (id, weight) in self.expand(stem) {
                    let term = &self.vocab[id];
                    if weight < 1.0
                        && !term.starts_with(stem.as_str())
                        && !terms.iter().any(|(t, _)| t == term)
                    {
                        terms.push((term.clone(), weight));
                    }
                }
                (*w, terms)
            })
            .collect();
        let order = text::terms(query)
            .filter_map(|t| weights.iter().position(|(s, _)| *s == t))
            .collect();
        let mut heads: Vec<Vec<u8>> = words
            .iter()
            .flat_map(|(_, terms)| terms.iter())
            .map(|(t, _)| t.as_bytes()[..2.min(t.len())].to_vec())
            .collect();
        heads.sort();
        heads.dedup();
        Asked {
            heads,
            total: weights.iter().map(|(_, w)| w).sum(),
            words,
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
        let mut best: Option<Best> = None;
        for id in self.page_passages(page.number as usize) {
            let p = self.passages.get(id as usize);
            let passage_rank = page
                .hits
                .iter()
                .find(|h| h.passage.anchor == p.anchor)
                .map_or(0.0, |h| {
                    if best_score > 0.0 {
                        h.score / best_score
                    } else {
                        0.0
                    }
                });
            let heading: Vec<String> = [p.heading, p.title]
                .iter()
                .flat_map(|t| q.terms(t))
                .collect();
            let body = p.text();
            let pieces = pieces(&body);
            // "How do I …": the steps from their start, when the page has
            // a section of steps and the question is about the page.
            if q.cue == Cue::Procedure && q.cue.met("", p.heading) {
                let words = q.terms(&body);
                let (coverage, _) = q.matches(&words, &heading);
                let end = pieces
                    .iter()
                    .take_while(|&&(_, b)| b <= QUOTE_MAX)
                    .count()
                    .max(1);
                let score = coverage + 2.0 * CUE_BONUS + PASSAGE_SHARE * passage_rank;
                if coverage > 0.0 && best.as_ref().is_none_or(|b| score > b.0) {
                    best = Some((score, coverage, id, 0, Some(end), body.to_string()));
                }
            }
            for (i, &(a, b)) in pieces.iter().enumerate() {
                let words = q.terms(&body[a..b]);
                let (coverage, phrases) = q.matches(&words, &heading);
                if coverage <= 0.0 {
                    continue;
                }
                let cue = if q.cue.met(&body[a..b], p.heading) {
                    CUE_BONUS
                } else {
                    0.0
                };
                let score =
                    coverage + cue + PHRASE_BONUS * phrases as f32 + PASSAGE_SHARE * passage_rank;
                if best.as_ref().is_none_or(|b| score > b.0) {
                    best = Some((score, coverage, id, i, None, body.to_string()));
                }
            }
        }
        let (score, coverage, id, i, end, body) = best?;
        let pieces = pieces(&body);
        let (a, mut b) = pieces[i];
        if let Some(end) = end {
            b = pieces[end - 1].1;
        } else if let Some(&(_, nb)) = pieces.get(i + 1)
            // The next sentence too, when it is about the question as
            // well and the two stay short.
            && nb - a <= QUOTE_MAX
        {
            let words = q.terms(&body[b..nb]);
            if q.matches(&words, &[]).0 > 0.0 || b - a < SHORT {
                b = nb;
            }
        }
        Some(Quote {
            passage: self.passages.get(id as usize),
            text: body[a..b].trim().to_owned(),
            score,
            coverage,
        })
    }
}

/// The best quote so far: its score and coverage, its passage, its first
/// piece, where it ends when it runs over several (the steps of a
/// procedure), and the passage's text.
type Best = (f32, f32, u32, usize, Option<usize>, String);

/// A quote of two sentences stays under this many bytes.
const QUOTE_MAX: usize = 420;
/// A sentence shorter than this is quoted with the next one.
const SHORT: usize = 60;

impl Asked {
    /// The stems of `text`'s meaningful words, in order, as
    /// [`text::terms`] gives them, except that a word that cannot match
    /// one of the question's terms (it does not begin with the same two
    /// letters as any) is left empty instead of stemmed: stemming every
    /// word of three pages cost more than ranking.
    fn terms(&self, text: &str) -> Vec<String> {
        text::words(text)
            .filter(|w| w.chars().count() >= 2 && !text::is_stop(w))
            .map(|w| {
                let head = &w.as_bytes()[..2.min(w.len())];
                if self.heads.iter().any(|h| h.as_slice() == head) {
                    text::stem(&w)
                } else {
                    String::new()
                }
            })
            .collect()
    }

    /// The share of the question's weight `words` match (a heading's
    /// words counting [`HEADING_SHARE`]), and how many pairs of the
    /// question's words stand together in them as in the question.
    fn matches(&self, words: &[String], heading: &[String]) -> (f32, usize) {
        let weight_in = |terms: &[(String, f32)], ws: &[String]| -> f32 {
            let mut best = 0.0f32;
            for w in ws {
                for (t, tw) in terms {
                    let m = if w == t {
                        *tw
                    } else if t.len() >= PREFIX_MIN && w.starts_with(t.as_str()) {
                        super::PREFIX_WEIGHT * tw
                    } else {
                        0.0
                    };
                    best = best.max(m);
                }
            }
            best
        };
        let mut covered = 0.0;
        for (idf, terms) in &self.words {
            let own = weight_in(terms, words);
            let head = weight_in(terms, heading) * HEADING_SHARE;
            covered += idf * own.max(head);
        }
        let phrases = self
            .order
            .windows(2)
            .filter(|pair| {
                pair[0] != pair[1]
                    && words.windows(2).any(|ws| {
                        self.words[pair[0]].1.iter().any(|(t, _)| *t == ws[0])
                            && self.words[pair[1]].1.iter().any(|(t, _)| *t == ws[1])
                    })
            })
            .count();
        ((covered / self.total).min(1.0), phrases)
    }
}

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
    fn cues_follow_the_wording() {
        assert_eq!(Cue::of("When did Water Watch end?"), Cue::Date);
        assert_eq!(Cue::of("how often should I calibrate"), Cue::Duration);
        assert_eq!(Cue::of("what units is phosphate given in"), Cue::Unit);
        assert_eq!(Cue::of("how many sites are there"), Cue::Number);
        assert_eq!(Cue::of("How do I measure nitrate?"), Cue::Procedure);
        assert_eq!(Cue::of("what is turbidity"), Cue::None);
        assert!(Cue::Date.met("It ended in June 2024.", ""));
        assert!(!Cue::Date.met("It ended.", ""));
        assert!(Cue::Duration.met("Wait 60 seconds before reading.", ""));
        assert!(Cue::Unit.met("Phosphate was published in mg/L as PO4.", ""));
        assert!(Cue::Procedure.met("Fill the cup.", "Steps"));
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
