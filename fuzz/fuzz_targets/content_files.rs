//! The generator's content readers over a real content folder: the
//! repository's `content/` copied once (its documents cut to one), then, per
//! input, one file replaced by the input and the whole folder loaded. The
//! first byte picks the file: a TOML file of the site or the service (or
//! the service's Dutch texts), the synonyms, a document or the open-data
//! catalogue. Asserts that loading never panics, that an error
//! names the replaced file (or one it refers to) with a position inside it
//! and a message, and that what loads keeps the loader's promises.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use generator::content::load_content;
use libfuzzer_sys::fuzz_target;

const FILES: [&str; 18] = [
    "site.toml",
    "service/organisation.toml",
    "service/services.toml",
    "service/projects.toml",
    "service/evidence.toml",
    "service/scope.toml",
    "service/consortium.toml",
    "service/contact.toml",
    "service/guardrails.toml",
    // The service texts in another language, beside the files they
    // translate (decision 0268).
    "service/organisation.nl.toml",
    "service/projects.nl.toml",
    "service/scope.nl.toml",
    "service/consortium.nl.toml",
    "service/contact.nl.toml",
    "service/guardrails.nl.toml",
    "synonyms.toml",
    "docs/page.md",
    "catalog.toml",
];

const DOC: &str = "+++\ntitle = \"A page\"\nsummary = \"One page.\"\nweight = 1\nupdated = \"2026-11-01\"\n+++\n\n# A page\n\nText.\n";

struct Folder {
    _dir: tempfile::TempDir,
    root: PathBuf,
    originals: Vec<Vec<u8>>,
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn folder() -> &'static Folder {
    static FOLDER: OnceLock<Folder> = OnceLock::new();
    FOLDER.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../content");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("content");
        copy(&source, &root);
        copy(&source.join("service"), &root.join("service"));
        // The files site.toml names (its social_image).
        copy(&source.join("files/img"), &root.join("files/img"));
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/page.md"), DOC).unwrap();
        // The catalogue's datasets describe the one page left.
        let catalog = std::fs::read_to_string(root.join("catalog.toml")).unwrap();
        let catalog = catalog
            .lines()
            .map(|l| {
                if l.starts_with("page = ") {
                    "page = \"/docs/page/\""
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(root.join("catalog.toml"), catalog + "\n").unwrap();
        load_content(&root).expect("the copied content loads");
        let originals = FILES
            .iter()
            .map(|f| std::fs::read(root.join(f)).unwrap())
            .collect();
        Folder {
            _dir: dir,
            root,
            originals,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let f = folder();
    let index = usize::from(pick) % FILES.len();
    let path = f.root.join(FILES[index]);
    std::fs::write(&path, text).unwrap();
    let result = load_content(&f.root);
    std::fs::write(&path, &f.originals[index]).unwrap();
    match result {
        Ok(content) => {
            assert!(!content.documents.is_empty());
            for d in &content.documents {
                assert!(d.url.starts_with('/') && d.url.ends_with('/'), "{}", d.url);
                assert!(!d.front.title.trim().is_empty());
            }
            for group in &content.synonyms {
                assert!(group.len() >= 2);
            }
        }
        Err(e) => {
            assert!(!e.message.is_empty());
            assert!(e.file.starts_with(&f.root), "{e:?}");
            if e.file == path && e.line > 0 {
                let lines = String::from_utf8_lossy(text).lines().count().max(1);
                // Front matter errors count the opening `+++`.
                assert!(e.line <= lines + 2, "{e:?} of {lines} lines");
                assert!(e.column >= 1);
            }
        }
    }
});
