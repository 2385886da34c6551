//! The browser index's terms, made as its script makes them from a query:
//! NFD, combining marks dropped, lower case, split at anything not a
//! letter or digit; and the two-letter keys that place a term in its term
//! and near shards ([`super::shards`]).

use unicode_normalization::UnicodeNormalization;

/// Documents per term shard, on average: the shard count grows with the
/// site so a shard stays about the same size.
const DOCS_PER_TERM_SHARD: usize = 16;
const MAX_TERM_SHARDS: usize = 1024;

/// A string folded as the script folds it.
pub fn fold(s: &str) -> String {
    // ASCII is its own decomposition and has no marks to drop.
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.nfd()
        .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The folded words of a string.
pub fn words(s: &str) -> Vec<String> {
    split(&fold(s)).map(str::to_owned).collect()
}

/// The words of a folded string, as slices of it.
pub(super) fn split(folded: &str) -> Words<'_> {
    Words {
        folded,
        at: 0,
        ascii: folded.is_ascii(),
    }
}

/// The words of a folded string ([`split`]): the runs of letters and
/// digits, each a slice of it.
pub(super) struct Words<'a> {
    folded: &'a str,
    /// Where the next word is looked for, in bytes.
    at: usize,
    /// ASCII letters and digits are the only alphanumeric characters below
    /// 128: an ASCII string is split a byte at a time rather than a decoded
    /// character at a time, to the same words.
    ascii: bool,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let s = self.folded;
        let (start, end) = if self.ascii {
            let b = s.as_bytes();
            let mut i = self.at;
            while i < b.len() && !b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            (start, i)
        } else {
            let start = self.at + s[self.at..].find(char::is_alphanumeric)?;
            let end = s[start..]
                .find(|c: char| !c.is_alphanumeric())
                .map_or(s.len(), |n| start + n);
            (start, end)
        };
        self.at = end;
        (end > start).then(|| &s[start..end])
    }
}

/// FNV-1a's starting value and prime, 32 bits.
const FNV_OFFSET: u32 = 0x811c_9dc5;
const FNV_PRIME: u32 = 0x0100_0193;

/// FNV-1a over UTF-8 bytes, 32 bits: the script computes the same.
pub fn hash(s: &str) -> u32 {
    s.bytes().fold(FNV_OFFSET, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(FNV_PRIME)
    })
}

/// The words of a folded string ([`split`]), each with its [`hash`]: on
/// ASCII text the hash is made in the same pass that finds the word.
pub(super) fn split_hashed(folded: &str) -> HashedWords<'_> {
    HashedWords {
        words: split(folded),
    }
}

/// The words of a folded string with their hashes ([`split_hashed`]).
pub(super) struct HashedWords<'a> {
    words: Words<'a>,
}

impl<'a> Iterator for HashedWords<'a> {
    type Item = (u32, &'a str);

    fn next(&mut self) -> Option<(u32, &'a str)> {
        let w = &mut self.words;
        if !w.ascii {
            return w.next().map(|word| (hash(word), word));
        }
        let rest = w.folded.as_bytes().get(w.at..)?;
        let start = w.at + rest.iter().position(u8::is_ascii_alphanumeric)?;
        let mut h = FNV_OFFSET;
        let mut end = start;
        for &b in &w.folded.as_bytes()[start..] {
            if !b.is_ascii_alphanumeric() {
                break;
            }
            h = (h ^ u32::from(b)).wrapping_mul(FNV_PRIME);
            end += 1;
        }
        w.at = end;
        Some((h, &w.folded[start..end]))
    }
}

/// The first two characters of `term`, as a slice of it.
fn first_two(term: &str) -> &str {
    let end = term.char_indices().nth(2).map_or(term.len(), |(i, _)| i);
    &term[..end]
}

/// The last two characters of `term`, as a slice of it.
fn last_two(term: &str) -> &str {
    let start = term.char_indices().rev().nth(1).map_or(0, |(i, _)| i);
    &term[start..]
}

/// How many term shards (and near shards) a site of `documents` gets.
pub fn term_shards(documents: usize) -> usize {
    (documents / DOCS_PER_TERM_SHARD).clamp(1, MAX_TERM_SHARDS)
}

/// The term shard holding `term`.
pub fn term_shard(term: &str, shards: usize) -> usize {
    hash(first_two(term)) as usize % shards
}

/// The near shard holding `term`.
pub fn near_shard(term: &str, shards: usize) -> usize {
    hash(last_two(term)) as usize % shards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_and_case_fold_like_the_script() {
        assert_eq!(words("Qualité de l'EAU"), ["qualite", "de", "l", "eau"]);
        assert_eq!(hash(""), 0x811c_9dc5);
        assert_eq!(hash("a"), 0xe40c_292c);
    }

    #[test]
    fn words_come_with_their_hash() {
        for text in ["plain ascii, words: 42 here", "Qualité de l'eau, été"] {
            let folded = fold(text);
            let hashed: Vec<(u32, &str)> = split_hashed(&folded).collect();
            let plain: Vec<(u32, &str)> = split(&folded).map(|w| (hash(w), w)).collect();
            assert_eq!(hashed, plain);
            assert!(!hashed.is_empty());
        }
    }

    #[test]
    fn ascii_text_splits_as_characters_do() {
        let by_char = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect()
        };
        for s in [
            "",
            "  ",
            "pH 7.2, 25°C",
            "a_b-c d'e (x2)\tend.",
            "--x--",
            "café au lait",
        ] {
            let folded = fold(s);
            let words: Vec<String> = split(&folded).map(str::to_owned).collect();
            assert_eq!(words, by_char(&folded), "{s:?}");
        }
    }

    #[test]
    fn two_letter_keys_count_characters_not_bytes() {
        assert_eq!(first_two("été"), "ét");
        assert_eq!(last_two("été"), "té");
        assert_eq!((first_two("a"), last_two("a")), ("a", "a"));
        assert_eq!((first_two(""), last_two("")), ("", ""));
    }
}
