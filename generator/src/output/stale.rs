//! Removing what earlier builds wrote and this one does not publish.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result};
use walkdir::WalkDir;

use crate::manifest::{MANIFEST_FILE, Manifest};
use crate::walk;

/// Deletes files of earlier builds that this build does not publish.
pub(super) fn remove_stale(out: &Path, manifest: &Manifest) -> Result<usize> {
    let mut keep: HashSet<&str> = HashSet::with_capacity(manifest.files.len() * 3 + 1);
    keep.insert(MANIFEST_FILE);
    for (path, entry) in &manifest.files {
        keep.insert(path);
        for e in entry.encodings.values() {
            keep.insert(&e.path);
        }
    }
    // A folder comes after what it holds, and is removed when it kept
    // nothing. `held[d]`: an entry at depth `d` was kept since the last
    // folder at depth `d - 1` came, so it is one of the next folder's.
    let mut held = vec![false];
    let mut removed = 0;
    // Unsorted: what is removed does not depend on the order.
    for entry in WalkDir::new(out).min_depth(1).contents_first(true) {
        let entry = entry.map_err(|e| {
            let f = walk::failure(e, out);
            anyhow::Error::new(f.error).context(format!("listing {}", f.path.display()))
        })?;
        let (depth, path) = (entry.depth(), entry.path());
        if held.len() < depth + 2 {
            held.resize(depth + 2, false);
        }
        let kept = if entry.file_type().is_dir() {
            let holds = std::mem::take(&mut held[depth + 1]);
            if !holds {
                std::fs::remove_dir(path)
                    .with_context(|| format!("removing {}", path.display()))?;
            }
            holds
        } else if keep.contains(walk::slash_path(out, path).as_str()) {
            true
        } else {
            std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))?;
            removed += 1;
            false
        };
        held[depth] |= kept;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::FileEntry;

    #[test]
    fn removes_what_is_not_listed_and_the_folders_left_empty() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        for d in ["a/b/c", "a/d", "e/f", "g"] {
            std::fs::create_dir_all(out.join(d)).unwrap();
        }
        for f in [
            "a/b/c/old",
            "a/d/kept",
            "a/d/.hidden",
            "e/f/old",
            "top",
            MANIFEST_FILE,
        ] {
            std::fs::write(out.join(f), b"x").unwrap();
        }
        let mut manifest = Manifest::default();
        let entry = FileEntry {
            size: 1,
            sha256: String::new(),
            etag: String::new(),
            content_type: String::new(),
            cache_control: String::new(),
            encodings: Default::default(),
        };
        manifest.files.insert("a/d/kept".into(), entry);
        assert_eq!(remove_stale(out, &manifest).unwrap(), 4);
        let mut left: Vec<String> = WalkDir::new(out)
            .min_depth(1)
            .into_iter()
            .map(|e| walk::slash_path(out, e.unwrap().path()))
            .collect();
        left.sort();
        assert_eq!(left, ["a", "a/d", "a/d/kept", MANIFEST_FILE]);
    }
}
