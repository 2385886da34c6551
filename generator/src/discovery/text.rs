//! What the discovery documents share: the documentation page they list,
//! and how they write dates and text.

use crate::model::Date;

/// A documentation page, as the discovery documents list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocLink {
    /// Site path of the HTML page, such as `/docs/data/`.
    pub url: String,
    pub title: String,
    pub summary: String,
    /// Section the page belongs to; pages are grouped by it.
    pub section: String,
}

/// A day as an RFC 3339 timestamp at midnight UTC.
pub(super) fn midnight(day: time::Date) -> String {
    format!(
        "{:04}-{:02}-{:02}T00:00:00Z",
        day.year(),
        u8::from(day.month()),
        day.day()
    )
}

/// A content date as an RFC 3339 timestamp at midnight UTC.
pub(super) fn date_time(date: &Date) -> String {
    midnight(date.calendar())
}

/// Collapses runs of whitespace (including newlines) to single spaces.
pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Escapes the five characters XML reserves.
pub(crate) fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}
