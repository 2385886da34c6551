//! One published file: its representations (identity and compressed
//! twins, the build's or made on first use), the headers its answers share
//! with every file of its kind prepared once ([`Kind`]), and how a manifest
//! entry becomes one, checked.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{Context, bail, ensure};
use bytes::Bytes;
use http::header;
use http::{HeaderMap, HeaderValue};

use crate::compress;
use crate::http::negotiate::Coding;

use contract::manifest::{FileEntry, MANIFEST_FILE};

use super::kind::slot;
pub use super::kind::{Kind, Kinds, entity_headers, insert_encoding};

/// Files listed without twins get them here from this size on (the
/// build's threshold for `--precompress`).
pub const LAZY_FROM: usize = contract::compression::TWIN_FROM;

/// Where a representation's bytes are.
#[derive(Debug, Clone)]
enum Source {
    Memory(Bytes),
    /// In the release's directory, read at each request: a large site's
    /// pages and search files, which a sidecar behind a CDN seldom serves.
    Disk(PathBuf),
}

/// One representation's bytes and pre-rendered headers.
#[derive(Debug, Clone)]
pub struct Variant {
    source: Source,
    /// The length of the bytes.
    pub len: u64,
    pub etag: HeaderValue,
    pub content_length: HeaderValue,
    /// The coding this representation is answered with.
    coding: Coding,
    /// Its 200 and 304 answers' headers, complete, for the first
    /// [`PREPARED`] representations held in memory: their answer is one
    /// clone, with no insert (a small site's every file).
    prepared: Option<Box<[HeaderMap; 2]>>,
}

/// How many representations of a release get their answers' headers
/// prepared whole (about 3.5 KiB each): every one of a small site's, the
/// first (assets, discovery documents) of a large one's.
const PREPARED: usize = 512;

impl Variant {
    /// The bytes: held, or read from the release's directory now.
    pub fn bytes(&self) -> std::io::Result<Bytes> {
        match &self.source {
            Source::Memory(bytes) => Ok(bytes.clone()),
            Source::Disk(path) => {
                let bytes = std::fs::read(path)?;
                if bytes.len() as u64 != self.len {
                    return Err(std::io::Error::other(format!(
                        "{} changed on disk since the release was loaded",
                        path.display()
                    )));
                }
                Ok(Bytes::from(bytes))
            }
        }
    }

    /// Bytes `range` of this representation: a slice of the held bytes,
    /// or read from the release's directory now.
    pub fn read_range(&self, range: std::ops::Range<usize>) -> std::io::Result<Bytes> {
        let past = || std::io::Error::other("a range past the end of the file");
        match &self.source {
            Source::Memory(bytes) => bytes
                .get(range.clone())
                .map(|_| bytes.slice(range))
                .ok_or_else(past),
            Source::Disk(path) => {
                use std::os::unix::fs::FileExt;
                if range.end as u64 > self.len || range.start > range.end {
                    return Err(past());
                }
                let file = std::fs::File::open(path)?;
                let mut buf = vec![0; range.len()];
                file.read_exact_at(&mut buf, range.start as u64)?;
                Ok(Bytes::from(buf))
            }
        }
    }

    /// Bytes held in memory.
    pub fn held(&self) -> u64 {
        match self.source {
            Source::Memory(_) => self.len,
            Source::Disk(_) => 0,
        }
    }
}

/// A published file.
#[derive(Debug)]
pub struct Entry {
    /// Manifest key (path relative to dist).
    pub key: String,
    /// What its answers share with other files of its kind.
    pub kind: Arc<Kind>,
    pub identity: Variant,
    /// The compressed twins: the build's, set at load, or made here the
    /// first time a client accepts one (when `lazy`).
    twins: OnceLock<Box<Twins>>,
    /// The build listed no twins for this compressible file: they are made
    /// on first use.
    lazy: bool,
}

/// A representation with no bytes, whose headers say so.
pub(super) fn placeholder(coding: Coding) -> Variant {
    Variant {
        source: Source::Memory(Bytes::new()),
        len: 0,
        etag: HeaderValue::from_static("\"\""),
        content_length: HeaderValue::from(0),
        coding,
        prepared: None,
    }
}

/// A part of the build's passages, their text read from it again.
impl crate::search::TextSource for Entry {
    fn read_range(&self, bytes: std::ops::Range<usize>) -> std::io::Result<Bytes> {
        self.identity.read_range(bytes)
    }
}

/// A file's compressed representations, each present only where smaller.
#[derive(Debug, Default)]
pub struct Twins {
    pub br: Option<Variant>,
    pub gzip: Option<Variant>,
}

impl Entry {
    /// The twins this file may be answered with before they are made:
    /// `(br, gzip)`; all of them while a lazy file's are not made yet.
    pub fn offers(&self) -> (bool, bool) {
        match self.twins.get() {
            Some(t) => (t.br.is_some(), t.gzip.is_some()),
            None => (self.lazy, self.lazy),
        }
    }

    /// Bytes held now: the identity and the twins made so far.
    pub fn loaded_bytes(&self) -> u64 {
        let twins = self.twins.get();
        let len = |v: Option<&Variant>| v.map_or(0, Variant::held);
        self.identity.held()
            + len(twins.and_then(|t| t.br.as_ref()))
            + len(twins.and_then(|t| t.gzip.as_ref()))
    }

    /// The twins, made now if this is the first use of a lazy file's.
    pub fn twins(&self) -> &Twins {
        self.twins.get_or_init(|| Box::new(self.make_twins()))
    }

    /// The variant for `coding`, if this file has it (made now when lazy);
    /// identity always.
    pub fn get(&self, coding: Coding) -> Option<&Variant> {
        match coding {
            Coding::Br => self.twins().br.as_ref(),
            Coding::Gzip => self.twins().gzip.as_ref(),
            Coding::Identity => Some(&self.identity),
        }
    }

    /// The variant for a coding chosen by negotiation over this entry.
    pub fn variant(&self, coding: Coding) -> &Variant {
        self.get(coding).unwrap_or(&self.identity)
    }

    /// Every header of a 200 answer with `variant`, one of this file's
    /// representations.
    pub fn ok_headers(&self, variant: &Variant) -> HeaderMap {
        if let Some(p) = &variant.prepared {
            return p[0].clone();
        }
        let mut h = self.kind.ok[slot(variant.coding)].clone();
        h.insert(header::CONTENT_LENGTH, variant.content_length.clone());
        h.insert(header::ETAG, variant.etag.clone());
        h
    }

    /// Every header of a 304 answer to a revalidation of `variant`.
    pub fn not_modified_headers(&self, variant: &Variant) -> HeaderMap {
        if let Some(p) = &variant.prepared {
            return p[1].clone();
        }
        let mut h = self.kind.not_modified.clone();
        h.insert(header::ETAG, variant.etag.clone());
        h
    }

    /// Prepares `variant`'s answers' headers whole.
    fn prepare(&self, variant: &mut Variant) {
        let ok = self.ok_headers(variant);
        let not_modified = self.not_modified_headers(variant);
        variant.prepared = Some(Box::new([ok, not_modified]));
    }

    fn make_twins(&self) -> Twins {
        let Source::Memory(bytes) = &self.identity.source else {
            return Twins::default();
        };
        if !self.lazy {
            return Twins::default();
        }
        let (br, gzip) = (compress::brotli(bytes), compress::gzip(bytes));
        let tag = self.identity.etag.as_bytes();
        let twin = |compressed: Vec<u8>, suffix: &str, coding| {
            // Kept only when it saves 5 %, like the build's twins.
            let compressed = compress::worth(bytes, compressed)?;
            let etag = [&tag[..tag.len() - 1], suffix.as_bytes(), b"\""].concat();
            let mut variant = Variant {
                content_length: HeaderValue::from(compressed.len()),
                len: compressed.len() as u64,
                source: Source::Memory(compressed),
                etag: HeaderValue::from_bytes(&etag).ok()?,
                coding,
                prepared: None,
            };
            if self.identity.prepared.is_some() {
                self.prepare(&mut variant);
            }
            Some(variant)
        };
        Twins {
            br: twin(br, "-br", Coding::Br),
            gzip: twin(gzip, "-gz", Coding::Gzip),
        }
    }
}

/// Loads the file `key` of the manifest: its bytes (and the build's twins)
/// into memory when `hold`, else only checked on disk. `negotiated`: it is
/// a page with a Markdown twin, or such a twin (its answers vary by
/// `Accept`).
pub(super) fn load_entry(
    root: &Path,
    (key, file): (&str, FileEntry),
    kinds: &mut Kinds,
    (csp, release): (&HeaderValue, &HeaderValue),
    (hold, negotiated): (bool, bool),
) -> anyhow::Result<Entry> {
    let identity = load_variant(root, key, file.size, &file.etag, hold, Coding::Identity)?;
    let mut br = None;
    let mut gzip = None;
    for (name, encoded) in file.encodings {
        let coding = match name.as_str() {
            "br" => Coding::Br,
            "gzip" => Coding::Gzip,
            other => {
                tracing::warn!(
                    file = key,
                    coding = other,
                    "ignoring an unknown content coding"
                );
                continue;
            }
        };
        let variant = load_variant(
            root,
            &encoded.path,
            encoded.size,
            &encoded.etag,
            hold,
            coding,
        )
        .with_context(|| format!("{name} twin {:?}", encoded.path))?;
        ensure!(
            variant.etag != identity.etag,
            "the {name} twin has the identity ETag"
        );
        match coding {
            Coding::Br => br = Some(variant),
            _ => gzip = Some(variant),
        }
    }
    let content_type = kinds
        .value(&file.content_type)
        .with_context(|| format!("content_type {:?}", file.content_type))?;
    let cache_control = kinds
        .value(&file.cache_control)
        .with_context(|| format!("cache_control {:?}", file.cache_control))?;
    let html = contract::headers::is_html(&file.content_type);
    let link = contract::headers::link(key).map(HeaderValue::from_static);
    let built = br.is_some() || gzip.is_some();
    // Twins made here are held in memory: only for files held there too.
    let lazy = !built
        && hold
        && contract::media::compressible(&file.content_type)
        && identity.len >= LAZY_FROM as u64;
    let vary = contract::headers::vary(built || lazy, negotiated).map(HeaderValue::from_static);
    let kind = kinds.kind(
        (content_type, cache_control, html, link, vary),
        csp,
        release,
    );
    let mut entry = Entry {
        key: key.to_owned(),
        kind,
        identity,
        twins: OnceLock::new(),
        lazy,
    };
    let mut twins = Twins { br, gzip };
    if hold && kinds.prepared < PREPARED {
        let mut identity = std::mem::replace(&mut entry.identity, placeholder(Coding::Identity));
        entry.prepare(&mut identity);
        entry.identity = identity;
        for v in [twins.br.as_mut(), twins.gzip.as_mut()]
            .into_iter()
            .flatten()
        {
            entry.prepare(v);
        }
        kinds.prepared += 1 + usize::from(twins.br.is_some()) + usize::from(twins.gzip.is_some());
    }
    if !lazy {
        entry.twins = OnceLock::from(Box::new(twins));
    }
    Ok(entry)
}

fn load_variant(
    root: &Path,
    rel: &str,
    size: u64,
    etag: &str,
    hold: bool,
    coding: Coding,
) -> anyhow::Result<Variant> {
    let path = resolve_inside(root, rel)?;
    let (source, len) = if hold {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let len = bytes.len() as u64;
        (Source::Memory(Bytes::from(bytes)), len)
    } else {
        let meta =
            std::fs::metadata(&path).with_context(|| format!("reading {}", path.display()))?;
        ensure!(meta.is_file(), "{} is not a file", path.display());
        (Source::Disk(path.clone()), meta.len())
    };
    ensure!(
        len == size,
        "{} has {len} bytes, the manifest says {size}",
        path.display(),
    );
    ensure!(is_strong_etag(etag), "{etag:?} is not a strong entity tag");
    Ok(Variant {
        content_length: HeaderValue::from(len),
        len,
        source,
        etag: HeaderValue::try_from(etag)?,
        coding,
        prepared: None,
    })
}

/// `dist/<rel>` if `rel` is a plain relative path whose real location
/// (symlinks followed) is inside `dist/`.
fn resolve_inside(root: &Path, rel: &str) -> anyhow::Result<PathBuf> {
    if rel.is_empty()
        || rel.starts_with('/')
        || rel.contains('\\')
        || rel.bytes().any(|b| b < 0x20 || b == 0x7f)
        || rel
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
    {
        bail!("{rel:?} is not a plain relative path");
    }
    if rel == MANIFEST_FILE {
        bail!("the manifest must not list itself");
    }
    let path = root.join(rel);
    let real = path
        .canonicalize()
        .with_context(|| format!("resolving {}", path.display()))?;
    ensure!(
        real.starts_with(root),
        "{} resolves outside dist",
        path.display()
    );
    Ok(real)
}

/// `"` + etagc* + `"` (RFC 9110 §8.8.3), not weak.
fn is_strong_etag(tag: &str) -> bool {
    let b = tag.as_bytes();
    b.len() >= 2
        && b[0] == b'"'
        && b[b.len() - 1] == b'"'
        && b[1..b.len() - 1]
            .iter()
            .all(|c| *c == 0x21 || (0x23..=0x7e).contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etag_syntax() {
        assert!(is_strong_etag("\"0123abcd\""));
        assert!(!is_strong_etag("W/\"0123\""));
        assert!(!is_strong_etag("0123"));
        assert!(!is_strong_etag("\"a\"b\""));
    }

    #[test]
    fn headers_prepared_whole_equal_those_of_the_kind() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.html"), "<p>a</p>").unwrap();
        let file = FileEntry {
            size: 8,
            sha256: String::new(),
            etag: "\"0a\"".into(),
            content_type: "text/html; charset=utf-8".into(),
            cache_control: "no-cache".into(),
            encodings: Default::default(),
        };
        let (csp, release) = (
            HeaderValue::from_static("default-src 'self'"),
            HeaderValue::from_static("r1"),
        );
        let mut kinds = Kinds::default();
        for (hold, prepared) in [(true, true), (false, false)] {
            let entry = load_entry(
                &root,
                ("a.html", file.clone()),
                &mut kinds,
                (&csp, &release),
                (hold, false),
            )
            .unwrap();
            assert_eq!(entry.identity.prepared.is_some(), prepared);
            let mut unprepared = entry.identity.clone();
            unprepared.prepared = None;
            let ok = entry.ok_headers(&entry.identity);
            assert_eq!(ok, entry.ok_headers(&unprepared));
            assert_eq!(ok[header::ETAG], "\"0a\"");
            assert_eq!(ok[header::CONTENT_LENGTH], "8");
            assert_eq!(ok[contract::headers::RELEASE], "r1");
            assert!(ok.contains_key(header::CONTENT_SECURITY_POLICY));
            let not_modified = entry.not_modified_headers(&entry.identity);
            assert_eq!(not_modified, entry.not_modified_headers(&unprepared));
            assert_eq!(not_modified[header::ETAG], "\"0a\"");
            assert!(!not_modified.contains_key(header::CONTENT_LENGTH));
        }
        assert_eq!(kinds.count(), 1, "one kind for both");
    }

    #[test]
    fn manifest_keys_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        assert!(resolve_inside(&root, "a.txt").is_ok());
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a\\b",
            "./a.txt",
            "a//b",
            "manifest.json",
        ] {
            assert!(resolve_inside(&root, bad).is_err(), "{bad}");
        }
    }
}
