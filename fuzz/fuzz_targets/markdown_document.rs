//! A content document as the generator reads it: front matter split and
//! parsed, then the body rendered. Asserts what the pages rely on: a parsed
//! document has a non-empty title and its body is the text after the closing
//! `+++`; an error points at a line of the file; heading ids are unique,
//! URL-safe and present in the HTML; the text is cut into sections under
//! the headings, in order, none empty; shortcode calls are found in order
//! within the body or refused at one of its lines.

#![no_main]

use std::collections::HashSet;
use std::path::Path;

use generator::content::split_front_matter;
use generator::markdown;
use generator::shortcodes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let body = match split_front_matter(Path::new("doc.md"), text) {
        Ok((front, body, body_line)) => {
            assert!(!front.title.trim().is_empty());
            assert!(text.ends_with(body.as_str()));
            assert!(body_line >= 3);
            body
        }
        Err(e) => {
            assert!(!e.message.is_empty());
            assert!(e.line <= text.lines().count() + 2, "{e:?}");
            // The body of a document without front matter still renders.
            text.to_owned()
        }
    };
    // Shortcode calls: found in order, inside the body, or refused at a
    // line of it.
    let src = shortcodes::Source {
        path: Path::new("doc.md"),
        text: &body,
        first_line: 1,
    };
    match shortcodes::find(src) {
        Ok(calls) => {
            let mut last = 0;
            for (name, range) in calls {
                assert!(!name.is_empty() && range.start >= last && range.end <= body.len());
                assert!(body[range.clone()].starts_with('{'));
                last = range.end;
            }
        }
        Err(e) => {
            assert!(!e.message.is_empty());
            assert!(e.line >= 1 && e.line <= body.lines().count() + 1, "{e:?}");
        }
    }
    let rendered = markdown::render(&body);
    let mut ids = HashSet::new();
    for h in &rendered.headings {
        assert!((1..=6).contains(&h.level));
        assert!(!h.id.is_empty() && !h.id.starts_with('-') && !h.id.ends_with('-'));
        assert!(
            h.id.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{:?}",
            h.id
        );
        assert!(ids.insert(h.id.clone()), "duplicate id {:?}", h.id);
        assert!(rendered.html.contains(&format!("id=\"{}\"", h.id)));
    }
    // Sections with text only: the lead (no anchor) first if any, then
    // headings' sections in document order.
    let mut anchors = rendered.headings.iter().map(|h| h.id.as_str());
    for (i, section) in rendered.sections.iter().enumerate() {
        assert!(!section.text.is_empty());
        match section.anchor.as_deref() {
            None => assert_eq!(i, 0, "a section without a heading after the lead"),
            Some(anchor) => assert!(
                anchors.any(|id| id == anchor),
                "section {anchor:?} is not a heading, in order"
            ),
        }
    }
    let slug = markdown::slugify(&body);
    assert!(!slug.is_empty() && !slug.starts_with('-') && !slug.ends_with('-'));
    let _ = markdown::inline_html(&body);
});
