//! Shortcodes: blocks a document calls from its Markdown, written once as
//! minijinja templates under `templates/shortcodes/`.
//!
//! `{{ notice(kind="archived") }}` renders `shortcodes/notice.html` with
//! `kind` set; `{% notice(kind="note") %}…{% end %}` also hands it the
//! Markdown between, rendered, as `body`. A call alone on its line (or
//! lines) is a block of its own; a call within a paragraph stays inline.
//! Calls inside code (fenced blocks and `code spans`) are text. The Markdown
//! twin takes each call from `shortcodes/<name>.md` when there is one, and
//! from the HTML form otherwise.
//!
//! A call becomes a placeholder ([`markdown::MARK_OPEN`]) that the
//! Markdown renderer passes through; [`Expanded::finish`] puts the output
//! in its place, in the HTML and in the text search and the chat read.

use std::collections::BTreeMap;
use std::path::Path;

use minijinja::Value;
use minijinja::value::Serde;
use serde::Serialize;

use crate::content::ContentError;
use crate::markdown::{self, MARK_CLOSE, MARK_OPEN, Rendered};
use crate::render::Renderer;

mod scan;
use scan::scan;

/// The folder of `templates/` the shortcodes are in.
pub const FOLDER: &str = "shortcodes";

/// What a shortcode sees of the page that calls it, as `page`.
#[derive(Debug, Clone, Serialize)]
pub struct PageInfo<'a> {
    pub url: &'a str,
    pub title: &'a str,
    pub licence: &'a crate::model::Licence,
    pub attribution: &'a str,
    /// The page's language code, for the shortcode's words (`t(…)`).
    pub language: &'a str,
    /// Every licence of `site.toml` by identifier (the shortcode's
    /// `licences`, not part of `page`).
    #[serde(skip)]
    pub licences: &'a Value,
    /// The facts of the observation data (the shortcode's `data`, not part
    /// of `page`; see [`crate::data_facts::context`]).
    #[serde(skip)]
    pub data: &'a Value,
}

/// Where a document's Markdown comes from, for errors.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub path: &'a Path,
    /// The Markdown body.
    pub text: &'a str,
    /// 1-based line of the file where the body starts.
    pub first_line: usize,
}

impl Source<'_> {
    fn error(&self, offset: usize, message: impl Into<String>) -> ContentError {
        let mut e = ContentError::at(self.path, self.text, offset, message);
        e.line += self.first_line.saturating_sub(1);
        e
    }
}

/// A body with its calls replaced.
#[derive(Debug, Clone, Default)]
pub struct Expanded {
    /// The Markdown to render, with a placeholder for each call.
    pub markdown: String,
    /// The Markdown of the twin, with each call's Markdown form in place.
    pub twin: String,
    outputs: Vec<Output>,
}

#[derive(Debug, Clone)]
struct Output {
    /// Where the call starts, for errors.
    at: usize,
    html: String,
    text: String,
}

/// One call found in the body.
#[derive(Debug, Clone)]
struct Call {
    name: String,
    args: BTreeMap<String, Value>,
    /// Byte range of the whole call, `{%…%}…{% end %}` included.
    start: usize,
    end: usize,
    /// Byte range of the Markdown between `{% … %}` and `{% end %}`.
    body: Option<(usize, usize)>,
    /// Alone on its line(s).
    block: bool,
}

/// The name and byte range of every call in `src`'s body (nested calls
/// not listed), or the first mistake in one: for tools and the fuzzer.
pub fn find(src: Source<'_>) -> Result<Vec<(String, std::ops::Range<usize>)>, ContentError> {
    let (calls, stray) = scan(src, 0, src.text.len())?;
    if let Some((at, _)) = stray {
        return Err(src.error(at, "`{% end %}` without a shortcode to close"));
    }
    Ok(calls
        .into_iter()
        .map(|c| (c.name, c.start..c.end))
        .collect())
}

/// Replaces every call in `src`'s body by a placeholder (and by its
/// Markdown form in the twin).
pub fn expand(
    src: Source<'_>,
    renderer: &Renderer,
    page: &PageInfo<'_>,
) -> Result<Expanded, ContentError> {
    expand_range(src, 0, src.text.len(), renderer, page)
}

fn expand_range(
    src: Source<'_>,
    start: usize,
    end: usize,
    renderer: &Renderer,
    page: &PageInfo<'_>,
) -> Result<Expanded, ContentError> {
    let text = src.text;
    let (calls, stray) = scan(src, start, end)?;
    if let Some((at, _)) = stray {
        return Err(src.error(at, "`{% end %}` without a shortcode to close"));
    }
    let mut out = Expanded::default();
    let mut last = start;
    for call in calls {
        out.markdown.push_str(&text[last..call.start]);
        out.twin.push_str(&text[last..call.start]);
        let (html, twin) = render_call(src, &call, renderer, page)?;
        let id = out.outputs.len();
        if call.block {
            // Same number of lines, so later lines keep their numbers.
            let lines = text[call.start..call.end].matches('\n').count();
            out.markdown
                .push_str(&format!("<!--{MARK_OPEN}{id}{MARK_CLOSE}-->"));
            out.markdown.push_str(&"\n".repeat(lines));
        } else {
            out.markdown
                .push_str(&format!("{MARK_OPEN}{id}{MARK_CLOSE}"));
        }
        out.twin.push_str(twin.trim_end_matches('\n'));
        out.outputs.push(Output {
            at: call.start,
            text: plain_text(&html),
            html,
        });
        last = call.end;
    }
    out.markdown.push_str(&text[last..end]);
    out.twin.push_str(&text[last..end]);
    Ok(out)
}

impl Expanded {
    /// Puts each call's output in place of its placeholder in what
    /// [`markdown::render`] made of [`Expanded::markdown`]. A call whose
    /// placeholder the HTML no longer holds (one inside a link's address,
    /// which the renderer percent-encodes) is refused.
    pub fn finish(&self, src: Source<'_>, mut r: Rendered) -> Result<Rendered, ContentError> {
        r.html = self.fill(src, r.html)?;
        for (id, o) in self.outputs.iter().enumerate() {
            let mark = format!("{MARK_OPEN}{id}{MARK_CLOSE}");
            r.text = r.text.replace(&mark, &o.text);
            for s in &mut r.sections {
                s.text = s.text.replace(&mark, &o.text);
                if let Some(h) = &mut s.heading {
                    *h = h.replace(&mark, &o.text);
                }
            }
            for h in &mut r.headings {
                h.title = h.title.replace(&mark, &o.text);
            }
        }
        Ok(r)
    }

    /// `html` with each call's HTML in place of its placeholder.
    fn fill(&self, src: Source<'_>, mut html: String) -> Result<String, ContentError> {
        for (id, o) in self.outputs.iter().enumerate() {
            let mark = format!("{MARK_OPEN}{id}{MARK_CLOSE}");
            let block = format!("<!--{mark}-->");
            let at = if html.contains(&block) {
                block
            } else if html.contains(&mark) {
                mark
            } else {
                return Err(src.error(
                    o.at,
                    "a shortcode cannot stand in a link's or an image's address; \
                     call it outside the link",
                ));
            };
            html = html.replace(&at, o.html.trim_end());
        }
        Ok(html)
    }
}

/// The HTML and the Markdown form of one call.
fn render_call(
    src: Source<'_>,
    call: &Call,
    renderer: &Renderer,
    page: &PageInfo<'_>,
) -> Result<(String, String), ContentError> {
    let html_name = format!("{FOLDER}/{}.html", call.name);
    let md_name = format!("{FOLDER}/{}.md", call.name);
    if !renderer.has(&html_name) {
        let known = renderer.names_in(FOLDER, ".html");
        return Err(src.error(
            call.start,
            format!(
                "unknown shortcode `{}`, expected one of: {} (templates/{FOLDER}/)",
                call.name,
                one_of(known.iter().map(String::as_str))
            ),
        ));
    }
    let mut accepted = renderer.variables(&html_name);
    accepted.extend(renderer.variables(&md_name));
    accepted.remove("page");
    accepted.remove("licences");
    accepted.remove("data");
    let takes_body = accepted.remove("body");
    for name in call.args.keys() {
        if !accepted.contains(name) {
            return Err(src.error(
                call.start,
                format!(
                    "shortcode `{}` has no argument `{name}`, expected one of: {}",
                    call.name,
                    one_of(accepted.iter().map(String::as_str))
                ),
            ));
        }
    }
    if call.body.is_some() && !takes_body {
        return Err(src.error(
            call.start,
            format!(
                "shortcode `{}` does not use a body; call it as {{{{ {}(…) }}}}",
                call.name, call.name
            ),
        ));
    }
    let inner = match call.body {
        Some((s, e)) => Some(expand_range(src, s, e, renderer, page)?),
        None => None,
    };
    let fail = |template: &str, e: anyhow::Error| {
        let message = format!("{e:#}");
        let message = message
            .strip_prefix(&format!("rendering {template}: "))
            .unwrap_or(&message)
            .to_owned();
        src.error(
            call.start,
            format!("shortcode `{}` ({template}): {message}", call.name),
        )
    };
    let context = |body: Option<Value>| {
        let mut ctx: BTreeMap<String, Value> = call.args.clone();
        ctx.insert("page".to_owned(), Value::from(Serde(page)));
        ctx.insert("licences".to_owned(), page.licences.clone());
        ctx.insert("data".to_owned(), page.data.clone());
        if let Some(b) = body {
            ctx.insert("body".to_owned(), b);
        }
        Value::from_object(ctx)
    };
    let body_html = match &inner {
        Some(x) => {
            if markdown::render(&x.markdown).image.is_some() {
                return Err(src.error(
                    call.start,
                    format!(
                        "an image inside the body of shortcode `{}` is not processed; \
                         place it outside the call",
                        call.name
                    ),
                ));
            }
            let html = if call.block {
                markdown::render(&x.markdown).html
            } else {
                markdown::inline_html(&x.markdown)
            };
            let html = x.fill(src, html)?;
            Some(Value::from_safe_string(html.trim_end().to_owned()))
        }
        None => None,
    };
    let html = renderer
        .render(&html_name, &context(body_html))
        .map_err(|e| fail(&html_name, e))?;
    let twin = if renderer.has(&md_name) {
        let body = inner
            .as_ref()
            .map(|x| Value::from(x.twin.trim().to_owned()));
        renderer
            .render(&md_name, &context(body))
            .map_err(|e| fail(&md_name, e))?
    } else {
        html.clone()
    };
    Ok((html, twin))
}

/// `names` joined with commas for an error message, or "none".
fn one_of<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let list: Vec<&str> = names.collect();
    if list.is_empty() {
        "none".to_owned()
    } else {
        list.join(", ")
    }
}

/// The text of an HTML fragment: tags dropped, the five escapes undone,
/// white space collapsed.
fn plain_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
