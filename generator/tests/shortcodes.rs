//! Shortcodes through the real `generate` binary, on a copy of the sample
//! content and templates.
//!
//! - The sample's archive pages call `notice` and `archived_protocol`: the
//!   page has the box, the twin its Markdown form, search and the chat the
//!   text, and no call or placeholder is left anywhere.
//! - A test page calls a shortcode inline with every kind of value, a block
//!   with a Markdown body holding another call, and shows calls inside code
//!   as written.
//! - Every mistake in a call fails the build naming file, line and column.

use common::sample_site::SampleSite as Site;

/// The sample with a test shortcode `args` that shows its arguments.
fn site_with_args() -> Site {
    let site = Site::new();
    let templates = site.own_templates();
    std::fs::write(
        templates.join("shortcodes/args.html"),
        "<span class=\"args\">{{ n + 1 }} {{ flag }} {{ items | join(\"|\") }} {{ s }} \
         {{ x }} {{ page.url }}</span>",
    )
    .unwrap();
    std::fs::write(
        templates.join("shortcodes/stress.html"),
        "<strong class=\"stress\">{{ body }}</strong>",
    )
    .unwrap();
    site
}

/// A page of the platform section whose body starts on line 7.
fn page(body: &str) -> String {
    format!("+++\ntitle = \"Blocks\"\nsummary = \"Shortcodes.\"\nweight = 90\n+++\n\n{body}")
}

#[test]
fn sample_archive_pages_use_the_notice_shortcodes() {
    let site = Site::new();
    site.built();
    let html = site.read("docs/archive/protocols/ammonium/index.html");
    assert!(
        html.contains(
            "<aside class=\"notice notice-archived\" role=\"note\">\n<p><strong>Archived protocol.</strong> \
             Preserved as used from January 2022 until the project ended in June 2024. Not current \
             advice; the app is no longer available. This test was part of the advanced kit only.</p>"
        ),
        "{html}"
    );
    let guide = site.read("docs/archive/quick-start/index.html");
    assert!(
        guide.contains("<p><strong>Archived guide.</strong></p>\n<p>This is the quick start"),
        "{guide}"
    );
    let twin = site.read("docs/archive/quick-start/index.md");
    assert!(
        twin.contains("> **Archived guide.**\n>\n> This is the quick start that Water Watch"),
        "{twin}"
    );
    let passages = site.read("search/passages-1.json");
    assert!(passages.contains(
        "\"text\":\"Archived protocol. Preserved as used from January 2022 until the project \
         ended in June 2024. Not current advice; the app is no longer available. This test was \
         part of the advanced kit only.\""
    ));
    for entry in common::files(&site.dist()) {
        let Ok(text) = std::fs::read_to_string(&entry) else {
            continue;
        };
        assert!(
            !text.contains('\u{E000}') && !text.contains("archived_protocol("),
            "{} keeps a call or a placeholder",
            entry.display()
        );
    }
}

#[test]
fn inline_block_nested_and_code() {
    let site = site_with_args();
    site.write(
        "platform/blocks.md",
        &page(
            "Values: {{ args(n=41, flag=true, items=[\"a\", 'b'], s=\"say \\\"hi\\\"\", x=-2.5) }} inline.\n\
             \n\
             {% notice(kind=\"note\", title=\"Heads up\") %}\n\
             Some *Markdown* inside.\n\
             \n\
             {{ licence(what=\"The chart\", id=\"CC-BY-4.0\") }}\n\
             {% end %}\n\
             \n\
             ```text\n\
             {{ notice(kind=\"nope\") }}\n\
             ```\n\
             \n\
             Write `{{ notice(kind=\"note\") }}` to call it, {% stress() %}*mind* {{ args(n=0) }}{% end %}.\n\
             \n\
             ## After\n",
        ),
    );
    site.built();
    let html = site.read("docs/platform/blocks/index.html");
    assert!(
        html.contains(
            "<p>Values: <span class=\"args\">42 True a|b say &quot;hi&quot; -2.5 \
             /docs/platform/blocks/</span> inline.</p>"
        ),
        "{html}"
    );
    assert!(
        html.contains(
            "<aside class=\"notice notice-note\" role=\"note\">\n<p><strong>Heads up.</strong></p>\n\
             <p>Some <em>Markdown</em> inside.</p>\n<aside class=\"licence-box\" role=\"note\">\
             <p>The chart: <a rel=\"license\" href=\"https://creativecommons.org/licenses/by/4.0/\">"
        ),
        "the body is Markdown and the nested call rendered: {html}"
    );
    assert!(
        html.contains("<code class=\"language-text\">{{ notice(kind=\"nope\") }}\n</code>"),
        "a call in a code block is text: {html}"
    );
    assert!(
        html.contains("<code>{{ notice(kind=\"note\") }}</code>"),
        "a call in a code span is text: {html}"
    );
    assert!(
        html.contains("to call it, <strong class=\"stress\"><em>mind</em> <span class=\"args\">1 "),
        "an inline call with a body, holding another call: {html}"
    );
    assert!(html.contains("<h2 id=\"after\">After</h2>"), "{html}");
    let twin = site.read("docs/platform/blocks/index.md");
    assert!(twin.contains("> **Heads up.**\n>\n> Some *Markdown* inside.\n>\n> *The chart: [Creative Commons Attribution 4.0"), "{twin}");
    assert!(
        twin.contains("```text\n{{ notice(kind=\"nope\") }}\n```"),
        "{twin}"
    );
}

/// The build's error for a page with `body`.
fn refused(body: &str) -> String {
    let site = site_with_args();
    site.write("platform/blocks.md", &page(body));
    site.refused()
}

#[test]
fn mistakes_name_file_line_and_column() {
    let file = "docs/platform/blocks.md";
    let mut wrong = Vec::new();
    for (body, expected) in [
        (
            "Text.\n\n{{ nope(a=1) }}\n",
            ":9:1: unknown shortcode `nope`, expected one of: archived_protocol, args, data, licence, notice, stress",
        ),
        (
            "{{ notice(knd=\"note\") }}\n",
            ":7:1: shortcode `notice` has no argument `knd`, expected one of: kind, text, title",
        ),
        (
            "{{ notice(kind=\"loud\") }}\n",
            ":7:1: shortcode `notice` (shortcodes/notice.html): invalid operation: notice: kind=\"loud\" is not one of archived, note, warning",
        ),
        (
            "{{ notice() }}\n",
            ":7:1: shortcode `notice` (shortcodes/notice.html): invalid operation: notice needs kind=",
        ),
        (
            "A\n\n{% notice(kind=\"note\") %}\nbody\n",
            ":9:1: `{% notice(…) %}` has no `{% end %}` to close it",
        ),
        (
            "A\n{% end %}\n",
            ":8:1: `{% end %}` without a shortcode to close",
        ),
        (
            "{% licence() %}x{% end %}\n",
            ":7:1: shortcode `licence` does not use a body",
        ),
        ("{{ notice(kind=note) }}\n", ":7:16: expected a value"),
        (
            "{{ notice(kind=\"note) }}\n",
            ":7:16: this string has no closing quote",
        ),
        (
            "{{ notice(\"note\") }}\n",
            ":7:11: expected an argument name",
        ),
        (
            "{{ notice(kind=\"a\", kind=\"b\") }}\n",
            ":7:21: argument `kind` given twice",
        ),
        (
            "{{ notice(kind=\"note\" }}\n",
            ":7:23: expected `,` or `)` after the value of `kind`",
        ),
        (
            "{{ notice(kind=\"note\") %}\n",
            ":7:24: expected `}}` to end the call of shortcode `notice`",
        ),
        (
            "{{ args(items=[1, 2) }}\n",
            ":7:20: expected `,` or `]` in this list",
        ),
        ("{{ args(n=1.2.3) }}\n", ":7:11: `1.2.3` is not a number"),
        (
            "{% notice(kind=\"note\") %}\n![A kit](kit.png)\n{% end %}\n",
            ":7:1: an image inside the body of shortcode `notice` is not processed",
        ),
        (
            "[a]({{ args(n=1) }})\n",
            ":7:5: a shortcode cannot stand in a link's or an image's address",
        ),
        (
            "{{ licence(id=\"WTFPL\") }}\n",
            "is not a licence of site.toml, expected one of: CC-BY-4.0",
        ),
    ] {
        let err = refused(body);
        let named = if expected.starts_with(':') {
            err.contains(&format!("{file}{expected}"))
        } else {
            err.contains(file) && err.contains(expected)
        };
        if !named {
            wrong.push(format!("{body:?}: expected {expected:?} in:\n{err}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_call_alone_on_its_line_is_a_block_without_blank_lines() {
    let site = Site::new();
    site.write(
        "platform/blocks.md",
        &page("Before.\n{{ notice(kind=\"note\", text=\"Mind the step.\") }}\nAfter.\n"),
    );
    site.built();
    let html = site.read("docs/platform/blocks/index.html");
    assert!(
        html.contains(
            "<p>Before.</p>\n<aside class=\"notice notice-note\" role=\"note\">\n\
             <p><strong>Note.</strong> Mind the step.</p>\n</aside>\n<p>After.</p>"
        ),
        "{html}"
    );
}

/// Every shortcode of `templates/shortcodes/` has a section in
/// `docs/writing-content.md` with an example call and a row for each
/// argument its templates read (as the build names them when it refuses
/// an unknown one).
#[test]
fn the_guide_documents_every_shortcode_and_argument() {
    let guide = std::fs::read_to_string(common::repo().join("docs/writing-content.md")).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(common::repo().join("templates/shortcodes"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".html").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 3, "{names:?}");
    for name in names {
        let heading = format!("#### `{name}`\n");
        let start = guide
            .find(&heading)
            .unwrap_or_else(|| panic!("docs/writing-content.md has no section {heading:?}"));
        let section = &guide[start + heading.len()..];
        let section = &section[..section.find("\n#").unwrap_or(section.len())];
        assert!(
            section.contains(&format!("{{{{ {name}(")) || section.contains(&format!("{{% {name}(")),
            "the guide's section on `{name}` has no example call"
        );
        let err = refused(&format!("{{{{ {name}(zz_unknown=1) }}}}\n"));
        let (_, args) = err
            .split_once("expected one of: ")
            .unwrap_or_else(|| panic!("{err}"));
        for arg in args.trim().split(", ") {
            assert!(
                section.contains(&format!("| `{arg}` |")),
                "the guide's section on `{name}` has no row for its argument `{arg}`"
            );
        }
    }
}
