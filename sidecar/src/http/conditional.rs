//! Entity-tag preconditions: `If-None-Match` (→ 304) and `If-Range`
//! (RFC 9110 §13.1.2, §13.1.5).

/// Whether an `If-None-Match` value matches `etag` (a strong tag, quotes
/// included). RFC 9110 uses the weak comparison here, so `W/"x"` matches
/// `"x"`; `*` matches any current representation.
pub fn none_match(header: &[u8], etag: &[u8]) -> bool {
    // What a cache sends back: the tag itself.
    if header == etag {
        return true;
    }
    let mut rest = header;
    loop {
        while let [b' ' | b'\t' | b',', tail @ ..] = rest {
            rest = tail;
        }
        match rest {
            [] => return false,
            [b'*', ..] => return true,
            _ => {}
        }
        if let [b'W', b'/', tail @ ..] = rest {
            rest = tail;
        }
        let [b'"', tail @ ..] = rest else {
            return false;
        };
        let Some(end) = tail.iter().position(|b| *b == b'"') else {
            return false;
        };
        let candidate = &rest[..end + 2];
        if candidate == etag {
            return true;
        }
        rest = &tail[end + 1..];
    }
}

/// Whether an `If-Range` value lets a Range apply: it must be the current
/// strong ETag exactly. A date (we send no `Last-Modified`) or a weak tag
/// never matches, so the whole representation is sent instead.
pub fn if_range_matches(header: &[u8], etag: &[u8]) -> bool {
    header.trim_ascii() == etag
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAG: &[u8] = b"\"abc123\"";

    #[test]
    fn if_none_match_lists() {
        assert!(none_match(b"\"abc123\"", TAG));
        assert!(none_match(b"W/\"abc123\"", TAG));
        assert!(none_match(b"\"zzz\", \"abc123\"", TAG));
        assert!(none_match(b"\"a,b\",\"abc123\"", TAG));
        assert!(none_match(b"*", TAG));
        assert!(!none_match(b"\"abc12\"", TAG));
        assert!(!none_match(b"abc123", TAG));
        assert!(!none_match(b"\"abc123", TAG));
        assert!(!none_match(b"", TAG));
    }

    #[test]
    fn if_range_is_strong_and_exact() {
        assert!(if_range_matches(b" \"abc123\" ", TAG));
        assert!(!if_range_matches(b"W/\"abc123\"", TAG));
        assert!(!if_range_matches(b"Sat, 01 Jan 2000 00:00:00 GMT", TAG));
    }
}
