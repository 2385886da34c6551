//! Percent-encoding of what goes back out in a `Location`: the path of a
//! directory redirect and the query string it keeps.

/// What a URI path keeps raw besides letters and digits (RFC 3986 §3.3:
/// unreserved, sub-delims, `:`, `@`, and `/` between segments).
pub const PATH_KEEPS: &[u8] = b"/-._~!$&'()*+,;=:@";
/// What a URI query keeps raw besides letters and digits (§3.4: a path's,
/// `?`, and `%` so that escapes a client sent stay as they were).
pub const QUERY_KEEPS: &[u8] = b"/-._~!$&'()*+,;=:@?%";

/// Appends `text` to `out`, every byte outside letters, digits and `keep`
/// percent-encoded.
pub fn percent_encode_into(out: &mut String, text: &str, keep: &[u8]) {
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_keeps_escapes_and_encodes_the_rest() {
        let mut out = String::new();
        percent_encode_into(&mut out, "a=1&b=%20 \"é\"", QUERY_KEEPS);
        assert_eq!(out, "a=1&b=%20%20%22%C3%A9%22");
    }
}
