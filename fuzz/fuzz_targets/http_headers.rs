//! The request path and the request headers the sidecar interprets, fed
//! arbitrary bytes: the path normaliser, `Range`, `If-None-Match` /
//! `If-Range`, `Accept-Encoding`, `Accept` and `Origin`. None may panic, and each
//! answer keeps its promise: a normalised path is absolute, has no `..`,
//! no empty segment, no backslash or control byte and (without escapes
//! left in it) normalises to itself; a partial range lies inside the file; a coding is one the file
//! has; Markdown is chosen only when `text/markdown` is named; an origin
//! is allowed only when it is one of the site's.
//!
//! The first byte picks the `Range` length and the twins present; the
//! rest is split at the first NUL into a header value and a path.

#![no_main]

use http::HeaderValue;
use libfuzzer_sys::fuzz_target;
use sidecar::http::negotiate::{Coding, choose, prefers_markdown};
use sidecar::http::range::{RangeRequest, parse as range};
use sidecar::http::{conditional, cors, paths};

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let (header, path) = match rest.iter().position(|&b| b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &rest[..0]),
    };

    if let Ok(raw) = std::str::from_utf8(path)
        && let Ok(clean) = paths::normalise(raw)
    {
        assert!(clean.starts_with('/'), "{clean:?}");
        assert!(!clean.split('/').any(|s| s == ".."), "{clean:?}");
        assert!(!clean.contains("//"), "{clean:?}");
        assert!(
            !clean.bytes().any(|b| b == b'\\' || b < 0x20 || b == 0x7f),
            "{clean:?}"
        );
        // Decoding is done once: a clean path without escapes left in it
        // normalises to itself (one with `%25…` decodes again, by design).
        if !clean.contains('%') {
            assert_eq!(
                paths::normalise(&clean).as_deref(),
                Ok(&*clean),
                "not stable"
            );
        }
    }

    let len = u64::from(control) * 37;
    if let RangeRequest::Partial { start, end } = range(header, len) {
        assert!(start <= end && end < len, "{start}-{end} of {len}");
    }

    let etag = b"\"0123456789abcdef0123456789abcdef\"";
    let _ = conditional::none_match(header, etag);
    let _ = conditional::if_range_matches(header, etag);
    assert!(conditional::none_match(b"*", etag));

    let (has_br, has_gzip) = (control & 1 == 1, control & 2 == 2);
    match choose(Some(header), has_br, has_gzip) {
        Coding::Br => assert!(has_br),
        Coding::Gzip => assert!(has_gzip),
        Coding::Identity => {}
    }

    if prefers_markdown(Some(header)) {
        let lower = header.to_ascii_lowercase();
        assert!(
            lower.windows(13).any(|w| w == b"text/markdown"),
            "Markdown chosen for {header:?}"
        );
    }

    if let Ok(origin) = HeaderValue::from_bytes(header) {
        let site = [HeaderValue::from_static("https://water.example.org")];
        if cors::origin_allowed(&site, &origin) {
            assert_eq!(origin.as_bytes(), site[0].as_bytes());
        }
    }
});
