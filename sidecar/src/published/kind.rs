//! What the answers for every file of one kind share (type, cache policy,
//! security policy, `Link`, `Vary`), prepared once per kind.

use std::collections::HashMap;
use std::sync::Arc;

use http::header;
use http::{HeaderMap, HeaderValue};

use crate::http::access_log::X_REQUEST_ID;
use crate::http::negotiate::Coding;
use crate::http::{cors, security_headers};

const BYTES: HeaderValue = HeaderValue::from_static("bytes");
const BR: HeaderValue = HeaderValue::from_static("br");
const GZIP: HeaderValue = HeaderValue::from_static("gzip");

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
    /// `Vary`: `Accept-Encoding` when the files have twins from the build,
    /// or may get them here; `Accept` when they are pages with a Markdown
    /// twin, or such twins.
    pub vary: Option<HeaderValue>,
    /// Per coding (identity, brotli, gzip): the 200 answer's headers.
    pub(super) ok: [HeaderMap; 3],
    /// A 304 answer's headers, the ETag to fill in.
    pub(super) not_modified: HeaderMap,
}

/// The codings in the order of [`Kind`]'s prepared answers.
const CODINGS: [Coding; 3] = [Coding::Identity, Coding::Br, Coding::Gzip];

/// Where `coding`'s answer stands in [`CODINGS`].
pub fn slot(coding: Coding) -> usize {
    match coding {
        Coding::Identity => 0,
        Coding::Br => 1,
        Coding::Gzip => 2,
    }
}

/// What makes two files of a release one [`Kind`]: type, cache policy,
/// HTML, `Link`, `Vary`.
pub type KindKey = (
    HeaderValue,
    HeaderValue,
    bool,
    Option<HeaderValue>,
    Option<HeaderValue>,
);

/// The kinds of a release's files, and their header values, each made
/// once.
#[derive(Debug, Default)]
pub struct Kinds {
    kinds: HashMap<KindKey, Arc<Kind>>,
    values: HashMap<String, HeaderValue>,
    /// Representations prepared whole so far.
    pub prepared: usize,
}

impl Kinds {
    /// How many kinds there are.
    pub fn count(&self) -> usize {
        self.kinds.len()
    }

    /// `text` as a header value, shared by every file that uses it.
    pub fn value(&mut self, text: &str) -> anyhow::Result<HeaderValue> {
        if let Some(v) = self.values.get(text) {
            return Ok(v.clone());
        }
        let v = HeaderValue::try_from(text)?;
        self.values.insert(text.to_owned(), v.clone());
        Ok(v)
    }

    pub fn kind(&mut self, key: KindKey, csp: &HeaderValue, release: &HeaderValue) -> Arc<Kind> {
        self.kinds
            .entry(key.clone())
            .or_insert_with(|| {
                let (content_type, cache_control, html, link, vary) = key;
                Arc::new(Kind::new(Kind {
                    content_type,
                    cache_control,
                    csp: html.then(|| csp.clone()),
                    link,
                    release: release.clone(),
                    vary,
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
        let (etag, length) = (HeaderValue::from_static("\"\""), HeaderValue::from(0));
        kind.ok = CODINGS.map(|coding| {
            let mut h = HeaderMap::with_capacity(16);
            entity_headers(&mut h, &kind, &etag, coding, length.clone());
            cors::apply(&cors::Cors::Public, &mut h);
            security_headers::apply_all(&mut h);
            request_id_slot(&mut h);
            h
        });
        kind.not_modified = not_modified_headers(&kind, &etag);
        request_id_slot(&mut kind.not_modified);
        kind
    }
}

/// A place for the `X-Request-Id` that `router::finish` sets on every
/// answer. An answer's headers are a clone of these, which has no spare
/// room: without the place, setting the id grew the clone, one
/// reallocation of its entries per answer (some 600 instructions of a
/// 304's 16,000); with it, setting the id replaces this value.
fn request_id_slot(h: &mut HeaderMap) {
    h.insert(X_REQUEST_ID, HeaderValue::from_static("-"));
}

/// The headers describing a file's representation, as every 200 and 206
/// answer carries them.
pub fn entity_headers(
    h: &mut HeaderMap,
    entry: &Kind,
    etag: &HeaderValue,
    coding: Coding,
    content_length: HeaderValue,
) {
    h.insert(header::CONTENT_TYPE, entry.content_type.clone());
    h.insert(header::CONTENT_LENGTH, content_length);
    h.insert(header::ETAG, etag.clone());
    h.insert(header::CACHE_CONTROL, entry.cache_control.clone());
    h.insert(header::ACCEPT_RANGES, BYTES);
    if let Some(vary) = &entry.vary {
        h.insert(header::VARY, vary.clone());
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

/// Every header of a 304 answer to a revalidation of the representation
/// tagged `etag` of a file of kind `entry` (RFC 9110 §15.4.5: its ETag,
/// Cache-Control and Vary), with the public CORS headers and `nosniff`.
fn not_modified_headers(entry: &Kind, etag: &HeaderValue) -> HeaderMap {
    let mut h = HeaderMap::with_capacity(12);
    h.insert(header::ETAG, etag.clone());
    h.insert(header::CACHE_CONTROL, entry.cache_control.clone());
    if let Some(vary) = &entry.vary {
        h.insert(header::VARY, vary.clone());
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
