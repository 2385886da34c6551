//! Markdown to HTML with stable heading ids, and what the templates need to
//! know about a document's structure (its table of contents).

use std::collections::HashSet;

mod blocks;
use blocks::Blocks;

use pulldown_cmark::{
    CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd, html,
};
use serde::Serialize;

/// A heading of a rendered document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heading {
    pub level: u8,
    pub id: String,
    pub title: String,
}

/// A rendered document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub html: String,
    pub headings: Vec<Heading>,
    /// The document's text without markup (text runs joined by one space),
    /// for search and summaries.
    pub text: String,
    /// The same text cut at every heading: what the chat and the MCP search
    /// quote, each piece with the anchor it can be linked by.
    pub sections: Vec<Section>,
    /// The document's first image, for the card a shared link shows.
    pub image: Option<Image>,
}

/// An image of a document: where it is (as written) and its text
/// alternative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub src: String,
    pub alt: String,
}

/// The text under one heading (up to the next heading of any level); the
/// text before the first heading has no heading and no anchor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub anchor: Option<String>,
    pub heading: Option<String>,
    pub text: String,
}

/// Opens a placeholder: what a preprocessor (the shortcodes) leaves in the
/// Markdown for what it puts in after rendering. `MARK_OPEN`, an id and
/// [`MARK_CLOSE`] stand within a paragraph; on a line of its own, wrapped in
/// an HTML comment (`<!--` … `-->`), a placeholder is a block of its own.
/// In [`Rendered::text`] and the sections a placeholder stays as a text run
/// of its own, for the preprocessor to replace there too.
pub const MARK_OPEN: char = '\u{E000}';
/// Closes a placeholder ([`MARK_OPEN`]).
pub const MARK_CLOSE: char = '\u{E001}';

/// The id a heading gets from its text: lower-case ASCII letters and digits,
/// every other run of characters one `-`, no `-` at either end.
pub fn slugify(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut dash = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c.to_ascii_lowercase());
        } else {
            dash = true;
        }
    }
    if out.is_empty() {
        out.push_str("section");
    }
    out
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_DEFINITION_LIST
}

fn level_number(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Renders Markdown to HTML, giving every heading an id: the slug of an
/// explicit `{#id}` when there is one, else of its text, made unique with
/// `-2`, `-3`… (never equal to another heading's id, explicit or not).
pub fn render(markdown: &str) -> Rendered {
    let keep = &mut |_: ImageAt<'_>| Ok::<_, std::convert::Infallible>(None);
    match render_with(markdown, keep) {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

/// An image of the Markdown, as [`render_with`] shows it to its caller.
pub struct ImageAt<'a> {
    pub src: &'a str,
    /// The text alternative: the text between the brackets.
    pub alt: &'a str,
    pub title: &'a str,
    /// Byte offset of the image in the Markdown.
    pub offset: usize,
    /// The only thing in its paragraph.
    pub alone: bool,
}

/// What an image becomes in HTML; a `block` stands for the whole
/// paragraph the image is alone in (a figure).
pub struct ImageHtml {
    pub html: String,
    pub block: bool,
}

/// [`render`], each image's HTML given by `images` (`None` leaves it as
/// pulldown-cmark writes it), in the order of the text.
pub fn render_with<E>(
    markdown: &str,
    images: &mut dyn FnMut(ImageAt<'_>) -> Result<Option<ImageHtml>, E>,
) -> Result<Rendered, E> {
    // About an event in twelve bytes of Markdown on prose: room made at
    // once rather than by doubling as the parser goes.
    let estimate = markdown.len() / 12 + 16;
    let mut events: Vec<Event<'_>> = Vec::with_capacity(estimate);
    let mut offsets: Vec<usize> = Vec::with_capacity(estimate);
    for (e, at) in Parser::new_ext(markdown, options()).into_offset_iter() {
        events.push(prefix_footnote(e));
        offsets.push(at.start);
    }
    let image = first_image(&events);
    let mut headings = Vec::new();
    let mut used: HashSet<String> = HashSet::new();
    let mut text = String::with_capacity(markdown.len());
    let mut sections = vec![Section {
        anchor: None,
        heading: None,
        text: String::new(),
    }];

    let mut in_heading = false;
    let mut blocks = Blocks::default();
    let mut i = 0;
    while i < events.len() {
        let section = &mut sections.last_mut().expect("one section").text;
        match &events[i] {
            Event::Start(Tag::Heading { level, id, .. }) => {
                let level = *level;
                let explicit = id.as_ref().map(|s| s.to_string());
                let mut title = String::new();
                let mut j = i + 1;
                while j < events.len() {
                    match &events[j] {
                        Event::End(TagEnd::Heading(_)) => break,
                        Event::Text(t) | Event::Code(t) => title.push_str(t),
                        Event::SoftBreak | Event::HardBreak => title.push(' '),
                        _ => {}
                    }
                    j += 1;
                }
                // An explicit `{#id}` is held to the same rule as a made one.
                let base = slugify(explicit.as_deref().unwrap_or(&title));
                let mut unique = base.clone();
                let mut n = 1;
                // `x`, then `x-2`, `x-3`…, skipping any id already given
                // (an explicit `{#x-2}` included).
                while used.contains(&unique) {
                    n += 1;
                    unique = format!("{base}-{n}");
                }
                used.insert(unique.clone());
                if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                    *id = Some(CowStr::from(unique.clone()));
                }
                sections.push(Section {
                    anchor: Some(unique.clone()),
                    heading: Some(title.trim().to_owned()),
                    text: String::new(),
                });
                headings.push(Heading {
                    level: level_number(level),
                    id: unique,
                    title: title.trim().to_owned(),
                });
                in_heading = true;
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            // A block placeholder is text for the preprocessor to replace.
            Event::Html(t) if t.starts_with("<!--\u{E000}") => {
                let mark = t.trim_end().trim_start_matches("<!--");
                let mark = mark.trim_end_matches("-->");
                join_apart(&mut text, mark);
                if !in_heading {
                    join_apart(section, mark);
                    section.push('\n');
                }
            }
            Event::Text(t) | Event::Code(t) => {
                join_apart(&mut text, t);
                // A heading's own words are its section's heading, not text.
                if !in_heading {
                    blocks.text(section, t);
                }
            }
            Event::SoftBreak | Event::HardBreak if !in_heading => blocks.text(section, " "),
            // A line break written as HTML parts words as a space would.
            Event::InlineHtml(t)
                if !in_heading && t.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("<br")) =>
            {
                blocks.text(section, " ")
            }
            e if !in_heading => blocks.event(section, e),
            _ => {}
        }
        i += 1;
    }

    let events = replace_images(events, &offsets, images)?;
    let mut html_out = String::with_capacity(markdown.len() * 3 / 2);
    // Only the HTML is coloured: the text, the sections and the Markdown
    // twin keep the code as it was written.
    html::push_html(&mut html_out, highlight_code(events).into_iter());
    for s in &mut sections {
        let end = s.text.trim_end().len();
        s.text.truncate(end);
    }
    sections.retain(|s| !s.text.is_empty());
    Ok(Rendered {
        html: html_out,
        headings,
        text,
        sections,
        image,
    })
}

/// Puts the HTML `images` gives in place of each image's events (and of
/// its paragraph, for a block).
fn replace_images<'a, E>(
    events: Vec<Event<'a>>,
    offsets: &[usize],
    images: &mut dyn FnMut(ImageAt<'_>) -> Result<Option<ImageHtml>, E>,
) -> Result<Vec<Event<'a>>, E> {
    // Most pages show no image: their events stay as they are.
    if !events
        .iter()
        .any(|e| matches!(e, Event::Start(Tag::Image { .. })))
    {
        return Ok(events);
    }
    let mut out = Vec::with_capacity(events.len());
    let mut i = 0;
    while i < events.len() {
        let Event::Start(Tag::Image {
            dest_url, title, ..
        }) = &events[i]
        else {
            out.push(events[i].clone());
            i += 1;
            continue;
        };
        // The image's end, past any image inside its text.
        let (mut depth, mut end, mut alt) = (0usize, i, String::new());
        for (j, e) in events.iter().enumerate().skip(i) {
            match e {
                Event::Start(Tag::Image { .. }) => depth += 1,
                Event::End(TagEnd::Image) => {
                    depth -= 1;
                    if depth == 0 {
                        end = j;
                        break;
                    }
                }
                Event::Text(t) | Event::Code(t) => alt.push_str(t),
                _ => {}
            }
        }
        let alone = matches!(out.last(), Some(Event::Start(Tag::Paragraph)))
            && matches!(events.get(end + 1), Some(Event::End(TagEnd::Paragraph)));
        let html = images(ImageAt {
            src: dest_url,
            alt: &alt,
            title,
            offset: offsets[i],
            alone,
        })?;
        match html {
            Some(h) if h.block && alone => {
                out.pop();
                out.push(Event::Html(CowStr::from(h.html)));
                i = end + 2;
            }
            Some(h) => {
                out.push(Event::InlineHtml(CowStr::from(h.html)));
                i = end + 1;
            }
            None => {
                out.extend(events[i..=end].iter().cloned());
                i = end + 1;
            }
        }
    }
    Ok(out)
}

fn first_image(events: &[Event<'_>]) -> Option<Image> {
    let start = events
        .iter()
        .position(|e| matches!(e, Event::Start(Tag::Image { .. })))?;
    let Event::Start(Tag::Image { dest_url, .. }) = &events[start] else {
        return None;
    };
    let mut alt = String::new();
    for e in &events[start + 1..] {
        match e {
            Event::End(TagEnd::Image) => break,
            Event::Text(t) | Event::Code(t) => alt.push_str(t),
            _ => {}
        }
    }
    Some(Image {
        src: dest_url.to_string(),
        alt,
    })
}

/// Puts the coloured HTML of every fenced block whose language a grammar
/// knows in place of its text; the `<pre><code class="language-…">` around
/// it stays as pulldown-cmark writes it, and other blocks stay plain.
fn highlight_code(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut out = Vec::with_capacity(events.len());
    let mut events = events.into_iter();
    while let Some(event) = events.next() {
        let lang = match &event {
            // The language is the info string's first word, as for the class.
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                info.split(' ').next().unwrap_or_default().to_owned()
            }
            _ => {
                out.push(event);
                continue;
            }
        };
        out.push(event);
        let mut code = String::new();
        let mut runs = Vec::new();
        for inner in events.by_ref() {
            match inner {
                Event::End(TagEnd::CodeBlock) => {
                    match crate::highlight::highlight(&lang, &code) {
                        Some(coloured) => out.push(Event::Html(CowStr::from(coloured))),
                        None => out.append(&mut runs),
                    }
                    out.push(inner);
                    break;
                }
                Event::Text(t) => {
                    code.push_str(&t);
                    runs.push(Event::Text(t));
                }
                other => runs.push(other),
            }
        }
    }
    out
}

/// Appends a run of inline text as the source joins it: runs that meet
/// inside a word stay one word ("volunteer", "’", "s" → "volunteer’s"; a
/// code span's brackets close on it), the spaces at a run's ends (and a
/// line break inside a paragraph, given as `" "`) are one space, and no
/// line starts with one. (A run of text holds no line break: the parser
/// gives those as events of their own.)
fn join(out: &mut String, run: &str) {
    let words = run.trim_ascii();
    let space = |out: &mut String| {
        if !out.is_empty() && !out.ends_with([' ', '\n']) {
            out.push(' ');
        }
    };
    if run.starts_with(|c: char| c.is_ascii_whitespace()) {
        space(out);
    }
    out.push_str(words);
    if !words.is_empty() && run.ends_with(|c: char| c.is_ascii_whitespace()) {
        space(out);
    }
}

/// Appends a run one space apart from what is there (the page's search
/// text, whose words are what counts; a placeholder the preprocessor
/// replaces stands as a word of its own).
fn join_apart(out: &mut String, run: &str) {
    if !out.is_empty() && !out.ends_with([' ', '\n']) {
        out.push(' ');
    }
    out.push_str(run.trim());
}

/// Footnote labels become ids and fragments as they are (`[^1]` →
/// `id="1"`), which is no valid HTML id and may clash with a heading:
/// they are prefixed with `fn-`.
fn prefix_footnote(event: Event<'_>) -> Event<'_> {
    match event {
        Event::FootnoteReference(label) => {
            Event::FootnoteReference(CowStr::from(format!("fn-{label}")))
        }
        Event::Start(Tag::FootnoteDefinition(label)) => {
            Event::Start(Tag::FootnoteDefinition(CowStr::from(format!("fn-{label}"))))
        }
        other => other,
    }
}

/// Short Markdown (a description of the contract, one paragraph or a few)
/// as HTML, without the paragraph element around a single paragraph.
pub fn inline_html(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len() + 16);
    html::push_html(&mut out, Parser::new_ext(markdown, options()));
    let trimmed = out.trim();
    match trimmed
        .strip_prefix("<p>")
        .and_then(|t| t.strip_suffix("</p>"))
    {
        Some(inner) if !inner.contains("<p>") => inner.to_owned(),
        _ => trimmed.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_go_to_the_hook_with_their_place_and_a_block_takes_its_paragraph() {
        let md = "Intro.\n\n![A](a.png \"Cap\")\n\nText ![B *b*](b.png) more.\n";
        let mut seen = Vec::new();
        let r = render_with(md, &mut |img: ImageAt<'_>| {
            seen.push(format!(
                "{} {} {} {} {}",
                img.src, img.alt, img.title, img.offset, img.alone
            ));
            Ok::<_, ()>(Some(ImageHtml {
                html: format!("<img alt=\"{}\">", img.alt),
                block: img.alone,
            }))
        })
        .unwrap();
        assert_eq!(seen, ["a.png A Cap 8 true", "b.png B b  32 false"]);
        assert!(
            r.html
                .contains("<p>Intro.</p>\n<img alt=\"A\">\n<p>Text <img alt=\"B b\"> more.</p>"),
            "{}",
            r.html
        );
        // The alt text stays in the text for search, as before.
        assert!(r.text.contains('A') && r.text.contains("B"), "{}", r.text);
        // Without a hook, pulldown-cmark's own `<img>`.
        assert!(
            render("![A](a.png)")
                .html
                .contains("<img src=\"a.png\" alt=\"A\"")
        );
    }

    #[test]
    fn inline_markdown() {
        assert_eq!(inline_html("Use `limit`."), "Use <code>limit</code>.");
        assert_eq!(inline_html("a\n\nb"), "<p>a</p>\n<p>b</p>");
    }

    #[test]
    fn slugs() {
        assert_eq!(slugify("Quality flags"), "quality-flags");
        assert_eq!(slugify("pH (acidity)"), "ph-acidity");
        assert_eq!(slugify("  --Step 2: rinse!  "), "step-2-rinse");
        assert_eq!(slugify("??"), "section");
    }

    #[test]
    fn headings_get_unique_ids_and_explicit_ids_win() {
        let r = render("## Steps\n\ntext\n\n## Steps\n\n### Safety {#safe}\n");
        let ids: Vec<_> = r.headings.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["steps", "steps-2", "safe"]);
        assert!(r.html.contains("<h2 id=\"steps-2\">"), "{}", r.html);
        assert!(r.html.contains("<h3 id=\"safe\">Safety</h3>"), "{}", r.html);
    }

    #[test]
    fn ids_stay_unique_and_url_safe_whatever_the_explicit_ids() {
        // Found by the markdown_document fuzz target: an explicit id equal
        // to a made one, and explicit ids outside the slug alphabet.
        let r = render("# A\n\n# B {#a-2}\n\n# A\n\n# C {#Two_Words}\n\n# D {#a}\n");
        let ids: Vec<_> = r.headings.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["a", "a-2", "a-3", "two-words", "a-4"]);
    }

    #[test]
    fn tables_footnotes_and_text() {
        let md = "| a | b |\n|---|---|\n| 1 | 2 |\n\nSee note.[^n]\n\n[^n]: The note.\n";
        let r = render(md);
        assert!(r.html.contains("<table>"));
        assert!(r.html.contains("footnote-definition"), "{}", r.html);
        assert!(
            r.html.contains(r#"id="fn-"#),
            "footnote ids are prefixed: {}",
            r.html
        );
        assert!(r.html.contains(r##"href="#fn-"##), "{}", r.html);
        assert!(r.text.contains("See note."));
    }

    #[test]
    fn fenced_code_is_coloured_in_three_languages() {
        let md = "```rust\nfn main() { let n = 1; }\n```\n\n\
                  ```python\ndef f(x):\n    return \"s\"  # note\n```\n\n\
                  ```bash\ncurl -s \"$URL\" | jq .\n```\n";
        let r = render(md);
        for lang in ["rust", "python", "bash"] {
            let open = format!("<pre><code class=\"language-{lang}\"><span class=\"hl-");
            assert!(r.html.contains(&open), "{lang}: {}", r.html);
        }
        assert!(r.html.contains("hl-keyword"), "{}", r.html);
        assert!(r.html.contains("hl-comment"), "{}", r.html);
        assert!(r.html.contains("hl-string"), "{}", r.html);
        assert!(!r.html.contains("style="), "{}", r.html);
        // The text for search and the passages have no markup.
        assert!(r.text.contains("fn main() { let n = 1; }"), "{}", r.text);
        assert!(!r.text.contains("hl-"), "{}", r.text);
        assert!(r.sections.iter().all(|s| !s.text.contains('<')));
    }

    #[test]
    fn unknown_or_missing_language_is_plain_escaped_text() {
        let code = "a < b && c > \"d\"\n";
        let plain = "a &lt; b &amp;&amp; c &gt; \"d\"\n</code></pre>";
        let r = render(&format!("```no-such-language\n{code}```\n"));
        assert_eq!(
            r.html,
            format!("<pre><code class=\"language-no-such-language\">{plain}\n")
        );
        let r = render(&format!("```\n{code}```\n"));
        assert_eq!(r.html, format!("<pre><code>{plain}\n"));
        let r = render(&format!("    {code}"));
        assert_eq!(r.html, format!("<pre><code>{plain}\n"));
    }

    #[test]
    fn coloured_code_keeps_html_escaped() {
        let r = render("```json\n{\"tag\": \"<script>&amp;\"}\n```\n");
        assert!(r.html.contains("&lt;script&gt;&amp;amp;"), "{}", r.html);
        assert!(!r.html.contains("<script>"), "{}", r.html);
        assert!(r.html.contains("hl-string"), "{}", r.html);
    }
}
