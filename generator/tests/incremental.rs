//! `generate serve`'s rebuilds (`pipeline::Session`): after each edit the
//! folder holds, byte for byte, what a whole build of the edited content
//! writes, and an edit of documents renders only the pages that show it.

use std::path::PathBuf;

use generator::pipeline::{Rebuilt, Session};
use generator::{BuildOptions, build};

use common::{copy_dir, repo, tree};

struct Fixture {
    tmp: tempfile::TempDir,
    content: PathBuf,
    templates: PathBuf,
    out: PathBuf,
    session: Session,
    fresh_builds: usize,
    precompress: bool,
}

impl Fixture {
    /// A session that writes twins (`--precompress`), the harder case.
    fn new() -> Self {
        Self::with(true)
    }

    fn with(precompress: bool) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let content = tmp.path().join("content");
        let templates = tmp.path().join("templates");
        copy_dir(&repo().join("content"), &content);
        copy_dir(&repo().join("templates"), &templates);
        let out = tmp.path().join("dist");
        let session = Session::new(BuildOptions {
            content: content.clone(),
            templates: templates.clone(),
            out: out.clone(),
            base_url: Some("http://127.0.0.1:8123".into()),
            api_origin: None,
            progress: false,
            cache: Some(tmp.path().join("cache")),
            precompress,
            drafts: false,
            snapshots: None,
        });
        Self {
            precompress,
            tmp,
            content,
            templates,
            out,
            session,
            fresh_builds: 0,
        }
    }

    fn rebuild(&mut self, changed: &[PathBuf]) -> Rebuilt {
        self.session.rebuild(changed).unwrap()
    }

    /// Asserts the session's folder is what a whole build (no cache, a
    /// fresh folder) of the same inputs writes.
    fn assert_whole_build(&mut self, what: &str) {
        self.fresh_builds += 1;
        let dir = self.tmp.path().join(format!("fresh-{}", self.fresh_builds));
        build(&BuildOptions {
            content: self.content.clone(),
            templates: self.templates.clone(),
            out: dir.clone(),
            base_url: Some("http://127.0.0.1:8123".into()),
            api_origin: None,
            progress: false,
            cache: None,
            precompress: self.precompress,
            drafts: false,
            snapshots: None,
        })
        .unwrap();
        let (ours, whole) = (tree(&self.out), tree(&dir));
        let differ: Vec<&String> = whole
            .keys()
            .chain(ours.keys())
            .filter(|k| ours.get(*k) != whole.get(*k))
            .collect();
        assert!(
            differ.is_empty(),
            "{what}: differs from a whole build in {differ:?}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn edit(&self, rel: &str, edit: impl FnOnce(String) -> String) -> PathBuf {
        let path = self.content.join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, edit(text)).unwrap();
        path
    }
}

#[test]
fn each_edit_renders_only_what_shows_it_and_ends_as_a_whole_build() {
    let mut f = Fixture::new();
    let first = f.rebuild(&[]);
    assert!(!first.incremental);
    f.assert_whole_build("the first build");

    // A sentence in one page: that page alone is rendered; its HTML, its
    // twin, the search files change, and nothing else is written but the
    // manifest's list of them.
    let ph = f.edit("docs/archive/protocols/ph.md", |t| {
        format!("{t}\nA sentence the test adds, with the word zymurgical.\n")
    });
    let r = f.rebuild(std::slice::from_ref(&ph));
    assert!(r.incremental, "{}", r.line());
    assert_eq!(r.summary.pages, 1, "{}", r.line());
    f.assert_whole_build("a sentence added");
    let passages = contract::search::read_passages(contract::search::read_from(&f.out)).unwrap();
    assert!(
        passages
            .passages
            .iter()
            .any(|p| p.text.contains("zymurgical"))
    );

    // A new title: the page, the section's listing and the previous and
    // next pages (which name it) are rendered; nothing else.
    let r = f.rebuild(&[f.edit("docs/archive/protocols/ph.md", |t| {
        t.replacen("title = \"", "title = \"Renamed: ", 1)
    })]);
    assert!(r.incremental);
    assert_eq!(r.summary.pages, 4, "{}", r.line());
    f.assert_whole_build("a page renamed");
    let listing = std::fs::read_to_string(f.out.join("docs/archive/protocols/index.html")).unwrap();
    assert!(listing.contains("Renamed: "));

    // A section's title is in the breadcrumbs of every page under it.
    let r = f.rebuild(&[f.edit("docs/archive/protocols/_index.md", |t| {
        t.replacen("title = \"", "title = \"Renamed section: ", 1)
    })]);
    assert!(r.incremental);
    assert!(r.summary.pages >= 9, "{}", r.line());
    f.assert_whole_build("a section renamed");

    // A weight that moves a page to the front of its section.
    let r = f.rebuild(&[f.edit("docs/archive/protocols/turbidity.md", |t| {
        let weight = t.lines().find(|l| l.starts_with("weight = ")).unwrap();
        t.replacen(weight, "weight = -100", 1)
    })]);
    assert!(r.incremental);
    f.assert_whole_build("a page moved");

    // Two documents at once, and an editor's swap file beside them (which
    // the build skips, so the rebuild does too).
    let swap = f.content.join("docs/archive/.quick-start.md.swp");
    std::fs::write(&swap, "swap").unwrap();
    let a = f.edit("docs/data/globe.md", |t| format!("{t}\nOne more line.\n"));
    let b = f.edit("docs/_index.md", |t| format!("{t}\nAnother line.\n"));
    let r = f.rebuild(&[a, swap.clone(), b]);
    assert!(r.incremental, "{}", r.line());
    f.assert_whole_build("two pages and a swap file");
    std::fs::remove_file(&swap).unwrap();

    // A broken page fails the rebuild and leaves the last build in place;
    // once mended, the rebuild is whole again.
    let before = tree(&f.out);
    let broken = f.edit("docs/data/globe.md", |t| {
        t.replacen("+++\n", "+++\ntitle = \n", 1)
    });
    let err = f
        .session
        .rebuild(std::slice::from_ref(&broken))
        .unwrap_err();
    assert!(format!("{err:#}").contains("globe.md"), "{err:#}");
    assert_eq!(tree(&f.out), before);
    let mended = f.edit("docs/data/globe.md", |t| {
        t.replacen("+++\ntitle = \n", "+++\n", 1)
    });
    let r = f.rebuild(&[mended]);
    assert!(!r.incremental);
    f.assert_whole_build("a mended page");

    // A template, a new document and a removed one: whole builds.
    let page_html = f.templates.join("base.html");
    let text = std::fs::read_to_string(&page_html).unwrap();
    std::fs::write(
        &page_html,
        text.replacen("</main>", "<!-- test --></main>", 1),
    )
    .unwrap();
    let r = f.rebuild(&[page_html]);
    assert!(!r.incremental);
    f.assert_whole_build("a template changed");
    let added = f.content.join("docs/data/added.md");
    std::fs::write(
        &added,
        "+++\ntitle = \"Added\"\nsummary = \"A page the test adds.\"\n+++\nBody\n",
    )
    .unwrap();
    let r = f.rebuild(std::slice::from_ref(&added));
    assert!(!r.incremental);
    f.assert_whole_build("a page added");
    std::fs::remove_file(&added).unwrap();
    let r = f.rebuild(&[added]);
    assert!(!r.incremental);
    assert!(!f.out.join("docs/data/added/index.html").exists());
    f.assert_whole_build("a page removed");

    // And after all that, an edit is incremental again.
    let r = f.rebuild(&[f.edit("docs/data/statistics.md", |t| format!("{t}\nLast.\n"))]);
    assert!(r.incremental);
    assert_eq!(r.summary.pages, 1);
    f.assert_whole_build("a last edit");
}

/// The preview's own setting: no twins, so an edit compresses nothing.
#[test]
fn without_twins_each_edit_ends_as_a_whole_build_too() {
    let mut f = Fixture::with(false);
    assert!(!f.rebuild(&[]).incremental);
    f.assert_whole_build("the first build");
    let ph = f.edit("docs/archive/protocols/ph.md", |t| {
        format!("{t}\nA sentence the test adds.\n")
    });
    let r = f.rebuild(std::slice::from_ref(&ph));
    assert!(r.incremental && r.summary.pages == 1, "{}", r.line());
    assert_eq!(r.summary.stats.compressed, 0, "{}", r.line());
    f.assert_whole_build("a sentence added");
    let r = f.rebuild(&[f.edit("docs/archive/protocols/ph.md", |t| {
        t.replacen("title = \"", "title = \"Renamed: ", 1)
    })]);
    assert!(r.incremental, "{}", r.line());
    f.assert_whole_build("a page renamed");
    assert!(!f.out.join("index.html.br").exists());
}

#[test]
fn large_search_files_are_rejoined_from_kept_chunks_byte_for_byte() {
    let mut f = Fixture::new();
    // Enough text that the parts of the passages pass 256 KiB and are
    // compressed in chunks (the index's parts, without the text, stay
    // small).
    let bulk = f.content.join("docs/bulk");
    std::fs::create_dir_all(&bulk).unwrap();
    std::fs::write(
        bulk.join("_index.md"),
        "+++\ntitle = \"Bulk\"\nsummary = \"Many pages.\"\n+++\nPages.\n",
    )
    .unwrap();
    let mut seed = 7u64;
    for i in 0..400 {
        let mut body = String::new();
        for h in 0..4 {
            body.push_str(&format!("\n## Part {h}\n\n"));
            for _ in 0..120 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                body.push_str(&format!("w{} ", (seed >> 33) % 3000));
            }
        }
        std::fs::write(
            bulk.join(format!("page-{i:03}.md")),
            format!("+++\ntitle = \"Page {i}\"\nsummary = \"Page {i} of many.\"\n+++\n{body}\n"),
        )
        .unwrap();
    }
    f.rebuild(&[]);
    let len = |part: &str| {
        std::fs::metadata(f.out.join("search").join(part))
            .unwrap()
            .len()
    };
    assert!(len("passages-2.json") > 256 << 10);
    assert!(len("index-2.json") < 64 << 10);
    f.assert_whole_build("a large site");
    for (i, page) in ["page-123.md", "page-007.md", "page-399.md"]
        .iter()
        .enumerate()
    {
        let r = f.rebuild(&[f.edit(&format!("docs/bulk/{page}"), |t| {
            format!("{t}\nEdit number {i}.\n")
        })]);
        assert!(r.incremental);
        assert_eq!(r.summary.pages, 1);
        // Only the edited page's chunk of each large file was compressed,
        // and the browser index's head and the few term and near shards
        // whose postings the edit changed (16 to 18 files measured here,
        // where shards are large enough to be compressed in chunks).
        assert!(
            r.summary.stats.compressed <= 2 * 2 + 2 * 2 + 16,
            "{} ({} compressed)",
            r.line(),
            r.summary.stats.compressed
        );
        f.assert_whole_build(&format!("edit {i} of a large site"));
    }
}
