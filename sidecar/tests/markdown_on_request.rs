//! A page URL answers its Markdown twin to a request whose `Accept`
//! prefers `text/markdown` (decision 0046), through the handler: the
//! twin's own type, ETag, compressed twins and 304s, `Vary: Accept` on
//! both representations, and HTML for browsers and generic clients.

use common::handler::{send, state};
use common::{File, Fixture, PAGE};

const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// The default fixture with the twin compressed too, and a page without a
/// twin.
fn fixture() -> Fixture {
    let mut files = common::default_files();
    for f in &mut files {
        if f.key == "docs/guide/index.md" {
            f.bytes = "# Guide\n\nThe Markdown twin, long enough to be compressed.\n"
                .repeat(10)
                .into_bytes();
            f.compress = true;
        }
    }
    files.push(File {
        key: "docs/alone/index.html",
        bytes: common::html("Alone"),
        content_type: "text/html; charset=utf-8",
        cache_control: PAGE,
        compress: true,
    });
    Fixture::with_files(files)
}

#[tokio::test]
async fn accept_chooses_between_the_page_and_its_twin() {
    let f = fixture();
    let s = state(&f);
    let (html, markdown) = (
        f.read("docs/guide/index.html"),
        f.read("docs/guide/index.md"),
    );
    for (accept, wants_markdown) in [
        ("text/markdown", true),
        ("text/markdown, text/html;q=0.5", true),
        ("text/markdown, text/html, */*", true),
        ("text/markdown, text/plain;q=0.9, */*;q=0.8", true),
        ("text/html;q=0.4, text/markdown;q=0.6", true),
        ("text/markdown;q=0", false),
        ("text/markdown;q=0.5, text/html", false),
        ("*/*", false),
        ("text/*", false),
        (BROWSER, false),
    ] {
        let a = send(&s, "GET", "/docs/guide/", &[("accept", accept)]).await;
        assert_eq!(a.status, 200, "{accept}");
        assert_eq!(a.header("vary"), "accept-encoding, accept", "{accept}");
        if wants_markdown {
            assert_eq!(a.body, markdown, "{accept}");
            assert_eq!(a.header("content-type"), "text/markdown; charset=utf-8");
            assert_eq!(a.header("etag"), common::etag(&markdown));
            assert_eq!(a.header("cache-control"), PAGE);
            assert!(!a.has("content-security-policy"), "{accept}");
        } else {
            assert_eq!(a.body, html, "{accept}");
            assert_eq!(a.header("content-type"), "text/html; charset=utf-8");
            assert_eq!(a.header("etag"), common::etag(&html));
            assert!(a.has("content-security-policy"), "{accept}");
        }
    }
    // No Accept at all: the page.
    let plain = send(&s, "GET", "/docs/guide/", &[]).await;
    assert_eq!(plain.body, html);
    assert_eq!(plain.header("vary"), "accept-encoding, accept");
}

#[tokio::test]
async fn the_twin_revalidates_compresses_and_answers_head() {
    let f = fixture();
    let s = state(&f);
    let markdown = f.read("docs/guide/index.md");
    let md = [("accept", "text/markdown")];
    let tag = common::etag(&markdown);

    let not_modified = send(
        &s,
        "GET",
        "/docs/guide/",
        &[md[0], ("if-none-match", tag.as_str())],
    )
    .await;
    assert_eq!(not_modified.status, 304);
    assert_eq!(not_modified.header("etag"), tag);
    assert_eq!(not_modified.header("vary"), "accept-encoding, accept");
    assert!(not_modified.body.is_empty());
    // The twin's tag does not validate the page.
    let page = send(
        &s,
        "GET",
        "/docs/guide/",
        &[("accept", BROWSER), ("if-none-match", tag.as_str())],
    )
    .await;
    assert_eq!(page.status, 200);
    assert_eq!(page.body, f.read("docs/guide/index.html"));

    let br = send(
        &s,
        "GET",
        "/docs/guide/",
        &[md[0], ("accept-encoding", "gzip, br")],
    )
    .await;
    assert_eq!(br.header("content-encoding"), "br");
    assert_eq!(common::unbrotli(&br.body), markdown);
    assert_eq!(br.header("content-type"), "text/markdown; charset=utf-8");
    assert!(br.header("etag") != tag, "each coding its own ETag");
    let gz = send(
        &s,
        "GET",
        "/docs/guide/",
        &[md[0], ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(common::gunzip(&gz.body), markdown);

    let head = send(&s, "HEAD", "/docs/guide/", &md).await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-length"), markdown.len().to_string());
    assert_eq!(head.header("content-type"), "text/markdown; charset=utf-8");
    assert_eq!(head.header("vary"), "accept-encoding, accept");
}

/// The files' own URLs are one representation each, and still say
/// `Vary: Accept`, so a cache keys a page alike under every URL; a page
/// without a twin does not vary by `Accept`.
#[tokio::test]
async fn file_urls_and_pages_without_a_twin_are_not_negotiated() {
    let f = fixture();
    let s = state(&f);
    let md = [("accept", "text/markdown")];
    let html = send(&s, "GET", "/docs/guide/index.html", &md).await;
    assert_eq!(html.body, f.read("docs/guide/index.html"));
    assert_eq!(html.header("vary"), "accept-encoding, accept");
    let twin = send(&s, "GET", "/docs/guide/index.md", &[("accept", BROWSER)]).await;
    assert_eq!(twin.body, f.read("docs/guide/index.md"));
    assert_eq!(twin.header("vary"), "accept-encoding, accept");
    let alone = send(&s, "GET", "/docs/alone/", &md).await;
    assert_eq!(alone.status, 200);
    assert_eq!(alone.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(alone.header("vary"), "accept-encoding");
    let home = send(&s, "GET", "/", &md).await;
    assert_eq!(home.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(home.header("vary"), "accept-encoding");
}
