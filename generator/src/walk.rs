//! Folder walks, through `walkdir`: the visible entries of the content and
//! template folders, and what every walk of the generator shares.
//!
//! Every walk goes in file-name order, so what a build reads, and which
//! error it reports first, does not depend on the order in which a file
//! system lists a folder. Hidden entries (a name starting with `.`:
//! editors' swap files, `.DS_Store`, `.git/`) are never inputs.

use std::io;
use std::path::{Path, PathBuf};

use walkdir::{DirEntry, WalkDir};

/// Where a walk failed, and the error that listing there gave.
#[derive(Debug)]
pub struct Failure {
    pub path: PathBuf,
    pub error: io::Error,
}

/// The entries under `root` (not `root` itself) in name order, without
/// hidden ones and without the top-level names in `except`; a folder left
/// out is not entered. Fails as listing `root` would when it is absent or
/// not a folder.
pub fn visible<'a>(
    root: &'a Path,
    except: &'a [&'a str],
) -> impl Iterator<Item = Result<DirEntry, Failure>> + 'a {
    WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(move |e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name.starts_with('.') || e.depth() == 1 && except.contains(&name.as_ref()))
        })
        .filter_map(move |entry| match entry {
            // walkdir yields a root that is no folder as an entry of its own.
            Ok(e) if e.depth() == 0 => (!e.file_type().is_dir())
                .then(|| std::fs::read_dir(e.path()).err())
                .flatten()
                .map(|error| {
                    Err(Failure {
                        path: e.into_path(),
                        error,
                    })
                }),
            Ok(e) => Some(Ok(e)),
            Err(e) => Some(Err(failure(e, root))),
        })
}

/// A walk's error as the place and the I/O error it stands for.
pub fn failure(e: walkdir::Error, root: &Path) -> Failure {
    let path = e.path().unwrap_or(root).to_owned();
    let text = e.to_string();
    let error = e.into_io_error().unwrap_or_else(|| io::Error::other(text));
    Failure { path, error }
}

/// `path` relative to `root`, its parts joined by `/` (lossily UTF-8).
pub fn slash_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    if std::path::MAIN_SEPARATOR == '/' {
        return rel.to_string_lossy().into_owned();
    }
    let mut out = String::with_capacity(rel.as_os_str().len());
    for (i, part) in rel.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&part.as_os_str().to_string_lossy());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(root: &Path, except: &[&str]) -> Vec<String> {
        visible(root, except)
            .map(|e| slash_path(root, e.unwrap().path()))
            .collect()
    }

    #[test]
    fn walks_in_name_order_without_hidden_entries() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["b", "a/z", ".git", "assets", "c/assets"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            "b/2",
            "b/1",
            "a/z/x",
            ".git/HEAD",
            "a/.swp",
            "assets/s.css",
            "c/assets/t",
        ] {
            std::fs::write(root.join(f), b"").unwrap();
        }
        assert_eq!(
            names(root, &[]),
            [
                "a",
                "a/z",
                "a/z/x",
                "assets",
                "assets/s.css",
                "b",
                "b/1",
                "b/2",
                "c",
                "c/assets",
                "c/assets/t"
            ]
        );
        assert_eq!(
            names(root, &["assets"]),
            [
                "a",
                "a/z",
                "a/z/x",
                "b",
                "b/1",
                "b/2",
                "c",
                "c/assets",
                "c/assets/t"
            ]
        );
    }

    #[test]
    fn a_missing_root_or_a_file_fails_as_listing_would() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let err = visible(&missing, &[]).next().unwrap().unwrap_err();
        assert_eq!(err.error.kind(), io::ErrorKind::NotFound);
        assert_eq!(err.path, missing);
        let file = dir.path().join("file");
        std::fs::write(&file, b"").unwrap();
        let err = visible(&file, &[]).next().unwrap().unwrap_err();
        assert_eq!(
            err.error.to_string(),
            std::fs::read_dir(&file).unwrap_err().to_string()
        );
    }
}
