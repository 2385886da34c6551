//! Quoting: the sentences of a passage that hold most of what matched.

use super::text;

/// An exact excerpt of `text`: the run of whole sentences, at most about
/// `max` characters, that holds the most of `stems`.
pub fn excerpt(lang: text::Lang, text: &str, stems: &[String], max: usize) -> String {
    let sentences = split_sentences(text);
    if sentences.is_empty() {
        return String::new();
    }
    let hits: Vec<usize> = sentences
        .iter()
        .map(|&(a, b)| {
            let words: Vec<String> = lang.terms(&text[a..b]).collect();
            stems
                .iter()
                .filter(|s| words.iter().any(|w| w.starts_with(s.as_str())))
                .count()
        })
        .collect();
    let mut best = (0, 0, 0usize);
    for start in 0..sentences.len() {
        let mut end = start;
        let mut score = 0;
        while end < sentences.len() && sentences[end].1 - sentences[start].0 <= max.max(1) {
            score += hits[end];
            end += 1;
        }
        let end = end.max(start + 1);
        if score > best.2 {
            best = (start, end, score);
        }
    }
    let (start, end, _) = if best.2 == 0 { (0, 1, 0) } else { best };
    let a = sentences[start].0;
    let b = sentences[end - 1].1;
    let mut cut = text[a..b].trim();
    if cut.chars().count() > max * 2 {
        // One very long sentence: cut at a word boundary.
        let at = cut.char_indices().nth(max).map_or(cut.len(), |(i, _)| i);
        let at = cut[..at].rfind(' ').unwrap_or(at);
        cut = &cut[..at];
    }
    cut.to_owned()
}

/// Byte ranges of the sentences of `text`. A sentence ends at the end of a
/// line, and at `.`, `?` or `!` followed by a space, unless the stop
/// closes an abbreviation that stands before what it abbreviates ("No. 2",
/// "Art. 15", "max. 64", "e.g. the"). A lower-case word after a stop may
/// open a sentence (an identifier in the API reference), so it is no sign.
pub(super) fn split_sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        if bytes[i] == b'\n' {
            // A line ends a paragraph, a list item or a table row.
            if i > start {
                out.push((start, i));
            }
            start = i + 1;
        } else if matches!(bytes[i], b'.' | b'?' | b'!')
            && matches!(bytes.get(i + 1), Some(b' ' | b'\n'))
            && i >= start
            && (bytes[i] != b'.' || bytes[i + 1] == b'\n' || !continues(text, start, i))
        {
            out.push((start, i + 1));
            start = i + 2;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

/// Whether the full stop at `stop` (in a sentence begun at `start`) is an
/// abbreviation's, the sentence going on after it.
fn continues(text: &str, start: usize, stop: usize) -> bool {
    let word = text[start..stop]
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    let is = |list: &[&str]| list.iter().any(|a| a.eq_ignore_ascii_case(word));
    if is(BEFORE_A_NAME) {
        return true;
    }
    // "No. 2", "Art. 15", "max. length": these words also end sentences
    // ("the answer is no."), so only what follows tells.
    if is(BEFORE_A_NUMBER) {
        let next = text[stop + 1..].trim_start().chars().next();
        return next.is_some_and(|c| c.is_ascii_digit())
            || (is(&["max", "min"]) && next.is_some_and(char::is_lowercase));
    }
    // "e.g", "i.e", "d.w.z": short letters between stops (not a file
    // name such as "openapi.json").
    word.contains('.')
        && word.split('.').all(|part| {
            (1..=3).contains(&part.chars().count()) && part.chars().all(char::is_alphabetic)
        })
}

/// Abbreviations that stand before a name or a phrase, in the site's
/// languages (lower case, without their stop), and seldom end a sentence.
const BEFORE_A_NAME: &[&str] = &["approx", "ca", "cf", "vs", "dr", "st", "bijv", "zgn"];
/// Abbreviations that stand before a number (or, for max. and min., a
/// measure), and are words that may end a sentence too.
const BEFORE_A_NUMBER: &[&str] = &[
    "no", "nr", "art", "fig", "vol", "p", "pp", "ref", "blz", "max", "min",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_exact_whole_sentences() {
        let t = "First one here. The nitrate test uses a strip. Last one.";
        let e = excerpt(text::Lang::English, t, &["nitrat".to_owned()], 30);
        assert_eq!(e, "The nitrate test uses a strip.");
        assert!(t.contains(&e));
        assert_eq!(
            excerpt(text::Lang::English, t, &["zzz".to_owned()], 10),
            "First one here."
        );
    }

    #[test]
    fn abbreviations_do_not_end_sentences() {
        let t = "Add tablets No. 1 and No. 2 (see Art. 15). Wait, e.g. for a minute. Read openapi.json. done.\nNext line. Last.\n\
                 Submit? The answer is no. Wait 5 min. Then read (max. length 64).";
        let got: Vec<&str> = split_sentences(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(
            got,
            [
                "Add tablets No. 1 and No. 2 (see Art. 15).",
                "Wait, e.g. for a minute.",
                "Read openapi.json.",
                "done.",
                "Next line.",
                "Last.",
                "Submit?",
                "The answer is no.",
                "Wait 5 min.",
                "Then read (max. length 64)."
            ]
        );
    }
}
