//! A section's text for the passages: tables, definitions, figures and
//! code as a reader of the passages needs them (see [`Blocks`]).

use pulldown_cmark::{Event, Tag, TagEnd};

use super::join;

/// How the blocks a passage reader cannot quote as they stand go into a
/// section's text (the page's search text keeps them as written): a
/// table's header row is never a line of its own, each body row is one
/// line carrying the header's labels ("`valid` — Meaning: …; How it was
/// assigned: …"); a definition is one line after its term; a figure's
/// caption is a line after its image's text alternative; a code block is
/// left out (code is never quoted to a visitor; the page and its Markdown
/// twin keep it). Every other block ends a line, so a reader of the
/// passages can tell a paragraph or a list item from the next even where
/// no full stop ends it.
#[derive(Debug, Default)]
pub(super) struct Blocks {
    code: bool,
    /// Inside a table: the header's labels, whether in the header, the
    /// row's cells so far and the cell being read.
    table: Option<Table>,
    /// Inside a definition list's term: its text so far; the last term.
    term: Option<String>,
    last_term: String,
    /// The caption of the image being read.
    caption: Option<String>,
}

#[derive(Debug, Default)]
struct Table {
    labels: Vec<String>,
    head: bool,
    row: Vec<String>,
    cell: String,
}

impl Blocks {
    /// A run of text (or inline code) in the section.
    pub(super) fn text(&mut self, section: &mut String, t: &str) {
        if self.code {
            return;
        }
        if let Some(table) = &mut self.table {
            join(&mut table.cell, t);
        } else if let Some(term) = &mut self.term {
            join(term, t);
        } else {
            join(section, t);
        }
    }

    /// Any other event in the section.
    pub(super) fn event(&mut self, section: &mut String, e: &Event<'_>) {
        match e {
            Event::Start(Tag::CodeBlock(_)) => self.code = true,
            Event::End(TagEnd::CodeBlock) => self.code = false,
            Event::Start(Tag::Table(_)) => self.table = Some(Table::default()),
            Event::End(TagEnd::Table) => self.table = None,
            Event::Start(Tag::TableHead) => {
                if let Some(t) = &mut self.table {
                    t.head = true;
                }
            }
            Event::End(TagEnd::TableHead) => {
                if let Some(t) = &mut self.table {
                    t.head = false;
                    t.labels = std::mem::take(&mut t.row);
                }
            }
            Event::End(TagEnd::TableCell) => {
                if let Some(t) = &mut self.table {
                    let mut cell = std::mem::take(&mut t.cell);
                    cell.truncate(cell.trim_end().len());
                    t.row.push(cell);
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let Some(t) = &mut self.table
                    && !t.head
                {
                    let row = std::mem::take(&mut t.row);
                    end_line(section);
                    section.push_str(&row_sentence(&t.labels, &row));
                    section.push('\n');
                }
            }
            Event::Start(Tag::DefinitionListTitle) => self.term = Some(String::new()),
            Event::End(TagEnd::DefinitionListTitle) => {
                let mut term = self.term.take().unwrap_or_default();
                term.truncate(term.trim_end().len());
                self.last_term = term;
            }
            Event::Start(Tag::DefinitionListDefinition) => {
                end_line(section);
                if !self.last_term.is_empty() {
                    section.push_str(&self.last_term);
                    section.push_str(" \u{2014} ");
                }
            }
            Event::Start(Tag::Image { title, .. }) if !title.is_empty() => {
                self.caption = Some(title.to_string());
            }
            Event::End(TagEnd::Image) => {
                if let Some(caption) = self.caption.take() {
                    end_line(section);
                    section.push_str(caption.trim());
                    section.push('\n');
                }
            }
            // A list item starts a line of its own (a nested list's too).
            Event::Start(Tag::Item | Tag::List(_) | Tag::FootnoteDefinition(_)) => {
                end_line(section)
            }
            Event::End(
                TagEnd::Paragraph
                | TagEnd::FootnoteDefinition
                | TagEnd::Item
                | TagEnd::DefinitionListDefinition
                | TagEnd::BlockQuote(_),
            ) => end_line(section),
            _ => {}
        }
    }
}

/// Ends the section's current line, if it has one.
fn end_line(section: &mut String) {
    while section.ends_with(' ') {
        section.pop();
    }
    if !section.is_empty() && !section.ends_with('\n') {
        section.push('\n');
    }
}

/// A table's body row as one sentence: its first cell, then each other
/// cell after its column's label ("`suspect` — Meaning: …; Advice for use:
/// …."). A cell with no label stands alone; empty cells are left out.
fn row_sentence(labels: &[String], row: &[String]) -> String {
    let mut out = String::new();
    let mut fields = 0;
    for (i, cell) in row.iter().enumerate() {
        if cell.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str(if fields == 1 { " \u{2014} " } else { "; " });
        }
        let label = labels.get(i).map_or("", String::as_str);
        if i > 0 && !label.is_empty() {
            out.push_str(label);
            out.push_str(": ");
        }
        out.push_str(cell);
        fields += 1;
    }
    if out.ends_with(|c: char| c.is_alphanumeric() || c == ')' || c == '%') {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::markdown::render;

    #[test]
    fn passages_read_rows_definitions_and_captions_as_sentences_and_leave_code_out() {
        let md = "## Flags\n\nEvery reading has one.\n\n\
                  | Flag | Meaning | How it was assigned |\n|---|---|---|\n\
                  | `valid` | Passed every check | Automatic |\n\
                  | `suspect` | Unusual | |\n\n\
                  ```json\n{\"flag\": \"valid\"}\n```\n\n\
                  Turbidity\n: How cloudy the water is\n\n\
                  ![A bar chart](c.png \"Alerts in 2026.\")\n";
        let r = render(md);
        let text = &r.sections.last().unwrap().text;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "Every reading has one.",
                "valid \u{2014} Meaning: Passed every check; How it was assigned: Automatic.",
                "suspect \u{2014} Meaning: Unusual.",
                "Turbidity \u{2014} How cloudy the water is",
                "A bar chart",
                "Alerts in 2026.",
            ],
            "{text}"
        );
        // The header row alone is never a line; the code is left out of the
        // passages but stays in the page's search text and its HTML.
        assert!(!text.contains("Flag Meaning"), "{text}");
        assert!(r.text.contains("{\"flag\": \"valid\"}"), "{}", r.text);
        assert!(r.html.contains("<dl>"), "{}", r.html);
    }

    #[test]
    fn passages_read_inline_runs_as_written() {
        let md = "The volunteer's strip (`ENQ-1`), *read*\nby the<br>app.\n\n\
                  - one `stream`, `river`\n  - nested item\n";
        let r = render(md);
        let text = &r.sections[0].text;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "The volunteer\u{2019}s strip (ENQ-1), read by the app.",
                "one stream, river",
                "nested item",
            ],
            "{text}"
        );
    }
}
