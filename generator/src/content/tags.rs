//! Tags: a page's topics, allowed in a section whose `_index.md` has
//! `tags_enabled = true`. A tag is written as the writer likes
//! (`"Water quality"`) and published at its slug (`water-quality`), so
//! tags that differ only in case, spaces or punctuation are one tag.

use super::*;

/// A tag's address: ASCII letters and digits in lower case, every other
/// run of characters one `-`, none at either end (`"Bloom  Alerts!"` →
/// `bloom-alerts`). Empty when the tag has no ASCII letter or digit.
pub fn tag_slug(tag: &str) -> String {
    let mut slug = String::with_capacity(tag.len());
    for c in tag.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
}

/// A tag as shown: trimmed, runs of white space one space.
pub fn tag_label(tag: &str) -> String {
    tag.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The folder URL of the page at `url` (`/docs/a/b/` → `/docs/a/`).
fn folder_of(url: &str) -> Option<&str> {
    let trimmed = url.trim_end_matches('/');
    let cut = trimmed.rfind('/')?;
    (cut > 0).then(|| &url[..=cut])
}

/// The section a tagged page's tags belong to: the URL of its folder's
/// `_index.md` (whose tag pages are under `tags/`).
pub fn tag_section(d: &Document) -> Option<&str> {
    if d.is_index { None } else { folder_of(&d.url) }
}

/// Every tag is on a page (not an `_index.md`) of a section whose
/// `_index.md` has `tags_enabled = true`, and has a letter or digit;
/// `tags_enabled` is only on an `_index.md`. The error names the file and
/// the line of the key.
pub fn check_tags(docs: &[Document]) -> Result<(), ContentError> {
    let enabled: BTreeSet<&str> = docs
        .iter()
        .filter(|d| d.is_index && d.front.tags_enabled)
        .map(|d| d.url.as_str())
        .collect();
    for d in docs {
        if d.front.tags_enabled && !d.is_index {
            return Err(at_key(
                d,
                "tags_enabled",
                "tags_enabled on a page, expected it only in a section's _index.md",
            ));
        }
        if d.front.tags.is_empty() {
            continue;
        }
        let section = tag_section(d).filter(|s| enabled.contains(s));
        let Some(_) = section else {
            let message = if d.is_index {
                "tags on a section's _index.md, expected them only on the pages of a section \
                 whose _index.md has tags_enabled = true"
                    .to_owned()
            } else {
                format!(
                    "tags on a page of {}, a section without tags; expected no tags here, or \
                     tags_enabled = true in the _index.md of {}",
                    folder_of(&d.url).unwrap_or("/docs/"),
                    folder_of(&d.url).unwrap_or("/docs/"),
                )
            };
            return Err(at_key(d, "tags", message));
        };
        if let Some(bad) = d.front.tags.iter().find(|t| tag_slug(t).is_empty()) {
            return Err(at_key(
                d,
                "tags",
                format!(
                    "tag `{bad}` has no letter or digit, expected a word such as \"Water quality\""
                ),
            ));
        }
    }
    Ok(())
}

/// An error at the line of `key` in `d`'s front matter (the whole file
/// when it cannot be read again).
fn at_key(d: &Document, key: &str, message: impl Into<String>) -> ContentError {
    let Ok(text) = std::fs::read_to_string(&d.source) else {
        return ContentError::whole(&d.source, message);
    };
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let rest = line.trim_start().strip_prefix(key).map(str::trim_start);
        if rest.is_some_and(|r| r.starts_with('=')) {
            return ContentError::at(&d.source, &text, offset, message);
        }
        offset += line.len();
    }
    ContentError::whole(&d.source, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_differing_in_case_and_spaces_are_one_slug() {
        assert_eq!(tag_slug("Water quality"), "water-quality");
        assert_eq!(tag_slug("  water   QUALITY "), "water-quality");
        assert_eq!(tag_slug("Bloom alerts!"), "bloom-alerts");
        assert_eq!(tag_slug("e-DNA / 2026"), "e-dna-2026");
        assert_eq!(tag_slug("—"), "");
        assert_eq!(tag_label("  water   quality "), "water quality");
    }
}
