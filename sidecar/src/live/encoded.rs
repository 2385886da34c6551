//! A rendered live body and its compressed twins.
//!
//! Static files come with `.br` and `.gz` twins made at build time; a live
//! body gets its twins here, made at most once per cache fill: the first
//! request that accepts a coding pays for compressing it, every later one
//! for as long as the body is cached gets the stored bytes. Bodies below
//! [`MIN_SIZE`] and twins that save less than 5 % are not worth a
//! `Content-Encoding` and stay identity — the rule the build uses.
//!
//! Each representation has its own strong ETag (`"<hex>"`, `"<hex>-br"`,
//! `"<hex>-gz"`), as RFC 9110 §8.8.3 asks of different content codings.

use std::sync::OnceLock;

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::request::Parts;
use sha2::{Digest, Sha256};

use crate::compress::{brotli, gzip, worth};
use crate::http::negotiate::{self, Coding};

/// Bodies smaller than this are sent as they are.
pub(crate) const MIN_SIZE: usize = 1024;

/// One live body, its strong ETag and lazily made twins.
#[derive(Debug)]
pub(crate) struct Encoded {
    identity: Bytes,
    hex: String,
    br: OnceLock<Option<Bytes>>,
    gzip: OnceLock<Option<Bytes>>,
}

/// The representation chosen for one request.
#[derive(Debug, Clone)]
pub(crate) struct Chosen {
    pub body: Bytes,
    pub etag: HeaderValue,
    /// `Content-Encoding`, when not identity.
    pub encoding: Option<HeaderValue>,
}

impl Encoded {
    /// An upper bound of the bytes this body can come to hold: the identity
    /// and both twins, each kept only when smaller than the identity.
    pub(crate) fn weight(&self) -> usize {
        self.identity.len().saturating_mul(3)
    }

    pub(crate) fn new(identity: Bytes) -> Encoded {
        let digest = Sha256::digest(&identity);
        let hex = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        Encoded {
            identity,
            hex,
            br: OnceLock::new(),
            gzip: OnceLock::new(),
        }
    }

    fn tag(&self, suffix: &str) -> HeaderValue {
        HeaderValue::try_from(format!("\"{}{suffix}\"", self.hex)).expect("hex is a valid header")
    }

    /// The representation for the request's `Accept-Encoding`.
    pub(crate) fn choose(&self, parts: &Parts) -> Chosen {
        let big = self.identity.len() >= MIN_SIZE;
        let accept = parts
            .headers
            .get(header::ACCEPT_ENCODING)
            .map(HeaderValue::as_bytes);
        let twin = match negotiate::choose(accept, big, big) {
            Coding::Identity => None,
            Coding::Br => self
                .br
                .get_or_init(|| worth(&self.identity, brotli(&self.identity)))
                .clone()
                .map(|b| (b, "-br", "br")),
            Coding::Gzip => self
                .gzip
                .get_or_init(|| worth(&self.identity, gzip(&self.identity)))
                .clone()
                .map(|b| (b, "-gz", "gzip")),
        };
        match twin {
            Some((body, suffix, coding)) => Chosen {
                body,
                etag: self.tag(suffix),
                encoding: Some(HeaderValue::from_static(coding)),
            },
            None => Chosen {
                body: self.identity.clone(),
                etag: self.tag(""),
                encoding: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn parts(accept_encoding: Option<&str>) -> Parts {
        let mut b = http::Request::get("/x");
        if let Some(v) = accept_encoding {
            b = b.header(header::ACCEPT_ENCODING, v);
        }
        b.body(()).unwrap().into_parts().0
    }

    fn body() -> Bytes {
        let row = r#"{"site_id":"nl-0001","parameter":"nitrate","value":1.25,"unit":"mg/L"},"#;
        Bytes::from(format!("[{}]", row.repeat(200)))
    }

    #[test]
    fn twins_decode_to_the_identity_and_have_their_own_etags() {
        let e = Encoded::new(body());
        let plain = e.choose(&parts(None));
        assert!(plain.encoding.is_none());
        assert_eq!(plain.body, body());

        let br = e.choose(&parts(Some("gzip, deflate, br")));
        assert_eq!(br.encoding.as_ref().unwrap(), "br");
        let mut decoded = Vec::new();
        brotli::Decompressor::new(&br.body[..], 4096)
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, body());

        let gz = e.choose(&parts(Some("gzip")));
        assert_eq!(gz.encoding.as_ref().unwrap(), "gzip");
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&gz.body[..])
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, body());

        let tags = [&plain.etag, &br.etag, &gz.etag];
        assert_ne!(tags[0], tags[1]);
        assert_ne!(tags[1], tags[2]);
        assert!(tags.iter().all(|t| t.as_bytes().starts_with(b"\"")));
    }

    #[test]
    fn a_twin_is_made_once() {
        let e = Encoded::new(body());
        let a = e.choose(&parts(Some("br")));
        let b = e.choose(&parts(Some("br")));
        assert_eq!(
            a.body.as_ptr(),
            b.body.as_ptr(),
            "the stored twin is reused"
        );
    }

    #[test]
    fn small_or_incompressible_bodies_stay_identity() {
        let small = Encoded::new(Bytes::from_static(b"{\"ok\":true}"));
        assert!(small.choose(&parts(Some("br"))).encoding.is_none());
        // Bytes that do not compress: a pseudo-random sequence.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let noisy = Encoded::new(Bytes::from(noise));
        let chosen = noisy.choose(&parts(Some("br, gzip")));
        assert!(chosen.encoding.is_none());
        assert_eq!(chosen.etag, noisy.tag(""));
    }
}
