//! Passages as quoting reads them: cut into sentences, each sentence's
//! words as term numbers, and the kinds of fact each holds. None of it
//! depends on the question, so a passage is read once and kept for the
//! next questions (up to [`BUDGET`] bytes for the whole index; past it a
//! passage is read again each time). Reading a passage (cutting it into
//! sentences, lower-casing, stemming and looking up its words) cost more
//! than ranking and scoring the sentences together.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::cue::Cue;
use super::{Index, text};

/// A word of a text, as its term's number; [`NONE`] for a word the index
/// does not know. Stop words and single letters are left out, as ranking
/// leaves them out.
pub(super) type Word = u32;
pub(super) const NONE: Word = u32::MAX;
/// A stop word or a single letter, which does not count.
const SKIP: Word = u32::MAX - 1;

/// A sentence longer than this many bytes (a flattened table or list) is
/// cut into pieces of about [`PIECE`] bytes at word boundaries.
const LONG: usize = 320;
const PIECE: usize = 240;

/// The bytes of passages kept read, for the whole index: at the sample
/// content every passage fits; at 10,000 pages the passages questions
/// reach most often do.
const BUDGET: usize = 32 << 20;

/// A passage read for quoting.
#[derive(Debug, Clone)]
pub(super) struct Read {
    pub text: String,
    /// Its sentences' byte ranges, long ones cut into pieces.
    pub pieces: Vec<(usize, usize)>,
    /// Per piece: where its words start in `words`, and one more entry for
    /// the end.
    starts: Vec<u32>,
    words: Vec<Word>,
    /// Per piece: the kinds of fact it holds, a bit per [`Cue`].
    cues: Vec<u8>,
    /// The words of the passage's heading, then of its page's title.
    pub heading: Vec<Word>,
    /// The words of the whole text, when its heading is one of steps (a
    /// procedure is quoted whole): the pieces' words back to back differ
    /// where a long run without a space was cut.
    pub steps: Option<Vec<Word>>,
}

impl Read {
    /// The words of piece `i`.
    pub fn words(&self, i: usize) -> &[Word] {
        &self.words[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// The words of the pieces in `range`, back to back.
    pub fn words_of(&self, range: std::ops::Range<usize>) -> &[Word] {
        &self.words[self.starts[range.start] as usize..self.starts[range.end] as usize]
    }

    /// Whether piece `i` holds the kind of fact `cue` asks for.
    pub fn meets(&self, i: usize, cue: Cue) -> bool {
        self.cues[i] & cue.bit() != 0
    }

    fn size(&self) -> usize {
        self.text.len()
            + self.pieces.len() * 17
            + 4 * (self.starts.len() + self.words.len() + self.heading.len())
            + self.steps.as_ref().map_or(0, |s| 4 * s.len())
            + std::mem::size_of::<Read>()
    }
}

/// The kept passages of an index.
#[derive(Debug, Default)]
pub(super) struct Reads {
    slots: Vec<OnceLock<Box<Read>>>,
    kept: AtomicUsize,
}

impl Reads {
    pub fn new(passages: usize) -> Reads {
        Reads {
            slots: (0..passages).map(|_| OnceLock::new()).collect(),
            kept: AtomicUsize::new(0),
        }
    }
}

impl Index {
    /// Passage `id` read for quoting, kept from an earlier question when
    /// it could be.
    pub(super) fn read(&self, id: u32) -> Cow<'_, Read> {
        let Some(slot) = self.reads.slots.get(id as usize) else {
            return Cow::Owned(self.read_now(id));
        };
        if let Some(read) = slot.get() {
            return Cow::Borrowed(read);
        }
        let read = self.read_now(id);
        let size = read.size();
        if self.reads.kept.fetch_add(size, Ordering::Relaxed) + size > BUDGET {
            self.reads.kept.fetch_sub(size, Ordering::Relaxed);
            return Cow::Owned(read);
        }
        if slot.set(Box::new(read)).is_err() {
            // Another question read it at the same time.
            self.reads.kept.fetch_sub(size, Ordering::Relaxed);
        }
        Cow::Borrowed(slot.get().expect("set above"))
    }

    fn read_now(&self, id: u32) -> Read {
        let p = self.passages.get(id as usize);
        let text = p.text().into_owned();
        // Code and JSON are never quoted to anyone: a piece that reads as
        // code is not a sentence of the passage.
        let pieces: Vec<_> = pieces(&text)
            .into_iter()
            .filter(|&(a, b)| !looks_like_code(&text[a..b]))
            .collect();
        let mut starts = Vec::with_capacity(pieces.len() + 1);
        let mut words = Vec::new();
        let mut cues = Vec::with_capacity(pieces.len());
        for &(a, b) in &pieces {
            starts.push(words.len() as u32);
            self.words_into(&text[a..b], &mut words);
            let sentence = &text[a..b];
            cues.push(
                Cue::ALL
                    .iter()
                    .filter(|c| c.met(sentence, p.heading))
                    .fold(0, |bits, c| bits | c.bit()),
            );
        }
        starts.push(words.len() as u32);
        let mut heading = Vec::new();
        self.words_into(p.heading, &mut heading);
        self.words_into(p.title, &mut heading);
        let steps = Cue::Procedure.met("", p.heading).then(|| {
            let mut all = Vec::new();
            self.words_into(&text, &mut all);
            all
        });
        Read {
            text,
            pieces,
            starts,
            words,
            cues,
            heading,
            steps,
        }
    }

    /// Appends the words of `text` that count, in order, as term numbers:
    /// a word is stemmed once per thread and index, then looked up.
    pub(super) fn words_into(&self, text: &str, out: &mut Vec<Word>) {
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
            for w in word_spans(text) {
                lower.clear();
                if w.is_ascii() {
                    lower.push_str(w);
                    lower.make_ascii_lowercase();
                } else {
                    lower.extend(w.chars().flat_map(char::to_lowercase));
                }
                let id = match seen.1.get(lower.as_str()) {
                    Some(&id) => id,
                    None => {
                        let id = if lower.chars().count() < 2 || self.lang.is_stop(&lower) {
                            SKIP
                        } else {
                            let stem = self.lang.stem(&lower);
                            self.vocab
                                .binary_search(&stem)
                                .map_or(NONE, |id| id as Word)
                        };
                        seen.1.insert(lower.clone(), id);
                        id
                    }
                };
                if id != SKIP {
                    out.push(id);
                }
            }
        })
    }
}

/// A thread remembers the terms of this many words at most.
const SEEN_MAX: usize = 50_000;

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

/// Whether a sentence reads as code or data rather than prose: JSON
/// (`{"…":`), a shell or HTTP command line, or mostly brackets, braces,
/// quotes and operators.
pub(super) fn looks_like_code(s: &str) -> bool {
    let t = s.trim_start();
    if t.contains("{\"") || t.contains("\":") || t.starts_with('{') || t.starts_with('[') {
        return true;
    }
    if ["$ ", "curl ", "GET /", "POST /", "npx ", "pip ", "uvx "]
        .iter()
        .any(|p| t.starts_with(p))
    {
        return true;
    }
    let chars = t.chars().count().max(1);
    let marks = t.chars().filter(|c| "{}[]<>=;\"|\\".contains(*c)).count();
    marks * 12 > chars
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
    use crate::search::tests::passage;
    use contract::search::PassageIndex;

    fn index() -> Index {
        let long = "The kit holds strips, a cup and a chart; ".repeat(12);
        Index::new(PassageIndex {
            version: 1,
            synonyms: vec![],
            passages: vec![
                passage(
                    "/a/",
                    "Steps",
                    "Fill the cup with water. Dip the nitrate strip for 2 seconds. Wait 60 seconds and read the colour.",
                ),
                passage(
                    "/a/",
                    "Purpose",
                    "Nitrate comes from fertiliser. It was measured from 2019 to June 2024.",
                ),
                passage(
                    "/b/",
                    "The kit",
                    &format!("{long}The nitrate strips expire."),
                ),
            ],
        })
    }

    #[test]
    fn kept_and_fresh_reads_quote_the_same() {
        let kept = index();
        let mut fresh = index();
        // No slots: every passage is read again each time, as past the
        // budget.
        fresh.reads = Reads::new(0);
        let questions = [
            "How do I measure nitrate?",
            "when was nitrate measured",
            "what is in the kit",
            "how long do I dip the strip",
        ];
        for round in 0..2 {
            for q in questions {
                let quotes = |index: &Index| -> Vec<(String, f32)> {
                    let asked = index.question(q);
                    index
                        .rank_pages(q, 5)
                        .iter()
                        .filter_map(|p| index.quote(&asked, p))
                        .map(|quote| (quote.text, quote.score))
                        .collect()
                };
                let (a, b) = (quotes(&kept), quotes(&fresh));
                assert!(!a.is_empty(), "{q}");
                assert_eq!(a, b, "{q}, round {round}");
            }
        }
        assert!(kept.reads.slots.iter().all(|s| s.get().is_some()));
        assert!(kept.reads.kept.load(Ordering::Relaxed) > 0);
    }

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
    fn code_and_json_are_no_sentences() {
        for code in [
            r#"{"jsonrpc": "2.0", "id": 1}"#,
            "curl -s https://example.org/api/x.php",
            "GET /api/observations.php?limit=10",
            r#"[{"a": 1}]"#,
            "x = {a: [1, 2], b: <c>};",
        ] {
            assert!(looks_like_code(code), "{code}");
        }
        for prose in [
            "Dip the strip for 2 seconds (not longer) and read it.",
            "valid — Meaning: The reading passed every check; Advice for use: Suitable for analysis.",
            "The limit is 1 to 1000, default 100.",
        ] {
            assert!(!looks_like_code(prose), "{prose}");
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
