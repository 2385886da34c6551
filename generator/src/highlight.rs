//! Code blocks coloured at build time. The page carries classes (`hl-…`)
//! and the stylesheet colours them: no script runs in the reader's browser
//! and no inline style breaks the content security policy.

use std::sync::OnceLock;

use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// Every class the highlighter writes starts with `hl-`, the scope's words
/// one class each (`keyword.control.rust` → `hl-keyword hl-control
/// hl-rust`), which the stylesheet's rules name.
const CLASS_STYLE: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "hl-" };

/// The bundled grammars, read once for the whole build: decoding them
/// costs more than highlighting a page, and they never change.
fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The grammar a fence's language names, by file extension (`rs`, `py`)
/// or by name in any case (`rust`, `Python`). Plain text counts as none,
/// so that `text` fences stay exactly as an unnamed one.
fn syntax(lang: &str) -> Option<&'static SyntaxReference> {
    if lang.is_empty() {
        return None;
    }
    syntaxes()
        .find_syntax_by_token(lang)
        .filter(|s| s.name != "Plain Text")
}

/// The code as escaped HTML in classed spans, or `None` when no bundled
/// grammar knows the language: the caller then writes the plain text.
pub fn highlight(lang: &str, code: &str) -> Option<String> {
    let syntax = syntax(lang)?;
    let mut html = ClassedHTMLGenerator::new_with_class_style(syntax, syntaxes(), CLASS_STYLE);
    for line in LinesWithEndings::from(code) {
        // A grammar that fails on some text leaves the block plain rather
        // than failing the build.
        html.parse_html_for_line_which_includes_newline(line).ok()?;
    }
    Some(html.finalize())
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
            assert!(syntax(lang).is_some(), "{lang}");
        }
        for lang in [
            "",
            "text",
            "txt",
            "plain",
            "no-such-language",
            "toml",
            "ts",
            "http",
            "console",
        ] {
            assert!(syntax(lang).is_none(), "{lang}");
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
}
