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
//! path>`, with the size and modification time of the manifest the build
//! wrote and the size of every file and twin it lists; it is removed
//! before any build writes, and written again only after a build finished.
//! The output must still be that build: its manifest is the one written
//! then, and every file and twin is there with its size. The inputs are
//! listed while the output is checked, each file relative to its open
//! folder. (The list in the stamp spares parsing the manifest, a third of
//! the check at 10,000 pages; the manifest's own size and time spare
//! reading and hashing 0.7 MB at 1,000 pages.)
//!
//! A stamp is an accelerator, never a source: when it cannot be computed,
//! read or written, the build simply renders everything (the output is the
//! same either way, which `generator/tests/build.rs` checks).

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rayon::prelude::*;
use walkdir::WalkDir;

use super::BuildOptions;
use crate::manifest::{MANIFEST_FILE, Manifest, sha256_hex};
use crate::walk;

/// The stamp of one build's inputs, and where it is kept.
pub(super) struct Stamp {
    path: PathBuf,
    inputs: String,
}

/// What the recorded build published: files, their bytes and their twins'.
pub(super) struct Recorded {
    pub files: usize,
    pub bytes: u64,
    pub compressed_bytes: u64,
}

impl Stamp {
    /// The stamp of `opts`' inputs, kept under `cache` (`None` when an
    /// input cannot be listed: the build then reports the real error
    /// itself), and what the build in the output folder published when it
    /// is still the build these inputs wrote. The inputs are listed while
    /// the output is checked: both are a system call per file.
    pub(super) fn check(opts: &BuildOptions, cache: &Path) -> (Option<Stamp>, Option<Recorded>) {
        let Ok(out) = std::path::absolute(&opts.out) else {
            return (None, None);
        };
        let path = cache
            .join("builds")
            .join(sha256_hex(out.to_string_lossy().as_bytes()));
        let (inputs, recorded) = rayon::join(|| inputs(opts), || recorded(&path, &out));
        let Some(inputs) = inputs else {
            return (None, None);
        };
        let recorded = recorded.and_then(|(sha, recorded)| (sha == inputs).then_some(recorded));
        (Some(Stamp { path, inputs }), recorded)
    }

    /// Before a build writes: the output is about to stop being the
    /// recorded build.
    pub(super) fn forget(&self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// After a build finished: records its inputs and its manifest, the
    /// one written to `out`.
    pub(super) fn record(&self, out: &Path, manifest: &Manifest) {
        let Ok(written) = std::fs::metadata(out.join(MANIFEST_FILE)) else {
            return;
        };
        let sizes =
            |e: &crate::manifest::FileEntry| e.encodings.values().map(|t| t.size).sum::<u64>();
        let mut text = format!(
            "{}\n{}\n{} {} {}\n",
            self.inputs,
            file_stamp(&written),
            manifest.files.len(),
            manifest.files.values().map(|e| e.size).sum::<u64>(),
            manifest.files.values().map(sizes).sum::<u64>(),
        );
        for (path, entry) in &manifest.files {
            text.push_str(&format!("{} {path}\n", entry.size));
            for twin in entry.encodings.values() {
                text.push_str(&format!("{} {}\n", twin.size, twin.path));
            }
        }
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

/// The SHA-256 of `opts`' inputs: the generator, the options that reach
/// the output and every file under the content and template folders.
fn inputs(opts: &BuildOptions) -> Option<String> {
    let mut h = Vec::new();
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
    let snapshots = opts.snapshots.iter().map(|d| ("snapshots", d));
    for (name, dir) in [("content", &opts.content), ("templates", &opts.templates)]
        .into_iter()
        .chain(snapshots)
    {
        let dir = std::path::absolute(dir).ok()?;
        line(&mut h, name, &dir.to_string_lossy());
        h.extend(walk(&dir)?);
    }
    Some(sha256_hex(&h))
}

/// The inputs' SHA-256 the stamp at `path` records, and what that build
/// published, when `out` still holds it: its manifest has the recorded
/// size and modification time, and every file and twin is there with its
/// size.
fn recorded(path: &Path, out: &Path) -> Option<(String, Recorded)> {
    let recorded = std::fs::read_to_string(path).ok()?;
    let mut lines = recorded.lines();
    let inputs = lines.next()?.to_owned();
    let manifest = lines.next()?;
    let mut counts = lines.next()?.split(' ').map(str::parse::<u64>);
    let (Some(Ok(files)), Some(Ok(bytes)), Some(Ok(compressed_bytes))) =
        (counts.next(), counts.next(), counts.next())
    else {
        return None;
    };
    if file_stamp(&std::fs::metadata(out.join(MANIFEST_FILE)).ok()?) != manifest {
        return None;
    }
    let listed: Vec<&str> = lines.collect();
    all_there(out, &listed).then_some((
        inputs,
        Recorded {
            files: usize::try_from(files).ok()?,
            bytes,
            compressed_bytes,
        },
    ))
}

/// Whether every `size path` line names a file under `out` of that size.
/// Each is looked up relative to the open output folder: a whole path
/// walks the folder's own components again for every file, which was a
/// third of the check at 1,000 pages.
#[cfg(unix)]
fn all_there(out: &Path, listed: &[&str]) -> bool {
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let Ok(dir) = rustix::fs::open(out, flags, Mode::empty()) else {
        return false;
    };
    listed.par_iter().all(|line| {
        line.split_once(' ').is_some_and(|(size, path)| {
            rustix::fs::statat(&dir, path, AtFlags::empty()).is_ok_and(|st| {
                FileType::from_raw_mode(st.st_mode).is_file()
                    && size.parse().ok() == u64::try_from(st.st_size).ok()
            })
        })
    })
}

/// Whether every `size path` line names a file under `out` of that size.
#[cfg(not(unix))]
fn all_there(out: &Path, listed: &[&str]) -> bool {
    listed.par_iter().all(|line| {
        line.split_once(' ').is_some_and(|(size, path)| {
            std::fs::metadata(out.join(path))
                .is_ok_and(|m| m.is_file() && size.parse() == Ok(m.len()))
        })
    })
}

fn line(h: &mut impl Extend<u8>, key: &str, value: &str) {
    h.extend(key.bytes());
    h.extend([0]);
    h.extend(value.bytes());
    h.extend([b'\n']);
}

fn file_stamp(meta: &std::fs::Metadata) -> String {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{} {modified}", meta.len())
}

/// Every entry under `dir` as the lines the stamp hashes: its path
/// relative to `dir`, and for a file its size and modification time.
/// Hidden entries count too, and symbolic links are followed: any change
/// that could reach the output is a change. The folders are listed in one
/// walk, in the file system's order, and the files' metadata is read in
/// parallel; the lines are then sorted by path, so the stamp is the same
/// whatever that order was (sorting each folder's names during the walk
/// cost more, measured at 10,000 files).
fn walk(dir: &Path) -> Option<Vec<u8>> {
    let entries: Vec<walkdir::DirEntry> = WalkDir::new(dir)
        .min_depth(1)
        .follow_links(true)
        .into_iter()
        .collect::<Result<_, _>>()
        .ok()?;
    let mut lines: Vec<(String, Vec<u8>)> = entries
        .par_iter()
        .map(|e| {
            let child = format!("/{}", walk::slash_path(dir, e.path()));
            let mut h = Vec::new();
            if e.file_type().is_dir() {
                line(&mut h, "dir", &child);
            } else {
                line(&mut h, &child, &file_stamp(&e.metadata().ok()?));
            }
            Some((child, h))
        })
        .collect::<Option<_>>()?;
    lines.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Some(lines.into_iter().flat_map(|(_, h)| h).collect())
}
