//! Words as the ranking reads them: lower case, split at every character
//! that is not a letter or digit, stemmed by the Snowball stemmer of their
//! language (English unless a passage says otherwise), and the words that
//! carry no meaning in a question dropped.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

/// Words dropped from questions and passages alike: function words, and
/// the verbs a question wraps around its subject ("what does … mean",
/// "how was … taken"). Words are split at apostrophes, so a contraction's
/// parts are here ("don" of "don't", "ll" of "I'll"), and so are the
/// contractions typed without one ("dont", "cant").
const STOP: &[&str] = &[
    "a",
    "able",
    "about",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "aren",
    "as",
    "at",
    "be",
    "been",
    "but",
    "by",
    "can",
    "can't",
    "cant",
    "come",
    "could",
    "couldn",
    "did",
    "didn",
    "didnt",
    "do",
    "does",
    "doesn",
    "doesnt",
    "don",
    "don't",
    "dont",
    "find",
    "for",
    "from",
    "get",
    "gets",
    "give",
    "given",
    "go",
    "going",
    "got",
    "had",
    "has",
    "hasn",
    "have",
    "haven",
    "he",
    "her",
    "here",
    "his",
    "how",
    "i",
    "i'm",
    "if",
    "im",
    "in",
    "into",
    "is",
    "isn",
    "isnt",
    "it",
    "it's",
    "its",
    "just",
    "know",
    "like",
    "ll",
    "look",
    "made",
    "make",
    "me",
    "mean",
    "means",
    "more",
    "most",
    "much",
    "my",
    "need",
    "needs",
    "no",
    "not",
    "of",
    "offer",
    "offers",
    "on",
    "only",
    "or",
    "our",
    "please",
    "re",
    "run",
    "runs",
    "see",
    "she",
    "should",
    "shouldn",
    "so",
    "some",
    "something",
    "such",
    "take",
    "taken",
    "takes",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "there's",
    "theres",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "to",
    "took",
    "us",
    "use",
    "used",
    "using",
    "ve",
    "very",
    "want",
    "was",
    "wasn",
    "way",
    "ways",
    "we",
    "well",
    "were",
    "weren",
    "what",
    "what's",
    "whats",
    "when",
    "which",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "work",
    "works",
    "would",
    "wouldn",
    "you",
    "you're",
    "your",
    "youre",
];

/// Dutch words dropped from questions and passages alike: articles,
/// pronouns, prepositions, conjunctions, the auxiliaries and the question
/// words a question wraps around its subject ("hoe wordt … gemeten",
/// "wat betekent …").
const STOP_NL: &[&str] = &[
    "aan", "al", "alle", "als", "ben", "bent", "bij", "dan", "dat", "de", "deze", "die", "dit",
    "doen", "doet", "door", "een", "en", "er", "geen", "had", "hadden", "heb", "hebben", "hebt",
    "heeft", "het", "hier", "hij", "hoe", "hun", "ik", "in", "is", "je", "jij", "jullie", "kan",
    "kon", "kun", "kunnen", "kunt", "maar", "mag", "me", "meer", "met", "mij", "mijn", "moet",
    "moeten", "na", "naar", "niet", "nog", "nu", "of", "om", "ons", "onze", "ook", "op", "over",
    "te", "tot", "u", "uit", "uw", "van", "veel", "voor", "waar", "waarom", "wanneer", "want",
    "waren", "was", "wat", "we", "welk", "welke", "werd", "werden", "wie", "wij", "word", "worden",
    "wordt", "zal", "ze", "zich", "zij", "zijn", "zo", "zou", "zouden",
];

/// The language whose stemmer and stop words read a passage or a
/// question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    English,
    Dutch,
    /// A language without a stemmer here: words as written, none dropped.
    Plain,
}

impl Lang {
    /// The language of a BCP 47 code, by its primary subtag.
    pub fn of(code: &str) -> Lang {
        match code
            .split('-')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase()
            .as_str()
        {
            "en" => Lang::English,
            "nl" => Lang::Dutch,
            _ => Lang::Plain,
        }
    }

    /// Whether `word` (lower case) is a stop word of the language.
    pub fn is_stop(self, word: &str) -> bool {
        static DUTCH: LazyLock<HashSet<&str, BuildHasherDefault<Fnv>>> =
            LazyLock::new(|| STOP_NL.iter().copied().collect());
        match self {
            Lang::English => is_stop(word),
            Lang::Dutch => DUTCH.contains(word),
            Lang::Plain => false,
        }
    }

    /// The stem of a lower-case word by the language's Snowball stemmer;
    /// words with digits stay as they are.
    pub fn stem(self, word: &str) -> String {
        static DUTCH: LazyLock<rust_stemmers::Stemmer> =
            LazyLock::new(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::Dutch));
        match self {
            Lang::English => stem(word),
            Lang::Dutch if !word.chars().any(|c| c.is_ascii_digit()) => {
                DUTCH.stem(word).into_owned()
            }
            Lang::Dutch | Lang::Plain => word.to_owned(),
        }
    }

    /// `text`'s meaningful words (lower case, neither stop words nor
    /// single letters), in order, before stemming.
    pub fn meaningful(self, text: &str) -> impl Iterator<Item = String> + '_ {
        words(text).filter(move |w| w.chars().count() >= 2 && !self.is_stop(w))
    }

    /// The stems of `text`'s meaningful words, in order.
    pub fn terms(self, text: &str) -> impl Iterator<Item = String> + '_ {
        self.meaningful(text).map(move |w| self.stem(&w))
    }
}

/// A hasher for short keys (words), faster than the default for them.
pub type FnvBuild = BuildHasherDefault<Fnv>;

/// Whether `word` (lower case) is a stop word.
pub fn is_stop(word: &str) -> bool {
    static SET: LazyLock<HashSet<&str, BuildHasherDefault<Fnv>>> =
        LazyLock::new(|| STOP.iter().copied().collect());
    SET.contains(word)
}

/// FNV-1a, for the stop words: they are a few bytes long, where the
/// standard hasher costs more than the comparisons it saves.
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The stem of a lower-case word by the Snowball English stemmer, so
/// "measures", "measured" and "measuring" meet at "measur". Words with
/// digits stay as they are.
pub fn stem(word: &str) -> String {
    static SNOWBALL: LazyLock<rust_stemmers::Stemmer> =
        LazyLock::new(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English));
    if word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_owned();
    }
    SNOWBALL.stem(word).into_owned()
}

/// The lower-case words of `text`, stop words included.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The stems of `text`'s meaningful words, in order.
pub fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    words(text)
        .filter(|w| w.chars().count() >= 2 && !is_stop(w))
        .map(|w| stem(&w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted() {
        assert!(STOP.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_NL.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn dutch_endings_meet_and_dutch_function_words_drop() {
        let nl = Lang::of("nl");
        assert_eq!(nl, Lang::Dutch);
        assert_eq!(Lang::of("nl-BE"), Lang::Dutch);
        assert_eq!(Lang::of("en"), Lang::English);
        assert_eq!(Lang::of("fy"), Lang::Plain);
        // Plural and inflected forms meet their word.
        assert_eq!(nl.stem("metingen"), nl.stem("meting"));
        assert_eq!(nl.stem("vrijwilligers"), nl.stem("vrijwilliger"));
        assert_eq!(nl.stem("waarnemingen"), nl.stem("waarneming"));
        assert_eq!(nl.stem("2026"), "2026");
        let t: Vec<String> = nl
            .terms("Hoe wordt de nitraat van een sloot gemeten?")
            .collect();
        assert_eq!(
            t,
            [nl.stem("nitraat"), nl.stem("sloot"), nl.stem("gemeten")]
        );
        // English words are not Dutch stop words, nor the other way round.
        assert!(!nl.is_stop("the") && !Lang::English.is_stop("het"));
        // A language without a stemmer keeps its words as written.
        assert_eq!(Lang::Plain.stem("metingen"), "metingen");
    }

    #[test]
    fn endings_meet() {
        for w in ["measures", "measured", "measuring", "measure"] {
            assert_eq!(stem(w), "measur", "{w}");
        }
        assert_eq!(stem("countries"), stem("country"));
        assert_eq!(stem("sites"), "site");
        assert_eq!(stem("site"), "site");
        assert_eq!(stem("measurement"), "measur");
        assert_eq!(stem("funding"), stem("funded"));
        assert_eq!(stem("ph"), "ph");
        assert_eq!(stem("2026"), "2026");
        let t: Vec<String> = terms("How do I measure the pH of a pond?").collect();
        assert_eq!(t, ["measur", "ph", "pond"]);
        // A contraction's parts, or one typed without its apostrophe, are
        // no words of the question.
        let t: Vec<String> = terms("Why don't I'll cant the kit?").collect();
        assert_eq!(t, ["kit"]);
    }
}
