//! One published file: its representations (identity and compressed
//! twins, the build's or made on first use), the headers its answers share
//! with every file of its kind prepared once ([`Kind`]), and how a manifest
//! entry becomes one, checked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{Context, bail, ensure};
use bytes::Bytes;
use http::header;
use http::{HeaderMap, HeaderValue};

use crate::compress;
use crate::http::negotiate::Coding;
use crate::http::{cors, security_headers};

use contract::manifest::{FileEntry, MANIFEST_FILE};

const VARY_ENCODING: HeaderValue = HeaderValue::from_static(contract::headers::VARY_ENCODING);
const BYTES: HeaderValue = HeaderValue::from_static("bytes");
const BR: HeaderValue = HeaderValue::from_static("br");
const GZIP: HeaderValue = HeaderValue::from_static("gzip");

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
}

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

/// The headers that the answers for every file of one kind carry (one
/// type, cache policy, security policy, `Link` and `Vary`), prepared once
/// per kind: every header of a 200 answer, CORS and security headers
/// included, in the order they are sent, with the ETag and length still to
/// fill in. The common answer is one clone of a map and two inserts that
/// replace a value, instead of a dozen hashed inserts; a map per file would
/// hold more than the files at 10,000 pages.
#[derive(Debug)]
pub struct Kind {
    pub content_type: HeaderValue,
    pub cache_control: HeaderValue,
    /// The Content-Security-Policy of an HTML document (with the security
    /// headers that go with it); `None` for other files.
    pub csp: Option<HeaderValue>,
    /// A `Link` header to send with this file: the RFC 9727 api-catalog
    /// relation on the catalog itself and on the home page.
    pub link: Option<HeaderValue>,
    /// `X-Release`: the release these files were published in.
    pub release: HeaderValue,
    /// Answers for these files depend on `Accept-Encoding` (`Vary`): they
    /// have twins from the build, or may get them here.
    pub varies: bool,
    /// Per coding (identity, brotli, gzip): the 200 answer's headers.
    ok: [HeaderMap; 3],
    /// A 304 answer's headers, the ETag to fill in.
    not_modified: HeaderMap,
}

/// The codings in the order of [`Kind`]'s prepared answers.
const CODINGS: [Coding; 3] = [Coding::Identity, Coding::Br, Coding::Gzip];

/// Where `coding`'s answer stands in [`CODINGS`].
fn slot(coding: Coding) -> usize {
    match coding {
        Coding::Identity => 0,
        Coding::Br => 1,
        Coding::Gzip => 2,
    }
}

/// What makes two files of a release one [`Kind`]: type, cache policy,
/// HTML, `Link`, `Vary`.
type KindKey = (HeaderValue, HeaderValue, bool, Option<HeaderValue>, bool);

/// The kinds of a release's files, and their header values, each made
/// once.
#[derive(Debug, Default)]
pub(super) struct Kinds {
    kinds: HashMap<KindKey, Arc<Kind>>,
    values: HashMap<String, HeaderValue>,
}

impl Kinds {
    /// `text` as a header value, shared by every file that uses it.
    fn value(&mut self, text: &str) -> anyhow::Result<HeaderValue> {
        if let Some(v) = self.values.get(text) {
            return Ok(v.clone());
        }
        let v = HeaderValue::try_from(text)?;
        self.values.insert(text.to_owned(), v.clone());
        Ok(v)
    }

    fn kind(&mut self, key: KindKey, csp: &HeaderValue, release: &HeaderValue) -> Arc<Kind> {
        self.kinds
            .entry(key.clone())
            .or_insert_with(|| {
                let (content_type, cache_control, html, link, varies) = key;
                Arc::new(Kind::new(Kind {
                    content_type,
                    cache_control,
                    csp: html.then(|| csp.clone()),
                    link,
                    release: release.clone(),
                    varies,
                    ok: Default::default(),
                    not_modified: HeaderMap::new(),
                }))
            })
            .clone()
    }
}

impl Kind {
    /// `kind` with its answers' headers prepared.
    fn new(mut kind: Kind) -> Kind {
        let placeholder = |coding| Variant {
            source: Source::Memory(Bytes::new()),
            len: 0,
            etag: HeaderValue::from_static("\"\""),
            content_length: HeaderValue::from(0),
            coding,
        };
        kind.ok = CODINGS.map(|coding| {
            let mut h = HeaderMap::with_capacity(16);
            let v = placeholder(coding);
            entity_headers(&mut h, &kind, &v, coding, v.content_length.clone());
            cors::apply(&cors::Cors::Public, &mut h);
            security_headers::apply_all(&mut h);
            h
        });
        kind.not_modified = not_modified_headers(&kind, &placeholder(Coding::Identity));
        kind
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
        let mut h = self.kind.ok[slot(variant.coding)].clone();
        h.insert(header::CONTENT_LENGTH, variant.content_length.clone());
        h.insert(header::ETAG, variant.etag.clone());
        h
    }

    /// Every header of a 304 answer to a revalidation of `variant`.
    pub fn not_modified_headers(&self, variant: &Variant) -> HeaderMap {
        let mut h = self.kind.not_modified.clone();
        h.insert(header::ETAG, variant.etag.clone());
        h
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
            Some(Variant {
                content_length: HeaderValue::from(compressed.len()),
                len: compressed.len() as u64,
                source: Source::Memory(compressed),
                etag: HeaderValue::from_bytes(&etag).ok()?,
                coding,
            })
        };
        Twins {
            br: twin(br, "-br", Coding::Br),
            gzip: twin(gzip, "-gz", Coding::Gzip),
        }
    }
}

/// Loads the file `key` of the manifest: its bytes (and the build's twins)
/// into memory when `hold`, else only checked on disk.
pub(super) fn load_entry(
    root: &Path,
    key: &str,
    file: FileEntry,
    kinds: &mut Kinds,
    (csp, release): (&HeaderValue, &HeaderValue),
    hold: bool,
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
    let kind = kinds.kind(
        (content_type, cache_control, html, link, built || lazy),
        csp,
        release,
    );
    let twins = if lazy {
        OnceLock::new()
    } else {
        OnceLock::from(Box::new(Twins { br, gzip }))
    };
    Ok(Entry {
        key: key.to_owned(),
        kind,
        identity,
        twins,
        lazy,
    })
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

/// The headers describing a file's representation, as every 200 and 206
/// answer carries them.
pub fn entity_headers(
    h: &mut HeaderMap,
    entry: &Kind,
    variant: &Variant,
    coding: Coding,
    content_length: HeaderValue,
) {
    h.insert(header::CONTENT_TYPE, entry.content_type.clone());
    h.insert(header::CONTENT_LENGTH, content_length);
    h.insert(header::ETAG, variant.etag.clone());
    h.insert(header::CACHE_CONTROL, entry.cache_control.clone());
    h.insert(header::ACCEPT_RANGES, BYTES);
    if entry.varies {
        h.insert(header::VARY, VARY_ENCODING);
    }
    insert_encoding(h, coding);
    if let Some(link) = &entry.link {
        h.insert(header::LINK, link.clone());
    }
    if let Some(csp) = &entry.csp {
        security_headers::apply_html(h, csp);
    }
    h.insert(contract::headers::RELEASE, entry.release.clone());
}

/// Every header of a 304 answer to a revalidation of `variant`, a
/// representation of `entry` (RFC 9110 §15.4.5: its ETag, Cache-Control
/// and Vary), with the public CORS headers and `nosniff`.
fn not_modified_headers(entry: &Kind, variant: &Variant) -> HeaderMap {
    let mut h = HeaderMap::with_capacity(12);
    h.insert(header::ETAG, variant.etag.clone());
    h.insert(header::CACHE_CONTROL, entry.cache_control.clone());
    if entry.varies {
        h.insert(header::VARY, VARY_ENCODING);
    }
    h.insert(contract::headers::RELEASE, entry.release.clone());
    cors::apply(&cors::Cors::Public, &mut h);
    security_headers::apply_all(&mut h);
    h
}

/// `Content-Encoding` of a twin (`coding` is one the file has).
pub fn insert_encoding(h: &mut HeaderMap, coding: Coding) {
    match coding {
        Coding::Br => {
            h.insert(header::CONTENT_ENCODING, BR);
        }
        Coding::Gzip => {
            h.insert(header::CONTENT_ENCODING, GZIP);
        }
        Coding::Identity => {}
    }
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
