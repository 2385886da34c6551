//! Publishing one file: kept as it is when its bytes and twins are
//! unchanged, else written (in place into a fresh folder, through a rename
//! over an earlier build) with its compressed twins where smaller.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::chunked::{self, ChunkMemo};
use super::compress::{TWIN_FROM, brotli, cache_key, chunked_cache_key, gzip, worth_it};
use crate::manifest::{
    Encoded, FileEntry, MANIFEST_FILE, cache_policy, compressible, content_type, etag_from_sha256,
    sha256_hex,
};
use crate::twin_cache::{Twin, TwinCache};

/// How a build makes the compressed twins of its files.
#[derive(Clone, Copy, Default)]
pub struct Twins<'a> {
    /// Write `.br` and `.gz` twins at all (`generate build --precompress`,
    /// for fronts that serve them as they are); without them the sidecar
    /// compresses each file on its first request.
    pub precompress: bool,
    /// Where twins are kept between builds.
    pub cache: Option<&'a TwinCache>,
    /// Where the chunks of large files' twins are kept between the builds
    /// of one session (see [`super::republish`]).
    pub memo: Option<&'a ChunkMemo>,
}

impl Twins<'_> {
    /// Every twin made, none cached.
    pub const ALL: Twins<'static> = Twins {
        precompress: true,
        cache: None,
        memo: None,
    };
}

/// One file to publish: path relative to the output directory and its bytes.
#[derive(Debug, Clone)]
pub struct OutFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

fn same_size(path: &Path, size: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == size)
}

pub(super) fn validate_path(path: &str) -> Result<()> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\\')
        || path
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
        || path == MANIFEST_FILE;
    if bad {
        bail!("internal: invalid output path {path:?}");
    }
    Ok(())
}

/// One file published: its manifest entry, whether it was written, and
/// how its twins were made.
pub struct Published {
    pub(super) path: String,
    pub(super) entry: FileEntry,
    pub(super) written: bool,
    pub(super) compressed: usize,
    pub(super) cached: usize,
}

/// Publishes `f` into `out`, where `old` is its entry in the build there
/// (kept as it is when the file is); `fresh` when `out` held nothing when
/// this build began, so no path can exist yet.
pub(super) fn publish_one(
    out: &Path,
    f: &OutFile,
    old: Option<&FileEntry>,
    twins: Twins<'_>,
    fresh: bool,
) -> Result<Published> {
    let Twins {
        precompress,
        cache,
        memo,
    } = twins;
    let sha = sha256_hex(&f.bytes);
    let ctype = content_type(&f.path);
    let target = out.join(&f.path);

    let unchanged = old.filter(|o| {
        o.sha256 == sha
            && o.etag == etag_from_sha256(&sha)
            && o.content_type == ctype
            && same_size(&target, o.size)
            && o.encodings
                .values()
                .all(|e| same_size(&out.join(&e.path), e.size))
    });
    if let Some(old) = unchanged {
        let mut entry = old.clone();
        entry.cache_control = cache_policy(&f.path).to_owned();
        return Ok(Published {
            path: f.path.clone(),
            entry,
            written: false,
            compressed: 0,
            cached: 0,
        });
    }

    let write = if fresh { write_new } else { write_atomic };
    if !fresh && let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    write(&target, &f.bytes)?;
    let mut encodings = BTreeMap::new();
    let (mut compressed, mut cached) = (0, 0);
    let mut twin = |coding: &str, compress: fn(&[u8]) -> Vec<u8>| -> Twin {
        let key = cache_key(coding);
        if let Some(hit) = cache.and_then(|c| c.get(&sha, &key)) {
            cached += 1;
            return hit;
        }
        let bytes = compress(&f.bytes);
        let twin_sha = sha256_hex(&bytes);
        let twin = (bytes, twin_sha);
        if let Some(c) = cache {
            c.put(&sha, &key, &twin);
        }
        compressed += 1;
        twin
    };
    let mut twins: Vec<(&str, &str, Twin)> = Vec::new();
    let compressible = precompress && compressible(ctype);
    if compressible && f.bytes.len() >= chunked::CHUNKED_FROM {
        let (br, gz, counts) = chunked::twins(&f.bytes, memo, cache, &chunked_cache_key());
        compressed += counts.compressed;
        cached += counts.reused;
        let (br_sha, gz_sha) = rayon::join(|| sha256_hex(&br), || sha256_hex(&gz));
        twins.push(("br", "br", (br, br_sha)));
        twins.push(("gzip", "gz", (gz, gz_sha)));
    } else if compressible && f.bytes.len() >= TWIN_FROM {
        twins.push(("br", "br", twin("br", brotli)));
        twins.push(("gzip", "gz", twin("gzip", gzip)));
    }
    for (coding, ext, (bytes, twin_sha)) in twins {
        let twin_path = format!("{}.{ext}", f.path);
        let twin_target = out.join(&twin_path);
        if worth_it(f.bytes.len(), bytes.len()) {
            write(&twin_target, &bytes)?;
            encodings.insert(
                coding.to_owned(),
                Encoded {
                    path: twin_path,
                    size: bytes.len() as u64,
                    etag: etag_from_sha256(&twin_sha),
                },
            );
        }
    }
    let entry = FileEntry {
        size: f.bytes.len() as u64,
        etag: etag_from_sha256(&sha),
        sha256: sha,
        content_type: ctype.to_owned(),
        cache_control: cache_policy(&f.path).to_owned(),
        encodings,
    };
    Ok(Published {
        path: f.path.clone(),
        entry,
        written: true,
        compressed,
        cached,
    })
}

/// Writes a file no reader can know yet (in a fresh folder) in place; its
/// folder is made when the first try finds none, which spares a page's
/// second file (its Markdown twin, a compressed twin) the folder's system
/// calls.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let written = match std::fs::write(path, bytes) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(path, bytes)
        }
        other => other,
    };
    written.with_context(|| format!("writing {}", path.display()))
}

/// Replaces an existing file through a temporary file and a rename, so a
/// reader (the sidecar, a sync to a CDN) never sees half a file; a new file
/// is written in place, since nothing can have been reading it.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if !path.exists() {
        return std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()));
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp-generate");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
