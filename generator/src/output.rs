//! Writing the output tree: each file once, with `--precompress` its
//! compressed twins where smaller, the manifest, and nothing stale.
//!
//! A rebuild reads the previous manifest and skips writing and compressing
//! every file whose bytes did not change, so a no-change rebuild costs the
//! rendering and hashing only. Compression is deterministic, so reuse keeps
//! the output byte-identical to a clean build.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use crate::manifest::{
    self, Encoded, FileEntry, MANIFEST_FILE, Manifest, cache_policy, compressible, content_type,
    etag_from_sha256, sha256_hex,
};
use crate::twin_cache::{Twin, TwinCache};

mod chunked;
pub use chunked::ChunkMemo;

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
    /// of one session (see [`republish`]).
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

/// What writing did, for the build summary.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteStats {
    pub files: usize,
    pub bytes: u64,
    pub compressed_bytes: u64,
    /// Files whose bytes changed (or were new) and were written.
    pub written: usize,
    pub removed: usize,
    /// Twins compressed by this build, and twins taken from the cache.
    pub compressed: usize,
    pub cached: usize,
}

/// Brotli quality 5 compresses our pages within 1 % of quality 9 at ~15×
/// the speed (measured on 10,000 generated pages; 11 is slower still).
const BROTLI_QUALITY: i32 = 5;
/// Window bits: at least 18 (smaller windows are far slower in this
/// encoder), at most 22, otherwise fitted to the file.
const BROTLI_WINDOW: std::ops::RangeInclusive<i32> = 18..=22;
/// gzip is the fallback for clients without brotli: the default level, as
/// level 9 saves under 1 % more on pages at half the speed.
const GZIP_LEVEL: u32 = 6;
/// Not worth a twin unless it saves at least this share of the bytes.
const MIN_SAVING_PERCENT: u64 = 5;

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY,
        lgwin: ((usize::BITS - bytes.len().leading_zeros()) as i32)
            .clamp(*BROTLI_WINDOW.start(), *BROTLI_WINDOW.end()),
        ..Default::default()
    };
    let mut out = Vec::with_capacity(bytes.len() / 3);
    let mut input = bytes;
    brotli::BrotliCompress(&mut input, &mut out, &params).expect("in-memory brotli");
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    // zlib writes the gzip header itself (mtime 0, no name): deterministic.
    // A window no larger than the input keeps per-file setup cheap.
    let window_bits = ((usize::BITS - bytes.len().leading_zeros()) as u8).clamp(9, 15);
    let compress = flate2::Compress::new_gzip(flate2::Compression::new(GZIP_LEVEL), window_bits);
    let mut enc = flate2::write::ZlibEncoder::new_with_compress(
        Vec::with_capacity(bytes.len() / 3),
        compress,
    );
    enc.write_all(bytes).expect("in-memory gzip");
    enc.finish().expect("in-memory gzip")
}

/// The cache's name for a twin's encoding: the encoder and its settings,
/// and the generator's version (its encoders' versions come with it).
fn cache_key(coding: &str) -> String {
    let settings = match coding {
        "br" => format!(
            "q{BROTLI_QUALITY}w{}-{}",
            BROTLI_WINDOW.start(),
            BROTLI_WINDOW.end()
        ),
        _ => format!("l{GZIP_LEVEL}"),
    };
    format!("{coding}-{settings}-{}", env!("CARGO_PKG_VERSION"))
}

/// The cache's name for the chunks of large files ([`chunked`]).
fn chunked_cache_key() -> String {
    format!(
        "chunk-q{BROTLI_QUALITY}-l{GZIP_LEVEL}-{}",
        env!("CARGO_PKG_VERSION")
    )
}

fn worth_it(original: usize, compressed: usize) -> bool {
    (compressed as u64) * 100 <= (original as u64) * (100 - MIN_SAVING_PERCENT)
}

/// Reads the manifest of a previous build, if there is a readable one.
pub fn read_manifest(out: &Path) -> Option<Manifest> {
    let bytes = std::fs::read(out.join(MANIFEST_FILE)).ok()?;
    let m: Manifest = serde_json::from_slice(&bytes).ok()?;
    (m.format == manifest::FORMAT).then_some(m)
}

fn same_size(path: &Path, size: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == size)
}

fn validate_path(path: &str) -> Result<()> {
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

/// Writes `files` into `out`, replacing a previous build there.
///
/// Refuses to touch a non-empty directory that holds no manifest, so a
/// mistaken `--out` cannot delete someone's files. `api_origin` is recorded
/// in the manifest (see [`Manifest::api_origin`]).
pub fn write_tree(
    out: &Path,
    files: Vec<OutFile>,
    api_origin: Option<String>,
    twins: Twins<'_>,
) -> Result<(Manifest, WriteStats)> {
    let publisher = Publisher::open(out, twins)?;
    let staged = files.into_iter().map(Staged::Held).collect();
    publisher.finish(staged, api_origin)
}

/// Publishes the files of one build into its output folder.
///
/// Into a fresh folder (absent, or empty) files are written as soon as they
/// are staged, so a build holds only what it is working on: nothing
/// else can be reading a folder that never held a build. Into an earlier
/// build, staged files are held until [`Publisher::finish`], so an error in
/// any page leaves the previous build whole behind a running server. A
/// fresh folder that a failed build wrote into is emptied again
/// ([`Publisher::discard`]), so the next build may use it.
pub struct Publisher<'a> {
    out: PathBuf,
    previous: Manifest,
    fresh: bool,
    twins: Twins<'a>,
}

/// A staged file: published already (into a fresh folder) or held.
pub enum Staged {
    Written(Published),
    Held(OutFile),
}

impl<'a> Publisher<'a> {
    /// Checks `out` and reads the manifest of a build there, if any.
    pub fn open(out: &Path, twins: Twins<'a>) -> Result<Self> {
        let previous = read_manifest(out);
        let fresh = previous.is_none();
        if fresh && out.exists() {
            let non_empty = std::fs::read_dir(out)
                .with_context(|| format!("listing {}", out.display()))?
                .next()
                .is_some();
            if non_empty {
                bail!(
                    "{} is not empty and holds no {MANIFEST_FILE} from an earlier build; refusing to overwrite it",
                    out.display()
                );
            }
        }
        std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        let mut previous = previous.unwrap_or_default();
        // A build with the other precompression setting keeps none of its
        // files as they are: their twins are to be written or removed.
        // (A precompressed build without a single twin is read as one
        // without: its files are written again, to the same bytes.)
        if previous.files.values().any(|e| !e.encodings.is_empty()) != twins.precompress {
            previous.files.clear();
        }
        Ok(Self {
            out: out.to_owned(),
            previous,
            fresh,
            twins,
        })
    }

    /// Writes `file` now when the folder is fresh, else holds it.
    pub fn stage(&self, file: OutFile) -> Result<Staged> {
        if !self.fresh {
            return Ok(Staged::Held(file));
        }
        validate_path(&file.path)?;
        publish_one(&self.out, &file, None, self.twins, true).map(Staged::Written)
    }

    /// Publishes what is held, removes what this build does not publish
    /// and writes the manifest last.
    pub fn finish(
        &self,
        staged: Vec<Staged>,
        api_origin: Option<String>,
    ) -> Result<(Manifest, WriteStats)> {
        let mut paths: Vec<&str> = staged
            .iter()
            .map(|s| match s {
                Staged::Written(p) => p.path.as_str(),
                Staged::Held(f) => f.path.as_str(),
            })
            .collect();
        paths.sort_unstable();
        for pair in paths.windows(2) {
            if pair[0] == pair[1] {
                bail!("two outputs want the same path {}", pair[0]);
            }
        }
        for s in &staged {
            if let Staged::Held(f) = s {
                validate_path(&f.path)?;
            }
        }
        drop(paths);

        let results: Vec<Result<Published>> = staged
            .into_par_iter()
            .map(|s| match s {
                Staged::Written(p) => Ok(p),
                Staged::Held(f) => publish_one(
                    &self.out,
                    &f,
                    self.previous.files.get(&f.path),
                    self.twins,
                    false,
                ),
            })
            .collect();

        let mut manifest = Manifest {
            format: manifest::FORMAT,
            api_origin,
            files: BTreeMap::new(),
        };
        let mut stats = WriteStats::default();
        for r in results {
            let p = r?;
            stats.files += 1;
            stats.bytes += p.entry.size;
            stats.compressed_bytes += p.entry.encodings.values().map(|e| e.size).sum::<u64>();
            stats.written += usize::from(p.written);
            stats.compressed += p.compressed;
            stats.cached += p.cached;
            manifest.files.insert(p.path, p.entry);
        }
        if let Some(cache) = self.twins.cache {
            cache.sweep();
        }

        // A fresh folder holds only what this build wrote.
        if !self.fresh {
            stats.removed = remove_stale(&self.out, &manifest)?;
        }

        write_manifest(&self.out, &manifest)?;
        Ok((manifest, stats))
    }

    /// After a failed build: empties a fresh folder again (it was empty or
    /// absent before this build); an earlier build is left as it was.
    pub fn discard(&self) {
        if !self.fresh {
            return;
        }
        if let Ok(entries) = std::fs::read_dir(&self.out) {
            for entry in entries.flatten() {
                let path = entry.path();
                let _ = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            }
        }
    }
}

/// Writes `manifest` last, as the mark of a whole build (unless it holds
/// these bytes already).
fn write_manifest(out: &Path, manifest: &Manifest) -> Result<()> {
    // About 700 bytes an entry: one allocation, not a doubling series.
    let mut json = Vec::with_capacity(manifest.files.len() * 768 + 256);
    serde_json::to_writer_pretty(&mut json, manifest).context("serialising the manifest")?;
    json.push(b'\n');
    let manifest_path = out.join(MANIFEST_FILE);
    if std::fs::read(&manifest_path).ok().as_deref() != Some(&json[..]) {
        write_atomic(&manifest_path, &json)?;
    }
    Ok(())
}

/// Publishes `files` into the build in `out` whose manifest is `manifest`,
/// for a rebuild that knows which files it may have changed: each is
/// written (and compressed) only when its bytes changed, every other file
/// of the manifest is kept as it is, and the updated manifest is written
/// last. A file the manifest does not hold is added; nothing is removed
/// (such a rebuild publishes the same paths). The twins of large files
/// reuse the chunks `twins.memo` kept from the last build.
pub fn republish(
    out: &Path,
    manifest: &mut Manifest,
    files: Vec<OutFile>,
    twins: Twins<'_>,
    json: &mut ManifestJson,
) -> Result<WriteStats> {
    for f in &files {
        validate_path(&f.path)?;
    }
    let published: Vec<Published> = files
        .into_par_iter()
        .map(|f| publish_one(out, &f, manifest.files.get(&f.path), twins, false))
        .collect::<Result<_>>()?;
    let mut stats = WriteStats::default();
    let mut changed = false;
    let paths: Vec<String> = published.iter().map(|p| p.path.clone()).collect();
    for p in published {
        stats.written += usize::from(p.written);
        stats.compressed += p.compressed;
        stats.cached += p.cached;
        changed |= p.written;
        manifest.files.insert(p.path, p.entry);
    }
    stats.files = manifest.files.len();
    for entry in manifest.files.values() {
        stats.bytes += entry.size;
        stats.compressed_bytes += entry.encodings.values().map(|e| e.size).sum::<u64>();
    }
    if changed {
        write_atomic(&out.join(MANIFEST_FILE), &json.render(manifest, &paths))?;
    }
    Ok(stats)
}

/// The manifest's JSON kept entry by entry between the rebuilds of one
/// session, so a rebuild serialises only the entries it published: the
/// bytes of `serde_json::to_vec_pretty` plus a final newline (tested).
#[derive(Default)]
pub struct ManifestJson {
    entries: HashMap<String, Vec<u8>>,
}

impl ManifestJson {
    /// The JSON of `manifest`, whose entries other than `changed` are those
    /// of the last call.
    pub fn render(&mut self, manifest: &Manifest, changed: &[String]) -> Vec<u8> {
        for path in changed {
            self.entries.remove(path);
        }
        // After a render every file has an entry, so more entries than files
        // means some files were removed since.
        if self.entries.len() > manifest.files.len() {
            self.entries
                .retain(|path, _| manifest.files.contains_key(path));
        }
        if manifest.files.is_empty() {
            let mut json = serde_json::to_vec_pretty(manifest).expect("a manifest serialises");
            json.push(b'\n');
            return json;
        }
        let mut json = Vec::with_capacity(manifest.files.len() * 768 + 256);
        json.extend_from_slice(format!("{{\n  \"format\": {},\n", manifest.format).as_bytes());
        if let Some(origin) = &manifest.api_origin {
            json.extend_from_slice(b"  \"api_origin\": ");
            serde_json::to_writer(&mut json, origin).expect("a string serialises");
            json.extend_from_slice(b",\n");
        }
        json.extend_from_slice(b"  \"files\": {\n");
        for (i, (path, entry)) in manifest.files.iter().enumerate() {
            if i > 0 {
                json.extend_from_slice(b",\n");
            }
            json.extend_from_slice(b"    ");
            serde_json::to_writer(&mut json, path).expect("a string serialises");
            json.extend_from_slice(b": ");
            if let Some(fragment) = self.entries.get(path) {
                json.extend_from_slice(fragment);
                continue;
            }
            // An entry two levels down: each of its lines indented by 4.
            let own = serde_json::to_vec_pretty(entry).expect("an entry serialises");
            let mut indented = Vec::with_capacity(own.len() + own.len() / 8);
            for &b in &own {
                indented.push(b);
                if b == b'\n' {
                    indented.extend_from_slice(b"    ");
                }
            }
            json.extend_from_slice(&indented);
            self.entries.insert(path.clone(), indented);
        }
        json.extend_from_slice(b"\n  }\n}\n");
        json
    }
}

/// One file published: its manifest entry, whether it was written, and
/// how its twins were made.
pub struct Published {
    path: String,
    entry: FileEntry,
    written: bool,
    compressed: usize,
    cached: usize,
}

/// Publishes `f` into `out`, where `old` is its entry in the build there
/// (kept as it is when the file is); `fresh` when `out` held nothing when
/// this build began, so no path can exist yet.
fn publish_one(
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
    } else if compressible && f.bytes.len() >= 256 {
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
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
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

/// Deletes files of earlier builds that this build does not publish.
fn remove_stale(out: &Path, manifest: &Manifest) -> Result<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, bytes: &[u8]) -> OutFile {
        OutFile {
            path: path.into(),
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn writes_twins_manifest_and_reuses_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("dist");
        let html = "<p>hello world</p>\n".repeat(100);
        let files = vec![
            file("index.html", html.as_bytes()),
            file("logo.png", &[0u8; 400]),
            file("tiny.txt", b"hi"),
        ];
        let (m, stats) = write_tree(&out, files.clone(), None, Twins::ALL).unwrap();
        assert_eq!(stats.written, 3);
        let e = &m.files["index.html"];
        assert_eq!(e.content_type, "text/html; charset=utf-8");
        assert_eq!(e.encodings.len(), 2);
        assert_ne!(e.encodings["br"].etag, e.etag);
        assert_ne!(e.encodings["gzip"].etag, e.encodings["br"].etag);
        let br = std::fs::read(out.join("index.html.br")).unwrap();
        let mut plain = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut plain).unwrap();
        assert_eq!(plain, html.as_bytes());
        let gz = std::fs::read(out.join("index.html.gz")).unwrap();
        let mut plain = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut plain)
            .unwrap();
        assert_eq!(plain, html);
        assert!(m.files["logo.png"].encodings.is_empty());
        assert!(m.files["tiny.txt"].encodings.is_empty());

        let (m2, stats2) = write_tree(&out, files, None, Twins::ALL).unwrap();
        assert_eq!(m, m2);
        assert_eq!(stats2.written, 0);

        let (_, stats3) =
            write_tree(&out, vec![file("index.html", b"changed")], None, Twins::ALL).unwrap();
        assert_eq!(stats3.written, 1);
        assert!(stats3.removed >= 3, "{stats3:?}");
        assert!(!out.join("logo.png").exists());
        assert!(
            !out.join("index.html.br").exists(),
            "stale twin left behind"
        );
    }

    /// Without `--precompress` no twin is written or listed; a build with
    /// the other setting into the same folder writes the twins, or removes
    /// them, even where no file's bytes changed.
    #[test]
    fn twins_only_when_precompressing_and_switching_rewrites_them() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("dist");
        let files = vec![file("index.html", &b"<p>hello world</p>\n".repeat(100))];
        let plain = Twins::default();
        let (m, stats) = write_tree(&out, files.clone(), None, plain).unwrap();
        assert!(m.files["index.html"].encodings.is_empty());
        assert_eq!((stats.written, stats.compressed), (1, 0));
        assert!(!out.join("index.html.br").exists());
        let (m, stats) = write_tree(&out, files.clone(), None, Twins::ALL).unwrap();
        assert_eq!(m.files["index.html"].encodings.len(), 2);
        assert_eq!((stats.written, stats.compressed), (1, 2));
        assert!(out.join("index.html.br").exists() && out.join("index.html.gz").exists());
        let (m, stats) = write_tree(&out, files, None, plain).unwrap();
        assert!(m.files["index.html"].encodings.is_empty());
        assert_eq!(stats.removed, 2);
        assert!(!out.join("index.html.br").exists() && !out.join("index.html.gz").exists());
    }

    #[test]
    fn the_manifest_json_kept_entry_by_entry_is_serde_json_pretty() {
        let dir = tempfile::tempdir().unwrap();
        let files = vec![
            file("index.html", &b"<!doctype html><p>x</p>".repeat(40)),
            file("a/b.json", b"{\"k\": \"\\u00e9 \\\"q\\\"\"}"),
            file("z.txt", b"plain"),
        ];
        let mut manifest = write_tree(dir.path(), files, None, Twins::ALL).unwrap().0;
        let whole = |m: &Manifest| {
            let mut j = serde_json::to_vec_pretty(m).unwrap();
            j.push(b'\n');
            j
        };
        let mut json = ManifestJson::default();
        assert_eq!(json.render(&manifest, &[]), whole(&manifest));
        manifest.api_origin = Some("https://api.example.org".into());
        manifest.files.get_mut("z.txt").unwrap().size = 99;
        assert_eq!(json.render(&manifest, &["z.txt".into()]), whole(&manifest));
        // Through republish: one file changed, the manifest on disk is
        // what serde_json writes.
        let memo = ChunkMemo::default();
        republish(
            dir.path(),
            &mut manifest,
            vec![file("a/b.json", b"{}")],
            Twins {
                memo: Some(&memo),
                ..Twins::ALL
            },
            &mut json,
        )
        .unwrap();
        assert_eq!(
            std::fs::read(dir.path().join(MANIFEST_FILE)).unwrap(),
            whole(&manifest)
        );
        assert_eq!(manifest.files["a/b.json"].size, 2);
    }

    #[test]
    fn refuses_foreign_non_empty_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("precious.txt"), b"x").unwrap();
        let err = write_tree(dir.path(), vec![file("a.txt", b"a")], None, Twins::ALL).unwrap_err();
        assert!(err.to_string().contains("refusing"));
        assert!(dir.path().join("precious.txt").exists());
    }

    #[test]
    fn rejects_escaping_paths() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x", "/abs", "a//b", "a\\b", "manifest.json"] {
            assert!(
                write_tree(dir.path(), vec![file(bad, b"x")], None, Twins::ALL).is_err(),
                "{bad}"
            );
        }
    }
}
