//! Writing the output tree: each file once, with `--precompress` its
//! compressed twins where smaller, the manifest, and nothing stale.
//!
//! A rebuild reads the previous manifest and skips writing and compressing
//! every file whose bytes did not change, so a no-change rebuild costs the
//! rendering and hashing only. Compression is deterministic, so reuse keeps
//! the output byte-identical to a clean build.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use crate::manifest::{self, MANIFEST_FILE, Manifest};

mod chunked;
mod compress;
mod manifest_file;
mod publish;
mod stale;

pub use chunked::ChunkMemo;
pub use manifest_file::{ManifestJson, read_manifest};
pub use publish::{OutFile, Published, Twins};
use publish::{publish_one, validate_path, write_atomic};

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
    publisher.finish(staged, None, api_origin, BTreeMap::new())
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
        site_origin: Option<String>,
        api_origin: Option<String>,
        redirects: BTreeMap<String, String>,
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
            site_origin,
            api_origin,
            files: BTreeMap::new(),
            redirects,
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
            stats.removed = stale::remove_stale(&self.out, &manifest)?;
        }

        manifest_file::write_manifest(&self.out, &manifest)?;
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
        // As a build writes it, its entries serialised in parallel.
        assert_eq!(
            std::fs::read(dir.path().join(MANIFEST_FILE)).unwrap(),
            whole(&manifest)
        );
        let mut json = ManifestJson::default();
        assert_eq!(json.render(&manifest, &[]), whole(&manifest));
        manifest.api_origin = Some("https://api.example.org".into());
        manifest.files.get_mut("z.txt").unwrap().size = 99;
        assert_eq!(json.render(&manifest, &["z.txt".into()]), whole(&manifest));
        // Moved pages come after the files.
        manifest.redirects.insert("/old/".into(), "/a/".into());
        manifest.redirects.insert("/older".into(), "/z.txt".into());
        assert_eq!(json.render(&manifest, &[]), whole(&manifest));
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
