//! Removing what earlier builds wrote and this one does not publish.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result};

use crate::manifest::{MANIFEST_FILE, Manifest};

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
    let mut removed = 0;
    sweep(out, "", &keep, &mut removed)?;
    Ok(removed)
}

/// Removes what `keep` does not name under `dir` (`rel` is its path relative
/// to the output directory); true when `dir` ended up empty.
fn sweep(dir: &Path, rel: &str, keep: &HashSet<&str>, removed: &mut usize) -> Result<bool> {
    let mut empty = true;
    for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let child = if rel.is_empty() {
            name.into_owned()
        } else {
            format!("{rel}/{name}")
        };
        if entry.file_type()?.is_dir() {
            if sweep(&path, &child, keep, removed)? {
                std::fs::remove_dir(&path)
                    .with_context(|| format!("removing {}", path.display()))?;
            } else {
                empty = false;
            }
        } else if keep.contains(child.as_str()) {
            empty = false;
        } else {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
            *removed += 1;
        }
    }
    Ok(empty)
}
