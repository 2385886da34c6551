//! Request-path normalisation.
//!
//! Static files are looked up in an in-memory map built from the manifest, so
//! no request path ever reaches the file system; this module still refuses
//! anything a hostile client could use to climb out of `dist/` on a server
//! that did, so a future change cannot quietly make it reachable. Paths that
//! need no work (the common case) are used as they are, without allocating.

use std::borrow::Cow;

/// Why a request path was refused; each maps to 400 `bad_request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathError {
    /// Not an origin-form path (`*`, absolute-form leftovers, empty).
    NotAbsolute,
    /// `%` not followed by two hex digits.
    BadEscape,
    /// Decoded bytes are not UTF-8.
    NotUtf8,
    /// NUL, another control character or a backslash.
    ForbiddenByte,
    /// A `..` segment, literal or encoded.
    DotDot,
}

impl PathError {
    /// A short explanation for the problem object's `detail`.
    pub fn detail(self) -> &'static str {
        match self {
            PathError::NotAbsolute => "The request target must be a path starting with '/'.",
            PathError::BadEscape => "The path contains a malformed percent-escape.",
            PathError::NotUtf8 => "The path does not decode to UTF-8.",
            PathError::ForbiddenByte => "The path contains a control character, NUL or backslash.",
            PathError::DotDot => "The path contains a '..' segment.",
        }
    }
}

/// Whether `raw` can be looked up as it is: no escapes, no empty, `.` or
/// `..` segments, no backslash or control bytes.
fn is_clean(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    if bytes.first() != Some(&b'/') {
        return false;
    }
    let mut prev_slash = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'%' | b'\\' => return false,
            b'/' => {
                if prev_slash {
                    return false;
                }
                prev_slash = true;
            }
            b'.' if prev_slash => {
                // `/.` followed by `/`, `.` or the end is a dot segment.
                match bytes.get(i + 1) {
                    None | Some(b'/') | Some(b'.') => return false,
                    _ => prev_slash = false,
                }
            }
            0..=0x1f | 0x7f => return false,
            _ => prev_slash = false,
        }
        i += 1;
    }
    true
}

/// The path to look up for the request path `raw` (without query): `raw`
/// itself when clean, else its percent-decoded form with empty and `.`
/// segments removed. `..` anywhere is refused rather than resolved: browsers
/// resolve dot segments before sending, so only hostile clients send them.
/// A trailing slash is kept, because it selects a directory's `index.html`.
pub fn normalise(raw: &str) -> Result<Cow<'_, str>, PathError> {
    if is_clean(raw) {
        return Ok(Cow::Borrowed(raw));
    }
    if !raw.starts_with('/') {
        return Err(PathError::NotAbsolute);
    }
    let decoded = percent_decode(raw.as_bytes())?;
    let decoded = String::from_utf8(decoded).map_err(|_| PathError::NotUtf8)?;
    if decoded.bytes().any(|b| b == b'\\' || b < 0x20 || b == 0x7f) {
        return Err(PathError::ForbiddenByte);
    }
    let mut out = String::with_capacity(decoded.len());
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err(PathError::DotDot),
            s => {
                out.push('/');
                out.push_str(s);
            }
        }
    }
    if out.is_empty() || decoded.ends_with('/') || decoded.ends_with("/.") {
        out.push('/');
    }
    Ok(Cow::Owned(out))
}

/// Decodes `%XX` escapes once (a `%252e` stays `%2e`: decoding twice is how
/// double-encoding attacks get through).
fn percent_decode(input: &[u8]) -> Result<Vec<u8>, PathError> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'%' {
            let hi = input.get(i + 1).and_then(|b| hex_value(*b));
            let lo = input.get(i + 2).and_then(|b| hex_value(*b));
            match (hi, lo) {
                (Some(hi), Some(lo)) => out.push(hi << 4 | lo),
                _ => return Err(PathError::BadEscape),
            }
            i += 3;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    Ok(out)
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(raw: &str) -> String {
        normalise(raw).expect(raw).into_owned()
    }

    #[test]
    fn clean_paths_are_borrowed() {
        for p in [
            "/",
            "/index.html",
            "/docs/a/",
            "/.well-known/api-catalog",
            "/a.b/c..d",
        ] {
            assert!(matches!(normalise(p), Ok(Cow::Borrowed(_))), "{p}");
        }
    }

    #[test]
    fn decoding_and_segments() {
        assert_eq!(ok("/%69ndex.html"), "/index.html");
        assert_eq!(ok("//docs//a/"), "/docs/a/");
        assert_eq!(ok("/./docs/./a"), "/docs/a");
        assert_eq!(ok("/docs/."), "/docs/");
        assert_eq!(ok("/files/my%20file.pdf"), "/files/my file.pdf");
        assert_eq!(ok("/%252e%252e/x"), "/%2e%2e/x");
        assert_eq!(ok("//"), "/");
    }

    #[test]
    fn hostile_paths_are_refused() {
        let cases = [
            ("/../etc/passwd", PathError::DotDot),
            ("/docs/../../x", PathError::DotDot),
            ("/%2e%2e/x", PathError::DotDot),
            ("/.%2e/x", PathError::DotDot),
            ("/..%2f..%2fetc", PathError::DotDot),
            ("/a/..", PathError::DotDot),
            ("/..\\x", PathError::ForbiddenByte),
            ("/%5c..%5cetc", PathError::ForbiddenByte),
            ("/docs/%00", PathError::ForbiddenByte),
            ("/a%0d%0aSet-Cookie:x", PathError::ForbiddenByte),
            ("/%zz", PathError::BadEscape),
            ("/%2", PathError::BadEscape),
            ("/%ff%fe", PathError::NotUtf8),
            ("*", PathError::NotAbsolute),
            ("", PathError::NotAbsolute),
        ];
        for (raw, want) in cases {
            assert_eq!(normalise(raw), Err(want), "{raw}");
        }
    }

    #[test]
    fn api_space() {}
}
