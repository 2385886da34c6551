//! The no-change rebuild: a build whose inputs are those of the build that
//! wrote the output folder, and whose output is still that build, writes
//! nothing and renders nothing.
//!
//! The inputs are named by a stamp, as `make` and Cargo do: every file
//! under the content and template folders by relative path, size and
//! modification time, the options that reach the output (base URL, API
//! origin) and the generator binary itself (size and modification time, so
//! a rebuilt generator never trusts an older one's work). The stamp is kept
//! in the cache folder, under `builds/<SHA-256 of the output folder's
//! path>`, with the SHA-256 of the manifest the build wrote; it is removed
//! before any build writes, and written again only after a build finished.
//! The output must still be that build: its manifest hashes to the recorded
//! value, and every file and twin it lists is there with its size.
//!
//! A stamp is an accelerator, never a source: when it cannot be computed,
//! read or written, the build simply renders everything (the output is the
//! same either way, which `generator/tests/build.rs` checks).

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::BuildOptions;
use crate::manifest::{MANIFEST_FILE, Manifest, sha256_hex};

/// The stamp of one build's inputs, and where it is kept.
pub(super) struct Stamp {
    path: PathBuf,
    inputs: String,
}

impl Stamp {
    /// The stamp of `opts`' inputs, kept under `cache`; `None` when an input
    /// cannot be listed (the build then reports the real error itself).
    pub(super) fn of(opts: &BuildOptions, cache: &Path) -> Option<Stamp> {
        let out = std::path::absolute(&opts.out).ok()?;
        let mut h = Sha256::new();
        let exe = std::env::current_exe().ok()?;
        line(&mut h, "generator", env!("CARGO_PKG_VERSION"));
        line(&mut h, "binary", &file_stamp(&std::fs::metadata(exe).ok()?));
        line(&mut h, "base-url", opts.base_url.as_deref().unwrap_or(""));
        line(&mut h, "precompress", &opts.precompress.to_string());
        line(
            &mut h,
            "api-origin",
            opts.api_origin.as_deref().unwrap_or(""),
        );
        for (name, dir) in [("content", &opts.content), ("templates", &opts.templates)] {
            let dir = std::path::absolute(dir).ok()?;
            line(&mut h, name, &dir.to_string_lossy());
            walk(&mut h, &dir, "").ok()?;
        }
        let key = sha256_hex(out.to_string_lossy().as_bytes());
        Some(Stamp {
            path: cache.join("builds").join(key),
            inputs: hex::encode(h.finalize()),
        })
    }

    /// The manifest of the output folder when it is still the build this
    /// stamp's inputs wrote.
    pub(super) fn unchanged(&self, out: &Path) -> Option<Manifest> {
        let recorded = std::fs::read_to_string(&self.path).ok()?;
        let (inputs, manifest_sha) = recorded.trim_end().split_once('\n')?;
        if inputs != self.inputs {
            return None;
        }
        let bytes = std::fs::read(out.join(MANIFEST_FILE)).ok()?;
        if sha256_hex(&bytes) != manifest_sha {
            return None;
        }
        let manifest: Manifest = serde_json::from_slice(&bytes).ok()?;
        let present = |path: &str, size: u64| {
            std::fs::metadata(out.join(path)).is_ok_and(|m| m.is_file() && m.len() == size)
        };
        let whole = manifest.files.par_iter().all(|(path, entry)| {
            present(path, entry.size) && entry.encodings.values().all(|e| present(&e.path, e.size))
        });
        whole.then_some(manifest)
    }

    /// Before a build writes: the output is about to stop being the
    /// recorded build.
    pub(super) fn forget(&self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// After a build finished: records its inputs and its manifest.
    pub(super) fn record(&self, out: &Path) {
        let Ok(bytes) = std::fs::read(out.join(MANIFEST_FILE)) else {
            return;
        };
        let text = format!("{}\n{}\n", self.inputs, sha256_hex(&bytes));
        let Some(dir) = self.path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &self.path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

fn line(h: &mut Sha256, key: &str, value: &str) {
    h.update(key.as_bytes());
    h.update([0]);
    h.update(value.as_bytes());
    h.update([b'\n']);
}

fn file_stamp(meta: &std::fs::Metadata) -> String {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{} {modified}", meta.len())
}

/// Every entry under `dir`, in name order: its relative path, and for a
/// file its size and modification time.
fn walk(h: &mut Sha256, dir: &Path, rel: &str) -> std::io::Result<()> {
    let mut entries: Vec<(String, std::fs::Metadata, PathBuf)> = std::fs::read_dir(dir)?
        .map(|e| {
            let e = e?;
            let path = e.path();
            let meta = std::fs::metadata(&path)?;
            Ok((e.file_name().to_string_lossy().into_owned(), meta, path))
        })
        .collect::<std::io::Result<_>>()?;
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, meta, path) in entries {
        let child = format!("{rel}/{name}");
        if meta.is_dir() {
            line(h, "dir", &child);
            walk(h, &path, &child)?;
        } else {
            line(h, &child, &file_stamp(&meta));
        }
    }
    Ok(())
}
