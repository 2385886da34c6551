//! Words as the ranking reads them: lower case, split at every character
//! that is not a letter or digit, common English endings stripped, and the
//! words that carry no meaning in a question dropped.

/// Words dropped from questions and passages alike.
const STOP: &[&str] = &[
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but",
    "by", "can", "could", "did", "do", "does", "for", "from", "get", "got", "had", "has", "have",
    "he", "her", "here", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my",
    "no", "not", "of", "on", "or", "our", "please", "she", "should", "so", "some", "such", "than",
    "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "us",
    "was", "we", "were", "what", "when", "which", "who", "whom", "why", "will", "with", "would",
    "you", "your",
];

/// Whether `word` (lower case) is a stop word.
pub fn is_stop(word: &str) -> bool {
    STOP.binary_search(&word).is_ok()
}

/// The stem of a lower-case word: plural and verb endings stripped, so
/// "measures", "measured" and "measuring" meet at "measur". Short words
/// and words with digits stay as they are.
pub fn stem(word: &str) -> String {
    let n = word.chars().count();
    if n <= 3 || word.chars().any(|c| c.is_ascii_digit()) || !word.is_ascii() {
        return word.to_owned();
    }
    let mut w = word.to_owned();
    if let Some(base) = w.strip_suffix("ies") {
        w = format!("{base}y");
    } else if w.ends_with("sses") {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    for suffix in ["ing", "ed", "ly"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.len() >= 4
        {
            w.truncate(base.len());
            break;
        }
    }
    if w.len() >= 5 && w.ends_with('e') {
        w.pop();
    }
    w
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
    }

    #[test]
    fn endings_meet() {
        for w in ["measures", "measured", "measuring", "measure"] {
            assert_eq!(stem(w), "measur", "{w}");
        }
        assert_eq!(stem("countries"), "country");
        assert_eq!(stem("sites"), "site");
        assert_eq!(stem("site"), "site");
        assert_eq!(stem("analysis"), "analysis");
        assert_eq!(stem("ph"), "ph");
        assert_eq!(stem("2026"), "2026");
        let t: Vec<String> = terms("How do I measure the pH of a pond?").collect();
        assert_eq!(t, ["measur", "ph", "pond"]);
    }
}
