//! Code blocks coloured at build time. The page carries classes (`hl-…`)
//! and the stylesheet colours them: no script runs in the reader's browser
//! and no inline style breaks the content security policy.

use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Mutex, OnceLock};

use syntaxmate::{Catalog, PreparedLanguage, TokenizedDocument, Tokenizer, TokenizerOptions};

/// The bundled grammars, read once for the whole build.
fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(Catalog::bundled)
}

/// The grammar a fence's language names, by file extension (`rs`, `py`)
/// or by name or alias in any case (`rust`, `Python`, `c#`). Plain text
/// (`text`, `txt`, `plain`) names none, so such fences stay exactly as an
/// unnamed one.
fn language(lang: &str) -> Option<&'static str> {
    if lang.is_empty() {
        return None;
    }
    catalog().canonical_language(lang)
}

/// A language's grammars prepared once for the whole build (`None` when
/// they cannot be): the rayon workers' tokenizers share them.
fn prepared(id: &'static str) -> Option<PreparedLanguage> {
    static PREPARED: OnceLock<Mutex<HashMap<&'static str, Option<PreparedLanguage>>>> =
        OnceLock::new();
    let mut map = PREPARED.get_or_init(Default::default).lock().ok()?;
    map.entry(id)
        .or_insert_with(|| PreparedLanguage::from_catalog(catalog(), id).ok())
        .clone()
}

thread_local! {
    /// One tokenizer per language and thread, kept from block to block: a
    /// new one per block starts with cold caches, which made colouring 1.3
    /// to 1.5 times as slow on short blocks.
    /// Each block starts from the grammar's initial state, so the output is
    /// the same whichever thread colours it.
    static TOKENIZERS: RefCell<HashMap<&'static str, Tokenizer>> = RefCell::new(HashMap::new());
}

/// The code as escaped HTML in classed spans, or `None` when no bundled
/// grammar knows the language: the caller then writes the plain text.
pub fn highlight(lang: &str, code: &str) -> Option<String> {
    let id = language(lang)?;
    TOKENIZERS.with(|cell| {
        let mut tokenizers = cell.borrow_mut();
        let tokenizer = match tokenizers.entry(id) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                // No line cache: the blocks of a site seldom repeat a line.
                let options = TokenizerOptions {
                    line_cache_entries: 0,
                    ..TokenizerOptions::default()
                };
                e.insert(prepared(id)?.tokenizer(options))
            }
        };
        let doc = tokenizer.tokenize(code);
        // A grammar that gives up on some text (a line too long, a regex
        // over its budget) leaves the block plain rather than half coloured.
        if !doc.status().is_complete() {
            return None;
        }
        write_html(code, &doc)
    })
}

/// The colour groups the stylesheet knows, each written as one class
/// (`hl-comment`…). A scope outside them (`source.python`, punctuation,
/// operators) adds no span: its text takes the colour around it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Group {
    Comment,
    Keyword,
    String,
    Constant,
    Name,
}

impl Group {
    fn class(self) -> &'static str {
        match self {
            Group::Comment => "hl-comment",
            Group::Keyword => "hl-keyword",
            Group::String => "hl-string",
            Group::Constant => "hl-constant",
            Group::Name => "hl-name",
        }
    }

    /// The group of one scope, from its dot-separated words. Where a scope
    /// has words of two groups, the more specific pair wins, then the
    /// later line: a function call's or a function variable's name is a
    /// name, an operator keyword keeps the colour around it, and a name
    /// wins over a constant, a constant over a string, a string over a
    /// keyword, a keyword over a comment.
    fn of(scope: &str) -> Option<Group> {
        const CALL: u16 = 1;
        const GENERIC: u16 = 1 << 1;
        const VARIABLE: u16 = 1 << 2;
        const FUNCTION: u16 = 1 << 3;
        const KEYWORD: u16 = 1 << 4;
        const OPERATOR: u16 = 1 << 5;
        const NAME: u16 = 1 << 6;
        const CONSTANT: u16 = 1 << 7;
        const STRING: u16 = 1 << 8;
        const STORAGE: u16 = 1 << 9;
        const COMMENT: u16 = 1 << 10;
        let mut seen = 0u16;
        for word in scope.split('.') {
            seen |= match word {
                "function-call" => CALL,
                "generic" => GENERIC,
                "variable" => VARIABLE,
                "function" => FUNCTION,
                "keyword" => KEYWORD,
                "operator" => OPERATOR,
                "entity" | "support" => NAME,
                "constant" => CONSTANT,
                "string" => STRING,
                "storage" => STORAGE,
                "comment" => COMMENT,
                _ => 0,
            };
        }
        let has = |flags: u16| seen & flags == flags;
        let any = |flags: u16| seen & flags != 0;
        if has(CALL | GENERIC) || has(VARIABLE | FUNCTION) {
            Some(Group::Name)
        } else if has(KEYWORD | OPERATOR) {
            None
        } else if any(NAME) {
            Some(Group::Name)
        } else if any(CONSTANT) {
            Some(Group::Constant)
        } else if any(STRING) {
            Some(Group::String)
        } else if any(KEYWORD | STORAGE) {
            Some(Group::Keyword)
        } else if any(COMMENT) {
            Some(Group::Comment)
        } else {
            None
        }
    }
}

/// The tokens as flat spans, one class each: a token takes the group of
/// its innermost scope that has one, and neighbouring tokens of the same
/// group on a line share a span; every span closes at the end of its line.
/// Text no token covers (a CR before the line feed) is written as it is,
/// escaped.
fn write_html(code: &str, doc: &TokenizedDocument) -> Option<String> {
    let lines: Vec<&str> = code.split('\n').collect();
    if lines.len() != doc.lines().len() {
        return None;
    }
    let mut html = String::with_capacity(code.len() * 2);
    // A scope stack's group, by the stack's id within this document.
    let mut groups: HashMap<syntaxmate::ScopeStackId, Option<Group>> = HashMap::new();
    let mut open: Option<Group> = None;
    for (i, (text, line)) in lines.iter().zip(doc.lines()).enumerate() {
        if i > 0 {
            html.push('\n');
        }
        let mut at = 0;
        for token in line.tokens() {
            let range = token.range();
            if range.start < at || range.end <= range.start {
                continue;
            }
            let piece = text.get(range.clone())?;
            let group = match token.scope_stack() {
                Some(id) => *groups
                    .entry(id)
                    .or_insert_with(|| token.scopes().filter_map(Group::of).last()),
                None => token.scopes().filter_map(Group::of).last(),
            };
            let gap = text.get(at..range.start)?;
            if group != open || !gap.is_empty() {
                if open.take().is_some() {
                    html.push_str("</span>");
                }
                escape(&mut html, gap, false);
                if let Some(g) = group {
                    html.push_str("<span class=\"");
                    html.push_str(g.class());
                    html.push_str("\">");
                    open = Some(g);
                }
            }
            escape(&mut html, piece, false);
            at = range.end;
        }
        if open.take().is_some() {
            html.push_str("</span>");
        }
        escape(&mut html, text.get(at..)?, false);
    }
    Some(html)
}

/// Text escaped as pulldown-cmark escapes a plain block's (`&`, `<`, `>`),
/// with the function it uses; in an attribute value, quotes too.
fn escape(out: &mut String, text: &str, attribute: bool) {
    // Writing to a String cannot fail.
    let _ = if attribute {
        pulldown_cmark_escape::escape_html(out, text)
    } else {
        pulldown_cmark_escape::escape_html_body_text(out, text)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_by_name_or_extension() {
        // The languages docs/writing-content.md names.
        for lang in [
            "rust",
            "rs",
            "Python",
            "py",
            "bash",
            "sh",
            "zsh",
            "json",
            "yaml",
            "yml",
            "js",
            "javascript",
            "html",
            "xml",
            "css",
            "sql",
            "go",
            "java",
            "c",
            "cpp",
            "c#",
            "ruby",
            "php",
            "perl",
            "lua",
            "haskell",
            "diff",
            "makefile",
            "markdown",
            "md",
            "latex",
        ] {
            assert!(language(lang).is_some(), "{lang}");
        }
        // Also known since the grammars are VS Code's.
        for lang in ["toml", "ts", "typescript", "http", "console", "dockerfile"] {
            assert!(language(lang).is_some(), "{lang}");
        }
        for lang in [
            "",
            "text",
            "txt",
            "plain",
            "plaintext",
            "no-such-language",
            "rust,ignore",
        ] {
            assert!(language(lang).is_none(), "{lang}");
        }
    }

    #[test]
    fn spans_are_classed_and_text_escaped() {
        let html = highlight("rust", "fn f() -> &'static str { \"<a>\" }\n").unwrap();
        assert!(html.contains(r#"<span class="hl-"#), "{html}");
        assert!(html.contains("&lt;a&gt;"), "{html}");
        assert!(!html.contains("<a>"), "{html}");
        assert!(!html.contains("style="), "{html}");
    }

    #[test]
    fn text_is_kept_byte_for_byte() {
        // What the spans hold is the code, escaped: CRs, blank lines, the
        // last line with or without its line feed.
        for (lang, code) in [
            ("rust", "fn f() {}\r\nlet a = \"x\";\r\n"),
            ("python", "def f(x):\n\n    return x  # <no>\n"),
            ("json", "{\"a\": [1, 2.5e3, true, null]}"),
            ("sh", "echo \"$HOME\" | grep -v 'a&b' > out\n"),
        ] {
            let html = highlight(lang, code).unwrap();
            let mut text = String::new();
            let mut in_tag = false;
            for c in html.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            let text = text.replace("&lt;", "<").replace("&gt;", ">");
            assert_eq!(text.replace("&amp;", "&"), code, "{lang}: {html}");
            assert_eq!(
                html.matches("<span").count(),
                html.matches("</span>").count()
            );
        }
    }

    #[test]
    fn a_scope_takes_the_group_the_stylesheet_colours() {
        for (scope, group) in [
            ("source.python", None),
            ("comment.line.number-sign.python", Some(Group::Comment)),
            (
                "punctuation.definition.comment.python",
                Some(Group::Comment),
            ),
            ("keyword.control.flow.python", Some(Group::Keyword)),
            ("storage.type.function.python", Some(Group::Keyword)),
            ("keyword.operator.assignment.python", None),
            ("string.quoted.single.python", Some(Group::String)),
            (
                "punctuation.definition.string.begin.python",
                Some(Group::String),
            ),
            ("constant.numeric.dec.python", Some(Group::Constant)),
            ("constant.character.escape.python", Some(Group::Constant)),
            ("support.type.property-name.json", Some(Group::Name)),
            ("entity.name.function.python", Some(Group::Name)),
            ("meta.function-call.generic.python", Some(Group::Name)),
            ("variable.function.shell", Some(Group::Name)),
            ("variable.other.readwrite.python", None),
            ("punctuation.separator.arguments.python", None),
        ] {
            assert_eq!(Group::of(scope), group, "{scope}");
        }
    }

    #[test]
    fn spans_are_flat_one_class_each_and_merged() {
        let html = highlight(
            "python",
            "x = measure('site', 4)  # a note\nif x:\n    pass\n",
        )
        .unwrap();
        // No span inside another, and each names one of the five classes.
        let mut depth = 0;
        for (i, _) in html.match_indices('<') {
            if html[i..].starts_with("</span>") {
                depth -= 1;
            } else {
                depth += 1;
                assert_eq!(depth, 1, "{html}");
                let class = html[i..].split('"').nth(1).unwrap();
                assert!(
                    [
                        "hl-comment",
                        "hl-keyword",
                        "hl-string",
                        "hl-constant",
                        "hl-name"
                    ]
                    .contains(&class),
                    "{class} in {html}"
                );
            }
        }
        assert_eq!(depth, 0, "{html}");
        // A string's quotes and text share its span; operators and
        // punctuation have none.
        for run in [
            r#"<span class="hl-string">'site'</span>"#,
            r#"<span class="hl-name">measure</span>("#,
            r#"<span class="hl-constant">4</span>)"#,
            r#"<span class="hl-comment"># a note</span>"#,
            r#"<span class="hl-keyword">if</span> x:"#,
        ] {
            assert!(html.contains(run), "{run} in {html}");
        }
        assert!(html.starts_with("x = "), "{html}");
    }

    #[test]
    fn the_same_code_gives_the_same_html() {
        let code = "x = measure('site', 4)\n";
        let first = highlight("python", code).unwrap();
        // Another language in between leaves the first one's tokenizer as it was.
        assert!(highlight("rust", "let x = 1;\n").is_some());
        assert_eq!(highlight("python", code).unwrap(), first);
        let other = std::thread::spawn(move || highlight("python", code).unwrap());
        assert_eq!(other.join().unwrap(), first);
    }
}
